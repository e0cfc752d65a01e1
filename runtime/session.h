/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.h - a hwtap module's session, from load to unload: the runtime header the
 * generated module.c includes (header-only: everything is static, in one translation
 * unit). It includes transport.h (the output), panic.h (the output at a kernel panic)
 * and protocol.h (files, record format).
 *
 * The module defines, after including this header,
 *   static int hwtap_start(void);   begin probes, then timers and events: 0 or -errno.
 *                                   On failure it undoes its own work; then neither
 *                                   hwtap_stop() nor hwtap_end() runs.
 *   static void hwtap_stop(void);   stops timers and events, waits until no handler runs
 *                                   (process context, may sleep).
 *   static void hwtap_end(void);    end probes (process context).
 *   static int hwtap_ctl_command(char *cmd);
 *                                   a ctl line other than start and stop (hwtap-run's
 *                                   "perf_group ..." before the start, perf.c): 0 or
 *                                   -errno; NULL at unload: drop what they left.
 * and ends with HWTAP_SESSION_DEFINE(EXTRA) (EXTRA: a function adding files to
 * /proc/hwtap_NAME, or NULL);
 *
 * The session (states: loaded, starting, running, stopping, done)
 *   module_init     allocates the buffers, creates /proc/hwtap_NAME/{out,ctl}; runs no
 *                   probe (NAME is the module's name).
 *   "start" on ctl  (hwtap-run has a child write it once `out' is open) runs hwtap_start()
 *                   in the writer's context, under the session mutex; the write returns its
 *                   error, and a failed start closes the transport (its ERROR records stay
 *                   readable). Begin output waits for room like end output (see
 *                   transport.h), unless the writer is the reading process itself: then
 *                   output beyond the buffers is dropped (counted).
 *   the stop sequence   once, in process context, under the session mutex:
 *                   hwtap_stop(); let the reader drain the buffers; hwtap_end(), whose
 *                   writes wait for room when the buffer is full; close the transport.
 *                   Started by _hwtap_request_exit() (any context, NMI included: an
 *                   irq_work queues the work; a once-a-second safety net also looks at
 *                   _hwtap_exit_requested), by more errors than hwtap_maxerrors, by "stop"
 *                   on ctl, and by module_exit.
 *   module_exit     runs the stop sequence if it never ran (if nobody reads `out', the end
 *                   probes' output is discarded), lets a reader still attached drain what
 *                   is left, removes the files, frees everything.
 *
 * Module parameters: hwtap_bufsize_kb (KiB per CPU, 8 .. 4194304, default 256),
 * hwtap_maxerrors (errors tolerated, default -D MAXERRORS or 0: the first one stops the
 * session, as in SystemTap), hwtap_target (-x PID / -c CMD's pid, default 0),
 * hwtap_verbose (hwtap -v: notes about the session's choices, _hwtap_note()),
 * hwtap_panic_tail (bytes of unread output written to the kernel log at a panic, panic.h).
 *
 * Probe handlers: _hwtap_write() for output (one call per handler's output keeps it one
 * record: nothing interleaves it), _hwtap_script_error() and _hwtap_warn() for messages,
 * _hwtap_skip() when a handler cannot run, _hwtap_request_exit() for exit().
 */
#ifndef HWTAP_SESSION_H
#define HWTAP_SESSION_H

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/proc_fs.h>
#include <linux/stdarg.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "transport.h"

#ifndef HWTAP_MODULE_NAME
#define HWTAP_MODULE_NAME KBUILD_MODNAME
#endif
#ifndef HWTAP_SCRIPT_NAME
#define HWTAP_SCRIPT_NAME HWTAP_MODULE_NAME	/* the script's file name, for ctl */
#endif

/* The safety net's period: exit() and new output wake what must wake through irq_work; this
 * only catches what a lost wakeup would leave waiting, so an idle session costs one
 * kworker run a second (testsuite/runok/session-idle-no-background-wakeups.stp). */
#define HWTAP_POLL_MS		1000
#define HWTAP_MESSAGE_MAX	1024

static int hwtap_start(void);
static int hwtap_ctl_command(char *cmd);
static void hwtap_stop(void);
static void hwtap_end(void);

/* ---- parameters and counters ---------------------------------------------------------- */

static unsigned int _hwtap_bufsize_kb = 256;
module_param_named(hwtap_bufsize_kb, _hwtap_bufsize_kb, uint, 0444);
MODULE_PARM_DESC(hwtap_bufsize_kb, "output buffer per CPU, KiB (default 256)");

#ifndef MAXERRORS
#define MAXERRORS 0			/* -D MAXERRORS=N sets the default */
#endif
static int _hwtap_maxerrors = MAXERRORS;
module_param_named(hwtap_maxerrors, _hwtap_maxerrors, int, 0444);
MODULE_PARM_DESC(hwtap_maxerrors, "script errors tolerated before the session stops (default 0)");

static long _hwtap_target;
module_param_named(hwtap_target, _hwtap_target, long, 0444);
MODULE_PARM_DESC(hwtap_target, "the target process id, target() (default 0)");

static int _hwtap_verbose;
module_param_named(hwtap_verbose, _hwtap_verbose, int, 0444);
MODULE_PARM_DESC(hwtap_verbose, "notes on stderr about the session's choices (hwtap -v)");

/* The local time zone where the session was loaded, as staprun hands it to SystemTap's
 * modules: hwtap-run passes its own (tapset tzinfo.stp's tz_gmtoff(), tz_name()). */
static long _hwtap_tz_gmtoff;
module_param_named(hwtap_tz_gmtoff, _hwtap_tz_gmtoff, long, 0444);
MODULE_PARM_DESC(hwtap_tz_gmtoff, "the local time zone's offset, seconds west of UTC");
static char _hwtap_tz_name[16];
module_param_string(hwtap_tz_name, _hwtap_tz_name, sizeof(_hwtap_tz_name), 0444);
MODULE_PARM_DESC(hwtap_tz_name, "the local time zone's name (UTC, CET, ...)");

#include "panic.h"		/* (uses HWTAP_SCRIPT_NAME) */

static atomic64_t _hwtap_errors = ATOMIC64_INIT(0);
static atomic64_t _hwtap_skipped = ATOMIC64_INIT(0);

/* Set by exit() (tapset/logging.stp); _hwtap_request_exit() sets it too. */
static atomic_t _hwtap_exit_requested = ATOMIC_INIT(0);

/* A probe handler that could not run (reentrancy, overload). */
static inline void _hwtap_skip(void)
{
	atomic64_inc(&_hwtap_skipped);
}

/* ---- the session ---------------------------------------------------------------------- */

enum hwtap_state {
	HWTAP_LOADED,
	HWTAP_STARTING,
	HWTAP_RUNNING,
	HWTAP_STOPPING,
	HWTAP_DONE,
};

static const char *const _hwtap_state_names[] = {
	"loaded", "starting", "running", "stopping", "done",
};

struct hwtap_session {
	atomic_t state;				/* enum hwtap_state */
	struct mutex lock;			/* start and the stop sequence */
	struct irq_work exit_work;		/* _hwtap_request_exit() -> stop_work */
	struct work_struct stop_work;		/* the stop sequence */
	struct delayed_work poll_work;		/* the safety net: exit, reader wakeups */
	struct proc_dir_entry *dir;		/* /proc/hwtap_NAME */
	time64_t started;			/* when the begin probes ran (UTC seconds) */
};

static struct hwtap_session _hwtap_session;

static void _hwtap_queue_stop(void)
{
	queue_work(system_long_wq, &_hwtap_session.stop_work);
}

static void _hwtap_exit_work(struct irq_work *work)
{
	_hwtap_queue_stop();
}

/* exit(): from any context, NMI included. */
static __maybe_unused void _hwtap_request_exit(void)
{
	atomic_set(&_hwtap_exit_requested, 1);
	irq_work_queue(&_hwtap_session.exit_work);
}

static void _hwtap_poll(struct work_struct *work)
{
	struct hwtap_session *s = &_hwtap_session;
	int state = atomic_read(&s->state);

	if (state == HWTAP_RUNNING && atomic_read(&_hwtap_exit_requested))
		_hwtap_queue_stop();
	_hwtap_transport_poll();
	if (state != HWTAP_DONE)
		schedule_delayed_work(&s->poll_work, msecs_to_jiffies(HWTAP_POLL_MS));
}

/* "start" on ctl. */
static int _hwtap_session_start(void)
{
	struct hwtap_session *s = &_hwtap_session;
	int rc = -EALREADY;

	/* Keeps the stop sequence out while the begin probes run: unlocked below. */
	mutex_lock(&s->lock);
	if (atomic_read(&s->state) != HWTAP_LOADED)
		goto out;
	atomic_set(&s->state, HWTAP_STARTING);
	s->started = ktime_get_real_seconds();
	if (!_hwtap_transport_read_by(current))
		_hwtap_transport_set_blocking(current);
	rc = hwtap_start();
	_hwtap_transport_set_blocking(NULL);
	if (rc) {
		_hwtap_transport_close();
		atomic_set(&s->state, HWTAP_DONE);
		goto out;
	}
	atomic_set(&s->state, HWTAP_RUNNING);
	/* Now, not in a second: a begin probe may have set _hwtap_exit_requested. */
	schedule_delayed_work(&s->poll_work, 0);
out:
	mutex_unlock(&s->lock);
	return rc;
}

static void _hwtap_stop_and_end(void)
{
	hwtap_stop();
	_hwtap_transport_drain();
	_hwtap_transport_set_blocking(current);
	hwtap_end();
	_hwtap_transport_set_blocking(NULL);
}

/* The stop sequence: does its work once; later calls return at once. */
static void _hwtap_session_stop(void)
{
	struct hwtap_session *s = &_hwtap_session;

	/* Runs the sequence once and never during start: unlocked below. */
	mutex_lock(&s->lock);
	switch (atomic_read(&s->state)) {
	case HWTAP_RUNNING:
		atomic_set(&s->state, HWTAP_STOPPING);
		_hwtap_stop_and_end();
		fallthrough;
	case HWTAP_LOADED:
		_hwtap_transport_close();
		atomic_set(&s->state, HWTAP_DONE);
		break;
	}
	mutex_unlock(&s->lock);
}

static void _hwtap_stop_work(struct work_struct *work)
{
	_hwtap_session_stop();
}

/* ---- errors and warnings -------------------------------------------------------------- */

/*
 * Message scratch space, per CPU and per context level (task, softirq, hard irq, NMI), so
 * that a message interrupted on its CPU by another keeps its buffer. Allocated at load:
 * static per-CPU data of modules comes from a small reserve shared by all modules.
 */
struct hwtap_scratch {
	char msg[4][HWTAP_MESSAGE_MAX];
};

static struct hwtap_scratch __percpu *_hwtap_scratch;

/* PREFIX and the formatted message, ending in one newline, as one stderr record. */
static void _hwtap_vmessage(const char *prefix, const char *fmt, va_list ap)
{
	char *msg;
	size_t n;

	/* Keeps us on this CPU's scratch buffer: enabled again below. */
	preempt_disable();
	msg = this_cpu_ptr(_hwtap_scratch)->msg[interrupt_context_level()];
	n = scnprintf(msg, HWTAP_MESSAGE_MAX - 1, "%s", prefix);
	n += vscnprintf(msg + n, HWTAP_MESSAGE_MAX - 1 - n, fmt, ap);
	if (msg[n - 1] != '\n')
		msg[n++] = '\n';
	_hwtap_write_stream(HWTAP_STREAM_ERR, msg, n);
	preempt_enable();
}

/* A formatted line (up to HWTAP_MESSAGE_MAX bytes) as one record of STREAM, from any
 * context: the tapset's Prometheus metrics. */
static __printf(2, 3) __maybe_unused void _hwtap_stream_printf(int stream, const char *fmt,
							       ...)
{
	va_list ap;
	char *msg;
	size_t n;

	va_start(ap, fmt);
	/* Keeps us on this CPU's scratch buffer: enabled again below. */
	preempt_disable();
	msg = this_cpu_ptr(_hwtap_scratch)->msg[interrupt_context_level()];
	n = vscnprintf(msg, HWTAP_MESSAGE_MAX, fmt, ap);
	_hwtap_write_stream(stream, msg, n);
	preempt_enable();
	va_end(ap);
}

/* warn(): "WARNING: MESSAGE" on stderr, from any context. */
static __printf(1, 2) __maybe_unused void _hwtap_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	_hwtap_vmessage("WARNING: ", fmt, ap);
	va_end(ap);
}

#include "taskwork.h"		/* (uses _hwtap_warn) */

/* A note about the session's choices, "hwtap: MESSAGE" on stderr, under hwtap -v only. */
static __printf(1, 2) __maybe_unused void _hwtap_note(const char *fmt, ...)
{
	va_list ap;

	if (!_hwtap_verbose)
		return;
	va_start(ap, fmt);
	_hwtap_vmessage("hwtap: ", fmt, ap);
	va_end(ap);
}

/* error(): "ERROR: MESSAGE" on stderr, counted; past hwtap_maxerrors the session stops. */
static __printf(1, 2) __maybe_unused void _hwtap_script_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	_hwtap_vmessage("ERROR: ", fmt, ap);
	va_end(ap);
	if (atomic64_inc_return(&_hwtap_errors) > _hwtap_maxerrors)
		_hwtap_request_exit();
}

/* ---- /proc/hwtap_NAME/ctl ------------------------------------------------------------- */

/* More "KEY VALUE" lines for ctl, from the parts of the runtime that have them (perf.c's
 * counters): what it wrote into BUF (LEN bytes). */
static size_t (*_hwtap_ctl_more)(char *buf, size_t len);

/* The file mode is not enough: a session is root's (CAP_SYS_ADMIN) only. */
static int _hwtap_ctl_open(struct inode *inode, struct file *file)
{
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

static ssize_t _hwtap_ctl_read(struct file *file, char __user *buf, size_t count,
			       loff_t *ppos)
{
	unsigned long overwritten, unseen, entries, read;
	size_t (*more)(char *buf, size_t len) = READ_ONCE(_hwtap_ctl_more);
	bool attached;
	ssize_t rc;
	char *text;
	size_t n;

	text = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!text)
		return -ENOMEM;

	_hwtap_transport_counts(&overwritten, &unseen, &entries, &read, &attached);
	n = scnprintf(text, PAGE_SIZE, "state %s\nerrors %lld\nskipped %lld\ndropped %lld\n"
		      "lost_commands %lld\nprotocol %d\nscript %s\nstarted %lld\n"
		      "attached %d\nbuffer_kb %u\nrecords %lu\noverwritten %lu\n"
		      "overwritten_before_reader %lu\nread %lu\n",
		      _hwtap_state_names[atomic_read(&_hwtap_session.state)],
		      (long long)atomic64_read(&_hwtap_errors),
		      (long long)atomic64_read(&_hwtap_skipped),
		      (long long)atomic64_read(&_hwtap_dropped),
		      (long long)atomic64_read(&_hwtap_lost_commands), HWTAP_PROTOCOL,
		      HWTAP_SCRIPT_NAME, (long long)_hwtap_session.started, attached,
		      _hwtap_bufsize_kb, entries, overwritten, unseen, read);
	if (more)
		n += more(text + n, PAGE_SIZE - n);
	rc = simple_read_from_buffer(buf, count, ppos, text, n);
	kfree(text);
	return rc;
}

static ssize_t _hwtap_ctl_write(struct file *file, const char __user *buf, size_t count,
				loff_t *ppos)
{
	struct hwtap_session *s = &_hwtap_session;
	char cmd[HWTAP_CTL_LINE_MAX];
	size_t n = min(count, sizeof(cmd) - 1);
	int rc = 0;

	if (copy_from_user(cmd, buf, n))
		return -EFAULT;
	cmd[n] = '\0';
	if (n && cmd[n - 1] == '\n')
		cmd[n - 1] = '\0';
	if (!strcmp(cmd, HWTAP_CTL_START)) {
		rc = _hwtap_session_start();
	} else if (!strcmp(cmd, HWTAP_CTL_STOP)) {
		_hwtap_queue_stop();
	} else if (count < sizeof(cmd)) {
		/* what the start takes (perf groups' descriptors): before it only */
		mutex_lock(&s->lock);
		rc = atomic_read(&s->state) == HWTAP_LOADED ? hwtap_ctl_command(cmd) : -EBUSY;
		mutex_unlock(&s->lock);
	} else {
		rc = -EINVAL;
	}
	return rc ? rc : count;
}

static const struct proc_ops _hwtap_ctl_ops = {
	.proc_open = _hwtap_ctl_open,
	.proc_read = _hwtap_ctl_read,
	.proc_write = _hwtap_ctl_write,
};

/* /proc/hwtap_NAME with `out' and `ctl', and what EXTRA adds (NULL: nothing). */
static int _hwtap_proc_init(int (*extra)(struct proc_dir_entry *dir))
{
	struct hwtap_session *s = &_hwtap_session;
	char name[sizeof(HWTAP_PROC_PREFIX) + MODULE_NAME_LEN];

	snprintf(name, sizeof(name), HWTAP_PROC_PREFIX "%s", THIS_MODULE->name);
	s->dir = proc_mkdir(name, NULL);
	if (!s->dir)
		return -ENOMEM;
	if (!_hwtap_transport_create_file(s->dir) ||
	    !proc_create(HWTAP_PROC_CTL, 0600, s->dir, &_hwtap_ctl_ops) ||
	    (extra && extra(s->dir))) {
		proc_remove(s->dir);
		return -ENOMEM;
	}
	return 0;
}

/* ---- load and unload ------------------------------------------------------------------ */

static int _hwtap_check_params(void)
{
	if (_hwtap_bufsize_kb < 8 || _hwtap_bufsize_kb > (1U << 22)) {
		pr_err("%s: hwtap_bufsize_kb=%u: expected 8 to 4194304 (KiB per CPU)\n",
		       THIS_MODULE->name, _hwtap_bufsize_kb);
		return -EINVAL;
	}
	if (_hwtap_maxerrors < 0) {
		pr_err("%s: hwtap_maxerrors=%d: expected 0 or more\n",
		       THIS_MODULE->name, _hwtap_maxerrors);
		return -EINVAL;
	}
	return 0;
}

/* The wait queue the EXTRA files' poll uses, if any (their proc function sets it). */
static wait_queue_head_t *_hwtap_proc_extra_wq;

static int _hwtap_session_init(int (*proc_extra)(struct proc_dir_entry *dir))
{
	struct hwtap_session *s = &_hwtap_session;
	int rc;

	rc = _hwtap_check_params();
	if (rc)
		return rc;
	_hwtap_scratch = alloc_percpu(struct hwtap_scratch);
	if (!_hwtap_scratch)
		return -ENOMEM;
	rc = _hwtap_transport_init((unsigned long)_hwtap_bufsize_kb << 10);
	if (rc)
		goto out_scratch;
	atomic_set(&s->state, HWTAP_LOADED);
	mutex_init(&s->lock);
	init_irq_work(&s->exit_work, _hwtap_exit_work);
	INIT_WORK(&s->stop_work, _hwtap_stop_work);
	INIT_DELAYED_WORK(&s->poll_work, _hwtap_poll);
	rc = _hwtap_panic_init();
	if (rc)
		goto out_transport;
	rc = _hwtap_proc_init(proc_extra);
	if (rc)
		goto out_panic;
	return 0;

out_panic:
	_hwtap_panic_exit();
out_transport:
	_hwtap_transport_free();
out_scratch:
	free_percpu(_hwtap_scratch);
	return rc;
}

static void _hwtap_session_exit(void)
{
	struct hwtap_session *s = &_hwtap_session;

	_hwtap_session_stop();
	_hwtap_twork_exit();	/* callbacks a stop left behind: out of this module's code */
	/* In this order: the poll and the irq_work queue stop_work, an end probe the irq_work. */
	cancel_delayed_work_sync(&s->poll_work);
	irq_work_sync(&s->exit_work);
	cancel_work_sync(&s->stop_work);
	_hwtap_transport_drain();
	proc_remove(s->dir);
	/* an epoll watch on a file outlives the module's wait queues unless told: POLLFREE
	 * takes its entry off (no new one is added once the files are gone) */
	wake_up_pollfree(&_hwtap_transport.read_wq);
	if (_hwtap_proc_extra_wq)
		wake_up_pollfree(_hwtap_proc_extra_wq);
	hwtap_ctl_command(NULL);	/* no more lines: what the start did not take */
	_hwtap_panic_exit();
	_hwtap_transport_free();
	free_percpu(_hwtap_scratch);
}

#define HWTAP_SESSION_DEFINE(proc_extra)				\
	static int __init _hwtap_module_init(void)			\
	{								\
		return _hwtap_session_init(proc_extra);			\
	}								\
	static void __exit _hwtap_module_exit(void)			\
	{								\
		_hwtap_session_exit();					\
	}								\
	module_init(_hwtap_module_init);				\
	module_exit(_hwtap_module_exit);				\
	MODULE_LICENSE("GPL")

#endif /* HWTAP_SESSION_H */
