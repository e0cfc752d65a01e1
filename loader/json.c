/* json.c - hwtap-run --json's pieces: a growable buffer, a JSON string made of any bytes,
 * and the check that a line the script printed is a JSON object hwtap-run may extend.
 *
 * What a script prints may hold what a probed process chose (its name, its arguments), so
 * nothing is passed through unchecked: a string is valid UTF-8 with every control
 * character escaped, whatever bytes came in; a line is extended with host, session and
 * time only when it is one whole, well-formed object whose top-level keys, once their
 * escapes are read, are not those (a duplicate is read by most parsers as the last one:
 * the attacker's).
 */
#include "loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_add(Buf *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + len)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			fputs("hwtap-run: error: out of memory\n", stderr);
			exit(1);
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

void buf_str(Buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* The length of the well-formed UTF-8 sequence at S (N bytes left), or 0: no overlong
 * forms, no surrogates, nothing past U+10FFFF. */
size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min, cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void buf_json_string(Buf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	buf_str(b, "\"");
	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];
		size_t n = utf8_len(u + i, len - i);
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = c;
			buf_add(b, esc, 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			buf_str(b, esc);
		} else if (!n) {
			buf_str(b, "\\ufffd");  /* not UTF-8: the replacement character */
			n = 1;
		} else {
			buf_add(b, u + i, n);
		}
		i += n ? n : 1;
	}
	buf_str(b, "\"");
}

/* ---- the check: a small recursive-descent reader of RFC 8259's grammar ----------------- */

typedef struct Reader {
	const unsigned char *p, *end;
	int depth;
} Reader;

#define JSON_DEPTH_MAX 64

static void skip_space(Reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int hex4(const unsigned char *p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
			c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* A string at r->p; its value's first KEYMAX-1 bytes (escapes read, ASCII only) go to KEY
 * when KEY is not NULL. 1, or 0 when it is not a well-formed string. */
static int read_string(Reader *r, char *key, size_t keymax)
{
	size_t k = 0;
	if (r->p >= r->end || *r->p != '"')
		return 0;
	for (r->p++; r->p < r->end; ) {
		unsigned c = *r->p, out = c;
		if (c == '"') {
			r->p++;
			if (key)
				key[k] = '\0';
			return 1;
		}
		if (c < 0x20)
			return 0;
		if (c == '\\') {
			if (r->end - r->p < 2)
				return 0;
			c = r->p[1];
			if (c == 'u') {
				int v = r->end - r->p >= 6 ? hex4(r->p + 2) : -1;
				if (v < 0)
					return 0;
				out = v < 0x80 ? (unsigned)v : 0xff;  /* only ASCII can spell a key */
				r->p += 6;
			} else if (strchr("\"\\/bfnrt", (int)c) && c) {
				out = c == 'b' ? '\b' : c == 'f' ? '\f' : c == 'n' ? '\n' : c == 'r' ?
				      '\r' : c == 't' ? '\t' : c;
				r->p += 2;
			} else {
				return 0;
			}
		} else {
			size_t n = utf8_len(r->p, r->end - r->p);
			if (!n)
				return 0;
			out = n == 1 ? c : 0xff;
			r->p += n;
		}
		if (key && k < keymax - 1)
			key[k++] = (char)out;
	}
	return 0;
}

static int read_value(Reader *r);

static int read_number(Reader *r)
{
	const unsigned char *p = r->p;
	if (p < r->end && *p == '-')
		p++;
	if (p >= r->end || *p < '0' || *p > '9')
		return 0;
	if (*p == '0')
		p++;
	else
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	if (p < r->end && *p == '.') {
		if (++p >= r->end || *p < '0' || *p > '9')
			return 0;
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < r->end && (*p == 'e' || *p == 'E')) {
		if (++p < r->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= r->end || *p < '0' || *p > '9')
			return 0;
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	r->p = p;
	return 1;
}

static int read_word(Reader *r, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
		return 0;
	r->p += n;
	return 1;
}

/* An object or array at r->p (its opening bracket): its members, each key checked
 * against RESERVED (a NULL-ended list) when it is not NULL. */
static int read_container(Reader *r, const char *const *reserved)
{
	int object = *r->p == '{';
	char close = object ? '}' : ']';
	if (++r->depth > JSON_DEPTH_MAX)
		return 0;
	r->p++;
	skip_space(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		r->depth--;
		return 1;
	}
	for (;;) {
		if (object) {
			char key[16];
			if (!read_string(r, key, sizeof(key)))
				return 0;
			for (const char *const *k = reserved; k && *k; k++)
				if (!strcmp(key, *k))
					return 0;
			skip_space(r);
			if (r->p >= r->end || *r->p != ':')
				return 0;
			r->p++;
		}
		if (!read_value(r))
			return 0;
		skip_space(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			skip_space(r);
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			r->depth--;
			return 1;
		}
		return 0;
	}
}

static int read_value(Reader *r)
{
	skip_space(r);
	if (r->p >= r->end)
		return 0;
	switch (*r->p) {
	case '{':
	case '[':
		return read_container(r, NULL);
	case '"':
		return read_string(r, NULL, 0);
	case 't':
		return read_word(r, "true");
	case 'f':
		return read_word(r, "false");
	case 'n':
		return read_word(r, "null");
	default:
		return read_number(r);
	}
}

bool json_object_extendable(const char *s, size_t len, const char *const *reserved)
{
	Reader r = {(const unsigned char *)s, (const unsigned char *)s + len, 0};
	skip_space(&r);
	if (r.p >= r.end || *r.p != '{' || !read_container(&r, reserved))
		return false;
	skip_space(&r);
	return r.p == r.end;
}
