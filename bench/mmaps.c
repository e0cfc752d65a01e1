/* bench/mmaps.c - a workload that is mostly mappings of a file, for what a session that
 * names user addresses costs per mmap (it follows them: runtime/usyms.c): maps its own
 * file (4 KiB, readable and executable) and unmaps it COUNT times, and prints "COUNT
 * CPU_NS": the count and the thread's CPU time per mmap+munmap, in nanoseconds. Built
 * statically by bench/mmaps.sh to run in the guest.
 *   mmaps [COUNT [OUT]]    (default 10000; the line goes to OUT when given) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	int fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0 || (argc > 2 && !freopen(argv[2], "w", stdout))) {
		perror("mmaps");
		return 1;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (long i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		munmap(p, 4096);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%ld %.1f\n", n, ns / n);
	return 0;
}
