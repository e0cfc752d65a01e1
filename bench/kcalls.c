/* bench/kcalls.c - a workload that is mostly calls of one small kernel function, for the
 * cost of a kprobe on it: makes the getppid() system call CALLS times (the kernel's
 * __x64_sys_getppid, __arm64_sys_getppid) and prints "CALLS CPU_NS": the number of calls
 * and the thread's CPU time per call, in nanoseconds. Built statically by
 * bench/kprobes.sh to run in the guest.
 *   kcalls [CALLS [OUT]]    (default 100000 calls; the line goes to OUT when given) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 100000, sum = 0;
	if (argc > 2 && !freopen(argv[2], "w", stdout)) {
		perror(argv[2]);
		return 1;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (long i = 0; i < calls; i++)
		sum += syscall(SYS_getppid);    /* not glibc's cached getppid(): a real call */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%ld %.1f\n", calls, ns / calls);
	return sum == 42;       /* uses sum */
}
