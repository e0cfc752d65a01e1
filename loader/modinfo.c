/* modinfo.c - a kernel module's .modinfo section, read with libelf.
 *
 * .modinfo is a run of NUL-terminated "key=value" strings: name=, vermagic=, license=,
 * parm=NAME:DESCRIPTION, parmtype=NAME:TYPE, ... (what modinfo(8) prints).
 */
#define _GNU_SOURCE
#include "loader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((format(printf, 1, 2)))
static char *format(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

void *loader_realloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p) {
		fputs("hwtap-run: error: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);
	if (!d) {
		fputs("hwtap-run: error: out of memory\n", stderr);
		exit(1);
	}
	return d;
}

static void add_param(ModInfo *mi, const char *name, size_t len)
{
	mi->params = loader_realloc(mi->params, sizeof(*mi->params) * (mi->nparams + 1));
	mi->params[mi->nparams++] = xstrndup(name, len);
}

static void take_entry(ModInfo *mi, const char *s)
{
	if (!strncmp(s, "name=", 5) && !mi->name) {
		mi->name = xstrndup(s + 5, strlen(s + 5));
	} else if (!strncmp(s, "vermagic=", 9) && !mi->vermagic) {
		mi->vermagic = xstrndup(s + 9, strlen(s + 9));
		mi->release = xstrndup(s + 9, strcspn(s + 9, " "));
	} else if (!strncmp(s, "hwtap_perf_member=", 18)) {
		mi->members = loader_realloc(mi->members, sizeof(*mi->members) * (mi->nmembers + 1));
		mi->members[mi->nmembers++] = xstrndup(s + 18, strlen(s + 18));
	} else if (!strncmp(s, "hwtap_perf_cgroup=", 18)) {
		mi->cgroups = loader_realloc(mi->cgroups, sizeof(*mi->cgroups) * (mi->ncgroups + 1));
		mi->cgroups[mi->ncgroups++] = xstrndup(s + 18, strlen(s + 18));
	} else if (!strncmp(s, "parmtype=", 9)) {
		const char *colon = strchr(s + 9, ':');
		if (colon)
			add_param(mi, s + 9, colon - (s + 9));
	}
}

/* The NUL-terminated strings of P[0..N); padding NULs make empty ones, skipped. */
static void take_entries(ModInfo *mi, const char *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t len = strnlen(p + i, n - i);
		if (len && i + len < n)
			take_entry(mi, p + i);
		i += len + 1;
	}
}

static Elf_Data *find_modinfo(Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".modinfo"))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* NAME for a message: at most 64 bytes, each outside printable ASCII as '?' (a crafted
 * module's name reaches the terminal). */
static const char *printable(const char *name)
{
	static char out[65];
	size_t i;
	for (i = 0; name[i] && i < sizeof(out) - 1; i++)
		out[i] = name[i] > ' ' && name[i] < 0x7f ? name[i] : '?';
	out[i] = '\0';
	return out;
}

static char *read_elf(int fd, const char *path, ModInfo *mi)
{
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	char *why = NULL;
	Elf_Data *data;
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		why = format("%s is not a kernel module: not an ELF file", path);
	else if (!(data = find_modinfo(elf)) || !data->d_buf)
		why = format("%s is not a kernel module: it has no .modinfo section", path);
	else
		take_entries(mi, data->d_buf, data->d_size);
	if (!why && !mi->name)
		why = format("%s: its .modinfo has no name= entry", path);
	else if (!why && !session_name_ok(mi->name))
		why = format("%s: its .modinfo names module '%s', which is not a session's name "
			     "(letters, digits and '_', at most %d)", path, printable(mi->name),
			     SESSION_NAME_MAX);
	else if (!why && !mi->vermagic)
		why = format("%s: its .modinfo has no vermagic= entry", path);
	elf_end(elf);
	return why;
}

int modinfo_read(const char *path, ModInfo *mi, char **why)
{
	memset(mi, 0, sizeof(*mi));
	*why = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		*why = format("cannot open %s: %s", path, strerror(errno));
	else if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		*why = format("%s is not a kernel module: not a regular file", path);
	else
		*why = read_elf(fd, path, mi);
	if (fd >= 0)
		close(fd);
	if (!*why)
		return 0;
	modinfo_free(mi);
	return -1;
}

void modinfo_free(ModInfo *mi)
{
	free(mi->name);
	free(mi->vermagic);
	free(mi->release);
	for (size_t i = 0; i < mi->nparams; i++)
		free(mi->params[i]);
	free(mi->params);
	for (size_t i = 0; i < mi->nmembers; i++)
		free(mi->members[i]);
	free(mi->members);
	for (size_t i = 0; i < mi->ncgroups; i++)
		free(mi->cgroups[i]);
	free(mi->cgroups);
	memset(mi, 0, sizeof(*mi));
}

/* The kernel takes '-' and '_' in parameter names for each other (parameq()). */
static int param_eq(const char *a, const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
		if (x != y)
			return 0;
	}
	return 1;
}

