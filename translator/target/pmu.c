/* pmu.c - the PMU's events by name, through libpfm4: perf.events("NAME") in pass 2, and
 * their listing for -l/-L.
 *
 * libpfm4 knows the events of the PMUs it detects on this machine from CPUID (the generic
 * perf_events ones always, the CPU model's, uncore where present), and encodes
 * "[PMU::]EVENT[:MODIFIER...]" into a struct perf_event_attr without a system call
 * (pfm_get_os_event_encoding, PFM_OS_PERF_EVENT_EXT). The module then creates exactly that
 * counter on the target. Names are case-insensitive, as libpfm4's are.
 *
 * A module may run elsewhere than where it is translated (the guest, a fleet's hosts): a
 * model given with --pmu=MODEL (or LIBPFM_FORCE_PMU) replaces the detected one. libpfm4
 * then knows only that model, so we also let it encode inactive PMUs' events and qualify
 * a bare name ourselves, MODEL::NAME first and perf::NAME next: the generic names (cycles,
 * instructions, cache-misses ...) work for every target. A forced libpfm4 says nothing
 * about inactive PMUs' events, though, so the first use surveys libpfm4 in several starts:
 * every PMU's name and type, and the catalogue of events a name may mean (listing, hints,
 * attribute lists), each PMU's from a start where it is active. pfm_terminate() leaves
 * PMUs active for the next pfm_initialize(), so the survey picks PMUs by name and type,
 * never by is_present, once a model is forced.
 *
 * The generic events are encoded the same on every machine, as perf does (:u excludes
 * the hypervisor too, :h is taken). libpfm4 alone would not: when its generic PMU starts,
 * it takes the privilege levels of any CPU model started before in the process (Intel's
 * cannot exclude the hypervisor), through pfm_terminate(). So the survey starts the
 * generic PMUs first, each alone (LIBPFM_FORCE_PMU=perf, then perf_raw; their catalogue
 * entries come from there), then libpfm4 unforced without them (LIBPFM_DISABLED_PMUS) to
 * find this machine's CPU model. A model found is used as if --pmu had named it; with
 * none, libpfm4 starts once more unforced, the generic PMUs with no model beside them.
 *
 * libpfm4 is opened (dlopen) at that first use: linked, the dynamic loader relocated its
 * 1 MB of event tables before main() on every run, 290 page faults that most runs never
 * needed (a third of `hwtap -p2' of a one-line script).
 */
#include "hwtap.h"

#include <perfmon/pfmlib_perf_event.h>

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- libpfm4 ------------------------------------------------------------------------- */

#define LIBPFM_SONAME "libpfm.so.4"     /* libpfm4's since 4.0 */

/* The functions pmu.c calls, found in the library by name. */
static struct Pfm {
	typeof(pfm_initialize) *initialize;
	typeof(pfm_terminate) *terminate;
	typeof(pfm_get_pmu_info) *get_pmu_info;
	typeof(pfm_get_event_next) *get_event_next;
	typeof(pfm_get_event_info) *get_event_info;
	typeof(pfm_get_event_attr_info) *get_event_attr_info;
	typeof(pfm_get_os_event_encoding) *get_os_event_encoding;
	typeof(pfm_strerror) *strerror;
} pfm;

static const struct {
	const char *name;
	size_t offset;
} pfm_symbols[] = {
	{"pfm_initialize", offsetof(struct Pfm, initialize)},
	{"pfm_terminate", offsetof(struct Pfm, terminate)},
	{"pfm_get_pmu_info", offsetof(struct Pfm, get_pmu_info)},
	{"pfm_get_event_next", offsetof(struct Pfm, get_event_next)},
	{"pfm_get_event_info", offsetof(struct Pfm, get_event_info)},
	{"pfm_get_event_attr_info", offsetof(struct Pfm, get_event_attr_info)},
	{"pfm_get_os_event_encoding", offsetof(struct Pfm, get_os_event_encoding)},
	{"pfm_strerror", offsetof(struct Pfm, strerror)},
};

