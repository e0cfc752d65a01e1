/* stallfs.c - a FUSE file system whose one file is never read: it answers what a lookup
 * and stat of MOUNT/f need (INIT, LOOKUP, GETATTR, STATFS) and never answers READ, nor
 * OPEN unless asked to, as a user's FUSE server may do to whoever reads its files. For
 * usyms.exp (built for the host as testsuite/lib/stallfs) and runok's records (/root/
 * stallfs in the guest).
 *
 *   stallfs MOUNT [open]   mounts (allow_other, as /etc/fuse.conf's user_allow_other lets
 *                          a user) and serves until killed (then `umount -l MOUNT`);
 *                          with "open" it answers OPEN, so that the file opens and its
 *                          first read waits.
 *
 * Speaks /dev/fuse itself (linux/fuse.h): no libfuse. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static int dev;
static int opens;	/* OPEN answered */

static void reply(const struct fuse_in_header *in, int error, const void *body, size_t len)
{
	char out[sizeof(struct fuse_out_header) + 512];
	struct fuse_out_header h = { .len = sizeof(h) + len, .error = error,
				     .unique = in->unique };
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), body, len);
	if (write(dev, out, h.len) < 0 && errno != ENOENT)
		perror("stallfs: reply");
}

/* the root (node 1) a folder, node 2 ("f") an executable file of one page */
static void fill(struct fuse_attr *a, uint64_t node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->mode = node == 1 ? 040755 : 0100755;
	a->nlink = 1;
	a->size = node == 1 ? 0 : 4096;
	a->blksize = 4096;
}

static void serve(const struct fuse_in_header *in, const void *arg)
{
	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in *init = arg;
		struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION, .max_write = 4096,
					   .max_readahead = init->max_readahead };
		o.minor = init->minor < FUSE_KERNEL_MINOR_VERSION ? init->minor :
								  FUSE_KERNEL_MINOR_VERSION;
		reply(in, 0, &o, sizeof(o));
		break;
	}
	case FUSE_LOOKUP: {
		if (in->nodeid != 1 || strcmp(arg, "f")) {
			reply(in, -ENOENT, NULL, 0);
			break;
		}
		struct fuse_entry_out e = { .nodeid = 2, .generation = 1, .entry_valid = 3600,
					    .attr_valid = 3600 };
		fill(&e.attr, 2);
		reply(in, 0, &e, sizeof(e));
		break;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out a = { .attr_valid = 3600 };
		fill(&a.attr, in->nodeid);
		reply(in, 0, &a, sizeof(a));
		break;
	}
	case FUSE_STATFS: {
		struct fuse_statfs_out s = { .st = { .bsize = 4096, .namelen = 255 } };
		reply(in, 0, &s, sizeof(s));
		break;
	}
	case FUSE_OPEN:
		if (opens) {
			struct fuse_open_out o = { .fh = 1 };
			reply(in, 0, &o, sizeof(o));
		}
		break;
	case FUSE_READ:                         /* never answered */
	case FUSE_FORGET: case FUSE_BATCH_FORGET: case FUSE_INTERRUPT:
		break;
	default:
		reply(in, -ENOSYS, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "open"))) {
		fprintf(stderr, "usage: stallfs MOUNT [open]\n");
		return 2;
	}
	opens = argc == 3;
	dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		perror("stallfs: /dev/fuse");
		return 1;
	}
	char opts[128];
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", dev);
	if (mount("stallfs", argv[1], "fuse.stallfs", MS_NOSUID | MS_NODEV, opts)) {
		perror("stallfs: mount");
		return 1;
	}
	static char buf[FUSE_MIN_READ_BUFFER + (1 << 20)];
	for (;;) {
		ssize_t n = read(dev, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			return n < 0 && errno != ENODEV;        /* ENODEV: unmounted */
		serve((const struct fuse_in_header *)buf, buf + sizeof(struct fuse_in_header));
	}
}
