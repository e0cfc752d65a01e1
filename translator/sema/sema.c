/* sema.c - pass 2: names to symbols, and the types of everything.
 *
 * Every user probe becomes one derived probe per concrete probe point (sema_probes.c),
 * with a copy of its body wrapped in the prologues and epilogues of the aliases it went
 * through. Only the functions, globals and aliases those probes reach are elaborated:
 * the tapset costs nothing it is not asked for.
 *
 * Types are inferred by walking every derived probe and reached function until nothing
 * changes (assignments, calls, array keys and values, returns all propagate both ways),
 * then walked once more to report what does not fit. The statements are sema_stmt.c's,
 * the expressions in them this file's.
 */
#include "hwtap.h"
#include "sema.h"

#include <stdlib.h>
#include <string.h>

/* ---- lookups ----------------------------------------------------------------------------- */

static bool visible(Script *owner, bool is_private, Script *from)
{
	return !is_private || owner == from;
}

static Symbol *new_symbol(SymKind kind, const char *name, Token *decl)
{
	Symbol *sym = xalloc(sizeof(*sym));
	sym->kind = kind;
	sym->name = (char *)name;
	sym->decl = decl;
	sym->arity = -1;
	return sym;
}

/* SC's globals, after the user's script's and those of the tapset files before SC,
 * whenever tapset.c parses SC: in the library's order, as if every file had been parsed
 * first, so that the first visible global of a name is the one it means. */
static void declare_globals(Ctx *c, Script *sc)
{
	int at = c->globals.len;
	while (at > 0 && ((Symbol *)c->globals.data[at - 1])->global->script->order > sc->order)
		at--;
	for (int i = 0; i < sc->globals.len; i++) {
		Global *g = sc->globals.data[i];
		for (int j = 0; j < c->globals.len; j++) {
			Symbol *o = c->globals.data[j];
			if (!strcmp(o->name, g->name) && o->global->script == sc)
				error_at(g->tok, "global '%s' is already declared at line %d",
					 g->name, o->decl->line);
		}
		Symbol *sym = new_symbol(SYM_GLOBAL, g->name, g->tok);
		sym->global = g;
		g->sym = sym;
		if (g->init)
			sym->type = g->init->kind == N_STR ? TY_STRING : TY_LONG;
		if (g->max_entries || g->wrap)
			sym->arity = sym->arity < 0 ? -1 : sym->arity;
		vec_insert(&c->globals, at++, sym);
	}
	vec_push(&c->declared, sc);
}

/* The globals of the tapset files parsed since the last call. */
static void declare_tapset_globals(Ctx *c)
{
	if (c->tapset_parses == c->s->tapset_parses)
		return;
	c->tapset_parses = c->s->tapset_parses;
	for (int i = 0; i < c->s->tapsets.len; i++) {
		Script *sc = c->s->tapsets.data[i];
		int j = 0;
		while (j < c->declared.len && c->declared.data[j] != sc)
			j++;
		if (j == c->declared.len)
			declare_globals(c, sc);
	}
}

Symbol *sema_find_global(Ctx *c, const char *name)
{
	tapset_need(c->s, TAPSET_GLOBAL, name);
	declare_tapset_globals(c);
	for (int i = 0; i < c->globals.len; i++) {
		Symbol *sym = c->globals.data[i];
		Global *g = sym->global;
		if (!strcmp(sym->name, name) && visible(g->script, g->is_private, c->file)) {
			if (!sym->read && !sym->assigned && g->script->is_tapset)
				g->script->used = true;
			if (!sym->first_use)
				sym->first_use = ++c->uses;
			return sym;
		}
	}
	return NULL;
}

Symbol *sema_find_local(Ctx *c, const char *name)
{
	for (int i = 0; i < c->locals->len; i++) {
		Symbol *sym = c->locals->data[i];
		if (!strcmp(sym->name, name))
			return sym;
	}
	return NULL;
}

/* Params and locals first, then globals; an unknown name becomes a new local. */
Symbol *sema_resolve_var(Ctx *c, Node *n)
{
	Symbol *sym = sema_find_local(c, n->name);
	if (!sym)
		sym = sema_find_global(c, n->name);
	if (!sym) {
		sym = new_symbol(SYM_LOCAL, n->name, n->tok);
		vec_push(c->locals, sym);
	}
	return sym;
}

static const Builtin builtins[] = {
	{"print", 1, false, false, false},   {"println", 0, false, true, false},
	{"sprint", 1, true, false, false},   {"sprintln", 0, true, true, false},
	{"printf", -1, false, false, false}, {"sprintf", -1, true, false, false},
	{"printd", 2, false, false, true},   {"printdln", 2, false, true, true},
	{"sprintd", 2, true, false, true},   {"sprintdln", 2, true, true, true},
};

const Builtin *find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

bool is_print_builtin(const char *name)
{
	return find_builtin(name) != NULL;
}

void all_scripts(Session *s, Vec *out)
{
	vec_push(out, s->user);
	for (int i = 0; i < s->tapsets.len; i++)
		vec_push(out, s->tapsets.data[i]);
}

/* The function `name` visible from c->file: the user's script first, then the tapset. */
static Function *find_function(Ctx *c, const char *name, int nargs, Function **other)
{
	tapset_need(c->s, TAPSET_FUNCTION, name);
	Vec scripts = {0};
	all_scripts(c->s, &scripts);
	*other = NULL;
	for (int i = 0; i < scripts.len; i++) {
		Script *sc = scripts.data[i];
		for (int j = 0; j < sc->funcs.len; j++) {
			Function *f = sc->funcs.data[j];
			if (strcmp(f->name, name) || !visible(sc, f->is_private, c->file))
				continue;
			if (f->params.len == nargs)
				return f;
			*other = f;
		}
	}
	return NULL;
}

static const char *closest_function(Ctx *c, const char *name)
{
	const char *best = NULL;
	int dist = strlen(name) / 3 + 1;
	if (dist > 4)
		dist = 4;
	dist++;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		int d = edit_distance(name, builtins[i].name);
		if (d < dist) {
			dist = d;
			best = builtins[i].name;
		}
	}
	tapset_need(c->s, TAPSET_FUNCTION, NULL);      /* every name for the hint */
	Vec scripts = {0};
	all_scripts(c->s, &scripts);
	for (int i = 0; i < scripts.len; i++) {
		Script *sc = scripts.data[i];
		for (int j = 0; j < sc->funcs.len; j++) {
			Function *f = sc->funcs.data[j];
			int d = edit_distance(name, f->name);
			if (d < dist && visible(sc, f->is_private, c->file)) {
				dist = d;
				best = f->name;
			}
		}
	}
	return best;
}

