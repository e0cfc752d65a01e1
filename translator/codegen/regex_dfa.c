/* regex_dfa.c - the regular expressions of =~ and !~ as deterministic automata, built at
 * translation time from the program regex.c flattens, for runtime/regex.h to walk.
 *
 * The Pike VM (runtime/regex.h) keeps a list of threads per position of the subject,
 * each an NFA state with its capture positions, in priority order. Which states are on
 * the list, in which order, and which threads share a capture position, depends only on
 * the list before and the byte: so the lists themselves, with their captures replaced by
 * registers, are the states of a DFA, and the work of one step is known at translation
 * time. A step of the DFA is one table lookup; a transition that must also move
 * registers (copy one into another, store the position) carries a short list of such
 * operations, which the walk runs. Registers are numbered by first use in the list, so
 * that equal lists are one state; going from one numbering to the next is a parallel
 * copy, ordered so that each register is read before it is written, through a temporary
 * around a cycle. This is a tagged DFA (Laurikari's; SystemTap's translator builds one
 * with re2c's algorithms) that follows the Pike VM's priorities step for step, so its
 * results are the Pike VM's by construction.
 *
 * A DFA state is the list of threads that consumed the last byte, before they follow the
 * arcs that consume nothing: those arcs depend on being at the subject's end ($), which
 * shows only with the next symbol, the NUL that ends the subject (byte class 0, "the
 * end"). The first state also knows it is at the subject's start (^).
 *
 * Two kinds, for two uses:
 *   DFA_TEST     =~ when nothing reads the last match: is there a match? The threads are
 *                a set, no registers; a new thread starts at every position; the walk
 *                stops at the first match or the end.
 *   DFA_SEARCH   which match, the leftmost-longest as the Pike VM finds it, and where its
 *                groups are. The registers hold the capture positions of the threads
 *                alive (slot 0, where a thread started, and the groups' from slot 2 on;
 *                slot 1, the end, is the position of the match): threads that share a
 *                position share its register. Threads started at the same position form
 *                a group; a match in a group makes its registers the best match's (the
 *                action names them, the walk copies them before registers change),
 *                drops the later groups and starts no new threads; a later match of an
 *                earlier group replaces it, and the walk stops at the end or when a match
 *                was found and no thread is left. Without groups in the regex the order
 *                of a group's threads does not matter, and is made canonical.
 * Each is bounded: at most DFA_MAX_CELLS entries (states x byte classes, and the state
 * numbers fit 14 bits), DFA_MAX_REGS registers and DFA_MAX_OPS operations to one
 * transition. A regex whose automaton is larger keeps the Pike VM (regex.c says so
 * under -v).
 */
#include "translate.h"

#include <stdlib.h>
#include <string.h>

#define DFA_MAX_CELLS 16384     /* below runtime/regex.h's HWTAP_RE_ACCEPT, 1 << 14 */
#define DFA_MAX_ACTIONS 16384
#define DFA_MAX_REGS 160        /* working ones; then come the temporary, the one holding
				 * HWTAP_RE_UNSET and the best match's slots, all below
				 * 0xff (u8, and 0xff is the position) */
#define DFA_MAX_SLOTS (0xff - 2 - DFA_MAX_REGS)
#define DFA_MAX_OPS 255         /* operations of one transition (u8) */
#define DFA_MAX_ALL_OPS 65535
#define REGEX_FLAT_MAX 4096     /* entries of a test's table with a state's 256 bytes
				 * apart (16 states, 8 KiB): see regex_dfa_emit() */

/* Register values while building: a register of the state before, or one of these. */
enum {
	V_UNSET = -1,           /* not recorded (as a source: the register that holds that) */
	V_POS = -2,             /* the current position (an operation's source) */
	V_TEMP = -3,            /* the temporary of a cycle of copies */
};

typedef struct DState DState;
struct DState {
	int n;                  /* threads */
	int *q;                 /* each one's NFA state; the start is prog->nstates */
	int *reg;               /* n x ntrack registers, numbered by first use; V_UNSET */
	int nregs;
	bool at_start;          /* the first position (regexes with anchors only) */
	bool found;             /* DFA_SEARCH: a match was found; no new threads start */
	int index;
	uint64_t hash;
	DState *chain;
};

