/* hwtap.h - what the translator's files share. One section per file, in pipeline order. */
#ifndef HWTAP_H
#define HWTAP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* strverscmp, and glibc's full set of declarations */
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Where hwtap's programs are: the build tree's (when hwtap runs from it) and the
 * installed ones (Makefile.am defines them; these defaults are for a build by hand). */
#ifndef HWTAP_BUILDDIR
#define HWTAP_BUILDDIR "."
#endif
#ifndef HWTAP_LIBEXECDIR
#define HWTAP_LIBEXECDIR "/usr/local/libexec/hwtap"
#endif
#ifndef HWTAP_BINDIR
#define HWTAP_BINDIR "/usr/local/bin"
#endif

typedef struct SrcFile SrcFile;
typedef struct Token Token;
typedef struct Node Node;
typedef struct Component Component;
typedef struct ProbePoint ProbePoint;
typedef struct Probe Probe;
typedef struct Function Function;
typedef struct Global Global;
typedef struct Script Script;
typedef struct Symbol Symbol;
typedef struct Session Session;
typedef struct ProbeFamily ProbeFamily;
typedef struct PointShape PointShape;
typedef struct Macro Macro;
struct GuestArch;                                /* guest/guest.h */

/* ---- util.c: arena memory, strings, growable arrays ---------------------------------- */

