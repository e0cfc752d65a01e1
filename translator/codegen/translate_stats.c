/* translate_stats.c - pass 3 for statistics (runtime/stat.h) and histograms
 * (runtime/hist.h): declarations, `<<<', the extractors, printing and indexing
 * histograms, foreach over a histogram's buckets.
 *
 * A global scalar is g_NAME, a struct hwtap_stats with a record per CPU; an array is
 * g_NAME, a struct hwtap_pmap (runtime/pmap.h), its configuration gs_NAME. Reads work
 * on the merged record (const struct hwtap_stat *, NULL for an element no CPU has: it
 * reads as empty). Both have a lock per CPU (lang.h's hwtap_cpu_lock_t): `<<<' takes
 * none on a scalar and its CPU's part on an array, other uses all of them
 * (translate_locks.c). Each statistic has at most
 * one histogram kind and one @variance bit shift (checked in pass 2, kept in its Symbol).
 */
#include "translate.h"

#include <string.h>

/* A foreach over a histogram's buckets that we are inside of: @hist_log(s)[b] with its
 * bucket variable reads the loop's copy, as SystemTap does. */
struct HistLoop {
	char *stat;            /* the statistic's source text: "s", "a[k]" */
	Symbol *bucket;
	char *site;
	int buckets;
};

static int buckets_of(Node *h)
{
	if (!strcmp(h->op, "@hist_log"))
		return 128;                /* runtime/stat.h's HWTAP_HIST_LOG_BUCKETS */
	int64_t lo = (int64_t)((Node *)h->args.data[0])->num;
	int64_t hi = (int64_t)((Node *)h->args.data[1])->num;
	int64_t step = (int64_t)((Node *)h->args.data[2])->num;
	return (int)((hi - lo) / step + 3);
}

/* Its struct hwtap_stat_shape: the histogram, the @variance bit shift, what else the
 * script reads of it (check.c). */
static char *stat_shape(Symbol *sym)
{
	Node *h = sym->hist;
	const char *type = !h ? "HWTAP_HIST_NONE" : !strcmp(h->op, "@hist_log") ?
			   "HWTAP_HIST_LOG" : "HWTAP_HIST_LINEAR";
	long long v[3] = {0, 0, 0};
	for (int i = 0; h && i < h->args.len && i < 3; i++)
		v[i] = (long long)((Node *)h->args.data[i])->num;
	return xformat("{ .hist_type = %s, .start = %lldLL, .stop = %lldLL, .interval = %lldLL, "
		       ".shift = %d, .variance = %s, .sum = %s, .min = %s, .max = %s }", type, v[0],
		       v[1], v[2], sym->bit_shift, sym->variance ? "true" : "false",
		       sym->stat_sum ? "true" : "false", sym->stat_min ? "true" : "false",
		       sym->stat_max ? "true" : "false");
}

char *stat_struct(Symbol *sym, bool per_cpu)
{
	return xformat("{ .name = \"%s\", .shape = %s, .per_cpu = %s }", sym->name,
		       stat_shape(sym), per_cpu ? "true" : "false");
}

/* A statistics global's lock, a part per CPU. */
void stat_lock_declare(Gen *g, Global *gl)
{
	tr_line(g, "static hwtap_cpu_lock_t glock_%s;", gl->name);
	sb_printf(&g->alloc, "\tif (_hwtap_cpu_lock_alloc(&glock_%s))\n\t\tgoto fail;\n",
		  gl->name);
	sb_printf(&g->release, "\t_hwtap_cpu_lock_free(&glock_%s);\n", gl->name);
}

void stat_declare(Gen *g, Global *gl)
{
	tr_line(g, "static struct hwtap_stats g_%s = %s;", gl->name, stat_struct(gl->sym, true));
	sb_printf(&g->alloc, "\tif (_hwtap_stats_alloc(&g_%s))\n\t\tgoto fail;\n", gl->name);
	sb_printf(&g->release, "\t_hwtap_stats_free(&g_%s);\n", gl->name);
}

/* The statistics of x, and its merged record (hist: with the histogram); an element's
 * keys go to pre. Inside a foreach over the array, at the loop's own keys, the record is
 * the loop's element of the merge it walks (merged with its histogram), as in SystemTap:
 * no second merge. */
