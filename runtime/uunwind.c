/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uunwind.c - user backtraces: from the registers a probe has, the callers' return
 * addresses, by each file's unwind rows where it has them and by frame pointers where it
 * has not. Included by usyms.c (which finds an address's file and link-time address).
 *
 * The rows come from the files' .eh_frame, made into a table in user space (lib/uframes.c:
 * by the translator for the files it builds in, by hwtap-run's readers for the others),
 * so that Debian's code, built without frame pointers, unwinds whole, as perf's dwarf
 * mode and SystemTap's CFI unwinder unwind it. A row says, from its address on, where
 * the canonical frame address (CFA: the caller's stack pointer) is, SP or FP plus an
 * offset, and where the return address and the caller's frame pointer were saved; a step
 * is a binary search and two or three nofault reads of the user stack. Where a file has
 * no rows (no .eh_frame, a range whose rules the rows do not hold, no file at all: JIT
 * code, the vDSO), a step follows the frame pointer instead: the saved frame pointer and
 * the return address at the frame it points to (x86-64 %rbp, arm64 x29).
 *
 * Bounded: at most the frames asked for (MAXBACKTRACE), each step from a stack pointer to a
 * higher one (but out of a signal frame, whose interrupted stack may be another), every
 * read a nofault copy that fails rather than faults. Any context: NMI, hard IRQ, process.
 */
#ifndef HWTAP_UUNWIND_C
#define HWTAP_UUNWIND_C

/* A frame's registers, as the unwinder carries them up, and the segment the last lookup
 * found (callers are mostly in the same file: no lookup of the mapping again). */
struct hwtap_uframe_regs {
	unsigned long pc, sp, fp;
	unsigned long lr;	/* arm64's link register, while it is still the callee's */
	bool lr_known;
	bool exact;		/* PC is where the frame was stopped, not a return address */
	const struct hwtap_umod *m;	/* [lo, hi) is its, at link-time address + bias */
	unsigned long lo, hi;
	u64 bias;
};

/* The row for R's PC, or NULL: in a file hwtap knows, at or below its link-time address. A
 * return address is looked up one byte before it: the call, which may be a function's
 * last instruction (a call to a function that does not return). */
static const struct hwtap_uframe *_hwtap_uframe_row(struct task_struct *task,
						    struct hwtap_uframe_regs *r)
{
	unsigned long at = r->exact ? r->pc : r->pc - 1;
	const struct hwtap_umod *m = r->m;
	struct hwtap_uwhere w;
	u64 vaddr;
	int i;

	if (!HWTAP_UFRAMES)
		return NULL;
	if (!m || at < r->lo || at >= r->hi) {
		r->m = NULL;
		if (!_hwtap_umap_find(task->mm, at, &w) || !w.vaddr ||
		    !(m = _hwtap_umod(w.mod)) || !m->nframes)
			return NULL;
		r->m = m;
		r->lo = w.lo;
		r->hi = w.hi;
		r->bias = w.bias;
	}
	vaddr = at + r->bias;
	if (vaddr < m->frames[0].addr)
		return NULL;
	i = _hwtap_last_at_or_below(m->frames, m->nframes, sizeof(m->frames[0]), vaddr);
	return &m->frames[i];
}

/* The word a rule of KIND says is at OFF from the CFA or the stack pointer into *V: false
 * when it cannot be read. */
static bool _hwtap_uframe_saved(u8 kind, s16 off, unsigned long cfa, unsigned long sp,
				unsigned long *v)
{
	switch (kind) {
	case HWTAP_UFRAME_REG_CFA:
		return _hwtap_ucopy(v, cfa + off, sizeof(*v));
	case HWTAP_UFRAME_REG_SP:
		return _hwtap_ucopy(v, sp + off, sizeof(*v));
	}
	return false;
}

/* One step by row F: R becomes its caller's. 1, or 0 at the end of the stack. */
static int _hwtap_uframe_step_row(const struct hwtap_uframe *f, struct hwtap_uframe_regs *r)
{
	unsigned long cfa, ra, fp = r->fp;

	if (f->cfa == HWTAP_UFRAME_CFA_END)
		return 0;
	cfa = (f->cfa == HWTAP_UFRAME_CFA_FP ? r->fp : r->sp) + f->cfa_off;
	if (f->cfa == HWTAP_UFRAME_CFA_PLT && (r->pc & 15) >= f->plt)
		cfa += 8;
	if ((f->flags & HWTAP_UFRAME_DEREF) && !_hwtap_ucopy(&cfa, cfa, sizeof(cfa)))
		return 0;
	if (f->ra == HWTAP_UFRAME_REG_CFA && f->fp == HWTAP_UFRAME_REG_CFA &&
	    f->ra_off == f->fp_off + sizeof(long)) {
		unsigned long pair[2];	/* a frame record, the common case: one read */

		if (!_hwtap_ucopy(pair, cfa + f->fp_off, sizeof(pair)))
			return 0;
		fp = pair[0];
		ra = pair[1];
		goto read;
	}
	if (f->ra == HWTAP_UFRAME_REG_SAME) {
		if (!r->lr_known)
			return 0;
		ra = r->lr;
	} else if (!_hwtap_uframe_saved(f->ra, f->ra_off, cfa, r->sp, &ra)) {
		return 0;
	}
	if (f->fp == HWTAP_UFRAME_REG_UNDEF)
		fp = 0;
	else if (f->fp != HWTAP_UFRAME_REG_SAME &&
		 !_hwtap_uframe_saved(f->fp, f->fp_off, cfa, r->sp, &fp))
		return 0;
read:
	/* callers' frames are higher up the stack; a signal frame's interrupted one may be
	 * anywhere (sigaltstack) */
	if (!ra || (cfa <= r->sp && !(f->flags & HWTAP_UFRAME_SIGNAL)))
		return 0;
	r->exact = f->flags & HWTAP_UFRAME_SIGNAL;
	r->pc = ra;
	r->sp = cfa;
	r->fp = fp;
	r->lr_known = false;
	return 1;
}

/* One step by the frame pointer: 1, or 0 where it leads nowhere. FIRST: R is the probe's
 * own frame, which may be at a function's first instruction (a uprobe on a function, a
 * sample there): its frame is not made yet, and the return address is where the call left
 * it (x86-64: at the stack pointer; arm64: in the link register). */
static int _hwtap_uframe_step_fp(struct task_struct *task, struct hwtap_uframe_regs *r,
				 bool first)
{
	unsigned long frame[2];		/* the caller's frame pointer, the return address */

	if (first && _hwtap_usym_at_start(task, r->pc)) {
#if defined(CONFIG_X86_64)
		if (!_hwtap_ucopy(&frame[1], r->sp, sizeof(frame[1])))
			return 0;
		r->sp += sizeof(frame[1]);
#else
		if (!r->lr_known)
			return 0;
		frame[1] = r->lr;
#endif
		if (!frame[1])
			return 0;
		r->pc = frame[1];
		r->exact = r->lr_known = false;
		return 1;
	}
	if (r->fp < r->sp || (r->fp & (sizeof(long) - 1)) ||
	    !_hwtap_ucopy(frame, r->fp, sizeof(frame)) || !frame[1])
		return 0;
	r->pc = frame[1];
	r->sp = r->fp + sizeof(frame);
	r->fp = frame[0];
	r->exact = r->lr_known = false;
	return 1;
}

/* The user backtrace of the probe's task into PCS (at most MAX): the address it was at,
 * then its callers' return addresses; 0 frames without user code. */
static int _hwtap_ubacktrace(struct hwtap_context_base *b, unsigned long *pcs, int max)
{
	struct pt_regs *regs = _hwtap_uregs(b);
	struct hwtap_uframe_regs r = { .exact = true };
	int n = 0;

	if (!regs || max < 1)
		return 0;
	r.pc = instruction_pointer(regs);
	r.sp = user_stack_pointer(regs);
	r.fp = frame_pointer(regs);
#if defined(CONFIG_ARM64)
	r.lr = regs->regs[30];
	r.lr_known = true;
#endif
	pcs[n++] = r.pc;
	if (_hwtap_ucompat(regs))
		return n;
	while (n < max) {
		const struct hwtap_uframe *f = _hwtap_uframe_row(b->task, &r);
		int more;

		if (f && f->cfa != HWTAP_UFRAME_CFA_NONE)
			more = _hwtap_uframe_step_row(f, &r);
		else
			more = _hwtap_uframe_step_fp(b->task, &r, n == 1);
		if (!more)
			break;
		pcs[n++] = r.pc;
	}
	return n;
}

#endif /* HWTAP_UUNWIND_C */
