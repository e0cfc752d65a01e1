/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map.h - global associative arrays: keys of 1 to HWTAP_MAX_KEYS numbers or strings, a
 * number, string or statistics value (a record with its histogram: stat.h).
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
 * changes the map, shared for lookups. A statistics array is a map per CPU (pmap.h),
 * each changed by its own CPU's handlers only, under that CPU's part of the lock.
 *
 * An unsorted foreach walks the live list; a sorted one copies the node pointers into its
 * own preallocated array (struct hwtap_foreach, one per foreach statement) and sorts them
 * there. Pass 2 rejects scripts that change an array inside a foreach over it, as
 * SystemTap does, so neither sees the array change under it; nodes stay valid until the
 * session ends anyway.
 */
#ifndef HWTAP_MAP_H
#define HWTAP_MAP_H

#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/stringhash.h>

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

/* An array's keys: how many, which are strings. The add path of statistics arrays takes
 * them by value from the generated code, as constants, and compiles to code for those
 * keys alone. */
struct hwtap_keys {
	u8 n;
	u16 strings;			/* bit i set: key i is a string */
};

struct hwtap_map_node {
	struct hlist_node hash;		/* in its bucket of the map's table, or the free list */
	struct list_head list;		/* in the live list, oldest first */
	u64 data[];			/* the keys, then the value, at the map's offsets */
};

struct hwtap_map {
	/* set by the generated code */
	const char *name;
	u32 max_entries;
	bool wrap;			/* global a%: the oldest node makes room */
	struct hwtap_keys keys;
	u8 value;			/* enum hwtap_kind */
	struct hwtap_stats *stats;	/* value HWTAP_STATS: what its records are */
	/* set by _hwtap_map_alloc() */
	u32 node_size, value_off;
	int cpu;			/* a statistics array's map of that CPU, or -1 */
	u32 count, table_mask;
	u32 walkers;			/* unsorted foreach loops walking the live list */
	u32 sorting;			/* sorted foreach loops holding its nodes */
	struct hlist_head *table;
	struct list_head live;
	struct hlist_head free;		/* a stack: hlist operations are not list_head's
					 * CONFIG_DEBUG_LIST checks, which were a fifth
					 * of an insert */
	void *nodes;
};

static __always_inline bool _hwtap_key_is_str(struct hwtap_keys ks, int i)
{
	return ks.strings & (1u << i);
}

/* Where key i is in a node: a number takes 8 bytes, a string MAXSTRINGLEN rounded up.
 * (A loop rather than hweight16(), which GCC does not fold for keys that become constants
 * only after inlining, and which is a call without the popcnt instruction.) */
static __always_inline u32 _hwtap_key_off(struct hwtap_keys ks, int i)
{
	u32 off = 0;
	int j;

	for (j = 0; j < i; j++)
		off += _hwtap_key_is_str(ks, j) ? ALIGN(MAXSTRINGLEN, 8) : 8;
	return off;
}

static inline struct hwtap_map_node *_hwtap_map_node_at(const struct hwtap_map *m, u32 i)
{
	return (struct hwtap_map_node *)((char *)m->nodes + (size_t)i * m->node_size);
}

/* (Always inline: a foreach reads keys in its loop, and an outlined call cost more than
 * the rest of a round.) */
static __always_inline int64_t *_hwtap_node_key_long(const struct hwtap_map *m,
						     struct hwtap_map_node *n, int i)
{
	return (int64_t *)((char *)n->data + _hwtap_key_off(m->keys, i));
}

static __always_inline char *_hwtap_node_key_str(const struct hwtap_map *m,
						 struct hwtap_map_node *n, int i)
{
	return (char *)n->data + _hwtap_key_off(m->keys, i);
}

static inline int64_t *_hwtap_node_long(const struct hwtap_map *m, struct hwtap_map_node *n)
{
	return (int64_t *)((char *)n->data + m->value_off);
}

static inline char *_hwtap_node_str(const struct hwtap_map *m, struct hwtap_map_node *n)
{
	return (char *)n->data + m->value_off;
}

static inline struct hwtap_stat *_hwtap_node_stat(const struct hwtap_map *m,
						  struct hwtap_map_node *n)
{
	return (struct hwtap_stat *)((char *)n->data + m->value_off);
}

/* The value's offset in a node, after the keys, and a node's size. */
static void _hwtap_map_layout(struct hwtap_map *m)
{
	u32 off = _hwtap_key_off(m->keys, m->keys.n);

	m->value_off = off;
	if (m->value == HWTAP_LONG)
		off += 8;
	else if (m->value == HWTAP_STRING)
		off += ALIGN(MAXSTRINGLEN, 8);
	else
		off += ALIGN(_hwtap_stats_size(m->stats), 8);
	m->node_size = sizeof(struct hwtap_map_node) + off;
}

static void _hwtap_map_free(struct hwtap_map *m)
{
	kvfree(m->table);
	kvfree(m->nodes);
	m->table = NULL;
	m->nodes = NULL;
}

