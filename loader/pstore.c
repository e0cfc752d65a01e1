/* pstore.c - what hwtap sessions wrote to the kernel log when the kernel panicked
 * (runtime/panic.h, the format in protocol.h), found again after the reboot in the files
 * pstore made of the panic's log dump: hwtap-run --pstore.
 *
 * Where: /sys/fs/pstore (the pstore file system: dmesg-ramoops-N, dmesg-efi-N, ...) and
 * /var/lib/systemd/pstore (where systemd-pstore moves them at boot, a directory per dump,
 * with the parts joined in dmesg.txt), or the files and directories given. A dump may come
 * in parts, each a file starting "Panic#COUNT PartK" (Part1 the newest end of the log):
 * they are read oldest part first, so that a tail cut across two parts joins up. In a
 * directory with a dmesg.txt, that file stands for its parts.
 */
#define _GNU_SOURCE
#include "loader.h"
#include "../runtime/protocol.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const default_dirs[] = { "/sys/fs/pstore", "/var/lib/systemd/pstore" };

/* One file of a dump. */
typedef struct DumpFile {
	char *path;
	int dir;                /* its directory's index, in the order found */
	long count, part;       /* "Panic#COUNT PartPART"; 0 when the file has no such line */
	char *text;
	size_t len;
} DumpFile;

typedef struct Files {
	DumpFile *v;
	size_t n;
	int dirs;
} Files;

