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
 * are made from the raw registers, for the CPU the record names, by mcewords.c.
 */
#define _GNU_SOURCE
#include "../loader.h"
#include "mcewords.h"
#include "rasdb.h"
#include "../../runtime/protocol.h"

#include <endian.h>
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

typedef struct Column {
	const char *name, *type;
	enum kind kind;
} Column;

typedef struct Table {
	const char *name;
	Column cols[MAX_COLUMNS];       /* after id and timestamp, which every table has */
} Table;

/* The columns of a CXL device, first in every cxl_* table, and with them those of an event
 * record's header, in the tables of the device's event records. */
#define CXL_DEVICE_COLUMNS \
	{"memdev", "TEXT", K_TEXT}, {"host", "TEXT", K_TEXT}, \
	{"serial", "INTEGER", K_INT64}
#define CXL_HDR_COLUMNS CXL_DEVICE_COLUMNS, \
	{"log_type", "TEXT", K_TEXT}, {"hdr_uuid", "TEXT", K_TEXT}, \
	{"hdr_flags", "INTEGER", K_INT}, {"hdr_handle", "INTEGER", K_INT}, \
	{"hdr_related_handle", "INTEGER", K_INT}, {"hdr_ts", "TEXT", K_TEXT}, \
	{"hdr_length", "INTEGER", K_INT}, {"hdr_maint_op_class", "INTEGER", K_INT}, \
	{"hdr_maint_op_sub_class", "INTEGER", K_INT}, {"hdr_ld_id", "INTEGER", K_INT}, \
	{"hdr_head_id", "INTEGER", K_INT}

