/* probe_perf.c - perf event probes:
 *
 *   perf.type(T).config(C)       any perf_event_attr type/config (SystemTap's spelling;
 *                                tapset/perf.stp defines perf.hw.*, perf.sw.*, perf.hw_cache.*)
 *   perf.EVENT[(N)]              short form: perf.cycles(1000000), perf.page_faults(100)
 *   perf.events("NAME")          an event named as libpfm4 names it
 *
 * each followed by at most one of each modifier: .sample(N) or .hz(F), .process or
 * .process("PATH"), .counter("NAME") (a counting event read with @perf("NAME")),
 * .pinned (always on the PMU, never taking turns with other events), .group("NAME") (the
 * counters of one group are one perf event group: on the PMU together; hwtap-run opens
 * them, perf_check_groups() checks what a group's members must share), .cgroup("PATH")
 * (only while tasks of that cgroup v2 cgroup, or one below it, run: a counter's events
 * are opened by hwtap-run in the cgroup, as perf stat -G does, each one a group of its
 * own unless it is in one; a sampling probe's samples are those taken while such a task
 * runs).
 * perf_point_event() tells pass 3 which counter a point selects. perf.events names are
 * encoded by libpfm4 (pmu.c) when the point is checked, and listed by perf_list().
 */
#include "hwtap.h"

#include <string.h>

/* The short forms: perf's own event names, '-' written as '_'. */
static const struct {
	const char *name;
	int type, config;
} short_events[] = {
	{"cycles", 0, 0}, {"cpu_cycles", 0, 0}, {"instructions", 0, 1},
	{"cache_references", 0, 2}, {"cache_misses", 0, 3}, {"branch_instructions", 0, 4},
	{"branches", 0, 4}, {"branch_misses", 0, 5}, {"bus_cycles", 0, 6},
	{"stalled_cycles_frontend", 0, 7}, {"stalled_cycles_backend", 0, 8},
	{"ref_cycles", 0, 9},
	{"cpu_clock", 1, 0}, {"task_clock", 1, 1}, {"page_faults", 1, 2}, {"faults", 1, 2},
	{"context_switches", 1, 3}, {"cs", 1, 3}, {"cpu_migrations", 1, 4},
	{"migrations", 1, 4}, {"minor_faults", 1, 5}, {"major_faults", 1, 6},
	{"alignment_faults", 1, 7}, {"emulation_faults", 1, 8},
};

enum { N_SHORT = sizeof(short_events) / sizeof(short_events[0]) };

static const PointShape perf_shapes[] = {
	{"perf.type(number).config(number)"},
	{"perf.type(number).config(number).sample(number)"},
	{"perf.type(number).config(number).hz(number)"},
	{"perf.type(number).config(number).process"},
	{"perf.type(number).config(number).process(string)"},
	{"perf.type(number).config(number).counter(string)"},
	{"perf.type(number).config(number).pinned"},
	{"perf.type(number).config(number).group(string)"},
	{"perf.type(number).config(number).cgroup(string)"},
	{"perf.events(string)", .values_listed = true},
	{"perf.cycles(number)"}, {"perf.cpu_cycles(number)"}, {"perf.instructions(number)"},
	{"perf.cache_references(number)"}, {"perf.cache_misses(number)"},
	{"perf.branch_instructions(number)"}, {"perf.branches(number)"},
	{"perf.branch_misses(number)"}, {"perf.bus_cycles(number)"},
	{"perf.stalled_cycles_frontend(number)"}, {"perf.stalled_cycles_backend(number)"},
	{"perf.ref_cycles(number)"},
	{"perf.cpu_clock(number)"}, {"perf.task_clock(number)"}, {"perf.page_faults(number)"},
	{"perf.faults(number)"}, {"perf.context_switches(number)"}, {"perf.cs(number)"},
	{"perf.cpu_migrations(number)"}, {"perf.migrations(number)"},
	{"perf.minor_faults(number)"}, {"perf.major_faults(number)"},
	{"perf.alignment_faults(number)"}, {"perf.emulation_faults(number)"},
	/* without a period: the default sample period */
	{"perf.cycles"}, {"perf.cpu_cycles"}, {"perf.instructions"}, {"perf.cache_references"},
	{"perf.cache_misses"}, {"perf.branch_instructions"}, {"perf.branches"},
	{"perf.branch_misses"}, {"perf.bus_cycles"}, {"perf.stalled_cycles_frontend"},
	{"perf.stalled_cycles_backend"}, {"perf.ref_cycles"}, {"perf.cpu_clock"},
	{"perf.task_clock"}, {"perf.page_faults"}, {"perf.faults"}, {"perf.context_switches"},
	{"perf.cs"}, {"perf.cpu_migrations"}, {"perf.migrations"}, {"perf.minor_faults"},
	{"perf.major_faults"}, {"perf.alignment_faults"}, {"perf.emulation_faults"},
	{NULL},
};

