/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uprobes.c - process("PATH").function probes: one uprobe (or uretprobe, for .return)
 * per probe, on PATH's inode at a file offset, registered when the session starts and
 * unregistered when it stops. The kernel puts the breakpoint in every process that maps
 * the file, now and later, and takes it out of children at fork; it runs the handler in
 * the task that hit it, in process context. Included by the generated module.c after
 * session.h (and after perf.c, when there are counters).
 *
 * The module describes its probes in a table and calls
 *   _hwtap_uprobes_start(table, n)  from hwtap_start(), after the counters: 0, or -errno
 *                                after reporting which probe failed and why; nothing is
 *                                left registered then
 *   _hwtap_uprobes_stop(table, n)   from hwtap_stop(), before the counters: once it
 *                                returns no handler of the table runs or will run
 *
 * Handlers run with preemption disabled (the CPU's context is theirs, as an interrupt's
 * is) and read the task's memory only through uaccess.h, without faulting: a bad pointer
 * is an error ("read fault ... at ADDR", as SystemTap says), never a sleep or a fault.
 * A return probe whose function has not returned when the session stops never fires:
 * the kernel still returns the task to its caller (its return trampoline no longer finds
 * the consumer), so the program runs on.
 */
#ifndef HWTAP_UPROBES_C
#define HWTAP_UPROBES_C

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>

#include "../compat.h"
#include "../dwreg.h"
#include "../uaccess.h"

struct hwtap_uprobe {
	/* set by the generated code */
	const char *path;		/* the file, as the probe point names it */
	loff_t offset;			/* the probe's offset in it */
	unsigned long vaddr;		/* and its link-time address */
	bool ret;			/* a uretprobe: .return */
	void (*fire)(struct pt_regs *regs, unsigned long ubias);
	const char *pp;			/* the probe point, for messages */
	/* the runtime's */
	struct uprobe_consumer uc;
	struct path file;
	struct uprobe *u;		/* 6.12: what unregistering takes */
	bool registered;
};

/* The load bias is where the task has the probe minus where the file says it is. */
static int _hwtap_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct hwtap_uprobe *up = container_of(uc, struct hwtap_uprobe, uc);

#ifdef HWTAP_UPROBES_FLOOR
	return 0;	/* bench/uprobes.sh: the kernel's trap alone, an empty consumer */
#endif
	/* the kernel set the instruction pointer back to the breakpoint's address */
	preempt_disable();
	up->fire(regs, instruction_pointer(regs) - up->vaddr);
	preempt_enable();
	return 0;
}

static int _hwtap_uretprobe_hit(struct uprobe_consumer *uc, unsigned long func,
				struct pt_regs *regs)
{
	struct hwtap_uprobe *up = container_of(uc, struct hwtap_uprobe, uc);

	/* func: the task's address of the function, where the uretprobe is */
	preempt_disable();
	up->fire(regs, func - up->vaddr);
	preempt_enable();
	return 0;
}

static void _hwtap_uprobes_stop(struct hwtap_uprobe *table, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (table[i].registered)
			_hwtap_uprobe_unregister(d_real_inode(table[i].file.dentry),
						 table[i].offset, &table[i].uc, table[i].u);
	/* no handler runs after this: the consumers' memory may go with the module */
	_hwtap_uprobe_unregister_sync();
	for (i = 0; i < n; i++) {
		if (table[i].registered)
			path_put(&table[i].file);
		table[i].registered = false;
	}
}

static const char *_hwtap_uprobe_reason(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "no such file";
	case -EINVAL:
		return "the kernel refused the address (not an instruction it can probe, or "
		       "the file changed since hwtap read it)";
	case -EIO:
		return "the file's file system cannot be probed";
	case -ENOTSUPP:
		return "uprobes cannot probe that instruction";
	default:
		return "the kernel refused it";
	}
}

static int _hwtap_uprobes_start(struct hwtap_uprobe *table, int n)
{
	int i, rc;

	for (i = 0; i < n; i++) {
		struct hwtap_uprobe *up = &table[i];

		rc = kern_path(up->path, LOOKUP_FOLLOW, &up->file);
		if (!rc) {
			if (up->ret)
				up->uc.ret_handler = _hwtap_uretprobe_hit;
			else
				up->uc.handler = _hwtap_uprobe_hit;
			rc = _hwtap_uprobe_register(d_real_inode(up->file.dentry), up->offset,
						    &up->uc, &up->u);
			if (rc)
				path_put(&up->file);
		}
		if (rc) {
			_hwtap_script_error("probe %s: cannot place a uprobe in %s at offset "
					    "0x%llx: %s (%d)", up->pp, up->path,
					    (unsigned long long)up->offset,
					    _hwtap_uprobe_reason(rc), rc);
			_hwtap_uprobes_stop(table, n);
			return rc;
		}
		up->registered = true;
	}
	return 0;
}

