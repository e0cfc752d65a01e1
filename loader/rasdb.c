/* rasdb.c - hwtap-run --ras-db FILE: RAS events in rasdaemon's SQLite database.
 *
 * tapset/ras-history.stp sends each event of a ras.* source as a history record
 * (runtime/protocol.h, HWTAP_STREAM_HISTORY): the source's name, the event's time in
 * seconds since the epoch, then its fields in the order of the source's ras.* point, each
 * ended by a NUL (numbers in decimal). Here each becomes a row of the table rasdaemon
 * 0.8.5 keeps for that source, with the columns rasdaemon writes, in its words: so
 * `ras-mc-ctl --summary' and `--errors' (and what else reads that database: Telegraf's
 * ras input, Prometheus exporters) read hwtap's history as rasdaemon's own.
 *
 * A table that is missing is created as rasdaemon 0.8.5 creates it; one that exists (a
 * database rasdaemon 0.6.8 made, say) keeps its columns, and a row fills only those. The
 * words rasdaemon decodes machine checks with (mce_record's error_msg, mcistatus_msg ...)
 * are made here from the raw registers, for the CPU the record names: Intel's
 * architectural error codes for every Intel CPU, the P4 family's bus errors, Haswell-EP's,
 * Broadwell-EP's, Skylake-SP's and the 10 nm server models' model-specific codes, AMD's
 * Scalable MCA (the tables of runtime/mce_hsw.h, mce_skx.h, mce_i10nm.h and mce_smca.h);
 * what rasdaemon
 * adds for other families (its other per-model Intel tables, AMD K8) is left out, and
 * said in hwtap-ras(7).
 */
#define _GNU_SOURCE
#include "loader.h"
#include "../runtime/mce_hsw.h"
#include "../runtime/mce_i10nm.h"
#include "../runtime/mce_skx.h"
#include "../runtime/mce_smca.h"
#include "../runtime/protocol.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

__attribute__((format(printf, 1, 2)))
static char *dbformat(const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("hwtap-run: error: out of memory\n", stderr);
		exit(1);
	}
	return s;
}

/* ---- the tables, as rasdaemon 0.8.5 makes them --------------------------------------- */

/* How a column's value is bound: rasdaemon binds some integers as 32 bits (they are cut
 * to them), others as 64; texts; blobs (from hex digits). */
enum kind { K_INT, K_INT64, K_TEXT, K_BLOB };

typedef struct Column {
	const char *name, *type;
	enum kind kind;
} Column;

#define MAX_COLUMNS 32

typedef struct Table {
	const char *name;
	Column cols[MAX_COLUMNS];       /* after id and timestamp, which every table has */
} Table;

enum { T_MC, T_AER, T_EXTLOG, T_MCE, T_ARM, T_NON_STANDARD, T_DEVLINK, T_DISK, T_MF,
       T_SIGNAL, T_COUNT };

