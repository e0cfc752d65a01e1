/* translate_probes.c - pass 3's probe families: which probes it can translate, and for
 * each family what the module needs besides the handler translate.c writes: the timers'
 * hrtimers, the perf probes' overflow handlers and their table for runtime/probes/perf.c, the
 * ras probes' tracepoint callbacks and their table for runtime/probes/ras.c, and the order the
 * begin, end and error probes run in.
 */
#include "translate.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	Probe *p;
	int index;
	int64_t priority;
} Ordered;

static int by_priority(const void *a, const void *b)
{
	const Ordered *x = a, *y = b;
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x->index - y->index;
}

/* P's family as pass 3 makes it: init's probes are begin probes that run first. */
const char *ptab_family(Probe *p)
{
	return strcmp(p->family->name, "init") ? p->family->name : "begin";
}

static Component *comp(Probe *p, int i)
{
	ProbePoint *pp = p->points.data[0];
	return i < pp->comps.len ? pp->comps.data[i] : NULL;
}

/* timer.UNIT(N)[.randomize(R)]: its period in nanoseconds, and the randomization. */
static void timer_period(Session *s, Probe *p, int64_t *ns, int64_t *rnd)
{
	Component *unit = comp(p, 1), *r = comp(p, 2);
	int64_t n = (int64_t)unit->arg->num;
	static const struct {
		const char *unit;
		int64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
		     {"sec", 1000000000}};
	int64_t mult = 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit->name, units[i].unit))
			mult = units[i].ns;
	if (!strcmp(unit->name, "jiffies")) {
		int64_t hz = atoll(session_config_value(s, "CONFIG_HZ"));
		mult = 1000000000 / (hz > 0 ? hz : 250);
	}
	*ns = !strcmp(unit->name, "hz") ? 1000000000 / n : n * mult;
	*rnd = r ? (int64_t)r->arg->num * mult : 0;
}

void ptab_timer(Gen *g, Probe *p, int index)
{
	int64_t ns, rnd;
	timer_period(g->s, p, &ns, &rnd);
	tr_line(g, "static struct hrtimer timer_%d;", index);
	if (rnd)
		tr_line(g, "static struct rnd_state timer_%d_rnd;", index);
	tr_line(g, "static enum hrtimer_restart timer_%d_fire(struct hrtimer *t)", index);
	tr_line(g, "{");
	if (rnd)
		tr_line(g, "\thrtimer_forward_now(t, ns_to_ktime(_hwtap_timer_period(&timer_%d_rnd, "
		     "%lldULL, %lldULL)));", index, (long long)ns, (long long)rnd);
	else
		tr_line(g, "\thrtimer_forward_now(t, ns_to_ktime(%lldLL));", (long long)ns);
	tr_line(g, "\tprobe_%d(get_irq_regs());", index);
	tr_line(g, "\treturn HRTIMER_RESTART;");
	tr_line(g, "}");
	tr_line(g, "%s", "");
}

/* hwtap_start()'s lines that start the timers, and hwtap_stop()'s that cancel them. */
void ptab_timers_start(Gen *g, Session *s)
{
	for (int i = 0; i < s->probes.len; i++) {
		if (!ptab_is_timer(s->probes.data[i]))
			continue;
		int64_t ns, rnd;
		timer_period(s, s->probes.data[i], &ns, &rnd);
		if (rnd)
			tr_line(g, "\tprandom_seed_state(&timer_%d_rnd, get_random_u64());", i);
		tr_line(g, "\thrtimer_init(&timer_%d, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);", i);
		tr_line(g, "\ttimer_%d.function = timer_%d_fire;", i, i);
		tr_line(g, "\thrtimer_start(&timer_%d, ns_to_ktime(%lldLL), HRTIMER_MODE_REL_HARD);",
		     i, (long long)ns);
	}
}

void ptab_timers_stop(Gen *g, Session *s)
{
	for (int i = 0; i < s->probes.len; i++)
		if (ptab_is_timer(s->probes.data[i]))
			tr_line(g, "\thrtimer_cancel(&timer_%d);", i);
}

bool ptab_is_timer(Probe *p)
{
	return !strcmp(ptab_family(p), "timer") && comp(p, 1)->arg;
}

bool ptab_is_perf(Probe *p)
{
	return !strcmp(ptab_family(p), "perf");
}

bool ptab_is_ras(Probe *p)
{
	return p->shape && ras_source(p->shape);
}

bool ptab_is_process(Probe *p)
{
	return p->family == &process_family;
}

bool ptab_is_task(Probe *p)
{
	return p->family == &process_task_family;
}

bool ptab_is_kprobe(Probe *p)
{
	return p->family == &kprobe_family || kfunc_family(p->family);
}

bool ptab_is_tracepoint(Probe *p)
{
	return p->family == &tracepoint_family;
}

bool ptab_is_kentry(Probe *p)
{
	return kentry_family(p->family) && (p->entry_for || p->entry_probe);
}

