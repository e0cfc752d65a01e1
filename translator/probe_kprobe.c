/* probe_kprobe.c - kernel functions by name through the kernel's kprobes
 * (runtime/kprobes.c), SystemTap's points that need no debug information:
 *
 *   kprobe.function("NAME")                        NAME's entry
 *   kprobe.function("NAME").return                 each return ($return: its value)
 *   kprobe.module("MOD").function("NAME")          a module's function
 *   kprobe.module("MOD").function("NAME").return
 *
 * NAME is a symbol of the kernel (or of module MOD) as kallsyms names it, without
 * wildcards, as SystemTap takes it. Whether the kernel has it and lets it be probed is
 * decided when the session starts, on the machine it runs on (the kernel the module was
 * built for may be another's than this one's): a point the kernel refuses fails the start
 * with the reason, or is skipped with '?'.
 */
#include "hwtap.h"

#include <string.h>

static const PointShape kprobe_shapes[] = {
	{"kprobe.function(string)"},
	{"kprobe.function(string).return", "return:long"},
	{"kprobe.module(string).function(string)"},
	{"kprobe.module(string).function(string).return", "return:long"},
	{NULL},
};

/* What is wrong with NAME as WHAT (a kernel symbol or module name), or NULL. */
static const char *name_problem(const char *name, const char *what)
{
	if (!*name)
		return xformat("an empty %s", what);
	if (strpbrk(name, "*?["))
		return xformat("'%s': a %s without wildcards (kprobe points take one name, as "
			       "SystemTap's)", name, what);
	for (const char *p = name; *p; p++)
		if (!(*p == '_' || *p == '.' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return xformat("'%s' is not a %s (letters, digits, '_' and '.')", name,
				       what);
	return NULL;
}

static const PointShape *kprobe_match(const ProbeFamily *f, ProbePoint *pp, Session *s)
{
	(void)s;
	const PointShape *shape = shape_match(f, pp);
	if (!shape)
		return NULL;
	bool module = !strcmp(((Component *)pp->comps.data[1])->name, "module");
	Component *mod = module ? pp->comps.data[1] : NULL;
	Component *fn = pp->comps.data[module ? 2 : 1];
	const char *why = mod ? name_problem(mod->arg->str, "module name") : NULL;
	if (why) {
		error_at(mod->arg->tok, "%s", why);
		return NULL;
	}
	why = name_problem(fn->arg->str, "kernel function name");
	if (why) {
		error_at(fn->arg->tok, "%s", why);
		return NULL;
	}
	return shape;
}

const ProbeFamily kprobe_family = {
	.name = "kprobe",
	.shapes = kprobe_shapes,
	.match = kprobe_match,
	.decided_at_load = true,
};

/* The kernel's name of kprobe point P's function ("vfs_read", "MOD:NAME"), and whether it
 * is a return probe. */
const char *kprobe_symbol(Probe *p, bool *ret)
{
	ProbePoint *pp = p->points.data[0];
	bool module = !strcmp(((Component *)pp->comps.data[1])->name, "module");
	Component *fn = pp->comps.data[module ? 2 : 1];
	*ret = !strcmp(((Component *)pp->comps.data[pp->comps.len - 1])->name, "return");
	if (!module)
		return fn->arg->str;
	return xformat("%s:%s", ((Component *)pp->comps.data[1])->arg->str, fn->arg->str);
}