static bool is_short_event(const char *name)
{
	for (int i = 0; i < N_SHORT; i++)
		if (!strcmp(name, short_events[i].name))
			return true;
	return false;
}

static bool arg_is(Component *c, NodeKind kind)
{
	return c->arg && c->arg->kind == kind;
}

/* A .cgroup path: in the cgroup v2 hierarchy, as cgroup_path() gives it ("/" its root,
 * "/system.slice/cron.service"; the leading '/' may be left out), the way to it plain. */
static void check_cgroup_path(Node *arg)
{
	const char *p = arg->str;
	if (strlen(p) != arg->str_len || strchr(p, '\n'))
		error_at(arg->tok, "a .cgroup path cannot hold a NUL or a newline");
	else if (!strncmp(p, "/sys/fs/cgroup", 14) && (!p[14] || p[14] == '/'))
		error_at(arg->tok, ".cgroup(\"%s\"): a cgroup path is from the cgroup v2 root, as "
			 "cgroup_path() gives it (/sys/fs/cgroup%s is \"%s\")", p, p + 14,
			 p[14] ? p + 14 : "/");
	else
		for (const char *c = p; *c; c += strcspn(c, "/"), c += *c == '/') {
			size_t len = strcspn(c, "/");
			if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) {
				error_at(arg->tok, ".cgroup(\"%s\"): a cgroup path is plain, without "
					 "'.' or '..'", p);
				break;
			}
		}
}

/* Checks the modifiers from comps[from]; reports what is wrong. */
static void check_modifiers(ProbePoint *pp, int from)
{
	Component *seen_rate = NULL, *seen_process = NULL, *seen_counter = NULL;
	Component *seen_pinned = NULL, *seen_group = NULL, *seen_cgroup = NULL;
	for (int i = from; i < pp->comps.len; i++) {
		Component *c = pp->comps.data[i];
		Component **slot = NULL;
		bool ok;
		if (!strcmp(c->name, "sample") || !strcmp(c->name, "hz")) {
			slot = &seen_rate;
			ok = arg_is(c, N_NUM);
			if (ok && (int64_t)c->arg->num <= 0)
				error_at(c->arg->tok, "the argument of .%s must be positive", c->name);
		} else if (!strcmp(c->name, "process")) {
			slot = &seen_process;
			ok = !c->has_parens || arg_is(c, N_STR);
			if (ok && c->arg && c->arg->str[0] != '/')
				error_at(c->arg->tok, "perf .process(\"%s\") needs an absolute path: "
					 "the program's file on the machine the module runs on",
					 c->arg->str);
		} else if (!strcmp(c->name, "counter")) {
			slot = &seen_counter;
			ok = arg_is(c, N_STR) && c->arg->str_len > 0;
		} else if (!strcmp(c->name, "pinned")) {
			slot = &seen_pinned;
			ok = !c->has_parens;
		} else if (!strcmp(c->name, "group")) {
			slot = &seen_group;
			ok = arg_is(c, N_STR) && c->arg->str_len > 0;
			if (ok && c->arg->str[0] == '@')
				error_at(c->arg->tok, "a group's name cannot begin with '@' (hwtap "
					 "names a .cgroup counter's own group so)");
		} else if (!strcmp(c->name, "cgroup")) {
			slot = &seen_cgroup;
			ok = arg_is(c, N_STR) && c->arg->str_len > 0;
			if (ok)
				check_cgroup_path(c->arg);
		} else {
			error_at(c->tok, "unknown perf probe modifier '.%s': expected .sample(N), "
				 ".hz(N), .process, .process(\"PATH\"), .counter(\"NAME\"), .pinned, "
				 ".group(\"NAME\") or .cgroup(\"PATH\")", c->name);
			continue;
		}
		if (!ok)
			error_at(c->tok, "wrong argument for perf probe modifier '.%s': expected %s",
				 c->name, !strcmp(c->name, "process") ? "none or a path string" :
				 !strcmp(c->name, "counter") ? "a counter name string" :
				 !strcmp(c->name, "group") ? "a group name string" :
				 !strcmp(c->name, "cgroup") ? "a cgroup path string" :
				 !strcmp(c->name, "pinned") ? "none" : "a number");
		if (*slot)
			error_at(c->tok, "perf probe modifier '.%s' conflicts with '.%s' before it",
				 c->name, (*slot)->name);
		*slot = c;
	}
	if (seen_counter && seen_rate)
		error_at(seen_counter->tok, "a .counter(\"NAME\") event counts and is read with "
			 "@perf(\"NAME\"): it takes no .%s", seen_rate->name);
	if (seen_group && !seen_counter)
		error_at(seen_group->tok, ".group(\"%s\") puts counters in a group: this probe "
			 "samples; give it a .counter(\"NAME\") and read it with @perf",
			 seen_group->arg ? seen_group->arg->str : "");
	if (seen_cgroup && seen_process)
		error_at(seen_cgroup->tok, ".cgroup(\"%s\") counts on every CPU while the "
			 "cgroup's tasks run; .%s counts %s: choose one", seen_cgroup->arg->str,
			 seen_process->name, seen_process->arg ? "the processes that execute a "
			 "program" : "the target process");
	if (seen_group && seen_process && seen_process->arg)
		error_at(seen_group->tok, "a .process(\"PATH\") counter cannot be in a group: "
			 "hwtap-run opens a group's events when the session starts, and the "
			 "processes that execute PATH come later (.process with -c or -x can)");
}

