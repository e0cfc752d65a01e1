/* spin-insns.c - a workload that knows its own instructions: ROUNDS rounds of a loop of
 * two instructions (subtract and branch), then exits. Its user-mode instructions are
 * 2 x ROUNDS plus the start-up and exit of a static program (some thousands), the same
 * in every run.
 *   spin-insns ROUNDS
 * Built statically by runok.exp and copied into the guest as /root/spin-insns. */
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;

	if (!n)
		return 0;
#if defined(__aarch64__)
	__asm__ volatile("1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("1:\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
#error "spin-insns: no loop for this architecture"
#endif
	return 0;
}
