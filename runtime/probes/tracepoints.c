/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracepoints.c - kernel.trace("SYSTEM:NAME") probes on any tracepoint of the kernel:
 * each one watched, by name, from the start of the session to its stop. Included by the
 * generated module.c after session.h (and perf.c, when there are counters).
 *
 * The generated code writes for each probe a callback with the tracepoint's arguments,
 * each as an unsigned long (they are pointers and integers, passed in registers or 8-byte
 * stack slots on the 64-bit machines hwtap builds for; pass 2 refused a tracepoint with a
 * structure passed by value), which hands them to the probe's handler as u64 args[]; the
 * handler cuts each to its type's size (translator/target/btf.c). Then
 *
 *   _hwtap_tracepoints_start(table, n)   from hwtap_start(): 0, or -errno after saying
 *                                        which point failed and why ('?' and '!' as
 *                                        choice.h decides); nothing is left watched then
 *   _hwtap_tracepoints_stop(table, n)    from hwtap_stop(): once it returns no callback
 *                                        of the table runs or will run
 *
 * The names are found in one walk over the kernel's tracepoints (a glob's hundreds are
 * looked up in a sorted index, not one walk each). Callbacks run where the kernel fires
 * the tracepoint, with preemption disabled: in tasks, interrupts and NMI.
 *
 * A module's tracepoint (.module set: ext4's, kvm's) follows the module: the kernel's
 * tracepoint module notifier says when a module with tracepoints comes (and, as it is
 * registered, which ones are loaded already) and goes; the entry is watched in each of
 * the module's lives and waits for it meanwhile. The kernel calls the notifier before it
 * checks that a going module's tracepoints have no callback left, and calls each one with
 * its module list's mutex held: the module entries are only ever touched from there.
 */
#ifndef HWTAP_TRACEPOINTS_C
#define HWTAP_TRACEPOINTS_C

#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/bsearch.h>
#include <linux/module.h>
#include <linux/tracepoint.h>

#ifdef CONFIG_CFI_CLANG         /* the translator says so first: see compat.h */
#error "hwtap: kernel.trace probes are not supported on a kernel built with kCFI (CONFIG_CFI_CLANG)"
#endif

#include "../choice.h"

struct hwtap_tracepoint {
	struct hwtap_choice c;		/* first: choice.h walks the table */
	/* set by the generated code */
	const char *name;		/* "sched_switch" */
	void *callback;
	const char *module;		/* defined by this module ("watchdog"), else NULL */
	/* the runtime's */
	struct tracepoint *tp;		/* found, and watched while c.created */
};

struct _hwtap_tp_index {
	struct hwtap_tracepoint **by_name;
	int n;
};

static int _hwtap_tp_cmp(const void *a, const void *b)
{
	return strcmp((*(struct hwtap_tracepoint *const *)a)->name,
		      (*(struct hwtap_tracepoint *const *)b)->name);
}

static int _hwtap_tp_key(const void *key, const void *elt)
{
	return strcmp(key, (*(struct hwtap_tracepoint *const *)elt)->name);
}

/* for_each_kernel_tracepoint(): each table entry named as TP (a name may be probed by
 * several) gets it. */
static void _hwtap_tp_found(struct tracepoint *tp, void *priv)
{
	struct _hwtap_tp_index *ix = priv;
	struct hwtap_tracepoint **at = bsearch(tp->name, ix->by_name, ix->n,
					       sizeof(*ix->by_name), _hwtap_tp_key);

	if (!at)
		return;
	while (at > ix->by_name && !strcmp(at[-1]->name, tp->name))
		at--;
	for (; at < ix->by_name + ix->n && !strcmp((*at)->name, tp->name); at++)
		(*at)->tp = tp;
}

/* The table whose module entries the notifier watches and leaves. */
static struct hwtap_tracepoint *_hwtap_tp_table;
static int _hwtap_tp_n;
static bool _hwtap_tp_following;

/* Tracepoint NAME of module MOD, or NULL. */
static struct tracepoint *_hwtap_tp_of_module(struct module *mod, const char *name)
{
	unsigned int i;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		if (!strcmp(tp->name, name))
			return tp;
	}
	return NULL;
}

