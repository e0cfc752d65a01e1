/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.c - the lifetimes of a module's perf events: for each perf probe, one kernel
 * counter on every online CPU, created when the session starts (after the begin probes),
 * followed through CPU hotplug, released when the session stops. Included by the
 * generated module.c after session.h, like the runtime's headers.
 *
 * The module describes its probes in a table and calls
 *   _hwtap_perf_start(table, n, live)  from hwtap_start(): 0, or -errno after reporting
 *                                which probe failed on which CPU and why; nothing is left
 *                                behind. live: a probe other than end and error reads a
 *                                counter, so the snapshot is refreshed (see below)
 *   _hwtap_perf_stop(table, n)   from hwtap_stop(): every event released. Once it returns
 *                                no overflow handler of the table runs any more.
 *
 * An event may name one CPU (perf.events("cycles:cpu=1")): then only that CPU gets it, and
 * the start fails when that CPU is not online.
 *
 * The choice between alternatives ('?' and '!') is made here, when the session starts,
 * not in pass 2, by the rules of choice.h that ras probes share.
 *
 * .process events count or sample the target process (-c CMD, -x PID: the hwtap_target
 * parameter) instead: one event bound to each of its threads with attr.inherit, so the
 * threads and children they start later count too (the kernel copies the event and its
 * overflow handler at fork), on whatever CPU they run; CPU hotplug does not concern them.
 * .process("PATH") events do the same for every task that executes PATH (the same inode)
 * while the session runs: the sched_process_exec tracepoint (found by name) adds a
 * task_work to the task, which creates its event in the task itself, in process context
 * where that may sleep, before it returns to user space: from its first instruction.
 * Tasks that exited (and their inherited children too) give their slot back, their counts
 * kept. Up to HWTAP_PERF_MAX_TASKS tasks a probe at once; execs beyond that, or more than
 * HWTAP_EXEC_QUEUE leaving exec() at once, are counted and reported when it stops.
 *
 * Hotplug: one dynamic CPU hotplug state per module (CPUHP_AP_ONLINE_DYN, multi-instance),
 * one instance per probe. Its callbacks run while the hotplug writer holds cpu_hotplug_lock
 * (CPU hotplug, suspend, kexec), and creating or releasing most software events (all but
 * cpu_clock and task_clock) takes that lock as a reader (static_key_slow_inc/dec of
 * perf_swevent_enabled[]): done in a callback, the hotplug never ends. So the callbacks
 * only mark and move, as the kernel's hardlockup detector does: the online callback marks
 * its CPU as wanting an event; the offline callback disables the CPU's event (it no longer
 * fires) and sets it aside as dead. A work item (the fill) then, in process context and
 * outside the hotplug lock, releases the dead events and creates the wanted ones. When the
 * session starts, the fill runs at once for every CPU, and an event that cannot be created
 * fails the start; later, when a CPU comes online, a failure is a warning: the probe keeps
 * running on the other CPUs, and the CPU is never refused. A CPU that came online samples
 * from when the fill has run, a few milliseconds after the hotplug ends.
 *
 * Locks: _hwtap_perf_lock (a mutex: the fill, the refresher, stopping) is taken before
 * cpu_hotplug_lock (creating and releasing take it) and never inside a hotplug callback;
 * the callbacks take only _hwtap_perf_cpus_lock, a spinlock around the per-CPU slots.
 * An event is freed only under _hwtap_perf_lock, so a holder of it may read an event it
 * found in a slot after dropping the spinlock.
 *
 * Overflow handlers run in hard-irq context for software clock events, in NMI context for
 * hardware events on real machines, and in task context with preemption disabled for
 * events like page faults: the probe handlers they call take no lock that can wait.
 *
 * Counting events (.counter("NAME"), no handler, read with @perf("NAME")): reading one
 * (perf_event_read_value) takes a mutex and may send an IPI, which no probe handler may
 * do, and the exported API has no lock-free read (perf_event_read_local is not exported).
 * So a work item refreshes a snapshot of each counter, the sum over its CPUs, every
 * HWTAP_PERF_REFRESH_MS in process context, and @perf reads the snapshot (an atomic64):
 * at most that old, plus the workqueue's delay. Only if something reads it while the
 * session runs: when only end and error probes read counters, nothing is refreshed (no
 * work item, no cross-CPU reads, however long the session); reading ctl (hwtap-run -L)
 * takes a snapshot then and there. The counts of events released by CPU
 * hotplug are kept, and _hwtap_perf_stop() reads every event once more as it releases
 * it: the end probes see the exact totals.
 *
 * Multiplexing: with more events than the PMU has counters, the kernel rotates them, and
 * each counts only while on the PMU. Every read also returns the times the event was
 * enabled and running; the snapshot sums count, enabled and running over a counter's
 * events and @perf reads count * enabled / running, as perf stat scales (its aggregate
 * mode sums the same way). perf_enabled() and perf_running() (tapset/perf.stp) read the
 * times, ctl shows them, and stopping warns about each counter that was off the PMU.
 */
#ifndef HWTAP_PERF_C
#define HWTAP_PERF_C

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/magic.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/threads.h>
#include <linux/stdarg.h>
#include <linux/sched/task.h>
#include <linux/workqueue.h>

#include <linux/binfmts.h>
#include <linux/cgroup.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/wait.h>

#include "../choice.h"
#include "../compat.h"
#include "../tracepoint.h"

#ifndef HWTAP_PERF_REFRESH_MS
#define HWTAP_PERF_REFRESH_MS 10	/* -D HWTAP_PERF_REFRESH_MS=N: @perf's snapshot age */
#endif
#ifndef HWTAP_PERF_MAX_TASKS
#define HWTAP_PERF_MAX_TASKS 1024	/* .process: tasks (threads of -x PID, execs of
					 * PATH) followed per probe */
#endif
#define HWTAP_EXEC_QUEUE 64		/* execs leaving exec() at once (task_works) */

/* What counting events read: the count and the times (ns) the events were enabled and
 * running (on the PMU), summed. Running is less than enabled when the PMU had more events
 * than counters and took turns (multiplexing). */
struct hwtap_perf_sum {
	u64 count, enabled, running;
};

/* A system-wide probe's event on one CPU; under _hwtap_perf_cpus_lock. */
struct hwtap_perf_cpu {
	struct perf_event *event;	/* live: counting or sampling on this CPU */
	struct perf_event *leaving;	/* being disabled by the offline callback: still
					 * read, not yet the fill's to release */
	struct perf_event *dead;	/* disabled by the offline callback, to release */
	unsigned int gen;		/* offline callbacks so far: an event the fill created
					 * across one is not put in the slot */
	bool online;			/* the online callback ran, the offline one did not */
};

