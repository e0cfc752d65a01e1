/* translate.c - pass 3: the elaborated program as the C source of a kernel module.
 *
 * The module includes runtime/session.h (module init and exit, the transport, the stop
 * sequence) and runtime/lang.h (the per-CPU context, errors, printing, locks), and
 * defines what session.h asks of it: hwtap_start(), hwtap_stop(), hwtap_end().
 *
 * Layout of the generated file: limits (-D), includes, the used tapset files' embedded C,
 * globals with their locks, the context (each probe's locals, each function's frame per
 * nesting level), functions, probe handlers, timers, and the three session hooks.
 *
 * Every expression becomes one C expression (GNU statement expressions where it needs
 * statements); a runtime error records its message and jumps to the handler's or
 * function's `out' label. Strings are MAXSTRINGLEN buffers; an expression that makes a new
 * string writes it into a temporary of the current frame.
 */
#include "hwtap.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	Session *s;
	StrBuf *out;
	StrBuf *decl;          /* the current frame's struct members (locals, temporaries) */
	int ntmp;
	Function *func;        /* NULL in a probe */
	int indent;
	StrBuf pre;            /* a print call's arguments, computed in order */
	int nargs;
} Gen;

static void expr(Gen *g, StrBuf *sb, Node *n);

static void unsupported(Node *n, const char *what)
{
	error_at(n->tok, "pass 3 cannot translate %s yet", what);
}

static void line(Gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(Gen *g, const char *fmt, ...)
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
static char *c_string(const char *s, size_t len)
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

static const char *where(Node *n)
{
	char *at = xformat("%s:%d:%d", n->tok->file->name, n->tok->line, n->tok->col);
	return c_string(at, strlen(at));
}

/* A new string temporary of the current frame. */
static char *temp(Gen *g)
{
	int k = g->ntmp++;
	sb_printf(g->decl, "\tchar __tmp%d[MAXSTRINGLEN];\n", k);
	return xformat("l->__tmp%d", k);
}

static char *var_ref(Symbol *sym)
{
	if (sym->kind == SYM_GLOBAL)
		return xformat("g_%s", sym->name);
	return xformat("l->l_%s", sym->name);
}

static void lvalue(Gen *g, StrBuf *sb, Node *n)
{
	if (n->kind != N_VAR) {
		unsupported(n, "an assignment to an array element");
		return;
	}
	sb_puts(sb, var_ref(n->sym));
}

/* ---- expressions ------------------------------------------------------------------------ */

static void binary_long(Gen *g, StrBuf *sb, Node *n)
{
	const char *op = n->op;
	StrBuf a = {0}, b = {0};
	expr(g, &a, n->lhs);
	expr(g, &b, n->rhs);
	if (!strcmp(op, "/") || !strcmp(op, "%")) {
		/* x / 0 is an error; INT64_MIN / -1 would trap */
		sb_printf(sb, "({ int64_t __l = (%s), __r = (%s); if (unlikely(__r == 0)) { "
			  "_hwtap_error(&c->base, \"division by zero\"); goto out; } __r == -1 ? "
			  "%s : __l %s __r; })", a.buf, b.buf, op[0] == '/' ? "(int64_t)(0 - "
			  "(uint64_t)__l)" : "0", op);
	} else if (!strcmp(op, "<<") || !strcmp(op, ">>")) {
		sb_printf(sb, "({ int64_t __l = (%s), __r = (%s); (int64_t)(__l %s (__r & 63)); })",
			  a.buf, b.buf, op[0] == '<' ? "<<" : ">>");
	} else if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*")) {
		/* wraps as two's complement, as in SystemTap */
		sb_printf(sb, "({ int64_t __l = (%s), __r = (%s); (int64_t)((uint64_t)__l %s "
			  "(uint64_t)__r); })", a.buf, b.buf, op);
	} else {
		sb_printf(sb, "({ int64_t __l = (%s), __r = (%s); (int64_t)(__l %s __r); })",
			  a.buf, b.buf, op);
	}
}

