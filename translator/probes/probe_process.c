/* probe_process.c - functions of user-space programs, through the kernel's uprobes:
 *
 *   process("PATH").function("NAME")          where NAME's prologue ends, in every
 *   process("PATH").function("NAME").call     process that runs PATH (a program or a
 *   process("PATH").function("NAME").return   shared library), and as NAME returns;
 *   process("PATH").function("NAME").inline   .function is every copy of NAME, .call and
 *                                             .return the out-of-line one, .inline the
 *                                             copies inlined into other functions
 *   process("PATH").statement("NAME@FILE:LINE")   where a source line's code starts
 *   process("PATH").statement("NAME@FILE+N")      (N lines after NAME's declaration),
 *                                             with .nearest the next line that has code
 *   process.function("NAME") ...              the same in the program of -c CMD
 *
 * NAME is a glob ("*", "str*"), optionally "NAME@FILE" (FILE a glob of the declaring
 * source file, or of its tail) and "NAME@FILE:LINE" (the declaring line). Functions come
 * from the program's DWARF, else from its symbol table (then without context variables).
 * One derived probe per function matched, its point naming it concretely
 * (function("add@/src/calc.c:12")), as SystemTap elaborates them; sema.c asks dwarf.c
 * for the C of each $variable at that function's probe address.
 */
#include "hwtap.h"

#include <stdlib.h>
#include <string.h>

/* With a PATH and NAME, -l lists the functions (process_list), not these. */
static const PointShape process_shapes[] = {
	{"process(string).function(string)", .values_listed = true},
	{"process(string).function(string).call", .values_listed = true},
	{"process(string).function(string).return", .values_listed = true},
	{"process.function(string)", .values_listed = true},
	{"process.function(string).call", .values_listed = true},
	{"process.function(string).return", .values_listed = true},
	{"process(string).function(string).inline", .values_listed = true},
	{"process.function(string).inline", .values_listed = true},
	{"process(string).statement(string)", .values_listed = true},
	{"process(string).statement(string).nearest", .values_listed = true},
	{"process.statement(string)", .values_listed = true},
	{"process.statement(string).nearest", .values_listed = true},
	{NULL},
};

/* The program the point names: its PATH, or the program -c runs. */
static char *program_path(ProbePoint *pp, Session *s, Token **tok)
{
	Component *c = pp->comps.data[0];
	*tok = c->arg ? c->arg->tok : c->tok;
	if (c->arg)
		return c->arg->str;
	if (!s->command)
		return NULL;
	size_t skip = strspn(s->command, " \t");
	return xstrndup(s->command + skip, strcspn(s->command + skip, " \t;|&<>()"));
}

/* "NAME@FILE:LINE" into its parts; false if LINE is not a number. */
static bool split_function(const char *spec, char **name, char **file, int *line)
{
	const char *at = strchr(spec, '@');
	*name = xstrndup(spec, at ? (size_t)(at - spec) : strlen(spec));
	*file = NULL;
	*line = 0;
	if (!at)
		return true;
	const char *colon = strrchr(at, ':');
	*file = xstrndup(at + 1, colon ? (size_t)(colon - at - 1) : strlen(at + 1));
	if (!colon)
		return true;
	char *end;
	long n = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || n <= 0)
		return false;
	*line = (int)n;
	return true;
}

ProbePoint *process_point_with(ProbePoint *pp, const char *path, const char *spec)
{
	ProbePoint *np = xalloc(sizeof(*np));
	*np = *pp;
	np->comps = (Vec){0};
	for (int i = 0; i < pp->comps.len; i++) {
		Component *c = xalloc(sizeof(*c));
		*c = *(Component *)pp->comps.data[i];
		const char *str = NULL;
		if (i == 0)
			str = path;
		else if (i == 1)
			str = spec;
		if (str) {
			Node *arg = new_node(N_STR, c->arg ? c->arg->tok : c->tok);
			arg->str = xstrdup(str);
			arg->str_len = strlen(str);
			c->arg = arg;
			c->has_parens = true;
		}
		vec_push(&np->comps, c);
	}
	return np;
}

