/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stat.h - statistics: `s <<< v' on global scalars and statistics array elements, the
 * extractors @count @sum @min @max @avg @variance, @hist_log and @hist_linear.
 *
 * Values accumulate per CPU, each CPU's in records of its own (struct hwtap_stat and its
 * histogram buckets): a global scalar has one record per possible CPU here; a statistics
 * array keeps its records in the nodes of its per-CPU maps (pmap.h).
 *
 * `s <<< v' on a scalar takes no lock (as in SystemTap): only its CPU writes its record,
 * and one handler at a time runs on a CPU (lang.h's _hwtap_enter()). The record's seq is
 * odd while an add is under way, so a read on another CPU copies each record until it
 * gets one that no add changed meanwhile; `delete s' only moves the scalar's generation
 * on, and a record of an older generation reads as empty and is reset by its CPU's next
 * add. Reads and deletes of a scalar, and everything on an array (its CPU's part for an
 * add, pmap.h), go under the variable's lock (lang.h): a read merges the CPUs into the
 * agg record, one per variable.
 *
 * An add keeps only what the script reads (struct hwtap_stat_shape): the count always,
 * the sum, minimum, maximum and variance when an extractor or a sort reads them, and the
 * histogram when it prints one, as SystemTap does.
 *
 * The arithmetic is SystemTap's (its runtime/stat-common.c, stat.c and map.c), integer
 * only, so that results agree to the last digit: Welford's running variance per CPU,
 * scaled by the bit shift of @variance(s, N), with its 32-bit `delta'; CPUs merged with
 * the total-variance formula, all at once for a scalar and pairwise in CPU order for an
 * array element (SystemTap merges its per-CPU maps that way).
 */
#ifndef HWTAP_STAT_H
#define HWTAP_STAT_H

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/numa.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/processor.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "lang.h"		/* MAXTRYLOCK */

enum hwtap_hist_type { HWTAP_HIST_NONE, HWTAP_HIST_LOG, HWTAP_HIST_LINEAR };
enum hwtap_stat_op {
	HWTAP_OP_COUNT, HWTAP_OP_SUM, HWTAP_OP_MIN, HWTAP_OP_MAX, HWTAP_OP_AVG,
	HWTAP_OP_VARIANCE
};

#define HWTAP_HIST_LOG_BUCKETS	128
#define HWTAP_HIST_LOG_BUCKET0	64
#define HWTAP_HIST_WIDTH	50	/* the longest bar, in '@' */
#define HWTAP_HIST_ELISION	2	/* empty rows kept around data before a "~" */

struct hwtap_stat {
	seqcount_t seq;			/* a scalar's: odd while its CPU adds */
	u32 gen;			/* a scalar's: the `delete s' it belongs after */
	int64_t count, sum, min, max;
	int64_t avg_s, m2, variance_s;	/* scaled by 2^shift (variance_s by 4^shift) */
	int64_t variance;		/* merged only */
	int64_t hist[];
};

/* What a statistic keeps besides its count. The script fixes it, so the generated code
 * passes it to the add path by value, as a constant, and each add compiles to what its
 * statistic needs alone. */
struct hwtap_stat_shape {
	u8 hist_type;			/* enum hwtap_hist_type */
	int64_t start, stop, interval;	/* @hist_linear(s, start, stop, interval) */
	int shift;			/* @variance(s, shift) */
	bool variance;			/* the script reads @variance: track it (and the sum) */
	bool sum, min, max;		/* the script reads @sum or @avg, @min, @max */
};

/* A CPU's share of a scalar's variance, as a read copied it (the merge needs each CPU's
 * after the mean of all). */
struct hwtap_stat_part {
	int64_t count, avg_s, variance_s;
};

struct hwtap_stats {
	/* set by the generated code */
	const char *name;
	struct hwtap_stat_shape shape;
	bool per_cpu;			/* a scalar: its records are here */
	/* set by _hwtap_stats_alloc() */
	int buckets;
	size_t size;			/* of a record with its buckets */
	struct hwtap_stat * __percpu *cpu;	/* a scalar's record on each possible CPU */
	struct hwtap_stat *agg;		/* what a read merged */
	struct hwtap_stat *copy;	/* a scalar's: a read's copy of a CPU's record */
	struct hwtap_stat_part *parts;	/* a scalar's with @variance: per possible CPU */
	u32 gen;			/* a scalar's: how many `delete s' there were */
};

/* Where a CPU's records go: its memory node, when it is online to say. */
static int _hwtap_cpu_node(int cpu)
{
	return cpu_online(cpu) ? cpu_to_node(cpu) : NUMA_NO_NODE;
}

static __always_inline int _hwtap_shape_buckets(struct hwtap_stat_shape sh)
{
	if (sh.hist_type == HWTAP_HIST_LOG)
		return HWTAP_HIST_LOG_BUCKETS;
	if (sh.hist_type == HWTAP_HIST_LINEAR)	/* with underflow and overflow */
		return div64_s64(sh.stop - sh.start, sh.interval) + 3;
	return 0;
}

/* The size of a record: an array's map nodes hold one each. */
static size_t _hwtap_stats_size(struct hwtap_stats *st)
{
	st->buckets = _hwtap_shape_buckets(st->shape);
	st->size = sizeof(struct hwtap_stat) + st->buckets * sizeof(int64_t);
	return st->size;
}

static void _hwtap_stats_free(struct hwtap_stats *st)
{
	int cpu;

	if (st->cpu)
		for_each_possible_cpu(cpu)
			kvfree(*per_cpu_ptr(st->cpu, cpu));
	free_percpu(st->cpu);
	kvfree(st->agg);
	kvfree(st->copy);
	kvfree(st->parts);
	st->cpu = NULL;
	st->agg = NULL;
	st->copy = NULL;
	st->parts = NULL;
}

/* Process context, when the session starts: 0 or -ENOMEM. */
static int _hwtap_stats_alloc(struct hwtap_stats *st)
{
	int cpu;

	_hwtap_stats_size(st);
	st->agg = kvzalloc(st->size, GFP_KERNEL);
	if (!st->agg)
		goto fail;
	if (!st->per_cpu)
		return 0;
	st->gen = 0;
	st->copy = kvzalloc(st->size, GFP_KERNEL);
	if (!st->copy)
		goto fail;
	if (st->shape.variance) {
		st->parts = kvcalloc(nr_cpu_ids, sizeof(*st->parts), GFP_KERNEL);
		if (!st->parts)
			goto fail;
	}
	st->cpu = alloc_percpu(struct hwtap_stat *);
	if (!st->cpu)
		goto fail;
	for_each_possible_cpu(cpu) {
		struct hwtap_stat *sd = kvzalloc_node(st->size, GFP_KERNEL, _hwtap_cpu_node(cpu));

		if (!sd)
			goto fail;
		*per_cpu_ptr(st->cpu, cpu) = sd;
	}
	return 0;
fail:
	_hwtap_stats_free(st);
	return -ENOMEM;
}

static inline struct hwtap_stat *_hwtap_stat_cpu(const struct hwtap_stats *st, int cpu)
{
	return *per_cpu_ptr(st->cpu, cpu);
}

/* A scalar's record on this CPU, which the caller cannot leave. */
static __always_inline struct hwtap_stat *_hwtap_stat_this_cpu(const struct hwtap_stats *st)
{
	return this_cpu_read(*st->cpu);
}

/* SystemTap's _stp_div64: x / 0 is 0, x / -1 cannot trap. */
static inline int64_t _hwtap_div64(int64_t x, int64_t y)
{
	if (unlikely(y == 0))
		return 0;
	if (unlikely(y == -1))
		return (int64_t)(0 - (u64)x);
	return div64_s64(x, y);
}

static inline int64_t _hwtap_shl(int64_t v, int shift)
{
	return (int64_t)((u64)v << shift);
}

/* The log2 bucket of a value: 64 for 0, 64 + bits for positive, 64 - bits for negative.
 * (__fls(), as v is not 0: fls64() would set up its answer for 0 first. An unsigned
 * long, the index's width: no sign extension when it is used.) */
static inline unsigned long _hwtap_log_bucket(int64_t v)
{
	if (v == 0)
		return HWTAP_HIST_LOG_BUCKET0;
	if (v > 0)
		return HWTAP_HIST_LOG_BUCKET0 + 1 + __fls(v);
	return HWTAP_HIST_LOG_BUCKETS - (HWTAP_HIST_LOG_BUCKET0 + 1 + __fls(0 - (u64)v));
}

static __always_inline int _hwtap_linear_bucket(struct hwtap_stat_shape sh, int64_t v)
{
	int last = _hwtap_shape_buckets(sh) - 1;
	u64 b;

	v -= sh.start;
	if (v < 0)
		return 0;				/* underflow */
	b = div64_u64((u64)v, sh.interval) + 1;
	return b >= last ? last : b;		/* overflow */
}

static __always_inline void _hwtap_stat_hist_add(struct hwtap_stat_shape sh,
						 struct hwtap_stat *sd, int64_t v)
{
	if (sh.hist_type == HWTAP_HIST_LOG)
		sd->hist[_hwtap_log_bucket(v)]++;
	else if (sh.hist_type == HWTAP_HIST_LINEAR)
		sd->hist[_hwtap_linear_bucket(sh, v)]++;
}

/* Welford's update, as SystemTap's __stp_stat_add, delta cut to int as there. */
static inline void _hwtap_stat_variance_add(int shift, struct hwtap_stat *sd, int64_t v)
{
	int delta = _hwtap_shl(v, shift) - sd->avg_s;

	sd->avg_s += _hwtap_div64(delta, sd->count);
	sd->m2 += delta * (_hwtap_shl(v, shift) - sd->avg_s);
	sd->variance_s = _hwtap_div64(sd->m2, sd->count - 1);
}

#ifdef HWTAP_TEST_STAT_STALL_US
/* -D HWTAP_TEST_STAT_STALL_US=N, for tests: CPU 1 stops N microseconds in the middle of
 * each add to a statistic (its count taken, its sum not yet), as a vCPU that its host
 * preempts there does. */
#define _hwtap_test_stat_stall()					\
	do {								\
		if (raw_smp_processor_id() == 1)			\
			udelay(HWTAP_TEST_STAT_STALL_US);		\
	} while (0)
#else
#define _hwtap_test_stat_stall() do { } while (0)
#endif

/* s <<< v into record sd of a statistic of shape sh (a constant from the generated code),
 * which nothing else writes meanwhile. */
static __always_inline void _hwtap_stat_add(struct hwtap_stat_shape sh,
					    struct hwtap_stat *sd, int64_t v)
{
	if (!sh.sum && !sh.min && !sh.max && !sh.variance)
		sd->count++;			/* and the histogram alone */
	else if (sd->count++ == 0) {
		sd->sum = sd->min = sd->max = v;
		sd->avg_s = _hwtap_shl(v, sh.shift);
		sd->m2 = 0;
	} else {
		_hwtap_test_stat_stall();
		if (sh.sum || sh.variance)
			sd->sum += v;
		if (sh.max && v > sd->max)
			sd->max = v;
		if (sh.min && v < sd->min)
			sd->min = v;
		if (sh.variance)
			_hwtap_stat_variance_add(sh.shift, sd, v);
	}
	_hwtap_stat_hist_add(sh, sd, v);
}

/* A record of an older generation, on its CPU: empty again, of this one. */
static noinline void _hwtap_stat_renew(const struct hwtap_stats *st, struct hwtap_stat *sd,
				       u32 gen)
{
	memset(&sd->count, 0, st->size - offsetof(struct hwtap_stat, count));
	sd->gen = gen;
}

/* s <<< v on a global scalar, with no lock: this CPU's record, seq odd meanwhile. The
 * stores are ordered for a reader on another CPU (_hwtap_stat_copy()). */
static __always_inline void _hwtap_stats_add(struct hwtap_stat_shape sh,
					     const struct hwtap_stats *st, int64_t v)
{
	struct hwtap_stat *sd = this_cpu_read(*st->cpu);
	u32 gen = READ_ONCE(st->gen);

	raw_write_seqcount_begin(&sd->seq);
	if (unlikely(sd->gen != gen))
		_hwtap_stat_renew(st, sd, gen);
	_hwtap_stat_add(sh, sd, v);
	raw_write_seqcount_end(&sd->seq);
}

/* delete s: a scalar, under every CPU's part of its lock. Its CPUs' records become of an
 * older generation: they read as empty, and each CPU's next add starts its record anew. */
static void _hwtap_stats_clear(struct hwtap_stats *st)
{
	WRITE_ONCE(st->gen, st->gen + 1);
}

static void _hwtap_stat_sum_into(const struct hwtap_stats *st, struct hwtap_stat *agg,
				 const struct hwtap_stat *sd, bool hist)
{
	int i;

	if (agg->count == 0) {
		agg->min = sd->min;
		agg->max = sd->max;
	}
	agg->count += sd->count;
	agg->sum += sd->sum;
	agg->max = max(agg->max, sd->max);
	agg->min = min(agg->min, sd->min);
	for (i = 0; hist && i < st->buckets; i++)
		agg->hist[i] += sd->hist[i];
}

static inline int64_t _hwtap_sq_dev(int64_t count, int64_t avg, int64_t mean)
{
	return count * (avg - mean) * (avg - mean);
}

/* A copy of CPU cpu's record of scalar st in st->copy (its count and histogram with hist),
 * taken when no add was under way there from its start to its end: true, and *out the
 * copy, or NULL when it is empty. An add is short, but its CPU can stop in the middle of
 * one for as long as it likes (a vCPU its host preempts): a record found busy is tried
 * MAXTRYLOCK times, TRYLOCKDELAY microseconds apart, as a lock is, and then the read
 * gives up (false) rather than merge half an add. */
static bool _hwtap_stat_copy(const struct hwtap_stats *st, int cpu, bool hist,
			     const struct hwtap_stat **out)
{
	const struct hwtap_stat *sd = _hwtap_stat_cpu(st, cpu);
	size_t size = hist ? st->size : sizeof(*sd);
	unsigned int seq;
	int tries = 0;

	for (;;) {
		seq = raw_read_seqcount(&sd->seq);
		if (!(seq & 1)) {
			memcpy(st->copy, sd, size);
			if (!read_seqcount_retry(&sd->seq, seq))
				break;
		}
		if (++tries >= MAXTRYLOCK)
			return false;
		udelay(TRYLOCKDELAY);
	}
	*out = st->copy->gen != st->gen || st->copy->count == 0 ? NULL : st->copy;
	return true;
}

/* A scalar statistic: SystemTap's _stp_stat_get(). When a CPU's record stays busy, the
 * handler unwinds as skipped (_hwtap_skip_unwind()), as when it cannot take a lock. */
static struct hwtap_stat *_hwtap_stat_merge(struct hwtap_context_base *b,
					    const struct hwtap_stats *st, bool hist)
{
	struct hwtap_stat *agg = st->agg;
	int64_t s1 = 0, s2 = 0;
	int cpu;

	memset(agg, 0, hist ? st->size : sizeof(*agg));
	for_each_possible_cpu(cpu) {
		const struct hwtap_stat *sd;

		if (st->parts)
			st->parts[cpu].count = 0;
		if (!_hwtap_stat_copy(st, cpu, hist, &sd)) {
			_hwtap_skip_unwind(b);
			return agg;
		}
		if (!sd)
			continue;
		_hwtap_stat_sum_into(st, agg, sd, hist);
		if (st->parts)
			st->parts[cpu] = (struct hwtap_stat_part){ sd->count, sd->avg_s,
								   sd->variance_s };
	}
	if (!st->shape.variance)
		return agg;
	agg->avg_s = _hwtap_div64(_hwtap_shl(agg->sum, st->shape.shift), agg->count);
	for_each_possible_cpu(cpu) {
		const struct hwtap_stat_part *p = &st->parts[cpu];

		if (!p->count)
			continue;
		s1 += _hwtap_sq_dev(p->count, p->avg_s, agg->avg_s);
		s2 += (p->count - 1) * p->variance_s;
	}
	agg->variance_s = _hwtap_div64(s1 + s2, agg->count - 1);
	agg->variance = agg->variance_s >> (2 * st->shape.shift);
	return agg;
}

/* An array element's merge starts empty, in agg. */
static struct hwtap_stat *_hwtap_stat_merge_start(const struct hwtap_stats *st, bool hist)
{
	memset(st->agg, 0, hist ? st->size : sizeof(*st->agg));
	return st->agg;
}

/* One more CPU's share of an array element: SystemTap's _new_map_copy_stat(). */
static void _hwtap_stat_merge_pair(const struct hwtap_stats *st, struct hwtap_stat *agg,
				   const struct hwtap_stat *sd, bool hist)
{
	int64_t count = agg->count, avg_s = agg->avg_s, var_s = agg->variance_s;

	_hwtap_stat_sum_into(st, agg, sd, hist);
	if (!st->shape.variance)
		return;
	if (count == 0) {
		agg->avg_s = sd->avg_s;
		agg->variance_s = sd->variance_s;
	} else {
		agg->avg_s = _hwtap_div64(_hwtap_shl(agg->sum, st->shape.shift), agg->count);
		agg->variance_s = _hwtap_div64(_hwtap_sq_dev(count, avg_s, agg->avg_s) +
					       (count - 1) * var_s +
					       _hwtap_sq_dev(sd->count, sd->avg_s, agg->avg_s) +
					       (sd->count - 1) * sd->variance_s,
					       agg->count - 1);
	}
	agg->variance = agg->variance_s >> (2 * st->shape.shift);
}

static int64_t _hwtap_stat_extract(const struct hwtap_stat *sd, u8 op)
{
	switch (op) {
	case HWTAP_OP_COUNT: return sd->count;
	case HWTAP_OP_SUM: return sd->sum;
	case HWTAP_OP_MIN: return sd->min;
	case HWTAP_OP_MAX: return sd->max;
	case HWTAP_OP_AVG: return _hwtap_div64(sd->sum, sd->count);
	default: return sd->variance;
	}
}

/* @count(s) ... of a merged statistic, NULL for an array element that exists on no CPU:
 * @count and @sum of nothing are 0, the others an error. */
static int64_t _hwtap_stat_op(struct hwtap_context_base *b, const struct hwtap_stat *sd, u8 op)
{
	if (op == HWTAP_OP_COUNT || op == HWTAP_OP_SUM)
		return sd ? _hwtap_stat_extract(sd, op) : 0;
	if (!sd || sd->count == 0) {
		_hwtap_error(b, "empty aggregate");
		return 0;
	}
	return _hwtap_stat_extract(sd, op);
}

#endif /* HWTAP_STAT_H */
