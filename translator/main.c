/* main.c - the hwtap command line: options in SystemTap's spelling where they overlap. */
#include "hwtap.h"
#include "../guest/guest.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1"
#endif

static const char usage_text[] =
	"Usage: hwtap [OPTIONS] SCRIPT.stp [ARG...]\n"
	"       hwtap [OPTIONS] -e 'SCRIPT' [ARG...]\n"
	"       hwtap -l PATTERN | -L PATTERN\n"
	"Translate a script in SystemTap's language for hardware counters and errors.\n"
	"A SCRIPT of '-' is read from standard input; ARGs are the script's $1/@1 ...\n"
	"\n"
	"  -p N              stop after pass N: 1 parse (prints the script normalized),\n"
	"                    2 elaborate (prints probes, globals and functions), 3 C code\n"
	"                    (prints it), 4 module (prints its path), 5 run (default)\n"
	"  -e SCRIPT         run the script given on the command line\n"
	"  -I DIR            also search DIR for tapset .stp and .stpm files\n"
	"  -D NAME=VALUE     set a limit (MAXACTION, MAXMAPENTRIES, ...) for the module\n"
	"  -r RELEASE|DIR    target kernel release, or its build tree; with -p4, several\n"
	"                    -r build a module for each kernel\n"
	"      --bundle=DIR  with -p4: also copy the module into DIR as NAME-RELEASE.ko, one\n"
	"                    name for every kernel; hwtap-run DIR loads the one for its kernel\n"
	"  -a ARCH           build for ARCH (x86_64, arm64) and run in its QEMU guest: arm64\n"
	"                    has a PMU to count hardware events with (also --arch, --vm-arch)\n"
	"  -g                guru mode: allow embedded C in the script\n"
	"  -v                more messages (repeat for more)\n"
	"  -l PATTERN        list the probe points that match PATTERN, e.g. 'timer.*'\n"
	"  -L PATTERN        the same, with each point's context variables\n"
	"  -m NAME           name the module (default hwtap_HASH)\n"
	"  -k                keep the whole build folder (kbuild's files) and say where\n"
	"  -s MB             output buffer per CPU in MiB (default 256 KiB)\n"
	"  -o FILE           write the script's output to FILE\n"
	"  -S SIZE[,N]       with -o: FILE.0, FILE.1, ... of SIZE MiB each; keep the last N\n"
	"  -x PID            the process target() returns\n"
	"  -c CMD            run the shell command CMD (in the guest with --vm) once the\n"
	"                    module runs; target() is its process; its exit ends the run\n"
	"  -d PATH           carry the symbols of the program or library PATH (usymname(),\n"
	"                    print_ubacktrace() ...; -c's program and its libraries, and\n"
	"                    process(\"PATH\") programs, without asking); -d MODULE: kernel\n"
	"                    modules are all named already\n"
	"      --ldd         and those of the shared libraries they need\n"
	"  -F                detach once the begin probes ran: the session runs on with no\n"
	"                    reader (hwtap-run -L lists, -A NAME reattaches, -d NAME ends)\n"
	"      --textfile=FILE  replace FILE with the Prometheus metrics the script\n"
	"                    publishes (prometheus.stp)\n"
	"      --pprof=FILE  write the samples the script states (pprof.stp) to FILE as a\n"
	"                    gzipped pprof profile at the end\n"
	"      --ras-db=FILE  add the RAS events the script records (ras-history.stp) to\n"
	"                    FILE, rasdaemon's database (ras-mc-ctl reads it); with --vm,\n"
	"                    these three come home from the guest when the run ends\n"
	"  -j N              let at most N of the script's system() and trigger() commands\n"
	"                    run at once (1-64, default 4; more are refused, counted)\n"
	"      --vm          run in a QEMU guest (the default where this kernel cannot\n"
	"                    load modules); --vm-kernel=RELEASE (same as -r),\n"
	"                    --vm-cpus=N (2), --vm-mem=MB (512), --vm-modprobe=MODULE,\n"
	"                    --vm-file=SRC[:DST], --vm-timeout=SECONDS (none: until the\n"
	"                    script exits or is stopped; Ctrl-C runs its end probes),\n"
	"                    --vm-stop-timeout=SECONDS (60: how long a stopped script may\n"
	"                    take to end before the guest is stopped)\n"
	"      --list-kernels  list the installed kernels the guest can boot (of -a ARCH),\n"
	"                    and the default one\n"
	"      --kernel-features  print the -D flags of the target kernel's features, as\n"
	"                    modules are built with them (for modules built by hand)\n"
	"      --build FILE.c...  pass 4 alone, of C that hwtap -p3 -m NAME wrote: every\n"
	"                    file's module in one kbuild run (side by side), for the target\n"
	"                    kernel (-r, -a); prints each module's path in order\n"
	"      --vm-icount   run the guest under QEMU's icount, where arm64's PMU counts\n"
	"                    instructions too (one guest CPU, about 5 times slower)\n"
	"      --vm-kaslr    boot the guest's compressed kernel, which KASLR places at a\n"
	"                    random address as on a real machine (x86_64; 5 s slower)\n"
	"      --vm-cpu=MODEL  QEMU's CPU model for the guest (Skylake-Server, EPYC-Rome ...):\n"
	"                    the vendor, family and model its kernel and MCE records see\n"
	"      --vm-pcie     a PCI Express guest with a device at 01:00.0 whose root port's\n"
	"                    AER the kernel controls (hwtap-inject aer; x86_64)\n"
	"      --vm-ghes     an arm64 guest with an ACPI GHES error source, booted by UEFI\n"
	"                    firmware (hwtap-inject ghes raises firmware-first errors:\n"
	"                    ARM processor, vendors' and memory error sections; -a arm64)\n"
	"      --vm-append=WORDS  add WORDS to the guest kernel's command line\n"
	"                    (module.sig_enforce=1, lockdown=integrity ...)\n"
	"      --sign-key=KEY --sign-cert=CERT  sign the module with this private key\n"
	"                    (yours, mode 0600) and its X.509 certificate, for kernels that\n"
	"                    take only signed modules (Secure Boot); without them, the key\n"
	"                    pair /etc/hwtap/signing.conf names, if any (hwtap-keygen)\n"
	"      --no-sign     build the module unsigned, whatever signing.conf says\n"
	"      --pmu=MODEL   name perf.events for libpfm4's PMU model MODEL (skx, icl,\n"
	"                    amd64_fam19h_zen4 ...) instead of this machine's; the generic\n"
	"                    names (cycles, instructions ...) work for every model\n"
	"      --compatible=VERSION  the SystemTap version systemtap_v compares with (4.8)\n"
	"      --version     print the version and exit\n"
	"      --help        print this help and exit\n"
	"\n"
	"Pass 3 translates begin, init, end, error, timer, perf probes (perf.events with\n"
	"libpfm4's names too; sampling, or counting with .counter and @perf; system-wide,\n"
	".process, .process(\"PATH\") or a cgroup's, .cgroup(\"PATH\")), ras probes\n"
	"(ras.mce, ras.memory_failure and the kernel's other RAS tracepoints; stap's\n"
	"kernel.trace(\"mce:mce_record\") spelling too), process probes\n"
	"(process(\"PATH\").function(\"NAME\"), .return, .statement, with DWARF's variables;\n"
	"process(\"PATH\").begin, .end, .thread.begin, .thread.end) and kernel probes\n"
	"(kernel.function(\"GLOB\"), module(\"M\").function(\"GLOB\") and every tracepoint\n"
	"as kernel.trace(\"SYS:NAME\"), with BTF's types; with the kernel's DWARF,\n"
	"kernel.function(\"NAME@FILE\"), .inline, kernel.statement(\"NAME@FILE:LINE\");\n"
	"kprobe.function(\"NAME\")) with variables, arrays, statistics, histograms,\n"
	"functions, try/catch, regular expressions and printing.\n";

