/* format.c - printf's directives, read in one place for pass 2's checks (sema.c) and
 * pass 3's code (translate_print.c). */
#include "hwtap.h"

#include <string.h>

/* A width or precision: digits (saturating at FMT_MAX, more than any output holds), '*'
 * (FMT_STAR: from an argument), or nothing (-1). */
static int field(const char **p)
{
	if (**p == '*') {
		(*p)++;
		return FMT_STAR;
	}
	if (**p < '0' || **p > '9')
		return -1;
	int n = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		n = n >= FMT_MAX / 10 ? FMT_MAX : n * 10 + (**p - '0');
	return n;
}

/* directive = flag* field? ("." field?)? "l"? conversion     (after the '%')
 * flag = "-" | "+" | " " | "#" | "0"
 * conversion = "d" | "i" | "o" | "x" | "X" | "u" | "c" | "p" | "b" | "m" | "M" | "s"
 * SystemTap takes %ld, not %lld or %hd; "%.d" has precision 0. It takes one flag: a '0'
 * after another flag starts the width ("%-05d" is left-justified in 5, no zeros). */
const char *format_directive(const char *p, Directive *d, const char **conv_at)
{
	static const char flag_chars[] = "-+ #0";
	static const unsigned flag_bits[] = {FMT_LEFT, FMT_PLUS, FMT_SPACE, FMT_SPECIAL,
					     FMT_ZEROPAD};
	const char *start = p;
	*d = (Directive){.width = -1, .prec = -1};
	for (const char *f; *p && (f = strchr(flag_chars, *p)) && (*p != '0' || p == start); p++)
		d->flags |= flag_bits[f - flag_chars];
	d->width = field(&p);
	if (*p == '.') {
		p++;
		d->prec = field(&p);
		if (d->prec == -1)
			d->prec = 0;
	}
	if (*p == 'l')
		p++;
	*conv_at = p;
	d->conv = *p;
	if (*p && strchr("dioxXucpbmM", *p))
		d->type = TY_LONG;
	else if (*p == 's')
		d->type = TY_STRING;
	else
		return NULL;
	return p + 1;
}
