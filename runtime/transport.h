/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * transport.h - a hwtap module's output: per-CPU buffers in, /proc/hwtap_NAME/out out.
 * Part of the runtime compiled into each generated module (through session.h); the
 * record format and the files are described in protocol.h.
 *
 * Producers call _hwtap_write() from any context: process, softirq, hard irq, NMI. The
 * bytes go into the kernel's tracing ring buffer (kernel/trace/ring_buffer.c): one
 * lockless buffer per CPU, written only by its own CPU, safe against nesting (an irq or
 * NMI that interrupts a write reserves a record of its own), never sleeping, never
 * allocating. A write of up to HWTAP_RECORD_MAX bytes is one record; longer writes are
 * split. With overwrite off, a full buffer refuses the record: it is dropped and counted
 * in _hwtap_dropped.
 *
 * Flight recorder: while nobody has `out' open (a detached session, hwtap-run -D), a full
 * buffer overwrites its oldest records instead (ring_buffer_change_overwrite()), and the
 * ring buffer counts them (ring_buffer_overruns()): the newest are kept for the next
 * reader, who is told how many went (ctl's overwritten_before_reader). With a reader, full
 * buffers drop new records as above, so that nothing the reader was about to see is
 * lost unsaid.
 *
 * The reader (one at a time) gets whole records merged across CPUs by the ring buffer's
 * time stamps (trace_clock_local: per-CPU sched_clock). Across CPUs the order is as good
 * as the CPUs' clocks agree, and one read() looks at each CPU once, so a record that a
 * CPU commits while that read() runs comes in a later one. The reader sleeps on a wait
 * queue; a producer cannot wake it directly (an NMI must not take the wait queue's lock),
 * so it queues an irq_work, and only when the reader said it is going to sleep. Output
 * queues a lazy one, run at the CPU's next tick (at once when the tick is off), so that
 * the reader wakes for the records of a tick together, not for each (a self-IPI and a
 * wakeup per printf were most of its cost); commands for the loader wake it at once.
 *
 * End of the session: the end probes' output must not be lost. The session first waits
 * for the reader to drain the buffers (_hwtap_transport_drain()), so that the end probes
 * start with empty ones; while they run, a write that finds the buffer full waits for the
 * reader to make room, if it comes from the end task with preemption enabled
 * (_hwtap_transport_set_blocking()). Begin probes get the same, unless the task running
 * them belongs to the reader's process (which then cannot read). Both waits give up when
 * nobody has `out' open or the reader made no progress for HWTAP_STALL_MS (then for
 * good). Then _hwtap_transport_close() turns recording off; the reader gets the rest,
 * then EOF.
 */
#ifndef HWTAP_TRANSPORT_H
#define HWTAP_TRANSPORT_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/preempt.h>
#include <linux/proc_fs.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "compat.h"
#include "protocol.h"

#define HWTAP_STALL_MS	10000

/* Records that could not be written: the buffer was full, or the transport closed. */
static atomic64_t _hwtap_dropped = ATOMIC64_INIT(0);

/* One CPU's oldest unread record, as the reader last peeked at it. */
struct hwtap_head {
	struct ring_buffer_event *event;	/* NULL: none */
	u64 ts;
};

struct hwtap_transport {
	struct trace_buffer *rb;
	struct hwtap_head *heads;		/* [nr_cpu_ids], under read_lock */
	struct mutex read_lock;			/* one read() at a time */
	wait_queue_head_t read_wq;		/* the reader: waits for records or the close */
	wait_queue_head_t space_wq;		/* the end task: waits for the reader */
	struct irq_work wake_work;		/* wakes read_wq, queued from any context */
	struct irq_work wake_lazy;		/* the same, at the next tick */
	int reader_waiting;			/* the reader sleeps or polls: wake it */
	atomic_t open;				/* `out' is open (0 or 1) */
	pid_t reader_tgid;			/* the process that opened it */
	unsigned long consumed;			/* records read so far */
	unsigned long overruns_seen;		/* overwritten before the last reader opened */
	unsigned long overwritten_unseen;	/* of them, since the reader before */
	struct task_struct *blocking_task;	/* its writes may wait for room */
	bool stalled;				/* the reader stopped reading: wait no more */
	bool closed;
	atomic_t rb_readers;			/* calls holding the ring buffer's reader lock */
};

