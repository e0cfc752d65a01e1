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

/* An architecture the guest can run (guest_arch.c). */
typedef struct GuestArch {
	const char *name, *alias;       /* as SystemTap's -a names it, and Debian's/GNU's */
	const char *debian;             /* Debian's architecture: amd64, arm64 */
	const char *qemu, *qemu_package;
	const char *machine[8];         /* QEMU's machine and CPU options, NULL-ended */
	const char *accel;              /* QEMU's -accel by default (TCG, one thread or many) */
	const char *console;            /* the serial console's device in the guest */
	bool pvh;                       /* boot the vmlinux extracted from the bzImage */
	int elf_machine;                /* EM_X86_64, EM_AARCH64: of its programs */
	const char *kbuild_arch;        /* ARCH= for kbuild */
	const char *cross_compile;      /* CROSS_COMPILE= when it is not the host's */
} GuestArch;

const GuestArch *guest_host_arch(void);
/* By name or alias ("arm64", "aarch64"); the host's for NULL or ""; NULL if unknown. */
const GuestArch *guest_find_arch(const char *name);
const char *guest_arch_names(void);             /* for messages */
bool guest_arch_is_host(const GuestArch *a);
/* Where A's kernels are: "" for the host's (/boot, /lib/modules), else
 * HWTAP_GUEST_ROOT/DEBIAN_ARCH. Malloc'ed. */
char *guest_arch_root(const GuestArch *a);

typedef struct GuestOptions {
	const GuestArch *arch;  /* NULL: the host's */
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
	int stop_timeout_s;     /* how long the script has to end once a stop signal was
				 * passed on, before the guest is stopped; 0: GUEST_STOP_S */
	bool icount;            /* QEMU's icount: time is instructions (arm64's PMU then counts
				 * instructions too); one CPU */
	const char *tcg_threads; /* "single": one TCG thread runs the vCPUs in turn; "multi":
				 * a thread each, so they run at the same time; NULL: the
				 * architecture's default (GuestArch.accel) */
	bool pstore;            /* x86_64: RAM kept across a reboot for ramoops (the kernel's
				 * pstore in memory, GUEST_PSTORE_*), loaded and mounted on
				 * /sys/fs/pstore by /init; a panic then reboots the guest in the
				 * same QEMU, once, and the script runs again: it tells the boots
				 * apart by what /sys/fs/pstore holds. The panic's own report in the
				 * kernel log is not a problem; anything else there still is. */
	bool kaslr;             /* x86_64: boot the bzImage, whose decompressor puts the
				 * kernel where KASLR says (the PVH vmlinux booted otherwise
				 * stays at its link-time address): as on a real machine */
	const char *cpu;        /* QEMU's -cpu MODEL instead of the architecture's: a named CPU
				 * ("Skylake-Server", "EPYC-Rome") whose family, model and
				 * features the guest kernel sees (MCE decoding per family);
				 * what TCG cannot emulate of it QEMU leaves out, warning */
	bool pcie;              /* x86_64: a PCI Express machine (QEMU's q35) with a device
				 * behind a root port whose AER the kernel controls: what
				 * aer_inject needs to raise AER errors (hwtap-inject aer) */
	bool ghes;              /* arm64: QEMU's virt machine with ras=on, booted by UEFI
				 * firmware (GUEST_GHES_FIRMWARE): an ACPI HEST with a GHES
				 * error source notified by synchronous external abort, where
				 * hwtap-inject ghes raises firmware-first errors */
	const char **files_back; /* NULL-terminated "GUEST:HOST": once the script ended, each
				 * GUEST file replaces HOST (guest_back.c); HOST's folder must
				 * exist */
	const char *append;     /* words added to the guest kernel's command line
				 * (module.sig_enforce=1, lockdown=integrity ...): checked by
				 * guest_append_error() */
	bool keep;              /* keep the work folder and say where */
	int verbose;            /* 1: steps and timings on err; 2: also the kernel log */
} GuestOptions;

typedef struct GuestResult {
	int status;             /* the script's exit status; -1 if it never reported one */
	bool kernel_problem;    /* an oops, BUG, WARNING, panic, lockup, ... in the kernel log */
	bool timed_out;         /* killed after timeout_s (status is -1) */
	bool unresponsive;      /* killed: no output and no heartbeat for a while */
	int forwarded;          /* the stop signal passed on to the script, or 0 */
	int reboots;            /* with pstore: how often the guest rebooted (1 expected) */
	bool files_lost;        /* a file of files_back did not come home (said) */
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
 * says which), for stop_timeout_s at most. Before that, a second one, a guest that does
 * not acknowledge the first within GUEST_ANSWER_S, or a script that has not ended after
 * stop_timeout_s, stops the guest: the work folder is removed and the signal is re-raised
 * with the caller's handlers restored. */
