/* translate.c - pass 3: the elaborated program as the C source of a kernel module.
 *
 * The module includes runtime/session.h (module init and exit, the transport, the stop
 * sequence) and runtime/lang.h (the per-CPU context, errors, printing, locks), and
 * defines what session.h asks of it: hwtap_start(), hwtap_stop(), hwtap_end(). Printing
 * is translate_print.c's (runtime/format.h).
 *
 * Layout of the generated file: limits (-D), includes, the used tapset files' embedded C,
 * globals with their locks, the context (each probe's locals, each function's frame per
 * nesting level), functions, probe handlers, timers, and the three session hooks.
 *
 * Every expression becomes one C expression (GNU statement expressions where it needs
 * statements); a runtime error records its message and jumps to `fail': the handler's or
 * function's end, or, inside a try block, a GNU local label (__label__) at its catch.
 * MAXACTION, next and return go to `out', which no try block redefines. Strings are
 * MAXSTRINGLEN buffers; an expression that makes a new string writes it into a temporary
 * of the current frame.
 */
#include "translate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void tr_unsupported(Node *n, const char *what)
{
	error_at(n->tok, "pass 3 cannot translate %s yet", what);
}

void tr_line(Gen *g, const char *fmt, ...)
{
	for (int i = 0; i < g->indent; i++)
		sb_putc(g->out, '\t');
	va_list ap;
	va_start(ap, fmt);
	sb_puts(g->out, xvformat(fmt, ap));
	va_end(ap);
	sb_putc(g->out, '\n');
}

/* A C string literal for s (any bytes). */
char *tr_c_string(const char *s, size_t len)
{
	StrBuf sb = {0};
	sb_putc(&sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = s[i];
		if (ch == '"' || ch == '\\')
			sb_printf(&sb, "\\%c", ch);
		else if (ch == '\n')
			sb_puts(&sb, "\\n");
		else if (ch < 32 || ch >= 127 || ch == '?')   /* '?': no trigraphs */
			sb_printf(&sb, "\\%03o", ch);
		else
			sb_putc(&sb, ch);
	}
	sb_putc(&sb, '"');
	return sb.buf;
}

/* How SystemTap's runtime errors name a place: the token there as its lexer names it
 * ("operator '/'", "identifier 'x'", "keyword"), then " at FILE:LINE:COL". As a C
 * string literal. */
char *tr_place(Token *tok)
{
	const char *kind = tok->kind == TK_IDENT ? (tok_is_keyword(tok) ? NULL : "identifier") :
			   tok->kind == TK_TARGET || tok->kind == TK_ARG ? "identifier" :
			   tok->kind == TK_PUNCT || tok->kind == TK_AT ? "operator" :
			   tok->kind == TK_NUM ? "number" : tok->kind == TK_STR ? "string" :
			   tok->kind == TK_EMBEDDED ? NULL : "unknown token";
	StrBuf sb = {0};
	sb_puts(&sb, kind ? kind : tok->kind == TK_EMBEDDED ? "embedded-code" : "keyword");
	if (kind) {
		const char *text = tok->kind == TK_STR ? tok->str : tok->pos;
		size_t len = tok->kind == TK_STR ? tok->str_len : (size_t)tok->len;
		sb_puts(&sb, " '");
		for (size_t i = 0; i < len; i++)
			sb_putc(&sb, isprint((unsigned char)text[i]) ? text[i] : '?');
		sb_putc(&sb, '\'');
	}
	sb_printf(&sb, " at %s:%d:%d", tok->file->name, tok->line, tok->col);
	return tr_c_string(sb.buf, sb.len);
}

/* The way out of an expression after its runtime error, the error's place at tok. */
char *tr_fail_at(Token *tok)
{
	return xformat("{ c->base.last_stmt = %s; goto fail; }", tr_place(tok));
}

/* n actions of the MAXACTION budget, the place tok. */
static void tr_actions(Gen *g, int n, Token *tok)
{
	tr_line(g, "if (unlikely(!_hwtap_action(&c->base, %d))) { c->base.last_stmt = %s; "
		"goto out; }", n, tr_place(tok));
}

/* One action of the MAXACTION budget, for a statement or a loop's round at tok. */
void tr_action(Gen *g, Token *tok)
{
	tr_actions(g, 1, tok);
}

/* The place SystemTap names for a statement that ends a body: a block's '{' (a block of
 * one statement is that statement, as stap's optimizer unwraps it); NULL when empty. */
static Token *body_place(Node *body)
{
	while (body && body->kind == N_BLOCK && body->args.len == 1)
		body = body->args.data[0];
	if (!body || body->kind == N_NULL || (body->kind == N_BLOCK && !body->args.len))
		return NULL;
	return body->tok;
}

/* Where a loop's round counts against MAXACTION: SystemTap charges a round together with
 * its body's statements, at the end of the body (body_place()), at the loop for an
 * empty body. */
Token *tr_round_place(Node *loop)
{
	Token *t = body_place(loop->body);
	return t ? t : loop->tok;
}

/* Whether a loop body is made of expression statements and ifs alone (in blocks or not):
 * those SystemTap charges in batches. */
static bool batchable(Node *n)
{
	if (!n || n->kind == N_NULL || n->kind == N_EXPR_STMT)
		return true;
	if (n->kind == N_IF)
		return batchable(n->then) && batchable(n->els);
	if (n->kind != N_BLOCK)
		return false;
	for (int i = 0; i < n->args.len; i++)
		if (!batchable(n->args.data[i]))
			return false;
	return true;
}

/* Statement n of a batched body, `pending' actions not charged yet: the count after it.
 * An expression statement adds one (charged with the others at the tenth); an if charges
 * what is pending and itself before its condition, and each branch at its end. */
static int batch(Gen *g, Node *n, int pending)
{
	if (!n || n->kind == N_NULL)
		return pending;
	if (n->kind == N_BLOCK) {
		for (int i = 0; i < n->args.len; i++)
			pending = batch(g, n->args.data[i], pending);
		return pending;
	}
	if (n->kind == N_EXPR_STMT) {
		tr_stmt(g, n);
		if (++pending >= 10) {
			tr_actions(g, pending, n->tok);
			pending = 0;
		}
		return pending;
	}
	if (n->cond->kind == N_AT_DEFINED)              /* folded in pass 2 */
		return batch(g, n->cond->num ? n->then : n->els, pending);
	tr_actions(g, pending + 1, n->tok);
	StrBuf cond = {0};
	tr_expr(g, &cond, n->cond);
	tr_line(g, "if (%s) {", cond.buf);
	for (int k = 0; k < 2; k++) {
		Node *branch = k ? n->els : n->then;
		if (k && !branch)
			break;
		if (k)
			tr_line(g, "} else {");
		g->indent++;
		int left = batch(g, branch, 0);
		if (left)
			tr_actions(g, left, body_place(branch));
		g->indent--;
	}
	tr_line(g, "}");
	return 0;
}

