/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * panic.h - when the kernel panics, the session's newest unread output goes to the kernel
 * log, marked, so that whatever keeps the log past the crash keeps it too: pstore's kmsg
 * dumpers (ramoops, efi-pstore), which save the end of the log after the panic notifiers
 * have run, a serial or network console, kdump's vmcore. hwtap-run --pstore finds the
 * marked lines again after the reboot. Included by session.h.
 *
 * A panic notifier runs on the panicking CPU once the others are stopped, perhaps in
 * machine-check or NMI context. It is the last reader there will be: it consumes every
 * record left in the buffers, oldest first across CPUs, keeps the last hwtap_panic_tail
 * bytes of the script's output and messages (streams OUT and ERR) in a buffer allocated at
 * load, and prints them line by line at KERN_INFO (in the log and pstore's dump; on a
 * console only at a verbose loglevel), in the format protocol.h describes (HWTAP_PANIC_*).
 * What a reader had already taken is the reader's: the tail is what nobody read, which
 * for a detached session (the flight recorder) is the newest output.
 *
 * The panic's own report is in the log before the tails, and a pstore dump keeps only the
 * log's newest bytes (one record with ramoops, kmsg_bytes with efi-pstore): tails that
 * fill it push the report out. So the tails of all sessions together fill at most
 * hwtap_panic_log bytes of the log, counted as pstore saves a line (its level and time
 * stamp included). The log is what the sessions share: each notifier counts the tail
 * lines the sessions before it printed, and prints what fits in the rest, newest lines
 * first chosen, its head and end line always.
 *
 * The ring buffer's reader lock: a CPU stopped inside a reader call holds it, and taking
 * it then would hang the panic before pstore's dump. Every transport call that takes it
 * is counted (_hwtap_rb_enter/_hwtap_rb_exit); with one in progress the notifier only
 * says that the tail is lost, and why.
 */
#ifndef HWTAP_PANIC_H
#define HWTAP_PANIC_H

#include <linux/ctype.h>
#include <linux/kmsg_dump.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/vmalloc.h>

#include "transport.h"

/* Half of Debian's log buffer (CONFIG_LOG_BUF_SHIFT=17): the report must stay in it. */
#define HWTAP_PANIC_TAIL_MAX	(64U << 10)
#define HWTAP_PANIC_HEAD_FMT	HWTAP_PROC_PREFIX "%s: " HWTAP_PANIC_HEAD " bytes=%zu " \
				"unread=%llu overwritten=%lu%s script=%s\n"
/* What pstore adds to a line: "<6>[%5lu.%06lu] " for an uptime under 10^7 s. */
#define HWTAP_PANIC_STAMP	20

static unsigned int _hwtap_panic_tail = 4096;
module_param_named(hwtap_panic_tail, _hwtap_panic_tail, uint, 0444);
MODULE_PARM_DESC(hwtap_panic_tail,
		 "bytes of unread output written to the kernel log at a panic (default 4096, 0: none)");

static unsigned int _hwtap_panic_log = 8192;
module_param_named(hwtap_panic_log, _hwtap_panic_log, uint, 0444);
MODULE_PARM_DESC(hwtap_panic_log,
		 "bytes of kernel log the panic tails of all sessions fill together (default 8192)");

struct hwtap_panic {
	struct notifier_block nb;
	char *buf;			/* [2 * _hwtap_panic_tail]: the newest bytes at the end */
	size_t len;			/* bytes in buf */
	unsigned long long total;	/* bytes of output the notifier found unread */
};

static struct hwtap_panic _hwtap_panic;

/* LEN more bytes of output, newer than those kept so far. */
static void _hwtap_panic_keep(const char *data, size_t len)
{
	struct hwtap_panic *p = &_hwtap_panic;
	size_t cap = _hwtap_panic_tail;

	p->total += len;
	if (len > cap) {
		data += len - cap;
		len = cap;
	}
	if (p->len + len > 2 * cap) {
		/* Only the newest CAP bytes can still be printed: they move to the front. */
		memmove(p->buf, p->buf + p->len - cap, cap);
		p->len = cap;
	}
	memcpy(p->buf + p->len, data, len);
	p->len += len;
}

