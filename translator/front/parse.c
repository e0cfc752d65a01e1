/* parse.c - tokens to an AST: SystemTap's grammar.
 *
 * Each function parses one rule, written above it, and returns the token after what it
 * consumed through `rest`. A syntax error is reported and abandons the current top-level
 * declaration; parsing resumes at the next 'probe', 'function', 'global' or 'private', so
 * one pass reports the errors of several declarations.
 */
#include "hwtap.h"

#include <setjmp.h>
#include <string.h>

typedef struct {
	Session *s;
	Script *sc;
	jmp_buf recover;
	int depth;              /* open '{' of the declaration being parsed */
	int nest;               /* how deep the tree being built is: see nest_in() */
	bool in_function;       /* 'return' is allowed */
	Token *error_tok;       /* where the last syntax error was */
} Parser;

static Node *expr(Parser *p, Token **rest, Token *tok);
static Node *stmt(Parser *p, Token **rest, Token *tok);
static Node *block(Parser *p, Token **rest, Token *tok);
static Node *ternary(Parser *p, Token **rest, Token *tok);
static Node *unary(Parser *p, Token **rest, Token *tok);

__attribute__((noreturn, format(printf, 3, 4)))
static void syntax_error(Parser *p, Token *tok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvformat(fmt, ap);
	va_end(ap);
	error_at(tok, "%s", msg);
	p->error_tok = tok;
	longjmp(p->recover, 1);
}

/* How deep expressions and statements may nest, a chain of binary operators counting
 * one level an operator: pass 2 and 3 walk the tree recursively, so a deeper one (2,873
 * '(' from the fuzzer) overflowed the stack. Real scripts stay far below. */
#define PARSE_NEST_MAX 1000

static void nest_in(Parser *p, Token *tok)
{
	if (++p->nest > PARSE_NEST_MAX)
		syntax_error(p, tok, "expressions and statements nested more than %d deep",
			     PARSE_NEST_MAX);
}

/* Consumes `s` or reports "expected 's' WHERE, found X". */
static Token *expect(Parser *p, Token *tok, const char *s, const char *where)
{
	if (tok->kind != TK_STR && tok_is(tok, s))
		return tok->next;
	syntax_error(p, tok, "expected '%s' %s, found %s", s, where, tok_describe(tok));
}

static bool consume(Token **rest, Token *tok, const char *s)
{
	if (tok->kind != TK_STR && tok_is(tok, s)) {
		*rest = tok->next;
		return true;
	}
	*rest = tok;
	return false;
}

/* Whether PRED(node, ARG) holds for N or a node under it: its operands, statements,
 * arguments, keys and a target's index expressions. */
bool node_any(Node *n, bool (*pred)(Node *, void *), void *arg)
{
	if (!n)
		return false;
	if (pred(n, arg))
		return true;
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc, n->body,
			n->value, n->array, n->limit};
	for (size_t i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		if (node_any(kids[i], pred, arg))
			return true;
	Vec *lists[] = {&n->args, &n->keys};
	for (size_t l = 0; l < 2; l++)
		for (int i = 0; i < lists[l]->len; i++)
			if (node_any(lists[l]->data[i], pred, arg))
				return true;
	for (int i = 0; i < n->comps.len; i++)
		if (node_any(((TargetComp *)n->comps.data[i])->index, pred, arg))
			return true;
	return false;
}

Node *new_node(NodeKind kind, Token *tok)
{
	Node *n = xalloc(sizeof(*n));
	n->kind = kind;
	n->tok = tok;
	return n;
}

static Node *new_binary(NodeKind kind, Token *op, Node *lhs, Node *rhs)
{
	Node *n = new_node(kind, op);
	n->op = tok_text(op);
	n->lhs = lhs;
	n->rhs = rhs;
	return n;
}

static bool is_name(Token *tok)
{
	return tok->kind == TK_IDENT && !tok_is_keyword(tok);
}

static char *name(Parser *p, Token **rest, Token *tok, const char *what)
{
	if (!is_name(tok))
		syntax_error(p, tok, "expected %s, found %s", what, tok_describe(tok));
	*rest = tok->next;
	return tok_text(tok);
}

/* ---- literals ------------------------------------------------------------------------- */

/* Literals are 64-bit two's complement, as in SystemTap: 18446744073709551615 is -1. */
static Node *number(Parser *p, Token *tok, bool negative)
{
	Node *n = new_node(N_NUM, tok);
	n->num = negative ? -tok->num : tok->num;
	return n;
}

/* string = str { str }: adjacent literals are one string */
static Node *string(Token **rest, Token *tok)
{
	Node *n = new_node(N_STR, tok);
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	for (; tok->kind == TK_STR; tok = tok->next)
		sb_putn(&sb, tok->str, tok->str_len);
	n->str = sb.buf;
	n->str_len = sb.len;
	*rest = tok;
	return n;
}

/* literal = ["-"] number | string */
static Node *literal(Parser *p, Token **rest, Token *tok, const char *where)
{
	if (tok->kind == TK_STR)
		return string(rest, tok);
	Token *start = tok;
	bool neg = consume(&tok, tok, "-");
	if (tok->kind != TK_NUM)
		syntax_error(p, tok, "expected a number or a string %s, found %s", where,
			     tok_describe(tok));
	*rest = tok->next;
	Node *n = number(p, tok, neg);
	n->tok = start;
	return n;
}

/* ---- probe points ----------------------------------------------------------------------- */

static bool component_piece(Token *tok)
{
	return tok->kind == TK_IDENT || tok->kind == TK_NUM || tok_is(tok, "*");
}