/* Process context, when the session starts: 0 or -ENOMEM. cpu is -1, or the CPU whose
 * map of a statistics array this is (its memory then on the CPU's node). */
static int _hwtap_map_alloc(struct hwtap_map *m, int cpu)
{
	u32 buckets = roundup_pow_of_two(max_t(u32, m->max_entries, 1));
	int node = cpu < 0 ? NUMA_NO_NODE : _hwtap_cpu_node(cpu);
	u32 i;

	m->cpu = cpu;
	_hwtap_map_layout(m);
	/* The script sizes it (global a[N]): one too large for memory, or beyond the INT_MAX
	 * bytes kvmalloc takes, fails the start with -ENOMEM, not with the allocator's
	 * warning (a WARN_ON_ONCE past INT_MAX, a panic under panic_on_warn). */
	m->table = kvmalloc_node(array_size(buckets, sizeof(*m->table)),
				 GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, node);
	m->nodes = kvmalloc_node(array_size(m->max_entries, m->node_size),
				 GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, node);
	if (!m->table || !m->nodes) {
		size_t bytes = array_size(m->max_entries, m->node_size);

		_hwtap_script_error("array '%s': no memory for its %u entries (%zu bytes%s)",
				    m->name, m->max_entries, bytes, bytes > INT_MAX ?
				    ", more than the 2 GiB kvmalloc allocates" : "");
		_hwtap_map_free(m);
		return -ENOMEM;
	}
	m->table_mask = buckets - 1;
	m->count = 0;
	INIT_LIST_HEAD(&m->live);
	INIT_HLIST_HEAD(&m->free);
	for (i = m->max_entries; i-- > 0; )
		hlist_add_head(&_hwtap_map_node_at(m, i)->hash, &m->free);
	return 0;
}

/* Strings compare and hash as SystemTap stores them: at most MAXSTRINGLEN - 1 bytes. A
 * string key hashes with the dcache's string hash (hashlen_string(): its length and hash
 * in one pass, a word at a time), numbers by multiplication with the golden ratio
 * (linux/hash.h), whose high bits mix all of the number's. The hash of a lookup leaves
 * each string key's length in len[] for the compares and the copy of an insert. */
static __always_inline u32 _hwtap_str_hash(const char *s, u32 h, u32 *len)
{
	u64 hl = hashlen_string((const void *)(unsigned long)h, s);

	*len = hashlen_len(hl);
	if (unlikely(*len > MAXSTRINGLEN - 1)) {
		*len = MAXSTRINGLEN - 1;
		return full_name_hash((const void *)(unsigned long)h, s, *len);
	}
	return hashlen_hash(hl);
}

static __always_inline u32 _hwtap_keys_hash(struct hwtap_keys ks, const union hwtap_key *k,
					    u32 *len)
{
	u32 h = 0;
	int i;

	for (i = 0; i < ks.n; i++) {
		if (_hwtap_key_is_str(ks, i))
			h = _hwtap_str_hash(k[i].s, h, &len[i]);
		else
			h = (u32)((((u64)k[i].n ^ h) * GOLDEN_RATIO_64) >> 32);
	}
	return h;
}

/* The bucket of k: maps with as many entries hash alike. */
static __always_inline u32 _hwtap_map_hash(const struct hwtap_map *m,
					   const union hwtap_key *k, u32 *len)
{
	return _hwtap_keys_hash(m->keys, k, len) & m->table_mask;
}

/* Key i of node n is k, a string of length len (from the hash). */
static __always_inline bool _hwtap_key_eq(struct hwtap_keys ks, struct hwtap_map_node *n,
					  int i, const union hwtap_key *k, u32 len)
{
	char *at = (char *)n->data + _hwtap_key_off(ks, i);

	if (_hwtap_key_is_str(ks, i))
		return !memcmp(at, k->s, len) && at[len] == '\0';
	return *(int64_t *)at == k->n;
}

static __always_inline bool _hwtap_keys_eq(struct hwtap_keys ks, struct hwtap_map_node *n,
					   const union hwtap_key *k, const u32 *len)
{
	int i;

	for (i = 0; i < ks.n; i++)
		if (!_hwtap_key_eq(ks, n, i, &k[i], len[i]))
			return false;
	return true;
}

/* k in bucket h of a map whose keys are ks, len[] from the hash. Inlined where ks is a
 * constant (the generated code's lookups), it compiles to code for those keys alone. */
static __always_inline struct hwtap_map_node *
_hwtap_map_find_keys(const struct hwtap_map *m, struct hwtap_keys ks, u32 h,
		     const union hwtap_key *k, const u32 *len)
{
	struct hwtap_map_node *n;

	hlist_for_each_entry(n, &m->table[h], hash)
		if (_hwtap_keys_eq(ks, n, k, len))
			return n;
	return NULL;
}

static __always_inline struct hwtap_map_node *
_hwtap_map_find_hashed(const struct hwtap_map *m, u32 h, const union hwtap_key *k,
		       const u32 *len)
{
	return _hwtap_map_find_keys(m, m->keys, h, k, len);
}