/* ---- @entry: values a .return probe's expressions had at the call --------------------
 *
 * A .return probe with @entry(expr) has a companion probe where the function's prologue
 * ends, which computes the expressions and keeps them here under the call's frame: the
 * probe, the thread and its canonical frame address, which is also the stack pointer
 * when the call has returned (where the uretprobe handler finds them). Recursion and
 * threads have a frame each. One table for all such probes, allocated when the session
 * starts: HWTAP_UENTRY_SLOTS calls in flight, in groups of HWTAP_UENTRY_GROUP slots with a
 * lock each (a frame's entry is in the group its key hashes to). A call whose return
 * never comes (longjmp, the thread exits) leaves its entry behind until its group needs
 * the slot, the oldest first. A return that finds no entry (the call began before the
 * script, or its entry was pushed out) reads 0, and "" for a string. Strings are copied
 * whole (MAXSTRINGLEN each): a slot has room for the most a probe of the module keeps,
 * HWTAP_UENTRY_STRS, which the translator defines.
 */
#ifndef HWTAP_UENTRY_SLOTS
#define HWTAP_UENTRY_SLOTS 4096		/* a power of 2, at least HWTAP_UENTRY_GROUP */
#endif
#define HWTAP_UENTRY_GROUP 16

struct hwtap_uentry {
	unsigned long cfa;
	pid_t tid;			/* 0: free */
	int probe;
	u64 seq;			/* when it was kept: the oldest goes first */
	int64_t vals[HWTAP_UENTRY_MAX];
#if HWTAP_UENTRY_STRS
	char strs[HWTAP_UENTRY_STRS][MAXSTRINGLEN];
#endif
};

struct hwtap_uentry_group {
	raw_spinlock_t lock;		/* handlers of any CPU; held for a copy */
	u64 seq;
	struct hwtap_uentry slot[HWTAP_UENTRY_GROUP];
};

static struct hwtap_uentry_group *_hwtap_uentries;

#define HWTAP_UENTRY_GROUPS (HWTAP_UENTRY_SLOTS / HWTAP_UENTRY_GROUP)

/* Process context, at start: 0 or -ENOMEM. */
static int _hwtap_uentries_alloc(void)
{
	int i;

	_hwtap_uentries = kvcalloc(HWTAP_UENTRY_GROUPS, sizeof(*_hwtap_uentries), GFP_KERNEL);
	if (!_hwtap_uentries)
		return -ENOMEM;
	for (i = 0; i < HWTAP_UENTRY_GROUPS; i++)
		raw_spin_lock_init(&_hwtap_uentries[i].lock);
	return 0;
}

/* After the uprobes are gone. */
static void _hwtap_uentries_free(void)
{
	kvfree(_hwtap_uentries);
	_hwtap_uentries = NULL;
}

static struct hwtap_uentry_group *_hwtap_uentry_group(int probe, unsigned long cfa)
{
	unsigned long key = cfa ^ ((unsigned long)current->pid << 4) ^ ((unsigned long)probe << 24);

	return &_hwtap_uentries[hash_long(key, ilog2(HWTAP_UENTRY_GROUPS))];
}

/* The companion of .return probe PROBE keeps N values and NS strings under the current
 * thread's frame CFA. */
static void _hwtap_uentry_push(int probe, unsigned long cfa, const int64_t *vals, int n,
			       const void *strs, int ns)
{
	struct hwtap_uentry_group *g = _hwtap_uentry_group(probe, cfa);
	struct hwtap_uentry *use = NULL;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&g->lock, flags);
	for (i = 0; i < HWTAP_UENTRY_GROUP; i++) {
		struct hwtap_uentry *s = &g->slot[i];

		if (!s->tid || (s->tid == current->pid && s->cfa == cfa && s->probe == probe)) {
			use = s;
			break;
		}
		if (!use || s->seq < use->seq)
			use = s;	/* none free: the group's oldest goes */
	}
	use->tid = current->pid;
	use->cfa = cfa;
	use->probe = probe;
	use->seq = ++g->seq;
	memcpy(use->vals, vals, n * sizeof(*vals));
#if HWTAP_UENTRY_STRS
	memcpy(use->strs, strs, ns * MAXSTRINGLEN);
#endif
	raw_spin_unlock_irqrestore(&g->lock, flags);
}

/* .return probe PROBE takes the values and strings of its call (the stack pointer it
 * returned with is that frame's CFA) into VALS and STRS; zeros and "" when there are none. */
static void _hwtap_uentry_pop(int probe, unsigned long cfa, int64_t *vals, int n, void *strs,
			      int ns)
{
	struct hwtap_uentry_group *g = _hwtap_uentry_group(probe, cfa);
	unsigned long flags;
	int i;

	memset(vals, 0, n * sizeof(*vals));
	if (ns)
		memset(strs, 0, ns * MAXSTRINGLEN);
	raw_spin_lock_irqsave(&g->lock, flags);
	for (i = 0; i < HWTAP_UENTRY_GROUP; i++) {
		struct hwtap_uentry *s = &g->slot[i];

		if (s->tid == current->pid && s->cfa == cfa && s->probe == probe) {
			memcpy(vals, s->vals, n * sizeof(*vals));
#if HWTAP_UENTRY_STRS
			memcpy(strs, s->strs, ns * MAXSTRINGLEN);
#endif
			s->tid = 0;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&g->lock, flags);
}

#endif /* HWTAP_UPROBES_C */
