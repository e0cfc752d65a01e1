/* sema_stmt.c - pass 2's statements: names and types in if, loops, foreach, delete,
 * return, try; the expressions in them are sema.c's. */
#include "hwtap.h"
#include "sema.h"

#include <string.h>

/* ---- statements -------------------------------------------------------------------------- */

static void walk_cond(Ctx *c, Node *n)
{
	Type t = sema_walk(c, n, TY_LONG);
	(void)t;
}

static void walk_foreach(Ctx *c, Node *n)
{
	Node *arr = n->array;
	Type value = TY_UNKNOWN;
	if (arr->kind == N_HIST) {
		sema_walk(c, arr, TY_HIST);
		if (n->keys.len != 1 && c->report)
			error_at(arr->tok, "a histogram has one key, its bucket");
		value = TY_LONG;
		for (int i = 0; i < n->keys.len; i++)
			sema_walk_lvalue(c, n->keys.data[i], TY_LONG);
	} else {
		Symbol *sym = sema_find_local(c, arr->name) ? NULL : sema_find_global(c, arr->name);
		if (!sym) {             /* reported in the first round, which then ends */
			error_at(arr->tok, "foreach needs a global array, but '%s' is %s",
				 arr->name, sema_find_local(c, arr->name) ? "a local variable" :
				 "not declared");
			return;
		}
		arr->sym = sym;
		sym->read = true;
		if (sym->arity == 0 && c->report) {
			error_at(arr->tok, "foreach needs an array, but '%s' is a scalar",
				 arr->name);
			return;
		}
		if (arr->kind == N_INDEX) {
			c->slice_ok = true;
			sema_walk_keys(c, arr, sym, &arr->args);
			c->slice_ok = false;
		}
		if (sym->arity < 0) {
			sym->arity = n->keys.len;
			sym->key_types = xalloc(sizeof(Type) * (n->keys.len + 1));
		}
		if (sym->arity != n->keys.len) {
			if (c->report)
				error_at(arr->tok, "array '%s' has %d key%s, but foreach names %d",
					 sym->name, sym->arity, sym->arity == 1 ? "" : "s",
					 n->keys.len);
		} else {
			for (int i = 0; i < n->keys.len; i++) {
				Node *k = n->keys.data[i];
				Type t = sema_walk_lvalue(c, k, sym->key_types[i]);
				sema_decide(c, &sym->key_types[i], t, k->tok, NULL);
			}
		}
		value = sym->type;
	}
	if (n->value) {
		if (value == TY_STATS && c->report)
			error_at(n->value->tok, "the values of statistics arrays cannot be bound "
				 "in foreach: use @count(%s[...]) and friends", arr->name);
		else
			sema_walk_lvalue(c, n->value, value);
	}
	if (n->limit)
		sema_walk(c, n->limit, TY_LONG);
	c->loop_depth++;
	sema_walk_stmt(c, n->body);
	c->loop_depth--;
}

static void walk_delete(Ctx *c, Node *n)
{
	Node *x = n->lhs;
	if (x->kind == N_VAR) {
		Symbol *sym = sema_find_local(c, x->name);
		if (!sym)
			sym = sema_find_global(c, x->name);
		if (!sym) {
			if (c->report)
				error_at(x->tok, "cannot delete '%s': no such variable", x->name);
			return;
		}
		x->sym = sym;
		sym->assigned = true;
		return;
	}
	if (x->kind == N_INDEX) {
		Symbol *sym = sema_array_symbol(c, x);
		if (!sym)
			return;
		sym->assigned = true;
		c->slice_ok = true;
		sema_walk_keys(c, x, sym, &x->args);
		c->slice_ok = false;
		return;
	}
	if (c->report)
		error_at(x->tok, "delete needs a variable, an array or an array element");
}

/* The statement "a && f()" is "if (a) f()", and "a || f()" is "if (!a) f()", as SystemTap
 * reduces them (its examples write "count && ++n == count && exit()"): the right side
 * may then call a function that returns no value. N becomes the if. */
static bool reduce_logical_stmt(Node *n)
{
	Node *e = n->lhs;
	if (e->kind != N_LOGICAL || (strcmp(e->op, "&&") && strcmp(e->op, "||")))
		return false;
	Node *then = new_node(N_EXPR_STMT, e->rhs->tok);
	then->lhs = e->rhs;
	Node *cond = e->lhs;
	if (!strcmp(e->op, "||")) {
		cond = new_node(N_UNARY, e->tok);
		cond->op = "!";
		cond->lhs = e->lhs;
	}
	n->kind = N_IF;
	n->lhs = NULL;
	n->cond = cond;
	n->then = then;
	n->els = NULL;
	return true;
}

