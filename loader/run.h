/* run.h - hwtap-run's state, shared by hwtap-run.c (loading, relaying, sessions) and
 * requests.c (the script's commands, actions and history).
 */
#ifndef HWTAP_RUN_H
#define HWTAP_RUN_H

#include "loader.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MAX_COMMANDS    64              /* the most -j allows */
#define HWTAP_COMMAND_WAIT 10           /* seconds for commands still running at the end */

typedef struct Sink {
	int fd;
	const char *name;       /* "stdout", "stderr" or the -o FILE, for messages */
	bool failed;
} Sink;

enum mode { MODE_RUN, MODE_DETACH, MODE_ATTACH, MODE_DELETE, MODE_LIST, MODE_SNAPSHOT,
	    MODE_PSTORE };

typedef struct Run {
	enum mode mode;         /* -D, -A, -d, -L, or a plain run */
	const char *session;    /* -A or -d NAME */
	bool json;              /* --json: -L's list, or the output, as JSON lines */
	const char *textfile;   /* --textfile FILE: the script's Prometheus metrics */
	const char *pprof;      /* --pprof FILE: the script's samples, a pprof profile */
	bool pprof_warned;      /* samples came without --pprof, or one was not: said once */
	const char *ras_db;     /* --ras-db FILE: rasdaemon's database, for the RAS history */
	bool history_warned;    /* history came without --ras-db: said once */
	long long history_refused;      /* history records --ras-db's database did not take */
	int file_perm;          /* --mode: the created files' permissions; -1: each its default */
	bool textfile_warned;   /* metrics came without --textfile: said once */
	long long bad_metrics;  /* metrics records the text format does not take: dropped */
	bool detached;          /* the relay ended by detaching: the session goes on */
	bool detach_checked;    /* -D: the start's outcome was looked at */
	const char *ko;         /* MODULE.ko as given */
	char **params;          /* PARAM=VALUE words */
	int nparams;
	const char *output;     /* -o FILE, or NULL */
	long file_mb;           /* -S SIZE: a new FILE.K past SIZE MiB, or 0 */
	long file_count;        /* -S SIZE,N: keep the last N files, or 0: all */
	long file_index;        /* K of the FILE.K being written */
	long long file_bytes;   /* written to it */
	const char *command;    /* -c CMD, or NULL */
	pid_t cmd_pid;          /* its process, waiting on cmd_gate until the module runs */
	int cmd_gate;           /* write end of its pipe: a byte releases it, EOF kills it */
	bool cmd_released, cmd_done, starter_reaped;
	int starter_status;
	int verbose;
	ModInfo mi;
	char *param_string;     /* what finit_module gets */
	char *out_path, *ctl_path;
	int out_fd, ctl_fd;
	int usyms_fd;           /* the module's requests for symbols, -1 without */
	USymsServer usyms;      /* their readers (usyms.c) */
	Sink sinks[3];          /* [HWTAP_STREAM_OUT], [HWTAP_STREAM_ERR] */
	sigset_t wait_mask;     /* while waiting for output: the stop signals unblocked */
	pid_t starter;          /* the child writing "start", until reaped */
	bool stop_sent;
	bool got_output;
	bool failed;            /* something here went wrong: exit status 1 */
	double t0;
	long long errors, skipped, dropped, lost_commands, overwritten;
	int max_commands;       /* -j */
	pid_t commands[MAX_COMMANDS];   /* system()'s and trigger()'s, running; 0: a free slot */
	int running;
	long long started, refused;
} Run;

/* messages (hwtap-run.c): "hwtap-run: error: ..."; -v's notes; the monotonic clock in
 * seconds; an allocated printf (out of memory ends hwtap-run) */
__attribute__((format(printf, 1, 2))) void run_error(const char *fmt, ...);
__attribute__((format(printf, 2, 3))) void run_note(const Run *r, const char *fmt, ...);
double run_now(void);
__attribute__((format(printf, 1, 2))) char *run_format(const char *fmt, ...);

/* requests.c */
void script_command(Run *r, const unsigned char *data, size_t len);   /* stream 3 */
void reap_script_commands(Run *r, bool wait);   /* WAIT: all, HWTAP_COMMAND_WAIT s at most */
void script_action(Run *r, const unsigned char *data, size_t len);
void history_add(Run *r, const unsigned char *data, size_t len);
void history_commit(Run *r);

#endif
