/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist.h - @hist_log and @hist_linear: printed as SystemTap prints them, indexed by
 * bucket, iterated by foreach.
 *
 * The chart, as SystemTap's _stp_stat_print_histogram_buf() lays it out:
 *   - rows from the first to the last non-empty bucket, widened by up to two empty
 *     buckets on each side (a log histogram widens below 0 only when it has negative
 *     values; a linear one shows its underflow "<" and overflow ">" rows only when they
 *     hold something);
 *   - a row that is empty and has only empty rows within two on either side is left out,
 *     and a run of left-out rows becomes one "~" row;
 *   - the value column is as wide as the widest label, at least 5 ("value"); bars are
 *     '@', one per count, or scaled down so the largest is at most 50 wide (the scale
 *     rounded up); counts follow right-aligned; a blank line ends the chart.
 */
#ifndef HWTAP_HIST_H
#define HWTAP_HIST_H

#include "stat.h"

/* Where a chart goes: the handler's print buffer, or a string (sprint) it is cut to. */
struct hwtap_hist_out {
	struct hwtap_context_base *b;
	char *str;			/* MAXSTRINGLEN bytes, or NULL to print */
	size_t len;
};

static __printf(2, 3) void _hwtap_hist_printf(struct hwtap_hist_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!o->str)
		_hwtap_vprintf(o->b, fmt, ap);
	else if (o->len < MAXSTRINGLEN - 1)
		o->len += vscnprintf(o->str + o->len, MAXSTRINGLEN - o->len, fmt, ap);
	va_end(ap);
}

/* Characters needed to print v in decimal. */
static int _hwtap_digits(int64_t v)
{
	u64 u = v < 0 ? 0 - (u64)v : (u64)v;
	int n = v < 0 ? 1 : 0;

	do {
		n++;
		u = div_u64(u, 10);
	} while (u);
	return n;
}

/* The lowest value of a log bucket. */
static int64_t _hwtap_log_bucket_value(int i)
{
	if (i == HWTAP_HIST_LOG_BUCKET0)
		return 0;
	if (i < HWTAP_HIST_LOG_BUCKET0)
		return (int64_t)0x8000000000000000ULL >> i;
	return 1LL << (i - HWTAP_HIST_LOG_BUCKET0 - 1);
}

/* The rows a chart shows, and what it needs to lay them out. */
struct hwtap_hist_layout {
	int low, high;			/* first and last row's bucket */
	int64_t max;			/* the largest count */
	int scale, val_space, cnt_space;
};

static void _hwtap_hist_range(const struct hwtap_stats *st, const int64_t *h,
			      struct hwtap_hist_layout *l)
{
	int i;

	l->low = -1;
	l->high = 0;
	l->max = 0;
	for (i = 0; i < st->buckets; i++) {
		if (h[i] > 0 && l->low == -1)
			l->low = i;
		if (h[i] > 0)
			l->high = i;
		l->max = max(l->max, h[i]);
	}
	for (i = 0; i < 2; i++) {
		if (l->low > 0 && (st->shape.hist_type == HWTAP_HIST_LINEAR ||
				   l->low != HWTAP_HIST_LOG_BUCKET0))
			l->low--;
		if (l->high < st->buckets - 1)
			l->high++;
	}
	if (st->shape.hist_type != HWTAP_HIST_LINEAR)
		return;
	if (l->low == 0 && h[0] == 0)
		l->low++;
	if (l->high == st->buckets - 1 && h[l->high] == 0)
		l->high--;
}

static void _hwtap_hist_layout(const struct hwtap_stats *st, const int64_t *h,
			       struct hwtap_hist_layout *l)
{
	_hwtap_hist_range(st, h, l);
	l->scale = l->max <= HWTAP_HIST_WIDTH ? 1 : div64_s64(l->max + HWTAP_HIST_WIDTH - 1,
							       HWTAP_HIST_WIDTH);
	l->cnt_space = _hwtap_digits(l->max);
	if (st->shape.hist_type == HWTAP_HIST_LINEAR)
		l->val_space = max(_hwtap_digits(st->shape.start) + (l->low == 0),
				   _hwtap_digits(st->shape.start + st->shape.interval * l->high) +
				   (l->high == st->buckets - 1));
	else
		l->val_space = max(_hwtap_digits(_hwtap_log_bucket_value(l->high)),
				   _hwtap_digits(_hwtap_log_bucket_value(l->low)));
	l->val_space = max(l->val_space, 5);
}

/* A row is left out when it and its neighbours within two rows (inside the chart) are
 * all empty. */
static bool _hwtap_hist_elided(const int64_t *h, const struct hwtap_hist_layout *l, int i)
{
	int k;

	for (k = max(l->low, i - HWTAP_HIST_ELISION); k <= min(l->high, i + HWTAP_HIST_ELISION);
	     k++)
		if (h[k] != 0)
			return false;
	return true;
}

