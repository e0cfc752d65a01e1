/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * udyn.c - symbol tables for the files nobody named: every program and library a process
 * on the machine maps for execution gets its names from hwtap-run as it appears, so that
 * a system-wide profile says "function [program]" for programs started before or after
 * the script, and for ones gone before the report. Included by usyms.c.
 *
 * The module asks, hwtap-run answers (the exchange is runtime/protocol.h's
 * /proc/hwtap_NAME/usyms): when a process maps a file for execution that has no table (a
 * kprobe on perf_event_mmap(), or the scan at the start), a slot is taken for the file
 * (holding a reference, so the inode compared stays that file's) and a request queued;
 * the reader opens the file through /proc/PID/map_files (or its path, checked to be the
 * same inode), reads its symbols with libelf (lib/usymtab.c), and writes them back; they
 * are checked (bounds, order) and published to lookups in any context with a release
 * store. Slots are never reused within a session: a mapping recorded for a slot names its
 * addresses with that file's table or not at all, never another file's.
 *
 * So that a process's first samples are named, the task that mapped a file whose table is
 * not there yet waits for it on its way back to user space (a task_work: process context,
 * after mmap() or exec() returned, no lock held), HWTAP_UDYN_WAIT_MS at most, once per
 * file in the session; only while a reader has the file open, and never the reader
 * itself. The start waits likewise (HWTAP_UDYN_START_WAIT_MS at most) for the files the
 * processes already running have mapped.
 *
 * Bounds: HWTAP_UDYN_FILES files, HWTAP_UDYN_BYTES bytes of tables; what finds no room is
 * counted and reported at the stop. -D HWTAP_UDYN_FILES=0 names only the files the
 * translator built in, as SystemTap does. The files one user other than root owns take at
 * most HWTAP_UDYN_USER_FILES slots and HWTAP_UDYN_USER_BYTES of those bytes (a quarter
 * each), so that no user's files, small or short-lived ones by the thousand, leave the
 * others' programs unnamed: owned, since a user can make files only as itself, and the
 * files everybody runs are root's. HWTAP_UDYN_USERS users are told apart; the ones past
 * them share one last share.
 */
#ifndef HWTAP_UDYN_C
#define HWTAP_UDYN_C

#include <linux/file.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/stat.h>
#include <linux/task_work.h>
#include <linux/wait.h>

#include "protocol.h"

#ifndef HWTAP_UFRAMES
#define HWTAP_UFRAMES 0			/* 1: the script unwinds user stacks (uunwind.c) */
#endif
#ifndef HWTAP_UDYN_FILES
#define HWTAP_UDYN_FILES 1024		/* files named as they are mapped */
#endif
#ifndef HWTAP_UDYN_BYTES
#define HWTAP_UDYN_BYTES (64 << 20)	/* their tables' memory */
#endif
#ifndef HWTAP_UDYN_WAIT_MS
#define HWTAP_UDYN_WAIT_MS 1000		/* a mapping task's wait for a table */
#endif
#ifndef HWTAP_UDYN_START_WAIT_MS
#define HWTAP_UDYN_START_WAIT_MS 10000	/* the start's, for the running processes' */
#endif
#ifndef HWTAP_UDYN_USER_FILES
#define HWTAP_UDYN_USER_FILES (HWTAP_UDYN_FILES / 4)	/* one user's files' share */
#endif
#ifndef HWTAP_UDYN_USER_BYTES
#define HWTAP_UDYN_USER_BYTES (HWTAP_UDYN_BYTES / 4)
#endif
#define HWTAP_UDYN_USERS 64		/* users told apart */
#define HWTAP_UDYN_WAITERS 64		/* tasks waiting at once */
#define HWTAP_UDYN_SEGS_MAX 64
#define HWTAP_UDYN_SYMS_MAX (1 << 22)
#define HWTAP_UDYN_FRAMES_MAX (1 << 21)	/* lib/uframes.h's UFRAMES_ROWS_MAX */
#define HWTAP_UDYN_NAMES_MAX (1 << 30)	/* a name's offset fits in u32 */

enum { HWTAP_UDYN_ASKED = 1, HWTAP_UDYN_SENT, HWTAP_UDYN_READY, HWTAP_UDYN_NONE };

struct hwtap_udyn {
	struct hwtap_umod m;		/* the table, once READY */
	struct hlist_node by_inode;
	const struct inode *inode;
	struct file *file;		/* held: the inode stays this file's */
	pid_t pid;			/* a process that mapped it, and where */
	unsigned long start, end;
	int state;
	int user;			/* its owner's share, or -1: root's */
	void *tables;			/* m's segments, symbols, unwind rows and names */
	size_t bytes;
};

/* What the files of one user (not root) take. */
struct hwtap_udyn_user {
	kuid_t uid;			/* (the last share: the first user past the others) */
	int files;			/* under the umaps lock */
	size_t bytes;			/* under the mutex */
};

struct hwtap_udyn_waiter {
	struct callback_head work;
	int slot;
	bool busy;
	pid_t pid;			/* the task it waits in, for the stop's warning */
	char comm[TASK_COMM_LEN];
};

static struct hwtap_udyn *_hwtap_udyn;		/* HWTAP_UDYN_FILES slots, while started */
static int _hwtap_udyn_n;			/* taken (release: slot filled) */
static DEFINE_HASHTABLE(_hwtap_udyn_by_inode, 9);	/* what is asked or known */
static DEFINE_MUTEX(_hwtap_udyn_mutex);		/* slots' states and tables: the file's */
static atomic_t _hwtap_udyn_asked;		/* slots ASKED: POLLIN */
static atomic_t _hwtap_udyn_unsettled;		/* ASKED or SENT */
static pid_t _hwtap_udyn_reader;		/* the reader's tgid, 0 without one */
static bool _hwtap_udyn_stopping;
static size_t _hwtap_udyn_bytes;
static atomic_t _hwtap_udyn_refused_files, _hwtap_udyn_refused_bytes, _hwtap_udyn_late;
static struct hwtap_udyn_user _hwtap_udyn_users[HWTAP_UDYN_USERS];
static int _hwtap_udyn_nusers;				/* under the umaps lock */
static atomic_t _hwtap_udyn_refused_user_files, _hwtap_udyn_refused_user_bytes;
static uid_t _hwtap_udyn_refused_uid;			/* one of them, for the warning */
static DECLARE_WAIT_QUEUE_HEAD(_hwtap_udyn_readq);	/* the reader's poll */
static DECLARE_WAIT_QUEUE_HEAD(_hwtap_udyn_doneq);	/* tables settled */
static struct irq_work _hwtap_udyn_wake;		/* wakes readq from a kprobe */
static struct hwtap_udyn_waiter _hwtap_udyn_waiters[HWTAP_UDYN_WAITERS];
static struct hwtap_twork _hwtap_udyn_tworks;		/* their task_works (taskwork.h) */

/* The table of module MOD (HWTAP_UMODS on: a slot here), NULL while it has none. */
static const struct hwtap_umod *_hwtap_umod(int mod)
{
	const struct hwtap_udyn *d;

	if (mod >= 0 && mod < HWTAP_UMODS)
		return &hwtap_umods[mod];
	if (mod >= HWTAP_UJIT_MOD0)			/* a JIT's perf map (ujit.c) */
		return _hwtap_ujit_umod(mod);
	if (mod == HWTAP_UVDSO_MOD)			/* the vDSO's (uvdso.c) */
		return READ_ONCE(_hwtap_uvdso.nsyms) ? &_hwtap_uvdso : NULL;
	mod -= HWTAP_UMODS;
	if (mod < 0 || mod >= HWTAP_UDYN_FILES || !READ_ONCE(_hwtap_udyn))
		return NULL;
	d = &_hwtap_udyn[mod];
	return smp_load_acquire(&d->state) == HWTAP_UDYN_READY ? &d->m : NULL;
}

/* The module of INODE's slot (asked or known), or -1. */
static int _hwtap_udyn_of(const struct inode *inode)
{
	struct hwtap_udyn *d;
	int mod = -1;

	if (!_hwtap_udyn)
		return -1;
	rcu_read_lock();
	hash_for_each_possible_rcu(_hwtap_udyn_by_inode, d, by_inode, (unsigned long)inode)
		if (READ_ONCE(d->inode) == inode) {
			mod = HWTAP_UMODS + (d - _hwtap_udyn);
			break;
		}
	rcu_read_unlock();
	return mod;
}

static void _hwtap_udyn_wake_reader(struct irq_work *work)
{
	wake_up_interruptible(&_hwtap_udyn_readq);
}

/* Under the umaps lock: the share of user UID (a file's owner, a JIT process's euid), -1
 * for root. */
static int _hwtap_udyn_user_of(kuid_t uid)
{
	int u;

	if (uid_eq(uid, GLOBAL_ROOT_UID))
		return -1;
	for (u = 0; u < _hwtap_udyn_nusers; u++)
		if (uid_eq(_hwtap_udyn_users[u].uid, uid))
			return u;
	if (_hwtap_udyn_nusers == HWTAP_UDYN_USERS)
		return HWTAP_UDYN_USERS - 1;
	_hwtap_udyn_users[u] = (struct hwtap_udyn_user){ .uid = uid };
	return _hwtap_udyn_nusers++;
}

/* In the task that maps VMA (mmap_lock held) or the scan: a slot for its file, asked of
 * the reader; its module, or -1 (not code, not a regular file, no room, its owner's
 * share taken). */
static int _hwtap_udyn_ask(struct vm_area_struct *vma, pid_t tgid)
{
	struct file *file = vma->vm_file;
	const struct inode *inode = file_inode(file);
	struct hwtap_udyn *d;
	unsigned long flags;
	int mod = -1, user;

	if (!_hwtap_udyn || !(vma->vm_flags & VM_EXEC) || !S_ISREG(inode->i_mode))
		return -1;
	get_file(file);
	raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
	hash_for_each_possible(_hwtap_udyn_by_inode, d, by_inode, (unsigned long)inode)
		if (d->inode == inode) {
			mod = HWTAP_UMODS + (d - _hwtap_udyn);
			break;
		}
	user = mod < 0 ? _hwtap_udyn_user_of(inode->i_uid) : -1;
	if (user >= 0 && _hwtap_udyn_users[user].files >= HWTAP_UDYN_USER_FILES) {
		atomic_inc(&_hwtap_udyn_refused_user_files);
		WRITE_ONCE(_hwtap_udyn_refused_uid,
			   from_kuid_munged(&init_user_ns, inode->i_uid));
	} else if (mod < 0 && _hwtap_udyn_n < HWTAP_UDYN_FILES) {
		if (user >= 0)
			_hwtap_udyn_users[user].files++;
		d = &_hwtap_udyn[_hwtap_udyn_n];
		d->user = user;
		d->inode = inode;
		d->file = file;
		file = NULL;
		d->pid = tgid;
		d->start = vma->vm_start;
		d->end = vma->vm_end;
		d->state = HWTAP_UDYN_ASKED;
		atomic_inc(&_hwtap_udyn_asked);
		atomic_inc(&_hwtap_udyn_unsettled);
		mod = HWTAP_UMODS + _hwtap_udyn_n;
		smp_store_release(&_hwtap_udyn_n, _hwtap_udyn_n + 1);
		hash_add_rcu(_hwtap_udyn_by_inode, &d->by_inode, (unsigned long)inode);
	} else if (mod < 0) {
		atomic_inc(&_hwtap_udyn_refused_files);
	}
	raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
	if (file)
		fput(file);	/* not the last reference: the mapping holds one */
	else
		irq_work_queue(&_hwtap_udyn_wake);
	return mod;
}

static bool _hwtap_udyn_settled(const struct hwtap_udyn *d)
{
	return smp_load_acquire(&d->state) >= HWTAP_UDYN_READY || !READ_ONCE(_hwtap_udyn_reader) ||
	       READ_ONCE(_hwtap_udyn_stopping);
}

/* The task_work: in the task that mapped the slot's file, on its way to user space. */
static void _hwtap_udyn_wait(struct callback_head *work)
{
	struct hwtap_udyn_waiter *w = container_of(work, struct hwtap_udyn_waiter, work);
	unsigned long flags;
	int idx;

	/* (after the stop: the slots may be gone; only the count is ours to touch) */
	if (_hwtap_twork_begin(&_hwtap_udyn_tworks, &idx)) {
		struct hwtap_udyn *d = &_hwtap_udyn[w->slot];

		if (!(current->flags & PF_EXITING) &&
		    !wait_event_killable_timeout(_hwtap_udyn_doneq, _hwtap_udyn_settled(d),
						 msecs_to_jiffies(HWTAP_UDYN_WAIT_MS)))
			atomic_inc(&_hwtap_udyn_late);
		_hwtap_twork_end(idx);
	}
	raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
	w->busy = false;
	raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
	_hwtap_twork_done(&_hwtap_udyn_tworks);	/* the last touch of module memory */
}

/* In the task that mapped module MOD's file: it waits for the table on its way back to
 * user space, if there is a reader to answer and the table is not there yet. */
static void _hwtap_udyn_wait_later(int mod)
{
	struct hwtap_udyn_waiter *w = NULL;
	unsigned long flags;
	pid_t reader = READ_ONCE(_hwtap_udyn_reader);
	int k, slot = mod - HWTAP_UMODS;

	/* (an io_uring worker never goes back to user space to run a task_work) */
	if (slot < 0 || !reader || reader == current->tgid || (current->flags & PF_IO_WORKER) ||
	    _hwtap_udyn_settled(&_hwtap_udyn[slot]))
		return;
	raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
	for (k = 0; k < HWTAP_UDYN_WAITERS && !w; k++)
		if (!_hwtap_udyn_waiters[k].busy)
			w = &_hwtap_udyn_waiters[k];
	if (w) {
		w->busy = true;
		w->slot = slot;
		w->pid = current->pid;
		strscpy(w->comm, current->comm, sizeof(w->comm));	/* its own: no lock */
	}
	raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
	if (!w)
		return;		/* as many tasks wait already: this one goes on */
	_hwtap_twork_queued(&_hwtap_udyn_tworks);
	init_task_work(&w->work, _hwtap_udyn_wait);
	if (!task_work_add(current, &w->work, TWA_RESUME))
		return;
	raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);	/* exiting */
	w->busy = false;
	raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
	/* (the stop looks at the count only once the kprobe is gone: not yet) */
	_hwtap_twork_done(&_hwtap_udyn_tworks);
}

