/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ras.c - the lifetimes of a module's ras probes: each one is a kernel tracepoint
 * (mce:mce_record, ras:memory_failure_event ...) found by name when the session starts,
 * watched until it stops. Included by the generated module.c after session.h.
 *
 * The generated code writes, for each probe, a callback with its tracepoint's arguments
 * that copies the event's fields into a record (struct hwtap_ras_record: the longs and
 * the strings its context variables read) and hands it to _hwtap_ras_deliver(); and a
 * handler that runs the probe's body on a record. It calls
 *   _hwtap_ras_start(table, n)   before the begin probes: every tracepoint watched, or
 *                                -errno after reporting which one could not be and why
 *                                (the '?' and '!' rules of choice.h decide)
 *   _hwtap_ras_go()              once the session runs: the records that arrived before
 *                                are handled, in order, and later ones as they come
 *   _hwtap_ras_stop(table, n)    from hwtap_stop(): no callback runs once it returns
 *
 * Hardware errors are rare and each one matters, so none is dropped unsaid: records that
 * arrive while the begin probes run wait in a queue (HWTAP_RAS_QUEUE records) and are
 * handled before any later one; beyond that they are counted, and the stop reports each
 * probe's count. A record whose handler cannot run (its CPU's context is taken, a global's
 * lock stays busy) is counted with the skipped probes, as for any event. What a handler
 * printed wakes the reader at once (other output waits for the tick: transport.h).
 *
 * A live record's handler runs inside the tracepoint's call, so the pointers the event
 * passed (a firmware record's payload: ras.arm's pei_err, ras.non_standard's err, the
 * kernel.trace spellings' arguments) may be read there; a queued record's are 0.
 *
 * The callbacks run where the kernel fires the tracepoint, with preemption disabled:
 * mce_record in a kworker (the kernel's MCE decoding work), memory_failure_event in the
 * task whose page failed or in the kworker of the MCE that found it, aer_event in an
 * interrupt thread. The queue's lock is a raw spinlock for PREEMPT_RT kernels.
 */
#ifndef HWTAP_RAS_C
#define HWTAP_RAS_C

#include <linux/preempt.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "../choice.h"
#include "../tracepoint.h"

#ifndef HWTAP_RAS_QUEUE
#define HWTAP_RAS_QUEUE 64		/* records waiting for the begin probes to finish */
#endif
#define HWTAP_RAS_LONGS 26		/* the most longs a source has (mce:mce_record) */
#define HWTAP_RAS_STRINGS 5		/* and string fields (ras.devlink_health) */

/* One event's fields, in the order of its probe point's context variables. */
struct hwtap_ras_record {
	int64_t v[HWTAP_RAS_LONGS];
	char s[HWTAP_RAS_STRINGS][MAXSTRINGLEN];
};

struct hwtap_ras {
	struct hwtap_choice c;			/* first: its point, '?' and '!' */
	/* set by the generated code */
	const char *tracepoint;			/* "mce_record" */
	const char *config;			/* the kernel option it needs: "CONFIG_X86_MCE" */
	void *callback;				/* NULL: this kernel was built without config */
	void (*handler)(const struct hwtap_ras_record *r);
	u32 pointers;				/* the v[] that are pointers the tracepoint
						 * passed: valid while it fires, not after */
	/* the runtime's */
	struct tracepoint *tp;			/* while watched */
	atomic_t lost;				/* records that found the queue full */
};

static struct {
	struct hwtap_ras *src;
	struct hwtap_ras_record rec;
} _hwtap_ras_queue[HWTAP_RAS_QUEUE];
static int _hwtap_ras_head, _hwtap_ras_len;
static bool _hwtap_ras_live;		/* records go straight to their handler */
static DEFINE_RAW_SPINLOCK(_hwtap_ras_lock);

/* A queued record outlives its tracepoint's call: the pointers it passed become 0. */
static void _hwtap_ras_forget_pointers(const struct hwtap_ras *src, struct hwtap_ras_record *r)
{
	u32 m = src->pointers;

	while (m) {
		r->v[__ffs(m)] = 0;
		m &= m - 1;
	}
}

/* From a tracepoint callback: R handled now, or queued until the session runs. */
static void _hwtap_ras_deliver(struct hwtap_ras *src, const struct hwtap_ras_record *r)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&_hwtap_ras_lock, flags);
	if (!_hwtap_ras_live) {
		if (_hwtap_ras_len < HWTAP_RAS_QUEUE) {
			int i = (_hwtap_ras_head + _hwtap_ras_len++) % HWTAP_RAS_QUEUE;

			_hwtap_ras_queue[i].src = src;
			_hwtap_ras_queue[i].rec = *r;
			_hwtap_ras_forget_pointers(src, &_hwtap_ras_queue[i].rec);
		} else {
			atomic_inc(&src->lost);
		}
		raw_spin_unlock_irqrestore(&_hwtap_ras_lock, flags);
		return;
	}
	raw_spin_unlock_irqrestore(&_hwtap_ras_lock, flags);
	src->handler(r);
	/* a hardware error's output is news: the reader wakes now, not at the next tick */
	_hwtap_wake_reader(false);
}

