/* check.c - pass 2's last checks, on the elaborated program (names and types known):
 *   - no array is changed inside a foreach over it, directly or through a function it
 *     calls: the loop walks the array (SystemTap rejects these scripts too);
 *   - each statistic has one histogram kind (@hist_log, or @hist_linear with one set of
 *     bounds) and @variance one bit shift, a literal 0 to 62; both are recorded in its
 *     Symbol for pass 3, with what the extractors and sorts by value read of it (its
 *     add path keeps only that: runtime/stat.h).
 */
#include "hwtap.h"

#include <string.h>

typedef struct {
	Session *s;
	VEC(Node *) loops;          /* the foreach statements we are inside of */
	VEC(Token *) shift_at;      /* where each statistic's bit shift was decided */
	VEC(Symbol *) shift_of;
} Check;

/* The variable or array a write goes to: x[...] or x itself, or NULL. */
static Symbol *written(Node *n)
{
	Node *x = NULL;
	if (n->kind == N_ASSIGN || n->kind == N_PREINC || n->kind == N_POSTINC ||
	    n->kind == N_DELETE)
		x = n->lhs;
	if (!x || (x->kind != N_INDEX && x->kind != N_VAR))
		return NULL;
	return x->sym;
}

/* Whether n binds sym anew: a foreach's keys or value, a catch variable. */
static bool binds(Node *n, Symbol *sym)
{
	if (sym->arity > 0)             /* arrays are never bound */
		return false;
	if (n->kind == N_TRY)
		return n->name && !strcmp(n->name, sym->name);
	if (n->kind != N_FOREACH)
		return false;
	if (n->value && n->value->sym == sym)
		return true;
	for (int i = 0; i < n->keys.len; i++)
		if (((Node *)n->keys.data[i])->sym == sym)
			return true;
	return false;
}

static bool modifies(Node *n, Symbol *sym, Vec *seen);

static bool function_modifies(Function *f, Symbol *sym, Vec *seen)
{
	for (int i = 0; i < seen->len; i++)
		if (seen->data[i] == f)
			return false;
	vec_push(seen, f);
	return f->body && modifies(f->body, sym, seen);
}

/* Whether n writes sym, itself or through the functions it calls. */
static bool modifies(Node *n, Symbol *sym, Vec *seen)
{
	if (!n)
		return false;
	if (written(n) == sym || binds(n, sym))
		return true;
	if (n->kind == N_CALL && n->func && function_modifies(n->func, sym, seen))
		return true;
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc, n->body,
			n->array, n->value, n->limit};
	for (size_t i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		if (modifies(kids[i], sym, seen))
			return true;
	for (int i = 0; i < n->args.len; i++)
		if (modifies(n->args.data[i], sym, seen))
			return true;
	return false;
}

bool node_modifies(Node *n, Symbol *sym)
{
	Vec seen = {0};
	return modifies(n, sym, &seen);
}

static void check_write(Check *k, Node *n)
{
	Symbol *sym = written(n);
	for (int i = 0; i < k->loops.len; i++) {
		Node *loop = k->loops.data[i];
		Symbol *iterated = loop->array->sym;
		if (loop->array->kind == N_HIST || !iterated)
			continue;
		Vec seen = {0};
		if (sym == iterated)
			error_at(n->lhs->tok, "array '%s' is changed inside the foreach over it at "
				 "line %d", sym->name, loop->tok->line);
		else if (n->kind == N_CALL && n->func && function_modifies(n->func, iterated, &seen))
			error_at(n->tok, "function '%s' changes array '%s', which the foreach at line "
				 "%d iterates", n->func->name, iterated->name, loop->tok->line);
	}
}

/* @hist_linear(s, 0, 10, 1) and @hist_linear(s, 0, 20, 1) are different kinds. */
static bool same_hist(Node *a, Node *b)
{
	if (strcmp(a->op, b->op) || a->args.len != b->args.len)
		return false;
	for (int i = 0; i < a->args.len; i++)
		if (((Node *)a->args.data[i])->num != ((Node *)b->args.data[i])->num)
			return false;
	return true;
}