static void compare(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf a = {0}, b = {0};
	expr(g, &a, n->lhs);
	expr(g, &b, n->rhs);
	if (n->lhs->type == TY_STRING)
		sb_printf(sb, "({ const char *__l = _hwtap_assign_str(%s, %s); (int64_t)"
			  "(strcmp(__l, %s) %s 0); })", temp(g), a.buf, b.buf, n->op);
	else
		sb_printf(sb, "({ int64_t __l = (%s), __r = (%s); (int64_t)(__l %s __r); })",
			  a.buf, b.buf, n->op);
}

/* Arguments into locals of the caller, then the callee's frame: a later argument that
 * calls a function would otherwise overwrite an earlier one in that frame. */
static void call(Gen *g, StrBuf *sb, Node *n)
{
	Function *f = n->func;
	StrBuf pre = {0}, copy = {0};
	for (int i = 0; i < n->args.len; i++) {
		Node *a = n->args.data[i];
		Symbol *p = f->locals.data[i];
		StrBuf v = {0};
		expr(g, &v, a);
		if (p->type == TY_STRING) {
			char *t = temp(g);
			sb_printf(&pre, "_hwtap_assign_str(%s, %s); ", t, v.buf);
			sb_printf(&copy, "strscpy(__f->l_%s, %s, MAXSTRINGLEN); ", p->name, t);
		} else {
			sb_printf(&pre, "int64_t __a%d = (%s); ", i, v.buf);
			sb_printf(&copy, "__f->l_%s = __a%d; ", p->name, i);
		}
	}
	sb_printf(sb, "({ %sstruct function_%s_frame *__f; if (unlikely(c->base.nesting + 1 >= "
		  "MAXNESTING)) { _hwtap_error(&c->base, \"MAXNESTING exceeded\"); goto out; } "
		  "__f = &c->frames[c->base.nesting + 1].f_%s; %sc->base.nesting++; "
		  "function_%s(c); c->base.nesting--; if (unlikely(c->base.last_error)) goto out; ",
		  pre.buf ? pre.buf : "", f->name, f->name, copy.buf ? copy.buf : "", f->name);
	if (!f->has_value)
		sb_puts(sb, "0; })");
	else if (f->rtype == TY_STRING)
		sb_printf(sb, "_hwtap_assign_str(%s, __f->__retval); })", temp(g));
	else
		sb_puts(sb, "__f->__retval; })");
}

/* A SystemTap printf directive as the kernel's vsnprintf spells it; NULL if it has none. */
static const char *kernel_conversion(char conv)
{
	switch (conv) {
	case 'd': case 'i': return "lld";
	case 'u': return "llu";
	case 'o': return "llo";
	case 'x': return "llx";
	case 'X': return "llX";
	case 'c': return "c";
	case 's': return "s";
	default: return NULL;
	}
}

/* C leaves the order of a call's arguments open; SystemTap evaluates them left to right.
 * Each argument is computed into a local of the statement expression that makes the call
 * (g->pre), strings copied into a temporary so a later argument cannot change them. */
static char *ordered_arg(Gen *g, Node *a)
{
	StrBuf v = {0};
	expr(g, &v, a);
	int k = g->nargs++;
	if (a->type == TY_STRING) {
		sb_printf(&g->pre, "const char *__p%d = _hwtap_assign_str(%s, %s); ", k, temp(g),
			  v.buf);
		return xformat("__p%d", k);
	}
	sb_printf(&g->pre, "long long __p%d = (%s); ", k, v.buf);
	return xformat("__p%d", k);
}

