/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbols.h - the kernel's names for code addresses, and the kernel backtrace of what a
 * probe interrupted: symname(), symdata(), backtrace(), print_backtrace() and
 * sprint_backtrace() (tapset/symbols.stp, whose embedded C includes this).
 *
 * Names come from kallsyms through sprint_symbol(), which is exported: the core kernel's
 * symbols and those of loaded modules, "name+0xoff/0xsize [module]". A lookup takes no
 * lock that can wait, so it runs in any probe context.
 *
 * Backtraces: x86 exports its unwinder (__unwind_start, unwind_next_frame,
 * unwind_get_return_address). From the registers a perf sample or a timer interrupted, it
 * walks the interrupted kernel code's own stack, the way perf's callchains do. Elsewhere
 * (arm64) stack_trace_save() walks from the handler itself; its frames down to the
 * interrupted address are dropped when that address is found among them. A sample of
 * user-mode code has no kernel backtrace. At most MAXBACKTRACE frames (20, as SystemTap).
 */
#ifndef HWTAP_SYMBOLS_H
#define HWTAP_SYMBOLS_H

#include <linux/kallsyms.h>

#include "fold.h"
#include <linux/stacktrace.h>
#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif

#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif

/* ADDR as sprint_symbol() (WITH_OFFSET) or sprint_symbol_no_offset() writes it, in the
 * scratch buffer of this CPU's context level (preemption is off in probe handlers). */
static const char *_hwtap_symbol(unsigned long addr, bool with_offset)
{
	char *buf = this_cpu_ptr(_hwtap_scratch)->msg[interrupt_context_level()];

	BUILD_BUG_ON(HWTAP_MESSAGE_MAX < KSYM_SYMBOL_LEN);
	if (with_offset)
		sprint_symbol(buf, addr);
	else
		sprint_symbol_no_offset(buf, addr);
	return buf;
}

#ifdef CONFIG_X86
static int _hwtap_unwind(struct pt_regs *regs, unsigned long *pcs, int max)
{
	struct unwind_state state;
	int n = 0;

	if (regs) {
		pcs[n++] = instruction_pointer(regs);
		/* registers saved by an interrupt, or made up by perf for a software event */
		if (regs->flags & X86_EFLAGS_FIXED)
			unwind_start(&state, current, regs, NULL);
		else
			unwind_start(&state, current, NULL, (void *)kernel_stack_pointer(regs));
	} else {
		unwind_start(&state, current, NULL, NULL);
	}
	for (; n < max && !unwind_done(&state); unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		pcs[n++] = addr;
	}
	return n;
}
#else
static int _hwtap_unwind(struct pt_regs *regs, unsigned long *pcs, int max)
{
	unsigned int i, n = stack_trace_save(pcs, max, 0);

	for (i = 0; regs && i < n; i++)
		if (pcs[i] == instruction_pointer(regs)) {
			memmove(pcs, pcs + i, (n - i) * sizeof(*pcs));
			return n - i;
		}
	return n;
}
#endif

/* The kernel return addresses of the probe's context into PCS (at most MAX): the
 * interrupted code's when REGS are there, else the handler's callers. */
static int _hwtap_backtrace(struct pt_regs *regs, unsigned long *pcs, int max)
{
	if (regs && user_mode(regs))
		return 0;
	return _hwtap_unwind(regs, pcs, max);
}

/* fold.h's namer for kernel frames: "name_[k]", as perf's folding marks them. */
static __maybe_unused int _hwtap_fold_kernel(char *buf, size_t room, unsigned long pc,
					     void *arg)
{
	const char *s = _hwtap_symbol(pc, false);

	return snprintf(buf, room, "%.*s_[k]", (int)strcspn(s, " "), s);
}

#endif /* HWTAP_SYMBOLS_H */