/* A kprobe of hwtap_kprobes[]: not a kernel .return probe's @entry companion, which its
 * kretprobe's entry handler runs. */
static bool in_kprobe_table(Probe *p)
{
	return ptab_is_kprobe(p) && !(kentry_family(p->family) && p->entry_for);
}

/* How many of S's probes IS says are of a family. */
int ptab_count(Session *s, bool (*is)(Probe *p))
{
	int n = 0;
	for (int i = 0; i < s->probes.len; i++)
		n += is(s->probes.data[i]);
	return n;
}

/* What pass 3 has no code for yet: reported once per probe. */
bool ptab_translatable(Probe *p)
{
	const char *f = ptab_family(p);
	ProbePoint *pp = p->points.data[0];
	PerfEvent ev;
	const char *why = ptab_is_perf(p) ? perf_point_event(pp, &ev) : NULL;
	if (!strcmp(f, "begin") || !strcmp(f, "end") || !strcmp(f, "error") ||
	    !strcmp(f, "never") || ptab_is_timer(p) || (ptab_is_perf(p) && !why) || ptab_is_ras(p) ||
	    ptab_is_process(p) || ptab_is_task(p) || ptab_is_kprobe(p) || ptab_is_tracepoint(p))
		return true;
	/* at the point as the script wrote it, not in the tapset alias it went through */
	Token *at = p->user_point->tok;
	if (why)
		error_at(at, "pass 3 cannot translate %s yet (probe point '%s')", why,
			 probe_point_string(pp));
	else
		error_at(at, "pass 3 cannot translate probe point '%s' yet",
			 probe_point_string(pp));
	return false;
}

static bool in_perf_table(Probe *p, PerfEvent *ev);

/* The overflow handler of perf probe P, index INDEX: for a .cgroup, only while a task of
 * the cgroup runs. */
void ptab_perf_handler(Gen *g, Probe *p, int index)
{
	PerfEvent ev;
	tr_line(g, "static void perf_%d_fire(struct perf_event *event, "
		"struct perf_sample_data *data, struct pt_regs *regs)", index);
	tr_line(g, "{");
	if (in_perf_table(p, &ev) && ev.cgroup) {
		tr_line(g, "	if (!_hwtap_perf_in_cgroup(event))");
		tr_line(g, "		return;");
	}
	tr_line(g, "	probe_%d(regs);", index);
	tr_line(g, "}");
	tr_line(g, "%s", "");
}

/* Whether P is in the runtime's perf table (a translatable perf probe), with its event. */
static bool in_perf_table(Probe *p, PerfEvent *ev)
{
	return ptab_is_perf(p) && !perf_point_event(p->points.data[0], ev);
}

/* Whether P's body ever runs: not for never, nor for a counting perf probe (as in
 * SystemTap: @perf reads the counter). */
bool ptab_body_runs(Probe *p)
{
	PerfEvent ev;
	return strcmp(ptab_family(p), "never") && !(in_perf_table(p, &ev) && ev.counter);
}

int ptab_perf_count(Session *s)
{
	int n = 0;
	PerfEvent ev;
	for (int i = 0; i < s->probes.len; i++)
		n += in_perf_table(s->probes.data[i], &ev);
	return n;
}

/* The index in hwtap_perfs of the perf probe P. */
static int perf_index(Session *s, Probe *p)
{
	int n = 0;
	PerfEvent ev;
	for (int i = 0; i < s->probes.len; i++) {
		if (s->probes.data[i] == p)
			return n;
		n += in_perf_table(s->probes.data[i], &ev);
	}
	unreachable();
}

/* @perf("NAME"): the index in hwtap_perfs of the counter NAME (pass 2 checked it). */
int ptab_perf_counter_index(Session *s, const char *name)
{
	int n = 0;
	PerfEvent ev;
	for (int i = 0; i < s->probes.len; i++) {
		if (!in_perf_table(s->probes.data[i], &ev))
			continue;
		if (ev.counter && !strcmp(ev.counter, name))
			return n;
		n++;
	}
	unreachable();
}

/* EV as the initializer of a struct perf_event_attr. */
static void perf_attr(Gen *g, const PerfEvent *ev)
{
	tr_line(g, "		.attr = { .type = %u, .config = %#llxULL,", ev->type,
		(unsigned long long)ev->config);
	if (ev->config1 || ev->config2)
		tr_line(g, "			  .config1 = %#llxULL, .config2 = %#llxULL,",
			(unsigned long long)ev->config1, (unsigned long long)ev->config2);
	for (const PerfExclude *x = perf_excludes; x->field; x++)
		if (ev->exclude & x->bit)
			tr_line(g, "			  .%s = 1,", x->field);
	if (ev->precise_ip)
		tr_line(g, "			  .precise_ip = %u,", ev->precise_ip);
	if (ev->exclusive)
		tr_line(g, "			  .exclusive = 1,");
	if (ev->pinned)
		tr_line(g, "			  .pinned = 1,");
	if (ev->counter)
		tr_line(g, "			  /* counting */ },");
	else if (ev->freq)
		tr_line(g, "			  .freq = 1, .sample_freq = %lluULL },",
			(unsigned long long)ev->freq);
	else
		tr_line(g, "			  .sample_period = %lluULL },",
			(unsigned long long)ev->period);
}

