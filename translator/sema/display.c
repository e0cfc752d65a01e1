/* display.c - SystemTap's end-of-run print of the globals a script writes but never reads.
 *
 * Like stap, pass 2 adds an end probe, run after the script's own end probes of priority
 * 0, that prints every global of the script that is written (=, op=, ++, <<<, delete) and
 * whose value nothing reads, one line per scalar or element:
 *
 *   count=42                    name="hello"
 *   arr[3]=30                   pairs["b",2]=2
 *   st @count=3 @min=1 @max=9 @sum=15 @avg=5      (nothing while empty)
 *   sa["y"] @count=2 @min=4 @max=6 @sum=10 @avg=5
 *
 * Elements come by value, largest first (statistics by @count), equal ones in the order
 * they were added; globals in the order pass 2 first met them (the probes in order, then
 * the functions they call), as stap's output shows. The probe is written here in the
 * script language and elaborated like the script's own code.
 */
#include "hwtap.h"

#include <string.h>

static const char stat_fields[] = " @count=%d @min=%d @max=%d @sum=%d @avg=%d\\n";

/* the printf directive and its argument for one value of type t */
static const char *directive_for(Type t)
{
	return t == TY_STRING ? "\\\"%s\\\"" : "%d";
}

/* the arguments after stat_fields for statistics s (a global or an element) */
static void stat_args(StrBuf *sb, const char *s)
{
	static const char *const ops[] = {"count", "min", "max", "sum", "avg"};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		sb_printf(sb, ", @%s(%s)", ops[i], s);
}

static void scalar(StrBuf *sb, Symbol *sym)
{
	if (sym->type == TY_STATS) {
		sb_printf(sb, "\tif (@count(%s))\n\t\tprintf(\"%s%s\"", sym->name, sym->name,
			  stat_fields);
		stat_args(sb, sym->name);
		sb_puts(sb, ")\n");
		return;
	}
	sb_printf(sb, "\tprintf(\"%s=%s\\n\", %s)\n", sym->name, directive_for(sym->type),
		  sym->name);
}

/* the keys are locals of their own: each array's loop types them */
static void array(StrBuf *sb, Symbol *sym, int id)
{
	StrBuf keys = {0}, fmt = {0};
	for (int i = 0; i < sym->arity; i++) {
		sb_printf(&keys, "%s__display%d_k%d", i ? ", " : "", id, i);
		sb_printf(&fmt, "%s%s", i ? "," : "", directive_for(sym->key_types[i]));
	}
	char *elem = xformat("%s[%s]", sym->name, keys.buf);
	if (sym->type == TY_STATS) {
		sb_printf(sb, "\tforeach ([%s] in %s @count-)\n\t\tprintf(\"%s[%s]%s\", %s",
			  keys.buf, sym->name, sym->name, fmt.buf, stat_fields, keys.buf);
		stat_args(sb, elem);
		sb_puts(sb, ")\n");
		return;
	}
	sb_printf(sb, "\tforeach ([%s] in %s-)\n\t\tprintf(\"%s[%s]=%s\\n\", %s, %s)\n", keys.buf,
		  sym->name, sym->name, fmt.buf, directive_for(sym->type), keys.buf, elem);
}

char *display_source(VEC(Symbol *) *syms)
{
	if (!syms->len)
		return NULL;
	StrBuf sb = {0};
	sb_puts(&sb, "probe end {\n");
	for (int i = 0; i < syms->len; i++) {
		Symbol *sym = syms->data[i];
		if (sym->arity > 0)
			array(&sb, sym, i);
		else
			scalar(&sb, sym);
	}
	sb_puts(&sb, "}\n");
	return sb.buf;
}
