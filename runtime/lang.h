/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lang.h - what generated probe handlers use: the per-CPU probe context with its
 * reentrancy guard, action counting, runtime errors that unwind a handler, the print
 * buffer flushed to the transport once per handler, the locks of global variables and
 * the overload guard.
 *
 * Included by the generated module after session.h. The generated code defines
 * struct hwtap_context, whose first member is struct hwtap_context_base, and
 * hwtap_contexts, a per-CPU pointer to each CPU's (_hwtap_contexts_alloc()); everything
 * here works on the base.
 *
 * Nothing here sleeps or allocates: handlers run in hard-irq and NMI context.
 */
#ifndef HWTAP_LANG_H
#define HWTAP_LANG_H

#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/timex.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/topology.h>
#include <linux/prandom.h>

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 128
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
/* SystemTap 4.8 builds with INTERRUPTIBLE 1, and then every handler may run
 * MAXACTION_INTERRUPTIBLE actions (its name and default); -D INTERRUPTIBLE=0 makes it
 * MAXACTION. */
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
#endif
#ifndef INTERRUPTIBLE
#define INTERRUPTIBLE 1
#endif
#ifndef MAXNESTING
#define MAXNESTING 10
#endif
/* A busy lock is tried MAXTRYLOCK times, TRYLOCKDELAY microseconds apart (SystemTap's
 * names and defaults: at most about 1 ms), before the handler gives up and is skipped. */
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 100
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
/*
 * The overload guard, under SystemTap's names and with its defaults: when the handlers of
 * event probes (timers, perf; not begin, end or error) take more than
 * STP_OVERLOAD_THRESHOLD of an STP_OVERLOAD_INTERVAL on one CPU, in get_cycles() units,
 * that is an error and the session ends: a script must not eat the machine.
 * -D STP_NO_OVERLOAD turns the check off.
 */
#ifndef STP_NO_OVERLOAD
#define HWTAP_OVERLOAD 1
#endif
#ifndef STP_OVERLOAD_INTERVAL
#define STP_OVERLOAD_INTERVAL 1000000000LL
#endif
#ifndef STP_OVERLOAD_THRESHOLD
#define STP_OVERLOAD_THRESHOLD 500000000LL
#endif
#ifndef HWTAP_PRINTBUF
#define HWTAP_PRINTBUF 4000     /* one transport record */
#endif

/* What kind of probe a handler is: when it may run, whether the overload guard times it. */
enum hwtap_probe_kind {
	HWTAP_PROBE_BEGIN,              /* begin: not after exit(), not timed */
	HWTAP_PROBE_EVENT,              /* timers, perf: not after exit(), timed */
	HWTAP_PROBE_FINAL,              /* end, error: always, not timed */
};

/* The most @entry() expressions one .return probe has (the translator checks), and of
 * them strings, in this module (the translator defines it when there are some). */
#define HWTAP_UENTRY_MAX 8
#ifndef HWTAP_UENTRY_STRS
#define HWTAP_UENTRY_STRS 0
#endif

struct hwtap_context_base {
	atomic_t busy;                  /* a handler runs on this CPU: others skip */
	u8 kind;                        /* enum hwtap_probe_kind of the running handler */
	cycles_t entered;               /* get_cycles() when it started */
	cycles_t interval_start;        /* the overload guard's current interval, */
	cycles_t interval_used;         /* and what handlers took of it */
	const char *probe_point;        /* "timer.ms(100)", for errors and pp() */
	const char *probe_name;         /* pn()'s alias name ("my.alias"), or NULL: pp() */
	const char *last_stmt;          /* where the error happened, as SystemTap says it:
					 * "operator '/' at script.stp:3:5" */
	const char *last_error;         /* set by an error: the handler unwinds */
	bool plain_error;               /* error("msg"): reported without a place */
	char error_buf[MAXSTRINGLEN];
	long actions_left;
	int nesting;                    /* function call depth */
	struct pt_regs *regs;           /* the interrupted registers, or NULL */
	struct task_struct *task;       /* whose pid(), execname() ...: current, but for
					 * process begin probes (tasks.c) */
	int user_mode_p;
	size_t print_len;
	char print_buf[HWTAP_PRINTBUF];
	int64_t uentry[HWTAP_UENTRY_MAX];	/* a process .return probe's @entry values */
#if HWTAP_UENTRY_STRS
	char uentry_str[HWTAP_UENTRY_STRS][MAXSTRINGLEN];	/* and strings */
#endif
};

/*
 * Each CPU's context, in a block of its own reached through a per-CPU pointer:
 * alloc_percpu() refuses more than 32 KiB (with a WARNING), and a context holds the
 * frames of MAXNESTING calls, the print buffer and regex scratch. One kvzalloc() per
 * possible CPU, on its node, so that a CPU coming online finds its context. Process
 * context only.
 */
