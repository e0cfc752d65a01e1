/* translate_array.c - pass 3 for associative arrays (runtime/map.h): declarations,
 * element reads and writes, `in', delete, foreach.
 *
 * An element access computes its keys, left to right, into `union hwtap_key __k[N]'
 * (a string key points at the string; it is copied first only when something evaluated
 * after it could change it), then calls the runtime. A write that would add an element
 * to a full array records the error, its place the array's name, and leaves by `goto
 * fail' (translate.c). Writes that read the old
 * value (+=, ++, .=) compute the new one before adding the element, so an error in
 * between (a division by zero) leaves the array as it was, as in SystemTap.
 */
#include "translate.h"

#include <string.h>

enum { MAX_KEYS = 9 };   /* runtime/map.h's HWTAP_MAX_KEYS */

/* The map: a statistics array's merge (runtime/pmap.h), which foreach walks. */
char *arr_map(Symbol *sym)
{
	return xformat(sym->type == TY_STATS ? "&g_%s.agg" : "&g_%s", sym->name);
}

/* The runtime's functions for the whole array: _hwtap_pmap_* for statistics. */
static const char *arr_fn(Symbol *sym)
{
	return sym->type == TY_STATS ? "pmap" : "map";
}

static const char *value_kind(Symbol *sym)
{
	if (sym->type == TY_STRING)
		return "HWTAP_STRING";
	return sym->type == TY_STATS ? "HWTAP_STATS" : "HWTAP_LONG";
}

/* Its struct hwtap_keys: how many keys, which are strings. */
char *arr_keys_desc(Symbol *sym)
{
	unsigned strings = 0;
	for (int i = 0; i < sym->arity; i++)
		if (sym->key_types[i] == TY_STRING)
			strings |= 1u << i;
	return xformat("{ .n = %d, .strings = 0x%x }", sym->arity, strings);
}

void arr_declare(Gen *g, Global *gl)
{
	Symbol *sym = gl->sym;
	if (sym->arity > MAX_KEYS) {
		error_at(gl->tok, "array '%s' has %d keys; the most is %d", gl->name, sym->arity,
			 MAX_KEYS);
		return;
	}
	const char *max = gl->max_entries ? xformat("%lld", (long long)gl->max_entries) :
			  "MAXMAPENTRIES";
	char *map = xformat("{ .name = \"%s\", .max_entries = %s, .wrap = %s, .keys = %s, "
			    ".value = %s, .stats = %s }", gl->name, max,
			    gl->wrap ? "true" : "false", arr_keys_desc(sym), value_kind(sym),
			    sym->type == TY_STATS ? xformat("&gs_%s", gl->name) : "NULL");
	if (sym->type == TY_STATS) {
		tr_line(g, "static struct hwtap_stats gs_%s = %s;", gl->name,
			stat_struct(sym, false));
		tr_line(g, "static struct hwtap_pmap g_%s = { .agg = %s };", gl->name, map);
		sb_printf(&g->alloc, "\tif (_hwtap_pmap_alloc(&g_%s))\n\t\tgoto fail;\n",
			  gl->name);
		sb_printf(&g->release, "\t_hwtap_pmap_free(&g_%s);\n", gl->name);
		return;
	}
	tr_line(g, "static struct hwtap_map g_%s = %s;", gl->name, map);
	sb_printf(&g->alloc, "\tif (_hwtap_map_alloc(&g_%s, -1))\n\t\tgoto fail;\n", gl->name);
	sb_printf(&g->release, "\t_hwtap_map_free(&g_%s);\n", gl->name);
}