/* component = piece { piece } [ "(" literal ")" ]   (pieces touch: foo*bar, **) */
static Component *component(Parser *p, Token **rest, Token *tok)
{
	if (!(tok->kind == TK_IDENT || tok_is(tok, "*")))
		syntax_error(p, tok, "expected a probe point component, found %s",
			     tok_describe(tok));
	Component *c = xalloc(sizeof(*c));
	c->tok = tok;
	StrBuf sb = {0};
	sb_putn(&sb, tok->pos, tok->len);
	for (tok = tok->next; component_piece(tok) && !tok->space_before; tok = tok->next)
		sb_putn(&sb, tok->pos, tok->len);
	c->name = sb.buf;
	if (tok_is(tok, "(")) {
		c->has_parens = true;
		c->arg = literal(p, &tok, tok->next, "as a probe point argument");
		tok = expect(p, tok, ")", "after the probe point argument");
	}
	*rest = tok;
	return c;
}

/* The most points one list of alternatives may expand to: {a,b}.{a,b}.{a,b}... doubles
 * with every pair of braces. */
enum { MAX_EXPANDED_POINTS = 10000 };

static void probe_points(Parser *p, Token **rest, Token *tok, Vec *out);

/* Whether the '{' at tok opens alternatives rather than a probe body that came too soon
 * ("probe begin, { ... }"): its '}' is followed by what may follow a point's element. */
static bool opens_alternatives(Token *tok)
{
	static const char *const after[] = {".", ",", "?", "!", "if", "{", "=", "+=", "("};
	int depth = 0;
	for (; tok->kind != TK_EOF; tok = tok->next) {
		if (tok_is(tok, "{"))
			depth++;
		else if (tok_is(tok, "}") && --depth == 0)
			break;
	}
	if (tok->kind == TK_EOF)
		return false;
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		if (tok_is(tok->next, after[i]))
			return true;
	return false;
}

/* element = component | "{" points "}" */
static void point_element(Parser *p, Token **rest, Token *tok, Vec *out)
{
	if (!tok_is(tok, "{") || !opens_alternatives(tok)) {
		ProbePoint *pp = xalloc(sizeof(*pp));
		pp->tok = tok;
		vec_push(&pp->comps, component(p, rest, tok));
		vec_push(out, pp);
		return;
	}
	Token *open = tok;
	int first = out->len;
	probe_points(p, &tok, tok->next, out);
	for (int i = first; i < out->len; i++)
		((ProbePoint *)out->data[i])->braced = true;
	if (!tok_is(tok, "}"))
		syntax_error(p, tok, "expected ',' or '}' after a probe point alternative (the "
			     "'{' is at line %d), found %s", open->line, tok_describe(tok));
	if (tok_is(tok->next, "("))
		syntax_error(p, tok->next, "an argument goes inside the braces, with the "
			     "component it belongs to: {b(1),c(1)}");
	*rest = tok->next;
}

static const char *suffix_text(ProbePoint *pp)
{
	return pp->sufficient ? "!" : pp->optional ? "?" : "if";
}

/* Every point of `pre` followed by every point of `post`: a.{b,c} . {d,e} is a.b.d, a.b.e,
 * a.c.d, a.c.e. A point of `pre` cannot go on if its alternative ended in '?', '!' or a
 * condition: those belong to the end of a point. */
static void point_product(Parser *p, Vec *pre, Vec *post)
{
	if (pre->len * post->len > MAX_EXPANDED_POINTS)
		syntax_error(p, ((ProbePoint *)post->data[0])->tok, "the probe point alternatives "
			     "expand to more than %d points", MAX_EXPANDED_POINTS);
	Vec product = {0};
	for (int i = 0; i < pre->len; i++) {
		ProbePoint *a = pre->data[i];
		if (a->optional || a->cond) {
			Component *next = ((ProbePoint *)post->data[0])->comps.data[0];
			syntax_error(p, a->suffix_tok, "'%s' may only end a probe point, but '%s' "
				     "goes on with '.%s'", suffix_text(a), probe_point_string(a),
				     next->name);
		}
		for (int j = 0; j < post->len; j++) {
			ProbePoint *b = post->data[j], *pp = xalloc(sizeof(*pp));
			*pp = *b;
			pp->tok = a->tok;
			pp->comps = (Vec){0};
			for (int k = 0; k < a->comps.len; k++)
				vec_push(&pp->comps, a->comps.data[k]);
			for (int k = 0; k < b->comps.len; k++)
				vec_push(&pp->comps, b->comps.data[k]);
			vec_push(&product, pp);
		}
	}
	*pre = product;
}

/* suffix = [ "?" | "!" ] [ "if" "(" expr ")" ], for every point the braces before it made;
 * one given inside the braces too is an error. */
static void point_suffix(Parser *p, Token **rest, Token *tok, Vec *pps)
{
	if (tok_is(tok, "?") || tok_is(tok, "!")) {
		for (int i = 0; i < pps->len; i++) {
			ProbePoint *pp = pps->data[i];
			if (pp->optional)
				syntax_error(p, tok, "'%s' is given twice for '%s': inside the braces "
					     "and after them", tok_is(tok, "?") ? "?" : "!",
					     probe_point_string(pp));
			pp->optional = true;
			pp->sufficient = tok_is(tok, "!");
			pp->suffix_tok = tok;
		}
		tok = tok->next;
	}
	if (tok_is(tok, "if")) {
		Token *if_tok = tok;
		tok = expect(p, tok->next, "(", "after 'if' in a probe point");
		Node *cond = expr(p, &tok, tok);
		tok = expect(p, tok, ")", "to close the probe point condition");
		for (int i = 0; i < pps->len; i++) {
			ProbePoint *pp = pps->data[i];
			if (pp->cond)
				syntax_error(p, if_tok, "'%s' has a condition inside the braces "
					     "already; a probe point takes one 'if'",
					     probe_point_string(pp));
			pp->cond = cond;
			if (!pp->suffix_tok)
				pp->suffix_tok = if_tok;
		}
	}
	*rest = tok;
}

/* alternatives = element { "." element } suffix
 * A point is components joined by dots; braces hold alternatives, each a list of points,
 * and the point stands for every combination (SystemTap's brace expansion). */
static void point_alternatives(Parser *p, Token **rest, Token *tok, Vec *out)
{
	Vec pps = {0};
	point_element(p, &tok, tok, &pps);
	while (consume(&tok, tok, ".")) {
		Vec post = {0};
		point_element(p, &tok, tok, &post);
		point_product(p, &pps, &post);
	}
	point_suffix(p, &tok, tok, &pps);
	for (int i = 0; i < pps.len; i++)
		vec_push(out, pps.data[i]);
	*rest = tok;
}