typedef struct {
	int next;               /* a state's index, or -1: the walk stops */
	int best;               /* DFA_SEARCH: a match ends at this position, its capture
				 * slots in the registers bests[best ...]; -1: none */
	int first;              /* its operations: ops[2 * first ...], pairs dst, src: */
	int ncopy, nset;        /* the copies, in order, then the stores of the position */
} Action;

struct Dfa {
	const RxProg *p;
	DfaKind kind;
	int ntrack;             /* the capture slots given registers: 0, then 2, 3 ... */
	int ncls;
	unsigned char cls[256]; /* byte -> class; class 0 is the NUL that ends a subject */
	int rep[256];           /* class -> one of its bytes */
	VEC(DState *) states;
	DState **buckets;
	int nbuckets;
	int *next;              /* states x ncls: a state's index, or ~action */
	int next_cap;
	Action *actions;
	int nactions, actions_cap;
	int *ops;               /* dst, src pairs */
	int nops, ops_cap;
	int *bests;             /* matches' slots: ntrack registers (V_POS, V_UNSET) each */
	int nbests, bests_cap;
	int start;              /* the first state */
	int nregs;              /* the most registers a state uses */
	int max_cells;
	const char *why;        /* why it is too large */
	/* scratch of a step */
	bool *marks;
	int *sq, *sreg, *src, *newof, *order;
};

/* ---- byte classes: bytes no state of the program tells apart ---------------------------- */

static bool takes(const RxProg *p, int q, int b)
{
	if (p->op[q] == RX_OP_BYTE)
		return p->arg[q] == b;
	if (p->op[q] == RX_OP_SET)
		return (((uint64_t *)p->sets.data[p->arg[q]])[b >> 6] >> (b & 63)) & 1;
	return false;
}

/* Splits the classes of bytes 1..255 by each state's test, in order of first byte. */
static void byte_classes(Dfa *a)
{
	const RxProg *p = a->p;
	int remap[512];
	memset(a->cls, 0, sizeof(a->cls));
	for (int b = 1; b < 256; b++)
		a->cls[b] = 1;
	a->ncls = 2;
	for (int q = 0; q < p->nstates; q++) {
		if (p->op[q] == RX_OP_MATCH)
			continue;
		for (int i = 0; i < 512; i++)
			remap[i] = -1;
		int n = 1;
		for (int b = 1; b < 256; b++) {
			int k = 2 * a->cls[b] + takes(p, q, b);
			if (remap[k] < 0)
				remap[k] = n++;
			a->cls[b] = remap[k];
		}
		a->ncls = n;
	}
	for (int b = 255; b >= 0; b--)
		a->rep[a->cls[b]] = b;
}

/* ---- a step: the Pike VM's work at one position ------------------------------------------ */

typedef struct {
	int n;                  /* threads that consumed the byte: a->sq, a->sreg */
	bool accept;            /* a thread reached the final state */
	int *best;              /* DFA_SEARCH: the registers of the match found */
} Step;

/*
 * The threads of d follow their arcs under cond, in order, each state taken by the first
 * thread to reach it; those reaching a state that takes byte class c (c < 0: none) go on.
 * Saves on an arc set the tracked slots to V_POS. The final state: DFA_TEST accepts;
 * DFA_SEARCH records the match's registers and drops the threads of later groups
 * (which started later).
 */
static void step(Dfa *a, const DState *d, int c, int cond, Step *s)
{
	const RxProg *p = a->p;
	int w = a->ntrack;
	if (p->nconds == 1)
		cond = 0;               /* no anchors: one list of arcs */
	memset(a->marks, 0, sizeof(bool) * p->nstates);
	s->n = 0;
	s->accept = false;
	for (int i = 0; i < d->n; i++) {
		int q = d->q[i];
		const int *r = d->reg + i * w;
		/* a thread's group is where it started: the start's threads start here */
		int group = q == p->nstates ? V_POS : w ? r[0] : 0;
		if (a->kind == DFA_SEARCH && s->accept && group != s->best[0])
			continue;
		int k = q * p->nconds + cond;
		for (int j = p->arc_index[k]; j < p->arc_index[k + 1]; j++) {
			const RxArc *arc = &p->arcs[j];
			if (a->marks[arc->to])
				continue;
			a->marks[arc->to] = true;
			int *nr = a->sreg + s->n * w;
			memcpy(nr, r, sizeof(int) * w);
			for (int m = 0; m < arc->n; m++) {
				int slot = p->saves[arc->first + m];
				if (slot != 1 && w)
					nr[slot ? slot - 1 : 0] = V_POS;
			}
			if (p->op[arc->to] == RX_OP_MATCH) {
				/* the list holds the final state once: one match here */
				if (w)
					memcpy(s->best, nr, sizeof(int) * w);
				s->accept = true;
				if (a->kind == DFA_TEST)
					return;
				continue;
			}
			if (c >= 0 && takes(p, arc->to, a->rep[c]))
				a->sq[s->n++] = arc->to;
		}
	}
}