/* The concrete point for function FN at PC (SPEC its function(...) or statement(...)
 * argument), appended to OUT; false after an error. A kernel's point keeps its first
 * component. */
static bool add_site(ProbePoint *pp, Vec *out, UProgram *prog, UFunc *fn, uint64_t pc,
		     bool ret, const char *spec, Component *fc)
{
	USite *site = xalloc(sizeof(*site));
	site->prog = prog;
	site->func = fn;
	site->ret = ret;
	site->pc = pc;
	bool kernel = uprog_is_kernel(prog);
	if (!kernel && !uprog_offset(prog, pc, &site->offset)) {
		error_at(fc->arg->tok, "function '%s' at 0x%llx is in no executable segment of "
			 "'%s'", fn->name, (unsigned long long)pc, uprog_path(prog));
		return false;
	}
	ProbePoint *np = process_point_with(pp, kernel ? NULL : uprog_path(prog), spec);
	np->site = site;
	vec_push(out, np);
	return true;
}

/* PROG as messages name it. */
static char *in_program(UProgram *prog)
{
	return uprog_is_kernel(prog) ? xformat("the kernel's DWARF ('%s')", uprog_path(prog)) :
	       xformat("'%s'", uprog_path(prog));
}

/* statement("NAME@FILE:*") and ("NAME@FILE:FIRST-LAST"): each line with code of each
 * function NAME matches (in that range), as SystemTap takes them. */
static int statement_lines(ProbePoint *pp, Vec *out, UProgram *prog, Component *fc,
			   const char *name, const char *file, long first, long last, bool quiet)
{
	Vec funcs = {0};
	int n = 0;
	uprog_functions(prog, name, file, 0, UFUNC_OUT_OF_LINE | UFUNC_INLINED, &funcs);
	for (int i = 0; i < funcs.len; i++) {
		UFunc *fn = funcs.data[i];
		Vec lines = {0};
		dwarf_code_lines(prog, fn, &lines);
		for (int j = 0; j < lines.len; j++) {
			int line = (int)(intptr_t)lines.data[j], at;
			uint64_t pc;
			if (line < first || line > last ||
			    !dwarf_line_address(prog, fn, line, false, &pc, &at))
				continue;
			if (!add_site(pp, out, prog, fn, pc, false, xformat("%s@%s:%d", fn->name,
				      fn->file, line), fc))
				return 0;
			n++;
		}
	}
	if (!n && !quiet)
		error_at(fc->arg->tok, "statement(\"%s\"): no line with code %s in %s",
			 fc->arg->str, funcs.len ? "in that range" : "(no function matches)",
			 in_program(prog));
	return n;
}

/* A statement(...)'s argument, SPEC, in its parts: NAME@FILE, then ':' and a line, "*" or
 * FIRST-LAST, or '+' and lines after NAME's declaration. */
typedef struct {
	char *name, *file;
	char sep;               /* ':' or '+' */
	long line, last;        /* a range: FIRST-LAST (":*": 1 to the end) */
	bool range;
} StatementSpec;

/* SPEC as a StatementSpec; false (and said, unless QUIET) if it is none. */
static bool statement_spec(Component *fc, StatementSpec *ss, bool quiet)
{
	const char *spec = fc->arg->str, *at = strchr(spec, '@');
	const char *sep = at ? at + strcspn(at, ":+") : NULL;
	char *end = NULL;
	long n = sep && *sep ? strtol(sep + 1, &end, 10) : 0, last = 0;
	bool all = sep && *sep == ':' && !strcmp(sep + 1, "*");
	bool range = sep && *sep == ':' && end && end != sep + 1 && *end == '-' && n > 0;
	if (range) {
		char *dash = end, *stop;
		last = strtol(dash + 1, &stop, 10);
		range = stop != dash + 1 && !*stop && last >= n;
	}
	if (!all && !range &&
	    (!at || !*sep || end == sep + 1 || *end || n < (*sep == ':'))) {
		if (!quiet)
			error_at(fc->arg->tok, "statement(\"%s\"): expected NAME@FILE:LINE, "
				 "NAME@FILE:FIRST-LAST, NAME@FILE:* or NAME@FILE+LINES", spec);
		return false;
	}
	*ss = (StatementSpec){xstrndup(spec, at - spec), xstrndup(at + 1, sep - at - 1), *sep,
			      all ? 1 : n, all ? INT32_MAX : last, all || range};
	return true;
}

