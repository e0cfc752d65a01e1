/* lex.c - source text to a list of tokens.
 *
 * token = ident | number | string | "$" target | "@" name | "$"N | "@"N | "$#" | "@#"
 *       | "%{" embedded C "%}" | punct
 * Comments: "#" and "//" to the end of the line, "/" "*" to "*" "/".
 * Keywords are TK_IDENT; the parser tells them apart.
 */
#include "hwtap.h"

#include <ctype.h>
#include <string.h>

/* Longest first: the lexer takes the first one that matches. */
static const char *const puncts[] = {
	"<<<", ">>>", "<<=", ">>=",
	"%(", "%?", "%:", "%)",
	"==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=",
	"&=", "|=", "^=", ".=", "<<", ">>", "->", "=~", "!~",
	"{", "}", "(", ")", "[", "]", ";", ",", ".", ":", "?", "+", "-", "*", "/", "%",
	"&", "|", "^", "~", "!", "<", ">", "=",
};

static const char *const keywords[] = {
	"probe", "global", "private", "function", "if", "else", "for", "foreach", "in",
	"limit", "return", "delete", "while", "break", "continue", "next", "try", "catch",
	"string", "long",
};

bool is_keyword(const char *name)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (!strcmp(name, keywords[i]))
			return true;
	return false;
}

bool tok_is_keyword(const Token *tok)
{
	if (tok->kind != TK_IDENT)
		return false;
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (tok_is(tok, keywords[i]))
			return true;
	return false;
}

SrcFile *new_srcfile(const char *name, const char *text, size_t len)
{
	SrcFile *f = xalloc(sizeof(*f));
	f->name = xstrdup(name);
	f->text = text;
	f->len = len;
	return f;
}

bool tok_is(const Token *tok, const char *spelling)
{
	if (!tok->len || tok->pos[0] != spelling[0])   /* the common case, cheaply */
		return false;
	size_t n = strlen(spelling);
	return (tok->kind == TK_PUNCT || tok->kind == TK_IDENT || tok->kind == TK_AT) &&
	       (size_t)tok->len == n && !memcmp(tok->pos, spelling, n);
}

char *tok_text(const Token *tok)
{
	return xstrndup(tok->pos, tok->len);
}

const char *tok_describe(const Token *tok)
{
	switch (tok->kind) {
	case TK_EOF:                 /* a condition's end stands in for its '%?' */
		return tok->len ? xformat("'%.*s'", tok->len, tok->pos) : "end of input";
	case TK_IDENT:
		return xformat("%s '%.*s'", is_keyword(tok_text(tok)) ? "keyword" : "identifier",
			       tok->len, tok->pos);
	case TK_NUM:
		return xformat("number '%.*s'", tok->len, tok->pos);
	case TK_STR:
		return tok->len > 40 ? "string literal" : xformat("string %.*s", tok->len, tok->pos);
	case TK_EMBEDDED:
		return "embedded C code";
	case TK_TARGET:
		return xformat("context variable '%.*s'", tok->len, tok->pos);
	default:
		return xformat("'%.*s'", tok->len, tok->pos);
	}
}

typedef struct {
	SrcFile *file;
	const char *p;
	int line;
	const char *line_start;
	Token head, *tail;
	bool space, at_line_start;
} Lexer;

static void lex_report(Lexer *lx, const char *kind, const char *at, const char *fmt,
		       va_list ap)
{
	/* `at` lies on the current line or an earlier one; count from the file start. */
	int line = 1;
	const char *ls = lx->file->text;
	for (const char *q = lx->file->text; q < at; q++)
		if (*q == '\n') {
			line++;
			ls = q + 1;
		}
	verror_at(kind, lx->file, line, (int)(at - ls) + 1, fmt, ap);
}