void arr_keys(Gen *g, StrBuf *pre, Vec *args, Symbol *sym, bool copy_all, unsigned *any)
{
	*any = 0;
	sb_printf(pre, "union hwtap_key __k[%d] __uninitialized; ", args->len);
	for (int i = 0; i < args->len; i++) {
		Node *k = args->data[i];
		if (k->kind == N_STAR) {
			*any |= 1u << i;
			sb_printf(pre, "__k[%d].n = 0; ", i);
			continue;
		}
		StrBuf v = {0};
		tr_expr(g, &v, k);
		if (sym->key_types[i] != TY_STRING) {
			sb_printf(pre, "__k[%d].n = (%s); ", i, v.buf);
			continue;
		}
		bool copy = copy_all;
		for (int j = i + 1; j < args->len; j++)
			copy = copy || tr_has_side_effects(args->data[j]);
		if (copy)
			sb_printf(pre, "__k[%d].s = _hwtap_assign_str(%s, %s); ", i, tr_temp(g),
				  v.buf);
		else
			sb_printf(pre, "__k[%d].s = (%s); ", i, v.buf);
	}
}

/* Declares __n, the node of __k in an ordinary array or NULL, and what adding it needs
 * (__h, __len): runtime/map.h's lookup inlined for this array's keys. */
static const char *lookup(Symbol *sym)
{
	return xformat("u32 __h, __len[%d] __uninitialized; struct hwtap_map_node *__n = "
		       "_hwtap_map_lookup(%s, (struct hwtap_keys)%s, __k, &__h, __len); ",
		       sym->arity, arr_map(sym), arr_keys_desc(sym));
}

/* A foreach loop's element, for reads of the array at the loop's own keys. */
typedef struct Cursor {
	Node *loop;             /* the N_FOREACH */
	const char *nd;         /* the C variable holding the element's node */
} Cursor;

/* The loop we are in whose element N (an array read) is: the same array, indexed by the
 * loop's own key variables in their order, which its body never changes. Then the read
 * is the element's value, with no lookup (SystemTap reads its cursor the same way). */
static Cursor *cursor_for(Gen *g, Node *n)
{
	for (int i = g->cursors.len - 1; i >= 0; i--) {
		Cursor *c = g->cursors.data[i];
		Node *loop = c->loop;
		bool same = loop->array->sym == n->sym && loop->keys.len == n->args.len;
		for (int k = 0; same && k < n->args.len; k++) {
			Node *a = n->args.data[k], *key = loop->keys.data[k];
			same = a->kind == N_VAR && a->sym == key->sym && !node_modifies(loop->body, a->sym);
		}
		if (same)
			return c;
	}
	return NULL;
}

/* The node of the foreach element that the array read n is (cursor_for()), or NULL. */
const char *arr_cursor_node(Gen *g, Node *n)
{
	Cursor *c = cursor_for(g, n);
	return c ? c->nd : NULL;
}

void arr_read(Gen *g, StrBuf *sb, Node *n)
{
	StrBuf pre = {0};
	unsigned any;
	Cursor *c = cursor_for(g, n);
	if (c) {
		if (n->sym->type == TY_STRING)
			sb_printf(sb, "((const char *)_hwtap_node_str(%s, %s))", arr_map(n->sym),
				  c->nd);
		else
			sb_printf(sb, "(*_hwtap_node_long(%s, %s))", arr_map(n->sym), c->nd);
		return;
	}
	arr_keys(g, &pre, &n->args, n->sym, false, &any);
	const char *m = arr_map(n->sym);
	if (n->sym->type == TY_STRING)
		sb_printf(sb, "({ %s%s__n ? (const char *)_hwtap_node_str(%s, __n) : \"\"; })",
			  pre.buf, lookup(n->sym), m);
	else
		sb_printf(sb, "({ %s%s__n ? *_hwtap_node_long(%s, __n) : 0; })", pre.buf,
			  lookup(n->sym), m);
}

/* After lookup(): the element x added when it was missing (a full array is an error at
 * x's name, as in SystemTap). */
static const char *add_if_missing(Symbol *sym, Node *x)
{
	return xformat("if (!__n) { __n = _hwtap_map_insert_hashed(&c->base, %s, __h, __k, "
		       "__len); if (unlikely(!__n)) %s } ", arr_map(sym), tr_fail_at(x->tok));
}