bool statement_spec_ok(Component *fc)
{
	StatementSpec ss;
	return statement_spec(fc, &ss, false);
}

/* statement("NAME@FILE:LINE") and ("NAME@FILE+N", N lines after NAME's declaration), with
 * .nearest the next line with code when that one has none: where the line's code starts
 * in each function NAME matches (for an absolute LINE, the one function that has it);
 * LINE may be "*" or a range "FIRST-LAST" (statement_lines()). */
static int statement_sites(ProbePoint *pp, Vec *out, UProgram *prog, Component *fc,
			   bool quiet)
{
	StatementSpec ss;
	if (!statement_spec(fc, &ss, quiet))
		return 0;
	if (ss.range)
		return statement_lines(pp, out, prog, fc, ss.name, ss.file, ss.line, ss.last,
				       quiet);
	long n = ss.line;
	const char *spec = fc->arg->str;
	bool relative = ss.sep == '+';
	bool nearest = !strcmp(((Component *)pp->comps.data[pp->comps.len - 1])->name,
			       "nearest");
	char *name = ss.name, *file = ss.file;
	typedef struct {
		UFunc *fn;
		uint64_t pc;
		int line;
	} Found;
	Vec funcs = {0}, found = {0};
	uprog_functions(prog, name, file, 0, UFUNC_OUT_OF_LINE | UFUNC_INLINED, &funcs);
	int best = 0;
	for (int i = 0; i < funcs.len; i++) {
		UFunc *fn = funcs.data[i];
		uint64_t pc;
		int line;
		if (!dwarf_line_address(prog, fn, relative ? fn->line + (int)n : (int)n, nearest,
					&pc, &line))
			continue;
		/* an absolute line is one function's: with .nearest, the closest of them */
		if (!relative && best && line > best)
			continue;
		if (!relative && line < best)
			found.len = 0;
		best = line;
		Found *f = xalloc(sizeof(*f));
		*f = (Found){fn, pc, line};
		vec_push(&found, f);
	}
	if (!found.len) {
		if (!quiet)
			error_at(fc->arg->tok, "statement(\"%s\"): no code at that line in %s%s",
				 spec, in_program(prog), nearest || !funcs.len ? "" :
				 " (.nearest takes the next line that has some)");
		return 0;
	}
	for (int i = 0; i < found.len; i++) {
		Found *f = found.data[i];
		char *where = xformat("%s@%s:%d", f->fn->name, f->fn->file, f->line);
		if (!add_site(pp, out, prog, f->fn, f->pc, false, where, fc))
			return 0;
		/* the point names the line found: no .nearest any more, as SystemTap's */
		ProbePoint *np = out->data[out->len - 1];
		if (nearest)
			np->comps.len--;
	}
	return found.len;
}

/* One point per function PP's NAME matches in its program, each with its USite. */
static int process_expand(const ProbeFamily *f, ProbePoint *pp, Session *s, bool quiet,
			  Vec *out)
{
	(void)f;
	Token *ptok;
	char *given = program_path(pp, s, &ptok);
	if (!given) {
		if (!quiet)
			error_at(ptok, "process.function needs a program: name it "
				 "(process(\"PATH\").function) or give one with -c CMD");
		return 0;
	}
	char *path = uprog_resolve(given);
	if (!path) {
		if (!quiet)
			error_at(ptok, "no program '%s' in $PATH", given);
		return 0;
	}
	const char *why;
	UProgram *prog = uprog_open(s, path, &why);
	if (!prog) {
		if (!quiet)
			error_at(ptok, "process(\"%s\"): %s", path, why);
		return 0;
	}
	return dwarf_sites(pp, prog, quiet, out);
}

