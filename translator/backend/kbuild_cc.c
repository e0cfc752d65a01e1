/* kbuild_cc.c - hwtap-cc: the compiler front pass 4 gives kbuild, which remembers the
 * answers to kbuild's compiler probes.
 *
 * Every `make -C TREE M=DIR modules` re-runs some thirty probes of the compiler before it
 * compiles anything (cc-option, cc-disable-warning, as-instr: `gcc -Werror FLAGS -c -x c
 * /dev/null -o TMP`, `gcc --version`): 1.3 to 1.7 s of the 2.4 s kbuild costs a module
 * before its own C. Their answers depend only on the compiler, its arguments and the tree,
 * so hwtap-cc keeps each one (exit status, stdout, stderr, the object it wrote) and replays
 * it the next time the same compiler is asked the same thing in the same tree.
 *
 *   hwtap-cc COMPILER ARGS...      (kbuild calls it as it calls ccache: CC="hwtap-cc gcc-12")
 *
 * An invocation is remembered only when it compiles nothing of anyone's: every input is
 * /dev/null or standard input ("-", whose bytes are part of the key), or there is none
 * (--version, -print-file-name=include); dependency output (-M...) is never remembered.
 * Anything else - every real compile - runs the compiler as it is, untouched.
 *
 * The key holds: the compiler as PATH finds it (device, inode, size, mtime and ctime of
 * the file it resolves to), dpkg's status file the same way (so that installing or
 * upgrading any package - gcc, binutils, the headers - forgets every answer), the working
 * folder (kbuild runs them in the tree) and the tree's configuration files there, every
 * argument but the -o file, the same stat of every argument that names a file, the
 * environment variables gcc reads, and the bytes of standard input.
 *
 * Answers live in HWTAP_CC_CACHE (build.c sets it: ~/.cache/hwtap/kbuild-cc), one small
 * file each, written whole and renamed into place, used only when the folder and the file
 * are the user's own and nobody else can write them: an answer decides kbuild's flags
 * (-print-file-name=include picks the headers), and the module is loaded as root. Without
 * that folder, hwtap-cc is the compiler itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAGIC "hwtap-cc 1\n"
/* the most of standard input, of each output, and of the object kept per answer */
#define MAX_PART (1 << 20)

typedef struct {
	char *buf;
	size_t len, cap;
} Bytes;

static void put(Bytes *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		char *nb = realloc(b->buf, cap);
		if (!nb) {
			perror("hwtap-cc");
			exit(127);
		}
		b->buf = nb;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static uint64_t fold(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	/* a separator, so that ("ab", "c") and ("a", "bc") differ */
	return (h ^ 0xff) * 0x100000001b3ULL;
}

static uint64_t fold_str(uint64_t h, const char *s)
{
	return fold(h, s ? s : "(unset)", s ? strlen(s) : 7);
}

/* The identity of the file PATH names, or of its absence. */
static uint64_t fold_stat(uint64_t h, const char *path)
{
	struct stat st;
	if (stat(path, &st)) {
		return fold_str(h, "(none)");
	}
	uint64_t f[] = {st.st_dev, st.st_ino, (uint64_t)st.st_size, (uint64_t)st.st_mode,
			(uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec,
			(uint64_t)st.st_ctim.tv_sec, (uint64_t)st.st_ctim.tv_nsec};
	return fold(h, f, sizeof(f));
}

/* COMPILER as execvp() would find it; NULL when PATH has none. */
static char *resolve(const char *compiler)
{
	if (strchr(compiler, '/'))
		return strdup(compiler);
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	for (const char *p = path; *p;) {
		const char *end = strchrnul(p, ':');
		char *cand;
		if (asprintf(&cand, "%.*s/%s", (int)(end - p), p, compiler) < 0)
			return NULL;
		if (!access(cand, X_OK))
			return cand;
		free(cand);
		p = *end ? end + 1 : end;
	}
	return NULL;
}

/* gcc's options that take the next argument as theirs. */
static bool takes_argument(const char *a)
{
	static const char *const with_arg[] = {
		"-o", "-x", "-I", "-include", "-imacros", "-isystem", "-idirafter", "-iquote",
		"-iprefix", "-iwithprefix", "-iwithprefixbefore", "-isysroot", "-imultilib",
		"-D", "-U", "-L", "-l", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-T", "-u",
		"-aux-info", "--param", "-wrapper", "-e", "-z", "-A", "-B", "-G",
	};
	for (size_t i = 0; i < sizeof(with_arg) / sizeof(with_arg[0]); i++)
		if (!strcmp(a, with_arg[i]))
			return true;
	return false;
}

/* Whether ARGV (the compiler's arguments) is a probe: no input but /dev/null or "-",
 * nothing written but the -o file. *OUT: that file (NULL for none, or standard output);
 * *STDIN_INPUT: whether "-" is an input. */
static bool is_probe(char **argv, const char **out, bool *stdin_input)
{
	*out = NULL;
	*stdin_input = false;
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		if (a[0] == '-' && a[1]) {
			if (!strncmp(a, "-M", 2) || !strncmp(a, "-Wp,", 4) ||
			    !strncmp(a, "-save-temps", 11) || !strncmp(a, "-fdump-", 7) ||
			    !strncmp(a, "-fstack-usage", 13) || !strncmp(a, "-fcallgraph-info", 16) ||
			    !strcmp(a, "-MD") || !strncmp(a, "@", 1))
				return false;
			if (takes_argument(a)) {
				if (!argv[i + 1])
					return false;
				if (!strcmp(a, "-o"))
					*out = strcmp(argv[i + 1], "-") &&
					       strcmp(argv[i + 1], "/dev/null") ? argv[i + 1] : NULL;
				i++;
			}
			continue;
		}
		if (a[0] == '@')
			return false;           /* a response file: its words are unknown here */
		if (!strcmp(a, "-"))
			*stdin_input = true;
		else if (strcmp(a, "/dev/null"))
			return false;           /* a real input: compiled as it is */
	}
	return true;
}

static bool read_all(int fd, Bytes *b, size_t limit)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			return true;
		put(b, chunk, n);
		if (b->len > limit)
			return false;
	}
}