/* a[k] = v */
static void set(Gen *g, StrBuf *sb, Node *n, const char *pre, const char *v)
{
	Symbol *sym = n->lhs->sym;
	char *m = arr_map(sym);
	const char *insert = xformat("%s%s", lookup(sym), add_if_missing(sym, n->lhs));
	if (sym->type != TY_STRING) {
		sb_printf(sb, "({ %sint64_t __v = (%s); %s*_hwtap_node_long(%s, __n) = __v; __v; })",
			  pre, v, insert, m);
		return;
	}
	/* a wrapping array may give a[k] the node v is in: copy v first */
	const char *keep = n->lhs->sym->global->wrap ?
			   xformat("__v = _hwtap_assign_str(%s, __v); ", tr_temp(g)) : "";
	sb_printf(sb, "({ %sconst char *__v = (%s); %s%s_hwtap_assign_str(_hwtap_node_str(%s, "
		  "__n), __v); })", pre, v, keep, insert, m);
}

void arr_assign(Gen *g, StrBuf *sb, Node *n)
{
	Symbol *sym = n->lhs->sym;
	StrBuf pre = {0}, v = {0};
	unsigned any;
	arr_keys(g, &pre, &n->lhs->args, sym, tr_has_side_effects(n->rhs), &any);
	tr_expr(g, &v, n->rhs);
	if (!strcmp(n->op, "=")) {
		set(g, sb, n, pre.buf, v.buf);
		return;
	}
	char *m = arr_map(sym);
	const char *find = lookup(sym);
	if (sym->type == TY_STRING) {    /* .= */
		sb_printf(sb, "({ %sconst char *__r = (%s); %sconst char *__x = _hwtap_concat(%s, "
			  "__n ? _hwtap_node_str(%s, __n) : \"\", __r); %s_hwtap_assign_str("
			  "_hwtap_node_str(%s, __n), __x); })", pre.buf, v.buf, find, tr_temp(g), m,
			  add_if_missing(sym, n->lhs), m);
		return;
	}
	char *op = xstrndup(n->op, strlen(n->op) - 1);
	sb_printf(sb, "({ %sint64_t __rhs = (%s); %sint64_t __old = __n ? *_hwtap_node_long(%s, __n) "
		  ": 0; int64_t __x = %s; %s*_hwtap_node_long(%s, __n) = __x; __x; })", pre.buf,
		  v.buf, find, m, tr_binary_op(op, "__old", "__rhs", n->rhs->tok),
		  add_if_missing(sym, n->lhs), m);
}

/* a[k]++, --a[k] ... */
void arr_incdec(Gen *g, StrBuf *sb, Node *n)
{
	Symbol *sym = n->lhs->sym;
	StrBuf pre = {0};
	unsigned any;
	arr_keys(g, &pre, &n->lhs->args, sym, false, &any);
	char *m = arr_map(sym);
	sb_printf(sb, "({ %s%sint64_t __o = __n ? *_hwtap_node_long(%s, __n) : 0; int64_t __x = "
		  "(int64_t)((uint64_t)__o %c 1); %s*_hwtap_node_long(%s, __n) = __x; %s; })",
		  pre.buf, lookup(sym), m, n->op[0], add_if_missing(sym, n->lhs), m,
		  n->kind == N_PREINC ? "__x" : "__o");
}

/* [k1, k2] in a; [k1, *] in a */
void arr_in(Gen *g, StrBuf *sb, Node *n)
{
	if (n->rhs->kind != N_VAR) {
		tr_unsupported(n->rhs, "a slice on the right of 'in'");
		return;
	}
	StrBuf pre = {0};
	unsigned any;
	Symbol *sym = n->rhs->sym;
	arr_keys(g, &pre, &n->args, sym, false, &any);
	if (any)
		sb_printf(sb, "({ %s(int64_t)_hwtap_%s_exists_slice(&g_%s, __k, 0x%x); })", pre.buf,
			  arr_fn(sym), sym->name, any);
	else if (sym->type == TY_STATS)
		sb_printf(sb, "({ %s(int64_t)_hwtap_pmap_exists(&g_%s, __k); })", pre.buf,
			  sym->name);
	else
		sb_printf(sb, "({ %s%s(int64_t)(__n != NULL); })", pre.buf, lookup(sym));
}