static void stat_ref(Gen *g, StrBuf *pre, Node *x, bool hist, char **st, char **sd)
{
	const char *with = hist ? "true" : "false";
	sb_putn(pre, "", 0);
	if (x->kind == N_VAR) {
		*st = xformat("&g_%s", x->sym->name);
		*sd = xformat("_hwtap_stat_merge(&c->base, &g_%s, %s)", x->sym->name, with);
		return;
	}
	const char *nd = arr_cursor_node(g, x);
	if (nd) {
		*st = xformat("&gs_%s", x->sym->name);
		*sd = xformat("((const struct hwtap_stat *)_hwtap_node_stat(&g_%s.agg, %s))",
			      x->sym->name, nd);
		return;
	}
	unsigned any;
	arr_keys(g, pre, &x->args, x->sym, false, &any);
	*st = xformat("&gs_%s", x->sym->name);
	*sd = xformat("_hwtap_pmap_stat(&g_%s, __k, %s)", x->sym->name, with);
}

/* s <<< v; a[k] <<< v */
void stat_add(Gen *g, StrBuf *sb, Node *n)
{
	Node *x = n->lhs;
	StrBuf v = {0};
	if (x->kind == N_VAR) {
		tr_expr(g, &v, n->rhs);
		sb_printf(sb, "({ int64_t __v = (%s); _hwtap_stats_add((struct hwtap_stat_shape)%s, "
			  "&g_%s, __v); __v; })", v.buf, stat_shape(x->sym), x->sym->name);
		return;
	}
	StrBuf pre = {0};
	unsigned any;
	arr_keys(g, &pre, &x->args, x->sym, tr_has_side_effects(n->rhs), &any);
	tr_expr(g, &v, n->rhs);
	sb_printf(sb, "({ %sint64_t __v = (%s); if (unlikely(!_hwtap_pmap_add(&c->base, &g_%s, "
		  "(struct hwtap_keys)%s, (struct hwtap_stat_shape)%s, __k, __v))) %s __v; })",
		  pre.buf, v.buf, x->sym->name, arr_keys_desc(x->sym), stat_shape(x->sym),
		  tr_fail_at(x->tok));
}

static const char *op_code(const char *op)
{
	static const char *const ops[][2] = {
		{"@count", "HWTAP_OP_COUNT"}, {"@sum", "HWTAP_OP_SUM"}, {"@min", "HWTAP_OP_MIN"},
		{"@max", "HWTAP_OP_MAX"}, {"@avg", "HWTAP_OP_AVG"},
		{"@variance", "HWTAP_OP_VARIANCE"},
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i][0]))
			return ops[i][1];
	unreachable();
}

/* @count(s) ...; @min, @max, @avg and @variance of nothing are errors */
void stat_op(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf pre = {0};
	char *st, *sd;
	stat_ref(g, &pre, n->lhs, false, &st, &sd);
	/* a scalar's merge can give up and skip the handler */
	bool can_fail = (strcmp(n->op, "@count") && strcmp(n->op, "@sum")) ||
			n->lhs->kind == N_VAR;
	sb_printf(sb, "({ %sint64_t __x = _hwtap_stat_op(&c->base, %s, %s); %s__x; })",
		  pre.buf, sd, op_code(n->op), can_fail ?
		  xformat("if (unlikely(c->base.last_error)) %s ", tr_fail_at(n->tok)) : "");
}

/* delete s */
void stat_delete(Gen *g, Node *n)
{
	tr_line(g, "_hwtap_stats_clear(&g_%s);", n->lhs->sym->name);
}

/* print(@hist_log(s)), sprint(...) at call; println and sprintln add no newline to a
 * chart (it ends with a blank line), as in SystemTap. An empty one is an error at call. */
void stat_hist_print(Gen *g, StrBuf *sb, Node *hist, bool to_string, Token *call)
{
	StrBuf pre = {0};
	char *st, *sd;
	stat_ref(g, &pre, hist->lhs, true, &st, &sd);
	char *check = xformat("if (unlikely(c->base.last_error)) %s ", tr_fail_at(call));
	if (!to_string) {
		sb_printf(sb, "({ %s_hwtap_hist_print(&c->base, NULL, %s, %s); %s0; })", pre.buf,
			  st, sd, check);
		return;
	}
	char *t = tr_temp(g);
	sb_printf(sb, "({ %s_hwtap_hist_print(&c->base, %s, %s, %s); %s%s; })", pre.buf, t, st,
		  sd, check, t);
}