/*
 * SystemTap charges MAXACTION in batches: a loop's round counts one action and each
 * statement one, summed up to the end of the body, where one check takes them all (or at
 * the tenth, naming that statement); an if takes what is pending and itself before its
 * condition, each branch its own at its end. A body of expression statements and ifs is
 * charged the same way here. Other bodies (nested loops, break, continue, return, try)
 * charge the round at its start and each statement before it runs, at the same places.
 */
void tr_loop_round(Gen *g, Node *loop)
{
	if (!batchable(loop->body)) {
		tr_action(g, tr_round_place(loop));
		tr_stmt(g, loop->body);
		return;
	}
	bool was = g->batched;
	g->batched = true;
	tr_line(g, "{");
	g->indent++;
	int left = batch(g, loop->body, 1);     /* the round, and the body */
	if (left)
		tr_actions(g, left, tr_round_place(loop));
	g->indent--;
	tr_line(g, "}");
	g->batched = was;
}

/* A new string temporary of the current frame. */
char *tr_temp(Gen *g)
{
	int k = g->ntmp++;
	sb_printf(g->decl, "\tchar __tmp%d[MAXSTRINGLEN];\n", k);
	return xformat("l->__tmp%d", k);
}

char *tr_var_ref(Symbol *sym)
{
	if (sym->kind == SYM_GLOBAL)
		return xformat("g_%s", sym->name);
	return xformat("l->l_%s", sym->name);
}

/* A function's C name: overloads (by arity) of one name get __1, __2 ... */
static char *fn_name(Session *s, Function *f)
{
	int k = 0;
	for (int i = 0; i < s->funcs.len && s->funcs.data[i] != f; i++)
		k += !strcmp(((Function *)s->funcs.data[i])->name, f->name);
	return k ? xformat("%s__%d", f->name, k) : f->name;
}

static void lvalue(Gen *g, StrBuf *sb, Node *n)
{
	if (n->kind != N_VAR) {
		tr_unsupported(n, "an assignment to an array element");
		return;
	}
	sb_puts(sb, tr_var_ref(n->sym));
}

/* ---- expressions ------------------------------------------------------------------------ */

/* a op b; a division by 0 is an error at tok (SystemTap: the operator of a / b, the
 * right side of a /= b) */
char *tr_binary_op(const char *op, const char *a, const char *b, Token *tok)
{
	if (!strcmp(op, "/") || !strcmp(op, "%")) {
		/* x / 0 is an error; INT64_MIN / -1 would trap */
		return xformat("({ int64_t __l = (%s), __r = (%s); if (unlikely(__r == 0)) { "
			       "_hwtap_error(&c->base, \"division by 0\"); %s } __r == -1 ? "
			       "%s : __l %s __r; })", a, b, tr_fail_at(tok), op[0] == '/' ?
			       "(int64_t)(0 - (uint64_t)__l)" : "0", op);
	}
	if (!strcmp(op, "<<") || !strcmp(op, ">>"))
		return xformat("({ int64_t __l = (%s), __r = (%s); (int64_t)(__l %s (__r & 63)); })",
			       a, b, op[0] == '<' ? "<<" : ">>");
	if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*"))
		/* wraps as two's complement, as in SystemTap */
		return xformat("({ int64_t __l = (%s), __r = (%s); (int64_t)((uint64_t)__l %s "
			       "(uint64_t)__r); })", a, b, op);
	return xformat("({ int64_t __l = (%s), __r = (%s); (int64_t)(__l %s __r); })", a, b, op);
}

static void binary_long(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf a = {0}, b = {0};
	tr_expr(g, &a, n->lhs);
	tr_expr(g, &b, n->rhs);
	sb_puts(sb, tr_binary_op(n->op, a.buf, b.buf, n->tok));
}


/* Whether evaluating n could change a variable or print: calls, assignments, ++, --. */
bool tr_has_side_effects(Node *n)
{
	if (!n)
		return false;
	switch (n->kind) {
	case N_NUM: case N_STR: case N_VAR: case N_STAR: case N_AT_DEFINED: case N_AT_PERF:
		return false;
	case N_INDEX: case N_IN: case N_AT_OP: case N_HIST: case N_HIST_INDEX:
	case N_UNARY: case N_BINARY: case N_CONCAT: case N_COMPARE: case N_LOGICAL:
	case N_TERNARY:
		break;
	default:
		return true;
	}
	for (int i = 0; i < n->args.len; i++)
		if (tr_has_side_effects(n->args.data[i]))
			return true;
	return tr_has_side_effects(n->lhs) || tr_has_side_effects(n->rhs) ||
	       tr_has_side_effects(n->cond) || tr_has_side_effects(n->then) ||
	       tr_has_side_effects(n->els);
}

static void compare(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf a = {0}, b = {0};
	tr_expr(g, &a, n->lhs);
	tr_expr(g, &b, n->rhs);
	if (n->lhs->type == TY_STRING)
		sb_printf(sb, "({ const char *__l = _hwtap_assign_str(%s, %s); (int64_t)"
			  "(strcmp(__l, %s) %s 0); })", tr_temp(g), a.buf, b.buf, n->op);
	else
		sb_printf(sb, "({ int64_t __l = (%s), __r = (%s); (int64_t)(__l %s __r); })",
			  a.buf, b.buf, n->op);
}

/* A counter read here (@perf, tapset/perf.stp's perf_enabled and perf_running): while
 * the session runs unless in an end or error probe (a function may be called from any). */
static void perf_read(Gen *g)
{
	const char *f = g->probe ? g->probe->family->name : "";
	if (strcmp(f, "end") && strcmp(f, "error"))
		g->perf_live = true;
}

/* Arguments into locals of the caller, then the callee's frame: a later argument that
 * calls a function would otherwise overwrite an earlier one in that frame. */
static void call(Gen *g, StrBuf *sb, Node *n)
{
	Function *f = n->func;
	char *fn = fn_name(g->s, f);
	if (!strcmp(f->name, "perf_enabled") || !strcmp(f->name, "perf_running"))
		perf_read(g);
	StrBuf pre = {0}, copy = {0};
	for (int i = 0; i < n->args.len; i++) {
		Node *a = n->args.data[i];
		Symbol *p = f->locals.data[i];
		StrBuf v = {0};
		tr_expr(g, &v, a);
		if (p->type == TY_STRING) {
			char *t = tr_temp(g);
			sb_printf(&pre, "_hwtap_assign_str(%s, %s); ", t, v.buf);
			sb_printf(&copy, "strscpy(__f->l_%s, %s, MAXSTRINGLEN); ", p->name, t);
		} else {
			sb_printf(&pre, "int64_t __a%d = (%s); ", i, v.buf);
			sb_printf(&copy, "__f->l_%s = __a%d; ", p->name, i);
		}
	}
	/* SystemTap names the function's own name for MAXNESTING, the call for what embedded
	 * C reports; a script function's errors name their own places */
	bool embedded = f->body && f->body->kind == N_EMBEDDED;
	sb_printf(sb, "({ %sstruct function_%s_frame *__f; if (unlikely(c->base.nesting + 1 >= "
		  "MAXNESTING)) { _hwtap_error(&c->base, \"MAXNESTING exceeded\"); %s } "
		  "__f = &c->frames[c->base.nesting + 1].f_%s; %sc->base.nesting++; "
		  "function_%s(c); c->base.nesting--; if (unlikely(c->base.last_error)) %s ",
		  pre.buf ? pre.buf : "", fn, tr_fail_at(f->tok), fn, copy.buf ? copy.buf : "", fn,
		  embedded ? tr_fail_at(n->tok) : "goto fail;");
	if (!f->has_value)
		sb_puts(sb, "0; })");
	else if (f->rtype == TY_STRING)
		sb_printf(sb, "_hwtap_assign_str(%s, __f->__retval); })", tr_temp(g));
	else
		sb_puts(sb, "__f->__retval; })");
}