int dwarf_sites(ProbePoint *pp, UProgram *prog, bool quiet, Vec *out)
{
	Component *fc = pp->comps.data[1];
	if (!strcmp(fc->name, "statement"))
		return statement_sites(pp, out, prog, fc, quiet);
	char *name, *file;
	int line;
	if (!split_function(fc->arg->str, &name, &file, &line)) {
		if (!quiet)
			error_at(fc->arg->tok, "function(\"%s\"): the line after ':' must be a "
				 "positive number", fc->arg->str);
		return 0;
	}
	const char *kind = pp->comps.len > 2 ? ((Component *)pp->comps.data[2])->name : "";
	bool ret = !strcmp(kind, "return");
	/* .function: every copy; .call and .return: the out-of-line one; .inline: the rest */
	int kinds = !strcmp(kind, "inline") ? UFUNC_INLINED : *kind ? UFUNC_OUT_OF_LINE :
		    UFUNC_OUT_OF_LINE | UFUNC_INLINED;
	Vec funcs = {0};
	uprog_functions(prog, name, file, line, kinds, &funcs);
	if (!funcs.len && !quiet) {
		if (file && !uprog_has_dwarf(prog))
			error_at(fc->arg->tok, "function(\"%s\"): '%s' has no debug information "
				 "(built without -g?), so no source files: name the function alone",
				 fc->arg->str, uprog_path(prog));
		else
			error_at(fc->arg->tok, "no function matches \"%s\" in %s%s", fc->arg->str,
				 in_program(prog), uprog_has_dwarf(prog) ? "" :
				 " (no debug information: its symbol table's functions only)");
		return 0;
	}
	for (int i = 0; i < funcs.len; i++) {
		UFunc *fn = funcs.data[i];
		char *spec = fn->file ? xformat("%s@%s:%d", fn->name, fn->file, fn->line) :
			     fn->name;
		if (!add_site(pp, out, prog, fn, ret ? fn->entry : fn->body, ret, spec, fc))
			return 0;
	}
	return funcs.len;
}

/* -l 'process("PATH").function("NAME")[.return]': each function NAME matches, as pass 2
 * names it; with -L, its variables where the probe would be ($a:int ...). */
static void process_list(const char *pattern, bool with_vars, Session *s, Vec *out)
{
	static const char head[] = "process(\"", mid[] = "\").function(\"";
	if (strncmp(pattern, head, strlen(head)))
		return;
	const char *path = pattern + strlen(head), *m = strstr(path, mid);
	if (!m)
		return;
	const char *spec = m + strlen(mid), *end = strchr(spec, '"');
	if (!end || end[1] != ')')
		return;
	const char *rest = end + 2;
	bool ret = !strcmp(rest, ".return"), inl = !strcmp(rest, ".inline");
	if (*rest && !ret && !inl && strcmp(rest, ".call"))
		return;
	char *file_path = uprog_resolve(xstrndup(path, m - path)), *name, *file;
	int line;
	const char *why;
	UProgram *prog = file_path ? uprog_open(s, file_path, &why) : NULL;
	if (!prog || !split_function(xstrndup(spec, end - spec), &name, &file, &line))
		return;
	Vec funcs = {0};
	uprog_functions(prog, name, file, line, inl ? UFUNC_INLINED : *rest ? UFUNC_OUT_OF_LINE :
			UFUNC_OUT_OF_LINE | UFUNC_INLINED, &funcs);
	for (int i = 0; i < funcs.len; i++) {
		UFunc *f = funcs.data[i];
		char *fn = f->file ? xformat("%s@%s:%d", f->name, f->file, f->line) : f->name;
		char *point = xformat("process(\"%s\").function(\"%s\")%s", file_path, fn, rest);
		char *vars = with_vars ? dwarf_var_list(prog, f, ret ? f->entry : f->body, ret) : "";
		vec_push(out, *vars ? xformat("%s %s", point, vars) : point);
	}
}

