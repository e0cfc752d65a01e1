/* guest_kernel.c - the guest's kernel: which release, its uncompressed vmlinux, its modules.
 *
 * QEMU boots an ELF vmlinux directly when it carries a PVH entry note (Xen note type 18),
 * skipping the BIOS and the kernel's own decompression: about 3 s less under TCG. The
 * bzImage in /boot holds vmlinux compressed (xz on Debian); its setup header says where
 * (payload_offset and payload_length, boot protocol 2.08+) and the payload's last 4 bytes
 * are the uncompressed size. We decompress it once with xz (zstd, gzip) and keep it in
 * $XDG_CACHE_HOME/hwtap (or ~/.cache/hwtap), keyed by release, size and mtime of the
 * bzImage. Without a usable note the bzImage itself is booted.
 */
#include "guest_impl.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define XEN_ELFNOTE_PHYS32_ENTRY 18

/* ---- the release ---------------------------------------------------------------------- */

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* What RELEASE (under ROOT, "" for this machine's) lacks for the guest to boot it and
 * hwtap to build for it, or NULL. */
static const char *release_lacks(const char *root, const char *release)
{
	char *vmlinuz = guest_xformat("%s/boot/vmlinuz-%s", root, release);
	char *build = guest_xformat("%s/lib/modules/%s/build", root, release);
	const char *lacks = !is_file(vmlinuz) ? "no /boot/vmlinuz-RELEASE" :
			    !is_dir(build) ? "no build tree (linux-headers-RELEASE)" : NULL;
	free(vmlinuz);
	free(build);
	return lacks;
}

static bool release_usable(const char *root, const char *release)
{
	return release && !release_lacks(root, release);
}

/* A Debian release's flavour: what follows the version and the ABI number,
 * "6.1.0-56-cloud-amd64" -> "cloud-amd64", "6.12.117+deb12-rt-amd64" -> "rt-amd64".
 * NULL when there is nothing after them. */
static const char *release_flavour(const char *release)
{
	const char *p = strchr(release, '-');
	if (!p)
		return NULL;
	p++;
	size_t digits = strspn(p, "0123456789");
	if (digits && p[digits] == '-')
		p += digits + 1;
	return *p && !(digits && !p[digits]) ? p : NULL;
}

/* The value of FIELD ("Depends: ") in the stanza STANZA (up to its blank line), or NULL. */
static const char *stanza_field(const char *stanza, const char *field)
{
	const char *end = strstr(stanza, "\n\n");
	size_t n = strlen(field);
	for (const char *p = stanza; p && (!end || p < end); p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, field, n))
			return p + n;
	return NULL;
}

/* FD's LEN bytes mapped, with a zero byte after them: the tail of the file's last page,
 * or a page of an anonymous mapping the file is mapped over. NULL when it cannot be. */