static void lex_error(Lexer *lx, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void lex_error(Lexer *lx, const char *at, const char *fmt, ...)
{
	diag_errors++;
	if (diag_errors > diag_max_errors)
		return;
	va_list ap;
	va_start(ap, fmt);
	lex_report(lx, "error", at, fmt, ap);
	va_end(ap);
}

static void lex_warning(Lexer *lx, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void lex_warning(Lexer *lx, const char *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lex_report(lx, "warning", at, fmt, ap);
	va_end(ap);
}

static Token *add(Lexer *lx, TokenKind kind, const char *start, const char *end)
{
	Token *t = xalloc(sizeof(*t));
	t->kind = kind;
	t->pos = start;
	t->len = end - start;
	t->file = lx->file;
	t->line = lx->line;
	t->col = (int)(start - lx->line_start) + 1;
	t->space_before = lx->space;
	t->line_start = lx->at_line_start;
	lx->space = lx->at_line_start = false;
	lx->tail = lx->tail->next = t;
	return t;
}

/* Moves over text that may hold newlines, keeping line counts right. */
static void advance_to(Lexer *lx, const char *to)
{
	for (; lx->p < to; lx->p++)
		if (*lx->p == '\n') {
			lx->line++;
			lx->line_start = lx->p + 1;
		}
}

static bool skip_space_and_comments(Lexer *lx)
{
	const char *p = lx->p;
	if (*p == '\n') {
		advance_to(lx, p + 1);
		lx->at_line_start = true;
		return true;
	}
	if (isspace((unsigned char)*p)) {
		lx->p++;
		return true;
	}
	if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
		while (*lx->p && *lx->p != '\n')
			lx->p++;
		return true;
	}
	if (p[0] == '/' && p[1] == '*') {
		const char *end = strstr(p + 2, "*/");
		if (!end) {     /* SystemTap ends it at the end of the input, silently */
			lex_warning(lx, p, "unterminated comment: it runs to the end of the input");
			advance_to(lx, p + strlen(p));
			return true;
		}
		advance_to(lx, end + 2);
		return true;
	}
	return false;
}

static int digit_value(int c)
{
	if (isdigit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* number = decimal | "0x" hex | "0" octal */
static void lex_number(Lexer *lx)
{
	const char *start = lx->p, *p = start;
	int base = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	const char *digits = p;
	uint64_t v = 0;
	bool overflow = false, bad = false;
	for (; isalnum((unsigned char)*p) || *p == '_'; p++) {
		int d = digit_value((unsigned char)*p);
		if (d >= base) {
			bad = true;
			continue;
		}
		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		v = v * base + d;
	}
	Token *t = add(lx, TK_NUM, start, p);
	t->num = v;
	lx->p = p;
	if (bad || (base == 16 && p == digits))
		lex_error(lx, start, "invalid number '%.*s'", (int)(p - start), start);
	else if (overflow)
		lex_error(lx, start, "number '%.*s' is out of range", (int)(p - start), start);
}

static int escape_value(const char **pp)
{
	const char *p = *pp;
	int c = *p++;
	switch (c) {
	case 'n': c = '\n'; break;
	case 't': c = '\t'; break;
	case 'r': c = '\r'; break;
	case 'a': c = '\a'; break;
	case 'b': c = '\b'; break;
	case 'f': c = '\f'; break;
	case 'v': c = '\v'; break;
	case '\\': case '"': case '\'': case '?': break;
	case 'x':
		if (digit_value((unsigned char)*p) >= 16) {
			c = -1;
			break;
		}
		for (c = 0; digit_value((unsigned char)*p) < 16; p++)
			c = (c * 16 + digit_value((unsigned char)*p)) & 0xff;
		break;
	default:
		if (c >= '0' && c <= '7') {
			c -= '0';
			for (int i = 0; i < 2 && *p >= '0' && *p <= '7'; i++, p++)
				c = c * 8 + (*p - '0');
			c &= 0xff;
		} else {
			c = -1;
		}
	}
	*pp = p;
	return c;
}

/* string = '"' { char | escape } '"' */
static void lex_string(Lexer *lx)
{
	const char *start = lx->p, *p = start + 1;
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	for (; *p != '"'; p++) {
		if (*p == '\0' || *p == '\n') {
			lex_error(lx, start, "unterminated string literal");
			break;
		}
		if (*p != '\\') {
			sb_putc(&sb, *p);
			continue;
		}
		const char *esc = p++;
		if (*p == '\0') {
			lex_error(lx, start, "unterminated string literal");
			break;
		}
		if (*p == '\n')      /* backslash-newline continues the string */
			continue;
		int c = escape_value(&p);
		if (c < 0)              /* as in SystemTap: "\{" is "{" */
			c = esc[1];
		sb_putc(&sb, (char)c);
		p--;
	}
	const char *end = *p == '"' ? p + 1 : p;
	int line = lx->line;
	const char *ls = lx->line_start;
	Token *t = add(lx, TK_STR, start, end);
	t->str = sb.buf;
	t->str_len = sb.len;
	advance_to(lx, end);
	t->line = line;
	t->col = (int)(start - ls) + 1;
}

/* Where byte `offset` of the value of the string that starts at literal tok (with the
 * literals adjacent to it, which parse.c joins) is spelled: its line and column; the end
 * of the value is the last closing quote. A string not spelled as a literal (a script
 * argument) is its token's place. */
void tok_string_place(const Token *tok, size_t offset, int *line, int *col)
{
	*line = tok->line;
	*col = tok->col;
	for (; tok && tok->kind == TK_STR && tok->pos[0] == '"'; tok = tok->next) {
		const char *p = tok->pos + 1, *line_start = tok->pos - (tok->col - 1);
		int l = tok->line;
		while (*p && *p != '"' && *p != '\n' && offset > 0) {
			if (p[0] == '\\' && p[1] == '\n') {     /* a continuation: no byte */
				p += 2;
				line_start = p;
				l++;
				continue;
			}
			if (*p++ == '\\')
				escape_value(&p);
			offset--;
		}
		*line = l;
		*col = (int)(p - line_start) + 1;
		if (*p != '"' || !tok->next || tok->next->kind != TK_STR)
			return;
	}
}

/* embedded = "%{" anything "%}" */
static void lex_embedded(Lexer *lx)
{
	const char *start = lx->p;
	const char *end = strstr(start + 2, "%}");
	int line = lx->line;
	const char *ls = lx->line_start;
	if (!end)
		lex_error(lx, start, "unterminated embedded C code (missing '%%}')");
	const char *stop = end ? end + 2 : start + strlen(start);
	Token *t = add(lx, TK_EMBEDDED, start, stop);
	t->str = xstrndup(start + 2, (end ? end : stop) - (start + 2));
	advance_to(lx, t->pos + t->len);
	t->line = line;
	t->col = (int)(start - ls) + 1;
}

/* After the first character a name may hold '$' too: a$b, $var$$ */
static const char *ident_end(const char *p)
{
	while (isalnum((unsigned char)*p) || *p == '_' || *p == '$')
		p++;
	return p;
}

static bool ident_start(int c)
{
	return isalpha(c) || c == '_';
}

/* target = "$" {"$"} ident {"$"};  arg = ("$" | "@") (digits | "#");  "$", "$$" alone */
static bool lex_sigil(Lexer *lx)
{
	const char *p = lx->p;
	char sigil = *p;
	if (isdigit((unsigned char)p[1]) || p[1] == '#') {
		const char *e = p + 2;
		if (p[1] != '#')
			while (isdigit((unsigned char)*e))
				e++;
		add(lx, TK_ARG, p, e);
		lx->p = e;
		return true;
	}
	if (sigil == '@') {
		if (!ident_start((unsigned char)p[1]))
			return false;
		const char *e = ident_end(p + 1);
		add(lx, TK_AT, p, e);
		lx->p = e;
		return true;
	}
	const char *name = p + 1;
	while (*name == '$')
		name++;
	if (!ident_start((unsigned char)*name)) {
		/* "$" or "$$" after a chain: @cast(p, "t")->f$ pretty-prints it */
		const char *e = p + 1 + (p[1] == '$');
		add(lx, TK_PUNCT, p, e);
		lx->p = e;
		return true;
	}
	const char *e = ident_end(name);
	add(lx, TK_TARGET, p, e);
	lx->p = e;
	return true;
}

Token *tokenize(SrcFile *file)
{
	Lexer lx = {.file = file, .p = file->text, .line = 1, .line_start = file->text};
	lx.tail = &lx.head;
	lx.at_line_start = true;
	while (*lx.p) {
		if (lx.p >= file->text + file->len)
			break;                  /* an embedded NUL ends the input */
		if (skip_space_and_comments(&lx)) {
			lx.space = true;
			continue;
		}
		const char *p = lx.p;
		if (isdigit((unsigned char)*p)) {
			lex_number(&lx);
			continue;
		}
		if (ident_start((unsigned char)*p)) {
			const char *e = ident_end(p);
			add(&lx, TK_IDENT, p, e);
			lx.p = e;
			continue;
		}
		if (*p == '"') {
			lex_string(&lx);
			continue;
		}
		if (p[0] == '%' && p[1] == '{') {
			lex_embedded(&lx);
			continue;
		}
		if ((*p == '$' || *p == '@') && lex_sigil(&lx))
			continue;
		size_t i;
		for (i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
			if (puncts[i][0] != *p)
				continue;
			size_t n = strlen(puncts[i]);
			if (!strncmp(p, puncts[i], n)) {
				add(&lx, TK_PUNCT, p, p + n);
				lx.p = p + n;
				break;
			}
		}
		if (i < sizeof(puncts) / sizeof(puncts[0]))
			continue;
		unsigned char c = *p;
		int n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;   /* UTF-8 */
		for (int i = 1; i < n; i++)
			if (((unsigned char)p[i] & 0xc0) != 0x80)
				n = 1;
		if (isprint(c) || n > 1)
			lex_error(&lx, p, "unexpected character '%.*s'", n, p);
		else
			lex_error(&lx, p, "unexpected byte 0x%02x", c);
		lx.p += n;
	}
	add(&lx, TK_EOF, lx.p, lx.p);
	return lx.head.next;
}
