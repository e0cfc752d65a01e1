/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hwtap-inject - raise hardware-error events for ras probes to see, on a test machine.
 *
 *   hwtap-inject mce [--cpu N] --bank B --status S [--addr A] [--misc M] [--ipid I]
 *                    [--synd S] [--hw] [--count N]
 *       a machine-check record through the kernel's mce-inject module (its debugfs files
 *       in /sys/kernel/debug/mce-inject): the software path by default, which hands the
 *       record to the kernel's MCE logging as if a bank had reported it; --hw raises a
 *       real #MC exception on the CPU (it needs an Intel CPU model, and in a guest
 *       monarch_timeout 0: see hwtap-ras(7)). --ipid and --synd fill AMD's MCA_IPID and
 *       MCA_SYND (the kernel keeps the IPID only on CPUs with Scalable MCA). Writing the
 *       bank file injects, so it goes last; --count N writes it N times (1 to 1000000):
 *       N records, for a burst.
 *   hwtap-inject aer --dev [DOMAIN:]BUS:DEV.FN (--cor S | --uncor S) [--header W0,W1,W2,W3]
 *       a PCIe Advanced Error Reporting error of the device, through the kernel's
 *       aer_inject module (/dev/aer_inject): its correctable (--cor) or uncorrectable
 *       (--uncor) error status bits, as the device's AER capability would hold them, and
 *       for an uncorrectable one the TLP header log; the kernel's AER driver then handles
 *       it as a real one (ras.aer sees it). The device's root port must have AER under the
 *       OS's control (the guest: hwtap-guest --vm-pcie).
 *   hwtap-inject hwpoison [--touch]
 *       takes one page of its own memory out of service with madvise(MADV_HWPOISON), as
 *       the kernel does for a page with an uncorrectable error, and prints pfn=0x... of
 *       it (read from /proc/self/pagemap before, which needs CAP_SYS_ADMIN). Kernels
 *       since 6.4 treat the call as an access to the poisoned page and send the caller
 *       SIGBUS (BUS_MCEERR_AR), as a process that touched it gets: that one is expected.
 *       --touch then reads the page, as a process using memory with an error does: the
 *       kernel sends SIGBUS (BUS_MCEERR_AR), which it catches (it fails if none comes).
 *   hwtap-inject page [--hold SECONDS]
 *       a page of its own memory, written to: prints addr=0x... of it (its physical
 *       address, from /proc/self/pagemap), then keeps it for SECONDS (default 0) - an
 *       address a machine check can name, and a page of a process that the kernel can
 *       take out of service (soft offline moves its contents to another page).
 *   hwtap-inject ghes (--arm | --section GUID --data HEX | --memory PA)
 *                     [--severity corrected|recoverable|informational] [ARM options]
 *       a firmware-first error record (UEFI CPER) through the kernel's APEI GHES driver,
 *       as a platform's firmware reports one: the record is written into the error status
 *       block of the ACPI HEST's GHES source notified by synchronous external abort (SEA),
 *       through /dev/mem, and a child process then reads a physical address no device
 *       decodes, which raises that abort; the kernel reads the block and handles the
 *       record as a real one (ras.arm, ras.non_standard, a memory error's
 *       ras.memory_failure), and the child dies of SIGBUS. Needs such a source: the arm64
 *       guest with hwtap-guest --vm-ghes (QEMU's virt machine with ras=on, booted by UEFI
 *       firmware). One section a record:
 *         --arm       an ARM processor error section (UEFI 2.9 N.2.4.4) with one error
 *                     information entry: --mpidr N, --midr N, --affinity N (level),
 *                     --running-state N, --type N (the entry's type bits: 2 cache, 4 TLB,
 *                     8 bus, 16 micro-architectural), --count N (errors it stands for),
 *                     --flags N (1 first, 2 last, 4 propagated, 8 overflow),
 *                     --error-info N, --virt ADDR, --phys ADDR; what is not given is
 *                     marked not valid (the MPIDR, affinity and running state are given
 *                     defaults: 0x80000000, 0, 1)
 *         --section GUID --data HEX   a section of type GUID with the bytes HEX: one the
 *                     kernel does not know (non_standard_event), a vendor's (HiSilicon's
 *                     c8b328a8-9917-4af6-9a13-2e08ab2e7586 ...)
 *         --memory PA a platform memory error at physical address PA (its page is taken
 *                     out of service: recoverable by default)
 *       --severity: corrected (the default but for --memory), recoverable or
 *       informational; fatal is refused (the kernel panics on it). --fru-text TEXT: the
 *       section's FRU text (20 characters at most). --abort-addr PA: the address read for
 *       the abort (default 0x0b000000: nothing in QEMU's virt machine decodes it).
 *
 * Exit status 0, or 1 after a message naming what failed. A static program: it is copied
 * into the guest as it is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEBUGFS "/sys/kernel/debug"
#define INJECT DEBUGFS "/mce-inject"

static const char usage[] =
	"usage: hwtap-inject mce [--cpu N] --bank B --status S [--addr A] [--misc M]\n"
	"                        [--ipid I] [--synd S] [--hw] [--count N]\n"
	"       hwtap-inject aer --dev [DOMAIN:]BUS:DEV.FN (--cor S | --uncor S)\n"
	"                        [--header W0,W1,W2,W3]\n"
	"       hwtap-inject hwpoison [--touch]\n"
	"       hwtap-inject page [--hold SECONDS]\n"
	"       hwtap-inject ghes (--arm [ARM options] | --section GUID --data HEX |\n"
	"                         --memory PA) [--severity corrected|recoverable|informational]\n"
	"                        [--fru-text TEXT] [--abort-addr PA]\n"
	"         ARM options: --mpidr N --midr N --affinity N --running-state N --type N\n"
	"                      --count N --flags N --error-info N --virt ADDR --phys ADDR\n";

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list ap;

	fputs("hwtap-inject: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A number as C writes it (0x..., 0..., decimal), all of it. */
static uint64_t number(const char *opt, const char *s)
{
	char *end;

	errno = 0;
	uint64_t v = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-')
		die("%s wants a number (decimal or 0x...), not '%s'", opt, s);
	return v;
}

/* VALUE into the debugfs file FILE, with the newline that mce-inject's parsers strip. */
static void put(const char *file, const char *value)
{
	char path[128], line[64];

	snprintf(path, sizeof(path), "%s/%s", INJECT, file);
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	int len = snprintf(line, sizeof(line), "%s\n", value);
	if (write(fd, line, len) < 0)
		die("writing %s to %s: %s", value, path, strerror(errno));
	close(fd);
}

static void put_number(const char *file, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "0x%" PRIx64, v);
	put(file, s);
}

/*
 * The value the debugfs file FILE holds now (mce-inject prints it in hex, without 0x), or
 * ~0 when it cannot be read.
 */
static uint64_t get_number(const char *file)
{
	char path[128], text[32] = "";
	uint64_t v = ~0ULL;

	snprintf(path, sizeof(path), "%s/%s", INJECT, file);
	FILE *f = fopen(path, "r");
	if (!f)
		return v;
	if (fgets(text, sizeof(text), f)) {
		char *end;

		errno = 0;
		v = strtoull(text, &end, 16);
		if (errno || end == text)
			v = ~0ULL;
	}
	fclose(f);
	return v;
}

/* Whether debugfs is mounted on DEBUGFS: its root's device differs from its parent's. */
static bool debugfs_mounted(void)
{
	struct stat a, b;

	return !stat(DEBUGFS, &a) && !stat("/sys/kernel", &b) && a.st_dev != b.st_dev;
}

#define MONARCH "/sys/devices/system/machinecheck/machinecheck0/monarch_timeout"

/*
 * --hw raises #MC on one CPU; the kernel's handler then waits monarch_timeout for the
 * others to enter it too, and panics when they do not: refuse unless it is 0.
 */
static void check_monarch_timeout(void)
{
	char text[32] = "";
	FILE *f = fopen(MONARCH, "r");

	if (!f)
		return;         /* no such knob: nothing to wait for */
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	text[strcspn(text, "\n")] = '\0';
	if (strcmp(text, "0"))
		die("mce --hw: %s is %s: the #MC handler would wait that long for CPUs the "
		    "injection does not reach, then panic; echo 0 > it first", MONARCH, text);
}

static int inject_mce(int argc, char **argv)
{
	enum { CPU, BANK, STATUS, ADDR, MISC, IPID, SYND, COUNT, NOPTS };
	const char *opts[NOPTS] = {"--cpu", "--bank", "--status", "--addr", "--misc", "--ipid",
				   "--synd", "--count"};
	uint64_t v[NOPTS] = {0};
	bool given[NOPTS] = {false}, hw = false, ipid_said = false;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--hw")) {
			hw = true;
			continue;
		}
		size_t k;
		for (k = 0; k < NOPTS && strcmp(argv[i], opts[k]); k++)
			;
		if (k == NOPTS)
			die("mce: unknown option '%s'\n%s", argv[i], usage);
		if (i + 1 == argc)
			die("mce: %s wants a value", argv[i]);
		v[k] = number(argv[i], argv[i + 1]);
		given[k] = true;
		i++;
	}
	if (!given[BANK] || !given[STATUS])
		die("mce: --bank and --status are required\n%s", usage);
	if (given[COUNT] && (v[COUNT] < 1 || v[COUNT] > 1000000))
		die("mce: --count %" PRIu64 ": the number of records must be 1 to 1000000",
		    v[COUNT]);
	if (access(INJECT, F_OK)) {
		if (!debugfs_mounted())
			die("debugfs is not mounted on %s (mount -t debugfs none %s)", DEBUGFS,
			    DEBUGFS);
		die("%s does not exist: load the kernel's mce-inject module (modprobe "
		    "mce-inject)", INJECT);
	}
	if (hw)
		check_monarch_timeout();
	/* mce-inject clears its record once it injected it: each record is written whole */
	for (uint64_t n = given[COUNT] ? v[COUNT] : 1; n; n--) {
		put("flags", hw ? "hw" : "sw");
		if (given[CPU])
			put_number("cpu", v[CPU]);
		put_number("status", v[STATUS]);
		put_number("addr", v[ADDR]);
		put_number("misc", v[MISC]);
		put_number("ipid", v[IPID]);
		if (v[IPID] && get_number("ipid") != v[IPID] && !ipid_said) {
			fprintf(stderr, "hwtap-inject: mce: the kernel ignored --ipid 0x%" PRIx64
				": it takes one only for a software injection on a CPU with AMD's "
				"Scalable MCA\n", v[IPID]);
			ipid_said = true;
		}
		put_number("synd", v[SYND]);
		put_number("bank", v[BANK]);	/* injects */
	}
	return 0;
}

