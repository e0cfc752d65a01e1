/* regex.c - the regular expressions of =~ and !~, compiled for runtime/regex.h.
 *
 * A regex (always a string literal) is parsed into a tree, compiled to a Pike-VM program
 * (byte and set tests, splits in priority order, jumps, capture saves, anchors, match),
 * then flattened: the states that consume a byte, the final state, and for each of them
 * and for the start the arcs to the states reachable without consuming anything, in
 * priority order, with the capture slots recorded on the way (RxProg, translate.h). A
 * regex with ^ or $ gets one list of arcs per combination of being at the subject's start
 * and end. regex_dfa.c turns that into a DFA, which is what the module walks; a regex
 * whose DFA would be too large runs as the flattened program itself, on the Pike VM (and
 * -v says so). runtime/regex.h describes the matching itself.
 *
 * Pass 2 compiles every regex (regex_check) and reports the first problem at its byte in
 * the literal; pass 3 compiles again, builds the DFA the script needs (a test when
 * nothing reads the last match, else a search that also finds the groups), emits each
 * distinct regex's tables once as static const data and sizes the per-CPU scratch of the
 * matcher for the largest (regex_match_expr, regex_programs, regex_context_members).
 *
 * The dialect is SystemTap 4.8's (checked with its translator):
 *   x              a byte; "\x" is x itself, for any x ("\." a dot, "\d" the letter d)
 *   .              any byte
 *   [set] [^set]   bytes, ranges a-z, classes [:alpha:] ..., "\x" for x; "]" first and
 *                  "-" first or last stand for themselves; [^...] is every other byte
 *   ^ $            the subject's start and end, anywhere in the regex
 *   x* x+ x? x{m} x{m,} x{m,n}   repetition, also of a repetition (x**)
 *   x|y (x)        alternation, where a branch may be empty; groups, numbered by "("
 * What SystemTap takes by accident is an error here: an unmatched ")" (SystemTap ignores
 * the rest of the regex), "[." and "[=" in a set (it reads them as plain bytes), "(?"
 * (it repeats nothing), x{m,n} with m > n (its translator aborts).
 *
 * Bounds keep a module small and a match short: repetition counts up to RX_MAX_COUNT,
 * programs up to RX_MAX_INSNS instructions once repetitions are expanded and RX_MAX_ARCS
 * arcs, and at most RX_MAX_SCRATCH bytes of the Pike VM's scratch per CPU. A regex within
 * them builds whether its DFA fits or not. One beyond the Pike VM's bounds (up to
 * RX_MAX_ARCS_DFA arcs: an alternation of a hundred words, where SystemTap 4.8 stops at
 * 63 branches) builds when its DFA fits: pass 2 tries the test's, pass 3 says so when
 * the search a script that reads matched() needs does not fit.
 */
#include "translate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define RX_MAX_COUNT 1000       /* x{m,n}: m and n */
#define RX_MAX_DEPTH 100        /* groups inside groups */
#define RX_MAX_INSNS 3000
#define RX_MAX_ARCS 4096        /* of a program the Pike VM runs */
#define RX_MAX_ARCS_DFA 65536   /* of one only a DFA runs */
#define RX_MAX_SAVES 65535
#define RX_MAX_SCRATCH 8192

/* ---- the tree ---------------------------------------------------------------------------- */

typedef enum { RX_BYTE, RX_SET, RX_BOL, RX_EOL, RX_CAT, RX_ALT, RX_REPEAT, RX_GROUP } RxKind;

typedef struct Rx Rx;
struct Rx {
	RxKind kind;
	size_t at;              /* where it starts in the regex (a repetition: its operator) */
	int byte;               /* RX_BYTE */
	uint64_t set[4];        /* RX_SET: bit b of set[b / 64] */
	VEC(Rx *) items;        /* RX_CAT: in order (none: empty); RX_ALT: the branches */
	Rx *sub;                /* RX_REPEAT, RX_GROUP */
	int min, max;           /* RX_REPEAT; max < 0: unbounded */
	int group;              /* RX_GROUP: 1, 2, ... */
	int64_t size;           /* instructions it compiles to, at most RX_MAX_INSNS + 1 */
};

typedef struct {
	const char *s;          /* the regex: len bytes, which may include NUL */
	size_t len;
	Node *lit;              /* its literal, where errors point */
	int groups;
	int depth;
	bool failed;            /* the first error is the only one reported */
	bool warn;              /* pass 2 warns; pass 3 compiles again, quietly */
} Parser;