/* perf.events("cycles:period=N") (or :freq=F) has its period in the name: .sample and .hz
 * would say it twice. */
static void check_named_period(ProbePoint *pp, int from)
{
	Component *c1 = pp->comps.data[1];
	for (int i = from; i < pp->comps.len; i++) {
		Component *c = pp->comps.data[i];
		if (!strcmp(c->name, "sample") || !strcmp(c->name, "hz"))
			error_at(c->tok, "perf.events(\"%s\") has its sample period in its name "
				 "already: it takes no .%s", c1->arg->str, c->name);
	}
}

/* The short form's arg is the period: .sample and .hz would say it twice. */
static void check_short_period(ProbePoint *pp, int from)
{
	Component *c1 = pp->comps.data[1];
	for (int i = from; c1->arg && i < pp->comps.len; i++) {
		Component *c = pp->comps.data[i];
		if (!strcmp(c->name, "sample") || !strcmp(c->name, "hz"))
			error_at(c->tok, "perf.%s(%lld) has its sample period already: it takes "
				 "no .%s", c1->name, (long long)(int64_t)c1->arg->num, c->name);
	}
}

static const PointShape *perf_match(const ProbeFamily *f, ProbePoint *pp, Session *s)
{
	if (pp->comps.len < 2)
		return NULL;
	Component *c1 = pp->comps.data[1];
	int from;
	bool encoded = true;
	if (!strcmp(c1->name, "type")) {
		Component *c2 = pp->comps.len > 2 ? pp->comps.data[2] : NULL;
		if (!arg_is(c1, N_NUM) || !c2 || strcmp(c2->name, "config") || !arg_is(c2, N_NUM))
			return NULL;
		if (c1->arg->num > UINT32_MAX)
			error_at(c1->arg->tok, "perf event type %lld is out of range",
				 (long long)(int64_t)c1->arg->num);
		from = 3;
	} else if (!strcmp(c1->name, "events")) {
		if (!arg_is(c1, N_STR))
			return NULL;
		PerfEvent ev;
		const char *why = c1->arg->str_len ? pmu_encode(c1->arg->str, &ev) :
				  "perf.events() needs an event name";
		encoded = !why;
		if (why)
			error_at(c1->arg->tok, "%s", why);
		else if (ev.period_in_name)
			check_named_period(pp, 2);
		from = 2;
	} else if (is_short_event(c1->name)) {
		if (c1->has_parens && !arg_is(c1, N_NUM))
			return NULL;
		if (c1->arg && (int64_t)c1->arg->num <= 0)
			error_at(c1->arg->tok, "the sample period of perf.%s must be positive",
				 c1->name);
		from = 2;
		check_short_period(pp, from);
	} else {
		return NULL;
	}
	check_modifiers(pp, from);
	PerfEvent ev;
	if (encoded && !perf_point_event(pp, &ev) && ev.cgroup && ev.type == 1 &&
	    ev.config == 1)
		error_at(c1->tok, "task-clock is a task's own time and cannot be counted per "
			 "cgroup: count perf.sw.cpu_clock in cgroup %s (perf stat -G's cpu-clock)",
			 ev.cgroup);
	return &f->shapes[0];
}

