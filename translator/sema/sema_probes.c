/* sema_probes.c - pass 2's probe points: each point of a user probe, through the aliases
 * it names (wildcards, alternatives, '?' '!' and '+'), to the probe families that take it;
 * one derived probe per concrete point, with a copy of the user's body wrapped in the
 * prologues and epilogues of the aliases it went through. sema.c types what this makes.
 */
#include "hwtap.h"
#include "sema.h"

#include <stdlib.h>
#include <string.h>

/* What deriving needs of sema.c's context. */
typedef struct {
	Session *s;
	Vec *counters;              /* names of perf .counter("NAME") events so far */
} Derive;

/* ---- copies of probe bodies ------------------------------------------------------------ */

static Node *copy_node(Node *n);

static Vec copy_vec(Vec v)
{
	Vec out = {0};
	for (int i = 0; i < v.len; i++)
		vec_push(&out, copy_node(v.data[i]));
	return out;
}

static Node *copy_node(Node *n)
{
	if (!n)
		return NULL;
	Node *c = new_node(n->kind, n->tok);
	*c = *n;
	c->lhs = copy_node(n->lhs);
	c->rhs = copy_node(n->rhs);
	c->cond = copy_node(n->cond);
	c->then = copy_node(n->then);
	c->els = copy_node(n->els);
	c->init = copy_node(n->init);
	c->inc = copy_node(n->inc);
	c->body = copy_node(n->body);
	c->value = copy_node(n->value);
	c->array = copy_node(n->array);
	c->limit = copy_node(n->limit);
	c->args = copy_vec(n->args);
	c->keys = copy_vec(n->keys);
	Vec comps = {0};
	for (int i = 0; i < n->comps.len; i++) {
		TargetComp *tc = xalloc(sizeof(*tc));
		*tc = *(TargetComp *)n->comps.data[i];
		tc->index = copy_node(tc->index);
		vec_push(&comps, tc);
	}
	c->comps = comps;
	c->sym = NULL;
	c->func = NULL;
	c->plan = NULL;
	c->type = TY_UNKNOWN;
	return c;
}

/* ---- probe points and aliases -------------------------------------------------------------- */

enum { MAX_ALIAS_DEPTH = 32 };

typedef struct {
	Probe *user;
	ProbePoint *user_point;
	VEC(Node *) before, after;         /* alias prologues and epilogues, outermost last */
	const char *derivation;
	const char *pn;                    /* the outermost alias name on the way, or NULL */
	/* for families decided at load: */
	bool optional;                     /* a point on the way had '?' or '!' */
	VEC(Probe *) unless;               /* probes of earlier '!' alternatives on the way */
} Expansion;

static void add_derived(Derive *c, Expansion *e, ProbePoint *pp, const ProbeFamily *f,
			const PointShape *sh)
{
	Probe *d = xalloc(sizeof(*d));
	d->tok = e->user->tok;
	d->script = e->user->script;
	d->origin = e->user;
	d->user_point = e->user_point;
	d->family = f;
	d->shape = sh;
	ProbePoint *point = xalloc(sizeof(*point));
	*point = *pp;
	point->cond = copy_node(e->user_point->cond);
	point->optional = point->sufficient = false;
	vec_push(&d->points, point);
	d->derivation = e->derivation;
	d->pn = e->pn;
	if (f->decided_at_load) {
		d->load_optional = e->optional || pp->optional;
		for (int i = 0; i < e->unless.len; i++)
			vec_push(&d->unless, e->unless.data[i]);
	}
	/* the first probe derived from a user probe takes its body; later ones a copy */
	Node *user_body = e->user->body_taken ? copy_node(e->user->body) : e->user->body;
	e->user->body_taken = true;
	Node *body = user_body;
	if (e->before.len || e->after.len) {
		body = new_node(N_BLOCK, e->user->body->tok);
		for (int i = e->before.len - 1; i >= 0; i--)
			vec_push(&body->args, copy_node(e->before.data[i]));
		vec_push(&body->args, user_body);
		for (int i = 0; i < e->after.len; i++)
			vec_push(&body->args, copy_node(e->after.data[i]));
	}
	d->body = body;
	vec_push(&c->s->probes, d);
	for (int i = 0; i < pp->comps.len; i++) {
		Component *comp = pp->comps.data[i];
		if (strcmp(f->name, "perf") || strcmp(comp->name, "counter") || !comp->arg)
			continue;
		for (int j = 0; j < c->counters->len; j++)
			if (!strcmp(c->counters->data[j], comp->arg->str))
				error_at(comp->arg->tok, "perf counter \"%s\" is defined twice: "
					 "@perf(\"%s\") must name one event", comp->arg->str,
					 comp->arg->str);
		vec_push(c->counters, comp->arg->str);
	}
}

