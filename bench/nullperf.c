// SPDX-License-Identifier: GPL-2.0
/* bench/nullperf.c - the kernel's own share of a perf.sw.page_faults.sample(1) probe: a
 * sampling page-fault event on every CPU whose overflow handler does nothing. What a
 * page fault costs more with it loaded is what hwtap and stap pay before their handlers
 * run; bench/profile.sh builds it with kbuild and subtracts it. */
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

static struct perf_event **events;

static void nullperf_fire(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
}

static void nullperf_release(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (events[cpu])
			perf_event_release_kernel(events[cpu]);
	kfree(events);
}

static int __init nullperf_init(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.size = sizeof(attr),
		.sample_period = 1,
	};
	struct perf_event *event;
	int cpu;

	events = kcalloc(nr_cpu_ids, sizeof(*events), GFP_KERNEL);
	if (!events)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		event = perf_event_create_kernel_counter(&attr, cpu, NULL, nullperf_fire,
							 NULL);
		if (IS_ERR(event)) {
			nullperf_release();
			return PTR_ERR(event);
		}
		events[cpu] = event;
	}
	return 0;
}

static void __exit nullperf_exit(void)
{
	nullperf_release();
}

module_init(nullperf_init);
module_exit(nullperf_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtap bench: a page-fault sampling event with an empty handler");