/* The fields of a table entry's struct hwtap_choice (runtime/choice.h): its point, and
 * its '?' and '!'. INDEX gives an entry's place in its family's table. */
static void choice_fields(Gen *g, Session *s, Probe *p, int (*index)(Session *, Probe *),
			  bool optional)
{
	const char *up = probe_name(s, p);
	Token *t = p->user_point->tok;
	char *at = xformat("%s:%d:%d", t->file->name, t->line, t->col);
	tr_line(g, "		.c = { .point = %s,", tr_c_string(up, strlen(up)));
	tr_line(g, "		       .where = %s,", tr_c_string(at, strlen(at)));
	if (p->load_optional || optional)
		tr_line(g, "		       .optional = true,");
	if (p->unless.len) {
		StrBuf u = {0};
		for (int j = 0; j < p->unless.len; j++) {
			Probe *q = p->unless.data[j];
			if (q->family != p->family) {
				error_at(t, "'!' cannot choose between a %s point and a %s point: "
					 "each family decides its own at start", q->family->name,
					 p->family->name);
				continue;
			}
			sb_printf(&u, "%d, ", index(s, q));
		}
		tr_line(g, "		       .unless = (const int []){ %s-1 },", u.buf ? u.buf : "");
	}
	tr_line(g, "		},");
}

/* The index in hwtap_perfs of the first counter of EV's group. */
static int group_leader(Session *s, const PerfEvent *ev)
{
	int n = 0;
	PerfEvent other;
	for (int i = 0; i < s->probes.len; i++) {
		if (!in_perf_table(s->probes.data[i], &other))
			continue;
		if (other.group && !strcmp(other.group, ev->group))
			return n;
		n++;
	}
	unreachable();
}

/* What hwtap-run opens for the groups (loader/perfgroup.c): a .modinfo entry a counter,
 * "hwtap_perf_member=LEADER INDEX TYPE CONFIG CONFIG1 CONFIG2 EXCLUDE PRECISE FLAGS CPU
 * TARGET" (indexes in hwtap_perfs, EXCLUDE the PERF_EXCL_* bits, FLAGS 1 pinned, 2
 * exclusive, 4 optional; CPU -1 for every CPU; TARGET 1 for the target process), and
 * for a counter of a cgroup "hwtap_perf_cgroup=INDEX PATH". And
 * hwtap_ctl_command(), which takes hwtap-run's "perf_group" lines (runtime/session.h). */
static void perf_group_members(Gen *g, Session *s)
{
	int n = 0;
	bool any = false;
	PerfEvent ev;
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (!in_perf_table(p, &ev))
			continue;
		if (ev.group) {
			tr_line(g, "MODULE_INFO(hwtap_perf_member, \"%d %d %u %#llx %#llx %#llx %u %u "
				"%d %d %d\");", group_leader(s, &ev), n, ev.type,
				(unsigned long long)ev.config, (unsigned long long)ev.config1,
				(unsigned long long)ev.config2, ev.exclude, ev.precise_ip,
				(ev.pinned ? 1 : 0) | (ev.exclusive ? 2 : 0) |
				(p->load_optional ? 4 : 0), ev.cpu, ev.target ? 1 : 0);
			char *cg = ev.cgroup ? xformat("%d %s", n, ev.cgroup) : NULL;
			if (cg)
				tr_line(g, "MODULE_INFO(hwtap_perf_cgroup, %s);",
					tr_c_string(cg, strlen(cg)));
			any = true;
		}
		n++;
	}
	tr_line(g, "static int hwtap_ctl_command(char *cmd)");
	tr_line(g, "{");
	if (any)
		tr_line(g, "	return _hwtap_perf_group_command(hwtap_perfs, %d, cmd);", n);
	else
		tr_line(g, "	return cmd ? -EINVAL : 0;");
	tr_line(g, "}");
	tr_line(g, "%s", "");
}

/* The runtime's table of the perf probes (runtime/probes/perf.c); how many there are. */
int ptab_perf_table(Gen *g, Session *s)
{
	int n = 0;
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		PerfEvent ev;
		if (!in_perf_table(p, &ev))
			continue;
		if (!n++)
			tr_line(g, "static struct hwtap_perf hwtap_perfs[%d] = {", ptab_perf_count(s));
		tr_line(g, "	{");
		choice_fields(g, s, p, perf_index, false);
		perf_attr(g, &ev);
		tr_line(g, "		.cpu = %d,", ev.cpu);
		if (ev.target)
			tr_line(g, "		.target = true,");
		if (ev.process_path)
			tr_line(g, "		.exec_path = %s,",
				tr_c_string(ev.process_path, strlen(ev.process_path)));
		if (!ev.counter)
			tr_line(g, "		.handler = perf_%d_fire,", i);
		else
			tr_line(g, "		.counter = %s,", tr_c_string(ev.counter,
									    strlen(ev.counter)));
		if (ev.cgroup)
			tr_line(g, "		.cgroup = %s,", tr_c_string(ev.cgroup, strlen(ev.cgroup)));
		if (ev.group) {
			tr_line(g, "		.group = %s,", tr_c_string(ev.group, strlen(ev.group)));
			tr_line(g, "		.leader = %d,", group_leader(s, &ev));
		}
		tr_line(g, "	},");
	}
	if (n) {
		tr_line(g, "};");
		tr_line(g, "%s", "");
	}
	perf_group_members(g, s);
	return n;
}