/* ---- typing helpers ------------------------------------------------------------------------ */

const char *sema_a_type(Type t)
{
	switch (t) {
	case TY_LONG: return "a number (long)";
	case TY_STRING: return "a string";
	case TY_STATS: return "statistics";
	case TY_HIST: return "a histogram";
	default: return "of unknown type";
	}
}

/* Decides an unknown type; counts the change so inference runs another round. */
void sema_decide(Ctx *c, Type *slot, Type t, Token *where, Token **typed_at)
{
	if (*slot != TY_UNKNOWN || t == TY_UNKNOWN)
		return;
	*slot = t;
	if (typed_at)
		*typed_at = where;
	c->changes++;
}

/* Walks n expecting `want` while inferring; in the last round the caller reports a
 * mismatch in its own words, so n is walked without an expectation. */
Type sema_walk_checked(Ctx *c, Node *n, Type want)
{
	return sema_walk(c, n, c->report ? TY_UNKNOWN : want);
}

/* Reports have != want in the last round. Where statistics are wanted the caller says
 * why in its own words. */
static void mismatch(Ctx *c, Node *n, Type have, Type want)
{
	if (!c->report || have == TY_UNKNOWN || want == TY_UNKNOWN || have == want ||
	    want == TY_STATS)
		return;
	Symbol *sym = n->sym;
	if ((n->kind == N_VAR || n->kind == N_INDEX) && sym && sym->typed_at &&
	    sym->typed_at != n->tok)
		error_at(n->tok, "type mismatch: '%s' is %s, decided at line %d, but %s is "
			 "needed here", sym->name, sema_a_type(have), sym->typed_at->line,
			 sema_a_type(want));
	else if (n->kind == N_CALL && n->func)
		error_at(n->tok, "type mismatch: function '%s' returns %s, but %s is needed here",
			 n->name, sema_a_type(have), sema_a_type(want));
	else
		error_at(n->tok, "type mismatch: this is %s, but %s is needed here", sema_a_type(have),
			 sema_a_type(want));
}

static void stats_misuse(Ctx *c, Node *n)
{
	if (c->report)
		error_at(n->tok, "'%s' holds statistics: read it with @count, @sum, @min, @max, "
			 "@avg, @variance or a histogram", n->name);
}

/* ---- expressions ------------------------------------------------------------------------- */

static Type walk_var(Ctx *c, Node *n, Type want)
{
	if (!n->sym) {
		n->sym = sema_resolve_var(c, n);
		if (c->in_condition && n->sym->kind != SYM_GLOBAL)
			error_at(n->tok, "a probe condition can only use global variables, and "
				 "'%s' is not one", n->name);
	}
	Symbol *sym = n->sym;
	Global *g = sym->global;
	if (g && (g->max_entries || g->wrap) && c->report) {
		error_at(n->tok, "'%s' is declared as an array ('global %s%s[...]'): index it, "
			 "as in %s[key]", n->name, n->name, g->wrap ? "%" : "", n->name);
		return TY_UNKNOWN;
	}
	if (c->lvalue)
		sym->assigned = true;
	else
		sym->read = true;
	if (sym->arity > 0) {
		if (c->report)
			error_at(n->tok, "'%s' is an array: index it, as in %s[key]", n->name,
				 n->name);
		return TY_UNKNOWN;
	}
	if (sym->arity < 0)
		sym->arity = 0;
	if (want == TY_STATS && sym->kind == SYM_LOCAL && c->report && c->lvalue)
		error_at(n->tok, "statistics must be global: declare 'global %s'", n->name);
	sema_decide(c, &sym->type, want == TY_HIST ? TY_UNKNOWN : want, n->tok, &sym->typed_at);
	if (sym->type == TY_STATS && want != TY_STATS) {
		stats_misuse(c, n);
		return TY_UNKNOWN;
	}
	mismatch(c, n, sym->type, want);
	return sym->type;
}

/* Walks index expressions against an array's key types, fixing the arity on first use. */
void sema_walk_keys(Ctx *c, Node *n, Symbol *sym, Vec *keys)
{
	if (sym->arity < 0) {
		sym->arity = keys->len;
		sym->key_types = xalloc(sizeof(Type) * (keys->len + 1));
	}
	if (sym->arity == 0) {
		if (c->report)
			error_at(n->tok, "'%s' is a scalar, not an array", sym->name);
		return;
	}
	if (sym->arity != keys->len) {
		if (c->report)
			error_at(n->tok, "array '%s' has %d key%s, but %d %s given here", sym->name,
				 sym->arity, sym->arity == 1 ? "" : "s", keys->len,
				 keys->len == 1 ? "is" : "are");
		return;
	}
	bool lvalue = c->lvalue;
	c->lvalue = false;
	for (int i = 0; i < keys->len; i++) {
		Node *k = keys->data[i];
		if (k->kind == N_STAR) {
			if (!c->slice_ok && c->report)
				error_at(k->tok, "'*' keys are only allowed in delete, 'in' and "
					 "foreach");
			continue;
		}
		Type t = sema_walk_checked(c, k, sym->key_types[i]);
		if (t == TY_STATS || t == TY_HIST) {
			if (c->report)
				error_at(k->tok, "array keys must be numbers or strings");
			continue;
		}
		sema_decide(c, &sym->key_types[i], t, k->tok, NULL);
		if (c->report && t != TY_UNKNOWN && t != sym->key_types[i])
			error_at(k->tok, "key %d of array '%s' is %s, but this is %s", i + 1,
				 sym->name, sema_a_type(sym->key_types[i]), sema_a_type(t));
	}
	c->lvalue = lvalue;
}

Symbol *sema_array_symbol(Ctx *c, Node *n)
{
	if (n->sym)
		return n->sym;
	Symbol *sym = sema_find_local(c, n->name);
	if (sym) {
		error_at(n->tok, "'%s' is a local variable; arrays must be global: declare "
			 "'global %s'", n->name, n->name);
		return NULL;
	}
	sym = sema_find_global(c, n->name);
	if (!sym) {
		for (int i = 0; i < c->undeclared.len; i++)
			if (!strcmp(c->undeclared.data[i], n->name))
				return NULL;
		vec_push(&c->undeclared, n->name);
		error_at(n->tok, "array '%s' is not declared: add 'global %s'", n->name, n->name);
		return NULL;
	}
	n->sym = sym;
	return sym;
}

static Type walk_index(Ctx *c, Node *n, Type want)
{
	Symbol *sym = sema_array_symbol(c, n);
	if (!sym)
		return TY_UNKNOWN;
	if (c->lvalue)
		sym->assigned = true;
	else
		sym->read = true;
	sema_walk_keys(c, n, sym, &n->args);
	sema_decide(c, &sym->type, want == TY_HIST ? TY_UNKNOWN : want, n->tok, &sym->typed_at);
	if (sym->type == TY_STATS && want != TY_STATS) {
		stats_misuse(c, n);
		return TY_UNKNOWN;
	}
	mismatch(c, n, sym->type, want);
	return sym->type;
}

