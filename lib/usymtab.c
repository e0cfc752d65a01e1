/* usymtab.c - an ELF file's segments and symbols by address (usymtab.h). */
#include "usymtab.h"
#include "udebug.h"

#include <libiberty/demangle.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	uint64_t addr, size;
	const char *name;               /* in the ELF's string table, up to '@' */
	size_t len;
	int rank;                       /* of several at one address the lowest is kept */
} Sym;

typedef struct {
	Sym *v;
	size_t n, cap;
} Syms;

static int by_addr(const void *a, const void *b)
{
	const Sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = x->name == y->name ? 0 : memcmp(x->name, y->name, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Global functions first, then weak, then local; objects after functions. */
static int sym_rank(const GElf_Sym *sym)
{
	int bind = GELF_ST_BIND(sym->st_info);
	int rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	return rank + (GELF_ST_TYPE(sym->st_info) == STT_OBJECT ? 3 : 0);
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t cap2 = *cap ? *cap * 2 : 64;
	while (cap2 < need)
		cap2 *= 2;
	void *q = realloc(p, cap2 * size);
	if (q)
		*cap = cap2;
	return q;
}

/* The first table of TYPE (SHT_SYMTAB or SHT_DYNSYM: the ELF spec allows one of each), if
 * its entries are symbols of this file's class, with its string table: whether there is
 * one within the bounds (usymtab.h). The bounds come from the section headers, before
 * libelf reads a byte of either: elf_getdata() reads all of sh_size, whatever sh_entsize
 * says, and the headers are the file's to make up. */
static bool find_table(Elf *elf, unsigned type, Elf_Scn **table, GElf_Shdr *sh)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			break;
	}
	if (!scn || !entsize || sh->sh_entsize != entsize ||
	    sh->sh_size / entsize > USYMTAB_SYMS_MAX)
		return false;
	GElf_Shdr strsh;
	Elf_Scn *strscn = elf_getscn(elf, sh->sh_link);
	if (!strscn || !gelf_getshdr(strscn, &strsh) || strsh.sh_type != SHT_STRTAB ||
	    strsh.sh_size > USYMTAB_STRTAB_MAX)
		return false;
	*table = scn;
	return true;
}

/* The symbols of the table of TYPE into OUT: 0, or -1 when out of memory. Each name is
 * looked at up to USYMTAB_NAME_MAX bytes, and their sum up to USYMTAB_NAMES_MAX: a name
 * shared by many symbols, or names longer than any answer holds, cost no more. */
static int read_table(Elf *elf, unsigned type, Syms *out)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	if (!find_table(elf, type, &scn, &sh))
		return 0;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = sh.sh_size / sh.sh_entsize, bytes = 0;
	for (size_t i = 1; data && i < count && bytes < USYMTAB_NAMES_MAX &&
			   out->n < USYMTAB_SYMS_MAX; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		int t = GELF_ST_TYPE(sym.st_info);
		if (t != STT_FUNC && t != STT_GNU_IFUNC && t != STT_OBJECT)
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		size_t len = name ? strnlen(name, USYMTAB_NAME_MAX) : 0;
		const char *at = len ? memchr(name, '@', len) : NULL;
		if (at)
			len = at - name;
		if (!len)
			continue;
		Sym *v = grow(out->v, &out->cap, out->n + 1, sizeof(*v));
		if (!v)
			return -1;
		out->v = v;
		uint64_t size = sym.st_size < USYMTAB_SIZE_MAX ? sym.st_size : USYMTAB_SIZE_MAX;
		out->v[out->n++] = (Sym){sym.st_value, size, name, len, sym_rank(&sym)};
		bytes += len + 1;
	}
	return 0;
}

/* The C++ and Rust names of T demangled (libiberty's cplus_demangle, which knows both),
 * each after its raw name in T's names: 0, or -1 when out of memory (T then empty). At
 * most USYMTAB_DEMANGLE_MAX bytes of raw names are demangled, and only while the names
 * stay within USYMTAB_NAMES_MAX: past either, names stay raw. */