const ProbeFamily process_family = {
	.name = "process",
	.shapes = process_shapes,
	.expand = process_expand,
	.list = process_list,
};

/* The site of a derived probe of this family. */
USite *process_site(Probe *p)
{
	return ((ProbePoint *)p->points.data[0])->site;
}

/* ---- context variables ------------------------------------------------------------------ */

/* The type of $NAME... (N) in P's handler, or of &$NAME... (ADDRESS; the N_ADDR node is
 * AT): the C to read it goes on AT (at->plan), or an error when REPORT. */
Type process_target(Probe *p, Node *n, Node *at, bool report)
{
	USite *site = process_site(p);
	const char *why = NULL;
	Token *where = NULL;
	UTarget *t = dwarf_target(site->prog, site->func, site->pc, site->ret, n, at != n, &why,
				  &where);
	at->plan = t;
	if (!t) {
		if (report)
			error_at(where ? where : n->tok, "%s", why);
		return TY_UNKNOWN;
	}
	return t->type;
}

/* $$parms, $$locals or $$vars (N) in a .return probe, as collect_entries() made them:
 * "a=%#x b=?" into F, each value kept at the call (an @entry node) added to ARGS, "?" for
 * one that was not kept. */
void entry_list_format(Node *n, StrBuf *f, Vec *args)
{
	for (int i = 0; i < n->args.len; i++) {
		Node *a = n->args.data[i];
		bool kept = a->kind == N_AT_ENTRY;
		sb_printf(f, "%s%s=%s", i ? " " : "", kept ? a->lhs->name + 1 : a->str,
			  kept ? "%#x" : "?");
		if (kept)
			vec_push(args, a);
	}
}

/* $$parms, $$locals, $$vars and $$return: "a=0x1 b=0x2" as SystemTap prints them; the
 * names of what N lists, as a format for sprintf and $NAME nodes for its arguments. */
bool process_var_list(Probe *p, Node *n, char **format, Vec *args)
{
	USite *site = process_site(p);
	const char *which = n->name + 2;
	bool parms = !strcmp(which, "parms") || !strcmp(which, "vars");
	bool locals = !strcmp(which, "locals") || !strcmp(which, "vars");
	if (!parms && !locals && strcmp(which, "return"))
		return false;
	StrBuf f = {0};
	sb_putn(&f, "", 0);
	if (site->ret && strcmp(which, "return")) {
		entry_list_format(n, &f, args);
		*format = f.buf;
		return true;
	}
	Vec names = {0};
	if (!strcmp(which, "return")) {
		if (site->ret)
			vec_push(&names, "return");
	} else {
		dwarf_var_names(site->prog, site->func, site->pc, parms, locals, &names);
	}
	for (int i = 0; i < names.len; i++) {
		Node *v = new_node(N_TARGET, n->tok);
		v->name = xformat("$%s", (char *)names.data[i]);
		const char *why = NULL;
		Token *where = NULL;
		UTarget *t = dwarf_target(site->prog, site->func, site->pc, site->ret, v, false,
					  &why, &where);
		v->plan = t;
		v->type = t ? t->type : TY_UNKNOWN;
		if (!strcmp(which, "return"))
			sb_printf(&f, "return=");
		else
			sb_printf(&f, "%s%s=", f.len ? " " : "", (char *)names.data[i]);
		if (!t) {
			sb_puts(&f, dwarf_var_is_struct(site->prog, site->func, site->pc,
							names.data[i]) ? "{...}" : "?");
		} else {
			sb_puts(&f, "%#x");
			vec_push(args, v);
		}
	}
	*format = f.buf;
	return true;
}

