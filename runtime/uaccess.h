/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uaccess.h - reading the current task's user memory from a probe handler, in any
 * context (task, interrupt, NMI): copy_from_user_nofault() never sleeps nor takes a
 * fault, it fails instead (an unmapped or swapped-out page, a kernel thread, an NMI
 * where user access is not safe, a handler run for another task than the current one:
 * tasks.c). A failure is SystemTap's "read fault" error, or its caller's. Used by process
 * probes' $variables (uprobes.c) and the tapset's user_string(), user_long() ...
 * (tapset/uconversions.stp).
 */
#ifndef HWTAP_UACCESS_H
#define HWTAP_UACCESS_H

#include <linux/mm.h>
#include <linux/uaccess.h>

#include "copystr.h"

/* Set while a handler runs for a task whose memory is not the current task's (the
 * begin of a forked child, in its parent: tasks.c): reads fail then. */
static DEFINE_PER_CPU(bool, _hwtap_foreign_task);

/* Whether SIZE bytes at the task's ADDR were copied to DST. */
static inline bool _hwtap_ucopy(void *dst, unsigned long addr, size_t size)
{
	if (unlikely(this_cpu_read(_hwtap_foreign_task)))
		return false;
	return !copy_from_user_nofault(dst, (const void __user *)addr, size);
}

/* SIZE bytes (1 to 8) at the task's ADDR as a number as the CPU has it, sign-extended when
 * SIGNED; 0 and SystemTap's error when they cannot be read, or SIZE is out of range (the
 * tapset's _user_number() passes a script's size on). */
static int64_t _hwtap_uread_at(struct hwtap_context_base *b, unsigned long addr, int size,
			       bool is_signed)
{
	u64 v = 0;

	if (b->last_error)
		return 0;
	if (size < 1 || size > 8 || !_hwtap_ucopy(&v, addr, size)) {
		_hwtap_errorf(b, "read fault [man error::fault] at 0x%lx", addr);
		return 0;
	}
#ifdef __BIG_ENDIAN
	v >>= 64 - 8 * size;
#endif
	if (size < 8 && is_signed && (v >> (8 * size - 1)))
		v |= ~0ULL << (8 * size);
	return (int64_t)v;
}
#define _hwtap_uread(c, addr, size, is_signed) \
	_hwtap_uread_at(&(c)->base, (unsigned long)(addr), size, is_signed)

/* The string at the task's ADDR into BUF, at most MAX bytes (copystr.h). */
static long _hwtap_ucopy_string(char *buf, unsigned long addr, size_t max)
{
	return _hwtap_copy_string(buf, addr, max, _hwtap_ucopy);
}

#endif /* HWTAP_UACCESS_H */
