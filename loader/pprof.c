/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof.c - hwtap-run --pprof FILE: the samples a script states (tapset pprof.stp, stream
 * HWTAP_STREAM_PPROF) written as a pprof profile, the gzipped profile.proto that go tool
 * pprof, Pyroscope, Parca, Grafana and speedscope read.
 *
 * A record is "VALUE\0STACK": a count and a folded stack (frames outermost first, apart by
 * ';', as sprint_ubacktrace_folded() and sprint_backtrace_folded() write them). Equal
 * stacks add up. At the end the profile is encoded by hand (profile.proto is small: a
 * string table, functions by name, one location per function, samples of location ids,
 * innermost first, and one value each, "samples"/"count") and gzipped with zlib, into
 * FILE through a temporary file renamed over it. Bounds: PPROF_STACKS_MAX distinct stacks,
 * PPROF_FRAMES_MAX frames a stack; past them samples are counted as dropped, and said.
 */
#define _GNU_SOURCE
#include "loader.h"

#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define PPROF_STACKS_MAX (1 << 20)
#define PPROF_FRAMES_MAX 256

typedef struct {
	char *stack;
	int64_t value;
} Stack;

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const Stack *)a)->stack, ((const Stack *)b)->stack);
}

void pprof_init(Pprof *p)
{
	memset(p, 0, sizeof(*p));
	p->start_ns = (int64_t)time(NULL) * 1000000000;
}

/* One record of stream HWTAP_STREAM_PPROF: 0, or the reason it is not a sample. */
const char *pprof_add(Pprof *p, const unsigned char *data, size_t len)
{
	const unsigned char *nul = memchr(data, '\0', len);
	if (!nul || nul == data || nul + 1 == data + len)
		return "not VALUE\\0STACK";
	char num[24];
	size_t n = nul - data;
	if (n >= sizeof(num))
		return "its value is not a number";
	memcpy(num, data, n);
	num[n] = '\0';
	char *end;
	errno = 0;
	long long v = strtoll(num, &end, 10);
	if (*end || errno || v < 0)
		return "its value is not a number";
	Stack key = { strndup((const char *)nul + 1, data + len - nul - 1), v };
	if (!key.stack)
		return "out of memory";
	Stack **found = tfind(&key, &p->tree, by_stack);
	if (found) {
		(*found)->value += v;
		free(key.stack);
		return NULL;
	}
	if (p->nstacks >= PPROF_STACKS_MAX) {
		p->dropped += v;
		free(key.stack);
		return NULL;
	}
	Stack *s = malloc(sizeof(*s));
	if (s)
		*s = key;
	if (!s || !tsearch(s, &p->tree, by_stack)) {
		free(s);
		free(key.stack);
		return "out of memory";
	}
	p->nstacks++;
	return NULL;
}

/* ---- profile.proto, by hand --------------------------------------------------------------- */

typedef struct {
	unsigned char *p;
	size_t len, cap;
	bool oom;
} PBuf;

static void put(PBuf *b, const void *data, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->len + n)
			cap *= 2;
		unsigned char *q = realloc(b->p, cap);
		if (!q) {
			b->oom = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void varint(PBuf *b, uint64_t v)
{
	unsigned char tmp[10];
	int n = 0;
	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		tmp[n++] |= v ? 0x80 : 0;
	} while (v);
	put(b, tmp, n);
}

static void field_varint(PBuf *b, int field, uint64_t v)
{
	varint(b, (uint64_t)field << 3);
	varint(b, v);
}

static void field_bytes(PBuf *b, int field, const void *data, size_t n)
{
	varint(b, (uint64_t)field << 3 | 2);
	varint(b, n);
	put(b, data, n);
}

/* The string table: each distinct string once, by index (0 is ""). */
typedef struct {
	char *s;
	uint64_t index;
} Str;

typedef struct {
	void *tree;
	PBuf table;              /* its entries, as Profile field 6 */
	uint64_t n;
} Strings;

static int by_str(const void *a, const void *b)
{
	return strcmp(((const Str *)a)->s, ((const Str *)b)->s);
}

static uint64_t intern(Strings *t, const char *s, size_t len, bool *new_one)
{
	Str key = { strndup(s, len), 0 };
	*new_one = false;
	if (!key.s) {
		t->table.oom = true;
		return 0;
	}
	Str **found = tfind(&key, &t->tree, by_str);
	if (found) {
		free(key.s);
		return (*found)->index;
	}
	Str *e = malloc(sizeof(*e));
	if (e)
		*e = (Str){ key.s, t->n };
	if (!e || !tsearch(e, &t->tree, by_str)) {
		free(e);
		free(key.s);
		t->table.oom = true;
		return 0;
	}
	t->n++;
	field_bytes(&t->table, 6, key.s, len);
	*new_one = true;
	return e->index;
}

static void free_str(void *e)
{
	free(((Str *)e)->s);
	free(e);
}

/* What one walk over the stacks makes. */
typedef struct {
	Strings *strings;
	PBuf *samples, *functions;      /* Profile fields 2, then 4 and 5 together */
} Walk;