static void assign(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf lv = {0}, rv = {0};
	if (!strcmp(n->op, "<<<")) {
		stat_add(g, sb, n);
		return;
	}
	if (n->lhs->kind == N_INDEX) {
		arr_assign(g, sb, n);
		return;
	}
	lvalue(g, &lv, n->lhs);
	if (n->lhs->type == TY_STRING && tr_print_assign(g, sb, n, lv.buf))
		return;
	tr_expr(g, &rv, n->rhs);
	if (n->lhs->type == TY_STRING) {
		if (!strcmp(n->op, ".="))
			sb_printf(sb, "_hwtap_concat(%s, %s, %s)", lv.buf, lv.buf, rv.buf);
		else
			sb_printf(sb, "_hwtap_assign_str(%s, %s)", lv.buf, rv.buf);
		return;
	}
	if (!strcmp(n->op, "=")) {
		sb_printf(sb, "(%s = (%s))", lv.buf, rv.buf);
		return;
	}
	/* x op= y is x = x op y, with tr_binary_op's checks */
	char *op = xstrndup(n->op, strlen(n->op) - 1);
	sb_printf(sb, "(%s = %s)", lv.buf, tr_binary_op(op, lv.buf, rv.buf, n->rhs->tok));
}


/* kernel.trace's $$parms and $$vars: "NAME=%#x" for each argument, as stap prints them. */
static void trace_parms(Gen *g, StrBuf *sb, Node *n)
{
	Node call = {.kind = N_CALL, .tok = n->tok, .name = "sprintf", .type = TY_STRING};
	Node fmt = {.kind = N_STR, .tok = n->tok, .type = TY_STRING};
	StrBuf f = {0};
	sb_putn(&f, "", 0);
	vec_push(&call.args, &fmt);
	const char *vars = g->probe->shape->context_vars;
	for (const char *v = vars; *v; v += strcspn(v, " "), v += *v == ' ') {
		int len = strcspn(v, ":");
		if (memmem(v, len, "->", 2))
			continue;
		sb_printf(&f, "%s%.*s=%%#x", f.len ? " " : "", len, v);
		Node *arg = xalloc(sizeof(*arg));
		*arg = (Node){.kind = N_TARGET, .tok = n->tok, .type = TY_LONG,
			      .name = xformat("$%.*s", len, v)};
		vec_push(&call.args, arg);
	}
	fmt.str = f.buf;
	fmt.str_len = f.len;
	tr_print(g, sb, &call, find_builtin("sprintf"));
}

/* $name in a ras probe: its field in the record the handler got; kernel.trace's $$name,
 * $$system, $$parms, $$vars. Pass 2 checked that the probe's point has it. */
static void context_var(Gen *g, StrBuf *sb, Node *n)
{
	if (g->probe && (ptab_is_process(g->probe) || kfunc_family(g->probe->family) ||
			 ptab_is_tracepoint(g->probe))) {
		ptab_process_target(g, sb, n);
		return;
	}
	if (g->probe && ptab_is_kprobe(g->probe) && !strcmp(n->name, "$return")) {
		sb_puts(sb, "((int64_t)regs_return_value(regs))");
		return;
	}
	if (!g->probe || !ptab_is_ras(g->probe)) {
		tr_unsupported(n, "context variables");
		return;
	}
	const PointShape *shape = g->probe->shape;
	if (!strcmp(n->name, "$$name")) {
		const char *name = ras_source(shape)->tracepoint;
		sb_puts(sb, tr_c_string(name, strlen(name)));
		return;
	}
	if (!strcmp(n->name, "$$system")) {
		const char *system = trace_system(shape);
		sb_puts(sb, tr_c_string(system, strlen(system)));
		return;
	}
	if (!strcmp(n->name, "$$parms") || !strcmp(n->name, "$$vars")) {
		trace_parms(g, sb, n);
		return;
	}
	int slot;
	const char *type = context_var_find(shape->context_vars, target_key(n), &slot);
	if (!type)
		unreachable();
	sb_printf(sb, !strncmp(type, "string", 6) ? "rec->s[%d]" : "rec->v[%d]", slot);
}