/* NSYMS symbols of an answer at BUF into SYMS, checked (ascending, names inside
 * NAMES_LEN bytes, sizes in 32 bits): 0 or -errno. */
static int _hwtap_udyn_syms(struct hwtap_usym *syms, u64 nsyms, u64 names_len,
			    const char __user *buf)
{
	u64 sym[HWTAP_USYMS_SYM_WORDS], i, last = 0;

	for (i = 0; i < nsyms; i++, buf += sizeof(sym)) {
		if (!(i & 4095))
			cond_resched();		/* up to 4M of them */
		if (copy_from_user(sym, buf, sizeof(sym)))
			return -EFAULT;
		if ((i && sym[0] <= last) || sym[1] >= names_len || sym[2] > U32_MAX ||
		    sym[3] >= names_len)
			return -EINVAL;
		syms[i] = (struct hwtap_usym){ .addr = last = sym[0], .name = sym[1],
					       .size = sym[2], .dname = sym[3] };
	}
	return 0;
}

#include "ujit.c"

/* ---- the reader's file --------------------------------------------------------------------- */

static int _hwtap_udyn_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (cmpxchg(&_hwtap_udyn_reader, 0, current->tgid))
		return -EBUSY;
	return 0;
}

static int _hwtap_udyn_release(struct inode *inode, struct file *file)
{
	int i, n;

	mutex_lock(&_hwtap_udyn_mutex);
	n = _hwtap_udyn ? smp_load_acquire(&_hwtap_udyn_n) : 0;
	for (i = 0; i < n; i++)		/* read, not answered: for the next reader */
		if (_hwtap_udyn[i].state == HWTAP_UDYN_SENT) {
			_hwtap_udyn[i].state = HWTAP_UDYN_ASKED;
			atomic_inc(&_hwtap_udyn_asked);
		}
	_hwtap_ujit_release();
	WRITE_ONCE(_hwtap_udyn_reader, 0);
	mutex_unlock(&_hwtap_udyn_mutex);
	wake_up_all(&_hwtap_udyn_doneq);	/* nobody answers them now */
	return 0;
}

