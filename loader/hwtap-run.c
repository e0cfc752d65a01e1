/* hwtap-run.c - load a hwtap module, relay its output, stop it, unload it.
 *
 *   hwtap-run [-o FILE] [-c CMD] [-j N] [-D] [-v] MODULE.ko|BUNDLE [PARAM=VALUE ...]
 *   hwtap-run -A NAME | -d NAME | -d '*' | -L [--json]
 *   hwtap-run --snapshot NAME | --pstore [PATH ...]
 *
 * 1. Checks: root; a BUNDLE (a folder: hwtap -p4 --bundle) gives the module built for the
 *    running kernel (modinfo_pick); MODULE.ko's .modinfo (name, vermagic, parameters)
 *    read with libelf; vermagic's kernel release against uname -r; each PARAM against
 *    the module's own.
 * 2. finit_module(MODULE.ko, "PARAM=VALUE ...").
 * 3. Opens /proc/hwtap_NAME/out and ctl (runtime/protocol.h); a child process writes
 *    "start" to ctl: the module runs its begin probes and starts its other probes, and
 *    the write fails with their error, which the child's exit status carries. Meanwhile
 *    the parent reads, so that begin output can be larger than the buffers.
 * 4. Relays the records of `out' until end of file: stream 1 to stdout (or FILE), stream 2
 *    (ERROR:/WARNING: messages) to stderr, each batch with one write per stream run, so
 *    the two stay in order; stream 3 (system(), trigger()) starts `sh -c COMMAND' with
 *    HWTAP_EVENT in its environment, at most -j at once (more are refused, counted), never
 *    waited for while relaying. SIGINT, SIGTERM and SIGHUP write "stop" to ctl: the module
 *    stops its probes, runs its end probes and closes `out'; the relay goes on to the end.
 * 5. Reads the counters from ctl; reports errors and skipped probes the way SystemTap
 *    does, and dropped records and commands; closes the files and unloads the module
 *    (delete_module, O_NONBLOCK, retried while the kernel says busy); waits for the
 *    commands still running (HWTAP_COMMAND_WAIT seconds at most).
 *
 * Persistent sessions (protocol.h): -D detaches once the begin probes ran: the session goes
 * on with no reader, its buffers a flight recorder; it prints the session's name. -A NAME
 * reattaches (what was kept first, with the number overwritten; a stop signal detaches
 * again; the session's own end unloads it), -d NAME stops one (its end probes' output
 * relayed) and unloads it, -d '*' every detached one, -L lists them. --pstore, after a
 * panic and the reboot, shows what each session had not delivered (pstore.c).
 *
 * Exit status: 0 for a clean run; 1 when the run had errors or could not start, or when
 * anything here failed. Linked statically: it runs in hwtap's busybox guest as it is.
 */
#define _GNU_SOURCE
#include "run.h"
#include "../runtime/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <ctype.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNLOAD_TRIES    500             /* delete_module retries, 10 ms apart */
#define READ_SIZE       65536
#define DEFAULT_COMMANDS 4

static const char usage_text[] =
	"Usage: hwtap-run [-o FILE] [--mode MODE] [-c CMD] [-j N] [-D] [--json] [-v] MODULE.ko\n"
	"                 [PARAM=VALUE ...]\n"
	"       hwtap-run [-o FILE] [--json] [-v] -A NAME | -d NAME | -d '*'\n"
	"       hwtap-run -L [--json]\n"
	"       hwtap-run [-o FILE] [--json] --snapshot NAME\n"
	"       hwtap-run [-o FILE] [--json] --pstore [PATH ...]\n"
	"Load a kernel module built by hwtap, relay its output until it ends, unload it.\n"
	"MODULE.ko may be a folder of one script's modules for many kernels (hwtap -p4\n"
	"--bundle): the one built for this kernel is loaded.\n"
	"\n"
	"  -o FILE    write the script's output to FILE instead of stdout\n"
	"  -S SIZE[,N]  with -o: FILE.0, FILE.1, ..., each up to SIZE MiB; keep the last N\n"
	"  -c CMD     run the shell command CMD once the module runs; target() is its\n"
	"             process; when it exits, the end probes run\n"
	"  -j N       let at most N commands of the script's system() and trigger() run\n"
	"             at once (1-64, default 4); more are refused and counted\n"
	"  -D         detach once the begin probes ran: the session goes on with no reader\n"
	"             (its buffers keep the newest records); prints the session's name\n"
	"  -A NAME    reattach to session NAME: what was kept, then live output; SIGINT,\n"
	"             SIGTERM or SIGHUP detach again\n"
	"  -d NAME    stop session NAME ('*': every detached one), relaying its end\n"
	"             probes' output, and unload it\n"
	"  -L         list the sessions running here (--json: one JSON object per line)\n"
	"  --snapshot NAME  a copy of what session NAME's buffers hold, leaving them as they\n"
	"             are (the reader, attached or to come, still gets it all)\n"
	"  --pstore [PATH ...]  after a panic and reboot: each session's output that nobody\n"
	"             had read, from pstore's files (default /sys/fs/pstore and\n"
	"             /var/lib/systemd/pstore)\n"
	"  --textfile FILE  replace FILE with the Prometheus metrics the script publishes\n"
	"             (tapset prometheus.stp), for node_exporter's textfile collector\n"
	"  --pprof FILE  write the samples the script states (tapset pprof.stp) to FILE at\n"
	"             the end, as a gzipped pprof profile (go tool pprof, Pyroscope, Parca)\n"
	"  --ras-db FILE  add the RAS events the script records (tapset ras-history.stp)\n"
	"             to FILE, rasdaemon's SQLite database (its tables made where missing),\n"
	"             for ras-mc-ctl --summary and --errors\n"
	"  --mode MODE  the permissions of the files it creates, in octal (default 0600\n"
	"             for -o, 0644 for --textfile, which node_exporter reads)\n"
	"  --json     each line of the script's output as a JSON object with the host,\n"
	"             session and time; a line that is an object gets them as its first keys\n"
	"  -v         say what happens, with timings\n"
	"  -h         print this help and exit\n"
	"\n"
	"SIGINT, SIGTERM and SIGHUP stop the probes; the end probes still run and their\n"
	"output is relayed. Exit status: 0 for a clean run, 1 after script errors or any\n"
	"failure. Must run as root.\n";

static volatile sig_atomic_t caught_signal;
static volatile sig_atomic_t signals_caught;    /* stop signals so far */

/* ---- messages ------------------------------------------------------------------------- */

void run_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hwtap-run: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

__attribute__((noreturn, format(printf, 1, 2)))
static void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hwtap-run: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'hwtap-run -h' for more information.\n", stderr);
	exit(1);
}

double run_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* -v: "hwtap-run: NAME: MESSAGE (at T ms)". */
void run_note(const Run *r, const char *fmt, ...)
{
	if (!r->verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "hwtap-run: %s: ", r->mi.name ? r->mi.name : r->ko);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (at %.1f ms)\n", (run_now() - r->t0) * 1e3);
	va_end(ap);
}