static void _hwtap_contexts_free(void * __percpu *ptrs)
{
	int cpu;

	if (!ptrs)
		return;
	for_each_possible_cpu(cpu)
		kvfree(*per_cpu_ptr(ptrs, cpu));
	free_percpu(ptrs);
}

static void * __percpu *_hwtap_contexts_alloc(size_t size)
{
	void * __percpu *ptrs = alloc_percpu(void *);
	int cpu;

	if (!ptrs)
		return NULL;
	for_each_possible_cpu(cpu) {
		void *ctx = kvzalloc_node(size, GFP_KERNEL, cpu_to_node(cpu));

		if (!ctx) {
			_hwtap_contexts_free(ptrs);
			return NULL;
		}
		*per_cpu_ptr(ptrs, cpu) = ctx;
	}
	return ptrs;
}

/* The tapset's embedded C reads the context through CONTEXT (SystemTap's name). */
#define CONTEXT (&c->base)

/* A handler that cannot run is counted; more than MAXSKIPPED end the session, once. */
static inline void _hwtap_skip_counted(void)
{
	static atomic_t said;

	_hwtap_skip();
	if (atomic64_read(&_hwtap_skipped) > MAXSKIPPED && !atomic_xchg(&said, 1)) {
		_hwtap_script_error("Skipped too many probes, check MAXSKIPPED");
		_hwtap_request_exit();
	}
}

/* Takes this CPU's context for a handler, or returns false when another handler holds it
 * (an interrupt or NMI arrived during a handler): the hit is counted as skipped. Once
 * exit() was called or the session stops, only end and error probes (final) start. The
 * caller has preemption or interrupts disabled. */
static inline bool _hwtap_enter(struct hwtap_context_base *b, const char *pp,
				struct pt_regs *regs, enum hwtap_probe_kind kind)
{
	if (kind != HWTAP_PROBE_FINAL &&
	    (atomic_read(&_hwtap_exit_requested) ||
	     atomic_read(&_hwtap_session.state) >= HWTAP_STOPPING))
		return false;
	/* pairs with the atomic_set_release() in _hwtap_leave() */
	if (atomic_cmpxchg_acquire(&b->busy, 0, 1) != 0) {
		_hwtap_skip_counted();
		return false;
	}
	b->kind = kind;
#ifdef HWTAP_OVERLOAD
	if (kind == HWTAP_PROBE_EVENT)
		b->entered = get_cycles();
#endif
	b->probe_point = pp;
	b->probe_name = NULL;
	b->last_stmt = NULL;
	b->last_error = NULL;
	b->plain_error = false;
	/* SystemTap stops a handler when its budget reaches 0, so the last action is not
	 * there to spend: _hwtap_action() stops below 0 */
	b->actions_left = (INTERRUPTIBLE ? MAXACTION_INTERRUPTIBLE : MAXACTION) - 1;
	b->nesting = -1;
	b->regs = regs;
	b->task = current;
	b->user_mode_p = regs ? user_mode(regs) : 0;
	b->print_len = 0;
	return true;
}

/* The handler cannot go on without waiting for another CPU (a statistic's record that
 * stays busy, stat.h): it unwinds as an error does, but is counted as skipped, not
 * reported, and try/catch does not catch it (as with MAXACTION, the generated catch goes
 * on to the handler's end). */
static const char _hwtap_skipped_msg[] = "skipped";

static inline void _hwtap_skip_unwind(struct hwtap_context_base *b)
{
	if (!b->last_error)
		b->last_error = _hwtap_skipped_msg;
}

static inline bool _hwtap_uncatchable(const struct hwtap_context_base *b)
{
	return b->actions_left < 0 || b->last_error == _hwtap_skipped_msg;
}

static inline void _hwtap_flush(struct hwtap_context_base *b)
{
	if (b->print_len) {
		_hwtap_write(b->print_buf, b->print_len);
		b->print_len = 0;
	}
}

/* The overload guard's bookkeeping when an event handler ends: a new interval starts once
 * the current one is over, and the one that ends is judged. */
static inline void _hwtap_overload_account(struct hwtap_context_base *b)
{
#ifdef HWTAP_OVERLOAD
	static atomic_t said;
	cycles_t now = get_cycles();

	b->interval_used += now - b->entered;
	if (now - b->interval_start < STP_OVERLOAD_INTERVAL)
		return;
	if (b->interval_used > STP_OVERLOAD_THRESHOLD && !atomic_xchg(&said, 1)) {
		_hwtap_script_error("probe overhead exceeded threshold: handlers took more "
				    "than %lld of %lld cycles on a CPU (STP_OVERLOAD_THRESHOLD, "
				    "STP_OVERLOAD_INTERVAL; -D STP_NO_OVERLOAD turns this check off)",
				    (long long)STP_OVERLOAD_THRESHOLD,
				    (long long)STP_OVERLOAD_INTERVAL);
		_hwtap_request_exit();
	}
	b->interval_start = now;
	b->interval_used = 0;
#endif
}

