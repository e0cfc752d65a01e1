/* tpmodules.c - the tracepoints the target kernel's modules define, for kernel.trace
 * (probe_tracepoint.c): which module defines each one and the system it belongs to.
 *
 * ext4, xfs, kvm, watchdog ... are modules in Debian's kernels: 3504 tracepoints in 6.1's
 * 4023 modules, beside the core kernel's 639. Each module defining a tracepoint NAME has
 * the function __traceiter_NAME in its symbol table (its BTF gives the arguments, btf.c);
 * a tracepoint that is also a trace event (TRACE_EVENT, DEFINE_EVENT) has its system in
 * the module's data: the symbol __event_NAME points to the event, whose class (the second
 * member, after a list head) points to the class, whose first member points to the
 * string str__SYSTEM__trace_system_name. Those pointers are relocations in the .ko, which
 * this file follows. A tracepoint that is not an event (DECLARE_TRACE) has no system
 * there: its header's, when the target's headers declare it (probe_tracepoint.c), else
 * none.
 *
 * The core kernel's own events are found the same way where its vmlinux with symbols is
 * installed (the DWARF of linux-image-RELEASE-dbg, kdwarf.c), for the tracepoints whose
 * header the target's headers lack or hide (x86's irq_vectors.h pastes its names
 * together: local_timer_entry): the pointers and the system's name read in its data.
 * Debian's own System.map is a placeholder and its image's vmlinux is stripped: without
 * the -dbg package those tracepoints keep no system.
 *
 * Reading every module's symbols takes seconds (and decompressing them, 6.12's .ko.xz,
 * longer), so the index is kept in the user's cache, one file per architecture and
 * release, made again when the release's modules.dep changes. Its core entries have the
 * module "-".
 */
#include "hwtap.h"
#include "../guest/guest.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TPM_MAGIC "hwtap-tracepoint-modules 2"
#define TRACEITER "__traceiter_"
#define EVENT "__event_"
#define SYSTEM_PREFIX "str__"
#define SYSTEM_SUFFIX "__trace_system_name"
/* struct trace_event_call: a list_head (two pointers), then its class */
#define EVENT_CLASS_OFFSET 16

typedef struct {
	char *name, *module, *system;   /* system "" when the module does not say */
} TpModule;

struct TpModules {
	VEC(TpModule *) all;            /* sorted by name */
};

static int by_tpm_name(const void *a, const void *b)
{
	return strcmp((*(TpModule *const *)a)->name, (*(TpModule *const *)b)->name);
}

/* ---- one module's symbols and relocations -------------------------------------------- */

typedef struct {
	GElf_Addr offset;               /* where, in the section relocated */
	int section;                    /* points into this section */
	GElf_Addr at;                   /* at this offset */
} Reloc;

typedef struct {
	int section;                    /* the relocations applied to it */
	Reloc *r;
	size_t n;
} RelocTable;

typedef struct {
	Elf *elf;
	Elf_Data *syms;
	size_t nsyms;
	VEC(RelocTable *) tables;
	VEC(GElf_Sym *) systems;        /* str__S__trace_system_name */
	VEC(char *) system_names;       /* S, by the same index */
} Ko;

static int by_offset(const void *a, const void *b)
{
	const Reloc *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The relocations applied to SECTION, sorted, read once. */
static RelocTable *relocs(Ko *ko, int section)
{
	for (int i = 0; i < ko->tables.len; i++)
		if (((RelocTable *)ko->tables.data[i])->section == section)
			return ko->tables.data[i];
	RelocTable *t = xalloc(sizeof(*t));
	t->section = section;
	vec_push(&ko->tables, t);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(ko->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || (int)sh.sh_info != section)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		t->r = xalloc(sizeof(Reloc) * (n ? n : 1));
		for (size_t i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			if (!gelf_getrela(d, i, &r) ||
			    !gelf_getsym(ko->syms, GELF_R_SYM(r.r_info), &sym))
				continue;
			t->r[t->n++] = (Reloc){.offset = r.r_offset, .section = sym.st_shndx,
					       .at = sym.st_value + r.r_addend};
		}
		qsort(t->r, t->n, sizeof(Reloc), by_offset);
		break;
	}
	return t;
}

