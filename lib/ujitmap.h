/* ujitmap.h - a JIT's perf map (/tmp/perf-PID.map, as Node's --perf-basic-prof, Python
 * 3.12's -X perf and the JVM's perf-map-agent write it) as a symbol table by address, the
 * shape the module's user symbol tables have (usymtab.h): read by hwtap-run's readers
 * (loader/ujit.c) for the anonymous code a process runs (runtime/ujit.c).
 *
 * The format is perf's: a line per function, "START SIZE NAME", START and SIZE in hex
 * (with or without 0x), NAME the rest of the line. A JIT appends lines as it compiles; a
 * function moved or its memory reused gets a line later in the file, so of the lines
 * whose ranges overlap the last one wins and the older ones are left out: the table
 * names no address after code that is not there any more. Lines that do not parse, ranges
 * of size 0 or that wrap, and a last line without its newline (a JIT still writing it) are
 * left out. */
#ifndef HWTAP_UJITMAP_H
#define HWTAP_UJITMAP_H

#include "usymtab.h"

#include <stddef.h>

/* The bounds of one reading, whoever wrote the file: UJITMAP_FILE_MAX bytes of it are
 * read (a larger file is not), the newest UJITMAP_SYMS_MAX lines kept (runtime/ujit.c's
 * HWTAP_UJIT_SYMS_MAX: an older line is then left out, as if overlapped), each name cut at UJITMAP_NAME_MAX bytes and its control bytes
 * written '?'. */
#define UJITMAP_FILE_MAX (128u << 20)
#define UJITMAP_FILE_MAX_TEXT "128 MiB"
#define UJITMAP_SYMS_MAX (1 << 20)
#define UJITMAP_NAME_MAX 1024

/* The LEN bytes of a map at TEXT into T (no segments: addresses are the process's own;
 * symbols ascending, disjoint, each with its size; names "" first). 0, or -1 when out of
 * memory or past UJITMAP_FILE_MAX (T then empty). */
int ujitmap_parse(const char *text, size_t len, USymTab *t);

#endif /* HWTAP_UJITMAP_H */
