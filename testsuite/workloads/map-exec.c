/* map-exec.c - maps a file for execution, its pages read at once (MAP_POPULATE), then
 * exits: on a FUSE file whose reads are never answered, it stays inside mmap() after the
 * mapping exists (after perf_event_mmap(), which hwtap's user symbols follow) for as long
 * as the server wants, so it does not go back to user space.
 *   map-exec FILE
 * Built statically by runok.exp and copied into the guest as /root/map-exec. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd = argc == 2 ? open(argv[1], O_RDONLY) : -1;
	if (fd < 0) {
		perror("map-exec");
		return 1;
	}
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("map-exec: mmap");
		return 1;
	}
	printf("map-exec: mapped\n");
	return 0;
}
