/* uframes.h - how to find the caller of code in an ELF file, from its call frame
 * information (.eh_frame, and .debug_frame for code it leaves out), as rows the module's
 * user unwinder walks (runtime/uunwind.h):
 * per address range, where the canonical frame address (CFA) is, and where the return
 * address and the caller's frame pointer were saved. Read by the translator for the files
 * it builds into a module (translator/target/usyms.c) and by hwtap-run's readers for the
 * files processes map (loader/usyms.c): one reading, so both unwind alike.
 *
 * Why rows and not the CFI itself: the module runs in NMI context, where interpreting
 * DWARF's instructions (state machines, expressions, CIE/FDE search) costs time nobody
 * bounds and code nobody wants in the kernel. libdw interprets them here, in user space,
 * once per file, and what a handler needs reduces to a few rules most code uses (the
 * shape of the kernel's ORC): CFA = SP or FP + offset (or the word there, for a signal
 * frame); the return address and frame pointer at CFA + offset, at SP + offset, or where
 * they were. A range whose rules are something else gets a row that says so, and the
 * unwinder falls back to the frame pointer there. */
#ifndef HWTAP_UFRAMES_H
#define HWTAP_UFRAMES_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "../runtime/protocol.h"

/* UFrameRow.cfa, .ra, .fp and .flags: runtime/protocol.h's HWTAP_UFRAME_* (the module and
 * this file read the same numbers). The CFA is the stack pointer of the caller at the
 * call: SP or FP + cfa_off (with DEREF the word there); CFA_PLT is x86-64's lazy PLT,
 * where the push of the entry adds 8 once (PC & 15) >= plt; CFA_NONE a range whose rules
 * are not taken (frame pointers there), CFA_END the outermost frame. The return address
 * and the caller's frame pointer are in their registers still (REG_SAME: arm64's link
 * register at entry), at CFA + off, at SP + off (a signal frame's saved context), or not
 * recoverable (REG_UNDEF). SIGNAL: the caller's PC is the one interrupted, not a return
 * address. */
typedef struct {
	uint64_t addr;          /* link-time address the row applies from, to the next's */
	int32_t cfa_off;
	int16_t ra_off, fp_off;
	uint8_t cfa, ra, fp, flags, plt;
} UFrameRow;

typedef struct {
	UFrameRow *rows;        /* ascending by addr, each addr once, no two alike in a row */
	size_t nrows;
} UFrameTab;

/* What one reading takes at most, whoever made the file: UFRAMES_ROWS_MAX rows, and
 * UFRAMES_WORK_MAX bytes of CFI instructions interpreted (libdw reads an FDE from its start
 * for each of its rows) — a file past either is not unwound by its table: frame pointers
 * only —; UFRAMES_FDE_ROWS_MAX rows of one FDE (the rest of its range falls back); a
 * .eh_frame or .debug_frame of UFRAMES_SECTION_MAX bytes (decompressed). Debian 12's python3.11, 10,221 FDEs and 65,800
 * rows, takes 4.0 MB of that work. */
#define UFRAMES_ROWS_MAX (1 << 21)
#define UFRAMES_WORK_MAX (64u << 20)
#define UFRAMES_FDE_ROWS_MAX 1024
#define UFRAMES_SECTION_MAX (64u << 20)
/* and, so that libdw's register tables stay small (uframes.c's cfa_fits), FDEs naming no
 * DWARF register past UFRAMES_REG_MAX (x86-64's go to 125, arm64's to 127) and
 * remembering at most UFRAMES_STATES_MAX states at once */
#define UFRAMES_REG_MAX 255
#define UFRAMES_STATES_MAX 64

/* The rows of ELF's .eh_frame and .debug_frame, and of DEBUG's .debug_frame (its separate
 * debug file, lib/udebug.h, NULL: none; where strip took the only CFI some code has), into
 * T (of rows at one address, .eh_frame's, then the file's .debug_frame's), for x86-64
 * and arm64 files (none for others, or without one). The work and rows of all three count
 * against one bound. 0, or -1 when out of memory (T then empty). */
int uframes_read(Elf *elf, Elf *debug, UFrameTab *t);
void uframes_free(UFrameTab *t);

#endif /* HWTAP_UFRAMES_H */