static void format_arg(Ctx *c, Node *call, int i, Type t, const char *dir, int len)
{
	Node *a = call->args.data[i];
	Type have = sema_walk_checked(c, a, t);
	if (c->report && have != TY_UNKNOWN && have != t)
		error_at(a->tok, "'%.*s' in the format of '%s' needs %s, but argument %d is %s",
			 len, dir, call->name, sema_a_type(t), i + 1, sema_a_type(have));
}

/* printf's format against its arguments; every argument is walked whatever goes wrong. */
static void check_format(Ctx *c, Node *call)
{
	Node *fmt = call->args.data[0];
	int arg = 1;
	if (fmt->kind != N_STR) {
		sema_walk(c, fmt, TY_STRING);
		if (c->report)
			error_at(fmt->tok, "the format of '%s' must be a string literal", call->name);
		goto rest;
	}
	for (const char *p = fmt->str; *p; p++) {
		if (*p != '%')
			continue;
		const char *start = p;
		if (p[1] == '%') {
			p++;
			continue;
		}
		Directive d;
		const char *conv;
		const char *end = format_directive(p + 1, &d, &conv);
		int stars = (d.width == FMT_STAR) + (d.prec == FMT_STAR);
		if (!end) {
			int len = (int)(conv - start) + (*conv >= ' ' && *conv < 127);
			if (c->report)
				error_at(fmt->tok, "invalid directive '%.*s' in the format of '%s'",
					 len, start, call->name);
			goto rest;
		}
		int len = end - start;
		for (int k = 0; k <= stars; k++, arg++) {
			if (arg >= call->args.len) {
				if (c->report)
					error_at(fmt->tok, "'%s' has too few arguments for its format "
						 "(nothing for '%.*s')", call->name, len, start);
				return;
			}
			format_arg(c, call, arg, k < stars ? TY_LONG : d.type, start, len);
		}
		p = end - 1;
	}
	if (arg < call->args.len && c->report)
		error_at(((Node *)call->args.data[arg])->tok, "'%s' has more arguments than its "
			 "format has directives", call->name);
rest:
	for (; arg < call->args.len; arg++)
		sema_walk(c, call->args.data[arg], TY_UNKNOWN);
}

static Type walk_builtin(Ctx *c, Node *n, const Builtin *b)
{
	int min = b->min_args < 0 ? 1 : b->min_args;
	if (n->args.len < min) {
		if (c->report)
			error_at(n->tok, "'%s' needs at least %d argument%s", n->name, min,
				 min == 1 ? "" : "s");
		return b->returns_string ? TY_STRING : TY_UNKNOWN;
	}
	if (b->min_args < 0) {
		check_format(c, n);
	} else {
		int from = 0;
		if (b->delimited) {                   /* printd: the delimiter first */
			Node *d = n->args.data[0];
			sema_walk(c, d, TY_STRING);
			if (d->kind != N_STR && c->report)
				error_at(d->tok, "the delimiter of '%s' must be a string literal",
					 n->name);
			from = 1;
		}
		for (int i = from; i < n->args.len; i++) {
			Node *a = n->args.data[i];
			Type t = sema_walk(c, a, TY_UNKNOWN);
			if (t == TY_HIST && (n->args.len != 1 || b->delimited) && c->report)
				error_at(a->tok, "a histogram must be printed on its own");
			else if (t == TY_STATS && c->report)
				error_at(a->tok, "statistics cannot be printed directly: print "
					 "@count, @sum, @min, @max, @avg or a histogram of them");
		}
	}
	return b->returns_string ? TY_STRING : TY_UNKNOWN;
}

static bool function_has_value(Node *n)
{
	if (!n)
		return false;
	if (n->kind == N_RETURN) {
		/* "return println(x)" parses as SystemTap parses it, and returns nothing */
		const Builtin *b = n->lhs && n->lhs->kind == N_CALL ? find_builtin(n->lhs->name) :
				   NULL;
		return n->lhs && !(b && !b->returns_string);
	}
	if (function_has_value(n->then) || function_has_value(n->els) ||
	    function_has_value(n->body))
		return true;
	for (int i = 0; i < n->args.len && n->kind == N_BLOCK; i++)
		if (function_has_value(n->args.data[i]))
			return true;
	return n->kind == N_TRY && function_has_value(n->then);
}

static void reach_function(Ctx *c, Function *f)
{
	if (f->used)
		return;
	f->used = true;
	f->script->used = true;
	f->rtype = f->ret;
	f->has_value = f->ret != TY_UNKNOWN ||
		       (f->body->kind == N_BLOCK && function_has_value(f->body));
	for (int i = 0; i < f->params.len; i++) {
		Param *p = f->params.data[i];
		Symbol *sym = new_symbol(SYM_PARAM, p->name, p->tok);
		sym->type = p->type;
		sym->typed_at = p->type ? p->tok : NULL;
		sym->arity = 0;
		sym->assigned = true;
		vec_push(&f->locals, sym);
	}
	vec_push(&c->work, f);
	vec_push(&c->s->funcs, f);
}

static Type walk_call(Ctx *c, Node *n, Type want)
{
	const Builtin *b = find_builtin(n->name);
	if (b && !find_function(c, n->name, n->args.len, &(Function *){0}))
		return walk_builtin(c, n, b);
	if (!n->func) {
		Function *other;
		Function *f = find_function(c, n->name, n->args.len, &other);
		if (!f) {
			if (other) {
				error_at(n->tok, "function '%s' takes %d argument%s, but %d %s given",
					 n->name, other->params.len, other->params.len == 1 ? "" : "s",
					 n->args.len, n->args.len == 1 ? "was" : "were");
			} else {
				const char *hint = closest_function(c, n->name);
				if (hint)
					error_at(n->tok, "unknown function '%s'; did you mean '%s'?",
						 n->name, hint);
				else
					error_at(n->tok, "unknown function '%s'", n->name);
			}
			return TY_UNKNOWN;  /* the round ends on this error: no second report */
		}
		n->func = f;
		if (!c->s->guru && !c->file->is_tapset && f->body->kind == N_EMBEDDED &&
		    strstr(f->body->str, "/* guru */"))
			error_at(n->tok, "function '%s' needs guru mode (-g)", f->name);
		reach_function(c, f);
	}
	Function *f = n->func;
	for (int i = 0; i < n->args.len; i++) {
		Node *a = n->args.data[i];
		Symbol *param = f->locals.data[i];
		Type t = sema_walk_checked(c, a, param->type);
		if (t == TY_STATS || t == TY_HIST) {
			if (c->report)
				error_at(a->tok, "statistics and histograms cannot be passed to "
					 "functions");
			continue;
		}
		sema_decide(c, &param->type, t, a->tok, &param->typed_at);
		if (c->report && t != TY_UNKNOWN && param->type != TY_UNKNOWN && t != param->type)
			error_at(a->tok, "argument %d of '%s' must be %s, not %s", i + 1, f->name,
				 sema_a_type(param->type), sema_a_type(t));
	}
	if (!f->has_value) {
		if (want != TY_UNKNOWN && c->report)
			error_at(n->tok, "function '%s' returns no value", f->name);
		return TY_UNKNOWN;
	}
	sema_decide(c, &f->rtype, want == TY_HIST || want == TY_STATS ? TY_UNKNOWN : want, n->tok,
	       NULL);
	mismatch(c, n, f->rtype, want);
	return f->rtype;
}