void sema_walk_stmt(Ctx *c, Node *n)
{
	switch (n->kind) {
	case N_BLOCK:
		for (int i = 0; i < n->args.len; i++)
			sema_walk_stmt(c, n->args.data[i]);
		return;
	case N_EXPR_STMT: {
		if (reduce_logical_stmt(n)) {
			sema_walk_stmt(c, n);
			return;
		}
		Type t = sema_walk_discarded(c, n->lhs);
		if (t == TY_HIST && c->report)
			error_at(n->lhs->tok, "a histogram can only be printed, indexed or "
				 "iterated with foreach");
		return;
	}
	case N_IF:
		walk_cond(c, n->cond);
		if (n->cond->kind == N_AT_DEFINED) {   /* if (@defined(x)): one side is dead */
			Node *live = n->cond->num ? n->then : n->els;
			if (live)
				sema_walk_stmt(c, live);
			return;
		}
		sema_walk_stmt(c, n->then);
		if (n->els)
			sema_walk_stmt(c, n->els);
		return;
	case N_WHILE:
	case N_FOR:
		if (n->init)
			sema_walk_discarded(c, n->init);
		if (n->cond)
			walk_cond(c, n->cond);
		if (n->inc)
			sema_walk_discarded(c, n->inc);
		c->loop_depth++;
		sema_walk_stmt(c, n->body);
		c->loop_depth--;
		return;
	case N_FOREACH:
		walk_foreach(c, n);
		return;
	case N_BREAK:
	case N_CONTINUE:
		if (!c->loop_depth && c->report)
			error_at(n->tok, "'%s' is only allowed inside a loop",
				 n->kind == N_BREAK ? "break" : "continue");
		return;
	case N_NEXT:
	case N_NULL:
		return;
	case N_RETURN:
		if (!c->func) {
			if (c->report)
				error_at(n->tok, "'return' is only allowed in functions; 'next' "
					 "leaves a probe");
			return;
		}
		if (n->lhs) {
			Type t = sema_walk_checked(c, n->lhs, c->func->rtype);
			if (t == TY_STATS || t == TY_HIST) {
				if (c->report)
					error_at(n->lhs->tok, "functions cannot return %s", sema_a_type(t));
				return;
			}
			sema_decide(c, &c->func->rtype, t, n->lhs->tok, &c->func->rtype_at);
			if (c->report && t != TY_UNKNOWN && c->func->rtype != TY_UNKNOWN &&
			    t != c->func->rtype)
				error_at(n->lhs->tok, "function '%s' returns %s, %s, but this is %s",
					 c->func->name, sema_a_type(c->func->rtype),
					 c->func->ret ? "as declared" : xformat("decided at line %d",
						c->func->rtype_at ? c->func->rtype_at->line : 0),
					 sema_a_type(t));
		} else if (c->func->ret != TY_UNKNOWN && c->report) {
			error_at(n->tok, "function '%s' must return %s", c->func->name,
				 sema_a_type(c->func->ret));
		}
		return;
	case N_DELETE:
		walk_delete(c, n);
		return;
	case N_TRY: {
		sema_walk_stmt(c, n->body);
		if (n->name) {
			Node v = {.kind = N_VAR, .tok = n->tok, .name = n->name};
			Symbol *sym = sema_find_local(c, n->name);
			if (!sym)
				sym = sema_resolve_var(c, &v);
			sym->assigned = true;
			n->sym = sym;
			sema_decide(c, &sym->type, TY_STRING, n->tok, &sym->typed_at);
			if (c->report && sym->type != TY_STRING)
				error_at(n->tok, "the catch variable '%s' holds the error message, a "
					 "string, but it is %s", n->name, sema_a_type(sym->type));
		}
		sema_walk_stmt(c, n->then);
		return;
	}
	case N_EMBEDDED:
		if (!c->file->is_tapset && !c->s->guru && c->report)
			error_at(n->tok, "embedded C code needs guru mode (-g)");
		return;
	default: {
		Node wrap = {.kind = N_EXPR_STMT, .tok = n->tok, .lhs = n};
		sema_walk_stmt(c, &wrap);
	}
	}
}
