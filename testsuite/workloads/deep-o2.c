/* deep-o2.c - a call chain built as Debian builds its programs (-O2 -g, position
 * independent, linked with the C library; GCC then keeps no frame pointers), for
 * backtraces that must unwind by the call frame information: main() calls run_phase(),
 * which calls mid(), which calls hot_spin(), a leaf that spins until MS milliseconds of
 * the process's CPU time have passed; none inlined, and each does work of its own after
 * the call (so that no call becomes a jump). With SIGNAL, hot_spin() runs inside a
 * SIGALRM handler instead, raised by mid(): the chain then goes through the signal frame.
 *   deep-o2 [MS [signal]]         (1000 ms)
 */
// cflags: -O2 -g -fPIE -pie -fomit-frame-pointer
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long until;
volatile unsigned long rounds;

static long cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) void hot_spin(void)
{
	for (;;) {
		for (unsigned long i = 0; i < (1UL << 20); i++)
			rounds++;
		if (cpu_ms() >= until)
			return;
	}
}

__attribute__((noinline)) void on_alarm(int sig)
{
	(void)sig;
	hot_spin();
	rounds++;
}

__attribute__((noinline)) unsigned long mid(int sig)
{
	if (sig)
		raise(SIGALRM);
	else
		hot_spin();
	return rounds + 1;
}

__attribute__((noinline)) unsigned long run_phase(int sig)
{
	unsigned long r = mid(sig);
	return r * 3 + rounds;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	int sig = argc > 2 && !strcmp(argv[2], "signal");
	if (sig)
		signal(SIGALRM, on_alarm);
	until = cpu_ms() + ms;
	unsigned long r = run_phase(sig);
	printf("%lu\n", r & 1);
	return 0;
}
