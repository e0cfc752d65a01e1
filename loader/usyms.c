/* usyms.c - hwtap-run's answers to a module's requests for the symbols of files processes
 * map (runtime/udyn.c; the exchange is runtime/protocol.h's /proc/hwtap_NAME/usyms).
 *
 * Every file named in a request is a local user's to shape, and hwtap-run is root. So a
 * file is never read by the relay itself: each request gets a reader, a child process
 * that opens the file, gives up root, and parses it within bounds, writing its answer
 * into a memfd that the relay passes on to the module once the child has exited. The
 * relay never waits for a reader: it polls, and a reader past its time is killed (a FUSE
 * server that never answers makes a reader wait, not the session). Requests wait their
 * turn in a queue (USYMS_QUEUE_MAX; past it, answered GONE: asked again at the file's
 * next mapping); one reader runs at a time. A reader past its time that still uses CPU
 * gets more, up to a cap; one that makes no progress is left behind, not waited for, and
 * no file on its device is tried again in the session (USYMS_STUCK_MAX readers left
 * behind at once at most: then no more are started).
 *
 * A reader, in order:
 *   - refuses files on FUSE file systems before any access to the file (the device in
 *     /sys/fs/fuse/connections, or its mount in the mapping process's mountinfo): their
 *     reads are answered by a process that may never answer;
 *   - opens the file only as the very inode the module holds (its device and inode
 *     number checked on what was opened), through /proc/PID/map_files (the mapping
 *     itself), else through the path it had, opened O_PATH first (no device or FIFO is
 *     ever opened for reading) and reopened only once it is known to be that regular
 *     file; files over USYMS_FILE_MAX bytes are not read;
 *   - then drops root: the uid and gid nobody, no groups, no capabilities, no new
 *     privileges, no other file descriptor, a seccomp filter that allows reading,
 *     writing, memory and exiting only; USYMS_MEM_MAX bytes of address space,
 *     USYMS_CPU_MAX seconds of CPU, an answer of USYMS_ANSWER_MAX bytes at most (a session
 *     takes no more: runtime/udyn.c's HWTAP_UDYN_BYTES);
 *   - reads the file with read(), never mapped (a file truncated meanwhile ends the
 *     reading, not the reader with SIGBUS), libelf's checks and lib/usymtab.c's bounds
 *     between its bytes and the answer; where the module unwinds user stacks, its
 *     .eh_frame too, libdw interpreting it within lib/uframes.c's bounds.
 * The relay checks the answer's size, magic and request before it writes it; the module
 * checks every bound and order again. A reader that fails or is killed (past its CPU
 * time, past USYMS_TIME_CAP seconds, or making no progress after USYMS_TIME_MAX) is
 * answered NONE: that file goes unnamed. */
#define _GNU_SOURCE             /* O_PATH, memfd_create, close_range */
#include "loader.h"
#include "udebug.h"
#include "uframes.h"
#include "usymtab.h"
#include "../runtime/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif
#define NOBODY 65534

/* a reader exits with 0 after writing its answer, or with one of these */
enum { READER_FAILED = 1, READER_FUSE = 2 };

typedef struct {
	unsigned long long id;
	int pid;
	unsigned long start, end;
	unsigned major, minor;
	unsigned long long ino;
	int frames;                     /* the module wants the file's unwind rows */
	const char *path;
	bool jit;                       /* a perf map's request instead (ujit.c): */
	UJitRequest j;
	char label[64];                 /* its path for messages, "/tmp/perf-N.map" */
} Request;

/* Whether FD is the regular file R names. */
static bool is_file(int fd, const Request *r)
{
	struct stat st;
	return !fstat(fd, &st) && S_ISREG(st.st_mode) && major(st.st_dev) == r->major &&
	       minor(st.st_dev) == r->minor && (unsigned long long)st.st_ino == r->ino &&
	       st.st_size <= USYMS_FILE_MAX;
}

