/* spin-threads.c - a workload whose threads, not its main thread, use the CPU: starts
 * THREADS threads that spin for SECONDS each, then waits for them (asleep). A counter of
 * the process that misses its threads sees almost nothing.
 *   spin-threads THREADS SECONDS
 * Built statically by the testsuite (lib/hwtap.exp's hwtap_workloads) and copied into the
 * guest as /root/spin-threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	double end = now() + seconds;
	volatile unsigned long n = 0;

	(void)arg;
	while (now() < end)
		n++;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t[64];

	seconds = argc > 2 ? atof(argv[2]) : 1;
	if (threads < 1 || threads > 64) {
		fprintf(stderr, "spin-threads: 1 to 64 threads\n");
		return 2;
	}
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, spin, NULL)) {
			perror("spin-threads: pthread_create");
			return 1;
		}
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