char *run_format(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		fputs("hwtap-run: error: out of memory\n", stderr);
		exit(1);
	}
	va_end(ap);
	return s;
}

/* "MODULE.ko (module NAME, parameters 'P')": what every error about the module says. */
static char *describe(const Run *r)
{
	if (!r->param_string || !*r->param_string)
		return run_format("%s (module %s, no parameters)", r->ko, r->mi.name);
	return run_format("%s (module %s, parameters '%s')", r->ko, r->mi.name, r->param_string);
}

/* ---- checks before loading ------------------------------------------------------------ */

/* -S SIZE[,N], as SystemTap's: MiB per output file, and how many files to keep (all when
 * N is left out). */
static void parse_file_limits(Run *r, const char *arg)
{
	char *end;
	r->file_mb = strtol(arg, &end, 10);
	r->file_count = 0;
	bool count = *end == ',';
	if (count)
		r->file_count = strtol(end + 1, &end, 10);
	if (*end || r->file_mb < 1 || r->file_mb > 1048576 ||
	    (count && (r->file_count < 1 || r->file_count > 100000)))
		usage_error("-S %s: expected SIZE[,N]: MiB per output file (1 to 1048576) and "
			    "how many files to keep (1 to 100000)", arg);
}

static void parse_args(int argc, char **argv, Run *r)
{
	int c;
	opterr = 0;
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'J'},
		{"textfile", required_argument, NULL, 'T'},
		{"pprof", required_argument, NULL, 'F'},
		{"ras-db", required_argument, NULL, 'R'},
		{"snapshot", required_argument, NULL, 'P'},
		{"pstore", no_argument, NULL, 'K'},
		{"mode", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0},
	};
	while ((c = getopt_long(argc, argv, "+:o:S:c:j:DA:d:Lvh", longopts, NULL)) != -1) {
		char *end;
		enum mode m = MODE_RUN;
		switch (c) {
		case 'D': m = MODE_DETACH; break;
		case 'A': m = MODE_ATTACH; r->session = optarg; break;
		case 'd': m = MODE_DELETE; r->session = optarg; break;
		case 'L': m = MODE_LIST; break;
		case 'P': m = MODE_SNAPSHOT; r->session = optarg; break;
		case 'K': m = MODE_PSTORE; break;
		case 'J': r->json = true; break;
		case 'T': r->textfile = optarg; break;
		case 'F': r->pprof = optarg; break;
		case 'R': r->ras_db = optarg; break;
		case 'M':
			errno = 0;
			r->file_perm = (int)strtol(optarg, &end, 8);
			if (errno || *end || !*optarg || r->file_perm < 0 || r->file_perm > 0777)
				usage_error("--mode needs permissions in octal, 0 to 0777, not '%s'",
					    optarg);
			break;
		case 'o': r->output = optarg; break;
		case 'S': parse_file_limits(r, optarg); break;
		case 'c': r->command = optarg; break;
		case 'j':
			r->max_commands = strtol(optarg, &end, 10);
			if (*end || end == optarg || r->max_commands < 1 ||
			    r->max_commands > MAX_COMMANDS)
				usage_error("-j %s: the number of commands at once must be 1 to %d",
					    optarg, MAX_COMMANDS);
			break;
		case 'v': r->verbose++; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case ':': usage_error("option '-%c' needs a value", optopt);
		default:
			if (optopt)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
		if (m != MODE_RUN) {
			if (r->mode != MODE_RUN && r->mode != m)
				usage_error("-D, -A, -d, -L, --snapshot and --pstore go one at a "
					    "time");
			r->mode = m;
		}
	}
	if (r->file_mb && !r->output)
		usage_error("-S needs -o FILE: the files are FILE.0, FILE.1, ...");
	if (r->ras_db && r->mode != MODE_RUN && r->mode != MODE_ATTACH && r->mode != MODE_DELETE)
		usage_error("--ras-db goes with a module to run, -A or -d (what reads the output)");
	if (r->mode == MODE_PSTORE) {
		if (r->command)
			usage_error("-c goes with a module to load, not --pstore");
		r->params = argv + optind;
		r->nparams = argc - optind;
		return;
	}
	if (r->mode == MODE_ATTACH || r->mode == MODE_DELETE || r->mode == MODE_LIST ||
	    r->mode == MODE_SNAPSHOT) {
		if (optind < argc)
			usage_error("%s takes no module: '%s'", r->mode == MODE_ATTACH ? "-A" :
				    r->mode == MODE_DELETE ? "-d" : r->mode == MODE_LIST ? "-L" :
				    "--snapshot", argv[optind]);
		if (r->command)
			usage_error("-c goes with a module to load, not -A, -d or -L");
		bool all = r->mode == MODE_DELETE && !strcmp(r->session, "*");
		if (r->session && !all && !session_name_ok(r->session))
			usage_error("'%s' is not a session name (letters, digits and '_', at most "
				    "%d)", r->session, SESSION_NAME_MAX);
		return;
	}
	if (r->mode == MODE_DETACH && r->command)
		usage_error("-D and -c: the command would end a session meant to go on");
	if (optind >= argc)
		usage_error("no module given (hwtap-run [-o FILE] [-c CMD] [-j N] [-v] MODULE.ko "
			    "[PARAM=VALUE ...])");
	r->ko = argv[optind];
	r->params = argv + optind + 1;
	r->nparams = argc - optind - 1;
}

/* Why WORD (PARAM[=VALUE]) cannot go to the module, or NULL when it can. */
static char *param_problem(const Run *r, const char *word, int name_len)
{
	if (!name_len)
		return run_format("%s: parameter '%s' has no name", r->ko, word);
	if (!modinfo_has_param(&r->mi, word, name_len))
		return run_format("%s (module %s) has no parameter '%.*s'", r->ko, r->mi.name,
			       name_len, word);
	if (strchr(word + name_len, '"'))
		return run_format("%s: parameter '%.*s': a value cannot hold '\"'", r->ko, name_len,
			       word);
	return NULL;
}

/* One PARAM[=VALUE] word for finit_module: a value with white space gets double quotes.
 * NULL (and a message) when the module does not take it. */
static char *param_word(const Run *r, const char *word)
{
	int name_len = strcspn(word, "=");
	char *problem = param_problem(r, word, name_len);
	if (problem) {
		run_error("%s", problem);
		free(problem);
		return NULL;
	}
	const char *value = word + name_len;
	if (*value && value[strcspn(value, " \t\n")])
		return run_format("%.*s=\"%s\"", name_len, word, value + 1);
	return run_format("%s", word);
}

/* Whether the parameters given name NAME (NAME=...). */
static bool param_given(const Run *r, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < r->nparams; i++)
		if (!strncmp(r->params[i], name, n) && r->params[i][n] == '=')
			return true;
	return false;
}

