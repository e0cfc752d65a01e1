/* ujit.c - hwtap-run's reader of a JIT's perf map, for the module's names of the anonymous
 * code a process runs (runtime/ujit.c; the exchange is runtime/protocol.h's
 * /proc/hwtap_NAME/usyms, relayed as usyms.c relays the files' requests, each in a child
 * of its own with the same time limits).
 *
 * The map is /tmp/perf-NSPID.map as the process sees it: any local user can write /tmp,
 * so the reader, before it reads a byte:
 *   - holds the process's root (/proc/PID/root) and checks the process is the one the
 *     module asked about (its start time: a pid reused is another process);
 *   - opens the map under that root (openat2 RESOLVE_IN_ROOT), no symbolic link followed,
 *     anywhere on the path, O_PATH first: no device or FIFO is ever opened for reading;
 *   - takes it only as a regular file, not on FUSE, UJITMAP_FILE_MAX bytes at most, owned
 *     by the process's own user (its euid), and last written no earlier than a second
 *     before the process started (a map an earlier process with that pid left);
 *   - answers SAME, reading nothing, when its size and time are the last answer's;
 *   - else reopens it for reading, gives up root as usyms.c's readers do, reads it with
 *     read() and parses it within lib/ujitmap.h's bounds.
 * A map refused is answered NONE (the relay says why with -v, ujit_why()): the process's
 * anonymous code goes unnamed (hex). */
#define _GNU_SOURCE
#include "loader.h"
#include "ujitmap.h"
#include "../runtime/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif

bool ujit_parse(const char *s, UJitRequest *r)
{
	int used = 0;
	return sscanf(s, "J %llu %d %d %u %llu %llu %llu%n", &r->id, &r->pid, &r->nspid,
		      &r->uid, &r->start_ns, &r->size, &r->mtime, &used) == 7 && used &&
	       !s[used] && r->id >= HWTAP_USYMS_JIT_ID && r->pid > 0 && r->nspid > 0;
}

static _Noreturn void answer_exit(int out, const UJitRequest *r, uint64_t status)
{
	_exit(usyms_answer(out, r->id, status, NULL, NULL, NULL) ? 1 : 0);
}

/* A map refused: the reader's exit status, which the relay says why by (ujit_why()). */
enum { REFUSED_PROCESS = 10, REFUSED_NONE, REFUSED_OPEN, REFUSED_LINK, REFUSED_KIND,
       REFUSED_OWNER, REFUSED_OLD, REFUSED_SIZE };

const char *ujit_why(int status)
{
	switch (status) {
	case REFUSED_PROCESS:
		return "not read: the process is gone";
	case REFUSED_NONE:
		return "not read: there is none";
	case REFUSED_OPEN:
		return "not read: it cannot be opened";
	case REFUSED_LINK:
		return "not read: it is a symbolic link, or one is on its path";
	case REFUSED_KIND:
		return "not read: it is not a regular file";
	case REFUSED_OWNER:
		return "not read: its owner is not the process's user";
	case REFUSED_OLD:
		return "not read: it is older than the process (another's)";
	case REFUSED_SIZE:
		return "not read: it is larger than " UJITMAP_FILE_MAX_TEXT;
	}
	return NULL;
}

/* Whether R's process is the one /proc/PID is now: its start time, clock ticks since
 * boot (/proc/PID/stat's 22nd field; the 2nd, the name, in parentheses), is the one the
 * module gave in ns. */
static bool same_process(const UJitRequest *r)
{
	char name[64], buf[1024];
	snprintf(name, sizeof(name), "/proc/%d/stat", r->pid);
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	unsigned long long start;
	long hz = sysconf(_SC_CLK_TCK);
	if (!p || hz <= 0 || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
				    "%*u %*d %*d %*d %*d %*d %*d %llu", &start) != 1)
		return false;
	return start == r->start_ns / (1000000000ULL / (unsigned long long)hz);
}

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

/* Whether a file last written at MTIME (ns since the epoch) was written after a second
 * before the process started (ns since boot). */
static bool newer_than_process(uint64_t mtime, const UJitRequest *r)
{
	struct timespec real, boot;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	uint64_t booted = ns_of(&real) - ns_of(&boot);      /* the epoch's ns at boot */
	return mtime >= booted && mtime - booted + 1000000000ULL >= r->start_ns;
}

void ujit_reader(const UJitRequest *r, int out)
{
	char name[64];
	snprintf(name, sizeof(name), "/proc/%d/root", r->pid);
	int root = open(name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || !same_process(r))
		_exit(REFUSED_PROCESS);
	snprintf(name, sizeof(name), "tmp/perf-%d.map", r->nspid);
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int pfd = (int)syscall(SYS_openat2, root, name, &how, sizeof(how));
	close(root);
	struct stat st;
	struct statfs fs;
	if (pfd < 0)
		_exit(errno == ENOENT ? REFUSED_NONE : errno == ELOOP ? REFUSED_LINK : REFUSED_OPEN);
	if (fstat(pfd, &st))
		_exit(REFUSED_OPEN);
	if (fstatfs(pfd, &fs) || fs.f_type == FUSE_SUPER_MAGIC)
		_exit(2);       /* usyms.c's READER_FUSE */
	if (S_ISLNK(st.st_mode))        /* (O_PATH | O_NOFOLLOW opens the link itself) */
		_exit(REFUSED_LINK);
	if (!S_ISREG(st.st_mode))
		_exit(REFUSED_KIND);
	if (st.st_uid != r->uid)
		_exit(REFUSED_OWNER);
	if (st.st_size > UJITMAP_FILE_MAX)
		_exit(REFUSED_SIZE);
	if (!newer_than_process(ns_of(&st.st_mtim), r))
		_exit(REFUSED_OLD);
	uint64_t mtime = ns_of(&st.st_mtim);
	if ((uint64_t)st.st_size == r->size && mtime == r->mtime)
		answer_exit(out, r, HWTAP_USYMS_SAME);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", pfd);
	int fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st2;
	if (fd < 0 || fstat(fd, &st2) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino)
		_exit(REFUSED_OPEN);
	close(pfd);
	if (usyms_confine(fd, out, -1))
		_exit(1);
	/* what it has now, up to the bound (a JIT appends while this reads) */
	size_t cap = (size_t)st.st_size + 4096, len = 0;
	if (cap > UJITMAP_FILE_MAX)
		cap = UJITMAP_FILE_MAX;
	char *text = malloc(cap ? cap : 1);
	if (!text)
		answer_exit(1, r, HWTAP_USYMS_NONE);
	for (ssize_t n; len < cap && ((n = read(0, text + len, cap - len)) > 0 ||
				      (n < 0 && errno == EINTR));)
		len += n > 0 ? (size_t)n : 0;
	USymTab t;
	if (ujitmap_parse(text, len, &t))
		answer_exit(1, r, HWTAP_USYMS_NONE);
	_exit(usyms_answer(1, r->id, HWTAP_USYMS_OK, &t, NULL, (uint64_t[]){ mtime, len }) ? 1 : 0);
}
