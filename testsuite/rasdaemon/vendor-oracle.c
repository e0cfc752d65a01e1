/* vendor-oracle.c - what rasdaemon 0.8.5 stores for each section sections.c makes:
 * compiled with a rasdaemon source tree's vendor decoders (non-standard-hisilicon.c,
 * non-standard-hisi_hip08.c, non-standard-yitian.c, non-standard-nvidia.c,
 * non-standard-jaguarmicro.c), which add their rows to the SQLite database DB (argv[1])
 * as they do in rasdaemon; this file stands in for the parts of rasdaemon around them:
 * the decoders' registration, the creation of their tables (as ras-record.c creates
 * them) and the trace text (kept nowhere). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ras-events.h"
#include "ras-non-standard-handler.h"
#include "ras-record.h"

static struct ras_ns_ev_decoder *decoders;
static sqlite3 *db;

int register_ns_ev_decoder(struct ras_ns_ev_decoder *d)
{
	d->next = decoders;
	decoders = d;
	return 0;
}

int trace_seq_printf(struct trace_seq *s, const char *fmt, ...)
{
	(void)s;
	(void)fmt;
	return 1;
}

/* The table as ras-record.c makes it, and its statement: every field but id, bound by
 * the field's number. */
int ras_mc_add_vendor_table(struct ras_events *ras, sqlite3_stmt **stmt,
			    const struct db_table_descriptor *tab)
{
	char create[4096], insert[4096];
	size_t c, i;

	(void)ras;
	c = snprintf(create, sizeof(create), "CREATE TABLE IF NOT EXISTS %s (", tab->name);
	i = snprintf(insert, sizeof(insert), "INSERT INTO %s (", tab->name);
	for (size_t f = 0; f < tab->num_fields; f++) {
		c += snprintf(create + c, sizeof(create) - c, "%s%s %s", f ? ", " : "",
			      tab->fields[f].name, tab->fields[f].type);
		if (f)
			i += snprintf(insert + i, sizeof(insert) - i, "%s%s", f > 1 ? ", " : "",
				      tab->fields[f].name);
	}
	snprintf(create + c, sizeof(create) - c, ")");
	i += snprintf(insert + i, sizeof(insert) - i, ") VALUES (");
	for (size_t f = 1; f < tab->num_fields; f++)
		i += snprintf(insert + i, sizeof(insert) - i, "%s?", f > 1 ? ", " : "");
	snprintf(insert + i, sizeof(insert) - i, ")");
	if (sqlite3_exec(db, create, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, insert, -1, stmt, NULL) != SQLITE_OK) {
		fprintf(stderr, "vendor-oracle: %s: %s\n", tab->name, sqlite3_errmsg(db));
		exit(1);
	}
	return SQLITE_OK;
}

int main(int argc, char **argv)
{
	struct ras_events ras;
	char line[16384], type[64], hex[16000];
	static uint8_t bytes[8192];

	if (argc != 2 || sqlite3_open(argv[1], &db) != SQLITE_OK)
		return 2;
	memset(&ras, 0, sizeof(ras));
	ras.record_events = 1;
	for (struct ras_ns_ev_decoder *d = decoders; d; d = d->next)
		if (d->add_table)
			d->add_table(&ras, d);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	while (fgets(line, sizeof(line), stdin)) {
		struct ras_non_standard_event ev;
		size_t n = 0;

		if (sscanf(line, "%63s %15999s", type, hex) != 2)
			return 2;
		for (; hex[2 * n] && hex[2 * n + 1]; n++)
			sscanf(hex + 2 * n, "%2hhx", &bytes[n]);
		memset(&ev, 0, sizeof(ev));
		strcpy(ev.timestamp, "T");
		ev.error = bytes;
		ev.length = n;
		for (struct ras_ns_ev_decoder *d = decoders; d; d = d->next)
			if (!strcmp(d->sec_type, type))
				d->decode(&ras, d, NULL, &ev);
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	return 0;
}