/* HiSilicon HIP08's OEM sections' columns (both types) */
#define HIP08_OEM_COLUMNS \
	{"version", "INTEGER", K_INT}, {"soc_id", "INTEGER", K_INT}, \
	{"socket_id", "INTEGER", K_INT}, {"nimbus_id", "INTEGER", K_INT}, \
	{"module_id", "TEXT", K_TEXT}, {"sub_module_id", "TEXT", K_TEXT}, \
	{"err_severity", "TEXT", K_TEXT}, {"regs_dump", "TEXT", K_TEXT}

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
	[T_CXL_POISON] = {"cxl_poison_event", {
		CXL_DEVICE_COLUMNS, {"trace_type", "TEXT", K_TEXT}, {"region", "TEXT", K_TEXT},
		{"region_uuid", "TEXT", K_TEXT}, {"hpa", "INTEGER", K_INT64},
		{"dpa", "INTEGER", K_INT64}, {"dpa_length", "INTEGER", K_INT},
		{"source", "TEXT", K_TEXT}, {"flags", "INTEGER", K_INT},
		{"overflow_ts", "TEXT", K_TEXT}, {"hpa_alias0", "INTEGER", K_INT64}}},
	[T_CXL_AER_UE] = {"cxl_aer_ue_event", {
		CXL_DEVICE_COLUMNS, {"error_status", "INTEGER", K_INT},
		{"first_error", "INTEGER", K_INT}, {"header_log", "BLOB", K_BLOB}}},
	[T_CXL_AER_CE] = {"cxl_aer_ce_event", {
		CXL_DEVICE_COLUMNS, {"error_status", "INTEGER", K_INT}}},
	[T_CXL_OVERFLOW] = {"cxl_overflow_event", {
		CXL_DEVICE_COLUMNS, {"log_type", "TEXT", K_TEXT}, {"count", "INTEGER", K_INT},
		{"first_ts", "TEXT", K_TEXT}, {"last_ts", "TEXT", K_TEXT}}},
	[T_CXL_GENERIC] = {"cxl_generic_event", {CXL_HDR_COLUMNS, {"data", "BLOB", K_BLOB}}},
	[T_CXL_GENERAL_MEDIA] = {"cxl_general_media_event", {
		CXL_HDR_COLUMNS, {"dpa", "INTEGER", K_INT64}, {"dpa_flags", "INTEGER", K_INT},
		{"descriptor", "INTEGER", K_INT}, {"type", "INTEGER", K_INT},
		{"transaction_type", "INTEGER", K_INT}, {"channel", "INTEGER", K_INT},
		{"rank", "INTEGER", K_INT}, {"device", "INTEGER", K_INT},
		{"comp_id", "BLOB", K_BLOB}, {"hpa", "INTEGER", K_INT64},
		{"region", "TEXT", K_TEXT}, {"region_uuid", "TEXT", K_TEXT},
		{"pldm_entity_id", "BLOB", K_BLOB}, {"pldm_resource_id", "BLOB", K_BLOB},
		{"sub_type", "INTEGER", K_INT}, {"cme_threshold_ev_flags", "INTEGER", K_INT},
		{"cme_count", "INTEGER", K_INT}, {"hpa_alias0", "INTEGER", K_INT64}}},
	[T_CXL_DRAM] = {"cxl_dram_event", {
		CXL_HDR_COLUMNS, {"dpa", "INTEGER", K_INT64}, {"dpa_flags", "INTEGER", K_INT},
		{"descriptor", "INTEGER", K_INT}, {"type", "INTEGER", K_INT},
		{"transaction_type", "INTEGER", K_INT}, {"channel", "INTEGER", K_INT},
		{"rank", "INTEGER", K_INT}, {"nibble_mask", "INTEGER", K_INT},
		{"bank_group", "INTEGER", K_INT}, {"bank", "INTEGER", K_INT},
		{"row", "INTEGER", K_INT}, {"column", "INTEGER", K_INT},
		{"cor_mask", "BLOB", K_BLOB}, {"hpa", "INTEGER", K_INT64},
		{"region", "TEXT", K_TEXT}, {"region_uuid", "TEXT", K_TEXT},
		{"comp_id", "BLOB", K_BLOB}, {"pldm_entity_id", "BLOB", K_BLOB},
		{"pldm_resource_id", "BLOB", K_BLOB}, {"sub_type", "INTEGER", K_INT},
		{"sub_channel", "INTEGER", K_INT}, {"cme_threshold_ev_flags", "INTEGER", K_INT},
		{"cvme_count", "INTEGER", K_INT}, {"hpa_alias0", "INTEGER", K_INT64}}},
	[T_CXL_MEMORY_MODULE] = {"cxl_memory_module_event", {
		CXL_HDR_COLUMNS, {"event_type", "INTEGER", K_INT},
		{"health_status", "INTEGER", K_INT}, {"media_status", "INTEGER", K_INT},
		{"life_used", "INTEGER", K_INT}, {"dirty_shutdown_cnt", "INTEGER", K_INT},
		{"cor_vol_err_cnt", "INTEGER", K_INT}, {"cor_per_err_cnt", "INTEGER", K_INT},
		{"device_temp", "INTEGER", K_INT}, {"add_status", "INTEGER", K_INT},
		{"event_sub_type", "INTEGER", K_INT}, {"comp_id", "BLOB", K_BLOB},
		{"pldm_entity_id", "BLOB", K_BLOB}, {"pldm_resource_id", "BLOB", K_BLOB}}},
	/* the vendors' (rasvendor.c) */
	[T_HISI_COMMON] = {"hisi_common_section_v2", {
		{"version", "INTEGER", K_INT}, {"soc_id", "INTEGER", K_INT},
		{"socket_id", "INTEGER", K_INT}, {"totem_id", "INTEGER", K_INT},
		{"nimbus_id", "INTEGER", K_INT}, {"sub_system_id", "INTEGER", K_INT},
		{"module_id", "TEXT", K_TEXT}, {"sub_module_id", "INTEGER", K_INT},
		{"core_id", "INTEGER", K_INT}, {"port_id", "INTEGER", K_INT},
		{"err_type", "INTEGER", K_INT}, {"pcie_info", "TEXT", K_TEXT},
		{"err_severity", "TEXT", K_TEXT}, {"regs_dump", "TEXT", K_TEXT}}},
	[T_HIP08_TYPE1] = {"hip08_oem_type1_event_v2", {HIP08_OEM_COLUMNS}},
	[T_HIP08_TYPE2] = {"hip08_oem_type2_event_v2", {HIP08_OEM_COLUMNS}},
	[T_HIP08_PCIE_LOCAL] = {"hip08_pcie_local_event_v2", {
		{"version", "INTEGER", K_INT}, {"soc_id", "INTEGER", K_INT},
		{"socket_id", "INTEGER", K_INT}, {"nimbus_id", "INTEGER", K_INT},
		{"sub_module_id", "TEXT", K_TEXT}, {"core_id", "INTEGER", K_INT},
		{"port_id", "INTEGER", K_INT}, {"err_severity", "TEXT", K_TEXT},
		{"err_type", "INTEGER", K_INT}, {"regs_dump", "TEXT", K_TEXT}}},
	[T_YITIAN_DDR] = {"yitian_ddr_reg_dump_event", {
		{"address", "INTEGER", K_INT64}, {"regs_dump", "TEXT", K_TEXT}}},
	[T_JAGUARMICRO] = {"jm_payload0_event", {
		{"version", "INTEGER", K_INT}, {"soc_id", "INTEGER", K_INT},
		{"subsystem", "TEXT", K_TEXT}, {"module", "TEXT", K_TEXT},
		{"module_id", "INTEGER", K_INT}, {"sub_module", "TEXT", K_TEXT},
		{"submodule_id", "INTEGER", K_INT}, {"dev", "TEXT", K_TEXT},
		{"dev_id", "INTEGER", K_INT}, {"err_type", "INTEGER", K_INT},
		{"err_severity", "TEXT", K_TEXT}, {"regs_dump", "TEXT", K_TEXT}}},
	[T_NVIDIA_GRACE] = {"nvidia_ns_event", {
		{"signature", "TEXT", K_TEXT}, {"error_type", "INTEGER", K_INT},
		{"error_instance", "INTEGER", K_INT}, {"severity", "INTEGER", K_INT},
		{"socket", "INTEGER", K_INT}, {"number_regs", "INTEGER", K_INT},
		{"instance_base", "INTEGER", K_INT64}, {"reg_data", "BLOB", K_BLOB},
		{"raw_data", "BLOB", K_BLOB}}},
	[T_NVIDIA_VERA] = {"nvidia_vera_ns_event", {
		{"signature", "TEXT", K_TEXT}, {"event_type", "INTEGER", K_INT},
		{"event_sub_type", "INTEGER", K_INT}, {"event_link_id", "INTEGER", K_INT64},
		{"source_device_type", "INTEGER", K_INT},
		{"event_context_count", "INTEGER", K_INT}, {"socket", "INTEGER", K_INT},
		{"architecture", "INTEGER", K_INT64}, {"chip_serial_number", "BLOB", K_BLOB},
		{"instance_base", "INTEGER", K_INT64}, {"raw_data", "BLOB", K_BLOB}}},
};


