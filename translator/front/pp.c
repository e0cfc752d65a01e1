/* pp.c - the preprocessor: works on the token list between the lexer and the parser.
 *
 * conditional = "%(" condition "%?" tokens [ "%:" tokens ] "%)"
 * condition   = and { "||" and };  and = primary { "&&" primary }
 * primary     = "(" condition ")" | operand cmp operand
 * macro       = "@define" name [ "(" [ name { "," name } ] ")" ] "%(" tokens "%)"
 * use         = "@" name [ "(" tokens { "," tokens } ")" ]
 * argument    = "$"N (its tokens) | "@"N (a string) | "$#" | "@#" (the count)
 *
 * Chosen branches and expansions are spliced into the list and scanned again, so
 * conditionals inside macros and macros inside branches work.
 */
#include "hwtap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct Macro {
	char *name;                 /* without '@' */
	VEC(char *) params;
	bool has_params;
	bool broken;                /* its definition had errors: uses expand to nothing */
	Token *body;                /* NULL-terminated copy */
	Token *tok;
} Macro;

typedef struct {
	Session *s;
	VEC(Macro *) locals;
	bool library;
	long expanded;              /* tokens macros produced so far in this file */
} PP;

/* Nested uses, and tokens a file's macros may produce in all: @a(@a(@a(x))) with a body
 * that uses its parameter twice doubles at every level. */
enum { MAX_EXPANSION_DEPTH = 100, MAX_EXPANDED_TOKENS = 500000 };

static Token *copy_token(const Token *t)
{
	Token *c = xalloc(sizeof(*c));
	*c = *t;
	c->next = NULL;
	return c;
}

static Macro *find_macro(PP *pp, const char *name)
{
	for (int i = pp->locals.len - 1; i >= 0; i--) {
		Macro *m = pp->locals.data[i];
		if (!strcmp(m->name, name))
			return m;
	}
	tapset_need(pp->s, TAPSET_MACRO, name);         /* a library file not read yet */
	for (int i = pp->s->library_macros.len - 1; i >= 0; i--) {
		Macro *m = pp->s->library_macros.data[i];
		if (!strcmp(m->name, name))
			return m;
	}
	return NULL;
}

/* ---- conditions ----------------------------------------------------------------------- */

typedef struct {
	enum { V_NUM, V_STR, V_VERSION } kind;
	const char *str;
	int64_t num;
} Value;

static bool operand(PP *pp, Token **rest, Token *tok, Value *v)
{
	Session *s = pp->s;
	bool neg = false;
	if (tok_is(tok, "-") && tok->next->kind == TK_NUM) {
		neg = true;
		tok = tok->next;
	}
	*rest = tok->next;
	switch (tok->kind) {
	case TK_NUM:
		*v = (Value){V_NUM, NULL, neg ? -(int64_t)tok->num : (int64_t)tok->num};
		return true;
	case TK_STR:
		*v = (Value){V_STR, tok->str, 0};
		return true;
	case TK_ARG:
		if (tok->pos[1] == '#') {
			if (tok->pos[0] == '$')
				*v = (Value){V_NUM, NULL, s->args.len};
			else
				*v = (Value){V_STR, xformat("%d", s->args.len), 0};
			return true;
		}
		break;
	case TK_IDENT: {
		char *name = tok_text(tok);
		if (!strcmp(name, "kernel_v"))
			*v = (Value){V_VERSION, s->kernel_version, 0};
		else if (!strcmp(name, "kernel_vr"))
			*v = (Value){V_VERSION, s->kernel_release, 0};
		else if (!strcmp(name, "systemtap_v"))
			*v = (Value){V_VERSION, s->compat, 0};
		else if (!strcmp(name, "arch"))
			*v = (Value){V_STR, s->arch, 0};
		else if (!strcmp(name, "runtime"))
			*v = (Value){V_STR, "kernel", 0};
		else if (!strcmp(name, "systemtap_privilege"))
			*v = (Value){V_STR, "stapdev", 0};
		else if (!strcmp(name, "guru_mode"))
			*v = (Value){V_NUM, NULL, s->guru};
		else if (!strncmp(name, "CONFIG_", 7))
			*v = (Value){V_STR, session_config_value(s, name), 0};
		else
			break;
		return true;
	}
	default:
		break;
	}
	*rest = tok;                  /* never past the condition's end */
	error_at(tok, "expected kernel_v, kernel_vr, arch, systemtap_v, systemtap_privilege, "
		 "runtime, guru_mode, CONFIG_..., $#, @# or a literal in a preprocessor "
		 "condition, found %s", tok_describe(tok));
	return false;
}

