/* loader.h - what the files of hwtap-run (the module loader) share. */
#ifndef HWTAP_LOADER_H
#define HWTAP_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "../lib/uframes.h"
#include "../lib/usymtab.h"

/* A kernel module's .modinfo, the parts hwtap-run uses. */
typedef struct ModInfo {
	char *name;             /* name=: the module's name once loaded */
	char *vermagic;         /* vermagic=: "RELEASE SMP preempt mod_unload ..." */
	char *release;          /* vermagic's first word */
	char **params;          /* parmtype= names: the parameters the module takes */
	size_t nparams;
	char **members;         /* hwtap_perf_member= values: its perf groups' counters */
	size_t nmembers;
	char **cgroups;         /* hwtap_perf_cgroup= values: "INDEX PATH", a counter's cgroup */
	size_t ncgroups;
} ModInfo;

/* Allocation that ends hwtap-run with "error: out of memory" when it fails (modinfo.c). */
void *loader_realloc(void *p, size_t size);
char *xstrndup(const char *s, size_t n);

/* Reads PATH's .modinfo into MI. 0, or -1 with a message (malloc'ed, without the
 * "hwtap-run: error: " prefix) in *WHY. */
int modinfo_read(const char *path, ModInfo *mi, char **why);

void modinfo_free(ModInfo *mi);

/* The module in folder DIR (a bundle: `hwtap -p4 --bundle DIR`, one script's modules for
 * many kernels) built for kernel RELEASE: its path (malloc'ed), or NULL with a message in
 * *WHY saying which releases DIR has. At most 256 NAME.ko files are looked at; a folder
 * others can write to is refused. */
char *modinfo_pick(const char *dir, const char *release, char **why);

/* Whether MI declares a parameter NAME. */
int modinfo_has_param(const ModInfo *mi, const char *name, size_t len);

/* ---- modsig.c: a module the kernel refused for its signature ------------------------ */

/* Whether the module file KO ends in a signature, as sign-file appends it. */
bool modsig_signed(const char *ko);
/* What to say when loading KO failed with ERR (EKEYREJECTED, EPERM ...) for its signature
 * or the kernel's lockdown: the reason and what to do, or NULL when ERR is another
 * matter. */
char *modsig_explain(const char *ko, int err);

/* ---- perfgroup.c: the perf event groups of a module's counters ---------------------- */

/* Opens MI's perf groups (its hwtap_perf_member entries) on every online CPU or on each
 * thread of TARGET (0: none), and gives them to the module through its ctl file CTL_FD,
 * before the start. 0, or -1 with a message (malloc'ed) in *WHY. */
int perfgroups_open(const ModInfo *mi, int ctl_fd, pid_t target, char **why);

/* ---- sessions.c: the running sessions (/proc/hwtap_NAME) ----------------------------- */

#define SESSION_NAME_MAX 55     /* a module name hwtap makes: MODULE_NAME_LEN - 1 - 8 */
#define SESSION_COUNTERS_MAX 32 /* perf counters -L shows of a session */

/* What a session's ctl says (runtime/session.h); 0 or "" for what it does not say. */
typedef struct SessionInfo {
	char name[SESSION_NAME_MAX + 1];
	char script[128];
	char state[16];
	int protocol, attached;
	long long started, buffer_kb, records, overwritten, overwritten_before_reader;
	long long dropped, errors, skipped, lost_commands, read;
	int ncounters;                  /* the perf counters' values, @perf("NAME")'s */
	char counter[SESSION_COUNTERS_MAX][64];
	long long counter_value[SESSION_COUNTERS_MAX];
	/* their times enabled and on the PMU (ns), -1 from a module that does not say */
	long long counter_enabled[SESSION_COUNTERS_MAX], counter_running[SESSION_COUNTERS_MAX];
} SessionInfo;

/* Whether NAME can be a session's name: letters, digits and '_', at most
 * SESSION_NAME_MAX. */
int session_name_ok(const char *name);

/* Reads session NAME's ctl into SI: 0, or -1 with errno (ENOENT: no such session). */
int session_read(const char *name, SessionInfo *si);

/* Every session, sorted by name, into a malloc'ed array: 0, or -1 with errno. */
int session_list(SessionInfo **out, size_t *n);

/* A table with a header line, or (JSON) one object per line. */
void session_print(FILE *f, const SessionInfo *s, size_t n, int json);