static struct hwtap_transport _hwtap_transport;

/* ---- producers ------------------------------------------------------------------------ */

static void _hwtap_wake_work(struct irq_work *work)
{
	WRITE_ONCE(_hwtap_transport.reader_waiting, 0);
	wake_up_interruptible_all(&_hwtap_transport.read_wq);
}

/* lazy: at the next tick will do */
static void _hwtap_wake_reader(bool lazy)
{
	/* Orders the commit before reading the flag: pairs with _hwtap_reader_sleeps(). */
	smp_mb();
	if (READ_ONCE(_hwtap_transport.reader_waiting))
		irq_work_queue(lazy ? &_hwtap_transport.wake_lazy : &_hwtap_transport.wake_work);
}

/* A piece of a record: LEN bytes at P; NOFAULT: P is memory a tracepoint passed (a
 * firmware record's payload), read with copy_from_kernel_nofault(). */
struct hwtap_part {
	const void *p;
	size_t len;
	bool nofault;
};

/*
 * One record of STREAM made of N parts, into this CPU's buffer: 0; -ENOSPC when it is
 * full (or closed); -EFAULT when a NOFAULT part cannot be read (the record is discarded,
 * nothing of it written). The parts add up to at most HWTAP_RECORD_MAX bytes.
 */
static int _hwtap_put_parts(int stream, const struct hwtap_part *parts, int n)
{
	struct trace_buffer *rb = _hwtap_transport.rb;
	struct ring_buffer_event *event;
	unsigned char *p;
	size_t len = 0, at = HWTAP_RECORD_HDR;
	int i;

	for (i = 0; i < n; i++)
		len += parts[i].len;
	/* Reserves room on this CPU, preemption disabled: the commit below releases it. */
	event = ring_buffer_lock_reserve(rb, HWTAP_RECORD_HDR + len);
	if (!event)
		return -ENOSPC;
	p = ring_buffer_event_data(event);
	p[0] = stream;
	p[1] = 0;
	p[2] = len & 0xff;
	p[3] = len >> 8;
	for (i = 0; i < n; i++) {
		if (!parts[i].nofault)
			memcpy(p + at, parts[i].p, parts[i].len);
		else if (copy_from_kernel_nofault(p + at, parts[i].p, parts[i].len)) {
			ring_buffer_discard_commit(rb, event);
			return -EFAULT;
		}
		at += parts[i].len;
	}
	_hwtap_rb_commit(rb, event);
	_hwtap_wake_reader(true);
	return 0;
}

/* One record into this CPU's buffer: 0, or -ENOSPC when it is full (or closed). */
static int _hwtap_put_record(int stream, const char *data, size_t len)
{
	struct hwtap_part part = {data, len, false};

	return _hwtap_put_parts(stream, &part, 1);
}

/*
 * The reader's progress so far, taken before the caller's last look at the buffers: a
 * read between that look and the wait then still counts (a reader that empties the
 * buffers in one read() would otherwise leave the writer waiting out HWTAP_STALL_MS).
 */
static unsigned long _hwtap_reader_progress(void)
{
	unsigned long seen = READ_ONCE(_hwtap_transport.consumed);

	/* Orders it before the look: pairs with the consume-then-count in the reader. */
	smp_mb();
	return seen;
}

/*
 * Waits (process context) until the reader has consumed more than SEEN. False when
 * waiting is pointless: nobody has `out' open, or the reader made no progress for
 * HWTAP_STALL_MS, now or before.
 */