/* A module with tracepoints comes or goes: the table's entries of it are watched or left. */
static int _hwtap_tp_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = ((struct tp_module *)data)->mod;
	int i, rc;

	for (i = 0; i < _hwtap_tp_n; i++) {
		struct hwtap_tracepoint *t = &_hwtap_tp_table[i];

		if (!t->module || !t->c.deferred || strcmp(t->module, mod->name))
			continue;
		if (state == MODULE_STATE_GOING && t->c.created) {
			tracepoint_probe_unregister(t->tp, t->callback, t);
			t->c.created = false;
			t->tp = NULL;
		}
		if (state != MODULE_STATE_COMING || t->c.created)
			continue;
		t->tp = _hwtap_tp_of_module(mod, t->name);
		if (!t->tp) {
			_hwtap_warn("%s (%s): module %s has no %s tracepoint", t->c.point,
				    t->c.where, mod->name, t->name);
			continue;
		}
		rc = tracepoint_probe_register(t->tp, t->callback, t);
		if (rc)
			_hwtap_warn("%s (%s): cannot watch the %s tracepoint as module %s loads "
				    "(%d)", t->c.point, t->c.where, t->name, mod->name, rc);
		else
			t->c.created = true;
	}
	return NOTIFY_DONE;
}

static struct notifier_block _hwtap_tp_modules = {
	.notifier_call = _hwtap_tp_module_event,
};

static void _hwtap_tracepoints_stop(struct hwtap_tracepoint *table, int n)
{
	bool any = _hwtap_tp_following;
	int i;

	if (_hwtap_tp_following) {
		/* says GOING for each loaded module: its entries are left */
		unregister_tracepoint_module_notifier(&_hwtap_tp_modules);
		_hwtap_tp_following = false;
	}
	for (i = 0; i < n; i++) {
		if (!table[i].c.created || table[i].module)
			continue;
		tracepoint_probe_unregister(table[i].tp, table[i].callback, &table[i]);
		table[i].c.created = false;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();	/* the callbacks running are done */
}

static int _hwtap_tracepoints_start(struct hwtap_tracepoint *table, int n)
{
	const size_t size = sizeof(*table);
	struct _hwtap_tp_index ix = { .n = n };
	int i, rc = 0;

	ix.by_name = kmalloc_array(n, sizeof(*ix.by_name), GFP_KERNEL);
	if (!ix.by_name)
		return -ENOMEM;
	_hwtap_tp_table = table;
	_hwtap_tp_n = n;
	for (i = 0; i < n; i++)
		ix.by_name[i] = &table[i];
	sort(ix.by_name, n, sizeof(*ix.by_name), _hwtap_tp_cmp, NULL);
	for_each_kernel_tracepoint(_hwtap_tp_found, &ix);
	kfree(ix.by_name);

	for (i = 0; i < n; i++) {
		struct hwtap_tracepoint *t = &table[i];

		if (_hwtap_choice_replacement(table, size, i)) {
			t->c.skipped = true;
			continue;
		}
		if (t->module) {
			t->c.deferred = true;	/* the notifier's, below */
			continue;
		}
		if (!t->tp)
			rc = _hwtap_choice_failed(&t->c, -ENOENT, "this kernel has no %s "
						  "tracepoint", t->name);
		else if ((rc = tracepoint_probe_register(t->tp, t->callback, t)))
			rc = _hwtap_choice_failed(&t->c, rc, "cannot watch the %s tracepoint "
						  "(%d)", t->name, rc);
		else
			t->c.created = true;
		if (rc && !t->c.optional) {
			_hwtap_tracepoints_stop(table, n);
			return rc;
		}
		rc = 0;
	}
	for (i = 0; i < n && !_hwtap_tp_following; i++) {
		if (!table[i].c.deferred)
			continue;
		/* says COMING for each module loaded now */
		rc = register_tracepoint_module_notifier(&_hwtap_tp_modules);
		if (rc) {
			_hwtap_script_error("cannot follow the kernel's modules for their "
					    "tracepoints (%d)", rc);
			_hwtap_tracepoints_stop(table, n);
			return rc;
		}
		_hwtap_tp_following = true;
	}
	for (i = 0; i < n; i++)
		if (table[i].c.deferred && !table[i].c.created)
			_hwtap_note("%s (%s) waits for module %s", table[i].c.point,
				    table[i].c.where, table[i].module);
	_hwtap_choice_report(table, size, n);
	return 0;
}

#endif /* HWTAP_TRACEPOINTS_C */
