/* tapset.c - the library search path: the built-in tapset, then each -I DIR.
 *
 * As in SystemTap, every library folder is searched with its runtime and architecture
 * subfolders: DIR, DIR/ARCH, DIR/linux, DIR/linux/ARCH. .stpm files hold @define macros
 * and are read before the user's script; .stp files hold functions, globals and probe
 * aliases and are read for pass 2, where sema pulls in only what the script uses.
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

static void library_dirs(Session *s, Vec *out)
{
	Vec roots = {0};
	if (s->tapset_dir)
		vec_push(&roots, (void *)s->tapset_dir);
	for (int i = 0; i < s->include_dirs.len; i++)
		vec_push(&roots, s->include_dirs.data[i]);
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
	}
}

static SrcFile *load(const char *path)
{
	size_t len;
	char *text = read_whole_file(path, &len);
	if (!text) {
		error_plain("cannot read tapset file '%s'", path);
		return NULL;
	}
	SrcFile *f = new_srcfile(path, text, len);
	f->is_tapset = true;
	return f;
}

void tapset_load_macros(Session *s)
{
	Vec dirs = {0}, files = {0};
	library_dirs(s, &dirs);
	for (int i = 0; i < dirs.len; i++)
		files_with_suffix(dirs.data[i], ".stpm", &files);
	for (int i = 0; i < files.len; i++) {
		SrcFile *f = load(files.data[i]);
		if (f)
			pp_add_library_macros(tokenize(f), s);
	}
}

void tapset_load(Session *s)
{
	Vec dirs = {0}, files = {0};
	library_dirs(s, &dirs);
	for (int i = 0; i < dirs.len; i++)
		files_with_suffix(dirs.data[i], ".stp", &files);
	for (int i = 0; i < files.len && !too_many_errors(); i++) {
		SrcFile *f = load(files.data[i]);
		if (f)
			vec_push(&s->tapsets, parse_script(f, s));
	}
}
