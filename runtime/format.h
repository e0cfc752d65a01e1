/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format.h - printf, sprintf and print compiled: pass 3 (translator/codegen/translate_print.c)
 * reads each format once and writes the call as a run of appends to an output, one per
 * literal run or directive, with every flag, width and precision known but those given by
 * an argument ('*'). No format is parsed at run time.
 *
 * An output is the handler's print buffer or a string (sprintf's MAXSTRINGLEN buffer):
 *   - a string takes at most MAXSTRINGLEN - 1 bytes, the rest is cut;
 *   - one printf's output stays whole in one transport record: when it does not fit
 *     behind what the print buffer already holds, that is written out first and the
 *     printf's own bytes move to the buffer's start; it is cut at HWTAP_PRINTBUF - 1
 *     bytes. That is what _hwtap_vprintf() does for the kernel's vsnprintf.
 *
 * The conversions behave as SystemTap 4.8's (its runtime/vsprintf.c) do, which differs
 * from C's here and there:
 *   - %d %i %u %o %x %X take 64-bit values; '0' pads with zeros after the sign and 0x
 *     even with a precision; '#' puts 0 before octal (00 for zero), 0x before hex (0x0);
 *     a precision of 0 still prints 0; '+' and ' ' only sign %d and %i;
 *   - %p is %#x;
 *   - %s pads with spaces whatever the flags, and '0' writes a NUL byte after it;
 *   - %c writes the value's low byte (0 too); with '#' it escapes what is not printable
 *     ASCII, a quote or a backslash as C does (\n, \001);
 *   - %b writes 1, 2, 4 or 8 bytes of the value in the CPU's byte order, padded with NULs;
 *   - a width or precision from an argument ('*') below 0 counts as 0: no left-justifying.
 *
 * Nothing allocates or sleeps; every loop is bounded by the output's room.
 */
#ifndef HWTAP_FORMAT_H
#define HWTAP_FORMAT_H

/* A directive's flags and base, as pass 3 writes them. */
#define HWTAP_F_ZEROPAD	0x01	/* '0' */
#define HWTAP_F_SIGN	0x02	/* signed: %d %i */
#define HWTAP_F_PLUS	0x04	/* '+' */
#define HWTAP_F_SPACE	0x08	/* ' ' */
#define HWTAP_F_LEFT	0x10	/* '-' */
#define HWTAP_F_SPECIAL	0x20	/* '#' */
#define HWTAP_F_UPPER	0x40	/* %X */
#define HWTAP_F_OCT	0x80	/* %o (base 10 without this or HEX) */
#define HWTAP_F_HEX	0x100	/* %x %X %p */

struct hwtap_out {
	char *buf;
	size_t len;		/* bytes in buf */
	size_t cap;		/* at most this many */
	size_t start;		/* the print buffer: where this printf's output starts; a
				 * string's is 0, and so is one printf's that began there */
};

static noinline __maybe_unused void _hwtap_out_print(struct hwtap_out *o,
						       struct hwtap_context_base *b)
{
	o->buf = b->print_buf;
	o->len = o->start = b->print_len;
	o->cap = HWTAP_PRINTBUF - 1;
}

static __always_inline void _hwtap_out_print_end(struct hwtap_out *o,
						 struct hwtap_context_base *b)
{
	b->print_len = o->len;
}

static noinline __maybe_unused void _hwtap_out_string(struct hwtap_out *o, char *dst)
{
	o->buf = dst;
	o->len = o->start = 0;
	o->cap = MAXSTRINGLEN - 1;
}

static __always_inline const char *_hwtap_out_string_end(struct hwtap_out *o)
{
	o->buf[o->len] = '\0';
	return o->buf;
}

/* The slow half of _hwtap_out_room(): n bytes do not fit. A printf that began behind
 * other output sends that and starts over at the print buffer's start. */
static noinline __maybe_unused size_t _hwtap_out_full(struct hwtap_out *o, size_t n)
{
	if (o->start) {
		_hwtap_write(o->buf, o->start);
		memmove(o->buf, o->buf + o->start, o->len - o->start);
		o->len -= o->start;
		o->start = 0;
	}
	return min(n, o->cap - o->len);
}

/* How many of n more bytes fit: n, or what is left once the output is full. */
static __always_inline size_t _hwtap_out_room(struct hwtap_out *o, size_t n)
{
	if (likely(o->cap - o->len >= n))
		return n;
	return _hwtap_out_full(o, n);
}

