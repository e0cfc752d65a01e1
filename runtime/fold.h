/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fold.h - a backtrace as one line of the folded-stack format (FlameGraph's
 * stackcollapse output, which flamegraph.pl, speedscope and inferno read): frames by name,
 * outermost first, apart by ';'. sprint_backtrace_folded() (symbols.h names kernel
 * frames) and sprint_ubacktrace_folded() (usyms.c names user ones).
 */
#ifndef HWTAP_FOLD_H
#define HWTAP_FOLD_H

#include <linux/kernel.h>
#include <linux/string.h>

/* Writes PC's name into BUF (ROOM bytes with its NUL): its length, as snprintf's. */
typedef int (*hwtap_fold_namer)(char *buf, size_t room, unsigned long pc, void *arg);

/* The N addresses of PCS (innermost first) into BUF (LEN bytes) as one folded line,
 * outermost first, each named by NAME(.., ARG). Only whole frames: cut at LEN, the outer
 * ones stay. */
static __maybe_unused void _hwtap_fold(char *buf, size_t len, const unsigned long *pcs,
				       int n, hwtap_fold_namer name, void *arg)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = n - 1; i >= 0; i--) {
		size_t sep = at ? 1 : 0;
		size_t room;
		int w;

		if (len <= at + sep + 1)
			break;
		room = len - at - sep;
		w = name(buf + at + sep, room, pcs[i], arg);
		if (w < 0 || (size_t)w >= room - 1)	/* it did not fit whole */
			break;
		if (sep)
			buf[at] = ';';
		at += sep + w;
	}
	buf[at] = '\0';
}

#endif /* HWTAP_FOLD_H */