/* The format and argument list for _hwtap_printf(); args is ", a, b" or "". */
static void format_call(Gen *g, Node *n, int first, StrBuf *fmt, StrBuf *args)
{
	Node *f = n->args.data[first - 1];
	int arg = first;
	sb_putn(fmt, "", 0);
	sb_putn(args, "", 0);
	for (size_t i = 0; i < f->str_len; i++) {
		char ch = f->str[i];
		if (ch != '%') {
			sb_putc(fmt, ch);
			continue;
		}
		if (f->str[i + 1] == '%') {
			sb_puts(fmt, "%%");
			i++;
			continue;
		}
		size_t j = i + 1;
		StrBuf spec = {0};
		sb_putc(&spec, '%');
		while (j < f->str_len && strchr("-+ #0123456789.*l", f->str[j])) {
			if (f->str[j] == '*')
				sb_printf(args, ", (int)%s", ordered_arg(g, n->args.data[arg++]));
			if (f->str[j] != 'l')
				sb_putc(&spec, f->str[j]);
			j++;
		}
		char conv = f->str[j];
		const char *k = kernel_conversion(conv);
		char *v = ordered_arg(g, n->args.data[arg++]);
		if (conv == 'p') {
			sb_puts(fmt, "0x%llx");        /* SystemTap: 0xff, 0x0 */
			sb_printf(args, ", (unsigned long long)%s", v);
		} else if (!k) {
			unsupported(f, xformat("the printf directive '%%%c'", conv));
		} else {
			sb_printf(fmt, "%s%s", spec.buf, k);
			sb_printf(args, conv == 'c' ? ", (int)%s" : ", %s", v);
		}
		i = j;
	}
}

/* print(a, b), println(...), printd(delim, ...): one directive per argument */
static void print_args_format(Gen *g, Node *n, const Builtin *b, StrBuf *fmt, StrBuf *args)
{
	int from = 0;
	const char *delim = "";
	sb_putn(fmt, "", 0);
	sb_putn(args, "", 0);
	if (b->delimited) {
		Node *d = n->args.data[0];
		delim = xstrndup(d->str, d->str_len);
		from = 1;
	}
	for (int i = from; i < n->args.len; i++) {
		Node *a = n->args.data[i];
		if (a->type == TY_HIST) {
			unsupported(a, "histograms");
			continue;
		}
		for (const char *p = i > from ? delim : ""; *p; p++)
			sb_puts(fmt, *p == '%' ? "%%" : xstrndup(p, 1));
		sb_puts(fmt, a->type == TY_STRING ? "%s" : "%lld");
		sb_printf(args, ", %s", ordered_arg(g, a));
	}
	if (b->newline)
		sb_putc(fmt, '\n');
}

static void builtin(Gen *g, StrBuf *sb, Node *n, const Builtin *b)
{
	StrBuf fmt = {0}, args = {0};
	StrBuf outer = g->pre;
	int outer_n = g->nargs;
	g->pre = (StrBuf){0};
	sb_putn(&g->pre, "", 0);
	g->nargs = 0;
	if (b->min_args < 0)
		format_call(g, n, 1, &fmt, &args);
	else
		print_args_format(g, n, b, &fmt, &args);
	char *f = c_string(fmt.buf, fmt.len);
	if (b->returns_string)
		sb_printf(sb, "({ %s_hwtap_sprintf(%s, %s%s); })", g->pre.buf, temp(g), f,
			  args.buf);
	else
		sb_printf(sb, "({ %s_hwtap_printf(&c->base, %s%s); 0; })", g->pre.buf, f,
			  args.buf);
	g->pre = outer;
	g->nargs = outer_n;
}

static void assign(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf lv = {0}, rv = {0};
	if (!strcmp(n->op, "<<<")) {
		unsupported(n, "statistics");
		return;
	}
	lvalue(g, &lv, n->lhs);
	expr(g, &rv, n->rhs);
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
	/* x op= y is x = x op y, with binary_long's checks */
	Node bin = {.kind = N_BINARY, .tok = n->tok, .type = TY_LONG, .lhs = n->lhs,
		    .rhs = n->rhs};
	bin.op = xstrndup(n->op, strlen(n->op) - 1);
	StrBuf v = {0};
	binary_long(g, &v, &bin);
	sb_printf(sb, "(%s = %s)", lv.buf, v.buf);
}