struct hwtap_perf {
	struct hwtap_choice c;			/* first: its point, '?' and '!' */
	/* set by the generated code */
	struct perf_event_attr attr;		/* type, config, sample_period or freq */
	int cpu;				/* the only CPU to count on, or -1 */
	bool target;				/* .process: the target process, not CPUs */
	const char *exec_path;			/* .process("PATH"): tasks that exec it */
	perf_overflow_handler_t handler;	/* NULL: a counting event */
	const char *counter;			/* a counting event's .counter("NAME") */
	const char *group;			/* .group("NAME"): its events are hwtap-run's */
	int leader;				/* the index of the group's first counter */
	const char *cgroup;			/* .cgroup("PATH"): only while its tasks run */
	/* the runtime's */
	struct file **files;			/* a group's: the files of its events, one an
						 * instance (a CPU's, a thread's), until stop */
	int nfiles, files_cap;
	int group_err, group_fit, group_bad;	/* hwtap-run could not open the group: the
						 * errno, how many events fit together, the
						 * counter (index) it failed on */
	u64 cookie;				/* a group's events' attr.sig_data */
	bool cpu_back;				/* a group's: a CPU came online since start */
	struct cgroup *cg;			/* cgroup's, referenced, from start to stop */
	struct hwtap_perf_cpu __percpu *events;	/* per CPU, or */
	struct perf_event **tasks;		/* per task: the target's, or each exec's */
	int ntasks, tasks_cap;
	struct path exec;			/* exec_path, resolved at start */
	struct perf_event *held;		/* exec_path: a disabled event, start to stop */
	atomic_t tasks_missed;			/* execs of exec_path not followed */
	bool pinned_lost;			/* a pinned event found in error state */
	atomic64_t count;			/* counting: the snapshot @perf reads, scaled */
	atomic64_t enabled, running;		/* counting: the snapshot's times (ns) */
	struct hwtap_perf_sum released;		/* counting: what released events read */
	struct hlist_node node;			/* this probe's hotplug instance */
	bool starting;				/* the start fills its CPUs, not the fill work */
};

static enum cpuhp_state _hwtap_perf_state;

static void _hwtap_perf_unwatch_execs(void);

static struct hwtap_perf *_hwtap_perf_table;
static int _hwtap_perf_n;
static bool _hwtap_perf_live;		/* counters are read while the session runs */
/* Events are created, read and released under it (see Locks above). */
static DEFINE_MUTEX(_hwtap_perf_lock);
static DEFINE_SPINLOCK(_hwtap_perf_cpus_lock);
static struct delayed_work _hwtap_perf_refresher;
/* Around publishing the snapshot: counters read together (perf_ratio()) come from one. */
static seqcount_t _hwtap_perf_seq = SEQCNT_ZERO(_hwtap_perf_seq);
static struct hwtap_perf_sum *_hwtap_perf_sums;	/* the snapshot's, before publishing */
static struct work_struct _hwtap_perf_fill_work;

/* @perf("NAME"): the counter's snapshot, from any context. */
static inline int64_t _hwtap_perf_value(struct hwtap_perf *p)
{
	return atomic64_read(&p->count);
}

/* A counting event's overflow handler: never called (it has no sample period), but with
 * one the kernel keeps the event's context pointer, P, and copies both to the events
 * children inherit: how _hwtap_perf_value_self() knows a task's event of P. */
static void _hwtap_perf_count_only(struct perf_event *event, struct perf_sample_data *data,
				 struct pt_regs *regs)
{
}

static perf_overflow_handler_t _hwtap_perf_handler(struct hwtap_perf *p)
{
	return p->handler ? p->handler : _hwtap_perf_count_only;
}

/* P's .cgroup, found (process context): 0, or -errno (-ENOENT, -ENOTDIR). A path is from
 * the root of the cgroup v2 hierarchy, as cgroup_path() gives it (its leading '/' may be
 * left out). */
static int _hwtap_perf_find_cgroup(struct hwtap_perf *p)
{
	struct cgroup *cg;

	if (!p->cgroup || p->cg)
		return 0;
	cg = cgroup_get_from_path(p->cgroup);
	if (IS_ERR(cg))
		return PTR_ERR(cg);
	p->cg = cg;
	return 0;
}

/* The cgroups the table's probes held put back: their events are gone. */
static void _hwtap_perf_put_cgroups(struct hwtap_perf *table, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (table[i].cg) {
			cgroup_put(table[i].cg);
			table[i].cg = NULL;
		}
}

/* A .cgroup sampling probe's filter: whether the task on this CPU is in the probe's cgroup
 * or one below it (as perf record -G counts). Any context: RCU, no lock. */
static __maybe_unused bool _hwtap_perf_in_cgroup(struct perf_event *event)
{
	const struct hwtap_perf *p = event->overflow_handler_context;
	bool in;

	rcu_read_lock();
	in = p->cg && task_under_cgroup_hierarchy(current, p->cg);
	rcu_read_unlock();
	return in;
}

/* EVENT's count, read in place if this CPU can take its context's lock at once: 0, or
 * -EBUSY when the lock is held. Perf holds that lock (IRQs off) across sched-in and -out,
 * rotation, its IPIs and the PMU callbacks they make, so a probe that fires inside them
 * (a kprobe on armpmu_add(), a tracepoint in a PMU's MSR write, an hrtimer's while
 * counters take turns) finds it held by this very CPU: spinning on it would never end.
 * Held, whoever holds it, the caller reads the snapshot. With the lock, an event ACTIVE
 * on this CPU is on this CPU's PMU (its state and oncpu change under that lock). IRQs
 * off: nothing on this CPU takes the lock meanwhile. */
static int _hwtap_perf_read_locked(struct perf_event *event, u64 *value)
{
	struct perf_event_context *ctx = READ_ONCE(event->ctx);

	lockdep_assert_irqs_disabled();
	if (!raw_spin_trylock(&ctx->lock))
		return -EBUSY;
	if (event->state == PERF_EVENT_STATE_ACTIVE && event->oncpu == smp_processor_id())
		event->pmu->read(event);
	*value = local64_read(&event->count);
	raw_spin_unlock(&ctx->lock);
	return 0;
}

/* Whether EVENT, in a task's context, is P's: ours (its overflow handler's context, which
 * inherited copies keep), or a group's that hwtap-run opened, marked with P's cookie. */
static bool _hwtap_perf_is_of(const struct hwtap_perf *p, const struct perf_event *event)
{
	return p->cookie ? event->attr.sig_data == p->cookie :
			   event->overflow_handler_context == p;
}

/* TASK's own event of P (created for it or inherited from the task it came from), read
 * in place: TASK is current and IRQs are off. 0; -ENOENT when TASK has none; -EBUSY
 * when its context's lock is held (_hwtap_perf_read_locked()). */
