/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * protocol.h - what a hwtap module and its loader (loader/hwtap-run.c) say to each other.
 * Included by the kernel runtime (transport.h, session.h) and by hwtap-run: constants
 * only, no types whose layout could differ between the two.
 *
 * Each module NAME has a directory of its own in /proc (no shared parent, so that two
 * modules loading or unloading at once never race to create or remove it):
 *
 *   /proc/hwtap_NAME/out   0400  the output, as records (below); read() blocks
 *                                (interruptibly) while there is none, and returns 0 once
 *                                the session has closed the transport and all is read.
 *                                One reader at a time (a second open: -EBUSY); poll()
 *                                works; O_NONBLOCK gives -EAGAIN.
 *   /proc/hwtap_NAME/snap  0400  a copy of what the buffers hold, in the record format of
 *                                `out', without consuming it: read() to 0 (end of file);
 *                                any number of readers at once (hwtap-run --snapshot)
 *   /proc/hwtap_NAME/ctl   0600  write "start" (runs the begin probes in the writer's
 *                                context and starts the others; the write fails with
 *                                their error; write it from a process other than the
 *                                reader's, or begin output cannot wait for room) or
 *                                "stop" (starts the stop sequence, returns at once);
 *                                read: "KEY VALUE" lines: state (loaded starting
 *                                running stopping done), errors, skipped, dropped,
 *                                lost_commands (commands dropped for a full buffer, also
 *                                in dropped), protocol (HWTAP_PROTOCOL), script (its
 *                                file name), started (UTC seconds), attached (0 or 1:
 *                                `out' is open), buffer_kb (per CPU), records (in the
 *                                buffers now), overwritten (by the flight recorder, in
 *                                all), overwritten_before_reader (of them, those the
 *                                current or last reader never saw) and read (records
 *                                readers took from `out', in all). Readers skip keys
 *                                they do not know. All three files need CAP_SYS_ADMIN.
 *
 * A module that names user code (usymname() and the rest, runtime/usyms.c) also has
 *
 *   /proc/hwtap_NAME/usyms 0600  the files processes map whose symbols the module lacks,
 *                                for the reader to read and answer (loader/usyms.c). One
 *                                reader at a time (-EBUSY). read() gives whole requests,
 *                                each "ID PID START END MAJOR MINOR INODE FRAMES PATH\0"
 *                                (ID, PID, MAJOR, MINOR, INODE decimal; START and END hex:
 *                                the mapping /proc/PID/map_files/START-END opens; FRAMES 1
 *                                when the module unwinds user stacks and wants the file's
 *                                unwind rows, else 0; PATH as d_path() writes it, any bytes
 *                                but NUL; the file is the one with that device and inode
 *                                number, whatever PATH says now), and 0 when none is
 *                                waiting; poll() says POLLIN when one is. A request read
 *                                and not answered is asked again of the next reader.
 *                                write(): one answer per call, little-endian u64 words:
 *                                HWTAP_USYMS_MAGIC, ID, STATUS, NSEGS, NSYMS, NAMES_LEN,
 *                                NFRAMES, then NSEGS x (file offset, link-time address,
 *                                bytes in the file) of the PT_LOAD segments, NSYMS x
 *                                (link-time address, name offset, size: 0 unknown, the
 *                                demangled name's offset: 0 none)
 *                                ascending by address, NFRAMES x (link-time address,
 *                                offsets, rules) ascending by address: the unwind rows of
 *                                lib/uframes.h, offsets the CFA's (s32, bits 0-31), the
 *                                return address's (s16, 32-47) and the frame pointer's
 *                                (s16, 48-63), rules the CFA's (HWTAP_UFRAME_CFA_*, bits
 *                                0-7), the return address's and the frame pointer's
 *                                (HWTAP_UFRAME_REG_*, 8-15 and 16-23), the flags
 *                                (HWTAP_UFRAME_DEREF, _SIGNAL: 24-31) and the PLT's
 *                                threshold (32-39); then NAMES_LEN bytes of
 *                                NUL-terminated names. STATUS: HWTAP_USYMS_OK, _NONE (the
 *                                file has nothing to name it by), _GONE (it could not be
 *                                opened as that file: asked again at its next mapping).
 *                                The module checks every bound and order: an answer
 *                                it refuses (-EINVAL) leaves that file unnamed; one
 *                                without the magic, or for no request read, changes
 *                                nothing (-EINVAL, -ENOENT).
 *                                A process that runs anonymous code (a JIT) gets its
 *                                names from its perf map (runtime/ujit.c, loader/ujit.c):
 *                                those requests are "J ID PID NSPID UID START SIZE
 *                                MTIME\0" (decimal: ID at least HWTAP_USYMS_JIT_ID; NSPID
 *                                the process's pid in its own namespace, whose
 *                                /tmp/perf-NSPID.map it is, under its root; UID the
 *                                owner the file must have; START the process's start,
 *                                ns since boot, as /proc/PID/stat's starttime counts it;
 *                                SIZE and MTIME, ns since the epoch, those of the file
 *                                the last answer read, 0 0 before one). Their answers
 *                                have the same header with MTIME in NSEGS' place and the
 *                                file's SIZE in NFRAMES', no segments and no rows: the
 *                                symbols' addresses are the process's own, each with its
 *                                size. STATUS _OK: the whole table, the old one replaced;
 *                                _NONE: no map the process may be named by; _SAME: the
 *                                file is as the last answer read it.
 *
 * A session whose reader closes `out' goes on detached: its buffers keep the newest
 * records, overwriting the oldest (the flight recorder), until a reader opens `out'
 * again (hwtap-run -A) or "stop" ends it (hwtap-run -d).
 *
 * A record on `out': a 4-byte header, then LEN bytes of output.
 *   byte 0     the stream: HWTAP_STREAM_OUT (the script's output: stdout, or hwtap-run -o
 *              FILE), HWTAP_STREAM_ERR (ERROR: and WARNING: lines: stderr) or
 *              HWTAP_STREAM_COMMAND (a command for hwtap-run to start, from system() or
 *              trigger(): "COMMAND\0EVENT", never split), HWTAP_STREAM_METRICS (lines of
 *              Prometheus' text format for hwtap-run --textfile to collect),
 *              HWTAP_STREAM_PUBLISH (the collected lines become the file's content) or
 *              HWTAP_STREAM_ACTION (something for hwtap-run to do about an error, as
 *              rasdaemon does: "offline-page soft|hard ADDR", "offline-cpu N") or
 *              HWTAP_STREAM_HISTORY (a RAS event for hwtap-run --ras-db to keep in
 *              rasdaemon's database: "SOURCE\0SECONDS\0FIELD\0...FIELD\0", the ras.*
 *              point's name, the event's time since the epoch, its fields in the
 *              point's order, numbers in decimal, a payload (a firmware section's
 *              bytes) as "LEN\0" and its LEN bytes; tapset ras-history.stp,
 *              loader/history/rasdb.c) or HWTAP_STREAM_PPROF (a sample for hwtap-run
 *              --pprof's profile: "VALUE\0STACK", a count in decimal and a folded
 *              stack; tapset pprof.stp, loader/pprof.c)
 *   byte 1     0, reserved
 *   bytes 2-3  LEN, little-endian, 1 .. HWTAP_RECORD_MAX
 * read() returns whole records only, so its buffer must hold at least HWTAP_READ_MIN
 * bytes (-EINVAL otherwise). Records come out in time-stamp order across CPUs (see
 * transport.h for the fine print).
 *
 * At a kernel panic (panic.h), the records nobody read, streams OUT and ERR, go to the
 * kernel log, where pstore keeps them across the reboot (hwtap-run --pstore reads them
 * back), as lines at KERN_INFO:
 *   hwtap_NAME: panic tail: bytes=N unread=M overwritten=R[ cut=log] script=FILE
 *   hwtap_NAME| LINE            one line of the output, without its newline
 *   hwtap_NAME+ MORE            the continuation of a line longer than HWTAP_PANIC_PIECE
 *   hwtap_NAME: panic tail end
 * N bytes follow, the newest of M unread (hwtap_panic_tail bytes at most, a line cut at
 * its start left out; "cut=log": fewer, for the room the tails of all sessions share in
 * the log, hwtap_panic_log); R records were overwritten by the flight recorder in all. Instead
 * of all that, "hwtap_NAME: panic tail: lost: REASON" when the buffers could not be read.
 */
#ifndef HWTAP_PROTOCOL_H
#define HWTAP_PROTOCOL_H

#define HWTAP_PROC_PREFIX	"hwtap_"	/* /proc/hwtap_NAME */
#ifndef HWTAP_PROTOCOL			/* (a test builds a module claiming another) */
#define HWTAP_PROTOCOL		3		/* what ctl says; a reader refuses others */
#endif
#define HWTAP_PROC_OUT		"out"
#define HWTAP_PROC_SNAP		"snap"
#define HWTAP_PROC_CTL		"ctl"

#define HWTAP_STREAM_OUT	1
#define HWTAP_STREAM_ERR	2
#define HWTAP_STREAM_COMMAND	3
#define HWTAP_STREAM_METRICS	4
#define HWTAP_STREAM_PUBLISH	5
#define HWTAP_STREAM_ACTION	6
#define HWTAP_STREAM_HISTORY	7
#define HWTAP_STREAM_PPROF	8

#define HWTAP_RECORD_HDR	4
#define HWTAP_RECORD_MAX	4000
#define HWTAP_READ_MIN		(HWTAP_RECORD_HDR + HWTAP_RECORD_MAX)

#define HWTAP_PANIC_HEAD	"panic tail:"
#define HWTAP_PANIC_END		"panic tail end"
#define HWTAP_PANIC_LINE	'|'
#define HWTAP_PANIC_MORE	'+'
#define HWTAP_PANIC_PIECE	800

#define HWTAP_PROC_USYMS	"usyms"
#define HWTAP_USYMS_MAGIC	0x3253594d55545748ULL	/* "HWTUMYS2" */
#define HWTAP_USYMS_OK		0
#define HWTAP_USYMS_NONE	1
#define HWTAP_USYMS_GONE	2
#define HWTAP_USYMS_SAME	3		/* (a perf map's: unchanged) */
#define HWTAP_USYMS_JIT_ID	(1ULL << 40)	/* the first ID of a perf map's request */
#define HWTAP_USYMS_HDR_WORDS	7
#define HWTAP_USYMS_SYM_WORDS	4
#define HWTAP_USYMS_FRAME_WORDS	3

/* The unwind rows' rules (lib/uframes.h says what each means; runtime/uunwind.c follows
 * them). The CFA: */
#define HWTAP_UFRAME_CFA_NONE	0	/* no rule taken: frame pointers there */
#define HWTAP_UFRAME_CFA_SP	1	/* SP + offset */
#define HWTAP_UFRAME_CFA_FP	2	/* FP + offset */
#define HWTAP_UFRAME_CFA_PLT	3	/* SP + offset, + 8 where (PC & 15) >= threshold */
#define HWTAP_UFRAME_CFA_END	4	/* the outermost frame */
/* the return address and the caller's frame pointer: */
#define HWTAP_UFRAME_REG_SAME	0	/* in its register still */
#define HWTAP_UFRAME_REG_CFA	1	/* at CFA + offset */
#define HWTAP_UFRAME_REG_SP	2	/* at SP + offset */
#define HWTAP_UFRAME_REG_UNDEF	3	/* not recoverable */
/* flags: */
#define HWTAP_UFRAME_DEREF	1	/* the CFA is the word at SP or FP + offset */
#define HWTAP_UFRAME_SIGNAL	2	/* a signal frame: the caller's PC is exact */
#define HWTAP_USYMS_REQUEST_MAX	(4096 + 128)	/* a request's bytes at most (PATH_MAX) */

#define HWTAP_CTL_START		"start"
#define HWTAP_CTL_STOP		"stop"
/* "perf_group LEADER FD,FD,...": one instance (a CPU's, a thread's) of the perf event
 * group whose first counter is hwtap_perfs[LEADER], the descriptors of its counters in
 * table order, opened by hwtap-run; "perf_group LEADER !ERRNO FAILED FIT": hwtap-run
 * could not open it, failing on counter hwtap_perfs[FAILED] (FIT, with EINVAL or E2BIG:
 * how many of its events the PMU takes together). */
#define HWTAP_CTL_PERF_GROUP	"perf_group"
#define HWTAP_CTL_LINE_MAX	512

#endif /* HWTAP_PROTOCOL_H */
