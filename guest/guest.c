/* guest.c - guest_run(): prepare the kernel and initramfs, run QEMU, relay the output.
 *
 * The work folder ($TMPDIR/hwtap-guest.XXXXXX) holds the initramfs and three files QEMU
 * writes: console.log (ttyS0, the kernel log), stdout and stderr (virtio-serial ports
 * hwtap.out and hwtap.err, "file" chardevs: QEMU writes them as the guest sends, never
 * blocking the guest). We poll the two output files every 20 ms and copy what arrives,
 * holding back only what could be the start of the end mark /init appends, which carries
 * the script's exit status, and punching out of the files what was copied. No end mark:
 * the guest died (panic), timed out or was stopped.
 *
 * A third port, hwtap.ctl, is one end of a socketpair QEMU inherits. /init writes "ready"
 * on it once the script runs in its own process group, "beat" every second, and
 * "sent SIG" after passing a signal on; we write "INT", "TERM" or "HUP" when one of those
 * signals reaches us, and /init sends it to the script's process group, as a terminal's
 * Ctrl-C would. A guest that writes neither output nor beats for GUEST_SILENCE_S has
 * stopped answering and is stopped.
 */
#include "guest_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 20

/* What in the kernel log means the kernel had a problem. */
static const char *const problem_patterns[] = {
	"Oops", "BUG:", "kernel BUG at", "WARNING:", "Kernel panic",
	"possible circular locking", "INFO: possible recursive locking", "soft lockup",
	"hard LOCKUP", "general protection fault", "KASAN", "UBSAN", "Call Trace:",
	"detected stall", "blocked for more than",
};

/* ---- helpers -------------------------------------------------------------------------- */