static void fail(Parser *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(Parser *p, size_t at, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = true;
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvformat(fmt, ap);
	va_end(ap);
	error_in_string(p->lit->tok, at, "%s", msg);
}

static Rx *new_rx(RxKind kind, size_t at)
{
	Rx *n = xalloc(sizeof(*n));
	n->kind = kind;
	n->at = at;
	n->size = kind == RX_CAT || kind == RX_ALT ? 0 : 1;
	return n;
}

static int64_t saturate(int64_t n)
{
	return n > RX_MAX_INSNS ? RX_MAX_INSNS + 1 : n;
}

static void check_size(Parser *p, Rx *n)
{
	if (n->size > RX_MAX_INSNS)
		fail(p, n->at, "regular expression is too large: more than %d instructions once "
		     "its repetitions are expanded", RX_MAX_INSNS);
}

static int peek(Parser *p, size_t i)
{
	return i < p->len ? (unsigned char)p->s[i] : -1;
}

static void set_add(uint64_t set[4], int lo, int hi)
{
	for (int b = lo; b <= hi; b++)
		set[b >> 6] |= 1ULL << (b & 63);
}

/* ---- parsing ----------------------------------------------------------------------------- */

static Rx *alternation(Parser *p, size_t *rest, size_t i);

/* The POSIX classes, as <ctype.h> has them in the C locale (hwtap never sets another). */
static const struct {
	const char *name;
	int (*has)(int);
} classes[] = {
	{"alpha", isalpha}, {"digit", isdigit}, {"alnum", isalnum}, {"upper", isupper},
	{"lower", islower}, {"space", isspace}, {"blank", isblank}, {"punct", ispunct},
	{"print", isprint}, {"graph", isgraph}, {"cntrl", iscntrl}, {"xdigit", isxdigit},
};

/* class = "[:" name ":]", inside a set */
static void set_class(Parser *p, size_t *rest, size_t i, uint64_t set[4])
{
	size_t from = i + 2, end = from;
	while (end + 1 < p->len && !(p->s[end] == ':' && p->s[end + 1] == ']'))
		end++;
	if (end + 1 >= p->len) {
		fail(p, i, "'[:' is not closed by ':]'");
		*rest = p->len;
		return;
	}
	char *name = xstrndup(p->s + from, end - from);
	const char *best = NULL;
	int best_d = 3, found = -1;
	for (size_t k = 0; k < sizeof(classes) / sizeof(classes[0]); k++) {
		int d = edit_distance(name, classes[k].name);
		if (d < best_d)
			best = classes[k].name, best_d = d, found = (int)k;
	}
	if (best_d > 0 && best)
		fail(p, from, "unknown character class '%s'; did you mean '%s'?", name, best);
	else if (best_d > 0)
		fail(p, from, "unknown character class '%s'", name);
	else
		for (int b = 0; b < 256; b++)
			if (classes[found].has(b))
				set_add(set, b, b);
	*rest = end + 2;
}

/* set_byte = "\" byte | byte */
static int set_byte(Parser *p, size_t *rest, size_t i)
{
	if (p->s[i] == '\\' && i + 1 < p->len)
		i++;
	*rest = i + 1;
	return (unsigned char)p->s[i];
}

/* bracket = "[" [ "^" ] [ "]" ] { class | set_byte [ "-" set_byte ] } "]" */
static Rx *bracket(Parser *p, size_t *rest, size_t i)
{
	Rx *n = new_rx(RX_SET, i);
	size_t open = i++;
	bool negate = peek(p, i) == '^';
	i += negate;
	for (bool first = true;; first = false) {
		int c = peek(p, i);
		if (c < 0 || (c == '\\' && i + 1 == p->len)) {
			fail(p, open, "'[' is not closed by ']'");
			break;
		}
		if (c == ']' && !first) {
			i++;
			break;
		}
		if (c == '[' && (peek(p, i + 1) == '.' || peek(p, i + 1) == '=')) {
			fail(p, i, "'[%c' (collating elements, equivalence classes) is not supported; "
			     "write the bytes themselves", p->s[i + 1]);
			break;
		}
		if (c == '[' && peek(p, i + 1) == ':') {
			set_class(p, &i, i, n->set);
			if (p->failed)
				break;
			continue;
		}
		size_t lo_at = i;
		int lo = set_byte(p, &i, i);
		if (peek(p, i) != '-' || peek(p, i + 1) == ']' || peek(p, i + 1) < 0) {
			set_add(n->set, lo, lo);
			continue;
		}
		if (peek(p, i + 1) == '[' && peek(p, i + 2) == ':') {
			fail(p, i + 1, "a range cannot end in a character class");
			break;
		}
		int hi = set_byte(p, &i, i + 1);
		if (hi < lo) {
			fail(p, lo_at, "the range '%.*s' is inverted", (int)(i - lo_at), p->s + lo_at);
			break;
		}
		set_add(n->set, lo, hi);
	}
	if (negate)
		for (int k = 0; k < 4; k++)
			n->set[k] = ~n->set[k];
	n->set[0] &= ~1ULL;             /* a subject has no NUL byte */
	*rest = i;
	return n;
}

/* group = "(" regex ")" */
static Rx *group(Parser *p, size_t *rest, size_t i)
{
	Rx *n = new_rx(RX_GROUP, i);
	if (++p->depth > RX_MAX_DEPTH) {
		fail(p, i, "groups nest more than %d deep", RX_MAX_DEPTH);
		*rest = p->len;
		return n;
	}
	n->group = ++p->groups;
	size_t j;
	n->sub = alternation(p, &j, i + 1);
	p->depth--;
	if (peek(p, j) != ')')
		fail(p, i, "'(' is not closed by ')'");
	n->size = saturate(n->sub->size + 2);
	*rest = j + 1;
	return n;
}

/* atom = group | bracket | "." | "^" | "$" | "\" byte | byte */
static Rx *atom(Parser *p, size_t *rest, size_t i)
{
	int c = peek(p, i);
	Rx *n;
	switch (c) {
	case '(':
		return group(p, rest, i);
	case '[':
		return bracket(p, rest, i);
	case '.':
		n = new_rx(RX_SET, i);
		set_add(n->set, 1, 255);
		break;
	case '^':
		n = new_rx(RX_BOL, i);
		break;
	case '$':
		n = new_rx(RX_EOL, i);
		break;
	case '*': case '+': case '?': case '{':
		fail(p, i, "'%c' has nothing before it to repeat", c);
		n = new_rx(RX_CAT, i);
		break;
	case '\\':
		if (i + 1 == p->len) {
			fail(p, i, "the regular expression ends in a lone '\\'");
			n = new_rx(RX_CAT, i);
			break;
		}
		c = (unsigned char)p->s[++i];
		if (p->warn && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
				(c >= 'A' && c <= 'Z')))
			warn_in_string(p->lit->tok, i - 1, "'\\%c' matches '%c' itself: SystemTap's "
				       "regular expressions have no backslash classes or "
				       "back-references", c, c);
		/* fall through */
	default:
		n = new_rx(RX_BYTE, i);
		n->byte = c;
	}
	*rest = i + 1;
	return n;
}

