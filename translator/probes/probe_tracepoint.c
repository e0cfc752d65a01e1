/* probe_tracepoint.c - kernel.trace("SYSTEM:NAME") on any tracepoint of the target kernel
 * (runtime/probes/tracepoints.c), as SystemTap spells it, wildcards in either part:
 *
 *   kernel.trace("sched:sched_switch")    one tracepoint
 *   kernel.trace("sched_switch")          the same: the system may be left out
 *   kernel.trace("sched:*")               each tracepoint of a system
 *   kernel.trace("*")                     every tracepoint
 *
 * What exists comes from the target kernel's BTF, without debug information: each
 * tracepoint has a function __traceiter_NAME(void *__data, ARGS) whose parameters are
 * the tracepoint's arguments, by name and type ($prev, $next->pid: btf.c reads them).
 * BTF does not say which system a tracepoint belongs to; its header does (include/trace/
 * events/sched.h defines TRACE_SYSTEM sched, then TRACE_EVENT(sched_switch, ...)), in the
 * target kernel's headers, which the build needs anyway. A tracepoint no header names
 * (a driver's private header) is still probed by its bare name; its $$system is "".
 *
 * The hardware-error tracepoints that probe_ras.c decodes (mce:mce_record, ras:*_event)
 * stay its own when named alone; a pattern takes them here with their raw arguments.
 */
#include "hwtap.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One probe per tracepoint: kernel.trace("*") places thousands (Debian 12's 6.1: 639 in
 * the core kernel, 3504 in its modules; 6.12: 772 and 4030), each registered at the start
 * or as its module loads; beyond this a pattern is surely a mistake. */
#define TRACE_GLOB_MAX 8000

typedef struct {
	const char *name, *system;
} TpSystem;

struct TpSystems {
	VEC(TpSystem *) all;            /* sorted by name */
};

static int by_tp_name(const void *a, const void *b)
{
	return strcmp((*(TpSystem *const *)a)->name, (*(TpSystem *const *)b)->name);
}

static char *read_text(const char *path)
{
	size_t len;
	return read_whole_file(path, &len);
}

static bool ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* The identifier that is argument ARG (0 or 1) of the macro call whose '(' is at P. */
static char *macro_arg(const char *p, int arg)
{
	p++;
	for (int i = 0; i < arg; i++) {
		p += strcspn(p, ",)");
		if (*p != ',')
			return NULL;
		p++;
	}
	p += strspn(p, " \t\n\\");
	size_t len = 0;
	while (ident_char(p[len]))
		len++;
	return len ? xstrndup(p, len) : NULL;
}

typedef struct {
	const char *macro;
	int arg;                        /* which argument names the tracepoint */
} TpDecl;

/* The length of the identifier at P. */
static size_t ident_len(const char *p)
{
	size_t len = 0;
	while (ident_char(p[len]))
		len++;
	return len;
}

/* The declaration macro (of DECLS) called at P, or NULL. */
static const TpDecl *decl_at(const char *text, const char *p, Vec *decls)
{
	if (!(p[0] >= 'A' && p[0] <= 'Z') || (p > text && ident_char(p[-1])))
		return NULL;
	size_t len = ident_len(p);
	if (p[len] != '(')
		return NULL;
	for (int i = 0; i < decls->len; i++) {
		const TpDecl *d = decls->data[i];
		if (strlen(d->macro) == len && !strncmp(p, d->macro, len))
			return d;
	}
	return NULL;
}

/* "#define W(a, name, ...) ... DEFINE_EVENT(c, name, ...)" at DEF: W as a declaration
 * macro whose argument 1 names the tracepoint, into DECLS. */