static __poll_t _hwtap_udyn_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &_hwtap_udyn_readq, wait);
	return atomic_read(&_hwtap_udyn_asked) > 0 ? EPOLLIN | EPOLLRDNORM : 0;
}

/* Requests, whole, as many as fit in COUNT bytes: 0 when none waits. */
static ssize_t _hwtap_udyn_read(struct file *file, char __user *buf, size_t count,
				loff_t *ppos)
{
	char *rec, *path;
	ssize_t done = 0;
	int i, n, len;

	rec = kmalloc(HWTAP_USYMS_REQUEST_MAX + PATH_MAX, GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	path = rec + HWTAP_USYMS_REQUEST_MAX;
	mutex_lock(&_hwtap_udyn_mutex);
	n = _hwtap_udyn ? smp_load_acquire(&_hwtap_udyn_n) : 0;
	for (i = 0; i < n; i++) {
		struct hwtap_udyn *d = &_hwtap_udyn[i];
		struct kstat st;
		char *p;

		if (d->state != HWTAP_UDYN_ASKED)
			continue;
		/* the device and inode number fstat() gives (btrfs, overlayfs: not the sb's) */
		if (vfs_getattr(&d->file->f_path, &st, STATX_INO, AT_STATX_SYNC_AS_STAT)) {
			st.dev = d->inode->i_sb->s_dev;
			st.ino = d->inode->i_ino;
		}
		p = d_path(&d->file->f_path, path, PATH_MAX);
		if (IS_ERR(p))
			p = "";
		len = scnprintf(rec, HWTAP_USYMS_REQUEST_MAX, "%d %d %lx %lx %u %u %llu %d %s",
				i, d->pid, d->start, d->end, MAJOR(st.dev), MINOR(st.dev),
				(unsigned long long)st.ino, HWTAP_UFRAMES, p) + 1; /* and NUL */
		if (done + len > count)
			break;
		if (copy_to_user(buf + done, rec, len)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		done += len;
		d->state = HWTAP_UDYN_SENT;
		atomic_dec(&_hwtap_udyn_asked);
	}
	if (i == n && done >= 0)	/* then the perf maps' (ujit.c) */
		done = _hwtap_ujit_read(buf, count, done, rec);
	mutex_unlock(&_hwtap_udyn_mutex);
	kfree(rec);
	if (!done && atomic_read(&_hwtap_udyn_asked) > 0 && count < HWTAP_USYMS_REQUEST_MAX)
		return -EINVAL;		/* a request does not fit in COUNT */
	return done;
}

/* Slot D has no table (and is asked again at its file's next mapping if AGAIN). Under
 * the mutex. */
static void _hwtap_udyn_settle(struct hwtap_udyn *d, int state, bool again)
{
	unsigned long flags;

	if (d->state == HWTAP_UDYN_ASKED)
		atomic_dec(&_hwtap_udyn_asked);
	if (d->state == HWTAP_UDYN_ASKED || d->state == HWTAP_UDYN_SENT)
		atomic_dec(&_hwtap_udyn_unsettled);
	if (again) {
		raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
		hash_del_rcu(&d->by_inode);
		raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
	}
	smp_store_release(&d->state, state);
	wake_up_all(&_hwtap_udyn_doneq);
}

/* NFRAMES unwind rows of an answer at BUF into FRAMES, checked (ascending, rules known):
 * 0 or -errno. */
static int _hwtap_udyn_frames(struct hwtap_uframe *frames, u64 nframes, const char __user *buf)
{
	u64 w[HWTAP_USYMS_FRAME_WORDS], i, last = 0;

	for (i = 0; i < nframes; i++, buf += sizeof(w)) {
		struct hwtap_uframe *f = &frames[i];

		if (!(i & 4095))
			cond_resched();
		if (copy_from_user(w, buf, sizeof(w)))
			return -EFAULT;
		if ((i && w[0] <= last) || (w[2] >> 40))
			return -EINVAL;
		*f = (struct hwtap_uframe){
			.addr = last = w[0], .cfa_off = (s32)w[1], .ra_off = (s16)(w[1] >> 32),
			.fp_off = (s16)(w[1] >> 48), .cfa = w[2], .ra = w[2] >> 8,
			.fp = w[2] >> 16, .flags = w[2] >> 24, .plt = w[2] >> 32,
		};
		if (f->cfa > HWTAP_UFRAME_CFA_END || f->ra > HWTAP_UFRAME_REG_UNDEF ||
		    f->fp > HWTAP_UFRAME_REG_UNDEF ||
		    (f->flags & ~(HWTAP_UFRAME_DEREF | HWTAP_UFRAME_SIGNAL)) || f->plt > 15)
			return -EINVAL;
	}
	return 0;
}

/* The tables of answer HDR into D, checked: 0 or -errno. The rows are kept only where the
 * script unwinds (HWTAP_UFRAMES). */
static int _hwtap_udyn_fill(struct hwtap_udyn *d, const u64 *hdr, const char __user *buf)
{
	u64 nsegs = hdr[3], nsyms = hdr[4], names_len = hdr[5], nframes = hdr[6], i;
	size_t segs_bytes, syms_bytes, frames_bytes, need;
	struct hwtap_useg *segs;
	struct hwtap_usym *syms;
	struct hwtap_uframe *frames;
	char *names, *name, *p;
	int rc;

	if (!names_len)
		return -EINVAL;
	if (!HWTAP_UFRAMES)
		nframes = 0;
	segs_bytes = nsegs * sizeof(*segs);
	syms_bytes = nsyms * sizeof(*syms);
	frames_bytes = nframes * sizeof(*frames);
	need = segs_bytes + syms_bytes + frames_bytes + names_len;
	if (_hwtap_udyn_bytes + need > HWTAP_UDYN_BYTES) {
		atomic_inc(&_hwtap_udyn_refused_bytes);
		return -ENOSPC;
	}
	if (d->user >= 0 && _hwtap_udyn_users[d->user].bytes + need > HWTAP_UDYN_USER_BYTES) {
		atomic_inc(&_hwtap_udyn_refused_user_bytes);
		WRITE_ONCE(_hwtap_udyn_refused_uid,
			   from_kuid_munged(&init_user_ns, d->inode->i_uid));
		return -ENOSPC;
	}
	d->tables = kvmalloc(need, GFP_KERNEL);
	name = kmalloc(PATH_MAX, GFP_KERNEL);
	rc = -ENOMEM;
	if (!d->tables || !name)
		goto fail;
	segs = d->tables;
	syms = d->tables + segs_bytes;
	frames = d->tables + segs_bytes + syms_bytes;
	names = d->tables + segs_bytes + syms_bytes + frames_bytes;
	buf += HWTAP_USYMS_HDR_WORDS * 8;
	rc = -EFAULT;
	for (i = 0; i < nsegs; i++, buf += 24) {
		if (copy_from_user(&segs[i], buf, 24))
			goto fail;
	}
	rc = _hwtap_udyn_syms(syms, nsyms, names_len, buf);
	if (rc)
		goto fail;
	buf += nsyms * HWTAP_USYMS_SYM_WORDS * 8;
	rc = _hwtap_udyn_frames(frames, nframes, buf);
	if (rc)
		goto fail;
	buf += hdr[6] * HWTAP_USYMS_FRAME_WORDS * 8;	/* (all of them, kept or not) */
	rc = -EFAULT;
	if (copy_from_user(names, buf, names_len))
		goto fail;
	rc = -EINVAL;
	if (names[names_len - 1])
		goto fail;
	p = d_path(&d->file->f_path, name, PATH_MAX);
	if (IS_ERR(p))
		strscpy(name, "<unreachable>", PATH_MAX);
	else
		memmove(name, p, strlen(p) + 1);
	d->m = (struct hwtap_umod){ .segs = segs, .nsegs = nsegs, .syms = syms, .nsyms = nsyms,
				    .frames = nframes ? frames : NULL, .nframes = nframes,
				    .names = names, .path = name, .name = name,
				    .inode = d->inode };
	d->bytes = need;
	_hwtap_udyn_bytes += need;
	if (d->user >= 0)
		_hwtap_udyn_users[d->user].bytes += need;
	return 0;
fail:
	kvfree(d->tables);
	d->tables = NULL;
	kfree(name);
	return rc;
}

/* An answer (protocol.h): COUNT bytes, or -errno. */
static ssize_t _hwtap_udyn_write(struct file *file, const char __user *buf, size_t count,
				 loff_t *ppos)
{
	u64 hdr[HWTAP_USYMS_HDR_WORDS];
	struct hwtap_ujit_tab *old = NULL;
	struct hwtap_udyn *d;
	int rc = 0;

	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr[0] != HWTAP_USYMS_MAGIC)
		return -EINVAL;
	if (hdr[1] >= HWTAP_USYMS_JIT_ID) {
		mutex_lock(&_hwtap_udyn_mutex);
		rc = _hwtap_ujit_write(hdr, buf, count, &old);
		mutex_unlock(&_hwtap_udyn_mutex);
		if (old) {		/* no lookup holds it after a grace period */
			synchronize_rcu();
			kvfree(old);
		}
		return rc ? rc : count;
	}
	mutex_lock(&_hwtap_udyn_mutex);
	if (!_hwtap_udyn || hdr[1] >= (u64)smp_load_acquire(&_hwtap_udyn_n)) {
		rc = -ENOENT;
		goto out;
	}
	d = &_hwtap_udyn[hdr[1]];
	if (d->state != HWTAP_UDYN_SENT) {
		rc = -ENOENT;		/* not asked of this reader, or answered */
		goto out;
	}
	/* a status it does not know, or a size other than the one the answer says it has
	 * (each count bounded first: no overflow): the file goes unnamed, nobody waits */
	if (hdr[2] > HWTAP_USYMS_GONE ||
	    (hdr[2] == HWTAP_USYMS_OK &&
	     (hdr[3] > HWTAP_UDYN_SEGS_MAX || hdr[4] > HWTAP_UDYN_SYMS_MAX ||
	      hdr[5] > HWTAP_UDYN_NAMES_MAX || hdr[6] > HWTAP_UDYN_FRAMES_MAX ||
	      count != sizeof(hdr) + hdr[3] * 24 + hdr[4] * HWTAP_USYMS_SYM_WORDS * 8 +
		       hdr[6] * HWTAP_USYMS_FRAME_WORDS * 8 + hdr[5]))) {
		_hwtap_udyn_settle(d, HWTAP_UDYN_NONE, false);
		rc = -EINVAL;
		goto out;
	}
	if (hdr[2] == HWTAP_USYMS_OK) {
		rc = _hwtap_udyn_fill(d, hdr, buf);
		if (!rc)
			_hwtap_udyn_settle(d, HWTAP_UDYN_READY, false);
		else
			_hwtap_udyn_settle(d, HWTAP_UDYN_NONE, false);
		if (rc == -ENOSPC)
			rc = 0;		/* counted, said at the stop: not the reader's fault */
	} else {
		_hwtap_udyn_settle(d, HWTAP_UDYN_NONE, hdr[2] == HWTAP_USYMS_GONE);
	}
out:
	mutex_unlock(&_hwtap_udyn_mutex);
	return rc ? rc : count;
}

static const struct proc_ops _hwtap_udyn_ops = {
	.proc_open = _hwtap_udyn_open,
	.proc_release = _hwtap_udyn_release,
	.proc_read = _hwtap_udyn_read,
	.proc_write = _hwtap_udyn_write,
	.proc_poll = _hwtap_udyn_poll,
	.proc_lseek = noop_llseek,
};

/* /proc/hwtap_NAME/usyms, at the module's load (session.h): 0 or -ENOMEM. */
static int _hwtap_udyn_proc(struct proc_dir_entry *dir)
{
	if (!HWTAP_UDYN_FILES)
		return 0;
	_hwtap_proc_extra_wq = &_hwtap_udyn_readq;	/* POLLFREE at the module's exit */
	return proc_create(HWTAP_PROC_USYMS, 0600, dir, &_hwtap_udyn_ops) ? 0 : -ENOMEM;
}

/* ---- start and stop ------------------------------------------------------------------------ */

/* Before the scan: 0 or -ENOMEM. */
static int _hwtap_udyn_start(void)
{
	struct hwtap_udyn *slots;

	if (!HWTAP_UDYN_FILES)
		return 0;
	slots = kvcalloc(HWTAP_UDYN_FILES, sizeof(*slots), GFP_KERNEL);
	if (!slots || _hwtap_ujit_start()) {
		kvfree(slots);
		return -ENOMEM;
	}
	init_irq_work(&_hwtap_udyn_wake, _hwtap_udyn_wake_reader);
	_hwtap_udyn_stopping = false;
	_hwtap_twork_restart(&_hwtap_udyn_tworks);
	mutex_lock(&_hwtap_udyn_mutex);
	_hwtap_udyn_n = 0;
	/* pairs with the READ_ONCE() of lookups in any context: the zeroed slots first */
	smp_store_release(&_hwtap_udyn, slots);
	mutex_unlock(&_hwtap_udyn_mutex);
	return 0;
}

/* After the scan: the running processes' files asked, their tables waited for. */
static void _hwtap_udyn_settle_start(void)
{
	if (!_hwtap_udyn || !READ_ONCE(_hwtap_udyn_reader))
		return;
	if (!wait_event_killable_timeout(_hwtap_udyn_doneq,
					 !atomic_read(&_hwtap_udyn_unsettled) ||
					 !READ_ONCE(_hwtap_udyn_reader),
					 msecs_to_jiffies(HWTAP_UDYN_START_WAIT_MS)))
		_hwtap_note("user symbols: %d files of the running processes still unnamed "
			    "after %d ms", atomic_read(&_hwtap_udyn_unsettled),
			    HWTAP_UDYN_START_WAIT_MS);
}

/* Once nothing asks (the kprobe and tracepoints gone): no task waits, no table is left. */
static void _hwtap_udyn_stop(void)
{
	struct hwtap_udyn *slots;
	int i, n, left, late = atomic_read(&_hwtap_udyn_late);
	int files = atomic_read(&_hwtap_udyn_refused_files);
	int bytes = atomic_read(&_hwtap_udyn_refused_bytes);
	int user_files = atomic_read(&_hwtap_udyn_refused_user_files);
	int user_bytes = atomic_read(&_hwtap_udyn_refused_user_bytes);

	if (!_hwtap_udyn)
		return;
	WRITE_ONCE(_hwtap_udyn_stopping, true);
	wake_up_all(&_hwtap_udyn_doneq);
	/* a task_work runs as its task leaves mmap() or exec(), soon, the wait cut short
	 * above; one whose task is held elsewhere runs later, touching no slot */
	left = _hwtap_twork_stop(&_hwtap_udyn_tworks);
	if (!left)
		synchronize_rcu_tasks();	/* the last task_works are past their count */
	for (i = 0; left && i < HWTAP_UDYN_WAITERS; i++) {
		struct hwtap_udyn_waiter *w = &_hwtap_udyn_waiters[i];
		char who[64];

		if (!READ_ONCE(w->busy))
			continue;
		_hwtap_twork_who(who, sizeof(who), w->pid, w->comm);
		_hwtap_twork_warn("user symbols: ", left, who, "mapped a file for execution");
		break;
	}
	_hwtap_ujit_stop();
	irq_work_sync(&_hwtap_udyn_wake);
	mutex_lock(&_hwtap_udyn_mutex);
	n = _hwtap_udyn_n;
	for (i = 0; i < n; i++) {
		struct hwtap_udyn *d = &_hwtap_udyn[i];

		kvfree(d->tables);
		kfree(d->m.name);
		fput(d->file);
	}
	slots = _hwtap_udyn;
	WRITE_ONCE(_hwtap_udyn, NULL);
	kvfree(slots);
	_hwtap_udyn_n = 0;
	_hwtap_udyn_bytes = 0;
	_hwtap_udyn_nusers = 0;
	hash_init(_hwtap_udyn_by_inode);
	atomic_set(&_hwtap_udyn_asked, 0);
	atomic_set(&_hwtap_udyn_unsettled, 0);
	mutex_unlock(&_hwtap_udyn_mutex);
	if (files)
		_hwtap_warn("user symbols: %d files went unnamed, the table of %d was full "
			    "(-D HWTAP_UDYN_FILES=N)", files, HWTAP_UDYN_FILES);
	if (bytes)
		_hwtap_warn("user symbols: %d files went unnamed, their tables would take more "
			    "than %d bytes in all (-D HWTAP_UDYN_BYTES=N)", bytes, HWTAP_UDYN_BYTES);
	if (user_files)
		_hwtap_warn("user symbols: %d files went unnamed, those of one user (uid %u, "
			    "and any other) take at most %d (-D HWTAP_UDYN_USER_FILES=N)",
			    user_files, _hwtap_udyn_refused_uid, HWTAP_UDYN_USER_FILES);
	if (user_bytes)
		_hwtap_warn("user symbols: %d files went unnamed, the tables of one user's "
			    "files (uid %u, and any other) take at most %d bytes (-D "
			    "HWTAP_UDYN_USER_BYTES=N)", user_bytes, _hwtap_udyn_refused_uid,
			    HWTAP_UDYN_USER_BYTES);
	if (late)
		_hwtap_note("user symbols: %d mappings went on before their file's names came "
			    "(%d ms)", late, HWTAP_UDYN_WAIT_MS);
}

#endif /* HWTAP_UDYN_C */