static const Table tables[T_COUNT] = {
	[T_MC] = {"mc_event", {
		{"err_count", "INTEGER", K_INT}, {"err_type", "TEXT", K_TEXT},
		{"err_msg", "TEXT", K_TEXT}, {"label", "TEXT", K_TEXT},
		{"mc", "INTEGER", K_INT}, {"top_layer", "INTEGER", K_INT},
		{"middle_layer", "INTEGER", K_INT}, {"lower_layer", "INTEGER", K_INT},
		{"address", "INTEGER", K_INT64}, {"grain", "INTEGER", K_INT64},
		{"syndrome", "INTEGER", K_INT64}, {"driver_detail", "TEXT", K_TEXT}}},
	[T_AER] = {"aer_event", {
		{"dev_name", "TEXT", K_TEXT}, {"err_type", "TEXT", K_TEXT},
		{"err_msg", "TEXT", K_TEXT}}},
	[T_EXTLOG] = {"extlog_event", {
		{"etype", "INTEGER", K_INT}, {"error_count", "INTEGER", K_INT},
		{"severity", "INTEGER", K_INT}, {"address", "INTEGER", K_INT64},
		{"fru_id", "BLOB", K_BLOB}, {"fru_text", "TEXT", K_TEXT},
		{"cper_data", "BLOB", K_BLOB}}},
	[T_MCE] = {"mce_record", {
		{"mcgcap", "INTEGER", K_INT}, {"mcgstatus", "INTEGER", K_INT},
		{"status", "INTEGER", K_INT64}, {"addr", "INTEGER", K_INT64},
		{"misc", "INTEGER", K_INT64}, {"ip", "INTEGER", K_INT64},
		{"tsc", "INTEGER", K_INT64}, {"walltime", "INTEGER", K_INT64},
		{"ppin", "INTEGER", K_INT64}, {"cpu", "INTEGER", K_INT},
		{"cpuid", "INTEGER", K_INT}, {"apicid", "INTEGER", K_INT},
		{"socketid", "INTEGER", K_INT}, {"cs", "INTEGER", K_INT},
		{"bank", "INTEGER", K_INT}, {"cpuvendor", "INTEGER", K_INT},
		{"microcode", "INTEGER", K_INT}, {"bank_name", "TEXT", K_TEXT},
		{"error_msg", "TEXT", K_TEXT}, {"mcgstatus_msg", "TEXT", K_TEXT},
		{"mcistatus_msg", "TEXT", K_TEXT}, {"mcastatus_msg", "TEXT", K_TEXT},
		{"user_action", "TEXT", K_TEXT}, {"mc_location", "TEXT", K_TEXT}}},
	[T_ARM] = {"arm_event", {
		{"error_count", "INTEGER", K_INT}, {"affinity", "INTEGER", K_INT},
		{"mpidr", "INTEGER", K_INT64}, {"running_state", "INTEGER", K_INT},
		{"psci_state", "INTEGER", K_INT}, {"err_info", "BLOB", K_BLOB},
		{"context_info", "BLOB", K_BLOB}, {"vendor_info", "BLOB", K_BLOB},
		{"error_type", "TEXT", K_TEXT}, {"error_flags", "TEXT", K_TEXT},
		{"error_info", "INTEGER", K_INT64}, {"virt_fault_addr", "INTEGER", K_INT64},
		{"phy_fault_addr", "INTEGER", K_INT64}}},
	[T_NON_STANDARD] = {"non_standard_event", {
		{"sec_type", "BLOB", K_BLOB}, {"fru_id", "BLOB", K_BLOB},
		{"fru_text", "TEXT", K_TEXT}, {"severity", "TEXT", K_TEXT},
		{"error", "BLOB", K_BLOB}}},
	[T_DEVLINK] = {"devlink_event", {
		{"bus_name", "TEXT", K_TEXT}, {"dev_name", "TEXT", K_TEXT},
		{"driver_name", "TEXT", K_TEXT}, {"reporter_name", "TEXT", K_TEXT},
		{"msg", "TEXT", K_TEXT}}},
	[T_DISK] = {"disk_errors", {
		{"dev", "TEXT", K_TEXT}, {"sector", "INTEGER", K_INT64},
		{"nr_sector", "INTEGER", K_INT}, {"error", "TEXT", K_TEXT},
		{"rwbs", "TEXT", K_TEXT}, {"cmd", "TEXT", K_TEXT}}},
	[T_MF] = {"memory_failure_event", {
		{"pfn", "TEXT", K_TEXT}, {"page_type", "TEXT", K_TEXT},
		{"action_result", "TEXT", K_TEXT}}},
	[T_SIGNAL] = {"signal_event", {
		{"sig", "INTEGER", K_INT}, {"errorno", "INTEGER", K_INT},
		{"code", "INTEGER", K_INT}, {"comm", "TEXT", K_TEXT},
		{"pid", "INTEGER", K_INT}, {"grp", "INTEGER", K_INT},
		{"res", "INTEGER", K_INT}}},
};

/* One row's values, by the table's column index; a text column's is owned by the row. */
typedef struct Row {
	int table;
	bool set[MAX_COLUMNS];
	long long num[MAX_COLUMNS];
	char *text[MAX_COLUMNS];
} Row;

static int column_index(int t, const char *name)
{
	for (int i = 0; i < MAX_COLUMNS && tables[t].cols[i].name; i++)
		if (!strcmp(tables[t].cols[i].name, name))
			return i;
	abort();                        /* a name below that the table lacks: a bug here */
}

static void set_num(Row *row, const char *col, long long v)
{
	int i = column_index(row->table, col);
	row->set[i] = true;
	row->num[i] = v;
}

