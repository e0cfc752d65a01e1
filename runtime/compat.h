/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compat.h - how the runtime does what kernels do differently, one feature each. Which
 * kernel has what is found by compiling runtime/features/NAME.c against its tree, never by
 * its version number: each test that compiles defines HWTAP_HAVE_NAME for the module
 * (translator/backend/build.c; `hwtap --kernel-features' prints them for other builds).
 * Everything else in runtime/ is written against 6.1 and later.
 *
 * Not supported: kernels built with kCFI (CONFIG_CFI_CLANG, clang only; Debian's are built
 * with gcc). kCFI checks the type of every indirect call's target, and a tracepoint calls
 * its callbacks through one of the tracepoint's own prototype. The runtime's callbacks
 * (sched_process_exec, mce_record ...) are written with it, but the generated kernel.trace
 * callbacks take every argument as unsigned long (translator/codegen/translate_probes.c),
 * which works for any tracepoint on the ABIs hwtap builds for and would trap under kCFI.
 * The translator refuses kernel.trace on such a kernel (probe_tracepoint.c), and
 * probes/tracepoints.c does not compile there.
 */
#ifndef HWTAP_COMPAT_H
#define HWTAP_COMPAT_H

#include <linux/ring_buffer.h>

#ifdef HWTAP_HAVE_RB_COMMIT_ONE_ARG
#define _hwtap_rb_commit(rb, event)	ring_buffer_unlock_commit(rb)
#else
#define _hwtap_rb_commit(rb, event)	ring_buffer_unlock_commit(rb, event)
#endif

/* uprobes: what unregistering a consumer needs back from registering it. 6.12's
 * uprobe_register() returns the uprobe, and unregistering is _nosync per consumer, then
 * one uprobe_unregister_sync() before the consumers' memory may go; 6.1's takes the
 * inode and offset again and waits itself. */
#include <linux/uprobes.h>

#ifdef HWTAP_HAVE_UPROBE_REGISTER_RETURNS
static inline int _hwtap_uprobe_register(struct inode *inode, loff_t offset,
					 struct uprobe_consumer *uc, struct uprobe **u)
{
	*u = uprobe_register(inode, offset, 0, uc);
	return IS_ERR(*u) ? PTR_ERR(*u) : 0;
}
#define _hwtap_uprobe_unregister(inode, offset, uc, u)	uprobe_unregister_nosync(u, uc)
#define _hwtap_uprobe_unregister_sync()			uprobe_unregister_sync()
#else
static inline int _hwtap_uprobe_register(struct inode *inode, loff_t offset,
					 struct uprobe_consumer *uc, struct uprobe **u)
{
	*u = NULL;
	return uprobe_register(inode, offset, uc);
}
#define _hwtap_uprobe_unregister(inode, offset, uc, u)	uprobe_unregister(inode, offset, uc)
#define _hwtap_uprobe_unregister_sync()			do { } while (0)
#endif

/* A task's perf event contexts: one per kind of PMU (6.1), or one. */
#ifdef HWTAP_HAVE_PERF_CTXP_ARRAY
#define _HWTAP_TASK_PERF_CTXS			perf_nr_task_contexts
#define _hwtap_task_perf_ctx(task, i)		((task)->perf_event_ctxp[i])
#else
#define _HWTAP_TASK_PERF_CTXS			1
#define _hwtap_task_perf_ctx(task, i)		((task)->perf_event_ctxp)
#endif

#endif /* HWTAP_COMPAT_H */