/* kernel.trace's $$name, $$system, $$parms and $$vars (the last two alike, as stap has
 * them for tracepoints): strings, made by pass 3 for the probe at hand. */
static const char *const trace_specials[] = {"$$name", "$$system", "$$parms", "$$vars", NULL};

static void no_such_context_var(Ctx *c, Node *n, const char *vars, bool trace)
{
	StrBuf names = {0};
	sb_putn(&names, "", 0);
	for (int i = 0; trace && trace_specials[i]; i++)
		sb_printf(&names, "%s%s", names.len ? ", " : "", trace_specials[i]);
	for (const char *p = vars; p && *p; p += strcspn(p, " "), p += *p == ' ') {
		int len = strcspn(p, ":");
		if (!memmem(p, len, "->", 2))   /* members go with their pointer */
			sb_printf(&names, "%s$%.*s", names.len ? ", " : "", len, p);
	}
	error_at(n->tok, "context variable '%s' is not available in probe point '%s'%s%s",
		 n->name, probe_point_string(c->probe->points.data[0]),
		 names.len ? "; it has " : " (it has none)", names.buf);
}

/* $base->FIELD where $base is known but FIELD is not: what to say. */
static void no_such_member(Ctx *c, Node *n, const char *vars, const char *base)
{
	TargetComp *tc = n->comps.data[0];
	char *prefix = xformat("%s->", base);
	StrBuf members = {0};
	sb_putn(&members, "", 0);
	for (const char *p = vars; *p; p += strcspn(p, " "), p += *p == ' ')
		if (!strncmp(p, prefix, strlen(prefix)))
			sb_printf(&members, "%s%.*s", members.len ? ", " : "",
				  (int)(strcspn(p, ":") - strlen(prefix)), p + strlen(prefix));
	if (tc->kind == TC_FIELD && members.len)
		error_at(tc->tok, "'$%s' has no member '%s'; its members are %s", base,
			 tc->field, members.buf);
	else
		error_at(tc->tok, "'$%s' is a value, not a pointer to a structure%s", base,
			 trace_system(c->probe->shape) && trace_arg_is_pointer(c->probe->shape,
									     base) ?
			 " whose members hwtap knows (it reads struct mce's)" : "");
}

/* Whether P's variables come from DWARF: a process probe's, or a kernel point resolved with
 * the kernel's DWARF (a source file or line, an inlined copy: kdwarf.c). */
static bool dwarf_probe(Probe *p)
{
	return p->family == &process_family || (kfunc_family(p->family) && process_site(p));
}

/* A process, kernel.function or kernel.trace probe's $var, $var->member[i], $return,
 * $$parms ... or (AT an N_ADDR node) &$var...: from the program's DWARF or the kernel's
 * BTF. */
static Type walk_typed_target(Ctx *c, Node *n, Node *at)
{
	bool report = c->report && !c->in_defined;
	bool process = dwarf_probe(c->probe);
	bool trace = c->probe->family == &tracepoint_family;
	if (!strncmp(n->name, "$$", 2)) {
		char *format;
		Vec args = {0};
		n->num = process ? process_var_list(c->probe, n, &format, &args) :
			 (trace && (!strcmp(n->name, "$$name") || !strcmp(n->name, "$$system"))) ||
			 kernel_var_list(c->s, c->probe, n, &format, &args);
		if (!n->num && report)
			error_at(n->tok, "'%s' is not one of %s", n->name, process ?
				 "$$parms, $$locals, $$vars and $$return" : trace ?
				 "$$name, $$system, $$parms and $$vars" :
				 "$$parms, $$vars and $$return (a kernel function's locals: name its "
				 "file, kernel.function(\"NAME@FILE\"), to read its DWARF)");
		return n->num ? TY_STRING : TY_UNKNOWN;
	}
	for (int i = 0; i < n->comps.len; i++) {
		TargetComp *tc = n->comps.data[i];
		if (tc->kind == TC_INDEX)
			sema_walk(c, tc->index, TY_LONG);
	}
	Type t = process ? process_target(c->probe, n, at, report) :
		 trace ? tracepoint_target(c->s, c->probe, n, at, report) :
		 kernel_target(c->s, c->probe, n, at, report);
	n->num = t != TY_UNKNOWN;
	if (at != n)
		return t;
	bool pretty = n->pretty || n->name[1 + strcspn(n->name + 1, "$")];
	if (n->num && pretty && report)
		error_at(n->tok, "'%s%s' prints a structure, which hwtap does not yet; print its "
			 "members or $$parms", n->name, n->pretty ? n->pretty : "");
	if (n->num && c->lvalue && report)
		error_at(n->tok, "context variable '%s' is read-only", n->name);
	return t;
}