static bool has_wildcard(ProbePoint *pp)
{
	for (int i = 0; i < pp->comps.len; i++)
		if (strchr(((Component *)pp->comps.data[i])->name, '*'))
			return true;
	return false;
}

static bool same_component(Component *a, Component *b)
{
	if (strcmp(a->name, b->name) || a->has_parens != b->has_parens || !a->arg != !b->arg)
		return false;
	if (!a->arg)
		return true;
	if (a->arg->kind != b->arg->kind)
		return false;
	return a->arg->kind == N_NUM ? a->arg->num == b->arg->num :
	       a->arg->str_len == b->arg->str_len && !memcmp(a->arg->str, b->arg->str,
							     a->arg->str_len);
}

static int expand(Derive *c, Expansion *e, ProbePoint *pp, int depth);

/* A '!' point's probes, derived from FIRST on: whether they are all decided when the
 * module starts. Then the alternatives after it are kept, each to be skipped there if
 * one of these is created (appended to SUFFICIENT); else pass 2 stops at the point. */
static bool sufficient_at_load(Derive *c, int first, Vec *sufficient)
{
	for (int i = first; i < c->s->probes.len; i++)
		if (!((Probe *)c->s->probes.data[i])->family->decided_at_load)
			return false;
	for (int i = first; i < c->s->probes.len; i++)
		vec_push(sufficient, c->s->probes.data[i]);
	return true;
}

static void set_unless(Expansion *inner, const Expansion *outer, const Vec *sufficient)
{
	inner->unless = (Vec){0};
	for (int i = 0; i < outer->unless.len; i++)
		vec_push(&inner->unless, outer->unless.data[i]);
	for (int i = 0; i < sufficient->len; i++)
		vec_push(&inner->unless, sufficient->data[i]);
}

/* pp = alias name + suffix: expand each of the alias's points with the suffix appended. */
static int expand_alias(Derive *c, Expansion *e, ProbePoint *pp, Probe *alias, ProbePoint *name,
			int depth)
{
	int found = 0;
	Expansion inner = *e;
	inner.before = (Vec){0};
	inner.after = (Vec){0};
	for (int i = 0; i < e->before.len; i++)
		vec_push(&inner.before, e->before.data[i]);
	for (int i = 0; i < e->after.len; i++)
		vec_push(&inner.after, e->after.data[i]);
	if (alias->epilogue)
		vec_push(&inner.after, alias->body);
	else
		vec_push(&inner.before, alias->body);
	if (alias->epilogue_body)
		vec_push(&inner.after, alias->epilogue_body);
	/* pn() is the first alias name met, as stap's script-level point after wildcards */
	if (!inner.pn)
		inner.pn = probe_point_string(pp);
	alias->script->used = true;
	Vec sufficient = {0};
	for (int i = 0; i < alias->points.len; i++) {
		ProbePoint *target = alias->points.data[i];
		inner.optional = e->optional || target->optional;
		set_unless(&inner, e, &sufficient);
		int first = c->s->probes.len;
		ProbePoint *np = xalloc(sizeof(*np));
		*np = *target;
		np->comps = (Vec){0};
		for (int j = 0; j < target->comps.len; j++)
			vec_push(&np->comps, target->comps.data[j]);
		for (int j = name->comps.len; j < pp->comps.len; j++)
			vec_push(&np->comps, pp->comps.data[j]);
		inner.derivation = xformat("%s <- %s", probe_point_string(np), e->derivation);
		int errors = diag_errors;
		int n = expand(c, &inner, np, depth + 1);
		if (!n && !target->optional) {
			if (diag_errors == errors && !e->optional)
				error_at(target->tok, "probe alias '%s' expands to '%s', which is not a "
					 "probe point", probe_point_string(name),
					 probe_point_string(np));
			return 0;
		}
		found += n;
		if (n && target->sufficient && !sufficient_at_load(c, first, &sufficient))
			break;
	}
	return found;
}