/* " hwtap_tz_gmtoff=N hwtap_tz_name=NAME" for a module that takes them and was not given
 * them: this machine's time zone now, as staprun gives SystemTap's modules theirs (the
 * name only when it is a plain one: letters, digits, '+', '-', 15 bytes at most). */
static char *tz_params(const Run *r)
{
	time_t now = time(NULL);
	struct tm tm;
	if (!localtime_r(&now, &tm))
		return run_format("%s", "");
	char *off = modinfo_has_param(&r->mi, "hwtap_tz_gmtoff", 15) &&
		    !param_given(r, "hwtap_tz_gmtoff") ?
		    run_format(" hwtap_tz_gmtoff=%ld", -(long)tm.tm_gmtoff) : run_format("%s", "");
	const char *zone = tm.tm_zone ? tm.tm_zone : "";
	bool plain = *zone && strlen(zone) < 16;
	for (const char *c = zone; *c; c++)
		plain &= isalnum((unsigned char)*c) || *c == '+' || *c == '-';
	char *name = plain && modinfo_has_param(&r->mi, "hwtap_tz_name", 13) &&
		     !param_given(r, "hwtap_tz_name") ?
		     run_format("%s hwtap_tz_name=%s", off, zone) : run_format("%s", off);
	free(off);
	return name;
}

static int build_param_string(Run *r)
{
	char *s = run_format("%s", "");
	for (int i = 0; i < r->nparams; i++) {
		char *w = param_word(r, r->params[i]);
		if (!w) {
			free(s);
			return -1;
		}
		char *t = run_format("%s%s%s", s, *s ? " " : "", w);
		free(s);
		free(w);
		s = t;
	}
	r->param_string = s;
	return 0;
}

/* The module's .modinfo: an ELF module for this kernel release, with these parameters. */
static int check_module(Run *r)
{
	char *why;
	struct utsname u;
	uname(&u);
	struct stat st;
	if (!stat(r->ko, &st) && S_ISDIR(st.st_mode)) {
		char *ko = modinfo_pick(r->ko, u.release, &why);
		if (!ko) {
			run_error("%s", why);
			free(why);
			return -1;
		}
		run_note(r, "the module for kernel %s is %s", u.release, ko);
		r->ko = ko;
	}
	if (modinfo_read(r->ko, &r->mi, &why)) {
		run_error("%s", why);
		free(why);
		return -1;
	}
	if (strcmp(r->mi.release, u.release)) {
		run_error("%s was built for kernel %s, but this kernel is %s", r->ko, r->mi.release,
		      u.release);
		return -1;
	}
	return build_param_string(r);
}

/* A file root writes where others may shape the path: NAME itself not followed if a link,
 * not waited on if a FIFO (no reader: refused), created with MODE. The descriptor, or -1
 * after a message naming WHAT. */
static int open_for_root(const char *name, int flags, int mode, const char *what)
{
	int fd = open(name, flags | O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode);
	if (fd < 0) {
		if (errno == ELOOP)
			run_error("refusing the %s %s: it is a symbolic link (hwtap-run does not follow "
			      "one; name its target)", what, name);
		else if (errno == ENXIO)
			run_error("refusing the %s %s: it is a FIFO nobody reads", what, name);
		else
			run_error("cannot open the %s %s: %s", what, name, strerror(errno));
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* -S: FILE.K, K counting from 0 as SystemTap names them. */
static int open_output_file(Run *r)
{
	char *name = r->file_mb ? run_format("%s.%ld", r->output, r->file_index) :
		     run_format("%s", r->output);
	int fd = open_for_root(name, O_CREAT | O_TRUNC, r->file_perm >= 0 ? r->file_perm : 0600,
			       "output file");
	if (fd < 0) {
		free(name);
		return -1;
	}
	r->sinks[HWTAP_STREAM_OUT] = (Sink){ .fd = fd, .name = name };
	r->file_bytes = 0;
	if (r->file_count && r->file_index >= r->file_count) {
		char *old = run_format("%s.%ld", r->output, r->file_index - r->file_count);
		if (unlink(old) && errno != ENOENT)
			run_error("cannot remove the old output file %s: %s", old, strerror(errno));
		free(old);
	}
	return 0;
}

static int open_output(Run *r)
{
	r->sinks[HWTAP_STREAM_OUT] = (Sink){ .fd = 1, .name = "stdout" };
	r->sinks[HWTAP_STREAM_ERR] = (Sink){ .fd = 2, .name = "stderr" };
	if (!r->output)
		return 0;
	return open_output_file(r);
}

static void send_stop(Run *r, const char *why);

/* -S: before LEN more bytes of output, the next file if they would pass SIZE. */
static void rotate_output(Run *r, size_t len)
{
	Sink *s = &r->sinks[HWTAP_STREAM_OUT];
	if (!r->file_mb || s->failed || !r->file_bytes ||
	    r->file_bytes + (long long)len <= r->file_mb * 1048576LL)
		return;
	close(s->fd);
	r->file_index++;
	if (open_output_file(r)) {
		s->failed = true;
		r->failed = true;
		if (!r->stop_sent)
			send_stop(r, "the output failed");
	}
}

/* ---- signals -------------------------------------------------------------------------- */

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static const char *signal_name(int sig);

static void on_stop_signal(int sig)
{
	caught_signal = sig;
	signals_caught++;
}

static void on_child(int sig)
{
	(void)sig;      /* only to end ppoll(): watch_command() looks at the children */
}

/* The stop signals and SIGCHLD stay blocked except while waiting for output (ppoll), so
 * that one arriving at any moment is seen before the next wait: a stop, or the starter or
 * the -c command ending, ends the wait without any periodic wakeup. */
static void setup_signals(Run *r)
{
	sigset_t block;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&block, stop_signals[i]);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &r->wait_mask);
	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		sigdelset(&r->wait_mask, stop_signals[i]);
		sigaction(stop_signals[i], &sa, NULL);
	}
	sa.sa_handler = on_child;
	sigdelset(&r->wait_mask, SIGCHLD);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- load and unload ------------------------------------------------------------------ */

static void explain_load_error(const Run *r, int err)
{
	char *what = describe(r);
	switch (err) {
	case EEXIST:
		run_error("cannot load %s: a module named '%s' is already loaded (another hwtap-run "
		      "may be using it; 'rmmod %s' unloads it)", what, r->mi.name, r->mi.name);
		break;
	case ENOEXEC:
		run_error("cannot load %s: the kernel does not take it as a module (%s)", what,
		      strerror(err));
		break;
	case EPERM:
	case EKEYREJECTED:
	case ENOKEY:
	case EBADMSG:
		run_error("cannot load %s: %s", what, modsig_explain(r->ko, err));
		break;
	default:
		run_error("cannot load %s: %s; the kernel log (dmesg) may say more", what,
		      strerror(err));
	}
	free(what);
}