static bool open_libpfm(void)
{
	void *lib = dlopen(LIBPFM_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return false;
	for (size_t i = 0; i < sizeof(pfm_symbols) / sizeof(pfm_symbols[0]); i++) {
		void *f = dlsym(lib, pfm_symbols[i].name);
		if (!f)
			return false;
		memcpy((char *)&pfm + pfm_symbols[i].offset, &f, sizeof(f));
	}
	return true;
}

/* A PMU libpfm4 knows. */
typedef struct Pmu {
	const char *name;
	int type;                       /* PFM_PMU_TYPE_* */
} Pmu;

/* An event a name may mean: the catalogue's entries. */
typedef struct Event {
	const char *pmu, *name, *desc;
	const char *attrs;              /* its unit masks and modifiers, ", "-joined */
} Event;

/* The survey lives as long as the process, outside the arena (the fuzzer resets that
 * after every input). */
static const char *forced_model;        /* --pmu, LIBPFM_FORCE_PMU, the one detected here,
                                         * or NULL */
static int state;                       /* 0: no survey yet, 1: ready, -1: failed */
static Pmu *pmus;
static int npmus;
static Event *catalogue;
static int ncatalogue;

static void *grow(void *array, int n, size_t size)
{
	void *p = realloc(array, (n + 1) * size);
	if (!p) {
		fputs("hwtap: error: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static char *keep(const char *s)
{
	char *p = grow(NULL, strlen(s), 1);
	return strcpy(p, s);
}

/* ---- the survey ------------------------------------------------------------------------ */

/* libpfm4 (again): with only the PMU MODEL started, or as it detects the machine (NULL).
 * INACTIVE: it may encode the events of PMUs it did not start (LIBPFM_ENCODE_INACTIVE).
 * GENERIC: the generic PMUs (perf, perf_raw) are started too where they would be. Every
 * setting is written every time: libpfm4 keeps an earlier one when a variable is unset. */
static bool initialise(const char *model, bool inactive, bool generic)
{
	static bool initialised;
	if (initialised)
		pfm.terminate();
	initialised = true;
	if (model)
		setenv("LIBPFM_FORCE_PMU", model, 1);
	else
		unsetenv("LIBPFM_FORCE_PMU");
	setenv("LIBPFM_ENCODE_INACTIVE", inactive ? "1" : "0", 1);
	setenv("LIBPFM_DISABLED_PMUS", generic ? "" : "perf", 1);  /* a substring of both */
	return pfm.initialize() == PFM_SUCCESS;
}

static bool pmu_info(int pmu, pfm_pmu_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pfm.get_pmu_info(pmu, info) == PFM_SUCCESS;
}

static char *event_attrs(int idx, int nattrs)
{
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	for (int a = 0; a < nattrs; a++) {
		pfm_event_attr_info_t ai = {.size = sizeof(ai)};
		if (pfm.get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ai) == PFM_SUCCESS)
			sb_printf(&sb, "%s%s", sb.len ? ", " : "", ai.name);
	}
	return sb.buf;
}

/* The events of the PMUs WANTED says yes to, into the catalogue. */
static void catalogue_add(bool (*wanted)(const pfm_pmu_info_t *))
{
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;
		if (!pmu_info(p, &pi) || !wanted(&pi))
			continue;
		for (int i = pi.first_event; i != -1; i = pfm.get_event_next(i)) {
			pfm_event_info_t ei = {.size = sizeof(ei)};
			if (pfm.get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
				continue;
			catalogue = grow(catalogue, ncatalogue, sizeof(Event));
			catalogue[ncatalogue++] = (Event){keep(pi.name), keep(ei.name),
				keep(ei.desc ? ei.desc : ""), keep(event_attrs(i, ei.nattrs))};
		}
	}
}

static const Pmu *find_pmu(const char *name)
{
	for (int i = 0; i < npmus; i++)
		if (!strcasecmp(pmus[i].name, name))
			return &pmus[i];
	return NULL;
}

static const char *wanted;              /* the_pmu()'s name */

static bool the_pmu(const pfm_pmu_info_t *pi)
{
	return !strcasecmp(pi->name, wanted);
}

/* The PMUs this start of libpfm4 knows that the survey does not yet. */
static void note_pmus(void)
{
	static bool noted[PFM_PMU_MAX];
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;
		if (!noted[p] && pmu_info(p, &pi)) {
			noted[p] = true;
			pmus = grow(pmus, npmus, sizeof(Pmu));
			pmus[npmus++] = (Pmu){keep(pi.name), pi.type};
		}
	}
}

/* PMU's events into the catalogue, libpfm4 started with that PMU alone (see above); false
 * if it does not start. */
static bool catalogue_alone(const char *pmu, bool inactive)
{
	if (!initialise(pmu, inactive, true))
		return false;
	note_pmus();
	wanted = pmu;
	catalogue_add(the_pmu);
	return true;
}

/* The CPU model libpfm4 detected here: the core PMU it prefers for a bare name, the
 * architected Intel one (ix86arch) only when no other is present. NULL if none. */
static const char *detected_model(void)
{
	const char *arch = NULL;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;
		if (!pmu_info(p, &pi) || !pi.is_present || pi.type != PFM_PMU_TYPE_CORE)
			continue;
		if (strcmp(pi.name, "ix86arch"))
			return keep(pi.name);
		arch = keep(pi.name);
	}
	return arch;
}

static bool survey(void)
{
	catalogue_alone("perf", false);         /* absent where the kernel has no perf_event */
	catalogue_alone("perf_raw", false);
	if (!initialise(NULL, false, false))
		return false;
	note_pmus();
	if (!forced_model && !(forced_model = detected_model()))
		return initialise(NULL, false, true);
	const Pmu *m = find_pmu(forced_model);
	if (!m || m->type != PFM_PMU_TYPE_CORE)
		return true;            /* pmu_select_model() says why */
	return catalogue_alone(forced_model, true);
}

static bool ready(void)
{
	const char *env = getenv("LIBPFM_FORCE_PMU");
	if (!state && !forced_model && env && *env)
		forced_model = env;
	if (!state)
		state = open_libpfm() && survey() ? 1 : -1;
	return state > 0;
}

/* The CPU models libpfm4 knows, joined with ", ". */
static char *model_names(void)
{
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	for (int i = 0; i < npmus; i++)
		if (pmus[i].type == PFM_PMU_TYPE_CORE)
			sb_printf(&sb, "%s%s", sb.len ? ", " : "", pmus[i].name);
	return sb.buf;
}

/* The PMUs of the catalogue, joined with ", ". */
static char *catalogue_pmus(void)
{
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	const char *last = NULL;
	for (int i = 0; i < ncatalogue; i++) {
		const Event *e = &catalogue[i];
		if (!last || strcmp(last, e->pmu))
			sb_printf(&sb, "%s%s", sb.len ? ", " : "", e->pmu);
		last = e->pmu;
	}
	return sb.buf;
}

const char *pmu_select_model(const char *model)
{
	forced_model = model;
	if (!ready())
		return "libpfm4 cannot be initialised";
	const Pmu *m = find_pmu(model);
	if (m && m->type == PFM_PMU_TYPE_CORE)
		return NULL;
	return xformat("'%s' is not a CPU model libpfm4 knows (%s)", model, model_names());
}

/* ---- encoding -------------------------------------------------------------------------- */

/* What libpfm4 gives for a name besides the perf_event_attr. */
typedef struct Extra {
	int idx;                        /* the event's libpfm4 index */
	int cpu;                        /* :cpu=N, or -1 */
} Extra;

/* NAME into ATTR and X (may be NULL): libpfm4's PFM_SUCCESS or error. */
static int encode_as(const char *name, struct perf_event_attr *attr, Extra *x)
{
	char *fstr = NULL;
	pfm_perf_encode_arg_t arg = {.attr = attr, .fstr = &fstr, .size = sizeof(arg)};
	memset(attr, 0, sizeof(*attr));
	int rc = pfm.get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
					   &arg);
	free(fstr);
	if (x)
		*x = (Extra){.idx = arg.idx, .cpu = arg.cpu};
	return rc;
}

