/* build.c - pass 4: the generated C to a kernel module with the target kernel's kbuild.
 *
 * Modules are cached by what decides their bytes: the source, the kernel build tree and
 * its release, and the compiler that tree uses. The same script again skips kbuild.
 * A cached folder keeps the module, its C and build.log; -k keeps kbuild's other files
 * too (it always builds, so that they are there) and says where the folder is. The
 * cache's size is kept in bounds by cache.c.
 * A compiler error in generated code is a bug in hwtap, and says so. With a signing key
 * (sign.c), what pass 4 hands on is the module's signed copy.
 */
#include "hwtap.h"
#include "../../guest/guest.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef PACKAGE_VERSION
#define HWTAP_VERSION PACKAGE_VERSION
#else
#define HWTAP_VERSION "0.1"
#endif
#ifndef HWTAP_DATADIR
#define HWTAP_DATADIR "/usr/local/share/hwtap"
#endif

/* The folder holding runtime/: the source tree's when hwtap runs from it. */
const char *runtime_parent(Session *s)
{
	const char *tapset = s->tapset_dir;
	size_t n = strlen(tapset);
	if (n > 7 && !strcmp(tapset + n - 7, "/tapset"))
		return xstrndup(tapset, n - 7);
	return HWTAP_DATADIR;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The runtime is compiled into every module: a changed header is a different module.
 * Every file of runtime/ and of its folders (probes/, decoders/, features/) counts, by
 * its path below runtime/ and its bytes, in name order at each level. */
static uint64_t hash_folder(uint64_t h, const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return h;
	Vec names = {0};
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			vec_push(&names, xstrdup(e->d_name));
	closedir(d);
	if (names.len)
		qsort(names.data, names.len, sizeof(void *), by_name);
	for (int i = 0; i < names.len; i++) {
		char *path = xformat("%s/%s", dir, (char *)names.data[i]);
		char *name = *rel ? xformat("%s/%s", rel, (char *)names.data[i])
				  : xstrdup(names.data[i]);
		struct stat st;
		h = fnv1a(h, name, strlen(name) + 1);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (depth < 4)
				h = hash_folder(h, path, name, depth + 1);
			continue;
		}
		size_t len;
		char *text = read_whole_file(path, &len);
		if (text)
			h = fnv1a(h, text, len);
	}
	return h;
}

static uint64_t hash_runtime(uint64_t h, const char *parent)
{
	return hash_folder(h, xformat("%s/runtime", parent), "", 0);
}

int mkdirs(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	for (char *q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		mkdir(p, mode);
		*q = '/';
	}
	return mkdir(p, mode) && errno != EEXIST ? -1 : 0;
}

/* What kernel_features() writes: flags "-DHWTAP_HAVE_NAME" apart by spaces, or nothing.
 * Anything else in the file is not ours and must not reach the Kbuild file. */