/* ---- states ------------------------------------------------------------------------------ */

static uint64_t state_hash(const DState *d, int w)
{
	uint64_t h = fnv1a(FNV1A_INIT, (const char *)d->q, sizeof(int) * d->n);
	h = fnv1a(h, (const char *)d->reg, sizeof(int) * d->n * w);
	return h ^ (d->at_start ? 0x9e3779b97f4a7c15ULL : 0) ^ (d->found ? 0x7f4a7c15ULL : 0);
}

static bool state_equal(const DState *x, const DState *y, int w)
{
	return x->n == y->n && x->at_start == y->at_start && x->found == y->found &&
	       !memcmp(x->q, y->q, sizeof(int) * x->n) &&
	       !memcmp(x->reg, y->reg, sizeof(int) * x->n * w);
}

/* The state d (built in scratch) as one of the automaton's, added if new; NULL: too
 * many states. */
static DState *intern(Dfa *a, DState *d)
{
	int w = a->ntrack;
	d->hash = state_hash(d, w);
	DState **b = &a->buckets[d->hash & (a->nbuckets - 1)];
	for (DState *e = *b; e; e = e->chain)
		if (e->hash == d->hash && state_equal(e, d, w))
			return e;
	if ((a->states.len + 1) * a->ncls > a->max_cells) {
		a->why = xformat("more than %d table entries (states x byte classes)",
				 a->max_cells);
		return NULL;
	}
	DState *e = xalloc(sizeof(*e));
	*e = *d;
	e->q = xalloc(sizeof(int) * (d->n + 1));
	e->reg = xalloc(sizeof(int) * (d->n * w + 1));
	memcpy(e->q, d->q, sizeof(int) * d->n);
	memcpy(e->reg, d->reg, sizeof(int) * d->n * w);
	e->index = a->states.len;
	e->chain = *b;
	*b = e;
	vec_push(&a->states, e);
	return e;
}

/* Sorts threads [from, to) by NFA state: their order does not matter (the same group). */
static void sort_threads(Dfa *a, int from, int to)
{
	int w = a->ntrack;
	for (int i = from + 1; i < to; i++)
		for (int j = i; j > from && a->sq[j - 1] > a->sq[j]; j--) {
			int t = a->sq[j];
			a->sq[j] = a->sq[j - 1];
			a->sq[j - 1] = t;
			for (int k = 0; k < w; k++) {
				t = a->sreg[j * w + k];
				a->sreg[j * w + k] = a->sreg[(j - 1) * w + k];
				a->sreg[(j - 1) * w + k] = t;
			}
		}
}

/*
 * The step's threads as a state d (pointing at the scratch): the order that does not
 * matter made canonical, registers renumbered by first use. a->src[j] is what new
 * register j must hold: an old register or V_POS.
 */
static void canonical(Dfa *a, const DState *old, Step *s, DState *d)
{
	int w = a->ntrack;
	if (a->kind == DFA_TEST) {
		sort_threads(a, 0, s->n);
	} else if (w == 1) {
		for (int i = 0, j; i < s->n; i = j) {
			for (j = i + 1; j < s->n && a->sreg[j * w] == a->sreg[i * w]; j++)
				;
			sort_threads(a, i, j);
		}
	}
	for (int r = 0; r <= old->nregs; r++)
		a->newof[r] = -1;              /* newof[old->nregs]: V_POS */
	int n = 0;
	for (int i = 0; i < s->n * w; i++) {
		int v = a->sreg[i];
		if (v == V_UNSET)
			continue;
		int *slot = &a->newof[v == V_POS ? old->nregs : v];
		if (*slot < 0) {
			a->src[n] = v;
			*slot = n++;
		}
		a->sreg[i] = *slot;
	}
	*d = (DState){.n = s->n, .q = a->sq, .reg = a->sreg, .nregs = n};
}

