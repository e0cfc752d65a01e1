/* sema.h - what sema.c and sema_probes.c, the two halves of pass 2, share. */
#ifndef HWTAP_SEMA_H
#define HWTAP_SEMA_H

#include "hwtap.h"

/* The state of pass 2's walk over a probe or function (sema.c). */
typedef struct Ctx {
	Session *s;
	Script *file;               /* where the code being walked was written */
	Vec *locals;                /* of the current probe or function */
	Function *func;             /* NULL in a probe */
	Probe *probe;               /* NULL in a function */
	VEC(Symbol *) globals;      /* every global declared: the user's, then the tapset's
				     * in the library's order */
	VEC(Script *) declared;     /* the scripts whose globals are in `globals` */
	int tapset_parses;          /* Session.tapset_parses when `declared` was brought up
				     * to date */
	VEC(Function *) work;       /* reached functions still to resolve */
	VEC(char *) counters;       /* names of perf .counter("NAME") events */
	int loop_depth;
	int changes;                /* types decided in this round */
	int uses;                   /* globals met so far (Symbol.first_use) */
	bool report;                /* the last round: report mismatches */
	bool lvalue;                /* the N_VAR/N_INDEX being walked is assigned */
	bool in_defined;            /* inside @defined(): a missing $var is not an error */
	bool slice_ok;              /* '*' keys: while walking delete, 'in' and foreach keys */
	bool in_condition;          /* walking a probe point's if (...) */
	Node *discarded;            /* an expression whose value nothing uses (a statement) */
	VEC(char *) undeclared;     /* arrays reported as undeclared, once per name */
	VEC(Token *) warned;        /* never-assigned warnings given, once per place */
} Ctx;

/* sema.c: expressions, names and types, for sema_stmt.c's statements */
Type sema_walk(Ctx *c, Node *n, Type want);          /* N's type, WANT propagated */
Type sema_walk_checked(Ctx *c, Node *n, Type want);  /* ... a mismatch reported */
Type sema_walk_lvalue(Ctx *c, Node *n, Type want);   /* N assigned */
Type sema_walk_discarded(Ctx *c, Node *n);           /* N's value unused: a statement */
void sema_walk_keys(Ctx *c, Node *n, Symbol *sym, Vec *keys);
Symbol *sema_find_local(Ctx *c, const char *name);
Symbol *sema_find_global(Ctx *c, const char *name);
Symbol *sema_resolve_var(Ctx *c, Node *n);
Symbol *sema_array_symbol(Ctx *c, Node *n);
void sema_decide(Ctx *c, Type *slot, Type t, Token *where, Token **typed_at);
const char *sema_a_type(Type t);                     /* "a long", "a string" ... */
/* sema_stmt.c */
void sema_walk_stmt(Ctx *c, Node *n);

/* The user's script, then the tapset files, in OUT. */
void all_scripts(Session *s, Vec *out);

/* USER's derived probes appended to s->probes; each .counter("NAME") seen is checked
 * against and added to COUNTERS. Errors are reported, not returned. */
void derive_probes(Session *s, Vec *counters, Probe *user);

#endif
