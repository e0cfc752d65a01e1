/* guest_initrd.c - the guest's initramfs, an uncompressed cpio "newc" archive.
 *
 *   /bin/busybox            busybox-static; /init installs its applet links
 *   /init                   mounts, loads modules, finds the ports, runs the script, passes
 *                           stop signals on to it and beats
 *   /dev/console            so that the kernel can give /init a console before devtmpfs
 *   /lib/modules/R/...      the virtio-serial modules, ramoops for a pstore guest, and the
 *                           requested ones (uncompressed)
 *   /hwtap/script           the script
 *   /root/... or DST        the requested files, with their permissions
 *
 * newc: per entry a 110-byte header ("070701" and 13 eight-digit hex fields), the name
 * with its NUL, padding to 4, the data, padding to 4; "TRAILER!!!" ends the archive.
 */
#include "guest_impl.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

typedef struct Cpio {
	FILE *f;
	unsigned ino;
	unsigned mtime;
	StrList dirs;                   /* directories written so far */
} Cpio;

static void cpio_pad(Cpio *c)
{
	static const char zeros[4];
	long pos = ftell(c->f);
	if (pos > 0 && pos % 4)
		fwrite(zeros, 1, 4 - pos % 4, c->f);
}

/* One entry's header and name; its data follows. NAME has no leading '/'. */
static void cpio_header(Cpio *c, const char *name, unsigned mode, size_t size, dev_t rdev)
{
	fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08lX%08X%08X%08X%08X%08lX%08X",
		++c->ino, mode, 0, 0, S_ISDIR(mode) ? 2 : 1, c->mtime, (unsigned long)size,
		0, 0, major(rdev), minor(rdev), (unsigned long)strlen(name) + 1, 0);
	fwrite(name, 1, strlen(name) + 1, c->f);
	cpio_pad(c);
}

/* PATH's parent directories, each once. */
static void cpio_parents(Cpio *c, const char *path)
{
	char *p = guest_xstrdup(path);
	for (char *slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (!strlist_has(&c->dirs, p)) {
			cpio_header(c, p + 1, S_IFDIR | 0755, 0, 0);
			strlist_push(&c->dirs, guest_xstrdup(p));
		}
		*slash = '/';
	}
	free(p);
}

static void cpio_dir(Cpio *c, const char *path)
{
	char *child = guest_xformat("%s/x", path);
	cpio_parents(c, child);
	free(child);
}

static void cpio_data(Cpio *c, const char *path, unsigned mode, const void *data, size_t len)
{
	cpio_parents(c, path);
	cpio_header(c, path + 1, S_IFREG | mode, len, 0);
	fwrite(data, 1, len, c->f);
	cpio_pad(c);
}

static void cpio_node(Cpio *c, const char *path, unsigned mode, dev_t rdev)
{
	cpio_parents(c, path);
	cpio_header(c, path + 1, mode, 0, rdev);
}

/* The host file SRC as PATH (mode 0 keeps SRC's permissions). */
static int cpio_file(Guest *g, Cpio *c, const char *path, const char *src, unsigned mode)
{
	FILE *in = fopen(src, "rbe");
	struct stat st;
	if (!in || fstat(fileno(in), &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = in ? EINVAL : errno;
		if (in)
			fclose(in);
		return guest_error(g, -e, "cannot copy %s into the guest: %s", src,
				   e == EINVAL ? "not a regular file" : strerror(e));
	}
	cpio_parents(c, path);
	cpio_header(c, path + 1, S_IFREG | (mode ? mode : st.st_mode & 07777), st.st_size, 0);
	char buf[65536];
	size_t n, total = 0;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0 && total + n <= (size_t)st.st_size) {
		fwrite(buf, 1, n, c->f);
		total += n;
	}
	fclose(in);
	cpio_pad(c);
	if (total != (size_t)st.st_size)
		return guest_error(g, -EIO, "%s changed while it was copied into the guest", src);
	return 0;
}

/* ---- busybox -------------------------------------------------------------------------- */