/* count = digit { digit }, at most RX_MAX_COUNT */
static int count(Parser *p, size_t *rest, size_t i)
{
	size_t from = i;
	int64_t v = 0;
	if (peek(p, i) < '0' || peek(p, i) > '9')
		fail(p, i, "a number is expected in a repetition '{m,n}'");
	for (; peek(p, i) >= '0' && peek(p, i) <= '9'; i++)
		v = v > RX_MAX_COUNT ? v : v * 10 + (p->s[i] - '0');
	if (v > RX_MAX_COUNT)
		fail(p, from, "repetition count %.*s is too large (at most %d)", (int)(i - from),
		     p->s + from, RX_MAX_COUNT);
	*rest = i;
	return (int)v;
}

/* repeat = "*" | "+" | "?" | "{" count [ "," [ count ] ] "}" */
static Rx *repeat(Parser *p, size_t *rest, size_t i, Rx *sub)
{
	Rx *n = new_rx(RX_REPEAT, i);
	n->sub = sub;
	switch (p->s[i++]) {
	case '*': n->min = 0, n->max = -1; break;
	case '+': n->min = 1, n->max = -1; break;
	case '?': n->min = 0, n->max = 1; break;
	default:
		n->min = n->max = count(p, &i, i);
		if (peek(p, i) == ',') {
			i++;
			n->max = peek(p, i) == '}' ? -1 : count(p, &i, i);
		}
		if (peek(p, i) != '}')
			fail(p, i, "'}' is expected to close the repetition");
		i++;
		if (n->max >= 0 && n->min > n->max)
			fail(p, n->at, "repetition '{%d,%d}' has its minimum above its maximum",
			     n->min, n->max);
	}
	int64_t a = sub->size;
	if (n->max < 0)
		n->size = saturate(n->min == 0 ? a + 2 : n->min * a + 1);
	else
		n->size = saturate(n->min * a + (int64_t)(n->max - n->min) * (a + 1));
	check_size(p, n);
	*rest = i;
	return n;
}

static bool is_repeat(int c)
{
	return c == '*' || c == '+' || c == '?' || c == '{';
}

