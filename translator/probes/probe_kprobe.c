/* probe_kprobe.c - kernel functions through the kernel's kprobes (runtime/probes/kprobes.c):
 * SystemTap's points that need no debug information,
 *
 *   kprobe.function("NAME")                        NAME's entry
 *   kprobe.function("NAME").return                 each return ($return: its value)
 *   kprobe.module("MOD").function("NAME")          a module's function
 *   kprobe.module("MOD").function("NAME").return
 *
 * NAME is a symbol of the kernel (or of module MOD) as kallsyms names it, without
 * wildcards, as SystemTap takes it. Whether the kernel has it and lets it be probed is
 * decided when the session starts, on the machine it runs on (the kernel the module was
 * built for may be another's than this one's): a point the kernel refuses fails the start
 * with the reason, or is skipped with '?'. And kernel.function, by a glob over the
 * functions of the target kernel's BTF (btf.c), with their parameters:
 *
 *   kernel.function("GLOB")[.call]                each function's entry ($NAME)
 *   kernel.function("GLOB").return                each return ($return)
 */
#include "hwtap.h"

#include <string.h>

static const char *point_module(ProbePoint *pp);

static const PointShape kprobe_shapes[] = {
	{"kprobe.function(string)"},
	{"kprobe.function(string).return", "return:long"},
	{"kprobe.module(string).function(string)"},
	{"kprobe.module(string).function(string).return", "return:long"},
	{NULL},
};