static bool _hwtap_wait_for_reader(unsigned long seen)
{
	struct hwtap_transport *t = &_hwtap_transport;

	if (!atomic_read(&t->open) || READ_ONCE(t->stalled))
		return false;
	if (wait_event_timeout(t->space_wq,
			       READ_ONCE(t->consumed) != seen || !atomic_read(&t->open),
			       msecs_to_jiffies(HWTAP_STALL_MS)))
		return atomic_read(&t->open);
	WRITE_ONCE(t->stalled, true);
	return false;
}

/* A full buffer: may this write wait for the reader? The end task's, where it may sleep. */
static bool _hwtap_may_wait(void)
{
	return preemptible() && READ_ONCE(_hwtap_transport.blocking_task) == current;
}

static int _hwtap_put_record_or_wait(int stream, const char *data, size_t len)
{
	unsigned long seen;

	if (!_hwtap_put_record(stream, data, len))
		return 0;
	while (_hwtap_may_wait()) {
		seen = _hwtap_reader_progress();
		if (!_hwtap_put_record(stream, data, len))
			return 0;
		if (!_hwtap_wait_for_reader(seen))
			break;
	}
	return -ENOSPC;
}

/* LEN bytes as records of at most HWTAP_RECORD_MAX; on -ENOSPC the rest is dropped. */
static int _hwtap_write_stream(int stream, const char *data, size_t len)
{
	size_t n;

	while (len) {
		n = min_t(size_t, len, HWTAP_RECORD_MAX);
		if (_hwtap_put_record_or_wait(stream, data, n)) {
			atomic64_add(DIV_ROUND_UP(len, HWTAP_RECORD_MAX), &_hwtap_dropped);
			return -ENOSPC;
		}
		data += n;
		len -= n;
	}
	return 0;
}

/* The script's output, from any context: 0, or -ENOSPC (dropped, counted). */
static __maybe_unused int _hwtap_write(const char *data, size_t len)
{
	return _hwtap_write_stream(HWTAP_STREAM_OUT, data, len);
}

/* Commands for hwtap-run that a full buffer dropped (they count in _hwtap_dropped too). */
static atomic64_t _hwtap_lost_commands = ATOMIC64_INIT(0);

/*
 * A command for hwtap-run to start, with EVENT for its environment (system(), trigger()),
 * from any context: one record "COMMAND\0EVENT", never waiting for room. 0, or -ENOSPC
 * (dropped, counted).
 */
static __maybe_unused int _hwtap_command(const char *command, const char *event)
{
	size_t nc = strnlen(command, HWTAP_RECORD_MAX - 1);
	size_t ne = strnlen(event, HWTAP_RECORD_MAX - 1 - nc);
	struct ring_buffer_event *rec;
	unsigned char *p;

	rec = ring_buffer_lock_reserve(_hwtap_transport.rb, HWTAP_RECORD_HDR + nc + 1 + ne);
	if (!rec) {
		atomic64_inc(&_hwtap_dropped);
		atomic64_inc(&_hwtap_lost_commands);
		return -ENOSPC;
	}
	p = ring_buffer_event_data(rec);
	p[0] = HWTAP_STREAM_COMMAND;
	p[1] = 0;
	p[2] = (nc + 1 + ne) & 0xff;
	p[3] = (nc + 1 + ne) >> 8;
	memcpy(p + HWTAP_RECORD_HDR, command, nc);
	p[HWTAP_RECORD_HDR + nc] = '\0';
	memcpy(p + HWTAP_RECORD_HDR + nc + 1, event, ne);
	_hwtap_rb_commit(_hwtap_transport.rb, rec);
	_hwtap_wake_reader(false);
	return 0;
}

/* ---- the reader ----------------------------------------------------------------------- */

/*
 * Around every ring buffer call that takes its reader lock: a panic finds the lock free
 * when no call is counted (panic.h; the other CPUs are stopped by then).
 */
