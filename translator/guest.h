/* guest.h - run a shell script in a throwaway QEMU guest that boots a stock kernel.
 *
 * The build machine's kernel cannot load modules, so everything hwtap builds runs in a
 * guest: guest_run() boots /boot/vmlinuz-RELEASE under TCG (as the uncompressed vmlinux
 * through PVH, extracted once and cached), with an initramfs it writes itself (busybox,
 * an /init, the requested kernel modules and files). /init loads the modules, runs the
 * script with busybox sh and powers off. The script's stdout and stderr come back over
 * virtio-serial, byte for byte; the kernel's console (ttyS0) is kept as the kernel log and
 * scanned for oopses, warnings, panics and lockups.
 *
 * Self-contained: needs only libc, qemu-system-x86_64, busybox-static, xz (or zstd/gzip for
 * kernels compressed with them) and the kernel's /boot and /lib/modules files.
 */
#ifndef HWTAP_GUEST_H
#define HWTAP_GUEST_H

#include <stdbool.h>
#include <stdio.h>

typedef struct GuestOptions {
	const char *release;    /* kernel release under /lib/modules; NULL: the newest with
				 * /boot/vmlinuz-RELEASE and a build tree */
	int cpus;               /* 0: 2 */
	int mem_mb;             /* 0: 512 */
	const char **modprobe;  /* NULL-terminated guest modules to load first, with their
				 * dependencies from modules.dep ("mce-inject" or "mce_inject") */
	const char **files;     /* NULL-terminated "SRC[:DST]" host files to copy in;
				 * DST defaults to /root/BASENAME, a DST ending in '/' gets it */
	const char *script;     /* run by busybox sh in /root, stdin /dev/null */
	int timeout_s;          /* the guest's whole run from QEMU's start; 0: 120 */
	bool keep;              /* keep the work folder and say where */
	int verbose;            /* 1: steps and timings on err; 2: also the kernel log */
} GuestOptions;

typedef struct GuestResult {
	int status;             /* the script's exit status; -1 if it never reported one */
	bool kernel_problem;    /* an oops, BUG, WARNING, panic, lockup, ... in the kernel log */
	bool timed_out;         /* killed after timeout_s (status is -1) */
	char *problem_log;      /* the kernel log when kernel_problem or status < 0, else NULL;
				 * free with guest_result_free() */
} GuestResult;

/* Boot the guest and run o->script in it. The script's stdout is copied to OUT and its
 * stderr to ERR as they arrive; messages about the run go to ERR too, each starting with
 * "hwtap: ". Returns 0 when the guest ran (whatever the script did: see R), or a negative
 * errno when it could not even start (no kernel, no QEMU, bad option ...), with a message
 * on ERR. SIGINT, SIGTERM and SIGHUP during the call stop the guest, remove the work
 * folder and are then re-raised with the caller's handlers restored. */
int guest_run(const GuestOptions *o, FILE *out, FILE *err, GuestResult *r);

void guest_result_free(GuestResult *r);

/* The release guest_run() picks when GuestOptions.release is NULL, malloc'ed; NULL and a
 * message on ERR when there is none. */
char *guest_default_release(FILE *err);

#endif
