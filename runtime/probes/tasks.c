/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tasks.c - process("PATH").begin, .end, .thread.begin, .thread.end (and process.begin ...
 * without a PATH: every process, or with -c the target's family): the threads of the
 * processes a probe follows, from the scheduler's tracepoints, found by name as ras.c
 * finds its own. Included by the generated module.c after session.h.
 *
 * A "target" is what a set of probes follows: the processes that run PATH (PATH's inode,
 * resolved when the session starts, as uprobes and .process counters do), every user
 * process, or -c's process and the processes it forks. The runtime keeps each followed
 * thread with the targets it belongs to, and fires
 *   begin         for a process found: running at the start, forked, or executing PATH
 *   thread.begin  for another thread of it: running at the start, or cloned
 *   thread.end    when a thread of it exits and others live on
 *   end           when its last thread exits, or when it executes another program
 * as SystemTap does. The begin of a fork's child runs in its parent, before the child
 * first runs (its memory is a copy of the parent's, or the same for a thread), and that
 * of a thread running at the start runs where the session starts (its memory is not
 * there: reads fail, "read fault"); pid(), tid(), execname() ... name the child or the
 * thread found (CONTEXT->task). The others run in the task itself: at exec once the new
 * program is in place, at exit after its memory is gone (reads fail there too).
 *
 * The generated code calls
 *   _hwtap_tasks_start(targets, nt, probes, np)  from hwtap_start(), after the begin
 *       probes: 0, or -errno after saying why (nothing is left watched then)
 *   _hwtap_tasks_stop()                           from hwtap_stop(): no handler of a
 *       target runs once it returns; processes still running get no .end (as stap's)
 *
 * Followed threads live in a hash table of HWTAP_TASKS_MAX entries allocated at the start,
 * under one raw spinlock (the tracepoints fire with preemption off, also on PREEMPT_RT);
 * a thread that finds no room is not followed, counted, and the stop says how many.
 */
#ifndef HWTAP_TASKS_C
#define HWTAP_TASKS_C

#include <linux/binfmts.h>
#include <linux/hashtable.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>

#include "../tracepoint.h"
#include "../uaccess.h"

#ifndef HWTAP_TASKS_MAX
#define HWTAP_TASKS_MAX 16384		/* threads followed at once */
#endif

enum hwtap_task_kind {
	HWTAP_TASK_BEGIN, HWTAP_TASK_END, HWTAP_TASK_THREAD_BEGIN, HWTAP_TASK_THREAD_END,
};

struct hwtap_task_target {
	/* set by the generated code: a path, or NULL for every process (the target's family
	 * when the module has a target: -c, -x) */
	const char *path;
	/* the runtime's */
	struct path file;
	bool resolved;
};

struct hwtap_task_probe {
	int target;			/* its index in the targets */
	enum hwtap_task_kind kind;
	void (*fire)(struct pt_regs *regs, struct task_struct *task);
};

/* A followed thread (keyed by its tid), or a followed process (by its tgid) with how many
 * of its threads are followed: the one whose exit takes that to 0 ends the process. (The
 * kernel's signal->live says that only until another thread's do_exit() passes.) */
struct hwtap_followed {
	struct hlist_node node;
	pid_t id;
	int threads;			/* a process's */
	u64 targets;			/* a thread's: bit i is targets[i] */
};

static struct hwtap_task_target *_hwtap_task_targets;
static int _hwtap_task_ntargets;
static struct hwtap_task_probe *_hwtap_task_probes;
static int _hwtap_task_nprobes;
static u64 _hwtap_task_every, _hwtap_task_family;	/* those targets' bits */

static DEFINE_HASHTABLE(_hwtap_followed_threads, 12);
static DEFINE_HASHTABLE(_hwtap_followed_processes, 10);
static struct hwtap_followed *_hwtap_followed_pool;
static struct hlist_head _hwtap_followed_free;
static DEFINE_RAW_SPINLOCK(_hwtap_followed_lock);
static atomic_t _hwtap_tasks_unfollowed;		/* no room for them */

static struct tracepoint *_hwtap_tp_fork, *_hwtap_tp_exec, *_hwtap_tp_exit;

/* The targets' bits of a task that runs the program whose inode is INODE, and REAL the
 * inode below it (overlayfs: a container's programs; else INODE itself), NULL if not
 * known. A target matches by the file its path names (a merged overlay path, as exec
 * opens it: INODE) or by the file below it (a layer's own path: REAL). */
static u64 _hwtap_task_match(const struct inode *inode, const struct inode *real)
{
	u64 bits = _hwtap_task_every;
	int i;

	for (i = 0; inode && i < _hwtap_task_ntargets; i++) {
		struct dentry *d = _hwtap_task_targets[i].file.dentry;

		if (_hwtap_task_targets[i].resolved &&
		    (d_inode(d) == inode || d_real_inode(d) == (real ? real : inode)))
			bits |= 1ULL << i;
	}
	return bits;
}

/* Under the lock: the entry of ID in the table whose buckets are HEADS (2^BITS of them),
 * or NULL. */
static struct hwtap_followed *_hwtap_followed_find(struct hlist_head *heads, int bits,
						   pid_t id)
{
	struct hwtap_followed *f;

	hlist_for_each_entry(f, &heads[hash_min(id, bits)], node)
		if (f->id == id)
			return f;
	return NULL;
}

/* Under the lock: a free entry for ID, put in that table; NULL if there is no room. */
static struct hwtap_followed *_hwtap_followed_new(struct hlist_head *heads, int bits,
						  pid_t id)
{
	struct hwtap_followed *f;

	if (hlist_empty(&_hwtap_followed_free))
		return NULL;
	f = hlist_entry(_hwtap_followed_free.first, struct hwtap_followed, node);
	hlist_del(&f->node);
	*f = (struct hwtap_followed){ .id = id };
	hlist_add_head(&f->node, &heads[hash_min(id, bits)]);
	return f;
}

#define _hwtap_threads _hwtap_followed_threads, HASH_BITS(_hwtap_followed_threads)
#define _hwtap_processes _hwtap_followed_processes, HASH_BITS(_hwtap_followed_processes)

static void _hwtap_followed_drop(struct hwtap_followed *f)
{
	hlist_del(&f->node);
	hlist_add_head(&f->node, &_hwtap_followed_free);
}

/* The targets thread TID follows. */
static u64 _hwtap_followed_targets(pid_t tid)
{
	struct hwtap_followed *f;
	unsigned long flags;
	u64 bits;

	raw_spin_lock_irqsave(&_hwtap_followed_lock, flags);
	f = _hwtap_followed_find(_hwtap_threads, tid);
	bits = f ? f->targets : 0;
	raw_spin_unlock_irqrestore(&_hwtap_followed_lock, flags);
	return bits;
}

/* Thread TID (of process TGID) is gone: the targets it followed, and in *LAST whether
 * it was the process's last followed thread (WHOLE: it is the process's last thread,
 * whatever the count says: an exec). */
static u64 _hwtap_followed_gone(pid_t tid, pid_t tgid, bool whole, bool *last)
{
	struct hwtap_followed *f, *p;
	unsigned long flags;
	u64 bits = 0;

	*last = false;
	raw_spin_lock_irqsave(&_hwtap_followed_lock, flags);
	f = _hwtap_followed_find(_hwtap_threads, tid);
	if (f) {
		bits = f->targets;
		_hwtap_followed_drop(f);
		p = _hwtap_followed_find(_hwtap_processes, tgid);
		if (p && (!--p->threads || whole)) {
			_hwtap_followed_drop(p);
			*last = true;
		}
	}
	raw_spin_unlock_irqrestore(&_hwtap_followed_lock, flags);
	return bits;
}

/* TASK follows BITS too: the bits it did not follow yet (none without room). FOUND: TASK
 * is not new (the start's scan), and may be exiting: it is not added once it is, since its
 * exit's callback may have found nothing already (PF_EXITING is set before that
 * tracepoint, and the callback takes the lock after it: under the lock, a flag clear
 * means the callback is still to come and will find the entry). */
static u64 _hwtap_followed_add(struct task_struct *task, u64 bits, bool found)
{
	struct hwtap_followed *f, *p;
	unsigned long flags;
	u64 added = 0;

	if (!bits)
		return 0;
	raw_spin_lock_irqsave(&_hwtap_followed_lock, flags);
	if (found && (READ_ONCE(task->flags) & PF_EXITING))
		goto out;
	f = _hwtap_followed_find(_hwtap_threads, task->pid);
	if (f) {
		added = bits & ~f->targets;
		f->targets |= bits;
		goto out;
	}
	p = _hwtap_followed_find(_hwtap_processes, task->tgid);
	if (!p)
		p = _hwtap_followed_new(_hwtap_processes, task->tgid);
	f = p ? _hwtap_followed_new(_hwtap_threads, task->pid) : NULL;
	if (!f) {
		if (p && !p->threads)
			_hwtap_followed_drop(p);
		atomic_inc(&_hwtap_tasks_unfollowed);
		goto out;
	}
	p->threads++;
	f->targets = added = bits;
out:
	raw_spin_unlock_irqrestore(&_hwtap_followed_lock, flags);
	return added;
}

/* Runs the probes of KIND of the targets in BITS for TASK; FOREIGN: from a task whose
 * memory is not TASK's. */
static void _hwtap_tasks_fire(u64 bits, enum hwtap_task_kind kind, struct task_struct *task,
			      bool foreign)
{
	int i;

	if (!bits)
		return;
	preempt_disable();
	if (foreign)
		this_cpu_write(_hwtap_foreign_task, true);
	for (i = 0; i < _hwtap_task_nprobes; i++) {
		struct hwtap_task_probe *p = &_hwtap_task_probes[i];

		if (p->kind == kind && (bits >> p->target) & 1)
			p->fire(NULL, task);
	}
	if (foreign)
		this_cpu_write(_hwtap_foreign_task, false);
	preempt_enable();
}

/* A thread found (SCANNED: by the start's scan, else new): its begin (a thread-group
 * leader is a process) for the targets it newly belongs to. */
static void _hwtap_task_found(struct task_struct *task, u64 bits, bool foreign, bool scanned)
{
	bits = _hwtap_followed_add(task, bits, scanned);
	_hwtap_tasks_fire(bits, thread_group_leader(task) ? HWTAP_TASK_BEGIN :
			  HWTAP_TASK_THREAD_BEGIN, task, foreign);
}

/* sched_process_fork, in the parent, before the child first runs: the child follows what
 * its parent follows (the same program; the target's family), and every process is
 * followed where a target says so. The child's memory is a copy of its parent's (or the
 * same, for a thread): its handlers read the parent's. */
static void _hwtap_tasks_fork(void *data, struct task_struct *parent,
			      struct task_struct *child)
{
	u64 bits = _hwtap_followed_targets(parent->pid) | _hwtap_task_every;

	if (!(child->flags & PF_KTHREAD))
		_hwtap_task_found(child, bits, false, false);
}

/* sched_process_exec, in the task, with its new program (its other threads have exited:
 * a non-leader that executes becomes the leader, OLD_PID is the thread it was): the end
 * of what it was, the begin of what it is now. */
static void _hwtap_tasks_exec(void *data, struct task_struct *task, pid_t old_pid,
			      struct linux_binprm *bprm)
{
	u64 now = _hwtap_task_match(file_inode(bprm->file),
				    d_real_inode(bprm->file->f_path.dentry));
	bool last;
	u64 was = _hwtap_followed_gone(old_pid, task->tgid, true, &last);

	_hwtap_tasks_fire(was, HWTAP_TASK_END, task, false);
	now |= was & _hwtap_task_family;
	if (task->tgid == _hwtap_target)
		now |= _hwtap_task_family;
	_hwtap_task_found(task, now, false, false);
}

/* sched_process_exit, in the task, after its memory went: the last thread of a process
 * ends it. */
static void _hwtap_tasks_exit(void *data, struct task_struct *task)
{
	bool last;
	u64 bits = _hwtap_followed_gone(task->pid, task->tgid, false, &last);

	_hwtap_tasks_fire(bits, last ? HWTAP_TASK_END : HWTAP_TASK_THREAD_END, task, false);
}

/* Under rcu_read_lock(): thread T, running when the session starts: its begin, from here. */
static void _hwtap_tasks_scan_one(struct task_struct *t)
{
	const struct inode *inode = NULL;
	struct file *exe;
	u64 bits;

	if (t->flags & (PF_KTHREAD | PF_EXITING))
		return;
	task_lock(t);
	if (t->mm) {
		/* compared, not used: the file may be on its way out */
		exe = rcu_dereference(t->mm->exe_file);
		inode = exe ? file_inode(exe) : NULL;
	}
	task_unlock(t);
	/* (no reference to the file here, so no look below it: a program started by a
	 * layer's own path is found at its next exec, not now) */
	bits = _hwtap_task_match(inode, NULL);
	if (t->tgid == _hwtap_target)
		bits |= _hwtap_task_family;
	_hwtap_task_found(t, bits, t->mm != current->mm, true);
}

/* The threads running when the session starts, a process at a time by its number (as
 * /proc lists them), each under its own rcu_read_lock() with a cond_resched() between:
 * thousands of processes and their begin handlers are never one read-side section. */
static void _hwtap_tasks_scan(void)
{
	struct task_struct *g, *t;
	struct pid *pid;
	pid_t nr;

	for (nr = 1; nr > 0; nr++) {
		rcu_read_lock();
		pid = find_ge_pid(nr, &init_pid_ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr(pid);
		g = pid_task(pid, PIDTYPE_TGID);
		if (g)
			for_each_thread(g, t)
				_hwtap_tasks_scan_one(t);
		rcu_read_unlock();
		cond_resched();
	}
}

static void _hwtap_tasks_unwatch(void)
{
	if (_hwtap_tp_exit)
		tracepoint_probe_unregister(_hwtap_tp_exit, _hwtap_tasks_exit, NULL);
	if (_hwtap_tp_exec)
		tracepoint_probe_unregister(_hwtap_tp_exec, _hwtap_tasks_exec, NULL);
	if (_hwtap_tp_fork)
		tracepoint_probe_unregister(_hwtap_tp_fork, _hwtap_tasks_fork, NULL);
	/* pairs with the callbacks that were running: none runs after this */
	tracepoint_synchronize_unregister();
	_hwtap_tp_fork = _hwtap_tp_exec = _hwtap_tp_exit = NULL;
}

static void _hwtap_tasks_stop(void)
{
	int i, missed;

	if (!_hwtap_followed_pool)
		return;
	_hwtap_tasks_unwatch();
	for (i = 0; i < _hwtap_task_ntargets; i++)
		if (_hwtap_task_targets[i].resolved)
			path_put(&_hwtap_task_targets[i].file);
	hash_init(_hwtap_followed_threads);
	hash_init(_hwtap_followed_processes);
	kvfree(_hwtap_followed_pool);
	_hwtap_followed_pool = NULL;
	missed = atomic_read(&_hwtap_tasks_unfollowed);
	if (missed)
		_hwtap_warn("process begin and end probes: %d threads were not followed, the "
			    "table of %d was full (-D HWTAP_TASKS_MAX=N)", missed,
			    HWTAP_TASKS_MAX);
}

static int _hwtap_tasks_start(struct hwtap_task_target *targets, int nt,
			      struct hwtap_task_probe *probes, int np)
{
	const char *who = "process begin and end probes";
	int i, rc;

	BUILD_BUG_ON(HWTAP_TASKS_MAX < 1);
	_hwtap_task_targets = targets;
	_hwtap_task_ntargets = nt;
	_hwtap_task_probes = probes;
	_hwtap_task_nprobes = np;
	for (i = 0; i < nt; i++) {
		if (!targets[i].path) {
			if (_hwtap_target > 0)
				_hwtap_task_family |= 1ULL << i;
			else
				_hwtap_task_every |= 1ULL << i;
			continue;
		}
		rc = kern_path(targets[i].path, LOOKUP_FOLLOW, &targets[i].file);
		if (rc) {
			_hwtap_script_error("process(\"%s\"): cannot follow its processes: %s (%d)",
					    targets[i].path, rc == -ENOENT ? "no such file" :
					    "the path does not resolve", rc);
			goto fail;
		}
		targets[i].resolved = true;
	}
	_hwtap_followed_pool = kvcalloc(HWTAP_TASKS_MAX, sizeof(*_hwtap_followed_pool),
					GFP_KERNEL);
	rc = -ENOMEM;
	if (!_hwtap_followed_pool)
		goto fail;
	INIT_HLIST_HEAD(&_hwtap_followed_free);
	for (i = 0; i < HWTAP_TASKS_MAX; i++)
		hlist_add_head(&_hwtap_followed_pool[i].node, &_hwtap_followed_free);
	/* watched first: a thread made during the scan is found by one or the other, and
	 * found twice it begins once (_hwtap_followed_add) */
	rc = _hwtap_watch_tracepoint(who, "sched_process_fork", _hwtap_tasks_fork,
				     &_hwtap_tp_fork);
	if (!rc)
		rc = _hwtap_watch_tracepoint(who, "sched_process_exec", _hwtap_tasks_exec,
					     &_hwtap_tp_exec);
	if (!rc)
		rc = _hwtap_watch_tracepoint(who, "sched_process_exit", _hwtap_tasks_exit,
					     &_hwtap_tp_exit);
	if (rc) {
		_hwtap_tasks_unwatch();
		kvfree(_hwtap_followed_pool);
		_hwtap_followed_pool = NULL;
		goto fail;
	}
	_hwtap_tasks_scan();
	return 0;
fail:
	for (i = 0; i < nt; i++)
		if (targets[i].resolved)
			path_put(&targets[i].file);
	for (i = 0; i < nt; i++)
		targets[i].resolved = false;
	return rc;
}

#endif /* HWTAP_TASKS_C */
