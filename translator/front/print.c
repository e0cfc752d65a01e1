/* print.c - the AST back to source: -p1 prints a script normalized (one statement a line,
 * two-space indents, the parentheses precedence needs and no others, decimal numbers,
 * escaped strings). Printing that output again gives the same text. */
#include "hwtap.h"

#include <string.h>

const char *type_name(Type t)
{
	switch (t) {
	case TY_LONG: return "long";
	case TY_STRING: return "string";
	case TY_STATS: return "stats";
	case TY_HIST: return "histogram";
	default: return "unknown";
	}
}

enum {
	P_ASSIGN = 1, P_TERNARY, P_OR, P_AND, P_BOR, P_BXOR, P_BAND, P_IN, P_COMPARE, P_SHIFT,
	P_CONCAT, P_ADD, P_MUL, P_UNARY, P_POSTFIX, P_PRIMARY,
};

static int binary_prec(const char *op)
{
	static const struct {
		const char *op;
		int prec;
	} t[] = {
		{"||", P_OR}, {"&&", P_AND}, {"|", P_BOR}, {"^", P_BXOR}, {"&", P_BAND},
		{"<<", P_SHIFT}, {">>", P_SHIFT}, {">>>", P_SHIFT}, {"+", P_ADD}, {"-", P_ADD}, {"*", P_MUL},
		{"/", P_MUL}, {"%", P_MUL},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(op, t[i].op))
			return t[i].prec;
	unreachable();
}

static int prec(Node *n)
{
	switch (n->kind) {
	case N_ASSIGN: return P_ASSIGN;
	case N_TERNARY: return P_TERNARY;
	case N_LOGICAL:
	case N_BINARY: return binary_prec(n->op);
	case N_IN: return P_IN;
	case N_COMPARE:
	case N_REGEX: return P_COMPARE;
	case N_CONCAT: return P_CONCAT;
	case N_UNARY:
	case N_PREINC:
	case N_ADDR: return P_UNARY;
	case N_NUM: return (int64_t)n->num < 0 ? P_UNARY : P_PRIMARY;
	case N_POSTINC: return P_POSTFIX;
	default: return P_PRIMARY;
	}
}

static void expr_at(StrBuf *sb, Node *n, int min_prec);

static void print_string(StrBuf *sb, const char *s, size_t len)
{
	sb_putc(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];
		switch (c) {
		case '"': sb_puts(sb, "\\\""); break;
		case '\\': sb_puts(sb, "\\\\"); break;
		case '\n': sb_puts(sb, "\\n"); break;
		case '\t': sb_puts(sb, "\\t"); break;
		case '\r': sb_puts(sb, "\\r"); break;
		default:
			if (c < 32 || c == 127)
				sb_printf(sb, "\\%03o", c);
			else
				sb_putc(sb, c);
		}
	}
	sb_putc(sb, '"');
}

static void print_list(StrBuf *sb, Vec *v, const char *open, const char *close)
{
	sb_puts(sb, open);
	for (int i = 0; i < v->len; i++) {
		if (i)
			sb_puts(sb, ", ");
		expr_at(sb, v->data[i], P_ASSIGN);
	}
	sb_puts(sb, close);
}

static void print_chain(StrBuf *sb, Node *n)
{
	for (int i = 0; i < n->comps.len; i++) {
		TargetComp *c = n->comps.data[i];
		if (c->kind == TC_FIELD) {
			sb_printf(sb, "->%s", c->field);
		} else {
			sb_putc(sb, '[');
			expr_at(sb, c->index, P_ASSIGN);
			sb_putc(sb, ']');
		}
	}
	if (n->pretty)
		sb_puts(sb, n->pretty);
}

/* Prints `n` as an operator application, its lhs and rhs at the given precedences. */
static void infix(StrBuf *sb, Node *n, int lhs_prec, int rhs_prec)
{
	expr_at(sb, n->lhs, lhs_prec);
	sb_printf(sb, " %s ", n->op);
	expr_at(sb, n->rhs, rhs_prec);
}

