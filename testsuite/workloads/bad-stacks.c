/* bad-stacks.c - user stacks an unwinder must survive, each spun in for MS milliseconds
 * of wall time (x86-64 only; elsewhere it only sleeps):
 *   bad-stacks unmapped [MS]  spin_unmapped_sp(): the stack pointer at 0x10 (nothing is
 *                             mapped there) while it spins, touching no memory; its
 *                             unwind rows say the return address is at the stack pointer
 *   bad-stacks loop [MS]      spin_fp_loop(): code without call frame information (no
 *                             FDE: frame pointers there) whose frame pointer points at a
 *                             frame record on the stack whose saved frame pointer is
 *                             itself and whose return address is the spinning loop
 * No signal may come while the stack pointer is bad: nothing else touches the process.
 */
// cflags: -O2 -g -static
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* rdi: rounds. Sets rsp to 0x10, counts rdi down, puts rsp back. */
__asm__(".text\n"
	".globl spin_unmapped_sp\n"
	".type spin_unmapped_sp, @function\n"
	"spin_unmapped_sp:\n"
	".cfi_startproc\n"
	"	mov %rsp, %rax\n"
	"	mov $0x10, %rsp\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	mov %rax, %rsp\n"
	"	ret\n"
	".cfi_endproc\n"
	".size spin_unmapped_sp, .-spin_unmapped_sp\n"
	/* rdi: rounds, rsi: a 16-byte record. No .cfi_startproc: no FDE. */
	".globl spin_fp_loop\n"
	".type spin_fp_loop, @function\n"
	"spin_fp_loop:\n"
	"	push %rbp\n"
	"	mov %rsi, %rbp\n"
	"	mov %rsi, (%rsi)\n"
	"	lea 2f(%rip), %rax\n"
	"	mov %rax, 8(%rsi)\n"
	"2:	dec %rdi\n"
	"	jnz 2b\n"
	"	pop %rbp\n"
	"	ret\n"
	".size spin_fp_loop, .-spin_fp_loop\n");
void spin_unmapped_sp(unsigned long rounds);
void spin_fp_loop(unsigned long rounds, void *record);
#endif

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "unmapped";
	long until = now_ms() + (argc > 2 ? atol(argv[2]) : 1000);
	unsigned long record[2] __attribute__((aligned(16)));  /* on the stack, above it */
	while (now_ms() < until) {
#if defined(__x86_64__)
		if (!strcmp(mode, "loop"))
			spin_fp_loop(1UL << 22, record);
		else
			spin_unmapped_sp(1UL << 22);
#else
		usleep(1000);
#endif
	}
	return 0;
}