int guest_run(const GuestOptions *o, FILE *out, FILE *err, GuestResult *r);

void guest_result_free(GuestResult *r);

/* The release guest_run() boots for ARCH (NULL: the host's) when GuestOptions.release is
 * NULL, malloc'ed. For the host's architecture: the running kernel's when it is installed
 * with a build tree; else the one the metapackage of the running kernel's flavour depends
 * on (linux-image-cloud-amd64 ...); else linux-image-ARCH's (what a fresh Debian machine
 * has); else the newest installed of the running flavour, of the plain ARCH flavour, of
 * any. For another architecture: the newest of its plain flavour, else of any, under
 * guest_arch_root(). *WHY (may be NULL) gets a static phrase saying which rule chose it.
 * NULL, and a message on ERR unless ERR is NULL, when none is usable. */
char *guest_default_release(const GuestArch *arch, FILE *err, const char **why);
/* RELEASE's uncompressed vmlinux for ARCH (x86: extracted into the cache once, as for
 * booting), malloc'ed; NULL with *WHY when there is none here (translator/target/btf.c). */
char *guest_kernel_vmlinux(const GuestArch *a, const char *release, FILE *err,
			   const char **why);
/* Module NAME ("mce-inject" or "mce_inject") of RELEASE for ARCH as an uncompressed .ko,
 * found through its modules.dep: its own file, or a copy decompressed into DIR (which
 * the caller removes); malloc'ed, or NULL with *WHY (static: "is not in its modules.dep",
 * and a message on ERR when reading or decompressing failed) (translator/target/btf.c). */
char *guest_kernel_module(const GuestArch *a, const char *release, const char *name,
			  const char *dir, FILE *err, const char **why);

/* FN(NAME, KO, ARG) for each module of RELEASE for ARCH in its modules.dep, in its order,
 * KO uncompressed (a compressed one decompressed into DIR and removed after FN); one that
 * cannot be decompressed is skipped, said on ERR. Stops at FN's first nonzero return, which
 * it returns; 0 when all were seen; -errno, said on ERR, when modules.dep cannot be read
 * (translator/target/tpmodules.c). */
int guest_kernel_each_module(const GuestArch *a, const char *release, const char *dir,
			     FILE *err, int (*fn)(const char *name, const char *ko, void *arg),
			     void *arg);

/* Print every release of ARCH (under guest_arch_root()/lib/modules), whether the guest can
 * boot it (and what it lacks), and which one is the default and why, to OUT. Returns 0,
 * or 1 when none is usable. */
int guest_list_kernels(const GuestArch *arch, FILE *out);

/* Why WORDS cannot be added to the guest kernel's command line (GuestOptions.append), or
 * NULL: printable words apart by spaces, at most 1024 bytes, none that the runner's own
 * words (console=, init=, rdinit=, panic=) would fight with. */
const char *guest_append_error(const char *words);

/* GuestOptions.pstore: ramoops in the MB of guest RAM at GUEST_PSTORE_ADDR, which the
 * kernel leaves alone (memmap=), in records of GUEST_PSTORE_RECORD bytes. pstore's own
 * kmsg_bytes stays Debian's default (10240): what a panic dump keeps is what a stock
 * machine keeps. */
#define GUEST_PSTORE_ADDR 0x8000000UL
#define GUEST_PSTORE_MB 1
#define GUEST_PSTORE_RECORD 0x4000
#define GUEST_PSTORE_MIN_MEM_MB 256

/* --vm-ghes: Debian's UEFI firmware for QEMU's arm64 virt machine (qemu-efi-aarch64). It
 * boots the kernel QEMU is given (-kernel, through fw_cfg) and hands it QEMU's ACPI
 * tables, the HEST among them; a direct boot gets a device tree and no ACPI. */
#define GUEST_GHES_FIRMWARE "/usr/share/AAVMF/AAVMF_CODE.fd"

/* How long the guest has to acknowledge a stop signal passed on to it. */
#define GUEST_ANSWER_S 10
/* How long the script has to end once it got a stop signal (GuestOptions.stop_timeout_s):
 * a module whose stop hangs in the kernel must not keep the run going for good. */
#define GUEST_STOP_S 60
/* The guest kernel's hung task detector reports a task blocked this long (Debian's 120 s
 * would come after GUEST_STOP_S): the report is in the log when the run fails. */
#define GUEST_HUNG_TASK_S 15
/* No output and no heartbeat for this long once the script runs: the guest is stopped as
 * unresponsive (HWTAP_GUEST_SILENCE sets another number of seconds, for tests). */
#define GUEST_SILENCE_S 60

#endif