static int load(Run *r)
{
	run_note(r, "loading %s, built for %s, parameters '%s'", r->ko, r->mi.release,
	     r->param_string);
	int fd = open(r->ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		run_error("cannot open %s: %s", r->ko, strerror(errno));
		return -1;
	}
	/* (the time zone's, not in the messages that name the parameters given) */
	char *tz = tz_params(r), *all = run_format("%s%s", r->param_string,
						    *r->param_string ? tz : tz + (*tz == ' '));
	free(tz);
	int rc = syscall(SYS_finit_module, fd, all, 0);
	int err = errno;
	free(all);
	close(fd);
	if (rc) {
		explain_load_error(r, err);
		return -1;
	}
	run_note(r, "loaded");
	return 0;
}

static void close_files(Run *r)
{
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->ctl_fd >= 0)
		close(r->ctl_fd);
	if (r->usyms_fd >= 0) {
		usyms_finish(&r->usyms);
		close(r->usyms_fd);
	}
	r->out_fd = r->ctl_fd = r->usyms_fd = -1;
}

static int unload(Run *r)
{
	close_files(r);
	for (int i = 0;; i++) {
		if (!syscall(SYS_delete_module, r->mi.name, O_NONBLOCK)) {
			run_note(r, "unloaded");
			return 0;
		}
		if (errno == ENOENT) {
			run_note(r, "already unloaded");
			return 0;
		}
		if ((errno != EAGAIN && errno != EBUSY) || i == UNLOAD_TRIES)
			break;
		usleep(10000);
	}
	if (errno == EAGAIN || errno == EBUSY)  /* pinned (runtime/taskwork.h), or in use */
		run_error("cannot unload module %s yet: it is in use (the warnings above may say "
			  "by what); 'rmmod %s' unloads it once it is not", r->mi.name, r->mi.name);
	else
		run_error("cannot unload module %s (from %s): %s; 'rmmod %s' may", r->mi.name,
			  r->ko, strerror(errno), r->mi.name);
	return -1;
}

/* ---- the session ---------------------------------------------------------------------- */

static int write_ctl(Run *r, const char *cmd)
{
	char line[16];
	int n = snprintf(line, sizeof(line), "%s\n", cmd);
	return write(r->ctl_fd, line, n) == n ? 0 : -1;
}

static int open_proc_files(Run *r)
{
	r->out_path = run_format("/proc/" HWTAP_PROC_PREFIX "%s/" HWTAP_PROC_OUT, r->mi.name);
	r->ctl_path = run_format("/proc/" HWTAP_PROC_PREFIX "%s/" HWTAP_PROC_CTL, r->mi.name);
	r->out_fd = open(r->out_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->out_fd < 0 && errno == EBUSY) {
		run_error("session %s already has a reader (one at a time); it detaches with SIGINT",
		      r->mi.name);
		return -1;
	}
	if (r->out_fd < 0) {
		run_error("module %s: cannot open %s: %s%s", r->mi.name, r->out_path, strerror(errno),
		      errno == ENOENT ? " (not a module built by hwtap?)" : "");
		return -1;
	}
	r->ctl_fd = open(r->ctl_path, O_RDWR | O_CLOEXEC);
	if (r->ctl_fd < 0) {
		run_error("module %s: cannot open %s: %s", r->mi.name, r->ctl_path, strerror(errno));
		close_files(r);
		return -1;
	}
	/* a module that names user code asks for the symbols of what processes map */
	char *usyms = run_format("/proc/" HWTAP_PROC_PREFIX "%s/" HWTAP_PROC_USYMS, r->mi.name);
	r->usyms_fd = open(usyms, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (r->usyms_fd < 0 && errno != ENOENT)
		fprintf(stderr, "hwtap-run: warning: session %s: cannot open %s (%s): programs "
			"nobody named go unnamed\n", r->mi.name, usyms, strerror(errno));
	if (r->usyms_fd >= 0)
		usyms_init(&r->usyms, r->mi.name, r->verbose);
	free(usyms);
	return 0;
}

/* A child writes "start": the begin probes run in its context while we read their
 * output. It exits with 0 or the start's errno. */
static int start(Run *r)
{
	fflush(NULL);
	r->starter = fork();
	if (r->starter < 0) {
		run_error("module %s: cannot fork: %s", r->mi.name, strerror(errno));
		return -1;
	}
	if (r->starter == 0) {
		double t = run_now();
		if (write_ctl(r, HWTAP_CTL_START))
			_exit(errno & 0xff ? errno & 0xff : EIO);
		run_note(r, "started in %.1f ms", (run_now() - t) * 1e3);
		_exit(0);
	}
	return 0;
}

/* The start's result, once the output ended (the start has returned by then): 0 or its
 * errno. */
static int start_result(Run *r)
{
	int status = r->starter_status;
	while (!r->starter_reaped && waitpid(r->starter, &status, 0) < 0)
		if (errno != EINTR)
			return ECHILD;
	r->starter_reaped = true;
	if (!WIFEXITED(status))
		return EINTR;
	return WEXITSTATUS(status);
}

/* ---- -c CMD ------------------------------------------------------------------------- */

/* The command's process exists before the module loads (target() is its pid) and waits on
 * a pipe: one byte runs the command, end of file without one ends it. */
static int fork_command(Run *r)
{
	int gate[2];
	if (pipe2(gate, O_CLOEXEC)) {
		run_error("cannot run '%s': %s", r->command, strerror(errno));
		return -1;
	}
	fflush(NULL);
	r->cmd_pid = fork();
	if (r->cmd_pid < 0) {
		run_error("cannot run '%s': %s", r->command, strerror(errno));
		return -1;
	}
	if (r->cmd_pid == 0) {
		char go;
		close(gate[1]);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (read(gate[0], &go, 1) != 1)
			_exit(127);
		close(gate[0]);
		execl("/bin/sh", "sh", "-c", r->command, (char *)NULL);
		_exit(127);
	}
	close(gate[0]);
	r->cmd_gate = gate[1];
	return 0;
}

static void drain_available(Run *r);
static void send_stop(Run *r, const char *why);

/* Called as the relay loop turns: runs the command once the start succeeded, and stops
 * the session when the command has exited. */
static void watch_command(Run *r)
{
	if (!r->cmd_pid || r->cmd_done)
		return;
	if (!r->starter_reaped && waitpid(r->starter, &r->starter_status, WNOHANG) == r->starter)
		r->starter_reaped = true;
	if (!r->cmd_released && r->starter_reaped) {
		bool ok = WIFEXITED(r->starter_status) && WEXITSTATUS(r->starter_status) == 0;
		drain_available(r);        /* the begin probes' output comes first */
		if (ok && write(r->cmd_gate, "g", 1) == 1)
			run_note(r, "command started: %s", r->command);
		close(r->cmd_gate);        /* without the byte: the command never runs */
		r->cmd_released = true;
	}
	int status;
	if (r->cmd_released && waitpid(r->cmd_pid, &status, WNOHANG) == r->cmd_pid) {
		r->cmd_done = true;
		run_note(r, "command exited");
		if (!r->stop_sent)
			send_stop(r, "the command exited");
	}
}

static void send_stop(Run *r, const char *why)
{
	r->stop_sent = true;
	run_note(r, "stopping (%s)", why);
	if (write_ctl(r, HWTAP_CTL_STOP)) {
		run_error("cannot stop module %s: writing '%s' to %s: %s", r->mi.name, HWTAP_CTL_STOP,
		      r->ctl_path, strerror(errno));
		r->failed = true;
	}
}

/* ---- relaying ------------------------------------------------------------------------- */

static char pending[READ_SIZE];
static size_t pending_len;
static int pending_stream;

/* Writes all of P to a sink or the textfile, as long as its reader takes: the stop
 * signals are taken meanwhile (a pipe nobody reads must not make SIGTERM wait), the first
 * one stops the session at once (-A detaches once the write is done), and a second one
 * while the write still waits gives this output up: -1 with errno EINTR. */
static int sink_write_all(Run *r, int fd, const char *p, size_t n)
{
	sigset_t blocked;
	int rc = 0;
	sigprocmask(SIG_SETMASK, &r->wait_mask, &blocked);
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EINTR) {
			rc = -1;
			break;
		}
		if (signals_caught >= 2) {
			errno = EINTR;
			rc = -1;
			break;
		}
		if (caught_signal && !r->stop_sent && r->mode != MODE_ATTACH)
			send_stop(r, signal_name(caught_signal));
	}
	int saved = errno;
	sigprocmask(SIG_SETMASK, &blocked, NULL);
	errno = saved;
	return rc;
}

