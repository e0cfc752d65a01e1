/* perfgroup.c - the perf event groups of a module's counters (.group("NAME")).
 *
 * A kernel module cannot make a perf event group: perf_event_create_kernel_counter() takes
 * no group leader. So hwtap-run opens each group with perf_event_open() before the start,
 * as perf stat opens {a,b}: on every online CPU (or the one CPU the counters name), or on
 * each thread of the target process with inherit (perf stat -p), the group's first counter
 * the leader. Each event is opened disabled (the module enables it at the start) and
 * marked with attr.sig_data = a random cookie of the session + the counter's index in the
 * module's table, which is how the module knows a thread's inherited copy in place.
 * Each instance goes to the module as a ctl line, "perf_group LEADER FD,FD,..."; the module
 * takes the files, and the descriptors here are closed. A group that cannot be opened is
 * one line, "perf_group LEADER !ERRNO FAILED FIT" (protocol.h), and the module says why at
 * the start (or skips the group, if its counters are optional).
 *
 * What to open comes from the module's .modinfo: an entry a counter of a group,
 * hwtap_perf_member=LEADER INDEX TYPE CONFIG CONFIG1 CONFIG2 EXCLUDE PRECISE FLAGS CPU
 * TARGET (translator/codegen/translate_probes.c), and hwtap_perf_cgroup=INDEX PATH for a
 * counter of a cgroup (.cgroup("PATH"): a group of its own, or all of its group's): its
 * events are opened on every online CPU in that cgroup, as perf stat -G opens them
 * (PERF_FLAG_PID_CGROUP, the cgroup's directory in the cgroup v2 mount as the pid).
 */
#define _GNU_SOURCE
#include "loader.h"
#include "../runtime/protocol.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { GROUP_MAX = 32 };        /* counters in a group: runtime/probes/perf.c's bound */
enum { EXCL_USER = 1, EXCL_KERNEL = 2, EXCL_HV = 4, EXCL_IDLE = 8, EXCL_HOST = 16,
       EXCL_GUEST = 32 };       /* the translator's PERF_EXCL_* */
enum { FLAG_PINNED = 1, FLAG_EXCLUSIVE = 2 };

typedef struct Member {
	int leader, index;
	unsigned type;
	unsigned long long config, config1, config2;
	unsigned exclude, precise, flags;
	int cpu, target;
	const char *cgroup;     /* its cgroup's path, or NULL */
	int cgroup_fd;          /* that cgroup's directory, open while the group is */
} Member;

static int parse_member(const char *s, Member *m)
{
	int end = 0;
	if (sscanf(s, "%d %d %u %llx %llx %llx %u %u %u %d %d%n", &m->leader, &m->index,
		   &m->type, &m->config, &m->config1, &m->config2, &m->exclude, &m->precise,
		   &m->flags, &m->cpu, &m->target, &end) != 11 || s[end])
		return -1;
	m->cgroup = NULL;
	m->cgroup_fd = -1;
	return 0;
}

/* The cgroup v2 hierarchy's mount (its root, "/", mounted), from /proc/self/mountinfo,
 * open: a descriptor, or -1 with errno set (ENOENT: none is mounted). */
static int cgroup2_mount(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192];
	int fd = -1;
	if (!f)
		return -1;
	errno = ENOENT;
	while (fd < 0 && fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE SOURCE SUPER */
		char root[4096], point[4096], type[64];
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
		    sscanf(dash + 3, "%63s", type) != 1 || strcmp(type, "cgroup2") ||
		    strcmp(root, "/"))
			continue;
		/* the kernel writes ' ', '\t', '\n' and '\\' in a path as \ooo */
		char *w = point;
		for (const char *r = point; *r; w++)
			if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
			    r[3] >= '0' && r[3] <= '7') {
				*w = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
				r += 4;
			} else {
				*w = *r++;
			}
		*w = '\0';
		fd = open(point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	fclose(f);
	return fd;
}

