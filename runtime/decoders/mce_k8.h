/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_k8.h - the words rasdaemon 0.8.5 writes for a machine check of an AMD family 0Fh
 * processor (K8: Athlon 64, Opteron; rasdaemon's "AMD K8 and derivates", mce-amd-k8.c,
 * adapted there from mcelog): the bank's name, the data and instruction caches', bus
 * unit's and northbridge's extended error codes, the error code forms, the threshold
 * banks. Taken entry by entry, quirks and all: its list of the status's high bits is read
 * one bit off (bit N+1 names entry N) with bit 5 silencing it (an argument order mistake:
 * the high-bits offset went where the ignored bits go); words end with the space its
 * "(...) " leaves. rasdaemon stores no record of a northbridge GART error: neither does
 * hwtap-run. C both sides compile (mce_words.h).
 */
#ifndef HWTAP_MCE_K8_H
#define HWTAP_MCE_K8_H

#include "mce_words.h"

#define _HWTAP_K8_THRESHOLD_BASE 129	/* the kernel's threshold banks: 128 + 1 ... */
#define _HWTAP_K8_THRESHOLD_TOP (129 + 6 * 9)

static const char *const _hwtap_k8_banks[6] = {
	"data cache", "instruction cache", "bus unit", "load/store unit", "northbridge",
	"fixed-issue reorder",
};
/* the threshold banks' names, by bank - 129 (36-39: the northbridge's MC4_MISC0-3) */
static const char *const _hwtap_k8_thresholds[4] = {
	"MC4_MISC0 DRAM threshold", "MC4_MISC1 Link threshold",
	"MC4_MISC2 L3 Cache threshold", "MC4_MISC3 FBDIMM threshold",
};
static const char *const _hwtap_k8_transaction[4] = {
	"instruction", "data", "generic", "reserved",
};
static const char *const _hwtap_k8_level[4] = { "0", "1", "2", "generic" };
static const char *const _hwtap_k8_memtrans[16] = {
	"generic error", "generic read", "generic write", "data read", "data write",
	"instruction fetch", "prefetch", "evict", "snoop", "?", "?", "?", "?", "?", "?", "?",
};
static const char *const _hwtap_k8_participation[4] = {
	"local node origin", "local node response", "local node observed",
	"generic participation",
};
static const char *const _hwtap_k8_timeout[2] = {
	"request didn't time out", "request timed out",
};
static const char *const _hwtap_k8_memio[4] = { "memory", "res.", "i/o", "generic" };
static const char *const _hwtap_k8_northbridge[16] = {
	"RAM ECC error", "CRC error", "Sync error", "Master abort", "Target abort",
	"GART error", "RMW error", "Watchdog error", "RAM Chipkill ECC error", "DEV Error",
	"Link Data Error", "Link Protocol Error", "NB Array Error", "DRAM Parity Error",
	"Link Retry", "Tablew Walk Data Error",
};
/* the high bits' list (entry N is read from bit N + 1, see above; unnamed: BITn) */
static const char *const _hwtap_k8_highbits[32] = {
	[31] = "valid",
	[30] = "error overflow (multiple errors)",
	[29] = "error uncorrected",
	[28] = "error enable",
	[27] = "misc error valid",
	[26] = "error address valid",
	[25] = "processor context corrupt",
	[24] = "res24",
	[23] = "res23",
	[14] = "corrected ecc error",
	[13] = "uncorrected ecc error",
	[12] = "res12",
	[11] = "L3 subcache in error bit 1",
	[10] = "L3 subcache in error bit 0",
	[9] = "sublink or DRAM channel",
	[8] = "error found by scrub",
	[3] = "err cpu3",
	[2] = "err cpu2",
	[1] = "err cpu1",
	[0] = "err cpu0",
};

/* rasdaemon's decode_k8_generic_errcode(): the high bits' list as it reads it, then the
 * error code's form. Entry N is set when bit N + 1 is, but for N 30 (a 32-bit 1 << 31,
 * sign-extended: any of bits 31-63) and 31 (1 << 32 of a 32-bit shift, which the
 * processor takes as 1 << 0: bit 0). */