static inline void _hwtap_leave(struct hwtap_context_base *b)
{
	_hwtap_flush(b);
	if (unlikely(b->last_error)) {
		if (b->last_error == _hwtap_skipped_msg)
			_hwtap_skip_counted();
		else if (b->plain_error)
			_hwtap_script_error("%s", b->last_error);
		else if (b->last_stmt)
			_hwtap_script_error("%s near %s in probe %s", b->last_error,
					    b->last_stmt, b->probe_point);
		else
			_hwtap_script_error("%s in probe %s", b->last_error, b->probe_point);
	}
	if (b->kind == HWTAP_PROBE_EVENT)
		_hwtap_overload_account(b);
	/* pairs with the atomic_cmpxchg_acquire() in _hwtap_enter() */
	atomic_set_release(&b->busy, 0);
}

/* Records a runtime error; the generated code then leaves the handler. */
static inline void _hwtap_error(struct hwtap_context_base *b, const char *msg)
{
	if (!b->last_error)
		b->last_error = msg;
}

/* error("msg") in a script: the message as it is, and the handler unwinds. */
static inline void _hwtap_user_error(struct hwtap_context_base *b, const char *msg)
{
	if (b->last_error)
		return;
	strscpy(b->error_buf, msg, sizeof(b->error_buf));
	b->last_error = b->error_buf;
	b->plain_error = true;
}

static inline void _hwtap_errorf(struct hwtap_context_base *b, const char *fmt, ...)
{
	va_list ap;

	if (b->last_error)
		return;
	va_start(ap, fmt);
	vsnprintf(b->error_buf, sizeof(b->error_buf), fmt, ap);
	va_end(ap);
	b->last_error = b->error_buf;
}

/* One statement's worth of the MAXACTION budget; false once it is spent. */
static inline bool _hwtap_action(struct hwtap_context_base *b, long n)
{
	b->actions_left -= n;
	if (likely(b->actions_left >= 0))
		return true;
	_hwtap_error(b, "MAXACTION exceeded");
	return false;
}

/* Appends formatted text to the handler's print buffer, flushing when it fills: for the
 * runtime's own output (histograms, the tapset's embedded C). Scripts' printf and
 * sprintf are compiled into format.h's appends instead. */
static inline void _hwtap_vprintf(struct hwtap_context_base *b, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(b->print_buf + b->print_len, HWTAP_PRINTBUF - b->print_len, fmt, copy);
	va_end(copy);
	if (n >= 0 && (size_t)n < HWTAP_PRINTBUF - b->print_len) {
		b->print_len += n;
		return;
	}
	_hwtap_flush(b);
	n = vsnprintf(b->print_buf, HWTAP_PRINTBUF, fmt, ap);
	b->print_len = min_t(size_t, n, HWTAP_PRINTBUF - 1);
}

static inline void _hwtap_printf(struct hwtap_context_base *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	_hwtap_vprintf(b, fmt, ap);
	va_end(ap);
}

static inline void _hwtap_print_str(struct hwtap_context_base *b, const char *s)
{
	size_t n = strnlen(s, MAXSTRINGLEN);

	if (n > HWTAP_PRINTBUF - b->print_len)
		_hwtap_flush(b);
	memcpy(b->print_buf + b->print_len, s, n);
	b->print_len += n;
}

/* dst = a . b, cut at MAXSTRINGLEN; a or b may be dst itself. */
static inline const char *_hwtap_concat(char *dst, const char *a, const char *b)
{
	char tmp[MAXSTRINGLEN];

	if (b == dst) {
		strscpy(tmp, b, MAXSTRINGLEN);
		b = tmp;
	}
	if (a != dst)
		strscpy(dst, a, MAXSTRINGLEN);
	strlcat(dst, b, MAXSTRINGLEN);
	return dst;
}

static inline const char *_hwtap_assign_str(char *dst, const char *src)
{
	if (dst != src)
		strscpy(dst, src, MAXSTRINGLEN);
	return dst;
}

/* timer.UNIT(N).randomize(R)'s next period: N - R plus a draw from 0 to 2R, in
 * nanoseconds, drawn in 64 bits (timer.s(10).randomize(5) spans 10^10 + 1 values). It
 * runs in a hard hrtimer callback, where get_random_u32() may not be called on
 * PREEMPT_RT (its per-CPU batch takes a local_lock, which sleeps there): the timer's own
 * prandom state, seeded from get_random_u64() when the session starts; one hrtimer's
 * callback never runs twice at once. */
