/* bench/faults.c - a workload that raises page faults at a steady pace: maps an anonymous
 * region, touches each page once (a minor fault each), unmaps it; ROUNDS times. Prints
 * the nanoseconds per fault. Built statically by bench/profile.sh to run in the guest.
 *   faults [MB [ROUNDS]]   (default 16 MB, 8 rounds) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long mb = argc > 1 ? atol(argv[1]) : 16, rounds = argc > 2 ? atol(argv[2]) : 8;
	long page = sysconf(_SC_PAGESIZE), len = mb << 20, faults = 0;
	double t0 = now_ns();
	for (long r = 0; r < rounds; r++) {
		volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("faults: mmap");
			return 1;
		}
		for (long off = 0; off < len; off += page, faults++)
			p[off] = 1;
		munmap((void *)p, len);
	}
	printf("%.0f\n", (now_ns() - t0) / faults);
	return 0;
}