static int _hwtap_perf_read_task(struct hwtap_perf *p, struct task_struct *task, u64 *value)
{
	struct perf_event_context *ctx;
	struct perf_event *event;
	int i, rc = -ENOENT;

	lockdep_assert_irqs_disabled();
	rcu_read_lock();	/* a context is freed after a grace period */
	for (i = 0; i < _HWTAP_TASK_PERF_CTXS && rc == -ENOENT; i++) {
		ctx = READ_ONCE(_hwtap_task_perf_ctx(task, i));
		if (!ctx || !raw_spin_trylock(&ctx->lock)) {
			rc = ctx ? -EBUSY : rc;
			continue;
		}
		list_for_each_entry(event, &ctx->event_list, event_entry) {
			if (!_hwtap_perf_is_of(p, event))
				continue;
			if (event->state == PERF_EVENT_STATE_ACTIVE &&
			    event->oncpu == smp_processor_id())
				event->pmu->read(event);
			*value = local64_read(&event->count);
			rc = 0;
			break;
		}
		raw_spin_unlock(&ctx->lock);
	}
	rcu_read_unlock();
	return rc;
}

/* @perf("NAME") in a process or kprobe probe's handler (preemption disabled; a kprobe's
 * may be in an interrupt or NMI, reading the interrupted thread's): the calling thread's
 * own count, exact and unscaled, read in place with no IPI and no wait; for a
 * system-wide counter, this CPU's. A counter the thread has no event of (a .process
 * counter of another process), and a read where perf holds the event's context (an NMI,
 * or a probe inside perf's own scheduling of events: _hwtap_perf_read_locked()), read
 * the snapshot, as elsewhere. */
static __maybe_unused int64_t _hwtap_perf_value_self(struct hwtap_perf *p)
{
	struct perf_event *event;
	unsigned long flags;
	int rc = -ENOENT;
	u64 value = 0;

	/* (a kprobe's handler in an NMI: the NMI may have come in anywhere in perf) */
	if (in_nmi())
		return _hwtap_perf_value(p);
	local_irq_save(flags);
	if (p->target || p->exec_path) {
		rc = _hwtap_perf_read_task(p, current, &value);
	} else if (p->events) {
		/* the CPU is online while we run on it: its slot's event stays */
		event = READ_ONCE(this_cpu_ptr(p->events)->event);
		if (event)
			rc = _hwtap_perf_read_locked(event, &value);
	}
	local_irq_restore(flags);
	return rc ? _hwtap_perf_value(p) : (int64_t)min_t(u64, value, S64_MAX);
}

/* The counter .counter("NAME") of the session, or NULL; any context. */
static __maybe_unused struct hwtap_perf *_hwtap_perf_find(const char *name)
{
	int i;

	for (i = 0; i < _hwtap_perf_n; i++)
		if (_hwtap_perf_table[i].counter && !strcmp(_hwtap_perf_table[i].counter, name))
			return &_hwtap_perf_table[i];
	return NULL;
}

/* S's count as perf stat shows it: scaled by enabled/running when the events were off
 * the PMU part of the time (an estimate), 0 when they never ran; saturated at S64_MAX. */
static u64 _hwtap_perf_scaled(const struct hwtap_perf_sum *s)
{
	u64 whole;

	if (s->running >= s->enabled)
		return min_t(u64, s->count, S64_MAX);
	if (!s->running)
		return 0;
	/* count * (enabled / running + 1) bounds the result: the division cannot overflow */
	whole = div64_u64(s->enabled, s->running) + 1;
	if (s->count > div64_u64(S64_MAX, whole))
		return S64_MAX;
	return mul_u64_u64_div_u64(s->count, s->enabled, s->running);
}

/* Per ten thousand, the share of the enabled time S's events were on the PMU. */
static unsigned int _hwtap_perf_share(const struct hwtap_perf_sum *s)
{
	if (!s->enabled || s->running >= s->enabled)
		return 10000;
	return (unsigned int)mul_u64_u64_div_u64(s->running, 10000, s->enabled);
}

/* What an error from perf_event_create_kernel_counter() means for a script's author. */
static const char *_hwtap_perf_reason(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "ENOENT: this kernel has no such event here (a machine without a "
		       "hardware PMU, such as many virtual machines, counts software events only)";
	case -ENODEV:
		return "ENODEV: no PMU for this event on this CPU";
	case -EOPNOTSUPP:
		return "EOPNOTSUPP: the PMU cannot sample this event";
	case -EINVAL:
		return "EINVAL: the PMU refuses this type, config or period";
	case -EBUSY:
		return "EBUSY: the counter is taken (by the NMI watchdog or another tool?)";
	case -EACCES:
	case -EPERM:
		return "EACCES: not permitted (perf_event_paranoid or a security module)";
	case -ENOMEM:
		return "ENOMEM: out of memory";
	case -ENOSPC:
		return "ENOSPC: no free hardware counter (a pinned event must have one to itself "
		       "all the time)";
	default:
		return "the kernel refused it";
	}
}

/* Adds a counting event's count and times to SUM (process context: it may sleep). */
static void _hwtap_perf_read(struct hwtap_perf_sum *sum, struct perf_event *event)
{
	u64 enabled, running;

	sum->count += perf_event_read_value(event, &enabled, &running);
	sum->enabled += enabled;
	sum->running += running;
}

/* P's snapshot from SUM: what @perf, perf_enabled() and perf_running() read. */
static void _hwtap_perf_publish(struct hwtap_perf *p, const struct hwtap_perf_sum *sum)
{
	atomic64_set(&p->enabled, min_t(u64, sum->enabled, S64_MAX));
	atomic64_set(&p->running, min_t(u64, sum->running, S64_MAX));
	atomic64_set(&p->count, _hwtap_perf_scaled(sum));
}

/* Whether EVENT is pinned and was put in error state: the PMU could not keep it on (its
 * counters taken by other pinned or exclusive events), and it stopped counting. */
static bool _hwtap_perf_pinned_lost(struct perf_event *event)
{
	return event->attr.pinned && READ_ONCE(event->state) == PERF_EVENT_STATE_ERROR;
}

/* Releases one of P's events; a counting one's count is kept. _hwtap_perf_lock held. */
static void _hwtap_perf_release(struct hwtap_perf *p, struct perf_event *event)
{
	lockdep_assert_held(&_hwtap_perf_lock);
	if (_hwtap_perf_pinned_lost(event))
		p->pinned_lost = true;
	if (!p->handler)
		_hwtap_perf_read(&p->released, event);
	/* a group's goes with its file, once every counter of the group is read */
	if (p->group)
		return;
	/* returns once the event is off its CPU: its handler no longer runs */
	perf_event_release_kernel(event);
}

/* Frees P's slots of exited tasks, their counts kept (a counting probe's). An event
 * whose task exited (state EXIT) but has inherited children still counting stays: the
 * children's counts come back to it as they exit. _hwtap_perf_lock held. */