/* Where the pointer at SECTION+OFFSET points once the module is loaded: false if not
 * relocated. */
static bool follow(Ko *ko, int *section, GElf_Addr *offset)
{
	RelocTable *t = relocs(ko, *section);
	Reloc key = {.offset = *offset};
	Reloc *r = t->n ? bsearch(&key, t->r, t->n, sizeof(Reloc), by_offset) : NULL;
	if (!r)
		return false;
	*section = r->section;
	*offset = r->at;
	return true;
}

/* The system of the event that symbol EV (__event_NAME) points to, or "". */
static const char *event_system(Ko *ko, const GElf_Sym *ev)
{
	int sec = ev->st_shndx;
	GElf_Addr off = ev->st_value;
	if (!follow(ko, &sec, &off))            /* the event */
		return "";
	off += EVENT_CLASS_OFFSET;
	if (!follow(ko, &sec, &off) ||          /* its class */
	    !follow(ko, &sec, &off))            /* its system's name */
		return "";
	for (int i = 0; i < ko->systems.len; i++) {
		const GElf_Sym *sys = ko->systems.data[i];
		if (sys->st_shndx == sec && sys->st_value == off)
			return ko->system_names.data[i];
	}
	return "";
}

typedef struct {
	Vec *out;
	int modules;
} Scan;

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !strcmp(s + n - m, suffix);
}

/* Module NAME's tracepoints (its file KO) into SCAN. */
static int scan_module(const char *name, const char *path, void *arg)
{
	Scan *scan = arg;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Ko ko = {.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)};
	Elf_Scn *scn = NULL;
	size_t strtab = 0;
	while (ko.elf && (scn = elf_nextscn(ko.elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize) {
			ko.syms = elf_getdata(scn, NULL);
			ko.nsyms = sh.sh_size / sh.sh_entsize;
			strtab = sh.sh_link;
			break;
		}
	}
	Vec iters = {0}, events = {0};
	for (size_t i = 0; ko.syms && i < ko.nsyms; i++) {
		GElf_Sym sym;
		const char *s = gelf_getsym(ko.syms, i, &sym) ?
				elf_strptr(ko.elf, strtab, sym.st_name) : NULL;
		if (!s || sym.st_shndx == SHN_UNDEF || (s[0] != '_' && s[0] != 's'))
			continue;
		if (!strncmp(s, TRACEITER, strlen(TRACEITER)) && GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			vec_push(&iters, (char *)s + strlen(TRACEITER));
		} else if (!strncmp(s, EVENT, strlen(EVENT))) {
			GElf_Sym *keep = xalloc(sizeof(*keep));
			*keep = sym;
			vec_push(&events, keep);
			vec_push(&events, (char *)s + strlen(EVENT));
		} else if (!strncmp(s, SYSTEM_PREFIX, strlen(SYSTEM_PREFIX)) &&
			   ends_with(s, SYSTEM_SUFFIX)) {
			GElf_Sym *keep = xalloc(sizeof(*keep));
			*keep = sym;
			vec_push(&ko.systems, keep);
			vec_push(&ko.system_names,
				 xstrndup(s + strlen(SYSTEM_PREFIX), strlen(s) -
					  strlen(SYSTEM_PREFIX) - strlen(SYSTEM_SUFFIX)));
		}
	}
	for (int i = 0; i < iters.len; i++) {
		TpModule *t = xalloc(sizeof(*t));
		*t = (TpModule){.name = xstrdup(iters.data[i]), .module = xstrdup(name),
				.system = ""};
		for (int j = 0; j < events.len; j += 2)
			if (!strcmp(events.data[j + 1], t->name)) {
				t->system = xstrdup(event_system(&ko, events.data[j]));
				break;
			}
		vec_push(scan->out, t);
	}
	scan->modules++;
	if (ko.elf)
		elf_end(ko.elf);
	close(fd);
	return 0;
}