static void wrapper(const char *def, Vec *decls, const char *text)
{
	const char *p = def + strlen("#define");
	p += strspn(p, " \t");
	size_t len = ident_len(p);
	if (len && (p[len] == ' ' || p[len] == '\t')) {
		/* "#define DEFINE_EVENT_SCHEDSTAT DEFINE_EVENT": another name for one */
		const char *to = p + len + strspn(p + len, " \t");
		size_t n = ident_len(to);
		for (int i = 0; i < decls->len && (to[n] == '\n' || !to[n]); i++) {
			const TpDecl *d = decls->data[i];
			if (strlen(d->macro) == n && !strncmp(to, d->macro, n)) {
				TpDecl *w = xalloc(sizeof(*w));
				*w = (TpDecl){.macro = xstrndup(p, len), .arg = d->arg};
				vec_push(decls, w);
				return;
			}
		}
	}
	if (!len || p[len] != '(')
		return;
	char *macro = xstrndup(p, len);
	Vec params = {0};
	const char *q = p + len + 1;
	while (*q && *q != ')' && *q != '\n') {
		q += strspn(q, " \t");
		size_t n = ident_len(q);
		if (!n)
			return;
		vec_push(&params, xstrndup(q, n));
		q += n;
		q += strspn(q, " \t");
		if (*q == ',')
			q++;
	}
	/* its body, to the first newline not escaped */
	const char *end = q;
	while (*end && !(*end == '\n' && end[-1] != '\\'))
		end++;
	for (const char *b = q; b < end; b++) {
		const TpDecl *d = decl_at(text, b, decls);
		char *name = d ? macro_arg(b + strlen(d->macro), d->arg) : NULL;
		for (int i = 0; name && i < params.len; i++)
			if (!strcmp(name, params.data[i])) {
				TpDecl *w = xalloc(sizeof(*w));
				*w = (TpDecl){.macro = macro, .arg = i};
				vec_push(decls, w);
				return;
			}
	}
}

/* The tracepoints header TEXT declares, each with its TRACE_SYSTEM, into OUT: by the
 * kernel's macros, and by the header's own macros that call them
 * (DEFINE_EVENT_SCHEDSTAT(template, name) in sched.h). */
static void scan_header(const char *text, Vec *out)
{
	static const TpDecl kernel_decls[] = {
		{"TRACE_EVENT", 0}, {"TRACE_EVENT_FN", 0}, {"TRACE_EVENT_CONDITION", 0},
		{"TRACE_EVENT_FN_COND", 0}, {"DECLARE_TRACE", 0}, {"DECLARE_TRACE_CONDITION", 0},
		{"DEFINE_EVENT", 1}, {"DEFINE_EVENT_FN", 1}, {"DEFINE_EVENT_CONDITION", 1},
		{"DEFINE_EVENT_PRINT", 1},
	};
	const char *sys = strstr(text, "#define TRACE_SYSTEM ");
	if (!sys)
		return;
	char *system = macro_arg(sys + strlen("#define TRACE_SYSTEM") - 1, 0);
	if (!system)
		return;
	Vec decls = {0};
	for (size_t i = 0; i < sizeof(kernel_decls) / sizeof(kernel_decls[0]); i++)
		vec_push(&decls, (void *)&kernel_decls[i]);
	for (const char *d = strstr(text, "#define "); d; d = strstr(d + 1, "#define "))
		wrapper(d, &decls, text);
	for (const char *p = text; *p; p++) {
		const TpDecl *d = decl_at(text, p, &decls);
		if (!d)
			continue;
		/* not inside a macro's definition: "#define X(n) DEFINE_EVENT(c, n" */
		const char *line = p;
		while (line > text && !(line[-1] == '\n' && (line - 1 == text || line[-2] != '\\')))
			line--;
		line += strspn(line, " \t");
		char *name = strncmp(line, "#define", 7) ?
			     macro_arg(p + strlen(d->macro), d->arg) : NULL;
		if (name) {
			TpSystem *t = xalloc(sizeof(*t));
			*t = (TpSystem){.name = name, .system = system};
			vec_push(out, t);
		}
		p += strlen(d->macro) - 1;
	}
}

static void scan_dir(const char *dir, Vec *out)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 3 || strcmp(e->d_name + n - 2, ".h"))
			continue;
		char *text = read_text(xformat("%s/%s", dir, e->d_name));
		if (text)
			scan_header(text, out);
	}
	closedir(d);
}

/* The target kernel's headers: its build tree, or the tree its Makefile includes
 * (Debian's linux-headers-R-ARCH includes linux-headers-R-common). */