static void _hwtap_perf_reap(struct hwtap_perf *p)
{
	int t;

	lockdep_assert_held(&_hwtap_perf_lock);
	for (t = 0; t < p->ntasks; t++) {
		struct perf_event *event = p->tasks[t];
		bool alone;

		if (READ_ONCE(event->state) != PERF_EVENT_STATE_EXIT)
			continue;
		mutex_lock(&event->child_mutex);
		alone = list_empty(&event->child_list);
		mutex_unlock(&event->child_mutex);
		if (!alone)
			continue;
		_hwtap_perf_release(p, event);
		p->tasks[t--] = p->tasks[--p->ntasks];
	}
}

/* The snapshot: published all at once, so that counters read together are of one. */
static void _hwtap_perf_publish_all(void)
{
	int i;

	preempt_disable();	/* a reader in an interrupt here would retry in vain */
	write_seqcount_begin(&_hwtap_perf_seq);
	for (i = 0; i < _hwtap_perf_n; i++) {
		struct hwtap_perf *p = &_hwtap_perf_table[i];

		if (!p->handler && (p->events || p->ntasks))
			_hwtap_perf_publish(p, &_hwtap_perf_sums[i]);
	}
	write_seqcount_end(&_hwtap_perf_seq);
	preempt_enable();
}

/* Counters A's and B's snapshots, of one publication (any context; a reader that
 * interrupted the publishing on its own CPU takes what it finds). */
static __maybe_unused void _hwtap_perf_pair(struct hwtap_perf *a, struct hwtap_perf *b,
					    int64_t *va, int64_t *vb)
{
	unsigned int seq;
	int tries = 0;

	do {
		seq = raw_seqcount_begin(&_hwtap_perf_seq);
		*va = _hwtap_perf_value(a);
		*vb = _hwtap_perf_value(b);
	} while (read_seqcount_retry(&_hwtap_perf_seq, seq) && ++tries < 4);
}

/* Every counting event's snapshot: released counts plus its live events' counts. */
static void _hwtap_perf_snapshot(void)
{
	int i, t, cpu;

	mutex_lock(&_hwtap_perf_lock);	/* the events stay while we read them */
	for (i = 0; i < _hwtap_perf_n && _hwtap_perf_sums; i++) {
		struct hwtap_perf *p = &_hwtap_perf_table[i];
		struct hwtap_perf_sum sum;

		if (p->handler || (!p->events && !p->ntasks))
			continue;
		if (p->exec_path)
			_hwtap_perf_reap(p);	/* exited tasks' counts go to released */
		sum = p->released;
		for (t = 0; t < p->ntasks; t++)
			_hwtap_perf_read(&sum, p->tasks[t]);	/* with its children's */
		for_each_possible_cpu(cpu) {
			struct hwtap_perf_cpu *c;
			struct perf_event *event, *leaving, *dead;

			if (!p->events)
				break;
			c = per_cpu_ptr(p->events, cpu);
			/* an event is in one of the three at a time: read once, whatever
			 * the offline callback does meanwhile (the fill waits for us) */
			spin_lock(&_hwtap_perf_cpus_lock);
			event = c->event;
			leaving = c->leaving;
			dead = c->dead;
			spin_unlock(&_hwtap_perf_cpus_lock);
			if (event)
				_hwtap_perf_read(&sum, event);
			if (leaving)
				_hwtap_perf_read(&sum, leaving);
			if (dead)
				_hwtap_perf_read(&sum, dead);
		}
		_hwtap_perf_sums[i] = sum;
	}
	if (_hwtap_perf_sums)
		_hwtap_perf_publish_all();
	mutex_unlock(&_hwtap_perf_lock);
}

static void _hwtap_perf_refresh(struct work_struct *work)
{
	_hwtap_perf_snapshot();
	queue_delayed_work(system_highpri_wq, &_hwtap_perf_refresher,
			   msecs_to_jiffies(HWTAP_PERF_REFRESH_MS));
}

static bool _hwtap_perf_counting(struct hwtap_perf *table, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!table[i].handler)
			return true;
	return false;
}

/* Releases P's dead event on CPU and gives CPU an event if the online callback wants one
 * there and it has none. Process context, _hwtap_perf_lock held. 0, or the error of an
 * event that could not be created on a CPU that stayed online. */
static int _hwtap_perf_fill_cpu(struct hwtap_perf *p, unsigned int cpu)
{
	struct hwtap_perf_cpu *c = per_cpu_ptr(p->events, cpu);
	struct perf_event *dead, *event;
	unsigned int gen;
	bool want;

	lockdep_assert_held(&_hwtap_perf_lock);
	spin_lock(&_hwtap_perf_cpus_lock);
	dead = c->dead;
	c->dead = NULL;
	gen = c->gen;
	want = c->online && !c->event;
	spin_unlock(&_hwtap_perf_cpus_lock);
	if (dead)
		_hwtap_perf_release(p, dead);
	if (!want)
		return 0;
	p->attr.size = sizeof(p->attr);
	event = perf_event_create_kernel_counter(&p->attr, cpu, NULL, _hwtap_perf_handler(p), p);
	/* a CPU's event is scheduled as it is created: pinned, it is on the PMU now, or
	 * in error for good */
	if (!IS_ERR(event) && _hwtap_perf_pinned_lost(event)) {
		perf_event_release_kernel(event);
		event = ERR_PTR(-ENOSPC);
	}
	spin_lock(&_hwtap_perf_cpus_lock);
	if (c->gen != gen) {		/* CPU went offline meanwhile */
		spin_unlock(&_hwtap_perf_cpus_lock);
		if (!IS_ERR(event))
			_hwtap_perf_release(p, event);
		return 0;
	}
	if (!IS_ERR(event))
		c->event = event;
	spin_unlock(&_hwtap_perf_cpus_lock);
	return PTR_ERR_OR_ZERO(event);
}

/* The fill: every started system-wide probe's CPUs, after hotplug callbacks ran. */
static void _hwtap_perf_fill(struct work_struct *work)
{
	unsigned int cpu;
	int i, rc;

	mutex_lock(&_hwtap_perf_lock);
	for (i = 0; i < _hwtap_perf_n; i++) {
		struct hwtap_perf *p = &_hwtap_perf_table[i];

		if (!p->events || p->starting)
			continue;
		for_each_possible_cpu(cpu) {
			rc = _hwtap_perf_fill_cpu(p, cpu);
			if (rc)
				_hwtap_warn("%s (%s): no perf event on CPU %u, which came online: %s",
					    p->c.point, p->c.where, cpu, _hwtap_perf_reason(rc));
		}
	}
	mutex_unlock(&_hwtap_perf_lock);
}

