/* run.c - pass 5: load the module and relay its output, here or in the QEMU guest.
 *
 * Where the running kernel cannot take modules (no /proc/modules: this build machine) or
 * --vm asks for it, the module runs in a throwaway guest booting the target kernel;
 * otherwise hwtap-run loads it here. Either way hwtap-run does the loading, relaying and
 * unloading, and its exit status is hwtap's. A Ctrl-C (SIGINT, SIGTERM, SIGHUP) reaches
 * hwtap-run, which stops the probes and runs the end probes; hwtap waits for it.
 * In the guest, the files options name (--ras-db, --textfile, --pprof) are written there,
 * at the same paths, and come home when the run ends, as -o's output does (guest_file);
 * an existing --ras-db database goes in first, so that the run adds to it.
 */
#include "hwtap.h"
#include "../../guest/guest.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


/* hwtap-run beside this build when hwtap runs from its build tree, else installed: in
 * bindir with hwtap (users and units run it too); hwtap-run-ARCH, cross-built for
 * another architecture's guest, in pkglibexecdir. */
static const char *loader_path(Session *s)
{
	const char *name = s->target_arch && !guest_arch_is_host(s->target_arch) ?
			   xformat("hwtap-run-%s", s->target_arch->name) : "hwtap-run";
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *built = xformat("%s/loader/%s", HWTAP_BUILDDIR, name);
		if (!strncmp(exe, HWTAP_BUILDDIR "/", strlen(HWTAP_BUILDDIR) + 1) &&
		    !access(built, X_OK))
			return built;
	}
	return xformat("%s/%s", strcmp(name, "hwtap-run") ? HWTAP_LIBEXECDIR : HWTAP_BINDIR,
		       name);
}

/* hwtap-inject for the guest: beside this build's hwtap, or installed (beside hwtap;
 * hwtap-inject-ARCH, cross-built for another architecture's guest, in pkglibexecdir);
 * NULL if there is none. */
static const char *inject_path(Session *s)
{
	bool cross = s->target_arch && !guest_arch_is_host(s->target_arch);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	const char *suffix = cross ? xformat("-%s", s->target_arch->name) : "";
	char *path = !strncmp(exe, HWTAP_BUILDDIR "/", strlen(HWTAP_BUILDDIR) + 1) ?
		     xformat("%s/inject/hwtap-inject%s", HWTAP_BUILDDIR, suffix) : cross ?
		     xformat("%s/hwtap-inject%s", HWTAP_LIBEXECDIR, suffix) :
		     xformat("%.*s/hwtap-inject", (int)(strrchr(exe, '/') - exe), exe);
	return access(path, X_OK) ? NULL : path;
}

static bool kernel_takes_modules(void)
{
	return !access("/proc/modules", F_OK) && geteuid() == 0;
}

bool session_runs_in_guest(Session *s)
{
	return s->vm || !kernel_takes_modules();
}

static char *shell_quote(const char *s)
{
	StrBuf sb = {0};
	sb_putc(&sb, '\'');
	for (; *s; s++)
		sb_puts(&sb, *s == '\'' ? "'\\''" : xstrndup(s, 1));
	sb_putc(&sb, '\'');
	return sb.buf;
}

/* Under -v, when the guest ended without a status: this many of the log's last lines. */
#define LOG_TAIL_LINES 20

/* The files of --textfile, --pprof and --ras-db where hwtap-run writes them: here, the
 * paths given; in the guest, guest_file()'s. */
typedef struct {
	const char *textfile, *pprof, *ras_db;
} LoaderFiles;

/* hwtap-run's options that go the same way here and in the guest: "-c CMD -j N ...". */
static const char *loader_options(Session *s, const LoaderFiles *f)
{
	return xformat("%s%s%s%s%s", s->command ? xformat("-c %s ", shell_quote(s->command)) : "",
		       s->max_commands ? xformat("-j %d ", s->max_commands) : "",
		       f->textfile ? xformat("--textfile %s ", shell_quote(f->textfile)) : "",
		       f->pprof ? xformat("--pprof %s ", shell_quote(f->pprof)) : "",
		       f->ras_db ? xformat("--ras-db %s ", shell_quote(f->ras_db)) : "");
}

/* The guest's path for HOST, the file OPTION names, and what brings it home: the same
 * path in the guest (a relative one from /root, where the script runs), so that what the
 * run does there with it (-c 'cat FILE') works as it does here; HOST's folder must be
 * there for it to come back to, HOST itself nothing but a regular file (no link followed,
 * as -o refuses one); an existing HOST goes in first (FILES), and the guest's comes back
 * over it (BACK). NULL, after saying why, at once: before the guest boots. */