static void set_text(Row *row, const char *col, const char *s)
{
	int i = column_index(row->table, col);
	row->set[i] = true;
	free(row->text[i]);
	row->text[i] = xstrndup(s, strlen(s));
}

__attribute__((format(printf, 3, 4)))
static void set_textf(Row *row, const char *col, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	set_text(row, col, buf);
}

/* ---- rasdaemon's words for a machine check -------------------------------------------- */

/* A text that grows as rasdaemon's do: each piece after the first after one space. */
typedef struct Words {
	char s[1024];
} Words;

__attribute__((format(printf, 2, 3)))
static void words_add(Words *w, const char *fmt, ...)
{
	size_t n = strlen(w->s);
	if (n && n + 1 < sizeof(w->s))
		w->s[n++] = ' ', w->s[n] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->s + n, sizeof(w->s) - n, fmt, ap);
	va_end(ap);
}

typedef struct MceWords {
	Words bank_name, error_msg, mcgstatus_msg, mcistatus_msg, mcastatus_msg, user_action,
	      mc_location;
} MceWords;

/* The raw fields of a machine check, as ras.mce has them. */
typedef struct Mce {
	unsigned long long status, misc, addr, mcgstatus, mcgcap, ip, tsc, time, cpuvendor,
			   cpuid, apicid, socketid, cs, bank, cpu, synd, ipid, ppin, microcode,
			   severity;
} Mce;

#define EXTENDED_BANK 128               /* the kernel's banks past the hardware's */
#define BIT(n) (1ULL << (n))

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
/* The P4's model-specific bus error bits (16-23), as rasdaemon names them. */
static const char *const p4_bus_words[8] = {
	"FSB address parity", "Response hard fail", "Response parity",
	"PIC and FSB data parity", "Invalid PIC request(Signature=0xF04H)", "Pad state machine",
	"Pad strobe glitch", "Pad address glitch"};

static const char *request_words(unsigned rrrr)
{
	static const char *const w[9] = {"Generic", "Read", "Write", "Data-Read", "Data-Write",
					 "Instruction-Fetch", "Prefetch", "Eviction", "Snoop"};
	return rrrr < 9 ? w[rrrr] : "UNKNOWN";
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
	} else if (code >> 11 == 1)
		words_add(&w->mcastatus_msg, "BUS %s %s %s %s %s Error", level_words[code & 3],
			  participation_words[code >> 9 & 3], request_words(code >> 4 & 15),
			  io_words[code >> 2 & 3],
			  code & BIT(8) ? "Request-timed-out" : "Request-did-not-timeout");
	else if (code >> 7 == 1) {
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
 * bit aside) with a channel: the channel and the ranks MCi_MISC names, in mc_location. */
static void mce_channel_ranks(const Mce *m, MceWords *w, unsigned first, unsigned last)
{
	unsigned long long s = m->status;
	if ((s & 0xffff) >> 7 != 1 || m->bank < first || m->bank > last || s & BIT(61) ||
	    (s & 0xefff) >> 7 != 1 || (s & 15) == 15)
		return;
	words_add(&w->mc_location, "memory_channel=%d", (int)(s & 15));
	if (m->misc >> 62 & 1) {
		int rank0 = m->misc >> 46 & 0x1f;
		if (m->misc >> 63 & 1)
			words_add(&w->mc_location, "ranks=%d and %d", rank0,
				  (int)(m->misc >> 51 & 0x1f));
		else
			words_add(&w->mc_location, "rank=%d", rank0);
	}
}

/* What a PCU record's code and bits 19:16 say, in mcastatus_msg, trailing spaces and all,
 * as rasdaemon's Skylake-SP and Broadwell-EP decoders write it. */