/* ---- ras probes (runtime/probes/ras.c) ---------------------------------------------------- */

/* The index in hwtap_ras of the ras probe P. */
static int ras_index(Session *s, Probe *p)
{
	int n = 0;
	for (int i = 0; i < s->probes.len; i++) {
		if (s->probes.data[i] == p)
			return n;
		n += ptab_is_ras(s->probes.data[i]);
	}
	unreachable();
}

/* The longs of SHAPE's record (bit K: r.v[K]) that are pointers the tracepoint passed:
 * "ptr:" fields, and the kernel.trace spellings' pointer arguments. */
static unsigned ras_pointer_longs(const PointShape *shape)
{
	const RasSource *src = ras_source(shape);
	const char *vars = shape->context_vars;
	bool trace = !strncmp(shape->pattern, "kernel.trace(", 13);
	unsigned mask = 0;
	int longs = 0, k = 0;
	for (const char *v = vars; *v; v += strcspn(v, " "), v += *v == ' ', k++) {
		if (!strncmp(v + strcspn(v, ":"), ":string", 7))
			continue;
		const char *e = src->fields[k];
		if (!strncmp(e, "ptr:", 4) || (trace && trace_arg_is_pointer(shape, e)))
			mask |= 1u << longs;
		longs++;
	}
	return mask;
}

/* Probe index's tracepoint callback, which copies the event's fields into a record
 * (guarded by the kernel option that gives the tracepoint), and its handler. */
void ptab_ras_callbacks(Gen *g, Probe *p, int index)
{
	const RasSource *src = ras_source(p->shape);
	const char *vars = p->shape->context_vars;
	int longs = 0, strings = 0, k = 0;
	tr_line(g, "#if IS_ENABLED(%s)", src->config);
	tr_line(g, "static void ras_%d_tp(void *data, %s)", index, src->params);
	tr_line(g, "{");
	tr_line(g, "	struct hwtap_ras_record r;");
	if (src->filter) {
		tr_line(g, "	if (!(%s))", src->filter);
		tr_line(g, "		return;");
	}
	if (src->prologue)
		tr_line(g, "	%s", src->prologue);
	for (const char *v = vars; *v; v += strcspn(v, " "), v += *v == ' ', k++) {
		const char *e = src->fields[k];
		if (!strncmp(e, "ptr:", 4))
			tr_line(g, "	r.v[%d] = (int64_t)(uintptr_t)(%s);", longs++, e + 4);
		else if (strncmp(v + strcspn(v, ":"), ":string", 7))
			tr_line(g, "	r.v[%d] = (int64_t)(%s);", longs++, e);
		else if (!strncmp(e, "guid:", 5))
			tr_line(g, "	snprintf(r.s[%d], MAXSTRINGLEN, \"%%pUl\", %s);", strings++,
				e + 5);
		else if (!strncmp(e, "rwbs:", 5))
			tr_line(g, "	blk_fill_rwbs(r.s[%d], %s);", strings++, e + 5);
		else if (!strncmp(e, "tlp:", 4)) {
			/* the TLP header log: four words first in 6.1's aer_header_log_regs
			 * and 6.12's pcie_tlp_log alike, as the kernel's event records them */
			tr_line(g, "	r.s[%d][0] = '\\0';", strings);
			tr_line(g, "	if (tlp_header_valid && %s)", e + 4);
			tr_line(g, "		snprintf(r.s[%d], MAXSTRINGLEN, \"%%08x %%08x %%08x "
				"%%08x\", ((const u32 *)%s)[0], ((const u32 *)%s)[1], "
				"((const u32 *)%s)[2], ((const u32 *)%s)[3]);", strings, e + 4,
				e + 4, e + 4, e + 4);
			strings++;
		} else if (!strncmp(e, "array:", 6))
			tr_line(g, "	strscpy(r.s[%d], %s, MAXSTRINGLEN);", strings++, e + 6);
		else
			tr_line(g, "	strscpy(r.s[%d], %s ? %s : \"\", MAXSTRINGLEN);", strings++, e,
				e);
	}
	tr_line(g, "	_hwtap_ras_deliver(data, &r);");
	tr_line(g, "}");
	tr_line(g, "#endif");
	tr_line(g, "%s", "");
	tr_line(g, "static void ras_%d_run(const struct hwtap_ras_record *r)", index);
	tr_line(g, "{");
	tr_line(g, "	probe_%d(NULL, r);", index);
	tr_line(g, "}");
	tr_line(g, "%s", "");
}