/* The directory of cgroup PATH (from the hierarchy's root, as cgroup_path() gives it),
 * open: a descriptor, or -1 with errno set. Each step is a plain name: no "." or "..",
 * no symbolic link followed. */
static int cgroup_dir(const char *path)
{
	int fd = cgroup2_mount();
	char name[256];
	for (const char *p = path; fd >= 0 && *p;) {
		size_t len = strcspn(p, "/");
		if (!len) {
			p++;
			continue;
		}
		if (len >= sizeof(name) || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.')) {
			close(fd);
			errno = len >= sizeof(name) ? ENAMETOOLONG : EINVAL;
			return -1;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		errno = e;
		fd = next;
		p += len;
	}
	return fd;
}

/* The CPUs online now, from /sys/devices/system/cpu/online ("0-3,5"): how many, in CPUS
 * (room for MAX). */
static int online_cpus(int *cpus, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char line[4096];
	int n = 0;
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n")) {
		int lo, hi;
		if (sscanf(tok, "%d-%d", &lo, &hi) != 2)
			hi = lo = atoi(tok);
		for (int c = lo; c <= hi && n < max; c++)
			cpus[n++] = c;
	}
	return n;
}

/* The threads of a process, from its /proc/PID/task opened as TASKDIR: how many, in TIDS
 * (room for MAX). */