/* piece = atom { repeat } */
static Rx *piece(Parser *p, size_t *rest, size_t i)
{
	Rx *n = atom(p, &i, i);
	while (!p->failed && is_repeat(peek(p, i))) {
		if (n->kind == RX_BOL || n->kind == RX_EOL) {
			fail(p, i, "'%c' cannot repeat the anchor '%c'", p->s[i],
			     n->kind == RX_BOL ? '^' : '$');
			break;
		}
		n = repeat(p, &i, i, n);
	}
	*rest = i;
	return n;
}

/* branch = { piece }, up to "|", ")" or the end */
static Rx *branch(Parser *p, size_t *rest, size_t i)
{
	Rx *n = new_rx(RX_CAT, i);
	while (!p->failed && i < p->len && p->s[i] != '|' && p->s[i] != ')') {
		Rx *item = piece(p, &i, i);
		vec_push(&n->items, item);
		n->size = saturate(n->size + item->size);
		check_size(p, item->size > RX_MAX_INSNS ? item : n);
	}
	*rest = i;
	return n;
}

/* regex = branch { "|" branch } */
static Rx *alternation(Parser *p, size_t *rest, size_t i)
{
	Rx *first = branch(p, &i, i);
	if (peek(p, i) != '|') {
		*rest = i;
		return first;
	}
	Rx *n = new_rx(RX_ALT, first->at);
	vec_push(&n->items, first);
	n->size = first->size;
	while (!p->failed && peek(p, i) == '|') {
		Rx *b = branch(p, &i, i + 1);
		vec_push(&n->items, b);
		n->size = saturate(n->size + b->size + 2);
		check_size(p, n);
	}
	*rest = i;
	return n;
}

/* ---- the program ------------------------------------------------------------------------- */

typedef enum {
	OP_BYTE = RX_OP_BYTE, OP_SET = RX_OP_SET, OP_MATCH = RX_OP_MATCH,
	OP_SPLIT, OP_JMP, OP_SAVE, OP_BOL, OP_EOL,
} Op;

typedef struct {
	Op op;
	int x, y;               /* BYTE: the byte; SET: its index; SPLIT: x before y;
				 * JMP: x; SAVE: the slot */
} Insn;

typedef struct {
	Insn *code;
	int n;
	VEC(uint64_t *) sets;   /* distinct sets, 4 words each */
	bool anchors;
} Prog;

static int put(Prog *g, Op op, int x, int y)
{
	g->code[g->n] = (Insn){op, x, y};
	return g->n++;
}

static int set_index(Prog *g, const uint64_t set[4])
{
	for (int i = 0; i < g->sets.len; i++)
		if (!memcmp(g->sets.data[i], set, 4 * sizeof(uint64_t)))
			return i;
	uint64_t *copy = xalloc(4 * sizeof(uint64_t));
	memcpy(copy, set, 4 * sizeof(uint64_t));
	vec_push(&g->sets, copy);
	return g->sets.len - 1;
}

static void emit(Prog *g, Rx *n);

/* x{min,max}: min copies, then the optional rest: each further copy behind a split that
 * prefers it, or a loop when unbounded (x+ for the last copy, x* when there is none). */
static void emit_repeat(Prog *g, Rx *n)
{
	bool loop_last = n->max < 0 && n->min > 0;
	for (int i = 0; i < n->min - loop_last; i++)
		emit(g, n->sub);
	if (loop_last) {
		int top = g->n;
		emit(g, n->sub);
		put(g, OP_SPLIT, top, g->n + 1);
	} else if (n->max < 0) {
		int split = put(g, OP_SPLIT, g->n + 1, 0);
		emit(g, n->sub);
		put(g, OP_JMP, split, 0);
		g->code[split].y = g->n;
	} else {
		int *splits = xalloc(sizeof(int) * (n->max - n->min + 1));
		for (int i = 0; i < n->max - n->min; i++) {
			splits[i] = put(g, OP_SPLIT, g->n + 1, 0);
			emit(g, n->sub);
		}
		for (int i = 0; i < n->max - n->min; i++)
			g->code[splits[i]].y = g->n;
	}
}

