/* translate.h - what pass 3's files share: translate.c (the program, scalars, strings),
 * translate_probes.c (the probe families' tables), translate_print.c (print, printf,
 * sprintf ...), translate_array.c (associative arrays, foreach), translate_stats.c
 * (statistics, histograms), translate_locks.c (the globals' locks) and regex.c (regular
 * expressions). Exports are prefixed tr_, ptab_, arr_, stat_, lock_ and regex_. */
#ifndef TRANSLATE_H
#define TRANSLATE_H

#include "hwtap.h"

typedef struct Regex Regex;

typedef struct {
	Session *s;
	StrBuf *out;
	StrBuf *decl;          /* the current frame's struct members (locals, temporaries) */
	int ntmp;
	Function *func;        /* NULL in a probe */
	Probe *probe;          /* the probe whose handler this is, NULL in a function */
	int indent;
	StrBuf pre;            /* a print call's arguments, computed in order */
	int nargs;
	StrBuf *sites;         /* module-level state of foreach statements */
	int nsites;
	StrBuf alloc, release; /* hwtap_globals_alloc() and hwtap_globals_free() bodies */
	VEC(char *) frame_inits;   /* run when the current frame starts */
	VEC(char *) frame_ends;    /* run at the current frame's out label */
	VEC(struct HistLoop *) hist_loops;  /* the foreach loops over histograms we are in */
	VEC(struct Cursor *) cursors;       /* the foreach loops over arrays we are in */
	int ntries;                /* try statements so far, for unique labels */
	bool batched;              /* a loop body's statements charge MAXACTION together */
	VEC(Regex *) regexes;      /* the programs of =~ and !~, each distinct regex once */
	bool perf_live;            /* a counter is read while the session runs, not only
				    * by end and error probes: runtime/probes/perf.c refreshes */
} Gen;

/* ---- translate.c ---------------------------------------------------------------------- */

