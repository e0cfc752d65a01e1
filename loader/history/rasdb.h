/* rasdb.h - what rasdb.c (hwtap-run --ras-db: rasdaemon's database) shares with
 * rasvendor.c (rasdaemon's decoders of vendors' CPER sections): the tables by number, a
 * row of one, and how its columns are set. */
#ifndef HWTAP_RASDB_H
#define HWTAP_RASDB_H

#include <stdbool.h>
#include <stddef.h>

/* How a column's value is bound: rasdaemon binds some integers as 32 bits (they are cut
 * to them), others as 64; texts; blobs. */
enum kind { K_INT, K_INT64, K_TEXT, K_BLOB };

#define MAX_COLUMNS 40

enum { T_MC, T_AER, T_EXTLOG, T_MCE, T_ARM, T_NON_STANDARD, T_DEVLINK, T_DISK, T_MF,
       T_SIGNAL, T_CXL_POISON, T_CXL_AER_UE, T_CXL_AER_CE, T_CXL_OVERFLOW, T_CXL_GENERIC,
       T_CXL_GENERAL_MEDIA, T_CXL_DRAM, T_CXL_MEMORY_MODULE,
       /* the vendors' tables (rasvendor.c) */
       T_HISI_COMMON, T_HIP08_TYPE1, T_HIP08_TYPE2, T_HIP08_PCIE_LOCAL, T_YITIAN_DDR,
       T_NVIDIA_GRACE, T_NVIDIA_VERA, T_JAGUARMICRO, T_COUNT };

/* One row's values, by the table's column index; a text or blob column's is owned by the
 * row (a blob's LEN bytes). */
typedef struct Row {
	int table;
	bool set[MAX_COLUMNS];
	long long num[MAX_COLUMNS];
	char *text[MAX_COLUMNS];
	size_t len[MAX_COLUMNS];
	bool dropped;           /* an event rasdaemon stores no row of */
	struct Row *vendor;     /* a vendor's decoding of it: a row of its own table */
} Row;

/* Column COL of ROW's table (a name it lacks is a bug: abort()). */
void set_num(Row *row, const char *col, long long v);
void set_text(Row *row, const char *col, const char *s);
void set_blob(Row *row, const char *col, const void *p, size_t n);
void set_text_bytes(Row *row, const char *col, const char *s, size_t n);

/*
 * The row rasdaemon 0.8.5's decoder for a non-standard section of type SEC_TYPE (its 16
 * bytes as the kernel has them) adds to its vendor's table for the section's LEN bytes
 * at P, into ROW (zeroed by the caller); false for a type none decodes, or a section its
 * decoder stores no row of.
 */
bool vendor_row(const unsigned char sec_type[16], const unsigned char *p, size_t len,
		Row *row);

#endif
