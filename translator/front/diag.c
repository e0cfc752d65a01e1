/* diag.c - diagnostics: "file:line:col: error: message", the source line, a caret.
 *
 * Errors are counted, not fatal: a pass collects what it finds and the driver stops after
 * the pass when diag_errors is non-zero. A token that came out of a macro expansion is
 * reported at the macro's body and then at the place the macro was used; out of a tapset
 * macro's, at the script's use of the macro, naming it, with the tapset's line as a note.
 */
#include "hwtap.h"

#include <stdlib.h>
#include <string.h>

FILE *diag_out;
int diag_errors;
int diag_max_errors = 20;

static void forget_said(void);

void diag_reset(void)
{
	diag_errors = 0;
	forget_said();
}

bool too_many_errors(void)
{
	return diag_errors >= diag_max_errors;
}

static FILE *out(void)
{
	return diag_out ? diag_out : stderr;
}

static void show_line(const SrcFile *f, int line, int col)
{
	const char *p = f->text;
	for (int l = 1; l < line && *p; p++)
		if (*p == '\n')
			l++;
	const char *end = strchr(p, '\n');
	int len = end ? (int)(end - p) : (int)strlen(p);
	fprintf(out(), "  %.*s\n  ", len, p);
	for (int i = 1; i < col && i <= len; i++)
		fputc(p[i - 1] == '\t' ? '\t' : ' ', out());
	fputs("^\n", out());
}

void verror_at(const char *kind, const SrcFile *f, int line, int col, const char *fmt,
	       va_list ap)
{
	if (f)
		fprintf(out(), "%s:%d:%d: %s: ", f->name, line, col, kind);
	else
		fprintf(out(), "hwtap: %s: ", kind);
	vfprintf(out(), fmt, ap);
	fputc('\n', out());
	if (f && line > 0)
		show_line(f, line, col);
}

/* A probe body copied for several probe points shares its tokens: one message per place. */
static const Token *said_toks[256];
static char *said_msgs[256];
static int n_said;

static bool said_before(const Token *tok, const char *fmt, va_list ap)
{
	const Token **toks = said_toks;
	char **msgs = said_msgs;
	int n = n_said;
	va_list copy;
	va_copy(copy, ap);
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, copy);
	va_end(copy);
	for (int i = 0; i < n; i++)
		if (toks[i] == tok && !strcmp(msgs[i], msg))
			return true;
	if (n < 256) {
		toks[n] = tok;
		msgs[n] = strdup(msg);
		n_said = n + 1;
	}
	return false;
}

static void forget_said(void)
{
	for (int i = 0; i < n_said; i++)
		free(said_msgs[i]);
	n_said = 0;
}

/* The script's use of the tapset macro whose expansion tok came from, or NULL. */
static const Token *script_use(const Token *tok)
{
	if (!tok->file || !tok->file->is_tapset)
		return NULL;
	for (const Token *o = tok->origin; o; o = o->origin)
		if (o->file && !o->file->is_tapset)
			return o;
	return NULL;
}

static void report_in_script(const char *kind, const Token *tok, const Token *use,
			     const char *fmt, va_list ap)
{
	char *msg = xvformat(fmt, ap);
	fprintf(out(), "%s:%d:%d: %s: in macro '%.*s': %s\n", use->file->name, use->line,
		use->col, kind, use->len, use->pos, msg);
	show_line(use->file, use->line, use->col);
	fprintf(out(), "%s:%d:%d: note: where the tapset's macro '%.*s' expands to it\n",
		tok->file->name, tok->line, tok->col, use->len, use->pos);
	show_line(tok->file, tok->line, tok->col);
}

/* At tok, or at line:col of tok's file when line > 0 (a place inside a string literal). */
static void report_place(const char *kind, const Token *tok, int line, int col,
			 const char *fmt, va_list ap)
{
	if (!tok) {
		verror_at(kind, NULL, 0, 0, fmt, ap);
		return;
	}
	const Token *use = script_use(tok);
	if (use && line <= 0) {
		report_in_script(kind, tok, use, fmt, ap);
		return;
	}
	if (line <= 0) {
		line = tok->line;
		col = tok->col;
	}
	verror_at(kind, tok->file, line, col, fmt, ap);
	/* the innermost uses, then the one in the user's code; a recursive macro has many */
	int depth = 0;
	for (const Token *o = tok->origin; o; o = o->origin)
		depth++;
	int i = 0;
	for (const Token *o = tok->origin; o; o = o->origin, i++) {
		if (i == 2 && depth > 3)
			fprintf(out(), "note: ... %d more expansions ...\n", depth - 3);
		if (i >= 2 && o->origin && depth > 3)
			continue;
		fprintf(out(), "%s:%d:%d: note: in expansion of macro '%.*s'\n", o->file->name,
			o->line, o->col, o->len, o->pos);
	}
}

static void report(const char *kind, const Token *tok, const char *fmt, va_list ap)
{
	report_place(kind, tok, 0, 0, fmt, ap);
}

/* Reports unless tok said this already; errors beyond the limit are only counted. */
static void report_once(const char *kind, const Token *tok, int line, int col,
			const char *fmt, va_list ap)
{
	va_list dup;
	va_copy(dup, ap);
	bool repeated = tok && said_before(tok, fmt, dup);
	va_end(dup);
	if (repeated)
		return;
	bool error = !strcmp(kind, "error");
	if (error && ++diag_errors > diag_max_errors)
		return;
	report_place(kind, tok, line, col, fmt, ap);
	if (error && diag_errors == diag_max_errors)
		fprintf(out(), "hwtap: note: too many errors, stopping\n");
}

void error_at(const Token *tok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report_once("error", tok, 0, 0, fmt, ap);
	va_end(ap);
}

void warn_at(const Token *tok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report_once("warning", tok, 0, 0, fmt, ap);
	va_end(ap);
}

void error_in_string(const Token *tok, size_t offset, const char *fmt, ...)
{
	int line, col;
	va_list ap;
	tok_string_place(tok, offset, &line, &col);
	va_start(ap, fmt);
	report_once("error", tok, line, col, fmt, ap);
	va_end(ap);
}

void warn_in_string(const Token *tok, size_t offset, const char *fmt, ...)
{
	int line, col;
	va_list ap;
	tok_string_place(tok, offset, &line, &col);
	va_start(ap, fmt);
	report_once("warning", tok, line, col, fmt, ap);
	va_end(ap);
}

void note_at(const Token *tok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("note", tok, fmt, ap);
	va_end(ap);
}

void error_plain(const char *fmt, ...)
{
	diag_errors++;
	va_list ap;
	va_start(ap, fmt);
	verror_at("error", NULL, 0, 0, fmt, ap);
	va_end(ap);
}

void internal_error(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "hwtap: internal error at %s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputs("\nThis is a bug in hwtap, not in your script; please report it.\n", stderr);
	va_end(ap);
	abort();
}