static void expr(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf a = {0}, b = {0};
	switch (n->kind) {
	case N_NUM:
		sb_printf(sb, "((int64_t)0x%llxULL)", (unsigned long long)n->num);
		return;
	case N_STR:
		sb_puts(sb, c_string(n->str, n->str_len));
		return;
	case N_VAR:
		sb_puts(sb, var_ref(n->sym));
		return;
	case N_CALL: {
		const Builtin *bi = n->func ? NULL : find_builtin(n->name);
		if (bi)
			builtin(g, sb, n, bi);
		else
			call(g, sb, n);
		return;
	}
	case N_UNARY:
		expr(g, &a, n->lhs);
		if (n->op[0] == '-')   /* -INT64_MIN wraps */
			sb_printf(sb, "((int64_t)(0 - (uint64_t)(%s)))", a.buf);
		else
			sb_printf(sb, "((int64_t)(%s(%s)))", n->op[0] == '+' ? "" : n->op, a.buf);
		return;
	case N_PREINC:
	case N_POSTINC:
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
		expr(g, &a, n->lhs);
		expr(g, &b, n->rhs);
		sb_printf(sb, "((int64_t)((%s) %s (%s)))", a.buf, n->op, b.buf);
		return;
	case N_COMPARE:
		compare(g, sb, n);
		return;
	case N_CONCAT: {
		/* the left side first, kept from what the right side may change */
		expr(g, &a, n->lhs);
		expr(g, &b, n->rhs);
		char *left = temp(g);
		sb_printf(sb, "({ _hwtap_assign_str(%s, %s); _hwtap_concat(%s, %s, %s); })", left,
			  a.buf, temp(g), left, b.buf);
		return;
	}
	case N_TERNARY: {
		if (n->cond->kind == N_AT_DEFINED) {       /* folded in pass 2 */
			expr(g, sb, n->cond->num ? n->then : n->els);
			return;
		}
		StrBuf cnd = {0};
		expr(g, &cnd, n->cond);
		expr(g, &a, n->then);
		expr(g, &b, n->els);
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
	case N_IN:
		unsupported(n, "arrays");
		return;
	case N_AT_OP:
	case N_HIST:
	case N_HIST_INDEX:
		unsupported(n, "statistics");
		return;
	case N_REGEX:
		unsupported(n, "regular expressions");
		return;
	case N_TARGET:
		unsupported(n, "context variables");
		return;
	default:
		unsupported(n, "this expression");
	}
}

/* ---- statements ------------------------------------------------------------------------- */

static void stmt(Gen *g, Node *n);

static void stmt_header(Gen *g, Node *n)
{
	line(g, "c->base.last_stmt = %s;", where(n));
	line(g, "if (unlikely(!_hwtap_action(&c->base, 1))) goto out;");
}

static void block(Gen *g, Node *n)
{
	line(g, "{");
	g->indent++;
	for (int i = 0; i < n->args.len; i++)
		stmt(g, n->args.data[i]);
	g->indent--;
	line(g, "}");
}

static void stmt(Gen *g, Node *n)
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
		expr(g, &a, n->lhs);
		line(g, "(void)(%s);", a.buf);
		return;
	case N_IF:
		if (n->cond->kind == N_AT_DEFINED) {       /* folded in pass 2 */
			if (n->cond->num)
				stmt(g, n->then);
			else if (n->els)
				stmt(g, n->els);
			return;
		}
		stmt_header(g, n);
		expr(g, &a, n->cond);
		line(g, "if (%s)", a.buf);
		block(g, &(Node){.kind = N_BLOCK, .args = {.data = (void **)&n->then, .len = 1}});
		if (n->els) {
			line(g, "else");
			block(g, &(Node){.kind = N_BLOCK, .args = {.data = (void **)&n->els,
								   .len = 1}});
		}
		return;
	case N_WHILE:
	case N_FOR: {
		StrBuf init = {0}, cond = {0}, inc = {0};
		if (n->init)
			expr(g, &init, n->init);
		if (n->cond)
			expr(g, &cond, n->cond);
		if (n->inc)
			expr(g, &inc, n->inc);
		stmt_header(g, n);
		line(g, "for (%s; %s; %s) {", init.buf ? xformat("(void)(%s)", init.buf) : "",
		     cond.buf ? cond.buf : "", inc.buf ? xformat("(void)(%s)", inc.buf) : "");
		g->indent++;
		line(g, "if (unlikely(!_hwtap_action(&c->base, 1))) goto out;");
		stmt(g, n->body);
		g->indent--;
		line(g, "}");
		return;
	}
	case N_BREAK:
		line(g, "break;");
		return;
	case N_CONTINUE:
		line(g, "continue;");
		return;
	case N_NEXT:
		line(g, "goto out;");
		return;
	case N_RETURN:
		stmt_header(g, n);
		if (n->lhs) {
			expr(g, &a, n->lhs);
			if (g->func->rtype == TY_STRING)
				line(g, "_hwtap_assign_str(l->__retval, %s);", a.buf);
			else
				line(g, "l->__retval = (%s);", a.buf);
		}
		line(g, "goto out;");
		return;
	case N_EMBEDDED:
		line(g, "{\n%s\n}", n->str);
		return;
	case N_DELETE:
		if (n->lhs->kind == N_VAR && n->lhs->sym->arity <= 0) {
			/* a scalar: back to 0 or "" */
			stmt_header(g, n);
			char *v = var_ref(n->lhs->sym);
			if (n->lhs->sym->type == TY_STRING)
				line(g, "%s[0] = '\\0';", v);
			else
				line(g, "%s = 0;", v);
			return;
		}
		unsupported(n, "arrays");
		return;
	case N_FOREACH:
		unsupported(n, "arrays");
		return;
	case N_TRY:
		unsupported(n, "try/catch");
		return;
	default:
		unsupported(n, "this statement");
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
			line(g, "l->l_%s[0] = '\\0';", sym->name);
		else
			line(g, "l->l_%s = 0;", sym->name);
	}
}