int modinfo_has_param(const ModInfo *mi, const char *name, size_t len)
{
	for (size_t i = 0; i < mi->nparams; i++)
		if (strlen(mi->params[i]) == len && param_eq(mi->params[i], name, len))
			return 1;
	return 0;
}

/* ---- a bundle: one script's modules for many kernels -------------------------------- */

#define BUNDLE_MAX 256          /* modules looked at in one folder */

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *modinfo_pick(const char *dir, const char *release, char **why)
{
	*why = NULL;
	DIR *d = opendir(dir);
	if (!d) {
		*why = format("cannot read the folder %s: %s", dir, strerror(errno));
		return NULL;
	}
	/* what root loads from it: a folder others can write to could be given a module */
	struct stat dst;
	if (fstat(dirfd(d), &dst) || (dst.st_mode & 022)) {
		*why = format("refusing the folder %s: others can write to it (mode %04o), and "
			      "hwtap-run would load what they put there", dir,
			      (unsigned)(dst.st_mode & 07777));
		closedir(d);
		return NULL;
	}
	/* the releases of the others, for the message when none is this kernel's */
	char *picked = NULL, *second = NULL, **others = NULL;
	size_t nothers = 0, seen = 0, matches = 0;
	struct dirent *e;
	while ((e = readdir(d)) && seen < BUNDLE_MAX) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.' || n < 4 || strcmp(e->d_name + n - 3, ".ko"))
			continue;
		seen++;
		char *path = format("%s/%s", dir, e->d_name);
		struct stat st;
		ModInfo mi;
		char *bad = NULL;
		/* (a link, a folder, a FIFO named .ko: not a module to load) */
		if (!path || lstat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (modinfo_read(path, &mi, &bad)) {
			fprintf(stderr, "hwtap-run: warning: %s: skipped: %s\n", dir, bad);
			free(bad);
			free(path);
			continue;
		}
		if (!strcmp(mi.release, release)) {
			if (matches++ == 0)
				picked = path;
			else if (!second)
				second = path;
			else
				free(path);
		} else {
			others = loader_realloc(others, sizeof(*others) * (nothers + 1));
			others[nothers++] = format("%s", printable(mi.release));
			free(path);
		}
		modinfo_free(&mi);
	}
	closedir(d);
	if (matches == 1) {
		for (size_t i = 0; i < nothers; i++)
			free(others[i]);
		free(others);
		free(second);
		return picked;
	}
	if (matches > 1) {
		*why = format("the folder %s holds %zu modules for kernel %s (%s and %s%s): keep "
			      "one a kernel", dir, matches, release, picked, second,
			      matches > 2 ? " ..." : "");
	} else {
		/* the releases it has, each once, in order */
		if (nothers > 1)
			qsort(others, nothers, sizeof(*others), by_string);
		size_t len = 1;
		for (size_t i = 0; i < nothers; i++)
			len += strlen(others[i]) + 2;
		char *list = loader_realloc(NULL, len);
		list[0] = '\0';
		for (size_t i = 0; i < nothers; i++)
			if (!i || strcmp(others[i], others[i - 1]))
				strcat(strcat(list, *list ? ", " : ""), others[i]);
		*why = nothers ? format("the folder %s holds no module for this kernel, %s: only "
					"for %s (hwtap -p4 -r %s --bundle %s adds one)", dir,
					release, list, release, dir) :
			format("the folder %s holds no module (no NAME.ko file)", dir);
		free(list);
	}
	free(picked);
	free(second);
	for (size_t i = 0; i < nothers; i++)
		free(others[i]);
	free(others);
	return NULL;
}