/* ---- operations ---------------------------------------------------------------------------- */

static void put_op(Dfa *a, int dst, int src)
{
	a->ops = xgrow(a->ops, &a->ops_cap, 2 * (a->nops + 1), sizeof(int));
	a->ops[2 * a->nops] = dst;
	a->ops[2 * a->nops + 1] = src;
	a->nops++;
}

/* New register j gets a->src[j] for j < n, all at once, with copies in an order that
 * reads each register before it is written, through V_TEMP around a cycle. */
static void parallel_move(Dfa *a, int n)
{
	int pending = 0;
	for (int j = 0; j < n; j++)
		if (a->src[j] >= 0 && a->src[j] != j)
			a->order[pending++] = j;
	while (pending) {
		int pick = -1;
		for (int i = 0; i < pending && pick < 0; i++) {
			bool needed = false;
			for (int k = 0; k < pending; k++)
				needed |= a->src[a->order[k]] == a->order[i];
			if (!needed)
				pick = i;
		}
		if (pick < 0) {         /* a cycle: keep one register's value aside */
			int j = a->order[0];
			put_op(a, V_TEMP, j);
			for (int k = 0; k < pending; k++)
				if (a->src[a->order[k]] == j)
					a->src[a->order[k]] = V_TEMP;
			continue;
		}
		int j = a->order[pick];
		put_op(a, j, a->src[j]);
		a->order[pick] = a->order[--pending];
	}
	for (int j = 0; j < n; j++)
		if (a->src[j] == V_POS)
			put_op(a, j, V_POS);
}

/* The operations from first on as an action: its copies first, then its stores of the
 * position (which no copy reads: parallel_move fills those registers last). best: the
 * registers of a match that ends here (read before the operations run), or NULL. */
static int add_action(Dfa *a, int next, const int *best, int first)
{
	int n = a->nops - first, ncopy = 0, *ops = a->ops + 2 * first;
	int sets[2 * (DFA_MAX_OPS + 1)], nset = 0;
	for (int i = 0; i < n && nset <= DFA_MAX_OPS; i++) {
		if (ops[2 * i + 1] == V_POS) {
			sets[2 * nset] = ops[2 * i];
			sets[2 * nset++ + 1] = V_POS;
		} else {
			ops[2 * ncopy] = ops[2 * i];
			ops[2 * ncopy++ + 1] = ops[2 * i + 1];
		}
	}
	if (ncopy > DFA_MAX_OPS || nset > DFA_MAX_OPS || a->nops > DFA_MAX_ALL_OPS ||
	    a->nactions == DFA_MAX_ACTIONS) {
		a->why = xformat("a transition with more than %d register operations, or more "
				 "than %d transitions with operations", DFA_MAX_OPS, DFA_MAX_ACTIONS);
		return -1;
	}
	if (nset)
		memcpy(ops + 2 * ncopy, sets, sizeof(int) * 2 * nset);
	int w = a->ntrack, b = -1;
	if (best) {
		for (int i = a->nbests - w; i >= 0 && i >= a->nbests - 16 * w && b < 0; i -= w)
			if (!memcmp(a->bests + i, best, sizeof(int) * w))
				b = i;
		if (b < 0) {
			a->bests = xgrow(a->bests, &a->bests_cap, a->nbests + w, sizeof(int));
			memcpy(a->bests + a->nbests, best, sizeof(int) * w);
			b = a->nbests;
			a->nbests += w;
		}
	}
	/* the same as one of the last ones (the end's and the dead state's repeat) */
	for (int i = a->nactions - 1; i >= 0 && i >= a->nactions - 4; i--) {
		Action *o = &a->actions[i];
		if (o->next == next && o->best == b && o->ncopy == ncopy && o->nset == nset &&
		    (!n || !memcmp(a->ops + 2 * o->first, ops, sizeof(int) * 2 * n))) {
			a->nops = first;
			return i;
		}
	}
	if (a->nbests > DFA_MAX_ALL_OPS) {
		a->why = xformat("more than %d register operations", DFA_MAX_ALL_OPS);
		return -1;
	}
	a->actions = xgrow(a->actions, &a->actions_cap, a->nactions + 1, sizeof(Action));
	a->actions[a->nactions] = (Action){next, b, first, ncopy, nset};
	return a->nactions++;
}

