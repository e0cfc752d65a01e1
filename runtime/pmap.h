/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmap.h - statistics arrays: a map (map.h) per possible CPU, merged when read, as
 * SystemTap keeps them.
 *
 * `sa[k] <<< v' finds or adds k in its own CPU's map and adds v to the record there,
 * under its CPU's part of the array's lock (lang.h): handlers on different CPUs add at
 * once, and the add writes nothing another CPU writes. Each CPU's map holds max_entries
 * keys (MAXMAPENTRIES unless the script sized the array), as each of SystemTap's per-CPU
 * maps does: a key that does not fit is the error "array 'sa' is full on CPU N" at the
 * add, or replaces that CPU's oldest key when the array wraps (global sa%).
 *
 * Everything else holds every CPU's part of the lock, so no CPU adds meanwhile:
 * @count(sa[k]) and the other extractors merge k's records, CPU by CPU in order
 * (stat.h's _hwtap_stat_merge_pair(), SystemTap's order); `in' asks every CPU; delete
 * deletes on every CPU. foreach walks agg, a map of max_entries merged records filled
 * when the loop starts: each CPU's keys in the order that CPU added them, CPU 0 first.
 * More keys than that on all CPUs together is the error "aggregation overflow"
 * (SystemTap's too), unless the array wraps: then the merge drops its oldest keys. Pass 2
 * rejects changes to an array inside a foreach over it, so a foreach nested in another
 * over the same array reuses the merge the outer one made.
 */
#ifndef HWTAP_PMAP_H
#define HWTAP_PMAP_H

#include "map.h"

struct hwtap_pmap {
	struct hwtap_map agg;		/* set by the generated code as its CPUs' maps are */
	struct hwtap_map * __percpu *cpu;	/* each possible CPU's map */
};

static inline struct hwtap_map *_hwtap_pmap_cpu(const struct hwtap_pmap *pm, int cpu)
{
	return *per_cpu_ptr(pm->cpu, cpu);
}

static void _hwtap_pmap_free(struct hwtap_pmap *pm)
{
	int cpu;

	if (pm->cpu) {
		for_each_possible_cpu(cpu) {
			struct hwtap_map *m = _hwtap_pmap_cpu(pm, cpu);

			if (m)
				_hwtap_map_free(m);
			kfree(m);
		}
	}
	free_percpu(pm->cpu);
	pm->cpu = NULL;
	_hwtap_map_free(&pm->agg);
	_hwtap_stats_free(pm->agg.stats);
}

/* Process context, when the session starts: 0 or -ENOMEM. */
static int _hwtap_pmap_alloc(struct hwtap_pmap *pm)
{
	int cpu;

	pm->cpu = alloc_percpu(struct hwtap_map *);
	if (!pm->cpu || _hwtap_stats_alloc(pm->agg.stats) ||
	    _hwtap_map_alloc(&pm->agg, -1))
		goto fail;
	for_each_possible_cpu(cpu) {
		struct hwtap_map *m = kmalloc_node(sizeof(*m), GFP_KERNEL, _hwtap_cpu_node(cpu));

		if (!m)
			goto fail;
		*m = pm->agg;
		m->table = NULL;
		m->nodes = NULL;
		*per_cpu_ptr(pm->cpu, cpu) = m;
		if (_hwtap_map_alloc(m, cpu))
			goto fail;
	}
	return 0;
fail:
	_hwtap_pmap_free(pm);
	return -ENOMEM;
}

/* sa[k] <<< v, on a CPU the handler cannot leave, holding its part of the lock; ks and
 * sh are the array's keys and its statistics' shape (pm->agg.keys, pm->agg.stats->shape)
 * as constants: false, with the error recorded, when k is new and this CPU's map is
 * full. */
static __always_inline bool _hwtap_pmap_add(struct hwtap_context_base *b,
					    const struct hwtap_pmap *pm, struct hwtap_keys ks,
					    struct hwtap_stat_shape sh, const union hwtap_key *k,
					    int64_t v)
{
	struct hwtap_map *m = this_cpu_read(*pm->cpu);
	u32 h, len[HWTAP_MAX_KEYS] __uninitialized;
	struct hwtap_map_node *n = _hwtap_map_lookup(m, ks, k, &h, len);

	if (unlikely(!n)) {
		n = _hwtap_map_insert_hashed(b, m, h, k, len);
		if (unlikely(!n))
			return false;
	}
	_hwtap_stat_add(sh, _hwtap_node_stat(m, n), v);
	return true;
}

/* sa[k] merged over the CPUs (hist: with its histogram), or NULL when no CPU has k. */
static const struct hwtap_stat *_hwtap_pmap_stat(const struct hwtap_pmap *pm,
						 const union hwtap_key *k, bool hist)
{
	const struct hwtap_stats *st = pm->agg.stats;
	u32 len[HWTAP_MAX_KEYS] __uninitialized, h = _hwtap_map_hash(&pm->agg, k, len);
	struct hwtap_stat *agg = NULL;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct hwtap_map *m = _hwtap_pmap_cpu(pm, cpu);
		struct hwtap_map_node *n = _hwtap_map_find_hashed(m, h, k, len);

		if (!n)
			continue;
		if (!agg)
			agg = _hwtap_stat_merge_start(st, hist);
		_hwtap_stat_merge_pair(st, agg, _hwtap_node_stat(m, n), hist);
	}
	return agg;
}

