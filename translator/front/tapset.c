/* tapset.c - the library search path: the built-in tapset, then each -I DIR.
 *
 * As in SystemTap, every library folder is searched with its runtime and architecture
 * subfolders: DIR, DIR/ARCH, DIR/linux, DIR/linux/ARCH. .stpm files hold @define macros
 * and are read before the user's script; .stp files hold functions, globals and probe
 * aliases and are read for pass 2, where sema pulls in only what the script uses.
 *
 * Parsing all of the built-in tapset for every run was most of what `hwtap -p2` of a
 * one-line script cost (4,600 lines: 5 MB of tokens and nodes, 1,300 fresh pages). So a
 * built-in file is only scanned at first, for the names it declares: its functions, its
 * globals and the first component of its aliases' names. It is parsed when sema first
 * asks for one of them (tapset_need()), into its own place in s->tapsets, which keeps the
 * library's order. The scan reads the text as lex.c does (comments, strings, embedded C,
 * braces) without building anything. A file it cannot vouch for (%( %) conditionals, a
 * macro, anything unexpected at the top level) is parsed at once, and so is every file
 * of a -I folder, whose diagnostics, if any, must come where they always did: the
 * built-in files have none (the listing tests parse them all), so when one of them is
 * parsed changes only the time. The .stpm files likewise are only scanned for the names
 * of their macros, each read when the preprocessor first meets one of them.
 */
#include "hwtap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files in `dir` ending in `suffix`, sorted, as full paths. */
static void files_with_suffix(const char *dir, const char *suffix, Vec *out)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	Vec names = {0};
	struct dirent *e;
	size_t sl = strlen(suffix);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > sl && !strcmp(e->d_name + n - sl, suffix) && e->d_name[0] != '.')
			vec_push(&names, xstrdup(e->d_name));
	}
	closedir(d);
	if (names.len)
		qsort(names.data, names.len, sizeof(void *), by_name);
	for (int i = 0; i < names.len; i++)
		vec_push(out, xformat("%s/%s", dir, (char *)names.data[i]));
}

/* The library's folders in search order; the first *builtin of them are the built-in
 * tapset's. */
static void library_dirs(Session *s, Vec *out, int *builtin)
{
	Vec roots = {0};
	if (s->tapset_dir)
		vec_push(&roots, (void *)s->tapset_dir);
	for (int i = 0; i < s->include_dirs.len; i++)
		vec_push(&roots, s->include_dirs.data[i]);
	*builtin = 0;
	for (int i = 0; i < roots.len; i++) {
		const char *r = roots.data[i];
		const char *sub[] = {
			r, xformat("%s/%s", r, s->arch), xformat("%s/linux", r),
			xformat("%s/linux/%s", r, s->arch),
		};
		for (int j = 0; j < 4; j++) {
			struct stat st;
			if (!stat(sub[j], &st) && S_ISDIR(st.st_mode))
				vec_push(out, (void *)sub[j]);
		}
		if (i == 0 && s->tapset_dir)
			*builtin = out->len;
	}
}

/* PATH as a tapset file, or NULL when it cannot be read: the caller says so, in turn. */
static SrcFile *load(const char *path)
{
	size_t len;
	char *text = read_whole_file(path, &len);
	if (!text)
		return NULL;
	SrcFile *f = new_srcfile(path, text, len);
	f->is_tapset = true;
	return f;
}

/* A file's entry in the index. */
typedef struct TapsetFile {
	SrcFile *file;
	bool scanned;                           /* parsed (read) only when needed */
	bool parsed;                            /* or, a .stpm file, read */
	VEC(char *) names[TAPSET_KINDS];       /* what the scan found */
} TapsetFile;

/* ---- the index ------------------------------------------------------------------------- */

#define INDEX_BUCKETS 512

typedef struct Entry {
	struct Entry *next;
	TapsetName kind;
	const char *name;
	int file;               /* in s->tapsets */
} Entry;