static void mce_pcu_prefix(const Mce *m, MceWords *w)
{
	unsigned code = m->status & 0xffff & ~0x1000u;
	if (code == 0x402 || code == 0x403)
		words_add(&w->mcastatus_msg, "Internal errors ");
	else if (code == 0x406)
		words_add(&w->mcastatus_msg, "Intel TXT errors ");
	else if (code == 0x407)
		words_add(&w->mcastatus_msg, "Other UBOX Internal errors ");
	if (m->status >> 16 & 15)
		words_add(&w->mcastatus_msg, "PCU internal error ");
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

/* An Intel CPU's record (rasdaemon's parse_intel_event). P4: family 15 but model 6. */
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

	words_add(&w->mcgstatus_msg, "mcgstatus=%lld", (long long)m->mcgstatus);
	static const char *const mcg_bits[4] = {"RIPV", "EIPV", "MCIP", "LMCE"};
	for (int i = 0; i < 4; i++)
		if (m->mcgstatus & BIT(i))
			words_add(&w->mcgstatus_msg, "%s", mcg_bits[i]);

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
	if ((s & 0xffff) >> 11 == 1 && family == 15 && model != 6)
		for (int i = 0; i < 8; i++)
			if (s & BIT(16 + i))
				words_add(&w->error_msg, "%s", p4_bus_words[i]);
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
 * MCA_IPID names (runtime/mce_smca.h), the extended error code's meaning in it, where a
 * memory controller's DRAM ECC error is. */
static void mce_smca_words(const Mce *m, MceWords *w)
{
	words_add(&w->mcgstatus_msg, "mcgstatus=%lld", (long long)m->mcgstatus);
	static const char *const mcg_bits[3] = {"RIPV", "EIPV", "MCIP"};
	for (int i = 0; i < 3; i++)
		if (m->mcgstatus & BIT(i))
			words_add(&w->mcgstatus_msg, "%s", mcg_bits[i]);

	const struct _hwtap_smca_bank *bank = _hwtap_smca_find(m->ipid);
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
		if (hwid == 0x96 && mcatype == 0 && xec == 0)
			words_add(&w->mc_location, "memory_channel=%d,csrow=%d", umc,
				  (int)(m->synd & 7));
		if (hwid == 0x96 && mcatype == 1 && xec == 0)
			words_add(&w->mc_location, "memory_channel=%d,csrow=%d",
				  (int)(m->ipid >> 12 & 15) + (umc % 2 ? 4 : 0), umc / 2);
	}
	mce_amd_code_words(m, w);
}

/* ---- the sources --------------------------------------------------------------------- */

typedef struct Source {
	const char *name;               /* as the record names it: the ras.* point's */
	const char *kinds;              /* its fields: 'n' a number, 's' a text */
	int table;
	void (*fill)(Row *row, char **f);
} Source;

static long long num(const char *s)
{
	return strtoll(s, NULL, 10);
}

static void fill_mce(Row *row, char **f)
{
	Mce m = {0};
	unsigned long long *v = &m.status;
	for (int i = 0; i < 20; i++)
		v[i] = strtoull(f[i], NULL, 10);
	/* ras.mce's signed longs: strtoull takes "-1" as its two's complement */
	set_num(row, "mcgcap", m.mcgcap);
	set_num(row, "mcgstatus", m.mcgstatus);
	set_num(row, "status", m.status);
	set_num(row, "addr", m.addr);
	set_num(row, "misc", m.misc);
	set_num(row, "ip", m.ip);
	set_num(row, "tsc", m.tsc);
	set_num(row, "walltime", m.time);
	set_num(row, "ppin", m.ppin);
	set_num(row, "cpu", m.cpu);
	set_num(row, "cpuid", m.cpuid);
	set_num(row, "apicid", m.apicid);
	set_num(row, "socketid", m.socketid);
	set_num(row, "cs", m.cs);
	set_num(row, "bank", m.bank);
	set_num(row, "cpuvendor", m.cpuvendor);
	set_num(row, "microcode", m.microcode);

	MceWords w = {0};
	unsigned family = m.cpuid >> 8 & 15, model = m.cpuid >> 4 & 15;
	if (family == 15)
		family += m.cpuid >> 20 & 255;
	if (family == 6 || family >= 15)
		model |= (m.cpuid >> 16 & 15) << 4;
	if (m.cpuvendor == 0)           /* X86_VENDOR_INTEL */
		mce_intel_words(&m, family, model, &w);
	else if ((m.cpuvendor == 2 && family >= 0x17) ||        /* AMD, Scalable MCA */
		 (m.cpuvendor == 9 && family == 0x18))          /* Hygon */
		mce_smca_words(&m, &w);
	if (!w.error_msg.s[0])
		words_add(&w.error_msg, "%s", w.mcastatus_msg.s);
	set_text(row, "bank_name", w.bank_name.s);
	set_text(row, "error_msg", w.error_msg.s);
	set_text(row, "mcgstatus_msg", w.mcgstatus_msg.s);
	set_text(row, "mcistatus_msg", w.mcistatus_msg.s);
	set_text(row, "mcastatus_msg", w.mcastatus_msg.s);
	set_text(row, "user_action", w.user_action.s);
	set_text(row, "mc_location", w.mc_location.s);
}

