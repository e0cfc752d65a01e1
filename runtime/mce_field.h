/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_field.h - a field of MCi_STATUS and its words, the way the model-specific tables
 * (mce_skx.h, mce_i10nm.h) describe a CPU model's error codes. Data only, no kernel
 * types: the module and hwtap-run read the same tables.
 */
#ifndef HWTAP_MCE_FIELD_H
#define HWTAP_MCE_FIELD_H

#ifndef _HWTAP_NELEM
#define _HWTAP_NELEM(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* A field and its words: a code (START and up, as wide as the table needs, the smallest
 * all-ones mask not below its last index: words[code]) or, for BITS, one flag per bit
 * (words[bit] when it is set). */
struct _hwtap_mce_field {
	unsigned int start;
	int bits;
	const char *const *words;
	unsigned int n;
};

#define _HWTAP_MCE_FIELD(start, bits, words) { start, bits, words, _HWTAP_NELEM(words) }

#endif