/* One line (without its newline) as pieces of at most HWTAP_PANIC_PIECE bytes. */
static void _hwtap_panic_line(const char *s, size_t len)
{
	char mark = HWTAP_PANIC_LINE;

	do {
		size_t n = min_t(size_t, len, HWTAP_PANIC_PIECE);

		pr_info(HWTAP_PROC_PREFIX "%s%c %.*s\n", THIS_MODULE->name, mark, (int)n, s);
		mark = HWTAP_PANIC_MORE;
		s += n;
		len -= n;
	} while (len);
}

/* Bytes of log one line of LEN bytes takes as pieces, as pstore saves them. */
static size_t _hwtap_panic_line_cost(size_t len)
{
	size_t pieces = len ? DIV_ROUND_UP(len, HWTAP_PANIC_PIECE) : 1;

	return len + pieces * (HWTAP_PANIC_STAMP + strlen(HWTAP_PROC_PREFIX) +
			       strlen(THIS_MODULE->name) + 3);
}

/* Whether LINE (as kmsg_dump_get_line() gives it with its syslog prefix) is a line of a
 * session's panic tail: "hwtap_NAME| ", "hwtap_NAME+ " or "hwtap_NAME: panic tail". */
static bool _hwtap_panic_tail_line(const char *line, size_t len)
{
	const char *p = line, *end = line + len, *stamp;

	if (p < end && *p == '<') {
		p = memchr(p, '>', end - p);
		if (!p || ++p >= end)
			return false;
	}
	if (*p == '[') {
		stamp = p;
		p = memchr(stamp, ']', min_t(size_t, end - stamp, 24));
		if (!p || (p += 2) > end)
			return false;
	}
	if (end - p < strlen(HWTAP_PROC_PREFIX) ||
	    memcmp(p, HWTAP_PROC_PREFIX, strlen(HWTAP_PROC_PREFIX)))
		return false;
	for (p += strlen(HWTAP_PROC_PREFIX); p < end && (isalnum(*p) || *p == '_' || *p == '-'); p++)
		;
	if (end - p >= 2 && (*p == HWTAP_PANIC_LINE || *p == HWTAP_PANIC_MORE) && p[1] == ' ')
		return true;
	return end - p >= 2 + strlen(HWTAP_PANIC_HEAD) - 1 &&
	       !memcmp(p, ": " HWTAP_PANIC_HEAD, 2 + strlen(HWTAP_PANIC_HEAD) - 1);
}

/* Bytes of log the tails printed before this one take: the log is read oldest first, as
 * pstore's dumper reads it (no lock; the other CPUs are stopped). A session's tail is only
 * ever printed at a panic, so every such line is this panic's. */
static size_t _hwtap_panic_log_used(void)
{
	static char line[1024];
	struct kmsg_dump_iter iter;
	size_t used = 0, len;

	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, true, line, sizeof(line), &len))
		if (_hwtap_panic_tail_line(line, len))
			used += len;
	return used;
}

static void _hwtap_panic_print(void)
{
	struct hwtap_panic *p = &_hwtap_panic;
	size_t n = min_t(size_t, p->len, _hwtap_panic_tail), used, room, cost, c;
	const char *s = p->buf + p->len - n, *end = p->buf + p->len, *nl, *first, *q, *b;
	unsigned long overwritten = ring_buffer_overruns(_hwtap_transport.rb);
	const char *cut = "";

	/* The oldest line kept, when its start did not fit, is left out whole. */
	if (p->total > n && (p->len == n || s[-1] != '\n')) {
		nl = memchr(s, '\n', end - s);
		s = nl ? nl + 1 : end;
	}
	/* The room the sessions before left, less this one's head and end lines (their
	 * longest form). Then the newest whole lines that fit in it. */
	used = _hwtap_panic_log_used();
	room = _hwtap_panic_log > used ? _hwtap_panic_log - used : 0;
	cost = 2 * HWTAP_PANIC_STAMP + snprintf(NULL, 0, HWTAP_PANIC_HEAD_FMT, THIS_MODULE->name,
		(size_t)n, p->total, overwritten, " cut=log", HWTAP_SCRIPT_NAME) +
		strlen(HWTAP_PROC_PREFIX) + strlen(THIS_MODULE->name) +
		strlen(": " HWTAP_PANIC_END "\n");
	room = room > cost ? room - cost : 0;
	first = end;
	q = end > s && end[-1] == '\n' ? end - 1 : end;	/* the end of the newest line */
	for (cost = 0; first > s; q = b - 1) {
		for (b = q; b > s && b[-1] != '\n'; b--)
			;
		c = _hwtap_panic_line_cost(q - b);
		if (cost + c > room) {
			cut = " cut=log";
			break;
		}
		cost += c;
		first = b;
		if (b == s)
			break;
	}
	pr_info(HWTAP_PANIC_HEAD_FMT, THIS_MODULE->name, (size_t)(end - first), p->total,
		overwritten, cut, HWTAP_SCRIPT_NAME);
	for (s = first; s < end; ) {
		nl = memchr(s, '\n', end - s);
		_hwtap_panic_line(s, (nl ? nl : end) - s);
		s = nl ? nl + 1 : end;
	}
	pr_info(HWTAP_PROC_PREFIX "%s: " HWTAP_PANIC_END "\n", THIS_MODULE->name);
}