static void print_at(StrBuf *sb, Node *n)
{
	sb_printf(sb, "%s(", n->op);
	expr_at(sb, n->lhs, P_ASSIGN);
	for (int i = 0; i < n->args.len; i++) {
		sb_puts(sb, ", ");
		expr_at(sb, n->args.data[i], P_ASSIGN);
	}
	sb_putc(sb, ')');
}

/* "-x", "++x", "&x"; a space keeps "- -x" from reading as "--x", and "-(5)" from
 * reading as the literal -5. */
static void prefix(StrBuf *sb, const char *op, Node *operand)
{
	StrBuf tmp = {0};
	sb_putn(&tmp, "", 0);
	expr_at(&tmp, operand, P_UNARY);
	sb_puts(sb, op);
	if (!strcmp(op, "-") && operand->kind == N_NUM && (int64_t)operand->num >= 0) {
		sb_printf(sb, "(%s)", tmp.buf);
		return;
	}
	/* "- -x", "+ +x", "& &x", "! ~x": not "--x", "++x", "&&x", "!~x" */
	if (tmp.buf[0] == op[0] || (op[0] == '!' && tmp.buf[0] == '~'))
		sb_putc(sb, ' ');
	sb_puts(sb, tmp.buf);
}

static void expr_body(StrBuf *sb, Node *n)
{
	int p = prec(n);
	switch (n->kind) {
	case N_NUM:
		sb_printf(sb, "%lld", (long long)(int64_t)n->num);
		return;
	case N_STR:
		print_string(sb, n->str, n->str_len);
		return;
	case N_VAR:
		sb_puts(sb, n->name);
		return;
	case N_STAR:
		sb_putc(sb, '*');
		return;
	case N_INDEX:
		sb_puts(sb, n->name);
		print_list(sb, &n->args, "[", "]");
		return;
	case N_CALL:
		sb_puts(sb, n->name);
		print_list(sb, &n->args, "(", ")");
		return;
	case N_TARGET:
		sb_puts(sb, n->name);
		print_chain(sb, n);
		return;
	case N_AT_OP:
	case N_HIST:
	case N_AT_DEFINED:
	case N_AT_ENTRY:
	case N_AT_PERF:
	case N_AT_OTHER:
		print_at(sb, n);
		return;
	case N_AT_CAST:
	case N_AT_VAR:
		print_at(sb, n);
		print_chain(sb, n);
		return;
	case N_DEREF: {
		/* "(x)[0]" must keep its parentheses: "x[0]" is an array element */
		bool paren = ((TargetComp *)n->comps.data[0])->kind == TC_INDEX &&
			     n->lhs->kind != N_CALL && n->lhs->kind != N_INDEX;
		if (paren) {
			sb_putc(sb, '(');
			expr_at(sb, n->lhs, P_ASSIGN);
			sb_putc(sb, ')');
		} else {
			expr_at(sb, n->lhs, P_PRIMARY);
		}
		print_chain(sb, n);
		return;
	}
	case N_HIST_INDEX:
		expr_at(sb, n->lhs, P_PRIMARY);
		sb_putc(sb, '[');
		expr_at(sb, n->rhs, P_ASSIGN);
		sb_putc(sb, ']');
		return;
	case N_UNARY:
	case N_PREINC:
	case N_ADDR:
		prefix(sb, n->kind == N_ADDR ? "&" : n->op, n->lhs);
		return;
	case N_POSTINC:
		expr_at(sb, n->lhs, P_PRIMARY);
		sb_puts(sb, n->op);
		return;
	case N_BINARY:
	case N_LOGICAL:
	case N_CONCAT:
	case N_COMPARE:
	case N_REGEX:
		infix(sb, n, p, p + 1);
		return;
	case N_ASSIGN:
		infix(sb, n, P_TERNARY, P_ASSIGN);
		return;
	case N_TERNARY:
		expr_at(sb, n->cond, P_OR);
		sb_puts(sb, " ? ");
		expr_at(sb, n->then, P_ASSIGN);
		sb_puts(sb, " : ");
		expr_at(sb, n->els, P_TERNARY);
		return;
	case N_IN:
		if (n->args.len == 1 && ((Node *)n->args.data[0])->kind != N_STAR)
			expr_at(sb, n->args.data[0], P_COMPARE);
		else
			print_list(sb, &n->args, "[", "]");
		sb_puts(sb, " in ");
		expr_at(sb, n->rhs, P_PRIMARY);
		return;
	case N_EMBEDDED_EXPR:
		sb_printf(sb, "%%{%s%%}", n->str);
		return;
	default:
		unreachable();
	}
}

