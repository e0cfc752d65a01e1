/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taskwork.h - task_works the stop waits for, within a bound: the resume-time callbacks
 * of udyn.c (a task waits for its file's names) and perf.c (a task that executed a
 * followed program gets its event).
 *
 * A task_work queued with TWA_RESUME runs when its task goes back to user space, and a
 * task may never get there: a local user can keep one inside mmap() of a FUSE file whose
 * server never answers (not at a ptrace or signal stop: ptrace_notify() and get_signal()
 * run pending task_works first). The kernel lets a module cancel
 * none (task_work_cancel is not exported). So the stop waits HWTAP_TWORK_WAIT_MS at most;
 * then it names the tasks, and pins the module (a reference: delete_module says EBUSY,
 * never blocks) until the last of them has run its callback, which drops the pin. The
 * stop goes on and ends; the callbacks run later see the session stopped and only count
 * themselves down. Two things make that safe:
 *   - each callback does its work inside an SRCU read section, after checking
 *     `stopped'; the stop sets it, then synchronize_srcu() waits for the callbacks
 *     running (bounded: none waits long) and not for those not yet started: after it,
 *     whatever a callback would touch but static memory may be freed;
 *   - a callback's last act is _hwtap_twork_done(), which wakes nobody (a wait queue's
 *     lock sleeps on PREEMPT_RT, and RCU Tasks would count that voluntary switch as the
 *     task having left this module's code while it still runs in it): the stop polls.
 *     The module's exit, once the pin is gone, waits for every task to leave its code
 *     (synchronize_rcu_tasks) before its memory goes.
 */
#ifndef HWTAP_TASKWORK_H
#define HWTAP_TASKWORK_H

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/srcu.h>

#ifndef HWTAP_TWORK_WAIT_MS
#define HWTAP_TWORK_WAIT_MS 5000	/* the stop's wait for tasks to run their callbacks */
#endif
#define HWTAP_TWORK_ORPHANED (1 << 30)	/* added to `pending' when the stop gave up */

DEFINE_STATIC_SRCU(_hwtap_twork_srcu);
static bool _hwtap_twork_pinned;	/* a stop pinned the module: its exit waits */

struct hwtap_twork {
	atomic_t pending;		/* queued, not yet run (+ HWTAP_TWORK_ORPHANED) */
	bool stopped;			/* callbacks from now on do nothing */
};

/* Before task_work_add() (undone by _hwtap_twork_done() if that fails). */
static inline void _hwtap_twork_queued(struct hwtap_twork *t)
{
	atomic_inc(&t->pending);
}

/* A callback's start: whether it may do its work (then _hwtap_twork_end() after it). */
static inline bool _hwtap_twork_begin(struct hwtap_twork *t, int *idx)
{
	*idx = srcu_read_lock(&_hwtap_twork_srcu);
	if (!READ_ONCE(t->stopped))
		return true;
	srcu_read_unlock(&_hwtap_twork_srcu, *idx);
	return false;
}

static inline void _hwtap_twork_end(int idx)
{
	srcu_read_unlock(&_hwtap_twork_srcu, idx);
}

/* A callback's last act (nothing of the module's is touched after it but its return). */
static inline void _hwtap_twork_done(struct hwtap_twork *t)
{
	/* the last of the callbacks a stop left behind drops its pin */
	if (atomic_dec_return(&t->pending) == HWTAP_TWORK_ORPHANED)
		module_put(THIS_MODULE);
}

/* The stop, once nothing queues callbacks any more: the running ones finished, the rest
 * waited for HWTAP_TWORK_WAIT_MS at most. How many are left: 0, or N, the module then
 * pinned until they have run (the caller says which tasks they are: _hwtap_twork_warn()).
 * In the module's exit (a session stopped by rmmod, not by its reader), nothing can pin
 * it: then it waits for them all, as long as it takes, and says so. */
static __maybe_unused int _hwtap_twork_stop(struct hwtap_twork *t)
{
	unsigned long until = jiffies + msecs_to_jiffies(HWTAP_TWORK_WAIT_MS);
	bool said = false;
	int left;

	WRITE_ONCE(t->stopped, true);
	synchronize_srcu(&_hwtap_twork_srcu);	/* the callbacks that saw !stopped are done */
	while (atomic_read(&t->pending) && time_before(jiffies, until))
		schedule_timeout_uninterruptible(msecs_to_jiffies(10));
	while (atomic_read(&t->pending) && !module_is_live(THIS_MODULE)) {
		if (!said)
			_hwtap_warn("the module is being unloaded: waiting for %d processes to "
				    "go back to user space (held in a file system that does not "
				    "answer?)", atomic_read(&t->pending));
		said = true;
		schedule_timeout_uninterruptible(msecs_to_jiffies(10));
	}
	if (!atomic_read(&t->pending))
		return 0;
	__module_get(THIS_MODULE);
	/* pairs with _hwtap_twork_done(): exactly one of us sees the count reach the mark */
	left = atomic_add_return(HWTAP_TWORK_ORPHANED, &t->pending) - HWTAP_TWORK_ORPHANED;
	if (!left) {
		atomic_sub(HWTAP_TWORK_ORPHANED, &t->pending);
		module_put(THIS_MODULE);	/* the last one ran meanwhile */
		return 0;
	}
	WRITE_ONCE(_hwtap_twork_pinned, true);
	return left;
}

/* What the stop says when it leaves N tasks behind: WHO lists some ("process 123
 * (map-exec)"), WHAT says what they did. */
static __maybe_unused void _hwtap_twork_warn(const char *prefix, int n, const char *who,
					     const char *what)
{
	bool more = n > 1;

	_hwtap_warn("%s%s%s not gone back to user space in %d ms since %s %s (held in a file "
		    "system that does not answer): the session stops without %s, and the "
		    "module stays loaded until %s (unloading it says it is in use)", prefix,
		    who, more ? " and others have" : " has", HWTAP_TWORK_WAIT_MS,
		    more ? "they" : "it", what, more ? "them" : "it",
		    more ? "they go on" : "it goes on");
}

/* "process PID (COMM)", for _hwtap_twork_warn(), into BUF. */
static inline void _hwtap_twork_who(char *buf, size_t size, pid_t pid, const char *comm)
{
	snprintf(buf, size, "process %d (%s)", pid, comm);
}

/* For a session started again after its stop: callbacks may do their work. */
static inline void _hwtap_twork_restart(struct hwtap_twork *t)
{
	WRITE_ONCE(t->stopped, false);
}

/* The module's exit: after a stop left callbacks behind, they have all run (the pin is
 * gone), maybe not yet out of their code. */
static inline void _hwtap_twork_exit(void)
{
	if (READ_ONCE(_hwtap_twork_pinned))
		synchronize_rcu_tasks();
}

#endif /* HWTAP_TASKWORK_H */
