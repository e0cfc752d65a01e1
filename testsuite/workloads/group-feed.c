/* group-feed.c - hands a loaded, not yet started module "perf_group" lines on its ctl, as
 * hwtap-run does, but with the events each line names, so that persist.exp can show what
 * the module refuses:
 *
 *   group-feed MODULE LEADER LINE...
 *
 * LINE is WHERE:EVENT,EVENT... with WHERE a CPU number, or tPID (the thread PID), and
 * EVENT TYPE/CONFIG[/EXCLUDE], EXCLUDE letters of u k h i H g (exclude_user, _kernel,
 * _hv, _idle, _host, _guest). The events of a line are one group, led by its first, each
 * marked attr.sig_data = 1000 + LEADER + its place, disabled, inherited on a thread. For
 * each line it prints the write's answer: "ok" or the error's name (EINVAL ...). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case EBUSY: return "EBUSY";
	case ENOMEM: return "ENOMEM";
	}
	return strerror(e);
}

static int open_event(char *spec, int leader, int place, int pid, int cpu, int group_fd)
{
	struct perf_event_attr a = {.size = sizeof(a), .disabled = 1};
	char *excl = "";
	char *type = strtok_r(spec, "/", &spec), *config = strtok_r(NULL, "/", &spec);
	if (!type || !config) {
		fprintf(stderr, "group-feed: bad event '%s'\n", type ? type : "");
		exit(2);
	}
	if (spec && *spec)
		excl = spec;
	a.type = strtoul(type, NULL, 0);
	a.config = strtoull(config, NULL, 0);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.inherit = pid > 0;
	a.exclude_user = !!strchr(excl, 'u');
	a.exclude_kernel = !!strchr(excl, 'k');
	a.exclude_hv = !!strchr(excl, 'h');
	a.exclude_idle = !!strchr(excl, 'i');
	a.exclude_host = !!strchr(excl, 'H');
	a.exclude_guest = !!strchr(excl, 'g');
	a.sig_data = 1000 + leader + place;
	int fd = syscall(SYS_perf_event_open, &a, pid > 0 ? pid : -1, cpu, group_fd, 0);
	if (fd < 0) {
		fprintf(stderr, "group-feed: perf_event_open: %s\n", strerror(errno));
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fputs("usage: group-feed MODULE LEADER WHERE:EVENT,EVENT... ...\n", stderr);
		return 2;
	}
	char path[256];
	snprintf(path, sizeof(path), "/proc/hwtap_%s/ctl", argv[1]);
	int ctl = open(path, O_WRONLY);
	if (ctl < 0) {
		fprintf(stderr, "group-feed: %s: %s\n", path, strerror(errno));
		return 2;
	}
	int leader = atoi(argv[2]);
	for (int l = 3; l < argc; l++) {
		char *rest = argv[l], *where = strtok_r(rest, ":", &rest), *ev;
		int pid = -1, cpu = -1, group_fd = -1, place = 0;
		if (where[0] == 't')
			pid = atoi(where + 1);
		else
			cpu = atoi(where);
		char line[512];
		int n = snprintf(line, sizeof(line), "perf_group %d ", leader);
		while ((ev = strtok_r(NULL, ",", &rest))) {
			int fd = open_event(ev, leader, place++, pid, cpu, group_fd);
			if (group_fd < 0)
				group_fd = fd;
			n += snprintf(line + n, sizeof(line) - n, "%s%d", place > 1 ? "," : "", fd);
		}
		printf("%s\n", write(ctl, line, n) == n ? "ok" : errname(errno));
	}
	return 0;
}