static void fill_mc_event(Row *row, char **f)
{
	static const char *const types[4] = {"Corrected", "Uncorrected", "Fatal", "Info"};
	long long type = num(f[0]);
	set_num(row, "err_count", num(f[3]));
	set_text(row, "err_type", type >= 0 && type < 4 ? types[type] : "Info");
	set_text(row, "err_msg", f[1]);
	set_text(row, "label", f[2]);
	set_num(row, "mc", num(f[4]));
	set_num(row, "top_layer", num(f[5]));
	set_num(row, "middle_layer", num(f[6]));
	set_num(row, "lower_layer", num(f[7]));
	set_num(row, "address", num(f[8]));
	set_num(row, "grain", num(f[9]));
	set_num(row, "syndrome", num(f[10]));
	set_text(row, "driver_detail", f[11]);
}

/* The AER status bits' names, rasdaemon's, joined by ", " (an unnamed one is BITn). */
static void aer_words(char *buf, size_t size, unsigned long long status, bool corrected)
{
	static const char *const cor[32] = {
		[0] = "Receiver Error", [6] = "Bad TLP", [7] = "Bad DLLP",
		[8] = "RELAY_NUM Rollover", [12] = "Replay Timer Timeout",
		[13] = "Advisory Non-Fatal"};
	static const char *const uncor[32] = {
		[4] = "Data Link Protocol", [12] = "Poisoned TLP", [13] = "Flow Control Protocol",
		[14] = "Completion Timeout", [15] = "Completer Abort",
		[16] = "Unexpected Completion", [17] = "Receiver Overflow", [18] = "Malformed TLP",
		[19] = "ECRC", [20] = "Unsupported Request"};
	const char *const *names = corrected ? cor : uncor;
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < 32 && n < size; i++) {
		if (!(status & BIT(i)))
			continue;
		n += snprintf(buf + n, size - n, "%s", n ? ", " : "");
		if (n >= size)
			break;
		if (names[i])
			n += snprintf(buf + n, size - n, "%s", names[i]);
		else
			n += snprintf(buf + n, size - n, "BIT%d", i);
	}
}

static void fill_aer(Row *row, char **f)
{
	static const char *const types[3] = {"Uncorrected (Non-Fatal)", "Uncorrected (Fatal)",
					     "Corrected"};
	long long severity = num(f[2]);
	char msg[1024];
	aer_words(msg, sizeof(msg), num(f[1]), severity == 2);
	if (num(f[3]) && f[4][0])       /* the TLP header log, as rasdaemon appends it */
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " TLP Header: %s", f[4]);
	set_text(row, "dev_name", f[0]);
	set_text(row, "err_type", severity >= 0 && severity < 3 ? types[severity] :
		 "Unknown severity");
	set_text(row, "err_msg", msg);
}

static void fill_arm(Row *row, char **f)
{
	set_num(row, "affinity", num(f[0]));
	set_num(row, "mpidr", num(f[1]));
	set_num(row, "running_state", num(f[3]));
	set_num(row, "psci_state", num(f[4]));
}

static const char *ghes_severity(long long sev)
{
	/* GHES_SEV_NO, _CORRECTED, _RECOVERABLE; _PANIC and the rest */
	return sev == 0 ? "Informational" : sev == 1 ? "Corrected" :
	       sev == 2 ? "Recoverable" : "Fatal";
}

/* A GUID as the tapset gives it, "xxxxxxxx-xxxx-...", as its 16 bytes in memory order,
 * in hex, for a blob column: kept as the kernel stored it (little-endian fields). */
