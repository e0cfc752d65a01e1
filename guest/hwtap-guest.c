/* hwtap-guest.c - run shell commands in hwtap's QEMU guest: a developer tool over
 * guest_run() (guest.h), and what the testsuite drives it with.
 *
 *   hwtap-guest [--vm-arch ARCH] [--vm-cpus N] [--vm-mem MB] [--vm-kernel RELEASE] [--vm-modprobe NAME]...
 *               [--vm-file SRC[:DST]]... [--vm-pstore] [--vm-append WORDS] [--timeout S] [-k] [-v]
 *               -- 'SHELL COMMANDS'
 */
#include "guest.h"

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_S 120    /* a test tool: a hung test ends */

enum {
	EXIT_USAGE = 2,
	EXIT_TIMEOUT = 124,
	EXIT_PROBLEM = 125,     /* the kernel reported a problem, or the guest died */
	EXIT_NO_GUEST = 126,    /* the guest could not be started */
};

static const char usage_text[] =
	"Usage: hwtap-guest [OPTIONS] [--] 'SHELL COMMANDS'...\n"
	"Boot hwtap's throwaway QEMU guest (the stock kernel, busybox), run the commands in it\n"
	"with busybox sh, relay their stdout and stderr, and exit with their status.\n"
	"\n"
	"  --vm-arch ARCH         x86_64 or arm64 (default: this machine's); arm64 boots\n"
	"                         the kernel unpacked under /usr/local/lib/hwtap/arm64\n"
	"  --vm-tcg-threads single|multi\n"
	"                         QEMU's TCG runs the vCPUs in turn in one thread, or each in\n"
	"                         its own, at the same time (default: single on x86_64, where\n"
	"                         QEMU 7.2's threads can leave a CPU taking one page fault\n"
	"                         forever; multi on arm64)\n"
	"  --vm-icount            QEMU's icount mode: guest time counts instructions (arm64's\n"
	"                         PMU then counts instructions too); one CPU\n"
	"  --vm-kaslr             x86_64: boot the compressed kernel, which KASLR places at a\n"
	"                         random address as on a real machine (about 5 s slower)\n"
	"  --vm-cpu MODEL         QEMU's CPU model instead of the default (max): the family,\n"
	"                         model and vendor the guest kernel sees (Skylake-Server,\n"
	"                         EPYC-Rome; qemu-system-x86_64 -cpu help lists them)\n"
	"  --vm-back GUEST:HOST   once the commands ended, copy the guest's file GUEST to\n"
	"                         HOST (replaced), as hwtap --vm brings --ras-db's home\n"
	"  --vm-append WORDS      add WORDS to the guest kernel's command line\n"
	"                         (module.sig_enforce=1, lockdown=integrity ...)\n"
	"  --vm-pcie              x86_64: a PCI Express machine (QEMU's q35) with a device at\n"
	"                         01:00.0 behind a root port whose AER the kernel controls\n"
	"                         (hwtap-inject aer raises errors there)\n"
	"  --vm-ghes              arm64: QEMU's virt machine with ras=on, booted by UEFI\n"
	"                         firmware (qemu-efi-aarch64): an ACPI GHES error source\n"
	"                         (hwtap-inject ghes raises firmware-first errors there)\n"
	"  --vm-cpus N            guest CPUs (default 2)\n"
	"  --vm-mem MB            guest memory (default 512)\n"
	"  --vm-kernel RELEASE    kernel release in /boot and /lib/modules (default: as\n"
	"                         hwtap --list-kernels says)\n"
	"  --vm-modprobe NAME     load guest module NAME and its dependencies first (repeat)\n"
	"  --vm-file SRC[:DST]    copy host file SRC in, to DST (default /root/BASENAME) (repeat)\n"
	"  --vm-pstore            ramoops in RAM kept across a reboot, on /sys/fs/pstore; a\n"
	"                         panic reboots the guest once and the commands run again\n"
	"                         (x86_64, 256 MB or more)\n"
	"  --timeout S            stop the guest after S seconds (default 120)\n"
	"  -k, --keep             keep the work folder (initramfs, logs) and say where\n"
	"  -v, --verbose          say what happens, with timings; twice: also the kernel log\n"
	"  -h, --help             print this help and exit\n"
	"\n"
	"SIGINT, SIGTERM and SIGHUP are passed on to the commands' process group once they run\n"
	"(a second one, or one before, stops the guest).\n"
	"\n"
	"Exit status: the commands' own; 124 when the guest timed out or stopped answering\n"
	"(no output and no heartbeat for HWTAP_GUEST_SILENCE seconds, default 60: its kernel\n"
	"log is printed); 125 when the guest kernel reported a problem (oops, BUG, WARNING,\n"
	"panic, lockup: its log is printed) or the guest stopped without a status; 126 when\n"
	"the guest could not be started; 2 for a usage error.\n";

__attribute__((noreturn, format(printf, 1, 2)))
static void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hwtap-guest: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'hwtap-guest --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

static int parse_number(const char *option, const char *arg, int min, int max)
{
	char *end;
	long n = strtol(arg, &end, 10);
	if (!*arg || *end || n < min || n > max)
		usage_error("%s: invalid value '%s': expected a number from %d to %d", option, arg,
			    min, max);
	return n;
}

/* A NULL-terminated list that grows by one. */
static const char **list_add(const char **list, int *n, const char *item)
{
	const char **v = realloc(list, sizeof(*v) * (*n + 2));
	if (!v) {
		fputs("hwtap-guest: error: out of memory\n", stderr);
		exit(EXIT_NO_GUEST);
	}
	v[(*n)++] = item;
	v[*n] = NULL;
	return v;
}

