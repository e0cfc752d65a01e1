/* probes.c - the table of probe-point families, and what all of them share: matching a
 * point against a family's shapes ("timer.ms(number)"), listing points for -l/-L with
 * SystemTap's wildcards, and the closest known spelling for a hint.
 *
 * A family lives in its own file (probe_begin.c, probe_timer.c, probe_perf.c,
 * probe_ras.c, probe_process.c, probe_task.c, probe_kprobe.c) and fills one ProbeFamily;
 * adding a family touches that file and the table below. Two families may share a first
 * component (process: functions and statements, and the lives of processes), not a shape.
 */
#include "hwtap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern const ProbeFamily begin_family, end_family, error_family, never_family, init_family;
extern const ProbeFamily timer_family, perf_family, ras_family, trace_family;

const ProbeFamily *const probe_families[] = {
	&begin_family, &end_family, &error_family, &never_family, &init_family,
	&timer_family, &perf_family, &ras_family, &trace_family, &tracepoint_family,
	&process_family,
	&process_task_family, &kprobe_family, &kernel_family, &module_family, NULL,
};

/* ---- shapes ----------------------------------------------------------------------------- */

typedef struct {
	char name[64];
	ArgShape arg;
} ShapeComp;

enum { MAX_COMPS = 16 };

/* "timer.ms(number).randomize(number)" to its components; returns their number. */
static int shape_comps(const char *pattern, ShapeComp *out)
{
	int n = 0;
	const char *p = pattern;
	while (*p && n < MAX_COMPS) {
		size_t len = strcspn(p, ".(");
		if (len >= sizeof(out[n].name))
			len = sizeof(out[n].name) - 1;
		memcpy(out[n].name, p, len);
		out[n].name[len] = '\0';
		out[n].arg = ARG_NONE;
		p += strcspn(p, ".(");
		if (*p == '(') {
			out[n].arg = !strncmp(p, "(number)", 8) ? ARG_NUMBER : ARG_STRING;
			p = strchr(p, ')') + 1;
		}
		if (*p == '.')
			p++;
		n++;
	}
	return n;
}

static bool arg_fits(Component *c, ArgShape want)
{
	switch (want) {
	case ARG_NONE: return !c->has_parens;
	case ARG_NUMBER: return c->arg && c->arg->kind == N_NUM;
	case ARG_STRING: return c->arg && c->arg->kind == N_STR;
	case ARG_OPT_NUMBER: return !c->has_parens || (c->arg && c->arg->kind == N_NUM);
	case ARG_OPT_STRING: return !c->has_parens || (c->arg && c->arg->kind == N_STR);
	}
	return false;
}

const PointShape *shape_match(const ProbeFamily *f, ProbePoint *pp)
{
	for (const PointShape *sh = f->shapes; sh && sh->pattern; sh++) {
		ShapeComp sc[MAX_COMPS];
		int n = shape_comps(sh->pattern, sc);
		if (n != pp->comps.len)
			continue;
		int i;
		for (i = 0; i < n; i++) {
			Component *c = pp->comps.data[i];
			if (strcmp(c->name, sc[i].name) || !arg_fits(c, sc[i].arg))
				break;
		}
		if (i == n)
			return sh;
	}
	return NULL;
}

int64_t point_number(ProbePoint *pp, int i)
{
	return (int64_t)((Component *)pp->comps.data[i])->arg->num;
}

const ProbeFamily *find_family(ProbePoint *pp, Session *s, const PointShape **shape)
{
	const char *first = ((Component *)pp->comps.data[0])->name;
	for (int i = 0; probe_families[i]; i++) {
		const ProbeFamily *f = probe_families[i];
		if (strcmp(f->name, first))
			continue;
		/* the next family of that name may have it (process: probe_process.c's and
		 * probe_task.c's) */
		*shape = f->match ? f->match(f, pp, s) : shape_match(f, pp);
		if (*shape)
			return f;
	}
	return NULL;
}

/* ---- context variables ------------------------------------------------------------------ */

