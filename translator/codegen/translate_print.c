/* translate_print.c - pass 3 of print, println, printd, printdln, printf and their string
 * forms (sprint, sprintf ...). A call becomes a run of appends to an output
 * (runtime/format.h), one per literal run or directive: the format is read here, once,
 * never at run time. printf appends to the handler's print buffer, sprintf to a string
 * temporary, or straight into the variable it is assigned to.
 *
 * Arguments are computed first, left to right as SystemTap evaluates them, into locals of
 * the statement expression that makes the call (g->pre). A string argument is copied into
 * a temporary only when a later argument could change it. A literal printed by a plain
 * %s (a number by a plain %d) joins the format's text around it.
 */
#include "translate.h"

#include <string.h>

/* The call being translated: the appends so far, and the text not yet appended. */
typedef struct {
	Gen *g;
	Node *call;
	StrBuf puts;
	StrBuf text;
} Out;

static void flush_text(Out *o)
{
	if (!o->text.len)
		return;
	sb_printf(&o->puts, "_hwtap_put(&__o, %s, %zu); ",
		  tr_c_string(o->text.buf, o->text.len), o->text.len);
	o->text.len = 0;
}

/* Whether an argument after the i-th could change what the i-th one points to. */
static bool later_effects(Node *call, int i)
{
	for (int j = i + 1; j < call->args.len; j++)
		if (tr_has_side_effects(call->args.data[j]))
			return true;
	return false;
}

/* A string computed into a fresh temporary (a call's result, a concatenation) is the
 * call's own; variables, array elements and the like are not. */
static bool fresh_string(Node *a)
{
	return a->kind == N_STR || a->kind == N_CALL || a->kind == N_CONCAT;
}

/* The i-th argument's value, computed into g->pre in its turn. */
static char *ordered_arg(Out *o, int i)
{
	Node *a = o->call->args.data[i];
	Gen *g = o->g;
	if (a->kind == N_STR)
		return tr_c_string(a->str, a->str_len);
	StrBuf v = {0};
	tr_expr(g, &v, a);
	int k = g->nargs++;
	if (a->type != TY_STRING)
		sb_printf(&g->pre, "long long __p%d = (%s); ", k, v.buf);
	else if (!fresh_string(a) && later_effects(o->call, i))
		sb_printf(&g->pre, "const char *__p%d = _hwtap_assign_str(%s, %s); ", k,
			  tr_temp(g), v.buf);
	else
		sb_printf(&g->pre, "const char *__p%d = (%s); ", k, v.buf);
	return xformat("__p%d", k);
}

/* A width or precision: as written, or from the i-th argument ('*'). */
static char *field(Out *o, int value, int i)
{
	if (value != FMT_STAR)
		return xformat("%d", value);
	return xformat("_hwtap_fmt_star(%s)", ordered_arg(o, i));
}

static const struct {
	char conv;
	const char *put;        /* _hwtap_put_PUT */
	const char *flags;      /* what the conversion adds to the directive's */
} conversions[] = {
	{'d', "num", "HWTAP_F_SIGN"}, {'i', "num", "HWTAP_F_SIGN"}, {'u', "num", NULL},
	{'o', "num", "HWTAP_F_OCT"}, {'x', "num", "HWTAP_F_HEX"},
	{'X', "num", "HWTAP_F_HEX | HWTAP_F_UPPER"}, {'p', "num", "HWTAP_F_HEX | HWTAP_F_SPECIAL"},
	{'s', "str", NULL}, {'c', "char", NULL}, {'b', "bin", NULL},
};

static const struct {
	unsigned flag;
	const char *name;
} flag_names[] = {
	{FMT_ZEROPAD, "HWTAP_F_ZEROPAD"}, {FMT_PLUS, "HWTAP_F_PLUS"}, {FMT_SPACE, "HWTAP_F_SPACE"},
	{FMT_LEFT, "HWTAP_F_LEFT"}, {FMT_SPECIAL, "HWTAP_F_SPECIAL"},
};

static char *flags_expr(unsigned flags, const char *more)
{
	StrBuf sb = {0};
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (flags & flag_names[i].flag)
			sb_printf(&sb, "%s%s", sb.len ? " | " : "", flag_names[i].name);
	if (more)
		sb_printf(&sb, "%s%s", sb.len ? " | " : "", more);
	return sb.len ? sb.buf : "0";
}

