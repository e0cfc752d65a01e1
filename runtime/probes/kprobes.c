/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kprobes.c - kprobe.function("NAME") probes: a kprobe on a kernel function's entry, or
 * a kretprobe on its returns (.return), placed by symbol name when the session starts and
 * removed when it stops (a point the kernel's DWARF resolved, a source line or an inlined
 * copy, by its link-time address plus KASLR's shift). The kernel resolves NAME itself
 * (kallsyms, "MODULE:NAME" for a module's), and refuses what it will not probe (its
 * blacklist, code outside the text it allows): a point the kernel refuses fails the
 * start naming it and the reason, or is skipped with a warning when the script marked it
 * '?' (choice.h). Included by the generated module.c after session.h (and perf.c, when
 * there are counters).
 *
 *   _hwtap_kprobes_start(table, n)  from hwtap_start(), after the counters: 0, or -errno
 *                                after reporting which point failed; nothing is left
 *                                registered then
 *   _hwtap_kprobes_stop(table, n)   from hwtap_stop(), before the counters: once it
 *                                returns no handler of the table runs or will run; the
 *                                hits the kernel missed (a kprobe hit inside another
 *                                kprobe's handler; a return with no kretprobe instance
 *                                free) are added to the skipped probes and named in a
 *                                warning
 *
 * Handlers run where the function runs: process context, interrupts, NMI for a function
 * called there; the kernel runs them with preemption disabled and keeps them from
 * recursing (a kprobe hit in a handler is missed, not run). A .return probe's @entry
 * values (a parameter read at the return is its value at the call) are computed by the
 * kretprobe's entry handler into the call's own return instance, so calls nested,
 * recursive or on other CPUs each keep theirs.
 *
 * A kernel module's function (module("M").function, .module set) follows the module: one
 * not loaded at the start waits for it, placed when the module comes and removed when it
 * goes, as often as it comes and goes (a module notifier; the kernel itself disarms a
 * kprobe of a module that goes, but the probe must be removed before it can be placed in
 * the module's next life).
 */
#ifndef HWTAP_KPROBES_C
#define HWTAP_KPROBES_C

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "../choice.h"
#include "../dwreg.h"

#ifndef HWTAP_KRETPROBE_INSTANCES
#define HWTAP_KRETPROBE_INSTANCES 0	/* 0: the kernel's default, by the CPUs */
#endif

struct hwtap_kprobe {
	struct hwtap_choice c;		/* first: choice.h walks the table */
	/* set by the generated code */
	const char *symbol;		/* "vfs_read", "ext4:ext4_file_read_iter" */
	const char *module;		/* a module's function that follows it: "ext4" */
	unsigned long addr;		/* else 0: placed at this link-time address of the
					 * kernel's DWARF (a line, an inlined copy, a static
					 * function by its address), shifted by _hwtap_kbias */
	bool ret;			/* a kretprobe: .return */
	void (*fire)(struct pt_regs *regs);
	/* a .return probe with @entry: ENTRY keeps the values at the call in its return
	 * instance's DATA_SIZE bytes, FIRE_DATA runs at the return with them */
	void (*entry)(struct pt_regs *regs, void *data);
	void (*fire_data)(struct pt_regs *regs, void *data);
	size_t data_size;
	/* the runtime's */
	struct kprobe kp;
	struct kretprobe krp;
	long missed;			/* in the module's earlier lives */
};

/* How far KASLR moved the kernel from its link-time addresses: where kfree() is against
 * where the kernel's DWARF says (HWTAP_KBIAS_LINK, set by the generated code where a
 * probe's point or variable comes from that DWARF). */
#ifdef HWTAP_KBIAS_LINK
static const unsigned long _hwtap_kbias_link = HWTAP_KBIAS_LINK;
#define _hwtap_kbias ((unsigned long)&kfree - _hwtap_kbias_link)
#endif

/* The table whose module entries the notifier places and removes, under the mutex. */
static struct hwtap_kprobe *_hwtap_kprobes_table;
static int _hwtap_kprobes_n;
static DEFINE_MUTEX(_hwtap_kprobes_lock);

static int _hwtap_kprobe_hit(struct kprobe *kp, struct pt_regs *regs)
{
	struct hwtap_kprobe *k = container_of(kp, struct hwtap_kprobe, kp);

#ifdef HWTAP_KPROBES_FLOOR
	return 0;	/* bench/kprobes.sh: the kernel's kprobe alone, an empty handler */
#endif
	k->fire(regs);
	return 0;
}

static int _hwtap_kretprobe_hit(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct hwtap_kprobe *k = container_of(get_kretprobe(ri), struct hwtap_kprobe, krp);

	if (k->fire_data)
		k->fire_data(regs, ri->data);
	else
		k->fire(regs);
	return 0;
}

/* At the call of a .return probe's function: its @entry values into the instance, which
 * its first word marks kept (the generated code sets it once they all are). */
static int _hwtap_kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct hwtap_kprobe *k = container_of(get_kretprobe(ri), struct hwtap_kprobe, krp);

	*(int64_t *)ri->data = 0;
	k->entry(regs, ri->data);
	return 0;
}

/* Why the kernel refused a kprobe on SYMBOL (register_kprobe()'s error). */
static const char *_hwtap_kprobe_reason(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "the kernel has no such function (or its module is not loaded)";
	case -EINVAL:
		return "the kernel does not let it be probed (its kprobe blacklist, or not "
		       "at a function's start)";
	case -EILSEQ:
		return "not at an instruction boundary";
	case -EBUSY:
		return "another probe there cannot be shared";
	case -ENOMEM:
		return "out of memory";
	default:
		return "refused";
	}
}

