/* bench/ucalls.c - a workload that is mostly calls of one small function, for the cost of
 * a uprobe on it: calls target() CALLS times and prints "CALLS CPU_NS": the number of
 * calls and the thread's CPU time per call, in nanoseconds. Built statically with -g by
 * bench/uprobes.sh (with frame pointers: its backtrace case) to run in the guest; built
 * with -DKCALLS by bench/kprobes.sh, it makes the getppid() system call instead (the
 * kernel's __x64_sys_getppid), for the cost of a kprobe; with -DDEEP by bench/ustacks.sh,
 * it calls target() ten calls deep, for the cost of a user backtrace.
 *   ucalls [CALLS [OUT]]    (default 100000 calls; the line goes to OUT when given) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef KCALLS
#define CALL(i) syscall(SYS_getppid)    /* not glibc's cached getppid(): a real call */
#elif defined(DEEP)
#define CALL(i) deep10(i)
#else
#define CALL(i) target(i)
#endif

__attribute__((noinline)) long target(long i)
{
	__asm__ volatile("" : "+r"(i));     /* a call the compiler keeps */
	return i * 3 + 1;
}

#ifdef DEEP
/* -DDEEP (bench/ustacks.sh): target() called ten calls deep, each frame a function of its
 * own that does work after the call (no call becomes a jump) */
#define LEVEL(name, callee) \
	__attribute__((noinline)) long name(long i) { return callee(i + 1) ^ i; }
LEVEL(deep1, target)
LEVEL(deep2, deep1)
LEVEL(deep3, deep2)
LEVEL(deep4, deep3)
LEVEL(deep5, deep4)
LEVEL(deep6, deep5)
LEVEL(deep7, deep6)
LEVEL(deep8, deep7)
LEVEL(deep9, deep8)
LEVEL(deep10, deep9)
#endif

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
		sum += CALL(i);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%ld %.1f\n", calls, ns / calls);
	return sum == 42;       /* uses sum */
}