/* The runtime's table of the ras probes; how many there are. */
int ptab_ras_table(Gen *g, Session *s)
{
	int n = ptab_count(s, ptab_is_ras);
	if (!n)
		return 0;
	tr_line(g, "static struct hwtap_ras hwtap_ras[%d] = {", n);
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (!ptab_is_ras(p))
			continue;
		const RasSource *src = ras_source(p->shape);
		tr_line(g, "	{");
		choice_fields(g, s, p, ras_index, false);
		tr_line(g, "		.tracepoint = \"%s\", .config = \"%s\",", src->tracepoint,
			src->config);
		tr_line(g, "#if IS_ENABLED(%s)", src->config);
		tr_line(g, "		.callback = ras_%d_tp,", i);
		tr_line(g, "#endif");
		tr_line(g, "		.handler = ras_%d_run,", i);
		unsigned pointers = ras_pointer_longs(p->shape);
		if (pointers)
			tr_line(g, "		.pointers = %#x,", pointers);
		tr_line(g, "	},");
	}
	tr_line(g, "};");
	tr_line(g, "%s", "");
	return n;
}

void ptab_run_in_order(Gen *g, Session *s, const char *family)
{
	Vec list = {0};
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (strcmp(ptab_family(p), family))
			continue;
		Ordered *o = xalloc(sizeof(*o));
		o->p = p;
		o->index = i;
		Component *c0 = comp(p, 0);
		/* init: before every begin probe (SystemTap runs it as the module starts) */
		o->priority = !strcmp(c0->name, "init") ? INT64_MIN :
			      c0->arg ? (int64_t)c0->arg->num : 0;
		vec_push(&list, o);
	}
	Ordered *arr = xalloc(sizeof(Ordered) * (list.len + 1));
	for (int i = 0; i < list.len; i++)
		arr[i] = *(Ordered *)list.data[i];
	qsort(arr, list.len, sizeof(Ordered), by_priority);
	for (int i = 0; i < list.len; i++)
		tr_line(g, "\tprobe_%d(NULL);", arr[i].index);
}
/* ---- kprobe probes (runtime/probes/kprobes.c) ------------------------------------------------ */

static int kprobe_index(Session *s, Probe *p)
{
	int n = 0;
	for (int i = 0; i < s->probes.len && s->probes.data[i] != p; i++)
		n += in_kprobe_table(s->probes.data[i]);
	return n;
}

int ptab_kprobe_count(Session *s)
{
	return ptab_count(s, in_kprobe_table);
}

/* "#define HWTAP_KBIAS_LINK 0x..." when a probe's point or variables come from the kernel's
 * DWARF (runtime/probes/kprobes.c's _hwtap_kbias), else "". */
char *ptab_kbias_define(Session *s)
{
	for (int i = 0; i < s->probes.len; i++) {
		USite *site = process_site(s->probes.data[i]);
		uint64_t link;
		if (site && uprog_is_kernel(site->prog) && kdwarf_bias_link(site->prog, &link))
			return xformat("#define HWTAP_KBIAS_LINK 0x%llxUL", (unsigned long long)link);
	}
	return "";
}

static char *kentry_size(Probe *ret);

static int probe_number(Session *s, Probe *p)
{
	for (int i = 0; i < s->probes.len; i++)
		if (s->probes.data[i] == p)
			return i;
	unreachable();
}

/* hwtap_kprobes[]: each kprobe probe's symbol, kind and handler; how many entries. */
int ptab_kprobe_table(Gen *g, Session *s)
{
	int n = ptab_kprobe_count(s);
	if (!n)
		return 0;
	tr_line(g, "static struct hwtap_kprobe hwtap_kprobes[%d] = {", n);
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (!in_kprobe_table(p))
			continue;
		bool ret;
		const char *sym = kprobe_symbol(p, &ret);
		tr_line(g, "	{");
		/* one function of a kernel.function glob the kernel refuses to probe (its
		 * blacklist) is skipped with a warning, as SystemTap leaves such ones out */
		ProbePoint *up = p->user_point;
		Component *fc = kfunc_family(p->family) && up->comps.len > 1 &&
				!strcmp(((Component *)up->comps.data[1])->name, "function") ?
				up->comps.data[1] : NULL;
		choice_fields(g, s, p, kprobe_index, fc && fc->arg && strpbrk(fc->arg->str, "*?["));
		const char *mod = kprobe_module(p);
		if (mod)                /* placed when the module loads (runtime/probes/kprobes.c) */
			tr_line(g, "		.module = %s,", tr_c_string(mod, strlen(mod)));
		if (kprobe_address(p))  /* the kernel's DWARF: by address, KASLR's shift added */
			tr_line(g, "		.addr = 0x%llxUL,", (unsigned long long)kprobe_address(p));
		if (p->entry_probe)     /* @entry: kept in the kretprobe's instances */
			tr_line(g, "		.symbol = %s, .ret = true, .fire_data = probe_%d, "
				".entry = probe_%d, .data_size = %s,", tr_c_string(sym, strlen(sym)),
				i, probe_number(s, p->entry_probe), kentry_size(p));
		else
			tr_line(g, "		.symbol = %s, .ret = %s, .fire = probe_%d,",
				tr_c_string(sym, strlen(sym)), ret ? "true" : "false", i);
		tr_line(g, "	},");
	}
	tr_line(g, "};");
	tr_line(g, "%s", "");
	return n;
}