static int demangle(USymTab *t)
{
	size_t done = 0, cap = t->names_len;
	for (size_t i = 0; i < t->nsyms; i++) {
		const char *raw = t->names + t->syms[i].name;
		if (raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
			continue;
		size_t len = strlen(raw);
		if ((done += len) > USYMTAB_DEMANGLE_MAX)
			break;
		char *d = cplus_demangle(raw, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
		if (!d)
			continue;
		size_t dlen = strnlen(d, USYMTAB_NAME_MAX);
		if (t->names_len + dlen + 1 > USYMTAB_NAMES_MAX) {
			free(d);
			break;
		}
		char *names = grow(t->names, &cap, t->names_len + dlen + 1, 1);
		if (!names) {
			free(d);
			usymtab_free(t);
			return -1;
		}
		t->names = names;
		memcpy(t->names + t->names_len, d, dlen);
		t->names[t->names_len + dlen] = '\0';
		t->syms[i].dname = t->names_len;
		t->names_len += dlen + 1;
		free(d);
	}
	return 0;
}

void usymtab_free(USymTab *t)
{
	free(t->segs);
	free(t->syms);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

int usymtab_read(Elf *elf, Elf *debug, USymTab *t)
{
	memset(t, 0, sizeof(*t));
	unsigned char *mini = NULL;
	size_t mini_len = 0;
	Elf *mini_elf = NULL;
	Syms syms = {0};
	size_t nph = 0, cap = 0;
	if (!elf_getphdrnum(elf, &nph)) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
				continue;
			USymSeg *s = grow(t->segs, &cap, t->nsegs + 1, sizeof(*s));
			if (!s)
				goto oom;
			t->segs = s;
			t->segs[t->nsegs++] = (USymSeg){ph.p_offset, ph.p_vaddr, ph.p_filesz};
		}
	}
	/* the debug file's .symtab, else the file's, else its .dynsym with what its
	 * MiniDebugInfo adds (the local functions .dynsym lacks) */
	if (debug && read_table(debug, SHT_SYMTAB, &syms))
		goto oom_syms;
	if (!syms.n && read_table(elf, SHT_SYMTAB, &syms))
		goto oom_syms;
	if (!syms.n) {
		if (read_table(elf, SHT_DYNSYM, &syms) ||
		    udebug_minidebuginfo(elf, &mini, &mini_len) < 0)
			goto oom_syms;
		if (mini && (mini_elf = elf_memory((char *)mini, mini_len)) &&
		    elf_kind(mini_elf) == ELF_K_ELF && read_table(mini_elf, SHT_SYMTAB, &syms))
			goto oom_syms;
	}
	if (syms.n)
		qsort(syms.v, syms.n, sizeof(*syms.v), by_addr);
	size_t bytes = 1;
	for (size_t i = 0; i < syms.n; i++)
		bytes += syms.v[i].len + 1;
	t->names = malloc(bytes);
	t->syms = malloc((syms.n ? syms.n : 1) * sizeof(*t->syms));
	if (!t->names || !t->syms)
		goto oom_syms;
	t->names[0] = '\0';
	t->names_len = 1;
	for (size_t i = 0; i < syms.n; i++) {
		if (i && syms.v[i].addr == syms.v[i - 1].addr) {
			/* one name for the address; its extent the largest any of them says (an
			 * alias without a size leaves the function's) */
			USymEntry *e = &t->syms[t->nsyms - 1];
			if (syms.v[i].size > e->size)
				e->size = syms.v[i].size;
			continue;
		}
		t->syms[t->nsyms++] = (USymEntry){syms.v[i].addr, t->names_len, syms.v[i].size, 0};
		memcpy(t->names + t->names_len, syms.v[i].name, syms.v[i].len);
		t->names[t->names_len + syms.v[i].len] = '\0';
		t->names_len += syms.v[i].len + 1;
	}
	free(syms.v);
	elf_end(mini_elf);
	free(mini);
	return demangle(t);

oom_syms:
	free(syms.v);
	elf_end(mini_elf);
	free(mini);
oom:
	usymtab_free(t);
	return -1;
}
