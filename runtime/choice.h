/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * choice.h - the points whose existence is decided when the session starts, on the
 * machine it runs on: perf events (perf.c) and hardware-error sources (ras.c). The
 * script's '?' and '!' are decided here, the same way for each family:
 *
 *   - an entry from a point with '?' or '!' is optional: when it cannot be created here,
 *     it is skipped with one warning saying which and why, unless a later alternative
 *     runs in its place (then only -v says so);
 *   - an entry lists in unless[] the earlier entries of its table ('A !, B': B unless A)
 *     whose creation makes it needless; it is then not created at all;
 *   - a required entry that cannot be created fails the start, with its reason.
 *
 * Each family's table entry begins with a struct hwtap_choice; the functions here walk
 * a table of any such entries by its entry size.
 */
#ifndef HWTAP_CHOICE_H
#define HWTAP_CHOICE_H

#include <linux/kernel.h>
#include <linux/stdarg.h>

struct hwtap_choice {
	/* set by the generated code */
	const char *point;			/* as the script wrote it: "perf.hw.cpu_cycles" */
	const char *where;			/* "script.stp:3:7" */
	bool optional;				/* '?' or '!': skipped if it cannot be */
	const int *unless;			/* entries (-1 ends) that make it needless */
	/* the runtime's */
	bool created, skipped;			/* at start: it runs; it was not needed */
	bool deferred;				/* decided later (its module is not loaded) */
	char why[256];				/* why it could not be created */
};

static inline struct hwtap_choice *_hwtap_choice_at(void *table, size_t size, int i)
{
	return (struct hwtap_choice *)((char *)table + i * size);
}

/* Entry i could not be created, for the reason FMT: rc, after an error when it was
 * required. */
static __printf(3, 4) int _hwtap_choice_failed(struct hwtap_choice *c, int rc,
					       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	if (!c->optional)
		_hwtap_script_error("%s (%s): %s", c->point, c->where, c->why);
	return rc;
}

/* The entry created earlier that makes entry i needless, or NULL. */
static struct hwtap_choice *_hwtap_choice_replacement(void *table, size_t size, int i)
{
	const int *u;

	for (u = _hwtap_choice_at(table, size, i)->unless; u && *u >= 0; u++)
		if (_hwtap_choice_at(table, size, *u)->created)
			return _hwtap_choice_at(table, size, *u);
	return NULL;
}

/* After the start: what the entries that do not run had, and why. */
static void _hwtap_choice_report(void *table, size_t size, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		struct hwtap_choice *c = _hwtap_choice_at(table, size, i), *instead = NULL;

		if (c->created || c->deferred)
			continue;
		if (c->skipped) {
			instead = _hwtap_choice_replacement(table, size, i);
			_hwtap_note("%s (%s) not needed: %s (%s) runs", c->point, c->where,
				    instead->point, instead->where);
			continue;
		}
		/* a later entry that runs in its place: one whose unless names it */
		for (j = i + 1; j < n && !instead; j++) {
			struct hwtap_choice *later = _hwtap_choice_at(table, size, j);
			const int *u;

			for (u = later->unless; u && *u >= 0; u++)
				if (*u == i && later->created)
					instead = later;
		}
		if (instead)
			_hwtap_note("%s (%s) cannot be created here (%s): %s (%s) runs instead",
				    c->point, c->where, c->why, instead->point, instead->where);
		else
			_hwtap_warn("%s (%s) skipped: %s", c->point, c->where, c->why);
	}
}

#endif /* HWTAP_CHOICE_H */
