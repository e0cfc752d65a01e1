/* kernel.h - what runtime/regex.h takes from the kernel, for running it in user space
 * (hwtap.base/regex.exp). linux/NAME.h here include this file instead. */
#ifndef HWTAP_TEST_KERNEL_H
#define HWTAP_TEST_KERNEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint64_t u64;

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 128
#endif
#define BITS_PER_LONG (8 * (int)sizeof(long))
#define BITS_TO_LONGS(n) (((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#define swap(a, b) do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)

static inline bool __test_and_set_bit(unsigned int n, unsigned long *map)
{
	unsigned long bit = 1UL << (n % BITS_PER_LONG), *w = map + n / BITS_PER_LONG;
	bool was = *w & bit;

	*w |= bit;
	return was;
}

struct hwtap_context_base {
	char error[MAXSTRINGLEN];
};

static inline void _hwtap_errorf(struct hwtap_context_base *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->error, sizeof(b->error), fmt, ap);
	va_end(ap);
}

#endif