/* ---- kernel.trace probes on any tracepoint (runtime/probes/tracepoints.c) ------------------- */

static int tracepoint_index(Session *s, Probe *p)
{
	int n = 0;
	for (int i = 0; i < s->probes.len && s->probes.data[i] != p; i++)
		n += ptab_is_tracepoint(s->probes.data[i]);
	return n;
}

/* tp_INDEX: the tracepoint's callback, its arguments as unsigned longs (pass 2 refused a
 * structure by value), handed on as u64s to probe_INDEX. */
void ptab_tracepoint_callback(Gen *g, Probe *p, int index)
{
	int n = tracepoint_nargs(g->s, p);
	StrBuf params = {0}, args = {0};
	sb_putn(&params, "", 0);
	sb_putn(&args, "", 0);
	for (int i = 0; i < n; i++) {
		sb_printf(&params, ", unsigned long a%d", i);
		sb_printf(&args, "%sa%d", i ? ", " : "", i);
	}
	tr_line(g, "static void tp_%d(void *data%s)", index, params.buf);
	tr_line(g, "{");
	tr_line(g, "	const u64 args[%d] = { %s };", n ? n : 1, n ? args.buf : "0");
	tr_line(g, "#ifndef HWTAP_TRACEPOINTS_FLOOR   /* bench/tracepoints.sh: the callback alone */");
	tr_line(g, "	probe_%d(NULL, args);", index);
	tr_line(g, "#endif");
	tr_line(g, "}");
	tr_line(g, "%s", "");
}

/* hwtap_tracepoints[]: each kernel.trace probe's tracepoint and callback; how many. */
int ptab_tracepoint_table(Gen *g, Session *s)
{
	int n = ptab_count(s, ptab_is_tracepoint);
	if (!n)
		return 0;
	tr_line(g, "static struct hwtap_tracepoint hwtap_tracepoints[%d] = {", n);
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (!ptab_is_tracepoint(p))
			continue;
		const char *name = tracepoint_name(p, NULL);
		Component *c = ((ProbePoint *)p->user_point)->comps.len > 1 ?
			       ((ProbePoint *)p->user_point)->comps.data[1] : NULL;
		tr_line(g, "	{");
		/* one of a pattern's tracepoints this kernel lacks is skipped with a warning */
		choice_fields(g, s, p, tracepoint_index, c && c->arg && c->arg->kind == N_STR &&
			      strpbrk(c->arg->str, "*?"));
		tr_line(g, "		.name = %s, .callback = tp_%d,", tr_c_string(name, strlen(name)), i);
		const char *module = tracepoint_module(s, p);
		if (module)     /* watched while the module is loaded */
			tr_line(g, "		.module = %s,", tr_c_string(module, strlen(module)));
		tr_line(g, "	},");
	}
	tr_line(g, "};");
	tr_line(g, "%s", "");
	return n;
}

/* ---- process probes: uprobes (runtime/probes/uprobes.c) -------------------------------------- */

/* hwtap_uprobes[]: each process probe's file, offset and handler; how many entries. */
int ptab_process_table(Gen *g, Session *s)
{
	int n = ptab_count(s, ptab_is_process);
	if (!n)
		return 0;
	tr_line(g, "static struct hwtap_uprobe hwtap_uprobes[%d] = {", n);
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (!ptab_is_process(p))
			continue;
		USite *site = process_site(p);
		const char *path = uprog_path(site->prog);
		char *pp = probe_point_string(p->points.data[0]);
		tr_line(g, "\t{ .path = %s, .offset = 0x%llx, .vaddr = 0x%llxUL, .ret = %s,",
			tr_c_string(path, strlen(path)), (unsigned long long)site->offset,
			(unsigned long long)site->pc, site->ret ? "true" : "false");
		tr_line(g, "\t  .fire = probe_%d, .pp = %s },", i, tr_c_string(pp, strlen(pp)));
	}
	tr_line(g, "};");
	tr_line(g, "%s", "");
	return n;
}