static const char *guest_file(const char *option, const char *host, Vec *files, Vec *back)
{
	if (strchr(host, ':')) {
		fprintf(stderr, "hwtap: error: %s %s: with --vm, the file comes back from the "
			"guest, and its path cannot hold ':'\n", option, host);
		diag_errors++;
		return NULL;
	}
	const char *slash = strrchr(host, '/');
	const char *dir = slash ? (slash == host ? "/" : xstrndup(host, slash - host)) : ".";
	const char *base = slash ? slash + 1 : host;
	struct stat st;
	const char *why = NULL;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		why = "it names no file";
	else if (stat(dir, &st))
		why = xformat("its folder %s: %s", dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		why = xformat("%s is not a folder", dir);
	else if (access(dir, W_OK | X_OK))
		why = xformat("its folder %s: %s", dir, strerror(errno));
	else if (!lstat(host, &st) && S_ISLNK(st.st_mode))
		why = "it is a symbolic link (hwtap does not follow one; name its target)";
	else if (!lstat(host, &st) && !S_ISREG(st.st_mode))
		why = "it is not a regular file";
	if (why) {
		fprintf(stderr, "hwtap: error: %s %s: %s; with --vm, the file is written in the "
			"guest and comes back to it when the run ends\n", option, host, why);
		diag_errors++;
		return NULL;
	}
	char *guest = host[0] == '/' ? xstrdup(host) : xformat("/root/%s", host);
	if (!lstat(host, &st))
		vec_push(files, xformat("%s:%s", host, guest));
	vec_push(back, xformat("%s:%s", guest, host));
	return guest;
}

static void print_log_tail(const char *log, int lines)
{
	const char *p = log + strlen(log);
	if (p > log && p[-1] == '\n')
		p--;
	while (p > log && lines > 0)
		if (*--p == '\n')
			lines--;
	if (*p == '\n')
		p++;
	fprintf(stderr, "hwtap: the guest kernel log's last lines:\n%s", p);
}

/* The files hwtap-run writes in the guest (--ras-db, --textfile, --pprof): their guest
 * paths in LF, what goes in first in FILES, what comes home in BACK (NULL-ended), and the
 * command that makes their folders in MKDIRS. False after saying why one cannot. */
static bool guest_files(Session *s, LoaderFiles *lf, Vec *files, Vec *back, StrBuf *mkdirs)
{
	const char **slots[] = { &lf->ras_db, &lf->textfile, &lf->pprof };
	const char *given[] = { s->ras_db, s->textfile, s->pprof };
	const char *names[] = { "--ras-db", "--textfile", "--pprof" };
	sb_putn(mkdirs, "", 0);
	for (int i = 0; i < 3; i++) {
		if (!given[i])
			continue;
		if (!(*slots[i] = guest_file(names[i], given[i], files, back)))
			return false;
		const char *g = *slots[i], *slash = strrchr(g, '/');
		sb_printf(mkdirs, "%s%s", mkdirs->len ? " " : "mkdir -p ",
			  shell_quote(slash == g ? "/" : xstrndup(g, slash - g)));
	}
	vec_push(back, NULL);
	return true;
}

bool run_preflight(Session *s)
{
	if (!session_runs_in_guest(s))
		return true;
	LoaderFiles lf = {0};
	Vec in = {0}, back = {0};
	StrBuf mk = {0};
	return guest_files(s, &lf, &in, &back, &mk);
}

static int run_in_guest(Session *s, const char *loader, const char *ko, const char *name,
			const char *params, FILE *out, const LoaderFiles *lf, Vec *in, Vec *back,
			const StrBuf *mk)
{
	Vec files = *in;
	vec_push(&files, xformat("%s:/root/hwtap-run", loader));
	vec_push(&files, xformat("%s:/root/%s.ko", ko, name));
	const char *inject = inject_path(s);
	if (inject)
		vec_push(&files, xformat("%s:/usr/bin/hwtap-inject", inject));
	for (int i = 0; i < s->vm_files.len; i++)
		vec_push(&files, s->vm_files.data[i]);
	vec_push(&files, NULL);
	Vec modprobe = s->vm_modprobe;
	vec_push(&modprobe, NULL);
	GuestOptions o = {
		.arch = s->target_arch,
		.icount = s->vm_icount,
		.kaslr = s->vm_kaslr,
		.cpu = s->vm_cpu,
		.pcie = s->vm_pcie,
		.ghes = s->vm_ghes,
		.append = s->vm_append,
		.release = s->kernel_release,
		.cpus = s->vm_cpus,
		.mem_mb = s->vm_mem,
		.modprobe = (const char **)modprobe.data,
		.files = (const char **)files.data,
		.script = xformat("%s%sexec /root/hwtap-run %s/root/%s.ko %s", mk->buf,
				  mk->len ? " && " : "", loader_options(s, lf), name, params),
		.files_back = back->len > 1 ? (const char **)back->data : NULL,
		.timeout_s = s->vm_timeout,
		.stop_timeout_s = s->vm_stop_timeout,
		.verbose = s->verbose,
	};
	GuestResult r;
	fflush(stdout);
	if (guest_run(&o, out, stderr, &r))
		return 1;
	int status = r.status < 0 ? 1 : r.status;
	if (r.files_lost && !status)
		status = 1;     /* guest_run() said which file did not come home */
	if (r.kernel_problem) {
		fprintf(stderr, "hwtap: the guest kernel reported a problem while %s ran; its "
			"log:\n%s", name, r.problem_log);
		status = status ? status : 1;
	} else if (r.status < 0 && s->verbose) {
		/* guest_run() said why there is no status; the log is for the curious */
		print_log_tail(r.problem_log, LOG_TAIL_LINES);
	}
	guest_result_free(&r);
	return status;
}

/* hwtap-run [-o FILE] MODULE.ko PARAMS here, as a child: its exit status. The stop
 * signals are hwtap-run's to handle (a terminal's Ctrl-C reaches both of us; one sent to
 * hwtap alone is passed on): hwtap waits for it to run the end probes and unload. */
static volatile sig_atomic_t child_pid;

static void pass_signal_on(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int run_here(const char *loader, const char *ko, Session *s, const char *params)
{
	fflush(stdout);
	static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = pass_signal_on }, saved[3];
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (int i = 0; i < 3; i++)
		sigaction(stop_signals[i], &sa, &saved[i]);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 3; i++)
			sigaction(stop_signals[i], &saved[i], NULL);
		LoaderFiles here = { s->textfile, s->pprof, s->ras_db };
		const char *opts = xformat("%s%s%s%s", s->output_file ? xformat("-o %s ",
					   shell_quote(s->output_file)) : "", s->file_limits ?
					   xformat("-S %s ", shell_quote(s->file_limits)) : "",
					   loader_options(s, &here), s->detach ? "-D " : "");
		execl("/bin/sh", "sh", "-c", xformat("exec %s %s %s%s", shell_quote(loader), opts,
						     shell_quote(ko), params), (char *)NULL);
		_exit(127);
	}
	child_pid = pid;
	int status;
	pid_t w;
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	child_pid = 0;
	for (int i = 0; i < 3; i++)
		sigaction(stop_signals[i], &saved[i], NULL);
	if (pid < 0 || w < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int run_module(Session *s, const char *ko, const char *name)
{
	const char *loader = loader_path(s);
	if (access(loader, X_OK)) {
		fprintf(stderr, "hwtap: error: the loader %s is missing; build or install "
			"hwtap-run%s\n", loader, s->target_arch && !guest_arch_is_host(s->target_arch)
			? " (its cross-built copy needs aarch64-linux-gnu-gcc and libelf-dev:arm64 "
			"when configure runs)" : "");
		return 1;
	}
	StrBuf params = {0};
	sb_putn(&params, "", 0);
	if (s->bufsize_mb)
		sb_printf(&params, " hwtap_bufsize_kb=%d", s->bufsize_mb * 1024);
	if (s->target_pid)
		sb_printf(&params, " hwtap_target=%ld", s->target_pid);
	if (s->verbose)
		sb_printf(&params, " hwtap_verbose=%d", s->verbose);
	if (!session_runs_in_guest(s))
		return run_here(loader, ko, s, params.buf);
	if (s->file_limits) {
		fprintf(stderr, "hwtap: error: -S rotates output files that hwtap-run writes, "
			"and in the QEMU guest hwtap itself writes -o FILE: run where this kernel "
			"takes modules, or hwtap-run -o FILE -S %s there\n", s->file_limits);
		return 1;
	}
	if (s->detach) {
		fprintf(stderr, "hwtap: error: -F leaves the session running after hwtap "
			"returns, and the QEMU guest does not outlive it: %s\n", s->vm ? "without "
			"--vm, on a kernel that takes modules" : "this kernel takes no modules; "
			"build with -p4 and run hwtap-run -D where one does");
		return 1;
	}
	/* what the guest's run writes, checked before anything is opened or booted */
	LoaderFiles lf = {0};
	Vec in = {0}, back = {0};
	StrBuf mk = {0};
	if (!guest_files(s, &lf, &in, &back, &mk))
		return 1;
	/* As hwtap-run opens it (hwtap-run(8), SECURITY): 0600, no link followed, no FIFO
	 * that nobody reads waited on. */
	FILE *out = stdout;
	if (s->output_file) {
		int fd = open(s->output_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
			      O_NOFOLLOW | O_NONBLOCK, 0600);
		if (fd >= 0)
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			fprintf(stderr, "hwtap: error: cannot write the output file '%s': %s\n",
				s->output_file, errno == ELOOP ? "it is a symbolic link (hwtap "
				"does not follow one; name its target)" : errno == ENXIO ?
				"it is a FIFO nobody reads" : strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
	}
	int status = run_in_guest(s, loader, ko, name, params.buf, out, &lf, &in, &back, &mk);
	if (out != stdout && fclose(out)) {
		fprintf(stderr, "hwtap: error: cannot write the output file '%s': %m\n",
			s->output_file);
		status = status ? status : 1;
	}
	return status;
}
