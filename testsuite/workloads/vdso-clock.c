/* vdso-clock.c - a workload whose time is in the vDSO: ROUNDS calls of clock_gettime() with
 * CLOCK_MONOTONIC_COARSE, which the vDSO answers without a system call whatever the
 * clock source (the coarse clocks read the kernel's last tick from the vvar page), from
 * main() through a function of its own, built -O2 without frame pointers like Debian's.
 *   vdso-clock ROUNDS
 * Built statically by runok.exp (glibc's static programs use the vDSO too) and copied into
 * the guest as /root/vdso-clock. */
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static long read_clocks(long rounds)
{
	struct timespec ts;
	long sum = 0;

	for (long i = 0; i < rounds; i++) {
		clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
		sum += ts.tv_nsec & 1;
	}
	return sum;
}

int main(int argc, char **argv)
{
	return read_clocks(argc > 1 ? atol(argv[1]) : 1000000) < 0;
}