/* $$parms, $$locals, $$vars, $$return: sprintf("a=%#x b=%#x", $a, $b). */
static void process_var_list_c(Gen *g, StrBuf *sb, Node *n)
{
	char *format;
	Vec args = {0};
	if (!(process_site(g->probe) ? process_var_list(g->probe, n, &format, &args) :
	      kernel_var_list(g->s, g->probe, n, &format, &args)))
		unreachable();
	Node call = {.kind = N_CALL, .tok = n->tok, .name = "sprintf", .type = TY_STRING};
	Node fmt = {.kind = N_STR, .tok = n->tok, .type = TY_STRING, .str = format,
		    .str_len = strlen(format)};
	vec_push(&call.args, &fmt);
	for (int i = 0; i < args.len; i++)
		vec_push(&call.args, args.data[i]);
	tr_print(g, sb, &call, find_builtin("sprintf"));
}

/* A process, kernel.function or kernel.trace probe's $var... or &$var...: the C dwarf.c
 * or btf.c made in pass 2, its index expressions filled in; a read fault leaves the
 * handler with SystemTap's error. */
void ptab_process_target(Gen *g, StrBuf *sb, Node *n)
{
	if (n->kind == N_TARGET && !strncmp(n->name, "$$", 2)) {
		const char *system, *name = ptab_is_tracepoint(g->probe) ?
					    tracepoint_name(g->probe, &system) : NULL;
		if (name && !strcmp(n->name, "$$name"))
			sb_puts(sb, tr_c_string(name, strlen(name)));
		else if (name && !strcmp(n->name, "$$system"))
			sb_puts(sb, tr_c_string(system, strlen(system)));
		else
			process_var_list_c(g, sb, n);
		return;
	}
	UTarget *t = n->plan;
	StrBuf c = {0};
	sb_putn(&c, "", 0);
	for (const char *p = t->c; *p; p++) {
		if (*p != '\001') {
			sb_putc(&c, *p);
			continue;
		}
		tr_expr(g, &c, t->indexes.data[atoi(p + 1)]);
		p = strchr(p, '\002');
	}
	sb_printf(sb, "({ int64_t __u = %s; if (unlikely(c->base.last_error)) %s __u; })",
		  c.buf, tr_fail_at(n->tok));
}

/* ---- process begin and end probes: runtime/probes/tasks.c --------------------------------------- */

/* The index of what P follows among TARGETS (paths; "" for every process), added to them
 * if new. */
static int task_target(Probe *p, Vec *targets)
{
	const char *path;
	task_probe_kind(p, &path);
	const char *key = path ? path : "";
	for (int i = 0; i < targets->len; i++)
		if (!strcmp(targets->data[i], key))
			return i;
	vec_push(targets, (void *)key);
	return targets->len - 1;
}

/* hwtap_task_targets[] (what the probes follow) and hwtap_task_probes[]; the number of
 * probes, and of targets in *NT. */
int ptab_task_tables(Gen *g, Session *s, int *nt)
{
	Vec targets = {0};
	StrBuf probes = {0};
	int n = 0;
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (!ptab_is_task(p))
			continue;
		const char *path;
		const char *kind = task_probe_kind(p, &path);
		sb_printf(&probes, "\t{ .target = %d, .kind = %s, .fire = probe_%d },\n",
			  task_target(p, &targets), kind, i);
		n++;
	}
	*nt = targets.len;
	if (!n)
		return 0;
	if (targets.len > 64) {
		error_at(((Probe *)s->probes.data[0])->tok, "process begin and end probes follow "
			 "%d programs: hwtap follows at most 64 in a script", targets.len);
		return 0;
	}
	tr_line(g, "static struct hwtap_task_target hwtap_task_targets[%d] = {", targets.len);
	for (int i = 0; i < targets.len; i++) {
		const char *path = targets.data[i];
		tr_line(g, "\t{ .path = %s },", *path ? tr_c_string(path, strlen(path)) : "NULL");
	}
	tr_line(g, "};");
	tr_line(g, "static struct hwtap_task_probe hwtap_task_probes[%d] = {", n);
	tr_line(g, "%s};", probes.buf);
	tr_line(g, "%s", "");
	return n;
}

/* ---- @entry: a .return probe's companion keeps values for it (runtime/probes/uprobes.c) -------- */

/* The number runtime/probes/uprobes.c keeps P's @entry values under (P a .return probe with
 * @entry, or its companion). */
static int uentries_index(Session *s, Probe *p)
{
	Probe *ret = p->entry_for ? p->entry_for : p;
	int n = 0;
	for (int i = 0; i < s->probes.len; i++) {
		Probe *q = s->probes.data[i];
		if (q == ret)
			return n;
		n += ptab_is_process(q) && q->entry_probe != NULL;
	}
	unreachable();
}

int ptab_uentries_count(Session *s)
{
	int n = 0;
	for (int i = 0; i < s->probes.len; i++)
		n += ptab_is_process(s->probes.data[i]) &&
		     ((Probe *)s->probes.data[i])->entry_probe != NULL;
	return n;
}

static bool entry_is_string(Node *e)
{
	return e->lhs->type == TY_STRING;
}

/* Where .return probe RET keeps its @entry node N: its place among RET's numbers, or
 * among its strings; with N NULL, how many of each kind (STRINGS) there are. */