static int _hwtap_panic_notify(struct notifier_block *nb, unsigned long event, void *msg)
{
	struct hwtap_transport *t = &_hwtap_transport;
	unsigned char *data;
	unsigned long budget;
	size_t size;
	int cpu;

	if (atomic_read(&t->rb_readers)) {
		pr_info(HWTAP_PROC_PREFIX "%s: " HWTAP_PANIC_HEAD " lost: a CPU stopped while "
			"reading the buffers\n", THIS_MODULE->name);
		return NOTIFY_DONE;
	}
	/* Every record once, and no more: the other CPUs are stopped. */
	budget = ring_buffer_entries(t->rb) + nr_cpu_ids;
	for_each_possible_cpu(cpu)
		_hwtap_peek(cpu);
	while ((cpu = _hwtap_oldest_cpu()) >= 0 && budget--) {
		size = _hwtap_record_size(t->heads[cpu].event);
		data = ring_buffer_event_data(t->heads[cpu].event);
		if (size && (data[0] == HWTAP_STREAM_OUT || data[0] == HWTAP_STREAM_ERR))
			_hwtap_panic_keep(data + HWTAP_RECORD_HDR, size - HWTAP_RECORD_HDR);
		ring_buffer_consume(t->rb, cpu, NULL, NULL);
		_hwtap_peek(cpu);
	}
	_hwtap_panic_print();
	return NOTIFY_DONE;
}

/* At load, after the transport: 0, -EINVAL for a bad hwtap_panic_tail, or -ENOMEM. */
static int _hwtap_panic_init(void)
{
	struct hwtap_panic *p = &_hwtap_panic;

	if (_hwtap_panic_tail > HWTAP_PANIC_TAIL_MAX) {
		pr_err("%s: hwtap_panic_tail=%u: expected 0 to %u (bytes)\n", THIS_MODULE->name,
		       _hwtap_panic_tail, HWTAP_PANIC_TAIL_MAX);
		return -EINVAL;
	}
	if (_hwtap_panic_log > HWTAP_PANIC_TAIL_MAX) {
		pr_err("%s: hwtap_panic_log=%u: expected 0 to %u (bytes)\n", THIS_MODULE->name,
		       _hwtap_panic_log, HWTAP_PANIC_TAIL_MAX);
		return -EINVAL;
	}
	if (!_hwtap_panic_tail)
		return 0;
	p->buf = vmalloc(2 * _hwtap_panic_tail);
	if (!p->buf)
		return -ENOMEM;
	p->nb.notifier_call = _hwtap_panic_notify;
	atomic_notifier_chain_register(&panic_notifier_list, &p->nb);
	return 0;
}

/* Before the transport goes. */
static void _hwtap_panic_exit(void)
{
	struct hwtap_panic *p = &_hwtap_panic;

	if (!p->buf)
		return;
	atomic_notifier_chain_unregister(&panic_notifier_list, &p->nb);
	vfree(p->buf);
}

#endif /* HWTAP_PANIC_H */