struct TapsetIndex {
	VEC(TapsetFile *) files;                /* parallel to s->tapsets */
	VEC(TapsetFile *) macro_files;          /* the .stpm files */
	Entry *buckets[INDEX_BUCKETS];
	Entry **tails[INDEX_BUCKETS];           /* entries go in file order */
};

static struct TapsetIndex *index_of(Session *s)
{
	if (!s->tapset_index)
		s->tapset_index = xalloc(sizeof(struct TapsetIndex));
	return s->tapset_index;
}

static unsigned bucket(TapsetName kind, const char *name)
{
	return (fnv1a(FNV1A_INIT + kind, name, strlen(name)) >> 7) % INDEX_BUCKETS;
}

static void index_file(struct TapsetIndex *ix, TapsetFile *f, int file)
{
	for (int k = 0; k < TAPSET_KINDS; k++) {
		for (int i = 0; i < f->names[k].len; i++) {
			Entry *e = xalloc(sizeof(*e));
			*e = (Entry){.kind = k, .name = f->names[k].data[i], .file = file};
			unsigned b = bucket(k, e->name);
			if (!ix->tails[b])
				ix->tails[b] = &ix->buckets[b];
			*ix->tails[b] = e;
			ix->tails[b] = &e->next;
		}
	}
}

static bool scanned(TapsetFile *f, TapsetName kind, const char *name)
{
	for (int i = 0; i < f->names[kind].len; i++)
		if (!strcmp(f->names[kind].data[i], name))
			return true;
	return false;
}

/* Everything the parse found in a scanned file, the scan must have: a name it missed
 * would be looked for in vain. */
static void check_scan(TapsetFile *f, Script *sc)
{
	for (int i = 0; i < sc->funcs.len; i++) {
		Function *fn = sc->funcs.data[i];
		if (!scanned(f, TAPSET_FUNCTION, fn->name))
			internal_error(__FILE__, __LINE__, "the scan of %s missed function '%s'",
				       f->file->name, fn->name);
	}
	for (int i = 0; i < sc->globals.len; i++) {
		Global *g = sc->globals.data[i];
		if (!scanned(f, TAPSET_GLOBAL, g->name))
			internal_error(__FILE__, __LINE__, "the scan of %s missed global '%s'",
				       f->file->name, g->name);
	}
	for (int i = 0; i < sc->aliases.len; i++) {
		Probe *a = sc->aliases.data[i];
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *pp = a->alias_names.data[j];
			const char *first = ((Component *)pp->comps.data[0])->name;
			if (!scanned(f, TAPSET_ALIAS, first))
				internal_error(__FILE__, __LINE__, "the scan of %s missed alias '%s'",
					       f->file->name, probe_point_string(pp));
		}
	}
}

/* A file parsed (a .stpm file read) late is read as it was when all were read first,
 * with no error counted yet: parse.c and pp.c stop at too many errors, and the script
 * may have made that many by now. */
static int late_start(TapsetFile *f)
{
	int errors = diag_errors;
	if (f->scanned)
		diag_errors = 0;
	return errors;
}

static void late_end(TapsetFile *f, int errors)
{
	if (f->scanned)
		diag_errors += errors;
}

static void read_macros(Session *s, TapsetFile *f)
{
	if (f->parsed)
		return;
	f->parsed = true;
	int from = s->library_macros.len;
	int errors = late_start(f);
	pp_add_library_macros(tokenize(f->file), s);
	late_end(f, errors);
	for (int i = from; f->scanned && i < s->library_macros.len; i++) {
		const char *name = macro_name(s->library_macros.data[i]);
		if (name && !scanned(f, TAPSET_MACRO, name))
			internal_error(__FILE__, __LINE__, "the scan of %s missed macro '@%s'",
				       f->file->name, name);
	}
}

/* The .stpm files are read when the preprocessor first meets one of their names, if all
 * are the built-in tapset's and no two define a name: then the order they are read in
 * (the last definition of a name wins) does not matter. Else all are read now, in
 * order, as before. */