void tr_expr(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf a = {0}, b = {0};
	switch (n->kind) {
	case N_NUM:
		sb_printf(sb, "((int64_t)0x%llxULL)", (unsigned long long)n->num);
		return;
	case N_STR:
		sb_puts(sb, tr_c_string(n->str, n->str_len));
		return;
	case N_VAR:
		sb_puts(sb, tr_var_ref(n->sym));
		return;
	case N_CALL: {
		const Builtin *bi = n->func ? NULL : find_builtin(n->name);
		if (bi)
			tr_print(g, sb, n, bi);
		else
			call(g, sb, n);
		return;
	}
	case N_UNARY:
		tr_expr(g, &a, n->lhs);
		if (n->op[0] == '-')   /* -INT64_MIN wraps */
			sb_printf(sb, "((int64_t)(0 - (uint64_t)(%s)))", a.buf);
		else
			sb_printf(sb, "((int64_t)(%s(%s)))", n->op[0] == '+' ? "" : n->op, a.buf);
		return;
	case N_PREINC:
	case N_POSTINC:
		if (n->lhs->kind == N_INDEX) {
			arr_incdec(g, sb, n);
			return;
		}
		lvalue(g, &a, n->lhs);
		if (n->kind == N_PREINC)
			sb_printf(sb, "(%s%s)", n->op, a.buf);
		else
			sb_printf(sb, "(%s%s)", a.buf, n->op);
		return;
	case N_BINARY:
		binary_long(g, sb, n);
		return;
	case N_LOGICAL:
		if (logical_rhs_dead(n)) {                 /* folded in pass 2 */
			sb_puts(sb, !strcmp(n->op, "||") ? "((int64_t)1)" : "((int64_t)0)");
			return;
		}
		tr_expr(g, &a, n->lhs);
		tr_expr(g, &b, n->rhs);
		sb_printf(sb, "((int64_t)((%s) %s (%s)))", a.buf, n->op, b.buf);
		return;
	case N_COMPARE:
		compare(g, sb, n);
		return;
	case N_CONCAT: {
		/* the left side first, kept from what the right side may change */
		tr_expr(g, &a, n->lhs);
		tr_expr(g, &b, n->rhs);
		char *left = tr_temp(g);
		sb_printf(sb, "({ _hwtap_assign_str(%s, %s); _hwtap_concat(%s, %s, %s); })", left,
			  a.buf, tr_temp(g), left, b.buf);
		return;
	}
	case N_TERNARY: {
		if (n->cond->kind == N_AT_DEFINED) {       /* folded in pass 2 */
			tr_expr(g, sb, n->cond->num ? n->then : n->els);
			return;
		}
		StrBuf cnd = {0};
		tr_expr(g, &cnd, n->cond);
		tr_expr(g, &a, n->then);
		tr_expr(g, &b, n->els);
		sb_printf(sb, "((%s) ? (%s) : (%s))", cnd.buf, a.buf, b.buf);
		return;
	}
	case N_ASSIGN:
		assign(g, sb, n);
		return;
	case N_AT_DEFINED:
		sb_printf(sb, "((int64_t)%d)", (int)n->num);
		return;
	case N_EMBEDDED_EXPR:
		sb_printf(sb, "({ %s; })", n->str);
		return;
	case N_INDEX:
		arr_read(g, sb, n);
		return;
	case N_IN:
		arr_in(g, sb, n);
		return;
	case N_AT_OP:
		stat_op(g, sb, n);
		return;
	case N_HIST_INDEX:
		stat_hist_index(g, sb, n);
		return;
	case N_HIST:
		tr_unsupported(n, "a histogram outside print");
		return;
	case N_REGEX:
		regex_match_expr(g, sb, n);
		return;
	case N_TARGET:
		context_var(g, sb, n);
		return;
	case N_AT_ENTRY:
		ptab_process_entry(g, sb, n);
		return;
	case N_AT_CAST:                 /* the kernel's type through BTF (pass 2's plan) */
		ptab_process_target(g, sb, n);
		return;
	case N_ADDR:
		if (n->plan) {     /* &$var (process, kernel.function, kernel.trace), &@cast(...) */
			ptab_process_target(g, sb, n);
			return;
		}
		tr_unsupported(n, "'&'");
		return;
	case N_AT_PERF:
		/* a process or kprobe probe reads the calling thread's own count, exactly, in
		 * place */
		if (g->probe && (ptab_is_process(g->probe) || ptab_is_kprobe(g->probe) ||
				 ptab_is_tracepoint(g->probe))) {
			sb_printf(sb, "_hwtap_perf_value_self(&hwtap_perfs[%d])",
				  ptab_perf_counter_index(g->s, n->lhs->str));
			return;
		}
		perf_read(g);
		sb_printf(sb, "_hwtap_perf_value(&hwtap_perfs[%d])",
			  ptab_perf_counter_index(g->s, n->lhs->str));
		return;
	default:
		tr_unsupported(n, "this expression");
	}
}

/* ---- statements ------------------------------------------------------------------------- */


/* A statement's share of MAXACTION; as in SystemTap, errors set their place only when
 * they happen, so a statement costs no store. */
static void stmt_header(Gen *g, Node *n)
{
	if (!g->batched)        /* (else tr_loop_round() charges it) */
		tr_action(g, n->tok);
}

static void block(Gen *g, Node *n)
{
	tr_line(g, "{");
	g->indent++;
	for (int i = 0; i < n->args.len; i++)
		tr_stmt(g, n->args.data[i]);
	g->indent--;
	tr_line(g, "}");
}

/*
 * try { body } catch (msg) { handler }: the body's `goto fail' reaches the label local to
 * its block. There an exhausted MAXACTION budget goes on to out (SystemTap does not catch
 * it either: the handler would fail again at its next statement), as does a skip
 * (lang.h's _hwtap_skip_unwind(): a statistic it could not read); any other error is
 * taken: the foreach statements of the body are released, msg gets the message, the
 * error is cleared and the handler runs, where `fail' is the enclosing one again.
 */
static void try_catch(Gen *g, Node *n)
{
	int id = g->ntries++;
	int ends = g->frame_ends.len;
	tr_line(g, "{");
	g->indent++;
	tr_line(g, "__label__ fail;");
	tr_stmt(g, n->body);
	tr_line(g, "goto try%d_done;", id);
	tr_line(g, "fail: __attribute__((unused));");
	tr_line(g, "if (_hwtap_uncatchable(&c->base))");
	tr_line(g, "\tgoto out;");
	for (int i = ends; i < g->frame_ends.len; i++)
		tr_line(g, "%s", (char *)g->frame_ends.data[i]);
	g->indent--;
	tr_line(g, "}");
	if (n->sym)
		tr_line(g, "_hwtap_assign_str(%s, c->base.last_error);", tr_var_ref(n->sym));
	tr_line(g, "c->base.last_error = NULL;");
	tr_line(g, "c->base.plain_error = false;");
	tr_stmt(g, n->then);
	tr_line(g, "try%d_done: ;", id);
}

void tr_stmt(Gen *g, Node *n)
{
	StrBuf a = {0};
	switch (n->kind) {
	case N_BLOCK:
		block(g, n);
		return;
	case N_NULL:
		return;
	case N_EXPR_STMT:
		stmt_header(g, n);
		tr_expr(g, &a, n->lhs);
		tr_line(g, "(void)(%s);", a.buf);
		return;
	case N_IF:
		if (n->cond->kind == N_AT_DEFINED) {       /* folded in pass 2 */
			if (n->cond->num)
				tr_stmt(g, n->then);
			else if (n->els)
				tr_stmt(g, n->els);
			return;
		}
		stmt_header(g, n);
		tr_expr(g, &a, n->cond);
		tr_line(g, "if (%s)", a.buf);
		block(g, &(Node){.kind = N_BLOCK, .args = {.data = (void **)&n->then, .len = 1}});
		if (n->els) {
			tr_line(g, "else");
			block(g, &(Node){.kind = N_BLOCK, .args = {.data = (void **)&n->els,
								   .len = 1}});
		}
		return;
	case N_WHILE:
	case N_FOR: {
		StrBuf init = {0}, cond = {0}, inc = {0};
		if (n->init)
			tr_expr(g, &init, n->init);
		if (n->cond)
			tr_expr(g, &cond, n->cond);
		if (n->inc)
			tr_expr(g, &inc, n->inc);
		/* the loop, and its initialisation: a statement of its own to SystemTap */
		tr_actions(g, n->init ? 2 : 1, n->tok);
		tr_line(g, "for (%s; %s; %s) {", init.buf ? xformat("(void)(%s)", init.buf) : "",
		     cond.buf ? cond.buf : "", inc.buf ? xformat("(void)(%s)", inc.buf) : "");
		g->indent++;
		tr_loop_round(g, n);
		g->indent--;
		tr_line(g, "}");
		return;
	}
	case N_BREAK:
		tr_line(g, "break;");
		return;
	case N_CONTINUE:
		tr_line(g, "continue;");
		return;
	case N_NEXT:
		tr_line(g, "goto out;");
		return;
	case N_RETURN:
		stmt_header(g, n);
		if (n->lhs) {
			tr_expr(g, &a, n->lhs);
			if (g->func->rtype == TY_STRING)
				tr_line(g, "_hwtap_assign_str(l->__retval, %s);", a.buf);
			else
				tr_line(g, "l->__retval = (%s);", a.buf);
		}
		tr_line(g, "goto out;");
		return;
	case N_EMBEDDED:
		tr_line(g, "{\n%s\n}", n->str);
		return;
	case N_DELETE:
		if (n->lhs->kind == N_VAR && n->lhs->sym->type == TY_STATS &&
		    n->lhs->sym->arity <= 0) {
			stmt_header(g, n);
			stat_delete(g, n);
			return;
		}
		if (n->lhs->kind == N_VAR && n->lhs->sym->arity <= 0) {
			/* a scalar: back to 0 or "" */
			stmt_header(g, n);
			char *v = tr_var_ref(n->lhs->sym);
			if (n->lhs->sym->type == TY_STRING)
				tr_line(g, "%s[0] = '\\0';", v);
			else
				tr_line(g, "%s = 0;", v);
			return;
		}
		stmt_header(g, n);
		arr_delete(g, n);
		return;
	case N_FOREACH:
		stmt_header(g, n);
		if (n->array->kind == N_HIST)
			stat_hist_foreach(g, n);
		else
			arr_foreach(g, n);
		return;
	case N_TRY:
		try_catch(g, n);
		return;
	default:
		tr_unsupported(n, "this statement");
	}
}

