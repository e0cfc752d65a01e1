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
#include <unistd.h>

#define DEBUGFS "/sys/kernel/debug"
#define INJECT DEBUGFS "/mce-inject"

static const char usage[] =
	"usage: hwtap-inject mce [--cpu N] --bank B --status S [--addr A] [--misc M]\n"
	"                        [--ipid I] [--synd S] [--hw] [--count N]\n"
	"       hwtap-inject aer --dev [DOMAIN:]BUS:DEV.FN (--cor S | --uncor S)\n"
	"                        [--header W0,W1,W2,W3]\n"
	"       hwtap-inject hwpoison [--touch]\n"
	"       hwtap-inject page [--hold SECONDS]\n";

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

int main(int argc, char **argv)
{
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
