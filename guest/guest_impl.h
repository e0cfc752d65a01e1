/* guest_impl.h - what guest.c, guest_kernel.c and guest_initrd.c share (not installed,
 * not for callers: they include guest.h). One section per file.
 */
#ifndef HWTAP_GUEST_IMPL_H
#define HWTAP_GUEST_IMPL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* strverscmp, memmem, pipe2, fallocate, sigabbrev_np */
#endif

#include "guest.h"

#include <stddef.h>
#include <sys/types.h>

/* What /init appends to both output streams when the script ends, followed by the
 * run's nonce, a space, the exit status (or "setup" when setup failed) and a newline.
 * The nonce makes it impossible for the script's own output to end the same way. */
#define GUEST_END_MARK "\001hwtap-end "
#define GUEST_NONCE_LEN 16
#define GUEST_END_MAX 64        /* an end mark is never longer */

/* The first thing /init does is write this line to the console. A kernel that has not
 * written it after BOOT_DEADLINE_S hangs (TCG boots have been seen to spin in early
 * device setup, about once in many runs; a normal boot takes 1-3 s): it is stopped and
 * booted once more, since the script has not run yet. */
#define GUEST_INIT_MARK "hwtap-guest-init"
#define BOOT_DEADLINE_S 30

/* A growable list of malloc'ed strings. */
typedef struct StrList {
	char **v;
	int n, cap;
} StrList;

typedef struct ModTable ModTable;

/* One guest_run() call. */
typedef struct Guest {
	const GuestOptions *o;
	FILE *out, *err;
	int cpus, mem_mb, timeout_s, verbose;
	double start;                   /* guest_now() when guest_run() began */
	const GuestArch *arch;
	char *root;                     /* where its kernels are: "" for this machine's */
	char *release;
	char *moddir;                   /* ROOT/lib/modules/RELEASE, here */
	char *workdir;                  /* removed at the end unless o->keep */
	char *kernel;                   /* the PVH vmlinux, or the bzImage itself */
	bool pvh;
	ModTable *mods;                 /* modules.dep, read on first use */
	StrList channel_modules;        /* load order for virtio-serial, paths under moddir */
	StrList user_modules;           /* load order for o->modprobe */
	StrList pstore_modules;         /* load order for ramoops (o->pstore) */
	StrList qemu_extra;             /* HWTAP_QEMU_EXTRA's words, for QEMU's command line */
	char nonce[GUEST_NONCE_LEN + 1];
	int forwarded;                  /* the stop signal passed on to the script, or 0 */
	int stopped_by;                 /* the stop signal that stopped the guest, or 0 */
	bool unanswered;                /* stopped: FORWARDED was not acknowledged */
	bool unstopped;                 /* stopped: the script did not end after FORWARDED */
} Guest;

/* ---- guest.c: the run, and helpers for the other files ------------------------------- */

void *guest_xmalloc(size_t size);                       /* exits on out of memory */
char *guest_xstrdup(const char *s);
char *guest_xformat(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void strlist_push(StrList *l, char *s);                 /* takes ownership of S */
bool strlist_has(const StrList *l, const char *s);
void strlist_free(StrList *l);

double guest_now(void);                                 /* monotonic seconds */
bool guest_interrupted(void);                           /* SIGINT/SIGTERM/SIGHUP caught */

/* "hwtap: error: MESSAGE" on ERR; returns ERR_CODE (a negative errno) for `return'. */
int guest_error(Guest *g, int err_code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "hwtap: guest: MESSAGE (+1.23 s)" on ERR when verbose. */
void guest_note(Guest *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Start ARGV[0] (found in PATH) with FDS as its stdin, stdout and stderr, and as its
 * descriptor 3 unless FDS[3] is -1. LEADER: its own process group, killed when we die
 * (QEMU). Returns the pid, or the negative errno of fork or exec (no message: the caller
 * knows which package to name). */
pid_t guest_spawn(Guest *g, char *const argv[], const int fds[4], bool leader);
/* Wait for PID; killed with SIGKILL when a stop signal comes. The wait status, or a
 * negative errno. */
int guest_wait(Guest *g, pid_t pid);

/* ---- guest_kernel.c: release, vmlinux cache, modules.dep ------------------------------ */

int guest_find_kernel(Guest *g);                /* sets kernel and pvh, extracting once */
/* Append NAME and its dependencies from modules.dep, dependencies first, to ORDER (paths
 * relative to moddir); nothing for a built-in module. */
int guest_resolve_module(Guest *g, const char *name, StrList *order);
void guest_free_modules(Guest *g);
/* Decompress SRC by its compression suffix (.xz, .zst, .gz) into DST. */
int guest_decompress_file(Guest *g, const char *src, const char *dst);
bool guest_compressed_name(const char *path);   /* ends in .xz, .zst or .gz */

/* ---- guest_initrd.c: the initramfs ---------------------------------------------------- */

/* Write the cpio "newc" archive: busybox, /init, the modules, the files, the script. */
int guest_write_initrd(Guest *g, const char *path);

/* ---- guest_back.c: files that come home (o->files_back) ------------------------------- */

/* /hwtap/back: the guest paths, a line each (LEN its length; malloc'ed) */
char *guest_back_list(const Guest *g, size_t *len);
/* /init's part: the hwtap.back port on descriptor 6, and send_back(), which the script's
 * end calls; nothing without files_back */
void guest_back_init(FILE *f, const Guest *g);
/* After the run: the records in the port's file PATH, each host file replaced. 0, or a
 * negative errno after saying what did not come back. */
int guest_back_collect(Guest *g, const char *path);

#endif