/* With a forced model, a bare name is looked up as MODEL::NAME, then perf::NAME, then
 * perf_raw::NAME (r1a8), as libpfm4 unforced would. */
static int encode(const char *name, struct perf_event_attr *attr, Extra *x)
{
	if (!forced_model || strstr(name, "::"))
		return encode_as(name, attr, x);
	int rc = encode_as(xformat("%s::%s", forced_model, name), attr, x);
	if (rc == PFM_ERR_NOTFOUND)
		rc = encode_as(xformat("perf::%s", name), attr, x);
	if (rc == PFM_ERR_NOTFOUND)
		rc = encode_as(xformat("perf_raw::%s", name), attr, x);
	return rc;
}

/* NAME's parts: "PMU::EVENT:MODS" -> PMU (or NULL), EVENT, ":MODS" (or ""). */
typedef struct NameParts {
	const char *pmu, *event, *mods;
} NameParts;

static NameParts name_parts(const char *name)
{
	const char *sep = strstr(name, "::");
	const char *ev = sep ? sep + 2 : name;
	size_t n = strcspn(ev, ":");
	return (NameParts){sep ? xstrndup(name, sep - name) : NULL, xstrndup(ev, n), ev + n};
}

/* The catalogue's entry for PARTS' event (in its PMU, if it names one), or NULL. */
static const Event *catalogued(NameParts parts)
{
	for (int i = 0; i < ncatalogue; i++) {
		const Event *e = &catalogue[i];
		if (!strcasecmp(e->name, parts.event) &&
		    (!parts.pmu || !strcasecmp(e->pmu, parts.pmu)))
			return e;
	}
	return NULL;
}

