/* perfgroup-drive.c - opens a perf group on each thread of this process with hwtap-run's own
 * code (loader/perfgroup.c), a pipe in place of the module's ctl file, and a thread's number
 * taken by another process in the window between the listing and the open, for
 * perfgroup.exp.
 *
 *   perfgroup-drive
 *
 * This process has two threads: main and a second one, the victim. The build wraps
 * syscall() (-Wl,--wrap=syscall): at the perf_event_open() of the victim's tid, the wrapper
 * ends the victim and forks a child until the child gets the victim's number
 * (/proc/sys/kernel/ns_last_pid), then lets the open go on, which opens on the child: a
 * thread of another process. Prints "reused: yes" (or "no": the number could not be taken
 * in 5000 forks), each ctl line sent with its descriptors as FD (the module would take
 * one line per thread counted), then "lines: N". Root only.
 */
#define _GNU_SOURCE
#include "loader.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

long __real_syscall(long nr, ...);

static volatile pid_t victim;
static int release[2];
static pthread_t victim_thread;
static pid_t taker = -1;
static int tried;

/* loader.h's, which modinfo.c defines beside what needs the rest of hwtap-run */
void *loader_realloc(void *p, size_t size)
{
	void *q = realloc(p, size);
	if (!q && size) {
		fprintf(stderr, "perfgroup-drive: out of memory\n");
		exit(2);
	}
	return q;
}

static void *victim_main(void *arg)
{
	char c;
	(void)arg;
	victim = (pid_t)syscall(SYS_gettid);
	if (read(release[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/* Ends the victim and has a child of this process take its number. */
static void take_victims_number(void)
{
	pid_t want = victim;
	if (write(release[1], "x", 1) != 1)
		return;
	pthread_join(victim_thread, NULL);
	for (int i = 0; i < 5000; i++) {
		int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
		char num[16];
		int len = snprintf(num, sizeof(num), "%d", (int)want - 1);
		if (fd < 0 || write(fd, num, len) != len) {
			if (fd >= 0)
				close(fd);
			return;
		}
		close(fd);
		pid_t child = fork();
		if (child == 0) {
			pause();
			_exit(0);
		}
		if (child == want) {
			taker = child;
			return;
		}
		if (child > 0) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
		}
		usleep(200);    /* the victim's number is freed once its exit is done */
	}
}

long __wrap_syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open && (int)a[1] == victim && !tried) {
		tried = 1;
		take_victims_number();
	}
	return __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int main(void)
{
	/* one software counter (cpu-clock), the group's leader, on each thread of the
	 * target: LEADER INDEX TYPE CONFIG CONFIG1 CONFIG2 EXCLUDE PRECISE FLAGS CPU TARGET */
	char *members[] = { "0 0 1 0 0 0 0 0 0 -1 1" };
	ModInfo mi = { .name = "drive", .members = members, .nmembers = 1 };
	int ctl[2], lines = 0;
	char *why = NULL, buf[65536];
	if (pipe(release) || pipe2(ctl, O_CLOEXEC) ||
	    pthread_create(&victim_thread, NULL, victim_main, NULL)) {
		perror("perfgroup-drive");
		return 2;
	}
	while (!victim)
		usleep(1000);
	if (perfgroups_open(&mi, ctl[1], getpid(), &why)) {
		printf("perfgroups_open: %s\n", why ? why : "(no message)");
		return 1;
	}
	close(ctl[1]);
	/* every line is in the pipe now; the child that took the number holds a copy of its
	 * write end, so the read ends at "nothing more", not at end of file */
	fcntl(ctl[0], F_SETFL, O_NONBLOCK);
	printf("reused: %s\n", taker > 0 ? "yes" : "no");
	ssize_t n, len = 0;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(ctl[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		/* the descriptors' numbers vary: "perf_group LEADER FD,..." */
		char *last = strrchr(line, ' ');
		if (last && last != strchr(line, ' ') && strspn(last + 1, "0123456789,") ==
		    strlen(last + 1))
			printf("%.*s FD\n", (int)(last - line), line);
		else
			printf("%s\n", line);
		lines++;
	}
	printf("lines: %d\n", lines);
	if (taker > 0) {
		kill(taker, SIGKILL);
		waitpid(taker, NULL, 0);
	}
	return 0;
}