static char *headers_root(Session *s)
{
	if (!s->kernel_build)
		return NULL;
	char *mk = read_text(xformat("%s/Makefile", s->kernel_build));
	char *root = (char *)s->kernel_build;
	const char *inc = mk ? strstr(mk, "include /") : NULL;
	if (inc && (!mk || inc == mk || inc[-1] == '\n')) {
		const char *path = inc + strlen("include ");
		size_t len = strcspn(path, "\n");
		if (len > 9 && !strncmp(path + len - 9, "/Makefile", 9))
			root = xstrndup(path, len - 9);
	}
	return root;
}

static struct TpSystems *systems(Session *s)
{
	if (s->tp_systems)
		return s->tp_systems;
	struct TpSystems *t = s->tp_systems = xalloc(sizeof(*t));
	char *root = headers_root(s);
	if (!root)
		return t;
	scan_dir(xformat("%s/include/trace/events", root), (Vec *)&t->all);
	scan_dir(xformat("%s/include/ras", root), (Vec *)&t->all);
	DIR *d = opendir(xformat("%s/arch", root));
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			scan_dir(xformat("%s/arch/%s/include/asm/trace", root, e->d_name),
				 (Vec *)&t->all);
	if (d)
		closedir(d);
	if (t->all.len)
		qsort(t->all.data, t->all.len, sizeof(void *), by_tp_name);
	return t;
}

/* The system of tracepoint NAME: its header's, else its event's in the core kernel
 * (tpmodules.c); NULL when neither names one. */
static const char *system_of(Session *s, const char *name)
{
	struct TpSystems *t = systems(s);
	TpSystem key = {.name = name}, *kp = &key;
	TpSystem **at = t->all.len ? bsearch(&kp, t->all.data, t->all.len, sizeof(void *),
					     by_tp_name) : NULL;
	return at ? (*at)->system : tpmodules_core_system(s, name);
}

static const PointShape tracepoint_shapes[] = {
	{"kernel.trace(string)", .values_listed = true},
	{NULL},
};

/* PATTERN ("SYS:NAME", "NAME", either with wildcards) matches tracepoint NAME of SYS. */
static bool pattern_matches(const char *pattern, const char *name, const char *sys)
{
	const char *colon = strchr(pattern, ':');
	if (!colon)
		return glob_match(pattern, name);
	return sys && glob_match(xstrndup(pattern, colon - pattern), sys) &&
	       glob_match(colon + 1, name);
}

/* The tracepoints PATTERN matches, each as its point's string "SYS:NAME" or "NAME": the
 * core kernel's (K), then its modules' (tpmodules.c) when PATTERN is a glob or names none
 * of the core's. */
static void matching(Session *s, KBtf *k, const char *pattern, Vec *out)
{
	Vec names = {0};
	kbtf_tracepoints(k, &names);
	for (int i = 0; i < names.len; i++) {
		const char *sys = system_of(s, names.data[i]);
		if (pattern_matches(pattern, names.data[i], sys))
			vec_push(out, sys ? xformat("%s:%s", sys, (char *)names.data[i]) :
				 names.data[i]);
	}
	if (out->len && !strpbrk(pattern, "*?["))
		return;
	const char *last = NULL;
	for (int i = 0, n = tpmodules_count(s); i < n; i++) {
		const char *module, *msys, *name = tpmodules_at(s, i, &module, &msys);
		if ((last && !strcmp(last, name)) || !strcmp(module, "-") ||
		    kbtf_has_function(k, kbtf_traceiter(name)))
			continue;       /* the core's, or another module's of the same name */
		last = name;
		const char *sys = system_of(s, name);
		if (!sys && *msys)
			sys = msys;
		if (pattern_matches(pattern, name, sys))
			vec_push(out, sys ? xformat("%s:%s", sys, name) : (char *)name);
	}
}

/* The module that defines tracepoint NAME (NULL: the core kernel) and the BTF with its
 * arguments: the kernel's, or the module's split on it (NULL and *WHY if it has none). */
static KBtf *tp_btf(Session *s, const char *name, const char **module, const char **why)
{
	KBtf *k = kbtf(s, why);
	*module = NULL;
	if (!k || kbtf_has_function(k, kbtf_traceiter(name)))
		return k;
	*module = tpmodules_module(s, name);
	return *module ? kbtf_module(s, *module, why) : k;
}

const char *tracepoint_module(Session *s, Probe *p)
{
	const char *module, *why;
	tp_btf(s, tracepoint_name(p, NULL), &module, &why);
	return module;
}

