/* usyms.c - the symbol tables of user-space programs a module carries, so that its
 * handlers can name user addresses: usymname(), usymdata(), umodname() and the user
 * backtraces (tapset/ucontext.stp, runtime/usyms.c). Pass 3.
 *
 * Which files: the program -c runs (its first word, through $PATH) or -x's
 * (/proc/PID/exe), with the shared libraries it needs (SystemTap 4.8 names the program,
 * its libraries only with -d or --ldd); every program a process("PATH") or perf .process("PATH") point names; each -d
 * PATH; and with --ldd the libraries all of those need. A library is found as the dynamic
 * linker finds it:
 * DT_RPATH, DT_RUNPATH ($ORIGIN too), then the system's folders for the target's
 * architecture. Only what the script can ask about is written: nothing unless it uses a
 * function whose embedded C says "pragma:usyms".
 *
 * Per file, its PT_LOAD segments (file offset, link-time address, size in the file) and
 * its symbols (.symtab; when stripped, its separate debug file's under /usr/lib/debug,
 * else .dynsym and its MiniDebugInfo's (lib/udebug.h): functions, IFUNCs and objects, by
 * link-time address, one per address), written as C arrays the runtime searches; and
 * its DWARF line table (address, line, file) when a used function says "pragma:ulines"
 * (usymfileline() and the rest); its unwind rows (lib/uframes.c) when one says
 * "pragma:uframes" (the user backtraces).
 */
#include "hwtap.h"
#include "codegen/translate.h"
#include "udebug.h"
#include "uframes.h"
#include "usymtab.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The line table of PROG as C, named by index K, appended to OUT: its rows' count. */
static int write_lines(StrBuf *out, int k, UProgram *prog)
{
	Vec rows = {0}, files = {0};
	StrBuf names = {0};
	sb_putn(&names, "", 0);
	VEC(size_t) offsets = {0};
	dwarf_line_rows(prog, &rows);
	sb_printf(out, "static const struct hwtap_uline hwtap_ulines_%d[] = {", k);
	int last = -1;
	for (int i = 0; i < rows.len; i++) {
		ULine *r = rows.data[i];
		size_t at = 0xffffffff;                 /* an end: no line */
		if (!r->end) {
			const char *file = r->file ? r->file : "??";
			int f = last >= 0 && !strcmp(files.data[last], file) ? last : -1;
			for (int j = 0; f < 0 && j < files.len; j++)
				if (!strcmp(files.data[j], file))
					f = j;
			if (f < 0) {
				f = files.len;
				vec_push(&files, (void *)file);
				vec_push(&offsets, (void *)names.len);
				sb_putn(&names, file, strlen(file) + 1);
			}
			last = f;
			at = (size_t)offsets.data[f];
		}
		sb_printf(out, "%s{%#llx, %d, %#zx}", !i ? "\n\t" : i % 4 ? ", " : ",\n\t",
			  (unsigned long long)r->addr, r->line, at);
	}
	if (!rows.len)
		sb_puts(out, "{0}");
	sb_puts(out, "\n};\n");
	sb_printf(out, "static const char hwtap_ufiles_%d[] = %s;\n", k,
		  tr_c_string(names.buf, names.len));
	return rows.len;
}

/* The unwind rows of ELF (and its debug file DEBUG's .debug_frame) as C, named by index K,
 * appended to OUT: their count. */
static int write_frames(StrBuf *out, int k, Elf *elf, Elf *debug)
{
	UFrameTab t;
	if (uframes_read(elf, debug, &t)) {
		fputs("hwtap: error: out of memory\n", stderr);
		exit(1);
	}
	sb_printf(out, "static const struct hwtap_uframe hwtap_uframes_%d[] = {", k);
	for (size_t i = 0; i < t.nrows; i++) {
		const UFrameRow *r = &t.rows[i];
		sb_printf(out, "%s{%#llx, %d, %d, %d, %u, %u, %u, %u, %u}",
			  !i ? "\n\t" : i % 3 ? ", " : ",\n\t", (unsigned long long)r->addr,
			  r->cfa_off, r->ra_off, r->fp_off, r->cfa, r->ra, r->fp, r->flags, r->plt);
	}
	if (!t.nrows)
		sb_puts(out, "{0}");
	sb_puts(out, "\n};\n");
	int n = t.nrows;
	uframes_free(&t);
	return n;
}