void *xalloc(size_t size);                       /* zeroed, lives until arena_reset() */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xformat(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvformat(const char *fmt, va_list ap);
void arena_reset(void);                          /* frees everything xalloc() returned */

typedef struct {
	char *buf;
	size_t len, cap;
} StrBuf;
void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growable array of pointers; `VEC(T)` documents what it holds. */
typedef struct {
	void **data;
	int len, cap;
} Vec;
#define VEC(T) Vec
void vec_push(Vec *v, void *item);
void vec_insert(Vec *v, int at, void *item);     /* before item AT; at == len appends */
/* p (cap elements of size bytes) with room for need; the arena frees the old copy */
void *xgrow(void *p, int *cap, int need, size_t size);

char *read_whole_file(const char *path, size_t *len);   /* NULL and errno on failure */
int edit_distance(const char *a, const char *b);
#define FNV1A_INIT 0xcbf29ce484222325ULL
uint64_t fnv1a(uint64_t h, const char *s, size_t n);
bool glob_match(const char *pattern, const char *s);     /* '*' and '?' like fnmatch */

/* ---- diag.c: diagnostics with a place and a caret ------------------------------------- */

struct SrcFile {
	const char *name;      /* as given: a path, "<input>" for -e, "-" for stdin */
	const char *text;      /* NUL-terminated contents */
	size_t len;
	bool is_tapset;
};

extern FILE *diag_out;             /* stderr normally; the fuzzer silences it */
extern int diag_errors;            /* errors reported since diag_reset() */
extern int diag_max_errors;        /* the pass stops collecting beyond this many */

void error_at(const Token *tok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void warn_at(const Token *tok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note_at(const Token *tok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void verror_at(const char *kind, const SrcFile *f, int line, int col, const char *fmt,
	       va_list ap);
/* error_at and warn_at at byte `offset` of the string literal at tok (a regex's) */
void error_in_string(const Token *tok, size_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void warn_in_string(const Token *tok, size_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void error_plain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_reset(void);
bool too_many_errors(void);
__attribute__((noreturn)) void internal_error(const char *file, int line, const char *fmt, ...);
#define unreachable() internal_error(__FILE__, __LINE__, "unreachable code reached")

/* ---- lex.c: source text to tokens ----------------------------------------------------- */

typedef enum {
	TK_IDENT,      /* names and keywords */
	TK_PUNCT,      /* operators and punctuation, including %( %? %: %) */
	TK_NUM,        /* integer literal: num holds its value as unsigned */
	TK_STR,        /* string literal: str holds the decoded bytes */
	TK_TARGET,     /* $name, $$vars, $name$, $name$$ */
	TK_AT,         /* @name: @count, @cast, macro uses ... */
	TK_ARG,        /* $1 / @1 / $# / @#: command-line arguments, before preprocessing */
	TK_EMBEDDED,   /* %{ ... %}: str holds the code between the braces */
	TK_EOF,
} TokenKind;

struct Token {
	TokenKind kind;
	Token *next;
	const char *pos;       /* where the spelling starts in file->text */
	int len;               /* spelling length */
	SrcFile *file;
	int line, col;         /* 1-based */
	bool space_before;     /* white space or a comment precedes it */
	bool line_start;       /* first token on its line */
	uint64_t num;          /* TK_NUM */
	char *str;             /* TK_STR, TK_EMBEDDED; NUL-terminated */
	size_t str_len;        /* TK_STR: length, may contain NUL bytes */
	Token *origin;         /* a macro-expanded token: the invocation it came from */
};

Token *tokenize(SrcFile *file);           /* reports lexical errors; always ends in TK_EOF */
SrcFile *new_srcfile(const char *name, const char *text, size_t len);
bool tok_is(const Token *tok, const char *spelling);
bool tok_is_keyword(const Token *tok);
char *tok_text(const Token *tok);         /* a copy of the spelling */
const char *tok_describe(const Token *tok); /* "identifier 'x'", "'}'", "end of input" */
/* The line and column of byte `offset` of a string literal's value (adjacent literals too) */
void tok_string_place(const Token *tok, size_t offset, int *line, int *col);

/* ---- pp.c: %( %) conditionals, @define macros, $1/@1 arguments --------------------- */

Token *preprocess(Token *tok, Session *s);
void pp_add_library_macros(Token *tok, Session *s);   /* from a tapset .stpm file */
const char *macro_name(const Macro *m);              /* without '@'; NULL: a broken one */

/* ---- parse.c: tokens to AST ----------------------------------------------------------- */

typedef enum {
	TY_UNKNOWN,
	TY_LONG,
	TY_STRING,
	TY_STATS,
	TY_HIST,        /* @hist_log(s): printed, indexed or iterated, nothing else */
} Type;

typedef enum {
	/* expressions */
	N_NUM,          /* num */
	N_STR,          /* str, str_len */
	N_VAR,          /* name: a local or global scalar, or an array when bare */
	N_INDEX,        /* name[args]; an arg is N_STAR in slices and deletes */
	N_STAR,         /* '*' in an index slice */
	N_CALL,         /* name(args) */
	N_TARGET,       /* $name with comps: ->field, [index] */
	N_DEREF,        /* lhs with comps: p->field, (q)[2] (autocast pointers) */
	N_AT_OP,        /* op = "@count" ...: lhs is the statistics value */
	N_HIST,         /* op = "@hist_log" / "@hist_linear": lhs, args = lo, hi, step */
	N_HIST_INDEX,   /* @hist_*(...)[bucket] */
	N_AT_CAST,      /* @cast(lhs, "type" [, "module"]) with comps */
	N_AT_VAR,       /* @var("name" [, "module"]) with comps */
	N_AT_DEFINED,   /* @defined(lhs) */
	N_AT_ENTRY,     /* @entry(lhs) */
	N_AT_PERF,      /* @perf("name") */
	N_AT_OTHER,     /* @kregister(n), @probewrite(v) ...: name, args */
	N_UNARY,        /* op in - + ! ~, lhs */
	N_ADDR,         /* &$target */
	N_PREINC,       /* op "++"/"--", lhs */
	N_POSTINC,      /* op "++"/"--", lhs */
	N_BINARY,       /* op in + - * / % << >> & | ^ */
	N_CONCAT,       /* lhs . rhs */
	N_COMPARE,      /* op in < > <= >= == != */
	N_REGEX,        /* op in =~ !~; rhs is a string literal */
	N_LOGICAL,      /* op in && || */
	N_TERNARY,      /* cond ? then : els */
	N_ASSIGN,       /* op in = += -= ... .= <<< */
	N_IN,           /* args (the keys) in rhs (array or slice) */
	N_EMBEDDED_EXPR,/* %{ C %} in expression position (guru mode) */
	/* statements */
	N_BLOCK,        /* args: statements */
	N_EXPR_STMT,    /* lhs */
	N_IF,           /* cond, then, els */
	N_WHILE,        /* cond, body */
	N_FOR,          /* init, cond, inc (each may be NULL), body */
	N_FOREACH,      /* see the foreach fields */
	N_BREAK,
	N_CONTINUE,
	N_NEXT,
	N_RETURN,       /* lhs may be NULL */
	N_DELETE,       /* lhs: a variable, an element or a slice */
	N_TRY,          /* body, then = catch block, name = catch variable or NULL */
	N_NULL,         /* ';' */
	N_EMBEDDED,     /* %{ C %} as a function body */
} NodeKind;

/* $name->field[3].x: one link of a target-variable chain */
typedef struct TargetComp {
	enum { TC_FIELD, TC_INDEX } kind;
	char *field;
	Node *index;
	Token *tok;
} TargetComp;

struct Node {
	NodeKind kind;
	Token *tok;             /* where diagnostics point */
	Type type;              /* filled by sema */
	const char *op;
	char *name;
	uint64_t num;
	char *str;
	size_t str_len;
	Node *lhs, *rhs;
	Node *cond, *then, *els;
	Node *init, *inc, *body;
	VEC(Node *) args;
	VEC(TargetComp *) comps;
	const char *pretty;     /* "$" or "$$" after a chain */
	struct UTarget *plan;   /* a process probe's $var: the C that reads it (sema) */
	/* foreach ([keys] in array[slice] sort limit N) with optional value = binding */
	Node *value;            /* N_VAR bound to the element value, or NULL */
	VEC(Node *) keys;       /* N_VAR each */
	Node *array;            /* N_VAR, N_INDEX (slice) or N_HIST */
	int sort_key;           /* 0: none, -1: by value, k > 0: by key k */
	int sort_dir;           /* +1 ascending, -1 descending */
	Node *limit;
	/* sema */
	Symbol *sym;
	Function *func;
};

struct Component {
	char *name;             /* may contain '*' wildcards */
	Node *arg;              /* N_NUM or N_STR, or NULL */
	bool has_parens;        /* name() without an argument */
	Token *tok;
};

struct ProbePoint {
	VEC(Component *) comps;
	struct USite *site;              /* a process probe's function, once concrete */
	bool optional;          /* ? */
	bool sufficient;        /* ! */
	Node *cond;             /* if (expr) */
	Token *tok;             /* its first component */
	Token *suffix_tok;      /* its '?', '!' or 'if', or NULL */
	bool braced;            /* one of the points alternatives in braces made */
};

struct Probe {
	VEC(ProbePoint *) points;
	VEC(ProbePoint *) alias_names;   /* non-empty for "probe a = b" */
	bool epilogue;                   /* "+=" */
	Node *epilogue_body;             /* probe a = b { }, { epilogue } */
	bool is_private;
	Node *body;
	Token *tok;
	Script *script;
	/* sema */
	VEC(Symbol *) locals;
	const char *derivation;          /* "timer.ms(100) <- my.alias" */
	const char *pn;                  /* pn(): the outermost alias name it came through
					  * ("my.alias", a wildcard's match), or NULL */
	const ProbeFamily *family;
	const PointShape *shape;         /* which of the family's spellings it is */
	Probe *origin;                   /* the user's probe this one derives from */
	ProbePoint *user_point;          /* and the point of it, as the script wrote it */
	bool body_taken;                 /* a derived probe owns body: others copy it */
	/* decided when the module starts (families with decided_at_load) */
	bool load_optional;              /* from a point with '?' or '!': may be skipped */
	VEC(Probe *) unless;             /* derived probes whose creation makes it needless */
	/* a process .return probe with @entry(): its companion where the function's body
	 * starts, which computes the expressions (entry_for: the other way) */
	Probe *entry_probe, *entry_for;
	VEC(Node *) entries;             /* the @entry nodes, num their index */
};

typedef struct Param {
	char *name;
	Type type;
	Token *tok;
} Param;

/* How a handler locks a global (translate_locks.c): ordered, the stronger last. */
typedef enum { LOCK_NONE, LOCK_ADD, LOCK_READ, LOCK_WRITE } LockMode;

struct Function {
	char *name;
	Type ret;                        /* declared, or TY_UNKNOWN to infer */
	VEC(Param *) params;
	Node *body;                      /* N_BLOCK or N_EMBEDDED */
	bool is_private;
	Token *tok;
	Script *script;
	Function *next_overload;
	int64_t priority;                /* "function f() : N": SystemTap's overload order */
	/* sema */
	VEC(Symbol *) locals;
	Type rtype;                      /* ret, or inferred from the returns */
	Token *rtype_at;                 /* the return that decided rtype */
	bool has_value;                  /* declared type, or some "return expr" */
	bool used;
	/* pass 3 */
	LockMode *lock_modes;            /* per global: what it and its callees lock */
};

struct Global {
	char *name;
	int64_t max_entries;            /* global a[N]; 0: default */
	bool wrap;                      /* global a% */
	Node *init;                     /* literal initialiser or NULL */
	bool is_private;
	Token *tok;
	Script *script;
	Symbol *sym;
	bool running_writes;            /* a handler other than begin, end, error writes it */
};

struct Script {
	SrcFile *file;
	VEC(Probe *) probes;             /* user probes */
	VEC(Probe *) aliases;            /* probe a = b */
	VEC(Function *) funcs;
	VEC(Global *) globals;
	VEC(Token *) embeds;             /* top-level %{ %} */
	bool is_tapset;
	bool used;                       /* sema pulled something from it */
	bool probes_derived;             /* a used tapset file's own probes joined the script's */
	int order;                       /* a tapset file's place in the library, from 1 */
};

Script *parse_script(SrcFile *file, Session *s);   /* NULL only when nothing parsed */
Node *new_node(NodeKind kind, Token *tok);
bool node_any(Node *n, bool (*pred)(Node *, void *), void *arg);   /* N or one under it */
bool is_keyword(const char *name);

/* ---- print.c: -p1 normalized source, -p2 elaborated program -------------------------- */

void print_script(FILE *out, Script *sc);
void print_node(StrBuf *sb, Node *n);
void print_stmt(StrBuf *sb, Node *n, int depth);   /* ends with a newline */
void print_probe_point(StrBuf *sb, ProbePoint *pp);
const char *type_name(Type t);

/* ---- probes.c and probe_*.c: probe-point families ------------------------------------ */

typedef enum { ARG_NONE, ARG_NUMBER, ARG_STRING, ARG_OPT_NUMBER, ARG_OPT_STRING } ArgShape;

/* One spelling a family accepts, as -l lists it, with its context variables for -L. */
typedef struct PointShape {
	const char *pattern;             /* "timer.ms(number).randomize(number)" */
	const char *context_vars;        /* "status:long addr:long", or NULL */
	const char *unavailable;         /* why no kernel hwtap targets has it, or NULL */
	bool values_listed;              /* -l with a string argument lists the family's
					  * values (its list hook), not this shape */
} PointShape;

struct ProbeFamily {
	const char *name;                /* the first component: "timer" */
	const PointShape *shapes;        /* NULL-terminated; matching, listing and hints */
	/* The shape pp has, or NULL if pp is not this family's. It reports what is wrong
	 * with pp's values. NULL here: shape_match(). */
	const PointShape *(*match)(const ProbeFamily *f, ProbePoint *pp, Session *s);
	/* Whether its points exist only when the module starts on a machine (perf events,
	 * hardware-error sources): '?' and '!' are then decided there, not in pass 2. */
	bool decided_at_load;
	/* Adds concrete points matching a pattern for -l (perf.events("*")), with what -L
	 * says of each when WITH_VARS; may be NULL. */
	void (*list)(const char *pattern, bool with_vars, Session *s, Vec *out);
	/* The concrete points pp stands for (one per function a glob matches), appended
	 * to OUT; how many. None: an error said why, unless QUIET (an optional point).
	 * NULL: pp itself is the one point. */
	int (*expand)(const ProbeFamily *f, ProbePoint *pp, Session *s, bool quiet, Vec *out);
};

extern const ProbeFamily *const probe_families[];
const ProbeFamily *find_family(ProbePoint *pp, Session *s, const PointShape **shape);
const PointShape *shape_match(const ProbeFamily *f, ProbePoint *pp);
int64_t point_number(ProbePoint *pp, int component);
bool point_pattern_matches(const char *pattern, const char *point);
const char *point_pattern_error(const char *pattern);
void list_family_points(const char *pattern, bool with_vars, Session *s, Vec *out);
const char *closest_point(ProbePoint *pp, Session *s, Vec *alias_names);
/* The error for a point of a SystemTap family hwtap does not have (syscall.open,
 * kernel.function("f")), or NULL. */
const char *foreign_point_error(ProbePoint *pp);
char *probe_point_string(ProbePoint *pp);
/* The context variable a $target names: "pfn" for $pfn, "m->status" for $m->status (and
 * for $m->status->x, whose rest pass 2 refuses). */
char *target_key(Node *n);
/* KEY's type in a shape's VARS ("pfn:long m->status:long"): "long..." or "string...", or
 * NULL if it has none; *SLOT (when not NULL) is its index among the strings or among the
 * others, as a ras record keeps them. */
const char *context_var_find(const char *vars, const char *key, int *slot);

/* ---- probe_perf.c -------------------------------------------------------------------- */

/* SystemTap's default sample period when a perf point gives none. */
#define PERF_DEFAULT_PERIOD 1000000

/* The exclude_* bits of a perf_event_attr, for PerfEvent.exclude. */
enum {
	PERF_EXCL_USER = 1, PERF_EXCL_KERNEL = 2, PERF_EXCL_HV = 4, PERF_EXCL_IDLE = 8,
	PERF_EXCL_HOST = 16, PERF_EXCL_GUEST = 32,
};

typedef struct PerfEvent {
	uint32_t type;
	uint64_t config, config1, config2;
	unsigned exclude;                /* PERF_EXCL_* */
	unsigned precise_ip;             /* 0-3: skid allowed */
	bool exclusive;                  /* alone on the PMU */
	bool pinned;                     /* always on the PMU, or in error */
	int cpu;                         /* the one CPU to count on, or -1: every CPU */
	uint64_t period;                 /* sample every period events, or */
	uint64_t freq;                   /* about freq samples a second (.hz) */
	bool period_in_name;             /* perf.events("cycles:period=N") gave one */
	const char *counter;             /* .counter("NAME"): counting, read with @perf */
	bool target;                     /* .process: the target process and its children */
	const char *process_path;        /* .process("PATH"): every task that executes it */
	const char *group;               /* .group("NAME"): one perf event group with the
					  * other counters of NAME, opened by hwtap-run
					  * ("@COUNTER": a .cgroup counter's own) */
	const char *cgroup;              /* .cgroup("PATH"): only while its tasks run */
} PerfEvent;

/* PERF_EXCL_* and the perf_event_attr field each stands for; ends with {0, NULL}. */
typedef struct PerfExclude {
	unsigned bit;
	const char *field;
} PerfExclude;
extern const PerfExclude perf_excludes[];

const char *perf_point_event(ProbePoint *pp, PerfEvent *ev);
char *perf_attr_string(const PerfEvent *ev);     /* "type 4 config 0xc0 ...", for -p2 */
void perf_check_groups(Session *s);              /* what a group's counters must share */

/* ---- elf.c, dwarf.c: user-space programs (process("PATH") probes) --------------------- */

typedef struct UProgram UProgram;       /* an ELF file, opened once per run */
typedef struct Elf Elf;

/* A function of a program: from its DWARF, or from its symbol table (dwarf false). */
typedef struct UFunc {
	char *name;
	char *file;                      /* where DWARF says it is declared, or NULL */
	int line;
	uint64_t entry;                  /* its first instruction, a link-time address */
	uint64_t body;                   /* where its prologue ends: entry without DWARF */
	uint64_t die;                    /* its DIE's offset in .debug_info */
	bool dwarf;
	bool inlined;                    /* an inlined copy (DW_TAG_inlined_subroutine), */
	uint64_t frame_die;              /* in this function (its frame base): its DIE */
} UFunc;

/* Which functions uprog_functions() gives. */
enum { UFUNC_OUT_OF_LINE = 1, UFUNC_INLINED = 2 };

/* The C that reads a context variable: placeholders \001K\002 for the K-th index
 * expression, filled in pass 3. */
typedef struct UTarget {
	Type type;                       /* TY_LONG */
	char *c;
	VEC(Node *) indexes;
} UTarget;

char *uprog_resolve(const char *path);          /* $PATH lookup of a bare name, or NULL */
bool uprog_is_vm_file(Session *s, const char *path);
UProgram *uprog_open(Session *s, const char *path, const char **why);   /* once per s */
void uprog_close_all(Session *s);       /* before the arena goes (fuzz_front.c) */
void dwarf_close(UProgram *p);
const char *uprog_path(UProgram *p);
bool uprog_same_file(UProgram *a, UProgram *b);
bool uprog_is_pie(UProgram *p);
void uprog_set_kernel(UProgram *p);     /* a vmlinux: kernel reads, KASLR-shifted statics */
bool uprog_is_kernel(UProgram *p);
uint16_t uprog_machine(UProgram *p);
Elf *uprog_elf(UProgram *p);
void **uprog_dwarf_slot(UProgram *p, bool **tried);    /* dwarf.c's state of P */
bool uprog_offset(UProgram *p, uint64_t vaddr, uint64_t *off);
void uprog_symbol_functions(UProgram *p, const char *name, Vec *out);
bool uprog_has_dwarf(UProgram *p);
bool uprog_dwarf_opens(UProgram *p);    /* it has DWARF (its functions not read yet) */
void uprog_functions(UProgram *p, const char *name, const char *file, int line, int kinds,
		     Vec *out);
UTarget *dwarf_target(UProgram *p, UFunc *f, uint64_t pc, bool ret, Node *n, bool address,
		      const char **why, Token **where);
void dwarf_var_names(UProgram *p, UFunc *f, uint64_t pc, bool parms, bool locals, Vec *out);
bool dwarf_var_is_struct(UProgram *p, UFunc *f, uint64_t pc, const char *name);
char *dwarf_var_list(UProgram *p, UFunc *f, uint64_t pc, bool ret);   /* for -L */
char *dwarf_cfa(UProgram *p, UFunc *f, uint64_t pc, const char **why);  /* C, or NULL */
bool dwarf_line_address(UProgram *p, UFunc *f, int line, bool nearest, uint64_t *addr,
			int *at);
void dwarf_code_lines(UProgram *p, UFunc *f, Vec *out);   /* its lines with code (intptr_t) */
/* A row of a line table: the source line of the code from ADDR on (end: none after it). */
typedef struct ULine {
	uint64_t addr;
	int line;
	const char *file;                /* as the table names it, or NULL */
	bool end;                        /* an end of sequence */
	int order;                       /* in the tables */
} ULine;
void dwarf_line_rows(UProgram *p, Vec *out);    /* every row, by address, one per address */

/* ---- kdwarf.c: the target kernel's DWARF (linux-image-RELEASE-dbg), where installed --- */

#define KDWARF_BIAS_SYMBOL "kfree"      /* the runtime's KASLR reference: exported, out of line */
UProgram *kdwarf(Session *s, const char **why);  /* its vmlinux, or NULL and *WHY */
const char *kdwarf_file(Session *s);   /* the file kdwarf() would open (unchecked), or NULL */
bool kdwarf_bias_link(UProgram *p, uint64_t *addr);

/* ---- usyms.c: user programs' symbol tables in the module (pass 3) -------------------- */

bool usyms_needed(Session *s);                  /* a used function says pragma:usyms */
char *usyms_tables(Session *s);                 /* the tables as C, for the module */

/* ---- probe_process.c ------------------------------------------------------------------ */

/* Where a process probe is: a function of a program, at its body or (ret) its entry. */
typedef struct USite {
	UProgram *prog;
	UFunc *func;
	bool ret;                        /* .return: a uretprobe on the function's entry */
	uint64_t pc;                     /* the probe's link-time address */
	uint64_t offset;                 /* and its offset in the file */
} USite;

/* The most @entry() expressions a .return probe may have (runtime/lang.h's too). */
#define HWTAP_UENTRY_MAX 8
#define HWTAP_UENTRY_STRS_MAX 4          /* of them strings (copied whole: MAXSTRINGLEN each) */

USite *process_site(Probe *p);
/* One point per function, inlined copy or line PP's second component (function(...),
 * statement(...)) names in PROG (a program's DWARF, or the kernel's), each with its USite;
 * how many (0: none, said unless QUIET) */
int dwarf_sites(ProbePoint *pp, UProgram *prog, bool quiet, Vec *out);
bool statement_spec_ok(Component *fc);  /* statement("...")'s form; false once said */
/* PP with PATH as its process("...") and SPEC (when not NULL) as its second component's
 * argument */
ProbePoint *process_point_with(ProbePoint *pp, const char *path, const char *spec);
extern const ProbeFamily process_family, process_task_family;
/* ---- btf.c: the target kernel's BTF (libbpf) ------------------------------------------ */

typedef struct KBtf KBtf;
KBtf *kbtf(Session *s, const char **why);        /* NULL and *WHY: none for its kernel */
KBtf *kbtf_module(Session *s, const char *module, const char **why);   /* split on kbtf() */
void kbtf_functions(KBtf *k, const char *glob, Vec *out);   /* names GLOB matches, sorted */
/* FUNC's parameter NAME: its index, and *SIZE (0: not a scalar) and *IS_SIGNED; or -1 */
/* FUNC's parameter NAME after the first SKIP: its index among the rest and *TYPE_ID; or -1 */
int kbtf_param(KBtf *k, const char *func, int skip, const char *name, int *type_id);
int kbtf_return(KBtf *k, const char *func);     /* its type's id; 0: void or none */
char *kbtf_params(KBtf *k, const char *func, int skip);  /* "$file:struct file* $count:size_t" */
void kbtf_param_names(KBtf *k, const char *func, int skip, Vec *out);
char *kbtf_type_name(KBtf *k, int type_id);     /* "struct task_struct*" */
int kbtf_nparams(KBtf *k, const char *func);
bool kbtf_params_fit(KBtf *k, const char *func, int skip, const char **bad);
/* VALUE (C, a u64) of type TYPE_ID with N's ->member and [index] applied, read without
 * faults; or NULL, *WHY and *WHERE */
UTarget *kbtf_target(KBtf *k, int type_id, const char *value, Node *n, bool address,
		     const char **why, Token **where);
void kbtf_tracepoints(KBtf *k, Vec *out);        /* every tracepoint's name, sorted */
int kbtf_named_type(KBtf *k, const char *name);  /* "task_struct": its id, or 0 */
char *kbtf_traceiter(const char *tracepoint);    /* the function whose parameters it has */
bool kbtf_has_function(KBtf *k, const char *name);   /* its own, not its base's */

/* tpmodules.c: the tracepoints of the target kernel's modules (an index kept in the cache) */
int tpmodules_count(Session *s);
/* the I-th (sorted by name): its name, *MODULE ("ext4"; "-": the core kernel's) and *SYSTEM
 * ("" when not known) */
const char *tpmodules_at(Session *s, int i, const char **module, const char **system);
const char *tpmodules_module(Session *s, const char *name);     /* NULL: none defines it */
const char *tpmodules_core_system(Session *s, const char *name);  /* by its event, or NULL */
void kbtf_close(Session *s);                    /* frees it (uprog_close_all) */

/* probe_kprobe.c: kprobe.function("NAME")[.return], kprobe.module("M").function(...) */
extern const ProbeFamily kprobe_family, kernel_family, module_family;
bool kfunc_family(const ProbeFamily *f);        /* kernel.function or module().function */
bool kentry_family(const ProbeFamily *f);       /* those and kprobe.function: @entry */
const char *kprobe_module(Probe *p);             /* module("M")'s M, or NULL */
KBtf *kfunc_btf(Session *s, Probe *p);           /* the BTF its function is in, or NULL */
void kernel_entry_params(Session *s, Probe *p, Vec *out);   /* $$parms a .return keeps */
void kernel_dwarf_if_needed(Session *s, Probe *p);  /* a local read: its DWARF site */
UFunc *dwarf_function_at(UProgram *p, uint64_t entry);  /* the function starting there */
const char *kprobe_symbol(Probe *p, bool *ret);  /* "NAME" or "M:NAME"; *RET: .return */
const char *kfunc_name(ProbePoint *pp);          /* kernel/module().function's NAME */
uint64_t kprobe_address(Probe *p);               /* its link-time address (DWARF), or 0 */
Type kernel_target(Session *s, Probe *p, Node *n, Node *at, bool report);  /* AT->plan */
bool logical_rhs_dead(Node *n);     /* sema.c: @defined(x) && ...: the rest not evaluated */
/* probe_task.c: "HWTAP_TASK_BEGIN" ... for runtime/probes/tasks.c, and the PATH followed (NULL:
 * every process, or the target's) */
const char *task_probe_kind(Probe *p, const char **path);
void process_entry_probe(Session *s, Probe *ret);   /* @entry's companion, if it needs one */
Type process_target(Probe *p, Node *n, Node *at, bool report);
bool process_var_list(Probe *p, Node *n, char **format, Vec *args);
void entry_list_format(Node *n, StrBuf *f, Vec *args);  /* .return's $$parms at the call */
/* @var("NAME[@FILE]"[, "PATH"]) in a process probe made the $NAME it stands for; false
 * after saying why it cannot (when REPORT) */
bool process_at_var(Probe *p, Node *n, bool report);
bool dwarf_file_matches(const char *glob, const char *path);   /* "x.c" names "/src/x.c" */

/* ---- probe_ras.c --------------------------------------------------------------------- */

/* A hardware-error source: the kernel tracepoint behind a ras point and what pass 3
 * needs to write its callback. */
typedef struct RasSource {
	const char *point;               /* "ras.mce" */
	const char *tracepoint;          /* "mce_record" */
	const char *config;              /* the kernel option without which it has none */
	const char *header;              /* what its arguments' types need, or NULL */
	const char *params;              /* the tracepoint's arguments, as C parameters */
	const char *fields[32];          /* each context variable's value, in C; strings
					  * "guid:ARG" are a guid_t * printed as text,
					  * "rwbs:FLAGS" a request's flags as blktrace
					  * writes them ("RS"), "array:ARRAY" a char array;
					  * longs "ptr:P" a pointer the tracepoint passed,
					  * 0 in a record handled after its call */
	const char *filter;              /* only the events for which this C holds, or NULL */
	const char *prologue;            /* C statements the fields' C may use, or NULL */
} RasSource;

const RasSource *ras_source(const PointShape *shape);   /* NULL: not a ras point */
const char *trace_system(const PointShape *shape);      /* kernel.trace's "mce", or NULL */
bool trace_arg_is_pointer(const PointShape *shape, const char *name);
bool trace_is_decoded(const char *point);       /* "kernel.trace(\"mce:mce_record\")" is ras's */

/* ---- probe_tracepoint.c: kernel.trace on any tracepoint, from BTF ------------------------ */
extern const ProbeFamily tracepoint_family;
const char *tracepoint_name(Probe *p, const char **system);    /* "sched_switch", "sched" */
const char *tracepoint_module(Session *s, Probe *p);   /* the module defining it, or NULL */
int tracepoint_nargs(Session *s, Probe *p);
Type tracepoint_target(Session *s, Probe *p, Node *n, Node *at, bool report);  /* AT->plan */
/* $$parms/$$vars/$$return of a kernel.trace or kernel.function probe: "a=%#x b=%#x" and
 * the $NAME nodes it prints; false: N is none of them */
bool kernel_var_list(Session *s, Probe *p, Node *n, char **format, Vec *args);

/* ---- pmu.c: the PMU's events by name, through libpfm4 --------------------------------- */

/* Use libpfm4's model MODEL (--pmu) instead of the detected one: NULL, or why not. */
const char *pmu_select_model(const char *model);
/* NAME ("[PMU::]EVENT[:MODIFIER...]") into EV's counter fields (and its period, if the
 * name gives one): NULL, or why not, with a hint where one helps. */
const char *pmu_encode(const char *name, PerfEvent *ev);
/* perf.events("PMU::EVENT") for each event whose name, qualified or not, matches GLOB
 * (case-insensitive); WITH_DESC adds its description and whether this machine counts it. */
void pmu_list(const char *glob, bool with_desc, Vec *out);

/* ---- tapset.c: library search path and loading ---------------------------------------- */

void tapset_load_macros(Session *s);     /* every .stpm on the path: scanned, or read */
void tapset_load(Session *s);            /* every .stp on the path: scanned, or parsed */
typedef enum {
	TAPSET_FUNCTION, TAPSET_GLOBAL, TAPSET_ALIAS, TAPSET_MACRO, TAPSET_KINDS
} TapsetName;
/* Parses the files that may declare NAME as a KIND (an alias: by the first component of
 * its name), or every file with a KIND when NAME is NULL, into their s->tapsets places;
 * a .stpm file is read into s->library_macros. */
void tapset_need(Session *s, TapsetName kind, const char *name);
void tapset_parse_all(Session *s);       /* -l and -L list every alias */

/* ---- tapset_scan.c: what a tapset file declares, without parsing it --------------------- */

/* The names FILE declares into NAMES[kind] (an alias's first component); false where only
 * the preprocessor or a parse could tell. */
bool tapset_scan(const SrcFile *file, Vec names[TAPSET_KINDS]);          /* a .stp file */
bool tapset_scan_macros(const SrcFile *file, Vec names[TAPSET_KINDS]);   /* a .stpm file */

/* ---- sema.c: pass 2 -------------------------------------------------------------------- */

typedef enum { SYM_LOCAL, SYM_GLOBAL, SYM_PARAM } SymKind;

struct Symbol {
	SymKind kind;
	char *name;
	Type type;
	int arity;                       /* 0 scalar, N array of N keys, -1 unknown */
	Type *key_types;                 /* arity entries */
	Global *global;
	Token *decl;
	Token *typed_at;                 /* where its type was first decided */
	bool assigned;
	bool read;                       /* its value is used (not just updated: x++, x += 1) */
	int first_use;                   /* globals: when pass 2 first met it, from 1 */
	/* statistics, from check.c: one histogram kind and one @variance bit shift each */
	Node *hist;                      /* the first @hist_log/@hist_linear of it, or NULL */
	int bit_shift;
	bool variance;                   /* @variance reads it */
	bool stat_sum, stat_min, stat_max;  /* @sum or @avg, @min, @max read it (or sort by) */
};

/* print, printf, sprintf ...: functions of the language itself */
typedef struct Builtin {
	const char *name;
	int min_args;                    /* -1: printf-like, the format first */
	bool returns_string;
	bool newline;
	bool delimited;                  /* printd: the delimiter first */
} Builtin;

int elaborate(Session *s);                /* 0, or the number of errors */
/* display.c: the end probe printing the globals syms (written, never read), or NULL */
char *display_source(VEC(Symbol *) *syms);
const Builtin *find_builtin(const char *name);
bool is_print_builtin(const char *name);  /* print, printf, sprintf ... */
void elide_unused(Session *s);           /* elide.c: drop dead stores of locals (pass 3) */
void print_elaborated(FILE *out, Session *s);

/* ---- format.c: printf's directives ------------------------------------------------------- */

enum { FMT_ZEROPAD = 1, FMT_PLUS = 2, FMT_SPACE = 4, FMT_LEFT = 8, FMT_SPECIAL = 16 };
#define FMT_STAR (-2)            /* a width or precision from an argument ('*') */
#define FMT_MAX (1 << 24)        /* widths and precisions saturate here */

/* One directive: "%-8.3d" is FMT_LEFT, width 8, precision 3, 'd'. */
typedef struct {
	unsigned flags;
	int width, prec;         /* -1: none, FMT_STAR */
	char conv;               /* d i o x X u c p b m M s */
	Type type;               /* of its argument: TY_LONG, or TY_STRING for %s */
} Directive;

/* Reads the directive after a '%': returns the character after it, or NULL when it is
 * not one; *conv_at is where its conversion is (or should be). */
const char *format_directive(const char *p, Directive *d, const char **conv_at);

/* ---- regex.c: regular expressions (pass 3's part is in translate.h) ------------------ */

bool regex_check(Node *lit);   /* compiles the regex literal of =~ or !~; false: reported */

/* ---- check.c: pass 2's checks on the elaborated program --------------------------------- */

void check_program(Session *s);   /* foreach writes, histogram kinds, bit shifts */
/* Whether running n can give sym (a variable or an array) another value: an assignment,
 * ++, --, delete, a foreach binding, a catch variable, directly or in a function n calls.
 * (Embedded C is taken at its word: it names no script variable.) */
bool node_modifies(Node *n, Symbol *sym);

/* ---- translate.c: pass 3 ------------------------------------------------------------- */

int translate(Session *s, const char *module_name, StrBuf *out);   /* 0 or errors */

/* ---- build.c: pass 4 ----------------------------------------------------------------- */

/* Builds the module; returns the path of the .ko (in the cache), or NULL after saying
 * why. */
char *build_module(Session *s, const char *module_name, const char *source);
/* pass 4 of N modules in one kbuild run; WHAT[i] names each in messages */
int build_modules(Session *s, int n, char **names, char **sources, const char **what,
		  char **kos);
/* The -D flags of the target kernel's features (runtime/features/), or NULL after saying
 * why: "-DHWTAP_HAVE_RB_COMMIT_ONE_ARG ...". Cached per build tree. */
char *kernel_features(Session *s);

/* ---- sign.c: signed modules ------------------------------------------------------------ */

/* The key pair from --sign-key/--sign-cert or /etc/hwtap/signing.conf, checked (the key is
 * a secret: the user's own, 0600); false after saying why. */
bool sign_setup(Session *s);
/* Why the target kernel takes only signed modules ("module.sig_enforce=1", ...), or NULL */
const char *signing_rule(Session *s);
/* Before pass 4: when the kernel takes only signed modules and no key is set, an error
 * for pass 5 (false), a warning for -p4 (true). */
bool sign_check_rule(Session *s);
/* build.c: KO copied into the --bundle folder as NAME-RELEASE.ko (made 0755 if missing):
 * its path, or NULL after saying why. */
char *bundle_add(Session *s, const char *ko, const char *name);
/* The signed copy of KO (in DIR's signed-HASH/NAME.ko), made or from the cache; NULL
 * after saying why. */
char *sign_module(Session *s, const char *dir, const char *name, const char *ko);

/* ---- cache.c: the module cache's folder, use times and size bound --------------------- */

const char *cache_dir(const char *kind);            /* $XDG_CACHE_HOME/hwtap/KIND; NULL: said */
const char *cache_root(void);                       /* the modules': cache_dir("modules") */
bool cache_own_file(const char *path);              /* a regular file, the user's, not others' to write */
int mkdirs(const char *path, mode_t mode);          /* build.c: PATH and its parents */
bool copy_file(const char *from, const char *to);   /* build.c: FROM's bytes into TO (made) */
void cache_touch(const char *dir);                  /* a hit: the folder is in use */
void cache_prune(const char *keep, bool verbose);   /* after adding the folder keep */
void cache_remove(const char *path);                /* a folder and all it holds */

/* ---- run.c: pass 5 ------------------------------------------------------------------ */

int run_module(Session *s, const char *ko_path, const char *module_name);  /* exit status */
/* Whether pass 5 runs in the QEMU guest: --vm, or this kernel takes no modules */
bool session_runs_in_guest(Session *s);
/* Before pass 4, for pass 5: what would keep the run from starting that can be known now
 * (in the guest, a file --ras-db, --textfile or --pprof names that cannot come home);
 * false after saying why. */
bool run_preflight(Session *s);
const char *runtime_parent(Session *s);

/* ---- main.c: the session ------------------------------------------------------------ */

struct Session {
	int pass;                         /* 1..5 */
	int failed_pass;                  /* set by run_front_end() */
	int exit_status;                  /* pass 5: the module run's */
	FILE *out;                        /* -p1/-p2 output; NULL: stdout */
	int verbose;
	bool guru;
	const char *script_name;
	VEC(char *) include_dirs;         /* -I, searched after the built-in tapset */
	VEC(char *) defines;              /* -D NAME=VALUE */
	VEC(char *) args;                 /* script arguments: $1, @1 */
	const char *kernel_release;       /* kernel_vr */
	const char *kernel_version;       /* kernel_v */
	const char *kernel_build;         /* its build tree, or NULL */
	const char *arch;                 /* kernel ARCH's name: x86_64, arm64 */
	const struct GuestArch *target_arch;  /* -a ARCH: built for and run in its guest;
					   * NULL: this machine's */
	const char *compat;               /* systemtap_v */
	const char *tapset_dir;
	char *kconfig;                    /* .config contents, or NULL: session_kconfig() */
	bool kconfig_loaded;

	const char *module_name;          /* -m */
	bool keep_build;                  /* -k: keep the whole build folder, say where */
	int bufsize_mb;                   /* -s */
	const char *output_file;          /* -o */
	const char *file_limits;          /* -S SIZE[,N], for hwtap-run */
	const char *textfile;             /* --textfile FILE, for hwtap-run */
	const char *pprof;                /* --pprof FILE, for hwtap-run (not in the guest) */
	const char *ras_db;               /* --ras-db FILE, for hwtap-run */
	long target_pid;                  /* -x: what target() returns */
	const char *command;              /* -c: run it while the module runs */
	int max_commands;                 /* -j: system()'s commands at once, or 0 */
	bool detach;                      /* -F: leave the session running, detached */
	bool vm;                          /* --vm: run in the QEMU guest */
	bool vm_icount;                   /* --vm-icount: QEMU's icount, one CPU */
	bool vm_kaslr;                    /* --vm-kaslr: the bzImage, placed by KASLR */
	const char *vm_cpu;               /* --vm-cpu MODEL: QEMU's CPU model */
	bool vm_pcie;                     /* --vm-pcie: a PCI Express guest (AER) */
	bool vm_ghes;                     /* --vm-ghes: an arm64 guest with a GHES source */
	const char *vm_append;            /* --vm-append WORDS: the guest kernel's command line */
	const char *sign_key, *sign_cert; /* sign.c: the key pair modules are signed with */
	const char *sign_from;            /* where it was named: for messages */
	bool no_sign;                     /* --no-sign: not even /etc/hwtap/signing.conf's */
	const char *bundle;               /* --bundle DIR: pass 4's module copied into DIR as
					   * NAME-RELEASE.ko (one script, many kernels) */
	bool name_any_kernel;             /* the default module name leaves the kernel out */
	int vm_cpus, vm_mem, vm_timeout, vm_stop_timeout;
	VEC(char *) vm_modprobe;
	VEC(char *) vm_files;
	VEC(char *) symbol_files;         /* -d PATH: user programs whose symbols to carry */
	bool ldd;                         /* --ldd: and the libraries they need */
	struct KBtf *kbtf;                /* btf.c: the target kernel's BTF, once read */
	const char *kbtf_why;             /* why there is none */
	bool kbtf_loaded;
	struct UProgram *kdwarf;          /* kdwarf.c: the target kernel's DWARF, once found */
	const char *kdwarf_why;
	bool kdwarf_loaded;
	struct TpSystems *tp_systems;     /* probe_tracepoint.c: tracepoints' systems, once read */
	struct TpModules *tp_modules;     /* tpmodules.c: modules' tracepoints, once read */
	VEC(struct KBtf *) kbtf_modules;  /* btf.c: modules' BTF, each read once (or why not) */

	Script *user;                     /* the script given on the command line */
	VEC(Script *) tapsets;            /* in the library's order; a file not parsed yet
					   * (tapset.c) is an empty stand-in */
	struct TapsetIndex *tapset_index; /* tapset.c: what the files not parsed declare */
	int tapset_parses;                /* tapset files parsed so far */
	VEC(Macro *) library_macros;      /* pp.c's macros from the tapset's .stpm files */
	VEC(Probe *) probes;              /* after elaboration */
	VEC(struct UProgram *) programs;  /* elf.c: the files process probes opened */
	VEC(Global *) globals;
	VEC(Function *) funcs;
};

void session_init(Session *s);
const char *probe_name(Session *s, Probe *p);   /* for messages: "my.cycles (perf.hw.cycles)" */
void session_set_kernel(Session *s, const char *release_or_build_dir);
const char *session_kconfig(Session *s);
const char *session_config_value(Session *s, const char *config_name);
int run_front_end(Session *s, const char *name, const char *text, size_t len);
int run_back_end(Session *s);                 /* passes 3-5: the exit status */

#endif
