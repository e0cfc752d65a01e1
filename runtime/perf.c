/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.c - the lifetimes of a module's perf events: for each perf probe, one kernel
 * counter on every online CPU, created when the session starts (after the begin probes),
 * followed through CPU hotplug, released when the session stops. Included by the
 * generated module.c after session.h, like the runtime's headers.
 *
 * The module describes its probes in a table and calls
 *   _hwtap_perf_start(table, n)  from hwtap_start(): 0, or -errno after reporting which
 *                                probe failed on which CPU and why; nothing is left behind
 *   _hwtap_perf_stop(table, n)   from hwtap_stop(): every event released. Once it returns
 *                                no overflow handler of the table runs any more.
 *
 * An event may name one CPU (perf.events("cycles:cpu=1")): then only that CPU gets it, and
 * the start fails when that CPU is not online.
 *
 * Hotplug: one dynamic CPU hotplug state per module (CPUHP_AP_ONLINE_DYN, multi-instance),
 * one instance per probe. Its online callback runs on the CPU coming up (in the hotplug
 * thread, may sleep) and creates that CPU's counter; its offline callback releases it.
 * While the session starts, a counter that cannot be created fails the start (the hotplug
 * core then runs the offline callback on the CPUs already done). Later, when a CPU comes
 * online, a failure is a warning: the probe keeps running on the other CPUs, and the CPU
 * is never refused.
 *
 * Overflow handlers run in hard-irq context for software clock events, in NMI context for
 * hardware events on real machines, and in task context with preemption disabled for
 * events like page faults: the probe handlers they call take no lock that can wait.
 */
#ifndef HWTAP_PERF_C
#define HWTAP_PERF_C

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>

struct hwtap_perf {
	/* set by the generated code */
	const char *point;			/* as the script wrote it: "perf.hw.cpu_cycles" */
	const char *where;			/* "script.stp:3:7" */
	struct perf_event_attr attr;		/* type, config, sample_period or freq */
	int cpu;				/* the only CPU to count on, or -1 */
	perf_overflow_handler_t handler;
	/* the runtime's */
	struct perf_event * __percpu *events;
	struct hlist_node node;			/* this probe's hotplug instance */
	bool starting;				/* failures fail the start */
	int failed_cpu, failed_rc;
};

static enum cpuhp_state _hwtap_perf_state;

/* What an error from perf_event_create_kernel_counter() means for a script's author. */
static const char *_hwtap_perf_reason(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "ENOENT: this kernel has no such event here (a machine without a "
		       "hardware PMU, such as many virtual machines, counts software events only)";
	case -ENODEV:
		return "ENODEV: no PMU for this event on this CPU";
	case -EOPNOTSUPP:
		return "EOPNOTSUPP: the PMU cannot sample this event";
	case -EINVAL:
		return "EINVAL: the PMU refuses this type, config or period";
	case -EBUSY:
		return "EBUSY: the counter is taken (by the NMI watchdog or another tool?)";
	case -EACCES:
	case -EPERM:
		return "EACCES: not permitted (perf_event_paranoid or a security module)";
	case -ENOMEM:
		return "ENOMEM: out of memory";
	case -ENOSPC:
		return "ENOSPC: no free hardware counter";
	default:
		return "the kernel refused it";
	}
}

static int _hwtap_perf_create(struct hwtap_perf *p, unsigned int cpu)
{
	struct perf_event *event;

	p->attr.size = sizeof(p->attr);
	event = perf_event_create_kernel_counter(&p->attr, cpu, NULL, p->handler, NULL);
	if (IS_ERR(event))
		return PTR_ERR(event);
	*per_cpu_ptr(p->events, cpu) = event;
	return 0;
}

static void _hwtap_perf_release(struct hwtap_perf *p, unsigned int cpu)
{
	struct perf_event **slot = per_cpu_ptr(p->events, cpu);

	if (*slot) {
		/* returns once the event is off the CPU: its handler no longer runs */
		perf_event_release_kernel(*slot);
		*slot = NULL;
	}
}

static int _hwtap_perf_online(unsigned int cpu, struct hlist_node *node)
{
	struct hwtap_perf *p = hlist_entry(node, struct hwtap_perf, node);
	int rc;

	if (p->cpu >= 0 && cpu != p->cpu)
		return 0;
	rc = _hwtap_perf_create(p, cpu);
	if (!rc)
		return 0;
	if (p->starting) {
		p->failed_cpu = cpu;
		p->failed_rc = rc;
		return rc;
	}
	_hwtap_warn("%s (%s): no perf event on CPU %u, which came online: %s", p->point,
		    p->where, cpu, _hwtap_perf_reason(rc));
	return 0;
}

static int _hwtap_perf_offline(unsigned int cpu, struct hlist_node *node)
{
	_hwtap_perf_release(hlist_entry(node, struct hwtap_perf, node), cpu);
	return 0;
}

static void _hwtap_perf_stop(struct hwtap_perf *table, int n)
{
	int i;

	if (_hwtap_perf_state <= 0)
		return;
	for (i = 0; i < n; i++) {
		if (!table[i].events)
			continue;
		/* runs the offline callback on every online CPU */
		cpuhp_state_remove_instance(_hwtap_perf_state, &table[i].node);
		free_percpu(table[i].events);
		table[i].events = NULL;
	}
	cpuhp_remove_multi_state(_hwtap_perf_state);
	_hwtap_perf_state = 0;
}

static int _hwtap_perf_start(struct hwtap_perf *table, int n)
{
	int i, rc;

	rc = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "hwtap/perf:" HWTAP_MODULE_NAME,
				     _hwtap_perf_online, _hwtap_perf_offline);
	if (rc < 0) {
		_hwtap_script_error("cannot follow CPU hotplug for perf probes (%d): too many "
				    "modules use dynamic hotplug states", rc);
		return rc;
	}
	_hwtap_perf_state = rc;
	for (i = 0; i < n; i++) {
		struct hwtap_perf *p = &table[i];

		if (p->cpu >= 0 && (p->cpu >= nr_cpu_ids || !cpu_online(p->cpu))) {
			rc = -ENODEV;
			_hwtap_script_error("%s (%s): CPU %d, which its event names, is not online",
					    p->point, p->where, p->cpu);
			goto fail;
		}
		p->events = alloc_percpu(struct perf_event *);
		if (!p->events) {
			rc = -ENOMEM;
			_hwtap_script_error("%s (%s): out of memory for its perf events",
					    p->point, p->where);
			goto fail;
		}
		p->starting = true;
		p->failed_cpu = -1;
		/* runs the online callback on every online CPU; undoes them on a failure */
		rc = cpuhp_state_add_instance(_hwtap_perf_state, &p->node);
		p->starting = false;
		if (rc) {
			if (p->failed_cpu >= 0)
				_hwtap_script_error("%s (%s): cannot create its perf event (type "
						    "%u, config %#llx) on CPU %d: %s", p->point,
						    p->where, p->attr.type,
						    (unsigned long long)p->attr.config,
						    p->failed_cpu, _hwtap_perf_reason(p->failed_rc));
			else
				_hwtap_script_error("%s (%s): cannot register for CPU hotplug (%d)",
						    p->point, p->where, rc);
			free_percpu(p->events);
			p->events = NULL;
			goto fail;
		}
	}
	return 0;

fail:
	_hwtap_perf_stop(table, i);
	return rc;
}

#endif /* HWTAP_PERF_C */
