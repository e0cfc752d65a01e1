/* cache.c - the module cache's upkeep (pass 4, build.c).
 *
 * The cache is a folder of folders, one per module hash, under
 * $XDG_CACHE_HOME/hwtap/modules or ~/.cache/hwtap/modules. A folder's mtime says when it
 * was last used: a cache hit touches it. After pass 4 adds a module, the folders used
 * longest ago are removed until the cache holds at most HWTAP_CACHE_MB MiB (default 512;
 * SystemTap's cache_mb_limit does the same with 256, but one testsuite run adds about
 * 200 MiB of modules). A folder used in the last minute stays whatever the size, so that hwtap
 * processes working side by side (the testsuite builds in parallel) never lose a module
 * between pass 4 and loading it. Beside it, hwtap/features holds one small file per kernel
 * build tree: the flags of its kernel features (build.c), never pruned.
 */
#include "hwtap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CACHE_DEFAULT_MB 512
#define CACHE_GRACE_S 60

typedef struct {
	char *path;
	time_t used;
	long long bytes;
} Entry;

const char *cache_dir(const char *kind)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg)
		return xformat("%s/hwtap/%s", xdg, kind);
	const char *home = getenv("HOME");
	return xformat("%s/.cache/hwtap/%s", home && *home ? home : "/tmp", kind);
}

const char *cache_root(void)
{
	return cache_dir("modules");
}

void cache_touch(const char *dir)
{
	utimensat(AT_FDCWD, dir, NULL, 0);
}

/* HWTAP_CACHE_MB in bytes; a value that is not a number of MiB is said and ignored */
static long long cache_limit(void)
{
	const char *e = getenv("HWTAP_CACHE_MB");
	if (!e || !*e)
		return (long long)CACHE_DEFAULT_MB << 20;
	char *end;
	errno = 0;
	long long mb = strtoll(e, &end, 10);
	if (errno || *end || mb < 0 || mb > (1LL << 40)) {
		fprintf(stderr, "hwtap: warning: HWTAP_CACHE_MB must be a number of MiB, not "
			"'%s': the cache keeps %d MiB\n", e, CACHE_DEFAULT_MB);
		return (long long)CACHE_DEFAULT_MB << 20;
	}
	return mb << 20;
}

/* nftw() keeps no context: what the callbacks add up */
static long long walk_bytes;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path, (void)flag, (void)f;
	walk_bytes += (long long)st->st_blocks * 512;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	remove(path);
	return 0;
}

void cache_remove(const char *path)
{
	nftw(path, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

static int least_recent_first(const void *a, const void *b)
{
	const Entry *x = *(Entry *const *)a, *y = *(Entry *const *)b;
	return x->used < y->used ? -1 : x->used > y->used;
}

/* The cache's folders with their sizes; *total gets the sum. */
static Vec cache_entries(const char *root, long long *total)
{
	Vec entries = {0};
	*total = 0;
	DIR *d = opendir(root);
	if (!d)
		return entries;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d))) {
		char *path = xformat("%s/%s", root, e->d_name);
		if (e->d_name[0] == '.' || lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		Entry *en = xalloc(sizeof(*en));
		en->path = path;
		en->used = st.st_mtime;
		walk_bytes = 0;
		nftw(path, add_size, 8, FTW_PHYS);
		en->bytes = walk_bytes;
		*total += walk_bytes;
		vec_push(&entries, en);
	}
	closedir(d);
	return entries;
}

void cache_prune(const char *keep, bool verbose)
{
	long long limit = cache_limit(), total;
	Vec entries = cache_entries(cache_root(), &total);
	if (total <= limit)
		return;
	if (entries.len > 1)
		qsort(entries.data, entries.len, sizeof(void *), least_recent_first);
	time_t now = time(NULL);
	int removed = 0;
	long long freed = 0;
	for (int i = 0; i < entries.len && total - freed > limit; i++) {
		Entry *en = entries.data[i];
		if (!strcmp(en->path, keep) || now - en->used < CACHE_GRACE_S)
			continue;
		nftw(en->path, remove_one, 8, FTW_DEPTH | FTW_PHYS);
		freed += en->bytes;
		removed++;
	}
	if (verbose && removed)
		fprintf(stderr, "hwtap: pass 4: the module cache was over %lld MiB: removed the "
			"%d folders used longest ago (%lld MiB)\n", limit >> 20, removed,
			freed >> 20);
}