static void add_sample(const void *node, VISIT v, void *arg)
{
	Walk *walk = arg;
	if (v != postorder && v != leaf)
		return;
	const Stack *s = *(Stack *const *)node;
	uint64_t ids[PPROF_FRAMES_MAX];
	int n = 0;
	const char *f = s->stack;
	while (*f && n < PPROF_FRAMES_MAX) {
		const char *semi = strchr(f, ';');
		size_t len = semi ? (size_t)(semi - f) : strlen(f);
		bool new_one;
		if (!len) {             /* an empty frame (";;"): none */
			f = semi ? semi + 1 : f;
			continue;
		}
		uint64_t name = intern(walk->strings, f, len, &new_one);
		/* a function, and its one location, for each name: id = its string's index */
		if (new_one) {
			PBuf fn = {0}, loc = {0}, line = {0};
			field_varint(&fn, 1, name);
			field_varint(&fn, 2, name);
			field_varint(&fn, 3, name);
			field_bytes(walk->functions, 5, fn.p, fn.len);
			field_varint(&line, 1, name);
			field_varint(&loc, 1, name);
			field_bytes(&loc, 4, line.p, line.len);
			field_bytes(walk->functions, 4, loc.p, loc.len);
			walk->functions->oom |= fn.oom || loc.oom || line.oom;
			free(fn.p);
			free(loc.p);
			free(line.p);
		}
		ids[n++] = name;
		f = semi ? semi + 1 : f + len;
	}
	PBuf sample = {0}, packed = {0};
	for (int i = n - 1; i >= 0; i--)        /* innermost first */
		varint(&packed, ids[i]);
	field_bytes(&sample, 1, packed.p, packed.len);
	packed.len = 0;
	varint(&packed, (uint64_t)s->value);
	field_bytes(&sample, 2, packed.p, packed.len);
	field_bytes(walk->samples, 2, sample.p, sample.len);
	walk->samples->oom |= sample.oom || packed.oom;
	free(sample.p);
	free(packed.p);
}

static void free_stack(void *e)
{
	free(((Stack *)e)->stack);
	free(e);
}

/* The profile, gzipped, written to PATH (through PATH.XXXXXX, made by mkostemp: never a
 * link or FIFO another user planted, renamed over it; permissions PERM): 0, or -1 after
 * saying why. */
int pprof_write(Pprof *p, const char *path, int perm)
{
	Strings strings = {0};
	PBuf samples = {0}, functions = {0}, head = {0};
	bool unused;
	intern(&strings, "", 0, &unused);
	uint64_t type = intern(&strings, "samples", 7, &unused);
	uint64_t unit = intern(&strings, "count", 5, &unused);
	PBuf vt = {0};
	field_varint(&vt, 1, type);
	field_varint(&vt, 2, unit);
	field_bytes(&head, 1, vt.p, vt.len);
	free(vt.p);
	Walk walk = { &strings, &samples, &functions };
	twalk_r(p->tree, add_sample, &walk);
	int64_t now = (int64_t)time(NULL) * 1000000000;
	PBuf tail = {0};
	field_varint(&tail, 9, (uint64_t)p->start_ns);
	field_varint(&tail, 10, (uint64_t)(now - p->start_ns));
	int rc = -1;
	char *tmp = NULL;
	if (head.oom || samples.oom || functions.oom || strings.table.oom || tail.oom) {
		fprintf(stderr, "hwtap-run: error: cannot make the pprof profile: out of memory\n");
		goto out;
	}
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		goto out;
	int fd = mkostemp(tmp, O_CLOEXEC);
	bool ok = fd >= 0 && fchmod(fd, perm) == 0;
	gzFile gz = ok ? gzdopen(fd, "wb") : NULL;
	ok = ok && gz;
	const PBuf *parts[] = { &head, &samples, &functions, &strings.table, &tail };
	for (int i = 0; ok && i < 5; i++)
		ok = !parts[i]->len || gzwrite(gz, parts[i]->p, parts[i]->len) == (int)parts[i]->len;
	if (gz && gzclose(gz) != Z_OK)
		ok = false;
	else if (!gz && fd >= 0)
		close(fd);
	if (!ok || rename(tmp, path)) {
		fprintf(stderr, "hwtap-run: error: cannot write the pprof profile %s (through %s): "
			"%s\n", path, tmp, strerror(errno ? errno : EIO));
		unlink(tmp);
		goto out;
	}
	if (p->dropped)
		fprintf(stderr, "hwtap-run: warning: the pprof profile %s left out %lld samples: "
			"it holds %d stacks at most\n", path, (long long)p->dropped,
			PPROF_STACKS_MAX);
	rc = 0;
out:
	free(tmp);
	free(head.p);
	free(samples.p);
	free(functions.p);
	free(strings.table.p);
	free(tail.p);
	tdestroy(strings.tree, free_str);
	return rc;
}

void pprof_free(Pprof *p)
{
	tdestroy(p->tree, free_stack);
	p->tree = NULL;
}