static struct hwtap_map_node *_hwtap_map_find(const struct hwtap_map *m,
					      const union hwtap_key *k)
{
	u32 len[HWTAP_MAX_KEYS] __uninitialized;

	return _hwtap_map_find_hashed(m, _hwtap_map_hash(m, k, len), k, len);
}

/* A lookup by the generated code, whose ks is the map's keys as a constant: the node of
 * k, or NULL; *h and len[] are then ready for _hwtap_map_insert_hashed(). */
static __always_inline struct hwtap_map_node *
_hwtap_map_lookup(const struct hwtap_map *m, struct hwtap_keys ks, const union hwtap_key *k,
		  u32 *h, u32 *len)
{
	*h = _hwtap_keys_hash(ks, k, len) & m->table_mask;
	return _hwtap_map_find_keys(m, ks, *h, k, len);
}

static void _hwtap_map_remove(struct hwtap_map *m, struct hwtap_map_node *n)
{
	hlist_del(&n->hash);
	list_del(&n->list);
	hlist_add_head(&n->hash, &m->free);
	m->count--;
}

static void _hwtap_map_full(struct hwtap_context_base *b, const struct hwtap_map *m)
{
	if (m->cpu < 0)
		_hwtap_errorf(b, "array '%s' is full (MAXMAPENTRIES %u)", m->name,
			      m->max_entries);
	else
		_hwtap_errorf(b, "array '%s' is full on CPU %d (MAXMAPENTRIES %u: statistics "
			      "arrays hold that many keys per CPU)", m->name, m->cpu,
			      m->max_entries);
}

/* A node for keys that are not in the map, hashing to h with string lengths len[]
 * (computed before k may lose a string of the node reused), its value 0, "" or an empty
 * statistic: from the free list, or the oldest node of a wrapping map. NULL, with the
 * error recorded, when it is full. (Never inlined: the first add of a key is the rare
 * path, and inlined it took registers from the lookups: 8 more instructions a hit.) */
static noinline struct hwtap_map_node *
_hwtap_map_insert_hashed(struct hwtap_context_base *b, struct hwtap_map *m, u32 h,
			 const union hwtap_key *k, const u32 *len)
{
	struct hwtap_map_node *n;
	int i;

	if (likely(!hlist_empty(&m->free))) {
		n = hlist_entry(m->free.first, struct hwtap_map_node, hash);
		hlist_del(&n->hash);
		list_add_tail(&n->list, &m->live);
		m->count++;
	} else if (m->wrap && !list_empty(&m->live)) {
		n = list_first_entry(&m->live, struct hwtap_map_node, list);
		hlist_del(&n->hash);
		list_move_tail(&n->list, &m->live);
	} else {
		_hwtap_map_full(b, m);
		return NULL;
	}
	for (i = 0; i < m->keys.n; i++) {
		if (_hwtap_key_is_str(m->keys, i)) {
			char *at = _hwtap_node_key_str(m, n, i);

			memcpy(at, k[i].s, len[i]);
			at[len[i]] = '\0';
		} else {
			*_hwtap_node_key_long(m, n, i) = k[i].n;
		}
	}
	if (m->value == HWTAP_LONG)
		*_hwtap_node_long(m, n) = 0;
	else if (m->value == HWTAP_STRING)
		_hwtap_node_str(m, n)[0] = '\0';
	else
		memset(_hwtap_node_stat(m, n), 0, m->stats->size);
	hlist_add_head(&n->hash, &m->table[h]);
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

	for (i = 0; i < m->keys.n; i++) {
		if (any & (1u << i))
			continue;
		if (_hwtap_key_is_str(m->keys, i) ?
		    strncmp(_hwtap_node_key_str(m, n, i), k[i].s, MAXSTRINGLEN - 1) :
		    *_hwtap_node_key_long(m, n, i) != k[i].n)
			return false;
	}
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
	fe->items = kvcalloc(fe->map->max_entries, sizeof(*fe->items), GFP_KERNEL | __GFP_NOWARN);
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
		return _hwtap_key_is_str(m->keys, fe->sort_key - 1);
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

	if (k >= 0 && _hwtap_key_is_str(m->keys, k))
		it->key.s = _hwtap_node_key_str(m, it->node, k);
	else if (k >= 0)
		it->key.n = *_hwtap_node_key_long(m, it->node, k);
	else if (m->value == HWTAP_STRING)
		it->key.s = _hwtap_node_str(m, it->node);
	else if (m->value == HWTAP_LONG)
		it->key.n = *_hwtap_node_long(m, it->node);
	else	/* a statistics array's merge (pmap.h) */
		it->key.n = _hwtap_stat_extract(_hwtap_node_stat(m, it->node), fe->sort_agg);
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
	fe->map->sorting++;
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
	if (fe->owner != b->nesting)
		return;
	fe->owner = HWTAP_FOREACH_FREE;
	fe->map->sorting--;
}

#endif /* HWTAP_MAP_H */