void tapset_load_macros(Session *s)
{
	Vec dirs = {0}, files = {0};
	int builtin, builtin_files = 0;
	library_dirs(s, &dirs, &builtin);
	for (int i = 0; i < dirs.len; i++) {
		files_with_suffix(dirs.data[i], ".stpm", &files);
		if (i + 1 == builtin)
			builtin_files = files.len;
	}
	struct TapsetIndex *ix = index_of(s);
	bool lazy = builtin_files == files.len;
	for (int i = 0; i < files.len; i++) {
		TapsetFile *f = xalloc(sizeof(*f));
		f->file = load(files.data[i]);
		vec_push(&ix->macro_files, f);
		lazy = lazy && f->file && tapset_scan_macros(f->file, f->names);
	}
	for (int i = 0; lazy && i < files.len; i++) {
		TapsetFile *f = ix->macro_files.data[i];
		for (int j = 0; j < f->names[TAPSET_MACRO].len; j++)
			for (int k = 0; k < i; k++)
				if (scanned(ix->macro_files.data[k], TAPSET_MACRO,
					    f->names[TAPSET_MACRO].data[j]))
					lazy = false;
	}
	for (int i = 0; i < files.len; i++) {
		TapsetFile *f = ix->macro_files.data[i];
		if (!f->file) {
			error_plain("cannot read tapset file '%s'", (char *)files.data[i]);
		} else if (!lazy) {
			read_macros(s, f);
		} else {
			f->scanned = true;
			index_file(ix, f, i);
		}
	}
}

static void parse_file(Session *s, int i)
{
	TapsetFile *f = s->tapset_index->files.data[i];
	if (f->parsed)
		return;
	f->parsed = true;
	int errors = late_start(f);
	Script *sc = parse_script(f->file, s);
	late_end(f, errors);
	sc->order = i + 1;
	if (f->scanned)
		check_scan(f, sc);
	s->tapsets.data[i] = sc;        /* for its stand-in */
	s->tapset_parses++;
}

void tapset_load(Session *s)
{
	Vec dirs = {0}, files = {0};
	int builtin, builtin_files = 0;
	library_dirs(s, &dirs, &builtin);
	for (int i = 0; i < dirs.len; i++) {
		files_with_suffix(dirs.data[i], ".stp", &files);
		if (i + 1 == builtin)
			builtin_files = files.len;
	}
	struct TapsetIndex *ix = index_of(s);
	for (int i = 0; i < files.len && !too_many_errors(); i++) {
		SrcFile *file = load(files.data[i]);
		if (!file) {
			error_plain("cannot read tapset file '%s'", (char *)files.data[i]);
			continue;
		}
		TapsetFile *f = xalloc(sizeof(*f));
		f->file = file;
		Script *stand_in = xalloc(sizeof(*stand_in));
		stand_in->is_tapset = true;
		vec_push(&ix->files, f);
		vec_push(&s->tapsets, stand_in);
		int at = s->tapsets.len - 1;
		if (i < builtin_files && tapset_scan(file, f->names)) {
			f->scanned = true;
			index_file(ix, f, at);
		} else {
			parse_file(s, at);
		}
	}
}

void tapset_need(Session *s, TapsetName kind, const char *name)
{
	struct TapsetIndex *ix = s->tapset_index;
	if (!ix)
		return;
	if (!name && kind == TAPSET_MACRO) {
		for (int i = 0; i < ix->macro_files.len; i++)
			read_macros(s, ix->macro_files.data[i]);
		return;
	}
	if (!name) {
		for (int i = 0; i < ix->files.len; i++)
			if (((TapsetFile *)ix->files.data[i])->names[kind].len)
				parse_file(s, i);
		return;
	}
	for (Entry *e = ix->buckets[bucket(kind, name)]; e; e = e->next) {
		if (e->kind != kind || strcmp(e->name, name))
			continue;
		if (kind == TAPSET_MACRO)
			read_macros(s, ix->macro_files.data[e->file]);
		else
			parse_file(s, e->file);
	}
}

void tapset_parse_all(Session *s)
{
	for (int i = 0; s->tapset_index && i < s->tapset_index->files.len; i++)
		parse_file(s, i);
}