static void check_hist(Check *k, Node *n)
{
	Symbol *sym = n->lhs->sym;
	if (!sym)
		return;
	if (!sym->hist) {
		sym->hist = n;
		return;
	}
	if (!same_hist(sym->hist, n)) {
		StrBuf was = {0};
		print_node(&was, sym->hist);
		error_at(n->tok, "statistics '%s' already have the histogram %s (line %d); each "
			 "statistic has one", sym->name, was.buf, sym->hist->tok->line);
	}
}

/* The bit shift argument of @variance: a literal, possibly negated; false otherwise. */
static bool literal(Node *a, int64_t *v)
{
	bool neg = a->kind == N_UNARY && !strcmp(a->op, "-");
	if (neg)
		a = a->lhs;
	if (a->kind != N_NUM)
		return false;
	*v = neg ? -(int64_t)a->num : (int64_t)a->num;
	return true;
}

static void check_shift(Check *k, Node *n, Symbol *sym)
{
	Node *a = n->args.data[0];
	int64_t v;
	if (!literal(a, &v)) {
		error_at(a->tok, "the bit shift of @variance must be a number literal");
		return;
	}
	if (v < 0 || v > 62) {
		error_at(a->tok, "the bit shift of @variance must be 0 to 62, not %lld",
			 (long long)v);
		return;
	}
	for (int i = 0; i < k->shift_of.len; i++) {
		Token *at = k->shift_at.data[i];
		if (k->shift_of.data[i] == sym && sym->bit_shift != v)
			error_at(a->tok, "statistics '%s' already have the bit shift %d (line %d)",
				 sym->name, sym->bit_shift, at->line);
		if (k->shift_of.data[i] == sym)
			return;
	}
	sym->bit_shift = (int)v;
	vec_push(&k->shift_of, sym);
	vec_push(&k->shift_at, a->tok);
}

static void check_node(Check *k, Node *n);

/* A foreach's slice keys are computed in every round of the loop, like its body. */
static void check_kids(Check *k, Node *n)
{
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc, n->value,
			n->limit};
	for (size_t i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		check_node(k, kids[i]);
	for (int i = 0; i < n->args.len; i++)
		check_node(k, n->args.data[i]);
	if (n->kind == N_FOREACH)
		vec_push(&k->loops, n);
	check_node(k, n->array);
	check_node(k, n->body);
	if (n->kind == N_FOREACH)
		k->loops.len--;
}

/* What extractor op (@count ... @variance) reads of statistic sym. */
static void stat_reads(Symbol *sym, const char *op)
{
	if (!strcmp(op, "@sum") || !strcmp(op, "@avg"))
		sym->stat_sum = true;
	else if (!strcmp(op, "@min"))
		sym->stat_min = true;
	else if (!strcmp(op, "@max"))
		sym->stat_max = true;
	else if (!strcmp(op, "@variance"))
		sym->variance = true;
}

static void check_node(Check *k, Node *n)
{
	if (!n)
		return;
	if (k->loops.len)
		check_write(k, n);
	if (n->kind == N_HIST)
		check_hist(k, n);
	if (n->kind == N_AT_OP && n->lhs->sym) {
		stat_reads(n->lhs->sym, n->op);
		if (!strcmp(n->op, "@variance") && n->args.len == 1)
			check_shift(k, n, n->lhs->sym);
	}
	/* a statistics array sorted by value: by @count unless it names another */
	if (n->kind == N_FOREACH && n->sort_key == -1 && n->array && n->array->sym &&
	    n->array->sym->type == TY_STATS)
		stat_reads(n->array->sym, n->op ? n->op : "@count");
	check_kids(k, n);
}

void check_program(Session *s)
{
	Check k = {.s = s};
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		ProbePoint *pp = p->points.data[0];
		check_node(&k, pp->cond);
		check_node(&k, p->body);
	}
	for (int i = 0; i < s->funcs.len; i++)
		check_node(&k, ((Function *)s->funcs.data[i])->body);
}