char *target_key(Node *n)
{
	size_t len = strcspn(n->name + 1, "$");
	TargetComp *tc = n->comps.len ? n->comps.data[0] : NULL;
	if (tc && tc->kind == TC_FIELD)
		return xformat("%.*s->%s", (int)len, n->name + 1, tc->field);
	return xstrndup(n->name + 1, len);
}

const char *context_var_find(const char *vars, const char *key, int *slot)
{
	size_t len = strlen(key);
	int longs = 0, strings = 0;
	for (const char *v = vars; v && *v; v += strcspn(v, " "), v += *v == ' ') {
		const char *type = v + strcspn(v, ":") + 1;
		bool is_string = !strncmp(type, "string", 6);
		if (!strncmp(v, key, len) && v[len] == ':') {
			if (slot)
				*slot = is_string ? strings : longs;
			return type;
		}
		strings += is_string;
		longs += !is_string;
	}
	return NULL;
}

/* ---- SystemTap's wildcards: '*' within a component, '**' across components ------------ */

/* Splits "a.b(\"x.y\").c" at the dots outside parentheses and quotes. */
static int split_components(const char *s, char **out, int max)
{
	int n = 0, depth = 0;
	bool quoted = false;
	const char *start = s;
	for (const char *p = s;; p++) {
		if (*p == '"' && (p == s || p[-1] != '\\'))
			quoted = !quoted;
		else if (!quoted && *p == '(')
			depth++;
		else if (!quoted && *p == ')')
			depth--;
		if (*p == '\0' || (*p == '.' && !quoted && depth == 0)) {
			if (n < max)
				out[n++] = xstrndup(start, p - start);
			if (!*p)
				break;
			start = p + 1;
		}
	}
	return n;
}

static bool is_number_literal(const char *s)
{
	char *end;
	if (*s == '-')
		s++;
	strtoull(s, &end, 0);
	return end != s && *end == '\0';
}

/* A pattern component without an argument matches a component with any argument; with a
 * concrete one, "ms(10)" matches the shape "ms(number)", "events(\"x\")" "(string)". */
static bool component_matches(const char *pat, const char *comp)
{
	const char *paren = strchr(pat, '(');
	char *pname = xstrndup(pat, paren ? (size_t)(paren - pat) : strlen(pat));
	char *name = xstrndup(comp, strcspn(comp, "("));
	if (!glob_match(pname, name))
		return false;
	if (!paren)
		return true;
	const char *shape_arg = comp + strlen(name);
	char *arg = xstrndup(paren + 1, strlen(paren + 1) - 1);
	if (!strcmp(shape_arg, "(number)") && is_number_literal(arg))
		return true;
	if (!strcmp(shape_arg, "(string)") && arg[0] == '"')
		return true;
	return glob_match(paren, shape_arg);
}

static bool components_match(char **pat, int np, char **comp, int nc)
{
	if (np == 0)
		return nc == 0;
	if (!strcmp(pat[0], "**")) {
		for (int k = 1; k <= nc; k++)       /* one or more components */
			if (components_match(pat + 1, np - 1, comp + k, nc - k))
				return true;
		return false;
	}
	return nc > 0 && component_matches(pat[0], comp[0]) &&
	       components_match(pat + 1, np - 1, comp + 1, nc - 1);
}

/* The shape with the pattern's concrete arguments put in: "timer.ms(10)". */
static char *instantiate(const char *pattern, const char *shape)
{
	char *pat[MAX_COMPS * 2], *comp[MAX_COMPS * 2];
	int np = split_components(pattern, pat, MAX_COMPS * 2);
	int nc = split_components(shape, comp, MAX_COMPS * 2);
	if (np != nc)
		return xstrdup(shape);
	StrBuf sb = {0};
	for (int i = 0; i < nc; i++) {
		bool concrete = strchr(pat[i], '(') && !strchr(strchr(pat[i], '('), '*');
		const char *use = concrete && strchr(comp[i], '(') ? pat[i] : comp[i];
		if (concrete && strchr(comp[i], '('))
			use = xformat("%.*s%s", (int)strcspn(comp[i], "("), comp[i], strchr(pat[i], '('));
		sb_printf(&sb, "%s%s", i ? "." : "", use);
	}
	return sb.buf;
}

