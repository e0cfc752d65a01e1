/* bench/mcelat.c - the latency of a ras handler's output, seen from user space: reads a
 * probe module's output on stdin (hwtap-run's or staprun's, through a pipe), waits for its
 * first line ("ready"), then N times injects a corrected machine check through mce-inject
 * (the software path, each with an address of its own: the kernel drops a repeat) and
 * times the injecting write to the arrival of the handler's line, which holds the
 * monotonic clock's reading (ktime_get_ns()) when the handler ran. Prints "latency NS
 * HANDLER_NS" for each on stderr (the whole time, and that up to the handler), and
 * drains stdin to its end.
 *   hwtap-run h.ko | mcelat N
 * Built statically by bench/ras-latency.sh for the guest. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define D "/sys/kernel/debug/mce-inject/"

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void put(const char *file, const char *value)
{
	int fd = open(file, O_WRONLY);
	if (fd < 0 || write(fd, value, strlen(value)) < 0) {
		perror(file);
		exit(1);
	}
	close(fd);
}

static char line[256];

/* One line from fd 0 into line[] within 10 s: 0, or -1. */
static int read_line(void)
{
	size_t n = 0;
	char c;
	struct pollfd p = { .fd = 0, .events = POLLIN };
	for (;;) {
		if (poll(&p, 1, 10000) != 1)
			return -1;
		if (read(0, &c, 1) != 1)
			return -1;
		if (c == '\n') {
			line[n] = '\0';
			return 0;
		}
		if (n < sizeof(line) - 1)
			line[n++] = c;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	char addr[32];
	if (read_line()) {
		fputs("mcelat: no first line\n", stderr);
		return 1;
	}
	put(D "flags", "sw\n");
	put(D "cpu", "1\n");
	put(D "status", "0x9c00000000010151\n");
	for (int i = 1; i <= n; i++) {
		snprintf(addr, sizeof(addr), "%#x\n", i << 12);
		put(D "addr", addr);
		usleep(100000);
		long long t0 = now_ns();
		put(D "bank", "4\n");
		if (read_line()) {
			fprintf(stderr, "mcelat: no line for injection %d\n", i);
			return 1;
		}
		long long t1 = now_ns();
		fprintf(stderr, "latency %lld %lld\n", t1 - t0, atoll(line) - t0);
	}
	char buf[4096];
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