/* K's hits missed so far. */
static long _hwtap_kprobe_missed(struct hwtap_kprobe *k)
{
	return k->missed + (k->ret ? k->krp.nmissed + k->krp.kp.nmissed : k->kp.nmissed);
}

static void _hwtap_kprobe_unregister(struct hwtap_kprobe *k)
{
	if (!k->c.created)
		return;
	if (k->ret)
		unregister_kretprobe(&k->krp);
	else
		unregister_kprobe(&k->kp);
	k->c.created = false;
}

/* Where KP goes: K's address, or its symbol. */
static void _hwtap_kprobe_at(struct hwtap_kprobe *k, struct kprobe *kp)
{
#ifdef HWTAP_KBIAS_LINK
	if (k->addr) {
		kp->addr = (kprobe_opcode_t *)(k->addr + _hwtap_kbias);
		return;
	}
#endif
	kp->symbol_name = k->symbol;
}

/* Places K (again: what an earlier registration set is cleared first); 0 or -errno. */
static int _hwtap_kprobe_register(struct hwtap_kprobe *k)
{
	k->missed = _hwtap_kprobe_missed(k);
	if (k->ret) {
		memset(&k->krp, 0, sizeof(k->krp));
		_hwtap_kprobe_at(k, &k->krp.kp);
		k->krp.handler = _hwtap_kretprobe_hit;
		k->krp.maxactive = HWTAP_KRETPROBE_INSTANCES;
		if (k->entry) {
			k->krp.entry_handler = _hwtap_kretprobe_entry;
			k->krp.data_size = k->data_size;
		}
		return register_kretprobe(&k->krp);
	}
	memset(&k->kp, 0, sizeof(k->kp));
	_hwtap_kprobe_at(k, &k->kp);
	k->kp.pre_handler = _hwtap_kprobe_hit;
	return register_kprobe(&k->kp);
}

/* A module comes or goes: its entries are placed or removed. */
static int _hwtap_kprobes_module_event(struct notifier_block *nb, unsigned long state,
				       void *data)
{
	struct module *mod = data;
	int i, rc;

	if (state != MODULE_STATE_COMING && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&_hwtap_kprobes_lock);
	for (i = 0; i < _hwtap_kprobes_n; i++) {
		struct hwtap_kprobe *k = &_hwtap_kprobes_table[i];

		if (!k->module || !k->c.deferred || strcmp(k->module, mod->name))
			continue;
		if (state == MODULE_STATE_GOING) {
			_hwtap_kprobe_unregister(k);
			continue;
		}
		if (k->c.created)
			continue;
		rc = _hwtap_kprobe_register(k);
		if (rc)
			_hwtap_warn("%s (%s): cannot probe %s as module %s loads: %s (%d)",
				    k->c.point, k->c.where, k->symbol, k->module,
				    _hwtap_kprobe_reason(rc), rc);
		else
			k->c.created = true;
	}
	mutex_unlock(&_hwtap_kprobes_lock);
	return NOTIFY_DONE;
}

