/* touch-pages.c - a workload that knows its own page faults: writes one byte to each page
 * of a fresh anonymous mapping, so that each page is one fault (no transparent huge
 * pages), PAGES of them, then exits. Besides those, a static program faults only a few
 * dozen times while it starts.
 *   touch-pages PAGES
 * Built statically by runok.exp and copied into the guest as /root/touch-pages. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
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
	return 0;
}
