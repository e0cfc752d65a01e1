/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracepoint.h - a kernel tracepoint by its name, for the runtime's own use (.process
 * perf probes watch sched_process_exec). Most tracepoints' structs are not exported to
 * modules (__tracepoint_sched_process_exec, __tracepoint_mce_record are not), but
 * for_each_kernel_tracepoint() and tracepoint_probe_register() are.
 */
#ifndef HWTAP_TRACEPOINT_H
#define HWTAP_TRACEPOINT_H

#include <linux/string.h>
#include <linux/tracepoint.h>

struct _hwtap_tp_search {
	const char *name;
	struct tracepoint *found;
};

static void _hwtap_tp_match(struct tracepoint *tp, void *priv)
{
	struct _hwtap_tp_search *s = priv;

	if (!s->found && !strcmp(tp->name, s->name))
		s->found = tp;
}

/* The core kernel's tracepoint NAME ("sched_process_exec"), or NULL. */
static __maybe_unused struct tracepoint *_hwtap_find_tracepoint(const char *name)
{
	struct _hwtap_tp_search s = { .name = name };

	for_each_kernel_tracepoint(_hwtap_tp_match, &s);
	return s.found;
}

/* Watches tracepoint NAME with CALLBACK (no data) into *TP: 0, or -errno after saying why,
 * for WHO ("user symbols"). */
static __maybe_unused int _hwtap_watch_tracepoint(const char *who, const char *name,
						  void *callback, struct tracepoint **tp)
{
	struct tracepoint *found = _hwtap_find_tracepoint(name);
	int rc;

	if (!found) {
		_hwtap_script_error("%s: this kernel has no %s tracepoint", who, name);
		return -ENOENT;
	}
	rc = tracepoint_probe_register(found, callback, NULL);
	if (rc) {
		_hwtap_script_error("%s: cannot watch the %s tracepoint (%d)", who, name, rc);
		return rc;
	}
	*tp = found;
	return 0;
}

#endif /* HWTAP_TRACEPOINT_H */