/* A context variable: one of the probe point's fields, as the family declares them. */
static Type walk_target(Ctx *c, Node *n)
{
	if (!c->probe) {
		if (c->report && !c->in_defined)
			error_at(n->tok, "context variable '%s' can only be used in a probe body",
				 n->name);
		return TY_UNKNOWN;
	}
	if (c->probe->family == &process_family || kfunc_family(c->probe->family) ||
	    c->probe->family == &tracepoint_family)
		return walk_typed_target(c, n, n);
	const PointShape *shape = c->probe->shape;
	const char *vars = shape ? shape->context_vars : NULL;
	bool trace = shape && trace_system(shape);
	if (trace && !strncmp(n->name, "$$", 2)) {
		for (int i = 0; trace_specials[i]; i++)
			if (!strcmp(n->name, trace_specials[i])) {
				n->num = 1;
				return TY_STRING;
			}
	}
	char *key = target_key(n);
	const char *found = context_var_find(vars, key, NULL);
	char *base = xstrndup(n->name + 1, strcspn(n->name + 1, "$"));
	if (!found && n->comps.len && *base && context_var_find(vars, base, NULL)) {
		n->num = 0;
		if (c->report && !c->in_defined)
			no_such_member(c, n, vars, base);
		return TY_UNKNOWN;
	}
	if (!found) {
		n->num = 0;                   /* for @defined() */
		if (c->report && !c->in_defined)
			no_such_context_var(c, n, vars, trace);
		return TY_UNKNOWN;
	}
	n->num = 1;
	int used = strstr(key, "->") ? 1 : 0;
	if (n->comps.len > used && c->report) {
		TargetComp *tc = n->comps.data[used];
		error_at(tc->tok, "'%s%s%s' is a value, not a pointer to a structure", n->name,
			 used ? "->" : "", used ? ((TargetComp *)n->comps.data[0])->field : "");
	}
	bool pretty = n->pretty || n->name[1 + strcspn(n->name + 1, "$")];
	if (pretty && c->report)
		error_at(n->tok, "'%s%s' prints a structure, which hwtap does not; print its "
			 "members%s", n->name, n->pretty ? n->pretty : "",
			 trace ? " or $$parms" : "");
	if (c->lvalue && c->report)
		error_at(n->tok, "context variable '%s' is read-only", n->name);
	return !strncmp(found, "string", 6) ? TY_STRING : TY_LONG;
}

static void unsupported(Ctx *c, Node *n, const char *what)
{
	if (c->report && !c->in_defined)
		error_at(n->tok, "%s needs the kernel's debug information, which hwtap does not "
			 "use", what);
}

/* What @defined(n) says, after n was walked: a context variable the point has; nothing
 * that needs the kernel's debug information (@cast, @var, '->' on a pointer, '&'), which
 * hwtap does not use, so that @defined(@cast(...)) ? ... : fallback takes the fallback. */
static bool resolvable(Node *n)
{
	switch (n->kind) {
	case N_TARGET: return n->num;
	case N_AT_CAST:
	case N_AT_VAR:
	case N_DEREF:
	case N_ADDR: return n->plan != NULL;     /* &$var in a process probe */
	default: return true;
	}
}

/* @defined(x) && ... with x undefined, @defined(x) || ... with x defined: the right side
 * is never evaluated, and may name what the probe lacks (as in SystemTap). */
bool logical_rhs_dead(Node *n)
{
	int v = -1;                     /* the left side's value, when pass 2 knows it */
	bool negated = false;
	Node *l = n->lhs;
	while (l && l->kind == N_UNARY && !strcmp(l->op, "!")) {
		negated = !negated;
		l = l->lhs;
	}
	if (l && l->kind == N_AT_DEFINED)
		v = negated ? !l->num : !!l->num;
	return n->kind == N_LOGICAL && v >= 0 &&
	       ((!strcmp(n->op, "&&") && !v) || (!strcmp(n->op, "||") && v));
}

/* @cast(p, "TYPE"[, "kernel"])->member...: the kernel's TYPE at address p, its members
 * read through the kernel's BTF (AT: the '&' over it, or N). */
static Type walk_cast(Ctx *c, Node *n, Node *at)
{
	bool report = c->report && !c->in_defined;
	sema_walk(c, n->lhs, TY_LONG);
	for (int i = 0; i < n->comps.len; i++) {
		TargetComp *tc = n->comps.data[i];
		if (tc->kind == TC_INDEX)
			sema_walk(c, tc->index, TY_LONG);
	}
	at->plan = NULL;
	const char *type = ((Node *)n->args.data[0])->str, *why;
	const char *mod = n->args.len > 1 ? ((Node *)n->args.data[1])->str : "kernel";
	/* "kernel", "kernel<linux/sched.h>", a module ("ext4": the types it shares with the
	 * kernel), alternatives "A:B"; not a program's path or header ("<stdio.h>") */
	bool kernel = false;
	for (const char *m = mod; *m; m += strcspn(m, ":"), m += *m == ':')
		kernel |= (!strncmp(m, "kernel", 6) && strchr(":<", m[6])) ||
			  (*m != '/' && *m != '<' && *m != '.' && !strpbrk(m, "/<"));
	if (!kernel) {
		if (report)
			error_at(((Node *)n->args.data[1])->tok, "@cast(..., \"%s\", \"%s\"): hwtap "
				 "casts to the kernel's types only (its BTF): a program's need its "
				 "DWARF", type, mod);
		return TY_UNKNOWN;
	}
	KBtf *k = kbtf(c->s, &why);
	if (!k) {
		if (report)
			error_at(n->tok, "@cast(..., \"%s\"): no BTF for kernel %s (%s)", type,
				 c->s->kernel_release, why ? why : "not found");
		return TY_UNKNOWN;
	}
	int id = kbtf_named_type(k, type);
	if (!id) {
		if (report)
			error_at(((Node *)n->args.data[0])->tok, "@cast(..., \"%s\"): the kernel "
				 "has no type '%s' (a struct, union, typedef or integer type of its "
				 "BTF)", type, type);
		return TY_UNKNOWN;
	}
	Token *where;
	at->plan = kbtf_target(k, id, "(\0010\002)", n, at != n, &why, &where);
	if (!at->plan) {
		if (report)
			error_at(where, "%s", why);
		return TY_UNKNOWN;
	}
	if (at == n && c->lvalue && report)
		error_at(n->tok, "'@cast' is read-only");
	return ((UTarget *)at->plan)->type;
}

static Type walk_hist(Ctx *c, Node *n)
{
	Type t = sema_walk(c, n->lhs, TY_STATS);
	if (t != TY_STATS && t != TY_UNKNOWN && c->report)
		error_at(n->lhs->tok, "'%s' needs statistics (values added with '<<<')", n->op);
	if (!strcmp(n->op, "@hist_linear")) {
		int64_t v[3];
		for (int i = 0; i < 3; i++) {
			Node *a = n->args.data[i];
			sema_walk(c, a, TY_LONG);
			if (a->kind != N_NUM) {
				if (c->report)
					error_at(a->tok, "the bounds and step of @hist_linear must be "
						 "number literals");
				return TY_HIST;
			}
			v[i] = (int64_t)a->num;
		}
		Node *step = n->args.data[2];
		if (c->report && v[2] <= 0)
			error_at(step->tok, "the step of @hist_linear must be positive");
		else if (c->report && v[1] <= v[0])
			error_at(((Node *)n->args.data[1])->tok, "the upper bound of @hist_linear "
				 "must be above its lower bound");
		else if (c->report && (v[1] - v[0]) / v[2] > 1000)
			error_at(step->tok, "@hist_linear would have %lld buckets; the most is 1000",
				 (long long)((v[1] - v[0]) / v[2]));
	}
	return TY_HIST;
}

