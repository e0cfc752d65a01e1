/* translate_locks.c - which global variables a probe handler locks, and how.
 *
 * Each global has its own lock (runtime/lang.h). A handler takes, before its body runs
 * and in the globals' declaration order, the lock of every global that it or a function
 * it calls (transitively) touches. A handler that touches no global takes no lock, so
 * timer.profile or perf handlers on every CPU do not wait for each other.
 *
 *   add        `s <<< v', `sa[k] <<< v' and nothing else on a statistic: no lock for a
 *              scalar (each CPU adds to its own record, a read copies it when no add
 *              is under way: runtime/stat.h), its CPU's part for an array (each CPU
 *              adds to its own map: runtime/pmap.h)
 *   shared     reading a scalar or an array element, `in'
 *   exclusive  assignments, ++/--, delete, extractors and histograms (they merge the CPUs
 *              into one record), foreach (its snapshot and the map's walker count are one
 *              per statement and map)
 *
 * Statistics take every CPU's part of their lock where others take it shared or
 * exclusive.
 *
 * As in SystemTap, a global that only begin, end and error probes change (a filter, a
 * setting the script starts with) is taken by no lock where the other handlers read it:
 * begin probes run before any of those starts and end and error probes after all of them
 * stopped (runtime/session.h), so it does not change while they run.
 */
#include "translate.h"

#include <string.h>

typedef struct {
	Session *s;
	LockMode *modes;        /* one per global, in s->globals order */
	bool changed;
} Walk;

static int global_index(Session *s, Symbol *sym)
{
	for (int i = 0; i < s->globals.len; i++)
		if (((Global *)s->globals.data[i])->sym == sym)
			return i;
	return -1;
}

static void need(Walk *w, Symbol *sym, LockMode m)
{
	if (!sym || sym->kind != SYM_GLOBAL)
		return;
	int i = global_index(w->s, sym);
	if (i >= 0 && w->modes[i] < m) {
		w->modes[i] = m;
		w->changed = true;
	}
}

static void walk(Walk *w, Node *n);

static void walk_all(Walk *w, Vec *nodes)
{
	for (int i = 0; i < nodes->len; i++)
		walk(w, nodes->data[i]);
}

/* n is written: a variable, an element or a slice (its keys are read). */
static void written(Walk *w, Node *n)
{
	if (!n)
		return;
	if (n->kind == N_VAR || n->kind == N_INDEX) {
		need(w, n->sym, LOCK_WRITE);
		walk_all(w, &n->args);
	} else {
		walk(w, n);
	}
}

static void walk(Walk *w, Node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_VAR:
		need(w, n->sym, LOCK_READ);
		return;
	case N_INDEX:
		need(w, n->sym, LOCK_READ);
		walk_all(w, &n->args);
		return;
	case N_ASSIGN:
		if (n->op && !strcmp(n->op, "<<<")) {
			need(w, n->lhs->sym, LOCK_ADD);
			walk_all(w, &n->lhs->args);
		} else {
			written(w, n->lhs);
		}
		walk(w, n->rhs);
		return;
	case N_PREINC:
	case N_POSTINC:
	case N_DELETE:
		written(w, n->lhs);
		return;
	case N_AT_OP:
	case N_HIST:
	case N_HIST_INDEX:
		/* the extractors merge the CPUs' values into one shared slot */
		written(w, n->lhs);
		walk_all(w, &n->args);
		walk(w, n->rhs);
		return;
	case N_FOREACH:
		if (n->array && n->array->kind == N_HIST)
			walk(w, n->array);
		else
			written(w, n->array);
		for (int i = 0; i < n->keys.len; i++)
			written(w, n->keys.data[i]);
		written(w, n->value);
		walk(w, n->limit);
		walk(w, n->body);
		return;
	case N_TRY:
		need(w, n->sym, LOCK_WRITE);    /* the catch variable */
		walk(w, n->body);
		walk(w, n->then);
		return;
	case N_CALL:
		walk_all(w, &n->args);
		/* what the function and its callees lock (lock_plan) */
		if (n->func && n->func->lock_modes)
			for (int i = 0; i < w->s->globals.len; i++)
				if (w->modes[i] < n->func->lock_modes[i]) {
					w->modes[i] = n->func->lock_modes[i];
					w->changed = true;
				}
		return;
	default:
		break;
	}
	walk(w, n->lhs);
	walk(w, n->rhs);
	walk(w, n->cond);
	walk(w, n->then);
	walk(w, n->els);
	walk(w, n->init);
	walk(w, n->inc);
	walk(w, n->body);
	walk_all(w, &n->args);
	for (int i = 0; i < n->comps.len; i++) {
		TargetComp *tc = n->comps.data[i];
		walk(w, tc->index);
	}
}

static void running_writes(Session *s);

/* Every used function's summary: what it and its callees lock, to a fixed point (calls
 * may recurse). */
void lock_plan(Session *s)
{
	int n = s->globals.len;
	for (int i = 0; i < s->funcs.len; i++) {
		Function *f = s->funcs.data[i];
		f->lock_modes = xalloc(sizeof(LockMode) * (n + 1));
	}
	bool changed = true;
	while (changed) {
		changed = false;
		for (int i = 0; i < s->funcs.len; i++) {
			Function *f = s->funcs.data[i];
			Walk w = {.s = s, .modes = f->lock_modes};
			if (f->body && f->body->kind != N_EMBEDDED)
				walk(&w, f->body);
			changed |= w.changed;
		}
	}
	running_writes(s);
}

/* How a handler takes global gl's lock in mode m: the name in runtime/lang.h's
 * _hwtap_NAME_trylock() and _hwtap_NAME_unlock(). */
const char *lock_how(Global *gl, LockMode m)
{
	if (gl->sym->type == TY_STATS)
		return m == LOCK_ADD ? "cpu" : "all";
	return m == LOCK_WRITE ? "write" : "read";
}

/* Whether p runs while other handlers may: all but begin, end and error (and never). */
static bool runs_alongside(Probe *p)
{
	const char *f = ptab_family(p);
	return strcmp(f, "begin") && strcmp(f, "end") && strcmp(f, "error") && strcmp(f, "never");
}

static LockMode *walk_probe(Session *s, Probe *p)
{
	LockMode *modes = xalloc(sizeof(LockMode) * (s->globals.len + 1));
	Walk w = {.s = s, .modes = modes};
	ProbePoint *pp = p->points.data[0];
	walk(&w, pp->cond);
	walk(&w, p->body);
	return modes;
}

/* Which globals the handlers that run alongside others change (Global.running_writes):
 * after lock_plan(). */
static void running_writes(Session *s)
{
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (!runs_alongside(p))
			continue;
		LockMode *modes = walk_probe(s, p);
		for (int k = 0; k < s->globals.len; k++)
			if (modes[k] == LOCK_ADD || modes[k] == LOCK_WRITE)
				((Global *)s->globals.data[k])->running_writes = true;
	}
}

/* What probe p locks, per global (s->globals order); lock_plan() ran before. Adds to a
 * scalar statistic take none, nor does a read that nothing running alongside can change. */
LockMode *probe_locks(Session *s, Probe *p)
{
	LockMode *modes = walk_probe(s, p);
	for (int k = 0; k < s->globals.len; k++) {
		Global *gl = s->globals.data[k];
		if (modes[k] == LOCK_ADD && gl->sym->arity == 0)
			modes[k] = LOCK_NONE;
		if (modes[k] == LOCK_READ && runs_alongside(p) && !gl->running_writes)
			modes[k] = LOCK_NONE;
	}
	return modes;
}