static bool has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int compare_values(Value a, Value b, const char *op, bool *ok, Token *where)
{
	bool equality = !strcmp(op, "==") || !strcmp(op, "!=");
	if (a.kind == V_NUM && b.kind == V_NUM)
		return (a.num > b.num) - (a.num < b.num);
	if (a.kind == V_NUM || b.kind == V_NUM) {
		/* CONFIG_NR_CPUS > 4: a string that holds a number compares as one */
		Value *sv = a.kind == V_NUM ? &b : &a;
		char *end;
		long long n = strtoll(sv->str, &end, 0);
		if (!*sv->str || *end) {
			if (*sv->str) {
				error_at(where, "cannot compare the string \"%s\" with a number",
					 sv->str);
				*ok = false;
			}
			return 1;           /* an unset CONFIG_ compares unequal to any number */
		}
		sv->kind = V_NUM;
		sv->num = n;
		return (a.num > b.num) - (a.num < b.num);
	}
	if (equality && has_wildcard(b.str))
		return glob_match(b.str, a.str) ? 0 : 1;
	if (a.kind == V_VERSION || b.kind == V_VERSION)
		return strverscmp(a.str, b.str);
	return strcmp(a.str, b.str);
}

static bool condition(PP *pp, Token **rest, Token *tok, bool *ok);

static bool primary(PP *pp, Token **rest, Token *tok, bool *ok)
{
	if (tok_is(tok, "(")) {
		bool v = condition(pp, &tok, tok->next, ok);
		if (tok_is(tok, ")")) {
			tok = tok->next;
		} else if (*ok) {     /* else the condition inside has said what is wrong */
			error_at(tok, "expected ')' in preprocessor condition, found %s",
				 tok_describe(tok));
			*ok = false;
		}
		*rest = tok;
		return v;
	}
	Value a, b;
	if (!operand(pp, &tok, tok, &a)) {
		*ok = false;
		*rest = tok;
		return false;
	}
	static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
	const char *op = NULL;
	for (size_t i = 0; i < 6; i++)
		if (tok_is(tok, ops[i]))
			op = ops[i];
	if (!op) {
		error_at(tok, "expected a comparison (==, !=, <, <=, >, >=) in preprocessor "
			 "condition, found %s", tok_describe(tok));
		*ok = false;
		*rest = tok;
		return false;
	}
	Token *op_tok = tok;
	if (!operand(pp, &tok, tok->next, &b)) {
		*ok = false;
		*rest = tok;
		return false;
	}
	*rest = tok;
	int c = compare_values(a, b, op, ok, op_tok);
	switch (op[0]) {
	case '=': return c == 0;
	case '!': return c != 0;
	case '<': return op[1] ? c <= 0 : c < 0;
	default: return op[1] ? c >= 0 : c > 0;
	}
}

static bool conjunction(PP *pp, Token **rest, Token *tok, bool *ok)
{
	bool v = primary(pp, &tok, tok, ok);
	while (*ok && tok_is(tok, "&&"))
		v = primary(pp, &tok, tok->next, ok) && v;
	*rest = tok;
	return v;
}

static bool condition(PP *pp, Token **rest, Token *tok, bool *ok)
{
	bool v = conjunction(pp, &tok, tok, ok);
	while (*ok && tok_is(tok, "||"))
		v = conjunction(pp, &tok, tok->next, ok) || v;
	*rest = tok;
	return v;
}

/* Returns the token after the "%)" that closes the conditional opened before `tok`, and
 * the positions of "%?" and "%:" at its level; NULL when it is never closed. */