/* The SIGBUS a kernel since 6.4 sends the process that poisoned its own page. */
static volatile sig_atomic_t bus_code;
static void *volatile bus_addr;
static sigjmp_buf touched;
static volatile sig_atomic_t touching;

static void on_sigbus(int sig, siginfo_t *si, void *context)
{
	(void)sig;
	(void)context;
	bus_code = si->si_code;
	bus_addr = si->si_addr;
	if (touching)
		siglongjmp(touched, 1);		/* not back to the read of the page */
}

/* A new page of its own, present (written to), and its page frame number: WHAT names the
 * command in a message. */
static volatile char *own_page(const char *what, uint64_t *pfn)
{
	long size = sysconf(_SC_PAGESIZE);
	volatile char *page = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t entry = 0;

	if (page == MAP_FAILED)
		die("%s: mmap: %s", what, strerror(errno));
	page[0] = 1;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || pread(fd, &entry, sizeof(entry),
			    (off_t)((uintptr_t)page / size) * sizeof(entry)) != sizeof(entry))
		die("%s: reading /proc/self/pagemap: %s", what, strerror(errno));
	close(fd);
	*pfn = entry & ((1ULL << 55) - 1);
	if (!(entry >> 63) || !*pfn)
		die("%s: /proc/self/pagemap gives no page frame number (it needs "
		    "CAP_SYS_ADMIN)", what);
	return page;
}