static bool features_well_formed(const char *s)
{
	while (*s) {
		if (strncmp(s, "-DHWTAP_HAVE_", 13))
			return false;
		for (s += 13; (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'; s++)
			;
		if (*s == ' ' && s[1])
			s++;
		else if (*s)
			return false;
	}
	return true;
}

bool copy_file(const char *from, const char *to)
{
	size_t len;
	char *bytes = read_whole_file(from, &len);
	FILE *f = bytes ? fopen(to, "w") : NULL;
	bool ok = f && fwrite(bytes, 1, len, f) == len;
	if (f && fclose(f))
		ok = false;
	return ok;
}

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	bool ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

/* hwtap-cc, the compiler front that remembers kbuild's compiler probes (kbuild_cc.c):
 * beside this hwtap when it runs from its build tree, else in pkglibexecdir; NULL when
 * there is none or HWTAP_KBUILD_CC is 0. */
static const char *kbuild_cc_path(void)
{
	static const char *path;
	static bool looked;
	if (looked)
		return path;
	looked = true;
	const char *e = getenv("HWTAP_KBUILD_CC");
	if (e && !strcmp(e, "0"))
		return NULL;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *p = HWTAP_LIBEXECDIR "/hwtap-cc";
	if (n > 0) {
		exe[n] = '\0';
		if (!strncmp(exe, HWTAP_BUILDDIR "/", strlen(HWTAP_BUILDDIR) + 1))
			p = HWTAP_BUILDDIR "/translator/hwtap-cc";
	}
	path = access(p, X_OK) ? NULL : p;
	return path;
}

/* Whether TREE is a Debian kernel headers tree, whose compiler is
 * "$(if $(DEBIAN_KERNEL_USE_CCACHE),$(CCACHE)) $(CROSS_COMPILE)gcc-N" (.kernelvariables):
 * hwtap-cc then goes in front of it as ccache would, the tree's own compiler unchanged.
 * Other trees build as they are. */
static bool takes_compiler_front(const char *tree)
{
	size_t len;
	char *vars = read_whole_file(xformat("%s/.kernelvariables", tree), &len);
	return vars && strstr(vars, "DEBIAN_KERNEL_USE_CCACHE") && strstr(vars, "$(CCACHE)");
}

/* Runs make in dir, its output into dir/build.log; the exit status. KEEP_GOING: make -k,
 * for the feature tests and batches, where some may fail; JOBS: make -jJOBS. */
static int run_kbuild(Session *s, const char *dir, bool keep_going, int jobs)
{
	const char *front = kbuild_cc_path();
	const char *answers = front && takes_compiler_front(s->kernel_build) ?
			      cache_dir("kbuild-cc") : NULL;
	const char *off = getenv("HWTAP_KBUILD_CC");
	if (s->verbose)
		fprintf(stderr, "hwtap: pass 4: kbuild's compiler probes %s\n",
			answers ? xformat("remembered in %s", answers) :
			off && !strcmp(off, "0") ? "run every time (HWTAP_KBUILD_CC=0)" :
			!front ? "run every time (no hwtap-cc)" :
			"run every time (not a Debian headers tree)");
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *log = freopen(xformat("%s/build.log", dir), "w", stdout);
		if (!log || dup2(fileno(stdout), 2) < 0)
			_exit(127);
		const GuestArch *a = s->target_arch;
		const char *argv[16];
		int n = 0;
		argv[n++] = "make";
		argv[n++] = keep_going ? "-k" : "-s";
		argv[n++] = "-C";
		argv[n++] = s->kernel_build;
		argv[n++] = xformat("M=%s", dir);
		if (jobs > 1)
			argv[n++] = xformat("-j%d", jobs);
		if (a && !guest_arch_is_host(a)) {
			argv[n++] = xformat("ARCH=%s", a->kbuild_arch);
			argv[n++] = xformat("CROSS_COMPILE=%s", a->cross_compile);
		}
		if (answers) {
			setenv("HWTAP_CC_CACHE", answers, 1);
			argv[n++] = "DEBIAN_KERNEL_USE_CCACHE=1";
			argv[n++] = xformat("CCACHE=%s", front);
		}
		argv[n++] = "modules";
		argv[n] = NULL;
		execvp("make", (char **)argv);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* After a good build: all but the module, its C and the log go. */
static void tidy_build_folder(const char *dir, const char *module_name)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	const char *keep[] = {xformat("%s.ko", module_name), xformat("%s.c", module_name),
			      "build.log"};
	struct dirent *e;
	while ((e = readdir(d))) {
		bool kept = e->d_name[0] == '.' && (!e->d_name[1] ||
						    (e->d_name[1] == '.' && !e->d_name[2]));
		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			kept |= !strcmp(e->d_name, keep[i]);
		if (!kept)
			unlink(xformat("%s/%s", dir, e->d_name));
	}
	closedir(d);
}

/* ---- kernel features -------------------------------------------------------------------- */

/* Whether the target kernel has a build tree; says why not. */
static bool have_build_tree(Session *s)
{
	if (s->kernel_build)
		return true;
	if (s->target_arch && !guest_arch_is_host(s->target_arch))
		error_plain("no %s kernel %s with a build tree under %s (./bootstrap.sh unpacks "
			    "Debian's)", s->arch, s->kernel_release,
			    guest_arch_root(s->target_arch));
	else
		error_plain("no build tree for kernel %s: install its headers "
			    "(apt-get install linux-headers-%s) or name one with -r DIR",
			    s->kernel_release, s->kernel_release);
	return false;
}

/* The -D flags of the target tree's features ("-DHWTAP_HAVE_X ...", "" for none): each
 * runtime/features/NAME.c that compiles against it defines HWTAP_HAVE_NAME. One kbuild run
 * (make -k) compiles them all, as SystemTap's autoconf tests do; the result is cached per
 * tree, architecture and tests. NULL, after saying why, when that cannot be done. */
char *kernel_features(Session *s)
{
	if (!have_build_tree(s))
		return NULL;
	const char *parent = runtime_parent(s);
	char *tests = xformat("%s/runtime/features", parent);
	DIR *d = opendir(tests);
	Vec names = {0};
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > 2 && !strcmp(e->d_name + n - 2, ".c"))
			vec_push(&names, xstrndup(e->d_name, n - 2));
	}
	if (d)
		closedir(d);
	if (names.len)
		qsort(names.data, names.len, sizeof(void *), by_name);
	uint64_t h = fnv1a(FNV1A_INIT, s->kernel_build, strlen(s->kernel_build));
	h = fnv1a(h, s->kernel_release, strlen(s->kernel_release));
	h = fnv1a(h, s->arch, strlen(s->arch));
	Vec sources = {0};
	for (int i = 0; i < names.len; i++) {
		size_t len;
		char *text = read_whole_file(xformat("%s/%s.c", tests, (char *)names.data[i]), &len);
		vec_push(&sources, text ? text : "");
		h = fnv1a(h, names.data[i], strlen(names.data[i]));
		h = fnv1a(h, sources.data[i], strlen(sources.data[i]));
	}
	/* beside the module cache, not in it: its size bound counts module folders only */
	const char *features_dir = cache_dir("features");
	if (!features_dir)
		return NULL;
	char *cached = xformat("%s/%016llx", features_dir, (unsigned long long)h);
	size_t len;
	char *known = cache_own_file(cached) ? read_whole_file(cached, &len) : NULL;
	if (known && strlen(known) == len && features_well_formed(known))
		return known;
	char *dir = xformat("%s.build.%d", cached, (int)getpid());
	StrBuf kbuild = {0}, flags = {0};
	sb_printf(&kbuild, "obj-m :=");
	sb_putn(&flags, "", 0);
	if (mkdirs(dir, 0755)) {
		error_plain("cannot create %s: %s", dir, strerror(errno));
		return NULL;
	}
	for (int i = 0; i < names.len; i++) {
		write_file(xformat("%s/hwtap_test_%s.c", dir, (char *)names.data[i]),
			   sources.data[i]);
		sb_printf(&kbuild, " hwtap_test_%s.o", (char *)names.data[i]);
	}
	sb_putc(&kbuild, '\n');
	write_file(xformat("%s/Kbuild", dir), kbuild.buf);
	if (names.len)
		run_kbuild(s, dir, true, 1);
	struct stat st;
	for (int i = 0; i < names.len; i++) {
		if (stat(xformat("%s/hwtap_test_%s.o", dir, (char *)names.data[i]), &st))
			continue;
		char *upper = xstrdup(names.data[i]);
		for (char *p = upper; *p; p++)
			*p = *p >= 'a' && *p <= 'z' ? *p - 32 : *p;
		sb_printf(&flags, "%s-DHWTAP_HAVE_%s", flags.len ? " " : "", upper);
	}
	cache_remove(dir);
	if (!write_file(cached, flags.buf))
		unlink(cached);
	if (s->verbose)
		fprintf(stderr, "hwtap: pass 4: kernel features of %s: %s\n", s->kernel_build,
			*flags.buf ? flags.buf : "(none)");
	return flags.buf;
}