/* Whether the device R's file is on is mounted, as the mapping process sees it, from a
 * FUSE file system ("fuse", "fuse.NAME", "fuseblk"): 1, 0, or -1 when that process is
 * gone. Then mountinfo's third field is MAJOR:MINOR, and the type follows the " - " that
 * ends the optional fields. Looked at before anything touches the file. A device the
 * process has no mount of (a container's lower layer, a file passed from another mount
 * namespace), without fusectl, is looked at after the open (fstatfs), the reader's time
 * limit bounding the open. */
static int on_fuse(const Request *r)
{
	/* fusectl, where it is mounted, has a folder for every FUSE connection, named by its
	 * device (the kernel's dev_t: major << 20 | minor), whoever's namespace it is in */
	char name[64], want[32];
	struct stat st;
	snprintf(name, sizeof(name), "/sys/fs/fuse/connections/%u", r->major << 20 | r->minor);
	if (!lstat(name, &st))
		return 1;
	snprintf(name, sizeof(name), "/proc/%d/mountinfo", r->pid);
	snprintf(want, sizeof(want), "%u:%u", r->major, r->minor);
	FILE *f = fopen(name, "re");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	int fuse = 0;
	while (!fuse && getline(&line, &cap, f) > 0) {
		char dev[32];
		if (sscanf(line, "%*s %*s %31s", dev) != 1 || strcmp(dev, want))
			continue;
		const char *sep = strstr(line, " - ");
		fuse = !sep || !strncmp(sep + 3, "fuse", 4);
	}
	free(line);
	fclose(f);
	return fuse;
}

/* R's file open for reading, or -1. */
static int open_file(const Request *r)
{
	char name[96];
	snprintf(name, sizeof(name), "/proc/%d/map_files/%lx-%lx", r->pid, r->start, r->end);
	int fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0 && is_file(fd, r))
		return fd;
	if (fd >= 0)
		close(fd);
	if (r->path[0] != '/')
		return -1;
	int pfd = open(r->path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	fd = -1;
	if (is_file(pfd, r)) {
		snprintf(name, sizeof(name), "/proc/self/fd/%d", pfd);
		fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd >= 0 && !is_file(fd, r)) {
			close(fd);
			fd = -1;
		}
	}
	close(pfd);
	return fd;
}

/* ---- the reader ----------------------------------------------------------------------- */

#if defined(__x86_64__)
#define READER_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define READER_ARCH AUDIT_ARCH_AARCH64
#endif

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
		  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
		 BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES)

/* What the parse may ask of the kernel: read and write its two files, memory, the end. */
static int reader_seccomp(void)
{
#ifdef READER_ARCH
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, READER_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),  /* x32's numbers */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		ALLOW(SYS_fstat),
#endif
		ALLOW(SYS_read), ALLOW(SYS_pread64), ALLOW(SYS_write), ALLOW(SYS_lseek),
		ALLOW(SYS_newfstatat), ALLOW(SYS_close), ALLOW(SYS_brk), ALLOW(SYS_mmap),
		ALLOW(SYS_munmap), ALLOW(SYS_mremap), ALLOW(SYS_madvise), ALLOW(SYS_exit),
		ALLOW(SYS_exit_group), ALLOW(SYS_rt_sigreturn),
		ALLOW(SYS_fcntl),       /* libelf: F_GETFD, whether its descriptor is one */
		ALLOW(SYS_sysinfo),     /* qsort(): the memory it may take for a copy */
		/* libdw's .debug_frame reading looks for the file's folder (readlink of
		 * /proc/self/fd/N, for split DWARF it does not need here): refused, not fatal */
#ifdef SYS_readlink
		DENY(SYS_readlink),
#endif
		DENY(SYS_readlinkat),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog fprog = { .len = sizeof(prog) / sizeof(prog[0]), .filter = prog };
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog);
#else
	errno = ENOSYS;
	return -1;
#endif
}