static void _hwtap_rb_enter(void)
{
	atomic_inc(&_hwtap_transport.rb_readers);
	smp_mb__after_atomic();
}

static void _hwtap_rb_exit(void)
{
	smp_mb__before_atomic();
	atomic_dec(&_hwtap_transport.rb_readers);
}

static bool _hwtap_rb_empty(void)
{
	bool empty;

	_hwtap_rb_enter();
	empty = ring_buffer_empty(_hwtap_transport.rb);
	_hwtap_rb_exit();
	return empty;
}

static void _hwtap_peek(int cpu)
{
	struct hwtap_head *head = &_hwtap_transport.heads[cpu];

	head->event = ring_buffer_peek(_hwtap_transport.rb, cpu, &head->ts, NULL);
}

static int _hwtap_oldest_cpu(void)
{
	struct hwtap_head *heads = _hwtap_transport.heads;
	int cpu, best = -1;

	for_each_possible_cpu(cpu)
		if (heads[cpu].event && (best < 0 || heads[cpu].ts < heads[best].ts))
			best = cpu;
	return best;
}

/* The record's size with its header; 0 for an event that is not a record of ours. */
static size_t _hwtap_record_size(struct ring_buffer_event *event)
{
	unsigned char *p = ring_buffer_event_data(event);
	size_t len = p[2] | p[3] << 8;

	if (len > HWTAP_RECORD_MAX || HWTAP_RECORD_HDR + len > ring_buffer_event_length(event))
		return 0;
	return HWTAP_RECORD_HDR + len;
}

/*
 * Moves whole records, oldest first, to BUF while they fit. A peeked event stays where it
 * is until we consume it: writers never touch the reader page, and read_lock makes us
 * the only consumer.
 */
static ssize_t _hwtap_copy_records(char __user *buf, size_t count)
{
	struct hwtap_transport *t = &_hwtap_transport;
	size_t done = 0, size;
	int cpu;

	_hwtap_rb_enter();
	for_each_possible_cpu(cpu)
		_hwtap_peek(cpu);
	while ((cpu = _hwtap_oldest_cpu()) >= 0) {
		size = _hwtap_record_size(t->heads[cpu].event);
		if (size > count - done)
			break;
		if (size && copy_to_user(buf + done, ring_buffer_event_data(t->heads[cpu].event),
					 size)) {
			_hwtap_rb_exit();
			return done ? done : -EFAULT;
		}
		/* (Records overwritten before a reader came are counted at its open.) */
		ring_buffer_consume(t->rb, cpu, NULL, NULL);
		/* The count after the consume: pairs with _hwtap_reader_progress(). */
		smp_store_release(&t->consumed, t->consumed + 1);
		done += size;
		_hwtap_peek(cpu);
	}
	_hwtap_rb_exit();
	return done;
}

static bool _hwtap_readable(void)
{
	return READ_ONCE(_hwtap_transport.closed) || !_hwtap_rb_empty();
}

/* Tells producers the reader is about to sleep; then whether it still has to. */
static bool _hwtap_reader_sleeps(void)
{
	WRITE_ONCE(_hwtap_transport.reader_waiting, 1);
	/* Orders the flag before looking at the buffers: pairs with _hwtap_wake_reader(). */
	smp_mb();
	return !_hwtap_readable();
}

static ssize_t _hwtap_read_records(struct file *file, char __user *buf, size_t count)
{
	struct hwtap_transport *t = &_hwtap_transport;
	ssize_t n;
	bool closed;

	for (;;) {
		/*
		 * Seeing the close means seeing every record committed before it: pairs
		 * with smp_store_release() in _hwtap_transport_close().
		 */
		closed = smp_load_acquire(&t->closed);
		n = _hwtap_copy_records(buf, count);
		if (n || closed)
			return n;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/*
		 * The flag is set again before every look: a wakeup clears it, and one
		 * that finds nothing readable (a lazy wake for records already read) must
		 * not leave the reader asleep with producers no longer waking it.
		 */
		if (wait_event_interruptible(t->read_wq, !_hwtap_reader_sleeps()))
			return -ERESTARTSYS;
	}
}

