/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prometheus.c - the lines a script publishes for --textfile, checked against Prometheus'
 * text exposition format (version 0.0.4) before they reach the file: node_exporter's
 * textfile collector drops a whole file for one line it cannot parse, and a line feed
 * that a probed process put in a label value would otherwise start a sample of its own.
 *
 * A record is what one call of the tapset stated (tapset/prometheus.stp): one line, or
 * prometheus_help()'s "# HELP NAME TEXT" and "# TYPE NAME TYPE" for one metric. A line is
 *   # HELP NAME DOCSTRING   (\\ and \n the only escapes)
 *   # TYPE NAME TYPE        (counter, gauge, histogram, summary or untyped)
 *   # ANY OTHER COMMENT
 *   NAME[{LABEL="VALUE",...}] NUMBER[ TIMESTAMP]
 * NAME as [a-zA-Z_:][a-zA-Z0-9_:]*, LABEL as [a-zA-Z_][a-zA-Z0-9_]* (not __name__, none
 * twice), VALUE with \\, \" and \n the only escapes, NUMBER a float (NaN, +Inf, -Inf
 * too), TIMESTAMP an integer; blanks are spaces and tabs; the whole line valid UTF-8.
 * These are the rules of the Go parser node_exporter and Prometheus use.
 */
#define _GNU_SOURCE     /* memmem */
#include "loader.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct Line {
	const unsigned char *p, *end;
} Line;

static bool at(const Line *l, char c)
{
	return l->p < l->end && *l->p == c;
}

static void blanks(Line *l)
{
	while (at(l, ' ') || at(l, '\t'))
		l->p++;
}

/* A metric name (colons allowed) or a label name: its length, 0 when there is none. */
static size_t name(Line *l, bool colons)
{
	const unsigned char *s = l->p;
	while (l->p < l->end) {
		unsigned c = *l->p;
		bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
			      (colons && c == ':');
		if (!letter && !(l->p > s && c >= '0' && c <= '9'))
			break;
		l->p++;
	}
	return (size_t)(l->p - s);
}

/* The rest of the line up to the end, with only ESCAPES after a backslash. */
static const char *escaped_text(Line *l, const char *escapes, unsigned char stop)
{
	while (l->p < l->end && *l->p != stop) {
		if (*l->p++ != '\\')
			continue;
		if (l->p == l->end || !strchr(escapes, *l->p))
			return "a backslash that is not one of the format's escapes";
		l->p++;
	}
	return NULL;
}

static bool digits(Line *l)
{
	const unsigned char *s = l->p;
	while (l->p < l->end && *l->p >= '0' && *l->p <= '9')
		l->p++;
	return l->p > s;
}

static bool word(Line *l, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(l->end - l->p) < n || memcmp(l->p, w, n))
		return false;
	l->p += n;
	return true;
}

/* A float as Go's ParseFloat reads one in this format: decimal, NaN, [+-]Inf. */
static bool number(Line *l)
{
	if (word(l, "NaN"))
		return true;
	if (at(l, '+') || at(l, '-'))
		l->p++;
	if (word(l, "Inf"))
		return true;
	bool whole = digits(l), frac = false;
	if (at(l, '.')) {
		l->p++;
		frac = digits(l);
	}
	if (!whole && !frac)
		return false;
	if (at(l, 'e') || at(l, 'E')) {
		l->p++;
		if (at(l, '+') || at(l, '-'))
			l->p++;
		return digits(l);
	}
	return true;
}

static bool ends_blank(Line *l)
{
	blanks(l);
	return l->p == l->end;
}

static bool seen_has(const PromSeen *seen, const char *key, size_t len)
{
	const char *p = seen->names.p, *end = p + seen->names.len;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(nl - p) == len && !memcmp(p, key, len))
			return true;
		p = nl + 1;
	}
	return false;
}

/* "# HELP NAME ..." or "# TYPE NAME TYPE": KIND ('H' or 'T') and NAME into KEY. */
static const char *comment(Line *l, Buf *key)
{
	l->p++;                 /* '#' */
	blanks(l);
	bool help = word(l, "HELP"), type = !help && word(l, "TYPE");
	if (!help && !type)
		return NULL;    /* any other comment */
	if (!at(l, ' ') && !at(l, '\t'))
		return l->p == l->end ? "a HELP or TYPE line without a metric name" : NULL;
	blanks(l);
	const unsigned char *n = l->p;
	size_t len = name(l, true);
	if (!len)
		return "a HELP or TYPE line without a metric name";
	buf_add(key, help ? "H " : "T ", 2);
	buf_add(key, n, len);
	if (help) {
		if (l->p == l->end)
			return NULL;
		if (!at(l, ' ') && !at(l, '\t'))
			return "a metric name the format does not allow";
		return escaped_text(l, "\\n", '\n');
	}
	blanks(l);
	static const char *const types[] = { "counter", "gauge", "histogram", "summary",
					      "untyped" };
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		Line t = *l;
		if (word(&t, types[i]) && ends_blank(&t))
			return NULL;
	}
	return "a TYPE that is not counter, gauge, histogram, summary or untyped";
}

