/* guest.h - run a shell script in a throwaway QEMU guest that boots a stock kernel.
 *
 * The build machine's kernel cannot load modules, so everything hwtap builds runs in a
 * guest: guest_run() boots /boot/vmlinuz-RELEASE under TCG (as the uncompressed vmlinux
 * through PVH, extracted once and cached), with an initramfs it writes itself (busybox,
 * an /init, the requested kernel modules and files). /init loads the modules, runs the
 * script with busybox sh and powers off. The script's stdout and stderr come back over
 * virtio-serial, byte for byte; the kernel's console (ttyS0) is kept as the kernel log and
 * scanned for oopses, warnings, panics and lockups. A third port carries control lines:
 * stop signals from the host to the script's process group, and a heartbeat back, so that
 * a Ctrl-C on the host reaches the script as it would on a terminal, and a guest that has
 * stopped answering is told apart from a script that is merely quiet.
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
	const char *script;     /* run by busybox sh in /root, stdin /dev/null, in a process
				 * group of its own that stop signals are passed on to */
	int timeout_s;          /* the guest's whole run from QEMU's start; 0: no limit */
	bool keep;              /* keep the work folder and say where */
	int verbose;            /* 1: steps and timings on err; 2: also the kernel log */
} GuestOptions;

typedef struct GuestResult {
	int status;             /* the script's exit status; -1 if it never reported one */
	bool kernel_problem;    /* an oops, BUG, WARNING, panic, lockup, ... in the kernel log */
	bool timed_out;         /* killed after timeout_s (status is -1) */
	bool unresponsive;      /* killed: no output and no heartbeat for a while */
	int forwarded;          /* the stop signal passed on to the script, or 0 */
	char *problem_log;      /* the kernel log when kernel_problem or status < 0, else NULL;
				 * free with guest_result_free() */
} GuestResult;

/* Boot the guest and run o->script in it. The script's stdout is copied to OUT and its
 * stderr to ERR as they arrive; messages about the run go to ERR too, each starting with
 * "hwtap: ". Returns 0 when the guest ran (whatever the script did: see R), or a negative
 * errno when it could not even start (no kernel, no QEMU, bad option ...), with a message
 * on ERR.
 * SIGINT, SIGTERM and SIGHUP: once the script runs, the first one is passed on to its
 * process group in the guest, and the run goes on until the script ends (R->forwarded
 * says which). Before that, a second one, or a guest that does not acknowledge the first
 * within GUEST_ANSWER_S, stops the guest: the work folder is removed and the signal is
 * re-raised with the caller's handlers restored. */
int guest_run(const GuestOptions *o, FILE *out, FILE *err, GuestResult *r);

void guest_result_free(GuestResult *r);

/* The release guest_run() boots when GuestOptions.release is NULL, malloc'ed: the running
 * kernel's when it is installed with a build tree; else the one the metapackage of the
 * running kernel's flavour depends on (linux-image-cloud-amd64 ...); else linux-image-ARCH's
 * (what a fresh Debian machine has); else the newest installed of the running flavour, of
 * the plain ARCH flavour, of any. *WHY (may be NULL) gets a static phrase saying which
 * rule chose it. NULL, and a message on ERR unless ERR is NULL, when none is usable. */
char *guest_default_release(FILE *err, const char **why);

/* Print every release in /lib/modules, whether the guest can boot it (and what it lacks),
 * and which one is the default and why, to OUT. Returns 0, or 1 when none is usable. */
int guest_list_kernels(FILE *out);

/* How long the guest has to acknowledge a stop signal passed on to it. */
#define GUEST_ANSWER_S 10
/* No output and no heartbeat for this long once the script runs: the guest is stopped as
 * unresponsive (HWTAP_GUEST_SILENCE sets another number of seconds, for tests). */
#define GUEST_SILENCE_S 60

#endif
