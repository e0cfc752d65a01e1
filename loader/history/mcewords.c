/* mcewords.c - rasdaemon's words for a machine check: the texts of mce_record's
 * bank_name, error_msg, mcgstatus_msg, mcistatus_msg, mcastatus_msg, user_action and
 * mc_location that rasdaemon writes for a record, made from its raw registers for the CPU
 * it names (hwtap-run --ras-db, rasdb.c). Intel's architectural error codes for every
 * Intel CPU; the model-specific codes of P6, Core 2, Dunnington, Nehalem, Xeon 7500,
 * Pentium 4, Tulsa, Sandy Bridge(-EP), Ivy Bridge-EP, Broadwell-DE, Knights Landing/Mill,
 * Granite Rapids and Diamond Rapids (runtime/decoders/mce_intel.h, code the tapset compiles too),
 * Haswell-EP's, Broadwell-EP's, Skylake-SP's and the 10 nm server models' (the tables of
 * mce_hsw.h, mce_skx.h and mce_i10nm.h); AMD's Scalable MCA (mce_smca.h) and K8
 * (mce_k8.h, code both sides compile); Zhaoxin's and Centaur's, with KH-50000's banks
 * (mce_zhaoxin.h, likewise).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mcewords.h"
#include "../../runtime/decoders/mce_hsw.h"
#include "../../runtime/decoders/mce_i10nm.h"
#include "../../runtime/decoders/mce_intel.h"
#include "../../runtime/decoders/mce_k8.h"
#include "../../runtime/decoders/mce_skx.h"
#include "../../runtime/decoders/mce_smca.h"
#include "../../runtime/decoders/mce_zhaoxin.h"

void words_add(Words *w, const char *fmt, ...)
{
	size_t n = strlen(w->s);
	if (n && n + 1 < sizeof(w->s))
		w->s[n++] = ' ', w->s[n] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->s + n, sizeof(w->s) - n, fmt, ap);
	va_end(ap);
}

#define EXTENDED_BANK 128               /* the kernel's banks past the hardware's */

static const char *const level_words[4] = {"Level-0", "Level-1", "Level-2", "Level-3"};
static const char *const type_words[4] = {"Instruction", "Data", "Generic", "Unknown"};
static const char *const participation_words[4] = {
	"Local-CPU-originated-request", "Responed-to-request", "Observed-error-as-third-party",
	"Generic"};
static const char *const io_words[4] = {"Memory-access", "Reserved", "IO",
					"Other-transaction"};
static const char *const simple_words[7] = {
	"No Error", "Unclassified", "Microcode ROM parity error", "External error",
	"FRC error", "Internal parity error", "SMM Handler Code Access Violation"};
static const char *const memory_mnemonics[8] = {"GEN", "RD", "WR", "AC", "MS", "RES5",
						"RES6", "RES7"};
static const char *const memory_requests[8] = {
	"Generic undefined request", "Memory read error", "Memory write error",
	"Address/Command error", "Memory scrubbing error", "Reserved 5", "Reserved 6",
	"Reserved 7"};
static const char *const recovery_words[4] = {"UCNA", "AR", "SRAO", "SRAR"};
static const char *const threshold_words[4] = {NULL, "green", "yellow", "res3"};

static const char *request_words(unsigned rrrr)
{
	static const char *const w[9] = {"Generic", "Read", "Write", "Data-Read", "Data-Write",
					 "Instruction-Fetch", "Prefetch", "Eviction", "Snoop"};
	return rrrr < 9 ? w[rrrr] : "UNKNOWN";
}

/* mcgstatus_msg as rasdaemon writes it: the register in decimal, then the names of its
 * first N bits set (RIPV, EIPV, MCIP, LMCE: its AMD decoder names the first three). */
static void mcgstatus_words(const Mce *m, MceWords *w, int n)
{
	static const char *const bits[4] = {"RIPV", "EIPV", "MCIP", "LMCE"};

	words_add(&w->mcgstatus_msg, "mcgstatus=%lld", (long long)m->mcgstatus);
	for (int i = 0; i < n; i++)
		if (m->mcgstatus & BIT(i))
			words_add(&w->mcgstatus_msg, "%s", bits[i]);
}