/* -l 'perf.events("GLOB")': the events whose names match GLOB, as concrete points. */
static void perf_list(const char *pattern, bool with_vars, Session *s, Vec *out)
{
	const char *open = strstr(pattern, "(\"");
	const char *close = open ? strrchr(pattern, '"') : NULL;
	if (!close || close <= open + 1 || close[1] != ')' || close[2] ||
	    !point_pattern_matches(pattern, "perf.events(string)"))
		return;
	pmu_list(xstrndup(open + 2, close - open - 2), with_vars, out);
}

const ProbeFamily perf_family = {
	.name = "perf",
	.shapes = perf_shapes,
	.match = perf_match,
	.decided_at_load = true,
	.list = perf_list,
};

/* The counter a checked perf point selects and how it samples; NULL, or what pass 3
 * cannot do with it yet. */
const char *perf_point_event(ProbePoint *pp, PerfEvent *ev)
{
	Component *c1 = pp->comps.data[1];
	int from;
	*ev = (PerfEvent){.period = PERF_DEFAULT_PERIOD, .cpu = -1};
	if (!strcmp(c1->name, "events")) {
		if (pmu_encode(c1->arg->str, ev))
			unreachable();          /* perf_match() said why */
		from = 2;
	} else if (!strcmp(c1->name, "type")) {
		ev->type = (uint32_t)c1->arg->num;
		ev->config = ((Component *)pp->comps.data[2])->arg->num;
		from = 3;
	} else {
		for (int i = 0; i < N_SHORT; i++)
			if (!strcmp(c1->name, short_events[i].name)) {
				ev->type = short_events[i].type;
				ev->config = short_events[i].config;
			}
		if (c1->arg)
			ev->period = c1->arg->num;
		from = 2;
	}
	for (int i = from; i < pp->comps.len; i++) {
		Component *c = pp->comps.data[i];
		if (!strcmp(c->name, "sample")) {
			ev->period = c->arg->num;
		} else if (!strcmp(c->name, "hz")) {
			ev->period = 0;
			ev->freq = c->arg->num;
		} else if (!strcmp(c->name, "counter")) {
			ev->counter = c->arg->str;
		} else if (!strcmp(c->name, "pinned")) {
			ev->pinned = true;
		} else if (!strcmp(c->name, "group")) {
			ev->group = c->arg->str;
		} else if (!strcmp(c->name, "cgroup")) {
			ev->cgroup = c->arg->str;
		} else if (!c->arg) {
			ev->target = true;      /* .process */
		} else {
			ev->process_path = c->arg->str;
		}
	}
	/* a cgroup counter's events are hwtap-run's, as a group's: one of its own */
	if (ev->cgroup && ev->counter && !ev->group)
		ev->group = xformat("@%s", ev->counter);
	return NULL;
}

const PerfExclude perf_excludes[] = {
	{PERF_EXCL_USER, "exclude_user"}, {PERF_EXCL_KERNEL, "exclude_kernel"},
	{PERF_EXCL_HV, "exclude_hv"}, {PERF_EXCL_IDLE, "exclude_idle"},
	{PERF_EXCL_HOST, "exclude_host"}, {PERF_EXCL_GUEST, "exclude_guest"},
	{0, NULL},
};

/* EV as the perf_event_attr fields it sets, for -p2: "type 4 config 0xc0 ...". */
char *perf_attr_string(const PerfEvent *ev)
{
	StrBuf sb = {0};
	sb_printf(&sb, "type %u config 0x%llx", ev->type, (unsigned long long)ev->config);
	if (ev->config1)
		sb_printf(&sb, " config1 0x%llx", (unsigned long long)ev->config1);
	if (ev->config2)
		sb_printf(&sb, " config2 0x%llx", (unsigned long long)ev->config2);
	if (ev->counter)
		sb_puts(&sb, " counting");
	else if (ev->freq)
		sb_printf(&sb, " freq sample_freq %llu", (unsigned long long)ev->freq);
	else
		sb_printf(&sb, " sample_period %llu", (unsigned long long)ev->period);
	for (const PerfExclude *x = perf_excludes; x->field; x++)
		if (ev->exclude & x->bit)
			sb_printf(&sb, " %s", x->field);
	if (ev->precise_ip)
		sb_printf(&sb, " precise_ip %u", ev->precise_ip);
	if (ev->exclusive)
		sb_puts(&sb, " exclusive");
	if (ev->pinned)
		sb_puts(&sb, " pinned");
	if (ev->cpu >= 0)
		sb_printf(&sb, " cpu %d", ev->cpu);
	if (ev->target)
		sb_puts(&sb, " inherit (the target process)");
	if (ev->process_path)
		sb_printf(&sb, " inherit (each process that executes %s)", ev->process_path);
	if (ev->group && ev->group[0] != '@')
		sb_printf(&sb, " group \"%s\"", ev->group);
	if (ev->cgroup)
		sb_printf(&sb, " cgroup %s", ev->cgroup);
	return sb.buf;
}