__attribute__((noreturn, format(printf, 1, 2)))
static void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hwtap: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'hwtap --help' for more information.\n", stderr);
	exit(1);
}

static int list_points(Session *s, const char *pattern, bool with_vars)
{
	const char *bad = point_pattern_error(pattern);
	if (bad) {
		fprintf(stderr, "hwtap: error: invalid probe point pattern '%s': %s\n", pattern,
			bad);
		return 1;
	}
	diag_reset();
	tapset_load_macros(s);
	tapset_load(s);
	tapset_parse_all(s);
	if (diag_errors)
		return 1;
	Vec out = {0};
	list_family_points(pattern, with_vars, s, &out);
	for (int i = 0; i < out.len; i++)
		puts(out.data[i]);
	if (!out.len) {
		fprintf(stderr, "hwtap: error: no probe point matches '%s'\n", pattern);
		return 1;
	}
	return 0;
}

static int parse_pass(const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);
	if (*end || n < 1 || n > 5)
		usage_error("invalid pass '%s': expected a number from 1 to 5", arg);
	return n;
}

static int positive(const char *arg, const char *option, long max)
{
	char *end;
	long n = strtol(arg, &end, 10);
	if (*end || n < 1 || n > max)
		usage_error("%s needs a number from 1 to %ld, not '%s'", option, max, arg);
	return n;
}