/* delete a; delete a[k]; delete a[*, k] */
void arr_delete(Gen *g, Node *n)
{
	Node *x = n->lhs;
	const char *fn = arr_fn(x->sym), *name = x->sym->name;
	if (x->kind == N_VAR) {
		tr_line(g, "_hwtap_%s_clear(&g_%s);", fn, name);
		return;
	}
	StrBuf pre = {0};
	unsigned any;
	arr_keys(g, &pre, &x->args, x->sym, false, &any);
	if (any)
		tr_line(g, "{ %s_hwtap_%s_delete_slice(&g_%s, __k, 0x%x); }", pre.buf, fn, name,
			any);
	else
		tr_line(g, "{ %s_hwtap_%s_delete(&g_%s, __k); }", pre.buf, fn, name);
}

/* ---- foreach ------------------------------------------------------------------------- */

static const char *sort_agg(Node *n)
{
	static const char *const ops[][2] = {
		{"@count", "HWTAP_OP_COUNT"}, {"@sum", "HWTAP_OP_SUM"}, {"@min", "HWTAP_OP_MIN"},
		{"@max", "HWTAP_OP_MAX"}, {"@avg", "HWTAP_OP_AVG"}, {"@variance", "HWTAP_OP_VARIANCE"},
	};
	for (size_t i = 0; n->op && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(n->op, ops[i][0]))
			return ops[i][1];
	return "HWTAP_OP_COUNT";       /* SystemTap's default for statistics */
}

/* The foreach statement's state: its snapshot, allocated with the globals. */
static char *foreach_site(Gen *g, Node *n)
{
	char *site = xformat("foreach_%d", g->nsites++);
	sb_printf(g->sites, "static struct hwtap_foreach %s = { .map = %s, .sort_key = %d, "
		  ".sort_dir = %d, .sort_agg = %s };\n", site, arr_map(n->array->sym), n->sort_key,
		  n->sort_dir, sort_agg(n));
	sb_printf(&g->alloc, "\tif (_hwtap_foreach_alloc(&%s))\n\t\tgoto fail;\n", site);
	sb_printf(&g->release, "\t_hwtap_foreach_free(&%s);\n", site);
	vec_push(&g->frame_ends, xformat("_hwtap_foreach_end(&c->base, &%s);", site));
	return site;
}

/* Key `key' of node nd (the value when key is -1) into variable v. */
static void bind(Gen *g, Node *v, Symbol *sym, const char *nd, int key)
{
	bool str = key >= 0 ? sym->key_types[key] == TY_STRING : sym->type == TY_STRING;
	const char *kind = str ? "str" : "long";
	char *m = arr_map(sym);
	char *src = key >= 0 ? xformat("_hwtap_node_key_%s(%s, %s, %d)", kind, m, nd, key) :
		    xformat("_hwtap_node_%s(%s, %s)", kind, m, nd);
	if (str)
		tr_line(g, "strscpy(%s, %s, MAXSTRINGLEN);", tr_var_ref(v->sym), src);
	else
		tr_line(g, "%s = *%s;", tr_var_ref(v->sym), src);
}

static void bind_element(Gen *g, Node *n, const char *nd)
{
	for (int i = 0; i < n->keys.len; i++)
		bind(g, n->keys.data[i], n->array->sym, nd, i);
	if (n->value)
		bind(g, n->value, n->array->sym, nd, -1);
}

/* foreach ([a, b] in arr[*, "x"]): the other elements are skipped (after `limit' counted
 * them, as in SystemTap). */
static void slice_filter(Gen *g, Node *n, const char *nd)
{
	if (n->array->kind != N_INDEX)
		return;
	Symbol *sym = n->array->sym;
	char *m = arr_map(sym);
	for (int i = 0; i < n->array->args.len; i++) {
		Node *k = n->array->args.data[i];
		if (k->kind == N_STAR)
			continue;
		StrBuf v = {0};
		tr_expr(g, &v, k);
		if (sym->key_types[i] == TY_STRING)
			tr_line(g, "if (strncmp(_hwtap_node_key_str(%s, %s, %d), (%s), MAXSTRINGLEN "
				"- 1))", m, nd, i, v.buf);
		else
			tr_line(g, "if (*_hwtap_node_key_long(%s, %s, %d) != (%s))", m, nd, i, v.buf);
		tr_line(g, "\tcontinue;");
	}
}

