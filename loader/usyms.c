/* usyms.c - hwtap-run's answers to a module's requests for the symbols of files processes
 * map (runtime/udyn.c; the exchange is runtime/protocol.h's /proc/hwtap_NAME/usyms).
 *
 * Every file named in a request is a local user's to shape, and hwtap-run is root: a file
 * is opened only as the very inode the module holds (its device and inode number checked
 * on what was opened), through /proc/PID/map_files (the mapping itself), else through
 * the path it had, opened O_PATH first (no device or FIFO is ever opened for reading)
 * and reopened only once it is known to be that regular file; it is read with read(),
 * never mapped (a file truncated meanwhile ends the reading, not hwtap-run with SIGBUS),
 * and libelf's checks stand between its bytes and the answer. Not read: files over
 * USYMS_FILE_MAX bytes, symbol tables over USYMS_SYMS_MAX entries, and files on FUSE file
 * systems (their reads are answered by a process that may never answer: the relay of the
 * session's output would wait with them). */
#define _GNU_SOURCE             /* O_PATH */
#include "loader.h"
#include "usymtab.h"
#include "../runtime/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define USYMS_FILE_MAX (1LL << 31)
#define USYMS_SYMS_MAX (1 << 22)
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif

typedef struct {
	unsigned long long id;
	int pid;
	unsigned long start, end;
	unsigned major, minor;
	unsigned long long ino;
	const char *path;
} Request;

/* Whether FD is the regular file R names. */
static bool is_file(int fd, const Request *r)
{
	struct stat st;
	return !fstat(fd, &st) && S_ISREG(st.st_mode) && major(st.st_dev) == r->major &&
	       minor(st.st_dev) == r->minor && (unsigned long long)st.st_ino == r->ino &&
	       st.st_size <= USYMS_FILE_MAX;
}

/* Whether the file at FD may be read: not on a FUSE file system (a process of the user
 * who mounted it answers its reads, and could make them wait for ever), its symbol tables
 * within what a module takes (runtime/udyn.c's HWTAP_UDYN_SYMS_MAX). */
static bool readable(int fd, Elf *elf)
{
	struct statfs fs;
	if (fstatfs(fd, &fs) || fs.f_type == FUSE_SUPER_MAGIC)
		return false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    sh.sh_entsize && sh.sh_size / sh.sh_entsize > USYMS_SYMS_MAX)
			return false;
	}
	return true;
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

static void put64(unsigned char **p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*(*p)++ = (unsigned char)(v >> (8 * i));
}

/* The answer to R: written, or -1 with errno. */
static int answer(int ufd, const Request *r)
{
	uint64_t status = HWTAP_USYMS_GONE;
	USymTab t = {0};
	int fd = open_file(r);
	if (fd >= 0) {
		status = HWTAP_USYMS_NONE;
		Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
		/* no symbols but segments (stripped, or its section headers broken): still a
		 * module, which umodname() and usymdata() name */
		if (elf && elf_kind(elf) == ELF_K_ELF && readable(fd, elf) && !usymtab_read(elf, &t) &&
		    (t.nsyms || t.nsegs))
			status = HWTAP_USYMS_OK;
		if (elf)
			elf_end(elf);
		close(fd);
	}
	size_t len = HWTAP_USYMS_HDR_WORDS * 8;
	if (status == HWTAP_USYMS_OK)
		len += t.nsegs * 24 + t.nsyms * 16 + t.names_len;
	unsigned char *buf = malloc(len), *p = buf;
	if (!buf) {
		usymtab_free(&t);
		errno = ENOMEM;
		return -1;
	}
	put64(&p, HWTAP_USYMS_MAGIC);
	put64(&p, r->id);
	put64(&p, status);
	put64(&p, status == HWTAP_USYMS_OK ? t.nsegs : 0);
	put64(&p, status == HWTAP_USYMS_OK ? t.nsyms : 0);
	put64(&p, status == HWTAP_USYMS_OK ? t.names_len : 0);
	if (status == HWTAP_USYMS_OK) {
		for (size_t i = 0; i < t.nsegs; i++) {
			put64(&p, t.segs[i].offset);
			put64(&p, t.segs[i].vaddr);
			put64(&p, t.segs[i].size);
		}
		for (size_t i = 0; i < t.nsyms; i++) {
			put64(&p, t.syms[i].addr);
			put64(&p, t.syms[i].name);
		}
		memcpy(p, t.names, t.names_len);
	}
	usymtab_free(&t);
	ssize_t n = write(ufd, buf, len);
	free(buf);
	return n == (ssize_t)len ? 0 : -1;
}

/* One request, "ID PID START END MAJOR MINOR INODE PATH", into R: whether it parses. */
static bool parse(char *s, Request *r)
{
	int used = 0;
	if (sscanf(s, "%llu %d %lx %lx %u %u %llu %n", &r->id, &r->pid, &r->start, &r->end,
		   &r->major, &r->minor, &r->ino, &used) != 7 || !used)
		return false;
	r->path = s + used;
	return true;
}

int usyms_serve(int ufd, const char *session, int verbose)
{
	static unsigned char buf[1 << 16];
	static bool elf_ready;
	if (!elf_ready) {
		elf_version(EV_CURRENT);
		elf_ready = true;
	}
	int served = 0;
	for (;;) {
		ssize_t n = read(ufd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 && errno != EAGAIN ? -1 : served;
		buf[n] = '\0';
		for (char *s = (char *)buf; s < (char *)buf + n; s += strlen(s) + 1) {
			Request r;
			if (!parse(s, &r))
				continue;
			if (answer(ufd, &r) && verbose) {
				int err = errno;
				Buf path = {0};        /* anybody's bytes: quoted and escaped */
				buf_json_string(&path, r.path, strlen(r.path));
				buf_add(&path, "", 1);
				fprintf(stderr, "hwtap-run: session %s: the symbols of %s: %s\n", session,
					path.p, strerror(err));
				free(path.p);
			}
			served++;
		}
	}
}