static void emit(Prog *g, Rx *n)
{
	switch (n->kind) {
	case RX_BYTE:
		put(g, OP_BYTE, n->byte, 0);
		return;
	case RX_SET:
		put(g, OP_SET, set_index(g, n->set), 0);
		return;
	case RX_BOL:
	case RX_EOL:
		put(g, n->kind == RX_BOL ? OP_BOL : OP_EOL, 0, 0);
		g->anchors = true;
		return;
	case RX_CAT:
		for (int i = 0; i < n->items.len; i++)
			emit(g, n->items.data[i]);
		return;
	case RX_ALT: {
		int k = n->items.len, *jumps = xalloc(sizeof(int) * k);
		for (int i = 0; i < k; i++) {
			int split = i < k - 1 ? put(g, OP_SPLIT, g->n + 1, 0) : -1;
			emit(g, n->items.data[i]);
			if (split < 0)
				break;
			jumps[i] = put(g, OP_JMP, 0, 0);
			g->code[split].y = g->n;
		}
		for (int i = 0; i < k - 1; i++)
			g->code[jumps[i]].x = g->n;
		return;
	}
	case RX_GROUP:
		put(g, OP_SAVE, 2 * n->group, 0);
		emit(g, n->sub);
		put(g, OP_SAVE, 2 * n->group + 1, 0);
		return;
	case RX_REPEAT:
		emit_repeat(g, n);
		return;
	}
}

/* ---- flattening: the arcs between the states ------------------------------------------- */

struct Regex {
	char *src;              /* the regex, len bytes */
	size_t len;
	Node *lit;              /* its first literal, named in a comment */
	int index;              /* the program's C name: hwtap_re<index> */
	RxProg prog;
	bool skip;              /* a match cannot be empty inside a subject: */
	uint64_t first[4];      /* it begins with one of these bytes */
	/* its DFA (regex_dfa.c), or none: the Pike VM runs the program */
	Dfa *test;              /* when nothing reads the last match */
	Dfa *search;            /* when something does */
	char *pike_too_large;   /* why the Pike VM cannot run it, or NULL */
};

typedef struct {
	Prog *g;
	RxProg *re;
	int *state_of;          /* per instruction: its state, or -1 */
	bool *visited;
	int *path;              /* the slots saved on the way from the closure's start */
	int npath;
	int arcs_cap, saves_cap;        /* of re->arcs and re->saves */
	bool full;
} Flat;

static void add_arc(Flat *f, int to)
{
	RxProg *re = f->re;
	if (re->narcs == RX_MAX_ARCS_DFA || re->nsaves + f->npath > RX_MAX_SAVES) {
		f->full = true;
		return;
	}
	re->arcs = xgrow(re->arcs, &f->arcs_cap, re->narcs + 1, sizeof(RxArc));
	re->saves = xgrow(re->saves, &f->saves_cap, re->nsaves + f->npath, sizeof(int));
	RxArc *arc = &re->arcs[re->narcs];
	arc->to = to;
	arc->first = re->nsaves;
	for (int i = 0; i < f->npath; i++) {
		bool dup = false;
		for (int j = arc->first; j < re->nsaves; j++)
			dup |= re->saves[j] == f->path[i];
		if (!dup)
			re->saves[re->nsaves++] = f->path[i];
	}
	arc->n = re->nsaves - arc->first;
	re->narcs++;
}

/* The states pc reaches without consuming, first what the program prefers; each
 * instruction once (a later path to it has the lower priority). cond: bit 0 at the
 * start, bit 1 at the end of the subject. */
static void closure(Flat *f, int pc, int cond)
{
	if (f->visited[pc] || f->full)
		return;
	f->visited[pc] = true;
	Insn *in = &f->g->code[pc];
	switch (in->op) {
	case OP_JMP:
		closure(f, in->x, cond);
		return;
	case OP_SPLIT:
		closure(f, in->x, cond);
		closure(f, in->y, cond);
		return;
	case OP_SAVE:
		f->path[f->npath++] = in->x;
		closure(f, pc + 1, cond);
		f->npath--;
		return;
	case OP_BOL:
	case OP_EOL:
		if (cond & (in->op == OP_BOL ? 1 : 2))
			closure(f, pc + 1, cond);
		return;
	default:
		add_arc(f, f->state_of[pc]);
	}
}

/* The bytes the states after the start take, away from the subject's start and end; no
 * skipping when the final state is among them. */
static void first_bytes(Regex *re)
{
	const RxProg *p = &re->prog;
	int s = p->nstates * p->nconds;
	re->skip = true;
	for (int a = p->arc_index[s]; a < p->arc_index[s + 1]; a++) {
		int to = p->arcs[a].to;
		if (p->op[to] == OP_MATCH)
			re->skip = false;
		else if (p->op[to] == OP_BYTE)
			set_add(re->first, p->arg[to], p->arg[to]);
		else
			for (int k = 0; k < 4; k++)
				re->first[k] |= ((uint64_t *)p->sets.data[p->arg[to]])[k];
	}
}