/* The compound error code's words (rasdaemon's decode_mca). */
static void mce_code_words(const Mce *m, MceWords *w)
{
	unsigned code = m->status & 0xffff;
	if (code & BIT(12)) {
		words_add(&w->mcastatus_msg,
			  "corrected filtering (some unreported errors in same region)");
		code &= ~BIT(12);
	}
	if (code < 7)
		words_add(&w->mcastatus_msg, "%s", simple_words[code]);
	else if (code >> 2 == 3)
		words_add(&w->mcastatus_msg, "%s Generic memory hierarchy error",
			  level_words[code & 3]);
	else if (code >> 4 == 1)
		words_add(&w->mcastatus_msg, "%s TLB %s Error", type_words[code >> 2 & 3],
			  level_words[code & 3]);
	else if (code >> 8 == 1)
		words_add(&w->mcastatus_msg, "%s CACHE %s %s Error", type_words[code >> 2 & 3],
			  level_words[code & 3], request_words(code >> 4 & 15));
	else if (code >> 10 == 1) {
		if (code == 0x400)
			words_add(&w->mcastatus_msg, "Internal Timer error");
		else
			words_add(&w->mcastatus_msg, "Internal unclassified error: %x", code);
	} else if (code >> 11 == 1) {
		words_add(&w->mcastatus_msg, "BUS %s %s %s %s %s Error", level_words[code & 3],
			  participation_words[code >> 9 & 3], request_words(code >> 4 & 15),
			  io_words[code >> 2 & 3],
			  code & BIT(8) ? "Request-timed-out" : "Request-did-not-timeout");
		/* an IO MCA (0e0bh): MCi_MISC names the root port (rasdaemon 0.8.5) */
		if (code == 0xe0b && m->status & BIT(59))
			words_add(&w->mcastatus_msg, "IO MCA reported by root port %x:%02x:%02x.%x",
				  (unsigned)(m->misc >> 32 & 0xff), (unsigned)(m->misc >> 24 & 0xff),
				  (unsigned)(m->misc >> 19 & 31), (unsigned)(m->misc >> 16 & 7));
	} else if (code >> 7 == 1) {
		char channel[16];
		if ((code & 15) == 15)
			snprintf(channel, sizeof(channel), "unspecified");
		else
			snprintf(channel, sizeof(channel), "%u", code & 15);
		words_add(&w->error_msg, "MEMORY CONTROLLER %s_CHANNEL%s_ERR",
			  memory_mnemonics[code >> 4 & 7], channel);
		words_add(&w->error_msg, "Transaction: %s", memory_requests[code >> 4 & 7]);
	} else
		words_add(&w->mcastatus_msg, "Unknown Error %x", code);
}

/* A field's words (rasdaemon's decode_bitfield): each flag set, or the code's word, or
 * <START:HEX> for a code the table does not name (nothing for 0). */
static void field_words(Words *w, const struct _hwtap_mce_field *f, unsigned long long s)
{
	if (f->bits) {
		for (unsigned i = 0; i < f->n; i++)
			if (f->words[i] && s >> i & 1)
				words_add(w, "%s", f->words[i]);
		return;
	}
	unsigned long long mask = 1;
	while (mask < f->n - 1)
		mask = mask << 1 | 1;
	unsigned long long v = s >> f->start & mask;
	if (v < f->n && f->words[v])
		words_add(w, "%s", f->words[v]);
	else if (v)
		words_add(w, "<%u:%llx>", f->start, v);
}

/* A corrected error of the memory controller banks FIRST to LAST (its code's filtering
 * bit aside) with a channel: the channel and the ranks MCi_MISC names, in mc_location, as
 * rasdaemon's Haswell-EP and later decoders write them (runtime/decoders/mce_intel.h). */
static void mce_channel_ranks(const Mce *m, MceWords *w, unsigned first, unsigned last)
{
	struct _hwtap_mce_texts t = {
		.mc_location = {w->mc_location.s, sizeof(w->mc_location.s)}, .nl = "\n",
	};
	_hwtap_mce_imc_location(&t, m->bank, m->status, m->misc, first, last, 0);
}