/* LEN bytes to STREAM's sink; a failure is said once, and stops the session for stdout. */
static void sink_write(Run *r, int stream, const void *data, size_t len)
{
	if (stream == HWTAP_STREAM_OUT)
		rotate_output(r, len);
	Sink *s = &r->sinks[stream];
	if (stream == HWTAP_STREAM_OUT)
		r->file_bytes += len;
	if (len && !s->failed && sink_write_all(r, s->fd, data, len)) {
		s->failed = true;
		r->failed = true;
		if (errno == EINTR)
			run_error("gave up writing the output of module %s to %s: it was not being "
			      "read, and a second %s came", r->mi.name, s->name,
			      signal_name(caught_signal));
		else if (errno != EPIPE)
			run_error("cannot write the output of module %s to %s: %s", r->mi.name, s->name,
			      strerror(errno));
		if (!r->stop_sent && stream == HWTAP_STREAM_OUT)
			send_stop(r, "the output failed");
	}
}

static void flush_pending(Run *r)
{
	sink_write(r, pending_stream, pending, pending_len);
	pending_len = 0;
}

static void emit(Run *r, int stream, const unsigned char *data, size_t len)
{
	if (stream != pending_stream || pending_len + len > sizeof(pending))
		flush_pending(r);
	/* -S: a file gets the whole records that fit, the next one starts the next file */
	if (stream == HWTAP_STREAM_OUT && r->file_mb && pending_len &&
	    r->file_bytes + (long long)(pending_len + len) > r->file_mb * 1048576LL)
		flush_pending(r);
	pending_stream = stream;
	if (len > sizeof(pending)) {
		sink_write(r, stream, data, len);
		return;
	}
	memcpy(pending + pending_len, data, len);
	pending_len += len;
}

/* ---- --textfile: the script's Prometheus metrics ------------------------------------------ */

static char *metrics;           /* stated since the last publication */
static size_t metrics_len;
static PromSeen metrics_seen;   /* its HELP and TYPE lines */

/* A record of metrics: kept for the next publication when Prometheus' text format takes
 * it (prometheus.c), else dropped: the first said with why, all counted. */
static void metrics_add(Run *r, const unsigned char *data, size_t len)
{
	if (!r->textfile) {
		if (!r->textfile_warned)
			fprintf(stderr, "hwtap-run: warning: the script publishes Prometheus "
				"metrics; --textfile FILE would write them (dropped)\n");
		r->textfile_warned = true;
		return;
	}
	const char *why = prom_record_check((const char *)data, len, &metrics_seen);
	if (why) {
		if (!r->bad_metrics++) {
			Buf line = { 0 };
			buf_json_string(&line, (const char *)data, len);
			fprintf(stderr, "hwtap-run: warning: a metrics line the script stated is "
				"not Prometheus' text format (%s): dropped, not to make node_exporter "
				"drop the whole file: %.*s\n", why, (int)line.len, line.p);
			free(line.p);
		}
		return;
	}
	char *grown = realloc(metrics, metrics_len + len);
	if (!grown) {
		run_error("out of memory");
		exit(1);
	}
	metrics = grown;
	memcpy(metrics + metrics_len, data, len);
	metrics_len += len;
}

/* The metrics stated so far replace FILE at once: a new file of a name nobody could
 * foresee (FILE.XXXXXX, made by mkostemp: never a link or a FIFO another user planted)
 * written, then renamed over it. */
static void metrics_publish(Run *r)
{
	if (!r->textfile)
		return;
	char *tmp = run_format("%s.XXXXXX", r->textfile);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, r->file_perm >= 0 ? r->file_perm : 0644) ||
	    sink_write_all(r, fd, metrics ? metrics : "", metrics_len) || fsync(fd) ||
	    close(fd) || rename(tmp, r->textfile)) {
		run_error("cannot write the metrics to %s (through %s): %s", r->textfile, tmp,
		      strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		r->failed = true;
	}
	free(tmp);
	metrics_len = 0;
	prom_seen_reset(&metrics_seen);
}

/* ---- --pprof: the script's samples as a pprof profile (pprof.c) ------------------------- */

static Pprof profile;
static bool profile_started;

static void pprof_record(Run *r, const unsigned char *data, size_t len)
{
	if (!r->pprof) {
		if (!r->pprof_warned)
			fprintf(stderr, "hwtap-run: warning: the script states pprof samples; "
				"--pprof FILE would write them (dropped)\n");
		r->pprof_warned = true;
		return;
	}
	if (!profile_started) {
		pprof_init(&profile);
		profile_started = true;
	}
	const char *why = pprof_add(&profile, data, len);
	if (why && !r->pprof_warned) {
		fprintf(stderr, "hwtap-run: warning: a pprof sample the script stated is not one "
			"(%s): dropped\n", why);
		r->pprof_warned = true;
	}
}

/* At the end of the output: the profile, samples or not, to --pprof's FILE. */
static void pprof_finish(Run *r)
{
	if (!r->pprof)
		return;
	if (!profile_started) {
		pprof_init(&profile);
		profile_started = true;
	}
	if (pprof_write(&profile, r->pprof, r->file_perm >= 0 ? r->file_perm : 0644))
		r->failed = true;
	pprof_free(&profile);
	profile_started = false;
}

/* ---- --json: each line of the script's output as one JSON object ------------------------ */

static Buf json_line;           /* the script's line so far */

