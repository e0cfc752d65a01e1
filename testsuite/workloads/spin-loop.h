/* spin-loop.h - SPIN_LOOP(n): n rounds of a loop of two instructions (subtract and
 * branch), n > 0, for the workloads that know their instruction counts (spin-insns.c,
 * fn-calls.c's spin()). A macro: the same two instructions wherever it is written. */
#if defined(__aarch64__)
#define SPIN_LOOP(n) __asm__ volatile("1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc")
#elif defined(__x86_64__)
#define SPIN_LOOP(n) __asm__ volatile("1:\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc")
#else
#error "spin-loop.h: no loop for this architecture"
#endif