static void embedded_function(Gen *g, Function *f)
{
	for (int i = 0; i < f->params.len; i++) {
		Symbol *p = f->locals.data[i];
		line(g, "#define STAP_ARG_%s (l->l_%s)", p->name, p->name);
	}
	line(g, "#define STAP_RETVALUE (l->__retval)");
	if (f->rtype == TY_STRING)
		line(g, "#define STAP_RETURN(v) do { strscpy(STAP_RETVALUE, (v), MAXSTRINGLEN); "
		     "goto out; } while (0)");
	else
		line(g, "#define STAP_RETURN(v) do { STAP_RETVALUE = (v); goto out; } while (0)");
	line(g, "{\n%s\n}", f->body->str);
	line(g, "#undef STAP_RETURN");
	line(g, "#undef STAP_RETVALUE");
	for (int i = 0; i < f->params.len; i++)
		line(g, "#undef STAP_ARG_%s", ((Symbol *)f->locals.data[i])->name);
}

static void function(Gen *g, Function *f, StrBuf *frames)
{
	StrBuf decl = {0};
	sb_printf(&decl, "struct function_%s_frame {\n", f->name);
	frame_members(&decl, &f->locals);
	if (f->has_value) {
		sb_puts(&decl, "\t");
		sb_printf(&decl, c_type(f->rtype), "__retval");
		sb_puts(&decl, ";\n");
	}
	g->decl = &decl;
	g->ntmp = 0;
	g->func = f;
	line(g, "static void function_%s(struct hwtap_context *c)", f->name);
	line(g, "{");
	g->indent++;
	line(g, "struct function_%s_frame *l = &c->frames[c->base.nesting].f_%s;", f->name,
	     f->name);
	line(g, "(void)l;");
	reset_locals(g, &f->locals, f->params.len);
	if (f->body->kind == N_EMBEDDED)
		embedded_function(g, f);
	else
		stmt(g, f->body);
	g->indent--;
	line(g, "out: __attribute__((unused));");
	line(g, "}");
	line(g, "%s", "");
	sb_puts(&decl, "};\n");
	sb_puts(frames, decl.buf);
	g->func = NULL;
}

typedef struct {
	Probe *p;
	int index;
	int64_t priority;
} Ordered;

static int by_priority(const void *a, const void *b)
{
	const Ordered *x = a, *y = b;
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x->index - y->index;
}

static const char *family_of(Probe *p)
{
	return p->family->name;
}