/* Hotplug callbacks: under cpu_hotplug_lock, so no event is created or released here. */
static int _hwtap_perf_online(unsigned int cpu, struct hlist_node *node)
{
	struct hwtap_perf *p = hlist_entry(node, struct hwtap_perf, node);
	struct hwtap_perf_cpu *c = per_cpu_ptr(p->events, cpu);

	if (p->cpu >= 0 && cpu != p->cpu)
		return 0;
	if (p->group) {		/* no event can be made for it here: said at the stop */
		WRITE_ONCE(p->cpu_back, true);
		return 0;
	}
	spin_lock(&_hwtap_perf_cpus_lock);
	c->online = true;
	spin_unlock(&_hwtap_perf_cpus_lock);
	queue_work(system_unbound_wq, &_hwtap_perf_fill_work);
	return 0;
}

static int _hwtap_perf_offline(unsigned int cpu, struct hlist_node *node)
{
	struct hwtap_perf *p = hlist_entry(node, struct hwtap_perf, node);
	struct hwtap_perf_cpu *c = per_cpu_ptr(p->events, cpu);
	struct perf_event *event;

	/* a group's event stays: the perf core takes it off the CPU and keeps its count */
	if (p->group)
		return 0;
	/* leaving, not gone: a snapshot taken while it is disabled still counts it (a
	 * counter read without it would go down) */
	spin_lock(&_hwtap_perf_cpus_lock);
	event = c->event;
	c->event = NULL;
	c->leaving = event;
	c->online = false;
	c->gen++;
	spin_unlock(&_hwtap_perf_cpus_lock);
	if (!event)
		return 0;
	/* it fires no more; the perf core takes it off the CPU as the CPU goes */
	perf_event_disable(event);
	spin_lock(&_hwtap_perf_cpus_lock);
	/* the fill empties dead before it creates an event, so there is no other one */
	c->leaving = NULL;
	c->dead = event;
	spin_unlock(&_hwtap_perf_cpus_lock);
	queue_work(system_unbound_wq, &_hwtap_perf_fill_work);
	return 0;
}

/* Stops P's system-wide events: no callback for P after this, every event released. */
static void _hwtap_perf_stop_cpus(struct hwtap_perf *p)
{
	struct hwtap_perf_cpu __percpu *events = p->events;
	unsigned int cpu;

	cpuhp_state_remove_instance_nocalls(_hwtap_perf_state, &p->node);
	mutex_lock(&_hwtap_perf_lock);	/* not while the fill or the refresher has them */
	for_each_possible_cpu(cpu) {
		struct hwtap_perf_cpu *c = per_cpu_ptr(events, cpu);

		if (c->event)
			_hwtap_perf_release(p, c->event);
		if (c->dead)
			_hwtap_perf_release(p, c->dead);
	}
	p->events = NULL;
	p->starting = false;
	mutex_unlock(&_hwtap_perf_lock);
	free_percpu(events);
}

/* Releases P's events; a counting one keeps its final count for the end probes. */
static void _hwtap_perf_stop_one(struct hwtap_perf *p)
{
	int t;

	mutex_lock(&_hwtap_perf_lock);
	for (t = 0; t < p->ntasks; t++)
		/* its inherited copies go with it */
		_hwtap_perf_release(p, p->tasks[t]);
	p->ntasks = 0;
	mutex_unlock(&_hwtap_perf_lock);
	kfree(p->tasks);
	p->tasks = NULL;
	p->tasks_cap = 0;
	if (p->held) {
		perf_event_release_kernel(p->held);
		p->held = NULL;
	}
	if (p->exec.dentry) {
		if (atomic_read(&p->tasks_missed))
			_hwtap_warn("%s (%s): %d processes that executed %s were not followed "
				    "(more than HWTAP_PERF_MAX_TASKS, %d, alive at once, or %d "
				    "execs at once)",
				    p->c.point, p->c.where, atomic_read(&p->tasks_missed),
				    p->exec_path, HWTAP_PERF_MAX_TASKS, HWTAP_EXEC_QUEUE);
		path_put(&p->exec);
		p->exec.dentry = NULL;
	}
	if (p->events)
		_hwtap_perf_stop_cpus(p);
	if (p->group && READ_ONCE(p->cpu_back))
		_hwtap_warn("%s (%s): a CPU went offline and came back while the session ran: "
			    "group %s's events stopped counting on it as it went (hwtap-run opens "
			    "a group's events at the start)", p->c.point, p->c.where, p->group);
	if (p->pinned_lost)
		_hwtap_warn("%s (%s): pinned, but the PMU could not keep its event on (its counters "
			    "taken by other pinned or exclusive events): from then on it did not "
			    "count", p->c.point, p->c.where);
	if (p->handler || !p->c.created)
		return;
	_hwtap_perf_publish(p, &p->released);
	/* as perf stat's "(62.50%)": the count is an estimate */
	if (p->released.running < p->released.enabled) {
		unsigned int share = _hwtap_perf_share(&p->released);

		_hwtap_warn("%s (%s): counter %s was on the PMU %u.%02u%% of the time it was "
			    "enabled (more events than counters took turns): @perf(\"%s\") is its "
			    "count scaled to the whole time, an estimate", p->c.point, p->c.where,
			    p->counter, share / 100, share % 100, p->counter);
	}
}

/* Every group's files put back: their events go (the last of each with it). Process
 * context. */
static void _hwtap_perf_drop_files(struct hwtap_perf *table, int n)
{
	int i, f;

	for (i = 0; i < n; i++) {
		for (f = 0; f < table[i].nfiles; f++)
			fput(table[i].files[f]);
		kfree(table[i].files);
		table[i].files = NULL;
		table[i].nfiles = table[i].files_cap = 0;
	}
}

static void _hwtap_perf_stop(struct hwtap_perf *table, int n)
{
	int i;

	if (_hwtap_perf_state <= 0)
		return;
	_hwtap_perf_unwatch_execs();
	if (_hwtap_perf_counting(table, n))
		cancel_delayed_work_sync(&_hwtap_perf_refresher);
	for (i = 0; i < n; i++)
		_hwtap_perf_stop_one(&table[i]);
	/* every group's counters read: now their events go */
	_hwtap_perf_drop_files(table, n);
	_hwtap_perf_put_cgroups(_hwtap_perf_table, _hwtap_perf_n);
	/* no callback queues it any more; it finds no probe with events */
	cancel_work_sync(&_hwtap_perf_fill_work);
	cpuhp_remove_multi_state(_hwtap_perf_state);
	_hwtap_perf_state = 0;
	mutex_lock(&_hwtap_perf_lock);	/* a ctl read may be taking a snapshot */
	kfree(_hwtap_perf_sums);
	_hwtap_perf_sums = NULL;
	mutex_unlock(&_hwtap_perf_lock);
}

/* P could not be created: why, kept in P; an error now unless P is optional. */
#define _hwtap_perf_failed(p, rc, ...) _hwtap_choice_failed(&(p)->c, rc, __VA_ARGS__)

