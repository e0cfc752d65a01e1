/* requests.c - what a script asks hwtap-run to do besides printing, each a record of its
 * own stream (runtime/protocol.h), done as the relay reads it, never waited for there:
 * system() and trigger() commands (stream 3), ras_offline_page() and ras_offline_cpu()
 * actions, and the RAS history rows --ras-db keeps (rasdb.c).
 */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the script's commands: system(), trigger() ------------------------------------------- */

/* The environment of the script's commands, stated, not hwtap-run's (which may hold
 * LD_PRELOAD, NOTIFY_SOCKET, the attaching administrator's settings): PATH, HOME=/ (as
 * systemd gives a system service), LANG, HWTAP_SESSION and, for trigger(), HWTAP_EVENT. */
static char **command_env(const Run *r, const char *event)
{
	static char *env[8];
	static char *fixed[4];
	if (!fixed[0]) {
		fixed[0] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
		fixed[1] = "HOME=/";
		fixed[2] = "LANG=C.UTF-8";
		fixed[3] = run_format("HWTAP_SESSION=%s", r->mi.name);
	}
	int n = 0;
	for (int i = 0; i < 4; i++)
		env[n++] = fixed[i];
	if (*event)
		env[n++] = run_format("HWTAP_EVENT=%s", event);
	env[n] = NULL;
	return env;
}

/* Starts COMMAND with EVENT as HWTAP_EVENT, unless -j are running: then it is refused. */
static void start_script_command(Run *r, const char *command, const char *event)
{
	int slot = -1;
	for (int i = 0; i < r->max_commands && slot < 0; i++)
		if (!r->commands[i])
			slot = i;
	if (slot < 0) {
		r->refused++;
		run_note(r, "command refused (%d running): %s", r->running, command);
		return;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		r->refused++;
		run_error("cannot run the script's command '%s': %s", command, strerror(errno));
		return;
	}
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int sig = 1; sig < NSIG; sig++)    /* whatever hwtap-run was started with */
			signal(sig, SIG_DFL);
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0 && null != 0) {
			dup2(null, 0);
			close(null);
		}
		execle("/bin/sh", "sh", "-c", command, (char *)NULL, command_env(r, event));
		_exit(127);
	}
	r->commands[slot] = pid;
	r->running++;
	r->started++;
	run_note(r, "command started (%d running): %s", r->running, command);
}

/* Reaps the commands that ended; with WAIT, waits for them all, HWTAP_COMMAND_WAIT s at
 * most. */
void reap_script_commands(Run *r, bool wait)
{
	double until = run_now() + HWTAP_COMMAND_WAIT;
	for (;;) {
		for (int i = 0; i < r->max_commands; i++)
			if (r->commands[i] && waitpid(r->commands[i], NULL, WNOHANG) == r->commands[i]) {
				r->commands[i] = 0;
				r->running--;
			}
		if (!wait || !r->running)
			return;
		if (run_now() >= until) {
			fprintf(stderr, "hwtap-run: warning: %d command%s of the script still "
				"running after %d s; not waiting for them\n", r->running,
				r->running == 1 ? "" : "s", HWTAP_COMMAND_WAIT);
			return;
		}
		usleep(10000);
	}
}

/* A stream-3 record: "COMMAND\0EVENT". */
void script_command(Run *r, const unsigned char *data, size_t len)
{
	char *command = strndup((const char *)data, len);
	size_t nc = strlen(command);
	char *event = strndup(nc < len ? (const char *)data + nc + 1 : "",
			      nc < len ? len - nc - 1 : 0);
	if (!command || !event) {
		run_error("out of memory");
		exit(1);
	}
	start_script_command(r, command, event);
	free(command);
	free(event);
}

/* ---- the script's actions: ras_offline_page(), ras_offline_cpu() ------------------------ */

/* VALUE into the kernel's FILE: 0, or errno. */
static int write_kernel_file(const char *file, const char *value)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t n = write(fd, value, strlen(value));
	int e = n < 0 ? errno : (size_t)n != strlen(value) ? EIO : 0;
	if (close(fd) && !e)
		e = errno;
	return e;
}

/* One action record: "offline-page soft|hard ADDR" or "offline-cpu N", made by the
 * tapset from numbers; anything else is refused as malformed. Done here, at once (a sysfs
 * write), and said on stderr with the kernel's answer, as rasdaemon logs its own. */
void script_action(Run *r, const unsigned char *data, size_t len)
{
	char text[96], how[8];
	unsigned long long addr;
	unsigned cpu;
	char end;
	if (len >= sizeof(text)) {
		run_error("module %s: an action of %zu bytes refused", r->mi.name, len);
		return;
	}
	memcpy(text, data, len);
	text[len] = '\0';
	if (sscanf(text, "offline-page %7s %llx%c", how, &addr, &end) == 2 &&
	    (!strcmp(how, "soft") || !strcmp(how, "hard"))) {
		char file[64], value[32];
		snprintf(file, sizeof(file), "/sys/devices/system/memory/%s_offline_page", how);
		snprintf(value, sizeof(value), "%#llx", addr);
		int e = write_kernel_file(file, value);
		if (e == ENOENT)
			fprintf(stderr, "hwtap-run: warning: page %#llx: cannot %s-offline it: the "
				"kernel has no %s (it needs CONFIG_MEMORY_HOTPLUG and "
				"CONFIG_MEMORY_FAILURE)\n", addr, how, file);
		else if (e)
			fprintf(stderr, "hwtap-run: warning: page %#llx: cannot %s-offline it: %s\n",
				addr, how, strerror(e));
		else
			fprintf(stderr, "hwtap-run: page %#llx %s-offlined\n", addr, how);
	} else if (sscanf(text, "offline-cpu %u%c", &cpu, &end) == 1) {
		char file[64];
		snprintf(file, sizeof(file), "/sys/devices/system/cpu/cpu%u/online", cpu);
		int e = write_kernel_file(file, "0");
		if (e)
			fprintf(stderr, "hwtap-run: warning: CPU %u: cannot take it offline: %s\n", cpu,
				e == ENOENT ? "the kernel keeps it (no online file)" :
				strerror(e));
		else
			fprintf(stderr, "hwtap-run: CPU %u taken offline\n", cpu);
	} else {
		run_error("module %s: a malformed action refused", r->mi.name);
	}
}

/* One history record (tapset ras-history.stp) into --ras-db's database (rasdb.c). The
 * first one that cannot go there is said with why, all are counted, and the run fails:
 * an error history lost is a failure (exit status 1). */
void history_add(Run *r, const unsigned char *data, size_t len)
{
	char *why = NULL;
	if (!r->ras_db) {
		if (!r->history_warned)
			fprintf(stderr, "hwtap-run: warning: the script records RAS events; "
				"--ras-db FILE would keep them (dropped)\n");
		r->history_warned = true;
		return;
	}
	if (rasdb_record(data, len, &why)) {
		if (!r->history_refused++)
			run_error("module %s: %s", r->mi.name, why);
		free(why);
		r->failed = true;
	}
}

/* The history rows of one read() made durable together. */
void history_commit(Run *r)
{
	char *why = NULL;
	if (r->ras_db && rasdb_commit(&why)) {
		run_error("%s", why);
		free(why);
		r->failed = true;
	}
}