/* ---- the core kernel's events ------------------------------------------------------------ */

/* SIZE bytes at the kernel's address ADDR, from ELF's allocated sections. */
static bool read_at(Elf *elf, GElf_Addr addr, void *buf, size_t size)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || addr < sh.sh_addr ||
		    addr + size > sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr + size > d->d_size)
			return false;
		memcpy(buf, (char *)d->d_buf + (addr - sh.sh_addr), size);
		return true;
	}
	return false;
}

/* The system of the event at ADDR (its __event_NAME pointer), or "". */
static char *core_event_system(Elf *elf, GElf_Addr addr)
{
	uint64_t event, class, system;
	char name[64] = "";
	if (read_at(elf, addr, &event, 8) && read_at(elf, event + EVENT_CLASS_OFFSET, &class, 8) &&
	    read_at(elf, class, &system, 8))
		for (size_t i = 0; i < sizeof(name) - 1 && read_at(elf, system + i, &name[i], 1) &&
				   name[i]; i++)
			;
	name[sizeof(name) - 1] = '\0';
	return xstrdup(name);
}

/* The core kernel's events with their systems into OUT, module "-": from its vmlinux
 * with symbols, its DWARF's (kdwarf.c, checked against the image), where installed. */
static void scan_core(Session *s, Vec *out)
{
	const char *why;
	UProgram *p = kdwarf(s, &why);
	Elf *elf = p ? uprog_elf(p) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize)
			break;
	Elf_Data *syms = scn ? elf_getdata(scn, NULL) : NULL;
	for (size_t i = 0; syms && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name = gelf_getsym(syms, i, &sym) ?
				   elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;
		if (!name || strncmp(name, EVENT, strlen(EVENT)) || sym.st_shndx == SHN_UNDEF)
			continue;
		char *system = core_event_system(elf, sym.st_value);
		if (!*system)
			continue;
		TpModule *t = xalloc(sizeof(*t));
		*t = (TpModule){.name = xstrdup(name + strlen(EVENT)), .module = "-",
				.system = system};
		vec_push(out, t);
	}
}

/* ---- the index, kept in the cache ---------------------------------------------------- */

/* What says whether a kept index still holds: modules.dep's size and time, and the
 * kernel's vmlinux with symbols, if any. */
static char *moddep_stamp(Session *s, const GuestArch *a, const char *release)
{
	struct stat st, dbg;
	const char *vmlinux = kdwarf_file(s);
	if (!vmlinux || stat(vmlinux, &dbg))
		dbg = (struct stat){0};
	char *root = guest_arch_root(a);
	char *path = xformat("%s/lib/modules/%s/modules.dep", root, release);
	free(root);
	if (stat(path, &st))
		return NULL;
	return xformat(TPM_MAGIC " %lld %lld.%09ld %lld %lld", (long long)st.st_size,
		       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)dbg.st_size,
		       (long long)dbg.st_mtim.tv_sec);
}

static bool read_kept(const char *path, const char *stamp, Vec *out)
{
	if (!cache_own_file(path))
		return false;
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	bool ok = getline(&line, &cap, f) > 0 && !strncmp(line, stamp, strlen(stamp)) &&
		  line[strlen(stamp)] == '\n';
	while (ok && getline(&line, &cap, f) > 0) {
		char name[256], module[256], system[256];
		if (sscanf(line, "%255s %255s %255s", name, module, system) != 3) {
			ok = false;
			break;
		}
		TpModule *t = xalloc(sizeof(*t));
		*t = (TpModule){.name = xstrdup(name), .module = xstrdup(module),
				.system = strcmp(system, "-") ? xstrdup(system) : ""};
		vec_push(out, t);
	}
	free(line);
	fclose(f);
	if (!ok)
		out->len = 0;
	return ok;
}