/* One directive, its value the i-th argument (after its '*' ones). */
static void directive(Out *o, const Directive *d, int i, const char *width, const char *prec)
{
	Node *a = o->call->args.data[i];
	bool plain = !d->flags && d->width == -1 && d->prec == -1;
	if (plain && d->conv == 's' && a->kind == N_STR) {
		sb_putn(&o->text, a->str, strnlen(a->str, a->str_len));
		return;
	}
	if (plain && (d->conv == 'd' || d->conv == 'i') && a->kind == N_NUM) {
		sb_printf(&o->text, "%lld", (long long)(int64_t)a->num);
		return;
	}
	size_t k = 0;
	while (k < sizeof(conversions) / sizeof(conversions[0]) && conversions[k].conv != d->conv)
		k++;
	if (k == sizeof(conversions) / sizeof(conversions[0])) {
		tr_unsupported(o->call, xformat("the printf directive '%%%c'", d->conv));
		return;
	}
	char *v = ordered_arg(o, i);
	flush_text(o);
	if (plain && (d->conv == 'd' || d->conv == 'i' || d->conv == 's'))
		sb_printf(&o->puts, "_hwtap_put_%s(&__o, %s); ", d->conv == 's' ? "s" : "dec", v);
	else
		sb_printf(&o->puts, "_hwtap_put_%s(&__o, %s, %s, %s, %s); ", conversions[k].put, v,
			  width, prec, flags_expr(d->flags, conversions[k].flags));
}

/* printf's and sprintf's format, the first argument. */
static void format_appends(Out *o)
{
	Node *f = o->call->args.data[0];
	int arg = 1;
	for (const char *p = f->str; *p; p++) {
		if (*p != '%' || p[1] == '%') {
			sb_putc(&o->text, *p);
			p += *p == '%';
			continue;
		}
		Directive d;
		const char *conv;
		const char *end = format_directive(p + 1, &d, &conv);
		if (!end)
			unreachable();          /* pass 2 said why */
		char *width = field(o, d.width, arg);
		arg += d.width == FMT_STAR;
		char *prec = field(o, d.prec, arg);
		arg += d.prec == FMT_STAR;
		directive(o, &d, arg++, width, prec);
		p = end - 1;
	}
}

/* print(a, b), println(...), printd(delim, ...): each argument as a plain %s or %d. */
static void args_appends(Out *o, const Builtin *b)
{
	Node *n = o->call;
	int from = b->delimited ? 1 : 0;
	for (int i = from; i < n->args.len; i++) {
		Node *a = n->args.data[i];
		if (a->type == TY_HIST) {
			tr_unsupported(a, "histograms");
			continue;
		}
		if (b->delimited && i > from) {
			Node *delim = n->args.data[0];
			sb_putn(&o->text, delim->str, strnlen(delim->str, delim->str_len));
		}
		Directive d = {.width = -1, .prec = -1, .conv = a->type == TY_STRING ? 's' : 'd'};
		directive(o, &d, i, "-1", "-1");
	}
	if (b->newline)
		sb_putc(&o->text, '\n');
}

/* The call n of b; a string one into dst, or into a new temporary when dst is NULL. */
static void print_call(Gen *g, StrBuf *sb, Node *n, const Builtin *b, const char *dst)
{
	StrBuf outer = g->pre;
	int outer_n = g->nargs;
	g->pre = (StrBuf){0};
	sb_putn(&g->pre, "", 0);
	g->nargs = 0;
	Out o = {.g = g, .call = n};
	sb_putn(&o.puts, "", 0);
	if (b->min_args < 0)
		format_appends(&o);
	else
		args_appends(&o, b);
	flush_text(&o);
	if (b->returns_string)
		sb_printf(sb, "({ %sstruct hwtap_out __o; _hwtap_out_string(&__o, %s); "
			  "%s_hwtap_out_string_end(&__o); })", g->pre.buf, dst ? dst : tr_temp(g),
			  o.puts.buf);
	else
		sb_printf(sb, "({ %sstruct hwtap_out __o; _hwtap_out_print(&__o, &c->base); "
			  "%s_hwtap_out_print_end(&__o, &c->base); 0; })", g->pre.buf, o.puts.buf);
	g->pre = outer;
	g->nargs = outer_n;
}

static bool histogram_print(Node *n, const Builtin *b)
{
	return b->min_args >= 0 && n->args.len == 1 &&
	       ((Node *)n->args.data[0])->type == TY_HIST;
}

void tr_print(Gen *g, StrBuf *sb, Node *n, const Builtin *b)
{
	if (histogram_print(n, b))
		stat_hist_print(g, sb, n->args.data[0], b->returns_string, n->tok);
	else
		print_call(g, sb, n, b, NULL);
}

/* Whether n reads the variable sym anywhere. */
static bool mentions(Node *n, Symbol *sym)
{
	if (!n)
		return false;
	if (n->kind == N_VAR && n->sym == sym)
		return true;
	for (int i = 0; i < n->args.len; i++)
		if (mentions(n->args.data[i], sym))
			return true;
	return mentions(n->lhs, sym) || mentions(n->rhs, sym) || mentions(n->cond, sym) ||
	       mentions(n->then, sym) || mentions(n->els, sym);
}

bool tr_print_assign(Gen *g, StrBuf *sb, Node *n, const char *lv)
{
	Node *r = n->rhs;
	if (strcmp(n->op, "=") || n->lhs->kind != N_VAR || r->kind != N_CALL || r->func)
		return false;
	const Builtin *b = find_builtin(r->name);
	if (!b || !b->returns_string || histogram_print(r, b) || mentions(r, n->lhs->sym))
		return false;
	print_call(g, sb, r, b, lv);
	return true;
}