/* Whether some probe of S gives way to P (P is in its '!' list). */
static bool others_give_way_to(Session *s, Probe *p)
{
	for (int i = 0; i < s->probes.len; i++) {
		Probe *q = s->probes.data[i];
		for (int j = 0; j < q->unless.len; j++)
			if (q->unless.data[j] == p)
				return true;
	}
	return false;
}

/* The counters of a .group("NAME") are opened together by hwtap-run, one group per CPU or
 * per thread of the target: they must count the same CPUs or the same process, be
 * optional ('?') all or none (a group that cannot be opened is skipped whole), and take no
 * part in a '!' choice (which decides probe by probe). */
void perf_check_groups(Session *s)
{
	enum { GROUP_MAX = 32 };        /* runtime/probes/perf.c's HWTAP_PERF_GROUP_MAX */
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		PerfEvent lead, ev;
		if (strcmp(p->family->name, "perf") || perf_point_event(p->points.data[0], &lead) ||
		    !lead.group)
			continue;
		Token *at = p->user_point->tok;
		int members = 1;
		bool first = true;
		for (int j = 0; j < i && first; j++) {
			Probe *q = s->probes.data[j];
			first = strcmp(q->family->name, "perf") ||
				perf_point_event(q->points.data[0], &ev) || !ev.group ||
				strcmp(ev.group, lead.group);
		}
		if ((p->unless.len || others_give_way_to(s, p)) && lead.group[0] == '@')
			error_at(at, "counter \"%s\" of cgroup %s cannot take part in a '!' "
				 "choice: hwtap-run opens its events as it loads the module",
				 lead.counter, lead.cgroup);
		else if (p->unless.len || others_give_way_to(s, p))
			error_at(at, "counter \"%s\" of group \"%s\" cannot take part in a '!' "
				 "choice: a group is opened whole or not at all", lead.counter,
				 lead.group);
		if (!first)
			continue;
		for (int j = i + 1; j < s->probes.len; j++) {
			Probe *q = s->probes.data[j];
			if (strcmp(q->family->name, "perf") ||
			    perf_point_event(q->points.data[0], &ev) || !ev.group ||
			    strcmp(ev.group, lead.group))
				continue;
			Token *qat = q->user_point->tok;
			if (++members == GROUP_MAX + 1)
				error_at(qat, "group \"%s\" has more than %d counters", lead.group,
					 GROUP_MAX);
			if (strcmp(ev.cgroup ? ev.cgroup : "", lead.cgroup ? lead.cgroup : ""))
				error_at(qat, "counter \"%s\" counts %s, but group \"%s\"'s first "
					 "counter, \"%s\", counts %s: a group's counters count the same",
					 ev.counter, ev.cgroup ? xformat("in cgroup %s", ev.cgroup) :
					 "whatever runs", lead.group, lead.counter, lead.cgroup ?
					 xformat("in cgroup %s", lead.cgroup) : "whatever runs");
			if (ev.target != lead.target || ev.cpu != lead.cpu)
				error_at(qat, "counter \"%s\" counts %s, but group \"%s\"'s first "
					 "counter, \"%s\", counts %s: a group's counters count the same",
					 ev.counter, ev.target ? "the target process" :
					 ev.cpu >= 0 ? xformat("CPU %d", ev.cpu) : "every CPU",
					 lead.group, lead.counter, lead.target ? "the target process" :
					 lead.cpu >= 0 ? xformat("CPU %d", lead.cpu) : "every CPU");
			if (q->load_optional != p->load_optional)
				error_at(qat, "counter \"%s\" is %s, but group \"%s\"'s first counter, "
					 "\"%s\", is %s: a group is opened whole, so its counters are "
					 "optional ('?') all or none", ev.counter,
					 q->load_optional ? "optional" : "not optional", lead.group,
					 lead.counter, p->load_optional ? "optional" : "not optional");
		}
	}
}