/* Whether PATH is a statically linked ELF (no PT_INTERP) for MACHINE. */
static bool is_static_elf(const char *path, int machine)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	bool ok = fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
		  !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
		  eh.e_machine == machine;
	for (int i = 0; ok && i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) !=
		    sizeof(ph) || ph.p_type == PT_INTERP)
			ok = false;
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

/* busybox-static for the guest's architecture: this machine's, or the one unpacked under
 * the architecture's root. */
static int add_busybox(Guest *g, Cpio *c)
{
	static const char *const paths[] = { "/bin/busybox", "/usr/bin/busybox" };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char *path = guest_xformat("%s%s", g->root, paths[i]);
		bool ok = access(path, X_OK) == 0 && is_static_elf(path, g->arch->elf_machine);
		int rc = ok ? cpio_file(g, c, "/bin/busybox", path, 0755) : 0;
		free(path);
		if (ok)
			return rc;
	}
	if (guest_arch_is_host(g->arch))
		return guest_error(g, -ENOENT, "no statically linked busybox in /bin or /usr/bin "
				   "(install busybox-static)");
	return guest_error(g, -ENOENT, "no statically linked %s busybox in %s/bin "
			   "(./bootstrap.sh unpacks Debian's busybox-static)", g->arch->name,
			   g->root);
}

/* ---- modules -------------------------------------------------------------------------- */

/* "kernel/x/foo.ko.xz" -> "/lib/modules/R/kernel/x/foo.ko": where it goes in the guest. */
static char *module_guest_path(Guest *g, const char *rel)
{
	char *path = guest_xformat("/lib/modules/%s/%s", g->release, rel);
	char *ko = strstr(path + strlen("/lib/modules/") + strlen(g->release), ".ko");
	if (ko)
		ko[3] = '\0';
	return path;
}

static int add_module(Guest *g, Cpio *c, const char *rel, int index)
{
	char *src = guest_xformat("%s/%s", g->moddir, rel);
	char *dst = module_guest_path(g, rel);
	int rc;
	if (guest_compressed_name(src)) {
		char *tmp = guest_xformat("%s/module%d.ko", g->workdir, index);
		rc = guest_decompress_file(g, src, tmp);
		if (rc == 0)
			rc = cpio_file(g, c, dst, tmp, 0644);
		unlink(tmp);
		free(tmp);
	} else {
		rc = cpio_file(g, c, dst, src, 0644);
	}
	free(src);
	free(dst);
	return rc;
}