static void expr_at(StrBuf *sb, Node *n, int min_prec)
{
	bool paren = prec(n) < min_prec;
	if (paren)
		sb_putc(sb, '(');
	expr_body(sb, n);
	if (paren)
		sb_putc(sb, ')');
}

void print_node(StrBuf *sb, Node *n)
{
	expr_at(sb, n, P_ASSIGN);
}

static void indent(StrBuf *sb, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_puts(sb, "  ");
}


/* A statement that follows "if (...)" or "else" on the same line when it is a block. */
static void body(StrBuf *sb, Node *n, int depth)
{
	if (n->kind == N_BLOCK) {
		sb_putc(sb, ' ');
		print_stmt(sb, n, depth);
	} else {
		sb_putc(sb, '\n');
		indent(sb, depth + 1);
		print_stmt(sb, n, depth + 1);
	}
}

static void foreach_header(StrBuf *sb, Node *n)
{
	sb_puts(sb, "foreach (");
	if (n->value)
		sb_printf(sb, "%s = ", n->value->name);
	if (n->keys.len > 1 || n->value)
		sb_putc(sb, '[');
	for (int i = 0; i < n->keys.len; i++) {
		sb_printf(sb, "%s%s", i ? ", " : "", ((Node *)n->keys.data[i])->name);
		if (n->sort_key == i + 1)
			sb_putc(sb, n->sort_dir > 0 ? '+' : '-');
	}
	if (n->keys.len > 1 || n->value)
		sb_putc(sb, ']');
	sb_puts(sb, " in ");
	expr_at(sb, n->array, P_PRIMARY);
	if (n->op)
		sb_printf(sb, " %s", n->op);
	if (n->sort_key == -1)
		sb_putc(sb, n->sort_dir > 0 ? '+' : '-');
	if (n->limit) {
		sb_puts(sb, " limit ");
		expr_at(sb, n->limit, P_ASSIGN);
	}
	sb_putc(sb, ')');
}

static void embedded(StrBuf *sb, const char *code)
{
	sb_printf(sb, "%%{%s%%}", code);
}

/* Prints a statement at the current position (the caller indented); ends with '\n'. */
void print_stmt(StrBuf *sb, Node *n, int depth)
{
	switch (n->kind) {
	case N_BLOCK:
		sb_puts(sb, "{\n");
		for (int i = 0; i < n->args.len; i++) {
			indent(sb, depth + 1);
			print_stmt(sb, n->args.data[i], depth + 1);
		}
		indent(sb, depth);
		sb_puts(sb, "}\n");
		return;
	case N_IF:
		sb_puts(sb, "if (");
		print_node(sb, n->cond);
		sb_putc(sb, ')');
		body(sb, n->then, depth);
		if (n->els) {
			indent(sb, depth);
			sb_puts(sb, "else");
			if (n->els->kind == N_IF) {
				sb_putc(sb, ' ');
				print_stmt(sb, n->els, depth);
			} else {
				body(sb, n->els, depth);
			}
		}
		return;
	case N_WHILE:
		sb_puts(sb, "while (");
		print_node(sb, n->cond);
		sb_putc(sb, ')');
		body(sb, n->body, depth);
		return;
	case N_FOR:
		sb_puts(sb, "for (");
		if (n->init)
			print_node(sb, n->init);
		sb_puts(sb, "; ");
		if (n->cond)
			print_node(sb, n->cond);
		sb_puts(sb, "; ");
		if (n->inc)
			print_node(sb, n->inc);
		sb_putc(sb, ')');
		body(sb, n->body, depth);
		return;
	case N_FOREACH:
		foreach_header(sb, n);
		body(sb, n->body, depth);
		return;
	case N_TRY:
		sb_puts(sb, "try ");
		print_stmt(sb, n->body, depth);
		indent(sb, depth);
		sb_puts(sb, "catch");
		if (n->name)
			sb_printf(sb, " (%s)", n->name);
		sb_putc(sb, ' ');
		print_stmt(sb, n->then, depth);
		return;
	case N_EXPR_STMT:
		print_node(sb, n->lhs);
		break;
	case N_BREAK:
		sb_puts(sb, "break");
		break;
	case N_CONTINUE:
		sb_puts(sb, "continue");
		break;
	case N_NEXT:
		sb_puts(sb, "next");
		break;
	case N_RETURN:
		sb_puts(sb, "return");
		if (n->lhs) {
			sb_putc(sb, ' ');
			print_node(sb, n->lhs);
		}
		break;
	case N_DELETE:
		sb_puts(sb, "delete ");
		print_node(sb, n->lhs);
		break;
	case N_NULL:
		break;
	case N_EMBEDDED:
		embedded(sb, n->str);
		sb_putc(sb, '\n');
		return;
	default:
		unreachable();
	}
	sb_puts(sb, ";\n");
}