static bool write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= w;
	}
	return true;
}

/* A folder or file this user may trust: the user's own, not a link, nobody else writes. */
static bool own(int fd, bool dir)
{
	struct stat st;
	return !fstat(fd, &st) && st.st_uid == geteuid() && !(st.st_mode & 022) &&
	       (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/* An answer: status, then the lengths and bytes of stdout, stderr and the object. */
typedef struct {
	int status;
	Bytes part[3];
	bool has_object;
	bool keep;                      /* whether it may be remembered */
} Answer;

static bool parse_answer(const Bytes *b, Answer *a)
{
	const char *p = b->buf, *end = b->buf + b->len;
	size_t m = strlen(MAGIC);
	if (b->len < m || memcmp(p, MAGIC, m))
		return false;
	p += m;
	long long v[4];
	for (int i = 0; i < 4; i++) {
		char *e;
		errno = 0;
		v[i] = strtoll(p, &e, 10);
		if (errno || e == p || e >= end || *e != (i < 3 ? ' ' : '\n'))
			return false;
		p = e + 1;
	}
	a->status = (int)v[0];
	a->has_object = v[3] >= 0;
	if (v[0] < 0 || v[0] > 255 || v[1] < 0 || v[2] < 0 || v[3] < -1)
		return false;
	for (int i = 0; i < 3; i++) {
		long long n = i == 2 && v[3] < 0 ? 0 : v[i + 1];
		if (n > end - p)
			return false;
		a->part[i] = (Bytes){(char *)p, (size_t)n, 0};
		p += n;
	}
	return p == end;
}

static int replay(const Answer *a, const char *out)
{
	if (a->has_object && out) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0 || !write_all(fd, a->part[2].buf, a->part[2].len) || close(fd))
			return -1;
	}
	if (!write_all(1, a->part[0].buf, a->part[0].len) ||
	    !write_all(2, a->part[1].buf, a->part[1].len))
		return -1;
	return a->status;
}

/* Runs the compiler with INPUT as its standard input (when given) and its output kept;
 * the answer (not to keep when it did not end by itself or wrote something odd), or
 * status -1 when it could not be run or read back. */
static Answer run_compiler(char **argv, const Bytes *input, const char *out)
{
	Answer a = {.status = -1};
	int fds[3] = {-1, -1, -1};
	const char *names[3] = {"hwtap-cc-in", "hwtap-cc-out", "hwtap-cc-err"};
	for (int i = 0; i < 3; i++)
		if ((i || input) && (fds[i] = memfd_create(names[i], MFD_CLOEXEC)) < 0)
			goto fail;
	if (input && (!write_all(fds[0], input->buf, input->len) || lseek(fds[0], 0, SEEK_SET)))
		goto fail;
	pid_t pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0) {
		for (int i = 0; i < 3; i++)
			if (fds[i] >= 0 && dup2(fds[i], i) < 0)
				_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "hwtap-cc: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			goto fail;
	for (int i = 1; i < 3; i++)
		if (lseek(fds[i], 0, SEEK_SET) || !read_all(fds[i], &a.part[i - 1], SIZE_MAX))
			goto fail;
	/* the object, when the compile wrote one (gcc removes it when it fails) */
	struct stat ost;
	int ofd = out && WEXITSTATUS(st) == 0 ? open(out, O_RDONLY | O_CLOEXEC) : -1;
	if (ofd >= 0) {
		a.has_object = !fstat(ofd, &ost) && S_ISREG(ost.st_mode) &&
			       read_all(ofd, &a.part[2], MAX_PART);
		close(ofd);
	}
	a.keep = WIFEXITED(st) && (ofd < 0 || a.has_object) && a.part[0].len <= MAX_PART &&
		 a.part[1].len <= MAX_PART;
	a.has_object = a.has_object && a.keep;
	a.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return a;
fail:
	a.status = -1;
	return a;
}