static Token *find_branches(Token *tok, Token **qmark, Token **colon)
{
	int depth = 0;
	*qmark = *colon = NULL;
	for (; tok->kind != TK_EOF; tok = tok->next) {
		if (tok_is(tok, "%("))
			depth++;
		else if (tok_is(tok, "%)") && depth-- == 0)
			return tok;
		else if (depth == 0 && tok_is(tok, "%?") && !*qmark)
			*qmark = tok;
		else if (depth == 0 && tok_is(tok, "%:") && *qmark && !*colon)
			*colon = tok;
		else if (depth == 0 && (tok_is(tok, "%:") || tok_is(tok, "%?")))
			error_at(tok, "duplicate '%.*s' in a '%%(' conditional", tok->len, tok->pos);
	}
	return NULL;
}

/* Links the tokens strictly between `from` and `to` in front of `rest`. */
static Token *splice(Token *from, Token *to, Token *rest)
{
	if (from->next == to)
		return rest;
	Token *t = from->next;
	while (t->next != to)
		t = t->next;
	t->next = rest;
	return from->next;
}

static Token *scan(PP *pp, Token *tok);

static Token *conditional(PP *pp, Token *open)
{
	Token *qmark, *colon;
	Token *close = find_branches(open->next, &qmark, &colon);
	if (!close) {
		error_at(open, "'%%(' is never closed by '%%)'");
		Token *t = open;
		while (t->kind != TK_EOF)
			t = t->next;
		return t;
	}
	if (!qmark) {
		error_at(close, "expected '%%?' after the condition of the '%%(' at line %d",
			 open->line);
		return close->next;
	}
	/* The condition may use macros: @define _IS_X %( arch == "x86_64" %) */
	Token head = {0}, *cur = &head;
	for (Token *t = open->next; t != qmark; t = t->next)
		cur = cur->next = copy_token(t);
	cur->next = copy_token(qmark);
	cur->next->kind = TK_EOF;
	Token *cond = scan(pp, head.next);
	bool ok = true;
	Token *end;
	bool v = condition(pp, &end, cond, &ok);
	if (ok && end->kind != TK_EOF) {
		error_at(end, "expected '%%?' after the preprocessor condition, found %s",
			 tok_describe(end));
		ok = false;
	}
	if (!ok)
		return close->next;
	if (v)
		return splice(qmark, colon ? colon : close, close->next);
	return colon ? splice(colon, close, close->next) : close->next;
}

/* ---- macros ------------------------------------------------------------------------ */

/* After an error in a @define: the token after the body's "%)" if a body follows soon. */
static Token *skip_definition(Token *tok)
{
	for (Token *t = tok; t->kind != TK_EOF && !tok_is(t, "@define"); t = t->next) {
		if (!tok_is(t, "%("))
			continue;
		Token *qmark, *colon, *close = find_branches(t->next, &qmark, &colon);
		return close ? close->next : t;
	}
	return tok;
}

static void add_macro(PP *pp, Macro *m)
{
	Vec *table = pp->library ? &pp->s->library_macros : &pp->locals;
	for (int i = 0; i < pp->locals.len && !pp->library; i++)
		if (!strcmp(((Macro *)pp->locals.data[i])->name, m->name))
			error_at(m->tok, "macro '@%s' is already defined at line %d", m->name,
				 ((Macro *)pp->locals.data[i])->tok->line);
	vec_push(table, m);
}

/* A macro whose definition was wrong: its uses expand to nothing, silently. */
static Token *broken(PP *pp, Macro *m, Token *tok)
{
	m->broken = true;
	if (m->name)
		add_macro(pp, m);
	return skip_definition(tok);
}