static char *map_with_nul(int fd, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t span = (len / page + 1) * page;
	char *p = mmap(NULL, span, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (len && mmap(p, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		munmap(p, span);
		return NULL;
	}
	return p;
}

static char *read_with_nul(int fd, size_t size)
{
	size_t len = 0, cap = size + 1;
	char *text = malloc(cap);
	ssize_t n = 0;
	while (text && len < cap - 1 && (n = read(fd, text + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	if (text && n >= 0) {
		text[len] = '\0';
		return text;
	}
	free(text);
	return NULL;
}

/* dpkg's status file, once (a few MB: copying it through a stream twice cost `hwtap -p2'
 * half its instructions; read into fresh memory, a page fault for each 4 KB, 230 of them,
 * where mapped the page cache comes 16 pages a fault), or NULL when it cannot be read. */
static const char *dpkg_status(void)
{
	static char *status;
	static bool looked;
	if (looked)
		return status;
	looked = true;
	int fd = open("/var/lib/dpkg/status", O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size < (1 << 30)) {
		status = map_with_nul(fd, (size_t)st.st_size);
		if (!status)
			status = read_with_nul(fd, (size_t)st.st_size);
	}
	close(fd);
	return status;
}

/* The release the installed metapackage linux-image-FLAVOUR depends on, from dpkg's
 * status file ("Depends: linux-image-6.1.0-56-amd64 (= 6.1.158-1)"), or NULL. */
static char *metapackage_release(const char *flavour)
{
	const char *status = dpkg_status();
	if (!status)
		return NULL;
	char *want = guest_xformat("\nPackage: linux-image-%s\n", flavour);
	const char *stanza = strstr(status, want), *state = NULL, *dep = NULL;
	if (stanza) {
		state = stanza_field(stanza + 1, "Status: ");
		dep = stanza_field(stanza + 1, "Depends: linux-image-");
	}
	char *found = state && dep && !strncmp(state, "install ok installed\n", 21) ?
		      guest_xformat("%.*s", (int)strcspn(dep, " ,|\n"), dep) : NULL;
	free(want);
	return found;
}

/* The newest usable release under ROOT whose flavour is FLAVOUR (any when NULL). */
static char *newest_release(const char *root, const char *flavour)
{
	char *dir = guest_xformat("%s/lib/modules", root);
	DIR *d = opendir(dir);
	char *best = NULL;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		const char *fl = release_flavour(e->d_name);
		if (e->d_name[0] == '.' || (flavour && (!fl || strcmp(fl, flavour))) ||
		    !release_usable(root, e->d_name))
			continue;
		if (!best || strverscmp(e->d_name, best) > 0) {
			free(best);
			best = guest_xstrdup(e->d_name);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return best;
}

/* The ways to name the default release, in order. The first four read this machine (the
 * running kernel, dpkg's packages): for the host's architecture only. */
typedef struct Candidates {
	const GuestArch *arch;
	const char *root, *running;
} Candidates;

static char *running_release(const Candidates *c)
{
	return guest_xstrdup(c->running);
}

static char *running_metapackage(const Candidates *c)
{
	const char *flavour = release_flavour(c->running);
	return flavour ? metapackage_release(flavour) : NULL;
}

static char *arch_metapackage(const Candidates *c)
{
	return metapackage_release(c->arch->debian);
}

static char *newest_running_flavour(const Candidates *c)
{
	const char *flavour = release_flavour(c->running);
	return flavour ? newest_release(c->root, flavour) : NULL;
}

static char *newest_arch_flavour(const Candidates *c)
{
	return newest_release(c->root, c->arch->debian);
}

static char *newest_any(const Candidates *c)
{
	return newest_release(c->root, NULL);
}

static const struct {
	char *(*pick)(const Candidates *c);
	const char *why;                /* a format: %s is the Debian architecture */
	bool host_only;
} default_rules[] = {
	{ running_release, "the running kernel", true },
	{ running_metapackage, "what the running kernel's flavour's metapackage depends on", true },
	{ arch_metapackage, "what linux-image-%s depends on", true },
	{ newest_running_flavour, "the newest of the running kernel's flavour", true },
	{ newest_arch_flavour, "the newest of the %s flavour", false },
	{ newest_any, "the newest installed", false },
};

char *guest_default_release(const GuestArch *a, FILE *err, const char **why)
{
	struct utsname u;
	uname(&u);
	a = a ? a : guest_host_arch();
	char *root = guest_arch_root(a);
	Candidates c = { a, root, u.release };
	char *rel = NULL;
	for (size_t i = 0; i < sizeof(default_rules) / sizeof(default_rules[0]) && !rel; i++) {
		if (default_rules[i].host_only && !guest_arch_is_host(a))
			continue;
		rel = default_rules[i].pick(&c);
		if (!release_usable(root, rel)) {
			free(rel);
			rel = NULL;
		} else if (why) {
			static char because[128];
			snprintf(because, sizeof(because), default_rules[i].why, a->debian);
			*why = because;
		}
	}
	if (!rel && err && guest_arch_is_host(a))
		fprintf(err, "hwtap: error: no guest kernel: no release in /lib/modules has both "
			"/boot/vmlinuz-RELEASE and a build tree (install linux-image-%s and "
			"linux-headers-%s)\n", a->debian, a->debian);
	else if (!rel && err)
		fprintf(err, "hwtap: error: no %s guest kernel: no release in %s/lib/modules has "
			"both %s/boot/vmlinuz-RELEASE and a build tree (./bootstrap.sh unpacks "
			"Debian's)\n", a->name, root, root);
	free(root);
	return rel;
}

static int compare_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int guest_list_kernels(const GuestArch *a, FILE *out)
{
	const char *why;
	a = a ? a : guest_host_arch();
	char *def = guest_default_release(a, NULL, &why);
	char *root = guest_arch_root(a);
	char *dir = guest_xformat("%s/lib/modules", root);
	StrList all = { 0 };
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			strlist_push(&all, guest_xstrdup(e->d_name));
	if (d)
		closedir(d);
	if (all.n)
		qsort(all.v, all.n, sizeof(char *), compare_names);
	for (int i = 0; i < all.n; i++) {
		const char *lacks = release_lacks(root, all.v[i]);
		if (def && !strcmp(all.v[i], def))
			fprintf(out, "%s  default: %s\n", all.v[i], why);
		else if (lacks)
			fprintf(out, "%s  not usable: %s\n", all.v[i], lacks);
		else
			fprintf(out, "%s\n", all.v[i]);
	}
	if (!def)
		fprintf(out, "no usable %s kernel in %s: %s\n", a->name, dir,
			guest_arch_is_host(a) ? "install linux-image and linux-headers" :
			"./bootstrap.sh unpacks Debian's");
	strlist_free(&all);
	free(dir);
	free(root);
	free(def);
	return def ? 0 : 1;
}

/* ---- ELF and the PVH note ------------------------------------------------------------- */

static bool read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len;
}

/* Whether the notes in BUF[0..LEN) hold Xen's PHYS32_ENTRY. */
static bool notes_have_pvh(const char *buf, size_t len)
{
	size_t off = 0;
	while (off + sizeof(Elf64_Nhdr) <= len) {
		const Elf64_Nhdr *n = (const void *)(buf + off);
		size_t name = off + sizeof(*n);
		size_t desc = name + ((n->n_namesz + 3) & ~3u);
		if (n->n_namesz == 4 && name + 4 <= len && !memcmp(buf + name, "Xen", 4) &&
		    n->n_type == XEN_ELFNOTE_PHYS32_ENTRY)
			return true;
		off = desc + ((n->n_descsz + 3) & ~3u);
	}
	return false;
}

/* 1: an x86-64 ELF with a PVH entry; 0: an ELF without; -1: not an ELF at all. */
static int elf_pvh(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	int result = -1;
	if (!read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		goto out;
	result = 0;
	for (int i = 0; i < eh.e_phnum && !result; i++) {
		Elf64_Phdr ph;
		if (!read_at(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize))
			break;
		if (ph.p_type != PT_NOTE || ph.p_filesz > (1u << 20))
			continue;
		char *buf = guest_xmalloc(ph.p_filesz + 1);
		if (read_at(fd, buf, ph.p_filesz, ph.p_offset))
			result = notes_have_pvh(buf, ph.p_filesz);
		free(buf);
	}
out:
	close(fd);
	return result;
}

/* ---- the compressed payload ----------------------------------------------------------- */

typedef struct Codec {
	const char *name;
	const char *suffix;             /* of compressed modules */
	unsigned char magic[6];
	size_t magic_len;
	const char *argv[4];
	const char *package;
} Codec;

static const Codec codecs[] = {
	{ "xz", ".xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6,
	  { "xz", "-dc", "--single-stream", NULL }, "xz-utils" },
	{ "zstd", ".zst", { 0x28, 0xb5, 0x2f, 0xfd }, 4, { "zstd", "-dcq", NULL }, "zstd" },
	{ "gzip", ".gz", { 0x1f, 0x8b, 0x08 }, 3, { "gzip", "-dc", NULL }, "gzip" },
};
#define NCODECS (sizeof(codecs) / sizeof(codecs[0]))

static const Codec *codec_at(const unsigned char *p, size_t avail)
{
	for (size_t i = 0; i < NCODECS; i++)
		if (avail >= codecs[i].magic_len && !memcmp(p, codecs[i].magic, codecs[i].magic_len))
			return &codecs[i];
	return NULL;
}

/* Run C's decompressor with stdin IN and stdout OUT: 0 when it exits 0, -EIO when it
 * fails, or the negative errno of starting it. */
static int run_codec(Guest *g, const Codec *c, int in, int out)
{
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int fds[4] = { in, out, devnull >= 0 ? devnull : 2, -1 };
	pid_t pid = guest_spawn(g, (char *const *)c->argv, fds, false);
	if (devnull >= 0)
		close(devnull);
	if (pid < 0)
		return pid;
	int st = guest_wait(g, pid);
	if (st < 0)
		return st;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

static bool write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

/* Decompress LEN bytes of DATA with C into DST (through a file in the work folder). */
static int decompress_bytes(Guest *g, const Codec *c, const unsigned char *data, size_t len,
			    const char *dst)
{
	char *tmp = guest_xformat("%s/payload", g->workdir);
	int in = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = -errno;
	if (in >= 0 && out >= 0)
		rc = write_all(in, data, len) && lseek(in, 0, SEEK_SET) == 0 ? 0 : -EIO;
	if (rc == 0)
		rc = run_codec(g, c, in, out);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	unlink(tmp);
	free(tmp);
	return rc;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The payload as the setup header describes it; false if the header does not. */
static bool header_payload(const unsigned char *img, size_t size, size_t *start, size_t *len)
{
	if (size < 0x250 || memcmp(img + 0x202, "HdrS", 4) ||
	    (img[0x206] | img[0x207] << 8) < 0x208)
		return false;
	size_t setup_sects = img[0x1f1] ? img[0x1f1] : 4;
	*start = (setup_sects + 1) * 512 + le32(img + 0x248);
	*len = le32(img + 0x24c);
	return *len > 4 && *start < size && *len <= size - *start;
}

/* A failed decompression: why, for the warning; true when it is worth going on. */
static bool codec_failed(const Codec *c, int rc, char *why, size_t cap)
{
	if (rc == -EIO || rc == 0)
		snprintf(why, cap, "%s could not decompress it", c->name);
	else
		snprintf(why, cap, "cannot run %s: %s (install %s)", c->name, strerror(-rc),
			 c->package);
	return rc == -EIO || rc == 0;
}

/* Extract vmlinux from the bzImage IMG into DST: first as its setup header says (checking
 * the decompressed size), else like scripts/extract-vmlinux, at each compression magic
 * (the first few). 0, or -ENOEXEC with WHY filled in, or -EINTR. */
static int extract(Guest *g, const unsigned char *img, size_t size, const char *dst,
		   char *why, size_t cap)
{
	size_t start, len;
	int tries = 0;
	snprintf(why, cap, "no xz, zstd or gzip payload found");
	if (header_payload(img, size, &start, &len)) {
		const Codec *c = codec_at(img + start, len);
		int rc = c ? decompress_bytes(g, c, img + start, len - 4, dst) : 0;
		if (c && rc == 0 && file_size(dst) == le32(img + start + len - 4) &&
		    elf_pvh(dst) >= 0)
			return 0;
		if (c && !codec_failed(c, rc, why, cap))
			return rc == -EINTR ? rc : -ENOEXEC;
	}
	for (size_t off = 0; off + 8 < size && tries < 8; off++) {
		const Codec *c = codec_at(img + off, size - off);
		if (!c)
			continue;
		tries++;
		int rc = decompress_bytes(g, c, img + off, size - off, dst);
		if (rc == -EINTR || guest_interrupted())
			return -EINTR;
		if (elf_pvh(dst) >= 0)
			return 0;
		if (!codec_failed(c, rc, why, cap))
			break;
	}
	unlink(dst);
	return -ENOEXEC;
}

/* ---- the cache ------------------------------------------------------------------------ */

static int mkdir_p(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int rc = mkdir(path, 0755);
		*p = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/* $XDG_CACHE_HOME/hwtap or ~/.cache/hwtap, created; else the work folder (not kept). */
static char *cache_dir(Guest *g)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir = NULL;
	if (xdg && xdg[0] == '/')
		dir = guest_xformat("%s/hwtap", xdg);
	else if (home && home[0] == '/')
		dir = guest_xformat("%s/.cache/hwtap", home);
	if (dir && mkdir_p(dir) == 0 && access(dir, W_OK) == 0)
		return dir;
	guest_note(g, "no writable cache folder (%s): extracting vmlinux into the work folder",
		   dir ? dir : "neither XDG_CACHE_HOME nor HOME is set");
	free(dir);
	return guest_xstrdup(g->workdir);
}

static int read_file(Guest *g, const char *path, unsigned char **data, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return guest_error(g, -e, "cannot read %s: %s", path, strerror(e));
	}
	*size = st.st_size;
	*data = guest_xmalloc(*size + 1);
	bool ok = read_at(fd, *data, *size, 0);
	close(fd);
	if (!ok) {
		free(*data);
		return guest_error(g, -EIO, "cannot read %s", path);
	}
	return 0;
}

/* Remove the cache's other vmlinux-RELEASE-SIZE-MTIME[.nopvh] files than KEEP: the
 * vmlinuz they came from was replaced. */
static void prune_cache(const char *keep, const char *release)
{
	char *dir = guest_xstrdup(keep);
	*strrchr(dir, '/') = '\0';
	char *prefix = guest_xformat("vmlinux-%s-", release);
	size_t plen = strlen(prefix);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		long long size, mtime;
		int end = 0;
		if (strncmp(e->d_name, prefix, plen) ||
		    sscanf(e->d_name + plen, "%lld-%lld%n", &size, &mtime, &end) != 2 ||
		    (e->d_name[plen + end] && strcmp(e->d_name + plen + end, ".nopvh")))
			continue;
		char *path = guest_xformat("%s/%s", dir, e->d_name);
		if (strcmp(path, keep))
			unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(dir);
}

/* Extract into the cache under a temporary name, then rename, so that concurrent runs
 * are safe. 0 when CACHED is a PVH vmlinux; -ENOEXEC (with a warning) when the bzImage
 * must be booted; -EINTR. */
static int extract_to_cache(Guest *g, const char *vmlinuz, const char *cached,
			    const char *nopvh)
{
	unsigned char *img = NULL;
	size_t size = 0;
	int rc = read_file(g, vmlinuz, &img, &size);
	if (rc)
		return rc;
	char *tmp = guest_xformat("%s.tmp%ld", cached, (long)getpid());
	char why[256];
	double t = guest_now();
	rc = extract(g, img, size, tmp, why, sizeof(why));
	free(img);
	if (rc == 0 && elf_pvh(tmp) != 1) {
		snprintf(why, sizeof(why), "its vmlinux has no PVH entry note");
		int fd = open(nopvh, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		rc = -ENOEXEC;
	} else if (rc == 0 && rename(tmp, cached)) {
		snprintf(why, sizeof(why), "cannot rename %s: %s", tmp, strerror(errno));
		rc = -ENOEXEC;
	} else if (rc == 0) {
		guest_note(g, "extracted %s to %s in %.2f s", vmlinuz, cached, guest_now() - t);
		prune_cache(cached, g->release);
	}
	if (rc == -ENOEXEC)
		fprintf(g->err, "hwtap: warning: %s: %s; booting the bzImage instead (about 5 s "
			"slower)\n", vmlinuz, why);
	unlink(tmp);
	free(tmp);
	return rc;
}

/* For x86: the PVH vmlinux from the cache (extracted on first use), else the bzImage.
 * Other architectures boot their vmlinuz (an Image) as it is. */
int guest_find_kernel(Guest *g)
{
	char *vmlinuz = guest_xformat("%s/boot/vmlinuz-%s", g->root, g->release);
	struct stat st;
	if (stat(vmlinuz, &st) < 0) {
		int rc = guest_error(g, -errno, "no guest kernel %s: %s", vmlinuz,
				     strerror(errno));
		free(vmlinuz);
		return rc;
	}
	if (!g->arch->pvh || g->o->kaslr) {
		g->kernel = vmlinuz;
		guest_note(g, "kernel: %s%s", vmlinuz, g->arch->pvh ? " (bzImage: KASLR)" : "");
		return 0;
	}
	char *dir = cache_dir(g);
	char *cached = guest_xformat("%s/vmlinux-%s-%lld-%lld", dir, g->release,
				     (long long)st.st_size, (long long)st.st_mtime);
	char *nopvh = guest_xformat("%s.nopvh", cached);
	free(dir);
	int rc = 0;
	if (elf_pvh(cached) != 1)
		rc = is_file(nopvh) ? -ENOEXEC : extract_to_cache(g, vmlinuz, cached, nopvh);
	free(nopvh);
	if (rc == 0) {
		g->kernel = cached;
		g->pvh = true;
		free(vmlinuz);
		guest_note(g, "kernel: %s (PVH)", cached);
		return 0;
	}
	free(cached);
	if (rc != -ENOEXEC) {
		free(vmlinuz);
		return rc;
	}
	g->kernel = vmlinuz;
	guest_note(g, "kernel: %s (bzImage)", vmlinuz);
	return 0;
}

/* For readers of the kernel's own data (its BTF: translator/target/btf.c): RELEASE's uncompressed
 * vmlinux for ARCH, extracted into the cache once as for booting it; malloc'ed, or NULL
 * with *WHY (static text) when there is none: an architecture that boots its image as it
 * is, no cache folder, a vmlinuz that would not extract. Messages go to ERR. */
char *guest_kernel_vmlinux(const GuestArch *a, const char *release, FILE *err,
			   const char **why)
{
	if (!a->pvh) {
		*why = "its kernel image is not an ELF vmlinux here";
		return NULL;
	}
	GuestOptions o = {0};
	char dir[] = "/tmp/hwtap-vmlinux.XXXXXX";
	Guest g = {.o = &o, .err = err, .arch = a, .root = guest_arch_root(a),
		   .release = guest_xstrdup(release)};
	/* (where the extraction goes when there is no cache folder: then removed with it) */
	g.workdir = mkdtemp(dir);
	if (!g.workdir) {
		*why = "cannot make a folder in /tmp";
		free(g.root);
		free(g.release);
		return NULL;
	}
	char *vmlinux = NULL;
	if (guest_find_kernel(&g) == 0 && g.pvh && strncmp(g.kernel, dir, strlen(dir)))
		vmlinux = g.kernel;
	else
		*why = g.pvh ? "no cache folder to keep the kernel's extracted vmlinux in" :
		       "its vmlinuz did not extract to an ELF vmlinux";
	if (!vmlinux)
		free(g.kernel);
	DIR *d = opendir(g.workdir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d)
		closedir(d);
	rmdir(g.workdir);
	free(g.root);
	free(g.release);
	return vmlinux;
}

/* ---- modules -------------------------------------------------------------------------- */

typedef struct ModDep {
	char *name;                     /* mce_inject */
	char *path;                     /* kernel/arch/x86/kernel/cpu/mce/mce-inject.ko */
	char *deps;                     /* the rest of the line: paths separated by spaces */
} ModDep;

struct ModTable {
	ModDep *v;
	int n, cap;
	StrList builtin;                /* names */
};

/* "kernel/x/mce-inject.ko.xz" -> "mce_inject": a module's name as the kernel spells it. */
static char *module_name(const char *path, size_t len)
{
	const char *base = path;
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	size_t n = path + len - base;
	char *name = guest_xmalloc(n + 1);
	memcpy(name, base, n);
	name[n] = '\0';
	char *ko = strstr(name, ".ko");
	if (ko)
		*ko = '\0';
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

static void add_dep_line(ModTable *t, char *line)
{
	char *colon = strchr(line, ':');
	if (!colon)
		return;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		ModDep *v = guest_xmalloc(sizeof(*v) * t->cap);
		if (t->n)
			memcpy(v, t->v, sizeof(*v) * t->n);
		free(t->v);
		t->v = v;
	}
	ModDep *m = &t->v[t->n++];
	m->name = module_name(line, colon - line);
	m->path = guest_xformat("%.*s", (int)(colon - line), line);
	m->deps = guest_xstrdup(colon + 1 + strspn(colon + 1, " "));
}

static int load_table(Guest *g)
{
	char *path = guest_xformat("%s/modules.dep", g->moddir);
	FILE *f = fopen(path, "re");
	if (!f) {
		int e = errno;
		guest_error(g, -e, "cannot read %s: %s", path, strerror(e));
		free(path);
		return -e;
	}
	g->mods = guest_xmalloc(sizeof(ModTable));
	memset(g->mods, 0, sizeof(ModTable));
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		add_dep_line(g->mods, line);
	}
	fclose(f);
	free(path);
	path = guest_xformat("%s/modules.builtin", g->moddir);
	f = fopen(path, "re");
	while (f && (n = getline(&line, &cap, f)) > 0)
		strlist_push(&g->mods->builtin, module_name(line, strcspn(line, "\n")));
	if (f)
		fclose(f);
	free(path);
	free(line);
	return 0;
}

static ModDep *find_by(ModTable *t, const char *key, bool by_path)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(by_path ? t->v[i].path : t->v[i].name, key))
			return &t->v[i];
	return NULL;
}

/* Depth first: a module's dependencies before it, each once. */
static void add_with_deps(ModTable *t, ModDep *m, StrList *order, int depth)
{
	if (strlist_has(order, m->path) || depth > 64)
		return;
	char *deps = guest_xstrdup(m->deps);
	for (char *save, *p = strtok_r(deps, " \t", &save); p; p = strtok_r(NULL, " \t", &save)) {
		ModDep *d = find_by(t, p, true);
		if (d)
			add_with_deps(t, d, order, depth + 1);
	}
	free(deps);
	if (!strlist_has(order, m->path))
		strlist_push(order, guest_xstrdup(m->path));
}

int guest_resolve_module(Guest *g, const char *name, StrList *order)
{
	if (!g->mods) {
		int rc = load_table(g);
		if (rc)
			return rc;
	}
	char *key = module_name(name, strlen(name));
	ModDep *m = find_by(g->mods, key, false);
	int rc = 0;
	if (m)
		add_with_deps(g->mods, m, order, 0);
	else if (strlist_has(&g->mods->builtin, key))
		guest_note(g, "module %s is built into %s", name, g->release);
	else
		rc = guest_error(g, -ENOENT, "no guest module '%s' in %s/modules.dep", name,
				 g->moddir);
	free(key);
	return rc;
}

void guest_free_modules(Guest *g)
{
	if (!g->mods)
		return;
	for (int i = 0; i < g->mods->n; i++) {
		free(g->mods->v[i].name);
		free(g->mods->v[i].path);
		free(g->mods->v[i].deps);
	}
	free(g->mods->v);
	strlist_free(&g->mods->builtin);
	free(g->mods);
	g->mods = NULL;
}

static const Codec *codec_by_suffix(const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < NCODECS; i++) {
		size_t s = strlen(codecs[i].suffix);
		if (n > s && !strcmp(path + n - s, codecs[i].suffix))
			return &codecs[i];
	}
	return NULL;
}

/* A Guest with only what the module code needs: RELEASE's modules of ARCH. */
static void module_guest(Guest *g, GuestOptions *o, const GuestArch *a, const char *release,
			 FILE *err)
{
	memset(o, 0, sizeof(*o));
	*g = (Guest){.o = o, .err = err, .arch = a, .root = guest_arch_root(a),
		     .release = guest_xstrdup(release)};
	g->moddir = guest_xformat("%s/lib/modules/%s", g->root, g->release);
}

static void module_guest_free(Guest *g)
{
	guest_free_modules(g);
	free(g->moddir);
	free(g->root);
	free(g->release);
}

/* Module M's file, uncompressed: its own, or decompressed into DIR/NAME.ko. */
static char *module_file(Guest *g, const ModDep *m, const char *dir, const char **why)
{
	if (!guest_compressed_name(m->path))
		return guest_xformat("%s/%s", g->moddir, m->path);
	char *src = guest_xformat("%s/%s", g->moddir, m->path);
	char *ko = guest_xformat("%s/%s.ko", dir, m->name);
	if (guest_decompress_file(g, src, ko)) {
		*why = "could not be decompressed";
		unlink(ko);
		free(ko);
		ko = NULL;
	}
	free(src);
	return ko;
}

char *guest_kernel_module(const GuestArch *a, const char *release, const char *name,
			  const char *dir, FILE *err, const char **why)
{
	GuestOptions o;
	Guest g;
	module_guest(&g, &o, a, release, err);
	char *key = module_name(name, strlen(name)), *ko = NULL;
	ModDep *m = load_table(&g) == 0 ? find_by(g.mods, key, false) : NULL;
	if (!g.mods)
		*why = "its modules.dep cannot be read";
	else if (!m)
		*why = strlist_has(&g.mods->builtin, key) ? "is built into the kernel" :
		       "is not in its modules.dep";
	else
		ko = module_file(&g, m, dir, why);
	free(key);
	module_guest_free(&g);
	return ko;
}

int guest_kernel_each_module(const GuestArch *a, const char *release, const char *dir,
			     FILE *err, int (*fn)(const char *name, const char *ko, void *arg),
			     void *arg)
{
	GuestOptions o;
	Guest g;
	module_guest(&g, &o, a, release, err);
	int rc = load_table(&g);
	for (int i = 0; !rc && i < g.mods->n; i++) {
		const char *why;
		ModDep *m = &g.mods->v[i];
		char *ko = module_file(&g, m, dir, &why);
		if (!ko)
			continue;       /* said on ERR */
		rc = fn(m->name, ko, arg);
		if (guest_compressed_name(m->path))
			unlink(ko);
		free(ko);
	}
	module_guest_free(&g);
	return rc;
}

bool guest_compressed_name(const char *path)
{
	return codec_by_suffix(path) != NULL;
}

int guest_decompress_file(Guest *g, const char *src, const char *dst)
{
	const Codec *c = codec_by_suffix(src);
	int in = open(src, O_RDONLY | O_CLOEXEC);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc;
	if (!c || in < 0 || out < 0)
		rc = guest_error(g, -errno, "cannot decompress %s: %s", src,
				 c ? strerror(errno) : "unknown compression");
	else if ((rc = run_codec(g, c, in, out)) == -EIO)
		guest_error(g, rc, "%s could not decompress %s", c->name, src);
	else if (rc < 0 && rc != -EINTR)
		guest_error(g, rc, "cannot run %s: %s (install %s)", c->name, strerror(-rc),
			    c->package);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}