static bool is_lvalue(Node *n)
{
	return n->kind == N_VAR || n->kind == N_INDEX || n->kind == N_TARGET;
}

Type sema_walk_lvalue(Ctx *c, Node *n, Type want)
{
	bool saved = c->lvalue;
	c->lvalue = true;
	Type t = sema_walk(c, n, want);
	c->lvalue = saved;
	return t;
}

/* x++ and x += y write x, and read it too when their value is used (as SystemTap
 * counts it for the end-of-run print of globals written but never read). */
static void used_as_value(Ctx *c, Node *n)
{
	if (c->discarded != n && n->lhs->sym)
		n->lhs->sym->read = true;
}

/* N, whose value nothing uses: a statement, a for loop's first and third parts. */
Type sema_walk_discarded(Ctx *c, Node *n)
{
	c->discarded = n;
	Type t = sema_walk(c, n, TY_UNKNOWN);
	c->discarded = NULL;
	return t;
}

static Type walk_assign(Ctx *c, Node *n, Type want)
{
	const char *op = n->op;
	if (!is_lvalue(n->lhs)) {
		if (c->report)
			error_at(n->lhs->tok, "the left side of '%s' must be a variable or an array "
				 "element", op);
		sema_walk(c, n->rhs, TY_UNKNOWN);
		return TY_UNKNOWN;
	}
	if (!strcmp(op, "<<<")) {
		Type t = sema_walk_lvalue(c, n->lhs, TY_STATS);
		if (t != TY_STATS && t != TY_UNKNOWN && c->report)
			error_at(n->tok, "'<<<' adds to statistics, but '%s' is %s",
				 n->lhs->name ? n->lhs->name : "this", sema_a_type(t));
		sema_walk(c, n->rhs, TY_LONG);
		return TY_LONG;
	}
	if (n->lhs->sym && n->lhs->sym->type == TY_STATS) {
		if (c->report)
			error_at(n->tok, "'%s' holds statistics: add values with '<<<', not '%s'",
				 n->lhs->name, op);
		return TY_UNKNOWN;
	}
	Type t;
	if (!strcmp(op, "=")) {
		Type lt = n->lhs->sym ? n->lhs->sym->type : TY_UNKNOWN;
		t = sema_walk_checked(c, n->rhs, lt != TY_UNKNOWN ? lt : want);
		if (t == TY_STATS || t == TY_HIST) {
			if (c->report)
				error_at(n->rhs->tok, "statistics and histograms cannot be assigned");
			return TY_UNKNOWN;
		}
		if (t == TY_UNKNOWN && n->rhs->kind == N_CALL && c->report &&
		    ((n->rhs->func && !n->rhs->func->has_value) ||
		     (!n->rhs->func && find_builtin(n->rhs->name) &&
		      !find_builtin(n->rhs->name)->returns_string))) {
			error_at(n->rhs->tok, "function '%s' returns no value", n->rhs->name);
			return TY_UNKNOWN;
		}
		Type l = sema_walk_lvalue(c, n->lhs, t);
		if (t == TY_UNKNOWN && l != TY_UNKNOWN)
			sema_walk(c, n->rhs, l);
		return l != TY_UNKNOWN ? l : t;
	}
	t = !strcmp(op, ".=") ? TY_STRING : TY_LONG;
	sema_walk_lvalue(c, n->lhs, t);
	sema_walk(c, n->rhs, t);
	used_as_value(c, n);
	if (c->report && t == TY_LONG && (!strcmp(op, "/=") || !strcmp(op, "%=")) &&
	    n->rhs->kind == N_NUM && n->rhs->num == 0)
		error_at(n->rhs->tok, "division by zero");
	return t;
}

static Type walk_in(Ctx *c, Node *n)
{
	Node *arr = n->rhs;
	Symbol *sym = sema_array_symbol(c, arr);
	if (!sym)
		return TY_LONG;
	sym->read = true;
	Vec keys = n->args;
	if (arr->kind == N_INDEX) {         /* [a, b] in arr[*, "x"]: the slice fixes keys */
		c->slice_ok = true;
		sema_walk_keys(c, arr, sym, &arr->args);
		c->slice_ok = false;
	}
	c->slice_ok = true;
	sema_walk_keys(c, n, sym, &keys);
	c->slice_ok = false;
	return TY_LONG;
}

static Type walk_compare(Ctx *c, Node *n)
{
	Type l = sema_walk(c, n->lhs, TY_UNKNOWN);
	Type r = sema_walk_checked(c, n->rhs, l);
	if (l == TY_UNKNOWN && r != TY_UNKNOWN)
		l = sema_walk_checked(c, n->lhs, r);
	if (c->report && l != TY_UNKNOWN && r != TY_UNKNOWN && l != r)
		error_at(n->tok, "'%s' compares %s with %s", n->op, sema_a_type(l), sema_a_type(r));
	else if (c->report && (l == TY_STATS || l == TY_HIST))
		error_at(n->tok, "'%s' cannot compare %s", n->op, sema_a_type(l));
	return TY_LONG;
}

static Type walk_regex(Ctx *c, Node *n)
{
	sema_walk(c, n->lhs, TY_STRING);
	sema_walk(c, n->rhs, TY_STRING);
	if (!c->report)
		return TY_LONG;
	if (n->rhs->kind != N_STR) {
		error_at(n->rhs->tok, "the regular expression after '%s' must be a string "
			 "literal", n->op);
		return TY_LONG;
	}
	regex_check(n->rhs);
	return TY_LONG;
}