/* @var("NAME"): the variable $NAME reads, where the probe is (a local, a parameter, a
 * variable of the compilation unit); @var("NAME@FILE") that of FILE's unit, which must
 * be the probe's; the second argument, a program, must be the probe's. */
bool process_at_var(Probe *p, Node *n, bool report)
{
	USite *site = process_site(p);
	const char *spec = n->lhs->str, *at = strchr(spec, '@');
	char *name = xstrndup(spec, at ? (size_t)(at - spec) : strlen(spec));
	Node *prog = n->args.len ? n->args.data[0] : NULL;
	const char *path = prog ? uprog_resolve(prog->str) : NULL, *why = NULL;
	if (!*name || strchr(name, '$'))
		why = xformat("@var(\"%s\"): expected a variable's name, NAME or NAME@FILE", spec);
	else if (prog && (!path || strcmp(path, uprog_path(site->prog))))
		why = xformat("@var(\"%s\", \"%s\"): hwtap reads the variables of the probe's own "
			      "program, '%s'", spec, prog->str, uprog_path(site->prog));
	else if (at && !dwarf_file_matches(at + 1, site->func->file))
		why = xformat("@var(\"%s\"): '%s' is in %s: hwtap reads the variables of its own "
			      "compilation unit", spec, site->func->name,
			      site->func->file ? site->func->file : "no source file DWARF names");
	if (why) {
		if (report)
			error_at(n->lhs->tok, "%s", why);
		return false;
	}
	n->kind = N_TARGET;
	n->name = xformat("$%s", name);
	n->lhs = NULL;
	n->args = (Vec){0};
	return true;
}

/* ---- @entry ------------------------------------------------------------------------------ */

/* Where a .return probe's @entry values come from: a program's function (its DWARF), or a
 * kernel function, whose parameters BTF reads (KPARMS: those it can). */
typedef struct {
	USite *site;
	Vec *kparms;
} EntryFrom;

/* Where a .return probe's @entry values are read: where the function's body starts (a
 * uprobe there), or a kernel function's entry (its kretprobe's entry handler runs there). */
static uint64_t entry_pc(USite *site)
{
	return uprog_is_kernel(site->prog) ? site->func->entry : site->func->body;
}

/* $$parms, $$locals or $$vars (N) in a .return probe: the variables' values at the call,
 * as SystemTap prints them. Each one an @entry($name) in N's args (added to OUT), or "?"
 * (an N_STR of its name) when it cannot be read there or @entry has no room left. */
static void entry_var_list(EntryFrom *from, Node *n, Vec *out)
{
	const char *which = n->name + 2;
	bool parms = !strcmp(which, "parms") || !strcmp(which, "vars");
	bool locals = !strcmp(which, "locals") || !strcmp(which, "vars");
	if (!parms && !locals)
		return;                 /* pass 2 says what it is not */
	Vec names = {0};
	USite *site = from->site;
	uint64_t at = site ? entry_pc(site) : 0;
	if (site)
		dwarf_var_names(site->prog, site->func, at, parms, locals, &names);
	else if (parms)
		names = *from->kparms;
	for (int i = 0; i < names.len; i++) {
		Node *v = new_node(N_TARGET, n->tok);
		v->name = xformat("$%s", (char *)names.data[i]);
		const char *why = NULL;
		Token *where = NULL;
		UTarget *t = site ? dwarf_target(site->prog, site->func, at, false, v, false, &why,
						 &where) : NULL;
		if ((site && (!t || t->type != TY_LONG)) || out->len == HWTAP_UENTRY_MAX) {
			Node *q = new_node(N_STR, n->tok);
			q->str = names.data[i];
			vec_push(&n->args, q);
			continue;
		}
		Node *e = new_node(N_AT_ENTRY, n->tok);
		e->op = "@entry";
		e->lhs = v;
		e->type = TY_LONG;
		e->num = out->len;
		vec_push(out, e);
		vec_push(&n->args, e);
	}
}

