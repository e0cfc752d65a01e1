/* probe_task.c - the lives of user-space processes and threads, from the scheduler's
 * tracepoints (runtime/probes/tasks.c):
 *
 *   process("PATH").begin          a process that runs PATH appears: running when the
 *   process("PATH").thread.begin   session starts, forked, or executing PATH; or another
 *   process("PATH").thread.end     thread of one (running, or cloned); a thread of it
 *   process("PATH").end            exits, the last one exits or it executes another
 *                                  program
 *   process.begin ...              the same for every process, or with a target (-c CMD,
 *                                  -x PID) for its process and the processes it forks
 *
 * PATH as for process("PATH").function: a bare name is looked up in $PATH; a path that
 * exists on this machine is named as it resolves (process("/usr/bin/ls").begin for
 * process("/bin/ls").begin), as SystemTap names it.
 */
#include "hwtap.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const PointShape task_shapes[] = {
	{"process(string).begin"},
	{"process(string).end"},
	{"process(string).thread.begin"},
	{"process(string).thread.end"},
	{"process.begin"},
	{"process.end"},
	{"process.thread.begin"},
	{"process.thread.end"},
	{NULL},
};

/* The point with its PATH resolved. */
static int task_expand(const ProbeFamily *f, ProbePoint *pp, Session *s, bool quiet,
		       Vec *out)
{
	(void)f;
	Component *c = pp->comps.data[0];
	if (!c->arg) {
		vec_push(out, pp);
		return 1;
	}
	char *path = *c->arg->str ? uprog_resolve(c->arg->str) : NULL;
	if (!path) {
		if (!quiet)
			error_at(c->arg->tok, *c->arg->str ? "no program '%s' in $PATH" :
				 "process(\"%s\"): expected a program's path or name", c->arg->str);
		return 0;
	}
	/* a file here (not one --vm-file puts in the guest) is named as it resolves */
	char real[PATH_MAX];
	struct stat st;
	if (!uprog_is_vm_file(s, path) && realpath(path, real)) {
		path = xstrdup(real);
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			if (!quiet)
				error_at(c->arg->tok, "process(\"%s\"): '%s' is not a regular file",
					 c->arg->str, path);
			return 0;
		}
	}
	vec_push(out, process_point_with(pp, path, NULL));
	return 1;
}

const ProbeFamily process_task_family = {
	.name = "process",
	.shapes = task_shapes,
	.expand = task_expand,
};

/* What a derived probe of this family follows, for runtime/probes/tasks.c: PATH's processes
 * (*PATH), or without one every process (the module's target and its children when it
 * has a target: -c, -x); and which of its events it is. */
const char *task_probe_kind(Probe *p, const char **path)
{
	ProbePoint *pp = p->points.data[0];
	Component *c = pp->comps.data[0];
	*path = c->arg ? c->arg->str : NULL;
	bool thread = !strcmp(((Component *)pp->comps.data[1])->name, "thread");
	const char *last = ((Component *)pp->comps.data[pp->comps.len - 1])->name;
	if (!strcmp(last, "begin"))
		return thread ? "HWTAP_TASK_THREAD_BEGIN" : "HWTAP_TASK_BEGIN";
	return thread ? "HWTAP_TASK_THREAD_END" : "HWTAP_TASK_END";
}
