/* fn-calls.c - a program for process("PATH").function probes: functions called a known
 * number of times with known arguments, of the kinds of values $variables read (ints,
 * longs, chars, pointers, structures, arrays, strings), one that faults in a known
 * number of pages per call, one that recurses, and one that another thread calls too.
 *   fn-calls [ROUNDS [PAGES [SPINS [NAP_MS [fork|- [THREADS]]]]]]
 *                  (3 rounds of 4 pages, no spins, no nap, no fork, no busy threads)
 * Round i (from 1) calls add(i, 10 * i), scale(&pt, i) with pt = {i, 2 * i, "pt", "tag"},
 * sum(v, 4) with v = {i, i + 1, i + 2, i + 3}, greet("hello") and fresh(PAGES), which
 * writes to each page of a new mapping (PAGES page faults), then fact(4) recursing to
 * fact(1), then spin(SPINS): SPINS rounds of a loop of two instructions (2 x SPINS user
 * instructions and a few of its own). At the end, nap(NAP_MS) sleeps that long in a
 * function (a script can end while the program is in it) and another thread calls
 * add(100, 200). With "fork", it forks first, and the child does all that too (its output
 * first: the parent waits for it). THREADS threads then each call fact(6) 1000 times, all
 * at once (a probed function that recurses in many threads). It prints what it passed
 * and got, so probes can be checked against it. The library functions fresh() calls run
 * once before: its calls fault on their pages alone.
 * Built with -O0 -g (the line below), statically, by runok.exp: /root/fn-calls there;
 * fn-calls-pie.c is the same program, position independent and dynamically linked.
 */
// cflags: -O0 -g -static -pthread
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spin-loop.h"

struct point {
	int x, y;
	const char *name;
	char tag[8];
	struct point *next;
};

enum color { RED, GREEN = 5, BLUE = -1 };

int add_calls;                  /* a variable of the unit: at a static address */

int add(int a, int b)
{
	int sum = a + b;
	add_calls++;
	return sum;
}

long scale(struct point *p, long k)
{
	return (long)(p->x + p->y) * k;
}

int sum(int *v, int n)
{
	int total = 0;
	/* a line without code: statement("sum@fn-calls.c+3").nearest is the loop's next */
	for (int i = 0; i < n; i++)
		total += v[i];
	return total;
}

unsigned char greet(const char *who, enum color c, char initial, short small)
{
	return (unsigned char)(strlen(who) + c + initial + small);
}

long fresh(long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, pages * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
	munmap(p, pages * page);
	return pages;
}

int fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

unsigned long spin(unsigned long n)
{
	if (!n)
		return 0;
	SPIN_LOOP(n);
	return n;
}

int nap(int ms)
{
	usleep(ms * 1000);
	return ms;
}

static void *other(void *arg)
{
	(void)arg;
	return (void *)(long)add(100, 200);
}

static void *busy(void *arg)
{
	long total = 0;
	for (int i = 0; i < 1000; i++)
		total += fact(6);
	*(long *)arg = total;
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	long pages = argc > 2 ? atol(argv[2]) : 4;
	unsigned long spins = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
	int ms = argc > 4 ? atoi(argv[4]) : 0;
	pid_t child = argc > 5 && !strcmp(argv[5], "fork") ? fork() : -1;
	if (child > 0)
		waitpid(child, NULL, 0);
	/* the library code fresh() runs, paged in first: its calls fault on their pages only */
	long page = sysconf(_SC_PAGESIZE);
	void *warm = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (warm != MAP_FAILED) {
		madvise(warm, page, MADV_NOHUGEPAGE);
		munmap(warm, page);
	}
	for (int i = 1; i <= rounds; i++) {
		struct point pt = {i, 2 * i, "pt", "tag", NULL};
		int v[4] = {i, i + 1, i + 2, i + 3};
		printf("add(%d, %d) = %d\n", i, 10 * i, add(i, 10 * i));
		printf("scale(%d %d %s %s, %d) = %ld\n", pt.x, pt.y, pt.name, pt.tag, i,
		       scale(&pt, i));
		printf("sum(%d..%d) = %d\n", v[0], v[3], sum(v, 4));
		printf("greet = %d\n", greet("hello", GREEN, 'h', -2));
		printf("fresh(%ld) = %ld\n", pages, fresh(pages));
		printf("fact(4) = %d\n", fact(4));
		printf("spin(%lu) = %lu\n", spins, spin(spins));
	}
	if (ms > 0)
		printf("nap(%d) = %d\n", ms, nap(ms));
	pthread_t t;
	void *r;
	if (!pthread_create(&t, NULL, other, NULL) && !pthread_join(t, &r))
		printf("thread add = %ld\n", (long)r);
	int nbusy = argc > 6 ? atoi(argv[6]) : 0;
	pthread_t ts[64];
	long totals[64];
	if (nbusy > 64)
		nbusy = 64;
	for (int i = 0; i < nbusy; i++)
		if (pthread_create(&ts[i], NULL, busy, &totals[i]))
			return 1;
	for (int i = 0; i < nbusy; i++) {
		pthread_join(ts[i], NULL);
		printf("busy thread %d: %ld\n", i, totals[i]);
	}
	return 0;
}