/* A module name is a C identifier of at most 55 characters (MODULE_NAME_LEN 56). */
static void check_module_name(const char *arg)
{
	size_t n = strlen(arg);
	if (!n || n > 55)
		usage_error("-m needs a module name of 1 to 55 characters, not '%s'", arg);
	for (size_t i = 0; i < n; i++)
		if (!(arg[i] == '_' || (arg[i] >= 'A' && arg[i] <= 'Z') ||
		      (arg[i] >= 'a' && arg[i] <= 'z') || (i && arg[i] >= '0' && arg[i] <= '9')))
			usage_error("-m name '%s' is not a valid module name (letters, digits, '_')",
				    arg);
}

static void check_define(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	if (!n)
		usage_error("-D needs NAME or NAME=VALUE, not '%s'", arg);
	for (size_t i = 0; i < n; i++)
		if (!(arg[i] == '_' || (arg[i] >= 'A' && arg[i] <= 'Z') ||
		      (arg[i] >= 'a' && arg[i] <= 'z') || (i && arg[i] >= '0' && arg[i] <= '9')))
			usage_error("-D name '%.*s' is not a valid C identifier", (int)n, arg);
}

/* -d: a user program or library by its path (one without '/' names a kernel module,
 * which kallsyms names anyway, as SystemTap's -d does for its symbols). */
static void add_symbol_file(Session *s, const char *arg)
{
	if (!*arg)
		usage_error("-d needs a program's or library's path");
	if (!strchr(arg, '/'))
		return;
	char real[PATH_MAX];
	if (*arg != '/' && realpath(arg, real))
		arg = xstrdup(real);
	vec_push(&s->symbol_files, (char *)arg);
}

/* hwtap --build FILE.c...: pass 4 of C that pass 3 wrote, all in one kbuild run. Each
 * file's module name is the one pass 3 wrote into it (its HWTAP_MODULE_NAME line). Prints
 * each module's path in order; 1 when any file was not built (said, and the others still
 * built and printed). */
static int build_c_files(Session *s, int n, char **files)
{
	if (n == 0)
		usage_error("--build needs the C files hwtap -p3 wrote");
	if (!s->kernel_release)
		session_set_kernel(s, NULL);
	char **names = xalloc(n * sizeof(*names)), **sources = xalloc(n * sizeof(*sources));
	char **kos = xalloc(n * sizeof(*kos));
	const char **what = xalloc(n * sizeof(*what));
	int bad = 0, m = 0;
	for (int i = 0; i < n; i++) {
		size_t len;
		char *text = read_whole_file(files[i], &len);
		const char *key = "\n#define HWTAP_MODULE_NAME \"";
		const char *at = text ? strstr(text, key) : NULL;
		const char *end = at ? strchr(at + strlen(key), '"') : NULL;
		char *name = end ? xstrndup(at + strlen(key), end - at - strlen(key)) : NULL;
		bool ok = name && *name && strlen(name) <= 55 && strlen(text) == len;
		for (const char *p = name; ok && *p; p++)
			ok = *p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
			     (p > name && *p >= '0' && *p <= '9');
		if (!text) {
			fprintf(stderr, "hwtap: error: --build: cannot read '%s': %s\n", files[i],
				strerror(errno));
			bad++;
		} else if (!ok) {
			fprintf(stderr, "hwtap: error: --build: '%s' is not C that hwtap -p3 wrote "
				"(no valid #define HWTAP_MODULE_NAME line)\n", files[i]);
			bad++;
		} else {
			names[m] = name;
			sources[m] = text;
			what[m++] = files[i];
		}
	}
	if (m && !sign_setup(s))
		return 1;
	int failed = m ? build_modules(s, m, names, sources, what, kos) : 0;
	for (int j = 0; j < m; j++)
		if (kos[j])
			puts(kos[j]);
	return bad || failed ? 1 : 0;
}