int usyms_confine(int fd, int out, int debug)
{
	fd = fcntl(fd, F_DUPFD, 3);     /* none may be 0, 1 or 2 already */
	out = fcntl(out, F_DUPFD, 3);
	debug = debug < 0 ? -1 : fcntl(debug, F_DUPFD, 3);
	if (fd < 0 || out < 0 || dup2(fd, 0) < 0 || dup2(out, 1) < 0)
		return -1;
	if (debug >= 0 && dup2(debug, 2) < 0)
		return -1;
	if (close_range(debug >= 0 ? 3 : 2, ~0U, 0))
		return -1;
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY) || getuid() != NOBODY)
		return -1;
	const struct { int what; rlim_t soft, hard; } limits[] = {
		{ RLIMIT_AS, USYMS_MEM_MAX, USYMS_MEM_MAX },
		{ RLIMIT_CPU, USYMS_CPU_MAX, USYMS_CPU_MAX + 1 },
		{ RLIMIT_FSIZE, USYMS_ANSWER_MAX, USYMS_ANSWER_MAX },
		{ RLIMIT_NOFILE, 3, 3 },
		{ RLIMIT_NPROC, 0, 0 },
		{ RLIMIT_CORE, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct rlimit rl = { limits[i].soft, limits[i].hard };
		if (setrlimit(limits[i].what, &rl))
			return -1;
	}
	/* (set after the uid changed, which clears it): a peek's parent killed takes it */
	if (prctl(PR_SET_DUMPABLE, 0) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL))
		return -1;
	return reader_seccomp();
}

static void put64(unsigned char **p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*(*p)++ = (unsigned char)(v >> (8 * i));
}

int usyms_answer(int out, uint64_t id, uint64_t status, const USymTab *t, const UFrameTab *f,
		 const uint64_t *map)
{
	static const UFrameTab none;
	if (map)
		f = &none;
	size_t len = HWTAP_USYMS_HDR_WORDS * 8;
	if (status == HWTAP_USYMS_OK)
		len += (map ? 0 : t->nsegs * 24) + t->nsyms * HWTAP_USYMS_SYM_WORDS * 8 +
		       f->nrows * HWTAP_USYMS_FRAME_WORDS * 8 + t->names_len;
	if (len > USYMS_ANSWER_MAX) {
		status = HWTAP_USYMS_NONE;
		len = HWTAP_USYMS_HDR_WORDS * 8;
	}
	unsigned char *buf = malloc(len), *p = buf;
	if (!buf)
		return -1;
	bool ok = status == HWTAP_USYMS_OK;
	put64(&p, HWTAP_USYMS_MAGIC);
	put64(&p, id);
	put64(&p, status);
	put64(&p, !ok ? 0 : map ? map[0] : t->nsegs);
	put64(&p, ok ? t->nsyms : 0);
	put64(&p, ok ? t->names_len : 0);
	put64(&p, !ok ? 0 : map ? map[1] : f->nrows);
	for (size_t i = 0; ok && !map && i < t->nsegs; i++) {
		put64(&p, t->segs[i].offset);
		put64(&p, t->segs[i].vaddr);
		put64(&p, t->segs[i].size);
	}
	for (size_t i = 0; ok && i < t->nsyms; i++) {
		put64(&p, t->syms[i].addr);
		put64(&p, t->syms[i].name);
		put64(&p, t->syms[i].size);
		put64(&p, t->syms[i].dname);
	}
	for (size_t i = 0; ok && i < f->nrows; i++) {
		const UFrameRow *row = &f->rows[i];
		put64(&p, row->addr);
		put64(&p, (uint32_t)row->cfa_off | (uint64_t)(uint16_t)row->ra_off << 32 |
			  (uint64_t)(uint16_t)row->fp_off << 48);
		put64(&p, row->cfa | row->ra << 8 | row->fp << 16 | (uint64_t)row->flags << 24 |
			  (uint64_t)row->plt << 32);
	}
	if (ok)
		memcpy(p, t->names, t->names_len);
	ssize_t n = write(out, buf, len);
	free(buf);
	return n == (ssize_t)len ? 0 : -1;
}