static void store(int dirfd, const char *name, const Answer *a)
{
	Bytes b = {0};
	char head[128];
	int n = snprintf(head, sizeof(head), MAGIC "%d %zu %zu %lld\n", a->status, a->part[0].len,
			 a->part[1].len, a->has_object ? (long long)a->part[2].len : -1LL);
	put(&b, head, n);
	for (int i = 0; i < 3; i++)
		put(&b, a->part[i].buf ? a->part[i].buf : "", a->part[i].len);
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%s.%d", name, (int)getpid());
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	bool ok = write_all(fd, b.buf, b.len);
	ok = !close(fd) && ok;
	if (!ok || renameat(dirfd, tmp, dirfd, name))
		unlinkat(dirfd, tmp, 0);
	free(b.buf);
}

/* Standard input over the bound: not remembered; the compiler gets what was read of it,
 * then the rest. */
static int feed_through(char **cc, const Bytes *head)
{
	int p[2];
	if (pipe(p))
		return 127;
	pid_t pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		close(p[1]);
		if (dup2(p[0], 0) < 0)
			_exit(127);
		execvp(cc[0], cc);
		fprintf(stderr, "hwtap-cc: cannot run %s: %s\n", cc[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	bool ok = write_all(p[1], head->buf, head->len);
	char chunk[65536];
	ssize_t n;
	while (ok && ((n = read(0, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR)))
		ok = n < 0 || write_all(p[1], chunk, n);
	close(p[1]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 127;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: hwtap-cc COMPILER [ARGUMENTS...]\n");
		return 2;
	}
	char **cc = argv + 1;
	const char *cache = getenv("HWTAP_CC_CACHE");
	const char *out;
	bool stdin_input;
	int dirfd = cache && *cache ? open(cache, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (dirfd < 0 || !own(dirfd, true) || !is_probe(cc + 1, &out, &stdin_input)) {
		execvp(cc[0], cc);
		fprintf(stderr, "hwtap-cc: cannot run %s: %s\n", cc[0], strerror(errno));
		return 127;
	}

	char *compiler = resolve(cc[0]);
	if (!compiler) {
		execvp(cc[0], cc);
		fprintf(stderr, "hwtap-cc: cannot run %s: %s\n", cc[0], strerror(errno));
		return 127;
	}
	Bytes input = {0};
	if (stdin_input && !read_all(0, &input, MAX_PART))
		return feed_through(cc, &input);

	uint64_t h = 0xcbf29ce484222325ULL;
	h = fold_str(h, MAGIC);
	h = fold_str(h, compiler);
	h = fold_stat(h, compiler);
	h = fold_stat(h, "/var/lib/dpkg/status");
	char cwd[PATH_MAX];
	h = fold_str(h, getcwd(cwd, sizeof(cwd)) ? cwd : "(no cwd)");
	static const char *const tree_files[] = {
		"Makefile", ".kernelvariables", "include/config/auto.conf",
		"include/generated/autoconf.h", "scripts/Kbuild.include",
	};
	for (size_t i = 0; i < sizeof(tree_files) / sizeof(tree_files[0]); i++)
		h = fold_stat(h, tree_files[i]);
	static const char *const env[] = {
		"PATH", "LANG", "LC_ALL", "LC_MESSAGES", "LC_CTYPE", "GCC_EXEC_PREFIX",
		"COMPILER_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "GCC_COLORS",
		"SOURCE_DATE_EPOCH", "DEPENDENCIES_OUTPUT", "SUNPRO_DEPENDENCIES", "TMPDIR",
	};
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		h = fold_str(h, getenv(env[i]));
	for (int i = 1; cc[i]; i++) {
		bool is_out = i > 1 && !strcmp(cc[i - 1], "-o");
		h = fold_str(h, is_out ? "(the output)" : cc[i]);
		/* a file an argument names, whole or after '=' (-include F, --sysroot=D) */
		const char *eq = strchr(cc[i], '=');
		if (!is_out && (cc[i][0] == '/' || cc[i][0] == '.'))
			h = fold_stat(h, cc[i]);
		if (!is_out && eq && (eq[1] == '/' || eq[1] == '.'))
			h = fold_stat(h, eq + 1);
	}
	h = fold(h, input.buf ? input.buf : "", input.len);

	char name[32];
	snprintf(name, sizeof(name), "%016llx", (unsigned long long)h);
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		Bytes b = {0};
		Answer a;
		bool ok = own(fd, false) && read_all(fd, &b, 4 * MAX_PART) && parse_answer(&b, &a);
		close(fd);
		if (ok)
			return replay(&a, out) < 0 ? 127 : a.status;
		free(b.buf);
	}
	Answer a = run_compiler(cc, stdin_input ? &input : NULL, out);
	if (a.status < 0)
		return 127;
	if (a.keep)
		store(dirfd, name, &a);
	int rc = replay(&a, out);
	return rc < 0 ? 127 : rc;
}