/* A row's label: its lowest value, with "<" for underflow and ">" for overflow. */
static int64_t _hwtap_hist_label(const struct hwtap_stats *st, int i, const char **prefix)
{
	*prefix = "";
	if (st->shape.hist_type == HWTAP_HIST_LOG)
		return _hwtap_log_bucket_value(i);
	if (i == 0) {
		*prefix = "<";
		return st->shape.start;
	}
	if (i == st->buckets - 1) {
		*prefix = ">";
		return st->shape.start + (int64_t)(i - 2) * st->shape.interval;
	}
	return st->shape.start + (int64_t)(i - 1) * st->shape.interval;
}

static void _hwtap_hist_row(struct hwtap_hist_out *o, const struct hwtap_stats *st,
			    const int64_t *h, const struct hwtap_hist_layout *l, int i)
{
	char bar[HWTAP_HIST_WIDTH + 1];
	const char *prefix;
	int64_t val = _hwtap_hist_label(st, i, &prefix);
	int n = div64_s64(h[i], l->scale);

	memset(bar, '@', n);
	bar[n] = '\0';
	_hwtap_hist_printf(o, "%*s%lld |%s%*lld\n", l->val_space - _hwtap_digits(val), prefix,
			   val, bar, HWTAP_HIST_WIDTH - n + 1 + l->cnt_space, h[i]);
}

static void _hwtap_hist_chart(struct hwtap_hist_out *o, const struct hwtap_stats *st,
			      const int64_t *h)
{
	struct hwtap_hist_layout l;
	bool eliding = false;
	int i;

	_hwtap_hist_layout(st, h, &l);
	_hwtap_hist_printf(o, "%*s |%s count\n", l.val_space, "value",
			   "--------------------------------------------------");
	for (i = l.low; i <= l.high; i++) {
		if (_hwtap_hist_elided(h, &l, i)) {
			eliding = true;
			continue;
		}
		if (eliding)
			_hwtap_hist_printf(o, "%*s ~\n", l.val_space, "");
		eliding = false;
		_hwtap_hist_row(o, st, h, &l, i);
	}
	_hwtap_hist_printf(o, "\n");
}

/* print(@hist_log(s)) and sprint(...) of a merged statistic sd (NULL for an array element
 * that exists on no CPU): str NULL prints; an empty statistic is an error. */
static const char *_hwtap_hist_print(struct hwtap_context_base *b, char *str,
				     const struct hwtap_stats *st, const struct hwtap_stat *sd)
{
	struct hwtap_hist_out o = {.b = b, .str = str};

	if (str)
		str[0] = '\0';
	if (!sd || sd->count == 0) {
		_hwtap_error(b, "empty aggregate");
		return "";
	}
	_hwtap_hist_chart(&o, st, sd->hist);
	return str;
}

/* @hist_log(s)[i] */
static int64_t _hwtap_hist_bucket(struct hwtap_context_base *b, const struct hwtap_stats *st,
				  const struct hwtap_stat *sd, int64_t i)
{
	if (!sd || sd->count == 0) {
		_hwtap_error(b, "empty aggregate");
		return 0;
	}
	if (i < 0 || i >= st->buckets) {
		_hwtap_error(b, "histogram index out of range");
		return 0;
	}
	return sd->hist[i];
}

/* One foreach statement over a histogram's buckets: a copy of them while it runs. */
struct hwtap_hist_foreach {
	int64_t *hist;			/* the statistic's buckets, by the generated code */
	int owner;			/* nesting level of the frame iterating, or FREE */
};

/* Copies the buckets (all zero for an empty statistic, as in SystemTap); false, with the
 * error recorded, when this foreach is already iterating. */
static bool _hwtap_hist_foreach_start(struct hwtap_context_base *b,
				      struct hwtap_hist_foreach *fe,
				      const struct hwtap_stats *st, const struct hwtap_stat *sd)
{
	if (unlikely(fe->owner != HWTAP_FOREACH_FREE)) {
		_hwtap_errorf(b, "foreach over the histogram of '%s' entered again while it "
			      "runs", st->name);
		return false;
	}
	fe->owner = b->nesting;
	if (sd)
		memcpy(fe->hist, sd->hist, st->buckets * sizeof(int64_t));
	else
		memset(fe->hist, 0, st->buckets * sizeof(int64_t));
	return true;
}

static inline void _hwtap_hist_foreach_end(struct hwtap_context_base *b,
					   struct hwtap_hist_foreach *fe)
{
	if (fe->owner == b->nesting)
		fe->owner = HWTAP_FOREACH_FREE;
}

#endif /* HWTAP_HIST_H */