/* What a PCU record's code and bits 19:16 say (runtime/decoders/mce_intel.h), as rasdaemon's
 * Skylake-SP and Broadwell-EP decoders write it. */
static void mce_pcu_prefix(const Mce *m, MceWords *w)
{
	struct _hwtap_mce_texts t = {
		.mcastatus_msg = {w->mcastatus_msg.s, sizeof(w->mcastatus_msg.s)}, .nl = "\n",
	};
	_hwtap_mce_pcu_prefix(&t, m->status, 15);
}

/* Skylake-SP's model-specific words (rasdaemon's skylake_s_decode_model): the bank's
 * prefix after the code's words, the field's words in error_msg, and a corrected memory
 * controller error's channel and ranks. */
static void mce_skx_words(const Mce *m, MceWords *w)
{
	const struct _hwtap_mce_field *f = _hwtap_skx_fields;
	unsigned long long s = m->status;
	switch (m->bank) {
	case 4:
		mce_pcu_prefix(m, w);
		field_words(&w->error_msg, &f[0], s);
		break;
	case 5: case 12: case 19:
		words_add(&w->mcastatus_msg, "UPI: ");
		field_words(&w->error_msg, &f[1], s);
		if ((s >> 16 & 0x3f) == 0x12)
			field_words(&w->error_msg, &f[2], s);
		break;
	case 7: case 8:
		words_add(&w->mcastatus_msg, "M2M: ");
		field_words(&w->error_msg, &f[5], s);
		break;
	case 13: case 14: case 15: case 16: case 17: case 18:
		words_add(&w->mcastatus_msg, "MemCtrl: ");
		field_words(&w->error_msg, &f[s >> 27 & 1 ? 4 : 3], s);
		break;
	}
	mce_channel_ranks(m, w, 13, 18);
}

/* Haswell-EP/EX's and Broadwell-EP/EX's model-specific words (rasdaemon's
 * hsw_decode_model and broadwell_epex_decode_model): the same tables but for a memory
 * controller flag in bit 23 that Broadwell-EP does not have. Haswell-EP says what the
 * PCU's code means in mcastatus_msg and the rest in error_msg; Broadwell-EP puts
 * Skylake-SP's prefixes in mcastatus_msg. Both: a corrected memory controller error's
 * channel and ranks. */
static void mce_xeon_v3_v4_words(const Mce *m, MceWords *w, bool broadwell)
{
	const struct _hwtap_mce_field *f = _hwtap_hsw_fields;
	unsigned long long s = m->status;
	unsigned code = s & 0xffff & ~0x1000u;
	if (m->bank == 4 && broadwell) {
		mce_pcu_prefix(m, w);
	} else if (m->bank == 4) {
		if (code == 0x402 || code == 0x403)
			words_add(&w->mcastatus_msg, "PCU Internal Errors");
		else if (code == 0x406)
			words_add(&w->mcastatus_msg, "Intel TXT Errors");
		else if (code == 0x407)
			words_add(&w->mcastatus_msg, "Other UBOX Internal Errors");
		if ((s >> 16 & 3) && !(s >> 18 & 3))
			words_add(&w->error_msg, "PCU Internal error");
	}
	if (m->bank == 4) {
		field_words(&w->error_msg, &f[0], s);
	} else if (m->bank == 5 || m->bank == 20 || m->bank == 21) {
		if (broadwell)
			words_add(&w->mcastatus_msg, "QPI: ");
		field_words(&w->error_msg, &f[1], s);
	} else if (m->bank >= 9 && m->bank <= 16) {
		if (broadwell)
			words_add(&w->mcastatus_msg, "MemCtrl: ");
		field_words(&w->error_msg, &f[2], broadwell ? s & ~BIT(23) : s);
	}
	mce_channel_ranks(m, w, 9, 16);
}

/* The 10 nm server models' words (rasdaemon's i10nm_decode_model), all in error_msg: the
 * bank type, its fields' words, a memory controller's DRAM address (MCi_MISC), and the
 * channel of a corrected memory controller error. */
