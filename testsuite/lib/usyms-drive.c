/* usyms-drive.c - runs hwtap-run's symbol server (loader/usyms.c) as its relay does, with a
 * socket pair in place of the module's /proc/hwtap_NAME/usyms, for usyms.exp.
 *
 *   usyms-drive [-f] [-p PID] [-n NAME] FILE...
 *   usyms-drive [-n NAME] [-l] [-a] [-T] -j PID
 *
 * asks for each FILE's symbols, and with -f its unwind rows (a request as runtime/udyn.c
 * writes one, for process PID,
 * this one by default, and a mapping it does not have, so the reader opens the path), serves until every one
 * is answered, and prints for each "answer K: STATUS[, symbols][, unwind rows][, names NAME]" (NAME:
 * whether the answer names it; "names NAME (demangled, of RAW)": as a symbol RAW's
 * demangled name), then "relay: longest step under 100 ms" (or how long
 * the longest usyms_serve() call took), "relay: memory under 64 MiB" (or this process's
 * peak RSS), "readers: memory under 256 MiB" (or the readers' largest peak RSS), and
 * "answers: in under 1 s" (or how many whole seconds they took). The server's -v
 * messages go to stderr.
 * -j PID asks for process PID's perf map instead (a request as runtime/ujit.c writes one:
 * its uid and start time from /proc/PID, -T a start a second later: another process),
 * -a then asks again with the size and time the first answer read, -l lists an OK
 * answer's symbols, "  START SIZE NAME" each. */
#define _GNU_SOURCE
#include "loader.h"
#include "../runtime/protocol.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t word(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int list;

/* A perf map's answer (the header's NSEGS and NFRAMES words are the map's time and
 * size), as usyms-drive prints it; *SIZE and *MTIME those words. */
static void print_jit_answer(const unsigned char *a, size_t len, const char *name,
			     uint64_t *size, uint64_t *mtime)
{
	static const char *const statuses[] = { "OK", "NONE", "GONE", "SAME" };
	const size_t hdr = HWTAP_USYMS_HDR_WORDS * 8, sym = HWTAP_USYMS_SYM_WORDS * 8;
	uint64_t id = word(a + 8), status = word(a + 16), nsyms = word(a + 32);
	uint64_t names_len = word(a + 40);
	*mtime = word(a + 24);
	*size = word(a + 48);
	printf("answer %llu: %s", (unsigned long long)(id - HWTAP_USYMS_JIT_ID),
	       status < 4 ? statuses[status] : "(bad status)");
	size_t want = hdr + nsyms * sym + names_len;
	if (len != want) {
		printf(", %zu bytes for %zu\n", len, want);
		return;
	}
	if (nsyms)
		printf(", symbols");
	const char *names = (const char *)a + hdr + nsyms * sym;
	for (uint64_t i = 0; name && i < nsyms; i++) {
		uint64_t off = word(a + hdr + i * sym + 8);
		if (off < names_len && !strcmp(names + off, name)) {
			printf(", names %s", name);
			break;
		}
	}
	printf("\n");
	for (uint64_t i = 0; list && i < nsyms; i++) {
		uint64_t off = word(a + hdr + i * sym + 8);
		printf("  %llx %llx %s\n", (unsigned long long)word(a + hdr + i * sym),
		       (unsigned long long)word(a + hdr + i * sym + 16),
		       off < names_len ? names + off : "?");
	}
}

/* Process PID's euid and start (ns since boot, from its clock ticks): whether known. */
static bool process_of(int pid, unsigned *uid, unsigned long long *start_ns)
{
	char name[64], buf[4096];
	snprintf(name, sizeof(name), "/proc/%d/status", pid);
	FILE *f = fopen(name, "r");
	bool found = false;
	while (f && fgets(buf, sizeof(buf), f))
		found |= sscanf(buf, "Uid: %*u %u", uid) == 1;
	if (f)
		fclose(f);
	snprintf(name, sizeof(name), "/proc/%d/stat", pid);
	f = fopen(name, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	unsigned long long ticks;
	if (!found || !p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
				   "%*u %*d %*d %*d %*d %*d %*d %llu", &ticks) != 1)
		return false;
	*start_ns = ticks * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK));
	return true;
}

static void on_child(int sig)
{
	(void)sig;
}