/* What the file on FD says of its separate debug file (lib/udebug.h), read by a peek: a
 * child as confined as the reader will be, which parses the file and writes REF into a
 * pipe, so that root never parses it; then checked again here. Whether there is one to
 * look for. */
static bool peek_debug_ref(int fd, UDebugRef *ref)
{
	int p[2];
	memset(ref, 0, sizeof(*ref));
	if (pipe2(p, O_CLOEXEC))
		return false;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (usyms_confine(fd, p[1], -1))
			_exit(READER_FAILED);
		UDebugRef got;
		Elf *elf = elf_begin(0, ELF_C_READ, NULL);
		if (!elf || elf_kind(elf) != ELF_K_ELF || !udebug_ref(elf, &got))
			_exit(0);
		_exit(write(1, &got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : READER_FAILED);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return false;
	}
	size_t got = 0;
	ssize_t n;
	while (got < sizeof(*ref) &&
	       ((n = read(p[0], (char *)ref + got, sizeof(*ref) - got)) > 0 ||
		(n < 0 && errno == EINTR)))
		got += n > 0 ? n : 0;
	close(p[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(*ref) || !udebug_ref_valid(ref)) {
		memset(ref, 0, sizeof(*ref));
		return false;
	}
	return ref->id_len || ref->link[0];
}

/* REF's debug file for R's file, opened for reading, or -1. Only under UDEBUG_ROOT, root's:
 * opened O_PATH first, then read only as a regular file of USYMS_FILE_MAX bytes at most
 * that is not on FUSE. Whether it is that file's (its build ID, or the link's CRC) is the
 * confined reader's to check. */
static int open_debug_file(const Request *r, const UDebugRef *ref)
{
	char where[UDEBUG_PATH_MAX], name[64];
	for (int i = 0, k; (k = udebug_path(ref, r->path, i, where, sizeof(where))); i++) {
		int pfd = k > 0 ? open(where, O_PATH | O_CLOEXEC) : -1;
		struct stat st;
		if (pfd < 0)
			continue;
		int fd = -1;
		if (!fstat(pfd, &st) && S_ISREG(st.st_mode) && st.st_size <= USYMS_FILE_MAX) {
			snprintf(name, sizeof(name), "/proc/self/fd/%d", pfd);
			fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		}
		close(pfd);
		struct statfs fs;
		if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && !fstatfs(fd, &fs) &&
		    fs.f_type != FUSE_SUPER_MAGIC)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return -1;
}

/* The reader's life, in the child: never returns. */
static void reader(const Request *r, int out)
{
	if (out > 2)    /* the relay's files, the module's among them: closed at once */
		close_range(3, out - 1, 0);
	close_range(out + 1, ~0U, 0);
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
	signal(SIGXFSZ, SIG_IGN);       /* an answer past RLIMIT_FSIZE: EFBIG, not death */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (r->jit)
		ujit_reader(&r->j, out);
	int fuse = on_fuse(r);
	if (fuse > 0)
		_exit(READER_FUSE);
	int fd = fuse < 0 ? -1 : open_file(r);
	struct statfs fs;
	if (fd >= 0 && (fstatfs(fd, &fs) || fs.f_type == FUSE_SUPER_MAGIC))
		_exit(READER_FUSE);
	if (fd < 0)
		_exit(usyms_answer(out, r->id, HWTAP_USYMS_GONE, NULL, NULL, NULL) ? READER_FAILED : 0);
	UDebugRef ref;
	int dfd = peek_debug_ref(fd, &ref) ? open_debug_file(r, &ref) : -1;
	if (usyms_confine(fd, out, dfd))
		_exit(READER_FAILED);
	uint64_t status = HWTAP_USYMS_NONE;
	USymTab t = {0};
	UFrameTab f = {0};
	Elf *elf = elf_begin(0, ELF_C_READ, NULL);
	Elf *debug = dfd >= 0 ? elf_begin(2, ELF_C_READ, NULL) : NULL;
	if (debug && (elf_kind(debug) != ELF_K_ELF || !udebug_matches(debug, 2, &ref))) {
		elf_end(debug);
		debug = NULL;
	}
	/* no symbols but segments (stripped, or its section headers broken): still a module,
	 * which umodname() and usymdata() name */
	if (elf && elf_kind(elf) == ELF_K_ELF && !usymtab_read(elf, debug, &t) &&
	    (t.nsyms || t.nsegs))
		status = HWTAP_USYMS_OK;
	/* (out of memory for the rows leaves none: the symbols still go) */
	if (status == HWTAP_USYMS_OK && r->frames)
		uframes_read(elf, debug, &f);
	_exit(usyms_answer(1, r->id, status, &t, &f, NULL) ? READER_FAILED : 0);
}

/* ---- the relay's side ----------------------------------------------------------------- */

/* One request, "ID PID START END MAJOR MINOR INODE FRAMES PATH" or a perf map's ("J
 * ..."), into R: whether it parses. */
static bool parse(char *s, Request *r)
{
	int used = 0;
	memset(r, 0, sizeof(*r));
	if (s[0] == 'J') {
		if (!ujit_parse(s, &r->j))
			return false;
		r->jit = true;
		r->id = r->j.id;
		r->pid = r->j.pid;
		snprintf(r->label, sizeof(r->label), "/tmp/perf-%d.map", r->j.nspid);
		r->path = r->label;     /* (R is not copied: parse() fills each one) */
		return true;
	}
	if (sscanf(s, "%llu %d %lx %lx %u %u %llu %d %n", &r->id, &r->pid, &r->start, &r->end,
		   &r->major, &r->minor, &r->ino, &r->frames, &used) != 8 || !used)
		return false;
	r->path = s + used;
	return true;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "the symbols of PATH: WHY" (anybody's bytes: quoted and escaped), with -v */
static void say(const USymsServer *s, const char *path, const char *why)
{
	if (!s->verbose)
		return;
	Buf q = {0};
	buf_json_string(&q, path, strlen(path));
	buf_add(&q, "", 1);
	fprintf(stderr, "hwtap-run: session %s: the symbols of %s: %s\n", s->session, q.p, why);
	free(q.p);
}

/* A header-only answer to R: 0, or -1 with errno. */
static int answer_status(int ufd, const Request *r, uint64_t status)
{
	unsigned char buf[HWTAP_USYMS_HDR_WORDS * 8], *p = buf;
	put64(&p, HWTAP_USYMS_MAGIC);
	put64(&p, r->id);
	put64(&p, status);
	for (int i = 3; i < HWTAP_USYMS_HDR_WORDS; i++)
		put64(&p, 0);
	return write(ufd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) ? 0 : -1;
}

/* The finished reader's answer, from its memfd to the module: 0, or -1 with errno. */
static int pass_answer(int ufd, USymsServer *s, const Request *r)
{
	struct stat st;
	if (fstat(s->memfd, &st) || st.st_size < HWTAP_USYMS_HDR_WORDS * 8 ||
	    (unsigned long)st.st_size > USYMS_ANSWER_MAX) {
		say(s, r->path, "its reader gave no answer");
		return answer_status(ufd, r, HWTAP_USYMS_NONE);
	}
	size_t len = st.st_size;
	unsigned char *a = mmap(NULL, len, PROT_READ, MAP_PRIVATE, s->memfd, 0);
	if (a == MAP_FAILED)
		return answer_status(ufd, r, HWTAP_USYMS_NONE);
	uint64_t magic = 0, id = 0;
	for (int i = 7; i >= 0; i--) {
		magic = magic << 8 | a[i];
		id = id << 8 | a[8 + i];
	}
	int rc;
	if (magic != HWTAP_USYMS_MAGIC || id != r->id) {
		say(s, r->path, "its reader's answer is not one");
		rc = answer_status(ufd, r, HWTAP_USYMS_NONE);
	} else {
		rc = write(ufd, a, len) == (ssize_t)len ? 0 : -1;
	}
	munmap(a, len);
	return rc;
}

/* The request at the queue's head to its reader: 0, or -1 (then answered NONE). */
static int start_reader(USymsServer *s)
{
	Request r;
	parse(s->queue[s->head], &r);
	int memfd = memfd_create("hwtap-usyms", MFD_CLOEXEC);
	if (memfd < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0)
		reader(&r, memfd);
	if (pid < 0) {
		close(memfd);
		return -1;
	}
	s->reader = pid;
	s->memfd = memfd;
	s->started = now();
	s->deadline = s->started + USYMS_TIME_MAX;
	s->ticks = 0;
	s->checks = 0;
	return 0;
}

/* The head request answered: the queue moves on. */
static void pop(USymsServer *s)
{
	free(s->queue[s->head]);
	s->head = (s->head + 1) % USYMS_QUEUE_MAX;
	s->queued--;
}

/* The head request's reader ended with STATUS (wait(2)'s): its answer to the module. */
static int finish_reader(int ufd, USymsServer *s, int status)
{
	Request r;
	parse(s->queue[s->head], &r);
	int rc;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = pass_answer(ufd, s, &r);
	} else {
		char why[96];
		const char *refused = r.jit && WIFEXITED(status) ? ujit_why(WEXITSTATUS(status)) :
				      NULL;
		if (refused)
			snprintf(why, sizeof(why), "%s", refused);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == READER_FUSE)
			snprintf(why, sizeof(why), "not read: it is on a FUSE file system");
		else if (WIFSIGNALED(status))
			snprintf(why, sizeof(why), "not read: its reader was killed (%s)",
				 strsignal(WTERMSIG(status)));
		else
			snprintf(why, sizeof(why), "not read: its reader failed");
		say(s, r.path, why);
		rc = answer_status(ufd, &r, HWTAP_USYMS_NONE);
	}
	close(s->memfd);
	s->memfd = -1;
	s->reader = 0;
	pop(s);
	return rc;
}

/* The CPU time the reader has used, in clock ticks (/proc/PID/stat's utime and stime,
 * the 14th and 15th fields; the 2nd, the name, in parentheses), or -1. */
static long reader_ticks(pid_t pid)
{
	char name[64], buf[1024];
	snprintf(name, sizeof(name), "/proc/%d/stat", (int)pid);
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	unsigned long utime, stime;
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
			 &stime) != 2)
		return -1;
	return (long)(utime + stime);
}

