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
 *
 * What the cache holds is built into modules and loaded, as root by hwtap-run: the hwtap
 * folder must be the user's own (private_root), and a cached file is used only when it is
 * the user's (cache_own_file).
 */
#include "hwtap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_DEFAULT_MB 512
#define CACHE_GRACE_S 60

typedef struct {
	char *path;
	time_t used;
	long long bytes;
} Entry;

/* Whether the folder PATH may hold what this user builds and loads: a folder, not a link,
 * the user's own, that nobody else can write to. NULL, or why not. */
static const char *untrusted_folder(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return xformat("%s", strerror(errno));
	if (S_ISLNK(st.st_mode))
		return "it is a symbolic link";
	if (!S_ISDIR(st.st_mode))
		return "it is not a folder";
	if (st.st_uid != geteuid())
		return xformat("it is owned by uid %u, not %u", (unsigned)st.st_uid,
			       (unsigned)geteuid());
	if (st.st_mode & 022)
		return xformat("others can write to it (mode %04o)", (unsigned)(st.st_mode & 07777));
	return NULL;
}

/* The user's own hwtap folder, BASE/hwtap: BASE is $XDG_CACHE_HOME, else HOME/.cache, with
 * HOME from the password database when the environment has none (a system unit, env -i):
 * never a folder others share, such as /tmp. Made 0700 when missing; refused when a link,
 * another user's, or writable by others, since what it holds is compiled and loaded as
 * this user (root, for hwtap-run). NULL after saying why. Looked at once per process. */
static const char *private_root(void)
{
	static const char *root;
	static bool looked;
	if (looked)
		return root;
	looked = true;
	const char *base = getenv("XDG_CACHE_HOME");
	if (!base || !*base) {
		const char *home = getenv("HOME");
		if (!home || !*home) {
			struct passwd *pw = getpwuid(geteuid());
			home = pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
		}
		if (!home) {
			error_plain("no folder for the module cache: HOME is not set and uid %u has "
				    "no home directory; set XDG_CACHE_HOME", (unsigned)geteuid());
			return NULL;
		}
		base = xformat("%s/.cache", home);
	}
	char *path = xformat("%s/hwtap", base);
	if (mkdirs(base, 0755) || (mkdir(path, 0700) && errno != EEXIST)) {
		error_plain("cannot create the cache folder %s: %s", path, strerror(errno));
		return NULL;
	}
	const char *why = untrusted_folder(path);
	if (why) {
		error_plain("refusing the cache folder %s: %s (what it holds is built and loaded "
			    "as this user); remove it, or set XDG_CACHE_HOME to a folder of your "
			    "own", path, why);
		return NULL;
	}
	/* (outside the arena, which the fuzzer resets between inputs) */
	root = strdup(path);
	return root;
}

const char *cache_dir(const char *kind)
{
	const char *root = private_root();
	if (!root)
		return NULL;
	char *path = xformat("%s/%s", root, kind);
	if (mkdir(path, 0700) && errno != EEXIST) {
		error_plain("cannot create the cache folder %s: %s", path, strerror(errno));
		return NULL;
	}
	return path;
}

const char *cache_root(void)
{
	return cache_dir("modules");
}

bool cache_own_file(const char *path)
{
	struct stat st;
	return !lstat(path, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 022);
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
	const char *root = cache_root();
	if (!root)
		return;
	Vec entries = cache_entries(root, &total);
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
