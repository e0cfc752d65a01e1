/* probe_timer.c - interval timers: timer.UNIT(N) with an optional .randomize(R) (not for
 * hz). timer.profile is an alias (tapset/timers.stp) for timer.profile.tick, the kernel's
 * profiling tick hook, which current kernels no longer have, or else a cpu-clock
 * perf event on every CPU, as in SystemTap. */
#include "hwtap.h"

#include <stdlib.h>
#include <string.h>

static const PointShape timer_shapes[] = {
	{"timer.ms(number)"}, {"timer.ms(number).randomize(number)"},
	{"timer.us(number)"}, {"timer.us(number).randomize(number)"},
	{"timer.ns(number)"}, {"timer.ns(number).randomize(number)"},
	{"timer.s(number)"}, {"timer.s(number).randomize(number)"},
	{"timer.sec(number)"}, {"timer.sec(number).randomize(number)"},
	{"timer.jiffies(number)"}, {"timer.jiffies(number).randomize(number)"},
	{"timer.hz(number)"},
	{"timer.profile.tick", .unavailable = "timer.profile.tick needs the kernel's "
	 "profiling tick hook (register_timer_hook), which this kernel does not have: "
	 "timer.profile falls back to perf.sw.cpu_clock"},
	{NULL},
};

/* The smallest interval in nanoseconds that hrtimers are asked for: below it a timer
 * handler would keep a CPU busy. */
#define MIN_INTERVAL_NS 100000LL
#define MAX_INTERVAL_NS 86400000000000LL

static int64_t unit_ns(const char *unit, Session *s)
{
	if (!strcmp(unit, "jiffies")) {
		int64_t hz = atoll(session_config_value(s, "CONFIG_HZ"));
		return 1000000000 / (hz > 0 ? hz : 250);
	}
	static const struct {
		const char *unit;
		int64_t ns;
	} units[] = {
		{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
		{"sec", 1000000000},
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit))
			return units[i].ns;
	return 0;
}

static const PointShape *timer_match(const ProbeFamily *f, ProbePoint *pp, Session *s)
{
	const PointShape *sh = shape_match(f, pp);
	if (!sh || pp->comps.len < 2)
		return sh;
	Component *c = pp->comps.data[1];
	if (!c->arg)
		return sh;                           /* timer.profile.tick */
	int64_t n = point_number(pp, 1);
	if (n <= 0) {
		error_at(c->arg->tok, "timer.%s needs a positive %s", c->name,
			 strcmp(c->name, "hz") ? "interval" : "frequency");
		return sh;
	}
	if (!strcmp(c->name, "hz")) {
		if (n > 1000000000 / MIN_INTERVAL_NS)
			error_at(c->arg->tok, "timer.hz(%lld) is too fast: at most %lld per second",
				 (long long)n, 1000000000 / MIN_INTERVAL_NS);
		return sh;
	}
	int64_t ns = unit_ns(c->name, s);
	if (n > MAX_INTERVAL_NS / ns)
		error_at(c->arg->tok, "timer.%s(%lld) is too long: the longest interval is a "
			 "day", c->name, (long long)n);
	else if (n * ns < MIN_INTERVAL_NS)
		error_at(c->arg->tok, "timer.%s(%lld) is too short: the shortest interval is "
			 "%lld us", c->name, (long long)n, MIN_INTERVAL_NS / 1000);
	if (pp->comps.len == 3) {
		Component *r = pp->comps.data[2];
		int64_t rnd = point_number(pp, 2);
		if (rnd < 0 || rnd > n)
			error_at(r->arg->tok, "randomize(%lld) must be from 0 to the interval %lld",
				 (long long)rnd, (long long)n);
	}
	return sh;
}

const ProbeFamily timer_family = {
	.name = "timer",
	.shapes = timer_shapes,
	.match = timer_match,
};
