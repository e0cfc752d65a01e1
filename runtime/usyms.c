/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usyms.c - names for user-space code addresses, and user backtraces: what usymname(),
 * usymdata(), umodname(), ubacktrace(), print_ubacktrace() ... (tapset/ucontext.stp) need.
 * Included by the generated module.c after it defines the programs' tables:
 *   static struct hwtap_umod hwtap_umods[]; #define HWTAP_UMODS N
 *
 * Symbols: the translator puts in the module the tables of the programs and libraries it
 * knows the script is about (-c's or -x's program and the libraries it needs, every
 * process("PATH"), -d PATH, --ldd): per file, its loadable segments and its symbols
 * sorted by link-time address, as SystemTap does; every other file a process maps for
 * execution gets its table from hwtap-run as it is mapped (udyn.c). Nothing is read from
 * files here.
 *
 * Where each of those files is mapped in each address space, the runtime learns as the
 * kernel maps it: a kprobe on perf_event_mmap(), where the kernel reports every new
 * mapping to perf (in the task that maps, mmap_lock held for writing), records the
 * mappings of those files per mm (and trims what a new mapping covers); a scan at the
 * start finds the ones already there; a fork copies the parent's records to the child's
 * mm, an exec drops the records of the mm it leaves, the last thread's exit those of its
 * process. (A munmap is not reported: a stale record covers addresses nothing runs at
 * until a new mapping takes their place, and then it is trimmed. An mm freed at an exit
 * and reused before that exit's tracepoint runs would lose what its new process mapped
 * meanwhile: a window of microseconds, its addresses then unnamed, never misnamed.)
 *
 * Lookups run in any context, NMI included, and take no lock: the records are in an RCU
 * hash table keyed by the mm, each with a sequence count; a reader that finds one being
 * written tries again a few times and then gives up (it may have interrupted the writer),
 * and the address is then unnamed. Records are preallocated at the start
 * (HWTAP_UMAPS_MMS address spaces, HWTAP_UMAPS_PER_MM mappings each); what finds no room
 * is counted and reported at the stop.
 *
 * A symbol's extent is its st_size where the file gives one: an address past it is in
 * none (code without a symbol of its own, a static function of a stripped library) and
 * named by its file and link-time address, never after the symbol before it.
 *
 * Backtraces (uunwind.c) follow each file's unwind rows, made from its .eh_frame, and
 * frame pointers where a file has none.
 */
#ifndef HWTAP_USYMS_C
#define HWTAP_USYMS_C

#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/seqlock.h>

#include "fold.h"
#include "tracepoint.h"
#include "uaccess.h"
#include "usyms.h"

#ifndef HWTAP_UMAPS_MMS
#define HWTAP_UMAPS_MMS 2048		/* address spaces with a known file mapped */
#endif
#ifndef HWTAP_UMAPS_PER_MM
#define HWTAP_UMAPS_PER_MM 64		/* mappings of known files in one (node and its 7
					 * libraries, built in: 40; its JIT) */
#endif
#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif

struct hwtap_umap {			/* a mapping of a known file */
	unsigned long start, end;
	unsigned long offset;		/* the file offset at start */
	int mod;			/* index in hwtap_umods */
};

struct hwtap_umaps {			/* the mappings of known files in one mm */
	struct hlist_node by_mm, by_owner;
	struct rcu_head rcu;
	const struct mm_struct *mm;
	pid_t owner;			/* the process whose exec or exit ends it */
	seqcount_t seq;
	int n;
	struct hwtap_umap maps[HWTAP_UMAPS_PER_MM];
};

static DEFINE_HASHTABLE(_hwtap_umaps_by_mm, 10);
static DEFINE_HASHTABLE(_hwtap_umaps_by_owner, 10);
static struct hwtap_umaps *_hwtap_umaps_pool;
static struct hlist_head _hwtap_umaps_free;
static DEFINE_RAW_SPINLOCK(_hwtap_umaps_lock);
static atomic_t _hwtap_umaps_refused_mms, _hwtap_umaps_refused_maps;
static struct tracepoint *_hwtap_umaps_tp_fork, *_hwtap_umaps_tp_exec, *_hwtap_umaps_tp_exit;
static bool _hwtap_umaps_kprobed;