static int column_index(int t, const char *name)
{
	for (int i = 0; i < MAX_COLUMNS && tables[t].cols[i].name; i++)
		if (!strcmp(tables[t].cols[i].name, name))
			return i;
	abort();                        /* a name below that the table lacks: a bug here */
}

void set_num(Row *row, const char *col, long long v)
{
	int i = column_index(row->table, col);
	row->set[i] = true;
	row->num[i] = v;
}

void set_text(Row *row, const char *col, const char *s)
{
	int i = column_index(row->table, col);
	row->set[i] = true;
	free(row->text[i]);
	row->text[i] = xstrndup(s, strlen(s));
	row->len[i] = 0;
}

/* A text of N bytes, NULs among them, as rasdaemon binds some (a fixed-size field). */
void set_text_bytes(Row *row, const char *col, const char *s, size_t n)
{
	set_blob(row, col, s, n);
}

void set_blob(Row *row, const char *col, const void *p, size_t n)
{
	int i = column_index(row->table, col);
	row->set[i] = true;
	free(row->text[i]);
	row->text[i] = loader_realloc(NULL, n + 1);
	memcpy(row->text[i], p, n);
	row->text[i][n] = '\0';
	row->len[i] = n;
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

/* ---- the sources --------------------------------------------------------------------- */

typedef struct Source {
	const char *name;               /* as the record names it: the ras.* point's */
	const char *kinds;              /* its fields: 'n' a number, 's' a text, 'b' a
					 * payload (blob_len(), blob_bytes()) */
	int table;
	void (*fill)(Row *row, char **f);
} Source;

static long long num(const char *s)
{
	return strtoll(s, NULL, 10);
}

/* A payload field: its length in decimal, a NUL, its bytes (rasdb_record() checked). */
static size_t blob_len(const char *f)
{
	return strtoull(f, NULL, 10);
}

static const char *blob_bytes(const char *f)
{
	return f + strlen(f) + 1;
}

/* Payload field F as column COL's blob; none (NULL) when it is empty. */
static void set_payload(Row *row, const char *col, const char *f)
{
	if (blob_len(f))
		set_blob(row, col, blob_bytes(f), blob_len(f));
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
	mce_words(&m, &w);
	row->dropped = w.no_record;
	if (w.no_ip)
		set_num(row, "ip", 0);
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

/* rasdaemon 0.8.5's text of an ARM error's type or flag BITS: its decode_err_data_bits()
 * writes " WORD" for each bit through mce_snprintf() into a buffer it takes for 8 bytes
 * (sizeof of a char pointer), so what it stores is the first 7 characters. */
static void arm_bits_text(char out[8], unsigned bits, const char *const *words, int n)
{
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (!(bits & 1u << i))
			continue;
		size_t len = strlen(out);
		if (len >= 7)
			break;
		if (len)
			out[len++] = ' ', out[len] = '\0';
		snprintf(out + len, 8 - len, " %s", words[i]);
	}
}

static void fill_arm(Row *row, char **f)
{
	static const char *const types[5] = {"", "cache error", "TLB error", "bus error",
					     "micro-architectural error"};
	static const char *const flags[4] = {"first error ", "last error", "propagated error",
					     "overflow"};
	char text[8];

	set_num(row, "affinity", num(f[0]));
	set_num(row, "mpidr", num(f[1]));
	set_num(row, "running_state", num(f[3]));
	set_num(row, "psci_state", num(f[4]));
	set_num(row, "error_count", num(f[5]));
	arm_bits_text(text, (unsigned)num(f[6]), types, 5);
	set_text(row, "error_type", text);
	arm_bits_text(text, (unsigned)num(f[7]), flags, 4);
	set_text(row, "error_flags", text);
	set_num(row, "error_info", num(f[8]));
	set_num(row, "virt_fault_addr", num(f[9]));
	set_num(row, "phy_fault_addr", num(f[10]));
	set_payload(row, "err_info", f[11]);
	set_payload(row, "context_info", f[12]);
	set_payload(row, "vendor_info", f[13]);
}

static const char *ghes_severity(long long sev)
{
	/* GHES_SEV_NO, _CORRECTED, _RECOVERABLE; _PANIC and the rest */
	return sev == 0 ? "Informational" : sev == 1 ? "Corrected" :
	       sev == 2 ? "Recoverable" : "Fatal";
}

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* A GUID as the tapset gives it, "xxxxxxxx-xxxx-...", as column COL's blob: its 16 bytes
 * as the kernel stored them (little-endian fields); an empty blob for anything else. */
static void set_guid(Row *row, const char *col, const char *guid)
{
	static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
	char digits[33] = "";
	unsigned char b[16];
	size_t n = 0;
	for (const char *p = guid; *p && n < 32; p++)
		if (strchr("0123456789abcdefABCDEF", *p))
			digits[n++] = *p;
	if (n != 32) {
		set_blob(row, col, "", 0);
		return;
	}
	for (int i = 0; i < 16; i++)
		b[i] = hexval(digits[2 * order[i]]) << 4 | hexval(digits[2 * order[i] + 1]);
	set_blob(row, col, b, 16);
}

static void fill_non_standard(Row *row, char **f)
{
	/* a section a vendor's decoder knows: a row of its table too */
	Row *vendor = loader_realloc(NULL, sizeof(*vendor));
	memset(vendor, 0, sizeof(*vendor));
	set_guid(row, "sec_type", f[0]);
	if (row->len[column_index(T_NON_STANDARD, "sec_type")] == 16 &&
	    vendor_row((const unsigned char *)row->text[column_index(T_NON_STANDARD, "sec_type")],
		       (const unsigned char *)blob_bytes(f[4]), blob_len(f[4]), vendor))
		row->vendor = vendor;
	else
		free(vendor);
	set_guid(row, "fru_id", f[1]);
	set_text(row, "fru_text", f[2]);
	set_text(row, "severity", ghes_severity(num(f[3])));
	set_payload(row, "error", f[4]);
}

static void fill_extlog(Row *row, char **f)
{
	set_num(row, "error_count", num(f[0]));
	set_num(row, "etype", num(f[1]));
	set_num(row, "severity", num(f[2]));
	set_num(row, "address", num(f[3]));
	set_guid(row, "fru_id", f[5]);
	set_text(row, "fru_text", f[6]);
	set_payload(row, "cper_data", f[7]);
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

/* ---- CXL memory devices (rasdaemon 0.8.5's ras-cxl-handler.c) ----------------------- */

/* A device's time T (nanoseconds since the epoch) as rasdaemon writes it: local time, or
 * the epoch in UTC for 0. */
static void set_cxl_time(Row *row, const char *col, long long t)
{
	char buf[64];
	time_t secs = (unsigned long long)t / 1000000000ULL;
	struct tm tm;
	if (!t || !localtime_r(&secs, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z",
							   &tm))
		snprintf(buf, sizeof(buf), "1970-01-01 00:00:00 +0000");
	set_text(row, col, buf);
}

static const char *cxl_log_type(long long log)
{
	static const char *const names[] = {"Informational", "Warning", "Failure", "Fatal"};
	return log >= 0 && log < 4 ? names[log] : "Unknown";
}

/* The device: memdev, host, serial (F[0..2]). */
static void cxl_device(Row *row, char **f)
{
	set_text(row, "memdev", f[0]);
	set_text(row, "host", f[1]);
	set_num(row, "serial", num(f[2]));
}

/* An event record's header (F[0..10], tapset ras-history.stp's order). The fields CXL
 * 3.1 added (maintenance sub-class, LD and head IDs) no kernel here passes: 0 where the
 * header's flags say they are not valid (rasdaemon's value), NULL where they say they are. */
static void cxl_header(Row *row, char **f)
{
	long long flags = num(f[5]);
	cxl_device(row, f);
	set_text(row, "log_type", cxl_log_type(num(f[3])));
	set_text(row, "hdr_uuid", f[4]);
	set_num(row, "hdr_flags", flags);
	set_num(row, "hdr_handle", num(f[6]));
	set_num(row, "hdr_related_handle", num(f[7]));
	set_cxl_time(row, "hdr_ts", num(f[8]));
	set_num(row, "hdr_length", num(f[9]));
	set_num(row, "hdr_maint_op_class", num(f[10]));
	if (!(flags & BIT(6)))
		set_num(row, "hdr_maint_op_sub_class", 0);
	if (!(flags & BIT(7)))
		set_num(row, "hdr_ld_id", 0);
	if (!(flags & BIT(8)))
		set_num(row, "hdr_head_id", 0);
}

/* Column COL from F where bit BIT of VALID says the record has it; 0 (rasdaemon's) where
 * it does not. */
static void set_valid(Row *row, const char *col, const char *f, long long valid, int bit)
{
	set_num(row, col, valid & BIT(bit) ? num(f) : 0);
}

/* The PLDM entity and resource IDs of a component ID (F, a payload of 16 bytes) that
 * VALID's bit FORMAT says is in PLDM's format; zeros as rasdaemon's where it is not. */
static void set_pldm_ids(Row *row, const char *f, long long valid, int format)
{
	unsigned char entity[6] = {0}, resource[4] = {0};
	if (f && valid & BIT(format) && blob_len(f) == 16) {
		const unsigned char *id = (const unsigned char *)blob_bytes(f);
		if (id[0] & 1)
			memcpy(entity, id + 1, sizeof(entity));
		if (id[0] & 2)
			memcpy(resource, id + 7, sizeof(resource));
	}
	set_blob(row, "pldm_entity_id", entity, sizeof(entity));
	set_blob(row, "pldm_resource_id", resource, sizeof(resource));
}

static void fill_cxl_poison(Row *row, char **f)
{
	static const char *const traces[] = {"List", "Inject", "Clear"};
	long long trace = num(f[3]), source = num(f[8]), flags = num(f[9]);
	const char *from = source == 0 ? "Unknown" : source == 1 ? "External" :
			   source == 2 ? "Internal" : source == 3 ? "Injected" :
			   source == 7 ? "Vendor" : "Invalid";
	cxl_device(row, f);
	set_text(row, "trace_type", trace >= 0 && trace < 3 ? traces[trace] : "Invalid");
	set_text(row, "region", f[4]);
	set_text(row, "region_uuid", f[5]);
	set_num(row, "dpa", num(f[6]));
	set_num(row, "dpa_length", num(f[7]));
	set_text(row, "source", from);
	set_num(row, "flags", flags);
	set_cxl_time(row, "overflow_ts", flags & BIT(1) ? num(f[10]) : 0);
}

static void fill_cxl_aer_ue(Row *row, char **f)
{
	/* the header log's words, big-endian, as rasdaemon stores them */
	size_t n = blob_len(f[5]) / 4 * 4;
	unsigned char *log = loader_realloc(NULL, n + 1);
	for (size_t i = 0; i < n; i += 4) {
		uint32_t w;
		memcpy(&w, blob_bytes(f[5]) + i, 4);
		w = htobe32(w);
		memcpy(log + i, &w, 4);
	}
	cxl_device(row, f);
	set_num(row, "error_status", num(f[3]));
	set_num(row, "first_error", num(f[4]));
	if (n)
		set_blob(row, "header_log", log, n);
	free(log);
}

static void fill_cxl_aer_ce(Row *row, char **f)
{
	cxl_device(row, f);
	set_num(row, "error_status", num(f[3]));
}

static void fill_cxl_overflow(Row *row, char **f)
{
	cxl_device(row, f);
	set_text(row, "log_type", cxl_log_type(num(f[3])));
	set_num(row, "count", num(f[4]));
	set_cxl_time(row, "first_ts", num(f[5]));
	set_cxl_time(row, "last_ts", num(f[6]));
}

static void fill_cxl_generic(Row *row, char **f)
{
	cxl_header(row, f);
	set_payload(row, "data", f[11]);
}

/* What a general media or DRAM record has alike (F[11..15]), and what neither passes:
 * sub_type, hpa_alias0 (NULL), the CME fields (0 unless a threshold event: NULL). */
static void cxl_media(Row *row, char **f)
{
	long long descriptor = num(f[13]);
	cxl_header(row, f);
	set_num(row, "dpa", num(f[11]));
	set_num(row, "dpa_flags", num(f[12]));
	set_num(row, "descriptor", descriptor);
	set_num(row, "type", num(f[14]));
	set_num(row, "transaction_type", num(f[15]));
	if (!(descriptor & BIT(1)))
		set_num(row, "cme_threshold_ev_flags", 0);
}

static void fill_cxl_general_media(Row *row, char **f)
{
	long long valid = num(f[19]);
	cxl_media(row, f);
	if (!(num(f[13]) & BIT(1)))
		set_num(row, "cme_count", 0);
	set_valid(row, "channel", f[16], valid, 0);
	set_valid(row, "rank", f[17], valid, 1);
	set_valid(row, "device", f[18], valid, 2);
	if (valid & BIT(3))
		set_payload(row, "comp_id", f[23]);
	set_pldm_ids(row, f[23], valid, 4);
	set_num(row, "hpa", num(f[20]));
	set_text(row, "region", f[21]);
	set_text(row, "region_uuid", f[22]);
}

static void fill_cxl_dram(Row *row, char **f)
{
	long long valid = num(f[23]);
	cxl_media(row, f);
	if (!(num(f[13]) & BIT(1)))
		set_num(row, "cvme_count", 0);
	set_valid(row, "channel", f[16], valid, 0);
	set_valid(row, "rank", f[17], valid, 1);
	set_valid(row, "nibble_mask", f[18], valid, 2);
	set_valid(row, "bank_group", f[19], valid, 3);
	set_valid(row, "bank", f[20], valid, 4);
	set_valid(row, "row", f[21], valid, 5);
	set_valid(row, "column", f[22], valid, 6);
	if (valid & BIT(7))
		set_payload(row, "cor_mask", f[27]);
	set_num(row, "hpa", num(f[24]));
	set_text(row, "region", f[25]);
	set_text(row, "region_uuid", f[26]);
	/* no component ID, sub-channel (CXL 3.1) in the kernels' DRAM records */
	set_pldm_ids(row, NULL, 0, 0);
	if (!(valid & BIT(10)))
		set_num(row, "sub_channel", 0);
}

static void fill_cxl_memory_module(Row *row, char **f)
{
	cxl_header(row, f);
	set_num(row, "event_type", num(f[11]));
	set_num(row, "health_status", num(f[12]));
	set_num(row, "media_status", num(f[13]));
	set_num(row, "life_used", num(f[14]));
	set_num(row, "dirty_shutdown_cnt", num(f[15]));
	set_num(row, "cor_vol_err_cnt", num(f[16]));
	set_num(row, "cor_per_err_cnt", num(f[17]));
	set_num(row, "device_temp", num(f[18]) & 0xffff);    /* the event's u16 */
	set_num(row, "add_status", num(f[19]));
	set_pldm_ids(row, NULL, 0, 0);   /* no component ID (CXL 3.1) in the kernels' */
}

static const Source sources[] = {
	{"ras.mce", "nnnnnnnnnnnnnnnnnnnn", T_MCE, fill_mce},
	{"ras.memory_failure", "nnn", T_MF, fill_memory_failure},
	{"ras.aer", "snnns", T_AER, fill_aer},
	{"ras.mc_event", "nssnnnnnnnns", T_MC, fill_mc_event},
	{"ras.arm", "nnnnnnnnnnnbbb", T_ARM, fill_arm},
	{"ras.non_standard", "sssnb", T_NON_STANDARD, fill_non_standard},
	{"ras.extlog_mem", "nnnnnssb", T_EXTLOG, fill_extlog},
	{"ras.disk_error", "nnnsnnns", T_DISK, fill_disk},
	{"ras.signal", "nnnsnnn", T_SIGNAL, fill_signal},
	{"ras.devlink_health", "sssss", T_DEVLINK, fill_devlink},
	{"ras.cxl_poison", "ssnnssnnnnn", T_CXL_POISON, fill_cxl_poison},
	{"ras.cxl_aer_ue", "ssnnnb", T_CXL_AER_UE, fill_cxl_aer_ue},
	{"ras.cxl_aer_ce", "ssnn", T_CXL_AER_CE, fill_cxl_aer_ce},
	{"ras.cxl_overflow", "ssnnnnn", T_CXL_OVERFLOW, fill_cxl_overflow},
	{"ras.cxl_generic", "ssnnsnnnnnnb", T_CXL_GENERIC, fill_cxl_generic},
	{"ras.cxl_general_media", "ssnnsnnnnnnnnnnnnnnnnssb", T_CXL_GENERAL_MEDIA,
	 fill_cxl_general_media},
	{"ras.cxl_dram", "ssnnsnnnnnnnnnnnnnnnnnnnnssb", T_CXL_DRAM, fill_cxl_dram},
	{"ras.cxl_memory_module", "ssnnsnnnnnnnnnnnnnnn", T_CXL_MEMORY_MODULE,
	 fill_cxl_memory_module},
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

static int store(Row *row, const char *when, char **why)
{
	int t = row->table;
	sqlite3_stmt *st = insert[t];
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
			sqlite3_bind_text(st, k++, row->text[i], row->len[i] ? (int)row->len[i] : -1,
					  SQLITE_TRANSIENT);
		else
			sqlite3_bind_blob(st, k++, row->text[i], row->len[i], SQLITE_TRANSIENT);
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

/*
 * RECORD's fields, as its source's KINDS say, from its third on (its source and time
 * are the first two, checked): each F[i] a NUL-ended text; a payload's its length in
 * decimal, then its bytes after the NUL. How many there were, or -1 when REC (LEN bytes
 * and a NUL past them) does not hold them.
 */
static int split_fields(char *rec, size_t len, const char *kinds, char **f, int max)
{
	size_t at = 0;
	int n = 0;
	for (; n < max && at < len; n++) {
		f[n] = rec + at;
		size_t l = strnlen(rec + at, len - at);
		if (at + l == len)
			return -1;              /* no NUL: the record ends inside a field */
		at += l + 1;
		if (n >= 2 && (size_t)(n - 2) < strlen(kinds) && kinds[n - 2] == 'b') {
			char *end;
			unsigned long long b = strtoull(f[n], &end, 10);
			if (end == f[n] || *end || b > len - at)
				return -1;
			at += b;
		}
	}
	return at == len ? n : -1;
}

int rasdb_record(const unsigned char *data, size_t len, char **why)
{
	char *rec = loader_realloc(NULL, len + 1);    /* the fields, and one NUL more */
	memcpy(rec, data, len);
	rec[len] = '\0';
	char *field[48];
	const size_t max = sizeof(field) / sizeof(field[0]);
	const Source *src = NULL;
	for (size_t i = 0; i < NSOURCES; i++)
		if (!strcmp(sources[i].name, rec))
			src = &sources[i];
	const char *kinds = src ? src->kinds : "";
	int nf = split_fields(rec, len, kinds, field, max);
	if (!src || nf < 0 || (size_t)nf != 2 + strlen(kinds)) {
		Buf name = {0};         /* the source as it came, escaped: a JSON string */
		buf_json_string(&name, rec, strnlen(rec, 40));
		*why = dbformat("a malformed history record refused (%d fields, source %.*s)", nf,
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
	int rc = 0;
	if (row.vendor) {       /* rasdaemon stores it first */
		rc = store(row.vendor, when, why);
		for (int i = 0; i < MAX_COLUMNS; i++)
			free(row.vendor->text[i]);
		free(row.vendor);
	}
	if (!rc && !row.dropped)
		rc = store(&row, when, why);
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