/* Inside the loop, for element nd: MAXACTION, the limit, the variables, the slice, the
 * body. */
static void loop_body(Gen *g, Node *n, const char *nd, int id)
{
	bool slice = n->array->kind == N_INDEX;
	if (slice)              /* (charged before its filter, as the round may stop there) */
		tr_action(g, tr_round_place(n));
	if (n->limit)
		tr_line(g, "if (__cnt%d++ >= __lim%d) break;", id, id);
	bind_element(g, n, nd);
	slice_filter(g, n, nd);
	Cursor cursor = { .loop = n, .nd = nd };
	vec_push(&g->cursors, &cursor);
	if (slice)
		tr_stmt(g, n->body);
	else
		tr_loop_round(g, n);
	g->cursors.len--;
}

static void loop_limit(Gen *g, Node *n, int id)
{
	if (!n->limit)
		return;
	StrBuf lim = {0};
	tr_expr(g, &lim, n->limit);
	tr_line(g, "int64_t __lim%d = (%s), __cnt%d = 0;", id, lim.buf, id);
}

/* Sorted: over the foreach's own snapshot, sorted when it starts. */
static void foreach_sorted(Gen *g, Node *n)
{
	int id = g->nsites;
	char *site = foreach_site(g, n);
	char *nd = xformat("__n%d", id), *i = xformat("__i%d", id);
	tr_line(g, "{");
	g->indent++;
	loop_limit(g, n, id);
	tr_line(g, "if (unlikely(!_hwtap_foreach_start(&c->base, &%s)))", site);
	tr_line(g, "\t%s", tr_fail_at(n->tok));
	tr_line(g, "for (u32 %s = 0; %s < %s.n; %s++) {", i, i, site, i);
	g->indent++;
	tr_line(g, "struct hwtap_map_node *%s = %s.items[%s].node;", nd, site, i);
	loop_body(g, n, nd, id);
	g->indent--;
	tr_line(g, "}");
	tr_line(g, "_hwtap_foreach_end(&c->base, &%s);", site);
	g->indent--;
	tr_line(g, "}");
}

/* Unsorted: along the live list itself, which nothing can change meanwhile (pass 2 sees
 * to that); a flag in the frame says the walk is on, for an early exit by goto out. */
static void foreach_walk(Gen *g, Node *n)
{
	int id = g->nsites++;
	char *m = arr_map(n->array->sym), *nd = xformat("__n%d", id);
	char *flag = xformat("l->__walk%d", id);
	sb_printf(g->decl, "\tu8 __walk%d;\n", id);
	vec_push(&g->frame_inits, xformat("%s = 0;", flag));
	vec_push(&g->frame_ends, xformat("_hwtap_walk_end(%s, &%s);", m, flag));
	tr_line(g, "{");
	g->indent++;
	loop_limit(g, n, id);
	tr_line(g, "struct hwtap_map_node *%s;", nd);
	tr_line(g, "_hwtap_walk_start(%s, &%s);", m, flag);
	tr_line(g, "list_for_each_entry(%s, &(%s)->live, list) {", nd, m);
	g->indent++;
	loop_body(g, n, nd, id);
	g->indent--;
	tr_line(g, "}");
	tr_line(g, "_hwtap_walk_end(%s, &%s);", m, flag);
	g->indent--;
	tr_line(g, "}");
}

void arr_foreach(Gen *g, Node *n)
{
	Symbol *sym = n->array->sym;
	if (sym->type == TY_STATS) {    /* the loop walks the CPUs' merge */
		tr_line(g, "if (unlikely(!_hwtap_pmap_merge(&c->base, &g_%s)))", sym->name);
		tr_line(g, "\t%s", tr_fail_at(n->tok));
	}
	if (n->sort_key)
		foreach_sorted(g, n);
	else
		foreach_walk(g, n);
}
