/* epoll-hold.c - watches FILE... with one epoll instance and holds the watches until
 * SIGUSR1, then closes the epoll instance and the files and says "closed": persist.exp
 * unloads a module whose /proc files it watches meanwhile (the watches must not outlive
 * the module's wait queues).
 *
 *   epoll-hold FILE...        prints "watching N" once every watch is in place */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	sigset_t usr1;
	int sig, ep = epoll_create1(0), fds[16], n = 0;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	for (int i = 1; i < argc && n < 16; i++) {
		struct epoll_event ev = {.events = EPOLLIN};
		int fd = open(argv[i], O_RDWR);
		if (fd < 0)
			fd = open(argv[i], O_RDONLY);
		if (fd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
			perror(argv[i]);
			return 1;
		}
		fds[n++] = fd;
	}
	printf("watching %d\n", n);
	fflush(stdout);
	sigwait(&usr1, &sig);
	close(ep);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	puts("closed");
	return 0;
}