/* points = alternatives { "," alternatives } */
static void probe_points(Parser *p, Token **rest, Token *tok, Vec *out)
{
	point_alternatives(p, &tok, tok, out);
	while (consume(&tok, tok, ","))
		point_alternatives(p, &tok, tok, out);
	*rest = tok;
}

/* What names an alias (before '=' or '+=') is one point: neither a list nor braces. */
static void one_alias_name(Parser *p, Vec *names)
{
	if (names->len < 2)
		return;
	ProbePoint *a = names->data[0], *b = names->data[1];
	if (a->braced || b->braced)
		syntax_error(p, a->tok, "an alias name cannot hold alternatives in braces ('%s' "
			     "and '%s'); several names are written 'probe a = b = target'",
			     probe_point_string(a), probe_point_string(b));
	syntax_error(p, b->tok, "an alias with several names is written 'probe a = b = "
		     "target', not with ','");
}

/* probe = "probe" points block
 *       | "probe" points { ("=" | "+=") points } ("=" | "+=") points block [ "," block ] */
static void probe(Parser *p, Token **rest, Token *tok, bool is_private)
{
	Probe *pr = xalloc(sizeof(*pr));
	pr->tok = tok;
	pr->script = p->sc;
	pr->is_private = is_private;
	Vec first = {0};
	probe_points(p, &tok, tok->next, &first);
	if (tok_is(tok, "=") || tok_is(tok, "+=")) {
		one_alias_name(p, &first);
		pr->epilogue = tok_is(tok, "+=");
		probe_points(p, &tok, tok->next, &pr->points);
		/* probe a = b += c { }: every group but the last names the alias */
		while (tok_is(tok, "=") || tok_is(tok, "+=")) {
			pr->epilogue = tok_is(tok, "+=");
			one_alias_name(p, &pr->points);
			for (int i = 0; i < pr->points.len; i++)
				vec_push(&first, pr->points.data[i]);
			pr->points = (Vec){0};
			probe_points(p, &tok, tok->next, &pr->points);
		}
		for (int i = 0; i < first.len; i++) {
			ProbePoint *pp = first.data[i];
			if (pp->optional || pp->cond)
				syntax_error(p, pp->tok, "a probe alias name cannot be optional or "
					     "have a condition");
		}
		pr->alias_names = first;
		vec_push(&p->sc->aliases, pr);
	} else {
		pr->points = first;
		vec_push(&p->sc->probes, pr);
	}
	if (!tok_is(tok, "{"))
		syntax_error(p, tok, "expected '{' to start the probe body, found %s",
			     tok_describe(tok));
	pr->body = block(p, &tok, tok);
	/* probe a = b { prologue }, { epilogue } */
	if (pr->alias_names.len && tok_is(tok, ",") && tok_is(tok->next, "{"))
		pr->epilogue_body = block(p, &tok, tok->next);
	*rest = tok;
}

/* ---- declarations ------------------------------------------------------------------------ */

/* gvar = name [ "%" ] [ "[" number "]" ] [ "=" literal ] */
static void global_var(Parser *p, Token **rest, Token *tok, bool is_private)
{
	Global *g = xalloc(sizeof(*g));
	g->tok = tok;
	g->script = p->sc;
	g->is_private = is_private;
	g->name = name(p, &tok, tok, "a global variable name");
	if (consume(&tok, tok, "%"))
		g->wrap = true;
	if (consume(&tok, tok, "[")) {
		if (tok->kind != TK_NUM)
			syntax_error(p, tok, "expected the maximum number of entries of '%s', "
				     "found %s", g->name, tok_describe(tok));
		g->max_entries = number(p, tok, false)->num;
		if (g->max_entries <= 0)
			error_at(tok, "the size of global array '%s' must be positive", g->name);
		tok = expect(p, tok->next, "]", "after the array size");
	}
	if (consume(&tok, tok, "="))
		g->init = literal(p, &tok, tok, "to initialise a global");
	vec_push(&p->sc->globals, g);
	*rest = tok;
}

/* global = "global" gvar { "," gvar } */
static void global(Parser *p, Token **rest, Token *tok, bool is_private)
{
	tok = tok->next;
	global_var(p, &tok, tok, is_private);
	while (consume(&tok, tok, ","))
		global_var(p, &tok, tok, is_private);
	*rest = tok;
}

/* type = "long" | "string" */
static Type type_annotation(Parser *p, Token **rest, Token *tok)
{
	*rest = tok->next;
	if (tok_is(tok, "long"))
		return TY_LONG;
	if (tok_is(tok, "string"))
		return TY_STRING;
	syntax_error(p, tok, "expected 'long' or 'string' after ':', found %s",
		     tok_describe(tok));
}

/* function = "function" fname [ ":" type ] "(" [ param { "," param } ] ")"
 *            [ ":" number ] (block | embedded)
 * fname    = name | "string" | "long"     (SystemTap allows these two keywords)
 * param    = name [ ":" type ]
 * The number after the parameters is SystemTap's priority among a tapset's overloads. */
