/* run.c - pass 5: load the module and relay its output, here or in the QEMU guest.
 *
 * Where the running kernel cannot take modules (no /proc/modules: this build machine) or
 * --vm asks for it, the module runs in a throwaway guest booting the target kernel;
 * otherwise hwtap-run loads it here. Either way hwtap-run does the loading, relaying and
 * unloading, and its exit status is hwtap's.
 */
#include "hwtap.h"
#include "guest.h"

#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef HWTAP_BUILDDIR
#define HWTAP_BUILDDIR "."
#endif
#ifndef HWTAP_LIBEXECDIR
#define HWTAP_LIBEXECDIR "/usr/local/libexec/hwtap"
#endif

/* hwtap-run beside this build when hwtap runs from its build tree, else installed. */
static const char *loader_path(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *built = xformat("%s/loader/hwtap-run", HWTAP_BUILDDIR);
		if (!strncmp(exe, HWTAP_BUILDDIR "/", strlen(HWTAP_BUILDDIR) + 1) &&
		    !access(built, X_OK))
			return built;
	}
	return HWTAP_LIBEXECDIR "/hwtap-run";
}

static bool kernel_takes_modules(void)
{
	return !access("/proc/modules", F_OK) && geteuid() == 0;
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

static int run_in_guest(Session *s, const char *loader, const char *ko, const char *name,
			const char *params, FILE *out)
{
	Vec files = {0};
	vec_push(&files, xformat("%s:/root/hwtap-run", loader));
	vec_push(&files, xformat("%s:/root/%s.ko", ko, name));
	for (int i = 0; i < s->vm_files.len; i++)
		vec_push(&files, s->vm_files.data[i]);
	vec_push(&files, NULL);
	Vec modprobe = s->vm_modprobe;
	vec_push(&modprobe, NULL);
	GuestOptions o = {
		.release = s->kernel_release,
		.cpus = s->vm_cpus,
		.mem_mb = s->vm_mem,
		.modprobe = (const char **)modprobe.data,
		.files = (const char **)files.data,
		.script = xformat("/root/hwtap-run %s/root/%s.ko %s", s->command ?
				  xformat("-c %s ", shell_quote(s->command)) : "", name, params),
		.timeout_s = s->vm_timeout,
		.verbose = s->verbose,
	};
	GuestResult r;
	fflush(stdout);
	if (guest_run(&o, out, stderr, &r))
		return 1;
	int status = r.status < 0 ? 1 : r.status;
	if (r.kernel_problem || r.status < 0) {
		fprintf(stderr, "hwtap: the guest kernel reported a problem while %s ran; its "
			"log:\n%s", name, r.problem_log ? r.problem_log : "");
		status = status ? status : 1;
	}
	guest_result_free(&r);
	return status;
}

/* hwtap-run [-o FILE] MODULE.ko PARAMS here, as a child: its exit status */
static int run_here(const char *loader, const char *ko, const char *output,
		    const char *command, const char *params)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		const char *opts = xformat("%s%s", output ? xformat("-o %s ", shell_quote(output))
					   : "", command ? xformat("-c %s ", shell_quote(command)) : "");
		execl("/bin/sh", "sh", "-c", xformat("exec %s %s %s%s", shell_quote(loader), opts,
						     shell_quote(ko), params), (char *)NULL);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int run_module(Session *s, const char *ko, const char *name)
{
	const char *loader = loader_path();
	if (access(loader, X_OK)) {
		fprintf(stderr, "hwtap: error: the loader %s is missing; build or install "
			"hwtap-run\n", loader);
		return 1;
	}
	StrBuf params = {0};
	sb_putn(&params, "", 0);
	if (s->bufsize_mb)
		sb_printf(&params, " hwtap_bufsize_kb=%d", s->bufsize_mb * 1024);
	if (s->target_pid)
		sb_printf(&params, " hwtap_target=%ld", s->target_pid);
	bool guest = s->vm || !kernel_takes_modules();
	if (!guest)
		return run_here(loader, ko, s->output_file, s->command, params.buf);
	FILE *out = stdout;
	if (s->output_file && !(out = fopen(s->output_file, "w"))) {
		fprintf(stderr, "hwtap: error: cannot write the output file '%s': %m\n",
			s->output_file);
		return 1;
	}
	int status = run_in_guest(s, loader, ko, name, params.buf, out);
	if (out != stdout && fclose(out)) {
		fprintf(stderr, "hwtap: error: cannot write the output file '%s': %m\n",
			s->output_file);
		status = status ? status : 1;
	}
	return status;
}