/* One whole line (no newline) as {"host":..,"session":..,"time":..,"line":".."}; a line
 * that is one well-formed JSON object without keys of those three names gets them put in
 * front of its own instead (json.c says why no less will do). */
static void json_emit_line(Run *r, const char *line, size_t len)
{
	static char host[256];
	struct timespec ts;
	struct tm tm;
	char when[64];
	Buf out = {0};
	if (!host[0]) {
		struct utsname u;
		uname(&u);
		snprintf(host, sizeof(host), "%s", u.nodename);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03ldZ",
		 ts.tv_nsec / 1000000);
	buf_str(&out, "{\"host\":");
	buf_json_string(&out, host, strlen(host));
	buf_str(&out, ",\"session\":");
	buf_json_string(&out, r->mi.name, strlen(r->mi.name));
	buf_str(&out, ",\"time\":");
	buf_json_string(&out, when, strlen(when));
	static const char *const ours[] = {"host", "session", "time", NULL};
	if (len >= 2 && line[0] == '{' && line[len - 1] == '}' &&
	    json_object_extendable(line, len, ours)) {
		size_t i = 1;
		while (i < len - 1 && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (line[i] != '}')
			buf_str(&out, ",");
		buf_add(&out, line + i, len - i);
	} else {
		buf_str(&out, ",\"line\":");
		buf_json_string(&out, line, len);
		buf_str(&out, "}");
	}
	buf_str(&out, "\n");
	emit(r, HWTAP_STREAM_OUT, (const unsigned char *)out.p, out.len);
	free(out.p);
}

/* The script's output under --json: whole lines go out wrapped, the rest waits. */
static void json_emit(Run *r, const unsigned char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (data[i] != '\n') {
			buf_add(&json_line, &data[i], 1);
			continue;
		}
		json_emit_line(r, json_line.p ? json_line.p : "", json_line.len);
		json_line.len = 0;
	}
}

/* At the end of the output: a last line without its newline, and --pprof's profile. */
static void json_finish(Run *r)
{
	if (r->json && json_line.len) {
		json_emit_line(r, json_line.p, json_line.len);
		json_line.len = 0;
	}
	flush_pending(r);
	pprof_finish(r);
}

/* One read()'s records: whole ones only (protocol.h). */
static void dispatch(Run *r, const unsigned char *p, size_t n)
{
	if (!r->got_output) {
		r->got_output = true;
		run_note(r, "first output");
	}
	while (n >= HWTAP_RECORD_HDR) {
		size_t len = p[2] | (size_t)p[3] << 8;
		if (len > n - HWTAP_RECORD_HDR) {
			run_error("module %s: a record of %zu bytes cut after %zu in %s", r->mi.name,
			      len, n - HWTAP_RECORD_HDR, r->out_path);
			r->failed = true;
			break;
		}
		if (p[0] == HWTAP_STREAM_COMMAND) {
			flush_pending(r);       /* the output before it comes before the command's */
			script_command(r, p + HWTAP_RECORD_HDR, len);
		} else if (p[0] == HWTAP_STREAM_METRICS) {
			metrics_add(r, p + HWTAP_RECORD_HDR, len);
		} else if (p[0] == HWTAP_STREAM_PUBLISH) {
			metrics_publish(r);
		} else if (p[0] == HWTAP_STREAM_ACTION) {
			flush_pending(r);
			script_action(r, p + HWTAP_RECORD_HDR, len);
		} else if (p[0] == HWTAP_STREAM_HISTORY) {
			history_add(r, p + HWTAP_RECORD_HDR, len);
		} else if (p[0] == HWTAP_STREAM_PPROF) {
			pprof_record(r, p + HWTAP_RECORD_HDR, len);
		} else if (p[0] != HWTAP_STREAM_ERR && r->json) {
			json_emit(r, p + HWTAP_RECORD_HDR, len);
		} else {
			emit(r, p[0] == HWTAP_STREAM_ERR ? HWTAP_STREAM_ERR : HWTAP_STREAM_OUT,
			     p + HWTAP_RECORD_HDR, len);
		}
		p += HWTAP_RECORD_HDR + len;
		n -= HWTAP_RECORD_HDR + len;
	}
	flush_pending(r);
	history_commit(r);
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

static unsigned char relay_buf[READ_SIZE];

/* What is there to read now, without waiting. */
static void drain_available(Run *r)
{
	ssize_t n;
	while ((n = read(r->out_fd, relay_buf, sizeof(relay_buf))) > 0)
		dispatch(r, relay_buf, n);
}

/* What the session's ctl says now: 0, or -1 after a message. */
static int read_session(Run *r, SessionInfo *si)
{
	if (!session_read(r->mi.name, si))
		return 0;
	run_error("module %s: cannot read %s: %s%s", r->mi.name, r->ctl_path, strerror(errno),
	      errno == ENOENT || errno == EIO ? " (was the module unloaded?)" : "");
	return -1;
}

/* -D, once the start is over: whether the session runs on (a start that failed, or begin
 * probes that ended the script, are relayed to the end as without -D). */
static bool runs_on(Run *r)
{
	SessionInfo si;
	if (!WIFEXITED(r->starter_status) || WEXITSTATUS(r->starter_status) != 0)
		return false;
	return !read_session(r, &si) && !strcmp(si.state, "running");
}

/* The first byte of a sysfs flag file, or 0 when it cannot be read. */
static char sysfs_flag(const char *path)
{
	char c = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = 0;
		close(fd);
	}
	return c;
}

/* -D: with a crash kernel loaded, a panic starts it before the panic notifiers run unless
 * crash_kexec_post_notifiers is set, so the session's tail never reaches pstore. */
static void warn_kdump(const Run *r)
{
	if (sysfs_flag("/sys/kernel/kexec_crash_loaded") == '1' &&
	    sysfs_flag("/sys/module/kernel/parameters/crash_kexec_post_notifiers") != 'Y')
		fprintf(stderr, "hwtap-run: warning: session %s: a crash kernel is loaded and "
			"crash_kexec_post_notifiers is off: at a panic the crash kernel starts "
			"before the session writes its unread output to the kernel log, so pstore "
			"will not keep it (the vmcore will)\n", r->mi.name);
}