static void function(Parser *p, Token **rest, Token *tok, bool is_private)
{
	Function *f = xalloc(sizeof(*f));
	f->script = p->sc;
	f->is_private = is_private;
	tok = tok->next;
	f->tok = tok;
	if (tok_is(tok, "string") || tok_is(tok, "long")) {
		f->name = tok_text(tok);
		tok = tok->next;
	} else {
		f->name = name(p, &tok, tok, "a function name");
	}
	if (consume(&tok, tok, ":"))
		f->ret = type_annotation(p, &tok, tok);
	tok = expect(p, tok, "(", "after the function name");
	while (!tok_is(tok, ")")) {
		if (f->params.len)
			tok = expect(p, tok, ",", "between function parameters");
		Param *prm = xalloc(sizeof(*prm));
		prm->tok = tok;
		prm->name = name(p, &tok, tok, "a parameter name");
		if (consume(&tok, tok, ":"))
			prm->type = type_annotation(p, &tok, tok);
		for (int i = 0; i < f->params.len; i++)
			if (!strcmp(((Param *)f->params.data[i])->name, prm->name))
				error_at(prm->tok, "parameter '%s' is declared twice", prm->name);
		vec_push(&f->params, prm);
	}
	tok = tok->next;
	if (consume(&tok, tok, ":")) {
		if (tok->kind != TK_NUM)
			syntax_error(p, tok, "expected the priority of function '%s' (a number) after "
				     "':', found %s", f->name, tok_describe(tok));
		if (tok->num < 1)
			error_at(tok, "the priority of function '%s' must be 1 or more", f->name);
		f->priority = tok->num;
		tok = tok->next;
	}
	if (tok->kind == TK_EMBEDDED) {
		f->body = new_node(N_EMBEDDED, tok);
		f->body->str = tok->str;
		tok = tok->next;
	} else if (tok_is(tok, "{")) {
		p->in_function = true;
		f->body = block(p, &tok, tok);
		p->in_function = false;
	} else {
		syntax_error(p, tok, "expected '{' or '%%{' to start the body of function '%s', "
			     "found %s", f->name, tok_describe(tok));
	}
	vec_push(&p->sc->funcs, f);
	*rest = tok;
}

/* declaration = probe | global | function | "private" (global | function | gvar) | embedded */
static void declaration(Parser *p, Token **rest, Token *tok)
{
	bool is_private = false;
	if (tok_is(tok, "private")) {
		is_private = true;
		tok = tok->next;
		if (is_name(tok)) {     /* "private x" declares a private global */
			global_var(p, &tok, tok, true);
			while (consume(&tok, tok, ","))
				global_var(p, &tok, tok, true);
			*rest = tok;
			return;
		}
		if (!tok_is(tok, "global") && !tok_is(tok, "function"))
			syntax_error(p, tok, "expected 'global', 'function' or a variable name "
				     "after 'private', found %s", tok_describe(tok));
	}
	if (tok_is(tok, "probe"))
		probe(p, rest, tok, is_private);
	else if (tok_is(tok, "global"))
		global(p, rest, tok, is_private);
	else if (tok_is(tok, "function"))
		function(p, rest, tok, is_private);
	else if (tok->kind == TK_EMBEDDED) {
		vec_push(&p->sc->embeds, tok);
		*rest = tok->next;
	} else
		syntax_error(p, tok, "expected 'probe', 'global', 'private', 'function' or "
			     "'%%{' at the top level, found %s", tok_describe(tok));
}

static bool starts_declaration(Token *tok)
{
	return tok->kind == TK_EOF || tok_is(tok, "probe") || tok_is(tok, "global") ||
	       tok_is(tok, "function") || tok_is(tok, "private");
}

/* After a syntax error: skip to the '}' that closes the body the error is in, or to the
 * next 'probe' or 'function' that starts a line (the body may never have been closed). */
static Token *resync(Parser *p, Token *start)
{
	Token *tok = p->error_tok ? p->error_tok : start;
	int depth = p->depth;
	for (; tok->kind != TK_EOF; tok = tok->next) {
		if (tok == start)
			continue;
		if (depth <= 0 && starts_declaration(tok))
			return tok;
		if (tok->line_start && (tok_is(tok, "probe") || tok_is(tok, "function")))
			return tok;
		if (tok_is(tok, "{"))
			depth++;
		else if (tok_is(tok, "}") && --depth <= 0 && p->depth > 0)
			return tok->next;
	}
	return tok;
}

Script *parse_script(SrcFile *file, Session *s)
{
	Parser p = {.s = s};
	p.sc = xalloc(sizeof(Script));
	p.sc->file = file;
	p.sc->is_tapset = file->is_tapset;
	int lexical = diag_errors;
	Token *tok = tokenize(file);
	if (tok->kind == TK_EOF && !file->is_tapset) {
		/* as in SystemTap: nothing but comments; what %( %) leaves out does not count */
		error_at(tok, "the script is empty");
		return p.sc;
	}
	tok = preprocess(tok, s);
	if (diag_errors > lexical)      /* parsing broken tokens only adds confusion */
		return p.sc;
	while (tok->kind != TK_EOF && !too_many_errors()) {
		Token *volatile start = tok;
		p.depth = 0;
		p.nest = 0;
		p.error_tok = NULL;
		p.in_function = false;
		if (setjmp(p.recover)) {
			tok = resync(&p, start);
			continue;
		}
		if (tok_is(tok, ";")) {          /* stray separators between declarations */
			tok = tok->next;
			continue;
		}
		declaration(&p, &tok, tok);
	}
	return p.sc;
}

/* ---- statements ------------------------------------------------------------------------- */

/* block = "{" { stmt [ ";" ] } "}" */
static Node *block(Parser *p, Token **rest, Token *tok)
{
	Node *n = new_node(N_BLOCK, tok);
	Token *open = tok;
	tok = expect(p, tok, "{", "to start a block");
	p->depth++;
	while (!tok_is(tok, "}")) {
		if (tok->kind == TK_EOF || tok_is(tok, "probe") || tok_is(tok, "function"))
			syntax_error(p, tok, "expected '}' to close the block opened at line %d, "
				     "found %s", open->line, tok_describe(tok));
		vec_push(&n->args, stmt(p, &tok, tok));
	}
	p->depth--;
	*rest = tok->next;
	return n;
}

/* foreach_keys = name [sort] | "[" name [sort] { "," name [sort] } "]" ;  sort = "+" | "-" */
static void sort_marker(Parser *p, Token **rest, Token *tok, Node *n, int which)
{
	int dir = tok_is(tok, "+") ? 1 : tok_is(tok, "-") ? -1 : 0;
	if (dir && n->sort_key)
		syntax_error(p, tok, "only one sort marker ('+' or '-') is allowed in foreach");
	if (dir) {
		n->sort_key = which;
		n->sort_dir = dir;
		tok = tok->next;
	}
	*rest = tok;
}