/* [k] in sa */
static bool _hwtap_pmap_exists(const struct hwtap_pmap *pm, const union hwtap_key *k)
{
	u32 len[HWTAP_MAX_KEYS] __uninitialized, h = _hwtap_map_hash(&pm->agg, k, len);
	int cpu;

	for_each_possible_cpu(cpu)
		if (_hwtap_map_find_hashed(_hwtap_pmap_cpu(pm, cpu), h, k, len))
			return true;
	return false;
}

/* [k, *] in sa */
static bool _hwtap_pmap_exists_slice(const struct hwtap_pmap *pm, const union hwtap_key *k,
				     u16 any)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (_hwtap_map_exists_slice(_hwtap_pmap_cpu(pm, cpu), k, any))
			return true;
	return false;
}

/* delete sa[k] */
static void _hwtap_pmap_delete(struct hwtap_pmap *pm, const union hwtap_key *k)
{
	int cpu;

	for_each_possible_cpu(cpu)
		_hwtap_map_delete(_hwtap_pmap_cpu(pm, cpu), k);
}

/* delete sa[k, *] */
static void _hwtap_pmap_delete_slice(struct hwtap_pmap *pm, const union hwtap_key *k,
				     u16 any)
{
	int cpu;

	for_each_possible_cpu(cpu)
		_hwtap_map_delete_slice(_hwtap_pmap_cpu(pm, cpu), k, any);
}

/* delete sa */
static void _hwtap_pmap_clear(struct hwtap_pmap *pm)
{
	int cpu;

	for_each_possible_cpu(cpu)
		_hwtap_map_clear(_hwtap_pmap_cpu(pm, cpu));
}

/* One CPU's record of node n into agg. False, with the error recorded, when agg is full. */
static bool _hwtap_pmap_merge_node(struct hwtap_context_base *b, struct hwtap_pmap *pm,
				   const struct hwtap_map *m, struct hwtap_map_node *n)
{
	struct hwtap_map *agg = &pm->agg;
	union hwtap_key k[HWTAP_MAX_KEYS];
	struct hwtap_map_node *a;
	u32 h, len[HWTAP_MAX_KEYS] __uninitialized;
	int i;

	for (i = 0; i < m->keys.n; i++) {
		if (_hwtap_key_is_str(m->keys, i))
			k[i].s = _hwtap_node_key_str(m, n, i);
		else
			k[i].n = *_hwtap_node_key_long(m, n, i);
	}
	h = _hwtap_map_hash(agg, k, len);
	a = _hwtap_map_find_hashed(agg, h, k, len);
	if (!a && agg->count == agg->max_entries && !agg->wrap) {
		_hwtap_errorf(b, "aggregation overflow in array '%s': more than %u keys on all "
			      "CPUs together (MAXMAPENTRIES)", agg->name, agg->max_entries);
		return false;
	}
	if (!a)
		a = _hwtap_map_insert_hashed(b, agg, h, k, len);
	_hwtap_stat_merge_pair(agg->stats, _hwtap_node_stat(agg, a), _hwtap_node_stat(m, n),
			       true);
	return true;
}

/* Before a foreach over sa: every CPU's records merged into agg, unless a foreach over
 * sa that is still running did it. False, with the error recorded, when they do not fit. */
static bool _hwtap_pmap_merge(struct hwtap_context_base *b, struct hwtap_pmap *pm)
{
	struct hwtap_map_node *n;
	int cpu;

	if (pm->agg.walkers || pm->agg.sorting)
		return true;
	_hwtap_map_clear(&pm->agg);
	for_each_possible_cpu(cpu)
		list_for_each_entry(n, &_hwtap_pmap_cpu(pm, cpu)->live, list)
			if (!_hwtap_pmap_merge_node(b, pm, _hwtap_pmap_cpu(pm, cpu), n))
				return false;
	return true;
}

#endif /* HWTAP_PMAP_H */