/* the vDSO's table (uvdso.c), the module past udyn.c's slots */
#define HWTAP_UVDSO_MOD (HWTAP_UMODS + HWTAP_UDYN_FILES)
static struct hwtap_umod _hwtap_uvdso;
static int _hwtap_uvdso_start(void);
static void _hwtap_uvdso_stop(void);
/* the JIT code of processes, named by their perf maps (ujit.c): the modules past it */
#define HWTAP_UJIT_MOD0 (HWTAP_UVDSO_MOD + 1)
static const struct hwtap_umod *_hwtap_ujit_umod(int mod);

#include "udyn.c"

/* The module of the file VMA of TASK maps, or -1: one the translator built in, or one
 * hwtap-run names (asked of it now if ASK and the mapping is code); of the latter only
 * code mappings are recorded. Anonymous code is TASK's JIT's (ujit.c). */
static int _hwtap_umod_of_vma(struct vm_area_struct *vma, struct task_struct *task, bool ask)
{
	const struct inode *inode;
	int i;

	if (!vma->vm_file)
		return (vma->vm_flags & VM_EXEC) && vma_is_anonymous(vma) ?
		       _hwtap_ujit_of(task, ask) : -1;
	inode = file_inode(vma->vm_file);
	for (i = 0; i < HWTAP_UMODS; i++)
		if (hwtap_umods[i].inode == inode)
			return i;
	i = _hwtap_udyn_of(inode);
	if (i < 0 && ask)
		i = _hwtap_udyn_ask(vma, task->tgid);
	return i >= 0 && (vma->vm_flags & VM_EXEC) ? i : -1;
}

/* ---- the records, under _hwtap_umaps_lock ----------------------------------------------- */

static struct hwtap_umaps *_hwtap_umaps_find(const struct mm_struct *mm)
{
	struct hwtap_umaps *r;

	hash_for_each_possible(_hwtap_umaps_by_mm, r, by_mm, (unsigned long)mm)
		if (r->mm == mm)
			return r;
	return NULL;
}

/* Without the lock: whether MM has a record. Called while MM's mmap_lock is held for a
 * mapping: a record for MM is made only by a mapping (under that lock), by the scan (which
 * reads under it) or at the fork that made MM (before its task runs), so none can appear
 * meanwhile. */
static bool _hwtap_umaps_known(const struct mm_struct *mm)
{
	struct hwtap_umaps *r;
	bool known = false;

	rcu_read_lock();
	hash_for_each_possible_rcu(_hwtap_umaps_by_mm, r, by_mm, (unsigned long)mm)
		if (READ_ONCE(r->mm) == mm) {
			known = true;
			break;
		}
	rcu_read_unlock();
	return known;
}

static struct hwtap_umaps *_hwtap_umaps_new(const struct mm_struct *mm, pid_t owner)
{
	struct hwtap_umaps *r;

	if (hlist_empty(&_hwtap_umaps_free)) {
		atomic_inc(&_hwtap_umaps_refused_mms);
		return NULL;
	}
	r = hlist_entry(_hwtap_umaps_free.first, struct hwtap_umaps, by_mm);
	hlist_del(&r->by_mm);
	r->mm = mm;
	r->owner = owner;
	r->n = 0;
	hash_add_rcu(_hwtap_umaps_by_mm, &r->by_mm, (unsigned long)mm);
	hash_add_rcu(_hwtap_umaps_by_owner, &r->by_owner, owner);
	return r;
}

static void _hwtap_umaps_reuse(struct rcu_head *head)
{
	struct hwtap_umaps *r = container_of(head, struct hwtap_umaps, rcu);
	unsigned long flags;

	raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
	hlist_add_head(&r->by_mm, &_hwtap_umaps_free);
	raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
}

/* Out of the tables; free for another mm once no reader can hold it. */
static void _hwtap_umaps_drop(struct hwtap_umaps *r)
{
	hash_del_rcu(&r->by_mm);
	hash_del_rcu(&r->by_owner);
	call_rcu(&r->rcu, _hwtap_umaps_reuse);
}