void *guest_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p) {
		fputs("hwtap: error: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

char *guest_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(guest_xmalloc(n), s, n);
}

char *guest_xformat(const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = guest_xmalloc(n + 1);
	vsnprintf(p, n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

void strlist_push(StrList *l, char *s)
{
	if (l->n + 1 >= l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		char **v = guest_xmalloc(sizeof(char *) * l->cap);
		if (l->n)
			memcpy(v, l->v, sizeof(char *) * l->n);
		free(l->v);
		l->v = v;
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

bool strlist_has(const StrList *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

void strlist_free(StrList *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

double guest_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int guest_error(Guest *g, int err_code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hwtap: error: ", g->err);
	vfprintf(g->err, fmt, ap);
	fputc('\n', g->err);
	fflush(g->err);
	va_end(ap);
	return err_code;
}

void guest_note(Guest *g, const char *fmt, ...)
{
	if (g->verbose < 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("hwtap: guest: ", g->err);
	vfprintf(g->err, fmt, ap);
	fprintf(g->err, " (+%.2f s)\n", guest_now() - g->start);
	fflush(g->err);
	va_end(ap);
}

/* ---- stop signals --------------------------------------------------------------------- */

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))
static struct sigaction saved_actions[NSTOP];
static volatile sig_atomic_t caught_signal;     /* the last one */
static volatile sig_atomic_t signal_count;      /* how many so far */

static void on_stop_signal(int sig)
{
	caught_signal = sig;
	signal_count++;
}

bool guest_interrupted(void)
{
	return caught_signal != 0;
}

/* No SA_RESTART: poll() and waitpid() return EINTR, and the loops look at the flag. A
 * signal the caller ignores (SIGINT in a background job) stays ignored. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigemptyset(&sa.sa_mask);
	caught_signal = 0;
	signal_count = 0;
	for (size_t i = 0; i < NSTOP; i++) {
		sigaction(stop_signals[i], NULL, &saved_actions[i]);
		if (saved_actions[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

static void restore_signals(void)
{
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &saved_actions[i], NULL);
}

/* ---- processes ------------------------------------------------------------------------ */

/* In the child: FDS to 0, 1, 2 (and 3 unless FDS[3] is -1), then exec; exec's errno
 * goes back through REPORT. */
__attribute__((noreturn))
static void exec_child(char *const argv[], const int fds[4], bool leader, int report,
		       pid_t parent)
{
	if (leader) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
	}
	int n = fds[3] >= 0 ? 4 : 3, moved[4];
	for (int i = 0; i < n; i++)
		moved[i] = fds[i] < n && fds[i] != i ? fcntl(fds[i], F_DUPFD_CLOEXEC, n) : fds[i];
	for (int i = 0; i < n; i++) {
		if (moved[i] != i)
			dup2(moved[i], i);
		else
			fcntl(i, F_SETFD, 0);
	}
	execvp(argv[0], argv);
	int e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

pid_t guest_spawn(Guest *g, char *const argv[], const int fds[4], bool leader)
{
	int report[2];
	if (pipe2(report, O_CLOEXEC) < 0)
		return -errno;
	fflush(g->out);
	fflush(g->err);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0)
		exec_child(argv, fds, leader, report[1], parent);
	int e = errno;
	close(report[1]);
	if (pid < 0) {
		close(report[0]);
		return -e;
	}
	ssize_t n;
	while ((n = read(report[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (n == sizeof(e)) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -e;
	}
	return pid;
}

int guest_wait(Guest *g, pid_t pid)
{
	int st;
	bool killed = false;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		if (guest_interrupted() && !killed) {
			kill(pid, SIGKILL);
			killed = true;
		}
	}
	return killed ? -EINTR : st;
}

/* ---- the work folder ------------------------------------------------------------------ */

static int make_workdir(Guest *g)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	g->workdir = guest_xformat("%s/hwtap-guest.XXXXXX", tmp);
	if (!mkdtemp(g->workdir)) {
		int rc = guest_error(g, -errno, "cannot create a work folder %s: %s", g->workdir,
				     strerror(errno));
		free(g->workdir);
		g->workdir = NULL;
		return rc;
	}
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

static void remove_workdir(Guest *g)
{
	if (!g->workdir)
		return;
	if (g->o->keep)
		fprintf(g->err, "hwtap: guest work folder kept: %s\n", g->workdir);
	else
		nftw(g->workdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *work_path(Guest *g, const char *name)
{
	return guest_xformat("%s/%s", g->workdir, name);
}

/* ---- preparing ------------------------------------------------------------------------ */

/* HWTAP_QEMU_EXTRA's words, split at blanks (no quoting), for the end of QEMU's command
 * line: for benches and experiments. "-icount shift=4,align=off,sleep=off" makes the
 * guest's clocks count executed instructions (16 ns each), so times measured in the guest
 * no longer depend on the host's load (bench/profile.sh). QEMU 7.2 then runs the vCPUs
 * round-robin in one thread and hangs bringing up a second one: icount needs 1 CPU. */
static int qemu_extra_options(Guest *g)
{
	const char *e = getenv("HWTAP_QEMU_EXTRA");
	while (e && *(e += strspn(e, " \t\n"))) {
		size_t n = strcspn(e, " \t\n");
		strlist_push(&g->qemu_extra, guest_xformat("%.*s", (int)n, e));
		e += n;
	}
	if (g->cpus > 1 && (strlist_has(&g->qemu_extra, "-icount") ||
			    strlist_has(&g->qemu_extra, "--icount")))
		return guest_error(g, -EINVAL, "HWTAP_QEMU_EXTRA has -icount, which needs 1 "
				   "guest CPU (QEMU's icount mode hangs bringing up a second)");
	return 0;
}

static int check_options(Guest *g)
{
	const GuestOptions *o = g->o;
	if (!o->script)
		return guest_error(g, -EINVAL, "no script to run in the guest");
	if (o->cpus < 0 || o->cpus > 64)
		return guest_error(g, -EINVAL, "guest cpus %d: expected 1 to 64", o->cpus);
	if (o->mem_mb < 0 || (o->mem_mb && o->mem_mb < 128))
		return guest_error(g, -EINVAL, "guest memory %d MB: expected at least 128",
				   o->mem_mb);
	if (o->timeout_s < 0)
		return guest_error(g, -EINVAL, "guest timeout %d s: expected a positive number",
				   o->timeout_s);
	if (o->pstore && g->o->arch && !guest_arch_is_host(g->o->arch))
		return guest_error(g, -EINVAL, "the pstore guest needs the host's architecture "
				   "(%s): it reserves ramoops' memory with memmap=",
				   guest_host_arch()->name);
	if (o->pstore && o->mem_mb && o->mem_mb < GUEST_PSTORE_MIN_MEM_MB)
		return guest_error(g, -EINVAL, "the pstore guest needs at least %d MB of memory "
				   "(ramoops' is at %#lx)", GUEST_PSTORE_MIN_MEM_MB,
				   GUEST_PSTORE_ADDR);
	const char *arch = (o->arch ? o->arch : guest_host_arch())->name;
	if (o->pcie && strcmp(arch, "x86_64"))
		return guest_error(g, -EINVAL, "--vm-pcie: the %s guest is PCI Express already "
				   "(QEMU's virt); the option is x86_64's", arch);
	if (o->ghes && strcmp(arch, "arm64"))
		return guest_error(g, -EINVAL, "--vm-ghes: only the arm64 guest has a GHES error "
				   "source (QEMU's virt machine with ras=on; QEMU 7.2's x86 machines "
				   "have no ACPI HEST)");
	if (o->ghes && access(GUEST_GHES_FIRMWARE, R_OK))
		return guest_error(g, -ENOENT, "--vm-ghes: no UEFI firmware %s (%s): Debian's "
				   "qemu-efi-aarch64 has it (bootstrap.sh installs it)",
				   GUEST_GHES_FIRMWARE, strerror(errno));
	if (o->icount && o->cpus > 1)
		return guest_error(g, -EINVAL, "--vm-icount needs 1 guest CPU (QEMU's icount "
				   "mode runs the CPUs in turn, and hangs bringing up a second on "
				   "x86)");
	if (o->tcg_threads && strcmp(o->tcg_threads, "single") && strcmp(o->tcg_threads, "multi"))
		return guest_error(g, -EINVAL, "TCG threads '%s': expected single or multi",
				   o->tcg_threads);
	if (o->icount && o->tcg_threads && !strcmp(o->tcg_threads, "multi"))
		return guest_error(g, -EINVAL, "--vm-icount runs the CPUs in turn in one TCG "
				   "thread: not with --vm-tcg-threads multi");
	g->cpus = o->cpus ? o->cpus : o->icount ? 1 : 2;
	g->mem_mb = o->mem_mb ? o->mem_mb : 512;
	g->timeout_s = o->timeout_s;
	return qemu_extra_options(g);
}

static int find_release(Guest *g)
{
	const char *why = "asked for";
	g->arch = g->o->arch ? g->o->arch : guest_host_arch();
	g->root = guest_arch_root(g->arch);
	g->release = g->o->release ? guest_xstrdup(g->o->release) :
		     guest_default_release(g->arch, g->err, &why);
	if (!g->release)
		return -ENOENT;
	g->moddir = guest_xformat("%s/lib/modules/%s", g->root, g->release);
	struct stat st;
	if (stat(g->moddir, &st) < 0 || !S_ISDIR(st.st_mode))
		return guest_error(g, -ENOENT, "no guest kernel release '%s': no %s", g->release,
				   g->moddir);
	guest_note(g, "%s release %s (%s)", g->arch->name, g->release, why);
	return 0;
}

static void make_nonce(Guest *g)
{
	unsigned char bytes[GUEST_NONCE_LEN / 2];
	if (getrandom(bytes, sizeof(bytes), 0) != sizeof(bytes)) {
		unsigned long x = (unsigned long)guest_now() * 1000003 ^ getpid();
		memcpy(bytes, &x, sizeof(bytes) < sizeof(x) ? sizeof(bytes) : sizeof(x));
	}
	for (size_t i = 0; i < sizeof(bytes); i++)
		snprintf(g->nonce + 2 * i, 3, "%02x", bytes[i]);
}

/* The virtio-serial modules, then the requested ones. */
static int resolve_modules(Guest *g)
{
	static const char *const channel[] = { "virtio_pci", "virtio_console" };
	for (size_t i = 0; i < sizeof(channel) / sizeof(channel[0]); i++) {
		int rc = guest_resolve_module(g, channel[i], &g->channel_modules);
		if (rc)
			return rc;
	}
	if (g->o->pstore) {
		int rc = guest_resolve_module(g, "ramoops", &g->pstore_modules);
		if (rc)
			return rc;
	}
	for (const char **m = g->o->modprobe; m && *m; m++) {
		int rc = guest_resolve_module(g, *m, &g->user_modules);
		if (rc)
			return rc;
	}
	for (int i = 0; i < g->user_modules.n; i++)
		guest_note(g, "module %s", g->user_modules.v[i]);
	return 0;
}

static int prepare(Guest *g)
{
	int rc = check_options(g);
	if (!rc)
		rc = find_release(g);
	if (!rc)
		rc = make_workdir(g);
	if (!rc)
		rc = resolve_modules(g);
	if (!rc)
		rc = guest_find_kernel(g);
	if (rc)
		return rc;
	make_nonce(g);
	char *initrd = work_path(g, "initrd.cpio");
	rc = guest_write_initrd(g, initrd);
	struct stat st;
	if (!rc && stat(initrd, &st) == 0)
		guest_note(g, "initramfs %s, %.1f MB", initrd, st.st_size / 1e6);
	free(initrd);
	return rc;
}

/* ---- QEMU ----------------------------------------------------------------------------- */

/* PATH for a QEMU option value: commas doubled. */
static char *qemu_path(Guest *g, const char *name)
{
	char *path = work_path(g, name);
	size_t commas = 0;
	for (char *p = path; *p; p++)
		commas += *p == ',';
	char *out = guest_xmalloc(strlen(path) + commas + 1), *q = out;
	for (char *p = path; *p; p++) {
		*q++ = *p;
		if (*p == ',')
			*q++ = ',';
	}
	*q = '\0';
	free(path);
	return out;
}

/* The QEMU command line, malloc'ed strings (free with strlist_free). */
static void qemu_argv(Guest *g, StrList *a)
{
	strlist_push(a, guest_xstrdup(g->arch->qemu));
	for (const char *const *p = g->arch->machine; *p; p++) {
		strlist_push(a, guest_xstrdup(*p));
		if (!strcmp(*p, "-cpu") && p[1] && g->o->cpu) {
			strlist_push(a, guest_xstrdup(g->o->cpu));
			p++;
		}
	}
	if (g->o->pcie) {
		/* the device: an e1000e (no driver loaded) at 01:00.0, behind the root port */
		const char *pcie[] = { "-M", "q35", "-device",
				       "pcie-root-port,id=hwtap_rp,chassis=1,slot=1", "-device",
				       "e1000e,bus=hwtap_rp", NULL };
		for (const char **p = pcie; *p; p++)
			strlist_push(a, guest_xstrdup(*p));
	}
	if (g->o->ghes) {
		/* QEMU's HEST and its error status block; the firmware, for ACPI */
		const char *ghes[] = { "-M", "virt,ras=on", "-bios", GUEST_GHES_FIRMWARE, NULL };
		for (const char **p = ghes; *p; p++)
			strlist_push(a, guest_xstrdup(*p));
	}
	strlist_push(a, guest_xstrdup("-accel"));
	if (g->o->tcg_threads)
		strlist_push(a, guest_xformat("tcg,thread=%s", g->o->tcg_threads));
	else
		strlist_push(a, guest_xstrdup(g->arch->accel));
	const char *fixed[] = { "-nodefaults", "-display", "none", NULL };
	for (const char **p = fixed; *p; p++)
		strlist_push(a, guest_xstrdup(*p));
	/* a panic (panic=-1) resets the machine: QEMU ends, or boots it again keeping RAM */
	if (!g->o->pstore)
		strlist_push(a, guest_xstrdup("-no-reboot"));
	strlist_push(a, guest_xstrdup("-m"));
	strlist_push(a, guest_xformat("%d", g->mem_mb));
	strlist_push(a, guest_xstrdup("-smp"));
	strlist_push(a, guest_xformat("%d", g->cpus));
	strlist_push(a, guest_xstrdup("-kernel"));
	strlist_push(a, guest_xstrdup(g->kernel));
	strlist_push(a, guest_xstrdup("-initrd"));
	strlist_push(a, work_path(g, "initrd.cpio"));
	/* loglevel=5, not quiet: WARNING, lockdep reports and stack traces are KERN_WARNING
	 * and KERN_DEFAULT (4), which quiet (console level 4) would keep off the console. */
	strlist_push(a, guest_xstrdup("-append"));
	char *pstore = g->o->pstore ? guest_xformat(" memmap=%dM$%#lx", GUEST_PSTORE_MB,
						    GUEST_PSTORE_ADDR) : guest_xstrdup("");
	strlist_push(a, guest_xformat("console=%s loglevel=5 panic=-1 nohz=off "
				      "sysctl.kernel.hung_task_timeout_secs=%d%s%s%s",
				      g->arch->console, GUEST_HUNG_TASK_S, pstore,
				      g->o->append ? " " : "", g->o->append ? g->o->append : ""));
	free(pstore);
	static const char *const chardevs[][2] = {
		{ "console", "console.log" }, { "out", "stdout" }, { "err", "stderr" },
	};
	bool back = g->o->files_back && *g->o->files_back;
	for (size_t i = 0; i < 3 + (size_t)back; i++) {
		char *path = qemu_path(g, i < 3 ? chardevs[i][1] : "back");
		strlist_push(a, guest_xstrdup("-chardev"));
		strlist_push(a, guest_xformat("file,id=%s,path=%s", i < 3 ? chardevs[i][0] :
					      "back", path));
		free(path);
	}
	/* QEMU's descriptor 3 is its end of the control socketpair (start_qemu) */
	const char *devices[] = { "-chardev", "socket,id=ctl,fd=3",
				  "-serial", "chardev:console", "-device", "virtio-serial-pci",
				  "-device", "virtserialport,chardev=out,name=hwtap.out",
				  "-device", "virtserialport,chardev=err,name=hwtap.err",
				  "-device", "virtserialport,chardev=ctl,name=hwtap.ctl", NULL };
	for (const char **p = devices; *p; p++)
		strlist_push(a, guest_xstrdup(*p));
	if (back) {
		strlist_push(a, guest_xstrdup("-device"));
		strlist_push(a, guest_xstrdup("virtserialport,chardev=back,name=hwtap.back"));
	}
	if (g->o->icount) {
		strlist_push(a, guest_xstrdup("-icount"));
		strlist_push(a, guest_xstrdup("shift=0,align=off,sleep=off"));
	}
	for (int i = 0; i < g->qemu_extra.n; i++)
		strlist_push(a, guest_xstrdup(g->qemu_extra.v[i]));
}

/* Copied output is punched out of the files QEMU writes in steps of this size, so that a
 * long run's output does not pile up in the work folder. */
#define PUNCH_STEP (1 << 20)

/* One of the script's output streams, read from the file QEMU appends to. */
typedef struct Stream {
	int fd;
	FILE *dst;
	char *buf;                      /* read, not yet written (at most GUEST_END_MAX
					 * bytes between reads) */
	size_t len, cap;
	off_t read_to, punched_to;      /* offsets in the file */
	char *status;                   /* the end mark's word, once found */
} Stream;

static void stream_write(Stream *s, size_t keep)
{
	if (s->len <= keep)
		return;
	size_t n = s->len - keep;
	fwrite(s->buf, 1, n, s->dst);
	fflush(s->dst);
	memmove(s->buf, s->buf + n, keep);
	s->len = keep;
}

/* How much of the end of what was read could be the start of the end mark: from the
 * last \001 in the last GUEST_END_MAX bytes on. */
static size_t stream_hold(const Stream *s)
{
	size_t from = s->len > GUEST_END_MAX ? s->len - GUEST_END_MAX : 0;
	for (size_t i = s->len; i > from; i--)
		if (s->buf[i - 1] == GUEST_END_MARK[0])
			return s->len - (i - 1);
	return 0;
}

/* Give back the file's blocks below what has been read (QEMU's offset is its own: the
 * file keeps its size). Where the file system can't, they stay. */
static void stream_punch(Stream *s)
{
	off_t to = s->read_to & ~(off_t)(PUNCH_STEP - 1);
	if (to > s->punched_to &&
	    !fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, s->punched_to,
		       to - s->punched_to))
		s->punched_to = to;
}

/* Copy what arrived, but what could be the start of the end mark; the number of bytes
 * that arrived. */
static size_t stream_pump(Stream *s)
{
	off_t from = s->read_to;
	for (;;) {
		if (s->cap - s->len < 65536) {
			s->cap = s->len + 65536 + GUEST_END_MAX;
			char *buf = guest_xmalloc(s->cap);
			if (s->len)
				memcpy(buf, s->buf, s->len);
			free(s->buf);
			s->buf = buf;
		}
		ssize_t n = read(s->fd, s->buf + s->len, 65536);
		if (n <= 0)
			break;
		s->len += n;
		s->read_to += n;
		stream_write(s, stream_hold(s));
	}
	if (s->read_to - s->punched_to >= 2 * PUNCH_STEP)
		stream_punch(s);
	return s->read_to - from;
}

/* The rest, without the end mark "\001hwtap-end NONCE WORD\n" if it is there. */
static void stream_finish(Stream *s, const char *nonce)
{
	stream_pump(s);
	char mark[GUEST_END_MAX];
	int mlen = snprintf(mark, sizeof(mark), "%s%s ", GUEST_END_MARK, nonce);
	char *p = s->len ? memmem(s->buf, s->len, mark, mlen) : NULL;
	char *word = p ? p + mlen : NULL;
	size_t wlen = word ? s->buf + s->len - word : 0;
	if (p && wlen >= 2 && wlen <= 8 && word[wlen - 1] == '\n' &&
	    !memchr(word, '\n', wlen - 1)) {
		s->status = guest_xformat("%.*s", (int)wlen - 1, word);
		s->len = p - s->buf;
	}
	stream_write(s, 0);
}

static int open_stream(Guest *g, Stream *s, const char *name, FILE *dst)
{
	char *path = work_path(g, name);
	s->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	s->dst = dst;
	int rc = s->fd < 0 ? guest_error(g, -errno, "cannot create %s: %s", path,
					 strerror(errno)) : 0;
	free(path);
	return rc;
}

static void close_stream(Stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	free(s->status);
}

/* One QEMU process: its own messages (its stderr, kept for errors and -v), the control
 * socket and what came over it. */
typedef struct QemuRun {
	pid_t pid;
	int msg_fd;
	char msg[8192];
	size_t msg_len;
	int ctl_fd;             /* our end of the control socketpair, or -1 */
	char ctl[64];           /* a control line not yet complete */
	size_t ctl_len;
	int wait_status;
	bool exited, killed;    /* killed: stopped by stop_qemu() */
	bool timed_out;
	bool booted;            /* /init wrote GUEST_INIT_MARK to the console */
	bool boot_hung;         /* stopped: no /init within BOOT_DEADLINE_S */
	bool ready;             /* /init runs the script and passes signals on */
	int readies;            /* how often it said so: once a boot */
	bool reboot_loop;       /* stopped: the pstore guest rebooted a second time */
	bool unresponsive;      /* stopped: no output, no beat for silence_s */
	double last_heard;      /* when output or a control line last came */
	int signals_seen;       /* of signal_count */
	double forwarded_at;
	bool acked;             /* /init said it passed the signal on */
} QemuRun;

static void read_messages(QemuRun *q)
{
	char buf[4096];
	ssize_t n = read(q->msg_fd, buf, sizeof(buf));
	if (n <= 0) {
		if (n == 0 || errno != EINTR) {
			close(q->msg_fd);
			q->msg_fd = -1;
		}
		return;
	}
	size_t room = sizeof(q->msg) - 1 - q->msg_len;
	size_t take = (size_t)n < room ? (size_t)n : room;
	memcpy(q->msg + q->msg_len, buf, take);
	q->msg_len += take;
	q->msg[q->msg_len] = '\0';
}

/* The control lines that arrived: "ready", "beat", "sent SIG". */
static void read_control(Guest *g, QemuRun *q)
{
	char buf[512];
	ssize_t n = read(q->ctl_fd, buf, sizeof(buf));
	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(q->ctl_fd);
			q->ctl_fd = -1;
		}
		return;
	}
	q->last_heard = guest_now();
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (q->ctl_len < sizeof(q->ctl) - 1)
				q->ctl[q->ctl_len++] = buf[i];
			continue;
		}
		q->ctl[q->ctl_len] = '\0';
		q->ctl_len = 0;
		if (!strcmp(q->ctl, "ready")) {
			q->ready = q->booted = true;
			if (q->readies++)
				guest_note(g, "the guest rebooted: the script runs again");
			else
				guest_note(g, "the script runs");
		} else if (!strncmp(q->ctl, "sent ", 5)) {
			q->acked = true;
			guest_note(g, "the guest passed SIG%s on to the script", q->ctl + 5);
		}
	}
}

static void stop_qemu(QemuRun *q)
{
	q->killed = true;
	kill(q->pid, SIGKILL);
	while (waitpid(q->pid, &q->wait_status, 0) < 0 && errno == EINTR)
		;
	q->exited = true;
}

/* Whether /init has started: its first line writes GUEST_INIT_MARK to the console. */
static bool init_started(Guest *g)
{
	char *path = work_path(g, "console.log");
	FILE *f = fopen(path, "rbe");
	free(path);
	if (!f)
		return false;
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, GUEST_INIT_MARK) != NULL;
	fclose(f);
	return found;
}

/* Seconds from the environment variable NAME, else DEFAULT_S (tests set small ones). */
static int seconds_from_env(const char *name, int default_s)
{
	const char *e = getenv(name);
	return e && *e ? atoi(e) : default_s;
}

static int boot_deadline_s(void)
{
	return seconds_from_env("HWTAP_BOOT_DEADLINE", BOOT_DEADLINE_S);
}

static int stop_timeout_s(const Guest *g)
{
	return g->o->stop_timeout_s > 0 ? g->o->stop_timeout_s : GUEST_STOP_S;
}

/* Pass SIG on to the script's process group in the guest: 0, or -1 when the control
 * socket can't take it. */
static int forward_signal(Guest *g, QemuRun *q, int sig)
{
	char line[16];
	int n = snprintf(line, sizeof(line), "%s\n", sigabbrev_np(sig));
	if (q->ctl_fd < 0 || write(q->ctl_fd, line, n) != n)
		return -1;
	g->forwarded = sig;
	q->forwarded_at = guest_now();
	guest_note(g, "SIG%s: passing it on to the script in the guest", sigabbrev_np(sig));
	return 0;
}

/* The stop signals caught since the last look: the first is passed on once the script
 * runs; one before that, or any after the first, stops the guest. */
static void handle_signals(Guest *g, QemuRun *q)
{
	while (!q->exited && q->signals_seen < signal_count) {
		q->signals_seen++;
		int sig = caught_signal;
		if (!g->forwarded && q->ready && !forward_signal(g, q, sig))
			continue;
		g->stopped_by = sig;
		stop_qemu(q);
	}
}

/* Until QEMU exits, or it has to be stopped: a stop signal (handle_signals), the timeout,
 * a boot that has not started /init after BOOT_DEADLINE_S (hung), a forwarded signal
 * not acknowledged within GUEST_ANSWER_S or with the script still running after
 * stop_timeout_s(), no output and no control line for silence_s
 * (counted from the boot deadline until the script runs). Streams are copied meanwhile. */
static void supervise(Guest *g, QemuRun *q, Stream *out, Stream *err)
{
	double start = guest_now(), deadline = start + g->timeout_s;
	double boot_deadline = start + boot_deadline_s();
	int silence_s = seconds_from_env("HWTAP_GUEST_SILENCE", GUEST_SILENCE_S);
	q->last_heard = boot_deadline;
	while (!q->exited) {
		struct pollfd pfd[2] = { { .fd = q->msg_fd, .events = POLLIN },
					 { .fd = q->ctl_fd, .events = POLLIN } };
		if (poll(pfd, 2, POLL_MS) > 0) {
			if (pfd[0].revents)
				read_messages(q);
			if (pfd[1].revents)
				read_control(g, q);
		}
		double now = guest_now();
		if (stream_pump(out) + stream_pump(err))
			q->last_heard = now;
		if (waitpid(q->pid, &q->wait_status, WNOHANG) == q->pid)
			q->exited = true;
		handle_signals(g, q);
		if (q->exited)
			break;
		if (g->timeout_s && now > deadline) {
			q->timed_out = true;
		} else if (!q->booted && now > boot_deadline && !(q->booted = init_started(g))) {
			q->boot_hung = true;
		} else if (g->forwarded && !q->acked && now > q->forwarded_at + GUEST_ANSWER_S) {
			g->unanswered = true;
		} else if (g->forwarded && now > q->forwarded_at + stop_timeout_s(g)) {
			g->unstopped = true;
		} else if (now > q->last_heard + silence_s) {
			q->unresponsive = true;
		} else if (q->readies > 2) {
			q->reboot_loop = true;
		} else {
			continue;
		}
		stop_qemu(q);
	}
	while (q->msg_fd >= 0)
		read_messages(q);
}

static int start_qemu(Guest *g, QemuRun *q)
{
	int pipefd[2], ctl[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return guest_error(g, -errno, "cannot create a pipe: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return guest_error(g, -errno, "cannot create a socket pair: %s", strerror(errno));
	}
	fcntl(ctl[0], F_SETFL, O_NONBLOCK);
	q->ctl_fd = ctl[0];
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	StrList argv = { 0 };
	qemu_argv(g, &argv);
	if (g->verbose) {
		guest_note(g, "starting QEMU:");
		for (int i = 0; i < argv.n; i++)
			fprintf(g->err, "%s%s", i ? " " : "  ", argv.v[i]);
		fputc('\n', g->err);
	}
	int fds[4] = { devnull, pipefd[1], pipefd[1], ctl[1] };
	q->pid = guest_spawn(g, argv.v, fds, true);
	strlist_free(&argv);
	close(pipefd[1]);
	close(ctl[1]);
	if (devnull >= 0)
		close(devnull);
	q->msg_fd = pipefd[0];
	if (q->pid > 0)
		return 0;
	close(pipefd[0]);
	q->msg_fd = -1;
	return guest_error(g, q->pid, "cannot run %s: %s (install %s)", g->arch->qemu,
			   strerror(-q->pid), g->arch->qemu_package);
}

/* ---- the result ----------------------------------------------------------------------- */

static char *read_console(Guest *g)
{
	char *path = work_path(g, "console.log");
	FILE *f = fopen(path, "rbe");
	free(path);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int c;
	while (f && m && (c = getc(f)) != EOF)
		if (c != '\r')
			putc(c, m);
	if (f)
		fclose(f);
	if (m)
		fclose(m);
	return text ? text : guest_xstrdup("");
}

/* Whether the WARNING: at AT starts a message of LOG: a WARN() splat ("WARNING: CPU: 0 PID:
 * 1 at ...") and lockdep's reports do; a message that only says the word after a prefix of
 * its own is a notice, such as the CPU model's ("RETBleed: WARNING: Spectre v2 mitigation
 * leaves CPU vulnerable", booting as Skylake-Server with --vm-cpu). */
static bool starts_message(const char *log, const char *at)
{
	return at == log || at[-1] == '\n' || (at - log >= 2 && at[-2] == ']' && at[-1] == ' ');
}

static bool has_problem(const char *log)
{
	for (size_t i = 0; i < sizeof(problem_patterns) / sizeof(problem_patterns[0]); i++) {
		const char *p = problem_patterns[i];
		for (const char *at = strstr(log, p); at; at = strstr(at + 1, p))
			if (strcmp(p, "WARNING:") || starts_message(log, at))
				return true;
	}
	return false;
}

/* The "[ SECONDS.MICROS]" a kernel log line starts with, or -1. */
static double log_stamp(const char *line)
{
	double t;
	return sscanf(line, "[ %lf]", &t) == 1 ? t : -1;
}

/* The kernel log without the reports of its first PANICS panics: from each "Kernel panic -
 * not syncing" line to the first line of the next boot (its time stamp goes back). What
 * the panicking kernel printed after that line (its stack, for one) is the panic's; what
 * came before it still counts. Malloc'ed. */
static char *without_panics(const char *log, int panics)
{
	char *out = guest_xstrdup(log), *cut;
	for (int i = 0; i < panics && (cut = strstr(out, "Kernel panic - not syncing")); i++) {
		while (cut > out && cut[-1] != '\n')
			cut--;
		double t = log_stamp(cut);
		char *next = strchr(cut, '\n');
		while (next && (t < 0 || log_stamp(next + 1) < 0 || log_stamp(next + 1) >= t))
			next = strchr(next + 1, '\n');
		if (next)
			memmove(cut, next + 1, strlen(next + 1) + 1);
		else
			*cut = '\0';
	}
	return out;
}

/* Why the script's exit status is missing: timeout, no answer, a stop signal, setup (the
 * line /init's die() printed), panic, or something else. */
static void report_no_status(Guest *g, const QemuRun *q, const char *log)
{
	const char *setup = strstr(log, "hwtap-guest-setup: ");
	if (q->timed_out)
		guest_error(g, 0, "guest timed out after %d s", g->timeout_s);
	else if (q->reboot_loop)
		guest_error(g, 0, "the guest rebooted a second time (it reboots once, after a "
			    "panic): it was stopped");
	else if (q->unresponsive)
		guest_error(g, 0, "the guest stopped answering (no output and no heartbeat for "
			    "%d s): it was stopped",
			    seconds_from_env("HWTAP_GUEST_SILENCE", GUEST_SILENCE_S));
	else if (g->unanswered)
		guest_error(g, 0, "the guest did not pass SIG%s on to the script within %d s: it "
			    "was stopped", sigabbrev_np(g->forwarded), GUEST_ANSWER_S);
	else if (g->unstopped)
		guest_error(g, 0, "the script did not stop within %d s of SIG%s: the guest was "
			    "stopped (--vm-stop-timeout)", stop_timeout_s(g),
			    sigabbrev_np(g->forwarded));
	else if (g->stopped_by && g->forwarded)
		guest_error(g, 0, "interrupted again (SIG%s): the guest was stopped before the "
			    "script ended", sigabbrev_np(g->stopped_by));
	else if (g->stopped_by)
		guest_error(g, 0, "interrupted (SIG%s) before the script started: the guest was "
			    "stopped", sigabbrev_np(g->stopped_by));
	else if (setup)
		guest_error(g, 0, "guest setup failed: %.*s", (int)strcspn(setup + 19, "\n"),
			    setup + 19);
	else if (strstr(log, "Kernel panic"))
		guest_error(g, 0, "the guest kernel panicked before the script reported an "
			    "exit status");
	else
		guest_error(g, 0, "the guest stopped before the script reported an exit status");
}

static void collect(Guest *g, QemuRun *q, Stream *out, Stream *err, GuestResult *r)
{
	char *log = read_console(g);
	if (g->verbose >= 2)
		fprintf(g->err, "hwtap: guest: kernel log:\n%s", log);
	r->status = -1;
	r->timed_out = q->timed_out;
	r->unresponsive = q->unresponsive;
	if (out->status && strcmp(out->status, "setup"))
		r->status = atoi(out->status);
	else if (out->status)
		guest_error(g, 0, "guest setup failed (see the messages above)");
	else
		report_no_status(g, q, log);
	if (out->status && !err->status)
		fprintf(g->err, "hwtap: warning: the script's stderr may be incomplete\n");
	r->reboots = q->readies > 1 ? q->readies - 1 : 0;
	/* one panic is the pstore guest's to expect: the one it reboots after */
	char *judged = without_panics(log, g->o->pstore && r->reboots ? 1 : 0);
	r->kernel_problem = has_problem(judged);
	free(judged);
	if (r->kernel_problem || r->status < 0)
		r->problem_log = log;
	else
		free(log);
	guest_note(g, "guest finished: status %d%s", r->status,
		   r->kernel_problem ? ", kernel problem" : "");
}

/* QEMU failed as a program (not the guest): its exit status and messages. */
static int qemu_failed(Guest *g, const QemuRun *q, const Stream *out)
{
	int st = q->wait_status;
	if (q->killed || (WIFEXITED(st) && WEXITSTATUS(st) == 0))
		return 0;
	if (WIFEXITED(st))
		guest_error(g, 0, "%s failed (exit status %d)%s%s", g->arch->qemu,
			    WEXITSTATUS(st), q->msg_len ? ":\n" : "", q->msg);
	else
		guest_error(g, 0, "%s was killed by signal %d%s%s", g->arch->qemu, WTERMSIG(st),
			    q->msg_len ? ":\n" : "", q->msg);
	return out->status ? 0 : -EIO;
}

static int boot_once(Guest *g, GuestResult *r, bool *hung)
{
	Stream out = { .fd = -1 }, err = { .fd = -1 };
	QemuRun q = { .msg_fd = -1, .ctl_fd = -1 };
	int rc = open_stream(g, &out, "stdout", g->out);
	if (!rc)
		rc = open_stream(g, &err, "stderr", g->err);
	if (!rc)
		rc = start_qemu(g, &q);
	if (!rc) {
		double t = guest_now();
		supervise(g, &q, &out, &err);
		guest_note(g, "QEMU ran %.2f s", guest_now() - t);
		if (g->verbose && q.msg_len)
			fprintf(g->err, "hwtap: guest: QEMU said:\n%s", q.msg);
		*hung = q.boot_hung;
		if (!q.boot_hung) {
			stream_finish(&out, g->nonce);
			stream_finish(&err, g->nonce);
			rc = qemu_failed(g, &q, &out);
			if (!rc)
				collect(g, &q, &out, &err, r);
			if (!rc && g->o->files_back && *g->o->files_back) {
				char *path = work_path(g, "back");
				r->files_lost = guest_back_collect(g, path) != 0;
				free(path);
			}
		}
	}
	close_stream(&out);
	close_stream(&err);
	if (q.ctl_fd >= 0)
		close(q.ctl_fd);
	return rc;
}

/* A boot that hangs before /init is tried once more: nothing of the script ran. */
static int boot(Guest *g, GuestResult *r)
{
	bool hung = false;
	int rc = boot_once(g, r, &hung);
	if (!rc && hung && !g->stopped_by) {
		fprintf(g->err, "hwtap: warning: the guest kernel had not started /init after "
			"%d s (a hung boot); booting it again\n", boot_deadline_s());
		hung = false;
		rc = boot_once(g, r, &hung);
	}
	if (!rc && hung) {
		char *log = read_console(g);
		guest_error(g, 0, "the guest kernel did not start /init within %d s, twice%s%s",
			    boot_deadline_s(), *log ? "; its log:\n" : " (its log is empty)",
			    log);
		free(log);
		r->status = -1;
		rc = -ETIMEDOUT;
	}
	return rc;
}

/* ---- the entry points ----------------------------------------------------------------- */

static void guest_free(Guest *g)
{
	free(g->release);
	free(g->root);
	free(g->moddir);
	free(g->workdir);
	free(g->kernel);
	guest_free_modules(g);
	strlist_free(&g->channel_modules);
	strlist_free(&g->user_modules);
	strlist_free(&g->pstore_modules);
	strlist_free(&g->qemu_extra);
}

int guest_run(const GuestOptions *o, FILE *out, FILE *err, GuestResult *r)
{
	Guest g = { .o = o, .out = out, .err = err, .verbose = o->verbose };
	g.start = guest_now();
	memset(r, 0, sizeof(*r));
	r->status = -1;
	catch_signals();
	int rc = prepare(&g);
	if (!rc && guest_interrupted())
		rc = guest_error(&g, -EINTR, "interrupted (SIG%s) before the guest started",
				 sigabbrev_np(caught_signal));
	if (!rc)
		rc = boot(&g, r);
	/* a signal that stopped the guest, or found none to stop, ends us as it would have */
	int sig = g.stopped_by ? g.stopped_by : g.unanswered || g.unstopped ? g.forwarded :
		  g.forwarded ? 0 : caught_signal;
	r->forwarded = g.forwarded;
	remove_workdir(&g);
	guest_free(&g);
	restore_signals();
	if (sig) {
		/* a script that would not stop: why is in the kernel's log (hung tasks) */
		if (g.unstopped && r->kernel_problem)
			fprintf(err, "hwtap: the guest kernel reported a problem; its log:\n%s",
				r->problem_log);
		fflush(out);
		fflush(err);
		guest_result_free(r);
		r->status = -1;
		raise(sig);
		return -EINTR;
	}
	return rc;
}

void guest_result_free(GuestResult *r)
{
	free(r->problem_log);
	r->problem_log = NULL;
}

const char *guest_append_error(const char *words)
{
	static const char *const ours[] = { "console=", "init=", "rdinit=", "panic=" };
	size_t len = strlen(words);
	if (!len)
		return "no words given";
	if (len > 1024)
		return "longer than 1024 bytes";
	for (const char *p = words; *p; p++)
		if (*p < ' ' || *p > '~' || *p == '"')
			return "only printable ASCII words apart by spaces, no quotes";
	for (const char *p = words; *p;) {
		p += strspn(p, " ");
		for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
			if (!strncmp(p, ours[i], strlen(ours[i])))
				return guest_xformat("%.*s is the guest runner's own to set",
						     (int)strlen(ours[i]) - 1, ours[i]);
		p += strcspn(p, " ");
	}
	return NULL;
}