static Component *comp(Probe *p, int i)
{
	ProbePoint *pp = p->points.data[0];
	return i < pp->comps.len ? pp->comps.data[i] : NULL;
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
	line(g, "/* %s */", p->derivation);
	line(g, "static void probe_%d(struct pt_regs *regs)", index);
	line(g, "{");
	g->indent++;
	line(g, "struct hwtap_context *c = this_cpu_ptr(hwtap_contexts);");
	line(g, "struct probe_%d_locals *l;", index);
	bool final = !strcmp(family_of(p), "end") || !strcmp(family_of(p), "error");
	line(g, "if (!_hwtap_enter(&c->base, %s, regs, %s))", c_string(pp, strlen(pp)),
	     final ? "true" : "false");
	line(g, "\treturn;");
	line(g, "l = &c->probe.p%d;", index);
	reset_locals(g, &p->locals, 0);
	line(g, "if (unlikely(!_hwtap_trylock(&hwtap_globals_lock))) {");
	line(g, "\t_hwtap_skip_counted();");
	line(g, "\tgoto unlocked;");
	line(g, "}");
	ProbePoint *point = p->points.data[0];
	if (point->cond) {
		StrBuf cnd = {0};
		expr(g, &cnd, point->cond);
		line(g, "if (!(%s))", cnd.buf);
		line(g, "\tgoto out;");
	}
	stmt(g, p->body);
	g->indent--;
	line(g, "out: __attribute__((unused));");
	line(g, "\t_hwtap_unlock(&hwtap_globals_lock);");
	line(g, "unlocked:");
	line(g, "\t_hwtap_leave(&c->base);");
	line(g, "}");
	line(g, "%s", "");
	sb_puts(&decl, "};\n");
	sb_puts(frames, decl.buf);
}

/* timer.UNIT(N)[.randomize(R)]: its period in nanoseconds, and the randomization. */
static void timer_period(Session *s, Probe *p, int64_t *ns, int64_t *rnd)
{
	Component *unit = comp(p, 1), *r = comp(p, 2);
	int64_t n = (int64_t)unit->arg->num;
	static const struct {
		const char *unit;
		int64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
		     {"sec", 1000000000}};
	int64_t mult = 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit->name, units[i].unit))
			mult = units[i].ns;
	if (!strcmp(unit->name, "jiffies")) {
		int64_t hz = atoll(session_config_value(s, "CONFIG_HZ"));
		mult = 1000000000 / (hz > 0 ? hz : 250);
	}
	*ns = !strcmp(unit->name, "hz") ? 1000000000 / n : n * mult;
	*rnd = r ? (int64_t)r->arg->num * mult : 0;
}

static void timer(Gen *g, Probe *p, int index)
{
	int64_t ns, rnd;
	timer_period(g->s, p, &ns, &rnd);
	line(g, "static struct hrtimer timer_%d;", index);
	line(g, "static enum hrtimer_restart timer_%d_fire(struct hrtimer *t)", index);
	line(g, "{");
	if (rnd)
		line(g, "\thrtimer_forward_now(t, ns_to_ktime(%lldLL - %lldLL + "
		     "get_random_u32() %% %lldULL));", (long long)ns, (long long)rnd,
		     (long long)(2 * rnd + 1));
	else
		line(g, "\thrtimer_forward_now(t, ns_to_ktime(%lldLL));", (long long)ns);
	line(g, "\tprobe_%d(get_irq_regs());", index);
	line(g, "\treturn HRTIMER_RESTART;");
	line(g, "}");
	line(g, "%s", "");
}

static bool is_timer(Probe *p)
{
	return !strcmp(family_of(p), "timer") && comp(p, 1)->arg;
}

/* What pass 3 has no code for yet: reported once per probe. */
static bool translatable(Probe *p)
{
	const char *f = family_of(p);
	if (!strcmp(f, "begin") || !strcmp(f, "end") || !strcmp(f, "error") ||
	    !strcmp(f, "never") || is_timer(p))
		return true;
	error_at(((ProbePoint *)p->points.data[0])->tok, "pass 3 cannot translate probe "
		 "point '%s' yet", probe_point_string(p->points.data[0]));
	return false;
}

