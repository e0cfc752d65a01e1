/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * regex.h - the matchers of =~ and !~, and each CPU's last match for matched().
 *
 * translator/codegen/regex.c compiles every regular expression of a script into static const
 * tables. Most become a DFA (translator/codegen/regex_dfa.c): a table of the next state per
 * state and byte class, walked one lookup per byte. Two kinds:
 *   _hwtap_re_test()      when nothing in the script reads the last match (no matched()
 *                         ...): a match or not, stopping at the first match found. A
 *                         pure table walk.
 *   _hwtap_re_search()    which match, and where its groups are. A transition may also
 *                         move registers (u16 positions in the per-CPU scratch): store
 *                         the position in one, copy one into another, or take the
 *                         registers of a match that ends here as the best match's.
 *                         The entry of such a transition says so, and the walk leaves
 *                         its loop for the action. It stops at the subject's end or
 *                         when nothing can match any more.
 * The match reported is SystemTap's: the leftmost one, and of those starting there the
 * longest. Among the ways of matching that same text, group positions follow priority
 * (the first alternative, a repetition taking one more round first), and a group inside a
 * repetition keeps the text of the last round that went through it. The DFAs follow the
 * Pike VM below step for step (regex_dfa.c says how), so both give the same answers
 * (testsuite/hwtap.base/regex.exp compares them).
 *
 * A regex whose DFA would be too large keeps the Pike VM: the states that consume a
 * byte (one byte, or a set of bytes) and the final state, and for each state the arcs to
 * the states reachable from it without consuming anything, in priority order, with the
 * capture positions each arc records. Arcs that pass ^ or $ exist only at the subject's
 * start or end: a program with anchors has four lists of arcs per state, one per
 * combination. The start is one more state, whose arcs begin a match.
 * _hwtap_re_pike() simulates that automaton over the subject (Thompson's construction,
 * carrying capture positions, with its epsilon closures computed at translation time).
 * It keeps one list of threads per position, each a state and its capture positions, at
 * most one thread per state; a thread that reaches a state already on the list is
 * dropped, so the one with the higher priority keeps it. A new thread starts at each
 * position until a match is found, behind the older ones, so the list stays ordered by
 * start. Its work is bounded by (subject length + 1) x (the program's arcs). Its scratch
 * (two thread lists and a bitmap of the states on the next one) is sized by the
 * translator with HWTAP_RE_SCRATCH() for the largest program of the script; without a
 * last match to fill it keeps no capture positions and stops at the first match.
 *
 * Every walk is bounded by MAXSTRINGLEN, with no recursion and no allocation: they run in
 * hard-irq and NMI context.
 *
 * Included by the generated module after lang.h, once HWTAP_RE_CAPS (the most capture
 * positions of any of the script's regexes, at least 2) is defined.
 */
#ifndef HWTAP_REGEX_H
#define HWTAP_REGEX_H

#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <linux/string.h>
#include <linux/types.h>

#ifndef HWTAP_RE_CAPS
#define HWTAP_RE_CAPS 2
#endif

#define HWTAP_RE_UNSET 0xffff   /* a capture position not recorded */

enum hwtap_re_op {
	HWTAP_RE_BYTE,          /* consumes the byte `byte' */
	HWTAP_RE_SET,           /* consumes a byte of the set sets[set] */
	HWTAP_RE_MATCH,         /* the final state: no arcs */
};

struct hwtap_re_state {
	u8 op;
	u8 byte;
	u16 set;
};

/* From a state, once it consumed its byte (or from the start), to the state `to',
 * recording the current position in capture slots saves[first .. first + n). */
struct hwtap_re_arc {
	u16 to;
	u16 first;
	u16 n;
};

#define HWTAP_RE_SLOW 0x8000    /* next[]: an action (its index below), or a test's end */
#define HWTAP_RE_ACCEPT 0x4000  /* next[] of a test: the end, with a match */
#define HWTAP_RE_INDEX 0x7fff
#define HWTAP_RE_STOP 0xffff    /* action next: the walk ends */
#define HWTAP_RE_NOREG 0xff     /* action set: none */
#define HWTAP_RE_NOBEST 0xffff  /* action best: no match ends here */
#define HWTAP_RE_POS 0xff       /* best[]: the position where the match ends */

/* What a transition does besides moving on to next. Most store the position in one
 * register (set) and do nothing else (more == 0). The others: when a match ends at this
 * position, where its capture slots are (in registers best[best ...], read before the
 * operations); from ops[first], ncopy copies (register ops[i][0] = register ops[i][1]),
 * in order, then nset stores of the position (register ops[i][0] = the position). */
struct hwtap_re_action {
	u16 next;               /* the next state (times nclasses), or HWTAP_RE_STOP */
	u8 set;
	u8 more;
	u16 first;
	u8 ncopy;
	u8 nset;
	u16 best;
};

struct hwtap_re_dfa {
	/* byte -> class; class 0 is the NUL that ends a subject. NULL: each byte is its own
	 * class (a small test's table, one lookup a byte fewer) */
	const u8 *classes;
	/* state s (a multiple of nclasses) on class c: next[s + c], the next state, or
	 * HWTAP_RE_SLOW | an action's index; a test has no actions: HWTAP_RE_SLOW stops
	 * it, with HWTAP_RE_ACCEPT when there is a match */
	const u16 *next;
	const struct hwtap_re_action *actions;
	const u8 (*ops)[2];
	const u8 *best;         /* a match's capture slots 0, 2, 3 ...: nslots registers */
	u16 start;              /* the first state */
	u16 nclasses;
	u8 nregs;               /* working registers; then the temporary, one that holds
				 * HWTAP_RE_UNSET, and the best match's capture slots */
	u8 nslots;
};

struct hwtap_regex {
	const struct hwtap_re_dfa *search;      /* NULL: the Pike VM's tables follow */
	const struct hwtap_re_state *states;
	/* the arcs of state s under condition k (bit 0: at the start, bit 1: at the end;
	 * always 0 without anchors) are arcs[arc_index[i] .. arc_index[i + 1]) with
	 * i = s * nconds + k; s == nstates is the start */
	const u16 *arc_index;
	const struct hwtap_re_arc *arcs;
	const u16 *saves;
	const u64 (*sets)[4];   /* 256-bit byte sets */
	const u64 *first;       /* the bytes a match can begin with inside the subject, to
				 * skip to when no thread is left; NULL if it can be empty */
	u16 nstates;
	u16 ncaps;              /* 2 x (groups + 1): slot 0 and 1 hold the whole match */
	u8 nconds;              /* 4 with anchors, else 1 */
};

/* The last =~ or !~ of a CPU, for matched(), ngroups() and matched_str(). As in
 * SystemTap, a failed match clears `matched' and leaves the rest as it was. */
struct hwtap_re_last {
	bool matched;
	u16 ncaps;              /* of the last successful match's regex; 0 before any */
	u16 caps[HWTAP_RE_CAPS];
	char subject[MAXSTRINGLEN];
};

/* The last match of the running handler's CPU, as the tapset's embedded C names it. */
#define HWTAP_LAST_MATCH (&c->last_match)

/* The scratch of a program with nstates states and ncaps capture slots: the bitmap of
 * the states on the next list, two lists of threads (a state, then its slots) and the
 * best match's slots. translator/codegen/regex.c's size limit computes the same. */
#define HWTAP_RE_SCRATCH(nstates, ncaps)					\
	(sizeof(unsigned long) * BITS_TO_LONGS(nstates) +			\
	 sizeof(u16) * (2 * (nstates) * (1 + (ncaps)) + (ncaps)))

/* Records the match [from, to) of subject in last; caps are relative to from. */
static inline void _hwtap_re_record(struct hwtap_re_last *last, const char *subject,
				    unsigned int from, unsigned int to, unsigned int ncaps)
{
	last->matched = true;
	last->ncaps = ncaps;
	last->caps[0] = 0;
	last->caps[1] = to - from;
	/* the matched text is enough: every group lies inside it */
	memcpy(last->subject, subject + from, to - from);
	last->subject[to - from] = '\0';
}

/* ---- the DFAs ---- */

/*
 * The walks. Each round looks up four bytes with one bound check; an entry that does
 * more than name the next state leaves the round for the caller's slow path, which
 * runs its action and takes up the walk again at the next byte. A subject without a
 * NUL in its first MAXSTRINGLEN - 1 bytes ends there.
 */
/* (classes is a constant where the walk is inlined: one of the two remains) */
#define HWTAP_RE_CLASS(b)	(classes ? classes[b] : (b))

#define HWTAP_RE_STEP(k)						\
	do {								\
		e = next[st + HWTAP_RE_CLASS(p[pos + (k)])];		\
		if (unlikely(e & HWTAP_RE_SLOW)) {			\
			pos += (k);					\
			goto slow;					\
		}							\
		st = e;							\
	} while (0)

#define HWTAP_RE_WALK(end)						\
	do {								\
		while (pos + 4 <= (end)) {				\
			HWTAP_RE_STEP(0);				\
			HWTAP_RE_STEP(1);				\
			HWTAP_RE_STEP(2);				\
			HWTAP_RE_STEP(3);				\
			pos += 4;					\
		}							\
		for (; pos < (end); pos++)				\
			HWTAP_RE_STEP(0);				\
	} while (0)

/* Whether subject has a match of the test d. */
static __always_inline bool _hwtap_re_test(const struct hwtap_re_dfa *d, const char *subject)
{
	const unsigned char *p = (const unsigned char *)subject;
	const u8 *classes = d->classes;
	const u16 *next = d->next;
	unsigned int pos = 0, e, st = d->start;

	HWTAP_RE_WALK(MAXSTRINGLEN - 1);
	e = next[st + HWTAP_RE_CLASS(0)];
slow:
	return e & HWTAP_RE_ACCEPT;
}

/* The match whose capture slots are in the registers best[0 .. d->nslots) (at position
 * pos) becomes the best: its slots go to the registers after the temporary and the one
 * holding HWTAP_RE_UNSET. */
static inline void _hwtap_re_best(const struct hwtap_re_dfa *d, const u8 *best, u16 *r,
				  unsigned int pos)
{
	u16 *out = r + d->nregs + 2;
	unsigned int k;

	for (k = 0; k < d->nslots; k++)
		out[k] = best[k] == HWTAP_RE_POS ? pos : r[best[k]];
}

/* Whether subject has a match of the search d, and where: [*from, *to). r: the DFA's
 * registers; then r + d->nregs + 2 holds the match's capture slots 0, 2, 3 ...
 * A match found is copied there only when an action is about to change registers, or
 * at the end: a longer one found first replaces it. */
static __always_inline bool _hwtap_re_search(const struct hwtap_re_dfa *d,
					     const char *subject, u16 *r,
					     unsigned int *from, unsigned int *to)
{
	const unsigned char *p = (const unsigned char *)subject;
	const u8 *classes = d->classes;
	const u16 *next = d->next;
	const u8 *best = NULL;          /* a match found, not copied yet: ends at *to */
	unsigned int pos = 0, e, st = d->start;

	BUILD_BUG_ON(MAXSTRINGLEN >= HWTAP_RE_UNSET);    /* positions are u16 */
	*to = HWTAP_RE_UNSET;
	r[d->nregs + 1] = HWTAP_RE_UNSET;
	/* a round per action; the end's entry always stops */
	while (pos < MAXSTRINGLEN) {
		const struct hwtap_re_action *act;
		const u8 (*op)[2], (*end)[2];

		HWTAP_RE_WALK(MAXSTRINGLEN - 1);
		e = next[st + HWTAP_RE_CLASS(0)];
slow:
		act = &d->actions[e & HWTAP_RE_INDEX];
		if (likely(!act->more)) {
			if (act->set != HWTAP_RE_NOREG) {
				if (unlikely(best))
					_hwtap_re_best(d, best, r, *to);
				best = NULL;
				r[act->set] = pos;
			}
		} else if (act->ncopy | act->nset) {
			if (best)
				_hwtap_re_best(d, best, r, *to);
			best = NULL;
			if (act->best != HWTAP_RE_NOBEST) {
				_hwtap_re_best(d, d->best + act->best, r, pos);
				*to = pos;
			}
			op = d->ops + act->first;
			for (end = op + act->ncopy; op < end; op++)
				r[(*op)[0]] = r[(*op)[1]];
			for (end += act->nset; op < end; op++)
				r[(*op)[0]] = pos;
		} else {
			best = d->best + act->best;
			*to = pos;
		}
		st = act->next;
		if (st == HWTAP_RE_STOP)
			break;
		pos++;
	}
	if (best)
		_hwtap_re_best(d, best, r, *to);
	*from = r[d->nregs + 2];
	return *to != HWTAP_RE_UNSET;
}

#undef HWTAP_RE_WALK
#undef HWTAP_RE_STEP
#undef HWTAP_RE_CLASS

/* ---- the Pike VM ---- */

static inline bool _hwtap_re_in_set(const u64 *set, unsigned char ch)
{
	return (set[ch >> 6] >> (ch & 63)) & 1;
}

static inline bool _hwtap_re_takes(const struct hwtap_regex *re,
				   const struct hwtap_re_state *st, unsigned char ch)
{
	if (st->op == HWTAP_RE_BYTE)
		return ch == st->byte;
	return st->op == HWTAP_RE_SET && _hwtap_re_in_set(re->sets[st->set], ch);
}

/*
 * Appends to list (n threads, each `1 + ncaps' u16 wide) the threads that state `from'
 * leads to at position pos under condition cond, each with the slots of `caps' (NULL:
 * none recorded yet) and those its arc records set to pos; a state already marked is
 * skipped. ncaps 0: threads are states alone. Returns the new count.
 */
static inline unsigned int _hwtap_re_follow(const struct hwtap_regex *re, unsigned int ncaps,
					    unsigned int from, unsigned int pos,
					    unsigned int cond, const u16 *caps, u16 *list,
					    unsigned int n, unsigned long *marks)
{
	unsigned int i = from * re->nconds + cond;
	unsigned int a, k;

	for (a = re->arc_index[i]; a < re->arc_index[i + 1]; a++) {
		const struct hwtap_re_arc *arc = &re->arcs[a];
		u16 *t = list + n * (1 + ncaps);

		if (__test_and_set_bit(arc->to, marks))
			continue;
		t[0] = arc->to;
		n++;
		if (!ncaps)
			continue;
		for (k = 0; k < ncaps; k++)
			t[1 + k] = caps ? caps[k] : HWTAP_RE_UNSET;
		for (k = 0; k < arc->n; k++)
			t[1 + re->saves[arc->first + k]] = pos;
	}
	return n;
}

/* Which arcs apply at pos of a subject of len bytes: bit 0 at its start, bit 1 at its end. */
static inline unsigned int _hwtap_re_cond(const struct hwtap_regex *re, unsigned int pos,
					  unsigned int len)
{
	if (re->nconds == 1)
		return 0;
	return (pos == 0 ? 1 : 0) | (pos == len ? 2 : 0);
}

/* The Pike VM: whether subject matches re. With last, which match too (the leftmost,
 * then the longest) and where its groups are; without, the first match found will do.
 * scratch holds at least HWTAP_RE_SCRATCH(re->nstates, re->ncaps) bytes, aligned. */
static inline bool _hwtap_re_pike(const struct hwtap_regex *re, const char *subject,
				  struct hwtap_re_last *last, void *scratch)
{
	unsigned int len = strnlen(subject, MAXSTRINGLEN - 1);
	unsigned int ncaps = last ? re->ncaps : 0, w = 1 + ncaps;
	unsigned int words = BITS_TO_LONGS(re->nstates);
	unsigned int ncur, nnext, pos, cond, t, k;
	unsigned long *marks = scratch;
	u16 *cur = (u16 *)(marks + words);
	u16 *next = cur + re->nstates * w;
	u16 *best = next + re->nstates * w;
	bool found = false;

	BUILD_BUG_ON(MAXSTRINGLEN > HWTAP_RE_UNSET);
	for (k = 0; k < words; k++)
		marks[k] = 0;
	ncur = _hwtap_re_follow(re, ncaps, re->nstates, 0, _hwtap_re_cond(re, 0, len), NULL,
				cur, 0, marks);
	for (pos = 0;; pos++) {
		for (k = 0; k < words; k++)
			marks[k] = 0;
		cond = _hwtap_re_cond(re, pos + 1, len);
		nnext = 0;
		for (t = 0; t < ncur; t++) {
			u16 *th = cur + t * w;
			const struct hwtap_re_state *st = &re->states[th[0]];

			/* ordered by start: the rest start after the match found */
			if (found && th[1] > best[0])
				break;
			if (st->op == HWTAP_RE_MATCH) {
				if (!last)
					return true;
				/* an earlier start, or the same start and longer; at the same
				 * length the thread found first has the priority */
				if (!found || th[1] < best[0] || pos > best[1])
					for (k = 0; k < ncaps; k++)
						best[k] = th[1 + k];
				found = true;
				continue;
			}
			if (pos < len && _hwtap_re_takes(re, st, subject[pos]))
				nnext = _hwtap_re_follow(re, ncaps, th[0], pos + 1, cond, th + 1,
							 next, nnext, marks);
		}
		if (pos == len || (found && !nnext))
			break;
		if (!found) {
			/* no thread left: on to where a match can begin */
			if (!nnext && re->first) {
				while (pos + 1 < len &&
				       !_hwtap_re_in_set(re->first, subject[pos + 1]))
					pos++;
				cond = _hwtap_re_cond(re, pos + 1, len);
			}
			nnext = _hwtap_re_follow(re, ncaps, re->nstates, pos + 1, cond, NULL,
						 next, nnext, marks);
		}
		swap(cur, next);
		ncur = nnext;
	}
	if (!last)
		return false;
	last->matched = found;
	if (found) {
		_hwtap_re_record(last, subject, best[0], best[1], re->ncaps);
		for (k = 2; k < re->ncaps; k++)
			last->caps[k] = best[k] == HWTAP_RE_UNSET ? best[k] : best[k] - best[0];
	}
	return found;
}

/* Whether subject matches re, and with last, which match and where its groups are.
 * scratch: the registers of re's DFAs, or the Pike VM's scratch. */
static inline bool _hwtap_re_match(const struct hwtap_regex *re, const char *subject,
				   struct hwtap_re_last *last, void *scratch)
{
	unsigned int from, to, k;
	const u16 *best;

	if (!re->search || !last)
		return _hwtap_re_pike(re, subject, last, scratch);
	if (!_hwtap_re_search(re->search, subject, scratch, &from, &to)) {
		last->matched = false;
		return false;
	}
	_hwtap_re_record(last, subject, from, to, re->ncaps);
	best = (const u16 *)scratch + re->search->nregs + 2;
	for (k = 2; k < re->ncaps; k++)
		last->caps[k] = best[k - 1] == HWTAP_RE_UNSET ? best[k - 1] : best[k - 1] - from;
	return true;
}

/* matched(n): group n of the last match (0: all of it), "" when the group took no part;
 * errors, with SystemTap's messages, for a group the last matched regex does not have
 * (or none matched yet) and after a failed match. */
static inline void _hwtap_re_matched(struct hwtap_context_base *b,
				     const struct hwtap_re_last *last, int64_t n, char *out)
{
	u16 start, end;

	out[0] = '\0';
	if (n < 0 || n >= last->ncaps / 2) {
		_hwtap_errorf(b, "Attempted to get nonexistent subexpression %lld", (long long)n);
		return;
	}
	if (!last->matched) {
		_hwtap_errorf(b, "Attempted to get subexpression %lld from failed match",
			      (long long)n);
		return;
	}
	start = last->caps[2 * n];
	end = last->caps[2 * n + 1];
	if (start == HWTAP_RE_UNSET || end == HWTAP_RE_UNSET || start > end)
		return;
	memcpy(out, last->subject + start, end - start);
	out[end - start] = '\0';
}

#endif