static struct HistLoop *enclosing_loop(Gen *g, Node *n)
{
	if (n->rhs->kind != N_VAR || tr_has_side_effects(n->lhs->lhs))
		return NULL;
	StrBuf src = {0};
	print_node(&src, n->lhs->lhs);
	for (int i = g->hist_loops.len - 1; i >= 0; i--) {
		struct HistLoop *h = g->hist_loops.data[i];
		if (h->bucket == n->rhs->sym && !strcmp(h->stat, src.buf))
			return h;
	}
	return NULL;
}

/* @hist_log(s)[i]; its errors are at @hist_log, as in SystemTap */
void stat_hist_index(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf pre = {0}, b = {0};
	tr_expr(g, &b, n->rhs);
	char *fail = tr_fail_at(n->lhs->tok);
	struct HistLoop *loop = enclosing_loop(g, n);
	if (loop) {
		sb_printf(sb, "({ int64_t __b = (%s); if (unlikely(__b < 0 || __b >= %d)) { "
			  "_hwtap_error(&c->base, \"histogram index out of range\"); %s } "
			  "%s.hist[__b]; })", b.buf, loop->buckets, fail, loop->site);
		return;
	}
	char *st, *sd;
	stat_ref(g, &pre, n->lhs->lhs, true, &st, &sd);
	sb_printf(sb, "({ %sint64_t __b = (%s); int64_t __x = _hwtap_hist_bucket(&c->base, %s, "
		  "%s, __b); if (unlikely(c->base.last_error)) %s __x; })", pre.buf, b.buf, st, sd,
		  fail);
}

static struct HistLoop *hist_site(Gen *g, Node *n)
{
	struct HistLoop *h = xalloc(sizeof(*h));
	StrBuf src = {0};
	print_node(&src, n->array->lhs);
	h->stat = src.buf;
	h->bucket = ((Node *)n->keys.data[0])->sym;
	h->site = xformat("hist_foreach_%d", g->nsites++);
	h->buckets = buckets_of(n->array);
	sb_printf(g->sites, "static int64_t %s_buckets[%d];\n", h->site, h->buckets);
	sb_printf(g->sites, "static struct hwtap_hist_foreach %s = { .hist = %s_buckets, "
		  ".owner = HWTAP_FOREACH_FREE };\n", h->site, h->site);
	vec_push(&g->frame_ends, xformat("_hwtap_hist_foreach_end(&c->base, &%s);", h->site));
	return h;
}

/* The loop's copy of the buckets, taken as it starts. */
static void hist_loop_start(Gen *g, Node *n, struct HistLoop *h)
{
	StrBuf pre = {0};
	char *st, *sd;
	stat_ref(g, &pre, n->array->lhs, true, &st, &sd);
	tr_line(g, "%sif (unlikely(!_hwtap_hist_foreach_start(&c->base, &%s, %s, %s)))", pre.buf,
		h->site, st, sd);
	tr_line(g, "\t%s", tr_fail_at(n->tok));
}

/* foreach (b in @hist_log(s) limit N): every bucket, empty or not, from 0 up */
void stat_hist_foreach(Gen *g, Node *n)
{
	if (n->sort_key) {
		tr_unsupported(n, "sorting a histogram's buckets");
		return;
	}
	struct HistLoop *h = hist_site(g, n);
	char *b = tr_var_ref(h->bucket);
	tr_line(g, "{");
	g->indent++;
	if (n->limit) {
		StrBuf lim = {0};
		tr_expr(g, &lim, n->limit);
		tr_line(g, "int64_t __lim = (%s), __cnt = 0;", lim.buf);
	}
	hist_loop_start(g, n, h);
	tr_line(g, "for (%s = 0; %s < %d; %s++) {", b, b, h->buckets, b);
	g->indent++;
	if (n->limit)
		tr_line(g, "if (__cnt++ >= __lim) break;");
	vec_push(&g->hist_loops, h);
	tr_loop_round(g, n);
	g->hist_loops.len--;
	g->indent--;
	tr_line(g, "}");
	tr_line(g, "_hwtap_hist_foreach_end(&c->base, &%s);", h->site);
	g->indent--;
	tr_line(g, "}");
}