/* The words after the options, joined with spaces like ssh does. */
static char *join_words(char **words, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	char *s = calloc(1, len);
	if (!s)
		exit(EXIT_NO_GUEST);
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

enum { OPT_CPUS = 256, OPT_MEM, OPT_KERNEL, OPT_MODPROBE, OPT_FILE, OPT_TIMEOUT, OPT_ARCH,
       OPT_ICOUNT, OPT_PSTORE, OPT_TCG_THREADS, OPT_KASLR, OPT_CPU, OPT_PCIE,
       OPT_GHES, OPT_APPEND, OPT_BACK };

static const struct option long_options[] = {
	{ "vm-arch", required_argument, NULL, OPT_ARCH },
	{ "vm-icount", no_argument, NULL, OPT_ICOUNT },
	{ "vm-tcg-threads", required_argument, NULL, OPT_TCG_THREADS },
	{ "vm-cpus", required_argument, NULL, OPT_CPUS },
	{ "vm-mem", required_argument, NULL, OPT_MEM },
	{ "vm-kernel", required_argument, NULL, OPT_KERNEL },
	{ "vm-modprobe", required_argument, NULL, OPT_MODPROBE },
	{ "vm-file", required_argument, NULL, OPT_FILE },
	{ "vm-pstore", no_argument, NULL, OPT_PSTORE },
	{ "vm-kaslr", no_argument, NULL, OPT_KASLR },
	{ "vm-cpu", required_argument, NULL, OPT_CPU },
	{ "vm-pcie", no_argument, NULL, OPT_PCIE },
	{ "vm-ghes", no_argument, NULL, OPT_GHES },
	{ "vm-append", required_argument, NULL, OPT_APPEND },
	{ "vm-back", required_argument, NULL, OPT_BACK },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "keep", no_argument, NULL, 'k' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void parse_args(int argc, char **argv, GuestOptions *o)
{
	int nmod = 0, nfile = 0, nback = 0, c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:kvh", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_ARCH:
			if (!(o->arch = guest_find_arch(optarg)))
				usage_error("--vm-arch: unknown architecture '%s': expected %s",
					    optarg, guest_arch_names());
			break;
		case OPT_ICOUNT: o->icount = true; break;
		case OPT_TCG_THREADS:
			if (strcmp(optarg, "single") && strcmp(optarg, "multi"))
				usage_error("--vm-tcg-threads: '%s': expected single or multi",
					    optarg);
			o->tcg_threads = optarg;
			break;
		case OPT_CPUS: o->cpus = parse_number("--vm-cpus", optarg, 1, 64); break;
		case OPT_MEM: o->mem_mb = parse_number("--vm-mem", optarg, 128, 1 << 20); break;
		case OPT_KERNEL: o->release = optarg; break;
		case OPT_MODPROBE: o->modprobe = list_add(o->modprobe, &nmod, optarg); break;
		case OPT_FILE: o->files = list_add(o->files, &nfile, optarg); break;
		case OPT_PSTORE: o->pstore = true; break;
		case OPT_KASLR: o->kaslr = true; break;
		case OPT_CPU: o->cpu = optarg; break;
		case OPT_PCIE: o->pcie = true; break;
		case OPT_GHES: o->ghes = true; break;
		case OPT_BACK:
			if (!strchr(optarg, ':') || optarg[0] != '/' || !strchr(optarg, ':')[1])
				usage_error("--vm-back: '%s': expected GUEST:HOST (an absolute "
					    "guest path)", optarg);
			o->files_back = list_add(o->files_back, &nback, optarg);
			break;
		case OPT_APPEND:
			if (guest_append_error(optarg))
				usage_error("--vm-append: %s", guest_append_error(optarg));
			o->append = optarg;
			break;
		case OPT_TIMEOUT:
			o->timeout_s = parse_number("--timeout", optarg, 1, INT_MAX / 2);
			break;
		case 'k': o->keep = true; break;
		case 'v': o->verbose++; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case ':': usage_error("option '%s' needs a value", argv[optind - 1]);
		default: usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_error("no shell commands given (hwtap-guest [OPTIONS] -- 'COMMANDS')");
	o->script = join_words(argv + optind, argc - optind);
}

static void print_log(const char *intro, const char *log)
{
	size_t n = strlen(log);
	fprintf(stderr, "hwtap-guest: %s\n%s%s", intro, log, n && log[n - 1] != '\n' ? "\n" : "");
}

int main(int argc, char **argv)
{
	GuestOptions o = { .timeout_s = DEFAULT_TIMEOUT_S };
	GuestResult r;
	parse_args(argc, argv, &o);
	if (guest_run(&o, stdout, stderr, &r) < 0)
		return EXIT_NO_GUEST;
	fflush(stdout);
	int status = r.status;
	if (r.kernel_problem) {
		print_log("the guest kernel reported a problem:", r.problem_log);
		status = EXIT_PROBLEM;
	} else if (r.timed_out || r.unresponsive) {
		/* a guest that went quiet: what its kernel said before is all there is */
		if (r.unresponsive && r.problem_log)
			print_log("the guest's kernel log:", r.problem_log);
		status = EXIT_TIMEOUT;
	} else if (r.status < 0) {
		print_log("the guest's kernel log:", r.problem_log ? r.problem_log : "");
		status = EXIT_PROBLEM;
	} else if (r.files_lost && !status) {
		status = 1;     /* said: which file did not come back */
	}
	guest_result_free(&r);
	free(o.modprobe);
	free(o.files_back);
	free(o.files);
	free((char *)o.script);
	return status;
}