static void guid_hex(char *out, const char *guid)
{
	static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
	char digits[33] = "";
	size_t n = 0;
	for (const char *p = guid; *p && n < 32; p++)
		if (strchr("0123456789abcdefABCDEF", *p))
			digits[n++] = *p;
	if (n != 32) {
		out[0] = '\0';
		return;
	}
	for (int i = 0; i < 16; i++)
		memcpy(out + 2 * i, digits + 2 * order[i], 2);
	out[32] = '\0';
}

static void fill_non_standard(Row *row, char **f)
{
	char sec[33], fru[33];
	guid_hex(sec, f[0]);
	guid_hex(fru, f[1]);
	set_text(row, "sec_type", sec);
	set_text(row, "fru_id", fru);
	set_text(row, "fru_text", f[2]);
	set_text(row, "severity", ghes_severity(num(f[3])));
}

static void fill_extlog(Row *row, char **f)
{
	char fru[33];
	guid_hex(fru, f[5]);
	set_num(row, "error_count", num(f[0]));
	set_num(row, "etype", num(f[1]));
	set_num(row, "severity", num(f[2]));
	set_num(row, "address", num(f[3]));
	set_text(row, "fru_id", fru);
	set_text(row, "fru_text", f[6]);
}

static void fill_disk(Row *row, char **f)
{
	static const struct { int error; const char *words; } errors[] = {
		{-EOPNOTSUPP, "operation not supported error"}, {-ETIMEDOUT, "timeout error"},
		{-ENOSPC, "critical space allocation error"},
		{-ENOLINK, "recoverable transport error"}, {-EREMOTEIO, "critical target error"},
		{-EBADE, "critical nexus error"}, {-ENODATA, "critical medium error"},
		{-EILSEQ, "protection error"}, {-ENOMEM, "kernel resource error"},
		{-EBUSY, "device resource error"}, {-EAGAIN, "nonblocking retry error"},
		{-EREMCHG, "dm internal retry error"}, {-EIO, "I/O error"}};
	const char *words = "unknown block error";
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].error == num(f[6]))
			words = errors[i].words;
	set_textf(row, "dev", "%lld:%lld", num(f[1]), num(f[2]));
	set_num(row, "sector", num(f[4]));
	set_num(row, "nr_sector", num(f[5]));
	set_text(row, "error", words);
	set_text(row, "rwbs", f[7]);
	set_text(row, "cmd", "");
}

static void fill_memory_failure(Row *row, char **f)
{
	static const char *const types[] = {
		"reserved kernel page", "high-order kernel page", "kernel slab page",
		"different compound page after locking", "huge page", "free huge page",
		"unmapping failed page", "dirty swapcache page", "clean swapcache page",
		"dirty mlocked LRU page", "clean mlocked LRU page", "dirty unevictable LRU page",
		"clean unevictable LRU page", "dirty LRU page", "clean LRU page",
		"already truncated LRU page", "free buddy page", "dax page", "unsplit thp",
		"unknown page"};
	static const char *const results[] = {"Ignored", "Failed", "Delayed", "Recovered"};
	long long type = num(f[1]), result = num(f[2]);
	set_textf(row, "pfn", "0x%llx", (unsigned long long)num(f[0]));
	set_text(row, "page_type", type >= 0 && type < (long long)(sizeof(types) /
		 sizeof(types[0])) ? types[type] : "unknown page");
	set_text(row, "action_result", result >= 0 && result < 4 ? results[result] :
		 "unknown");
}

static void fill_signal(Row *row, char **f)
{
	set_num(row, "sig", num(f[0]));
	set_num(row, "errorno", num(f[1]));
	set_num(row, "code", num(f[2]));
	set_text(row, "comm", f[3]);
	set_num(row, "pid", num(f[4]));
	set_num(row, "grp", num(f[5]));
	set_num(row, "res", num(f[6]));
}

static void fill_devlink(Row *row, char **f)
{
	set_text(row, "bus_name", f[0]);
	set_text(row, "dev_name", f[1]);
	set_text(row, "driver_name", f[2]);
	set_text(row, "reporter_name", f[3]);
	set_text(row, "msg", f[4]);
}

