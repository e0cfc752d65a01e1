/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compat.h - kernel-version differences of the runtime, one probe per feature.
 * Everything else in runtime/ is written against 6.1 and later.
 */
#ifndef HWTAP_COMPAT_H
#define HWTAP_COMPAT_H

#include <linux/version.h>
#include <linux/ring_buffer.h>

/* 6.2 dropped ring_buffer_unlock_commit()'s event argument. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define _hwtap_rb_commit(rb, event)	ring_buffer_unlock_commit(rb)
#else
#define _hwtap_rb_commit(rb, event)	ring_buffer_unlock_commit(rb, event)
#endif

#endif /* HWTAP_COMPAT_H */
