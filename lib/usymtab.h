/* usymtab.h - an ELF file's loadable segments and symbols by address, as the module's
 * user symbol tables hold them (runtime/usyms.h). Read by the translator for the files it
 * builds into a module (translator/target/usyms.c) and by hwtap-run for the files the module asks
 * about as processes map them (loader/usyms.c): one reading, so both name alike. */
#ifndef HWTAP_USYMTAB_H
#define HWTAP_USYMTAB_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint64_t offset, vaddr, size;   /* a PT_LOAD: file offset, link-time address, filesz */
} USymSeg;

typedef struct {
	uint64_t addr;                  /* link-time address, ascending, each once */
	uint64_t name;                  /* offset in names */
	uint64_t size;                  /* st_size, up to USYMTAB_SIZE_MAX; 0: not known */
	uint64_t dname;                 /* the name demangled (C++, Rust), in names; 0: none */
} USymEntry;

typedef struct {
	USymSeg *segs;
	size_t nsegs;
	USymEntry *syms;
	size_t nsyms;
	char *names;                    /* NUL-terminated names, the first "" */
	size_t names_len;
} USymTab;

/* What one reading takes at most, whoever made the file: a symbol table of up to
 * USYMTAB_SYMS_MAX entries (runtime/udyn.c's HWTAP_UDYN_SYMS_MAX) and a string table of up
 * to USYMTAB_STRTAB_MAX bytes, read only if the section headers say no more (a table past
 * either is not read: no names); names cut at USYMTAB_NAME_MAX bytes; symbols past
 * USYMTAB_NAMES_MAX bytes of names left out. */
#define USYMTAB_SYMS_MAX (1 << 22)
#define USYMTAB_STRTAB_MAX (256u << 20)
#define USYMTAB_NAME_MAX 4096
#define USYMTAB_NAMES_MAX (256u << 20)
#define USYMTAB_SIZE_MAX 0xffffffffu
#define USYMTAB_DEMANGLE_MAX (64u << 20)

/* ELF's segments and symbols into T (DEBUG's .symtab where ELF's separate debug file was
 * found (lib/udebug.h; NULL: none), else ELF's .symtab, else its .dynsym and the .symtab of
 * its MiniDebugInfo; at most USYMTAB_SYMS_MAX symbols in all; functions, IFUNCs and objects;
 * of several at one address the global, then weak, then local one, functions before
 * objects, with the largest size of theirs; versions cut at '@'; C++ and Rust names also
 * demangled). 0, or -1 when out of memory (T then empty). */
int usymtab_read(Elf *elf, Elf *debug, USymTab *t);
void usymtab_free(USymTab *t);

#endif /* HWTAP_USYMTAB_H */