/* Inside a write section: nothing of R covers [START, END) any more. */
static void _hwtap_umaps_trim(struct hwtap_umaps *r, unsigned long start, unsigned long end)
{
	int i = 0;

	while (i < r->n) {
		struct hwtap_umap *m = &r->maps[i];

		if (m->end <= start || m->start >= end) {
			i++;
		} else if (m->start < start && m->end > end) {
			/* a hole in the middle: the part after it, where there is room */
			if (r->n < HWTAP_UMAPS_PER_MM) {
				struct hwtap_umap *tail = &r->maps[r->n++];

				*tail = *m;
				tail->offset += end - m->start;
				tail->start = end;
			} else {
				atomic_inc(&_hwtap_umaps_refused_maps);
			}
			m->end = start;
			i++;
		} else if (m->start < start) {
			m->end = start;
			i++;
		} else if (m->end > end) {
			m->offset += end - m->start;
			m->start = end;
			i++;
		} else {
			*m = r->maps[--r->n];
		}
	}
}

/* Under the lock: MM maps [START, END) of module MOD (-1: of no known file) at OFFSET. */
static void _hwtap_umaps_map(const struct mm_struct *mm, pid_t owner, unsigned long start,
			     unsigned long end, unsigned long offset, int mod)
{
	struct hwtap_umaps *r = _hwtap_umaps_find(mm);

	if (!r && mod < 0)
		return;
	if (!r)
		r = _hwtap_umaps_new(mm, owner);
	if (!r)
		return;
	raw_write_seqcount_begin(&r->seq);
	_hwtap_umaps_trim(r, start, end);
	if (mod >= 0) {
		if (r->n < HWTAP_UMAPS_PER_MM)
			r->maps[r->n++] = (struct hwtap_umap){ start, end, offset, mod };
		else
			atomic_inc(&_hwtap_umaps_refused_maps);
	}
	raw_write_seqcount_end(&r->seq);
}

static void _hwtap_umaps_map_vma(struct vm_area_struct *vma, pid_t owner, int mod)
{
	/* a JIT's code is named by its own addresses: they are its "file offsets" */
	_hwtap_umaps_map(vma->vm_mm, owner, vma->vm_start, vma->vm_end,
			 mod >= HWTAP_UJIT_MOD0 ? vma->vm_start : vma->vm_pgoff << PAGE_SHIFT, mod);
}

/* ---- what the kernel tells ------------------------------------------------------------ */

/* perf_event_mmap(vma): a mapping made (mmap, exec, mprotect to executable). */
static int _hwtap_umaps_mmap(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);
	unsigned long flags;
	int mod;

	/* one of this task's own: its lifetime is the owner's (others are not kept) */
	if (!vma || vma->vm_mm != current->mm || (current->flags & PF_KTHREAD))
		return 0;
	mod = _hwtap_umod_of_vma(vma, current, true);
	/* a mapping of no file hwtap names, in an address space with none: nothing to
	 * record or trim, and no lock taken */
	if (mod < 0 && !_hwtap_umaps_known(vma->vm_mm))
		return 0;
	raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
	_hwtap_umaps_map_vma(vma, current->tgid, mod);
	raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
	if (mod >= HWTAP_UMODS && mod < HWTAP_UVDSO_MOD)	/* a file's table asked of hwtap-run */
		_hwtap_udyn_wait_later(mod);
	return 0;
}

static struct kprobe _hwtap_umaps_kprobe = {
	.symbol_name = "perf_event_mmap",
	.pre_handler = _hwtap_umaps_mmap,
};

/* sched_process_fork, in the parent: a new process's mm is a copy of its parent's. */
static void _hwtap_umaps_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct hwtap_umaps *p, *c;
	unsigned long flags;

	if (!child->mm || child->mm == parent->mm)
		return;
	raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
	p = _hwtap_umaps_find(parent->mm);
	c = p && p->n ? _hwtap_umaps_find(child->mm) : NULL;
	if (c && c->owner != child->tgid) {
		/* a record of a process whose mm this one's took the place of, before that
		 * process's exit was traced: not this one's to keep */
		_hwtap_umaps_drop(c);
		c = NULL;
	}
	if (p && p->n && !c)
		c = _hwtap_umaps_new(child->mm, child->tgid);
	if (c) {
		int i, n = 0;

		/* the parent's JIT code is named by the parent's map, not the child's */
		raw_write_seqcount_begin(&c->seq);
		for (i = 0; i < p->n; i++)
			if (p->maps[i].mod < HWTAP_UJIT_MOD0)
				c->maps[n++] = p->maps[i];
		c->n = n;
		raw_write_seqcount_end(&c->seq);
	}
	raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
}