/* ---- pstore.c: what sessions left in the kernel log at a panic (runtime/panic.h) ------ */

/* One session's tail, as the panicking kernel printed it and pstore kept it. */
typedef struct PanicTail {
	char name[SESSION_NAME_MAX + 1];
	char *script;           /* its file name, or NULL when the head line was not kept */
	char *source;           /* the file it was found in */
	long long bytes, unread, overwritten;   /* the head line's; -1: not kept */
	int cut_by_log;         /* fewer bytes, for the room left in the log (cut=log) */
	char *lost;             /* the reason, when the module could not read its buffers */
	char *text;             /* its lines, each with a newline; NULL: none */
	size_t len;
	long lines;
	int started_inside;     /* its head line was not kept (the dump began later) */
	int complete;           /* its end line was kept */
} PanicTail;

/* The tails in the pstore files under PATHS (NPATHS files or directories; none:
 * /sys/fs/pstore and /var/lib/systemd/pstore, either of which may be missing), in the
 * order of the dumps, into a malloc'ed array: 0, or -1 with a message on stderr. */
int pstore_read(char *const *paths, int npaths, PanicTail **out, size_t *n);

void pstore_free(PanicTail *t, size_t n);

/* What is known of tail T's circumstances, on stderr ("hwtap-run: session NAME (SCRIPT):
 * ..."), before its lines. */
void pstore_describe(const PanicTail *t);

/* ---- json.c: --json's buffer, strings and the check of an object line ----------------- */

typedef struct Buf {
	char *p;
	size_t len, cap;
} Buf;

void buf_add(Buf *b, const void *data, size_t len);
void buf_str(Buf *b, const char *s);
/* S (LEN bytes) as a JSON string, quotes included: valid UTF-8 whatever came in (a byte
 * that is not, U+FFFD), every control character escaped. */
void buf_json_string(Buf *b, const char *s, size_t len);
/* Whether S (LEN bytes) is exactly one well-formed JSON object (RFC 8259, nesting at most
 * 64 deep) none of whose top-level keys, escapes read, is in RESERVED (NULL-ended). */
bool json_object_extendable(const char *s, size_t len, const char *const *reserved);
/* The length of the well-formed UTF-8 sequence at S (N bytes left), or 0: no overlong
 * forms, no surrogates, nothing past U+10FFFF. */
size_t utf8_len(const unsigned char *s, size_t n);

/* ---- prometheus.c: --textfile's lines checked against Prometheus' text format ---------- */

/* The HELP and TYPE lines of one publication so far (a second one for a metric would make
 * node_exporter drop the whole file). */
typedef struct PromSeen {
	Buf names;              /* "H NAME\n" and "T NAME\n" lines */
} PromSeen;

/* NULL when the record REC (LEN bytes: what one call of the tapset stated) may go into
 * the textfile as it is, else why not (a static text). Records it takes are noted in
 * SEEN. */
const char *prom_record_check(const char *rec, size_t len, PromSeen *seen);
void prom_seen_reset(PromSeen *seen);

/* ---- pprof.c: --pprof FILE, the script's samples as a pprof profile --------------------- */

typedef struct Pprof {
	void *tree;             /* the stacks, each once, with their sums */
	int nstacks;
	long long dropped;      /* samples of stacks past the bound */
	long long start_ns;
} Pprof;

void pprof_init(Pprof *p);
/* One record "VALUE\0STACK" into P: NULL, or why it is not one (a static text). */
const char *pprof_add(Pprof *p, const unsigned char *data, size_t len);
/* The profile, gzipped, to PATH (permissions PERM): 0, or -1 after saying why. */
int pprof_write(Pprof *p, const char *path, int perm);
void pprof_free(Pprof *p);

/* ---- usyms.c: the symbols of the files a module asks about (runtime/udyn.c) ----------- */

/* What one file may cost: its size; its reader's address space, CPU seconds and seconds
 * (then it is killed, see usyms.c); the answer (a session holds no more: HWTAP_UDYN_BYTES); the
 * requests waiting for a reader. hwtap-run(8) SECURITY states them. */