/* NULL if `pattern` is a well-formed probe point pattern, else what is wrong with it. */
const char *point_pattern_error(const char *pattern)
{
	if (!*pattern)
		return "it is empty";
	int depth = 0;
	bool quoted = false;
	for (const char *p = pattern; *p; p++) {
		if (*p == '"' && (p == pattern || p[-1] != '\\'))
			quoted = !quoted;
		else if (!quoted && *p == '(' && depth++)
			return "parentheses nest";
		else if (!quoted && *p == ')' && --depth < 0)
			return "a ')' has no '('";
	}
	if (quoted)
		return "a string is not closed";
	if (depth)
		return "a '(' is not closed";
	char *comp[MAX_COMPS * 2];
	int n = split_components(pattern, comp, MAX_COMPS * 2);
	for (int i = 0; i < n; i++)
		if (!*comp[i] || comp[i][0] == '(')
			return "a component has no name";
	return NULL;
}

bool point_pattern_matches(const char *pattern, const char *point)
{
	char *pat[MAX_COMPS * 2], *comp[MAX_COMPS * 2];
	int np = split_components(pattern, pat, MAX_COMPS * 2);
	int nc = split_components(point, comp, MAX_COMPS * 2);
	return components_match(pat, np, comp, nc);
}

/* ---- listing ---------------------------------------------------------------------------- */

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *with_context_vars(const char *point, const char *vars, bool with_vars)
{
	if (!with_vars || !vars || !*vars)
		return xstrdup(point);
	StrBuf sb = {0};
	sb_puts(&sb, point);
	char *copy = xstrdup(vars);
	for (char *v = strtok(copy, " "); v; v = strtok(NULL, " "))
		if (!strstr(v, "->"))        /* members ($m->status) go with their pointer */
			sb_printf(&sb, " $%s", v);
	return sb.buf;
}

/* Pushes WORD onto words once, counting each push in counts (parallel to words). */
static void count_word(Vec *words, Vec *counts, char *word)
{
	for (int i = 0; i < words->len; i++)
		if (!strcmp(words->data[i], word)) {
			counts->data[i] = (void *)((intptr_t)counts->data[i] + 1);
			return;
		}
	vec_push(words, word);
	vec_push(counts, (void *)(intptr_t)1);
}

/* " loc:type ... $var:type ..." of the probes pass 2 derived from the user's probe USER,
 * as stap's -L prints an alias: every derived probe's locals, then its context
 * variables, each only if all of them have it, in the order first met. */
static char *derived_vars(Session *s, Probe *user)
{
	Vec locals = {0}, local_counts = {0}, vars = {0}, var_counts = {0};
	intptr_t n = 0;
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (p->origin != user)
			continue;
		n++;
		for (int j = 0; j < p->locals.len; j++) {
			Symbol *sym = p->locals.data[j];
			count_word(&locals, &local_counts,
				   xformat("%s:%s", sym->name, type_name(sym->type)));
		}
		/* its context variables as -L lists its point: " $name:type" each, where a
		 * C type may hold spaces */
		char *point = probe_point_string(p->points.data[0]);
		Vec lines = {0};
		list_family_points(point, true, s, &lines);
		size_t len = strlen(point);
		for (int j = 0; j < lines.len; j++) {
			const char *line = lines.data[j];
			if (strncmp(line, point, len) || strncmp(line + len, " $", 2))
				continue;
			for (const char *v = line + len + 1; v;) {
				const char *next = strstr(v + 1, " $");
				count_word(&vars, &var_counts,
					   next ? xstrndup(v, next - v) : xstrdup(v));
				v = next ? next + 1 : NULL;
			}
			break;
		}
	}
	StrBuf sb = {0};
	sb_puts(&sb, "");
	for (int i = 0; i < locals.len; i++)
		if ((intptr_t)local_counts.data[i] == n)
			sb_printf(&sb, " %s", (char *)locals.data[i]);
	for (int i = 0; i < vars.len; i++)
		if ((intptr_t)var_counts.data[i] == n)
			sb_printf(&sb, " %s", (char *)vars.data[i]);
	return sb.buf;
}