static Type walk_at(Ctx *c, Node *n)
{
	switch (n->kind) {
	case N_AT_OP: {
		Type t = sema_walk(c, n->lhs, TY_STATS);
		if (t != TY_STATS && t != TY_UNKNOWN && c->report)
			error_at(n->lhs->tok, "'%s' needs statistics (values added with '<<<'), "
				 "but this is %s", n->op, sema_a_type(t));
		for (int i = 0; i < n->args.len; i++)
			sema_walk(c, n->args.data[i], TY_LONG);
		return TY_LONG;
	}
	case N_AT_DEFINED: {
		bool saved = c->in_defined;
		c->in_defined = true;
		sema_walk(c, n->lhs, TY_UNKNOWN);
		c->in_defined = saved;
		n->num = resolvable(n->lhs);
		return TY_LONG;
	}
	case N_AT_ENTRY:
		/* computed by the companion probe where the function's body starts (its body
		 * is these nodes), read by the .return probe (probe_process.c) */
		if (c->probe && c->probe->entry_for) {
			Type t = sema_walk(c, n->lhs, TY_UNKNOWN);
			return t == TY_STRING ? TY_STRING : TY_LONG;
		}
		if (c->probe && c->probe->entry_probe) {
			if (c->probe->entries.len > HWTAP_UENTRY_MAX && c->report &&
			    n->num == HWTAP_UENTRY_MAX)
				error_at(n->tok, "more than %d @entry expressions in one probe",
					 HWTAP_UENTRY_MAX);
			/* the companion's walk of the same expression types it */
			if (n->lhs->type == TY_STRING && c->report) {
				int before = 0;
				for (int i = 0; i < (int)n->num; i++)
					before += ((Node *)c->probe->entries.data[i])->lhs->type ==
						  TY_STRING;
				if (before == HWTAP_UENTRY_STRS_MAX)
					error_at(n->tok, "more than %d strings in the @entry "
						 "expressions of one probe", HWTAP_UENTRY_STRS_MAX);
			}
			return n->lhs->type == TY_STRING ? TY_STRING :
			       n->lhs->type == TY_UNKNOWN ? TY_UNKNOWN : TY_LONG;
		}
		if (c->report)
			error_at(n->tok, "@entry is only meaningful in .return probes");
		return TY_UNKNOWN;
	case N_AT_PERF:
		for (int i = 0; i < c->counters.len; i++)
			if (!strcmp(c->counters.data[i], n->lhs->str))
				return TY_LONG;
		if (c->report)
			error_at(n->lhs->tok, "@perf(\"%s\") names no counter: declare one with a "
				 "perf probe's .counter(\"%s\")", n->lhs->str, n->lhs->str);
		return TY_LONG;
	case N_AT_VAR:
		/* in a process probe, the $variable it names (from then on) */
		if (c->probe && dwarf_probe(c->probe)) {
			if (!process_at_var(c->probe, n, c->report && !c->in_defined))
				return TY_UNKNOWN;
			return walk_target(c, n);
		}
		unsupported(c, n, xformat("'%s'", n->op));
		return TY_UNKNOWN;
	case N_AT_CAST:
		return walk_cast(c, n, n);
	default:
		if (c->report)
			error_at(n->tok, "'%s' is not supported by hwtap", n->op);
		return TY_UNKNOWN;
	}
}

Type sema_walk(Ctx *c, Node *n, Type want)
{
	Type t;
	switch (n->kind) {
	case N_NUM: t = TY_LONG; break;
	case N_STR: t = TY_STRING; break;
	case N_VAR: return n->type = walk_var(c, n, want);
	case N_INDEX: return n->type = walk_index(c, n, want);
	case N_CALL: return n->type = walk_call(c, n, want);
	case N_TARGET: t = walk_target(c, n); break;
	case N_STAR:
		if (c->report)
			error_at(n->tok, "'*' is only allowed as an array key in delete, 'in' and "
				 "foreach");
		return TY_UNKNOWN;
	case N_DEREF:
		sema_walk(c, n->lhs, TY_UNKNOWN);
		unsupported(c, n, "'->' on a pointer");
		return TY_UNKNOWN;
	case N_ADDR:            /* & @cast(0, "t")->m: it is the @cast that cannot be */
		if (c->probe && (c->probe->family == &process_family ||
				 kfunc_family(c->probe->family) ||
				 c->probe->family == &tracepoint_family) &&
		    n->lhs->kind == N_TARGET && strncmp(n->lhs->name, "$$", 2)) {
			t = walk_typed_target(c, n->lhs, n);
			break;
		}
		if (n->lhs->kind == N_AT_CAST) {
			t = walk_cast(c, n->lhs, n);
			break;
		}
		unsupported(c, n, n->lhs->kind == N_AT_VAR ? xformat("'%s'", n->lhs->op) : "'&'");
		return TY_UNKNOWN;
	case N_AT_OP:
	case N_AT_DEFINED:
	case N_AT_ENTRY:
	case N_AT_PERF:
	case N_AT_CAST:
	case N_AT_VAR:
	case N_AT_OTHER:
		t = walk_at(c, n);
		break;
	case N_HIST:
		t = walk_hist(c, n);
		if (want != TY_UNKNOWN && want != TY_HIST && c->report)
			error_at(n->tok, "a histogram can only be printed, indexed or iterated "
				 "with foreach");
		return n->type = t;
	case N_HIST_INDEX:
		walk_hist(c, n->lhs);
		sema_walk(c, n->rhs, TY_LONG);
		t = TY_LONG;
		break;
	case N_UNARY:
	case N_BINARY:
	case N_LOGICAL:
		if (c->report && !strcmp(n->op, ">>>"))   /* SystemTap 4.8 refuses it here too */
			error_at(n->tok, "'>>>' (a logical shift right) parses, but SystemTap 4.8 "
				 "and hwtap do not elaborate it: write (x >> n) & mask");
		sema_walk(c, n->lhs, TY_LONG);
		if (n->rhs && !logical_rhs_dead(n))
			sema_walk(c, n->rhs, TY_LONG);
		if (c->report && n->rhs && (!strcmp(n->op, "/") || !strcmp(n->op, "%")) &&
		    n->rhs->kind == N_NUM && n->rhs->num == 0)
			error_at(n->rhs->tok, "division by zero");
		t = TY_LONG;
		break;
	case N_PREINC:
	case N_POSTINC:
		if (!is_lvalue(n->lhs) && c->report)
			error_at(n->lhs->tok, "'%s' needs a variable or an array element", n->op);
		sema_walk_lvalue(c, n->lhs, TY_LONG);
		used_as_value(c, n);
		t = TY_LONG;
		break;
	case N_CONCAT:
		sema_walk(c, n->lhs, TY_STRING);
		sema_walk(c, n->rhs, TY_STRING);
		t = TY_STRING;
		break;
	case N_COMPARE: t = walk_compare(c, n); break;
	case N_REGEX: t = walk_regex(c, n); break;
	case N_TERNARY: {
		sema_walk(c, n->cond, TY_LONG);
		if (n->cond->kind == N_AT_DEFINED)  /* @defined(x) ? x : y: one side is dead */
			return n->type = sema_walk(c, n->cond->num ? n->then : n->els, want);
		Type a = sema_walk_checked(c, n->then, want);
		Type b = sema_walk_checked(c, n->els, a != TY_UNKNOWN ? a : want);
		if (a == TY_UNKNOWN && b != TY_UNKNOWN)
			a = sema_walk_checked(c, n->then, b);
		if (c->report && a != TY_UNKNOWN && b != TY_UNKNOWN && a != b)
			error_at(n->tok, "the two sides of '?:' differ: %s and %s", sema_a_type(a),
				 sema_a_type(b));
		t = a != TY_UNKNOWN ? a : b;
		break;
	}
	case N_ASSIGN: return n->type = walk_assign(c, n, want);
	case N_IN: t = walk_in(c, n); break;
	case N_EMBEDDED_EXPR:
		if (!c->file->is_tapset && !c->s->guru && c->report)
			error_at(n->tok, "embedded C code needs guru mode (-g)");
		t = strstr(n->str, "/* string */") ? TY_STRING : TY_LONG;
		break;
	default:
		unreachable();
	}
	mismatch(c, n, t, want);
	return n->type = t;
}