static void component(StrBuf *sb, Component *c)
{
	sb_puts(sb, c->name);
	if (c->arg) {
		sb_putc(sb, '(');
		print_node(sb, c->arg);
		sb_putc(sb, ')');
	} else if (c->has_parens) {
		sb_puts(sb, "()");
	}
}

void print_probe_point(StrBuf *sb, ProbePoint *pp)
{
	for (int i = 0; i < pp->comps.len; i++) {
		if (i)
			sb_putc(sb, '.');
		component(sb, pp->comps.data[i]);
	}
	if (pp->sufficient)
		sb_putc(sb, '!');
	else if (pp->optional)
		sb_putc(sb, '?');
	if (pp->cond) {
		sb_puts(sb, " if (");
		print_node(sb, pp->cond);
		sb_putc(sb, ')');
	}
}

char *probe_point_string(ProbePoint *pp)
{
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	for (int i = 0; i < pp->comps.len; i++) {
		if (i)
			sb_putc(&sb, '.');
		component(&sb, pp->comps.data[i]);
	}
	return sb.buf;
}

static void point_list(StrBuf *sb, Vec *v)
{
	for (int i = 0; i < v->len; i++) {
		if (i)
			sb_puts(sb, ", ");
		print_probe_point(sb, v->data[i]);
	}
}

static void probe(StrBuf *sb, Probe *p)
{
	sb_puts(sb, "probe ");
	for (int i = 0; i < p->alias_names.len; i++) {
		print_probe_point(sb, p->alias_names.data[i]);
		sb_puts(sb, i + 1 < p->alias_names.len ? " = " : p->epilogue ? " += " : " = ");
	}
	point_list(sb, &p->points);
	sb_putc(sb, ' ');
	if (p->epilogue_body) {
		StrBuf first = {0};
		print_stmt(&first, p->body, 0);
		sb_putn(sb, first.buf, first.len - 1);      /* "}," joins the two bodies */
		sb_puts(sb, ", ");
		print_stmt(sb, p->epilogue_body, 0);
		return;
	}
	print_stmt(sb, p->body, 0);
}

static void global(StrBuf *sb, Global *g)
{
	sb_printf(sb, "%sglobal %s%s", g->is_private ? "private " : "", g->name,
		  g->wrap ? "%" : "");
	if (g->max_entries)
		sb_printf(sb, "[%lld]", (long long)g->max_entries);
	if (g->init) {
		sb_puts(sb, " = ");
		print_node(sb, g->init);
	}
	sb_putc(sb, '\n');
}

static void function(StrBuf *sb, Function *f)
{
	sb_printf(sb, "%sfunction %s", f->is_private ? "private " : "", f->name);
	if (f->ret != TY_UNKNOWN)
		sb_printf(sb, ":%s", type_name(f->ret));
	sb_putc(sb, '(');
	for (int i = 0; i < f->params.len; i++) {
		Param *p = f->params.data[i];
		sb_printf(sb, "%s%s", i ? ", " : "", p->name);
		if (p->type != TY_UNKNOWN)
			sb_printf(sb, ":%s", type_name(p->type));
	}
	sb_puts(sb, ") ");
	if (f->priority)
		sb_printf(sb, ": %lld ", (long long)f->priority);
	print_stmt(sb, f->body, 0);
}