/* Copies for a conversion laid out at once: at most n bytes, stopping at end. Most
 * pieces are empty (no sign, no padding): they cost no call. */
static __always_inline char *_hwtap_fmt_copy(char *p, char *end, const char *s, int n)
{
	n = min_t(int, n, end - p);
	if (n <= 0)
		return p;
	memcpy(p, s, n);
	return p + n;
}

static __always_inline char *_hwtap_fmt_fill(char *p, char *end, char c, int n)
{
	n = min_t(int, n, end - p);
	if (n <= 0)
		return p;
	memset(p, c, n);
	return p + n;
}

static noinline __maybe_unused void _hwtap_put(struct hwtap_out *o, const char *s, size_t n)
{
	n = _hwtap_out_room(o, n);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static noinline __maybe_unused void _hwtap_put_fill(struct hwtap_out *o, char c, int n)
{
	if (n <= 0)
		return;
	n = _hwtap_out_room(o, n);
	memset(o->buf + o->len, c, n);
	o->len += n;
}

/* Two decimal digits of each number below 100. */
static const char _hwtap_fmt_pairs[201] __maybe_unused =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v's digits in base 10, 8 or 16 (flags), ending at end; returns where they start. */
static __always_inline char *_hwtap_fmt_digits(char *end, u64 v, unsigned int flags)
{
	const char *hex = flags & HWTAP_F_UPPER ? "0123456789ABCDEF" : "0123456789abcdef";

	if (flags & HWTAP_F_HEX) {
		do {
			*--end = hex[v & 15];
			v >>= 4;
		} while (v);
	} else if (flags & HWTAP_F_OCT) {
		do {
			*--end = '0' + (v & 7);
			v >>= 3;
		} while (v);
	} else {
		for (; v >= 100; v /= 100) {
			end -= 2;
			memcpy(end, &_hwtap_fmt_pairs[2 * (v % 100)], 2);
		}
		if (v >= 10) {
			end -= 2;
			memcpy(end, &_hwtap_fmt_pairs[2 * v], 2);
		} else {
			*--end = '0' + v;
		}
	}
	return end;
}

/* %d without flags, width or precision: the common case. */
static noinline __maybe_unused void _hwtap_put_dec(struct hwtap_out *o, s64 v)
{
	char tmp[24];
	char *digits = _hwtap_fmt_digits(tmp + sizeof(tmp), v < 0 ? 0 - (u64)v : v, 0);
	int n = tmp + sizeof(tmp) - digits;
	char *p, *end;
	size_t room;

	if (v < 0) {
		*--digits = '-';
		n++;
	}
	room = _hwtap_out_room(o, n);          /* first: it may move the output */
	p = o->buf + o->len;
	end = p + room;
	p = _hwtap_fmt_copy(p, end, digits, n);
	o->len = p - o->buf;
}

/*
 * %d %i %u %o %x %X %p: width and precision -1 when the directive has none. Laid out as
 *   [spaces] sign 0x [zeros to the width] [zeros to the precision] digits [spaces]
 * where the first spaces pad a right-justified number, the zeros up to the width one
 * with '0', and the last spaces a left-justified one ('-').
 */
static noinline __maybe_unused void _hwtap_put_num(struct hwtap_out *o, u64 v, int width,
						   int prec, unsigned int flags)
{
	bool left = flags & HWTAP_F_LEFT, zeropad = !left && (flags & HWTAP_F_ZEROPAD);
	char tmp[24], head[3];
	int nhead = 0, ndigits, pad;
	char *digits, *p, *end;
	size_t room;

	if ((flags & HWTAP_F_SIGN) && (s64)v < 0) {
		head[nhead++] = '-';
		v = 0 - v;
	} else if ((flags & HWTAP_F_SIGN) && (flags & (HWTAP_F_PLUS | HWTAP_F_SPACE))) {
		head[nhead++] = flags & HWTAP_F_PLUS ? '+' : ' ';
	}
	if ((flags & HWTAP_F_SPECIAL) && (flags & (HWTAP_F_OCT | HWTAP_F_HEX))) {
		head[nhead++] = '0';
		if (flags & HWTAP_F_HEX)
			head[nhead++] = flags & HWTAP_F_UPPER ? 'X' : 'x';
	}
	digits = _hwtap_fmt_digits(tmp + sizeof(tmp), v, flags);
	ndigits = tmp + sizeof(tmp) - digits;
	prec = max(prec, ndigits);
	pad = max(width - nhead - prec, 0);
	room = _hwtap_out_room(o, pad + nhead + prec);    /* first: it may move the output */
	p = o->buf + o->len;
	end = p + room;
	p = _hwtap_fmt_fill(p, end, ' ', left || zeropad ? 0 : pad);
	p = _hwtap_fmt_copy(p, end, head, nhead);
	p = _hwtap_fmt_fill(p, end, '0', (zeropad ? pad : 0) + prec - ndigits);
	p = _hwtap_fmt_copy(p, end, digits, ndigits);
	p = _hwtap_fmt_fill(p, end, ' ', left ? pad : 0);
	o->len = p - o->buf;
}

/* %s without flags, width or precision. */
static noinline __maybe_unused void _hwtap_put_s(struct hwtap_out *o, const char *s)
{
	_hwtap_put(o, s, strnlen(s, o->cap));
}

/* %s: at most prec bytes of s (all when -1), padded with spaces to the width. */
static noinline __maybe_unused void _hwtap_put_str(struct hwtap_out *o, const char *s,
						   int width, int prec, unsigned int flags)
{
	int n = strnlen(s, prec >= 0 ? min_t(size_t, prec, o->cap) : o->cap);

	if (!(flags & HWTAP_F_LEFT))
		_hwtap_put_fill(o, ' ', width - n);
	_hwtap_put(o, s, n);
	if (flags & HWTAP_F_LEFT)
		_hwtap_put_fill(o, ' ', width - n);
	if (flags & HWTAP_F_ZEROPAD)
		_hwtap_put_fill(o, '\0', 1);
}

/* %c: the low byte of v, escaped with '#' when it is not printable ASCII; a precision
 * means nothing (it is there for the conversions' common signature). */
static noinline __maybe_unused void _hwtap_put_char(struct hwtap_out *o, s64 v, int width,
						    int prec, unsigned int flags)
{
	static const char plain[] = "\a\b\f\n\r\t\v'\\", escaped[] = "abfnrtv'\\";
	unsigned char c = v;
	char rep[4];
	int n = 0;
	const char *e;

	if (!(flags & HWTAP_F_SPECIAL) || (c >= ' ' && c < 0x7f && c != '\'' && c != '\\')) {
		rep[n++] = c;
	} else if (c && (e = strchr(plain, c))) {
		rep[n++] = '\\';
		rep[n++] = escaped[e - plain];
	} else {
		rep[n++] = '\\';
		rep[n++] = '0' + (c >> 6);
		rep[n++] = '0' + ((c >> 3) & 7);
		rep[n++] = '0' + (c & 7);
	}
	if (!(flags & HWTAP_F_LEFT))
		_hwtap_put_fill(o, ' ', width - n);
	_hwtap_put(o, rep, n);
	if (flags & HWTAP_F_LEFT)
		_hwtap_put_fill(o, ' ', width - n);
}

/* A %b precision: 1, 2, 4 or 8 bytes, else -1. */
static __maybe_unused int _hwtap_fmt_bytes(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8 ? n : -1;
}

/* %b: prec bytes of v (8 by default, or the width when that is a size), padded with
 * NULs to the width; nothing of v when they do not all fit. */
static noinline __maybe_unused void _hwtap_put_bin(struct hwtap_out *o, u64 v, int width,
						   int prec, unsigned int flags)
{
	prec = _hwtap_fmt_bytes(prec);
	if (width < 0)
		width = prec = prec < 0 ? 8 : prec;
	else if (prec < 0)
		prec = _hwtap_fmt_bytes(width) < 0 ? 8 : width;
	if (!(flags & HWTAP_F_LEFT))
		_hwtap_put_fill(o, '\0', width - prec);
	if (_hwtap_out_room(o, prec) == prec) {
		u8 v1 = v;
		u16 v2 = v;
		u32 v4 = v;

		memcpy(o->buf + o->len, prec == 1 ? (void *)&v1 : prec == 2 ? (void *)&v2 :
		       prec == 4 ? (void *)&v4 : (void *)&v, prec);
		o->len += prec;
	}
	if (flags & HWTAP_F_LEFT)
		_hwtap_put_fill(o, '\0', width - prec);
}

/* A width or precision from an argument ('*'). */
static __always_inline int _hwtap_fmt_star(s64 v)
{
	return max((int)v, 0);
}

#endif