/* Passes 1-4 for one kernel: 0, or 1 after saying which pass failed. */
static int build_for(Session *s, const char *name, const char *text, size_t len)
{
	if (run_front_end(s, name, text, len) || run_back_end(s)) {
		fprintf(stderr, "hwtap: pass %d failed for kernel %s with %d error%s\n",
			s->failed_pass, s->kernel_release, diag_errors, diag_errors == 1 ? "" : "s");
		return 1;
	}
	return 0;
}

/* -p4 with several -r: the script built for each kernel in turn, each in a child of its
 * own (a session is one kernel's from pass 1 on: its BTF, its features, its config),
 * printing each module's path in order. 1 when any failed; the others are still built. */
static int each_kernel(Session *s, Vec *releases, const char *name, const char *text,
		       size_t len)
{
	int failed = 0;
	for (int i = 0; i < releases->len; i++) {
		fflush(stdout);
		fflush(stderr);
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "hwtap: error: cannot fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			session_set_kernel(s, releases->data[i]);
			int rc = build_for(s, name, text, len);
			fflush(stdout);
			_exit(rc);
		}
		int status;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	enum {
		OPT_VERSION = 256, OPT_HELP, OPT_COMPAT, OPT_VM, OPT_VM_CPUS, OPT_VM_MEM,
		OPT_VM_MODPROBE, OPT_VM_FILE, OPT_VM_TIMEOUT, OPT_VM_STOP_TIMEOUT, OPT_LIST_KERNELS, OPT_PMU,
		OPT_VM_ICOUNT, OPT_VM_KASLR, OPT_VM_CPU, OPT_KERNEL_FEATURES, OPT_TEXTFILE, OPT_PPROF, OPT_RAS_DB,
		OPT_LDD, OPT_VM_PCIE, OPT_VM_GHES, OPT_BUILD, OPT_VM_APPEND, OPT_SIGN_KEY,
		OPT_SIGN_CERT, OPT_NO_SIGN, OPT_BUNDLE,
	};
	static const struct option longopts[] = {
		{"version", no_argument, NULL, OPT_VERSION},
		{"help", no_argument, NULL, OPT_HELP},
		{"compatible", required_argument, NULL, OPT_COMPAT},
		{"vm", no_argument, NULL, OPT_VM},
		{"vm-cpus", required_argument, NULL, OPT_VM_CPUS},
		{"vm-mem", required_argument, NULL, OPT_VM_MEM},
		{"vm-kernel", required_argument, NULL, 'r'},
		{"vm-modprobe", required_argument, NULL, OPT_VM_MODPROBE},
		{"vm-file", required_argument, NULL, OPT_VM_FILE},
		{"vm-timeout", required_argument, NULL, OPT_VM_TIMEOUT},
		{"vm-stop-timeout", required_argument, NULL, OPT_VM_STOP_TIMEOUT},
		{"list-kernels", no_argument, NULL, OPT_LIST_KERNELS},
		{"arch", required_argument, NULL, 'a'},
		{"vm-arch", required_argument, NULL, 'a'},
		{"vm-icount", no_argument, NULL, OPT_VM_ICOUNT},
		{"vm-kaslr", no_argument, NULL, OPT_VM_KASLR},
		{"vm-cpu", required_argument, NULL, OPT_VM_CPU},
		{"vm-pcie", no_argument, NULL, OPT_VM_PCIE},
		{"vm-ghes", no_argument, NULL, OPT_VM_GHES},
		{"kernel-features", no_argument, NULL, OPT_KERNEL_FEATURES},
		{"pmu", required_argument, NULL, OPT_PMU},
		{"textfile", required_argument, NULL, OPT_TEXTFILE},
		{"pprof", required_argument, NULL, OPT_PPROF},
		{"ras-db", required_argument, NULL, OPT_RAS_DB},
		{"ldd", no_argument, NULL, OPT_LDD},
		{"build", no_argument, NULL, OPT_BUILD},
		{"vm-append", required_argument, NULL, OPT_VM_APPEND},
		{"sign-key", required_argument, NULL, OPT_SIGN_KEY},
		{"sign-cert", required_argument, NULL, OPT_SIGN_CERT},
		{"no-sign", no_argument, NULL, OPT_NO_SIGN},
		{"bundle", required_argument, NULL, OPT_BUNDLE},
		{0, 0, 0, 0},
	};
	Session s;
	session_init(&s);
	const char *inline_script = NULL, *list = NULL, *release = NULL;
	Vec releases = {0};             /* every -r: several make one module each (-p4) */
	bool list_vars = false;
	const char *bad;
	int c;
	opterr = 0;
	bool list_kernels = false, print_features = false, build_c = false;
	while ((c = getopt_long(argc, argv, "+:p:e:I:D:r:m:s:o:S:x:c:j:Fa:gkvl:L:hd:", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': check_module_name(optarg); s.module_name = optarg; break;
		case 's': s.bufsize_mb = positive(optarg, "-s", 4096); break;
		case 'o': s.output_file = optarg; break;
		case 'S': s.file_limits = optarg; break;
		case 'c': s.command = optarg; break;
		case 'j': s.max_commands = positive(optarg, "-j", 64); break;
		case 'F': s.detach = true; break;
		case 'x': s.target_pid = positive(optarg, "-x", 4194304); break;
		case OPT_VM: s.vm = true; break;
		case OPT_VM_CPUS: s.vm_cpus = positive(optarg, "--vm-cpus", 64); break;
		case OPT_VM_MEM: s.vm_mem = positive(optarg, "--vm-mem", 65536); break;
		case OPT_VM_TIMEOUT: s.vm_timeout = positive(optarg, "--vm-timeout", 86400); break;
		case OPT_VM_STOP_TIMEOUT:
			s.vm_stop_timeout = positive(optarg, "--vm-stop-timeout", 86400);
			break;
		case OPT_VM_MODPROBE: vec_push(&s.vm_modprobe, optarg); break;
		case OPT_VM_FILE: vec_push(&s.vm_files, optarg); break;
		case 'd': add_symbol_file(&s, optarg); break;
		case OPT_LDD: s.ldd = true; break;
		case 'p': s.pass = parse_pass(optarg); break;
		case 'e': inline_script = optarg; break;
		case 'I': vec_push(&s.include_dirs, optarg); break;
		case 'D': check_define(optarg); vec_push(&s.defines, optarg); break;
		case 'r':
			for (int i = 0; i < releases.len; i++)
				if (!strcmp(releases.data[i], optarg))
					usage_error("-r %s is given twice", optarg);
			vec_push(&releases, optarg);
			release = optarg;
			break;
		case 'a':
			if (!(s.target_arch = guest_find_arch(optarg)))
				usage_error("-a: unknown architecture '%s': expected %s", optarg,
					    guest_arch_names());
			s.vm |= !guest_arch_is_host(s.target_arch);
			break;
		case OPT_VM_ICOUNT: s.vm_icount = true; break;
		case OPT_VM_KASLR: s.vm_kaslr = true; break;
		case OPT_VM_CPU: s.vm_cpu = optarg; break;
		case OPT_VM_PCIE: s.vm_pcie = true; break;
		case OPT_VM_GHES: s.vm_ghes = true; break;
		case OPT_VM_APPEND:
			if ((bad = guest_append_error(optarg)))
				usage_error("--vm-append: %s", bad);
			s.vm_append = optarg;
			s.vm = true;
			break;
		case OPT_SIGN_KEY: s.sign_key = *optarg ? optarg : NULL; break;
		case OPT_SIGN_CERT: s.sign_cert = *optarg ? optarg : NULL; break;
		case OPT_NO_SIGN: s.no_sign = true; break;
		case OPT_BUNDLE:
			if (!*optarg)
				usage_error("--bundle needs a folder");
			s.bundle = optarg;
			break;
		case 'g': s.guru = true; break;
		case 'v': s.verbose++; break;
		case 'k': s.keep_build = true; break;
		case 'l': list = optarg; list_vars = false; break;
		case 'L': list = optarg; list_vars = true; break;
		case 'h':
		case OPT_HELP: fputs(usage_text, stdout); return 0;
		case OPT_VERSION:
			printf("hwtap %s (SystemTap language %s)\n", PACKAGE_VERSION, s.compat);
			return 0;
		case OPT_COMPAT: s.compat = optarg; break;
		case OPT_LIST_KERNELS: list_kernels = true; break;
		case OPT_KERNEL_FEATURES: print_features = true; break;
		case OPT_BUILD: build_c = true; break;
		case OPT_TEXTFILE: s.textfile = optarg; break;
		case OPT_PPROF: s.pprof = optarg; break;
		case OPT_RAS_DB: s.ras_db = optarg; break;
		case OPT_PMU:
			if ((bad = pmu_select_model(optarg)))
				usage_error("--pmu: %s", bad);
			break;
		case ':':
			if (optopt)
				usage_error("option '-%c' needs an argument", optopt);
			usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (s.file_limits && !s.output_file)
		usage_error("-S needs -o FILE: the files are FILE.0, FILE.1, ...");
	if (releases.len > 1 && s.pass != 4)
		usage_error("-r %s -r %s ...: a module for each of several kernels is pass 4's: add "
			    "-p4 (and --bundle DIR to gather them for hwtap-run)",
			    (char *)releases.data[0], (char *)releases.data[1]);
	if (s.bundle && s.pass != 4)
		usage_error("--bundle DIR gathers what pass 4 builds: add -p4");
	if (s.bundle || releases.len > 1)
		s.name_any_kernel = true;
	if (list_kernels)
		return guest_list_kernels(s.target_arch, stdout);
	if (release || s.target_arch)
		session_set_kernel(&s, release);
	if (print_features) {
		char *flags = kernel_features(&s);
		if (flags)
			puts(flags);
		return flags ? 0 : 1;
	}
	if (build_c)
		return build_c_files(&s, argc - optind, argv + optind);
	if (s.command && s.target_pid)
		usage_error("-c and -x both name the target process: use one");
	for (int i = 0; i < s.symbol_files.len; i++) {
		const char *why = NULL;
		if (!uprog_open(&s, s.symbol_files.data[i], &why))
			usage_error("-d %s: %s", (char *)s.symbol_files.data[i], why);
	}
	if (list)
		return list_points(&s, list, list_vars);

	const char *name, *text;
	size_t len;
	if (inline_script) {
		name = "<input>";
		text = inline_script;
		len = strlen(text);
	} else {
		if (optind >= argc)
			usage_error("no script given: name a file, '-' for standard input, or use -e");
		name = argv[optind++];
		text = read_whole_file(name, &len);
		if (!text) {
			fprintf(stderr, "hwtap: error: cannot read script '%s': %s\n", name,
				strerror(errno));
			return 1;
		}
	}
	for (; optind < argc; optind++)
		vec_push(&s.args, argv[optind]);
	if (releases.len > 1)
		return each_kernel(&s, &releases, name, text, len);
	if (run_front_end(&s, name, text, len) || (s.pass > 2 && run_back_end(&s) &&
						     s.failed_pass < 5)) {
		fprintf(stderr, "hwtap: pass %d failed with %d error%s\n", s.failed_pass,
			diag_errors, diag_errors == 1 ? "" : "s");
		return 1;
	}
	return s.pass == 5 ? s.exit_status : 0;
}