/* The whole of PATH, NUL-terminated: 0, or -1 with errno. */
static int slurp(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	if (!f)
		return -1;
	char *p = NULL;
	size_t n = 0, cap = 0, got;
	do {
		if (cap - n < 65536)
			p = loader_realloc(p, cap = cap * 2 + 65536);
		got = fread(p + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	int failed = ferror(f);
	fclose(f);
	if (failed) {
		free(p);
		errno = EIO;
		return -1;
	}
	p[n] = '\0';
	*text = p;
	*len = n;
	return 0;
}

static int add_file(Files *fs, const char *path, int dir)
{
	DumpFile d = { .dir = dir };
	if (slurp(path, &d.text, &d.len)) {
		fprintf(stderr, "hwtap-run: error: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	char reason[32];
	if (sscanf(d.text, "%31[A-Za-z]#%ld Part%ld", reason, &d.count, &d.part) != 3)
		d.count = d.part = 0;
	d.path = xstrndup(path, strlen(path));
	fs->v = loader_realloc(fs->v, (fs->n + 1) * sizeof(*fs->v));
	fs->v[fs->n++] = d;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* DIR's dump files (dmesg.txt alone when it is there, else dmesg-*), then its
 * subdirectories'. TOP: a missing DIR is no error. */
static int add_dir(Files *fs, const char *dir, int top)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, by_name), rc = 0, index = fs->dirs++;
	if (n < 0) {
		if (top && errno == ENOENT)
			return 0;
		fprintf(stderr, "hwtap-run: error: cannot read %s: %s\n", dir, strerror(errno));
		return -1;
	}
	int joined = 0;
	for (int i = 0; i < n; i++)
		joined |= !strcmp(names[i]->d_name, "dmesg.txt");
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n && !rc; i++) {
			const char *name = names[i]->d_name;
			char *path;
			struct stat st;
			if (name[0] == '.' || asprintf(&path, "%s/%s", dir, name) < 0)
				continue;
			if (lstat(path, &st) == 0 && pass == 0 && S_ISREG(st.st_mode) &&
			    (joined ? !strcmp(name, "dmesg.txt") : !strncmp(name, "dmesg-", 6)))
				rc = add_file(fs, path, index);
			else if (lstat(path, &st) == 0 && pass == 1 && S_ISDIR(st.st_mode))
				rc = add_dir(fs, path, 0);
			free(path);
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* Directory by directory; in one, dump by dump, each oldest part first. */
static int by_dump(const void *a, const void *b)
{
	const DumpFile *x = a, *y = b;
	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	if (x->part != y->part)
		return x->part > y->part ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* ---- the lines ------------------------------------------------------------------------ */

enum kind { NOT_OURS, HEAD, LINE, MORE, END };

/* LINE (NUL-terminated, no newline) as one of panic.h's: its kind, the session's name in
 * NAME, and in *REST what follows the mark. "<6>[  12.345678] " and the like before the
 * message are skipped. */
static enum kind classify(const char *line, char name[SESSION_NAME_MAX + 1], const char **rest)
{
	const char *p = line;
	if (*p == '<') {
		size_t k = strcspn(p, ">");
		p += k + (p[k] != '\0');
	}
	while (*p == '[' || *p == ' ')
		p += *p == '[' ? strcspn(p, "]") + (p[strcspn(p, "]")] != '\0') : 1;
	size_t prefix = strlen(HWTAP_PROC_PREFIX);
	if (strncmp(p, HWTAP_PROC_PREFIX, prefix))
		return NOT_OURS;
	p += prefix;
	size_t n = 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	if (!n || n > SESSION_NAME_MAX)
		return NOT_OURS;
	memcpy(name, p, n);
	name[n] = '\0';
	p += n;
	if (*p == HWTAP_PANIC_LINE || *p == HWTAP_PANIC_MORE) {
		enum kind k = *p == HWTAP_PANIC_LINE ? LINE : MORE;
		*rest = p[1] == ' ' ? p + 2 : p + 1;
		return k;
	}
	if (!strncmp(p, ": " HWTAP_PANIC_HEAD " ", strlen(HWTAP_PANIC_HEAD) + 3)) {
		*rest = p + strlen(HWTAP_PANIC_HEAD) + 3;
		return HEAD;
	}
	if (!strcmp(p, ": " HWTAP_PANIC_END))
		return END;
	return NOT_OURS;
}

static void tail_add(PanicTail *t, const char *s, size_t len)
{
	t->text = loader_realloc(t->text, t->len + len + 1);
	memcpy(t->text + t->len, s, len);
	t->len += len;
	t->text[t->len] = '\0';
}

/* "bytes=N unread=M overwritten=R[ cut=log] script=FILE", or "lost: REASON". */
static void tail_head(PanicTail *t, const char *rest)
{
	const char *script = strstr(rest, " script="), *cut = strstr(rest, " cut=log");
	t->cut_by_log = cut && script && cut < script;
	if (!strncmp(rest, "lost: ", 6)) {
		t->lost = xstrndup(rest + 6, strlen(rest + 6));
		t->complete = 1;
	} else if (sscanf(rest, "bytes=%lld unread=%lld overwritten=%lld", &t->bytes, &t->unread,
			  &t->overwritten) != 3 || !script) {
		t->bytes = t->unread = t->overwritten = -1;
	}
	if (script)
		t->script = xstrndup(script + 8, strlen(script + 8));
}

typedef struct Tails {
	PanicTail *v;
	size_t n;
	PanicTail *open;        /* the one whose lines come now, or NULL */
	int begun;              /* the dump has shown a line of something else */
} Tails;

/* pstore's header of each part of a dump: "Panic#2 Part1", "Oops#1 Part3". */
static int part_header(const char *line)
{
	int n = 0;
	unsigned count, part;
	return sscanf(line, "%*[A-Za-z]#%u Part%u%n", &count, &part, &n) == 2 && !line[n];
}

static PanicTail *tail_new(Tails *ts, const char *name, const char *source)
{
	ts->v = loader_realloc(ts->v, (ts->n + 1) * sizeof(*ts->v));
	PanicTail *t = &ts->v[ts->n++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->source = xstrndup(source, strlen(source));
	t->bytes = t->unread = t->overwritten = -1;
	return t;
}

/* One dump's text (NUL-terminated lines). A tail whose head line is not in the dump
 * starts at its first line found; one whose end is not there stays incomplete. */
static void scan(Tails *ts, char *text, const char *source)
{
	char name[SESSION_NAME_MAX + 1];
	const char *rest = "";
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		enum kind k = classify(line, name, &rest);
		if (k == NOT_OURS) {
			/* A tail is printed whole at the panic, nothing between its lines: one
			 * that another line interrupts has ended (its end was not kept). */
			if (!part_header(line) && *line) {
				ts->open = NULL;
				ts->begun = 1;
			}
			continue;
		}
		PanicTail *t = ts->open;
		if (k != HEAD && (!t || strcmp(t->name, name))) {
			/* A line of a tail whose head is not here: only where the dump begins
			 * inside it. Elsewhere it is not a session's (a process named
			 * "hwtap_x| ..." that segfaulted, say, whose name the kernel logged). */
			if (ts->begun)
				continue;
		}
		if (k == HEAD || !t || strcmp(t->name, name)) {
			t = ts->open = tail_new(ts, name, source);
			t->started_inside = k != HEAD;
		}
		ts->begun = 1;
		switch (k) {
		case HEAD:
			tail_head(t, rest);
			if (t->lost)
				ts->open = NULL;
			break;
		case LINE:
			if (t->len || t->lines)
				tail_add(t, "\n", 1);
			t->lines++;
			/* fallthrough */
		case MORE:
			tail_add(t, rest, strlen(rest));
			break;
		case END:
			t->complete = 1;
			ts->open = NULL;
			break;
		case NOT_OURS:
			break;
		}
	}
}

int pstore_read(char *const *paths, int npaths, PanicTail **out, size_t *n)
{
	Files fs = {0};
	Tails ts = {0};
	int rc = 0;
	if (npaths == 0) {
		for (size_t i = 0; i < sizeof(default_dirs) / sizeof(default_dirs[0]) && !rc; i++)
			rc = add_dir(&fs, default_dirs[i], 1);
	}
	for (int i = 0; i < npaths && !rc; i++) {
		struct stat st;
		if (stat(paths[i], &st) < 0) {
			fprintf(stderr, "hwtap-run: error: cannot read %s: %s\n", paths[i],
				strerror(errno));
			rc = -1;
		} else {
			rc = S_ISDIR(st.st_mode) ? add_dir(&fs, paths[i], 0) :
			     add_file(&fs, paths[i], fs.dirs++);
		}
	}
	qsort(fs.v, fs.n, sizeof(*fs.v), by_dump);
	for (size_t i = 0; i < fs.n; i++) {
		/* a new dump: a tail left open in the one before ends there */
		if (i && (fs.v[i].dir != fs.v[i - 1].dir || fs.v[i].count != fs.v[i - 1].count ||
			  !fs.v[i].count))
			ts.open = NULL, ts.begun = 0;
		if (!rc)
			scan(&ts, fs.v[i].text, fs.v[i].path);
		free(fs.v[i].text);
		free(fs.v[i].path);
	}
	free(fs.v);
	/* each tail's text ends with its last line's newline */
	for (size_t i = 0; i < ts.n; i++)
		if (ts.v[i].lines)
			tail_add(&ts.v[i], "\n", 1);
	if (rc) {
		pstore_free(ts.v, ts.n);
		return -1;
	}
	*out = ts.v;
	*n = ts.n;
	return 0;
}

void pstore_free(PanicTail *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(t[i].script);
		free(t[i].source);
		free(t[i].lost);
		free(t[i].text);
	}
	free(t);
}

/* What we know of tail T's circumstances, on stderr before its lines. */
void pstore_describe(const PanicTail *t)
{
	fprintf(stderr, "hwtap-run: session %s (%s): ", t->name,
		t->script ? t->script : "script not known");
	if (t->lost) {
		fprintf(stderr, "its output was lost at the panic: %s (%s)\n", t->lost, t->source);
		return;
	}
	const char *room = t->cut_by_log ? "the log's room for the tails of all sessions "
		"(hwtap_panic_log)" : "hwtap_panic_tail";
	if (t->bytes == 0 && t->unread == 0)
		fprintf(stderr, "all of its output had been read when the kernel panicked");
	else if (t->bytes == 0)
		fprintf(stderr, "none of the %lld bytes of output nobody had read when the kernel "
			"panicked fit in %s", t->unread, room);
	else if (t->bytes > 0)
		fprintf(stderr, "%lld bytes of output nobody had read when the kernel panicked",
			t->bytes);
	else
		fprintf(stderr, "output nobody had read when the kernel panicked");
	fprintf(stderr, " (%s)", t->source);
	if (t->unread > t->bytes && t->bytes > 0)
		fprintf(stderr, "; the %lld bytes before did not fit in %s", t->unread - t->bytes,
			room);
	if (t->overwritten > 0)
		fprintf(stderr, "; %lld records were overwritten before", t->overwritten);
	if (t->started_inside)
		fprintf(stderr, "; the dump begins inside it: its first lines were not kept "
			"(pstore.kmsg_bytes)");
	if (!t->complete)
		fprintf(stderr, "; the dump ends inside it: its last lines were not kept");
	fputc('\n', stderr);
}