static void mce_i10nm_words(const Mce *m, unsigned model, MceWords *w)
{
	const struct _hwtap_mce_field *f = _hwtap_i10nm_fields;
	static const int imc_table[17] = {[0] = 6, [1] = 7, [2] = 8, [4] = 9, [8] = 10,
					  [16] = 11};
	unsigned long long s = m->status, misc = m->misc;
	enum _hwtap_i10nm_bank type = _hwtap_i10nm_bank_type(model, m->bank);
	switch (type) {
	case _HWTAP_I10NM_NONE:
		break;
	case _HWTAP_I10NM_PCU:
		words_add(&w->error_msg, "PCU: ");
		for (int i = 0; i < 3; i++) {   /* bits 31:24, 23:20, 19:16 */
			unsigned long long v = i == 0 ? s >> 24 & 0xff : i == 1 ? s >> 20 & 15 :
					       s >> 16 & 15;
			if (v)
				field_words(&w->error_msg, &f[i], v);
		}
		break;
	case _HWTAP_I10NM_UPI:
		words_add(&w->error_msg, "UPI: ");
		if (s >> 22 & 0x3ff)
			field_words(&w->error_msg, &f[3], s);
		field_words(&w->error_msg, &f[4], s >> 16 & 0x3f);
		break;
	case _HWTAP_I10NM_M2M:
		words_add(&w->error_msg, "M2M: ");
		words_add(&w->error_msg, "MscodDDRType=0x%llx", s >> 24 & 3);
		words_add(&w->error_msg, "MscodMiscErrs=0x%llx", s >> 26 & 0x3f);
		field_words(&w->error_msg, &f[5], s);
		break;
	case _HWTAP_I10NM_IMC: {
		words_add(&w->error_msg, "MemCtrl: ");
		unsigned table = s >> 24 & 0xff;
		if (table < 17 && (table == 0 || imc_table[table]))
			field_words(&w->error_msg, &f[imc_table[table]], s >> 16 & 0xff);
		/* where in the DIMM, from MCi_MISC */
		int transient = misc >> 63 & 1;
		words_add(&w->error_msg, "bank: 0x%x bankgroup: 0x%x row: 0x%x column: 0x%x",
			  (unsigned)(misc >> 42 & 3),
			  (unsigned)((misc >> 40 & 3) | (misc >> 44 & 1) << 2),
			  (unsigned)(misc >> 19 & 0x1fffff), (unsigned)(misc >> 9 & 0x3ff) << 2);
		if (!transient && !(s & BIT(61)))
			words_add(&w->error_msg, "failed device: 0x%x", (unsigned)(misc >> 46 & 0x3f));
		words_add(&w->error_msg, "rank: 0x%x subrank: 0x%x", (unsigned)(misc >> 56 & 7),
			  (unsigned)(misc >> 52 & 15));
		words_add(&w->error_msg, "ecc mode: ");
		unsigned ecc = misc >> 59 & 15;
		words_add(&w->error_msg, "%s", ecc == 0 ? "SDDC memory mode" : ecc == 1 ? "SDDC" :
			  ecc == 4 ? "ADDDC memory mode" : ecc == 5 ? "ADDDC" :
			  ecc == 8 ? "DDRT read" : "unknown");
		if (transient)
			words_add(&w->error_msg, "transient");
		break;
	}
	}
	/* a corrected memory controller error: its channel, by the controller the bank is */
	if ((s & 0xffff) >> 7 != 1 || type != _HWTAP_I10NM_IMC || s & BIT(61) ||
	    (s & 0xefff) >> 7 != 1 || (s & 15) == 15 || m->bank < 12 || m->bank > 27)
		return;
	words_add(&w->mc_location, "memory_channel=%d", (int)((m->bank - 12) / 4 * 3 + (s & 15)));
}