static Regex *flatten(Prog *g, int groups)
{
	Regex *rx = xalloc(sizeof(*rx));
	RxProg *re = &rx->prog;
	Flat f = {.g = g, .re = re};
	f.state_of = xalloc(sizeof(int) * g->n);
	f.visited = xalloc(sizeof(bool) * g->n);
	f.path = xalloc(sizeof(int) * g->n);
	int *pc_of = xalloc(sizeof(int) * g->n);
	for (int pc = 0; pc < g->n; pc++) {
		Op op = g->code[pc].op;
		f.state_of[pc] = op == OP_BYTE || op == OP_SET || op == OP_MATCH ? re->nstates : -1;
		if (f.state_of[pc] >= 0)
			pc_of[re->nstates++] = pc;
	}
	re->ncaps = 2 * (groups + 1);
	re->nconds = g->anchors ? 4 : 1;
	re->sets = g->sets;
	re->op = xalloc(sizeof(int) * re->nstates);
	re->arg = xalloc(sizeof(int) * re->nstates);
	re->arc_index = xalloc(sizeof(int) * ((re->nstates + 1) * re->nconds + 1));
	for (int s = 0; s <= re->nstates; s++) {
		Insn *in = s < re->nstates ? &g->code[pc_of[s]] : NULL;
		if (in) {
			re->op[s] = in->op;
			re->arg[s] = in->x;
		}
		for (int cond = 0; cond < re->nconds; cond++) {
			re->arc_index[s * re->nconds + cond] = re->narcs;
			if (in && in->op == OP_MATCH)
				continue;
			memset(f.visited, 0, sizeof(bool) * g->n);
			closure(&f, in ? pc_of[s] + 1 : 0, cond);
		}
	}
	re->arc_index[(re->nstates + 1) * re->nconds] = re->narcs;
	first_bytes(rx);
	return f.full ? NULL : rx;
}

/* What HWTAP_RE_SCRATCH() in runtime/regex.h makes of a program, on a 64-bit kernel. */
static int64_t scratch_bytes(const RxProg *p)
{
	return 8 * ((p->nstates + 63) / 64) +
	       2 * (2 * (int64_t)p->nstates * (1 + p->ncaps) + p->ncaps);
}

/* The program of the regex literal lit, or NULL after reporting what is wrong. */
static Regex *compile(Node *lit, bool warn)
{
	Parser p = {.s = lit->str, .len = lit->str_len, .lit = lit, .warn = warn};
	size_t end;
	Rx *root = alternation(&p, &end, 0);
	if (!p.failed && end < p.len)
		fail(&p, end, "')' has no '(' to close");
	if (p.failed)
		return NULL;
	Prog g = {.code = xalloc(sizeof(Insn) * (root->size + 3))};
	put(&g, OP_SAVE, 0, 0);
	emit(&g, root);
	put(&g, OP_SAVE, 1, 0);
	put(&g, OP_MATCH, 0, 0);
	Regex *re = flatten(&g, p.groups);
	if (!re) {
		fail(&p, 0, "regular expression is too complex: more than %d transitions between "
		     "the states of its automaton", RX_MAX_ARCS_DFA);
		return NULL;
	}
	if (re->prog.narcs > RX_MAX_ARCS)
		re->pike_too_large = xformat("more than %d transitions between the states of "
					     "its automaton", RX_MAX_ARCS);
	else if (scratch_bytes(&re->prog) > RX_MAX_SCRATCH)
		re->pike_too_large = xformat("%lld bytes per CPU to match it (%d states, %d "
					     "capture positions), more than %d",
					     (long long)scratch_bytes(&re->prog),
					     re->prog.nstates, re->prog.ncaps, RX_MAX_SCRATCH);
	re->src = lit->str;
	re->len = lit->str_len;
	re->lit = lit;
	return re;
}

/* ---- pass 2 ------------------------------------------------------------------------------- */

bool regex_check(Node *lit)
{
	Regex *re = compile(lit, true);
	if (!re)
		return false;
	const char *why = NULL;
	if (re->pike_too_large && !regex_dfa(&re->prog, DFA_TEST, 1 << 30, &why)) {
		error_in_string(lit->tok, 0, "regular expression is too large: its DFA would "
				"have %s, and the Pike VM would need %s", why, re->pike_too_large);
		return false;
	}
	return true;
}

/* ---- pass 3 ------------------------------------------------------------------------------- */

/* Whether the script reads the last match: embedded C it uses (matched() and the rest of
 * tapset/regex.stp) names HWTAP_LAST_MATCH. Else a match only answers yes or no. */
static bool reads_last_match(Session *s)
{
	for (int i = 0; i < s->funcs.len; i++) {
		Node *body = ((Function *)s->funcs.data[i])->body;
		if (body->kind == N_EMBEDDED && strstr(body->str, "HWTAP_LAST_MATCH"))
			return true;
	}
	for (int i = 0; i < s->user->embeds.len; i++)
		if (strstr(((Token *)s->user->embeds.data[i])->str, "HWTAP_LAST_MATCH"))
			return true;
	return false;
}

