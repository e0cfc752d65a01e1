/* tapset_scan.c - what a tapset file declares, read without parsing it (tapset.c's index).
 *
 * A .stp file's functions, globals and the first components of its aliases' names; a
 * .stpm file's macros. The text is read as lex.c reads it (comments, strings, embedded C)
 * but nothing is built: the declarations' heads are followed token by token, as parse.c
 * reads them, and their bodies a byte at a time, counting braces. What only the
 * preprocessor could tell (a %( %) conditional, a macro defined or used at the top level)
 * or lex.c would report makes the scan give up: the file is then parsed as before.
 */
#include "hwtap.h"

#include <ctype.h>
#include <string.h>

static void add_name(Vec *names, TapsetName kind, const char *s, size_t n)
{
	vec_push(&names[kind], xstrndup(s, n));
}

/* What the scan sees of a token: only what tells declarations and bodies apart. */
enum { SC_EOF, SC_BAD, SC_IDENT, SC_NUM, SC_STR, SC_EMBEDDED, SC_PUNCT };

typedef struct {
	const char *p, *end;
	int kind;
	const char *tok;        /* where the token starts, */
	size_t len;             /* and its length */
} Scan;

/* lex.c's comments and white space; false at an unterminated comment (lex.c warns). */
static bool scan_space(Scan *sc)
{
	for (;;) {
		const char *p = sc->p;
		if (p < sc->end && isspace((unsigned char)*p)) {
			sc->p++;
		} else if (p < sc->end && (*p == '#' || (p[0] == '/' && p[1] == '/'))) {
			const char *nl = memchr(p, '\n', sc->end - p);
			sc->p = nl ? nl : sc->end;
		} else if (p < sc->end && p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			if (!e)
				return false;
			sc->p = e + 2;
		} else {
			return true;
		}
	}
}

static const char *ident_end(const char *p)
{
	while (isalnum((unsigned char)*p) || *p == '_' || *p == '$')
		p++;
	return p;
}

/* A string literal's end past its closing quote, or NULL where lex.c reports one. */
static const char *string_end(const char *p)
{
	for (p++; *p != '"'; p++) {
		if (*p == '\0' || *p == '\n')
			return NULL;
		if (*p == '\\' && *++p == '\0')
			return NULL;
	}
	return p + 1;
}

/* The operators that end in '=' (and "=~"), so that a lone '=' is an assignment's or an
 * alias's; the other punctuation the scan needs is one character. */
static size_t punct_len(const char *p)
{
	if ((p[0] == '<' || p[0] == '>') && p[1] == p[0] && p[2] == '=')
		return 3;
	if ((p[1] == '=' && strchr("=!<>+-*/%&|^.", p[0])) || (p[0] == '=' && p[1] == '~'))
		return 2;
	return strchr("{}()[];,.:?+-*/%&|^~!<>=", p[0]) ? 1 : 0;
}

static int scan_next(Scan *sc)
{
	sc->kind = SC_BAD;
	if (!scan_space(sc))
		return SC_BAD;
	const char *p = sc->tok = sc->p, *e = NULL;
	if (p >= sc->end) {
		sc->kind = SC_EOF;
	} else if (isdigit((unsigned char)*p)) {
		for (e = p; isalnum((unsigned char)*e) || *e == '_'; e++)
			;
		sc->kind = SC_NUM;
	} else if (isalpha((unsigned char)*p) || *p == '_') {
		e = ident_end(p);
		sc->kind = SC_IDENT;
	} else if (*p == '"') {
		e = string_end(p);
		sc->kind = e ? SC_STR : SC_BAD;
	} else if (p[0] == '%' && p[1] == '{') {
		e = strstr(p + 2, "%}");
		e = e ? e + 2 : NULL;
		sc->kind = e ? SC_EMBEDDED : SC_BAD;
	} else if ((*p == '$' || *p == '@') && (isdigit((unsigned char)p[1]) || p[1] == '#')) {
		for (e = p + 2; p[1] != '#' && isdigit((unsigned char)*e); e++)
			;
		sc->kind = SC_PUNCT;
	} else if (*p == '$' || (*p == '@' && (isalpha((unsigned char)p[1]) || p[1] == '_'))) {
		for (e = p + 1; *e == '$'; e++)
			;
		e = ident_end(e);
		/* a macro definition: what its uses expand to only the preprocessor knows */
		sc->kind = e - p == 7 && !memcmp(p, "@define", 7) ? SC_BAD : SC_IDENT;
	} else if (p[0] == '%' && p[1] == '(') {
		sc->kind = SC_BAD;      /* a conditional: only the preprocessor knows */
	} else if (punct_len(p)) {
		e = p + punct_len(p);
		sc->kind = SC_PUNCT;
	}
	if (sc->kind == SC_BAD)
		return SC_BAD;
	if (e) {
		sc->len = e - p;
		sc->p = e;
	} else {
		sc->len = 0;
	}
	return sc->kind;
}