static void run_in_order(Gen *g, Session *s, const char *family)
{
	Vec list = {0};
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (strcmp(family_of(p), family))
			continue;
		Ordered *o = xalloc(sizeof(*o));
		o->p = p;
		o->index = i;
		Component *c0 = comp(p, 0);
		o->priority = c0->arg ? (int64_t)c0->arg->num : 0;
		vec_push(&list, o);
	}
	Ordered *arr = xalloc(sizeof(Ordered) * (list.len + 1));
	for (int i = 0; i < list.len; i++)
		arr[i] = *(Ordered *)list.data[i];
	qsort(arr, list.len, sizeof(Ordered), by_priority);
	for (int i = 0; i < list.len; i++)
		line(g, "\tprobe_%d(NULL);", arr[i].index);
}

static void globals(Gen *g, Session *s)
{
	for (int i = 0; i < s->globals.len; i++) {
		Global *gl = s->globals.data[i];
		Symbol *sym = gl->sym;
		if (sym->arity > 0 || sym->type == TY_STATS) {
			unsupported(gl->init ? gl->init : &(Node){.tok = gl->tok},
				    sym->type == TY_STATS ? "statistics" : "arrays");
			continue;
		}
		StrBuf init = {0};
		if (gl->init)
			expr(g, &init, gl->init);
		if (sym->type == TY_STRING)
			line(g, "static char g_%s[MAXSTRINGLEN]%s%s;", gl->name,
			     init.buf ? " = " : "", init.buf ? init.buf : "");
		else
			line(g, "static int64_t g_%s%s%s;", gl->name, init.buf ? " = " : "",
			     init.buf ? init.buf : "");
	}
	line(g, "/* one lock for all globals: handlers try it and skip when it is held */");
	line(g, "static hwtap_lock_t hwtap_globals_lock = HWTAP_LOCK_INIT;");
	line(g, "%s", "");
}

static void session_hooks(Gen *g, Session *s)
{
	line(g, "static int hwtap_start(void)");
	line(g, "{");
	line(g, "\thwtap_contexts = alloc_percpu(struct hwtap_context);");
	line(g, "\tif (!hwtap_contexts)");
	line(g, "\t\treturn -ENOMEM;");
	line(g, "\tmigrate_disable();     /* the CPU's context, but writes may wait for room */");
	run_in_order(g, s, "begin");
	line(g, "\tmigrate_enable();");
	for (int i = 0; i < s->probes.len; i++) {
		if (!is_timer(s->probes.data[i]))
			continue;
		int64_t ns, rnd;
		timer_period(s, s->probes.data[i], &ns, &rnd);
		line(g, "\thrtimer_init(&timer_%d, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);", i);
		line(g, "\ttimer_%d.function = timer_%d_fire;", i, i);
		line(g, "\thrtimer_start(&timer_%d, ns_to_ktime(%lldLL), HRTIMER_MODE_REL_HARD);",
		     i, (long long)ns);
	}
	line(g, "\treturn 0;");
	line(g, "}");
	line(g, "%s", "");
	line(g, "static void hwtap_stop(void)");
	line(g, "{");
	for (int i = 0; i < s->probes.len; i++)
		if (is_timer(s->probes.data[i]))
			line(g, "\thrtimer_cancel(&timer_%d);", i);
	line(g, "}");
	line(g, "%s", "");
	line(g, "static void hwtap_end(void)");
	line(g, "{");
	line(g, "\tmigrate_disable();     /* the CPU's context, but writes may wait for room */");
	line(g, "\t/* a session that errors ended runs its error probes, not its end probes */");
	line(g, "\tif (atomic64_read(&_hwtap_errors) > _hwtap_maxerrors) {");
	run_in_order(g, s, "error");
	line(g, "\t} else {");
	run_in_order(g, s, "end");
	line(g, "\t}");
	line(g, "\tmigrate_enable();");
	line(g, "\tfree_percpu(hwtap_contexts);");
	line(g, "\thwtap_contexts = NULL;");
	line(g, "}");
}

