/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroups.c - the cgroup (cgroup v2's, the unified hierarchy) of the current task in any
 * handler, for cgroup_id() and cgroup_path() (tapset/cgroup.stp), and the cgroup of a
 * perf probe's .cgroup("PATH") (probes/perf.c).
 *
 * An id is read lock-free: the task's css_set under RCU, which NMI handlers may take.
 * A path is not: the kernel's cgroup_path() takes kernfs_rename_lock, so a handler in
 * NMI, or one inside a section that holds it (a kprobe on a kernfs function), could wait
 * on its own CPU forever. So paths come from a table this file keeps:
 *
 *   - HWTAP_CGROUP_MAX slots (-D; 1024), open addressing by id. A slot, once published,
 *     never changes: its path is written first, its id last with a release store, and a
 *     reader acquires the id before it reads the path. cgroup v2 ids are never reused.
 *   - Filled at the start with every cgroup alive then (a walk of the hierarchy under
 *     RCU, in process context), and later for each id a handler did not find: the
 *     handler puts the id in a small ring (HWTAP_CGROUP_PENDING ids, cmpxchg) and queues
 *     an irq_work, whose callback (hard IRQ, never NMI) schedules a work item; the work
 *     (process context) names each id (cgroup_get_from_id(), kernfs) and publishes it.
 *     Until then a new cgroup's path is "" (cgroup_id() is right at once); how often that
 *     happened is said at the stop.
 *   - A cgroup renamed after it was named keeps its first name here.
 * The table is static (module memory): end probes, which run after the stop, still read
 * it; only the work is stopped.
 */
#ifndef HWTAP_CGROUPS_C
#define HWTAP_CGROUPS_C

#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>

#ifndef HWTAP_CGROUP_MAX
#define HWTAP_CGROUP_MAX 1024		/* cgroups named at once: a power of two */
#endif
#define HWTAP_CGROUP_PATH_MAX 256	/* a path's bytes, its NUL included */
#define HWTAP_CGROUP_PENDING 64		/* ids waiting for the work */

#if HWTAP_CGROUP_MAX & (HWTAP_CGROUP_MAX - 1)
#error "HWTAP_CGROUP_MAX must be a power of two"
#endif

struct hwtap_cgroup_name {
	u64 id;				/* 0: free; published last */
	char path[HWTAP_CGROUP_PATH_MAX];
};

static struct hwtap_cgroup_name _hwtap_cgroup_names[HWTAP_CGROUP_MAX];
static atomic64_t _hwtap_cgroup_pending[HWTAP_CGROUP_PENDING];
static DEFINE_MUTEX(_hwtap_cgroup_lock);	/* the writers: the start and the work */
static bool _hwtap_cgroup_live;			/* the work may be queued */
static atomic_t _hwtap_cgroup_unnamed;		/* lookups that gave "" */
static atomic_t _hwtap_cgroup_full;		/* names the table had no room for */
static void _hwtap_cgroup_resolve(struct work_struct *work);
static DECLARE_WORK(_hwtap_cgroup_work, _hwtap_cgroup_resolve);

/* The id of TASK's cgroup in the unified hierarchy (the root's is 1). Any context. */
static inline u64 _hwtap_cgroup_id(struct task_struct *task)
{
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(task));
	rcu_read_unlock();
	return id;
}

/* The published slot of ID, or NULL. Any context: at most HWTAP_CGROUP_MAX slots read. */
static const struct hwtap_cgroup_name *_hwtap_cgroup_find(u64 id)
{
	unsigned int i, at = hash_64(id, ilog2(HWTAP_CGROUP_MAX));

	for (i = 0; i < HWTAP_CGROUP_MAX; i++) {
		struct hwtap_cgroup_name *n = &_hwtap_cgroup_names[(at + i) % HWTAP_CGROUP_MAX];
		u64 seen = smp_load_acquire(&n->id);

		if (seen == id)
			return n;
		if (!seen)
			return NULL;
	}
	return NULL;
}