static __attribute__((unused)) void _hwtap_mce_k8_generic(struct _hwtap_mce_texts *t,
							   unsigned long long status)
{
	unsigned int code = status & 0xffff, i;
	char list[512] = "";
	struct _hwtap_mce_text l = { list, sizeof(list) };

	for (i = 0; i < 32 && !(status & 32); i++) {
		unsigned long long bit = i < 30 ? 1ULL << (i + 1) :
					 i == 30 ? 0xffffffff80000000ULL : 1;

		if (!(status & bit))
			continue;
		if (list[0] && strlen(list) + 2 < sizeof(list))
			strcat(list, ",");
		if (_hwtap_k8_highbits[i])
			_hwtap_mce_add(&l, "%s", _hwtap_k8_highbits[i]);
		else
			_hwtap_mce_add(&l, "BIT%u", i + 1);
	}
	if (list[0])
		_hwtap_mce_add(&t->error_msg, "(%s) ", list);
	if ((code & 0xfff0) == 0x0010)
		_hwtap_mce_add(&t->error_msg, "LB error '%s transaction, level %s'",
			       _hwtap_k8_transaction[code >> 2 & 3], _hwtap_k8_level[code & 3]);
	else if ((code & 0xff00) == 0x0100)
		_hwtap_mce_add(&t->error_msg, "memory/cache error '%s mem transaction, %s "
			       "transaction, level %s'", _hwtap_k8_memtrans[code >> 4 & 15],
			       _hwtap_k8_transaction[code >> 2 & 3], _hwtap_k8_level[code & 3]);
	else if ((code & 0xf800) == 0x0800)
		_hwtap_mce_add(&t->error_msg, "bus error '%s, %s: %s mem transaction, %s access, "
			       "level %s'", _hwtap_k8_participation[code >> 9 & 3],
			       _hwtap_k8_timeout[code >> 8 & 1], _hwtap_k8_memtrans[code >> 4 & 15],
			       _hwtap_k8_memio[code >> 2 & 3], _hwtap_k8_level[code & 3]);
}

/* The words of a K8 record of BANK (its bank_name and error_msg): 0, or -1 when rasdaemon
 * stores no record of it (a northbridge GART error). *MEMERR: a DRAM ECC error, whose
 * instruction pointer rasdaemon stores as 0. */
static __attribute__((unused)) int _hwtap_mce_k8_words(struct _hwtap_mce_texts *t,
						       unsigned int bank,
						       unsigned long long status,
						       unsigned long long misc, int *memerr)
{
	unsigned int ext = status >> 16 & 15, code = status & 0xffff;

	*memerr = 0;
	if (bank == 4 && ext == 5 && (status >> 61 & 1))
		return -1;
	if (bank < 6)
		_hwtap_mce_add(&t->bank_name, "%s (bank=%u)", _hwtap_k8_banks[bank], bank);
	else if (bank >= _HWTAP_K8_THRESHOLD_BASE && bank < _HWTAP_K8_THRESHOLD_TOP)
		_hwtap_mce_add(&t->bank_name, "%s (bank=%u)",
			       bank - _HWTAP_K8_THRESHOLD_BASE >= 36 &&
			       bank - _HWTAP_K8_THRESHOLD_BASE < 40 ?
			       _hwtap_k8_thresholds[bank - _HWTAP_K8_THRESHOLD_BASE - 36] :
			       "Unknown threshold counter", bank);
	switch (bank) {
	case 0:
		if (status & 3ULL << 45) {
			_hwtap_mce_add(&t->error_msg, "Data cache ECC error (syndrome %x)",
				       (unsigned int)(status >> 47) & 0xff);
			if (status >> 40 & 1)
				_hwtap_mce_add(&t->error_msg, "found by scrubber");
		}
		break;
	case 1:
		if (status & 3ULL << 45)
			_hwtap_mce_add(&t->error_msg, "Instruction cache ECC error");
		break;
	case 2:
		if (status & 3ULL << 45)
			_hwtap_mce_add(&t->error_msg, "L2 cache ECC error");
		_hwtap_mce_add(&t->error_msg, "%s array error", ext ? "Cache tag" : "Bus or cache");
		break;
	case 4:
		_hwtap_mce_add(&t->error_msg, "Northbridge %s", _hwtap_k8_northbridge[ext]);
		if (ext == 0) {
			*memerr = 1;
			_hwtap_mce_add(&t->error_msg, "ECC syndrome = %x",
				       (unsigned int)(status >> 47) & 0xff);
		} else if (ext == 8) {
			*memerr = 1;
			_hwtap_mce_add(&t->error_msg, "Chipkill ECC syndrome = %x",
				       (unsigned int)((status >> 24 & 0xff) << 8 |
						      (status >> 47 & 0xff)));
		} else if (ext <= 4 || ext == 6) {
			_hwtap_mce_add(&t->error_msg, "link number = %x",
				       (unsigned int)(status >> 36) & 0xf);
		}
		break;
	}
	/* the caches' TLB errors, after their ECC words */
	if (bank <= 1 && (code & 0xfff0) == 0x0010)
		_hwtap_mce_add(&t->error_msg, "TLB parity error in %s array",
			       ext ? "virtual" : "physical");
	if (bank < 6) {
		_hwtap_mce_k8_generic(t, status);
	} else if (bank >= _HWTAP_K8_THRESHOLD_BASE && bank <= _HWTAP_K8_THRESHOLD_TOP) {
		if (misc >> 48 & 1)
			_hwtap_mce_add(&t->error_msg, "Threshold error count overflow");
	} else if (t->error_msg.s) {
		/* rasdaemon's replaces the text: nothing else is in it */
		t->error_msg.s[0] = '\0';
		_hwtap_mce_add(&t->error_msg, "Don't know how to decode this bank");
	}
	return 0;
}

#endif
