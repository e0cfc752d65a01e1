/* bench/timeexec.c - runs a command N times, one after the other, and prints each run's
 * wall time in microseconds, a line each (bench/handoff.sh, built statically for the
 * guest).
 *   timeexec N PROGRAM [ARG ...] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: timeexec N PROGRAM [ARG ...]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		pid_t pid = fork();
		if (pid == 0) {
			execv(argv[2], argv + 2);
			perror(argv[2]);
			_exit(127);
		}
		int status;
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "timeexec: %s failed\n", argv[2]);
			return 1;
		}
		printf("%.0f\n", now_us() - t0);
	}
	return 0;
}