void print_script(FILE *out, Script *sc)
{
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	for (int i = 0; i < sc->embeds.len; i++) {
		embedded(&sb, ((Token *)sc->embeds.data[i])->str);
		sb_putc(&sb, '\n');
	}
	for (int i = 0; i < sc->globals.len; i++)
		global(&sb, sc->globals.data[i]);
	for (int i = 0; i < sc->funcs.len; i++)
		function(&sb, sc->funcs.data[i]);
	for (int i = 0; i < sc->aliases.len; i++)
		probe(&sb, sc->aliases.data[i]);
	for (int i = 0; i < sc->probes.len; i++)
		probe(&sb, sc->probes.data[i]);
	fputs(sb.buf, out);
}

/* ---- -p2: the elaborated program ------------------------------------------------------ */

static void symbol_type(StrBuf *sb, Symbol *sym)
{
	sb_printf(sb, "%s:%s", sym->name, type_name(sym->type));
	if (sym->arity > 0) {
		sb_putc(sb, '[');
		for (int i = 0; i < sym->arity; i++)
			sb_printf(sb, "%s%s", i ? ", " : "", type_name(sym->key_types[i]));
		sb_putc(sb, ']');
	}
}

static void locals_line(StrBuf *sb, Vec *locals, int from)
{
	if (locals->len <= from)
		return;
	sb_puts(sb, "# locals:");
	for (int i = from; i < locals->len; i++) {
		sb_putc(sb, ' ');
		symbol_type(sb, locals->data[i]);
	}
	sb_putc(sb, '\n');
}

void print_elaborated(FILE *out, Session *s)
{
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	sb_puts(&sb, "# globals\n");
	for (int i = 0; i < s->globals.len; i++) {
		Global *g = s->globals.data[i];
		symbol_type(&sb, g->sym);
		if (g->max_entries)
			sb_printf(&sb, " max %lld", (long long)g->max_entries);
		if (g->wrap)
			sb_puts(&sb, " wrap");
		if (g->init) {
			sb_puts(&sb, " = ");
			print_node(&sb, g->init);
		}
		sb_putc(&sb, '\n');
	}
	sb_puts(&sb, "# functions\n");
	for (int i = 0; i < s->funcs.len; i++) {
		Function *f = s->funcs.data[i];
		sb_printf(&sb, "%s:%s (", f->name, f->has_value ? type_name(f->rtype) : "void");
		for (int j = 0; j < f->params.len; j++) {
			if (j)
				sb_puts(&sb, ", ");
			symbol_type(&sb, f->locals.data[j]);
		}
		sb_puts(&sb, ")\n");
		locals_line(&sb, &f->locals, f->params.len);
		print_stmt(&sb, f->body, 0);
	}
	sb_puts(&sb, "# probes\n");
	for (int i = 0; i < s->probes.len; i++) {
		Probe *p = s->probes.data[i];
		print_probe_point(&sb, p->points.data[0]);
		sb_printf(&sb, " /* <- %s */\n", p->derivation);
		PerfEvent ev;
		if (!strcmp(p->family->name, "perf") && !perf_point_event(p->points.data[0], &ev))
			sb_printf(&sb, "  # perf_event_attr: %s\n", perf_attr_string(&ev));
		if (p->load_optional || p->unless.len)
			sb_printf(&sb, "  # at start: %s%s", p->load_optional ? "optional" : "required",
				  p->unless.len ? "; not needed if this starts:" : "\n");
		for (int j = 0; j < p->unless.len; j++) {
			Probe *u = p->unless.data[j];
			sb_printf(&sb, " %s%s", probe_name(s, u),
				  j + 1 < p->unless.len ? "," : "\n");
		}
		locals_line(&sb, &p->locals, 0);
		print_stmt(&sb, p->body, 0);
	}
	fputs(sb.buf, out);
}