static const Source sources[] = {
	{"ras.mce", "nnnnnnnnnnnnnnnnnnnn", T_MCE, fill_mce},
	{"ras.memory_failure", "nnn", T_MF, fill_memory_failure},
	{"ras.aer", "snnns", T_AER, fill_aer},
	{"ras.mc_event", "nssnnnnnnnns", T_MC, fill_mc_event},
	{"ras.arm", "nnnnn", T_ARM, fill_arm},
	{"ras.non_standard", "sssnn", T_NON_STANDARD, fill_non_standard},
	{"ras.extlog_mem", "nnnnnss", T_EXTLOG, fill_extlog},
	{"ras.disk_error", "nnnsnnns", T_DISK, fill_disk},
	{"ras.signal", "nnnsnnn", T_SIGNAL, fill_signal},
	{"ras.devlink_health", "sssss", T_DEVLINK, fill_devlink},
};
#define NSOURCES (sizeof(sources) / sizeof(sources[0]))

/* ---- the database -------------------------------------------------------------------- */

static sqlite3 *db;
static const char *db_path;
static bool present[T_COUNT][MAX_COLUMNS];     /* the columns the table has */
static sqlite3_stmt *insert[T_COUNT];
static bool in_transaction;     /* the rows of one read(), committed together */

static int exec(const char *sql, char **why)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	*why = dbformat("cannot use the database %s: %s", db_path, msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

/* Table T as rasdaemon creates it, unless it exists; which of its columns it has. */
static int prepare_table(int t, char **why)
{
	const Table *tab = &tables[t];
	Buf sql = {0};
	buf_str(&sql, "CREATE TABLE IF NOT EXISTS ");
	buf_str(&sql, tab->name);
	buf_str(&sql, " (id INTEGER PRIMARY KEY, timestamp TEXT");
	for (int i = 0; i < MAX_COLUMNS && tab->cols[i].name; i++) {
		buf_str(&sql, ", ");
		buf_str(&sql, tab->cols[i].name);
		buf_str(&sql, " ");
		buf_str(&sql, tab->cols[i].type);
	}
	buf_str(&sql, ")");
	buf_add(&sql, "", 1);
	int rc = exec(sql.p, why);
	free(sql.p);
	if (rc)
		return -1;

	char *q = dbformat("PRAGMA table_info(%s)", tab->name);
	sqlite3_stmt *st;
	rc = sqlite3_prepare_v2(db, q, -1, &st, NULL);
	free(q);
	if (rc != SQLITE_OK) {
		*why = dbformat("cannot use the database %s: %s", db_path, sqlite3_errmsg(db));
		return -1;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		for (int i = 0; name && i < MAX_COLUMNS && tab->cols[i].name; i++)
			if (!strcmp(tab->cols[i].name, name))
				present[t][i] = true;
	}
	sqlite3_finalize(st);

	Buf ins = {0}, vals = {0};
	buf_str(&ins, "INSERT INTO ");
	buf_str(&ins, tab->name);
	buf_str(&ins, " (timestamp");
	buf_str(&vals, "?");
	for (int i = 0; i < MAX_COLUMNS && tab->cols[i].name; i++) {
		if (!present[t][i])
			continue;
		buf_str(&ins, ", ");
		buf_str(&ins, tab->cols[i].name);
		buf_str(&vals, ", ?");
	}
	buf_str(&ins, ") VALUES (");
	buf_add(&ins, vals.p, vals.len);
	buf_str(&ins, ")");
	buf_add(&ins, "", 1);
	rc = sqlite3_prepare_v2(db, ins.p, -1, &insert[t], NULL);
	free(ins.p);
	free(vals.p);
	if (rc != SQLITE_OK) {
		*why = dbformat("cannot use the database %s: %s", db_path, sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

int rasdb_open(const char *path, char **why)
{
	/* SQLite makes PATH-journal beside it: a directory others may write in could hold
	 * one they planted (a link to a file root would then overwrite). */
	char *copy = xstrndup(path, strlen(path));
	const char *dir = dirname(copy);
	struct stat st;
	if (stat(dir, &st)) {
		*why = dbformat("cannot use the database %s: its directory %s: %s", path,
				      dir, strerror(errno));
		free(copy);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH) || (st.st_uid != 0 && st.st_uid != geteuid())) {
		*why = dbformat("refusing the database %s: its directory %s may be written "
				      "by other users (SQLite makes its journal there)", path, dir);
		free(copy);
		return -1;
	}
	free(copy);
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		*why = dbformat("refusing the database %s: it is a symbolic link (hwtap-run does "
				"not follow one; name its target)", path);
		return -1;
	}

	db_path = path;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				 SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		*why = dbformat("cannot open the database %s: %s", path,
				      db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(db, 2000); /* rasdaemon may be writing it too */
	for (int t = 0; t < T_COUNT; t++)
		if (prepare_table(t, why)) {
			rasdb_close();
			return -1;
		}
	return 0;
}

/* The event time T (seconds since the epoch) as rasdaemon writes it. */
static void timestamp(char *buf, size_t size, long long t)
{
	time_t tt = t;
	struct tm tm;
	if (!localtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S %z", &tm))
		snprintf(buf, size, "1970-01-01 00:00:00 +0000");
}

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static int store(Row *row, const char *when, char **why)
{
	int t = row->table;
	sqlite3_stmt *st = insert[t];
	unsigned char blobs[MAX_COLUMNS][64];
	int k = 1;
	sqlite3_bind_text(st, k++, when, -1, SQLITE_TRANSIENT);
	for (int i = 0; i < MAX_COLUMNS && tables[t].cols[i].name; i++) {
		if (!present[t][i])
			continue;
		const Column *c = &tables[t].cols[i];
		if (!row->set[i])
			sqlite3_bind_null(st, k++);
		else if (c->kind == K_INT)
			sqlite3_bind_int(st, k++, (int)row->num[i]);
		else if (c->kind == K_INT64)
			sqlite3_bind_int64(st, k++, row->num[i]);
		else if (c->kind == K_TEXT)
			sqlite3_bind_text(st, k++, row->text[i], -1, SQLITE_TRANSIENT);
		else {
			size_t n = strlen(row->text[i]) / 2;
			if (n > sizeof(blobs[i]))
				n = sizeof(blobs[i]);
			for (size_t j = 0; j < n; j++)
				blobs[i][j] = hexval(row->text[i][2 * j]) << 4 |
					      hexval(row->text[i][2 * j + 1]);
			sqlite3_bind_blob(st, k++, blobs[i], n, SQLITE_TRANSIENT);
		}
	}
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE) {
		*why = dbformat("cannot add a row to %s's table %s: %s", db_path,
				      tables[t].name, sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

int rasdb_record(const unsigned char *data, size_t len, char **why)
{
	char *rec = xrealloc(NULL, len + 1);    /* the NUL-ended fields, and one more */
	memcpy(rec, data, len);
	rec[len] = '\0';
	char *field[40];
	size_t nf = 0;
	for (size_t i = 0, start = 0; i < len && nf < 40; i++)
		if (data[i] == '\0') {
			field[nf++] = rec + start;
			start = i + 1;
		}
	const Source *src = NULL;
	for (size_t i = 0; nf && i < NSOURCES; i++)
		if (!strcmp(sources[i].name, field[0]))
			src = &sources[i];
	if (!src || nf != 2 + strlen(src->kinds)) {
		Buf name = {0};         /* the source as it came, escaped: a JSON string */
		buf_json_string(&name, nf ? field[0] : "", nf ? strnlen(field[0], 40) : 0);
		*why = dbformat("a malformed history record refused (%zu fields, source %.*s)", nf,
				(int)name.len, name.p);
		free(name.p);
		free(rec);
		return -1;
	}
	if (!in_transaction) {
		if (exec("BEGIN", why)) {
			free(rec);
			return -1;
		}
		in_transaction = true;
	}
	Row row = {.table = src->table};
	char when[64];
	timestamp(when, sizeof(when), num(field[1]));
	src->fill(&row, field + 2);
	int rc = store(&row, when, why);
	for (int i = 0; i < MAX_COLUMNS; i++)
		free(row.text[i]);
	free(rec);
	return rc;
}

int rasdb_commit(char **why)
{
	if (!in_transaction)
		return 0;
	in_transaction = false;
	return exec("COMMIT", why);
}

void rasdb_close(void)
{
	char *why = NULL;
	if (db && rasdb_commit(&why)) {
		fprintf(stderr, "hwtap-run: error: %s\n", why);
		free(why);
	}
	for (int t = 0; t < T_COUNT; t++) {
		sqlite3_finalize(insert[t]);
		insert[t] = NULL;
	}
	sqlite3_close(db);
	db = NULL;
}