static Node *foreach_key(Parser *p, Token **rest, Token *tok, Node *n)
{
	Node *k = new_node(N_VAR, tok);
	k->name = name(p, &tok, tok, "a foreach key variable");
	vec_push(&n->keys, k);
	sort_marker(p, rest, tok, n, n->keys.len);
	return k;
}

/* index = "[" [ expr_or_star { "," expr_or_star } ] "]" */
static void index_list(Parser *p, Token **rest, Token *tok, Vec *out)
{
	tok = expect(p, tok, "[", "to start an index");
	while (!tok_is(tok, "]")) {
		if (out->len && !tok_is(tok, ","))
			syntax_error(p, tok, "expected ',' or ']' after an index expression, found %s",
				     tok_describe(tok));
		if (out->len)
			tok = tok->next;
		if (tok_is(tok, "*") && (tok_is(tok->next, ",") || tok_is(tok->next, "]"))) {
			vec_push(out, new_node(N_STAR, tok));
			tok = tok->next;
		} else {
			vec_push(out, expr(p, &tok, tok));
		}
	}
	if (!out->len)
		syntax_error(p, tok, "expected an index expression, found ']'");
	*rest = tok->next;
}

static Node *hist_op(Parser *p, Token **rest, Token *tok);

/* foreach = "foreach" "(" [ name [sort] "=" ] foreach_keys "in" array [agg] [sort]
 *           [ "limit" expr ] ")" stmt
 * agg     = "@count" | "@sum" | "@min" | "@max" | "@avg" | "@variance"
 * array   = name [ index ] | hist_op */
static Node *foreach_stmt(Parser *p, Token **rest, Token *tok)
{
	Node *n = new_node(N_FOREACH, tok);
	tok = expect(p, tok->next, "(", "after 'foreach'");
	/* v = ..., or v+ = / v- = : sorted by value (SystemTap's spelling of "in a+"); at the
	 * end of the file (a missing '(' leaves tok there) there is no next token */
	Token *mark = tok->kind == TK_EOF ? tok : tok->next;
	int dir = tok_is(mark, "+") ? 1 : tok_is(mark, "-") ? -1 : 0;
	if (is_name(tok) && tok_is(dir ? mark->next : mark, "=")) {
		n->value = new_node(N_VAR, tok);
		n->value->name = tok_text(tok);
		if (dir) {
			n->sort_key = -1;
			n->sort_dir = dir;
		}
		tok = (dir ? mark->next : mark)->next;
	}
	if (consume(&tok, tok, "[")) {
		foreach_key(p, &tok, tok, n);
		while (consume(&tok, tok, ","))
			foreach_key(p, &tok, tok, n);
		tok = expect(p, tok, "]", "after the foreach keys");
	} else {
		foreach_key(p, &tok, tok, n);
	}
	tok = expect(p, tok, "in", "after the foreach keys");
	if (tok_is(tok, "@hist_log") || tok_is(tok, "@hist_linear")) {
		n->array = hist_op(p, &tok, tok);
	} else {
		n->array = new_node(N_VAR, tok);
		n->array->name = name(p, &tok, tok, "an array name after 'in'");
		if (tok_is(tok, "[")) {
			n->array->kind = N_INDEX;
			index_list(p, &tok, tok, &n->array->args);
		}
	}
	/* statistics arrays sort by an aggregate: foreach ([k] in s @max-) */
	static const char *const aggs[] = {"@count", "@sum", "@min", "@max", "@avg", "@variance"};
	for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++)
		if (tok_is(tok, aggs[i])) {
			n->op = aggs[i];
			tok = tok->next;
			if (!tok_is(tok, "+") && !tok_is(tok, "-"))
				syntax_error(p, tok, "expected '+' or '-' after '%s' in foreach, found %s",
					     aggs[i], tok_describe(tok));
		}
	sort_marker(p, &tok, tok, n, -1);
	if (consume(&tok, tok, "limit"))
		n->limit = expr(p, &tok, tok);
	tok = expect(p, tok, ")", "to close the foreach header");
	n->body = stmt(p, rest, tok);
	return n;
}

/* for = "for" "(" [expr] ";" [expr] ";" [expr] ")" stmt */
static Node *for_stmt(Parser *p, Token **rest, Token *tok)
{
	Node *n = new_node(N_FOR, tok);
	tok = expect(p, tok->next, "(", "after 'for'");
	if (!tok_is(tok, ";"))
		n->init = expr(p, &tok, tok);
	tok = expect(p, tok, ";", "after the for initialiser");
	if (!tok_is(tok, ";"))
		n->cond = expr(p, &tok, tok);
	tok = expect(p, tok, ";", "after the for condition");
	if (!tok_is(tok, ")"))
		n->inc = expr(p, &tok, tok);
	tok = expect(p, tok, ")", "to close the for header");
	n->body = stmt(p, rest, tok);
	return n;
}

/* Where an optional statement value ends: return; return } */
static bool ends_statement(Token *tok)
{
	return tok_is(tok, ";") || tok_is(tok, "}") || tok->kind == TK_EOF;
}

/* stmt = block | ";" | if | while | for | foreach | "break" | "continue" | "next"
 *      | "return" [expr] | "delete" expr | try | expr
 * try  = "try" block "catch" [ "(" name ")" ] block
 * A statement may be followed by one ';'. */
static Node *stmt_nested(Parser *p, Token **rest, Token *tok);

static Node *stmt(Parser *p, Token **rest, Token *tok)
{
	nest_in(p, tok);
	Node *n = stmt_nested(p, rest, tok);
	p->nest--;
	return n;
}