/* Drops the records TGID owns but that of KEEP (NULL: all of them). */
static void _hwtap_umaps_owner_gone(pid_t tgid, const struct mm_struct *keep)
{
	struct hwtap_umaps *r;
	struct hlist_node *tmp;
	unsigned long flags;

	raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
	hash_for_each_possible_safe(_hwtap_umaps_by_owner, r, tmp, by_owner, tgid)
		if (r->owner == tgid && r->mm != keep)
			_hwtap_umaps_drop(r);
	_hwtap_ujit_gone(tgid);		/* its JIT's code is gone with its mm */
	raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
}

/* sched_process_exec, in the task, its new program mapped: the mm it left is gone. */
static void _hwtap_umaps_exec(void *data, struct task_struct *task, pid_t old_pid,
			      struct linux_binprm *bprm)
{
	_hwtap_umaps_owner_gone(task->tgid, task->mm);
}

/* sched_process_exit: the process's last thread takes its records with it. */
static void _hwtap_umaps_exit(void *data, struct task_struct *task)
{
	if (!(task->flags & PF_KTHREAD) && !atomic_read(&task->signal->live))
		_hwtap_umaps_owner_gone(task->tgid, NULL);
}

/* The processes running at the start: their mappings of known files. */
static void _hwtap_umaps_scan(void)
{
	struct task_struct *p, **tasks;
	int i, n = 0, max = 64;	/* room for those that start while this allocates */

	rcu_read_lock();
	for_each_process(p)
		max++;
	rcu_read_unlock();
	tasks = kvmalloc_array(max, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return;
	rcu_read_lock();
	for_each_process(p) {
		if (n == max)
			break;
		if (p->flags & PF_KTHREAD)
			continue;
		get_task_struct(p);
		tasks[n++] = p;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		struct mm_struct *mm = get_task_mm(tasks[i]);
		struct vm_area_struct *vma;
		unsigned long flags;

		if (mm) {
			VMA_ITERATOR(vmi, mm, 0);

			/* (killable: the start's writer may be killed meanwhile) */
			if (mmap_read_lock_killable(mm)) {
				mmput(mm);
				put_task_struct(tasks[i]);
				continue;
			}
			for_each_vma(vmi, vma) {
				int mod = _hwtap_umod_of_vma(vma, tasks[i], true);

				if (mod < 0)
					continue;
				raw_spin_lock_irqsave(&_hwtap_umaps_lock, flags);
				_hwtap_umaps_map_vma(vma, tasks[i]->tgid, mod);
				raw_spin_unlock_irqrestore(&_hwtap_umaps_lock, flags);
			}
			mmap_read_unlock(mm);
			mmput(mm);
		}
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
}

/* ---- start and stop ----------------------------------------------------------------------- */

static void _hwtap_usyms_unwatch(void)
{
	if (_hwtap_umaps_kprobed)
		unregister_kprobe(&_hwtap_umaps_kprobe);
	_hwtap_umaps_kprobed = false;
	if (_hwtap_umaps_tp_exit)
		tracepoint_probe_unregister(_hwtap_umaps_tp_exit, _hwtap_umaps_exit, NULL);
	if (_hwtap_umaps_tp_exec)
		tracepoint_probe_unregister(_hwtap_umaps_tp_exec, _hwtap_umaps_exec, NULL);
	if (_hwtap_umaps_tp_fork)
		tracepoint_probe_unregister(_hwtap_umaps_tp_fork, _hwtap_umaps_fork, NULL);
	tracepoint_synchronize_unregister();
	_hwtap_umaps_tp_fork = _hwtap_umaps_tp_exec = _hwtap_umaps_tp_exit = NULL;
}

static void _hwtap_usyms_release(void)
{
	int i;

	for (i = 0; i < HWTAP_UMODS; i++) {
		if (hwtap_umods[i].inode)
			path_put(&hwtap_umods[i].file);
		hwtap_umods[i].inode = NULL;
		kfree(hwtap_umods[i].name);
		hwtap_umods[i].name = NULL;
	}
}

static void _hwtap_usyms_stop(void)
{
	int mms = atomic_read(&_hwtap_umaps_refused_mms);
	int maps = atomic_read(&_hwtap_umaps_refused_maps);

	if (!_hwtap_umaps_pool)
		return;
	_hwtap_usyms_unwatch();
	_hwtap_udyn_stop();
	rcu_barrier();		/* the records' last _hwtap_umaps_reuse() */
	hash_init(_hwtap_umaps_by_mm);
	hash_init(_hwtap_umaps_by_owner);
	kvfree(_hwtap_umaps_pool);
	_hwtap_umaps_pool = NULL;
	_hwtap_uvdso_stop();
	_hwtap_usyms_release();
	if (mms)
		_hwtap_warn("user symbols: %d address spaces went unnamed, the table of %d was "
			    "full (-D HWTAP_UMAPS_MMS=N)", mms, HWTAP_UMAPS_MMS);
	if (maps)
		_hwtap_warn("user symbols: %d mappings went unnamed, an address space has room "
			    "for %d (-D HWTAP_UMAPS_PER_MM=N)", maps, HWTAP_UMAPS_PER_MM);
}

/* 0, or -errno after saying why. A file that is not there is no error: nothing maps it. */
static int _hwtap_usyms_start(void)
{
	const char *who = "user symbols";
	int i, rc, found = 0;

	for (i = 0; i < HWTAP_UMODS; i++) {
		struct hwtap_umod *m = &hwtap_umods[i];
		const struct inode *inode;
		char *name;

		if (kern_path(m->path, LOOKUP_FOLLOW, &m->file))
			continue;
		inode = d_real_inode(m->file.dentry);
		/* the file hwtap read is not the one here (another build, the guest's own) */
		if (i_size_read(inode) != m->size) {
			_hwtap_note("user symbols: %s is not the file hwtap read (%lld bytes, not "
				    "%llu): no names in it", m->path, i_size_read(inode), m->size);
			path_put(&m->file);
			continue;
		}
		m->name = kmalloc(PATH_MAX, GFP_KERNEL);
		name = m->name ? d_path(&m->file, m->name, PATH_MAX) : NULL;
		if (!IS_ERR_OR_NULL(name))
			memmove(m->name, name, strlen(name) + 1);
		else if (m->name)
			strscpy(m->name, m->path, PATH_MAX);
		m->inode = inode;
		found++;
	}
	if (!found && !HWTAP_UDYN_FILES)
		return 0;
	_hwtap_umaps_pool = kvcalloc(HWTAP_UMAPS_MMS, sizeof(*_hwtap_umaps_pool), GFP_KERNEL);
	if (!_hwtap_umaps_pool) {
		_hwtap_usyms_release();
		return -ENOMEM;
	}
	INIT_HLIST_HEAD(&_hwtap_umaps_free);
	for (i = 0; i < HWTAP_UMAPS_MMS; i++) {
		seqcount_init(&_hwtap_umaps_pool[i].seq);
		hlist_add_head(&_hwtap_umaps_pool[i].by_mm, &_hwtap_umaps_free);
	}
	rc = _hwtap_udyn_start();
	if (rc) {
		kvfree(_hwtap_umaps_pool);
		_hwtap_umaps_pool = NULL;
		_hwtap_usyms_release();
		return rc;
	}
	/* watched first: a mapping made during the scan is found by one or both */
	rc = _hwtap_watch_tracepoint(who, "sched_process_fork", _hwtap_umaps_fork,
				     &_hwtap_umaps_tp_fork);
	if (!rc)
		rc = _hwtap_watch_tracepoint(who, "sched_process_exec", _hwtap_umaps_exec,
					     &_hwtap_umaps_tp_exec);
	if (!rc)
		rc = _hwtap_watch_tracepoint(who, "sched_process_exit", _hwtap_umaps_exit,
					     &_hwtap_umaps_tp_exit);
	if (!rc) {
		rc = register_kprobe(&_hwtap_umaps_kprobe);
		if (rc)
			_hwtap_script_error("user symbols: cannot follow mappings: a kprobe on "
					    "perf_event_mmap: %d", rc);
		_hwtap_umaps_kprobed = !rc;
	}
	if (rc) {
		_hwtap_usyms_unwatch();
		_hwtap_udyn_stop();
		rcu_barrier();	/* an exec or exit before the failure may have dropped a record */
		kvfree(_hwtap_umaps_pool);
		_hwtap_umaps_pool = NULL;
		_hwtap_usyms_release();
		return rc;
	}
	_hwtap_uvdso_start();
	_hwtap_umaps_scan();
	_hwtap_udyn_settle_start();
	return 0;
}

/* ---- lookups, in any context -------------------------------------------------------------- */

/* What an address is: its module (-1: none known), its link-time address there (0: in no
 * segment), the mapping that holds it, and the addresses [lo, hi) around it whose
 * link-time address is theirs + bias (its segment within the mapping). */
struct hwtap_uwhere {
	int mod;
	u64 vaddr;
	unsigned long start, end;
	unsigned long lo, hi;
	u64 bias;
};

#include "uvdso.c"

static bool _hwtap_umap_find(const struct mm_struct *mm, unsigned long addr,
			     struct hwtap_uwhere *w)
{
	struct hwtap_umaps *r;
	struct hwtap_umap m = { .mod = -1 };
	const struct hwtap_umod *mod;
	bool settled = false;
	int tries, i, n;
	u64 off;

	if (!mm || !_hwtap_umaps_pool)
		return false;
	rcu_read_lock();
	hash_for_each_possible_rcu(_hwtap_umaps_by_mm, r, by_mm, (unsigned long)mm) {
		if (READ_ONCE(r->mm) != mm)
			continue;
		for (tries = 0; tries < 4 && !settled; tries++) {
			unsigned int seq = raw_read_seqcount(&r->seq);

			if (seq & 1)
				continue;
			m.mod = -1;
			n = min_t(int, READ_ONCE(r->n), HWTAP_UMAPS_PER_MM);
			for (i = 0; i < n; i++)
				if (addr >= r->maps[i].start && addr < r->maps[i].end) {
					m = r->maps[i];
					break;
				}
			settled = !read_seqcount_retry(&r->seq, seq);
		}
		break;
	}
	rcu_read_unlock();
	if (!settled || m.mod < 0)
		return _hwtap_uvdso_find(mm, addr, w);
	if (!(mod = _hwtap_umod(m.mod))) {
		_hwtap_ujit_miss(m.mod);	/* a JIT's map not read yet: asked again */
		return false;
	}
	w->mod = m.mod;
	w->start = m.start;
	w->end = m.end;
	/* the file offset, then the segment that puts it at a link-time address */
	off = addr - m.start + m.offset;
	for (i = 0; i < mod->nsegs; i++) {
		const struct hwtap_useg *s = &mod->segs[i];

		if (off >= s->offset && off < s->offset + s->size) {
			w->vaddr = off - s->offset + s->vaddr;
			w->bias = w->vaddr - addr;
			/* the segment's bytes in memory, as far as the mapping has them */
			w->lo = s->offset > m.offset ? max(m.start, m.start + (unsigned long)
							   (s->offset - m.offset)) : m.start;
			w->hi = min_t(u64, m.end, m.start + (s->offset + s->size - m.offset));
			return true;
		}
	}
	w->vaddr = 0;
	w->lo = w->hi = 0;
	return true;
}

/* In the N entries of STRIDE bytes at BASE, sorted by the address each starts with (a
 * struct hwtap_usym or hwtap_uline), the last whose address is at or below ADDR; the
 * first entry's must be. */
static int _hwtap_last_at_or_below(const void *base, int n, size_t stride, u64 addr)
{
	int lo = 0, hi = n;

	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;

		if (*(const u64 *)(base + mid * stride) <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ADDR of TASK as SystemTap names it: *MODNAME (NULL if in no known file), and the symbol
 * (NULL if none) with *OFFSET into it and *SIZE (to the next symbol: 0 for the last), or
 * without a symbol the offset into the mapping and its size; *PRETTY (when not NULL) the
 * symbol's name demangled, or its name. */
static const char *_hwtap_usym_find(struct task_struct *task, unsigned long addr,
				    const char **modname, unsigned long *offset,
				    unsigned long *size, const char **pretty)
{
	const struct hwtap_umod *m;
	struct hwtap_uwhere w;
	int lo;

	*modname = NULL;
	if (!addr || !task || (task->flags & PF_KTHREAD) ||
	    !_hwtap_umap_find(task->mm, addr, &w))
		return NULL;
	m = _hwtap_umod(w.mod);
	*modname = m->name ? m->name : m->path;
	*offset = addr - w.start;
	*size = w.end - w.start;
	if (!w.vaddr || !m->nsyms || w.vaddr < m->syms[0].addr) {
		_hwtap_ujit_miss(w.mod);	/* (a JIT's code newer than its map read) */
		return NULL;
	}
	lo = _hwtap_last_at_or_below(m->syms, m->nsyms, sizeof(m->syms[0]), w.vaddr);
	if (m->syms[lo].size && w.vaddr - m->syms[lo].addr >= m->syms[lo].size) {
		_hwtap_ujit_miss(w.mod);
		return NULL;		/* past its end: in no symbol hwtap knows */
	}
	*offset = w.vaddr - m->syms[lo].addr;
	*size = lo + 1 < m->nsyms ? m->syms[lo + 1].addr - m->syms[lo].addr : 0;
	if (pretty)
		*pretty = m->names + (m->syms[lo].dname ? m->syms[lo].dname : m->syms[lo].name);
	return m->names + m->syms[lo].name;
}

static const char *_hwtap_usym_lookup(struct task_struct *task, unsigned long addr,
				      const char **modname, unsigned long *offset,
				      unsigned long *size)
{
	return _hwtap_usym_find(task, addr, modname, offset, size, NULL);
}

/* The source line of ADDR of TASK from its module's line table: the line (0: none known)
 * and *FILE. */
static unsigned int _hwtap_uline_lookup(struct task_struct *task, unsigned long addr,
					const char **file)
{
	const struct hwtap_umod *m;
	struct hwtap_uwhere w;
	int lo;

	*file = NULL;
	if (!addr || !task || (task->flags & PF_KTHREAD) ||
	    !_hwtap_umap_find(task->mm, addr, &w) || !w.vaddr)
		return 0;
	m = _hwtap_umod(w.mod);
	if (!m->nlines || w.vaddr < m->lines[0].addr)
		return 0;
	lo = _hwtap_last_at_or_below(m->lines, m->nlines, sizeof(m->lines[0]), w.vaddr);
	if (m->lines[lo].file == HWTAP_ULINE_END)
		return 0;
	*file = m->files + m->lines[lo].file;
	return m->lines[lo].line;
}

/* V as "0x..." (as "%#lx" writes it) at BUF, which has room for 19 bytes: the length. A
 * backtrace's addresses are written this way: snprintf's parsing was most of its cost. */
static int _hwtap_put_hex(char *buf, unsigned long v)
{
	char tmp[16];
	int n = 0, i;

	do			/* 0 is "0x0", as the kernel's and SystemTap's %#x write it */
		tmp[n++] = hex_asc[v & 15];
	while (v >>= 4);
	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < n; i++)
		buf[2 + i] = tmp[n - 1 - i];
	return n + 2;
}

enum hwtap_usym_format {
	HWTAP_USYM_NAME,	/* usymname: "name", else hex */
	HWTAP_USYM_DATA,	/* usymdata: "name+0xo/0xs [module]" */
	HWTAP_USYM_FULL,	/* print_ubacktrace: " 0xaddr : name+0xo/0xs [module]\n" */
	HWTAP_USYM_SIMPLE,	/* sprint_ubacktrace: "name+0xo [module]\n" */
	HWTAP_USYM_BRIEF,	/* print_ubacktrace_brief: "name+0xo\n" */
	HWTAP_USYM_FULLER,	/* print_ubacktrace_fileline: FULL with " at file:line" */
	HWTAP_USYM_FILELINE,	/* usymfileline: "file:line" */
	HWTAP_USYM_FILE,	/* usymfile: "file" */
	HWTAP_USYM_LINE,	/* usymline: "line" */
};

/* ADDR of TASK as FORMAT writes it, into BUF (LEN bytes): the length. */
static int _hwtap_usym_format(char *buf, size_t len, struct task_struct *task,
			      unsigned long addr, enum hwtap_usym_format format)
{
	const char *mod, *name, *pretty = NULL, *file = NULL;
	unsigned long off = 0, size = 0;
	unsigned int line = 0;

	if (format >= HWTAP_USYM_FULLER)
		line = _hwtap_uline_lookup(task, addr, &file);
	name = _hwtap_usym_find(task, addr, &mod, &off, &size, &pretty);
	/* backtraces demangle; usymname() and usymdata() give the name as SystemTap does */
	if (name && format >= HWTAP_USYM_FULL && format <= HWTAP_USYM_FULLER)
		name = pretty;
	switch (format) {
	case HWTAP_USYM_FILELINE:
		if (file && line)
			return scnprintf(buf, len, "%s:%u", file, line);
		break;
	case HWTAP_USYM_FILE:
		if (file)
			return scnprintf(buf, len, "%s", file);
		break;
	case HWTAP_USYM_LINE:
		if (line)
			return scnprintf(buf, len, "%u", line);
		break;
	case HWTAP_USYM_NAME:		/* (the common case: without snprintf's parsing) */
		if (name) {
			ssize_t n = strscpy(buf, name, len);

			return n < 0 ? len - 1 : n;
		}
		if (len >= 19) {
			int n = _hwtap_put_hex(buf, addr);

			buf[n] = '\0';
			return n;
		}
		break;
	case HWTAP_USYM_DATA:
		if (name)
			return scnprintf(buf, len, "%s+%#lx/%#lx [%s]", name, off, size, mod);
		if (mod)
			return scnprintf(buf, len, "%#lx [%s+%#lx/%#lx]", addr, mod, off, size);
		break;
	case HWTAP_USYM_FULLER:
		if (name && file && line)
			return scnprintf(buf, len, " %#lx : %s+%#lx/%#lx at %s:%u [%s]\n", addr,
					 name, off, size, file, line, mod);
		fallthrough;		/* without a line: as print_ubacktrace() */
	case HWTAP_USYM_FULL:
		if (name)
			return scnprintf(buf, len, " %#lx : %s+%#lx/%#lx [%s]\n", addr, name, off,
					 size, mod);
		if (mod)
			return scnprintf(buf, len, " %#lx [%s+%#lx/%#lx]\n", addr, mod, off, size);
		return scnprintf(buf, len, " %#lx\n", addr);
	case HWTAP_USYM_SIMPLE:
		if (name)
			return scnprintf(buf, len, "%s+%#lx [%s]\n", name, off, mod);
		if (mod)
			return scnprintf(buf, len, "%#lx [%s+%#lx]\n", addr, mod, off);
		return scnprintf(buf, len, "%#lx\n", addr);
	case HWTAP_USYM_BRIEF:
		if (name)
			return scnprintf(buf, len, "%s+%#lx\n", name, off);
		return scnprintf(buf, len, "%#lx\n", addr);
	}
	return scnprintf(buf, len, "%#lx", addr);
}

/* fold.h's namer for user frames of the task ARG: the symbol's name, demangled; in no
 * symbol but in a file, the file's name and the link-time address, as perf names it
 * ("liblzma.so.5.4.1+0x1692b"); else hex. */
static int _hwtap_fold_user(char *buf, size_t room, unsigned long pc, void *arg)
{
	struct task_struct *task = arg;
	const char *name = NULL, *mod, *base;
	unsigned long off, size;
	struct hwtap_uwhere w;
	ssize_t n;

	_hwtap_usym_find(task, pc, &mod, &off, &size, &name);
	if (name) {
		n = strscpy(buf, name, room);
		return n < 0 ? room - 1 : n;
	}
	if (!mod || !_hwtap_umap_find(task->mm, pc, &w) || !w.vaddr)
		return _hwtap_usym_format(buf, room, task, pc, HWTAP_USYM_NAME);
	base = strrchr(mod, '/');
	return scnprintf(buf, room, "%s+%#llx", base ? base + 1 : mod, w.vaddr);
}

/* Whether ADDR of TASK is the first instruction of a symbol hwtap knows. */
static bool _hwtap_usym_at_start(struct task_struct *task, unsigned long addr)
{
	const char *mod;
	unsigned long off = 0, size;

	return _hwtap_usym_lookup(task, addr, &mod, &off, &size) && !off;
}

/* The user registers of the probe's task, if it is the current one and has user code. */
static struct pt_regs *_hwtap_uregs(struct hwtap_context_base *b)
{
	if (b->task != current || !current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	if (b->regs && user_mode(b->regs))
		return b->regs;
	return task_pt_regs(current);
}

static bool _hwtap_ucompat(struct pt_regs *regs)
{
#if defined(CONFIG_X86_64)
	return !user_64bit_mode(regs);
#elif defined(CONFIG_ARM64)
	return compat_user_mode(regs);
#else
	return true;
#endif
}

#include "uunwind.c"

#endif /* HWTAP_USYMS_C */