static int threads_of(int taskdir, int *tids, int max)
{
	int fd = dup(taskdir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	int n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (struct dirent *e; (e = readdir(d)) && n < max;)
		if (isdigit((unsigned char)e->d_name[0]))
			tids[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

/* A tid is a number, and perf_event_open() opens on whichever task has it then: a thread of
 * the target that exits after the listing can have its number taken by a thread of another
 * process, which root would count into the script's output. So each thread is pinned
 * first: its /proc/PID/task/TID, which exists only while TID is in PID's thread group, and
 * whose inode holds the thread's struct pid, not the number. After the open, a lookup in
 * the pinned directory still works only if that same thread is alive: it was the one
 * opened. The pin, or -1 (not a thread of the target now). */
static int thread_pin(int taskdir, int tid)
{
	char name[16];
	snprintf(name, sizeof(name), "%d", tid);
	return openat(taskdir, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static bool thread_still(int pin)
{
	return faccessat(pin, "stat", F_OK, 0) == 0;
}

static void close_all(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int open_event_as(const Member *m, bool lead, unsigned group_flags, uint64_t cookie,
			 int pid, int cpu, int group_fd, bool trial)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = m->type,
		.config = m->config,
		.config1 = m->config1,
		.config2 = m->config2,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
		.disabled = !trial,
		.inherit = m->target && !trial,
		/* a group's: on its leader */
		.pinned = lead && (trial || (group_flags & FLAG_PINNED)),
		.exclusive = lead && (group_flags & FLAG_EXCLUSIVE),
		.exclude_user = !!(m->exclude & EXCL_USER),
		.exclude_kernel = !!(m->exclude & EXCL_KERNEL),
		.exclude_hv = !!(m->exclude & EXCL_HV),
		.exclude_idle = !!(m->exclude & EXCL_IDLE),
		.exclude_host = !!(m->exclude & EXCL_HOST),
		.exclude_guest = !!(m->exclude & EXCL_GUEST),
		.precise_ip = m->precise,
		.sig_data = cookie + m->index,
	};
	/* in a cgroup: the trial on this thread only asks what the PMU takes */
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;
	if (m->cgroup_fd >= 0 && !trial) {
		pid = m->cgroup_fd;
		flags |= PERF_FLAG_PID_CGROUP;
	}
	return syscall(SYS_perf_event_open, &a, pid, cpu, group_fd, flags);
}

static int open_event(const Member *m, bool lead, unsigned group_flags, uint64_t cookie,
		      int pid, int cpu, int group_fd)
{
	return open_event_as(m, lead, group_flags, cookie, pid, cpu, group_fd, false);
}

/* Whether the PMU takes M[0..K) on it at once: the group opened on this thread, pinned and
 * enabled, is on the PMU now or in error for good (read() then returns nothing). Not every
 * PMU driver knows its counter count when a group is opened (arm64's accepts groups larger
 * than its counters, which then never count); this asks the PMU itself, with what other
 * pinned events (the NMI watchdog's) leave free. */
static bool pmu_takes(const Member *m, int k)
{
	int fds[GROUP_MAX], j;
	bool on = false;
	for (j = 0; j < k; j++) {
		fds[j] = open_event_as(&m[j], j == 0, 0, 0, 0, -1, j ? fds[0] : -1, true);
		if (fds[j] < 0)
			break;
	}
	if (j == k) {
		uint64_t value[3];
		on = read(fds[0], value, sizeof(value)) == sizeof(value);
	}
	close_all(fds, j);
	return on;
}

/* Sends LINE to the module's ctl: 0, or -1 with a message in *WHY. */
static int send_line(int ctl_fd, const char *line, const char *module, char **why)
{
	ssize_t len = strlen(line);
	if (write(ctl_fd, line, len) == len)
		return 0;
	if (asprintf(why, "module %s refused its perf group (%.*s): %s", module, (int)len - 1,
		     line, strerror(errno)) < 0)
		*why = NULL;
	return -1;
}

/* The group of members M[0..K) on each instance (a CPU, or a thread of TARGET), each sent
 * as it is opened (the descriptors closed then: a process of many threads needs no more
 * than K at once): 0, or -1 with a message in *WHY (the module refused a line). */
static int open_group(Member *m, int k, int ctl_fd, const char *module, pid_t target,
		      uint64_t cookie, char **why)
{
	enum { INSTANCES_MAX = 65536 };
	static int where[INSTANCES_MAX];
	unsigned flags = 0;
	int n, fds[GROUP_MAX], opened = 0, err = 0, failed = 0, fit = 0, taskdir = -1;
	char line[HWTAP_CTL_LINE_MAX];
	for (int j = 0; j < k; j++)
		flags |= m[j].flags;
	if (m[0].target && target <= 0)
		return 0;       /* the module says it needs -c or -x */
	int cgfd = m[0].cgroup ? cgroup_dir(m[0].cgroup) : -1;
	for (int j = 0; j < k; j++)
		m[j].cgroup_fd = cgfd;
	if (m[0].cgroup && cgfd < 0) {
		n = -1;
	} else if (m[0].target) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", (int)target);
		taskdir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		n = taskdir >= 0 ? threads_of(taskdir, where, INSTANCES_MAX) : -1;
	}
	else if (m[0].cpu >= 0)
		n = (where[0] = m[0].cpu, 1);
	else
		n = online_cpus(where, INSTANCES_MAX);
	if (n < 0) {
		err = errno;
		failed = m[0].index;
	} else if (k > 1 && !pmu_takes(m, k)) {
		/* the most of it the PMU takes at once (a trial that cannot open at all says
		 * nothing: the real open then says why) */
		int j = k - 1;
		while (j > 0 && !pmu_takes(m, j))
			j--;
		if (j > 0) {
			err = E2BIG;
			failed = m[j].index;
			fit = j;
		}
	}
	for (int i = 0; i < n && !err; i++) {
		int pid = m[0].target ? where[i] : -1, cpu = m[0].target ? -1 : where[i];
		int j, pin = -1;
		if (m[0].target && (pin = thread_pin(taskdir, pid)) < 0)
			continue;       /* exited since the listing (its number may be another's) */
		for (j = 0; j < k; j++) {
			fds[j] = open_event(&m[j], j == 0, flags, cookie, pid, cpu,
					    j ? fds[0] : -1);
			if (fds[j] < 0)
				break;
		}
		bool gone = j == k && pin >= 0 && !thread_still(pin);
		if (pin >= 0)
			close(pin);
		if (gone) {
			close_all(fds, k);      /* the tid was another task's by the open */
			continue;
		}
		if (j == k) {
			int len = snprintf(line, sizeof(line), HWTAP_CTL_PERF_GROUP " %d",
					   m[0].leader);
			for (j = 0; j < k; j++)
				len += snprintf(line + len, sizeof(line) - len, "%c%d",
						j ? ',' : ' ', fds[j]);
			snprintf(line + len, sizeof(line) - len, "\n");
			int rc = send_line(ctl_fd, line, module, why);
			close_all(fds, k);      /* the module holds what it took */
			if (rc) {
				if (taskdir >= 0)
					close(taskdir);
				if (cgfd >= 0)
					close(cgfd);
				return rc;
			}
			opened++;
			continue;
		}
		int e = errno;
		close_all(fds, j);
		if (m[0].target && e == ESRCH)
			continue;       /* a thread that exited since we looked */
		err = e;
		failed = m[j].index;
		/* the PMU took the first j together: does it take this one alone? Then the
		 * group is too large for it */
		if (e == EINVAL && j > 0) {
			int alone = open_event(&m[j], true, 0, cookie, pid, cpu, -1);
			if (alone >= 0) {
				fit = j;
				close(alone);
			}
		}
	}
	if (taskdir >= 0)
		close(taskdir);
	if (cgfd >= 0)
		close(cgfd);
	if (!err && !opened) {
		err = ESRCH;    /* every thread exited */
		failed = m[0].index;
	}
	if (!err)
		return 0;
	snprintf(line, sizeof(line), HWTAP_CTL_PERF_GROUP " %d !%d %d %d\n", m[0].leader, err,
		 failed, fit);
	return send_line(ctl_fd, line, module, why);
}

static int by_index(const void *a, const void *b)
{
	return ((const Member *)a)->index - ((const Member *)b)->index;
}

int perfgroups_open(const ModInfo *mi, int ctl_fd, pid_t target, char **why)
{
	Member *m = loader_realloc(NULL, mi->nmembers * sizeof(*m));
	uint64_t cookie;
	int rc = 0;
	*why = NULL;
	for (size_t i = 0; i < mi->nmembers; i++)
		if (parse_member(mi->members[i], &m[i])) {
			if (asprintf(why, "module %s: a malformed perf group entry '%s'", mi->name,
				     mi->members[i]) < 0)
				*why = NULL;
			free(m);
			return -1;
		}
	for (size_t c = 0; c < mi->ncgroups; c++) {
		int index, at = 0;
		const char *e = mi->cgroups[c];
		if (sscanf(e, "%d %n", &index, &at) != 1 || !at || !e[at]) {
			if (asprintf(why, "module %s: a malformed perf cgroup entry '%s'", mi->name,
				     e) < 0)
				*why = NULL;
			free(m);
			return -1;
		}
		for (size_t i = 0; i < mi->nmembers; i++)
			if (m[i].index == index)
				m[i].cgroup = e + at;
	}
	/* random, its top bit set: never 0, and the counters' indexes stay below it */
	if (getrandom(&cookie, sizeof(cookie), 0) != sizeof(cookie))
		cookie = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	cookie = (cookie | 1ULL << 63) & ~0xffffULL;
	/* in the module's table order (the linker may reverse .modinfo's): a group's leader
	 * first */
	qsort(m, mi->nmembers, sizeof(*m), by_index);
	for (size_t i = 0; i < mi->nmembers && !rc; i++) {
		if (m[i].index != m[i].leader)
			continue;
		Member group[GROUP_MAX];
		int k = 0;
		for (size_t j = i; j < mi->nmembers && k < GROUP_MAX; j++)
			if (m[j].leader == m[i].leader)
				group[k++] = m[j];
		rc = open_group(group, k, ctl_fd, mi->name, target, cookie, why);
	}
	free(m);
	return rc;
}