/* The most entries (states x byte classes) a regex's DFA may have: HWTAP_REGEX_DFA_MAX,
 * at most regex_dfa.c's bound; 0 keeps every regex on the Pike VM. */
static int dfa_max_cells(void)
{
	const char *v = getenv("HWTAP_REGEX_DFA_MAX");
	return v && *v ? atoi(v) : 1 << 30;
}

/* The DFA re needs: a test, or a search when something reads the last match. Unless
 * it is too large: then the Pike VM runs re, as -v says. */
static void build_dfa(Gen *g, Regex *re)
{
	const char *why = NULL;
	int max = dfa_max_cells();
	if (!reads_last_match(g->s))
		re->test = regex_dfa(&re->prog, DFA_TEST, max, &why);
	else
		re->search = regex_dfa(&re->prog, DFA_SEARCH, max, &why);
	if (why && re->pike_too_large)
		error_in_string(re->lit->tok, 0, "regular expression is too large: its DFA for "
				"matched() would have %s, and the Pike VM would need %s", why,
				re->pike_too_large);
	else if (why && g->s->verbose)
		note_at(re->lit->tok, "this regular expression runs on the Pike VM: its DFA "
			"would have %s", why);
}

/* lhs =~ "re" and lhs !~ "re": a call of the matcher with the tables of "re". */
void regex_match_expr(Gen *g, StrBuf *sb, Node *n)
{
	Node *lit = n->rhs;
	Regex *re = NULL;
	for (int i = 0; i < g->regexes.len && !re; i++) {
		Regex *r = g->regexes.data[i];
		if (r->len == lit->str_len && !memcmp(r->src, lit->str, r->len))
			re = r;
	}
	if (!re) {
		re = compile(lit, false);
		if (!re)
			return;
		re->index = g->regexes.len;
		vec_push(&g->regexes, re);
		build_dfa(g, re);
	}
	StrBuf subject = {0};
	tr_expr(g, &subject, n->lhs);
	const char *neg = n->op[0] == '!' ? "!" : "";
	if (re->test)
		sb_printf(sb, "((int64_t)%s_hwtap_re_test(&hwtap_re%d_test, %s))", neg, re->index,
			  subject.buf);
	else
		sb_printf(sb, "((int64_t)%s_hwtap_re_match(&hwtap_re%d, %s, %s, &c->re_scratch))",
			  neg, re->index, subject.buf,
			  reads_last_match(g->s) ? "HWTAP_LAST_MATCH" : "NULL");
}

static void int_table(StrBuf *out, const char *type, const char *name, const int *v, int n)
{
	sb_printf(out, "static const %s %s[] = {", type, name);
	for (int i = 0; i < n; i++)
		sb_printf(out, "%s%d,", i % 16 ? " " : "\n\t", v[i]);
	sb_puts(out, n ? "\n};\n" : " 0 };\n");
}

/* The Pike VM's tables of re, as struct hwtap_regex's members. */
static void pike_tables(StrBuf *out, const Regex *re, const char *name)
{
	static const char *const ops[] = {
		[OP_BYTE] = "HWTAP_RE_BYTE", [OP_SET] = "HWTAP_RE_SET", [OP_MATCH] = "HWTAP_RE_MATCH",
	};
	const RxProg *p = &re->prog;
	sb_printf(out, "static const struct hwtap_re_state %s_states[] = {\n", name);
	for (int s = 0; s < p->nstates; s++)
		sb_printf(out, "\t{ %s, %d, %d },\n", ops[p->op[s]],
			  p->op[s] == OP_BYTE ? p->arg[s] : 0, p->op[s] == OP_SET ? p->arg[s] : 0);
	sb_puts(out, "};\n");
	int_table(out, "u16", xformat("%s_arc_index", name), p->arc_index,
		  (p->nstates + 1) * p->nconds + 1);
	sb_printf(out, "static const struct hwtap_re_arc %s_arcs[] = {", name);
	for (int a = 0; a < p->narcs; a++)
		sb_printf(out, "%s{ %d, %d, %d },", a % 6 ? " " : "\n\t", p->arcs[a].to,
			  p->arcs[a].first, p->arcs[a].n);
	sb_puts(out, p->narcs ? "\n};\n" : " { 0, 0, 0 } };\n");
	int_table(out, "u16", xformat("%s_saves", name), p->saves, p->nsaves);
	if (p->sets.len) {
		sb_printf(out, "static const u64 %s_sets[][4] = {\n", name);
		for (int i = 0; i < p->sets.len; i++) {
			uint64_t *w = p->sets.data[i];
			sb_printf(out, "\t{ %#llxULL, %#llxULL, %#llxULL, %#llxULL },\n",
				  (unsigned long long)w[0], (unsigned long long)w[1],
				  (unsigned long long)w[2], (unsigned long long)w[3]);
		}
		sb_puts(out, "};\n");
	}
	if (re->skip)
		sb_printf(out, "static const u64 %s_first[4] = { %#llxULL, %#llxULL, %#llxULL, "
			  "%#llxULL };\n", name, (unsigned long long)re->first[0],
			  (unsigned long long)re->first[1], (unsigned long long)re->first[2],
			  (unsigned long long)re->first[3]);
	sb_printf(out, "static const struct hwtap_regex %s = {\n", name);
	sb_printf(out, "\t.states = %s_states, .arc_index = %s_arc_index, .arcs = %s_arcs,\n",
		  name, name, name);
	sb_printf(out, "\t.saves = %s_saves, .sets = %s, .first = %s,\n", name,
		  p->sets.len ? xformat("%s_sets", name) : "NULL",
		  re->skip ? xformat("%s_first", name) : "NULL");
	sb_printf(out, "\t.nstates = %d, .ncaps = %d, .nconds = %d,\n};\n\n", p->nstates,
		  p->ncaps, p->nconds);
}

