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
#include "loader.h"
#include "mcewords.h"
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
	bool dropped;           /* an event rasdaemon stores no row of */
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
	{"ras.arm", "nnnnnnnnnnn", T_ARM, fill_arm},
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
	int rc = row.dropped ? 0 : store(&row, when, why);
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