/* Until end of file: 0, or -1 when `out' cannot be read. */
static int relay(Run *r)
{
	unsigned char *buf = relay_buf;
	for (;;) {
		watch_command(r);
		reap_script_commands(r, false);
		if (r->mode == MODE_DETACH && !r->detach_checked) {
			if (!r->starter_reaped &&
			    waitpid(r->starter, &r->starter_status, WNOHANG) == r->starter)
				r->starter_reaped = true;
			if (r->starter_reaped) {
				r->detach_checked = true;
				if (runs_on(r)) {
					drain_available(r);     /* the begin probes' output */
					r->detached = true;
					return 0;
				}
			}
		}
		if (caught_signal && r->mode == MODE_ATTACH) {
			run_note(r, "detaching (%s)", signal_name(caught_signal));
			drain_available(r);
			r->detached = true;
			return 0;
		}
		if (caught_signal && !r->stop_sent)
			send_stop(r, signal_name(caught_signal));
		if (r->usyms_fd >= 0 && usyms_serve(&r->usyms, r->usyms_fd) < 0) {
			fprintf(stderr, "hwtap-run: warning: session %s: cannot read its requests "
				"for symbols (%s): programs nobody named go unnamed\n", r->mi.name,
				strerror(errno));
			usyms_finish(&r->usyms);
			close(r->usyms_fd);
			r->usyms_fd = -1;
		}
		ssize_t n = read(r->out_fd, buf, sizeof(relay_buf));
		if (n > 0) {
			dispatch(r, buf, n);
			continue;
		}
		if (n == 0)
			return 0;
		if (errno == EAGAIN) {
			struct pollfd p[2] = { { .fd = r->out_fd, .events = POLLIN },
					       { .fd = r->usyms_fd, .events = POLLIN } };
			/* EINTR: a stop signal, or a child ended (SIGCHLD); the timeout: a
			 * symbol reader's time is up */
			int ms = r->usyms_fd >= 0 ? usyms_timeout_ms(&r->usyms) : -1;
			struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
			ppoll(p, r->usyms_fd >= 0 ? 2 : 1, ms < 0 ? NULL : &ts, &r->wait_mask);
			continue;
		}
		if (errno == EINTR)
			continue;
		run_error("module %s: cannot read %s: %s%s", r->mi.name, r->out_path, strerror(errno),
		      errno == EIO ? " (was the module unloaded?)" : "");
		return -1;
	}
}

/* The session's counters into R (and all ctl says into SI): 0, or -1 after a message. */
static int read_counters(Run *r, SessionInfo *si)
{
	if (read_session(r, si))
		return -1;
	r->errors = si->errors;
	r->skipped = si->skipped;
	r->dropped = si->dropped;
	r->lost_commands = si->lost_commands;
	r->overwritten = si->overwritten_before_reader;
	run_note(r, "end of output: errors %lld, skipped %lld, dropped %lld", r->errors, r->skipped,
	     r->dropped);
	return 0;
}

/* SystemTap's closing line, and ours for dropped records. */
static void report(const Run *r)
{
	if (r->errors || r->skipped)
		fprintf(stderr, "WARNING: Number of errors: %lld, skipped probes: %lld\n",
			r->errors, r->skipped);
	long long records = r->dropped - r->lost_commands;
	if (records)
		fprintf(stderr, "hwtap-run: warning: %lld record%s dropped (the buffer was full); "
			"a larger -s may help\n", records, records == 1 ? "" : "s");
	if (r->lost_commands)
		fprintf(stderr, "hwtap-run: warning: %lld command%s of the script dropped (the "
			"buffer was full)\n", r->lost_commands, r->lost_commands == 1 ? "" : "s");
	if (r->bad_metrics > 1)
		fprintf(stderr, "hwtap-run: warning: %lld metrics lines dropped in all (not "
			"Prometheus' text format)\n", r->bad_metrics);
	if (r->history_refused > 1)
		fprintf(stderr, "hwtap-run: warning: %lld RAS events not added to %s in all\n",
			r->history_refused, r->ras_db);
	if (r->refused)
		fprintf(stderr, "hwtap-run: warning: %lld command%s of the script refused (%d "
			"already running; -j sets the bound), %lld run\n", r->refused,
			r->refused == 1 ? "" : "s", r->max_commands, r->started);
}

/* The target process: -c CMD's, or -x PID's (the hwtap_target parameter hwtap gives), or
 * 0. */
static pid_t target_pid(const Run *r)
{
	if (r->cmd_pid)
		return r->cmd_pid;
	for (int i = 0; i < r->nparams; i++)
		if (!strncmp(r->params[i], "hwtap_target=", 13))
			return (pid_t)atol(r->params[i] + 13);
	return 0;
}

/* From the loaded module to its end of output: the exit status. */
static int session(Run *r)
{
	SessionInfo si;
	if (open_proc_files(r))
		return 1;
	if (!session_read(r->mi.name, &si) && si.protocol != HWTAP_PROTOCOL) {
		run_error("%s was built by another hwtap (its protocol is %d, this hwtap-run's %d): "
		      "rebuild it with this hwtap", r->ko, si.protocol, HWTAP_PROTOCOL);
		return 1;
	}
	if (r->mi.nmembers) {
		char *why;
		if (perfgroups_open(&r->mi, r->ctl_fd, target_pid(r), &why)) {
			run_error("%s", why ? why : "out of memory");
			free(why);
			return 1;
		}
	}
	if (start(r))
		return 1;
	int rc = relay(r);
	json_finish(r);
	int start_error = start_result(r);
	if (r->detached) {
		flush_pending(r);
		close_files(r);
		warn_kdump(r);
		printf("%s\n", r->mi.name);
		fflush(stdout);
		run_note(r, "detached; 'hwtap-run -A %s' reattaches, 'hwtap-run -d %s' ends it",
		     r->mi.name, r->mi.name);
		return r->failed;
	}
	if (read_counters(r, &si))
		rc = -1;
	report(r);
	if (start_error) {
		char *what = describe(r);
		/* the errno's name: its text ("No such file ...") would mislead here */
		const char *name = strerrorname_np(start_error);
		run_error("%s did not start (%s)%s", what, name ? name : strerror(start_error),
		      r->errors ? ": see the ERROR above" : "");
		free(what);
	}
	return start_error || rc || r->errors || r->failed;
}

/* ---- -A, -d, -L: sessions already running ------------------------------------------- */

/* Session NAME, checked: it exists and speaks our protocol. 0, or -1 after a message. */
static int find_session(const char *name, SessionInfo *si)
{
	if (session_read(name, si)) {
		if (errno == ENOENT)
			run_error("no session '%s' runs here ('hwtap-run -L' lists them)", name);
		else
			run_error("session %s: cannot read /proc/" HWTAP_PROC_PREFIX "%s/" HWTAP_PROC_CTL
			      ": %s", name, name, strerror(errno));
		return -1;
	}
	if (si->protocol != HWTAP_PROTOCOL) {
		run_error("session %s was made by another hwtap (its protocol is %d, this hwtap-run's "
		      "%d): use that hwtap's hwtap-run, or 'rmmod %s' to end it", name,
		      si->protocol, HWTAP_PROTOCOL, name);
		return -1;
	}
	return 0;
}

/* -A NAME or -d NAME: read (and for -d stop) the session; unload it when its output
 * ends. The exit status. */