static Token *define(PP *pp, Token *tok)
{
	Macro *m = xalloc(sizeof(*m));
	tok = tok->next;
	if (tok->kind != TK_IDENT) {
		error_at(tok, "expected a macro name after '@define', found %s", tok_describe(tok));
		return broken(pp, m, tok);
	}
	m->name = tok_text(tok);
	m->tok = tok;
	tok = tok->next;
	if (tok_is(tok, "(")) {
		m->has_params = true;
		tok = tok->next;
		while (!tok_is(tok, ")")) {
			if (m->params.len && !tok_is(tok, ",")) {
				error_at(tok, "expected ',' or ')' in the parameters of macro '@%s', "
					 "found %s", m->name, tok_describe(tok));
				return broken(pp, m, tok);
			}
			if (m->params.len)
				tok = tok->next;
			if (tok->kind != TK_IDENT) {
				error_at(tok, "expected a parameter name for macro '@%s', found %s",
					 m->name, tok_describe(tok));
				return broken(pp, m, tok);
			}
			vec_push(&m->params, tok_text(tok));
			tok = tok->next;
		}
		tok = tok->next;
	}
	if (!tok_is(tok, "%(")) {
		error_at(tok, "expected '%%(' to start the body of macro '@%s', found %s",
			 m->name, tok_describe(tok));
		return broken(pp, m, tok);
	}
	Token *qmark, *colon;
	Token *close = find_branches(tok->next, &qmark, &colon);
	if (!close) {
		error_at(tok, "the body of macro '@%s' is never closed by '%%)'", m->name);
		while (tok->kind != TK_EOF)
			tok = tok->next;
		return tok;
	}
	Token head = {0}, *cur = &head;
	for (Token *t = tok->next; t != close; t = t->next)
		cur = cur->next = copy_token(t);
	m->body = head.next;
	add_macro(pp, m);
	return close->next;
}

/* Collects "( arg, arg )" after a macro use into ARGS, or only skips it when ARGS is
 * NULL (a use that is not expanded: copying its arguments, which may hold every token the
 * limit let through, is what ran the fuzzer out of memory); returns the token after ')'
 * or NULL. */
static Token *macro_args(Token *tok, Macro *m, Vec *args)
{
	int depth = 0;
	Token head = {0}, *cur = &head;
	for (tok = tok->next; tok->kind != TK_EOF; tok = tok->next) {
		if (depth == 0 && (tok_is(tok, ",") || tok_is(tok, ")"))) {
			if (args && (head.next || tok_is(tok, ",") || args->len || m->params.len))
				vec_push(args, head.next);
			head.next = NULL;
			cur = &head;
			if (tok_is(tok, ")"))
				return tok->next;
			continue;
		}
		if (tok_is(tok, "(") || tok_is(tok, "[") || tok_is(tok, "{") || tok_is(tok, "%("))
			depth++;
		else if (tok_is(tok, ")") || tok_is(tok, "]") || tok_is(tok, "}") ||
			 tok_is(tok, "%)"))
			depth--;
		if (args)
			cur = cur->next = copy_token(tok);
	}
	return NULL;
}

static int origin_depth(const Token *t)
{
	int d = 0;
	for (; t; t = t->origin)
		d++;
	return d;
}

static Token *expand(PP *pp, Macro *m, Token *use)
{
	Token *rest = use->next;
	VEC(Token *) args = {0};
	if (origin_depth(use) > MAX_EXPANSION_DEPTH) {
		error_at(use, "macro '@%s' expands into itself too deeply (recursive macro?)",
			 m->name);
		return rest;
	}
	if (m->broken || pp->expanded > MAX_EXPANDED_TOKENS) {
		if (m->has_params && tok_is(rest, "(") && (rest = macro_args(rest, m, NULL)))
			return rest;
		return use->next;
	}
	if (m->has_params) {
		if (!tok_is(rest, "(")) {
			error_at(rest, "expected '(' with the arguments of macro '@%s', found %s",
				 m->name, tok_describe(rest));
			return rest;
		}
		rest = macro_args(rest, m, &args);
		if (!rest) {
			error_at(use, "the arguments of macro '@%s' are never closed by ')'",
				 m->name);
			for (rest = use; rest->kind != TK_EOF; rest = rest->next)
				;
			return rest;
		}
		if (args.len != m->params.len) {
			error_at(use, "macro '@%s' takes %d argument%s, but %d %s given", m->name,
				 m->params.len, m->params.len == 1 ? "" : "s", args.len,
				 args.len == 1 ? "was" : "were");
			return rest;
		}
	}
	Token head = {0}, *cur = &head;
	for (Token *t = m->body; t; t = t->next) {
		if (++pp->expanded > MAX_EXPANDED_TOKENS) {
			/* one error; this use and all later ones stand for the number 0 */
			error_at(use, "macro expansion of '@%s' produces more than %d tokens",
				 m->name, MAX_EXPANDED_TOKENS);
			Token *zero = copy_token(use);
			zero->kind = TK_NUM;
			zero->num = 0;
			zero->next = rest;
			return zero;
		}
		int param = -1;
		if (t->kind == TK_AT)
			for (int i = 0; i < m->params.len; i++)
				if ((size_t)t->len == strlen(m->params.data[i]) + 1 &&
				    !memcmp(t->pos + 1, m->params.data[i], t->len - 1))
					param = i;
		if (param < 0) {
			cur = cur->next = copy_token(t);
			cur->origin = use;
			continue;
		}
		for (Token *a = args.data[param]; a; a = a->next, pp->expanded++)
			cur = cur->next = copy_token(a);
	}
	cur->next = rest;
	return head.next;
}