static int own_page_address(unsigned hold)
{
	uint64_t pfn;

	own_page("page", &pfn);
	printf("addr=0x%" PRIx64 "\n", pfn * (uint64_t)sysconf(_SC_PAGESIZE));
	fflush(stdout);
	sleep(hold);
	return 0;
}

static int inject_hwpoison(bool touch)
{
	long size = sysconf(_SC_PAGESIZE);
	uint64_t pfn;
	volatile char *page = own_page("hwpoison", &pfn);
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	if (madvise((void *)page, size, MADV_HWPOISON))
		die("hwpoison: madvise(MADV_HWPOISON): %s%s", strerror(errno),
		    errno == EINVAL ? " (a kernel without CONFIG_MEMORY_FAILURE?)" :
		    errno == EPERM ? " (it needs CAP_SYS_ADMIN)" : "");
	if (bus_code && (bus_code != BUS_MCEERR_AR || bus_addr != (void *)page))
		die("hwpoison: an unexpected SIGBUS (si_code %d, address %p; the page is at %p)",
		    (int)bus_code, bus_addr, (void *)page);
	if (touch) {
		bus_code = 0;
		if (!sigsetjmp(touched, 1)) {
			touching = 1;
			(void)page[0];
		}
		touching = 0;
		if (bus_code != BUS_MCEERR_AR || bus_addr != (void *)page)
			die("hwpoison: reading the poisoned page gave %s (si_code %d)",
			    bus_code ? "another SIGBUS" : "no SIGBUS", (int)bus_code);
	}
	printf("pfn=0x%" PRIx64 "\n", pfn);
	return 0;
}