/* The variables -L lists for each of the aliases NAMES (derived_vars()), a line each:
 * they are elaborated as `probe NAME ? {}` each, in a child process, as pass 2 would
 * (which changes the session, and whose errors stay unsaid); NULL when that fails. */
static Vec *aliases_vars(Session *s, Vec *names)
{
	const char *why;
	kbtf(s, &why);          /* loaded once, here: each child has it */
	int fd[2];
	if (pipe(fd))
		return NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (pid == 0) {
		close(fd[0]);
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(1);
		StrBuf text = {0};
		sb_puts(&text, "");
		for (int i = 0; i < names->len; i++)
			sb_printf(&text, "probe %s ? {}\n", (char *)names->data[i]);
		diag_reset();
		s->user = parse_script(new_srcfile("<-L>", text.buf, text.len), s);
		if (!s->user || diag_errors || s->user->probes.len != names->len || elaborate(s))
			_exit(1);
		StrBuf out = {0};
		sb_puts(&out, "");
		for (int i = 0; i < names->len; i++)
			sb_printf(&out, "%s\n", derived_vars(s, s->user->probes.data[i]));
		for (size_t done = 0; done < out.len;) {
			ssize_t w = write(fd[1], out.buf + done, out.len - done);
			if (w <= 0)
				_exit(1);
			done += w;
		}
		_exit(0);
	}
	close(fd[1]);
	StrBuf sb = {0};
	sb_puts(&sb, "");
	char buf[4096];
	ssize_t r;
	while ((r = read(fd[0], buf, sizeof(buf))) > 0)
		sb_putn(&sb, buf, r);
	close(fd[0]);
	int status;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return NULL;
	Vec *lines = xalloc(sizeof(*lines));
	for (char *line = sb.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1)
		vec_push(lines, xstrndup(line, nl - line));
	return lines->len == names->len ? lines : NULL;
}

static void add_alias_names(Session *s, const char *pattern, bool with_vars, Vec *out)
{
	Vec names = {0};
	for (int k = 0; k < s->tapsets.len; k++) {
		Script *sc = s->tapsets.data[k];
		for (int i = 0; i < sc->aliases.len; i++) {
			Probe *a = sc->aliases.data[i];
			for (int j = 0; j < a->alias_names.len; j++) {
				char *name = probe_point_string(a->alias_names.data[j]);
				if (point_pattern_matches(pattern, name))
					vec_push(&names, name);
			}
		}
	}
	/* the variables: of all at once, or one by one when some alias keeps the whole
	 * from elaborating */
	Vec *vars = with_vars && names.len ? aliases_vars(s, &names) : NULL;
	for (int i = 0; i < names.len; i++) {
		const char *v = "";
		if (vars) {
			v = vars->data[i];
		} else if (with_vars) {
			Vec one = {0};
			vec_push(&one, names.data[i]);
			Vec *got = aliases_vars(s, &one);
			v = got ? got->data[0] : "";
		}
		vec_push(out, xformat("%s%s", (char *)names.data[i], v));
	}
}

void list_family_points(const char *pattern, bool with_vars, Session *s, Vec *out)
{
	Vec all = {0};
	for (int i = 0; probe_families[i]; i++) {
		const ProbeFamily *f = probe_families[i];
		for (const PointShape *sh = f->shapes; sh->pattern; sh++)
			if (!sh->unavailable && !(sh->values_listed && strchr(pattern, '"')) &&
			    point_pattern_matches(pattern, sh->pattern))
				vec_push(&all, with_context_vars(instantiate(pattern, sh->pattern),
								 sh->context_vars, with_vars));
		if (f->list)
			f->list(pattern, with_vars, s, &all);
	}
	add_alias_names(s, pattern, with_vars, &all);
	if (all.len)
		qsort(all.data, all.len, sizeof(void *), by_string);
	for (int i = 0; i < all.len; i++)
		if (!i || strcmp(all.data[i], all.data[i - 1]))
			vec_push(out, all.data[i]);
}