/* An Intel CPU's record (rasdaemon's parse_intel_event). */
static void mce_intel_words(const Mce *m, unsigned family, unsigned model, MceWords *w)
{
	if (m->bank == EXTENDED_BANK) {
		words_add(&w->bank_name, "THERMAL EVENT");
		if (m->status & 1) {
			words_add(&w->mcgstatus_msg, "Processor %d heated above trip temperature. "
				  "Throttling enabled.", (int)m->cpu);
			words_add(&w->user_action, "Please check your system cooling. "
				  "Performance will be impacted");
		} else {
			words_add(&w->error_msg, "Processor %d below trip temperature. "
				  "Throttling disabled", (int)m->cpu);
		}
		return;
	}
	if (m->bank == EXTENDED_BANK + 90)
		words_add(&w->bank_name, "Timeout waiting for exception on other CPUs");

	mcgstatus_words(m, w, 4);

	unsigned long long s = m->status;
	if (!(s & BIT(63)))
		words_add(&w->mcistatus_msg, "MCE_INVALID");
	if (s & BIT(62))
		words_add(&w->mcistatus_msg, "Error_overflow");
	words_add(&w->mcistatus_msg, s & BIT(61) ? "Uncorrected_error" : "Corrected_error");
	if (s & BIT(60))
		words_add(&w->mcistatus_msg, "Error_enabled");
	if (s & BIT(57))
		words_add(&w->mcistatus_msg, "Processor_context_corrupt");
	if (s & (BIT(56) | BIT(55)))
		words_add(&w->mcistatus_msg, "%s", recovery_words[s >> 55 & 3]);
	/* threshold-based status: with MCG_TES_P (mcgcap bit 11), or no mcgcap at all */
	if ((m->mcgcap == 0 || m->mcgcap & BIT(11)) && !(s & BIT(61))) {
		unsigned track = s >> 53 & 3;
		if (track == 1)
			words_add(&w->user_action, "Large number of corrected cache errors. System "
				  "operating, but might leadto uncorrected errors soon");
		if (track)
			words_add(&w->mcistatus_msg, "Threshold based error status: %s",
				  threshold_words[track]);
	}
	mce_code_words(m, w);

	if ((s & 0xffff) >> 7 == 1)
		words_add(&w->mc_location, "n_errors=%d", (int)(s >> 38 & 0x7fff));
	/* the families whose words runtime/decoders/mce_intel.h makes (both sides compile it) */
	struct _hwtap_mce_texts t = {
		{w->bank_name.s, sizeof(w->bank_name.s)}, {w->error_msg.s, sizeof(w->error_msg.s)},
		{w->mcistatus_msg.s, sizeof(w->mcistatus_msg.s)},
		{w->mcastatus_msg.s, sizeof(w->mcastatus_msg.s)},
		{w->mc_location.s, sizeof(w->mc_location.s)}, "\n",
	};
	_hwtap_mce_intel_words(&t, _hwtap_intel_cpu(family, model), m->bank, s, m->misc, 1,
			       (long long)m->apicid);
	if (family == 6 && model == 0x55)
		mce_skx_words(m, w);
	if (family == 6 && (model == 0x3f || model == 0x4f))
		mce_xeon_v3_v4_words(m, w, model == 0x4f);
	if (family == 6)
		mce_i10nm_words(m, model, w);
}

/* AMD's MCA error code words (rasdaemon's decode_amd_errcode), and the error_msg it sets
 * for every AMD record. */