/* The head request's reader at its deadline: given USYMS_STALL_CHECK seconds more while
 * it uses CPU (a busy machine, a large file: RLIMIT_CPU bounds that), up to
 * USYMS_TIME_CAP in all; else killed, and left behind rather than waited for (a FUSE
 * request its server has read is waited out even by a killed task, until the server
 * answers or dies), answered NONE. One that made no progress is stuck where it reads:
 * its device is remembered, so that the next file there is not tried. */
static int overdue_reader(int ufd, USymsServer *s)
{
	long ticks = reader_ticks(s->reader);
	bool moving = ticks > s->ticks || s->checks == 0;
	if (moving && now() < s->started + USYMS_TIME_CAP) {
		s->ticks = ticks;
		s->checks++;
		s->deadline = now() + USYMS_STALL_CHECK;
		return 0;
	}
	Request r;
	parse(s->queue[s->head], &r);
	kill(s->reader, SIGKILL);
	s->left[s->nleft++] = s->reader;
	char why[96];
	if (moving) {
		snprintf(why, sizeof(why), "not read: its reader took over %d s", USYMS_TIME_CAP);
	} else {
		if (s->nstalled < USYMS_STUCK_MAX)
			s->stalled[s->nstalled++] = makedev(r.major, r.minor);
		snprintf(why, sizeof(why), "not read: its reader made no progress in %d s",
			 (int)(now() - s->started));
	}
	say(s, r.path, why);
	close(s->memfd);
	s->memfd = -1;
	s->reader = 0;
	pop(s);
	return answer_status(ufd, &r, HWTAP_USYMS_NONE);
}

