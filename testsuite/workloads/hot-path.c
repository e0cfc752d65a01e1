/* hot-path.c - a program whose CPU time goes to one function two calls deep, for
 * profiles that name where samples land: main() calls outer(), which calls inner(), which
 * spins until MS milliseconds of the process's CPU time have passed (it looks at the
 * clock every 2^20 rounds: its own loop is nearly all of its time). With THREADS, that
 * many threads do the same at once, each through thread_main() -> outer() -> inner().
 *   hot-path [MS [THREADS]]        (1000 ms, no threads)
 * Built with frame pointers (-fno-omit-frame-pointer), -O0 -g, statically: runok.exp's
 * /root/hot-path; hot-path-pie.c is the same program, position independent and linked
 * with the C library.
 */
// cflags: -O0 -g -static -fno-omit-frame-pointer -pthread
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long ms = 1000;
volatile unsigned long rounds;

static long cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void inner(long until)
{
	for (;;) {
		for (unsigned long i = 0; i < (1UL << 20); i++)
			rounds++;
		if (cpu_ms() >= until)
			return;
	}
}

void outer(long until)
{
	inner(until);
}

void *thread_main(void *arg)
{
	outer(*(long *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 0;
	pthread_t t[64];
	long until;

	if (argc > 1)
		ms = atol(argv[1]);
	if (threads > 64)
		threads = 64;
	until = cpu_ms() + ms * (threads + 1);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, thread_main, &until);
	outer(until);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("hot-path: %lu rounds\n", rounds);
	return 0;
}
