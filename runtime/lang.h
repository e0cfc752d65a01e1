/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lang.h - what generated probe handlers use: the per-CPU probe context with its
 * reentrancy guard, action counting, runtime errors that unwind a handler, the print
 * buffer flushed to the transport once per handler, and the locks of global variables.
 *
 * Included by the generated module after session.h. The generated code defines
 * struct hwtap_context, whose first member is struct hwtap_context_base, and the
 * per-CPU pointer hwtap_contexts; everything here works on the base.
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

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 128
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
#ifndef MAXNESTING
#define MAXNESTING 10
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 1000
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
#ifndef HWTAP_PRINTBUF
#define HWTAP_PRINTBUF 4000     /* one transport record */
#endif

struct hwtap_context_base {
	atomic_t busy;                  /* a handler runs on this CPU: others skip */
	const char *probe_point;        /* "timer.ms(100)", for errors and pp() */
	const char *last_stmt;          /* "script.stp:3:5", where an error happened */
	const char *last_error;         /* set by an error: the handler unwinds */
	bool plain_error;               /* error("msg"): reported without a place */
	char error_buf[MAXSTRINGLEN];
	long actions_left;
	int nesting;                    /* function call depth */
	struct pt_regs *regs;           /* the interrupted registers, or NULL */
	int user_mode_p;
	size_t print_len;
	char print_buf[HWTAP_PRINTBUF];
};

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

/* Takes this CPU's context for a handler, or returns NULL when another handler holds it
 * (an interrupt or NMI arrived during a handler): the hit is counted as skipped. Once
 * exit() was called or the session stops, only end and error probes (final) start. The
 * caller has preemption or interrupts disabled. */
static inline struct hwtap_context_base *
_hwtap_enter(struct hwtap_context_base *b, const char *pp, struct pt_regs *regs, bool final)
{
	if (!final && (atomic_read(&_hwtap_exit_requested) ||
		       atomic_read(&_hwtap_session.state) >= HWTAP_STOPPING))
		return NULL;
	/* pairs with the atomic_set_release() in _hwtap_leave() */
	if (atomic_cmpxchg_acquire(&b->busy, 0, 1) != 0) {
		_hwtap_skip_counted();
		return NULL;
	}
	b->probe_point = pp;
	b->last_stmt = NULL;
	b->last_error = NULL;
	b->plain_error = false;
	b->actions_left = MAXACTION;
	b->nesting = -1;
	b->regs = regs;
	b->user_mode_p = regs ? user_mode(regs) : 0;
	b->print_len = 0;
	return b;
}

static inline void _hwtap_flush(struct hwtap_context_base *b)
{
	if (b->print_len)
		_hwtap_write(b->print_buf, b->print_len);
	b->print_len = 0;
}

static inline void _hwtap_leave(struct hwtap_context_base *b)
{
	_hwtap_flush(b);
	if (unlikely(b->last_error)) {
		if (b->plain_error)
			_hwtap_script_error("%s", b->last_error);
		else if (b->last_stmt)
			_hwtap_script_error("%s near %s in probe %s", b->last_error,
					    b->last_stmt, b->probe_point);
		else
			_hwtap_script_error("%s in probe %s", b->last_error, b->probe_point);
	}
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

/* Appends formatted text to the handler's print buffer, flushing when it fills. */
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

/* sprintf into a MAXSTRINGLEN buffer; a longer result is cut, as in SystemTap. */
static inline const char *_hwtap_sprintf(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, MAXSTRINGLEN, fmt, ap);
	va_end(ap);
	return dst;
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

/* A global variable's lock: handlers only ever try it (MAXTRYLOCK times), so a handler
 * that interrupts a holder on the same CPU skips instead of deadlocking. arch_spinlock_t
 * keeps lockdep out of NMI context; no ordering among globals is needed for the same
 * reason. */
typedef struct {
	arch_spinlock_t lock;
} hwtap_lock_t;

#define HWTAP_LOCK_INIT { .lock = __ARCH_SPIN_LOCK_UNLOCKED }

static inline bool _hwtap_trylock(hwtap_lock_t *l)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		/* pairs with the arch_spin_unlock() in _hwtap_unlock() */
		if (arch_spin_trylock(&l->lock))
			return true;
		cpu_relax();
	}
	return false;
}

static inline void _hwtap_unlock(hwtap_lock_t *l)
{
	arch_spin_unlock(&l->lock);
}

#endif