static int entry_slot(Probe *ret, Node *n, bool strings)
{
	int k = 0;
	for (int i = 0; i < ret->entries.len; i++) {
		Node *e = ret->entries.data[i];
		if (e == n)
			return k;
		k += entry_is_string(e) == strings;
	}
	return k;
}

/* The most @entry strings a .return probe keeps: runtime/probes/uprobes.c's HWTAP_UENTRY_STRS. */
int ptab_uentry_strings(Session *s)
{
	int most = 0;
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		int n = p->entry_probe ? entry_slot(p, NULL, true) : 0;
		most = n > most ? n : most;     /* at most HWTAP_UENTRY_STRS_MAX: pass 2 */
	}
	return most;
}

/* @entry(expr): in the companion, computing it into the context; in the .return probe,
 * what the companion kept for this call. A string is copied, into a buffer of its own. */
void ptab_process_entry(Gen *g, StrBuf *sb, Node *n)
{
	Probe *ret = g->probe->entry_for ? g->probe->entry_for : g->probe;
	bool str = entry_is_string(n);
	int k = entry_slot(ret, n, str);
	const char *slot = xformat(str ? "c->base.uentry_str[%d]" : "c->base.uentry[%d]", k);
	if (!g->probe->entry_for) {
		sb_puts(sb, slot);
		return;
	}
	StrBuf v = {0};
	tr_expr(g, &v, n->lhs);
	if (str)
		sb_printf(sb, "({ strscpy(%s, (%s), MAXSTRINGLEN); (const char *)%s; })", slot,
			  v.buf, slot);
	else
		sb_printf(sb, "(%s = (%s))", slot, v.buf);
}

/* The .return probe P's @entry values: "c->base.uentry, N" and its strings'. */
static char *entry_args(Probe *p)
{
	int strs = entry_slot(p, NULL, true);
	return xformat("c->base.uentry, %d, %s, %d", entry_slot(p, NULL, false),
		       strs ? "c->base.uentry_str" : "NULL", strs);
}

/* A kernel .return probe's kretprobe instance data: a word set once the values are kept,
 * the numbers, the strings (runtime/probes/kprobes.c). */
static char *kentry_size(Probe *ret)
{
	return xformat("%d * sizeof(int64_t) + %d * MAXSTRINGLEN", 1 + entry_slot(ret, NULL, false),
		       entry_slot(ret, NULL, true));
}

/* Between the context and the instance data KDATA: "to" the instance (in the companion,
 * which marks it kept) or from it (in the .return probe: zeros if the companion did not
 * run for this call, a missed hit or a failed expression). */
static void kentry_copy(Gen *g, Probe *ret, bool to)
{
	int nums = entry_slot(ret, NULL, false), strs = entry_slot(ret, NULL, true);
	tr_line(g, "{");
	tr_line(g, "\tint64_t *kd = kdata;");
	if (!to)
		tr_line(g, "\tbool kept = kd[0];");
	for (int i = 0; i < nums; i++)
		tr_line(g, to ? "\tkd[%d] = c->base.uentry[%d];" :
			"\tc->base.uentry[%2$d] = kept ? kd[%1$d] : 0;", 1 + i, i);
	for (int i = 0; i < strs; i++) {
		char *at = xformat("(char *)(kd + %d) + %d * MAXSTRINGLEN", 1 + nums, i);
		if (to)
			tr_line(g, "\tstrscpy(%s, c->base.uentry_str[%d], MAXSTRINGLEN);", at, i);
		else
			tr_line(g, "\tstrscpy(c->base.uentry_str[%d], kept ? %s : \"\", MAXSTRINGLEN);",
				i, at);
	}
	if (to)
		tr_line(g, "\tkd[0] = 1;");
	tr_line(g, "}");
}

void ptab_process_prologue(Gen *g, Probe *p)
{
	if (!p->entry_probe)
		return;
	if (kentry_family(p->family)) {
		kentry_copy(g, p, false);
		return;
	}
	/* after a return, the stack pointer is the frame's CFA, the key it was kept under */
	tr_line(g, "_hwtap_uentry_pop(%d, user_stack_pointer(regs), %s);",
		uentries_index(g->s, p), entry_args(p));
}

void ptab_process_epilogue(Gen *g, Probe *p)
{
	if (!p->entry_for)
		return;
	if (kentry_family(p->family)) {
		kentry_copy(g, p->entry_for, true);
		return;
	}
	USite *site = process_site(p);
	const char *why = NULL;
	char *cfa = dwarf_cfa(site->prog, site->func, site->pc, &why);
	if (!cfa) {
		error_at(p->entry_for->tok, "@entry in '%s': %s", probe_point_string(
			 p->entry_for->points.data[0]), why ? why : "no frame address");
		return;
	}
	tr_line(g, "_hwtap_uentry_push(%d, %s, %s);", uentries_index(g->s, p), cfa,
		entry_args(p->entry_for));
}