static bool scan_is_n(const Scan *sc, const char *s, size_t n)
{
	return (sc->kind == SC_IDENT || sc->kind == SC_PUNCT) && sc->len == n &&
	       !memcmp(sc->tok, s, n);
}

#define scan_is(sc, s) scan_is_n(sc, s, sizeof(s) - 1)

/* Whether lex.c takes byte C outside strings, comments and embedded C. */
static bool lexes(unsigned char c)
{
	return isspace(c) || isalnum(c) || (c && strchr("{}()[];,.:?+-*/%&|^~!<>=_\"#$@", c));
}

/* The rest of a block whose '{' is the current token, then the token after its '}'. Read
 * a byte at a time, as most of the text is in blocks: only braces count, outside what
 * lex.c reads as comments, strings and embedded C. */
static bool scan_block(Scan *sc)
{
	const char *p = sc->p;
	for (int depth = 1; depth;) {
		if (p >= sc->end)
			return false;
		switch (*p) {
		case '{':
		case '}':
			depth += *p++ == '{' ? 1 : -1;
			break;
		case '"':
			if (!(p = string_end(p)))
				return false;
			break;
		case '#':
		case '/':
			if (*p == '/' && p[1] != '/' && p[1] != '*') {
				p++;
				break;
			}
			sc->p = p;
			if (!scan_space(sc))
				return false;
			p = sc->p;
			break;
		case '%':
			if (p[1] == '(')
				return false;
			if (p[1] != '{')
				p++;
			else if (!(p = strstr(p + 2, "%}")))
				return false;
			else
				p += 2;
			break;
		case '$':
		case '@':               /* $# and @#, not a comment */
			if (!strncmp(p, "@define", 7) && ident_end(p + 1) == p + 7)
				return false;
			p += p[1] == '#' ? 2 : 1;
			break;
		default:
			if (isalpha((unsigned char)*p) || *p == '_')
				p = ident_end(p);       /* a$#: the name a$, then a comment */
			else if (lexes(*p))
				p++;
			else
				return false;
		}
	}
	sc->p = p;
	scan_next(sc);
	return true;
}

/* gvar { "," gvar }, from its name (the current token) on: see parse.c's global_var. */
static bool scan_globals(Scan *sc, Vec *names)
{
	for (;;) {
		if (sc->kind != SC_IDENT)
			return false;
		add_name(names, TAPSET_GLOBAL, sc->tok, sc->len);
		scan_next(sc);
		if (scan_is(sc, "%"))
			scan_next(sc);
		if (scan_is(sc, "[")) {
			if (scan_next(sc) != SC_NUM || (scan_next(sc), !scan_is(sc, "]")))
				return false;
			scan_next(sc);
		}
		if (scan_is(sc, "=")) {
			if (scan_next(sc) != SC_STR && scan_is(sc, "-"))
				scan_next(sc);
			if (sc->kind != SC_STR && sc->kind != SC_NUM)
				return false;
			scan_next(sc);
		}
		if (!scan_is(sc, ","))
			return true;
		scan_next(sc);
	}
}

/* "function" fname ... (block | embedded), from fname on. */
static bool scan_function(Scan *sc, Vec *names)
{
	if (sc->kind != SC_IDENT)
		return false;
	add_name(names, TAPSET_FUNCTION, sc->tok, sc->len);
	int depth = 0;
	for (;;) {
		int k = scan_next(sc);
		if (k == SC_EOF || k == SC_BAD || scan_is(sc, "}") || scan_is(sc, ";"))
			return false;
		if (k == SC_EMBEDDED && !depth) {
			scan_next(sc);
			return true;
		}
		if (scan_is(sc, "{") && !depth)
			return scan_block(sc);
		depth += scan_is(sc, "(") - scan_is(sc, ")");
	}
}

/* parse.c's opens_alternatives(): whether what follows the '}' matching the '{' here may
 * follow a point's element. */
static bool opens_alternatives(const Scan *at)
{
	static const char *const after[] = {".", ",", "?", "!", "if", "{", "=", "+=", "("};
	Scan sc = *at;
	for (int depth = 1; depth;) {
		int k = scan_next(&sc);
		if (k == SC_EOF || k == SC_BAD)
			return false;
		depth += scan_is(&sc, "{") - scan_is(&sc, "}");
	}
	scan_next(&sc);
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		if (scan_is(&sc, after[i]))
			return true;
	return false;
}

/* "probe" points { ("=" | "+=") points } block [ "," block ], from the first point on.
 * The names before the last '=' or '+=' are the alias's: their first components go into
 * the index (a point's first component: its pieces as they touch, parse.c's component()). */