/* ---- SystemTap's families hwtap does not have ---------------------------------------- */

/* What a point of SystemTap's that hwtap lacks probes there, by its first component (or
 * first two): pass 2 says so instead of "unknown probe point". */
static const struct {
	const char *prefix;
	const char *what;
} foreign_families[] = {
	{"syscall", "system calls (kprobes on the kernel's sys_* functions)"},
	{"nd_syscall", "system calls (kprobes on the kernel's sys_* functions)"},
	{"kernel.function", "kernel functions' other forms (.label, .exported, .callee, "
			    "by address; hwtap's are function(\"GLOB\"), its .call, .return and "
			    ".inline)"},
	{"kernel.statement", "kernel addresses (statement(ADDRESS).absolute; hwtap's is "
			     "statement(\"NAME@FILE:LINE\"))"},
	{"kernel.data", "kernel data (hardware watchpoints on kernel symbols)"},
	{"module", "kernel modules' functions and source lines (kprobes placed with their "
		   "debug information)"},
	{"kprobe", "kernel addresses (kprobes; hwtap's kprobe points are function(\"NAME\") "
		   "and module(\"M\").function(\"NAME\"), each with .return)"},
	{"process", "a process by PID, its SDT markers, system calls or PLT entries (hwtap's "
		    "process points are function, statement, begin, end, thread.begin and "
		    "thread.end, of a PATH or of -c's program)"},
	{"procfs", "reads and writes of files under /proc/systemtap/MODULE"},
	{"json_data", "its JSON metrics file /proc/systemtap/MODULE/data.json (procfs)"},
	{"netfilter", "network packets (netfilter hooks)"},
	{"java", "Java methods (Byteman)"},
	{"python2", "Python functions"},
	{"python3", "Python functions"},
};

const char *foreign_point_error(ProbePoint *pp)
{
	const char *point = probe_point_string(pp);
	for (size_t i = 0; i < sizeof(foreign_families) / sizeof(foreign_families[0]); i++) {
		const char *prefix = foreign_families[i].prefix;
		size_t n = strlen(prefix);
		if (!strncmp(point, prefix, n) && strchr(".(", point[n]))
			return xformat("probe point '%s' is SystemTap's, for %s: hwtap has none "
				       "(hwtap -l '**' lists the points it has)", point,
				       foreign_families[i].what);
	}
	return NULL;
}

/* ---- hints ------------------------------------------------------------------------------ */


/* "timer.ms(number)" -> "timer.ms" */
static char *without_args(const char *point)
{
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	int depth = 0;
	for (const char *p = point; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (!depth)
			sb_putc(&sb, *p);
	}
	return sb.buf;
}

static void consider(const char *candidate, const char *wanted, const char **best, int *dist)
{
	int d = edit_distance(wanted, without_args(candidate));
	if (d < *dist) {
		*dist = d;
		*best = candidate;
	}
}

/* The known spelling whose component names are nearest to pp's (families' shapes, then
 * aliases), or NULL if none is close enough to be a plausible typo. */
const char *closest_point(ProbePoint *pp, Session *s, Vec *aliases)
{
	char *wanted = without_args(probe_point_string(pp));
	const char *best = NULL;
	int dist = 1000;
	for (int i = 0; probe_families[i]; i++)
		for (const PointShape *sh = probe_families[i]->shapes; sh->pattern; sh++)
			consider(sh->pattern, wanted, &best, &dist);
	for (int i = 0; i < aliases->len; i++)
		consider(aliases->data[i], wanted, &best, &dist);
	int limit = strlen(wanted) / 6 + 1;
	return dist <= (limit > 3 ? 3 : limit) ? best : NULL;
}