/* The readers left behind that have ended since: reaped, their places free. */
static void reap_left(USymsServer *s)
{
	size_t k = 0;
	for (size_t i = 0; i < s->nleft; i++) {
		if (waitpid(s->left[i], NULL, WNOHANG) != s->left[i])
			s->left[k++] = s->left[i];
	}
	s->nleft = k;
}

/* The running reader: reaped and answered if it ended, looked at if overdue. */
static void check_reader(int ufd, USymsServer *s)
{
	int status, rc = 0;
	if (waitpid(s->reader, &status, WNOHANG) == s->reader)
		rc = finish_reader(ufd, s, status);
	else if (now() >= s->deadline)
		rc = overdue_reader(ufd, s);
	if (rc && s->verbose)
		fprintf(stderr, "hwtap-run: session %s: an answer for symbols: %s\n", s->session,
			strerror(errno));
}

/* Why the head request gets no reader, or NULL: a reader on its device made no progress
 * before, or USYMS_STUCK_MAX readers left behind have not ended. */
static const char *no_reader(const USymsServer *s)
{
	Request r;
	parse(s->queue[s->head], &r);
	if (s->nleft == USYMS_STUCK_MAX)
		return "not read: too many of its readers did not end";
	for (size_t i = 0; i < s->nstalled; i++) {
		if (s->stalled[i] == makedev(r.major, r.minor))
			return "not read: a reader of a file on its device made no progress";
	}
	return NULL;
}