/* What is wrong with NAME as WHAT (a kernel symbol or module name), or NULL. */
static const char *name_problem(const char *name, const char *what)
{
	if (!*name)
		return xformat("an empty %s", what);
	if (strpbrk(name, "*?["))
		return xformat("'%s': a %s without wildcards (kprobe points take one name, as "
			       "SystemTap's)", name, what);
	for (const char *p = name; *p; p++)
		if (!(*p == '_' || *p == '.' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return xformat("'%s' is not a %s (letters, digits, '_' and '.')", name,
				       what);
	return NULL;
}

static const PointShape *kprobe_match(const ProbeFamily *f, ProbePoint *pp, Session *s)
{
	(void)s;
	const PointShape *shape = shape_match(f, pp);
	if (!shape)
		return NULL;
	bool module = !strcmp(((Component *)pp->comps.data[1])->name, "module");
	Component *mod = module ? pp->comps.data[1] : NULL;
	Component *fn = pp->comps.data[module ? 2 : 1];
	const char *why = mod ? name_problem(mod->arg->str, "module name") : NULL;
	if (why) {
		error_at(mod->arg->tok, "%s", why);
		return NULL;
	}
	why = name_problem(fn->arg->str, "kernel function name");
	if (why) {
		error_at(fn->arg->tok, "%s", why);
		return NULL;
	}
	return shape;
}

const ProbeFamily kprobe_family = {
	.name = "kprobe",
	.shapes = kprobe_shapes,
	.match = kprobe_match,
	.decided_at_load = true,
};

/* The kernel's name of kprobe point P's function ("vfs_read", "MOD:NAME"), and whether it
 * is a return probe. */
/* A module's name as the kernel has it: "mce-inject" is mce_inject. */
static char *kernel_module_name(const char *m)
{
	char *k = xstrdup(m);
	for (char *c = k; *c; c++)
		*c = *c == '-' ? '_' : *c;
	return k;
}

const char *kprobe_module(Probe *p)
{
	return p->family == &module_family ?
	       kernel_module_name(point_module(p->points.data[0])) : NULL;
}

/* A kernel.function or module().function point's function: its second component's
 * argument without the "@FILE:LINE" pass 2 names it with where DWARF says (a BTF point's
 * name is its symbol's). */
const char *kfunc_name(ProbePoint *pp)
{
	const char *spec = ((Component *)pp->comps.data[1])->arg->str;
	return strchr(spec, '@') ? xstrndup(spec, strcspn(spec, "@")) : spec;
}

const char *kprobe_symbol(Probe *p, bool *ret)
{
	ProbePoint *pp = p->points.data[0];
	if (pp->site) {         /* placed by address (kprobe_address()): named for messages */
		*ret = pp->site->ret;
		return pp->site->func->name;
	}
	if (p->family == &module_family) {
		*ret = !strcmp(((Component *)pp->comps.data[pp->comps.len - 1])->name, "return");
		return xformat("%s:%s", kprobe_module(p), kfunc_name(pp));
	}
	bool module = p->family == &kprobe_family &&
		      !strcmp(((Component *)pp->comps.data[1])->name, "module");
	Component *fn = pp->comps.data[module ? 2 : 1];
	*ret = !strcmp(((Component *)pp->comps.data[pp->comps.len - 1])->name, "return");
	if (!module)
		return p->family == &kernel_family ? kfunc_name(pp) : fn->arg->str;
	return xformat("%s:%s", ((Component *)pp->comps.data[1])->arg->str, fn->arg->str);
}

/* ---- kernel.function("GLOB"): functions from the target kernel's BTF (btf.c) ---------- */

/* A kprobe each, placed (and its code patched) one after the other at the start: a glob
 * over the whole kernel would take minutes and slow every function it hits. */
#define KERNEL_GLOB_MAX 1000

static const PointShape kernel_shapes[] = {
	{"kernel.function(string)", .values_listed = true},
	{"kernel.function(string).call", .values_listed = true},
	{"kernel.function(string).return", .values_listed = true},
	/* from the kernel's DWARF only (kdwarf.c) */
	{"kernel.function(string).inline", .values_listed = true},
	{"kernel.statement(string)", .values_listed = true},
	{"kernel.statement(string).nearest", .values_listed = true},
	{NULL},
};

static const PointShape module_shapes[] = {
	{"module(string).function(string)", .values_listed = true},
	{"module(string).function(string).call", .values_listed = true},
	{"module(string).function(string).return", .values_listed = true},
	{NULL},
};

uint64_t kprobe_address(Probe *p)
{
	USite *site = ((ProbePoint *)p->points.data[0])->site;
	return site ? site->pc : 0;
}

/* A kernel function's probe whose .return may have @entry: kernel.function,
 * module().function, kprobe.function (its @entry values kept in the kretprobe's
 * instances, runtime/probes/kprobes.c). */
bool kentry_family(const ProbeFamily *f)
{
	return kfunc_family(f) || f == &kprobe_family;
}

bool kfunc_family(const ProbeFamily *f)
{
	return f == &kernel_family || f == &module_family;
}

/* The module of point PP ("ext4" in module("ext4").function(...)), or NULL: the kernel. */
static const char *point_module(ProbePoint *pp)
{
	Component *c0 = pp->comps.data[0];
	return !strcmp(c0->name, "module") && c0->arg ? c0->arg->str : NULL;
}

/* The BTF PP's functions are in: the kernel's, or its module's split on it. */
static KBtf *point_btf(Session *s, ProbePoint *pp, const char **why)
{
	const char *m = point_module(pp);
	return m ? kbtf_module(s, m, why) : kbtf(s, why);
}

KBtf *kfunc_btf(Session *s, Probe *p)
{
	const char *why;
	return point_btf(s, p->points.data[0], &why);
}

/* A point that names a source file or line, an inlined copy or a statement: one point per
 * function, copy or line of the kernel's DWARF it names (kdwarf.c), placed by address. */
static int dwarf_expand(ProbePoint *pp, Session *s, bool quiet, Vec *out)
{
	Component *fc = pp->comps.data[1];
	char *point = xformat("%s(\"%s\")%s", point_module(pp) ? xformat("module(\"%s\")."
			      "function", point_module(pp)) : xformat("kernel.%s", fc->name),
			      fc->arg->str,
			      !strcmp(fc->name, "function") && pp->comps.len > 2 ? xformat(
			      ".%s", ((Component *)pp->comps.data[2])->name) : "");
	const char *why;
	if (!strcmp(fc->name, "statement") && !quiet && !statement_spec_ok(fc))
		return 0;       /* its form, before whether there is DWARF to read it with */
	UProgram *kd = point_module(pp) ? NULL : kdwarf(s, &why);
	if (point_module(pp))
		why = "a module's source files, lines and inlined copies need its DWARF, which "
		      "hwtap does not read (the kernel's it does)";
	if (!kd) {
		if (!quiet)
			error_at(fc->arg->tok, "%s: %s%s", point, why, point_module(pp) ? "" :
				 ": source files, lines, inlined copies and locals need it (a function "
				 "named alone needs only BTF)");
		return 0;
	}
	Vec found = {0};
	int n = dwarf_sites(pp, kd, quiet, &found);
	if (n > KERNEL_GLOB_MAX) {
		if (!quiet)
			error_at(fc->arg->tok, "%s matches %d places, more than the %d kprobes hwtap "
				 "places for one point: narrow it", point, n, KERNEL_GLOB_MAX);
		return 0;
	}
	for (int i = 0; i < found.len; i++)
		vec_push(out, found.data[i]);
	return n;
}

/* NAME as pass 2 names a function, with the kernel's DWARF KD (or NULL): where it is
 * declared, "vfs_read@fs/read_write.c:450", as SystemTap names it; NAME when DWARF does
 * not say (no DWARF, a name several functions have, one it does not know). */
static const char *dwarf_spec(UProgram *kd, const char *name)
{
	Vec syms = {0};
	if (kd)
		uprog_symbol_functions(kd, name, &syms);
	UFunc *f = syms.len == 1 ? dwarf_function_at(kd, ((UFunc *)syms.data[0])->entry) : NULL;
	return f && f->file ? xformat("%s@%s:%d", name, f->file, f->line) : name;
}

/* One point per function of the target kernel GLOB matches (its BTF's functions). */
static int kernel_expand(const ProbeFamily *f, ProbePoint *pp, Session *s, bool quiet,
			 Vec *out)
{
	(void)f;
	Component *fc = pp->comps.data[1];
	const char *glob = fc->arg->str, *why = NULL, *mod = point_module(pp);
	const char *last = ((Component *)pp->comps.data[pp->comps.len - 1])->name;
	if (strchr(glob, '@') || strchr(glob, ':') || !strcmp(fc->name, "statement") ||
	    !strcmp(last, "inline"))
		return dwarf_expand(pp, s, quiet, out);
	KBtf *k = point_btf(s, pp, &why);
	if (!k) {
		if (!quiet && mod)
			error_at(((Component *)pp->comps.data[0])->arg->tok, "module(\"%s\"): %s%s",
				 mod, why, strstr(why, "BTF") ? xformat(": kprobe.module(\"%s\")."
				 "function(\"NAME\") needs none", mod) : "");
		else if (!quiet)
			error_at(fc->arg->tok, "kernel.function(\"%s\"): no BTF for kernel %s (%s): "
				 "kprobe.function(\"NAME\") needs none", glob, s->kernel_release,
				 why ? why : "not found");
		return 0;
	}
	Vec names = {0};
	kbtf_functions(k, glob, &names);
	if (!names.len && !quiet && mod)
		error_at(fc->arg->tok, "no function of module %s matches \"%s\" (hwtap -l "
			 "'module(\"%s\").function(\"*\")' lists them)", mod, glob, mod);
	else if (!names.len && !quiet)
		error_at(fc->arg->tok, "no function of the target kernel matches \"%s\" (its "
			 "BTF's functions: hwtap -l 'kernel.function(\"%s*\")' lists them)", glob,
			 xstrndup(glob, strcspn(glob, "*?[")));
	if (names.len > KERNEL_GLOB_MAX) {
		if (!quiet)
			error_at(fc->arg->tok, "kernel.function(\"%s\") matches %d functions, more than "
				 "the %d kprobes hwtap places for one point: narrow it", glob,
				 names.len, KERNEL_GLOB_MAX);
		return 0;
	}
	UProgram *kd = mod ? NULL : kdwarf(s, &why);
	for (int i = 0; i < names.len; i++)
		vec_push(out, process_point_with(pp, NULL, dwarf_spec(kd, names.data[i])));
	return names.len;
}

/* -l/-L of a kernel point resolved with its DWARF (kernel.function("NAME@FILE")[.return|
 * .call|.inline], kernel.statement("NAME@FILE:LINE")[.nearest]): each place, as pass 2
 * names it, with its variables' types there. False if PATTERN is not one. */
static bool dwarf_list(const char *pattern, bool with_vars, Session *s, Vec *out)
{
	const char *kinds[] = {"function", "statement"}, *why;
	for (int k = 0; k < 2; k++) {
		char *head = xformat("kernel.%s(\"", kinds[k]);
		if (strncmp(pattern, head, strlen(head)))
			continue;
		const char *spec = pattern + strlen(head), *end = strchr(spec, '"');
		if (!end || end[1] != ')')
			return false;
		const char *tail = end + 2;
		bool fn = !k;
		if (fn ? !strchr(xstrndup(spec, end - spec), '@') && strcmp(tail, ".inline") :
			 *tail && strcmp(tail, ".nearest"))
			return false;
		if (fn && *tail && strcmp(tail, ".return") && strcmp(tail, ".call") &&
		    strcmp(tail, ".inline"))
			return false;
		UProgram *kd = kdwarf(s, &why);
		if (!kd)
			return true;
		ProbePoint pp = {0};
		Component c0 = {.name = "kernel"}, c1 = {.name = (char *)kinds[k],
							 .has_parens = true};
		Component c2 = {.name = (char *)tail + (*tail == '.')};
		c1.arg = new_node(N_STR, NULL);
		c1.arg->str = xstrndup(spec, end - spec);
		c1.arg->str_len = end - spec;
		vec_push(&pp.comps, &c0);
		vec_push(&pp.comps, &c1);
		if (*tail)
			vec_push(&pp.comps, &c2);
		Vec sites = {0};
		dwarf_sites(&pp, kd, true, &sites);
		for (int i = 0; i < sites.len; i++) {
			ProbePoint *np = sites.data[i];
			USite *site = np->site;
			char *point = probe_point_string(np);
			char *vars = with_vars ? dwarf_var_list(kd, site->func, site->pc, site->ret) : "";
			vec_push(out, *vars ? xformat("%s %s", point, vars) : point);
		}
		return true;
	}
	return false;
}

/* -l/-L 'kernel.function("GLOB")' and 'module("M").function("GLOB")': the functions,
 * with their parameters' types. */
static void kernel_list(const char *pattern, bool with_vars, Session *s, Vec *out)
{
	const char *open = strstr(pattern, "kernel.function(\""), *why;
	char *mod = NULL;
	KBtf *k;
	if (dwarf_list(pattern, with_vars, s, out))
		return;
	if (open) {
		open += strlen("kernel.function(\"");
		k = kbtf(s, &why);
	} else if (!strncmp(pattern, "module(\"", 8) && strstr(pattern, "\").function(\"")) {
		mod = xstrndup(pattern + 8, strcspn(pattern + 8, "\""));
		open = strstr(pattern, "\").function(\"") + strlen("\").function(\"");
		k = strpbrk(mod, "*?[") ? NULL : kbtf_module(s, mod, &why);
	} else {
		return;
	}
	if (!k)
		return;
	char *glob = xstrndup(open, strcspn(open, "\""));
	const char *tail = open + strlen(glob) + (open[strlen(glob)] == '"' ? 2 : 0);
	Vec names = {0};
	kbtf_functions(k, glob, &names);
	UProgram *kd = mod ? NULL : kdwarf(s, &why);
	for (int i = 0; i < names.len; i++) {
		bool ret = !strcmp(tail, ".return");
		char *point = mod ? xformat("module(\"%s\").function(\"%s\")%s", mod,
					    (char *)names.data[i], tail) :
			      xformat("kernel.function(\"%s\")%s",
				      dwarf_spec(kd, names.data[i]), tail);
		if (with_vars) {
			int rt = ret ? kbtf_return(k, names.data[i]) : 0;
			/* at .return the parameters too: their values at the call */
			char *params = kbtf_params(k, names.data[i], 0);
			char *vars = !rt ? params : xformat("$return:%s%s%s", kbtf_type_name(k, rt),
							    *params ? " " : "", params);
			if (*vars)
				point = xformat("%s %s", point, vars);
		}
		vec_push(out, point);
	}
}

const ProbeFamily kernel_family = {
	.name = "kernel",
	.shapes = kernel_shapes,
	.expand = kernel_expand,
	.list = kernel_list,
};

/* module("M").function("GLOB"): a module's functions, from its BTF (its .ko's, split on
 * the kernel's); placed when the module loads, if it is not loaded at the start, and
 * again each time it loads (runtime/probes/kprobes.c). */
const ProbeFamily module_family = {
	.name = "module",
	.shapes = module_shapes,
	.expand = kernel_expand,
	.list = kernel_list,
};

/* $NAME in kernel.function probe P (a parameter at entry, $return at .return), with its
 * ->members and [indexes] read through the kernel's BTF types: AT->plan, the C that reads
 * it (AT is N, or the '&' over it); TY_UNKNOWN and, if REPORT, an error. */
Type kernel_target(Session *s, Probe *p, Node *n, Node *at, bool report)
{
	ProbePoint *pp = p->points.data[0];
	const char *func = kfunc_name(pp), *why;
	bool ret = !strcmp(((Component *)pp->comps.data[pp->comps.len - 1])->name, "return");
	KBtf *k = point_btf(s, pp, &why);
	int type = 0, index = -1;
	at->plan = NULL;
	if (!k)
		return TY_UNKNOWN;
	char *name = xstrndup(n->name, 1 + strcspn(n->name + 1, "$"));
	if (!strcmp(name, "$return")) {
		type = ret ? kbtf_return(k, func) : 0;
		if (!type) {
			if (report)
				error_at(n->tok, ret ? "kernel function %s returns no value (void)" :
					 "'$return' is only in .return probes", func);
			return TY_UNKNOWN;
		}
	} else if (ret) {
		if (report)
			error_at(n->tok, "'%s' in %s.return: a parameter's value at entry is not kept "
				 "for the return yet (read it in the entry probe)", name, func);
		return TY_UNKNOWN;
	} else {
		index = kbtf_param(k, func, 0, name + 1, &type);
		if (index < 0) {
			if (report)
				error_at(n->tok, "kernel function %s has no parameter '%s' (its "
					 "parameters: %s%s)", func, name,
					 *kbtf_params(k, func, 0) ? kbtf_params(k, func, 0) : "none",
					 point_module(pp) ? "" : "; locals need the kernel's DWARF, "
					 "Debian's linux-image-RELEASE-dbg");
			return TY_UNKNOWN;
		}
		if (index >= 6) {
			if (report)
				error_at(n->tok, "'%s' is %s's parameter %d: hwtap reads the first six, "
					 "those passed in registers", name, func, index + 1);
			return TY_UNKNOWN;
		}
	}
	const char *reg = index < 0 ? "regs_return_value(regs)" :
			  xformat("regs_get_kernel_argument(regs, %d)", index);
	Token *where;
	at->plan = kbtf_target(k, type, reg, n, at != n, &why, &where);
	if (!at->plan) {
		if (report)
			error_at(where, "%s", why);
		return TY_UNKNOWN;
	}
	return ((UTarget *)at->plan)->type;
}

typedef struct {
	KBtf *k;
	const char *func;
} ParamsOf;

/* A $NAME that is not one of FUNC's parameters in BTF (nor $return), $$locals, $$vars or
 * @var(...): what only DWARF has. */
static bool reads_other(Node *n, void *arg)
{
	ParamsOf *po = arg;
	int type;
	if (n->kind == N_AT_VAR)
		return true;
	if (n->kind != N_TARGET)
		return false;
	if (!strncmp(n->name, "$$", 2))
		return !strcmp(n->name, "$$locals") || !strcmp(n->name, "$$vars");
	char *name = xstrndup(n->name + 1, strcspn(n->name + 1, "$"));
	return strcmp(name, "return") && kbtf_param(po->k, po->func, 0, name, &type) < 0;
}

/* kernel.function("NAME") probe P, placed by BTF at NAME's entry, whose body reads a
 * local or @var (what BTF does not have): with the kernel's DWARF installed, the
 * function's DWARF site instead, where its body starts (at its entry for .return), as
 * SystemTap places it; the variables are then all read as DWARF says there. A name that
 * several functions have stays BTF's, its error saying how to name one. */
void kernel_dwarf_if_needed(Session *s, Probe *p)
{
	ProbePoint *pp = p->points.data[0];
	const char *why;
	if (p->family != &kernel_family || pp->site || !strcmp(((Component *)pp->comps.data[1])
							       ->name, "statement"))
		return;
	bool ret;
	const char *func = kprobe_symbol(p, &ret);
	ParamsOf po = {kfunc_btf(s, p), func};
	if (!po.k || !node_any(p->body, reads_other, &po))
		return;
	UProgram *kd = kdwarf(s, &why);
	Vec syms = {0};
	if (kd)
		uprog_symbol_functions(kd, func, &syms);
	if (syms.len != 1)
		return;
	UFunc *f = dwarf_function_at(kd, ((UFunc *)syms.data[0])->entry);
	if (!f)
		return;
	USite *site = xalloc(sizeof(*site));
	*site = (USite){.prog = kd, .func = f, .ret = ret, .pc = ret ? f->entry : f->body};
	pp->site = site;
}

/* The parameters of kernel .return probe P's function that an entry handler can read
 * (the first six, of a type BTF reads as a value): what its $$parms keeps. */
void kernel_entry_params(Session *s, Probe *p, Vec *out)
{
	const char *why, *func = kfunc_name(p->points.data[0]);
	KBtf *k = kfunc_btf(s, p);
	Vec names = {0};
	if (!k)
		return;
	kbtf_param_names(k, func, 0, &names);
	for (int i = 0; i < names.len && i < 6; i++) {
		int type;
		Token *where;
		Node *v = new_node(N_TARGET, p->tok);
		v->name = xformat("$%s", (char *)names.data[i]);
		kbtf_param(k, func, 0, names.data[i], &type);
		if (kbtf_target(k, type, "0", v, false, &why, &where))
			vec_push(out, names.data[i]);
	}
}