/* What /dev/aer_inject takes (the kernel's struct aer_error_inj). */
struct aer_error_inj {
	uint8_t bus, dev, fn;
	uint32_t uncor_status, cor_status, header_log[4];
	uint32_t domain;
};

static int inject_aer(int argc, char **argv)
{
	struct aer_error_inj e = {0};
	bool have_dev = false, cor = false, uncor = false;

	for (int i = 0; i < argc; i++) {
		const char *opt = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(opt, "--dev") && strcmp(opt, "--cor") && strcmp(opt, "--uncor") &&
		    strcmp(opt, "--header"))
			die("aer: unknown option '%s'\n%s", opt, usage);
		if (!v)
			die("aer: %s wants a value", opt);
		i++;
		if (!strcmp(opt, "--dev")) {
			unsigned dom = 0, bus, dev, fn;
			char end;
			if (sscanf(v, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &end) != 4 &&
			    (dom = 0, sscanf(v, "%x:%x.%x%c", &bus, &dev, &fn, &end) != 3))
				die("aer: --dev '%s': expected [DOMAIN:]BUS:DEV.FN in hex (01:00.0)", v);
			if (bus > 0xff || dev > 0x1f || fn > 7 || dom > 0xffff)
				die("aer: --dev '%s': no such PCI address", v);
			e.domain = dom, e.bus = bus, e.dev = dev, e.fn = fn;
			have_dev = true;
		} else if (!strcmp(opt, "--cor")) {
			e.cor_status = (uint32_t)number(opt, v);
			cor = true;
		} else if (!strcmp(opt, "--uncor")) {
			e.uncor_status = (uint32_t)number(opt, v);
			uncor = true;
		} else {
			char end;
			if (sscanf(v, "%" SCNx32 ",%" SCNx32 ",%" SCNx32 ",%" SCNx32 "%c",
				   &e.header_log[0], &e.header_log[1], &e.header_log[2],
				   &e.header_log[3], &end) != 4)
				die("aer: --header '%s': expected four hex words, W0,W1,W2,W3", v);
		}
	}
	if (!have_dev || cor == uncor)
		die("aer: --dev and one of --cor and --uncor are required\n%s", usage);
	int fd = open("/dev/aer_inject", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die("/dev/aer_inject: %s%s", strerror(errno), errno == ENOENT ?
		    ": load the kernel's aer_inject module (modprobe aer_inject)" : "");
	if (write(fd, &e, sizeof(e)) != (ssize_t)sizeof(e))
		die("aer: the kernel refused the error for %04x:%02x:%02x.%x: %s%s", e.domain,
		    e.bus, e.dev, e.fn, strerror(errno), errno == ENODEV ?
		    " (no such device, or its root port has no AER service)" : "");
	close(fd);
	return 0;
}

/* ---- ghes: a firmware-first record through the kernel's APEI GHES driver ----------- */

#define HEST "/sys/firmware/acpi/tables/HEST"
#define HEST_GHES 9             /* source types: GHES, and GHESv2 (with a read ack) */
#define HEST_GHES_V2 10
#define NOTIFY_SEA 8            /* the hardware notification: synchronous external abort */
#define CPER_SEV_RECOVERABLE 0
#define CPER_SEV_FATAL 1
#define CPER_SEV_CORRECTED 2
#define CPER_SEV_INFORMATIONAL 3