/* ---- frames, functions, probes ------------------------------------------------------------ */

static const char *c_type(Type t)
{
	return t == TY_STRING ? "char %s[MAXSTRINGLEN]" : "int64_t %s";
}

static void frame_members(StrBuf *decl, Vec *locals)
{
	for (int i = 0; i < locals->len; i++) {
		Symbol *sym = locals->data[i];
		sb_printf(decl, "\t");
		sb_printf(decl, c_type(sym->type), xformat("l_%s", sym->name));
		sb_puts(decl, ";\n");
	}
}

/* Locals start as 0 and "" at each entry (parameters are set by the caller). */
static void reset_locals(Gen *g, Vec *locals, int from)
{
	for (int i = from; i < locals->len; i++) {
		Symbol *sym = locals->data[i];
		if (sym->type == TY_STRING)
			tr_line(g, "l->l_%s[0] = '\\0';", sym->name);
		else
			tr_line(g, "l->l_%s = 0;", sym->name);
	}
}

static void embedded_function(Gen *g, Function *f)
{
	for (int i = 0; i < f->params.len; i++) {
		Symbol *p = f->locals.data[i];
		tr_line(g, "#define STAP_ARG_%s (l->l_%s)", p->name, p->name);
	}
	tr_line(g, "#define STAP_RETVALUE (l->__retval)");
	if (f->rtype == TY_STRING)
		tr_line(g, "#define STAP_RETURN(v) do { strscpy(STAP_RETVALUE, (v), MAXSTRINGLEN); "
		     "goto out; } while (0)");
	else
		tr_line(g, "#define STAP_RETURN(v) do { STAP_RETVALUE = (v); goto out; } while (0)");
	tr_line(g, "{\n%s\n}", f->body->str);
	tr_line(g, "#undef STAP_RETURN");
	tr_line(g, "#undef STAP_RETVALUE");
	for (int i = 0; i < f->params.len; i++)
		tr_line(g, "#undef STAP_ARG_%s", ((Symbol *)f->locals.data[i])->name);
}

/* A frame's statements, after its probe condition if any. What its foreach statements
 * keep in the frame starts cleared, before them (the frame's memory is shared). */
static void frame_body(Gen *g, Node *cond, Node *body)
{
	StrBuf text = {0}, *out = g->out;
	g->out = &text;
	if (cond) {
		StrBuf cnd = {0};
		tr_expr(g, &cnd, cond);
		tr_line(g, "if (!(%s))", cnd.buf);
		tr_line(g, "\tgoto out;");
	}
	tr_stmt(g, body);
	g->out = out;
	for (int i = 0; i < g->frame_inits.len; i++)
		tr_line(g, "%s", (char *)g->frame_inits.data[i]);
	g->frame_inits.len = 0;
	sb_puts(g->out, text.buf ? text.buf : "");
}

/* The out label of a frame: what its foreach statements leave to release. */
static void out_label(Gen *g)
{
	tr_line(g, "fail: __attribute__((unused));");
	tr_line(g, "out: __attribute__((unused));");
	for (int i = 0; i < g->frame_ends.len; i++)
		tr_line(g, "\t%s", (char *)g->frame_ends.data[i]);
	g->frame_ends.len = 0;
}

static void function(Gen *g, Function *f, StrBuf *frames)
{
	StrBuf decl = {0};
	char *fn = fn_name(g->s, f);
	sb_printf(&decl, "struct function_%s_frame {\n", fn);
	frame_members(&decl, &f->locals);
	if (f->has_value) {
		sb_puts(&decl, "\t");
		sb_printf(&decl, c_type(f->rtype), "__retval");
		sb_puts(&decl, ";\n");
	}
	g->decl = &decl;
	g->ntmp = 0;
	g->func = f;
	tr_line(g, "static void function_%s(struct hwtap_context *c)", fn);
	tr_line(g, "{");
	g->indent++;
	tr_line(g, "struct function_%s_frame *l = &c->frames[c->base.nesting].f_%s;", fn, fn);
	tr_line(g, "(void)l;");
	reset_locals(g, &f->locals, f->params.len);
	if (f->body->kind == N_EMBEDDED)
		embedded_function(g, f);
	else
		frame_body(g, NULL, f->body);
	g->indent--;
	out_label(g);
	tr_line(g, "}");
	tr_line(g, "%s", "");
	sb_puts(&decl, "};\n");
	sb_puts(frames, decl.buf);
	g->func = NULL;
}

