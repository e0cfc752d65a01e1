/* elf.c - a user-space program's ELF file, as process("PATH") probes need it: where a
 * link-time address is in the file (uprobes are placed by inode and file offset), whether
 * it is position independent, and its function symbols (.symtab, else .dynsym) for
 * programs without DWARF. dwarf.c reads the debug information of the same file.
 *
 * PATH is the program's path where the module runs. On the host it may be another file:
 * a --vm-file SRC:DST copies SRC to DST in the guest, so a point naming DST is read from
 * SRC. A PATH without '/' is looked up in $PATH, as SystemTap does.
 */
#include "hwtap.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct UProgram {
	char *path;                 /* as the point names it, absolute */
	char *host_path;            /* the file read here */
	int fd;
	Elf *elf;
	bool pie;                   /* ET_DYN: loaded at a bias */
	bool kernel;                /* a vmlinux (kdwarf.c) */
	void *dwarf;                /* dwarf.c's, opened on first use */
	bool dwarf_tried;
	VEC(UFunc *) symbols;       /* function symbols, read on first use, by address */
	VEC(UFunc *) by_name;       /* and by name, for lookups of one name */
	bool symbols_read;
};

/* The host file that stands for PATH: a --vm-file's source, or PATH itself. */
static const char *host_file(Session *s, const char *path)
{
	for (int i = 0; s && i < s->vm_files.len; i++) {
		const char *spec = s->vm_files.data[i], *colon = strrchr(spec, ':');
		if (colon && !strcmp(colon + 1, path))
			return xstrndup(spec, colon - spec);
		/* SRC:DIR/ copies SRC into DIR under its own name */
		size_t dir = colon ? strlen(colon + 1) : 0;
		if (dir && colon[dir] == '/' && !strncmp(colon + 1, path, dir) &&
		    !strchr(path + dir, '/')) {
			char *src = xstrndup(spec, colon - spec);
			const char *base = strrchr(src, '/');
			if (!strcmp(base ? base + 1 : src, path + dir))
				return src;
		}
		if (!colon && !strcmp(spec, path))
			return spec;
	}
	return path;
}

/* Whether a --vm-file puts PATH where the module runs (pass 2 reads another file). */
bool uprog_is_vm_file(Session *s, const char *path)
{
	return host_file(s, path) != path;
}

/* PATH as SystemTap takes it: with a '/', as it is; else the first executable of that
 * name in $PATH. NULL if there is none. */
char *uprog_resolve(const char *path)
{
	if (strchr(path, '/'))
		return xstrdup(path);
	const char *dirs = getenv("PATH");
	for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d; d += strcspn(d, ":"),
	     d += *d == ':') {
		int len = strcspn(d, ":");
		if (!len)
			continue;
		char *cand = xformat("%.*s/%s", len, d, path);
		if (!access(cand, X_OK))
			return cand;
	}
	return NULL;
}