/* An event for TASK (and its children) in P's tasks: 0 or -errno (-E2BIG: a
 * .process("PATH") probe follows HWTAP_PERF_MAX_TASKS live tasks already). Process
 * context. */
static int _hwtap_perf_add_task(struct hwtap_perf *p, struct task_struct *task)
{
	struct perf_event *event;
	int rc = 0;

	/* P's attr has its size and inherit set at start: tasks come here at once */
	event = perf_event_create_kernel_counter(&p->attr, -1, task, _hwtap_perf_handler(p), p);
	if (IS_ERR(event))
		return PTR_ERR(event);
	mutex_lock(&_hwtap_perf_lock);	/* the refresher reads tasks */
	if (p->exec_path)
		_hwtap_perf_reap(p);	/* the bound is on tasks followed at once */
	if (p->exec_path && p->ntasks >= HWTAP_PERF_MAX_TASKS)
		rc = -E2BIG;
	else if (p->ntasks == p->tasks_cap) {
		int cap = p->tasks_cap ? 2 * p->tasks_cap : 4;
		struct perf_event **grown = krealloc(p->tasks, cap * sizeof(*grown), GFP_KERNEL);

		if (grown) {
			p->tasks = grown;
			p->tasks_cap = cap;
		}
	}
	if (!rc && p->ntasks < p->tasks_cap)
		p->tasks[p->ntasks++] = event;
	else if (!rc)
		rc = -ENOMEM;
	mutex_unlock(&_hwtap_perf_lock);
	if (rc)
		perf_event_release_kernel(event);
	return rc;
}

/* TASK's threads but those exiting, each with a reference, in a new array of *N; NULL
 * and 0 for none, ERR_PTR(-ENOMEM) when out of memory. Threads that start while we look
 * may be missed: perf has the same window (one event per /proc/PID/task entry); a thread
 * started later by a thread that has its event inherits it. */
static struct task_struct **_hwtap_perf_threads(struct task_struct *task, int *n)
{
	struct task_struct **threads = NULL, *t;
	int cap = 0, len, want, i;

	for (;;) {
		len = want = 0;
		rcu_read_lock();
		for_each_thread(task, t) {
			if (READ_ONCE(t->flags) & PF_EXITING)
				continue;
			if (len < cap)
				threads[len++] = get_task_struct(t);
			want++;
		}
		rcu_read_unlock();
		if (want <= cap)
			break;
		/* more threads than room (or the first look): make room, look again */
		for (i = 0; i < len; i++)
			put_task_struct(threads[i]);
		kfree(threads);
		cap = want + 16;
		threads = kmalloc_array(cap, sizeof(*threads), GFP_KERNEL);
		if (!threads)
			return ERR_PTR(-ENOMEM);
	}
	*n = len;
	if (!len) {
		kfree(threads);
		return NULL;
	}
	return threads;
}

/* Releases P's task events (a start that failed half-way). */
static void _hwtap_perf_drop_tasks(struct hwtap_perf *p)
{
	mutex_lock(&_hwtap_perf_lock);
	while (p->ntasks)
		perf_event_release_kernel(p->tasks[--p->ntasks]);
	mutex_unlock(&_hwtap_perf_lock);
}

/* A .process event on the target process: one per thread it has (-x PID of a running
 * process; -c CMD's has one), each inherited by the threads and children it starts. */
static int _hwtap_perf_start_target(struct hwtap_perf *p)
{
	struct task_struct *task = NULL, **threads;
	struct pid *pid;
	int i, n = 0, rc = 0;

	if (_hwtap_target <= 0)
		return _hwtap_perf_failed(p, -EINVAL, ".process needs a target process: run "
					  "the script with -c CMD or -x PID");
	/* a long from the command line: beyond pid_t it must not wrap to another process */
	if (_hwtap_target <= PID_MAX_LIMIT)
		pid = find_get_pid(_hwtap_target);
	else
		pid = NULL;
	if (pid)
		task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return _hwtap_perf_failed(p, -ESRCH, "no target process %ld", _hwtap_target);
	threads = _hwtap_perf_threads(task, &n);
	put_task_struct(task);
	p->attr.size = sizeof(p->attr);
	p->attr.inherit = 1;
	if (IS_ERR(threads))
		return _hwtap_perf_failed(p, -ENOMEM, "out of memory for the threads of process "
					  "%ld", _hwtap_target);
	if (!n)
		return _hwtap_perf_failed(p, -ESRCH, "target process %ld is exiting",
					  _hwtap_target);
	if (n > HWTAP_PERF_MAX_TASKS)
		rc = -E2BIG;
	for (i = 0; i < n; i++) {
		if (!rc) {
			rc = _hwtap_perf_add_task(p, threads[i]);
			/* a thread that exited since we looked has nothing left to count */
			if (rc == -ESRCH)
				rc = 0;
		}
		put_task_struct(threads[i]);
	}
	kfree(threads);
	if (!rc && !p->ntasks)
		rc = -ESRCH;
	if (!rc)
		return 0;
	_hwtap_perf_drop_tasks(p);
	if (rc == -E2BIG)
		return _hwtap_perf_failed(p, rc, "process %ld has %d threads, more than "
					  "HWTAP_PERF_MAX_TASKS (%d; -D HWTAP_PERF_MAX_TASKS=N)",
					  _hwtap_target, n, HWTAP_PERF_MAX_TASKS);
	if (rc == -ESRCH)
		return _hwtap_perf_failed(p, rc, "target process %ld is exiting", _hwtap_target);
	return _hwtap_perf_failed(p, rc, "cannot create its perf event (type %u, config "
				  "%#llx) for process %ld: %s", p->attr.type,
				  (unsigned long long)p->attr.config, _hwtap_target,
				  _hwtap_perf_reason(rc));
}

/* ---- .process("PATH"): the tasks that execute PATH ------------------------------------ */

/* An exec of a followed program waiting to be attached: a task_work that runs in the task
 * itself, in process context (it may sleep), before its first user-space instruction, and
 * creates its event there; so a process of a millisecond is counted whole. Up to
 * HWTAP_EXEC_QUEUE execs wait at once; that is only while each leaves exec(). */
struct hwtap_exec_attach {
	struct callback_head work;
	struct hwtap_perf *p;
	bool busy;
	pid_t pid;			/* the task it runs in, for the stop's warning */
	char comm[TASK_COMM_LEN];
};
static struct hwtap_exec_attach _hwtap_exec_slots[HWTAP_EXEC_QUEUE];
/* raw: taken in a tracepoint callback, with preemption off even on PREEMPT_RT */
static DEFINE_RAW_SPINLOCK(_hwtap_exec_lock);
static struct hwtap_twork _hwtap_exec_tworks;	/* their task_works (taskwork.h) */
static struct tracepoint *_hwtap_exec_tp;	/* while registered */