void tr_expr(Gen *g, StrBuf *sb, Node *n);
void tr_stmt(Gen *g, Node *n);
void tr_line(Gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tr_unsupported(Node *n, const char *what);
char *tr_c_string(const char *s, size_t len);
char *tr_temp(Gen *g);                     /* a new string temporary of the frame */
char *tr_var_ref(Symbol *sym);             /* g_NAME or l->l_NAME */
/* lhs op rhs on longs, as C: SystemTap's wrapping and division checks (an error at tok) */
char *tr_binary_op(const char *op, const char *lhs, const char *rhs, Token *tok);
/* Runtime errors name places as SystemTap's do: "operator '/' at F:L:C" */
char *tr_place(Token *tok);                /* that, as a C string literal */
char *tr_fail_at(Token *tok);              /* { set the place; goto fail; } */
void tr_action(Gen *g, Token *tok);        /* a MAXACTION check, the place tok */
Token *tr_round_place(Node *loop);         /* the place of a loop round's MAXACTION */
/* A loop's round and its body, with their MAXACTION charges as SystemTap makes them */
void tr_loop_round(Gen *g, Node *loop);
bool tr_has_side_effects(Node *n);

/* ---- translate_probes.c: the probe families' tables and glue ---------------------------- */
bool ptab_is_timer(Probe *p);
bool ptab_is_perf(Probe *p);
bool ptab_is_ras(Probe *p);
bool ptab_is_process(Probe *p);
bool ptab_is_task(Probe *p);                  /* process begin and end: tasks.c */
bool ptab_is_kprobe(Probe *p);                /* kprobe.function: kprobes.c */
bool ptab_is_tracepoint(Probe *p);            /* kernel.trace, any: tracepoints.c */
bool ptab_is_kentry(Probe *p);                /* a kernel .return probe with @entry, or its companion */
int ptab_kprobe_count(Session *s);            /* hwtap_kprobes[]'s entries */
char *ptab_kbias_define(Session *s);          /* "#define HWTAP_KBIAS_LINK ..." or "" */
void ptab_tracepoint_callback(Gen *g, Probe *p, int index);   /* tp_INDEX */
int ptab_tracepoint_table(Gen *g, Session *s);  /* hwtap_tracepoints[]; how many entries */
int ptab_count(Session *s, bool (*is)(Probe *p));   /* how many probes IS says yes to */
bool ptab_translatable(Probe *p);          /* false (and an error) if pass 3 has no code */
bool ptab_body_runs(Probe *p);             /* not for never, nor for a counting perf probe */
void ptab_timer(Gen *g, Probe *p, int index);            /* timer_INDEX and its callback */
void ptab_timers_start(Gen *g, Session *s);              /* hwtap_start()'s lines */
void ptab_timers_stop(Gen *g, Session *s);               /* hwtap_stop()'s lines */
void ptab_perf_handler(Gen *g, Probe *p, int index);     /* perf_INDEX_fire */
const char *ptab_family(Probe *p);                       /* init's probes are "begin" */
void ptab_ras_callbacks(Gen *g, Probe *p, int index);    /* ras_INDEX_tp and ras_INDEX_run */
int ptab_perf_count(Session *s);
int ptab_perf_counter_index(Session *s, const char *name);   /* @perf("NAME")'s counter */
int ptab_perf_table(Gen *g, Session *s);   /* hwtap_perfs[]; how many entries */
int ptab_ras_table(Gen *g, Session *s);    /* hwtap_ras[]; how many entries */
int ptab_uentries_count(Session *s);       /* .return probes with @entry */
int ptab_process_table(Gen *g, Session *s);    /* hwtap_uprobes[]; how many entries */
int ptab_uentry_strings(Session *s);             /* HWTAP_UENTRY_STRS */
int ptab_task_tables(Gen *g, Session *s, int *nt);     /* hwtap_task_*[]; probes */
int ptab_kprobe_table(Gen *g, Session *s);     /* hwtap_kprobes[]; how many entries */
void ptab_process_target(Gen *g, StrBuf *sb, Node *n);   /* $var: process, kernel (BTF) */
void ptab_process_entry(Gen *g, StrBuf *sb, Node *n);    /* @entry(expr) */
void ptab_process_prologue(Gen *g, Probe *p);   /* a .return probe takes its @entry values */
void ptab_process_epilogue(Gen *g, Probe *p);   /* its companion keeps them */
void ptab_run_in_order(Gen *g, Session *s, const char *family);  /* probe_N(NULL) calls */
/* ---- translate_print.c ------------------------------------------------------------------ */

void tr_print(Gen *g, StrBuf *sb, Node *n, const Builtin *b);   /* a call of b */
/* s = sprintf(...) and its kind, written straight into s (lv); false if it cannot be */
bool tr_print_assign(Gen *g, StrBuf *sb, Node *assign, const char *lv);

/* ---- translate_array.c ------------------------------------------------------------------ */

void arr_declare(Gen *g, Global *gl);
/* Computes keys into `union hwtap_key __k[N]' in pre; strings are copied when copy_all
 * or a later key has side effects. Sets *any to the '*' keys' bits. */
void arr_keys(Gen *g, StrBuf *pre, Vec *args, Symbol *sym, bool copy_all, unsigned *any);
char *arr_keys_desc(Symbol *sym);          /* a struct hwtap_keys initializer */
char *arr_map(Symbol *sym);                /* &g_NAME; a statistics array's merge */
void arr_read(Gen *g, StrBuf *sb, Node *n);
/* the node of the foreach element that the read n is (same array, the loop's keys), or NULL */
const char *arr_cursor_node(Gen *g, Node *n);
void arr_assign(Gen *g, StrBuf *sb, Node *n);
void arr_incdec(Gen *g, StrBuf *sb, Node *n);
void arr_in(Gen *g, StrBuf *sb, Node *n);
void arr_delete(Gen *g, Node *n);
void arr_foreach(Gen *g, Node *n);

/* ---- translate_stats.c ------------------------------------------------------------------ */

void stat_declare(Gen *g, Global *gl);
void stat_lock_declare(Gen *g, Global *gl);
char *stat_struct(Symbol *sym, bool per_cpu);   /* a struct hwtap_stats initializer */
void stat_add(Gen *g, StrBuf *sb, Node *n);
void stat_op(Gen *g, StrBuf *sb, Node *n);
void stat_delete(Gen *g, Node *n);
void stat_hist_print(Gen *g, StrBuf *sb, Node *hist, bool to_string, Token *call);
void stat_hist_index(Gen *g, StrBuf *sb, Node *n);
void stat_hist_foreach(Gen *g, Node *n);

/* ---- regex.c: pass 3 of =~ and !~ ------------------------------------------------------ */

void regex_match_expr(Gen *g, StrBuf *sb, Node *n);
void regex_programs(Gen *g, StrBuf *out);         /* before struct hwtap_context */
void regex_context_members(Gen *g, StrBuf *out);  /* inside it */

/* A regex's program as regex.c flattens it (the Pike VM's tables): the states that
 * consume a byte and the final state, and from each of them and from the start (state
 * nstates) the arcs to the states reached without consuming, in priority order, with the
 * capture slots saved on the way; one list of arcs per condition (bit 0: at the subject's
 * start, bit 1: at its end), nconds 4 with anchors, else 1. */
typedef enum { RX_OP_BYTE, RX_OP_SET, RX_OP_MATCH } RxOp;
typedef struct {
	int to, first, n;       /* the state reached, its saves[first .. first + n) */
} RxArc;
typedef struct {
	int nstates, ncaps, nconds;
	int *op, *arg;          /* per state: its RxOp, and the byte or the index in sets */
	VEC(uint64_t *) sets;   /* 256-bit byte sets */
	int *arc_index;         /* the arcs of state s under cond k: arcs[arc_index[i] ..
				 * arc_index[i + 1]) with i = s * nconds + k */
	RxArc *arcs;
	int narcs;
	int *saves;
	int nsaves;
} RxProg;

/* ---- regex_dfa.c: a regex's program as a DFA ------------------------------------------- */

typedef enum {
	DFA_TEST,               /* is there a match */
	DFA_SEARCH,             /* where the leftmost-longest match is, and its groups */
} DfaKind;
typedef struct Dfa Dfa;
/* NULL when it would exceed max_cells entries or another bound; *why says which */
Dfa *regex_dfa(const RxProg *p, DfaKind kind, int max_cells, const char **why);
int regex_dfa_registers(const Dfa *a);           /* u16 registers its walk uses */
void regex_dfa_emit(StrBuf *out, const Dfa *a, const char *name);   /* hwtap_re_dfa NAME */

/* ---- translate_locks.c ------------------------------------------------------------------ */

void lock_plan(Session *s);                      /* the functions' summaries, first */
LockMode *probe_locks(Session *s, Probe *p);     /* per global, in s->globals order */
const char *lock_how(Global *gl, LockMode m);    /* "read", "write", "cpu", "all" */

#endif