/* ---- building ------------------------------------------------------------------------------ */

/* The entry of state d for byte class c (0: the subject's end), as a->next holds it. */
static int transition(Dfa *a, DState *d, int c)
{
	const RxProg *p = a->p;
	int cond = (d->at_start ? 1 : 0) | (c == 0 ? 2 : 0);
	int best[DFA_MAX_REGS];
	Step s = {.best = best};
	step(a, d, c == 0 ? -1 : c, cond, &s);
	if (a->kind == DFA_TEST && (s.accept || c == 0))
		return s.accept ? ~1 : ~0;      /* runtime/regex.h: accept, stop */
	bool found = d->found || s.accept;
	if (!found && c != 0) {
		a->sq[s.n] = p->nstates;        /* a new thread starts at the next position */
		for (int k = 0; k < a->ntrack; k++)
			a->sreg[s.n * a->ntrack + k] = V_UNSET;
		s.n++;
	}
	int first = a->nops;
	DState nd;
	canonical(a, d, &s, &nd);
	nd.found = found;
	if (nd.nregs > DFA_MAX_REGS) {
		a->why = xformat("more than %d registers", DFA_MAX_REGS);
		return 0;
	}
	parallel_move(a, nd.nregs);
	DState *e = NULL;
	if (c != 0 && nd.n > 0) {
		e = intern(a, &nd);
		if (!e)
			return 0;
		a->nregs = nd.nregs > a->nregs ? nd.nregs : a->nregs;
	}
	if (e && a->nops == first && !s.accept)
		return e->index;
	int act = add_action(a, e ? e->index : -1, s.accept ? best : NULL, first);
	return act < 0 ? 0 : ~act;
}

/* The first state: a thread about to start, at the subject's start. */
static void first_state(Dfa *a)
{
	a->sq[0] = a->p->nstates;
	for (int k = 0; k < a->ntrack; k++)
		a->sreg[k] = V_UNSET;
	DState d = {.n = 1, .q = a->sq, .reg = a->sreg, .at_start = a->p->nconds > 1};
	DState *e = intern(a, &d);
	a->start = e ? e->index : 0;
}

Dfa *regex_dfa(const RxProg *p, DfaKind kind, int max_cells, const char **why)
{
	Dfa *a = xalloc(sizeof(*a));
	a->p = p;
	a->kind = kind;
	a->ntrack = kind == DFA_TEST ? 0 : p->ncaps - 1;
	if (a->ntrack > DFA_MAX_SLOTS) {
		*why = xformat("more than %d groups", (DFA_MAX_SLOTS - 1) / 2);
		return NULL;
	}
	a->max_cells = max_cells < DFA_MAX_CELLS ? max_cells : DFA_MAX_CELLS;
	byte_classes(a);
	a->nbuckets = 1024;
	a->buckets = xalloc(sizeof(DState *) * a->nbuckets);
	int threads = p->nstates + 2;
	a->marks = xalloc(sizeof(bool) * p->nstates);
	a->sq = xalloc(sizeof(int) * threads);
	a->sreg = xalloc(sizeof(int) * threads * (a->ntrack + 1));
	a->src = xalloc(sizeof(int) * (threads * (a->ntrack + 1) + 1));
	a->newof = xalloc(sizeof(int) * (threads * (a->ntrack + 1) + 1));
	a->order = xalloc(sizeof(int) * (threads * (a->ntrack + 1) + 1));
	first_state(a);
	for (int i = 0; i < a->states.len && !a->why; i++) {
		DState *d = a->states.data[i];
		a->next = xgrow(a->next, &a->next_cap, (i + 1) * a->ncls, sizeof(int));
		for (int c = 0; c < a->ncls && !a->why; c++)
			a->next[i * a->ncls + c] = transition(a, d, c);
		if (a->states.len > a->nbuckets) {     /* rehash: keep chains short */
			int nb = a->nbuckets * 4;
			DState **b = xalloc(sizeof(DState *) * nb);
			for (int k = 0; k < a->states.len; k++) {
				DState *e = a->states.data[k];
				e->chain = b[e->hash & (nb - 1)];
				b[e->hash & (nb - 1)] = e;
			}
			a->buckets = b;
			a->nbuckets = nb;
		}
	}
	if (a->why) {
		*why = a->why;
		return NULL;
	}
	return a;
}