static struct notifier_block _hwtap_kprobes_modules = {
	.notifier_call = _hwtap_kprobes_module_event,
};
static bool _hwtap_kprobes_following;

/* All of the table's at once: one wait for the handlers running, not one per probe (a
 * glob's hundreds); one by one if there is no memory for the lists. */
static void _hwtap_kprobes_unregister_all(struct hwtap_kprobe *table, int n)
{
	struct kprobe **kps = kmalloc_array(n, sizeof(*kps), GFP_KERNEL);
	struct kretprobe **krps = kmalloc_array(n, sizeof(*krps), GFP_KERNEL);
	int i, nk = 0, nr = 0;

	for (i = 0; i < n && kps && krps; i++) {
		if (!table[i].c.created)
			continue;
		if (table[i].ret)
			krps[nr++] = &table[i].krp;
		else
			kps[nk++] = &table[i].kp;
		table[i].c.created = false;
	}
	if (kps && krps) {
		if (nk)
			unregister_kprobes(kps, nk);
		if (nr)
			unregister_kretprobes(krps, nr);
	}
	kfree(kps);
	kfree(krps);
	for (i = 0; i < n; i++)
		_hwtap_kprobe_unregister(&table[i]);
}

static void _hwtap_kprobes_stop(struct hwtap_kprobe *table, int n)
{
	long missed = 0;
	int i;

	if (_hwtap_kprobes_following) {
		unregister_module_notifier(&_hwtap_kprobes_modules);
		_hwtap_kprobes_following = false;
	}
	mutex_lock(&_hwtap_kprobes_lock);
	_hwtap_kprobes_unregister_all(table, n);
	mutex_unlock(&_hwtap_kprobes_lock);
	for (i = 0; i < n; i++) {
		struct hwtap_kprobe *k = &table[i];
		long m;

		/* (0 for an entry never placed) */
		m = _hwtap_kprobe_missed(k);
		if (m)
			_hwtap_warn("%s (%s): %ld hits missed (%s)", k->c.point, k->c.where, m,
				    k->ret ? "returns with no kretprobe instance free, "
				    "-D HWTAP_KRETPROBE_INSTANCES=N, or hit in another probe's "
				    "handler" : "hit in another probe's handler");
		missed += m;
	}
	if (missed)
		atomic64_add(missed, &_hwtap_skipped);
}

static int _hwtap_kprobes_start(struct hwtap_kprobe *table, int n)
{
	const size_t size = sizeof(*table);
	int i, rc;

	_hwtap_kprobes_table = table;
	_hwtap_kprobes_n = n;
	for (i = 0; i < n && !_hwtap_kprobes_following; i++) {
		if (!table[i].module)
			continue;
		/* first: a module that loads while the others are placed is seen */
		rc = register_module_notifier(&_hwtap_kprobes_modules);
		if (rc)
			return rc;
		_hwtap_kprobes_following = true;
	}
	mutex_lock(&_hwtap_kprobes_lock);
	for (i = 0; i < n; i++) {
		struct hwtap_kprobe *k = &table[i];

		if (_hwtap_choice_replacement(table, size, i)) {
			k->c.skipped = true;
			continue;
		}
		rc = _hwtap_kprobe_register(k);
		if (!rc) {
			k->c.created = true;
			k->c.deferred = k->module != NULL;
			continue;
		}
		if (rc == -ENOENT && k->module) {
			/* its module is not loaded (pass 2 found the function in its BTF) */
			k->c.deferred = true;
			_hwtap_note("%s (%s) waits for module %s", k->c.point, k->c.where,
				    k->module);
			continue;
		}
		rc = _hwtap_choice_failed(&k->c, rc, "cannot probe %s: %s (%d)", k->symbol,
					  _hwtap_kprobe_reason(rc), rc);
		if (!k->c.optional) {
			mutex_unlock(&_hwtap_kprobes_lock);
			_hwtap_kprobes_stop(table, n);
			return rc;
		}
	}
	mutex_unlock(&_hwtap_kprobes_lock);
	_hwtap_choice_report(table, size, n);
	return 0;
}

#endif /* HWTAP_KPROBES_C */