static inline u64 _hwtap_timer_period(struct rnd_state *st, u64 ns, u64 rnd)
{
	u64 r = (u64)prandom_u32_state(st) << 32 | prandom_u32_state(st);

	return ns - rnd + r % (2 * rnd + 1);
}

/* A global variable's lock, one per global (translator/codegen/translate_locks.c decides which
 * a handler takes and how): shared for readers, exclusive for writers; statistics have
 * a lock per CPU (below). Handlers only ever try a lock (MAXTRYLOCK times), so a handler
 * that interrupts a holder on its own CPU skips instead of deadlocking; for the same
 * reason no ordering is needed, though handlers take them in declaration order.
 * arch_rwlock_t (a queued rwlock on x86) keeps lockdep out of NMI context. */
typedef struct {
	arch_rwlock_t lock;
} hwtap_lock_t;

#define HWTAP_LOCK_INIT { .lock = __ARCH_RW_LOCK_UNLOCKED }

/* Whether the trylock expression `try' succeeded within MAXTRYLOCK tries, TRYLOCKDELAY
 * microseconds apart. */
#define _hwtap_retry(try)						\
	({								\
		int __tries = 0;					\
		bool __ok;						\
		while (!(__ok = (try)) && ++__tries < MAXTRYLOCK)	\
			udelay(TRYLOCKDELAY);				\
		__ok;							\
	})

static inline bool _hwtap_read_trylock(hwtap_lock_t *l)
{
	/* pairs with the release in _hwtap_write_unlock() */
	return _hwtap_retry(arch_read_trylock(&l->lock));
}

static inline bool _hwtap_write_trylock(hwtap_lock_t *l)
{
	/* pairs with the releases in _hwtap_read_unlock() and _hwtap_write_unlock() */
	return _hwtap_retry(arch_write_trylock(&l->lock));
}

static inline void _hwtap_read_unlock(hwtap_lock_t *l)
{
	arch_read_unlock(&l->lock);
}

static inline void _hwtap_write_unlock(hwtap_lock_t *l)
{
	arch_write_unlock(&l->lock);
}

/*
 * A statistics global's lock (scalar or array): a part per CPU, as its values are kept
 * (stat.h, pmap.h). A handler that only adds to it (`<<<') takes its own CPU's part, so
 * handlers on different CPUs add at once and none writes a cache line that another
 * CPU's adds write (SystemTap's `<<<' takes a shared lock common to all CPUs). Every
 * other use (a read merges the CPUs' values, delete clears them, foreach) takes every
 * CPU's part, in CPU order, within one MAXTRYLOCK budget. Allocated with the globals.
 */
typedef struct {
	arch_spinlock_t __percpu *cpu;
} hwtap_cpu_lock_t;

static int _hwtap_cpu_lock_alloc(hwtap_cpu_lock_t *l)
{
	int cpu;

	l->cpu = alloc_percpu(arch_spinlock_t);
	if (!l->cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		*per_cpu_ptr(l->cpu, cpu) = (arch_spinlock_t)__ARCH_SPIN_LOCK_UNLOCKED;
	return 0;
}

static void _hwtap_cpu_lock_free(hwtap_cpu_lock_t *l)
{
	free_percpu(l->cpu);
	l->cpu = NULL;
}

/* This CPU's part, for a handler that cannot leave the CPU. */
static inline bool _hwtap_cpu_trylock(hwtap_cpu_lock_t *l)
{
	/* pairs with the releases in _hwtap_cpu_unlock() and _hwtap_all_unlock() */
	return _hwtap_retry(arch_spin_trylock(this_cpu_ptr(l->cpu)));
}

static inline void _hwtap_cpu_unlock(hwtap_cpu_lock_t *l)
{
	arch_spin_unlock(this_cpu_ptr(l->cpu));
}

/* The parts of the CPUs before `upto' (nr_cpu_ids: all of them). */
static inline void _hwtap_all_unlock_before(hwtap_cpu_lock_t *l, int upto)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (cpu >= upto)
			break;
		arch_spin_unlock(per_cpu_ptr(l->cpu, cpu));
	}
}

static inline void _hwtap_all_unlock(hwtap_cpu_lock_t *l)
{
	_hwtap_all_unlock_before(l, nr_cpu_ids);
}

static inline bool _hwtap_all_trylock(hwtap_cpu_lock_t *l)
{
	int cpu, tries = 0;

	for_each_possible_cpu(cpu) {
		/* pairs with the releases in _hwtap_cpu_unlock() and _hwtap_all_unlock() */
		while (!arch_spin_trylock(per_cpu_ptr(l->cpu, cpu))) {
			if (++tries >= MAXTRYLOCK) {
				_hwtap_all_unlock_before(l, cpu);
				return false;
			}
			udelay(TRYLOCKDELAY);
		}
	}
	return true;
}

#endif