static bool scan_probe(Scan *sc, Vec *names)
{
	Vec group = {0}, alias_names = {0};
	int parens = 0, braces = 0;
	bool element = true, point_start = true, alias = false;
	for (;; scan_next(sc)) {
		if (sc->kind == SC_EOF || sc->kind == SC_BAD || scan_is(sc, ";") ||
		    (scan_is(sc, "}") && !braces && !parens))
			return false;
		if (parens) {
			parens += scan_is(sc, "(") - scan_is(sc, ")");
			continue;
		}
		if (scan_is(sc, "{") && !(element && opens_alternatives(sc)))
			break;
		if (point_start && !braces && (sc->kind == SC_IDENT || scan_is(sc, "*"))) {
			const char *e = sc->tok;
			while (isalnum((unsigned char)*e) || *e == '_' || *e == '$' || *e == '*')
				e++;
			vec_push(&group, xstrndup(sc->tok, e - sc->tok));
		}
		bool is_eq = scan_is(sc, "=") || scan_is(sc, "+=");
		if (is_eq && !braces) {
			for (int i = 0; i < group.len; i++)
				vec_push(&alias_names, group.data[i]);
			group = (Vec){0};
			alias = true;
		}
		parens += scan_is(sc, "(");
		braces += scan_is(sc, "{") - scan_is(sc, "}");
		point_start = is_eq || scan_is(sc, ",") || scan_is(sc, "{");
		element = point_start || scan_is(sc, ".");
	}
	if (!scan_block(sc))
		return false;
	if (alias && scan_is(sc, ",")) {
		if (scan_next(sc), !scan_is(sc, "{") || !scan_block(sc))
			return false;
	}
	for (int i = 0; i < alias_names.len; i++)
		vec_push(&names[TAPSET_ALIAS], alias_names.data[i]);
	return true;
}

/* declaration = probe | global | function | "private" (global | function | gvar)
 *             | embedded, as parse.c reads them. False where the scan cannot say what
 * the file declares: it is parsed whole instead. */
bool tapset_scan(const SrcFile *file, Vec names[TAPSET_KINDS])
{
	if (memchr(file->text, '\0', file->len))
		return false;
	Scan sc = {.p = file->text, .end = file->text + file->len};
	scan_next(&sc);
	while (sc.kind != SC_EOF) {
		if (scan_is(&sc, ";") || sc.kind == SC_EMBEDDED) {
			scan_next(&sc);
			continue;
		}
		if (scan_is(&sc, "private")) {
			scan_next(&sc);
			if (sc.kind == SC_IDENT && !is_keyword(xstrndup(sc.tok, sc.len))) {
				if (!scan_globals(&sc, names))      /* "private x" */
					return false;
				continue;
			}
			if (!scan_is(&sc, "global") && !scan_is(&sc, "function"))
				return false;
		}
		bool ok;
		if (scan_is(&sc, "global"))
			ok = (scan_next(&sc), scan_globals(&sc, names));
		else if (scan_is(&sc, "function"))
			ok = (scan_next(&sc), scan_function(&sc, names));
		else if (scan_is(&sc, "probe"))
			ok = (scan_next(&sc), scan_probe(&sc, names));
		else
			ok = false;
		if (!ok)
			return false;
	}
	return true;
}

/* The names a .stpm file defines: what follows each "@define", wherever it is (in a
 * conditional's branch too). False where lex.c would report something. */
bool tapset_scan_macros(const SrcFile *file, Vec names[TAPSET_KINDS])
{
	if (memchr(file->text, '\0', file->len))
		return false;
	Scan sc = {.p = file->text, .end = file->text + file->len};
	for (;;) {
		if (!scan_space(&sc))
			return false;
		const char *p = sc.p;
		if (p >= sc.end)
			return true;
		if (*p == '"') {
			if (!(sc.p = string_end(p)))
				return false;
		} else if (p[0] == '%' && p[1] == '{') {
			const char *e = strstr(p + 2, "%}");
			if (!e)
				return false;
			sc.p = e + 2;
		} else if (isalnum((unsigned char)*p) || *p == '_' || *p == '$' || *p == '@') {
			const char *e = ident_end(p + 1);
			sc.p = e;
			if (e - p != 7 || memcmp(p, "@define", 7))
				continue;
			if (!scan_space(&sc) || !(isalpha((unsigned char)*sc.p) || *sc.p == '_'))
				return false;
			e = ident_end(sc.p);
			add_name(names, TAPSET_MACRO, sc.p, e - sc.p);
			sc.p = e;
		} else if (lexes(*p)) {
			sc.p++;
		} else {
			return false;
		}
	}
}