static Node *stmt_nested(Parser *p, Token **rest, Token *tok)
{
	Node *n;
	Token *start = tok;
	if (tok_is(tok, "{")) {
		n = block(p, &tok, tok);
	} else if (tok_is(tok, ";")) {
		n = new_node(N_NULL, tok);
		*rest = tok->next;
		return n;
	} else if (tok_is(tok, "if")) {
		n = new_node(N_IF, tok);
		tok = expect(p, tok->next, "(", "after 'if'");
		n->cond = expr(p, &tok, tok);
		tok = expect(p, tok, ")", "to close the 'if' condition");
		n->then = stmt(p, &tok, tok);
		if (consume(&tok, tok, "else"))
			n->els = stmt(p, &tok, tok);
		*rest = tok;
		return n;
	} else if (tok_is(tok, "while")) {
		n = new_node(N_WHILE, tok);
		tok = expect(p, tok->next, "(", "after 'while'");
		n->cond = expr(p, &tok, tok);
		tok = expect(p, tok, ")", "to close the 'while' condition");
		n->body = stmt(p, rest, tok);
		return n;
	} else if (tok_is(tok, "for")) {
		return for_stmt(p, rest, tok);
	} else if (tok_is(tok, "foreach")) {
		return foreach_stmt(p, rest, tok);
	} else if (tok_is(tok, "break") || tok_is(tok, "continue") || tok_is(tok, "next")) {
		n = new_node(tok_is(tok, "break") ? N_BREAK :
			     tok_is(tok, "continue") ? N_CONTINUE : N_NEXT, tok);
		tok = tok->next;
	} else if (tok_is(tok, "return")) {
		if (!p->in_function)
			syntax_error(p, tok, "'return' is only allowed in functions; 'next' leaves "
				     "a probe");
		n = new_node(N_RETURN, tok);
		tok = tok->next;
		if (!ends_statement(tok))
			n->lhs = expr(p, &tok, tok);
	} else if (tok_is(tok, "delete")) {
		n = new_node(N_DELETE, tok);
		n->lhs = expr(p, &tok, tok->next);
	} else if (tok_is(tok, "try")) {
		n = new_node(N_TRY, tok);
		n->body = block(p, &tok, tok->next);
		tok = expect(p, tok, "catch", "after the try block");
		if (consume(&tok, tok, "(")) {
			n->name = name(p, &tok, tok, "a variable name for the caught message");
			tok = expect(p, tok, ")", "after the catch variable");
		}
		n->then = block(p, &tok, tok);
		*rest = tok;
		return n;
	} else if (tok_is(tok, "global") || tok_is(tok, "private")) {
		syntax_error(p, tok, "'%.*s' declarations belong at the top level, not inside "
			     "a block", tok->len, tok->pos);
	} else if (tok_is(tok, "}") || tok_is(tok, ")") || tok_is(tok, "]")) {
		syntax_error(p, tok, "expected a statement, found %s", tok_describe(tok));
	} else if (tok_is(tok, "else")) {
		syntax_error(p, tok, "'else' without a matching 'if'");
	} else if (tok_is(tok, "catch")) {
		syntax_error(p, tok, "'catch' without a matching 'try'");
	} else {
		n = new_node(N_EXPR_STMT, tok);
		n->lhs = expr(p, &tok, tok);
	}
	(void)start;
	consume(&tok, tok, ";");
	*rest = tok;
	return n;
}

/* ---- expressions ----------------------------------------------------------------------- */

static const char *const assign_ops[] = {
	"=", "<<<", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", ".=",
};

/* expr = ternary [ assign_op expr ] */
static Node *expr(Parser *p, Token **rest, Token *tok)
{
	nest_in(p, tok);
	Node *lhs = ternary(p, &tok, tok);
	for (size_t i = 0; i < sizeof(assign_ops) / sizeof(assign_ops[0]); i++) {
		if (tok->kind == TK_PUNCT && tok_is(tok, assign_ops[i])) {
			Token *op = tok;
			Node *rhs = expr(p, rest, tok->next);
			p->nest--;
			return new_binary(N_ASSIGN, op, lhs, rhs);
		}
	}
	p->nest--;
	*rest = tok;
	return lhs;
}

typedef struct {
	NodeKind kind;
	const char *ops[6];
} Level;

/* The binary levels from loosest to tightest; "in" sits between '&' and the comparisons. */
static const Level levels[] = {
	{N_LOGICAL, {"||"}},
	{N_LOGICAL, {"&&"}},
	{N_BINARY, {"|"}},
	{N_BINARY, {"^"}},
	{N_BINARY, {"&"}},
	{N_IN, {"in"}},
	{N_COMPARE, {"<", ">", "<=", ">=", "==", "!="}},
	{N_BINARY, {"<<", ">>", ">>>"}},
	{N_CONCAT, {"."}},
	{N_BINARY, {"+", "-"}},
	{N_BINARY, {"*", "/", "%"}},
};

enum { N_LEVELS = sizeof(levels) / sizeof(levels[0]) };

static const char *level_op(int level, Token *tok)
{
	if (tok->kind != TK_PUNCT)      /* every binary operator is punctuation */
		return NULL;
	for (int i = 0; i < 6 && levels[level].ops[i]; i++)
		if (tok_is(tok, levels[level].ops[i]) && tok->kind != TK_STR)
			return levels[level].ops[i];
	return NULL;
}

static Node *binary(Parser *p, Token **rest, Token *tok, int level);

/* in = "[" index_items "]" "in" array | comparison [ "in" array ]   (array: name [index]) */
static Node *array_in(Parser *p, Token **rest, Token *tok)
{
	Node *n = new_node(N_IN, tok);
	if (tok_is(tok, "[")) {
		index_list(p, &tok, tok, &n->args);
		if (!tok_is(tok, "in"))
			syntax_error(p, tok, "expected 'in' after a bracketed key list, found %s",
				     tok_describe(tok));
	} else {
		Node *lhs = binary(p, &tok, tok, 6);
		if (!tok_is(tok, "in")) {
			*rest = tok;
			return lhs;
		}
		vec_push(&n->args, lhs);
	}
	n->tok = tok;
	tok = tok->next;
	n->rhs = new_node(N_VAR, tok);
	n->rhs->name = name(p, &tok, tok, "an array name after 'in'");
	if (tok_is(tok, "[")) {
		n->rhs->kind = N_INDEX;
		index_list(p, &tok, tok, &n->rhs->args);
	}
	*rest = tok;
	return n;
}

