/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compat.h - how the runtime does what kernels do differently, one feature each. Which
 * kernel has what is found by compiling runtime/probes/NAME.c against its tree, never by
 * its version number: each test that compiles defines HWTAP_HAVE_NAME for the module
 * (translator/build.c; `hwtap --kernel-features' prints them for other builds).
 * Everything else in runtime/ is written against 6.1 and later.
 */
#ifndef HWTAP_COMPAT_H
#define HWTAP_COMPAT_H

#include <linux/ring_buffer.h>

#ifdef HWTAP_HAVE_RB_COMMIT_ONE_ARG
#define _hwtap_rb_commit(rb, event)	ring_buffer_unlock_commit(rb)
#else
#define _hwtap_rb_commit(rb, event)	ring_buffer_unlock_commit(rb, event)
#endif

#endif /* HWTAP_COMPAT_H */