/* A little-endian field of N bytes at P. */
static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

/* The physical address of the register that holds the error status block's address, of
 * the HEST's first GHES source notified by SEA; the block's length into *LEN. */
static uint64_t ghes_status_register(uint32_t *len)
{
	static unsigned char t[65536];
	int fd = open(HEST, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("ghes: %s: %s (no ACPI HEST: the arm64 guest has one with hwtap-guest "
		    "--vm-ghes)", HEST, strerror(errno));
	ssize_t n = read(fd, t, sizeof(t));
	close(fd);
	if (n < 40 || le(t + 4, 4) > (uint64_t)n)
		die("ghes: %s: a table too short to be the HEST", HEST);
	size_t end = le(t + 4, 4), at = 40;     /* the header, then the number of sources */
	for (uint32_t i = 0; i < le(t + 36, 4) && at + 64 <= end; i++) {
		unsigned type = le(t + at, 2);
		if (type != HEST_GHES && type != HEST_GHES_V2)
			die("ghes: %s: source %u is of type %u, before any GHES source (hwtap-inject "
			    "walks only GHES sources)", HEST, i, type);
		if (t[at + 32] == NOTIFY_SEA) {
			*len = le(t + at + 60, 4);
			return le(t + at + 24, 8);
		}
		at += type == HEST_GHES ? 64 : 92;
	}
	die("ghes: %s has no GHES source notified by synchronous external abort", HEST);
}

/* LEN bytes of physical memory at PA, mapped from /dev/mem. */
static volatile uint32_t *map_physical(int fd, uint64_t pa, size_t len, void **base,
				       size_t *maplen)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start = pa & ~(uint64_t)(page - 1);

	*maplen = (pa - start + len + page - 1) & ~(size_t)(page - 1);
	*base = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, start);
	if (*base == MAP_FAILED)
		die("ghes: cannot map physical address 0x%" PRIx64 " from /dev/mem: %s", pa,
		    strerror(errno));
	return (volatile uint32_t *)((char *)*base + (pa - start));
}

/* The abort: a child reads physical address PA, which nothing decodes; it must die of
 * SIGBUS (the kernel, having taken the record, sends it). */