static ssize_t _hwtap_out_read(struct file *file, char __user *buf, size_t count,
			       loff_t *ppos)
{
	struct hwtap_transport *t = &_hwtap_transport;
	ssize_t n;

	if (count < HWTAP_READ_MIN)
		return -EINVAL;
	/* One consumer at a time, as the ring buffer wants: unlocked below. */
	if (mutex_lock_interruptible(&t->read_lock))
		return -ERESTARTSYS;
	n = _hwtap_read_records(file, buf, count);
	mutex_unlock(&t->read_lock);
	/* wq_has_sleeper()'s smp_mb() pairs with the one in the end task's wait_event_timeout(). */
	if (n > 0 && wq_has_sleeper(&t->space_wq))
		wake_up(&t->space_wq);
	return n;
}

static __poll_t _hwtap_out_poll(struct file *file, struct poll_table_struct *pt)
{
	poll_wait(file, &_hwtap_transport.read_wq, pt);
	return _hwtap_reader_sleeps() ? 0 : EPOLLIN | EPOLLRDNORM;
}

static int _hwtap_out_open(struct inode *inode, struct file *file)
{
	struct hwtap_transport *t = &_hwtap_transport;
	unsigned long overruns;

	/* The file mode is not enough: a session's output is root's (CAP_SYS_ADMIN) only. */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* One reader at a time: released by _hwtap_out_release(). */
	if (atomic_cmpxchg(&t->open, 0, 1))
		return -EBUSY;
	/* A reader now: full buffers drop the newest again. */
	ring_buffer_change_overwrite(t->rb, 0);
	overruns = ring_buffer_overruns(t->rb);
	WRITE_ONCE(t->overwritten_unseen, overruns - t->overruns_seen);
	t->overruns_seen = overruns;
	WRITE_ONCE(t->reader_tgid, current->tgid);
	WRITE_ONCE(t->stalled, false);
	return stream_open(inode, file);
}

/* Also called by proc_remove() for a file still open when the module goes away. */
static int _hwtap_out_release(struct inode *inode, struct file *file)
{
	/* No reader: the flight recorder keeps the newest records. */
	ring_buffer_change_overwrite(_hwtap_transport.rb, 1);
	atomic_set(&_hwtap_transport.open, 0);
	wake_up(&_hwtap_transport.space_wq);
	return 0;
}

static const struct proc_ops _hwtap_out_ops = {
	.proc_open = _hwtap_out_open,
	.proc_read = _hwtap_out_read,
	.proc_poll = _hwtap_out_poll,
	.proc_release = _hwtap_out_release,
};

/* ---- snapshots: /proc/hwtap_NAME/snap ------------------------------------------------------ */

/*
 * A copy of what the buffers hold when it is read, oldest first, without consuming it:
 * the live reader (or the next one) still gets every record, and the writers go on (a
 * ring buffer iterator does not stop them; a record they overwrite under the iterator is
 * missed, and the copy ends with a warning record saying so). Any number of snapshots,
 * each with its own iterators.
 */
struct hwtap_snap {
	struct mutex lock;			/* one read() at a time on this file */
	bool dropped, said;			/* a record was overwritten under us */
	struct ring_buffer_iter *iter[];	/* [nr_cpu_ids]; NULL: no buffer */
};

