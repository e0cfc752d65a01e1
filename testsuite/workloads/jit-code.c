/* jit-code.c - a JIT as the profilers see one: it writes a loop's machine code into
 * anonymous memory, made executable with mprotect() (W^X, as V8 does), runs it for MS
 * milliseconds and keeps a perf map, /tmp/perf-PID.map, as Node's --perf-basic-prof writes
 * it: a line "START SIZE NAME" per function, hex, the name with spaces in it. An older line
 * comes first, for code that was there before (LazyCompile:~stale), overlapping the hot
 * loop: the newer line, the loop's, is the one that names it.
 *   jit-code MS [late|other|old|link|plain|many]
 * late: the map is written 1.5 s after the code starts running; plain: without the older
 * line (perf names an address after the line that starts nearest below it, older or
 * not: stacks.exp's oracle needs a map both read alike); many: a new copy of the loop
 * every 250 ms, eight in all, each with its own line appended as it is made
 * ("LazyCompile:*loopN jit.js:N:1"), as a JIT warming up compiles one after another;
 * other: the map belongs to
 * another user (uid 65534); old: its time is an hour before the process started; link:
 * /tmp/perf-PID.map is a symbolic link to the map written elsewhere. Built statically
 * by runok.exp (-O2, no frame pointers, like Debian's) and copied into the guest as
 * /root/jit-code; x86-64 and arm64. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HOT 0x40                /* the loop's offset in the code page */

/* The loop keeps a frame record, as V8's code does (its frames are what its unwinding
 * and the profilers' frame pointer walks follow). */
#if defined(__x86_64__)
/* push %rbp; mov %rsp,%rbp; mov %rdi,%rax; 1: dec %rax; jnz 1b; pop %rbp; ret */
static const unsigned char loop[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0x48, 0xff,
				      0xc8, 0x75, 0xfb, 0x5d, 0xc3 };
#elif defined(__aarch64__)
/* stp x29, x30, [sp, #-16]!; mov x29, sp; 1: subs x0, x0, #1; b.ne 1b;
 * ldp x29, x30, [sp], #16; ret */
static const uint32_t loop[] = { 0xa9bf7bfd, 0x910003fd, 0xf1000400, 0x54ffffe1,
				 0xa8c17bfd, 0xd65f03c0 };
#else
#error "jit-code: x86-64 and arm64 only"
#endif

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_map(const char *mode, uintptr_t code)
{
	char path[64], real[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	snprintf(real, sizeof(real), "/tmp/jit-code-%d.map", (int)getpid());
	int link_mode = !strcmp(mode, "link");
	FILE *f = fopen(link_mode ? real : path, "w");
	if (!f) {
		perror("jit-code: the map");
		exit(1);
	}
	/* the older line first: code that was at HOT + 4 once */
	if (strcmp(mode, "plain"))
		fprintf(f, "%lx 10 LazyCompile:~stale jit.js:1:1\n", (unsigned long)(code + HOT + 4));
	fprintf(f, "%lx %zx LazyCompile:*hotLoop jit.js:3:17\n", (unsigned long)(code + HOT),
		sizeof(loop));
	fflush(f);
	if (!strcmp(mode, "other") && fchown(fileno(f), 65534, 65534)) {
		perror("jit-code: fchown");
		exit(1);
	}
	if (!strcmp(mode, "old")) {
		struct timespec t[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };
		if (futimens(fileno(f), t)) {
			perror("jit-code: futimens");
			exit(1);
		}
	}
	fclose(f);
	if (link_mode && symlink(real, path)) {
		perror("jit-code: symlink");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 3000;
	const char *mode = argc > 2 ? argv[2] : "";
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("jit-code: mmap");
		return 1;
	}
	memcpy(code + HOT, loop, sizeof(loop));
	__builtin___clear_cache((char *)code, (char *)code + 4096);
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC)) {
		perror("jit-code: mprotect");
		return 1;
	}
	if (!strcmp(mode, "many")) {
		if (mprotect(code, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
			return 1;
		for (int k = 0; k < 8; k++) {
			unsigned char *at = code + HOT + k * 0x40;
			char path[64];
			memcpy(at, loop, sizeof(loop));
			__builtin___clear_cache((char *)at, (char *)at + sizeof(loop));
			snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
			FILE *f = fopen(path, "a");
			if (!f)
				return 1;
			fprintf(f, "%lx %zx LazyCompile:*loop%d jit.js:%d:1\n", (unsigned long)at,
				sizeof(loop), k, k);
			fclose(f);
			long (*fn)(long) = (long (*)(long))at;
			for (double until = now() + ms / 8000; now() < until;)
				fn(100000);
		}
		return 0;
	}
	long (*hot)(long) = (long (*)(long))(code + HOT);
	double start = now(), end = start + ms / 1000;
	int written = 0;
	if (strcmp(mode, "late")) {
		write_map(mode, (uintptr_t)code);
		written = 1;
	}
	while (now() < end) {
		hot(1000000);
		if (!written && now() >= start + 1.5) {
			write_map(mode, (uintptr_t)code);
			written = 1;
		}
	}
	return 0;
}