static void show_log_tail(const char *dir)
{
	size_t len;
	char *log = read_whole_file(xformat("%s/build.log", dir), &len);
	if (!log)
		return;
	const char *p = log + len;
	for (int lines = 0; p > log && lines < 25; p--)
		if (p[-1] == '\n')
			lines++;
	fputs(p, stderr);
}

/* The cache folder of a module: a hash of what decides its bytes. NULL after saying why. */
static char *module_folder(Session *s, const char *source)
{
	uint64_t h = fnv1a(FNV1A_INIT, source, strlen(source));
	h = fnv1a(h, s->kernel_build, strlen(s->kernel_build));
	h = fnv1a(h, s->kernel_release, strlen(s->kernel_release));
	h = fnv1a(h, s->arch, strlen(s->arch));
	h = fnv1a(h, HWTAP_VERSION, strlen(HWTAP_VERSION));
	const char *parent = runtime_parent(s);
	h = fnv1a(h, parent, strlen(parent));
	h = hash_runtime(h, parent);
	const char *root = cache_root();
	return root ? xformat("%s/%016llx", root, (unsigned long long)h) : NULL;
}

/* The Kbuild file of modules OBJS ("a.o b.o"): the runtime's folder and the kernel's
 * features for every one. */
static char *kbuild_file(Session *s, const char *objs, const char *features)
{
	return xformat("obj-m := %s\nccflags-y := -I%s %s -Wno-declaration-after-statement"
		       " -Wno-unused-label -Wno-unused-function\n", objs, runtime_parent(s),
		       features);
}

