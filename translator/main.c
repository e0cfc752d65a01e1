/* main.c - the hwtap command line: options in SystemTap's spelling where they overlap. */
#include "hwtap.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

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
	"                    2 elaborate (prints probes, globals and functions)\n"
	"  -e SCRIPT         run the script given on the command line\n"
	"  -I DIR            also search DIR for tapset .stp and .stpm files\n"
	"  -D NAME=VALUE     set a limit (MAXACTION, MAXMAPENTRIES, ...) for the module\n"
	"  -r RELEASE|DIR    target kernel release, or its build tree\n"
	"  -g                guru mode: allow embedded C in the script\n"
	"  -v                more messages (repeat for more)\n"
	"  -l PATTERN        list the probe points that match PATTERN, e.g. 'timer.*'\n"
	"  -L PATTERN        the same, with each point's context variables\n"
	"      --compatible=VERSION  the SystemTap version systemtap_v compares with (4.8)\n"
	"      --version     print the version and exit\n"
	"      --help        print this help and exit\n"
	"\n"
	"Passes 3-5 (C code, kernel module, run) are not part of this version yet.\n";

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

int main(int argc, char **argv)
{
	enum { OPT_VERSION = 256, OPT_HELP, OPT_COMPAT };
	static const struct option longopts[] = {
		{"version", no_argument, NULL, OPT_VERSION},
		{"help", no_argument, NULL, OPT_HELP},
		{"compatible", required_argument, NULL, OPT_COMPAT},
		{0, 0, 0, 0},
	};
	Session s;
	session_init(&s);
	const char *inline_script = NULL, *list = NULL, *release = NULL;
	bool list_vars = false;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:e:I:D:r:gvl:L:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': s.pass = parse_pass(optarg); break;
		case 'e': inline_script = optarg; break;
		case 'I': vec_push(&s.include_dirs, optarg); break;
		case 'D': check_define(optarg); vec_push(&s.defines, optarg); break;
		case 'r': release = optarg; break;
		case 'g': s.guru = true; break;
		case 'v': s.verbose++; break;
		case 'l': list = optarg; list_vars = false; break;
		case 'L': list = optarg; list_vars = true; break;
		case 'h':
		case OPT_HELP: fputs(usage_text, stdout); return 0;
		case OPT_VERSION:
			printf("hwtap %s (SystemTap language %s)\n", PACKAGE_VERSION, s.compat);
			return 0;
		case OPT_COMPAT: s.compat = optarg; break;
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
	if (release)
		session_set_kernel(&s, release);
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
	if (s.pass > 2) {
		fputs("hwtap: error: passes 3-5 (C code, kernel module, run) are not part of this "
		      "version yet; use -p1 or -p2\n", stderr);
		return 1;
	}
	if (run_front_end(&s, name, text, len)) {
		fprintf(stderr, "hwtap: pass %d failed with %d error%s\n", s.failed_pass,
			diag_errors, diag_errors == 1 ? "" : "s");
		return 1;
	}
	return 0;
}