/* The queued records, oldest first, then live delivery. Process context; a record that
 * arrives meanwhile joins the queue's end, so the order holds. */
static void _hwtap_ras_go(void)
{
	static struct hwtap_ras_record rec;	/* one caller, in process context */
	struct hwtap_ras *src;

	for (;;) {
		raw_spin_lock_irq(&_hwtap_ras_lock);
		if (!_hwtap_ras_len) {
			_hwtap_ras_live = true;
			raw_spin_unlock_irq(&_hwtap_ras_lock);
			return;
		}
		src = _hwtap_ras_queue[_hwtap_ras_head].src;
		rec = _hwtap_ras_queue[_hwtap_ras_head].rec;
		_hwtap_ras_head = (_hwtap_ras_head + 1) % HWTAP_RAS_QUEUE;
		_hwtap_ras_len--;
		raw_spin_unlock_irq(&_hwtap_ras_lock);
		preempt_disable();	/* as where the tracepoint fires */
		src->handler(&rec);
		preempt_enable();
	}
}

static void _hwtap_ras_stop(struct hwtap_ras *table, int n)
{
	bool any = false;
	int i;

	for (i = 0; i < n; i++) {
		struct hwtap_ras *r = &table[i];

		if (!r->tp)
			continue;
		tracepoint_probe_unregister(r->tp, r->callback, r);
		r->tp = NULL;
		any = true;
	}
	if (any)	/* no callback runs after this */
		tracepoint_synchronize_unregister();
	for (i = 0; i < n; i++)
		if (atomic_read(&table[i].lost))
			_hwtap_warn("%s (%s): %d records arrived while the begin probes ran and "
				    "found the queue full (HWTAP_RAS_QUEUE %d): not handled",
				    table[i].c.point, table[i].c.where,
				    atomic_read(&table[i].lost), HWTAP_RAS_QUEUE);
	_hwtap_ras_live = false;
	_hwtap_ras_head = _hwtap_ras_len = 0;
}

/* Watches R's tracepoint: 0, or -errno with its reason noted. */
static int _hwtap_ras_watch(struct hwtap_ras *r)
{
	struct tracepoint *tp;
	int rc;

	if (!r->callback)
		return _hwtap_choice_failed(&r->c, -ENOENT, "this kernel was built without %s: "
					    "it has no %s tracepoint", r->config, r->tracepoint);
	tp = _hwtap_find_tracepoint(r->tracepoint);
	if (!tp)
		return _hwtap_choice_failed(&r->c, -ENOENT, "this kernel has no %s tracepoint",
					    r->tracepoint);
	rc = tracepoint_probe_register(tp, r->callback, r);
	if (rc)
		return _hwtap_choice_failed(&r->c, rc, "cannot watch the %s tracepoint (%d)",
					    r->tracepoint, rc);
	r->tp = tp;
	return 0;
}

static int _hwtap_ras_start(struct hwtap_ras *table, int n)
{
	int i, rc;

	_hwtap_ras_live = false;
	for (i = 0; i < n; i++) {
		struct hwtap_ras *r = &table[i];

		atomic_set(&r->lost, 0);
		if (_hwtap_choice_replacement(table, sizeof(*table), i)) {
			r->c.skipped = true;
			continue;
		}
		rc = _hwtap_ras_watch(r);
		if (!rc)
			r->c.created = true;
		else if (!r->c.optional)
			goto fail;
	}
	_hwtap_choice_report(table, sizeof(*table), n);
	return 0;

fail:
	_hwtap_ras_stop(table, i);
	return rc;
}

#endif /* HWTAP_RAS_C */