#define USYMS_FILE_MAX (1LL << 31)
#define USYMS_MEM_MAX (1UL << 30)
#define USYMS_CPU_MAX 4
#define USYMS_TIME_MAX 5        /* then looked at every USYMS_STALL_CHECK s: */
#define USYMS_STALL_CHECK 2     /* no CPU used in that time: left behind */
#define USYMS_TIME_CAP 30       /* CPU used all along: killed then */
#define USYMS_ANSWER_MAX ((64UL << 20) + 56)  /* and the header */
#define USYMS_QUEUE_MAX 4096
#define USYMS_STUCK_MAX 64

typedef struct {
	const char *session;
	int verbose;
	char *queue[USYMS_QUEUE_MAX];   /* the requests' text, from head on */
	size_t head, queued;
	pid_t reader;                   /* reading the head request, or 0 */
	int memfd;                      /* its answer */
	double started, deadline;       /* CLOCK_MONOTONIC seconds: then it is looked at */
	long ticks;                     /* its CPU time at the last look */
	int checks;                     /* looks so far */
	pid_t left[USYMS_STUCK_MAX];    /* readers left behind, not yet ended */
	size_t nleft;
	dev_t stalled[USYMS_STUCK_MAX]; /* devices where a reader made no progress */
	size_t nstalled;
} USymsServer;

void usyms_init(USymsServer *s, const char *session, int verbose);
/* Takes the requests waiting on UFD (/proc/hwtap_SESSION/usyms, O_NONBLOCK), passes on the
 * answer of a reader that ended, kills one past its time, starts the next; never waits.
 * 0, or -1 with errno when UFD cannot be read. Call it again when UFD polls readable,
 * at SIGCHLD, and after usyms_timeout_ms(). VERBOSE: says which files go unnamed. */
int usyms_serve(USymsServer *s, int ufd);
/* Milliseconds until usyms_serve() has something to do without a request or SIGCHLD, or -1. */
int usyms_timeout_ms(const USymsServer *s);
/* Kills a reader still running and forgets what waits; never waits for a reader long. */
void usyms_finish(USymsServer *s);

/* The confinement of a reader, in the child: root, every file but FD (as 0), OUT (as 1)
 * and DEBUG (as 2, where >= 0) and every limit given up, a seccomp filter that allows
 * reading, writing, memory and exiting only. 0, or -1. */
int usyms_confine(int fd, int out, int debug);

/* An answer (runtime/protocol.h) to request ID with STATUS, and when OK T's table and F's
 * rows, written to OUT: 0, or -1. MAP (a perf map's answer: no segments, no rows): its
 * time and size, in NSEGS' and NFRAMES' place. An answer over USYMS_ANSWER_MAX is NONE. */
int usyms_answer(int out, uint64_t id, uint64_t status, const USymTab *t, const UFrameTab *f,
		 const uint64_t *map);

/* ---- ujit.c: a JIT's perf map for the anonymous code a process runs (runtime/ujit.c) --- */

typedef struct {
	unsigned long long id;
	int pid, nspid;                 /* the process, and its pid in its own namespace */
	unsigned uid;                   /* the owner its map must have */
	unsigned long long start_ns;    /* its start, ns since boot */
	unsigned long long size, mtime; /* of the map the last answer read (0 0: none) */
} UJitRequest;

/* The request "J ID PID NSPID UID START SIZE MTIME" at S into R: whether it is one. */
bool ujit_parse(const char *s, UJitRequest *r);
/* The reader of R's map, in the child (usyms.c's reader): answers into OUT, never
 * returns. Exits 0 with an answer written, READER_FUSE (2) for a map on FUSE, 1 when it
 * failed, or a status ujit_why() says why the map was refused by. */
_Noreturn void ujit_reader(const UJitRequest *r, int out);
/* Why a reader that exited with STATUS refused the map (a static text), or NULL. */
const char *ujit_why(int status);

/* ---- rasdb.c: --ras-db, the RAS history in rasdaemon's SQLite database ------------------ */

/* Opens (creates) PATH with rasdaemon's tables: 0, or -1 with a message (malloc'ed, without
 * the "hwtap-run: error: " prefix) in *WHY. */
int rasdb_open(const char *path, char **why);
/* One history record (protocol.h's HWTAP_STREAM_HISTORY) as a row: 0, or -1 with *WHY. */
int rasdb_record(const unsigned char *data, size_t len, char **why);
/* The rows added since the last commit, made durable together (one transaction per
 * read(): a burst of events is not one disk sync each): 0, or -1 with *WHY. */
int rasdb_commit(char **why);
void rasdb_close(void);

#endif