static int tracepoint_expand(const ProbeFamily *f, ProbePoint *pp, Session *s, bool quiet,
			     Vec *out)
{
	(void)f;
	Component *c = pp->comps.data[1];
	const char *pattern = c->arg->str, *why = NULL;
	if (!strcmp(session_config_value(s, "CONFIG_CFI_CLANG"), "y")) {
		if (!quiet)                     /* runtime/compat.h says why */
			error_at(c->arg->tok, "kernel.trace(\"%s\"): kernel %s is built with kCFI "
				 "(CONFIG_CFI_CLANG), which traps a tracepoint callback whose type "
				 "is not the tracepoint's own; hwtap's take the arguments as "
				 "unsigned long: not supported there", pattern, s->kernel_release);
		return 0;
	}
	KBtf *k = kbtf(s, &why);
	if (!k) {
		if (!quiet)
			error_at(c->arg->tok, "kernel.trace(\"%s\"): no BTF for kernel %s (%s), "
				 "where hwtap finds the tracepoints and their arguments", pattern,
				 s->kernel_release, why ? why : "not found");
		return 0;
	}
	Vec found = {0};
	matching(s, k, pattern, &found);
	if (!found.len) {
		if (!quiet)
			error_at(c->arg->tok, "no tracepoint of the target kernel matches \"%s\" "
				 "(hwtap -l 'kernel.trace(\"*\")' lists them)", pattern);
		return 0;
	}
	if (found.len > TRACE_GLOB_MAX) {
		if (!quiet)
			error_at(c->arg->tok, "kernel.trace(\"%s\") matches %d tracepoints, more than "
				 "the %d hwtap watches for one point: narrow it", pattern, found.len,
				 TRACE_GLOB_MAX);
		return 0;
	}
	bool glob = strpbrk(pattern, "*?") != NULL;
	int n = 0, unfit = 0;
	const char *first_unfit = NULL, *bad = NULL;
	for (int i = 0; i < found.len; i++) {
		const char *spec = found.data[i], *name = strchr(spec, ':'), *module;
		name = name ? name + 1 : spec;
		KBtf *tk = tp_btf(s, name, &module, &why);
		if (!tk) {
			if (!quiet)
				error_at(c->arg->tok, "tracepoint %s of module %s: no arguments for it: "
					 "%s", spec, module, why);
			return 0;
		}
		if (!kbtf_params_fit(tk, kbtf_traceiter(name), 1, &bad)) {
			if (!glob && !quiet)
				error_at(c->arg->tok, "tracepoint %s passes its argument '$%s' as a "
					 "structure by value, which hwtap does not take", spec, bad);
			if (!unfit++)
				first_unfit = spec;
			continue;
		}
		vec_push(out, process_point_with(pp, NULL, spec));
		n++;
	}
	if (glob && unfit && !quiet)
		warn_at(c->arg->tok, "kernel.trace(\"%s\"): %d tracepoint%s left out (%s%s): %s "
			"a structure by value, which hwtap does not take", pattern, unfit,
			unfit > 1 ? "s" : "", first_unfit, unfit > 1 ? ", ..." : "",
			unfit > 1 ? "they pass" : "it passes");
	return n;
}

/* -l/-L 'kernel.trace("PATTERN")': the tracepoints, with their arguments' types. */
static void tracepoint_list(const char *pattern, bool with_vars, Session *s, Vec *out)
{
	const char *open = strstr(pattern, "kernel.trace(\"");
	if (!open)
		return;
	open += strlen("kernel.trace(\"");
	char *want = xstrndup(open, strcspn(open, "\""));
	const char *why;
	KBtf *k = kbtf(s, &why);
	if (!k)
		return;
	Vec found = {0};
	matching(s, k, want, &found);
	for (int i = 0; i < found.len; i++) {
		const char *spec = found.data[i], *name = strchr(spec, ':'), *module;
		name = name ? name + 1 : spec;
		char *point = xformat("kernel.trace(\"%s\")", spec);
		if (trace_is_decoded(point))
			continue;       /* probe_ras.c lists it */
		KBtf *tk = with_vars ? tp_btf(s, name, &module, &why) : NULL;
		char *vars = tk ? kbtf_params(tk, kbtf_traceiter(name), 1) : "";
		vec_push(out, *vars ? xformat("%s %s", point, vars) : point);
	}
}