char *build_module(Session *s, const char *module_name, const char *source)
{
	if (!have_build_tree(s))
		return NULL;
	char *dir = module_folder(s, source);
	if (!dir)
		return NULL;
	char *ko = xformat("%s/%s.ko", dir, module_name);
	struct stat st;
	if (!s->keep_build && cache_own_file(ko)) {
		if (s->verbose)
			fprintf(stderr, "hwtap: pass 4: %s from the cache\n", ko);
		cache_touch(dir);
		return s->sign_key ? sign_module(s, dir, module_name, ko) : ko;
	}
	if (mkdirs(dir, 0755)) {
		error_plain("cannot create the build folder %s: %s", dir, strerror(errno));
		return NULL;
	}
	char *features = kernel_features(s);
	if (!features)
		return NULL;
	char *kbuild = kbuild_file(s, xformat("%s.o", module_name), features);
	if (!write_file(xformat("%s/%s.c", dir, module_name), source) ||
	    !write_file(xformat("%s/Kbuild", dir), kbuild)) {
		error_plain("cannot write into %s: %s", dir, strerror(errno));
		return NULL;
	}
	int rc = run_kbuild(s, dir, false, 1);
	if (rc != 0 || stat(ko, &st)) {
		fprintf(stderr, "hwtap: internal error: the generated C for %s did not build "
			"against %s (this is a bug in hwtap); the end of %s/build.log:\n",
			module_name, s->kernel_build, dir);
		show_log_tail(dir);
		diag_errors++;
		return NULL;
	}
	if (s->keep_build)
		fprintf(stderr, "hwtap: keeping the build folder %s\n", dir);
	else
		tidy_build_folder(dir, module_name);
	cache_prune(dir, s->verbose);
	return s->sign_key ? sign_module(s, dir, module_name, ko) : ko;
}

/* The lines of the batch's build.log that name NAME's files ("NAME.c:12:3: error: ..."),
 * at most MAX of them. */
static char *log_lines_of(const char *log, const char *name, int max)
{
	StrBuf out = {0};
	sb_putn(&out, "", 0);
	char *key = xformat("/%s.", name);
	int n = 0;
	for (const char *p = log; p && *p && n < max;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p + 1) : strlen(p);
		char *line = xstrndup(p, len);
		if (strstr(line, key) || !strncmp(line, key + 1, strlen(key + 1))) {
			sb_puts(&out, line);
			n++;
		}
		p += len;
	}
	return out.buf;
}

/* Pass 4 of many modules in one kbuild run (hwtap --build): NAMES[i] from SOURCES[i].
 * Each is taken from the cache when it is there, and the others, built side by side
 * (make -k -jCPUS) in a batch folder, go into the cache as build_module puts them:
 * the same module either way. KOS[i]: its path, or NULL when it did not build (said,
 * with its lines of the log). The number that did not. */
