/* ujitmap.c - a JIT's perf map as a symbol table (ujitmap.h). */
#include "ujitmap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	uint64_t start, end;            /* [start, end) */
	const char *name;               /* in the text */
	uint32_t len;                   /* cut at UJITMAP_NAME_MAX */
	uint32_t seq;                   /* which line of those kept, oldest 0 */
} Line;

/* A hex number at *P (after spaces; 0x or 0X allowed), *P past it: whether there was one
 * that fits in 64 bits. */
static bool hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	int digits = 0;
	uint64_t x = 0;
	for (; s < end; s++, digits++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 :
			*s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (x >> 60)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	*p = s;
	*v = x;
	return digits > 0;
}

/* The line [S, E) (without its newline) into L: whether it is one. */
static bool parse_line(const char *s, const char *e, Line *l)
{
	uint64_t start, size;
	if (!hex(&s, e, &start) || s == e || (*s != ' ' && *s != '\t') || !hex(&s, e, &size) ||
	    s == e || (*s != ' ' && *s != '\t'))
		return false;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	if (s == e || !size || size > USYMTAB_SIZE_MAX || start + size < start)
		return false;
	l->start = start;
	l->end = start + size;
	l->name = s;
	l->len = (uint32_t)(e - s > UJITMAP_NAME_MAX ? UJITMAP_NAME_MAX : e - s);
	return true;
}

static int by_start(const void *a, const void *b)
{
	const Line *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The first of the N ascending KEYS above V (UPPER) or at or above it. */
static size_t bound(const uint64_t *keys, size_t n, uint64_t v, bool upper)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (keys[mid] < v || (upper && keys[mid] == v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A Fenwick tree of maxima over N places (values seq + 1, 0: none). */
static void fen_put(uint32_t *f, size_t n, size_t i, uint32_t v)
{
	for (i++; i <= n; i += i & -i)
		if (f[i - 1] < v)
			f[i - 1] = v;
}

static uint32_t fen_max(const uint32_t *f, size_t k)    /* of places [0, k) */
{
	uint32_t m = 0;
	for (; k; k -= k & -k)
		if (f[k - 1] > m)
			m = f[k - 1];
	return m;
}

/* Which of the N lines (by start, then seq) a newer line overlaps: DEAD[i] set. One pass
 * from the left finds the newer ones that start at or before a line and end inside or
 * past its start, one from the right those that start inside it. */
static int mark_overlapped(const Line *v, size_t n, bool *dead)
{
	uint64_t *keys = malloc(n * sizeof(*keys));
	uint32_t *fen = calloc(n, sizeof(*fen));
	if (!keys || !fen) {
		free(keys);
		free(fen);
		return -1;
	}
	/* from the left: the lines before i start at or before it; a newer one among them
	 * overlaps it if it ends past i's start (ends ranked from the largest down) */
	for (size_t i = 0; i < n; i++)
		keys[i] = v[i].end;
	qsort(keys, n, sizeof(*keys), by_u64);
	for (size_t i = 0; i < n; i++) {
		size_t past = n - bound(keys, n, v[i].start, true);     /* ends > start */
		if (fen_max(fen, past) > v[i].seq + 1)
			dead[i] = true;
		fen_put(fen, n, n - 1 - (bound(keys, n, v[i].end, false)), v[i].seq + 1);
	}
	/* from the right: the lines after i start at or after it; a newer one overlaps it if
	 * it starts before i's end */
	memset(fen, 0, n * sizeof(*fen));
	for (size_t i = 0; i < n; i++)
		keys[i] = v[i].start;   /* ascending already */
	for (size_t i = n; i-- > 0;) {
		if (fen_max(fen, bound(keys, n, v[i].end, false)) > v[i].seq + 1)
			dead[i] = true;
		fen_put(fen, n, i, v[i].seq + 1);
	}
	free(keys);
	free(fen);
	return 0;
}

int ujitmap_parse(const char *text, size_t len, USymTab *t)
{
	memset(t, 0, sizeof(*t));
	if (len > UJITMAP_FILE_MAX)
		return -1;
	/* the newest UJITMAP_SYMS_MAX lines, in a ring */
	size_t cap = 0, n = 0, total = 0;
	Line *ring = NULL;
	for (const char *p = text, *end = text + len, *nl; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;          /* the JIT is still writing it */
		Line l;
		if (!parse_line(p, nl, &l))
			continue;
		if (n == cap && cap < UJITMAP_SYMS_MAX) {
			size_t cap2 = cap ? cap * 2 : 256;
			if (cap2 > UJITMAP_SYMS_MAX)
				cap2 = UJITMAP_SYMS_MAX;
			Line *r = realloc(ring, cap2 * sizeof(*r));
			if (!r) {
				free(ring);
				return -1;
			}
			ring = r;
			cap = cap2;
		}
		ring[total % UJITMAP_SYMS_MAX] = l;
		total++;
		if (n < UJITMAP_SYMS_MAX)
			n++;
	}
	Line *v = malloc((n ? n : 1) * sizeof(*v));
	bool *dead = calloc(n ? n : 1, sizeof(*dead));
	if (!v || !dead)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		v[i] = ring[(total - n + i) % UJITMAP_SYMS_MAX];
		v[i].seq = (uint32_t)i;
	}
	free(ring);
	ring = NULL;
	qsort(v, n, sizeof(*v), by_start);
	if (n && mark_overlapped(v, n, dead))
		goto fail;
	size_t keep = 0, names_len = 1;
	for (size_t i = 0; i < n; i++)
		if (!dead[i]) {
			keep++;
			names_len += v[i].len + 1;
		}
	t->syms = malloc((keep ? keep : 1) * sizeof(*t->syms));
	t->names = malloc(names_len);
	if (!t->syms || !t->names)
		goto fail;
	t->names[0] = '\0';
	t->names_len = 1;
	for (size_t i = 0; i < n; i++) {
		if (dead[i])
			continue;
		char *name = t->names + t->names_len;
		for (uint32_t k = 0; k < v[i].len; k++) {
			unsigned char c = (unsigned char)v[i].name[k];
			name[k] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		}
		name[v[i].len] = '\0';
		t->syms[t->nsyms++] = (USymEntry){ .addr = v[i].start, .name = t->names_len,
						   .size = v[i].end - v[i].start };
		t->names_len += v[i].len + 1;
	}
	free(v);
	free(dead);
	return 0;
fail:
	free(ring);
	free(v);
	free(dead);
	usymtab_free(t);
	memset(t, 0, sizeof(*t));
	return -1;
}
