/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copystr.h - a NUL-ended string copied out of memory that may not all be readable, with
 * a copier that fails instead of faulting (uaccess.h's for user memory, kaccess.h's for
 * the kernel's).
 */
#ifndef HWTAP_COPYSTR_H
#define HWTAP_COPYSTR_H

#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>

/* The string at ADDR into BUF, at most MAX bytes before its NUL (BUF has room for
 * MAX + 1), read with COPY a page at a time: a string that ends before an unmapped page
 * reads. Its length, or -EFAULT (BUF then empty). */
static __always_inline long _hwtap_copy_string(char *buf, unsigned long addr, size_t max,
					       bool (*copy)(void *, unsigned long, size_t))
{
	size_t len = 0;

	while (len < max) {
		/* up to the end of the page: the next one may not be mapped */
		size_t piece = min_t(size_t, max - len, PAGE_SIZE - ((addr + len) & ~PAGE_MASK));
		char *nul;

		if (!copy(buf + len, addr + len, piece)) {
			buf[0] = '\0';
			return -EFAULT;
		}
		nul = memchr(buf + len, '\0', piece);
		if (nul)
			return nul - buf;
		len += piece;
	}
	buf[len] = '\0';
	return len;
}

#endif /* HWTAP_COPYSTR_H */