/* NAME with the catalogue's event name nearest to its event part in its place, in the same
 * spelling (qualified or not, lower case if NAME's is, its modifiers kept), or NULL when
 * none is close enough to be a typo. */
static const char *nearest_event(const char *name)
{
	NameParts parts = name_parts(name);
	char *want = xstrdup(parts.event);
	bool lower = true;
	for (char *p = want; *p; p++) {
		lower &= !isupper((unsigned char)*p);
		*p = toupper((unsigned char)*p);
	}
	const Event *best = NULL;
	int dist = 1000;
	for (int i = 0; i < ncatalogue; i++) {
		const Event *e = &catalogue[i];
		int d = edit_distance(want, e->name);
		if (d < dist) {
			dist = d;
			best = e;
		}
	}
	int limit = strlen(want) / 6 + 1;
	if (!best || dist > (limit > 3 ? 3 : limit))
		return NULL;
	char *s = parts.pmu ? xformat("%s::%s", best->pmu, best->name) : xstrdup(best->name);
	for (char *p = s; lower && *p; p++)
		*p = tolower((unsigned char)*p);
	return xformat("%s%s", s, parts.mods);
}

/* Which modifier of NAME libpfm4 refuses: NAME's head with its modifiers added one at a
 * time, until the encoding fails. */
static const char *bad_modifier(const char *name)
{
	NameParts parts = name_parts(name);
	size_t head = parts.mods - name;
	struct perf_event_attr attr;
	for (const char *p = parts.mods; *p == ':'; p += 1 + strcspn(p + 1, ":")) {
		size_t end = (p - name) + 1 + strcspn(p + 1, ":");
		if (end > head && encode(xstrndup(name, end), &attr, NULL) != PFM_SUCCESS)
			return xstrndup(p + 1, end - (p - name) - 1);
	}
	return NULL;
}

/* Why NAME does not encode (libpfm4's error RC), with what would help. */
static const char *explain(const char *name, int rc)
{
	if (rc == PFM_ERR_NOTFOUND) {
		const char *near = nearest_event(name);
		return xformat("unknown perf event '%s' (libpfm4: %s; PMUs: %s)%s%s%s", name,
			       pfm.strerror(rc), catalogue_pmus(), near ? "; did you mean '" : "",
			       near ? near : "", near ? "'?" : "");
	}
	NameParts parts = name_parts(name);
	const Event *e = catalogued(parts);
	const char *takes = e ? xformat("; %s takes %s", parts.event,
					*e->attrs ? e->attrs : "no unit mask or modifier") : "";
	const char *mod = rc == PFM_ERR_ATTR || rc == PFM_ERR_ATTR_VAL || rc == PFM_ERR_ATTR_SET ?
			  bad_modifier(name) : NULL;
	if (mod)
		return xformat("perf event '%s': libpfm4 refuses ':%s' (%s)%s", name, mod,
			       pfm.strerror(rc), takes);
	return xformat("perf event '%s': %s (libpfm4)%s", name, pfm.strerror(rc), takes);
}

