/* bench/faults.c - a workload that is mostly page faults, each as cheap as the kernel makes
 * them: reads one byte of each page of an anonymous region (a minor fault that maps the
 * shared zero page: no page to allocate or clear), then drops the mappings with
 * madvise(MADV_DONTNEED); ROUNDS times. Prints "FAULTS CPU_NS WALL_NS": the number of
 * faults, then the thread's CPU time and the elapsed time per fault, in nanoseconds.
 * Built statically by bench/profile.sh to run in the guest.
 *   faults [PAGES [ROUNDS [OUT]]]   (default 512 pages, 64 rounds; the line goes to OUT
 *                                    when given: bpftrace -c runs no shell to redirect) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 512, rounds = argc > 2 ? atol(argv[2]) : 64;
	if (argc > 3 && !freopen(argv[3], "w", stdout)) {
		perror(argv[3]);
		return 1;
	}
	long page = sysconf(_SC_PAGESIZE), len = pages * page, faults = 0;
	volatile char *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("faults: mmap");
		return 1;
	}
	/* No transparent huge pages: a read fault would map the huge zero page once. */
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	double cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID), wall0 = now_ns(CLOCK_MONOTONIC);
	for (long r = 0; r < rounds; r++) {
		for (long off = 0; off < len; off += page, faults++)
			(void)p[off];
		if (madvise((void *)p, len, MADV_DONTNEED) < 0) {
			perror("faults: madvise");
			return 1;
		}
	}
	double cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	double wall = now_ns(CLOCK_MONOTONIC) - wall0;
	printf("%ld %.1f %.1f\n", faults, cpu / faults, wall / faults);
	return 0;
}
