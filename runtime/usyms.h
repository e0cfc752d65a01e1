/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usyms.h - the shape of the symbol tables the translator writes into a module for
 * usymname() and the rest, and the unwind rows of its user backtraces
 * (translator/target/usyms.c writes them, runtime/usyms.c and uunwind.c read them).
 */
#ifndef HWTAP_USYMS_H
#define HWTAP_USYMS_H

#include <linux/path.h>
#include <linux/types.h>

struct hwtap_useg {			/* a PT_LOAD segment */
	u64 offset, vaddr, size;	/* file offset, link-time address, bytes in the file */
};

struct hwtap_usym {
	u64 addr;			/* link-time address (first: usyms.c searches by it) */
	u32 name;			/* offset in the module's names */
	u32 size;			/* st_size: past it the address is the symbol's no more;
					 * 0: not known (to the next symbol) */
	u32 dname;			/* the name demangled (C++, Rust), in names; 0: none */
};

struct hwtap_uframe {			/* an unwind row (lib/uframes.h): from addr to the next */
	u64 addr;			/* link-time address (first, as the symbols') */
	s32 cfa_off;
	s16 ra_off, fp_off;
	u8 cfa, ra, fp, flags, plt;	/* protocol.h's HWTAP_UFRAME_* */
};

struct hwtap_uline {			/* a row of the line table: the code from addr on */
	u64 addr;			/* link-time address (first, as the symbols') */
	u32 line;
	u32 file;			/* offset in files, or HWTAP_ULINE_END: no line */
};
#define HWTAP_ULINE_END 0xffffffff

struct hwtap_umod {
	/* the generated code's */
	const char *path;		/* where the module runs */
	u64 size;			/* the file's size: another file there is not it */
	const struct hwtap_useg *segs;
	int nsegs;
	const struct hwtap_usym *syms;
	int nsyms;
	const char *names;
	const struct hwtap_uline *lines;	/* by address; NULL without the line tables */
	int nlines;
	const char *files;
	const struct hwtap_uframe *frames;	/* by address; NULL without unwind rows */
	int nframes;
	/* the runtime's */
	struct path file;
	const struct inode *inode;	/* compared, NULL when PATH did not resolve */
	char *name;			/* the file's path, what umodname() says */
};

#endif /* HWTAP_USYMS_H */