static int attach(Run *r, const char *name)
{
	SessionInfo si;
	r->mi.name = (char *)name;
	r->ko = name;
	if (find_session(name, &si) || open_proc_files(r))
		return 1;
	r->starter_reaped = true;
	/* Read after the open: it is the open that counts what this reader never saw. */
	if (read_counters(r, &si)) {
		close_files(r);
		return 1;
	}
	if (r->mode == MODE_ATTACH && !strcmp(si.state, "loaded")) {
		run_error("session %s was loaded but never started: 'hwtap-run -d %s' removes it",
		      name, name);
		close_files(r);
		return 1;
	}
	if (r->overwritten)
		fprintf(stderr, "hwtap-run: warning: session %s: %lld record%s overwritten while "
			"it had no reader (the oldest; a larger -s keeps more)\n", name,
			r->overwritten, r->overwritten == 1 ? "" : "s");
	if (r->mode == MODE_DELETE)
		send_stop(r, "-d");
	int rc = relay(r);
	json_finish(r);
	if (r->detached) {
		flush_pending(r);
		close_files(r);
		run_note(r, "detached; the session goes on");
		return r->failed;
	}
	if (read_counters(r, &si))
		rc = -1;
	report(r);
	int status = rc || r->errors || r->failed;
	if (unload(r))
		status = 1;
	return status;
}

/* --snapshot NAME: the records its buffers hold, copied, relayed to the end of the copy.
 * The script's commands and metrics in it are not acted on again. */
static int snapshot(Run *r, const char *name)
{
	SessionInfo si;
	r->mi.name = (char *)name;
	if (find_session(name, &si))
		return 1;
	char *path = run_format("/proc/" HWTAP_PROC_PREFIX "%s/" HWTAP_PROC_SNAP, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		run_error("session %s: cannot open %s: %s", name, path, strerror(errno));
		free(path);
		return 1;
	}
	ssize_t n = 0;
	while (!r->failed && (n = read(fd, relay_buf, sizeof(relay_buf))) > 0) {
		unsigned char *p = relay_buf;
		while (n >= HWTAP_RECORD_HDR) {
			size_t len = p[2] | (size_t)p[3] << 8;
			if (len > (size_t)n - HWTAP_RECORD_HDR) {
				run_error("session %s: a record of %zu bytes cut after %zu in %s", name,
				      len, (size_t)n - HWTAP_RECORD_HDR, path);
				r->failed = true;
				break;
			}
			if (p[0] == HWTAP_STREAM_OUT && r->json)
				json_emit(r, p + HWTAP_RECORD_HDR, len);
			else if (p[0] == HWTAP_STREAM_OUT || p[0] == HWTAP_STREAM_ERR)
				emit(r, p[0], p + HWTAP_RECORD_HDR, len);
			p += HWTAP_RECORD_HDR + len;
			n -= HWTAP_RECORD_HDR + len;
		}
		flush_pending(r);
	}
	if (n < 0) {
		run_error("session %s: cannot read %s: %s", name, path, strerror(errno));
		r->failed = true;
	}
	json_finish(r);
	close(fd);
	free(path);
	return r->failed;
}

/* --pstore [PATH ...]: each session's output that nobody had read at a panic, as the
 * panicking kernel logged it (runtime/panic.h) and pstore kept it. */
static int show_pstore(Run *r)
{
	PanicTail *tails;
	size_t n;
	if (pstore_read(r->params, r->nparams, &tails, &n))
		return 1;
	if (!n)
		fprintf(stderr, "hwtap-run: no hwtap session's output in %s\n", r->nparams ?
			"those files" : "/sys/fs/pstore or /var/lib/systemd/pstore");
	for (size_t i = 0; i < n; i++) {
		const PanicTail *t = &tails[i];
		flush_pending(r);
		pstore_describe(t);
		r->mi.name = (char *)t->name;
		if (r->json)
			json_emit(r, (const unsigned char *)t->text, t->len);
		else
			emit(r, HWTAP_STREAM_OUT, (const unsigned char *)t->text, t->len);
		json_finish(r);
	}
	pstore_free(tails, n);
	return r->failed;
}

/* -d '*': every session without a reader. */
static int delete_detached(Run *r)
{
	SessionInfo *all;
	size_t n;
	int status = 0;
	if (session_list(&all, &n)) {
		run_error("cannot list the sessions in /proc: %s", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (all[i].attached)
			continue;
		Run one = *r;
		one.stop_sent = false;
		one.out_fd = one.ctl_fd = one.usyms_fd = -1;
		status |= attach(&one, all[i].name);
	}
	free(all);
	return status;
}

static int list(Run *r)
{
	SessionInfo *all;
	size_t n;
	if (session_list(&all, &n)) {
		run_error("cannot list the sessions in /proc: %s", strerror(errno));
		return 1;
	}
	session_print(stdout, all, n, r->json);
	free(all);
	return 0;
}

int main(int argc, char **argv)
{
	Run r = { .out_fd = -1, .ctl_fd = -1, .usyms_fd = -1, .t0 = run_now(),
		  .max_commands = DEFAULT_COMMANDS, .file_perm = -1 };
	parse_args(argc, argv, &r);
	/* (pstore's files are root's, but a copy of them need not be) */
	if (r.mode == MODE_PSTORE) {
		if (open_output(&r))
			return 1;
		signal(SIGPIPE, SIG_IGN);
		return show_pstore(&r);
	}
	if (geteuid() != 0) {
		run_error("must be run as root (%s)", r.mode == MODE_RUN || r.mode == MODE_DETACH ?
		      "loading a kernel module" : "sessions are root's");
		return 1;
	}
	if (r.mode == MODE_LIST)
		return list(&r);

	if (r.mode == MODE_SNAPSHOT) {
		if (open_output(&r))
			return 1;
		signal(SIGPIPE, SIG_IGN);
		return snapshot(&r, r.session);
	}
	if (r.ras_db) {
		char *why = NULL;
		if (rasdb_open(r.ras_db, &why)) {
			run_error("%s", why);
			return 1;
		}
		atexit(rasdb_close);
	}
	if (r.mode == MODE_ATTACH || r.mode == MODE_DELETE) {
		if (open_output(&r))
			return 1;
		setup_signals(&r);
		/* the commands the session's output started are waited for, as in a run */
		int status = !strcmp(r.session, "*") ? delete_detached(&r) : attach(&r, r.session);
		reap_script_commands(&r, true);
		return status;
	}
	if (check_module(&r) || open_output(&r))
		return 1;
	setup_signals(&r);
	if (r.command) {
		if (fork_command(&r))
			return 1;
		char *p = run_format("%s%shwtap_target=%d", r.param_string,
				  *r.param_string ? " " : "", (int)r.cmd_pid);
		free(r.param_string);
		r.param_string = p;
	}
	if (load(&r)) {
		if (r.cmd_pid)
			close(r.cmd_gate);
		return 1;
	}
	int status = session(&r);
	if (r.cmd_pid && !r.cmd_released)
		close(r.cmd_gate);
	if (r.cmd_pid && !r.cmd_done)
		waitpid(r.cmd_pid, NULL, 0);
	if (!r.detached && unload(&r))
		status = 1;
	reap_script_commands(&r, true);
	return status;
}