/* Whether current has an event of P already: one it inherited from the process that
 * started it (a followed process that runs PATH again: a shell script's shell, make's
 * make), which survives exec and goes on counting it. Process context: perf holds no
 * lock of current's here. */
static bool _hwtap_perf_has_event(struct hwtap_perf *p)
{
	struct perf_event_context *ctx;
	struct perf_event *event;
	unsigned long flags;
	bool found = false;
	int i;

	rcu_read_lock();	/* a context is freed after a grace period */
	for (i = 0; i < _HWTAP_TASK_PERF_CTXS && !found; i++) {
		ctx = READ_ONCE(_hwtap_task_perf_ctx(current, i));
		if (!ctx)
			continue;
		raw_spin_lock_irqsave(&ctx->lock, flags);
		list_for_each_entry(event, &ctx->event_list, event_entry) {
			if (_hwtap_perf_is_of(p, event)) {
				found = true;
				break;
			}
		}
		raw_spin_unlock_irqrestore(&ctx->lock, flags);
	}
	rcu_read_unlock();
	return found;
}

/* The task_work of an exec: the task's event, if it has none of P yet and P has room. */
static void _hwtap_perf_exec_attach(struct callback_head *work)
{
	struct hwtap_exec_attach *a = container_of(work, struct hwtap_exec_attach, work);
	struct hwtap_perf *p = a->p;
	unsigned long flags;
	int idx;

	/* task_works also run when a task exits before it got to user space; after the
	 * stop, the probe's events are gone: only the count is ours to touch */
	if (_hwtap_twork_begin(&_hwtap_exec_tworks, &idx)) {
		if (!(current->flags & PF_EXITING) && !_hwtap_perf_has_event(p) &&
		    _hwtap_perf_add_task(p, current))
			atomic_inc(&p->tasks_missed);
		_hwtap_twork_end(idx);
	}
	raw_spin_lock_irqsave(&_hwtap_exec_lock, flags);
	a->busy = false;
	raw_spin_unlock_irqrestore(&_hwtap_exec_lock, flags);
	_hwtap_twork_done(&_hwtap_exec_tworks);	/* the last touch of module memory */
}

/* sched_process_exec, in the task that executed BPRM's file (preemption off): for each
 * probe whose PATH it is, a task_work that attaches the task's event. */
static void _hwtap_perf_exec(void *data, struct task_struct *task, pid_t old_pid,
			     struct linux_binprm *bprm)
{
	struct inode *inode = file_inode(bprm->file);
	struct hwtap_exec_attach *a;
	unsigned long flags;
	int i, k;

	for (i = 0; i < _hwtap_perf_n; i++) {
		struct hwtap_perf *p = &_hwtap_perf_table[i];

		if (!p->exec.dentry || !p->c.created || d_inode(p->exec.dentry) != inode)
			continue;
		a = NULL;
		raw_spin_lock_irqsave(&_hwtap_exec_lock, flags);
		for (k = 0; k < HWTAP_EXEC_QUEUE && !a; k++)
			if (!_hwtap_exec_slots[k].busy)
				a = &_hwtap_exec_slots[k];
		if (a) {
			a->busy = true;
			a->p = p;
			a->pid = task->pid;
			strscpy(a->comm, task->comm, sizeof(a->comm));	/* current's: no lock */
		}
		raw_spin_unlock_irqrestore(&_hwtap_exec_lock, flags);
		if (!a) {
			atomic_inc(&p->tasks_missed);
			continue;
		}
		_hwtap_twork_queued(&_hwtap_exec_tworks);
		init_task_work(&a->work, _hwtap_perf_exec_attach);
		if (!task_work_add(task, &a->work, TWA_RESUME))
			continue;
		/* the task is exiting: nothing to count (the stop looks at the count only
		 * once this callback is gone) */
		raw_spin_lock_irqsave(&_hwtap_exec_lock, flags);
		a->busy = false;
		raw_spin_unlock_irqrestore(&_hwtap_exec_lock, flags);
		_hwtap_twork_done(&_hwtap_exec_tworks);
	}
}

/* Starts following execs, once the probes are created: 0 or -errno. */
static int _hwtap_perf_watch_execs(struct hwtap_perf *table, int n)
{
	int i, rc;

	for (i = 0; i < n && !(table[i].exec_path && table[i].c.created); i++)
		;
	if (i == n)
		return 0;
	_hwtap_exec_tp = _hwtap_find_tracepoint("sched_process_exec");
	if (!_hwtap_exec_tp) {
		_hwtap_script_error("%s (%s): this kernel has no sched_process_exec tracepoint "
				    "to follow execs of %s with", table[i].c.point, table[i].c.where,
				    table[i].exec_path);
		return -ENOENT;
	}
	_hwtap_twork_restart(&_hwtap_exec_tworks);
	rc = tracepoint_probe_register(_hwtap_exec_tp, _hwtap_perf_exec, NULL);
	if (rc) {
		_hwtap_script_error("%s (%s): cannot watch the sched_process_exec tracepoint "
				    "(%d)", table[i].c.point, table[i].c.where, rc);
		_hwtap_exec_tp = NULL;
	}
	return rc;
}

/* Stops following execs: no exec handler runs, no task_work of ours is pending, and no
 * task is still in this module's code. */
static void _hwtap_perf_unwatch_execs(void)
{
	int k, left;

	if (!_hwtap_exec_tp)
		return;
	tracepoint_probe_unregister(_hwtap_exec_tp, _hwtap_perf_exec, NULL);
	/* pairs with the handlers that were running: none runs after this */
	tracepoint_synchronize_unregister();
	_hwtap_exec_tp = NULL;
	/* a task_work runs as its task leaves exec() or exits, soon (a ptrace stop at the
	 * exec runs it first); one whose task is held anyway runs later, touching no event */
	left = _hwtap_twork_stop(&_hwtap_exec_tworks);
	if (!left)
		synchronize_rcu_tasks();	/* the last are past their count */
	for (k = 0; left && k < HWTAP_EXEC_QUEUE; k++) {
		struct hwtap_exec_attach *a = &_hwtap_exec_slots[k];
		char who[64];

		if (!READ_ONCE(a->busy))
			continue;
		_hwtap_twork_who(who, sizeof(who), a->pid, a->comm);
		_hwtap_twork_warn("", left, who, "executed a followed program");
		break;
	}
}

/* A .process("PATH") probe: PATH resolved, and its event known to be creatable here.
 * The event tried on this task is kept, disabled, until the probe stops: creating and
 * releasing events switches static keys (perf_swevent_enabled[]), which patches kernel
 * text on every 0 <-> 1 change; holding one keeps the key on while execs come and go. */
