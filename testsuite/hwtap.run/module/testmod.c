// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * testmod.c - a hand-written hwtap module for testsuite/hwtap.run/run.exp and
 * bench/transport.sh: the runtime (runtime/session.h) with hwtap_start/stop/end
 * whose behaviour module parameters choose. Built with kbuild:
 *   make -C /lib/modules/RELEASE/build M=DIR HWTAP_TOP=SOURCE_TREE modules
 *
 *   begin_lines=N    "begin I" lines from hwtap_start (process context)
 *   end_lines=N      "end I" lines from hwtap_end
 *   exit_in_begin=1  hwtap_start asks for the exit
 *   ticks=N          a 1 ms hrtimer (hard irq) prints "tick I" N times (-1: forever)
 *   quiet_ticks=1    ... without printing
 *   exit_after=N     the timer asks for the exit at tick N and stops
 *   exit_flag=1      ... by setting _hwtap_exit_requested only, as tapset exit() does
 *   error_at=N       the timer raises "injected error at tick I" at ticks N .. N+errors-1,
 *   errors=K         then stops (K default 1)
 *   warn_at=N        the timer warns "injected warning at tick N"
 *   nmi=N            the timer sends itself an NMI at ticks 1..N; the NMI handler prints
 *                    "nmi I", warns at the first, asks for the exit at the Nth
 *   perf=N           a cpu-clock perf event per CPU, period 1 ms (hard irq), prints
 *                    "perf I" for the first N samples, the Nth asks for the exit
 *   flood=N          hwtap_start writes N 100-byte records on one CPU; hwtap_end says
 *                    "flood: W written, D dropped"
 *   fail_start=E     hwtap_start raises an error and fails with -E
 *   bench=N          hwtap_start times N writes of bench_size bytes (default 64);
 *                    hwtap_end warns "bench: ..." (on stderr: run with -o /dev/null);
 *                    with bench_overwrite=1 the buffer overwrites its oldest records
 *                    while they run, as a detached session's does (the flight recorder)
 *   tput=N           a 1 ms hrtimer per CPU writes N records of tput_size bytes (default
 *                    4000) per tick for `ticks' ticks, then asks for the exit; hwtap_end
 *                    warns "tput: ..."
 * Records of bench and tput are lines of 'b' or 't' characters.
 */
#define HWTAP_MODULE_NAME KBUILD_MODNAME
#include "runtime/session.h"

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/perf_event.h>
#include <linux/smp.h>
#include <asm/apic.h>
#include <asm/nmi.h>

static int begin_lines, end_lines, ticks, quiet_ticks, exit_after, exit_flag, exit_in_begin;
static int error_at, errors = 1, warn_at, nmi, perf, flood, fail_start;
static int bench, bench_size = 64, bench_overwrite, tput, tput_size = HWTAP_RECORD_MAX;

module_param(begin_lines, int, 0444);
module_param(end_lines, int, 0444);
module_param(exit_in_begin, int, 0444);
module_param(ticks, int, 0444);
module_param(quiet_ticks, int, 0444);
module_param(exit_after, int, 0444);
module_param(exit_flag, int, 0444);
module_param(error_at, int, 0444);
module_param(errors, int, 0444);
module_param(warn_at, int, 0444);
module_param(nmi, int, 0444);
module_param(perf, int, 0444);
module_param(flood, int, 0444);
module_param(fail_start, int, 0444);
module_param(bench, int, 0444);
module_param(bench_size, int, 0444);
module_param(bench_overwrite, int, 0444);
module_param(tput, int, 0444);
module_param(tput_size, int, 0444);

static __printf(1, 2) void out(const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	_hwtap_write(line, n);
}

static void testmod_exit(void)
{
	if (exit_flag)
		atomic_set(&_hwtap_exit_requested, 1);
	else
		_hwtap_request_exit();
}

/* ---- the tick timer ------------------------------------------------------------------- */

static struct hrtimer tick_timer;
static int tick_count;
static DEFINE_PER_CPU(int, nmi_pending);

static void send_self_nmi(void)
{
	this_cpu_inc(nmi_pending);
	apic->send_IPI(smp_processor_id(), NMI_VECTOR);
}

/* One tick's work; false when the timer should stop. */
static bool tick(int n)
{
	if (!quiet_ticks)
		out("tick %d\n", n);
	if (n == warn_at)
		_hwtap_warn("injected warning at tick %d", n);
	if (n <= nmi)
		send_self_nmi();
	if (error_at && n >= error_at && n < error_at + errors)
		_hwtap_script_error("injected error at tick %d", n);
	if (error_at && n == error_at + errors - 1)
		return false;
	if (n == exit_after) {
		testmod_exit();
		return false;
	}
	return ticks < 0 || n < ticks;
}

static enum hrtimer_restart tick_fn(struct hrtimer *timer)
{
	if (!tick(++tick_count))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ms_to_ktime(1));
	return HRTIMER_RESTART;
}

static int nmi_count;

static int testmod_nmi(unsigned int type, struct pt_regs *regs)
{
	int n;

	if (!this_cpu_read(nmi_pending))
		return NMI_DONE;
	this_cpu_dec(nmi_pending);
	n = ++nmi_count;	/* one timer sends them all: no race */
	out("nmi %d\n", n);
	if (n == 1)
		_hwtap_warn("warning from NMI %d", n);
	if (n == nmi)
		testmod_exit();
	return NMI_HANDLED;
}

/* ---- perf cpu-clock events ------------------------------------------------------------ */

static struct perf_event *perf_events[NR_CPUS];
static atomic_t perf_count = ATOMIC_INIT(0);

static void perf_fn(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs)
{
	int n = atomic_inc_return(&perf_count);

	if (n <= perf)
		out("perf %d\n", n);
	if (n == perf)
		testmod_exit();
}

static void stop_perf(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (perf_events[cpu])
			perf_event_release_kernel(perf_events[cpu]);
		perf_events[cpu] = NULL;
	}
}

static int start_perf(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = NSEC_PER_MSEC,
		.pinned = 1,
	};
	struct perf_event *event;
	int cpu;

	for_each_online_cpu(cpu) {
		event = perf_event_create_kernel_counter(&attr, cpu, NULL, perf_fn, NULL);
		if (IS_ERR(event)) {
			_hwtap_script_error("perf cpu-clock on cpu %d: %ld", cpu, PTR_ERR(event));
			stop_perf();
			return PTR_ERR(event);
		}
		perf_events[cpu] = event;
	}
	return 0;
}

/* ---- throughput: a timer per CPU ------------------------------------------------------ */

static DEFINE_PER_CPU(struct hrtimer, tput_timer);
static DEFINE_PER_CPU(int, tput_ticks);
static atomic_t tput_done = ATOMIC_INIT(0);
static atomic64_t tput_written = ATOMIC64_INIT(0);
static char tput_record[HWTAP_RECORD_MAX];

static enum hrtimer_restart tput_fn(struct hrtimer *timer)
{
	int i;

	for (i = 0; i < tput; i++)
		if (!_hwtap_write(tput_record, tput_size))
			atomic64_inc(&tput_written);
	if (++*this_cpu_ptr(&tput_ticks) < ticks) {
		hrtimer_forward_now(timer, ms_to_ktime(1));
		return HRTIMER_RESTART;
	}
	if (atomic_inc_return(&tput_done) == num_online_cpus())
		_hwtap_request_exit();
	return HRTIMER_NORESTART;
}

/* On each CPU, from the IPI: a pinned timer starts where it is started. */
static void start_tput_timer(void *unused)
{
	struct hrtimer *timer = this_cpu_ptr(&tput_timer);

	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	timer->function = tput_fn;
	hrtimer_start(timer, ms_to_ktime(1), HRTIMER_MODE_REL_PINNED_HARD);
}

static void stop_tput(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&tput_timer, cpu));
}

/* ---- process-context exercises -------------------------------------------------------- */

static int flood_written, flood_dropped;

static void run_flood(void)
{
	char rec[100];
	int i;

	memset(rec, 'x', sizeof(rec));
	rec[sizeof(rec) - 1] = '\n';
	preempt_disable();	/* one CPU, one buffer: enabled again below */
	for (i = 0; i < flood; i++) {
		memcpy(rec, "flood ", 6);
		rec[6] = '0' + i / 1000 % 10;
		rec[7] = '0' + i / 100 % 10;
		rec[8] = '0' + i / 10 % 10;
		rec[9] = '0' + i % 10;
		if (_hwtap_write(rec, sizeof(rec)))
			flood_dropped++;
		else
			flood_written++;
	}
	preempt_enable();
}

static u64 bench_ns;
static int bench_dropped;

static void run_bench(void)
{
	static char rec[HWTAP_RECORD_MAX];
	u64 t0;
	int i;

	memset(rec, 'b', sizeof(rec));
	bench_size = clamp(bench_size, 1, HWTAP_RECORD_MAX);
	rec[bench_size - 1] = '\n';
	if (bench_overwrite)
		ring_buffer_change_overwrite(_hwtap_transport.rb, 1);
	preempt_disable();	/* one CPU, one buffer: enabled again below */
	t0 = ktime_get_ns();
	for (i = 0; i < bench; i++)
		if (_hwtap_write(rec, bench_size))
			bench_dropped++;
	bench_ns = ktime_get_ns() - t0;
	preempt_enable();
	if (bench_overwrite)
		ring_buffer_change_overwrite(_hwtap_transport.rb, 0);
}

/* ---- the session's three functions ---------------------------------------------------- */

static int hwtap_start(void)
{
	int i, rc;

	if (fail_start) {
		_hwtap_script_error("cannot start: injected failure");
		return -fail_start;
	}
	for (i = 1; i <= begin_lines; i++)
		out("begin %d\n", i);
	if (bench)
		run_bench();
	if (flood)
		run_flood();
	if (nmi) {
		rc = register_nmi_handler(NMI_LOCAL, testmod_nmi, 0, "hwtap_testmod");
		if (rc)
			return rc;
	}
	if (perf) {
		rc = start_perf();
		if (rc)
			goto out_nmi;
	}
	if (tput) {
		memset(tput_record, 't', sizeof(tput_record));
		tput_size = clamp(tput_size, 1, HWTAP_RECORD_MAX);
		tput_record[tput_size - 1] = '\n';
		on_each_cpu(start_tput_timer, NULL, 1);
	}
	if (ticks) {
		hrtimer_init(&tick_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		tick_timer.function = tick_fn;
		if (!tput)
			hrtimer_start(&tick_timer, ms_to_ktime(1), HRTIMER_MODE_REL_PINNED_HARD);
	}
	if (exit_in_begin)
		testmod_exit();
	return 0;

out_nmi:
	if (nmi)
		unregister_nmi_handler(NMI_LOCAL, "hwtap_testmod");
	return rc;
}

static void hwtap_stop(void)
{
	if (ticks && !tput)
		hrtimer_cancel(&tick_timer);
	if (tput)
		stop_tput();
	if (perf)
		stop_perf();
	if (nmi)
		unregister_nmi_handler(NMI_LOCAL, "hwtap_testmod");
}

static void hwtap_end(void)
{
	int i;

	if (flood)
		out("flood: %d written, %d dropped\n", flood_written, flood_dropped);
	if (bench)
		_hwtap_warn("bench: %d writes of %d bytes: %llu ns each, %d dropped%s", bench,
			    bench_size, bench_ns / bench, bench_dropped,
			    bench_overwrite ? ", overwrite mode" : "");
	if (tput)
		_hwtap_warn("tput: %lld records of %d bytes written",
			    (long long)atomic64_read(&tput_written), tput_size);
	for (i = 1; i <= end_lines; i++)
		out("end %d\n", i);
}

/* ctl lines other than start and stop: this module takes none */
static int hwtap_ctl_command(char *cmd)
{
	return cmd ? -EINVAL : 0;
}

HWTAP_SESSION_DEFINE(NULL);