/* The @entry nodes under N; a $var in a .return probe (but $return) is its value at the
 * call, as in SystemTap: made @entry($var) here ($$parms: each of them; @var("var") is
 * not, it reads a variable of the unit at the return). */
static void collect_entries(EntryFrom *from, Node *n, Vec *out)
{
	if (!n)
		return;
	if (n->kind == N_TARGET && !strncmp(n->name, "$$", 2)) {
		entry_var_list(from, n, out);
		return;
	}
	if (n->kind == N_TARGET && strcmp(n->name, "$return") && strncmp(n->name, "$$", 2)) {
		Node *var = new_node(N_TARGET, n->tok);
		*var = *n;
		*n = (Node){.kind = N_AT_ENTRY, .tok = n->tok, .op = "@entry", .lhs = var};
	}
	if (n->kind == N_AT_ENTRY) {
		n->num = out->len;
		vec_push(out, n);
		return;                 /* an @entry in an @entry is the outer one's business */
	}
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc, n->body,
			n->value, n->array, n->limit};
	for (size_t i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		collect_entries(from, kids[i], out);
	for (int i = 0; i < n->args.len; i++)
		collect_entries(from, n->args.data[i], out);
	for (int i = 0; i < n->keys.len; i++)
		collect_entries(from, n->keys.data[i], out);
	for (int i = 0; i < n->comps.len; i++)
		collect_entries(from, ((TargetComp *)n->comps.data[i])->index, out);
}

/* A .return probe RET whose body has @entry(expr): a companion probe on the same
 * function, where its body starts (as a .function probe), whose body is those
 * expressions; the runtime keeps their values for the call's return (uprobes.c). */
void process_entry_probe(Session *s, Probe *ret)
{
	bool kernel = kentry_family(ret->family);
	USite *site = process_site(ret);       /* none: a kernel function's BTF */
	if (kernel) {
		ProbePoint *rp = ret->points.data[0];
		if (strcmp(((Component *)rp->comps.data[rp->comps.len - 1])->name, "return"))
			return;
	} else if (!site || !site->ret) {
		return;
	}
	Vec kparms = {0};
	if (kfunc_family(ret->family) && !site)
		kernel_entry_params(s, ret, &kparms);
	EntryFrom from = {.site = site, .kparms = &kparms};
	collect_entries(&from, ret->body, &ret->entries);
	if (!ret->entries.len)
		return;
	Probe *e = xalloc(sizeof(*e));
	*e = *ret;
	e->points = (Vec){0};
	e->entries = (Vec){0};
	e->locals = (Vec){0};
	e->entry_for = ret;
	e->derivation = xformat("@entry of %s", ret->derivation);
	ProbePoint *pp = xalloc(sizeof(*pp));
	*pp = *(ProbePoint *)ret->points.data[0];
	pp->cond = NULL;
	pp->comps = (Vec){0};       /* the point without .return */
	ProbePoint *rp = ret->points.data[0];
	for (int i = 0; i < rp->comps.len - 1; i++)
		vec_push(&pp->comps, rp->comps.data[i]);
	vec_push(&e->points, pp);
	if (site) {
		USite *at = xalloc(sizeof(*at));
		*at = *site;
		at->ret = false;
		at->pc = entry_pc(site);
		pp->site = at;
		if (!kernel && !uprog_offset(site->prog, at->pc, &at->offset))
			unreachable();  /* the body is in the function, whose entry was found */
	}
	/* a kernel function's: run by its kretprobe's entry handler (runtime/probes/kprobes.c) */
	Node *body = new_node(N_BLOCK, ret->body->tok);
	for (int i = 0; i < ret->entries.len; i++) {
		Node *entry = ret->entries.data[i];
		Node *stmt = new_node(N_EXPR_STMT, entry->tok);
		stmt->lhs = entry;  /* the same node: its expression is walked here */
		vec_push(&body->args, stmt);
	}
	e->body = body;
	ret->entry_probe = e;
	vec_push(&s->probes, e);
}