static void alias_candidates(Derive *c, Vec *aliases)
{
	Vec scripts = {0};
	all_scripts(c->s, &scripts);
	for (int i = 0; i < scripts.len; i++) {
		Script *sc = scripts.data[i];
		for (int j = 0; j < sc->aliases.len; j++)
			vec_push(aliases, sc->aliases.data[j]);
	}
}

/* The tapset files whose aliases PP may name: by its first component, or all of them
 * when that has a wildcard. */
static void need_aliases(Session *s, ProbePoint *pp)
{
	const char *first = ((Component *)pp->comps.data[0])->name;
	tapset_need(s, TAPSET_ALIAS, strpbrk(first, "*?[") ? NULL : first);
}

static int expand_wildcard(Derive *c, Expansion *e, ProbePoint *pp, int depth)
{
	char *pattern = probe_point_string(pp);
	need_aliases(c->s, pp);
	Vec aliases = {0};
	alias_candidates(c, &aliases);
	int found = 0;
	for (int i = 0; i < aliases.len; i++) {
		Probe *a = aliases.data[i];
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *name = a->alias_names.data[j];
			if (point_pattern_matches(pattern, probe_point_string(name))) {
				Expansion inner = *e;
				found += expand_alias(c, &inner, name, a, name, depth);
			}
		}
	}
	return found;
}

/* Expands one probe point into derived probes; returns how many it made. */
static int expand(Derive *c, Expansion *e, ProbePoint *pp, int depth)
{
	if (depth > MAX_ALIAS_DEPTH) {
		error_at(e->user_point->tok, "probe alias expansion of '%s' is too deep "
			 "(an alias that expands to itself?)", probe_point_string(e->user_point));
		return -1000000;
	}
	if (has_wildcard(pp))
		return expand_wildcard(c, e, pp, depth);
	/* The longest name wins, as in SystemTap's tree of points: an alias named exactly pp,
	 * then a built-in point, then an alias naming a prefix of pp (the rest a suffix),
	 * the longest first. So timer.profile.tick is not timer.profile + ".tick". */
	need_aliases(c->s, pp);
	Vec aliases = {0};
	alias_candidates(c, &aliases);
	Probe *best = NULL;
	ProbePoint *best_name = NULL;
	for (int i = 0; i < aliases.len; i++) {
		Probe *a = aliases.data[i];
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *name = a->alias_names.data[j];
			if (name->comps.len > pp->comps.len ||
			    (best_name && name->comps.len <= best_name->comps.len))
				continue;
			int k;
			for (k = 0; k < name->comps.len; k++)
				if (!same_component(name->comps.data[k], pp->comps.data[k]))
					break;
			if (k == name->comps.len) {
				best = a;
				best_name = name;
			}
		}
	}
	if (best && best_name->comps.len == pp->comps.len)
		return expand_alias(c, e, pp, best, best_name, depth);
	const PointShape *sh;
	const ProbeFamily *f = find_family(pp, c->s, &sh);
	if (!f && best)
		return expand_alias(c, e, pp, best, best_name, depth);
	if (!f)
		return 0;
	if (sh->unavailable) {
		/* as a point that matches nothing, with the reason unless it is optional */
		if (!pp->optional)
			error_at(pp->tok, "%s", sh->unavailable);
		return 0;
	}
	if (!f->expand) {
		add_derived(c, e, pp, f, sh);
		process_entry_probe(c->s, c->s->probes.data[c->s->probes.len - 1]);
		return 1;
	}
	Vec points = {0};
	int n = f->expand(f, pp, c->s, e->optional || pp->optional, &points);
	for (int i = 0; i < points.len; i++) {
		add_derived(c, e, points.data[i], f, sh);
		Probe *p = c->s->probes.data[c->s->probes.len - 1];
		kernel_dwarf_if_needed(c->s, p);
		process_entry_probe(c->s, p);
	}
	return n;
}

