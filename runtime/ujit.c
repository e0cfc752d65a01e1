/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ujit.c - names for the code a JIT writes into anonymous memory (Node, the JVM, Python
 * 3.12, LuaJIT, ...), from the perf map the JIT keeps, /tmp/perf-PID.map, as perf names
 * it. Included by udyn.c: the requests and answers go through its file
 * (/proc/hwtap_NAME/usyms), its reader (hwtap-run, loader/ujit.c) reads the maps.
 *
 * A process that maps anonymous memory for execution (perf_event_mmap(), or the scan at
 * the start) gets a slot, HWTAP_UJIT_PROCS at most in a session, and its mappings are
 * recorded as the slot's (usyms.c; a module whose link-time addresses are the process's
 * own). The slot asks for the map when a lookup finds no name for an address in one of
 * those mappings (the first, or code newer than the map last read), from any context (a
 * flag, an irq_work): again after HWTAP_UJIT_REASK_MIN_MS while answers bring new lines
 * (a JIT warming up compiles function after function), the wait doubled at each answer
 * that brings none, up to HWTAP_UJIT_REASK_MS (code its map never names). The reader opens the
 * map under the process's root, only as a regular file of the process's own user no
 * older than the process (a map another local user planted in /tmp, or one left by an
 * earlier process with that pid, is not read), parses it without root, and answers with
 * the whole table, or that it is as the last one read. Each table is published whole
 * (RCU) and the one it replaces freed after a grace period: lookups run in handlers,
 * which all run with preemption off (lang.h's _hwtap_enter()), an RCU read side.
 *
 * The tables' bytes count against udyn.c's HWTAP_UDYN_BYTES, and a user's processes'
 * against that user's share (HWTAP_UDYN_USER_BYTES) with the user's files. A process's
 * exit or exec ends its slot (the table freed); a child forked from it has none of its
 * mappings recorded (its own map names them, once it maps code of its own). Anonymous
 * code only: a JIT that writes its code through a memfd is not named (hwtap-perf(7)).
 */
#ifndef HWTAP_UJIT_C
#define HWTAP_UJIT_C

#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/workqueue.h>

#ifndef HWTAP_UJIT_PROCS
#define HWTAP_UJIT_PROCS (HWTAP_UDYN_FILES ? 1024 : 0)	/* processes with JIT code */
#endif
#ifndef HWTAP_UJIT_REASK_MS
#define HWTAP_UJIT_REASK_MS 1000	/* a process's map read again at most this often, */
#endif
#ifndef HWTAP_UJIT_REASK_MIN_MS
#define HWTAP_UJIT_REASK_MIN_MS 50	/* or this often while it grows */
#endif
#define HWTAP_UJIT_SYMS_MAX (1 << 20)	/* lib/ujitmap.h's UJITMAP_SYMS_MAX */

enum { HWTAP_UJIT_IDLE, HWTAP_UJIT_ASKED, HWTAP_UJIT_SENT };

struct hwtap_ujit_tab {
	struct hwtap_umod m;
	struct hwtap_useg seg;		/* all of the address space, at its own address */
	size_t bytes;
	char path[40];			/* "/tmp/perf-NSPID.map" */
	/* then the symbols and names */
};

struct hwtap_ujit {
	struct hwtap_ujit_tab __rcu *tab;
	struct hlist_node by_tgid;
	pid_t tgid, nspid;
	uid_t uid;			/* its euid, as the reader sees a file's owner */
	u64 start_ns;			/* task->start_boottime */
	u64 size, mtime;		/* of the map the last answer read */
	atomic_t state;
	unsigned long asked;		/* jiffies of the last ask */
	unsigned int wait_ms;		/* until the next: doubled at each answer that
					 * brings nothing new, the least again at one that does */
	int user;			/* its user's share (udyn.c), -1: root's */
	bool gone;			/* its process exited or exec'd */
};

static struct hwtap_ujit *_hwtap_ujit;		/* HWTAP_UJIT_PROCS slots, while started */
static int _hwtap_ujit_n;			/* taken, under the umaps lock */
static DEFINE_HASHTABLE(_hwtap_ujit_by_tgid, 6);	/* the slots of live processes */
static atomic_t _hwtap_ujit_refused_procs, _hwtap_ujit_refused_bytes;
static void _hwtap_ujit_reap_gone(struct work_struct *work);
static DECLARE_WORK(_hwtap_ujit_reap, _hwtap_ujit_reap_gone);

/* The table of module MOD (a slot's), NULL while it has none. In a handler. */
static const struct hwtap_umod *_hwtap_ujit_umod(int mod)
{
	struct hwtap_ujit *slots = READ_ONCE(_hwtap_ujit);
	struct hwtap_ujit_tab *t;

	mod -= HWTAP_UJIT_MOD0;
	if (!slots || mod < 0 || mod >= HWTAP_UJIT_PROCS)
		return NULL;
	t = rcu_dereference_sched(slots[mod].tab);
	return t ? &t->m : NULL;
}

/* Slot J's map asked of the reader (the slot being idle). */
static void _hwtap_ujit_ask(struct hwtap_ujit *j)
{
	if (atomic_cmpxchg(&j->state, HWTAP_UJIT_IDLE, HWTAP_UJIT_ASKED) != HWTAP_UJIT_IDLE)
		return;
	WRITE_ONCE(j->asked, jiffies);
	atomic_inc(&_hwtap_udyn_asked);
	irq_work_queue(&_hwtap_udyn_wake);
}

/* A lookup in module MOD (a slot's) found no name: its map asked again, if the last ask
 * is HWTAP_UJIT_REASK_MS old. Any context. */
static void _hwtap_ujit_miss(int mod)
{
	struct hwtap_ujit *slots = READ_ONCE(_hwtap_ujit), *j;

	mod -= HWTAP_UJIT_MOD0;
	if (!slots || mod < 0 || mod >= HWTAP_UJIT_PROCS)
		return;
	j = &slots[mod];
	if (!READ_ONCE(j->gone) && atomic_read(&j->state) == HWTAP_UJIT_IDLE &&
	    time_after_eq(jiffies, READ_ONCE(j->asked) + msecs_to_jiffies(READ_ONCE(j->wait_ms))))
		_hwtap_ujit_ask(j);
}

/* The module of TASK's slot, made if ASK, or -1. TASK maps anonymous memory for
 * execution (its mmap_lock held) or is the scan's. The map is asked for at the first
 * lookup in that memory, not now: a JIT writes its line once the code is there, after
 * the mapping. */
static int _hwtap_ujit_of(struct task_struct *task, bool ask)
{
	struct hwtap_ujit *j;
	unsigned long flags;
	pid_t nspid;
	kuid_t euid;
	int mod = -1;

	if (!_hwtap_ujit)
		return -1;
	rcu_read_lock();
	nspid = task_tgid_nr_ns(task, task_active_pid_ns(task));
	euid = __task_cred(task)->euid;
	rcu_read_unlock();
	if (!nspid)
		return -1;	/* exiting */
	raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
	hash_for_each_possible(_hwtap_ujit_by_tgid, j, by_tgid, task->tgid)
		if (j->tgid == task->tgid) {
			mod = HWTAP_UJIT_MOD0 + (j - _hwtap_ujit);
			break;
		}
	if (mod < 0 && ask && _hwtap_ujit_n == HWTAP_UJIT_PROCS) {
		atomic_inc(&_hwtap_ujit_refused_procs);
	} else if (mod < 0 && ask) {
		j = &_hwtap_ujit[_hwtap_ujit_n];
		j->tgid = task->tgid;
		j->nspid = nspid;
		j->uid = from_kuid_munged(&init_user_ns, euid);
		j->start_ns = task->start_boottime;
		j->user = _hwtap_udyn_user_of(euid);
		j->wait_ms = HWTAP_UJIT_REASK_MIN_MS;
		j->asked = jiffies - msecs_to_jiffies(HWTAP_UJIT_REASK_MS);
		hash_add(_hwtap_ujit_by_tgid, &j->by_tgid, j->tgid);
		mod = HWTAP_UJIT_MOD0 + _hwtap_ujit_n;
		smp_store_release(&_hwtap_ujit_n, _hwtap_ujit_n + 1);	/* the slot filled */
	}
	raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
	return mod;
}

/* Under the umaps lock: TGID exited or exec'd; its slot's table is freed soon. */
static void _hwtap_ujit_gone(pid_t tgid)
{
	struct hwtap_ujit *j;

	if (!_hwtap_ujit)
		return;
	hash_for_each_possible(_hwtap_ujit_by_tgid, j, by_tgid, tgid)
		if (j->tgid == tgid) {
			hash_del(&j->by_tgid);
			WRITE_ONCE(j->gone, true);
			schedule_work(&_hwtap_ujit_reap);
			return;
		}
}

/* Slot J's table replaced by T (NULL: none), its bytes counted. Under the mutex: the old
 * one, for the caller to free after a grace period. */
static struct hwtap_ujit_tab *_hwtap_ujit_swap(struct hwtap_ujit *j, struct hwtap_ujit_tab *t)
{
	struct hwtap_ujit_tab *old = rcu_replace_pointer(j->tab, t,
						lockdep_is_held(&_hwtap_udyn_mutex));
	ssize_t delta = (t ? t->bytes : 0) - (old ? old->bytes : 0);

	_hwtap_udyn_bytes += delta;
	if (j->user >= 0)
		_hwtap_udyn_users[j->user].bytes += delta;
	return old;
}

/* The tables of the processes gone since, freed. */
static void _hwtap_ujit_reap_gone(struct work_struct *work)
{
	struct hwtap_ujit_tab *old[16];
	int i, k, n;

	do {
		k = 0;
		mutex_lock(&_hwtap_udyn_mutex);
		n = _hwtap_ujit ? smp_load_acquire(&_hwtap_ujit_n) : 0;
		for (i = 0; i < n && k < ARRAY_SIZE(old); i++)
			if (READ_ONCE(_hwtap_ujit[i].gone) &&
			    rcu_access_pointer(_hwtap_ujit[i].tab))
				old[k++] = _hwtap_ujit_swap(&_hwtap_ujit[i], NULL);
		mutex_unlock(&_hwtap_udyn_mutex);
		if (k)
			synchronize_rcu();
		for (i = 0; i < k; i++)
			kvfree(old[i]);
	} while (k == ARRAY_SIZE(old));
}

/* ---- the reader's side, under udyn.c's mutex ------------------------------------------- */

/* The perf maps asked, as requests at BUF (COUNT bytes, DONE of them written), REC a
 * HWTAP_USYMS_REQUEST_MAX bytes' scratch: the bytes written, or -EFAULT. */
static ssize_t _hwtap_ujit_read(char __user *buf, size_t count, ssize_t done, char *rec)
{
	int i, n = _hwtap_ujit ? smp_load_acquire(&_hwtap_ujit_n) : 0, len;

	for (i = 0; i < n; i++) {
		struct hwtap_ujit *j = &_hwtap_ujit[i];

		if (atomic_read(&j->state) != HWTAP_UJIT_ASKED)
			continue;
		if (READ_ONCE(j->gone)) {	/* nobody to name */
			atomic_set(&j->state, HWTAP_UJIT_IDLE);
			atomic_dec(&_hwtap_udyn_asked);
			continue;
		}
		len = scnprintf(rec, HWTAP_USYMS_REQUEST_MAX, "J %llu %d %d %u %llu %llu %llu",
				HWTAP_USYMS_JIT_ID + i, j->tgid, j->nspid, j->uid, j->start_ns,
				j->size, j->mtime) + 1;
		if (done + len > count)
			break;
		if (copy_to_user(buf + done, rec, len))
			return done ? done : -EFAULT;
		done += len;
		atomic_set(&j->state, HWTAP_UJIT_SENT);
		atomic_dec(&_hwtap_udyn_asked);
	}
	return done;
}

/* The reader closed its file: what it read and did not answer, asked of the next. */
static void _hwtap_ujit_release(void)
{
	int i, n = _hwtap_ujit ? smp_load_acquire(&_hwtap_ujit_n) : 0;

	for (i = 0; i < n; i++)
		if (atomic_cmpxchg(&_hwtap_ujit[i].state, HWTAP_UJIT_SENT, HWTAP_UJIT_ASKED) ==
		    HWTAP_UJIT_SENT)
			atomic_inc(&_hwtap_udyn_asked);
}

/* An answer for a perf map (protocol.h), header HDR, COUNT bytes at BUF: 0 or -errno;
 * *OLD the table it replaced, for the caller to free after a grace period. */
static int _hwtap_ujit_write(const u64 *hdr, const char __user *buf, size_t count,
			     struct hwtap_ujit_tab **old)
{
	u64 slot = hdr[1] - HWTAP_USYMS_JIT_ID, nsyms = hdr[4], names_len = hdr[5], i;
	struct hwtap_ujit *j;
	struct hwtap_ujit_tab *t;
	struct hwtap_usym *syms;
	size_t need, had;
	int rc;

	if (!_hwtap_ujit || slot >= (u64)smp_load_acquire(&_hwtap_ujit_n))
		return -ENOENT;
	j = &_hwtap_ujit[slot];
	if (atomic_read(&j->state) != HWTAP_UJIT_SENT)
		return -ENOENT;
	rc = -EINVAL;
	if (hdr[2] != HWTAP_USYMS_OK && hdr[2] != HWTAP_USYMS_NONE && hdr[2] != HWTAP_USYMS_SAME)
		goto out;
	if (READ_ONCE(j->gone)) {	/* its process is gone: nothing to name, no table kept */
		rc = 0;
		goto out;
	}
	if (hdr[2] != HWTAP_USYMS_OK) {
		rc = count == HWTAP_USYMS_HDR_WORDS * 8 ? 0 : -EINVAL;
		goto out;
	}
	if (!names_len || names_len > HWTAP_UDYN_NAMES_MAX || nsyms > HWTAP_UJIT_SYMS_MAX ||
	    count != HWTAP_USYMS_HDR_WORDS * 8 + nsyms * HWTAP_USYMS_SYM_WORDS * 8 + names_len)
		goto out;
	need = sizeof(*t) + nsyms * sizeof(*syms) + names_len;
	t = rcu_dereference_protected(j->tab, lockdep_is_held(&_hwtap_udyn_mutex));
	had = t ? t->bytes : 0;		/* (freed if this one takes its place) */
	if (_hwtap_udyn_bytes - had + need > HWTAP_UDYN_BYTES ||
	    (j->user >= 0 &&
	     _hwtap_udyn_users[j->user].bytes - had + need > HWTAP_UDYN_USER_BYTES)) {
		atomic_inc(&_hwtap_ujit_refused_bytes);
		rc = 0;			/* counted, said at the stop */
		goto out;
	}
	rc = -ENOMEM;
	t = kvmalloc(need, GFP_KERNEL);
	if (!t)
		goto out;
	syms = (void *)(t + 1);
	buf += HWTAP_USYMS_HDR_WORDS * 8;
	rc = _hwtap_udyn_syms(syms, nsyms, names_len, buf);
	for (i = 0; !rc && i < nsyms; i++)	/* each with its size, none overlapping */
		if (!syms[i].size || syms[i].addr + syms[i].size < syms[i].addr ||
		    (i + 1 < nsyms && syms[i].addr + syms[i].size > syms[i + 1].addr))
			rc = -EINVAL;
	buf += nsyms * HWTAP_USYMS_SYM_WORDS * 8;
	if (!rc && copy_from_user((char *)(syms + nsyms), buf, names_len))
		rc = -EFAULT;
	if (!rc && ((char *)(syms + nsyms))[names_len - 1])
		rc = -EINVAL;
	if (rc) {
		kvfree(t);
		goto out;
	}
	t->bytes = need;
	t->seg = (struct hwtap_useg){ .offset = 0, .vaddr = 0, .size = 1ULL << 62 };
	scnprintf(t->path, sizeof(t->path), "/tmp/perf-%d.map", j->nspid);
	t->m = (struct hwtap_umod){ .segs = &t->seg, .nsegs = 1, .syms = syms, .nsyms = nsyms,
				    .names = (char *)(syms + nsyms), .path = t->path,
				    .name = t->path };
	j->mtime = hdr[3];
	j->size = hdr[6];
	*old = _hwtap_ujit_swap(j, t);
out:
	if (!rc && hdr[2] == HWTAP_USYMS_NONE)
		j->size = j->mtime = 0;
	/* (the state's store below orders this one for a lookup that sees it idle) */
	WRITE_ONCE(j->wait_ms, !rc && hdr[2] == HWTAP_USYMS_OK ? HWTAP_UJIT_REASK_MIN_MS :
		   min(2 * j->wait_ms, (unsigned int)HWTAP_UJIT_REASK_MS));
	atomic_set(&j->state, HWTAP_UJIT_IDLE);
	return rc;
}

/* ---- start and stop ------------------------------------------------------------------------ */

static int _hwtap_ujit_start(void)
{
	struct hwtap_ujit *slots;
	int i;

	if (!HWTAP_UJIT_PROCS)
		return 0;
	slots = kvcalloc(HWTAP_UJIT_PROCS, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < HWTAP_UJIT_PROCS; i++)
		atomic_set(&slots[i].state, HWTAP_UJIT_IDLE);
	_hwtap_ujit_n = 0;
	hash_init(_hwtap_ujit_by_tgid);
	atomic_set(&_hwtap_ujit_refused_procs, 0);
	atomic_set(&_hwtap_ujit_refused_bytes, 0);
	smp_store_release(&_hwtap_ujit, slots);
	return 0;
}

/* Once nothing looks up or asks (the kprobe, tracepoints and handlers gone). */
static void _hwtap_ujit_stop(void)
{
	struct hwtap_ujit *slots = _hwtap_ujit;
	int i, procs = atomic_read(&_hwtap_ujit_refused_procs);
	int bytes = atomic_read(&_hwtap_ujit_refused_bytes);

	if (!slots)
		return;
	cancel_work_sync(&_hwtap_ujit_reap);
	WRITE_ONCE(_hwtap_ujit, NULL);
	synchronize_rcu();		/* a lookup that had the slots */
	for (i = 0; i < _hwtap_ujit_n; i++)
		kvfree(rcu_dereference_protected(slots[i].tab, 1));
	kvfree(slots);
	_hwtap_ujit_n = 0;
	hash_init(_hwtap_ujit_by_tgid);
	if (procs)
		_hwtap_warn("user symbols: %d processes' JIT code went unnamed, the table of %d "
			    "was full (-D HWTAP_UJIT_PROCS=N)", procs, HWTAP_UJIT_PROCS);
	if (bytes)
		_hwtap_warn("user symbols: %d perf maps were not taken, their tables would "
			    "take more than the bytes of user symbols or of one user's share "
			    "(-D HWTAP_UDYN_BYTES=N, -D HWTAP_UDYN_USER_BYTES=N)", bytes);
}

#endif /* HWTAP_UJIT_C */