/* ---- command-line arguments ---------------------------------------------------------- */

static Token *argument(PP *pp, Token *tok)
{
	Session *s = pp->s;
	Token *rest = tok->next;
	Token *t = copy_token(tok);
	t->next = rest;
	if (tok->pos[1] == '#') {
		t->kind = tok->pos[0] == '$' ? TK_NUM : TK_STR;
		t->num = s->args.len;
		t->str = xformat("%d", s->args.len);
		t->str_len = strlen(t->str);
		return t;
	}
	long n = strtol(tok->pos + 1, NULL, 10);
	if (n < 1 || n > s->args.len) {
		error_at(tok, "script argument %.*s is not given (the script has %d argument%s)",
			 tok->len, tok->pos, s->args.len, s->args.len == 1 ? "" : "s");
		t->kind = tok->pos[0] == '$' ? TK_NUM : TK_STR;
		t->str = "";
		return t;
	}
	const char *value = s->args.data[n - 1];
	if (tok->pos[0] == '@') {
		t->kind = TK_STR;
		t->str = xstrdup(value);
		t->str_len = strlen(value);
		return t;
	}
	SrcFile *f = new_srcfile(xformat("<argument %.*s>", tok->len, tok->pos), value,
				 strlen(value));
	Token *arg = tokenize(f);
	if (arg->kind == TK_EOF)
		return rest;
	Token *last = arg;
	for (Token *a = arg; a->kind != TK_EOF; a = a->next) {
		a->origin = tok;
		last = a;
	}
	last->next = rest;
	return arg;
}

/* ---- the scan ------------------------------------------------------------------------ */

static Token *scan(PP *pp, Token *tok)
{
	Token head = {0}, *cur = &head;
	while (tok->kind != TK_EOF) {
		if (too_many_errors()) {
			while (tok->kind != TK_EOF)
				tok = tok->next;
			break;
		}
		if (tok_is(tok, "%(")) {
			tok = conditional(pp, tok);
			continue;
		}
		if (tok_is(tok, "%?") || tok_is(tok, "%:") || tok_is(tok, "%)")) {
			error_at(tok, "'%.*s' without an open '%%('", tok->len, tok->pos);
			tok = tok->next;
			continue;
		}
		if (tok_is(tok, "@define")) {
			tok = define(pp, tok);
			continue;
		}
		if (tok->kind == TK_AT) {
			Macro *m = find_macro(pp, xstrndup(tok->pos + 1, tok->len - 1));
			if (m) {
				tok = expand(pp, m, tok);
				continue;
			}
		}
		if (tok->kind == TK_ARG) {
			tok = argument(pp, tok);
			continue;
		}
		cur = cur->next = tok;
		tok = tok->next;
	}
	cur->next = tok;
	return head.next;
}

Token *preprocess(Token *tok, Session *s)
{
	PP pp = {.s = s};
	return scan(&pp, tok);
}

const char *macro_name(const Macro *m)
{
	return m->name;
}

void pp_add_library_macros(Token *tok, Session *s)
{
	PP pp = {.s = s, .library = true};
	tok = scan(&pp, tok);
	if (tok->kind != TK_EOF)
		error_at(tok, "only '@define' may appear in a macro library (.stpm) file, found %s",
			 tok_describe(tok));
}