/* binary(level) = binary(level + 1) { op(level) binary(level + 1) }; regex: "=~" | "!~" */
static Node *binary(Parser *p, Token **rest, Token *tok, int level)
{
	if (level == N_LEVELS)
		return unary(p, rest, tok);
	if (levels[level].kind == N_IN)
		return array_in(p, rest, tok);
	Node *lhs = binary(p, &tok, tok, level + 1);
	int chain = p->nest;
	for (;;) {
		const char *op = level_op(level, tok);
		NodeKind kind = levels[level].kind;
		if (!op && kind == N_COMPARE && (tok_is(tok, "=~") || tok_is(tok, "!~"))) {
			op = tok_is(tok, "=~") ? "=~" : "!~";
			kind = N_REGEX;
		}
		if (!op)
			break;
		Token *t = tok;
		nest_in(p, tok);        /* the tree leans left: one level deeper an operator */
		Node *rhs = binary(p, &tok, tok->next, level + 1);
		lhs = new_binary(kind, t, lhs, rhs);
	}
	p->nest = chain;
	*rest = tok;
	return lhs;
}

/* ternary = logical_or [ "?" expr ":" ternary ] */
static Node *ternary(Parser *p, Token **rest, Token *tok)
{
	Node *cond = binary(p, &tok, tok, 0);
	if (!tok_is(tok, "?")) {
		*rest = tok;
		return cond;
	}
	Node *n = new_node(N_TERNARY, tok);
	n->cond = cond;
	n->then = expr(p, &tok, tok->next);
	tok = expect(p, tok, ":", "in a '?:' expression");
	n->els = ternary(p, rest, tok);
	return n;
}

/* ---- primaries -------------------------------------------------------------------------- */

/* args = "(" [ expr { "," expr } ] ")" */
static void call_args(Parser *p, Token **rest, Token *tok, Vec *out, const char *what)
{
	tok = expect(p, tok, "(", what);
	while (!tok_is(tok, ")")) {
		if (out->len && !tok_is(tok, ","))
			syntax_error(p, tok, "expected ',' or ')' after an argument, found %s",
				     tok_describe(tok));
		if (out->len)
			tok = tok->next;
		vec_push(out, expr(p, &tok, tok));
	}
	*rest = tok->next;
}

/* chain = { "->" name | "[" expr "]" } [ "$" | "$$" ] */
static void target_chain(Parser *p, Token **rest, Token *tok, Node *n)
{
	for (;;) {
		TargetComp *c = xalloc(sizeof(*c));
		c->tok = tok;
		if (consume(&tok, tok, "->")) {
			c->kind = TC_FIELD;
			if (tok->kind != TK_IDENT)
				syntax_error(p, tok, "expected a field name after '->', found %s",
					     tok_describe(tok));
			c->field = tok_text(tok);
			tok = tok->next;
		} else if (consume(&tok, tok, "[")) {
			c->kind = TC_INDEX;
			c->index = expr(p, &tok, tok);
			tok = expect(p, tok, "]", "after the index");
		} else {
			break;
		}
		vec_push(&n->comps, c);
	}
	if (tok_is(tok, "$") || tok_is(tok, "$$")) {
		n->pretty = tok_text(tok);
		tok = tok->next;
	}
	*rest = tok;
}

/* deref = primary chain: autocast pointers, "x->f", "f(y)->g", "(p)[2]" */
static Node *deref(Parser *p, Token **rest, Token *tok, Node *base)
{
	Node *n = new_node(N_DEREF, tok);
	n->lhs = base;
	target_chain(p, rest, tok, n);
	return n;
}

typedef struct {
	const char *name;
	NodeKind kind;
	int min_args, max_args;
} AtOp;

static const AtOp at_ops[] = {
	{"@count", N_AT_OP, 1, 1},       {"@sum", N_AT_OP, 1, 1},
	{"@min", N_AT_OP, 1, 1},         {"@max", N_AT_OP, 1, 1},
	{"@avg", N_AT_OP, 1, 1},         {"@variance", N_AT_OP, 1, 2},
	{"@hist_log", N_HIST, 1, 1},     {"@hist_linear", N_HIST, 4, 4},
	{"@cast", N_AT_CAST, 2, 3},      {"@var", N_AT_VAR, 1, 2},
	{"@defined", N_AT_DEFINED, 1, 1}, {"@entry", N_AT_ENTRY, 1, 1},
	{"@perf", N_AT_PERF, 1, 1},      {"@kregister", N_AT_OTHER, 1, 1},
	{"@uregister", N_AT_OTHER, 1, 1}, {"@probewrite", N_AT_OTHER, 1, 1},
	{"@const", N_AT_OTHER, 1, 1},    {"@module", N_AT_OTHER, 1, 1},
	{"@kderef", N_AT_OTHER, 2, 2},   {"@uderef", N_AT_OTHER, 2, 2},
};

static const AtOp *find_at_op(Token *tok)
{
	for (size_t i = 0; i < sizeof(at_ops) / sizeof(at_ops[0]); i++)
		if (tok_is(tok, at_ops[i].name))
			return &at_ops[i];
	return NULL;
}

/* hist_op = ("@hist_log" | "@hist_linear") args */
static Node *hist_op(Parser *p, Token **rest, Token *tok)
{
	Node *n = new_node(N_HIST, tok);
	n->op = tok_text(tok);
	Vec args = {0};
	call_args(p, rest, tok->next, &args, xformat("after '%s'", n->op));
	int want = tok_is(tok, "@hist_log") ? 1 : 4;
	if (args.len != want)
		syntax_error(p, tok, "'%s' takes %d argument%s, found %d", n->op, want,
			     want == 1 ? "" : "s", args.len);
	n->lhs = args.data[0];
	for (int i = 1; i < args.len; i++)
		vec_push(&n->args, args.data[i]);
	return n;
}