static void probe_handler(Gen *g, Probe *p, int index, StrBuf *frames)
{
	StrBuf decl = {0};
	sb_printf(&decl, "struct probe_%d_locals {\n", index);
	frame_members(&decl, &p->locals);
	sb_puts(&decl, "\tint __unused;\n");
	g->decl = &decl;
	g->ntmp = 0;
	char *pp = probe_point_string(p->points.data[0]);
	tr_line(g, "/* %s */", p->derivation);
	if (ptab_is_ras(p))
		tr_line(g, "static void probe_%d(struct pt_regs *regs, "
			"const struct hwtap_ras_record *rec)", index);
	else if (ptab_is_process(p))
		tr_line(g, "static void probe_%d(struct pt_regs *regs, unsigned long ubias)", index);
	else if (ptab_is_task(p))
		tr_line(g, "static void probe_%d(struct pt_regs *regs, struct task_struct *task)",
			index);
	else if (ptab_is_tracepoint(p))
		tr_line(g, "static void probe_%d(struct pt_regs *regs, const u64 *args)", index);
	else if (ptab_is_kentry(p))
		tr_line(g, "static void probe_%d(struct pt_regs *regs, void *kdata)", index);
	else
		tr_line(g, "static void probe_%d(struct pt_regs *regs)", index);
	tr_line(g, "{");
	g->indent++;
	tr_line(g, "struct hwtap_context *c = *this_cpu_ptr(hwtap_contexts);");
	tr_line(g, "struct probe_%d_locals *l;", index);
	const char *f = ptab_family(p);
	const char *kind = !strcmp(f, "end") || !strcmp(f, "error") ? "HWTAP_PROBE_FINAL" :
			   !strcmp(f, "begin") ? "HWTAP_PROBE_BEGIN" : "HWTAP_PROBE_EVENT";
	tr_line(g, "if (!_hwtap_enter(&c->base, %s, regs, %s))", tr_c_string(pp, strlen(pp)),
	     kind);
	tr_line(g, "\treturn;");
	if (p->pn && strcmp(p->pn, pp))
		tr_line(g, "c->base.probe_name = %s;", tr_c_string(p->pn, strlen(p->pn)));
	tr_line(g, "l = &c->probe.p%d;", index);
	if (ptab_is_task(p))
		tr_line(g, "c->base.task = task;");
	reset_locals(g, &p->locals, 0);
	/* the globals' locks in declaration order; a lock not had skips the handler */
	LockMode *modes = probe_locks(g->s, p);
	Vec taken = {0};
	for (int i = 0; i < g->s->globals.len; i++) {
		if (!modes[i])
			continue;
		Global *gl = g->s->globals.data[i];
		const char *how = lock_how(gl, modes[i]);
		tr_line(g, "if (unlikely(!_hwtap_%s_trylock(&glock_%s)))", how, gl->name);
		tr_line(g, "\tgoto skip_%d;", taken.len);
		vec_push(&taken, xformat("_hwtap_%s_unlock(&glock_%s);", how, gl->name));
	}
	g->probe = p;
	ptab_process_prologue(g, p);
	frame_body(g, ((ProbePoint *)p->points.data[0])->cond, p->body);
	ptab_process_epilogue(g, p);
	g->probe = NULL;
	g->indent--;
	out_label(g);
	for (int k = taken.len - 1; k >= 0; k--)
		tr_line(g, "\t%s", (char *)taken.data[k]);
	if (taken.len) {
		tr_line(g, "\tgoto unlocked;");
		for (int k = taken.len - 1; k >= 0; k--) {
			tr_line(g, "skip_%d:", k);
			if (k > 0)
				tr_line(g, "\t%s", (char *)taken.data[k - 1]);
		}
		tr_line(g, "\t_hwtap_skip_counted();");
	}
	tr_line(g, "unlocked:");
	tr_line(g, "\t_hwtap_leave(&c->base);");
	tr_line(g, "}");
	tr_line(g, "%s", "");
	sb_puts(&decl, "};\n");
	sb_puts(frames, decl.buf);
}


static void globals(Gen *g, Session *s)
{
	for (int i = 0; i < s->globals.len; i++) {
		Global *gl = s->globals.data[i];
		Symbol *sym = gl->sym;
		if (sym->arity > 0) {
			arr_declare(g, gl);
			continue;
		}
		if (sym->type == TY_STATS) {
			stat_declare(g, gl);
			continue;
		}
		StrBuf init = {0};
		if (gl->init)
			tr_expr(g, &init, gl->init);
		if (sym->type == TY_STRING)
			tr_line(g, "static char g_%s[MAXSTRINGLEN]%s%s;", gl->name,
			     init.buf ? " = " : "", init.buf ? init.buf : "");
		else
			tr_line(g, "static int64_t g_%s%s%s;", gl->name, init.buf ? " = " : "",
			     init.buf ? init.buf : "");
	}
	tr_line(g, "%s", "");
	for (int i = 0; i < s->globals.len; i++) {
		Global *gl = s->globals.data[i];
		if (gl->sym->type == TY_STATS)
			stat_lock_declare(g, gl);
		else
			tr_line(g, "static hwtap_lock_t glock_%s __maybe_unused = HWTAP_LOCK_INIT;",
				gl->name);
	}
	tr_line(g, "%s", "");
}

/* Arrays, statistics and foreach snapshots: allocated before the begin probes run, freed
 * after the end probes. Freeing what was never allocated is harmless. */
static void globals_storage(Gen *g)
{
	tr_line(g, "static void hwtap_globals_free(void)");
	tr_line(g, "{");
	tr_line(g, "%s}", g->release.buf ? g->release.buf : "");
	tr_line(g, "%s", "");
	tr_line(g, "static int hwtap_globals_alloc(void)");
	tr_line(g, "{");
	if (g->alloc.buf) {
		tr_line(g, "%s\treturn 0;", g->alloc.buf);
		tr_line(g, "fail:");
		tr_line(g, "\thwtap_globals_free();");
		tr_line(g, "\treturn -ENOMEM;");
	} else {
		tr_line(g, "\treturn 0;");
	}
	tr_line(g, "}");
	tr_line(g, "%s", "");
}

/* Whether a tapset file the script uses includes the runtime file FILE: runtime/usyms.c
 * (tapset/ucontext.stp: then the module has the user symbol tables, and starts and stops
 * their runtime), runtime/cgroups.c (tapset/cgroup.stp: its names' table). */
static bool uses_runtime(Session *s, const char *file)
{
	for (int i = 0; i < s->tapsets.len; i++) {
		Script *sc = s->tapsets.data[i];
		for (int j = 0; j < sc->embeds.len && sc->used; j++)
			if (strstr(((Token *)sc->embeds.data[j])->str, file))
				return true;
	}
	return false;
}

static bool uses_usyms(Session *s)
{
	return uses_runtime(s, "runtime/usyms.c");
}

/* hwtap_start()'s step STEP ("kprobes"): its call, and where a failure goes: the undoing
 * of the step before (*UNDO), which becomes STEP's when it has one (STOP). */
static void start_step(Gen *g, Vec *undos, const char *step, const char *call,
		       const char *stop)
{
	tr_line(g, "\trc = %s;", call);
	tr_line(g, "\tif (rc)");
	tr_line(g, "\t\tgoto fail_%s;", undos->len ? (char *)undos->data[undos->len - 1] : "free");
	if (stop) {
		vec_push(undos, (void *)step);
		vec_push(undos, (void *)stop);
		vec_push(undos, (void *)step);
	}
}

