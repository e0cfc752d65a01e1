/* util.c - arena memory, string buffers, growable arrays and small string helpers.
 *
 * The translator is a batch program: everything it allocates lives until it exits, so one
 * arena serves all allocations and arena_reset() frees them at once (the fuzzer calls it
 * between inputs).
 */
#include "hwtap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HWTAP_ASAN 1
#endif
#elif defined(__SANITIZE_ADDRESS__)
#define HWTAP_ASAN 1
#endif
#ifdef HWTAP_ASAN
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

typedef struct Chunk {
	struct Chunk *prev;
	size_t used, size;
	max_align_t data[];
} Chunk;

#define CHUNK_SIZE 60000

static Chunk *arena;
/* Chunks of CHUNK_SIZE that arena_reset() kept for the next input, poisoned for ASan:
 * a pointer that outlived its input still faults, and the fuzzer does not pay for fresh
 * pages (page faults, zeroing) on every input. */
static Chunk *spare;

static void out_of_memory(void)
{
	fputs("hwtap: error: out of memory\n", stderr);
	exit(1);
}

void *xalloc(size_t size)
{
	size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!arena || arena->size - arena->used < size) {
		Chunk *c = spare;
		if (c && size <= CHUNK_SIZE) {
			spare = c->prev;
		} else {
			size_t chunk = size > CHUNK_SIZE ? size : CHUNK_SIZE;
			c = malloc(sizeof(Chunk) + chunk);
			if (!c)
				out_of_memory();
			c->size = chunk;
		}
		c->prev = arena;
		c->used = 0;
		arena = c;
	}
	void *p = (char *)arena->data + arena->used;
	arena->used += size;
	ASAN_UNPOISON_MEMORY_REGION(p, size);
	memset(p, 0, size);
	return p;
}

void arena_reset(void)
{
	while (arena) {
		Chunk *prev = arena->prev;
		if (arena->size == CHUNK_SIZE) {
			ASAN_POISON_MEMORY_REGION(arena->data, CHUNK_SIZE);
			arena->prev = spare;
			spare = arena;
		} else {
			free(arena);
		}
		arena = prev;
	}
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xalloc(n + 1);
	memcpy(p, s, n);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xvformat(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *p = xalloc(n + 1);
	vsnprintf(p, n + 1, fmt, ap);
	return p;
}

char *xformat(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvformat(fmt, ap);
	va_end(ap);
	return p;
}

static void sb_reserve(StrBuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap * 2 : 256;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	char *buf = xalloc(cap);
	if (sb->len)
		memcpy(buf, sb->buf, sb->len);
	sb->buf = buf;
	sb->cap = cap;
}

void sb_putn(StrBuf *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_putc(StrBuf *sb, char c)
{
	sb_putn(sb, &c, 1);
}

void sb_puts(StrBuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(sb->buf ? sb->buf + sb->len : NULL, sb->buf ? sb->cap - sb->len : 0,
			  fmt, ap);
	va_end(ap);
	if (sb->buf && (size_t)n < sb->cap - sb->len) {    /* it fitted: the common case */
		sb->len += n;
		return;
	}
	sb_reserve(sb, n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	sb->len += n;
}

void vec_push(Vec *v, void *item)
{
	if (v->len == v->cap) {
		int cap = v->cap ? v->cap * 2 : 8;
		void **data = xalloc(sizeof(void *) * cap);
		if (v->len)
			memcpy(data, v->data, sizeof(void *) * v->len);
		v->data = data;
		v->cap = cap;
	}
	v->data[v->len++] = item;
}

void vec_insert(Vec *v, int at, void *item)
{
	vec_push(v, item);
	memmove(v->data + at + 1, v->data + at, sizeof(void *) * (v->len - 1 - at));
	v->data[at] = item;
}

void *xgrow(void *p, int *cap, int need, size_t size)
{
	if (need <= *cap)
		return p;
	int n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = xalloc(size * n);
	if (*cap)
		memcpy(q, p, size * *cap);
	*cap = n;
	return q;
}

static char *read_stream(FILE *f, size_t *len)
{
	StrBuf sb = {0};
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_putn(&sb, buf, n);
	if (ferror(f)) {
		errno = EIO;
		return NULL;
	}
	if (!sb.buf)
		sb_putn(&sb, "", 0);
	*len = sb.len;
	return sb.buf;
}

/* A regular file is read straight into one buffer of its size, to its end whatever the
 * size said (/proc's say 0): through a stream's 64 KB buffer into a doubling string, the
 * tapset's 38 files (53 pages) took 99 page faults, this way 59. */
char *read_whole_file(const char *path, size_t *len)
{
	if (!strcmp(path, "-"))
		return read_stream(stdin, len);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		FILE *f = fdopen(fd, "rb");
		char *text = f ? read_stream(f, len) : NULL;
		int e = errno;
		if (f)
			fclose(f);
		else
			close(fd);
		errno = e;
		return text;
	}
	size_t cap = (size_t)st.st_size + 2, n = 0;     /* the NUL, and room to see the end */
	char *buf = xalloc(cap);
	for (;;) {
		if (n + 1 == cap) {
			char *more = xalloc(cap * 2);
			memcpy(more, buf, n);
			buf = more;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			errno = EIO;
			return NULL;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

/* FNV-1a: module names and the build cache's keys. Start from FNV1A_INIT. */
uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Levenshtein distance, for "did you mean" hints; names are short. */
int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 1000;
	int row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

bool glob_match(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*p == '*') {
			star = ++p;
			resume = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}
