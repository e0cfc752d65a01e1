/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map.h - global associative arrays: keys of 1 to HWTAP_MAX_KEYS numbers or strings, a
 * number, string or statistics value.
 *
 * Every node is allocated when the session starts (_hwtap_map_alloc(), process context):
 * max_entries of them, MAXMAPENTRIES unless the script sized the array. Probe handlers
 * only move nodes between the free list and the live list and the hash table, so nothing
 * on the probe path allocates or sleeps. The live list keeps insertion order, oldest
 * first, as SystemTap's maps do: unsorted foreach follows it, and a wrapping array
 * (global a%) replaces its first node when it is full. A sorted foreach leaves the live
 * list in the order it sorted, as SystemTap's in-place sort does.
 *
 * Locking: a handler holds the array's lock (lang.h) while it runs: exclusive for what
 * changes the map, shared for lookups, and shared for `sa[k] <<< v' on a statistics array
 * that does not wrap, so that handlers on every CPU add to it at once (each into its own
 * CPU's slot). Such an add may insert a key: _hwtap_map_insert_shared() does that under
 * the map's insert_lock and publishes the node with hlist_add_head_rcu(), so concurrent
 * lookups see it whole or not at all. Nodes leave the table only under the exclusive
 * lock, when no lookup runs; so a node is never reused under a reader.
 *
 * An unsorted foreach walks the live list; a sorted one copies the node pointers into its
 * own preallocated array (struct hwtap_foreach, one per foreach statement) and sorts them
 * there. Pass 2 rejects scripts that change an array inside a foreach over it, as
 * SystemTap does, so neither sees the array change under it; nodes stay valid until the
 * session ends anyway.
 */
#ifndef HWTAP_MAP_H
#define HWTAP_MAP_H

#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "stat.h"

#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif
#define HWTAP_MAX_KEYS 9

enum hwtap_kind { HWTAP_LONG, HWTAP_STRING, HWTAP_STATS };

/* One key of a lookup, as the generated code computed it. */
union hwtap_key {
	int64_t n;
	const char *s;
};

struct hwtap_map_node {
	struct hlist_node hash;		/* in its bucket of the map's table */
	struct list_head list;		/* in the live list, oldest first, or the free list */
	u32 index;			/* its place in nodes: a statistics array's slot */
	u64 data[];			/* the keys, then the value, at the map's offsets */
};

struct hwtap_map {
	/* set by the generated code */
	const char *name;
	u32 max_entries;
	bool wrap;			/* global a%: the oldest node makes room */
	u8 nkeys;
	u16 string_keys;		/* bit i set: key i is a string */
	u8 value;			/* enum hwtap_kind */
	struct hwtap_stats *stats;	/* value HWTAP_STATS: one slot per node */
	/* set by _hwtap_map_alloc() */
	u32 node_size, value_off, key_off[HWTAP_MAX_KEYS];
	u32 count, table_mask;
	u32 walkers;			/* unsorted foreach loops walking the live list */
	arch_spinlock_t insert_lock;	/* inserts under the shared lock */
	struct hlist_head *table;
	struct list_head live, free;
	void *nodes;
};

static inline bool _hwtap_key_is_str(const struct hwtap_map *m, int i)
{
	return m->string_keys & (1u << i);
}

static inline struct hwtap_map_node *_hwtap_map_node_at(const struct hwtap_map *m, u32 i)
{
	return (struct hwtap_map_node *)((char *)m->nodes + (size_t)i * m->node_size);
}

static inline int64_t *_hwtap_node_key_long(const struct hwtap_map *m,
					    struct hwtap_map_node *n, int i)
{
	return (int64_t *)((char *)n->data + m->key_off[i]);
}

static inline char *_hwtap_node_key_str(const struct hwtap_map *m, struct hwtap_map_node *n,
					int i)
{
	return (char *)n->data + m->key_off[i];
}

static inline int64_t *_hwtap_node_long(const struct hwtap_map *m, struct hwtap_map_node *n)
{
	return (int64_t *)((char *)n->data + m->value_off);
}

static inline char *_hwtap_node_str(const struct hwtap_map *m, struct hwtap_map_node *n)
{
	return (char *)n->data + m->value_off;
}

/* Offsets of the keys and the value in a node; strings take MAXSTRINGLEN bytes. */
static void _hwtap_map_layout(struct hwtap_map *m)
{
	u32 off = 0;
	int i;

	for (i = 0; i < m->nkeys; i++) {
		m->key_off[i] = off;
		off += _hwtap_key_is_str(m, i) ? ALIGN(MAXSTRINGLEN, 8) : 8;
	}
	m->value_off = off;
	if (m->value == HWTAP_LONG)
		off += 8;
	else if (m->value == HWTAP_STRING)
		off += ALIGN(MAXSTRINGLEN, 8);
	m->node_size = sizeof(struct hwtap_map_node) + off;
}

static void _hwtap_map_free(struct hwtap_map *m)
{
	kvfree(m->table);
	kvfree(m->nodes);
	m->table = NULL;
	m->nodes = NULL;
	_hwtap_stats_free(m->stats);
}

/* Process context, when the session starts: 0 or -ENOMEM. */
static int _hwtap_map_alloc(struct hwtap_map *m)
{
	u32 buckets = roundup_pow_of_two(max_t(u32, m->max_entries, 1));
	u32 i;

	_hwtap_map_layout(m);
	m->table = kvcalloc(buckets, sizeof(*m->table), GFP_KERNEL);
	m->nodes = kvcalloc(m->max_entries, m->node_size, GFP_KERNEL);
	if (!m->table || !m->nodes || (m->stats && _hwtap_stats_alloc(m->stats))) {
		_hwtap_map_free(m);
		return -ENOMEM;
	}
	m->table_mask = buckets - 1;
	m->count = 0;
	m->insert_lock = (arch_spinlock_t)__ARCH_SPIN_LOCK_UNLOCKED;
	INIT_LIST_HEAD(&m->live);
	INIT_LIST_HEAD(&m->free);
	for (i = 0; i < m->max_entries; i++) {
		struct hwtap_map_node *n = _hwtap_map_node_at(m, i);

		n->index = i;
		list_add_tail(&n->list, &m->free);
	}
	return 0;
}

/* Strings compare and hash as SystemTap stores them: at most MAXSTRINGLEN - 1 bytes. */
static __always_inline u32 _hwtap_map_hash(const struct hwtap_map *m,
					   const union hwtap_key *k)
{
	u32 h = 0;
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (_hwtap_key_is_str(m, i))
			h = jhash(k[i].s, strnlen(k[i].s, MAXSTRINGLEN - 1), h);
		else
			h = jhash_2words((u32)k[i].n, (u32)((u64)k[i].n >> 32), h);
	}
	return h & m->table_mask;
}

static __always_inline bool _hwtap_key_eq(const struct hwtap_map *m,
					  struct hwtap_map_node *n, int i,
					  const union hwtap_key *k)
{
	if (_hwtap_key_is_str(m, i))
		return !strncmp(_hwtap_node_key_str(m, n, i), k->s, MAXSTRINGLEN - 1);
	return *_hwtap_node_key_long(m, n, i) == k->n;
}

static __always_inline bool _hwtap_keys_eq(const struct hwtap_map *m,
					   struct hwtap_map_node *n,
					   const union hwtap_key *k)
{
	int i;

	for (i = 0; i < m->nkeys; i++)
		if (!_hwtap_key_eq(m, n, i, &k[i]))
			return false;
	return true;
}

static struct hwtap_map_node *_hwtap_map_find(const struct hwtap_map *m,
					      const union hwtap_key *k)
{
	struct hwtap_map_node *n;

	hlist_for_each_entry(n, &m->table[_hwtap_map_hash(m, k)], hash)
		if (_hwtap_keys_eq(m, n, k))
			return n;
	return NULL;
}

static int64_t _hwtap_map_get_long(const struct hwtap_map *m, const union hwtap_key *k)
{
	struct hwtap_map_node *n = _hwtap_map_find(m, k);

	return n ? *_hwtap_node_long(m, n) : 0;
}

static const char *_hwtap_map_get_str(const struct hwtap_map *m, const union hwtap_key *k)
{
	struct hwtap_map_node *n = _hwtap_map_find(m, k);

	return n ? _hwtap_node_str(m, n) : "";
}

static bool _hwtap_map_exists(const struct hwtap_map *m, const union hwtap_key *k)
{
	return _hwtap_map_find(m, k) != NULL;
}

static void _hwtap_map_unlink(struct hwtap_map *m, struct hwtap_map_node *n)
{
	hlist_del_init(&n->hash);
	if (m->stats)
		_hwtap_stats_clear(m->stats, n->index);
}

static void _hwtap_map_remove(struct hwtap_map *m, struct hwtap_map_node *n)
{
	_hwtap_map_unlink(m, n);
	list_move(&n->list, &m->free);
	m->count--;
}

/* A node for keys that are not in the map, its value 0 or "": from the free list, or
 * the oldest node of a wrapping map. NULL, with the error recorded, when it is full. */
static struct hwtap_map_node *_hwtap_map_insert_new(struct hwtap_context_base *b,
						    struct hwtap_map *m,
						    const union hwtap_key *k)
{
	u32 h = _hwtap_map_hash(m, k);	/* before k may lose a string of the node reused */
	struct hwtap_map_node *n;
	int i;

	if (!list_empty(&m->free)) {
		n = list_first_entry(&m->free, struct hwtap_map_node, list);
		m->count++;
	} else if (m->wrap && !list_empty(&m->live)) {
		n = list_first_entry(&m->live, struct hwtap_map_node, list);
		_hwtap_map_unlink(m, n);
	} else {
		_hwtap_errorf(b, "array '%s' is full (MAXMAPENTRIES %u)", m->name,
			      m->max_entries);
		return NULL;
	}
	for (i = 0; i < m->nkeys; i++) {
		if (_hwtap_key_is_str(m, i))
			strscpy(_hwtap_node_key_str(m, n, i), k[i].s, MAXSTRINGLEN);
		else
			*_hwtap_node_key_long(m, n, i) = k[i].n;
	}
	if (m->value == HWTAP_LONG)
		*_hwtap_node_long(m, n) = 0;
	else if (m->value == HWTAP_STRING)
		_hwtap_node_str(m, n)[0] = '\0';
	list_move_tail(&n->list, &m->live);
	hlist_add_head(&n->hash, &m->table[h]);
	return n;
}

static struct hwtap_map_node *_hwtap_map_insert(struct hwtap_context_base *b,
						struct hwtap_map *m, const union hwtap_key *k)
{
	struct hwtap_map_node *n = _hwtap_map_find(m, k);

	return n ? n : _hwtap_map_insert_new(b, m, k);
}

/* A lookup that other CPUs' inserts may meet: they publish nodes with release order. */
static struct hwtap_map_node *_hwtap_map_find_shared(const struct hwtap_map *m,
						     const union hwtap_key *k)
{
	struct hwtap_map_node *n;

	hlist_for_each_entry_rcu(n, &m->table[_hwtap_map_hash(m, k)], hash, true)
		if (_hwtap_keys_eq(m, n, k))
			return n;
	return NULL;
}

/* _hwtap_map_insert() for a handler that holds the map's lock shared (a statistics array
 * that does not wrap). NULL when the map is full (an error recorded) or when the insert
 * lock stayed busy (the hit counted as skipped). */
static struct hwtap_map_node *_hwtap_map_insert_shared(struct hwtap_context_base *b,
						       struct hwtap_map *m,
						       const union hwtap_key *k)
{
	struct hwtap_map_node *n = _hwtap_map_find_shared(m, k);
	u32 h;
	int i;

	if (likely(n))
		return n;
	if (!_hwtap_retry(arch_spin_trylock(&m->insert_lock))) {
		_hwtap_skip_counted();
		return NULL;
	}
	/* another CPU may have inserted it meanwhile */
	n = _hwtap_map_find_shared(m, k);
	if (n)
		goto out;
	if (list_empty(&m->free)) {
		_hwtap_errorf(b, "array '%s' is full (MAXMAPENTRIES %u)", m->name,
			      m->max_entries);
		goto out;
	}
	n = list_first_entry(&m->free, struct hwtap_map_node, list);
	for (i = 0; i < m->nkeys; i++) {
		if (_hwtap_key_is_str(m, i))
			strscpy(_hwtap_node_key_str(m, n, i), k[i].s, MAXSTRINGLEN);
		else
			*_hwtap_node_key_long(m, n, i) = k[i].n;
	}
	m->count++;
	list_move_tail(&n->list, &m->live);
	h = _hwtap_map_hash(m, k);
	/* the keys above are visible before the node is */
	hlist_add_head_rcu(&n->hash, &m->table[h]);
out:
	arch_spin_unlock(&m->insert_lock);
	return n;
}

static void _hwtap_map_delete(struct hwtap_map *m, const union hwtap_key *k)
{
	struct hwtap_map_node *n = _hwtap_map_find(m, k);

	if (n)
		_hwtap_map_remove(m, n);
}

static void _hwtap_map_clear(struct hwtap_map *m)
{
	struct hwtap_map_node *n, *next;

	list_for_each_entry_safe(n, next, &m->live, list)
		_hwtap_map_remove(m, n);
}

/* Slices: bit i of any set means key i is '*' and matches everything. */
static bool _hwtap_slice_match(const struct hwtap_map *m, struct hwtap_map_node *n,
			       const union hwtap_key *k, u16 any)
{
	int i;

	for (i = 0; i < m->nkeys; i++)
		if (!(any & (1u << i)) && !_hwtap_key_eq(m, n, i, &k[i]))
			return false;
	return true;
}

static bool _hwtap_map_exists_slice(const struct hwtap_map *m, const union hwtap_key *k,
				    u16 any)
{
	struct hwtap_map_node *n;

	list_for_each_entry(n, &m->live, list)
		if (_hwtap_slice_match(m, n, k, any))
			return true;
	return false;
}

static void _hwtap_map_delete_slice(struct hwtap_map *m, const union hwtap_key *k, u16 any)
{
	struct hwtap_map_node *n, *next;

	list_for_each_entry_safe(n, next, &m->live, list)
		if (_hwtap_slice_match(m, n, k, any))
			_hwtap_map_remove(m, n);
}

/* ---- foreach ------------------------------------------------------------------------ */

/* An unsorted foreach walks the live list itself. *walking is in the frame running it, so
 * a goto out past the end of the loop still ends the walk, exactly once. */
static inline void _hwtap_walk_start(struct hwtap_map *m, u8 *walking)
{
	m->walkers++;
	*walking = 1;
}

static inline void _hwtap_walk_end(struct hwtap_map *m, u8 *walking)
{
	if (*walking)
		m->walkers--;
	*walking = 0;
}

#define HWTAP_FOREACH_FREE INT_MIN

struct hwtap_sort_item {
	struct hwtap_map_node *node;
	union {
		int64_t n;
		const char *s;
	} key;				/* what it sorts by */
	u32 pos;			/* its place in the live list: ties keep that order */
};

/* One foreach statement over an array. */
struct hwtap_foreach {
	/* set by the generated code */
	struct hwtap_map *map;
	int sort_key;			/* 0 none, -1 the value, k > 0 key k */
	int sort_dir;			/* +1 ascending, -1 descending */
	u8 sort_agg;			/* statistics sorted by value: enum hwtap_stat_op */
	/* set at allocation and by _hwtap_foreach_start() */
	struct hwtap_sort_item *items;	/* max_entries of them */
	u32 n;
	int owner;			/* nesting level of the frame iterating, or FREE */
};

static int _hwtap_foreach_alloc(struct hwtap_foreach *fe)
{
	fe->items = kvcalloc(fe->map->max_entries, sizeof(*fe->items), GFP_KERNEL);
	fe->owner = HWTAP_FOREACH_FREE;
	return fe->items ? 0 : -ENOMEM;
}

static void _hwtap_foreach_free(struct hwtap_foreach *fe)
{
	kvfree(fe->items);
	fe->items = NULL;
}

static bool _hwtap_sort_is_str(const struct hwtap_foreach *fe)
{
	const struct hwtap_map *m = fe->map;

	if (fe->sort_key > 0)
		return _hwtap_key_is_str(m, fe->sort_key - 1);
	return m->value == HWTAP_STRING;
}

static int _hwtap_sort_cmp(const void *a, const void *b, const void *priv)
{
	const struct hwtap_sort_item *x = a, *y = b;
	const struct hwtap_foreach *fe = priv;
	int c;

	if (_hwtap_sort_is_str(fe))
		c = strcmp(x->key.s, y->key.s);
	else
		c = x->key.n < y->key.n ? -1 : x->key.n > y->key.n;
	if (c)
		return fe->sort_dir > 0 ? c : -c;
	return x->pos < y->pos ? -1 : 1;
}

static void _hwtap_sort_key(struct hwtap_foreach *fe, struct hwtap_sort_item *it)
{
	struct hwtap_map *m = fe->map;
	int k = fe->sort_key - 1;

	if (k >= 0 && _hwtap_key_is_str(m, k))
		it->key.s = _hwtap_node_key_str(m, it->node, k);
	else if (k >= 0)
		it->key.n = *_hwtap_node_key_long(m, it->node, k);
	else if (m->value == HWTAP_STRING)
		it->key.s = _hwtap_node_str(m, it->node);
	else if (m->value == HWTAP_LONG)
		it->key.n = *_hwtap_node_long(m, it->node);
	else
		it->key.n = _hwtap_stat_sort_value(m->stats, it->node->index, fe->sort_agg);
}

/* Sorts the snapshot. An ordinary array's live list then follows the sorted order, as
 * after SystemTap's in-place sort, unless an unsorted foreach is walking it. */
static void _hwtap_foreach_sort(struct hwtap_foreach *fe)
{
	u32 i;

	for (i = 0; i < fe->n; i++)
		_hwtap_sort_key(fe, &fe->items[i]);
	sort_r(fe->items, fe->n, sizeof(*fe->items), _hwtap_sort_cmp, NULL, fe);
	if (fe->map->value == HWTAP_STATS || fe->map->walkers)
		return;
	for (i = 0; i < fe->n; i++)
		list_move_tail(&fe->items[i].node->list, &fe->map->live);
}

/* Takes the foreach's snapshot; false, with the error recorded, when this foreach is
 * already iterating (a function recursing into it). */
static bool _hwtap_foreach_start(struct hwtap_context_base *b, struct hwtap_foreach *fe)
{
	struct hwtap_map_node *n;
	u32 i = 0;

	if (unlikely(fe->owner != HWTAP_FOREACH_FREE)) {
		_hwtap_errorf(b, "foreach over array '%s' entered again while it runs",
			      fe->map->name);
		return false;
	}
	fe->owner = b->nesting;
	list_for_each_entry(n, &fe->map->live, list) {
		fe->items[i].node = n;
		fe->items[i].pos = i;
		i++;
	}
	fe->n = i;
	if (fe->sort_key)
		_hwtap_foreach_sort(fe);
	return true;
}

/* At the end of the loop, and when the frame that started it leaves by goto out. */
static inline void _hwtap_foreach_end(struct hwtap_context_base *b, struct hwtap_foreach *fe)
{
	if (fe->owner == b->nesting)
		fe->owner = HWTAP_FOREACH_FREE;
}

#endif /* HWTAP_MAP_H */