static int _hwtap_perf_start_exec(struct hwtap_perf *p)
{
	struct perf_event_attr attr = p->attr;
	struct perf_event *event;
	int rc = kern_path(p->exec_path, LOOKUP_FOLLOW, &p->exec);

	if (rc) {
		p->exec.dentry = NULL;
		return _hwtap_perf_failed(p, rc, "cannot find %s (%d)", p->exec_path, rc);
	}
	p->attr.size = sizeof(p->attr);
	p->attr.inherit = 1;
	/* the PMU may not have the event at all */
	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.inherit = 0;
	event = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	if (IS_ERR(event)) {
		path_put(&p->exec);
		p->exec.dentry = NULL;
		return _hwtap_perf_failed(p, PTR_ERR(event), "cannot create its perf event "
					  "(type %u, config %#llx) for a process: %s",
					  p->attr.type, (unsigned long long)p->attr.config,
					  _hwtap_perf_reason(PTR_ERR(event)));
	}
	p->held = event;
	return 0;
}

/* A system-wide event: one per online CPU, followed through hotplug. */
static int _hwtap_perf_start_cpus(struct hwtap_perf *p)
{
	struct hwtap_perf_cpu __percpu *events;
	unsigned int cpu;
	int rc = 0;

	if (p->cpu >= 0 && (p->cpu >= nr_cpu_ids || !cpu_online(p->cpu)))
		return _hwtap_perf_failed(p, -ENODEV, "CPU %d, which its event names, is not "
					  "online", p->cpu);
	events = alloc_percpu(struct hwtap_perf_cpu);
	if (!events)
		return _hwtap_perf_failed(p, -ENOMEM, "out of memory for its perf events");
	mutex_lock(&_hwtap_perf_lock);	/* the fill sees P's events as starting: ours */
	p->events = events;
	p->starting = true;
	mutex_unlock(&_hwtap_perf_lock);
	/* runs the online callback on every online CPU: they want events now */
	rc = cpuhp_state_add_instance(_hwtap_perf_state, &p->node);
	if (rc) {
		mutex_lock(&_hwtap_perf_lock);
		p->events = NULL;
		p->starting = false;
		mutex_unlock(&_hwtap_perf_lock);
		free_percpu(events);
		return _hwtap_perf_failed(p, rc, "cannot register for CPU hotplug (%d)", rc);
	}
	mutex_lock(&_hwtap_perf_lock);
	for_each_possible_cpu(cpu) {
		rc = _hwtap_perf_fill_cpu(p, cpu);
		if (rc)
			break;
	}
	/* on a failure P stays ours until _hwtap_perf_stop_cpus() takes its events away:
	 * the fill would warn about the CPUs that refused, as if they had come online */
	if (!rc)
		p->starting = false;
	mutex_unlock(&_hwtap_perf_lock);
	if (!rc) {
		/* for a CPU that came online while we filled */
		queue_work(system_unbound_wq, &_hwtap_perf_fill_work);
		return 0;
	}
	_hwtap_perf_stop_cpus(p);
	return _hwtap_perf_failed(p, rc, "cannot create its perf event (type %u, config "
				  "%#llx) on CPU %u: %s", p->attr.type,
				  (unsigned long long)p->attr.config, cpu,
				  _hwtap_perf_reason(rc));
}

#include "perf_group.c"

/* ctl's "counter NAME VALUE" and "counter_time ENABLED RUNNING NAME" lines: each counting
 * event's snapshot, as @perf, perf_enabled() and perf_running() read it. (A hwtap-run
 * older than counter_time skips the key.) */
static size_t _hwtap_perf_ctl(char *buf, size_t len)
{
	size_t n = 0;
	int i;

	/* ctl is read in process context: the values as of now, refreshed or not */
	_hwtap_perf_snapshot();
	for (i = 0; i < _hwtap_perf_n; i++) {
		struct hwtap_perf *p = &_hwtap_perf_table[i];

		if (!p->counter)
			continue;
		n += scnprintf(buf + n, len - n, "counter %s %lld\ncounter_time %lld %lld %s\n",
			       p->counter, (long long)_hwtap_perf_value(p),
			       (long long)atomic64_read(&p->enabled),
			       (long long)atomic64_read(&p->running), p->counter);
	}
	return n;
}

static int _hwtap_perf_start(struct hwtap_perf *table, int n, bool live)
{
	int i, rc;

	_hwtap_perf_live = live;
	_hwtap_perf_table = table;
	_hwtap_perf_n = n;
	WRITE_ONCE(_hwtap_ctl_more, _hwtap_perf_ctl);
	INIT_DELAYED_WORK(&_hwtap_perf_refresher, _hwtap_perf_refresh);
	INIT_WORK(&_hwtap_perf_fill_work, _hwtap_perf_fill);
	rc = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "hwtap/perf:" HWTAP_MODULE_NAME,
				     _hwtap_perf_online, _hwtap_perf_offline);
	if (rc < 0) {
		_hwtap_script_error("cannot follow CPU hotplug for perf probes (%d): too many "
				    "modules use dynamic hotplug states", rc);
		return rc;
	}
	_hwtap_perf_state = rc;
	_hwtap_perf_sums = kcalloc(n, sizeof(*_hwtap_perf_sums), GFP_KERNEL);
	if (!_hwtap_perf_sums) {
		_hwtap_script_error("out of memory for the perf counters' snapshot");
		i = 0;
		rc = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		struct hwtap_perf *p = &table[i];

		if (_hwtap_choice_replacement(table, sizeof(*table), i)) {
			p->c.skipped = true;
			continue;
		}
		rc = _hwtap_perf_find_cgroup(p);
		if (rc) {
			_hwtap_perf_failed(p, rc, "no cgroup %s in the cgroup v2 hierarchy (%s): "
					   "a path from its root, as cgroup_path() gives it "
					   "(/sys/fs/cgroup/a/b is /a/b)", p->cgroup,
					   rc == -ENOTDIR ? "that is a file" : "no such cgroup");
			if (!p->c.optional)
				goto fail;
			continue;
		}
		rc = p->group ? _hwtap_perf_start_group(p, table) :
		     p->target ? _hwtap_perf_start_target(p) :
		     p->exec_path ? _hwtap_perf_start_exec(p) : _hwtap_perf_start_cpus(p);
		if (!rc)
			p->c.created = true;
		else if (!p->c.optional)
			goto fail;
	}
	rc = _hwtap_perf_watch_execs(table, n);
	if (rc)
		goto fail;
	_hwtap_choice_report(table, sizeof(*table), n);
	if (_hwtap_perf_live && _hwtap_perf_counting(table, n))
		queue_delayed_work(system_highpri_wq, &_hwtap_perf_refresher, 0);
	return 0;

fail:
	_hwtap_perf_stop(table, i);
	return rc;
}

#endif /* HWTAP_PERF_C */
