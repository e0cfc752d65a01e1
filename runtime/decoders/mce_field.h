/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_field.h - a field of MCi_STATUS and its words, the way the model-specific tables
 * (mce_skx.h, mce_i10nm.h) describe a CPU model's error codes, and a record's CPU family
 * and model. No kernel types: the module and hwtap-run read the same tables.
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

/* The family and model of a CPU from its CPUID signature (leaf 1's EAX, a record's
 * cpuid), as the kernel reckons them (x86_family(), x86_model()) and /proc/cpuinfo, where
 * rasdaemon reads them, shows them: the extended family added to a base family of 15; the
 * extended model above the base one from base family 6 up (Intel's 6 and 15, Zhaoxin's
 * 7: KH-50000 is family 7 model 0x7b). */
static inline unsigned int _hwtap_cpuid_family(unsigned long long cpuid)
{
	unsigned int family = cpuid >> 8 & 15;

	return family == 15 ? family + (unsigned int)(cpuid >> 20 & 255) : family;
}

static inline unsigned int _hwtap_cpuid_model(unsigned long long cpuid)
{
	unsigned int model = cpuid >> 4 & 15;

	return (cpuid >> 8 & 15) >= 6 ? model | (unsigned int)(cpuid >> 16 & 15) << 4 : model;
}

#endif