/* ---- the rounds ---------------------------------------------------------------------------- */

static void walk_probe(Ctx *c, Probe *p)
{
	c->file = p->script;
	c->locals = &p->locals;
	c->func = NULL;
	c->probe = p;
	ProbePoint *pp = p->points.data[0];
	if (pp->cond) {
		c->in_condition = true;
		sema_walk(c, pp->cond, TY_LONG);
		c->in_condition = false;
	}
	sema_walk_stmt(c, p->body);
}

static void walk_function(Ctx *c, Function *f)
{
	c->file = f->script;
	c->locals = &f->locals;
	c->func = f;
	c->probe = NULL;
	sema_walk_stmt(c, f->body);
}

/* A tapset file's own probes (argv.stp's probe init) join the script's once the script uses
 * something of the file, as SystemTap takes them: how many joined. */
static int derive_tapset_probes(Ctx *c)
{
	int n = 0;
	for (int i = 0; i < c->s->tapsets.len; i++) {
		Script *sc = c->s->tapsets.data[i];
		if (!sc->used || sc->probes_derived)
			continue;
		sc->probes_derived = true;
		for (int j = 0; j < sc->probes.len; j++, n++)
			derive_probes(c->s, &c->counters, sc->probes.data[j]);
	}
	return n;
}

static void round_all(Ctx *c)
{
	for (int i = 0; i < c->s->probes.len; i++)
		walk_probe(c, c->s->probes.data[i]);
	/* functions reached in this round are walked in it too */
	for (int i = 0; i < c->work.len; i++)
		walk_function(c, c->work.data[i]);
}

static bool warned_before(Ctx *c, Token *tok)
{
	for (int i = 0; i < c->warned.len; i++)
		if (c->warned.data[i] == tok)
			return true;
	vec_push(&c->warned, tok);
	return false;
}

static void check_resolved(Ctx *c, Vec *locals, const char *where)
{
	for (int i = 0; i < locals->len; i++) {
		Symbol *sym = locals->data[i];
		if (sym->kind == SYM_LOCAL && !sym->assigned && sym->read &&
		    !warned_before(c, sym->decl))
			warn_at(sym->decl, "local variable '%s' is never assigned in %s", sym->name,
				where);
		if (sym->type == TY_UNKNOWN && (sym->read || sym->assigned))
			error_at(sym->decl, "the type of '%s' cannot be inferred: use it as a "
				 "number or a string somewhere", sym->name);
	}
}

static int by_first_use(const void *a, const void *b)
{
	const Symbol *x = *(Symbol *const *)a, *y = *(Symbol *const *)b;
	return x->first_use - y->first_use;
}

/* SystemTap's end probe that prints the script's globals written but never read
 * (display.c), elaborated after the rest: every type is known by then. */
static void add_display(Ctx *c)
{
	Vec syms = {0};
	for (int i = 0; i < c->globals.len; i++) {
		Symbol *sym = c->globals.data[i];
		if (sym->assigned && !sym->read && sym->global->script == c->s->user)
			vec_push(&syms, sym);
	}
	if (syms.len > 1)
		qsort(syms.data, syms.len, sizeof(void *), by_first_use);
	char *text = display_source(&syms);
	if (!text)
		return;
	Script *sc = parse_script(new_srcfile("<end: globals never read>", text, strlen(text)),
				  c->s);
	int from = c->s->probes.len;
	for (int i = 0; sc && i < sc->probes.len; i++) {
		Probe *p = sc->probes.data[i];
		p->script = c->s->user;         /* it sees the script's private globals */
		derive_probes(c->s, &c->counters, p);
	}
	for (int i = from; i < c->s->probes.len; i++) {
		Probe *p = c->s->probes.data[i];
		walk_probe(c, p);
		check_resolved(c, &p->locals, "the end probe printing globals");
	}
}

int elaborate(Session *s)
{
	Ctx c = {.s = s};
	for (int i = 0; i < s->user->embeds.len && !s->guru; i++)
		error_at(s->user->embeds.data[i], "embedded C code needs guru mode (-g)");
	declare_globals(&c, s->user);
	c.tapset_parses = -1;
	declare_tapset_globals(&c);
	for (int i = 0; i < s->user->probes.len && !too_many_errors(); i++)
		derive_probes(s, &c.counters, s->user->probes.data[i]);
	if (!diag_errors)
		perf_check_groups(s);
	if (diag_errors)
		return diag_errors;
	if (!s->probes.len) {
		error_plain("the script has no probes to run");
		return diag_errors;
	}
	int errors = diag_errors;
	for (int round = 0; round < 50; round++) {
		c.changes = 0;
		round_all(&c);
		if (diag_errors > errors)    /* name errors: types would only add noise */
			return diag_errors;
		c.changes += derive_tapset_probes(&c);
		if (!c.changes)
			break;
	}
	c.report = true;
	round_all(&c);
	if (diag_errors > errors)       /* what could not be inferred follows from those */
		return diag_errors;
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		check_resolved(&c, &p->locals, xformat("probe '%s'", p->derivation));
	}
	for (int i = 0; i < s->funcs.len; i++) {
		Function *f = s->funcs.data[i];
		check_resolved(&c, &f->locals, xformat("function '%s'", f->name));
		if (f->has_value && f->rtype == TY_UNKNOWN)
			error_at(f->tok, "the return type of '%s' cannot be inferred", f->name);
	}
	add_display(&c);
	if (diag_errors > errors)
		return diag_errors;
	for (int i = 0; i < c.globals.len; i++) {
		Symbol *sym = c.globals.data[i];
		if (!sym->read && !sym->assigned) {
			if (sym->global->script == s->user)
				warn_at(sym->decl, "global '%s' is never used", sym->name);
			continue;
		}
		if (sym->read && !sym->assigned && !sym->global->init &&
		    sym->global->script == s->user)
			warn_at(sym->decl, "global '%s' is never assigned", sym->name);
		if (sym->type == TY_UNKNOWN && (sym->read || sym->assigned))
			error_at(sym->decl, "the type of global '%s' cannot be inferred", sym->name);
		vec_push(&s->globals, sym->global);
	}
	if (!diag_errors)
		check_program(s);
	return diag_errors;
}