static const char *const kernel_headers[] = {
	"linux/module.h", "linux/kernel.h", "linux/hrtimer.h", "linux/ktime.h",
	"linux/random.h", "linux/percpu.h", "linux/sched.h", "linux/sched/signal.h",
	"linux/sched/clock.h", "linux/sched/task_stack.h", "linux/cred.h",
	"linux/pid_namespace.h", "linux/timekeeping.h", "linux/time.h", "linux/timex.h",
	"linux/jiffies.h", "linux/ptrace.h", "linux/rcupdate.h", "linux/cpumask.h",
	"linux/string.h", "linux/ctype.h", "linux/limits.h", "linux/printk.h",
	"linux/atomic.h", "asm/irq_regs.h",
};

static void prologue(Gen *g, Session *s, const char *name)
{
	line(g, "/* Generated by hwtap from %s. */", s->user->file->name);
	for (int i = 0; i < s->defines.len; i++) {
		char *d = xstrdup(s->defines.data[i]);
		char *eq = strchr(d, '=');
		if (eq)
			*eq = ' ';
		line(g, "#define %s", d);
	}
	line(g, "#define HWTAP_MODULE_NAME \"%s\"", name);
	for (size_t i = 0; i < sizeof(kernel_headers) / sizeof(kernel_headers[0]); i++)
		line(g, "#include <%s>", kernel_headers[i]);
	line(g, "#include \"runtime/session.h\"");
	line(g, "#include \"runtime/lang.h\"");
	line(g, "%s", "");
	for (int i = 0; i < s->tapsets.len; i++) {
		Script *sc = s->tapsets.data[i];
		for (int j = 0; j < sc->embeds.len && sc->used; j++)
			line(g, "%s", ((Token *)sc->embeds.data[j])->str);
	}
	for (int j = 0; j < s->user->embeds.len; j++)
		line(g, "%s", ((Token *)s->user->embeds.data[j])->str);
}

int translate(Session *s, const char *module_name, StrBuf *out)
{
	int errors = diag_errors;
	StrBuf head = {0}, body = {0}, frames = {0};
	Gen g = {.s = s, .out = &head};
	prologue(&g, s, module_name);
	globals(&g, s);
	g.out = &body;
	for (int i = 0; i < s->funcs.len; i++)
		line(&g, "static void function_%s(struct hwtap_context *c);",
		     ((Function *)s->funcs.data[i])->name);
	line(&g, "%s", "");
	for (int i = 0; i < s->funcs.len; i++)
		function(&g, s->funcs.data[i], &frames);
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (!translatable(p) || !strcmp(family_of(p), "never"))
			continue;
		probe_handler(&g, p, i, &frames);
		if (is_timer(p))
			timer(&g, p, i);
	}
	session_hooks(&g, s);
	line(&g, "%s", "");
	line(&g, "HWTAP_SESSION_DEFINE();");
	if (diag_errors > errors)
		return diag_errors;
	/* the context: each probe's locals, and a frame per nesting level */
	StrBuf ctx = {0};
	sb_puts(&ctx, frames.buf ? frames.buf : "");
	sb_puts(&ctx, "\nstruct hwtap_context {\n\tstruct hwtap_context_base base;\n"
		"\tunion {\n\t\tint __none;\n");
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		if (strcmp(family_of(p), "never"))
			sb_printf(&ctx, "\t\tstruct probe_%d_locals p%d;\n", i, i);
	}
	sb_puts(&ctx, "\t} probe;\n\tunion {\n\t\tint __none;\n");
	for (int i = 0; i < s->funcs.len; i++) {
		Function *f = s->funcs.data[i];
		sb_printf(&ctx, "\t\tstruct function_%s_frame f_%s;\n", f->name, f->name);
	}
	sb_puts(&ctx, "\t} frames[MAXNESTING];\n};\n\n"
		"static struct hwtap_context __percpu *hwtap_contexts;\n\n");
	sb_puts(out, head.buf);
	sb_puts(out, ctx.buf);
	sb_puts(out, body.buf);
	return 0;
}