static void session_hooks(Gen *g, Session *s)
{
	int nperf = ptab_perf_table(g, s), nras = ptab_ras_table(g, s);
	int nproc = ptab_process_table(g, s), ntargets;
	int ntask = ptab_task_tables(g, s, &ntargets);
	int nkp = ptab_kprobe_table(g, s), ntp = ptab_tracepoint_table(g, s);
	bool usyms = uses_usyms(s), cgroups = uses_runtime(s, "runtime/cgroups.c");
	bool steps = nperf || nras || nproc || ntask || nkp || ntp || usyms || cgroups;
	/* each started step: its name, how it is undone, its name again (the top: where a
	 * failure goes) */
	Vec undos = {0};
	globals_storage(g);
	tr_line(g, "static int hwtap_start(void)");
	tr_line(g, "{");
	if (steps)
		tr_line(g, "\tint rc;");
	tr_line(g, "\thwtap_contexts = (struct hwtap_context * __percpu *)"
		"_hwtap_contexts_alloc(sizeof(struct hwtap_context));");
	tr_line(g, "\tif (!hwtap_contexts)");
	tr_line(g, "\t\treturn -ENOMEM;");
	tr_line(g, "\tif (hwtap_globals_alloc()) {");
	tr_line(g, "\t\t_hwtap_contexts_free((void * __percpu *)hwtap_contexts);");
	tr_line(g, "\t\thwtap_contexts = NULL;");
	tr_line(g, "\t\treturn -ENOMEM;");
	tr_line(g, "\t}");
	if (usyms) {
		tr_line(g, "\t/* before anything that runs handlers: their first addresses are named */");
		start_step(g, &undos, "usyms", "_hwtap_usyms_start()", NULL);
	}
	if (cgroups) {
		tr_line(g, "\t/* before anything that runs handlers: the cgroups alive are named */");
		start_step(g, &undos, "cgroups", "_hwtap_cgroups_start()",
			   "_hwtap_cgroups_stop();");
	}
	if (nras) {
		tr_line(g, "\t/* watched before the begin probes: their records wait */");
		start_step(g, &undos, "ras", xformat("_hwtap_ras_start(hwtap_ras, %d)", nras),
			   xformat("_hwtap_ras_stop(hwtap_ras, %d);", nras));
	}
	tr_line(g, "\tmigrate_disable();     /* the CPU's context, but writes may wait for room */");
	ptab_run_in_order(g, s, "begin");
	tr_line(g, "\tmigrate_enable();");
	if (nperf)
		start_step(g, &undos, "perf", xformat("_hwtap_perf_start(hwtap_perfs, %d, %s)", nperf,
						      g->perf_live ? "true" : "false"),
			   xformat("_hwtap_perf_stop(hwtap_perfs, %d);", nperf));
	if (nkp) {
		tr_line(g, "\t/* after the counters: a handler's @perf finds them */");
		start_step(g, &undos, "kprobes", xformat("_hwtap_kprobes_start(hwtap_kprobes, %d)",
							 nkp),
			   xformat("_hwtap_kprobes_stop(hwtap_kprobes, %d);", nkp));
	}
	if (ntp) {
		tr_line(g, "\t/* after the counters: a handler's @perf finds them */");
		start_step(g, &undos, "tracepoints",
			   xformat("_hwtap_tracepoints_start(hwtap_tracepoints, %d)", ntp),
			   xformat("_hwtap_tracepoints_stop(hwtap_tracepoints, %d);", ntp));
	}
	if (nproc) {
		if (ptab_uentries_count(s))
			start_step(g, &undos, "uentries", "_hwtap_uentries_alloc()",
				   "_hwtap_uentries_free();");
		tr_line(g, "\t/* after the counters: a handler's @perf finds them */");
		start_step(g, &undos, "uprobes", xformat("_hwtap_uprobes_start(hwtap_uprobes, %d)",
							 nproc),
			   xformat("_hwtap_uprobes_stop(hwtap_uprobes, %d);", nproc));
	}
	if (ntask) {
		tr_line(g, "\t/* after the begin probes, as SystemTap's */");
		start_step(g, &undos, "tasks", xformat("_hwtap_tasks_start(hwtap_task_targets, %d, "
						       "hwtap_task_probes, %d)", ntargets, ntask),
			   NULL);
	}
	if (nras)
		tr_line(g, "\t_hwtap_ras_go();");
	ptab_timers_start(g, s);
	tr_line(g, "\treturn 0;");
	for (int i = undos.len - 3; i >= 0; i -= 3) {
		tr_line(g, "fail_%s: __attribute__((unused));", (char *)undos.data[i]);
		tr_line(g, "\t%s", (char *)undos.data[i + 1]);
	}
	if (steps) {
		tr_line(g, "fail_free: __attribute__((unused));");
		if (usyms)
			tr_line(g, "\t_hwtap_usyms_stop();");
		tr_line(g, "\t_hwtap_contexts_free((void * __percpu *)hwtap_contexts);");
		tr_line(g, "\thwtap_contexts = NULL;");
		tr_line(g, "\thwtap_globals_free();");
		tr_line(g, "\treturn rc;");
	}
	tr_line(g, "}");
	tr_line(g, "%s", "");
	tr_line(g, "static void hwtap_stop(void)");
	tr_line(g, "{");
	ptab_timers_stop(g, s);
	if (ntask)
		tr_line(g, "\t_hwtap_tasks_stop();");
	if (nproc)
		tr_line(g, "\t_hwtap_uprobes_stop(hwtap_uprobes, %d);", nproc);
	if (ptab_uentries_count(s))
		tr_line(g, "\t_hwtap_uentries_free();");
	if (ntp)
		tr_line(g, "\t_hwtap_tracepoints_stop(hwtap_tracepoints, %d);", ntp);
	if (nkp)
		tr_line(g, "\t_hwtap_kprobes_stop(hwtap_kprobes, %d);", nkp);
	if (nras)
		tr_line(g, "\t_hwtap_ras_stop(hwtap_ras, %d);", nras);
	if (nperf)
		tr_line(g, "\t_hwtap_perf_stop(hwtap_perfs, %d);", nperf);
	if (uses_usyms(s))
		tr_line(g, "\t_hwtap_usyms_stop();");
	if (cgroups)
		tr_line(g, "\t_hwtap_cgroups_stop();");
	tr_line(g, "}");
	tr_line(g, "%s", "");
	tr_line(g, "static void hwtap_end(void)");
	tr_line(g, "{");
	tr_line(g, "\tmigrate_disable();     /* the CPU's context, but writes may wait for room */");
	tr_line(g, "\t/* a session that errors ended runs its error probes, not its end probes */");
	tr_line(g, "\tif (atomic64_read(&_hwtap_errors) > _hwtap_maxerrors) {");
	ptab_run_in_order(g, s, "error");
	tr_line(g, "\t} else {");
	ptab_run_in_order(g, s, "end");
	tr_line(g, "\t}");
	tr_line(g, "\tmigrate_enable();");
	tr_line(g, "\t_hwtap_contexts_free((void * __percpu *)hwtap_contexts);");
	tr_line(g, "\thwtap_contexts = NULL;");
	tr_line(g, "\thwtap_globals_free();");
	tr_line(g, "}");
}