static int _hwtap_snap_open(struct inode *inode, struct file *file)
{
	struct hwtap_snap *snap;
	int cpu;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	snap = kzalloc(struct_size(snap, iter, nr_cpu_ids), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	mutex_init(&snap->lock);
	_hwtap_rb_enter();
	for_each_possible_cpu(cpu)
		snap->iter[cpu] = ring_buffer_read_start(_hwtap_transport.rb, cpu, GFP_KERNEL);
	_hwtap_rb_exit();
	file->private_data = snap;
	return stream_open(inode, file);
}

static int _hwtap_snap_release(struct inode *inode, struct file *file)
{
	struct hwtap_snap *snap = file->private_data;
	int cpu;

	_hwtap_rb_enter();
	for_each_possible_cpu(cpu)
		if (snap->iter[cpu])
			ring_buffer_read_finish(snap->iter[cpu]);
	_hwtap_rb_exit();
	kfree(snap);
	return 0;
}

static const char _hwtap_snap_warning[] =
	"WARNING: snapshot: records were overwritten while it was read: some are missing\n";

static ssize_t _hwtap_snap_read(struct file *file, char __user *buf, size_t count,
				loff_t *ppos)
{
	struct hwtap_snap *snap = file->private_data;
	struct ring_buffer_event *event, *best_event;
	size_t done = 0, size;
	u64 ts, best_ts;
	int cpu, best;

	if (count < HWTAP_READ_MIN)
		return -EINVAL;
	mutex_lock(&snap->lock);
	_hwtap_rb_enter();
	for (;;) {
		best = -1;
		best_event = NULL;
		best_ts = 0;
		for_each_possible_cpu(cpu) {
			if (!snap->iter[cpu])
				continue;
			event = ring_buffer_iter_peek(snap->iter[cpu], &ts);
			if (ring_buffer_iter_dropped(snap->iter[cpu]))
				snap->dropped = true;
			if (event && (best < 0 || ts < best_ts)) {
				best = cpu;
				best_event = event;
				best_ts = ts;
			}
		}
		if (best < 0)
			break;
		size = _hwtap_record_size(best_event);
		if (size > count - done)
			break;
		if (size && copy_to_user(buf + done, ring_buffer_event_data(best_event), size)) {
			_hwtap_rb_exit();
			mutex_unlock(&snap->lock);
			return done ? done : -EFAULT;
		}
		done += size;
		ring_buffer_iter_advance(snap->iter[best]);
	}
	_hwtap_rb_exit();
	/* At the end, once: say what the copy missed, as an ERR record of its own. */
	if (best < 0 && snap->dropped && !snap->said &&
	    count - done >= HWTAP_RECORD_HDR + sizeof(_hwtap_snap_warning) - 1) {
		unsigned char hdr[HWTAP_RECORD_HDR] = {
			HWTAP_STREAM_ERR, 0, (sizeof(_hwtap_snap_warning) - 1) & 0xff,
			(sizeof(_hwtap_snap_warning) - 1) >> 8,
		};

		if (!copy_to_user(buf + done, hdr, sizeof(hdr)) &&
		    !copy_to_user(buf + done + sizeof(hdr), _hwtap_snap_warning,
				  sizeof(_hwtap_snap_warning) - 1)) {
			done += sizeof(hdr) + sizeof(_hwtap_snap_warning) - 1;
			snap->said = true;
		}
	}
	mutex_unlock(&snap->lock);
	return done;
}

static const struct proc_ops _hwtap_snap_ops = {
	.proc_open = _hwtap_snap_open,
	.proc_read = _hwtap_snap_read,
	.proc_release = _hwtap_snap_release,
};

/* ---- the session's side --------------------------------------------------------------- */

/* SIZE bytes per CPU. */
static int _hwtap_transport_init(unsigned long size)
{
	struct hwtap_transport *t = &_hwtap_transport;

	t->heads = kcalloc(nr_cpu_ids, sizeof(*t->heads), GFP_KERNEL);
	if (!t->heads)
		return -ENOMEM;
	/* Overwrite off until a reader comes and goes (the flight recorder): none yet. */
	t->rb = ring_buffer_alloc(size, 0);
	if (!t->rb)
		goto out_heads;
	mutex_init(&t->read_lock);
	init_waitqueue_head(&t->read_wq);
	init_waitqueue_head(&t->space_wq);
	init_irq_work(&t->wake_work, _hwtap_wake_work);
	t->wake_lazy = IRQ_WORK_INIT_LAZY(_hwtap_wake_work);
	return 0;

out_heads:
	kfree(t->heads);
	return -ENOMEM;
}

static struct proc_dir_entry *_hwtap_transport_create_file(struct proc_dir_entry *dir)
{
	return proc_create(HWTAP_PROC_SNAP, 0400, dir, &_hwtap_snap_ops) ?
	       proc_create(HWTAP_PROC_OUT, 0400, dir, &_hwtap_out_ops) : NULL;
}

/* After the last producer is gone (and proc_remove()): frees everything. */
static void _hwtap_transport_free(void)
{
	irq_work_sync(&_hwtap_transport.wake_work);
	irq_work_sync(&_hwtap_transport.wake_lazy);
	ring_buffer_free(_hwtap_transport.rb);
	kfree(_hwtap_transport.heads);
}

/* The session's periodic check: wakes a reader that sleeps although records wait. */
static void _hwtap_transport_poll(void)
{
#ifdef HWTAP_TEST_SPURIOUS_WAKE
	/* -D HWTAP_TEST_SPURIOUS_WAKE, for tests: once, a wake that finds nothing to read
	 * (as a lazy wake does when an immediate one woke the reader for its records first),
	 * from the second check on (the first comes while hwtap-run starts the session). */
	static int checks;
	static bool woken;

	if (++checks > 1 && !woken && READ_ONCE(_hwtap_transport.reader_waiting) &&
	    !_hwtap_readable() &&
	    wq_has_sleeper(&_hwtap_transport.read_wq)) {
		woken = true;
		_hwtap_wake_work(NULL);
		return;
	}
#endif
	if (READ_ONCE(_hwtap_transport.reader_waiting) && _hwtap_readable())
		wake_up_interruptible_all(&_hwtap_transport.read_wq);
}

/* Process context: waits until the reader has read everything, closes `out' or stalls. */
static void _hwtap_transport_drain(void)
{
	unsigned long seen;

	do
		seen = _hwtap_reader_progress();
	while (!_hwtap_rb_empty() && _hwtap_wait_for_reader(seen));
}

/* TASK's writes wait for room instead of dropping (NULL: nobody's). */
static void _hwtap_transport_set_blocking(struct task_struct *task)
{
	WRITE_ONCE(_hwtap_transport.blocking_task, task);
}

/* Whether TASK belongs to the process reading `out': it must never wait for room. */
static bool _hwtap_transport_read_by(struct task_struct *task)
{
	return atomic_read(&_hwtap_transport.open) &&
	       READ_ONCE(_hwtap_transport.reader_tgid) == task->tgid;
}

/* After the last write: the reader gets what is left, then end of file. */
static void _hwtap_transport_close(void)
{
	ring_buffer_record_off(_hwtap_transport.rb);
	/* Publishes the records written before: pairs with _hwtap_read_records()'s acquire. */
	smp_store_release(&_hwtap_transport.closed, true);
	wake_up_interruptible_all(&_hwtap_transport.read_wq);
}

/*
 * For ctl: records overwritten in all, of them those before the current or last reader,
 * records in the buffers, and records readers took in all: what was written is what the
 * three hold, and the dropped ones are the rest (bench/soak.sh checks that sum).
 */
static void _hwtap_transport_counts(unsigned long *overwritten, unsigned long *unseen,
				    unsigned long *entries, unsigned long *read, bool *attached)
{
	*overwritten = ring_buffer_overruns(_hwtap_transport.rb);
	*read = READ_ONCE(_hwtap_transport.consumed);
	*unseen = READ_ONCE(_hwtap_transport.overwritten_unseen);
	*entries = ring_buffer_entries(_hwtap_transport.rb);
	*attached = atomic_read(&_hwtap_transport.open);
}

#endif /* HWTAP_TRANSPORT_H */
