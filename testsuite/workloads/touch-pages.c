/* touch-pages.c - a workload that knows its own page faults: writes one byte to each page
 * of a fresh anonymous mapping, so that each page is one fault (no transparent huge
 * pages), PAGES of them, then exits. Besides those, a static program faults only a few
 * dozen times while it starts. With NESTED, it then runs itself again as a child
 * (fork and exec of /proc/self/exe: touch-pages PAGES NESTED-1) and waits for it: a
 * program that runs itself, as a shell script runs a shell or make runs make.
 *   touch-pages PAGES [NESTED]
 * Built statically by runok.exp and copied into the guest as /root/touch-pages. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 1000, page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p == MAP_FAILED) {
		perror("touch-pages: mmap");
		return 1;
	}
	madvise(p, pages * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
	long nested = argc > 2 ? atol(argv[2]) : 0;
	if (nested <= 0)
		return 0;
	char again[32];
	snprintf(again, sizeof(again), "%ld", nested - 1);
	pid_t child = fork();
	if (child == 0) {
		execl("/proc/self/exe", "touch-pages", argv[1], again, (char *)NULL);
		perror("touch-pages: exec");
		_exit(127);
	}
	int status;
	return child < 0 || waitpid(child, &status, 0) != child || status;
}