static void mce_amd_code_words(const Mce *m, MceWords *w)
{
	static const char *const tt[4] = {"instruction", "data", "generic", "reserved"};
	static const char *const ll[4] = {"reserved", "L1", "L2", "L3/generic"};
	static const char *const r4[9] = {"generic", "generic read", "generic write",
					  "data read", "data write", "instruction fetch",
					  "prefetch", "evict", "snoop"};
	static const char *const pp[4] = {"local node origin", "local node response",
					  "local node observed", "generic participation"};
	static const char *const internal[4] = {"reserved", "reserved", "hardware assert",
						"reserved"};
	unsigned long long s = m->status;
	unsigned ec = s & 0xffff, ecc = s >> 45 & 3, req = ec >> 4 & 15;
	const char *mem = req < 9 ? r4[req] : "Wrong R4!";

	/* rasdaemon's: its UC branch ends on this one whatever PCC and RIPV say */
	words_add(&w->error_msg, "%s", s & BIT(61) ? "Uncorrected, software containable error." :
		  s & BIT(44) ? "Deferred error, no action required." :
		  "Corrected error, no action required.");
	if (!(s & BIT(63)))
		words_add(&w->mcistatus_msg, "MCE_INVALID");
	if (s & BIT(62))
		words_add(&w->mcistatus_msg, "Error_overflow");
	if (s & BIT(57))
		words_add(&w->mcistatus_msg, "Processor_context_corrupt");
	if (ecc)
		words_add(&w->mcistatus_msg, "%sECC", ecc == 2 ? "C" : "U");
	if ((ec & 0xf4ff) == 0x0400)
		words_add(&w->mcastatus_msg, "Internal '%s'", internal[ec >> 8 & 3]);
	else if ((ec & 0xfff0) == 0x0010)
		words_add(&w->mcastatus_msg, "TLB Error 'tx: %s, level: %s'", tt[ec >> 2 & 3],
			  ll[ec & 3]);
	else if ((ec & 0xff00) == 0x0100)
		words_add(&w->mcastatus_msg, "Memory Error 'mem-tx: %s, tx: %s, level: %s'", mem,
			  tt[ec >> 2 & 3], ll[ec & 3]);
	else if ((ec & 0xf800) == 0x0800)
		words_add(&w->mcastatus_msg, "Bus Error '%s, %s, mem-tx: %s, level: %s'",
			  pp[ec >> 9 & 3], ec & BIT(8) ? "request timed out" :
			  "request didn't time out", mem, ll[ec & 3]);
	if (s & BIT(43))
		words_add(&w->mcistatus_msg, "Poison consumed");
	if (s & BIT(55))
		words_add(&w->mcistatus_msg, "Task_context_corrupt");
}

/* A Scalable MCA record (rasdaemon 0.8.5's parse_amd_smca_event): the bank type its
 * MCA_IPID names (runtime/decoders/mce_smca.h, with rasdaemon's substitutes on the models of its
 * errata), the extended error code's meaning in it, where a memory controller's DRAM ECC
 * error is (its die on family 19h models 90h-9Fh). */
static void mce_smca_words(const Mce *m, unsigned family, unsigned model, MceWords *w)
{
	mcgstatus_words(m, w, 3);

	const struct _hwtap_smca_bank *bank = _hwtap_smca_find_cpu(m->ipid, family, model);
	unsigned xec = m->status >> 16 & 0x3f, hwid = m->ipid >> 32 & 0xfff;
	unsigned mcatype = m->ipid >> 48, umc = (m->ipid & 0xffffffff) >> 20;
	if (hwid == 0xb0 && mcatype == 4) {
		words_add(&w->mcastatus_msg, "Bank 4 is reserved.\n");
	} else if (!bank) {
		words_add(&w->mcastatus_msg, "Couldn't find bank type with IPID");
	} else {
		/* "SHORT (Long name)": rasdaemon names the bank by the long name */
		const char *open = strchr(bank->name, '(');
		int len = open ? (int)strlen(open + 1) - 1 : (int)strlen(bank->name);
		words_add(&w->bank_name, "%.*s (bank=%d)", len, open ? open + 1 : bank->name,
			  (int)m->bank);
		if (xec < bank->ncodes)
			words_add(&w->mcastatus_msg, "%s. Ext Err Code: %d", bank->codes[xec], xec);
		if (hwid == 0x96 && mcatype == 0 && xec == 0 && _hwtap_smca_mi300(family, model))
			/* MCA_IPID[47:44], InstanceIdHi: the node's die */
			words_add(&w->mc_location, "memory_die_id=%d", (int)(m->ipid >> 44 & 15) / 4);
		else if (hwid == 0x96 && mcatype == 0 && xec == 0)
			words_add(&w->mc_location, "memory_channel=%d,csrow=%d", umc,
				  (int)(m->synd & 7));
		if (hwid == 0x96 && mcatype == 1 && xec == 0)
			words_add(&w->mc_location, "memory_channel=%d,csrow=%d",
				  (int)(m->ipid >> 12 & 15) + (umc % 2 ? 4 : 0), umc / 2);
	}
	mce_amd_code_words(m, w);
}