/* One answer, as usyms-drive prints it. */
static void print_answer(const unsigned char *a, size_t len, const char *name)
{
	static const char *const statuses[] = { "OK", "NONE", "GONE" };
	const size_t hdr = HWTAP_USYMS_HDR_WORDS * 8, sym = HWTAP_USYMS_SYM_WORDS * 8;
	const size_t frame = HWTAP_USYMS_FRAME_WORDS * 8;
	uint64_t id = word(a + 8), status = word(a + 16), nsegs = word(a + 24);
	uint64_t nsyms = word(a + 32), names_len = word(a + 40), nframes = word(a + 48);
	printf("answer %llu: %s", (unsigned long long)id,
	       status < 3 ? statuses[status] : "(bad status)");
	size_t want = hdr + nsegs * 24 + nsyms * sym + nframes * frame + names_len;
	if (len != want) {
		printf(", %zu bytes for %zu\n", len, want);
		return;
	}
	if (nsyms)
		printf(", symbols");
	if (nframes)
		printf(", unwind rows");
	const char *names = (const char *)a + want - names_len;
	for (uint64_t i = 0; name && i < nsyms; i++) {
		uint64_t off = word(a + hdr + nsegs * 24 + i * sym + 8);
		uint64_t demangled = word(a + hdr + nsegs * 24 + i * sym + 24);
		if (off < names_len && !strcmp(names + off, name)) {
			printf(", names %s", name);
			break;
		}
		if (demangled && demangled < names_len && !strcmp(names + demangled, name)) {
			printf(", names %s (demangled, of %s)", name,
			       off < names_len ? names + off : "?");
			break;
		}
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	int pid = getpid(), opt, frames = 0, jit = 0, again = 0, later = 0;
	while ((opt = getopt(argc, argv, "fp:n:j:laT")) != -1) {
		if (opt == 'f')
			frames = 1;
		else if (opt == 'p')
			pid = atoi(optarg);
		else if (opt == 'j')
			jit = atoi(optarg);
		else if (opt == 'l')
			list = 1;
		else if (opt == 'a')
			again = 1;
		else if (opt == 'T')
			later = 1;
		else if (opt == 'n')
			name = optarg;
		else
			return 2;
	}
	int sv[2], big = 256 << 20;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv) ||
	    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big))) {
		perror("usyms-drive: socketpair");
		return 1;
	}
	int asked = 0;
	unsigned uid = 0;
	unsigned long long start_ns = 0;
	char req[HWTAP_USYMS_REQUEST_MAX];
	if (jit && !process_of(jit, &uid, &start_ns)) {
		fprintf(stderr, "usyms-drive: no process %d\n", jit);
		return 1;
	}
	if (jit) {
		start_ns += later ? 1000000000ULL : 0;
		int n = snprintf(req, sizeof(req), "J %llu %d %d %u %llu 0 0",
				 HWTAP_USYMS_JIT_ID + ++asked, jit, jit, uid, start_ns);
		if (write(sv[0], req, n + 1) != n + 1) {
			perror("usyms-drive: request");
			return 1;
		}
	}
	for (int i = optind; !jit && i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		int n = snprintf(req, sizeof(req), "%d %d 1 2 %u %u %llu %d %s", ++asked, pid,
				 major(st.st_dev), minor(st.st_dev),
				 (unsigned long long)st.st_ino, frames, argv[i]);
		if (write(sv[0], req, n + 1) != n + 1) {
			perror("usyms-drive: request");
			return 1;
		}
	}
	sigset_t block, wait_mask;
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	signal(SIGCHLD, on_child);
	USymsServer s;
	usyms_init(&s, "drive", 1);
	static unsigned char a[USYMS_ANSWER_MAX + 1];
	double longest = 0, t0 = now();
	for (int answered = 0; answered < asked;) {
		double t = now();
		if (usyms_serve(&s, sv[1])) {
			perror("usyms-drive: serve");
			return 1;
		}
		t = now() - t;
		longest = t > longest ? t : longest;
		ssize_t n;
		while ((n = read(sv[0], a, sizeof(a))) > 0) {
			uint64_t size, mtime;
			answered++;
			if (!jit) {
				print_answer(a, n, name);
				continue;
			}
			print_jit_answer(a, n, name, &size, &mtime);
			if (again && asked == 1) {     /* the same map asked again */
				int k = snprintf(req, sizeof(req), "J %llu %d %d %u %llu %llu %llu",
						 HWTAP_USYMS_JIT_ID + ++asked, jit, jit, uid,
						 start_ns, (unsigned long long)size,
						 (unsigned long long)mtime);
				if (write(sv[0], req, k + 1) != k + 1) {
					perror("usyms-drive: request");
					return 1;
				}
			}
		}
		if (answered == asked)
			break;
		struct pollfd p[2] = { { .fd = sv[0], .events = POLLIN },
				       { .fd = sv[1], .events = POLLIN } };
		int ms = usyms_timeout_ms(&s);
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
		ppoll(p, 2, ms < 0 ? NULL : &ts, &wait_mask);
	}
	usyms_finish(&s);
	double took = now() - t0;
	if (longest < 0.1)
		printf("relay: longest step under 100 ms\n");
	else
		printf("relay: longest step %.0f ms\n", longest * 1000);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (ru.ru_maxrss < 64 << 10)
		printf("relay: memory under 64 MiB\n");
	else
		printf("relay: memory %ld MiB\n", ru.ru_maxrss >> 10);
	getrusage(RUSAGE_CHILDREN, &ru);
	if (ru.ru_maxrss < 256 << 10)
		printf("readers: memory under 256 MiB\n");
	else
		printf("readers: memory %ld MiB\n", ru.ru_maxrss >> 10);
	if (took < 1)
		printf("answers: in under 1 s\n");
	else
		printf("answers: in %d s\n", (int)took);
	return 0;
}