UProgram *uprog_open(Session *s, const char *path, const char **why)
{
	for (int i = 0; i < s->programs.len; i++) {
		UProgram *p = s->programs.data[i];
		if (!strcmp(p->path, path))
			return p;
	}
	const char *host = host_file(s, path);
	/* not blocking on a FIFO; then only regular files are read */
	int fd = open(host, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0) {
		*why = xformat("cannot open '%s': %s", host, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*why = xformat("'%s' is not a regular file", host);
		close(fd);
		return NULL;
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		*why = xformat("'%s' is not an ELF file", host);
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		*why = xformat("'%s' is not a program or shared library (ELF type %u)", host,
			       (unsigned)eh.e_type);
		elf_end(elf);
		close(fd);
		return NULL;
	}
	UProgram *p = xalloc(sizeof(*p));
	p->path = xstrdup(path);
	p->host_path = xstrdup(host);
	p->fd = fd;
	p->elf = elf;
	p->pie = eh.e_type == ET_DYN;
	vec_push(&s->programs, p);
	return p;
}

void uprog_set_kernel(UProgram *p)
{
	p->kernel = true;
}

bool uprog_is_kernel(UProgram *p)
{
	return p->kernel;
}

/* Closes the files S opened (their DWARF, ELF handles and descriptors, which are not in
 * the arena), and frees the kernel's BTF it read. */
void uprog_close_all(Session *s)
{
	kbtf_close(s);
	for (int i = 0; i < s->programs.len; i++) {
		UProgram *p = s->programs.data[i];
		dwarf_close(p);
		elf_end(p->elf);
		close(p->fd);
	}
	s->programs.len = 0;
}

const char *uprog_path(UProgram *p) { return p->path; }

/* Whether A and B are one file on this machine (two paths, links, of it). */
bool uprog_same_file(UProgram *a, UProgram *b)
{
	struct stat x, y;
	return !fstat(a->fd, &x) && !fstat(b->fd, &y) && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}
bool uprog_is_pie(UProgram *p) { return p->pie; }
Elf *uprog_elf(UProgram *p) { return p->elf; }
void **uprog_dwarf_slot(UProgram *p, bool **tried)
{
	*tried = &p->dwarf_tried;
	return &p->dwarf;
}

uint16_t uprog_machine(UProgram *p)
{
	GElf_Ehdr eh;
	return gelf_getehdr(p->elf, &eh) ? eh.e_machine : EM_NONE;
}

/* The file offset of link-time address VADDR, from the loadable segment holding it:
 * what uprobe_register() takes. */
bool uprog_offset(UProgram *p, uint64_t vaddr, uint64_t *off)
{
	size_t n;
	if (elf_getphdrnum(p->elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(p->elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

static int by_address(const void *a, const void *b)
{
	const UFunc *x = *(UFunc *const *)a, *y = *(UFunc *const *)b;
	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Defined functions of the section's symbol table, once per address and name. */
static void read_symtab(UProgram *p, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	for (size_t i = 1; data && i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		const char *name = elf_strptr(p->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		UFunc *f = xalloc(sizeof(*f));
		f->name = xstrndup(name, strcspn(name, "@"));   /* "memcpy@@GLIBC_2.14" */
		f->entry = f->body = sym.st_value;
		vec_push(&p->symbols, f);
	}
}

/* The function symbols: .symtab's, or .dynsym's when the file is stripped. */
static void read_symbols(UProgram *p)
{
	p->symbols_read = true;
	for (int want = SHT_SYMTAB; want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(p->elf, scn))) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == (unsigned)want)
				read_symtab(p, scn, &sh);
		}
		if (p->symbols.len)
			break;
	}
	if (p->symbols.len)
		qsort(p->symbols.data, p->symbols.len, sizeof(void *), by_address);
	int kept = 0;
	for (int i = 0; i < p->symbols.len; i++) {
		UFunc *f = p->symbols.data[i];
		UFunc *prev = kept ? p->symbols.data[kept - 1] : NULL;
		if (!prev || prev->entry != f->entry || strcmp(prev->name, f->name))
			p->symbols.data[kept++] = f;
	}
	p->symbols.len = kept;
}

static int by_name(const void *a, const void *b)
{
	const UFunc *x = *(UFunc *const *)a, *y = *(UFunc *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->entry > y->entry) - (x->entry < y->entry);
}

/* Appends to OUT the function symbols whose names match the glob NAME (a name without
 * wildcards found by binary search: a vmlinux has 100,000, looked up one by one). */
void uprog_symbol_functions(UProgram *p, const char *name, Vec *out)
{
	if (!p->symbols_read)
		read_symbols(p);
	if (!strpbrk(name, "*?[\\")) {
		if (!p->by_name.len && p->symbols.len) {
			p->by_name = (Vec){.len = p->symbols.len, .cap = p->symbols.len};
			p->by_name.data = xalloc(sizeof(void *) * p->symbols.len);
			memcpy(p->by_name.data, p->symbols.data, sizeof(void *) * p->symbols.len);
			qsort(p->by_name.data, p->by_name.len, sizeof(void *), by_name);
		}
		int lo = 0, hi = p->by_name.len;
		while (lo < hi) {       /* the first not before NAME */
			int mid = lo + (hi - lo) / 2;
			if (strcmp(((UFunc *)p->by_name.data[mid])->name, name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < p->by_name.len && !strcmp(((UFunc *)p->by_name.data[lo])->name, name);
		     lo++)
			vec_push(out, p->by_name.data[lo]);
		return;
	}
	for (int i = 0; i < p->symbols.len; i++) {
		UFunc *f = p->symbols.data[i];
		if (!fnmatch(name, f->name, 0))
			vec_push(out, f);
	}
}