static void keep(const char *path, const char *stamp, Vec *all)
{
	char *tmp = xformat("%s.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "we");
	if (!f)
		return;
	fprintf(f, "%s\n", stamp);
	for (int i = 0; i < all->len; i++) {
		TpModule *t = all->data[i];
		fprintf(f, "%s %s %s\n", t->name, t->module, *t->system ? t->system : "-");
	}
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

static struct TpModules *index_of(Session *s)
{
	if (s->tp_modules)
		return s->tp_modules;
	struct TpModules *ix = s->tp_modules = xalloc(sizeof(*ix));
	const GuestArch *a = s->target_arch ? s->target_arch : guest_host_arch();
	char *stamp = a ? moddep_stamp(s, a, s->kernel_release) : NULL;
	if (!stamp)
		return ix;      /* no modules: none of their tracepoints */
	const char *dir = cache_dir("tracepoints");
	char *path = dir ? xformat("%s/%s-%s", dir, a->debian, s->kernel_release) : NULL;
	if (!path || !read_kept(path, stamp, (Vec *)&ix->all)) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		char tmp[] = "/tmp/hwtap-tracepoints.XXXXXX";
		Scan scan = {.out = (Vec *)&ix->all};
		elf_version(EV_CURRENT);
		if (mkdtemp(tmp)) {
			guest_kernel_each_module(a, s->kernel_release, tmp, stderr, scan_module,
						 &scan);
			rmdir(tmp);
		}
		int in_modules = ix->all.len;
		scan_core(s, (Vec *)&ix->all);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (s->verbose)
			fprintf(stderr, "hwtap: %d tracepoints in %d modules of %s and %d events of "
				"its vmlinux, read in %.1f s\n", in_modules, scan.modules,
				s->kernel_release, ix->all.len - in_modules,
				(double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (ix->all.len)
			qsort(ix->all.data, ix->all.len, sizeof(void *), by_tpm_name);
		if (path && scan.modules)
			keep(path, stamp, (Vec *)&ix->all);
	}
	return ix;
}

/* ---- what probe_tracepoint.c asks -------------------------------------------------------- */

int tpmodules_count(Session *s)
{
	return index_of(s)->all.len;
}

/* Index I's tracepoint: its name, and its *MODULE ("-": the core kernel's) and *SYSTEM
 * ("" when not known). */
const char *tpmodules_at(Session *s, int i, const char **module, const char **system)
{
	TpModule *t = index_of(s)->all.data[i];
	*module = t->module;
	*system = t->system;
	return t->name;
}

/* The first entry for tracepoint NAME that is a module's (CORE false) or the core
 * kernel's (CORE true), or NULL. */
static TpModule *find(Session *s, const char *name, bool core)
{
	struct TpModules *ix = index_of(s);
	TpModule key = {.name = (char *)name}, *kp = &key;
	TpModule **at = ix->all.len ? bsearch(&kp, ix->all.data, ix->all.len, sizeof(void *),
					      by_tpm_name) : NULL;
	if (!at)
		return NULL;
	while (at > (TpModule **)ix->all.data && !strcmp(at[-1]->name, name))
		at--;
	for (; at < (TpModule **)ix->all.data + ix->all.len && !strcmp((*at)->name, name); at++)
		if (!strcmp((*at)->module, "-") == core)
			return *at;
	return NULL;
}

/* The module that defines tracepoint NAME, or NULL. */
const char *tpmodules_module(Session *s, const char *name)
{
	TpModule *t = find(s, name, false);
	return t ? t->module : NULL;
}

/* The system of the core kernel's tracepoint NAME by its event, or NULL. */
const char *tpmodules_core_system(Session *s, const char *name)
{
	TpModule *t = find(s, name, true);
	return t ? t->system : NULL;
}