static int add_modules(Guest *g, Cpio *c, const StrList *order, int *index)
{
	for (int i = 0; i < order->n; i++) {
		int rc = add_module(g, c, order->v[i], (*index)++);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- files ---------------------------------------------------------------------------- */

/* "SRC[:DST]" split at its last ':'; DST absolute, default /root/BASENAME, and a DST that
 * ends in '/' is a folder for BASENAME. */
static int file_spec(Guest *g, const char *spec, char **src, char **dst)
{
	const char *colon = strrchr(spec, ':');
	*src = colon ? guest_xformat("%.*s", (int)(colon - spec), spec) : guest_xstrdup(spec);
	const char *base = strrchr(*src, '/') ? strrchr(*src, '/') + 1 : *src;
	const char *d = colon && colon[1] ? colon + 1 : "/root/";
	if (!**src || !*base || d[0] != '/') {
		free(*src);
		return guest_error(g, -EINVAL, "bad file '%s': expected SRC or SRC:DST with an "
				   "absolute DST", spec);
	}
	*dst = d[strlen(d) - 1] == '/' ? guest_xformat("%s%s", d, base) : guest_xstrdup(d);
	return 0;
}

static int add_files(Guest *g, Cpio *c)
{
	for (const char **f = g->o->files; f && *f; f++) {
		char *src = NULL, *dst = NULL;
		int rc = file_spec(g, *f, &src, &dst);
		if (rc)
			return rc;
		rc = cpio_file(g, c, dst, src, 0);
		if (rc == 0)
			guest_note(g, "file %s -> %s", src, dst);
		free(src);
		free(dst);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- /init ---------------------------------------------------------------------------- */

static const char init_head[] =
	"#!/bin/busybox sh\n"
	"# /init of a hwtap guest (guest/guest_initrd.c)\n"
	"/bin/busybox echo " GUEST_INIT_MARK " >/dev/console\n"
	"/bin/busybox mount -t proc proc /proc\n"
	"/bin/busybox --install -s /bin\n"
	"export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root\n"
	"die() { echo \"hwtap-guest-setup: $*\" >/dev/console; poweroff -f; }\n"
	"mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev\n"
	"mount -t debugfs debugfs /sys/kernel/debug\n"
	"mount -t tracefs tracefs /sys/kernel/tracing\n"
	"mount -t securityfs securityfs /sys/kernel/security 2>/dev/null\n"
	/* as systemd at boot: a controller in the root's subtree_control, which is also what
	 * gives cgroups made later the implicit ones (perf_event: .cgroup counters) */
	"mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null &&\n"
	"  echo +pids > /sys/fs/cgroup/cgroup.subtree_control\n"
	"mkdir -p /dev/pts /dev/shm /tmp /root\n";

/* The virtio-serial port named $1, once it exists: /dev/vportNpM. */
static const char init_ports[] =
	"port() {\n"
	"\tfor p in /sys/class/virtio-ports/*; do\n"
	"\t\tif [ \"$(cat \"$p/name\" 2>/dev/null)\" = \"$1\" ] && [ -c \"/dev/${p##*/}\" ]; then\n"
	"\t\t\techo \"/dev/${p##*/}\"\n"
	"\t\t\treturn 0\n"
	"\t\tfi\n"
	"\tdone\n"
	"\treturn 1\n"
	"}\n"
	"i=0\n"
	"until out=$(port hwtap.out) && err=$(port hwtap.err) && ctl=$(port hwtap.ctl); do\n"
	"\ti=$((i + 1))\n"
	"\t[ $i -lt 1000 ] || die \"no virtio-serial ports hwtap.out, hwtap.err and hwtap.ctl\"\n"
	"\tusleep 10000\n"
	"done\n"
	"exec 3>\"$out\" 4>\"$err\" 5<>\"$ctl\" || die \"cannot open $out, $err and $ctl\"\n";

/* end STATUS: stray processes stopped, the end mark on both streams, power off. */
static const char init_end[] =
	"end() {\n"
	"\tkill -9 -1 2>/dev/null\n"
	"\tprintf '\\001hwtap-end %%s %%s\\n' %s \"$1\" >&4\n"
	"\tprintf '\\001hwtap-end %%s %%s\\n' %s \"$1\" >&3\n"
	"\tpoweroff -f\n"
	"}\n";

/* The script runs in the foreground, in a process group of its own (setsid: /init's
 * children lead no group, so it does not fork, and its pid is the group's id, which it
 * leaves in /hwtap/job). Not in the background: a shell without job control starts
 * background jobs with SIGINT ignored, for good. In the background instead: a loop that
 * sends the signals the host names on the control port to that group, as a terminal's
 * Ctrl-C would, and says so; a heartbeat every second. "ready" once all three run. */
static const char init_run[] =
	"cd /root\n"
	"while read -r sig; do\n"
	"\tcase $sig in INT|TERM|HUP) kill -$sig -$(cat /hwtap/job) 2>/dev/null; "
	"echo \"sent $sig\";; esac\n"
	"done <&5 >&5 3>&- 4>&- 6>&- &\n"
	"while echo beat; do sleep 1; done >&5 3>&- 4>&- 6>&- &\n"
	"setsid sh -c 'echo $$ >/hwtap/job; echo ready >&5; exec sh /hwtap/script 5>&-' "
	"</dev/null >&3 2>&4 3>&- 4>&- 6>&-\n"
	"st=$?\n"
	"[ -z \"$back\" ] || send_back\n"
	"end $st\n";

static void init_insmod(FILE *f, Guest *g, const StrList *order, bool user)
{
	for (int i = 0; i < order->n; i++) {
		char *path = module_guest_path(g, order->v[i]);
		if (user)
			fprintf(f, "insmod %s 2>&4 || { echo \"hwtap: guest: cannot load %s\" >&4; "
				"end setup; }\n", path, path);
		else
			fprintf(f, "insmod %s || die \"cannot load %s\"\n", path, path);
		free(path);
	}
}

/* ramoops on the memory the kernel left alone (memmap=), as a machine with pstore in RAM
 * has it at boot; pstore mounted where systemd mounts it. */
static void init_pstore(FILE *f, Guest *g)
{
	const StrList *order = &g->pstore_modules;
	for (int i = 0; i < order->n; i++) {
		char *path = module_guest_path(g, order->v[i]);
		bool last = i == order->n - 1;
		fprintf(f, "insmod %s", path);
		if (last)
			fprintf(f, " mem_address=%#lx mem_size=%#x record_size=%#x", GUEST_PSTORE_ADDR,
				GUEST_PSTORE_MB << 20, GUEST_PSTORE_RECORD);
		fprintf(f, " || die \"cannot load %s\"\n", path);
		free(path);
	}
	fputs("mount -t pstore pstore /sys/fs/pstore || die \"cannot mount pstore\"\n", f);
}

static char *init_script(Guest *g, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f) {
		fputs("hwtap: error: out of memory\n", stderr);
		exit(1);
	}
	fputs(init_head, f);
	init_insmod(f, g, &g->channel_modules, false);
	if (g->o->pstore)
		init_pstore(f, g);
	fputs(init_ports, f);
	guest_back_init(f, g);
	fprintf(f, init_end, g->nonce, g->nonce);
	init_insmod(f, g, &g->user_modules, true);
	fputs(init_run, f);
	fclose(f);
	return text;
}

/* ---- the archive ---------------------------------------------------------------------- */

static int write_entries(Guest *g, Cpio *c)
{
	static const char *const dirs[] = { "/bin", "/sbin", "/dev", "/proc", "/sys", "/tmp",
					    "/root", "/etc", "/hwtap", "/usr/bin", "/usr/sbin" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cpio_dir(c, dirs[i]);
	cpio_node(c, "/dev/console", S_IFCHR | 0600, makedev(5, 1));
	cpio_node(c, "/dev/null", S_IFCHR | 0666, makedev(1, 3));
	int rc = add_busybox(g, c);
	int index = 0;
	if (rc == 0)
		rc = add_modules(g, c, &g->channel_modules, &index);
	if (rc == 0)
		rc = add_modules(g, c, &g->pstore_modules, &index);
	if (rc == 0)
		rc = add_modules(g, c, &g->user_modules, &index);
	if (rc == 0)
		rc = add_files(g, c);
	if (rc)
		return rc;
	size_t len;
	char *init = init_script(g, &len);
	cpio_data(c, "/init", 0755, init, len);
	free(init);
	cpio_data(c, "/hwtap/script", 0644, g->o->script, strlen(g->o->script));
	if (g->o->files_back && *g->o->files_back) {
		char *list = guest_back_list(g, &len);
		cpio_data(c, "/hwtap/back", 0644, list, len);
		free(list);
	}
	cpio_header(c, "TRAILER!!!", 0, 0, 0);
	return 0;
}

int guest_write_initrd(Guest *g, const char *path)
{
	Cpio c = { .mtime = (unsigned)time(NULL) };
	c.f = fopen(path, "wbe");
	if (!c.f)
		return guest_error(g, -errno, "cannot create %s: %s", path, strerror(errno));
	int rc = write_entries(g, &c);
	if (ferror(c.f) && rc == 0)
		rc = guest_error(g, -EIO, "cannot write %s", path);
	if (fclose(c.f) && rc == 0)
		rc = guest_error(g, -EIO, "cannot write %s: %s", path, strerror(errno));
	strlist_free(&c.dirs);
	return rc;
}