/* AMD family 0Fh (rasdaemon's parse_amd_k8_event: runtime/decoders/mce_k8.h). */
static void mce_k8_words(const Mce *m, MceWords *w)
{
	struct _hwtap_mce_texts t = {
		.bank_name = {w->bank_name.s, sizeof(w->bank_name.s)},
		.error_msg = {w->error_msg.s, sizeof(w->error_msg.s)},
		.nl = "\n",
	};
	w->no_record = _hwtap_mce_k8_words(&t, m->bank, m->status, m->misc, &w->no_ip) < 0;
}

/* A Zhaoxin or Centaur CPU's record (rasdaemon's parse_zhaoxin_event): its own reading of
 * MCG_STATUS and MCi_STATUS, not Intel's (no MCA code words; "Corrected Error."; the
 * action-optional case gets the action-required words too, as rasdaemon's switch falls
 * through), then KH-50000's bank words (runtime/decoders/mce_zhaoxin.h, code the tapset compiles
 * too). */
static void mce_zhaoxin_words(const Mce *m, unsigned family, unsigned model, MceWords *w)
{
	mcgstatus_words(m, w, 4);

	unsigned long long s = m->status;
	if (!(s & BIT(61)))
		words_add(&w->error_msg, "Corrected Error.");
	else if (s & BIT(57))
		words_add(&w->error_msg, "Uncorrected Fatal Error");
	else if (!(s & (BIT(56) | BIT(55))))
		words_add(&w->error_msg, "Uncorrected No Action Required Error");
	else if (s & BIT(56)) {
		if (!(s & BIT(55)))
			words_add(&w->error_msg, "Uncorrected Software Recoverable Action "
				  "Optional Error");
		words_add(&w->error_msg, "Uncorrected Software Recoverable Action Required Error");
	}
	if (!(s & BIT(63)))
		words_add(&w->mcistatus_msg, "MCE_INVALID");
	if (s & BIT(62))
		words_add(&w->mcistatus_msg, "Error_overflow");
	if (s & BIT(60))
		words_add(&w->mcistatus_msg, "Error_enabled");
	if (s & BIT(57))
		words_add(&w->mcistatus_msg, "Processor_context_corrupt");
	/* the threshold-based status only with MCG_TES_P (mcgcap bit 11) */
	if (m->mcgcap & BIT(11) && !(s & BIT(61))) {
		unsigned track = s >> 53 & 3;
		if (track == 1 || track == 2)
			words_add(&w->mcistatus_msg, "Threshold based error status: %s",
				  track == 1 ? "Green" : "Yellow");
	}
	if (_hwtap_zhaoxin_kh50000(m->cpuvendor, family, model)) {
		struct _hwtap_mce_texts t = {
			.bank_name = {w->bank_name.s, sizeof(w->bank_name.s)},
			.mcastatus_msg = {w->mcastatus_msg.s, sizeof(w->mcastatus_msg.s)},
			.nl = "\n",
		};
		_hwtap_mce_kh50000_words(&t, m->bank, s, m->misc, !!(s & BIT(59)));
	}
}

/* ---- which CPU ------------------------------------------------------------------------- */

void mce_words(const Mce *m, MceWords *w)
{
	unsigned family = _hwtap_cpuid_family(m->cpuid), model = _hwtap_cpuid_model(m->cpuid);
	if (m->cpuvendor == 0)           /* X86_VENDOR_INTEL */
		mce_intel_words(m, family, model, w);
	else if ((m->cpuvendor == 2 && family >= 0x17) ||        /* AMD, Scalable MCA */
		 (m->cpuvendor == 9 && family == 0x18))          /* Hygon */
		mce_smca_words(m, family, model, w);
	else if (m->cpuvendor == 2 && family == 15)            /* AMD K8 */
		mce_k8_words(m, w);
	else if (m->cpuvendor == 5 || m->cpuvendor == 10)      /* Centaur, Zhaoxin */
		mce_zhaoxin_words(m, family, model, w);
}