const ProbeFamily tracepoint_family = {
	.name = "kernel",
	.shapes = tracepoint_shapes,
	.expand = tracepoint_expand,
	.list = tracepoint_list,
	.decided_at_load = true,
};

/* Probe P's tracepoint: its name ("sched_switch") and system ("sched", or ""). */
const char *tracepoint_name(Probe *p, const char **system)
{
	ProbePoint *pp = p->points.data[0];
	const char *spec = ((Component *)pp->comps.data[1])->arg->str;
	const char *colon = strchr(spec, ':');
	if (system)
		*system = colon ? xstrndup(spec, colon - spec) : "";
	return colon ? colon + 1 : spec;
}

/* How many arguments P's tracepoint passes (its callback's, after data). */
int tracepoint_nargs(Session *s, Probe *p)
{
	const char *why, *module;
	KBtf *k = tp_btf(s, tracepoint_name(p, NULL), &module, &why);
	return k ? kbtf_nparams(k, kbtf_traceiter(tracepoint_name(p, NULL))) - 1 : 0;
}

/* $NAME in tracepoint probe P, an argument with its ->members and [indexes]: AT->plan. */
Type tracepoint_target(Session *s, Probe *p, Node *n, Node *at, bool report)
{
	const char *why, *module, *name = tracepoint_name(p, NULL);
	char *func = kbtf_traceiter(name);
	KBtf *k = tp_btf(s, name, &module, &why);
	int type;
	at->plan = NULL;
	if (!k)
		return TY_UNKNOWN;
	char *var = xstrndup(n->name, 1 + strcspn(n->name + 1, "$"));
	int index = kbtf_param(k, func, 1, var + 1, &type);
	if (index < 0) {
		if (report)
			error_at(n->tok, "tracepoint %s has no argument '%s' (its arguments: %s)",
				 name, var, *kbtf_params(k, func, 1) ? kbtf_params(k, func, 1) :
				 "none");
		return TY_UNKNOWN;
	}
	Token *where;
	at->plan = kbtf_target(k, type, xformat("args[%d]", index), n, at != n, &why, &where);
	if (!at->plan) {
		if (report)
			error_at(where, "%s", why);
		return TY_UNKNOWN;
	}
	return ((UTarget *)at->plan)->type;
}

/* $$parms, $$vars (and $$return of a kernel.function's .return): "prev=%#x next=%#x", with
 * a $NAME node for each value; "?" for one hwtap cannot read (a structure by value). */
bool kernel_var_list(Session *s, Probe *p, Node *n, char **format, Vec *args)
{
	const char *why, *module, *which = n->name + 2;
	bool trace = p->family == &tracepoint_family;
	KBtf *k = trace ? tp_btf(s, tracepoint_name(p, NULL), &module, &why) : kfunc_btf(s, p);
	ProbePoint *pp = p->points.data[0];
	bool ret = !trace &&
		   !strcmp(((Component *)pp->comps.data[pp->comps.len - 1])->name, "return");
	const char *func = trace ? kbtf_traceiter(tracepoint_name(p, NULL)) : kfunc_name(pp);
	Vec names = {0};
	StrBuf f = {0};
	sb_putn(&f, "", 0);
	if (!strcmp(which, "return")) {
		if (ret && k && kbtf_return(k, func))
			vec_push(&names, "return");
	} else if (!strcmp(which, "parms") || !strcmp(which, "vars")) {
		if (k && !ret)
			kbtf_param_names(k, func, trace, &names);
		if (ret)        /* at a .return, the values at the call */
			entry_list_format(n, &f, args);
	} else {
		return false;
	}
	for (int i = 0; i < names.len; i++) {
		Node *a = new_node(N_TARGET, n->tok);
		a->name = xformat("$%s", (char *)names.data[i]);
		Type t = trace ? tracepoint_target(s, p, a, a, false) :
			 kernel_target(s, p, a, a, false);
		a->type = t;
		sb_printf(&f, "%s%s=%s", f.len ? " " : "", (char *)names.data[i],
			  t != TY_UNKNOWN ? "%#x" : "?");
		if (t != TY_UNKNOWN)
			vec_push(args, a);
	}
	*format = f.buf;
	return true;
}