/* at_op = "@" name args [ chain ] | hist_op [ "[" expr "]" ] */
static Node *at_expr(Parser *p, Token **rest, Token *tok)
{
	const AtOp *op = find_at_op(tok);
	if (!op)
		syntax_error(p, tok, "unknown operator or macro '%.*s'", tok->len, tok->pos);
	if (op->kind == N_HIST) {
		Node *n = hist_op(p, &tok, tok);
		if (tok_is(tok, "[")) {
			Node *ix = new_node(N_HIST_INDEX, tok);
			ix->lhs = n;
			ix->rhs = expr(p, &tok, tok->next);
			tok = expect(p, tok, "]", "after the histogram bucket index");
			n = ix;
		}
		*rest = tok;
		return n;
	}
	Node *n = new_node(op->kind, tok);
	n->op = tok_text(tok);
	n->name = tok_text(tok);
	Vec args = {0};
	call_args(p, &tok, tok->next, &args, xformat("after '%s'", n->op));
	if (args.len < op->min_args || args.len > op->max_args)
		syntax_error(p, n->tok, "'%s' takes %s%d argument%s, found %d", n->op,
			     op->min_args != op->max_args ? "at most " : "", op->max_args,
			     op->max_args == 1 ? "" : "s", args.len);
	if (op->kind == N_AT_CAST || op->kind == N_AT_VAR || op->kind == N_AT_PERF) {
		for (int i = op->kind == N_AT_CAST; i < args.len; i++)
			if (((Node *)args.data[i])->kind != N_STR)
				syntax_error(p, ((Node *)args.data[i])->tok,
					     "argument %d of '%s' must be a string literal, found %s",
					     i + 1, n->op, tok_describe(((Node *)args.data[i])->tok));
	}
	n->lhs = args.data[0];
	for (int i = 1; i < args.len; i++)
		vec_push(&n->args, args.data[i]);
	if (op->kind == N_AT_CAST || op->kind == N_AT_VAR)
		target_chain(p, &tok, tok, n);
	*rest = tok;
	return n;
}

/* primary = "(" expr ")" | number | string | embedded | target chain | at_op
 *         | name args | name index | name */
static Node *primary(Parser *p, Token **rest, Token *tok)
{
	if (tok_is(tok, "(")) {
		Node *n = expr(p, &tok, tok->next);
		tok = expect(p, tok, ")", "to close the parenthesis");
		if (tok_is(tok, "->") || tok_is(tok, "["))
			return deref(p, rest, tok, n);
		*rest = tok;
		return n;
	}
	if (tok->kind == TK_NUM) {
		*rest = tok->next;
		return number(p, tok, false);
	}
	if (tok->kind == TK_STR)
		return string(rest, tok);
	if (tok->kind == TK_EMBEDDED) {
		Node *n = new_node(N_EMBEDDED_EXPR, tok);
		n->str = tok->str;
		*rest = tok->next;
		return n;
	}
	if (tok->kind == TK_TARGET) {
		Node *n = new_node(N_TARGET, tok);
		n->name = tok_text(tok);
		target_chain(p, rest, tok->next, n);
		return n;
	}
	if (tok->kind == TK_AT) {
		Node *n = at_expr(p, &tok, tok);
		if (tok_is(tok, "->"))
			return deref(p, rest, tok, n);
		*rest = tok;
		return n;
	}
	if (is_name(tok)) {
		Node *n = new_node(N_VAR, tok);
		n->name = tok_text(tok);
		tok = tok->next;
		if (is_print_builtin(n->name) && !tok_is(tok, "("))
			syntax_error(p, tok, "expected '(' after '%s', found %s", n->name,
				     tok_describe(tok));
		if (tok_is(tok, "(")) {
			n->kind = N_CALL;
			call_args(p, &tok, tok, &n->args, "after the function name");
		} else if (tok_is(tok, "[")) {
			n->kind = N_INDEX;
			index_list(p, &tok, tok, &n->args);
		}
		if (tok_is(tok, "->") || (n->kind != N_VAR && tok_is(tok, "[")))
			return deref(p, rest, tok, n);    /* p->f, f()[1], a[1][2] */
		*rest = tok;
		return n;
	}
	syntax_error(p, tok, "expected an expression, found %s", tok_describe(tok));
}

/* postfix = primary [ "++" | "--" ] */
static Node *postfix(Parser *p, Token **rest, Token *tok)
{
	Node *n = primary(p, &tok, tok);
	if (tok_is(tok, "++") || tok_is(tok, "--")) {
		Node *inc = new_node(N_POSTINC, tok);
		inc->op = tok_text(tok);
		inc->lhs = n;
		n = inc;
		tok = tok->next;
	}
	*rest = tok;
	return n;
}

/* unary = ("-" | "+" | "!" | "~") unary | ("++" | "--") unary | "&" unary | postfix */
static Node *unary_operand(Parser *p, Token **rest, Token *tok);

static Node *unary(Parser *p, Token **rest, Token *tok)
{
	if (tok_is(tok, "-") && tok->next->kind == TK_NUM) {
		Node *n = number(p, tok->next, true);
		n->tok = tok;
		/* -5 is a literal, but -5++ or -5[...] are not meant */
		*rest = tok->next->next;
		return n;
	}
	if (tok_is(tok, "-") || tok_is(tok, "+") || tok_is(tok, "!") || tok_is(tok, "~")) {
		Node *n = new_node(N_UNARY, tok);
		n->op = tok_text(tok);
		n->lhs = unary_operand(p, rest, tok->next);
		return n;
	}
	if (tok_is(tok, "++") || tok_is(tok, "--")) {
		Node *n = new_node(N_PREINC, tok);
		n->op = tok_text(tok);
		n->lhs = unary_operand(p, rest, tok->next);
		return n;
	}
	if (tok_is(tok, "&")) {
		Node *n = new_node(N_ADDR, tok);
		n->lhs = unary_operand(p, rest, tok->next);
		return n;
	}
	return postfix(p, rest, tok);
}

/* The operand of a prefix operator: one level deeper. */
static Node *unary_operand(Parser *p, Token **rest, Token *tok)
{
	nest_in(p, tok);
	Node *n = unary(p, rest, tok);
	p->nest--;
	return n;
}