/* The DFA of re: a test alone, or a search in a struct hwtap_regex. */
static void dfa_tables(StrBuf *out, const Regex *re, const char *name)
{
	if (re->test) {
		regex_dfa_emit(out, re->test, xformat("%s_test", name));
		sb_puts(out, "\n");
		return;
	}
	regex_dfa_emit(out, re->search, xformat("%s_search", name));
	sb_printf(out, "static const struct hwtap_regex %s = {\n", name);
	sb_printf(out, "\t.search = &%s_search, .ncaps = %d,\n};\n\n", name, re->prog.ncaps);
}

static void tables(StrBuf *out, const Regex *re)
{
	const char *at = xformat("%s:%d:%d", re->lit->tok->file->name, re->lit->tok->line,
				 re->lit->tok->col);
	/* the regex in a comment: no comment end inside, nothing that is not text */
	StrBuf shown = {0};
	for (size_t i = 0; i < re->len; i++) {
		unsigned char ch = re->src[i];
		if (ch == '/' && i > 0 && re->src[i - 1] == '*')
			sb_puts(&shown, "\\/");
		else if (ch < ' ' || ch >= 0x7f)
			sb_printf(&shown, "\\x%02x", ch);
		else
			sb_putc(&shown, ch);
	}
	sb_printf(out, "/* \"%s\" (%s)%s */\n", shown.buf ? shown.buf : "", at,
		  re->test || re->search ? "" : ": the Pike VM");
	char *name = xformat("hwtap_re%d", re->index);
	if (re->test || re->search)
		dfa_tables(out, re, name);
	else
		pike_tables(out, re, name);
}

/* runtime/regex.h, sized for the script's regexes, and their tables; before the
 * context, which holds the last match and the matcher's scratch. */
void regex_programs(Gen *g, StrBuf *out)
{
	int caps = 2;
	for (int i = 0; i < g->regexes.len; i++) {
		Regex *re = g->regexes.data[i];
		caps = re->prog.ncaps > caps ? re->prog.ncaps : caps;
	}
	sb_printf(out, "#define HWTAP_RE_CAPS %d\n#include \"runtime/regex.h\"\n\n", caps);
	for (int i = 0; i < g->regexes.len; i++)
		tables(out, g->regexes.data[i]);
}

/* The members of struct hwtap_context that regexes use: the last match, if something
 * reads it (matched() may be called in a script without =~), and the scratch of the
 * regex that needs the most. */
void regex_context_members(Gen *g, StrBuf *out)
{
	if (reads_last_match(g->s))
		sb_puts(out, "\tstruct hwtap_re_last last_match;\n");
	StrBuf members = {0};
	for (int i = 0; i < g->regexes.len; i++) {
		Regex *re = g->regexes.data[i];
		if (re->search) {
			sb_printf(&members, "\t\tu16 r%d[%d];\n", i,
				  regex_dfa_registers(re->search));
		} else if (!re->test) {
			sb_printf(&members, "\t\tunsigned char r%d[HWTAP_RE_SCRATCH(%d, %d)];\n", i,
				  re->prog.nstates, re->prog.ncaps);
		}
	}
	if (members.len)
		sb_printf(out, "\tunion {\n\t\tunsigned long __align;\n%s\t} re_scratch;\n",
			  members.buf);
}