/* Every request waiting on UFD into the queue (the queue full: answered GONE). */
static int read_requests(int ufd, USymsServer *s)
{
	static unsigned char buf[1 << 16];
	for (;;) {
		ssize_t n = read(ufd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 && errno != EAGAIN ? -1 : 0;
		buf[n] = '\0';
		for (char *p = (char *)buf; p < (char *)buf + n; p += strlen(p) + 1) {
			Request r;
			if (!parse(p, &r))
				continue;
			if (s->queued == USYMS_QUEUE_MAX) {
				say(s, r.path, "not read now: too many files wait");
				answer_status(ufd, &r, HWTAP_USYMS_GONE);
				continue;
			}
			char *copy = strdup(p);
			if (!copy) {
				answer_status(ufd, &r, HWTAP_USYMS_GONE);
				continue;
			}
			s->queue[(s->head + s->queued++) % USYMS_QUEUE_MAX] = copy;
		}
	}
}

void usyms_init(USymsServer *s, const char *session, int verbose)
{
	memset(s, 0, sizeof(*s));
	s->session = session;
	s->verbose = verbose;
	s->memfd = -1;
	elf_version(EV_CURRENT);
}

int usyms_serve(USymsServer *s, int ufd)
{
	reap_left(s);
	if (s->reader)
		check_reader(ufd, s);
	int rc = read_requests(ufd, s);
	while (!s->reader && s->queued) {
		const char *why = no_reader(s);
		if (!why && !start_reader(s))
			break;
		Request r;
		parse(s->queue[s->head], &r);
		say(s, r.path, why ? why : "not read: no reader could start");
		answer_status(ufd, &r, HWTAP_USYMS_NONE);
		pop(s);
	}
	return rc;
}

int usyms_timeout_ms(const USymsServer *s)
{
	if (!s->reader)
		return -1;
	double left = s->deadline - now();
	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

void usyms_finish(USymsServer *s)
{
	if (s->reader) {
		kill(s->reader, SIGKILL);
		close(s->memfd);
	}
	/* a moment for them to end; the rest are left to init, never waited for */
	for (int i = 0; i < 10 && s->reader && waitpid(s->reader, NULL, WNOHANG) == 0; i++)
		usleep(10000);
	reap_left(s);
	while (s->queued)
		pop(s);
	s->reader = 0;
	s->memfd = -1;
}