static const char *const kernel_headers[] = {
	"linux/module.h", "linux/kernel.h", "linux/hrtimer.h", "linux/ktime.h",
	"linux/random.h", "linux/prandom.h", "linux/percpu.h", "linux/sched.h", "linux/sched/signal.h",
	"linux/sched/clock.h", "linux/sched/task_stack.h", "linux/cred.h",
	"linux/pid_namespace.h", "linux/timekeeping.h", "linux/time.h", "linux/timex.h",
	"linux/jiffies.h", "linux/ptrace.h", "linux/rcupdate.h", "linux/cpumask.h",
	"linux/string.h", "linux/ctype.h", "linux/limits.h", "linux/printk.h",
	"linux/atomic.h", "asm/irq_regs.h",
};

static void prologue(Gen *g, Session *s, const char *name)
{
	tr_line(g, "/* Generated by hwtap from %s. */", s->user->file->name);
	for (int i = 0; i < s->defines.len; i++) {
		char *d = xstrdup(s->defines.data[i]);
		char *eq = strchr(d, '=');
		if (eq)
			*eq = ' ';
		tr_line(g, "#define %s", d);
	}
	int strs = ptab_uentry_strings(s);
	if (strs)
		tr_line(g, "#define HWTAP_UENTRY_STRS %d", strs);
	const char *kbias = ptab_kbias_define(s);
	if (*kbias)
		tr_line(g, "%s", kbias);
	tr_line(g, "#define HWTAP_MODULE_NAME \"%s\"", name);
	const char *script = s->user->file->name, *slash = strrchr(script, '/');
	script = slash ? slash + 1 : script;
	tr_line(g, "#define HWTAP_SCRIPT_NAME %s", tr_c_string(script, strlen(script)));
	for (size_t i = 0; i < sizeof(kernel_headers) / sizeof(kernel_headers[0]); i++)
		tr_line(g, "#include <%s>", kernel_headers[i]);
	tr_line(g, "#include \"runtime/session.h\"");
	tr_line(g, "#include \"runtime/lang.h\"");
	tr_line(g, "#include \"runtime/format.h\"");
	tr_line(g, "#include \"runtime/pmap.h\"");
	tr_line(g, "#include \"runtime/hist.h\"");
	int nperf = ptab_perf_count(s);
	if (nperf) {
		tr_line(g, "#include \"runtime/probes/perf.c\"");
		tr_line(g, "static struct hwtap_perf hwtap_perfs[%d];", nperf);
	}
	if (ptab_count(s, ptab_is_process))
		tr_line(g, "#include \"runtime/probes/uprobes.c\"");
	if (ptab_count(s, ptab_is_task))
		tr_line(g, "#include \"runtime/probes/tasks.c\"");
	if (ptab_kprobe_count(s))
		tr_line(g, "#include \"runtime/probes/kprobes.c\"");
	if (ptab_count(s, ptab_is_tracepoint))
		tr_line(g, "#include \"runtime/probes/tracepoints.c\"");
	/* (kernel reads: kernel.function's and kernel.trace's $vars, @cast in any probe) */
	tr_line(g, "#include \"runtime/kaccess.h\"");
	int nras = ptab_count(s, ptab_is_ras);
	if (nras) {
		tr_line(g, "#include \"runtime/probes/ras.c\"");
		tr_line(g, "static struct hwtap_ras hwtap_ras[%d];", nras);
	}
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		const RasSource *src = ptab_is_ras(p) ? ras_source(p->shape) : NULL;
		if (src && src->header)
			tr_line(g, "#if IS_ENABLED(%s)\n#include <%s>\n#endif", src->config,
				src->header);
	}
	tr_line(g, "%s", "");
	if (uses_usyms(s))
		sb_puts(g->out, usyms_tables(s));
	for (int i = 0; i < s->tapsets.len; i++) {
		Script *sc = s->tapsets.data[i];
		for (int j = 0; j < sc->embeds.len && sc->used; j++)
			tr_line(g, "%s", ((Token *)sc->embeds.data[j])->str);
	}
	for (int j = 0; j < s->user->embeds.len; j++)
		tr_line(g, "%s", ((Token *)s->user->embeds.data[j])->str);
}

int translate(Session *s, const char *module_name, StrBuf *out)
{
	int errors = diag_errors;
	elide_unused(s);        /* before the locks: an elided read of a global takes none */
	lock_plan(s);
	StrBuf head = {0}, body = {0}, frames = {0}, sites = {0};
	Gen g = {.s = s, .out = &head, .sites = &sites};
	prologue(&g, s, module_name);
	globals(&g, s);
	g.out = &body;
	for (int i = 0; i < s->funcs.len; i++)
		tr_line(&g, "static void function_%s(struct hwtap_context *c);",
			fn_name(s, s->funcs.data[i]));
	tr_line(&g, "%s", "");
	for (int i = 0; i < s->funcs.len; i++)
		function(&g, s->funcs.data[i], &frames);
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (!ptab_translatable(p) || !ptab_body_runs(p))
			continue;
		probe_handler(&g, p, i, &frames);
		if (ptab_is_timer(p))
			ptab_timer(&g, p, i);
		if (ptab_is_perf(p))
			ptab_perf_handler(&g, p, i);
		if (ptab_is_ras(p))
			ptab_ras_callbacks(&g, p, i);
		if (ptab_is_tracepoint(p))
			ptab_tracepoint_callback(&g, p, i);
	}
	session_hooks(&g, s);
	tr_line(&g, "%s", "");
	/* with user symbols, /proc/hwtap_NAME/usyms: hwtap-run names what processes map */
	tr_line(&g, "HWTAP_SESSION_DEFINE(%s);", uses_usyms(s) ? "_hwtap_udyn_proc" : "NULL");
	if (diag_errors > errors)
		return diag_errors;
	/* the context: each probe's locals, and a frame per nesting level */
	StrBuf ctx = {0};
	regex_programs(&g, &ctx);
	sb_puts(&ctx, frames.buf ? frames.buf : "");
	sb_puts(&ctx, "\nstruct hwtap_context {\n\tstruct hwtap_context_base base;\n");
	regex_context_members(&g, &ctx);
	sb_puts(&ctx, "\tunion {\n\t\tint __none;\n");
	for (int i = 0; i < s->probes.len; i++) {
		if (ptab_body_runs(s->probes.data[i]))
			sb_printf(&ctx, "\t\tstruct probe_%d_locals p%d;\n", i, i);
	}
	sb_puts(&ctx, "\t} probe;\n\tunion {\n\t\tint __none;\n");
	for (int i = 0; i < s->funcs.len; i++) {
		Function *f = s->funcs.data[i];
		char *fn = fn_name(s, f);
		sb_printf(&ctx, "\t\tstruct function_%s_frame f_%s;\n", fn, fn);
	}
	sb_puts(&ctx, "\t} frames[MAXNESTING];\n};\n\n"
		"static struct hwtap_context * __percpu *hwtap_contexts;\n\n");
	sb_puts(out, head.buf);
	sb_puts(out, sites.buf ? sites.buf : "");
	sb_puts(out, ctx.buf);
	sb_puts(out, body.buf);
	return 0;
}
