/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kaccess.h - reading kernel memory from a probe handler, in any context (task,
 * interrupt, NMI): copy_from_kernel_nofault() neither sleeps nor takes a fault, it fails
 * instead (an unmapped address, a user address, a NULL pointer), as bpf_probe_read_kernel()
 * does under it. A failure is SystemTap's "kernel read fault" error, or its caller's.
 * Used by kernel.function and kernel.trace probes' $variables ($prev->pid: translator/
 * btf.c writes the reads) and the tapset's kernel_string(), kernel_long() ...
 * (tapset/kconversions.stp).
 */
#ifndef HWTAP_KACCESS_H
#define HWTAP_KACCESS_H

#include <linux/uaccess.h>

#include "copystr.h"

/* Whether SIZE bytes at kernel address ADDR were copied to DST. */
static inline bool _hwtap_kcopy(void *dst, unsigned long addr, size_t size)
{
	return !copy_from_kernel_nofault(dst, (const void *)addr, size);
}

/* SIZE bytes (1 to 8) at ADDR as a little- or big-endian number as the CPU has it,
 * shifted right by SHIFT and cut to BITS bits (a bit field; BITS 0: all of them), sign-
 * extended when SIGNED; 0 and SystemTap's error when they cannot be read. */
static __maybe_unused int64_t _hwtap_kread_bits_at(struct hwtap_context_base *b,
						    unsigned long addr, int size, int shift,
						    int bits, bool is_signed)
{
	u64 v = 0;
	int width;

	if (b->last_error)
		return 0;
	if (size < 1 || size > 8 || !_hwtap_kcopy(&v, addr, size)) {
		_hwtap_errorf(b, "kernel read fault at 0x%lx [man error::fault]", addr);
		return 0;
	}
#ifdef __BIG_ENDIAN
	v >>= 64 - 8 * size;
#endif
	v >>= shift;
	width = bits ? bits : 8 * size;
	if (width < 64) {
		v &= (1ULL << width) - 1;
		if (is_signed && (v >> (width - 1)))
			v |= ~0ULL << width;
	}
	return (int64_t)v;
}
#define _hwtap_kread(c, addr, size, is_signed) \
	_hwtap_kread_bits_at(&(c)->base, (unsigned long)(addr), size, 0, 0, is_signed)
#define _hwtap_kread_bits(c, addr, size, shift, bits, is_signed) \
	_hwtap_kread_bits_at(&(c)->base, (unsigned long)(addr), size, shift, bits, is_signed)

/* The string at kernel address ADDR into BUF, at most MAX bytes (copystr.h). */
static __maybe_unused long _hwtap_kcopy_string(char *buf, unsigned long addr, size_t max)
{
	return _hwtap_copy_string(buf, addr, max, _hwtap_kcopy);
}

#endif /* HWTAP_KACCESS_H */