/* Why perf probes cannot use NAME's event although it encodes, or NULL. */
static const char *unusable(const char *name, const Extra *x)
{
	NameParts parts = name_parts(name);
	const Pmu *m = parts.pmu ? find_pmu(parts.pmu) : NULL;
	pfm_event_info_t ei = {.size = sizeof(ei)};
	pfm_pmu_info_t pi;
	if (!m && x && pfm.get_event_info(x->idx, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS &&
	    pmu_info(ei.pmu, &pi))
		m = find_pmu(pi.name);
	if (m && m->type == PFM_PMU_TYPE_UNCORE)
		return xformat("perf event '%s' belongs to the uncore PMU %s: hwtap's perf "
			       "probes count and sample per CPU, uncore PMUs per socket; not "
			       "supported", name, m->name);
	return NULL;
}

const char *pmu_encode(const char *name, PerfEvent *ev)
{
	if (!ready())
		return "libpfm4 cannot be initialised";
	struct perf_event_attr attr;
	Extra x;
	int rc = encode(name, &attr, &x);
	const char *why = unusable(name, rc == PFM_SUCCESS ? &x : NULL);
	if (why)
		return why;
	if (rc != PFM_SUCCESS)
		return explain(name, rc);
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	ev->exclude = (attr.exclude_user ? PERF_EXCL_USER : 0) |
		      (attr.exclude_kernel ? PERF_EXCL_KERNEL : 0) |
		      (attr.exclude_hv ? PERF_EXCL_HV : 0) |
		      (attr.exclude_idle ? PERF_EXCL_IDLE : 0) |
		      (attr.exclude_host ? PERF_EXCL_HOST : 0) |
		      (attr.exclude_guest ? PERF_EXCL_GUEST : 0);
	ev->precise_ip = attr.precise_ip;
	ev->exclusive = attr.exclusive;
	ev->pinned = attr.pinned;
	ev->cpu = x.cpu;
	if (attr.freq) {
		ev->period = 0;
		ev->freq = attr.sample_freq;
	} else if (attr.sample_period) {
		ev->period = attr.sample_period;
	}
	ev->period_in_name = attr.freq || attr.sample_period;
	return NULL;
}

/* ---- listing --------------------------------------------------------------------------- */

/* What this machine's kernel has in /sys/bus/event_source/devices. */
typedef struct Sysfs {
	bool read;
	bool core;                      /* a CPU PMU: it counts types 0, 3 and 4 */
	long types[64];                 /* the devices' perf types */
	int ntypes;
} Sysfs;

static void read_sysfs(Sysfs *sf)
{
	static const char root[] = "/sys/bus/event_source/devices";
	DIR *d = opendir(root);
	struct dirent *e;
	sf->read = true;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		size_t len;
		char *text = read_whole_file(xformat("%s/%s/type", root, e->d_name), &len);
		long type = text ? strtol(text, NULL, 10) : -1;
		if (type == 4 || !strcmp(e->d_name, "cpu") || !strncmp(e->d_name, "cpu_", 4) ||
		    !strncmp(e->d_name, "armv8_", 6))
			sf->core = true;
		if (sf->ntypes < (int)(sizeof(sf->types) / sizeof(sf->types[0])))
			sf->types[sf->ntypes++] = type;
	}
	if (d)
		closedir(d);
}

/* NULL when an event of perf type TYPE can be counted here, else why not. */
static const char *counts_here(Sysfs *sf, unsigned type)
{
	if (!sf->read)
		read_sysfs(sf);
	if (type == 0 || type == 3 || type == 4)
		return sf->core ? NULL : "no CPU PMU in /sys/bus/event_source/devices";
	for (int i = 0; i < sf->ntypes; i++)
		if (sf->types[i] == (long)type)
			return NULL;
	return xformat("no PMU of type %u in /sys/bus/event_source/devices", type);
}

static char *upper(const char *s)
{
	char *u = xstrdup(s);
	for (char *p = u; *p; p++)
		*p = toupper((unsigned char)*p);
	return u;
}

void pmu_list(const char *glob, bool with_desc, Vec *out)
{
	if (!ready())
		return;
	char *want = upper(glob);
	Sysfs sf = {0};
	for (int i = 0; i < ncatalogue; i++) {
		const Event *e = &catalogue[i];
		char *qualified = xformat("%s::%s", e->pmu, e->name);
		if (!glob_match(want, upper(qualified)) && !glob_match(want, upper(e->name)))
			continue;
		char *point = xformat("perf.events(\"%s\")", qualified);
		if (with_desc) {
			/* an event that needs a unit mask does not encode alone: a CPU
			 * model's events are raw (type 4) */
			struct perf_event_attr attr;
			unsigned type = encode_as(qualified, &attr, NULL) == PFM_SUCCESS ?
					attr.type : 4;
			const char *why = counts_here(&sf, type);
			point = xformat("%s  %s  [%s%s]", point, e->desc,
					why ? "not counted here: " : "counted here", why ? why : "");
		}
		vec_push(out, point);
	}
}
