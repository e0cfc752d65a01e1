/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_words.h - rasdaemon's way of writing a machine check's words, in C that the module
 * (the tapset's embedded C) and hwtap-run both compile: texts that grow a piece at a
 * time, one space between (its mce_snprintf()); its field lists (decode_bitfield()) and
 * numbers (decode_numfield()). For mce_intel.h and mce_k8.h. No kernel types, only
 * strlen and vsnprintf, which both sides have: include <stdarg.h>, <stdio.h> and
 * <string.h> (user space) or the kernel's headers first.
 */
#ifndef HWTAP_MCE_WORDS_H
#define HWTAP_MCE_WORDS_H

#include "mce_field.h"

/* One of rasdaemon's fields: a code at START, words[code] (as wide as the table: the
 * smallest all-ones mask not below its last index); a flag is a code of one bit. */
struct _hwtap_mce_code {
	unsigned char start;
	const char *const *words;
	unsigned short n;
};
#define _HWTAP_FLAG(bit, word) { bit, (const char *const []){ NULL, word }, 2 }
#define _HWTAP_CODE(start, words) { start, words, _HWTAP_NELEM(words) }

/* One of rasdaemon's numbers: bits START..END, "NAME: value" (decimal, or HEX), printed
 * when not 0 or when FORCE. */
struct _hwtap_mce_number {
	unsigned char start, end, hex, force;
	const char *name;
};

/* A text that grows as rasdaemon's do: each piece after the first after a space; S NULL:
 * a text the caller does not want. */
struct _hwtap_mce_text {
	char *s;
	unsigned int size;
};

/* The texts of a record the model-specific words go to, as rasdaemon's columns. NL:
 * what ends a number ("\n" as rasdaemon writes it, "" for a script). DRAM: where the
 * DRAM address a memory channel's MCi_MISC holds goes instead of error_msg, if set (a
 * script's mce_memory_location_str()). */
struct _hwtap_mce_texts {
	struct _hwtap_mce_text bank_name, error_msg, mcistatus_msg, mcastatus_msg, mc_location;
	const char *nl;
	struct _hwtap_mce_text dram;
};

static __attribute__((unused)) __attribute__((format(printf, 2, 3))) void
_hwtap_mce_add(struct _hwtap_mce_text *t, const char *fmt, ...)
{
	unsigned int n;
	va_list ap;

	if (!t->s || !t->size)
		return;
	n = strlen(t->s);
	if (n + 1 >= t->size)
		return;
	if (n)
		t->s[n++] = ' ', t->s[n] = '\0';
	va_start(ap, fmt);
	vsnprintf(t->s + n, t->size - n, fmt, ap);
	va_end(ap);
}

/* rasdaemon's decode_bitfield(): each field's word, or <START:HEX> for a code it does
 * not name (but 0). */
static __attribute__((unused)) void _hwtap_mce_codes(struct _hwtap_mce_text *t, const struct _hwtap_mce_code *f,
			     unsigned int n, unsigned long long value)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned long long mask = 1, v;

		while (mask < (unsigned long long)f[i].n - 1)
			mask = mask << 1 | 1;
		v = value >> f[i].start & mask;
		if (v < f[i].n && f[i].words[v])
			_hwtap_mce_add(t, "%s", f[i].words[v]);
		else if (v)
			_hwtap_mce_add(t, "<%u:%llx>", f[i].start, v);
	}
}

/* rasdaemon's decode_numfield(). */
static __attribute__((unused)) void _hwtap_mce_numbers(struct _hwtap_mce_texts *t, const struct _hwtap_mce_number *f,
			       unsigned int n, unsigned long long value)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int width = f[i].end - f[i].start + 1;
		unsigned long long v = value >> f[i].start &
				       (width >= 64 ? ~0ULL : (1ULL << width) - 1);

		if (v || f[i].force)
			_hwtap_mce_add(&t->error_msg, f[i].hex ? "%s: %llx%s" : "%s: %llu%s",
				       f[i].name, v, t->nl);
	}
}

/* A code whose meaning the high byte of MSCOD chooses (bits 31:24 of MCi_STATUS), as
 * rasdaemon's switch over it in the Granite and Diamond Rapids decoders: the table for
 * that byte reads the low one (bits 23:16); no table, no words. */
struct _hwtap_mce_by_high {
	unsigned char high;
	struct _hwtap_mce_code code;
};

static __attribute__((unused)) void _hwtap_mce_by_high(struct _hwtap_mce_text *t,
							const struct _hwtap_mce_by_high *tables,
							unsigned int n, unsigned long long status)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (tables[i].high == (status >> 24 & 0xff))
			_hwtap_mce_codes(t, &tables[i].code, 1, status >> 16 & 0xff);
}

#define _HWTAP_BY_HIGH(t, tables, v) _hwtap_mce_by_high(t, tables, _HWTAP_NELEM(tables), v)
#define _HWTAP_CODES(t, table, v) _hwtap_mce_codes(t, table, _HWTAP_NELEM(table), v)
#define _HWTAP_NUMBERS(t, table, v) _hwtap_mce_numbers(t, table, _HWTAP_NELEM(table), v)

#endif
