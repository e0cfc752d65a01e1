/* spin-insns.c - a workload that knows its own instructions: ROUNDS rounds of a loop of
 * two instructions (subtract and branch), then exits. Its user-mode instructions are
 * 2 x ROUNDS plus the start-up and exit of a static program (some thousands), the same
 * in every run.
 *   spin-insns ROUNDS
 * Built statically by runok.exp and copied into the guest as /root/spin-insns. */
#include <stdlib.h>

#include "spin-loop.h"

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;

	if (!n)
		return 0;
	SPIN_LOOP(n);
	return 0;
}