static void derive_user(Derive *c, Probe *user)
{
	Vec sufficient = {0};
	/* braces make up to 10,000 points: past the error limit, looking for the names of
	 * the rest (edit distances to every point and alias) only took time */
	for (int i = 0; i < user->points.len && !too_many_errors(); i++) {
		ProbePoint *pp = user->points.data[i];
		Expansion e = {.user = user, .user_point = pp, .optional = pp->optional};
		set_unless(&e, &(Expansion){0}, &sufficient);
		e.derivation = probe_point_string(pp);
		int errors = diag_errors;
		int first = c->s->probes.len;
		int n = expand(c, &e, pp, 0);
		if (n > 0 && pp->sufficient && !sufficient_at_load(c, first, &sufficient))
			break;
		if (n > 0 && pp->sufficient)
			continue;
		if (n > 0 || diag_errors > errors)
			continue;
		if (pp->optional) {
			if (c->s->verbose)
				note_at(pp->tok, "optional probe point '%s' matches nothing: dropped",
					probe_point_string(pp));
			continue;
		}
		if (foreign_point_error(pp)) {
			error_at(pp->tok, "%s", foreign_point_error(pp));
			continue;
		}
		Vec aliases = {0}, names = {0};
		tapset_need(c->s, TAPSET_ALIAS, NULL);          /* every name for the hint */
		alias_candidates(c, &aliases);
		for (int j = 0; j < aliases.len; j++) {
			Probe *a = aliases.data[j];
			for (int k = 0; k < a->alias_names.len; k++)
				vec_push(&names, probe_point_string(a->alias_names.data[k]));
		}
		const char *hint = closest_point(pp, c->s, &names);
		if (hint)
			error_at(pp->tok, "unknown probe point '%s'; did you mean '%s'?",
				 probe_point_string(pp), hint);
		else
			error_at(pp->tok, "unknown probe point '%s'", probe_point_string(pp));
	}
}

/* How messages name derived probe P: the point as the script wrote it, and when that point
 * made more than one probe (alternatives, or an alias's several targets) also the one
 * this is, as the innermost alias wrote it: "my.cycles (perf.hw.cpu_cycles)". */
const char *probe_name(Session *s, Probe *p)
{
	const char *user = probe_point_string(p->user_point);
	int siblings = 0;
	for (int i = 0; i < s->probes.len; i++)
		siblings += ((Probe *)s->probes.data[i])->user_point == p->user_point;
	const char *last = p->derivation, *prev = NULL;
	for (const char *a = strstr(last, " <- "); a; a = strstr(a + 4, " <- ")) {
		prev = last;
		last = a + 4;
	}
	if (siblings < 2 || !prev)
		return user;
	return xformat("%s (%.*s)", user, (int)(last - 4 - prev), prev);
}

void derive_probes(Session *s, Vec *counters, Probe *user)
{
	Derive c = {.s = s, .counters = counters};
	derive_user(&c, user);
}
