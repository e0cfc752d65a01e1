/* fuzz_elf.c - libFuzzer over what hwtap-run's readers parse of a file another user may
 * have written (loader/usyms.c, loader/ujit.c, hwtap-run(8) SECURITY): the input is an
 * ELF file, read as a reader reads it - its segments and symbols (usymtab_read,
 * MiniDebugInfo and its xz included), where it says its debug file is (udebug_ref,
 * udebug_path), and its unwind rows (uframes_read, libdw interpreting the CFI) - and any
 * input is also a JIT's perf map (ujitmap_parse), under ASan and UBSan, with the bounds
 * lib's headers state. Built by `make fuzz' (lib/fuzz_elf); testsuite/hwtap.base/fuzz.exp runs it
 * over real programs and libraries and the shapes usyms.exp crafts.
 * What it checks beyond no crash, leak or sanitizer report: the tables are as the headers
 * promise (symbols ascending, each address once, names inside the name table; rows
 * ascending; a perf map's symbols disjoint, each with a size, names without control
 * bytes), so that what the module is handed is well formed whatever the input.
 */
#include "usymtab.h"
#include "udebug.h"
#include "uframes.h"
#include "ujitmap.h"

#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An input larger than this is not a file the fuzzer learns from; readers take up to
 * 2 GiB, but their bounds are per table, which smaller inputs reach. */
#define FUZZ_INPUT_MAX (16u << 20)

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_elf: a table is not as usymtab.h/uframes.h promise: %s\n",
			what);
		abort();
	}
}

static void check_symtab(const USymTab *t)
{
	check(t->nsyms <= USYMTAB_SYMS_MAX, "more symbols than USYMTAB_SYMS_MAX");
	check(!t->nsyms || (t->names && t->names_len && t->names[0] == '\0'),
	      "no name table, or it does not start with \"\"");
	check(!t->names_len || t->names[t->names_len - 1] == '\0', "names not NUL-ended");
	for (size_t i = 0; i < t->nsyms; i++) {
		const USymEntry *e = &t->syms[i];
		check(!i || e->addr > t->syms[i - 1].addr, "symbols not ascending, each once");
		check(e->name < t->names_len && e->dname < t->names_len,
		      "a name outside the name table");
		check(strlen(t->names + e->name) <= USYMTAB_NAME_MAX, "a name past USYMTAB_NAME_MAX");
		check(e->size <= USYMTAB_SIZE_MAX, "a size past USYMTAB_SIZE_MAX");
	}
}

static void check_frames(const UFrameTab *f)
{
	check(f->nrows <= UFRAMES_ROWS_MAX, "more rows than UFRAMES_ROWS_MAX");
	for (size_t i = 1; i < f->nrows; i++)
		check(f->rows[i].addr > f->rows[i - 1].addr, "rows not ascending, each once");
}

static void check_jitmap(const USymTab *t)
{
	check_symtab(t);
	check(t->nsyms <= UJITMAP_SYMS_MAX, "more perf map lines than UJITMAP_SYMS_MAX");
	for (size_t i = 0; i < t->nsyms; i++) {
		const USymEntry *e = &t->syms[i];
		const char *name = t->names + e->name;
		check(e->size > 0 && e->addr + e->size > e->addr, "a perf map line without extent");
		check(i + 1 == t->nsyms || e->addr + e->size <= t->syms[i + 1].addr,
		      "perf map lines overlapping");
		check(strlen(name) <= UJITMAP_NAME_MAX, "a name past UJITMAP_NAME_MAX");
		for (; *name; name++)
			check((unsigned char)*name >= 0x20 && *name != 0x7f,
			      "a control byte in a perf map's name");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready) {
		elf_version(EV_CURRENT);
		ready = 1;
	}
	if (size > FUZZ_INPUT_MAX)
		return 0;
	USymTab jt;
	if (!ujitmap_parse((const char *)data, size, &jt)) {
		check_jitmap(&jt);
		usymtab_free(&jt);
	}
	/* libelf's memory image: its own copy, which it may write into (ELF_C_READ_MMAP's
	 * private mapping does too) */
	char *image = malloc(size ? size : 1);
	if (!image)
		return 0;
	memcpy(image, data, size);
	Elf *elf = elf_memory(image, size);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		USymTab t = {0};
		if (!usymtab_read(elf, NULL, &t)) {
			check_symtab(&t);
			usymtab_free(&t);
		}
		UDebugRef ref;
		if (udebug_ref(elf, &ref) && udebug_ref_valid(&ref)) {
			char path[4096];
			for (int i = 0; i < 2; i++)
				if (udebug_path(&ref, "/usr/bin/fuzzed", i, path, sizeof(path)) > 0)
					check(!strncmp(path, "/usr/lib/debug/", 15),
					      "a debug file's path outside /usr/lib/debug");
		}
		UFrameTab f = {0};
		if (!uframes_read(elf, NULL, &f)) {
			check_frames(&f);
			uframes_free(&f);
		}
	}
	if (elf)
		elf_end(elf);
	free(image);
	return 0;
}
