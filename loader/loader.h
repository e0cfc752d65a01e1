/* loader.h - what the files of hwtap-run (the module loader) share. */
#ifndef HWTAP_LOADER_H
#define HWTAP_LOADER_H

#include <stddef.h>

/* A kernel module's .modinfo, the parts hwtap-run uses. */
typedef struct ModInfo {
	char *name;             /* name=: the module's name once loaded */
	char *vermagic;         /* vermagic=: "RELEASE SMP preempt mod_unload ..." */
	char *release;          /* vermagic's first word */
	char **params;          /* parmtype= names: the parameters the module takes */
	size_t nparams;
} ModInfo;

/* Reads PATH's .modinfo into MI. 0, or -1 with a message (malloc'ed, without the
 * "hwtap-run: error: " prefix) in *WHY. */
int modinfo_read(const char *path, ModInfo *mi, char **why);

void modinfo_free(ModInfo *mi);

/* Whether MI declares a parameter NAME. */
int modinfo_has_param(const ModInfo *mi, const char *name, size_t len);

#endif
