/* elide.c - pass 3's elision of what a probe computes and never uses, as SystemTap elides
 * unused variables: an assignment `v = e' to a local v that nothing in the probe reads,
 * where evaluating e has no effect (no print, no global, array or statistic written, no
 * call of a function that has one), is dropped, and again until none is left. So a tapset
 * alias that sets a dozen variables (scheduler.ctxswitch's names, kprocess.exec's
 * arguments read from user memory) costs only what the script's body uses of them. Like
 * SystemTap's, a dropped read cannot fail either: its fault no longer ends the session.
 */
#include "hwtap.h"

#include <string.h>

/* How a function was judged: 0 not yet, 1 being judged (recursion: not pure), 2 pure,
 * 3 not. */
typedef struct {
	VEC(Function *) funcs;
	VEC(int *) states;
} Purity;

static bool pure_expr(Purity *p, Node *n);

static int *state_of(Purity *p, Function *f)
{
	for (int i = 0; i < p->funcs.len; i++)
		if (p->funcs.data[i] == f)
			return p->states.data[i];
	int *st = xalloc(sizeof(*st));
	vec_push(&p->funcs, f);
	vec_push(&p->states, st);
	return st;
}

/* Whether F has no effect but its value: embedded C it marks pure, or a body that writes
 * only its own locals and calls only such functions. */
static bool pure_function(Purity *p, Function *f)
{
	int *st = state_of(p, f);
	if (*st)
		return *st == 2;
	*st = 1;
	bool pure = f->body->kind == N_EMBEDDED ? strstr(f->body->str, "/* pure */") != NULL :
						  pure_expr(p, f->body);
	*st = pure ? 2 : 3;
	return pure;
}

/* The builtins without effects: the ones that format into a string. */
static bool pure_builtin(const char *name)
{
	static const char *const pure[] = {"sprintf", "sprint", "sprintln", "sprintd",
					   "sprintdln", NULL};
	for (int i = 0; pure[i]; i++)
		if (!strcmp(pure[i], name))
			return true;
	return false;
}

/* A local or a parameter of the function or probe at hand, written: no effect outside. */
static bool local_target(Node *n)
{
	return n && n->kind == N_VAR && n->sym && n->sym->kind != SYM_GLOBAL;
}

static bool pure_kids(Purity *p, Node *n)
{
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc, n->body,
			n->value, n->array, n->limit};
	for (size_t i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		if (kids[i] && !pure_expr(p, kids[i]))
			return false;
	for (int i = 0; i < n->args.len; i++)
		if (!pure_expr(p, n->args.data[i]))
			return false;
	for (int i = 0; i < n->keys.len; i++)
		if (!pure_expr(p, n->keys.data[i]))
			return false;
	for (int i = 0; i < n->comps.len; i++) {
		TargetComp *tc = n->comps.data[i];
		if (tc->index && !pure_expr(p, tc->index))
			return false;
	}
	return true;
}

/* Whether evaluating N changes nothing but locals. */
static bool pure_expr(Purity *p, Node *n)
{
	switch (n->kind) {
	case N_CALL:
		if (n->func ? !pure_function(p, n->func) : !pure_builtin(n->name))
			return false;
		return pure_kids(p, n);
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
		return local_target(n->lhs) && pure_kids(p, n);
	case N_DELETE:
		return local_target(n->lhs);
	case N_EMBEDDED_EXPR:
		return false;
	case N_STR:
	case N_NUM:
		return true;
	default:
		return pure_kids(p, n);
	}
}

/* How many times each local is read in N: every use but as the target of '='. */
static void count_reads(Node *n, Vec *syms, Vec *counts)
{
	if (!n)
		return;
	if (n->kind == N_VAR && n->sym && n->sym->kind == SYM_LOCAL) {
		for (int i = 0; i < syms->len; i++)
			if (syms->data[i] == n->sym) {
				(*(int *)counts->data[i])++;
				return;
			}
		int *c = xalloc(sizeof(*c));
		*c = 1;
		vec_push(syms, n->sym);
		vec_push(counts, c);
		return;
	}
	bool plain = n->kind == N_ASSIGN && !strcmp(n->op, "=") && local_target(n->lhs);
	Node *kids[] = {plain ? NULL : n->lhs, n->rhs, n->cond, n->then, n->els, n->init,
			n->inc, n->body, n->value, n->array, n->limit};
	for (size_t i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		count_reads(kids[i], syms, counts);
	for (int i = 0; i < n->args.len; i++)
		count_reads(n->args.data[i], syms, counts);
	for (int i = 0; i < n->keys.len; i++)
		count_reads(n->keys.data[i], syms, counts);
	for (int i = 0; i < n->comps.len; i++)
		count_reads(((TargetComp *)n->comps.data[i])->index, syms, counts);
}

static bool is_read(Symbol *s, Vec *syms, Vec *counts)
{
	for (int i = 0; i < syms->len; i++)
		if (syms->data[i] == s)
			return *(int *)counts->data[i] > 0;
	return false;
}

/* Drops the dead assignments of the blocks under N; whether it dropped one. */
static bool drop_dead(Purity *p, Node *n, Vec *syms, Vec *counts)
{
	if (!n)
		return false;
	bool dropped = false;
	if (n->kind == N_BLOCK) {
		int kept = 0;
		for (int i = 0; i < n->args.len; i++) {
			Node *st = n->args.data[i];
			Node *e = st->kind == N_EXPR_STMT ? st->lhs : NULL;
			if (e && e->kind == N_ASSIGN && !strcmp(e->op, "=") && local_target(e->lhs) &&
			    e->lhs->sym->kind == SYM_LOCAL && !is_read(e->lhs->sym, syms, counts) &&
			    pure_expr(p, e->rhs)) {
				dropped = true;
				continue;
			}
			n->args.data[kept++] = st;
		}
		n->args.len = kept;
	}
	Node *kids[] = {n->then, n->els, n->body};
	for (size_t i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		dropped |= drop_dead(p, kids[i], syms, counts);
	if (n->kind == N_BLOCK)
		for (int i = 0; i < n->args.len; i++)
			dropped |= drop_dead(p, n->args.data[i], syms, counts);
	return dropped;
}

void elide_unused(Session *s)
{
	Purity p = {0};
	for (int i = 0; i < s->probes.len; i++) {
		Probe *probe = s->probes.data[i];
		if (!probe->body)
			continue;
		for (;;) {
			Vec syms = {0}, counts = {0};
			count_reads(probe->body, &syms, &counts);
			for (int k = 0; k < probe->points.len; k++)
				count_reads(((ProbePoint *)probe->points.data[k])->cond, &syms, &counts);
			if (!drop_dead(&p, probe->body, &syms, &counts))
				break;
		}
	}
}