/* The separate debug file (lib/udebug.h) of ELF, the file at PATH, on this machine: open,
 * with its descriptor in *FD, or NULL. */
static Elf *debug_file(Elf *elf, const char *path, int *fd)
{
	UDebugRef ref;
	char where[UDEBUG_PATH_MAX];
	if (!udebug_ref(elf, &ref))
		return NULL;
	for (int i = 0, r; (r = udebug_path(&ref, path, i, where, sizeof(where))); i++) {
		struct stat st;
		if (r < 0 || (*fd = open(where, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
			continue;
		Elf *debug = NULL;
		if (!fstat(*fd, &st) && S_ISREG(st.st_mode))
			debug = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
		if (debug && elf_kind(debug) == ELF_K_ELF && udebug_matches(debug, *fd, &ref))
			return debug;
		if (debug)
			elf_end(debug);
		close(*fd);
	}
	return NULL;
}

/* The file's table as C, named by index K, appended to OUT; the module's initializer to
 * MODS. LINES: its line table too; FRAMES: its unwind rows. */
static void write_module(StrBuf *out, StrBuf *mods, int k, const char *path, UProgram *prog,
			 bool lines, bool frames)
{
	Elf *elf = uprog_elf(prog);
	USymTab t;
	int dfd = -1;
	Elf *debug = debug_file(elf, path, &dfd);
	int failed = usymtab_read(elf, debug, &t);
	if (failed) {
		fputs("hwtap: error: out of memory\n", stderr);
		exit(1);
	}
	sb_printf(out, "static const struct hwtap_useg hwtap_usegs_%d[] = {", k);
	for (size_t i = 0; i < t.nsegs; i++)
		sb_printf(out, "%s{%#llx, %#llx, %#llx}", i ? ", " : "",
			  (unsigned long long)t.segs[i].offset, (unsigned long long)t.segs[i].vaddr,
			  (unsigned long long)t.segs[i].size);
	if (!t.nsegs)
		sb_puts(out, "{0}");
	sb_puts(out, "};\n");
	sb_printf(out, "static const struct hwtap_usym hwtap_usyms_%d[] = {", k);
	for (size_t i = 0; i < t.nsyms; i++)
		sb_printf(out, "%s{%#llx, %llu, %llu, %llu}", !i ? "\n\t" : i % 4 ? ", " : ",\n\t",
			  (unsigned long long)t.syms[i].addr, (unsigned long long)t.syms[i].name,
			  (unsigned long long)t.syms[i].size, (unsigned long long)t.syms[i].dname);
	if (!t.nsyms)
		sb_puts(out, "{0}");
	sb_puts(out, "\n};\n");
	sb_printf(out, "static const char hwtap_unames_%d[] = %s;\n", k,
		  tr_c_string(t.names, t.names_len - 1));
	int nsegs = t.nsegs, kept = t.nsyms;
	usymtab_free(&t);
	size_t size = 0;
	elf_rawfile(elf, &size);
	sb_printf(mods, "\t{ .path = %s, .size = %zu, .segs = hwtap_usegs_%d, .nsegs = %d, "
		  ".syms = hwtap_usyms_%d, .nsyms = %d, .names = hwtap_unames_%d",
		  tr_c_string(path, strlen(path)), size, k, nsegs, k, kept, k);
	if (lines)
		sb_printf(mods, ", .lines = hwtap_ulines_%d, .nlines = %d, .files = hwtap_ufiles_%d",
			  k, write_lines(out, k, prog), k);
	if (frames)
		sb_printf(mods, ", .frames = hwtap_uframes_%d, .nframes = %d", k,
			  write_frames(out, k, elf, debug));
	sb_puts(mods, " },\n");
	if (debug) {
		elf_end(debug);
		close(dfd);
	}
}

/* ---- which files -------------------------------------------------------------------------- */

typedef struct {
	Session *s;
	VEC(char *) paths;               /* where the module runs */
	VEC(UProgram *) progs;
	VEC(bool) libs_added;            /* per path: its libraries are in (as pointers) */
} Files;

static int file_index(Files *f, const char *path)
{
	for (int i = 0; i < f->paths.len; i++)
		if (!strcmp(f->paths.data[i], path))
			return i;
	return -1;
}

/* PATH in the list (once, by path and by file: the first path of a file found through
 * two is kept), if it can be read: whether it is there. */
static bool add_file(Files *f, const char *path)
{
	if (file_index(f, path) >= 0)
		return true;
	const char *why = NULL;
	UProgram *p = uprog_open(f->s, path, &why);
	if (!p)
		return false;
	for (int i = 0; i < f->progs.len; i++)
		if (uprog_same_file(f->progs.data[i], p))
			return true;
	vec_push(&f->paths, xstrdup(path));
	vec_push(&f->progs, p);
	vec_push(&f->libs_added, NULL);
	return true;
}

/* The folders the dynamic linker searches last, for the target's architecture. */
static const char *const *system_dirs(Session *s)
{
	static const char *const x86[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
					  "/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL};
	static const char *const arm[] = {"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					  "/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL};
	return s->arch && !strcmp(s->arch, "arm64") ? arm : x86;
}

/* The library NAME that file K needs, where the dynamic linker would find it; NULL if
 * nowhere. */
static char *find_library(Files *f, int k, const char *name, const char *rpath,
			  const char *runpath)
{
	if (strchr(name, '/'))
		return xstrdup(name);
	const char *self = f->paths.data[k], *slash = strrchr(self, '/');
	char *origin = xstrndup(self, slash ? (size_t)(slash - self) : 0);
	for (const char *list = runpath ? runpath : rpath; list && *list;) {
		size_t len = strcspn(list, ":");
		char *dir = xstrndup(list, len);
		if (!strncmp(dir, "$ORIGIN", 7))
			dir = xformat("%s%s", origin, dir + 7);
		else if (!strncmp(dir, "${ORIGIN}", 9))
			dir = xformat("%s%s", origin, dir + 9);
		char *cand = xformat("%s/%s", dir, name);
		const char *why;
		if (*dir && uprog_open(f->s, cand, &why))
			return cand;
		list += len + (list[len] == ':');
	}
	for (const char *const *d = system_dirs(f->s); *d; d++) {
		char *cand = xformat("%s/%s", *d, name);
		const char *why;
		if (uprog_open(f->s, cand, &why))
			return cand;
	}
	return NULL;
}

/* The libraries file K needs (DT_NEEDED) and its interpreter, into the list. */
static void add_needed(Files *f, int k)
{
	Elf *elf = uprog_elf(f->progs.data[k]);
	Elf_Scn *scn;
	/* the dynamic linker (first: its path is the one the kernel maps), code the program
	 * runs too */
	size_t nph = 0, size = 0;
	char *image = elf_rawfile(elf, &size);
	for (size_t i = 0; image && !elf_getphdrnum(elf, &nph) && i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_INTERP || ph.p_offset >= size ||
		    ph.p_filesz > size - ph.p_offset)
			continue;
		char *interp = xstrndup(image + ph.p_offset, ph.p_filesz);
		if (*interp == '/')
			add_file(f, interp);
	}
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t count = sh.sh_size / sh.sh_entsize;
		const char *rpath = NULL, *runpath = NULL;
		for (size_t i = 0; data && i < count; i++) {
			GElf_Dyn dyn;
			if (gelf_getdyn(data, i, &dyn) && dyn.d_tag == DT_RPATH)
				rpath = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (gelf_getdyn(data, i, &dyn) && dyn.d_tag == DT_RUNPATH)
				runpath = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
		}
		for (size_t i = 0; data && i < count; i++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(data, i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			char *lib = name ? find_library(f, k, name, rpath, runpath) : NULL;
			if (lib)
				add_file(f, lib);
		}
	}
}

/* The libraries file K needs, and theirs, into the list. */
static void add_libraries(Files *f, int k)
{
	int from = f->paths.len;
	if (!f->libs_added.data[k]) {
		f->libs_added.data[k] = (void *)1;
		add_needed(f, k);
	}
	for (int i = from; i < f->paths.len; i++)
		if (!f->libs_added.data[i]) {
			f->libs_added.data[i] = (void *)1;
			add_needed(f, i);
		}
}

/* The program -c runs or -x names, where the module runs; NULL if unknown. */
static char *target_program(Session *s)
{
	if (s->command) {
		size_t skip = strspn(s->command, " \t");
		char *word = xstrndup(s->command + skip, strcspn(s->command + skip,
								 " \t;|&<>()"));
		if (!*word || strchr(word, '=') || strchr(word, '$'))
			return NULL;
		return uprog_resolve(word);
	}
	if (s->target_pid && !s->vm) {
		char buf[4096];
		ssize_t n = readlink(xformat("/proc/%ld/exe", s->target_pid), buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			return xstrdup(buf);
		}
	}
	return NULL;
}

/* Whether a function the script uses says PRAGMA in its embedded C. */
static bool pragma_used(Session *s, const char *pragma)
{
	for (int i = 0; i < s->funcs.len; i++) {
		Node *body = ((Function *)s->funcs.data[i])->body;
		if (body->kind == N_EMBEDDED && strstr(body->str, pragma))
			return true;
	}
	return false;
}

bool usyms_needed(Session *s)
{
	return pragma_used(s, "pragma:usyms");
}

/* The tables, as C the generated module puts before the tapset's embedded code. */
char *usyms_tables(Session *s)
{
	Files f = {.s = s};
	if (usyms_needed(s)) {
		char *target = target_program(s);
		if (target && add_file(&f, target))
			if (file_index(&f, target) >= 0)
				add_libraries(&f, file_index(&f, target));
		for (int i = 0; i < s->probes.len; i++) {
			Probe *p = s->probes.data[i];
			const char *path = NULL;
			PerfEvent ev;
			if (ptab_is_process(p) && process_site(p))
				path = uprog_path(process_site(p)->prog);
			else if (ptab_is_task(p))
				task_probe_kind(p, &path);
			else if (ptab_is_perf(p) && !perf_point_event(p->points.data[0], &ev))
				path = ev.process_path;         /* .process("PATH") */
			if (path)
				add_file(&f, path);
		}
		/* (main.c opened each -d file: it refuses those it cannot read) */
		for (int i = 0; i < s->symbol_files.len; i++)
			add_file(&f, s->symbol_files.data[i]);
		for (int i = 0; s->ldd && i < f.paths.len; i++)
			add_libraries(&f, i);
	}
	StrBuf out = {0}, mods = {0};
	sb_puts(&out, "#include \"runtime/usyms.h\"\n");
	bool lines = pragma_used(s, "pragma:ulines");
	bool frames = pragma_used(s, "pragma:uframes");
	for (int i = 0; i < f.paths.len; i++)
		write_module(&out, &mods, i, f.paths.data[i], f.progs.data[i], lines, frames);
	if (frames)             /* (-D HWTAP_UFRAMES=0: frame pointers only, as bench/ustacks.sh's) */
		sb_puts(&out, "#ifndef HWTAP_UFRAMES\n#define HWTAP_UFRAMES 1\n#endif\n");
	sb_printf(&out, "#define HWTAP_UMODS %d\n", f.paths.len);
	sb_printf(&out, "static struct hwtap_umod hwtap_umods[%d] = {\n%s};\n",
		  f.paths.len ? f.paths.len : 1, mods.buf ? mods.buf : "");
	return out.buf;
}