static void raise_sea(uint64_t pa)
{
	pid_t pid = fork();
	if (pid < 0)
		die("ghes: fork: %s", strerror(errno));
	if (!pid) {
		int fd = open("/dev/mem", O_RDONLY | O_SYNC | O_CLOEXEC);
		long page = sysconf(_SC_PAGESIZE);
		if (fd < 0)
			_exit(2);
		volatile uint32_t *p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd,
					    pa & ~(uint64_t)(page - 1));
		if (p == MAP_FAILED)
			_exit(3);
		(void)p[(pa & (page - 1)) / 4];
		_exit(4);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		die("ghes: waitpid: %s", strerror(errno));
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
		die("ghes: reading physical address 0x%" PRIx64 " raised no abort (does a device "
		    "decode it? --abort-addr names another)", pa);
	if (WIFEXITED(status))
		die("ghes: the child could not %s physical address 0x%" PRIx64,
		    WEXITSTATUS(status) == 2 ? "open /dev/mem for" : "map", pa);
	die("ghes: the child reading physical address 0x%" PRIx64 " ended by signal %d, not "
	    "SIGBUS", pa, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as a guid_t's 16 bytes (the first three fields
 * little-endian). */
static void parse_guid(const char *s, unsigned char g[16])
{
	unsigned a, b, c, d[8];
	char end;

	if (strlen(s) != 36 ||
	    sscanf(s, "%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x%c", &a, &b, &c, &d[0], &d[1],
		   &d[2], &d[3], &d[4], &d[5], &d[6], &d[7], &end) != 11)
		die("ghes: --section '%s': expected a GUID, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
		    s);
	put_le(g, a, 4);
	put_le(g + 4, b, 2);
	put_le(g + 6, c, 2);
	for (int i = 0; i < 8; i++)
		g[8 + i] = d[i];
}

static int inject_ghes(int argc, char **argv)
{
	static const unsigned char arm_guid[16] = {0x16, 0x3d, 0x9e, 0xe1, 0x11, 0xbc, 0xe4,
		0x11, 0x9c, 0xaa, 0xc2, 0x05, 0x1d, 0x5d, 0x46, 0xb0};
	static const unsigned char memory_guid[16] = {0x14, 0x11, 0xbc, 0xa5, 0x64, 0x6f,
		0xde, 0x4e, 0xb8, 0x63, 0x3e, 0x83, 0xed, 0x7c, 0x83, 0xb1};
	/* the ARM options: each sets a field and its validation bit */
	static const char *const arm_opts[] = {"--mpidr", "--midr", "--affinity",
		"--running-state", "--type", "--count", "--flags", "--error-info", "--virt",
		"--phys"};
	enum { MPIDR, MIDR, AFFINITY, RUNNING, TYPE, COUNT, FLAGS, INFO, VIRT, PHYS, NARM };
	uint64_t arm[NARM] = {0x80000000, 0, 0, 1};
	bool arm_set[NARM] = {false}, is_arm = false, is_memory = false;
	const char *section = NULL, *data = NULL, *fru_text = "";
	uint64_t pa = 0, abort_pa = 0x0b000000;
	int severity = -1;

	for (int i = 0; i < argc; i++) {
		const char *opt = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(opt, "--arm")) {
			is_arm = true;
			continue;
		}
		if (!v)
			die("ghes: %s wants a value (or is unknown)\n%s", opt, usage);
		i++;
		int k = 0;
		while (k < NARM && strcmp(opt, arm_opts[k]))
			k++;
		if (k < NARM) {
			arm[k] = number(opt, v);
			arm_set[k] = true;
		} else if (!strcmp(opt, "--section")) {
			section = v;
		} else if (!strcmp(opt, "--data")) {
			data = v;
		} else if (!strcmp(opt, "--memory")) {
			pa = number(opt, v);
			is_memory = true;
		} else if (!strcmp(opt, "--fru-text")) {
			if (strlen(v) > 20)
				die("ghes: --fru-text '%s': at most 20 characters", v);
			fru_text = v;
		} else if (!strcmp(opt, "--abort-addr")) {
			abort_pa = number(opt, v);
		} else if (!strcmp(opt, "--severity")) {
			severity = !strcmp(v, "corrected") ? CPER_SEV_CORRECTED :
				   !strcmp(v, "recoverable") ? CPER_SEV_RECOVERABLE :
				   !strcmp(v, "informational") ? CPER_SEV_INFORMATIONAL : -1;
			if (!strcmp(v, "fatal"))
				die("ghes: --severity fatal: the kernel panics on a fatal record");
			if (severity < 0)
				die("ghes: --severity '%s': corrected, recoverable or informational", v);
		} else {
			die("ghes: unknown option '%s'\n%s", opt, usage);
		}
	}
	if (is_arm + is_memory + (section != NULL) != 1 || !section != !data)
		die("ghes: one of --arm, --section GUID --data HEX and --memory PA\n%s", usage);
	for (int k = 0; k < NARM; k++)
		if (arm_set[k] && !is_arm)
			die("ghes: %s is an --arm option", arm_opts[k]);
	if (severity < 0)
		severity = is_memory ? CPER_SEV_RECOVERABLE : CPER_SEV_CORRECTED;

	/* the section */
	unsigned char body[4096] = {0}, guid[16];
	size_t len;
	if (is_arm) {
		memcpy(guid, arm_guid, 16);
		unsigned valid = 1 | 2 | 4;     /* MPIDR, affinity level, running state */
		put_le(body, valid, 4);
		put_le(body + 4, 1, 2);         /* one error information entry */
		put_le(body + 8, 40 + 32, 4);   /* the section's length */
		body[12] = arm[AFFINITY];
		put_le(body + 16, arm[MPIDR], 8);
		put_le(body + 24, arm[MIDR], 8);
		put_le(body + 32, arm[RUNNING], 4);
		unsigned char *e = body + 40;
		unsigned ev = (arm_set[COUNT] ? 1 : 0) | (arm_set[FLAGS] ? 2 : 0) |
			      (arm_set[INFO] ? 4 : 0) | (arm_set[VIRT] ? 8 : 0) |
			      (arm_set[PHYS] ? 16 : 0);
		if (arm_set[COUNT] && (arm[COUNT] < 1 || arm[COUNT] > 65536))
			die("ghes: --count %" PRIu64 ": 1 to 65536", arm[COUNT]);
		e[1] = 32;                      /* the entry's length */
		put_le(e + 2, ev, 2);
		e[4] = arm[TYPE];
		put_le(e + 5, arm_set[COUNT] ? arm[COUNT] - 1 : 0, 2);
		e[7] = arm[FLAGS];
		put_le(e + 8, arm[INFO], 8);
		put_le(e + 16, arm[VIRT], 8);
		put_le(e + 24, arm[PHYS], 8);
		len = 72;
	} else if (is_memory) {
		memcpy(guid, memory_guid, 16);
		put_le(body, 2 | 4, 8);         /* the physical address and its mask */
		put_le(body + 16, pa, 8);
		put_le(body + 24, ~(uint64_t)0xfff, 8);
		len = 80;
	} else {
		parse_guid(section, guid);
		size_t digits = strlen(data);
		if (!digits || digits % 2 || digits / 2 > sizeof(body) ||
		    strspn(data, "0123456789abcdefABCDEF") != digits)
			die("ghes: --data '%.40s%s': expected bytes in hex (an even number of "
			    "digits, at most %zu bytes)", data, digits > 40 ? "..." : "",
			    sizeof(body));
		for (len = 0; len < digits / 2; len++)
			sscanf(data + 2 * len, "%2hhx", &body[len]);
	}

	/* the block: its status, a generic error data entry (header of 64 bytes), the section */
	unsigned char block[4096 + 128] = {0};
	unsigned char *entry = block + 20;
	put_le(block, (severity == CPER_SEV_RECOVERABLE ? 1 : 2) | 1 << 4, 4);
	put_le(block + 12, 64 + len, 4);
	put_le(block + 16, severity, 4);
	memcpy(entry, guid, 16);
	put_le(entry + 16, severity, 4);
	put_le(entry + 20, 0x0201, 2);          /* revision 2.1: no time stamp */
	entry[22] = *fru_text ? 2 : 0;          /* validation bits: the FRU text */
	put_le(entry + 24, len, 4);
	memcpy(entry + 44, fru_text, strlen(fru_text));
	memcpy(entry + 64, body, len);
	size_t total = (20 + 64 + len + 3) & ~(size_t)3;

	uint32_t block_len;
	uint64_t reg = ghes_status_register(&block_len);
	if (total > block_len)
		die("ghes: the record (%zu bytes) does not fit the source's error status block "
		    "(%u bytes)", total, block_len);
	int fd = open("/dev/mem", O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		die("ghes: /dev/mem: %s", strerror(errno));
	void *base, *bbase;
	size_t maplen, bmaplen;
	volatile uint32_t *r = map_physical(fd, reg, 8, &base, &maplen);
	uint64_t pblock = r[0] | (uint64_t)r[1] << 32;
	munmap(base, maplen);
	volatile uint32_t *b = map_physical(fd, pblock, total, &bbase, &bmaplen);
	if (b[0])
		die("ghes: the error status block at 0x%" PRIx64 " still holds a record the kernel "
		    "has not taken (block status 0x%x)", pblock, b[0]);
	for (size_t i = total / 4; i-- > 1;)   /* the status last: it makes the record */
		b[i] = le(block + 4 * i, 4);
	b[0] = le(block, 4);
	raise_sea(abort_pa);
	for (int tries = 0; b[0] && tries < 100; tries++)
		usleep(10000);
	if (b[0])
		die("ghes: the kernel did not take the record (block status still 0x%x)", b[0]);
	munmap(bbase, bmaplen);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "ghes"))
		return inject_ghes(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "mce"))
		return inject_mce(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "aer"))
		return inject_aer(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "hwpoison"))
		return inject_hwpoison(false);
	if (argc == 3 && !strcmp(argv[1], "hwpoison") && !strcmp(argv[2], "--touch"))
		return inject_hwpoison(true);
	if (argc == 2 && !strcmp(argv[1], "page"))
		return own_page_address(0);
	if (argc == 4 && !strcmp(argv[1], "page") && !strcmp(argv[2], "--hold"))
		return own_page_address((unsigned)number("--hold", argv[3]));
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	fputs(usage, stderr);
	return 1;
}