/* ---- emitting ------------------------------------------------------------------------------ */

/* Registers the walk needs: the working ones, the temporary, the one holding
 * HWTAP_RE_UNSET, the best match's capture slots. */
int regex_dfa_registers(const Dfa *a)
{
	return a->nregs + 2 + a->ntrack;
}

static int reg_code(const Dfa *a, int v)
{
	if (v == V_POS)
		return 0xff;
	if (v == V_TEMP)
		return a->nregs;
	if (v == V_UNSET)
		return a->nregs + 1;
	return v;
}

void regex_dfa_emit(StrBuf *out, const Dfa *a, const char *name)
{
	/* a small test's states take 256 entries each, one per byte: the walk then looks
	 * up no class (runtime/regex.h) */
	bool flat = a->kind == DFA_TEST && a->states.len * 256 <= REGEX_FLAT_MAX;
	int nc = flat ? 256 : a->ncls;
	if (!flat) {
		sb_printf(out, "static const u8 %s_classes[256] = {", name);
		for (int b = 0; b < 256; b++)
			sb_printf(out, "%s%d,", b % 16 ? " " : "\n\t", a->cls[b]);
		sb_puts(out, "\n};\n");
	}
	sb_printf(out, "static const u16 %s_next[] = {", name);
	for (int i = 0; i < a->states.len * nc; i++) {
		int v = flat ? a->next[i / 256 * a->ncls + a->cls[i % 256]] : a->next[i];
		if (a->kind == DFA_TEST && v < 0)
			sb_printf(out, "%s%s,", i % 8 ? " " : "\n\t",
				  v == ~1 ? "HWTAP_RE_SLOW | HWTAP_RE_ACCEPT" : "HWTAP_RE_SLOW");
		else
			sb_printf(out, "%s%#x,", i % 8 ? " " : "\n\t",
				  v < 0 ? 0x8000 | ~v : v * nc);
	}
	sb_puts(out, "\n};\n");
	if (a->nactions) {
		sb_printf(out, "static const struct hwtap_re_action %s_actions[] = {", name);
		for (int i = 0; i < a->nactions; i++) {
			const Action *x = &a->actions[i];
			/* one store of the position and nothing else goes in .set */
			bool one = x->best < 0 && !x->ncopy && x->nset <= 1;
			sb_printf(out, "%s{ %#x, %d, %d, %d, %d, %d, %#x },", i % 3 ? " " : "\n\t",
				  x->next < 0 ? 0xffff : x->next * nc,
				  one && x->nset ? reg_code(a, a->ops[2 * x->first]) : 0xff, !one,
				  x->first, x->ncopy, x->nset, x->best < 0 ? 0xffff : x->best);
		}
		sb_puts(out, "\n};\n");
	}
	if (a->nops) {
		sb_printf(out, "static const u8 %s_ops[][2] = {", name);
		for (int i = 0; i < a->nops; i++)
			sb_printf(out, "%s{ %d, %d },", i % 8 ? " " : "\n\t",
				  reg_code(a, a->ops[2 * i]), reg_code(a, a->ops[2 * i + 1]));
		sb_puts(out, "\n};\n");
	}
	if (a->nbests) {
		sb_printf(out, "static const u8 %s_best[] = {", name);
		for (int i = 0; i < a->nbests; i++)
			sb_printf(out, "%s%d,", i % 16 ? " " : "\n\t", reg_code(a, a->bests[i]));
		sb_puts(out, "\n};\n");
	}
	sb_printf(out, "static const struct hwtap_re_dfa %s = {\n", name);
	sb_printf(out, "\t.classes = %s, .next = %s_next,\n",
		  flat ? "NULL" : xformat("%s_classes", name), name);
	sb_printf(out, "\t.actions = %s, .ops = %s, .best = %s,\n",
		  a->nactions ? xformat("%s_actions", name) : "NULL",
		  a->nops ? xformat("%s_ops", name) : "NULL",
		  a->nbests ? xformat("%s_best", name) : "NULL");
	sb_printf(out, "\t.start = %d, .nclasses = %d, .nregs = %d, .nslots = %d,\n};\n",
		  a->start * nc, nc, a->nregs, a->ntrack);
}