int build_modules(Session *s, int n, char **names, char **sources, const char **what,
		  char **kos)
{
	if (!have_build_tree(s))
		return n;
	int failed = 0;
	char **dirs = xalloc(n * sizeof(*dirs));
	StrBuf objs = {0};
	sb_putn(&objs, "", 0);
	Vec pending = {0};
	for (int i = 0; i < n; i++) {
		kos[i] = NULL;
		if (!(dirs[i] = module_folder(s, sources[i])))
			return n;
		char *ko = xformat("%s/%s.ko", dirs[i], names[i]);
		if (!s->keep_build && cache_own_file(ko)) {
			if (s->verbose)
				fprintf(stderr, "hwtap: pass 4: %s from the cache\n", ko);
			cache_touch(dirs[i]);
			kos[i] = s->sign_key ? sign_module(s, dirs[i], names[i], ko) : ko;
			failed += !kos[i];
			continue;
		}
		bool twice = false;
		for (int j = 0; j < pending.len; j++)
			twice |= !strcmp(names[(intptr_t)pending.data[j]], names[i]);
		if (twice) {
			error_plain("%s: module %s is in this batch already: each module needs a "
				    "name of its own (hwtap -p3 -m NAME)", what[i], names[i]);
			failed++;
			continue;
		}
		vec_push(&pending, (void *)(intptr_t)i);
		sb_printf(&objs, "%s%s.o", objs.len ? " " : "", names[i]);
	}
	if (!pending.len)
		return failed;
	char *features = kernel_features(s);
	const char *batches = features ? cache_dir("batch") : NULL;
	if (!batches)
		return failed + pending.len;
	char *batch = xformat("%s/%d", batches, (int)getpid());
	cache_remove(batch);
	if (mkdirs(batch, 0755)) {
		error_plain("cannot create the build folder %s: %s", batch, strerror(errno));
		return failed + pending.len;
	}
	bool written = write_file(xformat("%s/Kbuild", batch), kbuild_file(s, objs.buf, features));
	for (int j = 0; j < pending.len; j++) {
		int i = (intptr_t)pending.data[j];
		written &= write_file(xformat("%s/%s.c", batch, names[i]), sources[i]);
	}
	if (!written) {
		error_plain("cannot write into %s: %s", batch, strerror(errno));
		cache_remove(batch);
		return failed + pending.len;
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	run_kbuild(s, batch, true, cpus > 1 ? (int)cpus : 1);
	size_t log_len;
	char *log = read_whole_file(xformat("%s/build.log", batch), &log_len);
	/* one object that does not compile keeps modpost, and so every module, from being
	 * made: then once more with only the objects that compiled (nothing recompiles) */
	StrBuf good = {0};
	sb_putn(&good, "", 0);
	bool missing = false;
	for (int j = 0; j < pending.len; j++) {
		int i = (intptr_t)pending.data[j];
		struct stat st;
		missing |= stat(xformat("%s/%s.ko", batch, names[i]), &st) != 0;
		if (!stat(xformat("%s/%s.o", batch, names[i]), &st))
			sb_printf(&good, "%s%s.o", good.len ? " " : "", names[i]);
	}
	if (missing && good.len) {
		rename(xformat("%s/build.log", batch), xformat("%s/build-all.log", batch));
		if (write_file(xformat("%s/Kbuild", batch), kbuild_file(s, good.buf, features)))
			run_kbuild(s, batch, true, cpus > 1 ? (int)cpus : 1);
	}
	for (int j = 0; j < pending.len; j++) {
		int i = (intptr_t)pending.data[j];
		char *built = xformat("%s/%s.ko", batch, names[i]);
		char *ko = xformat("%s/%s.ko", dirs[i], names[i]);
		struct stat st;
		char *lines = log_lines_of(log, names[i], 25);
		if (stat(built, &st) || mkdirs(dirs[i], 0755) ||
		    !write_file(xformat("%s/%s.c", dirs[i], names[i]), sources[i]) ||
		    !write_file(xformat("%s/build.log", dirs[i]), lines) || rename(built, ko)) {
			fprintf(stderr, "hwtap: error: %s (module %s) did not build against %s%s; "
				"its lines of the build's log:\n%s", what[i], names[i], s->kernel_build,
				s->keep_build ? "" : " (-k keeps the build folder)", lines);
			diag_errors++;
			failed++;
			continue;
		}
		kos[i] = s->sign_key ? sign_module(s, dirs[i], names[i], ko) : ko;
		failed += !kos[i];
		cache_prune(dirs[i], s->verbose);
	}
	if (s->keep_build)
		fprintf(stderr, "hwtap: keeping the build folder %s\n", batch);
	else
		cache_remove(batch);
	return failed;
}

/* ---- --bundle: one script's modules for many kernels -------------------------------------- */

char *bundle_add(Session *s, const char *ko, const char *name)
{
	const char *rel = s->kernel_release;
	if (!*rel || strchr(rel, '/') || rel[0] == '.') {
		error_plain("--bundle: kernel release '%s' cannot name a file", rel);
		return NULL;
	}
	if (mkdirs(s->bundle, 0755)) {
		error_plain("--bundle: cannot create the folder %s: %s", s->bundle, strerror(errno));
		return NULL;
	}
	char *dest = xformat("%s/%s-%s.ko", s->bundle, name, rel);
	char *tmp = xformat("%s/.%s-%s.ko.%d", s->bundle, name, rel, (int)getpid());
	if (!copy_file(ko, tmp) || chmod(tmp, 0644) || rename(tmp, dest)) {
		error_plain("--bundle: cannot write %s: %s", dest, strerror(errno));
		unlink(tmp);
		return NULL;
	}
	return dest;
}
