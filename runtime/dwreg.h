/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwreg.h - a DWARF register's value from the registers a trap saved: what the code
 * translator/target/dwarf.c generates reads a variable with, in a uprobe's handler (the task's
 * user registers) and in a kprobe's at a kernel.statement or DWARF kernel.function point
 * (the kernel's, at the probed instruction; regs->ip is past the breakpoint there, which
 * no variable's location uses).
 */
#ifndef HWTAP_DWREG_H
#define HWTAP_DWREG_H

#include <linux/ptrace.h>

/* DWARF register N, from the registers the trap saved. */
static __always_inline unsigned long _hwtap_dwreg(struct pt_regs *regs, int n)
{
#if defined(CONFIG_X86_64)
	switch (n) {
	case 0: return regs->ax;
	case 1: return regs->dx;
	case 2: return regs->cx;
	case 3: return regs->bx;
	case 4: return regs->si;
	case 5: return regs->di;
	case 6: return regs->bp;
	case 7: return regs->sp;
	case 8: return regs->r8;
	case 9: return regs->r9;
	case 10: return regs->r10;
	case 11: return regs->r11;
	case 12: return regs->r12;
	case 13: return regs->r13;
	case 14: return regs->r14;
	case 15: return regs->r15;
	case 16: return regs->ip;
	}
#elif defined(CONFIG_ARM64)
	if (n >= 0 && n < 31)
		return regs->regs[n];
	if (n == 31)
		return regs->sp;
#endif
	return 0;
}

#endif /* HWTAP_DWREG_H */