/* CGRP's path in a slot for its id. _hwtap_cgroup_lock held; process context (kernfs). */
static void _hwtap_cgroup_add(struct cgroup *cgrp)
{
	u64 id = cgroup_id(cgrp);
	unsigned int i, at = hash_64(id, ilog2(HWTAP_CGROUP_MAX));

	lockdep_assert_held(&_hwtap_cgroup_lock);
	for (i = 0; i < HWTAP_CGROUP_MAX; i++) {
		struct hwtap_cgroup_name *n = &_hwtap_cgroup_names[(at + i) % HWTAP_CGROUP_MAX];

		if (n->id == id)
			return;
		if (n->id)
			continue;
		if (cgroup_path(cgrp, n->path, sizeof(n->path)) < 0)
			strscpy(n->path, "", sizeof(n->path));
		smp_store_release(&n->id, id);
		return;
	}
	atomic_inc(&_hwtap_cgroup_full);
}

static void _hwtap_cgroup_resolve(struct work_struct *work)
{
	int k;

	mutex_lock(&_hwtap_cgroup_lock);
	for (k = 0; k < HWTAP_CGROUP_PENDING; k++) {
		u64 id = atomic64_xchg(&_hwtap_cgroup_pending[k], 0);
		struct cgroup *cgrp;

		if (!id || _hwtap_cgroup_find(id))
			continue;
		cgrp = cgroup_get_from_id(id);
		if (IS_ERR_OR_NULL(cgrp))
			continue;	/* gone already */
		_hwtap_cgroup_add(cgrp);
		cgroup_put(cgrp);
	}
	mutex_unlock(&_hwtap_cgroup_lock);
}

static void _hwtap_cgroup_kick(struct irq_work *w)
{
	schedule_work(&_hwtap_cgroup_work);
}

static struct irq_work _hwtap_cgroup_irq_work = IRQ_WORK_INIT(_hwtap_cgroup_kick);

/* ID to be named by the work. Any context. */
static void _hwtap_cgroup_ask(u64 id)
{
	unsigned int k, at = id % HWTAP_CGROUP_PENDING;

	if (!READ_ONCE(_hwtap_cgroup_live))
		return;
	for (k = 0; k < HWTAP_CGROUP_PENDING; k++)
		if (atomic64_read(&_hwtap_cgroup_pending[k]) == id)
			return;		/* asked already */
	for (k = 0; k < HWTAP_CGROUP_PENDING; k++)
		if (atomic64_cmpxchg(&_hwtap_cgroup_pending[(at + k) % HWTAP_CGROUP_PENDING],
				     0, id) == 0)
			break;
	irq_work_queue(&_hwtap_cgroup_irq_work);
}

/* TASK's cgroup path as cgroup_path() gives it ("/" the root, "/system.slice/x.service"),
 * in BUF (LEN bytes): "" while the table does not have it yet. Any context. */
static void _hwtap_cgroup_path(char *buf, size_t len, struct task_struct *task)
{
	u64 id = _hwtap_cgroup_id(task);
	const struct hwtap_cgroup_name *n = _hwtap_cgroup_find(id);

	if (n) {
		strscpy(buf, n->path, len);
		return;
	}
	buf[0] = '\0';
	atomic_inc(&_hwtap_cgroup_unnamed);
	_hwtap_cgroup_ask(id);
}

/* Every cgroup alive now in the table. Process context, before any handler runs. */
static int _hwtap_cgroups_start(void)
{
	struct cgroup_subsys_state *css;

	mutex_lock(&_hwtap_cgroup_lock);
	rcu_read_lock();
	css_for_each_descendant_pre(css, &cgrp_dfl_root.cgrp.self)
		_hwtap_cgroup_add(css->cgroup);
	rcu_read_unlock();
	mutex_unlock(&_hwtap_cgroup_lock);
	WRITE_ONCE(_hwtap_cgroup_live, true);
	return 0;
}

/* After every handler but the end probes': the work stopped, the table kept for them. */
static void _hwtap_cgroups_stop(void)
{
	int unnamed = atomic_read(&_hwtap_cgroup_unnamed);
	int full = atomic_read(&_hwtap_cgroup_full);

	WRITE_ONCE(_hwtap_cgroup_live, false);
	irq_work_sync(&_hwtap_cgroup_irq_work);
	cancel_work_sync(&_hwtap_cgroup_work);
	if (full)
		_hwtap_warn("cgroup_path(): %d times a cgroup was not named, the table of %d was "
			    "full (-D HWTAP_CGROUP_MAX=N, a power of two)", full, HWTAP_CGROUP_MAX);
	if (unnamed)
		_hwtap_note("cgroup_path(): %d calls gave \"\": their cgroups were made after the "
			    "start, and not yet named (a work item names each soon after)",
			    unnamed);
}

#endif /* HWTAP_CGROUPS_C */