/* One LABEL="VALUE" and the ',' after it (or the '}', left for the caller): NULL or why
 * not. NAMES holds the label names so far as "\nNAME\n...". */
static const char *label(Line *l, Buf *names)
{
	const unsigned char *n = l->p;
	size_t len = name(l, false), before = names->len;
	if (!len)
		return "a label name the format does not allow";
	if (len == 8 && !memcmp(n, "__name__", 8))
		return "the reserved label name __name__";
	buf_add(names, "\n", 1);
	buf_add(names, n, len);
	buf_add(names, "\n", 1);
	if (before && memmem(names->p, before, names->p + before, len + 2))
		return "a label named twice";
	blanks(l);
	if (!at(l, '='))
		return "a label without =";
	l->p++;
	blanks(l);
	if (!at(l, '"'))
		return "a label value without double quotes";
	l->p++;
	const char *why = escaped_text(l, "\\\"n", '"');
	if (why)
		return why;
	if (!at(l, '"'))
		return "a label value without its closing double quote";
	l->p++;
	blanks(l);
	if (at(l, ',')) {
		l->p++;
		return NULL;
	}
	return at(l, '}') ? NULL : "labels not separated by commas";
}

static const char *sample(Line *l)
{
	if (!name(l, true))
		return "a sample without a metric name the format allows";
	const unsigned char *end_of_name = l->p;
	blanks(l);
	if (at(l, '{')) {
		Buf names = { 0 };
		const char *why = NULL;
		l->p++;
		for (blanks(l); !why && !at(l, '}'); blanks(l))
			why = label(l, &names);
		free(names.p);
		if (why)
			return why;
		l->p++;         /* '}' */
		end_of_name = NULL;     /* the value may follow at once */
		blanks(l);
	}
	if (l->p == end_of_name)
		return "a sample without a blank and a value after its name";
	if (!number(l))
		return "a sample value that is not a number";
	if (ends_blank(l))
		return NULL;
	if (at(l, '-'))
		l->p++;
	if (!digits(l) || !ends_blank(l))
		return "something after the sample value that is not a timestamp";
	return NULL;
}

/* One line (without its line feed): NULL or why not; a HELP or TYPE line's key in KEY. */
static const char *line_check(const unsigned char *p, size_t len, Buf *key)
{
	for (size_t i = 0, n; i < len; i += n)
		if (!(n = utf8_len(p + i, len - i)))
			return "bytes that are not UTF-8";
	Line l = { p, p + len };
	return *p == '#' ? comment(&l, key) : len ? sample(&l) : "an empty line";
}

/* KEYS is "H NAME\nT NAME\n": the HELP and TYPE of one metric. */
static bool help_pair(const Buf *keys)
{
	size_t half = keys->len / 2;
	return keys->len >= 6 && keys->len % 2 == 0 && keys->p[0] == 'H' &&
	       keys->p[half] == 'T' && keys->p[half - 1] == '\n' &&
	       !memcmp(keys->p + 1, keys->p + half + 1, half - 1);
}

const char *prom_record_check(const char *rec, size_t len, PromSeen *seen)
{
	const unsigned char *p = (const unsigned char *)rec, *end = p + len;
	Buf keys = { 0 };
	const char *why = NULL;
	if (!len || p[len - 1] != '\n')
		return "a line cut short (lines are cut at 1024 bytes)";
	int lines = 0;
	while (!why && p < end) {
		const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t before = keys.len;
		why = line_check(p, (size_t)(nl - p), &keys);
		if (!why && keys.len > before) {
			buf_add(&keys, "\n", 1);
			if (seen_has(seen, keys.p + before, keys.len - before - 1))
				why = keys.p[before] == 'H' ? "a second HELP line for a metric" :
				      "a second TYPE line for a metric";
		}
		lines++;
		p = nl + 1;
	}
	/* prometheus_help()'s pair, or a single line: more means a line feed in a string */
	if (!why && lines > 1 && !(lines == 2 && help_pair(&keys)))
		why = "a line feed inside what the script stated as one line";
	if (!why)
		buf_add(&seen->names, keys.p, keys.len);
	free(keys.p);
	return why;
}

void prom_seen_reset(PromSeen *seen)
{
	seen->names.len = 0;
}
