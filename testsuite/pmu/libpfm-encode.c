/* libpfm-encode.c - the testsuite's second opinion on perf.events("NAME"): libpfm4 called
 * directly, as its documentation says, printing the perf_event_attr fields in the form of
 * `hwtap -p2' ("type T config 0xC sample_period P exclude_... precise_ip N exclusive
 * pinned cpu C").
 *
 *   libpfm-encode MODEL NAME      MODEL "-" for no CPU model: the generic events alone
 *
 * With a MODEL, libpfm4 sees only that model (LIBPFM_FORCE_PMU) and may encode inactive
 * PMUs' events (LIBPFM_ENCODE_INACTIVE), and a bare NAME is tried as MODEL::NAME, then as
 * the generic perf::NAME. With "-", libpfm4 sees only the generic PMU NAME names, perf_raw
 * or perf, whatever this machine's CPU is: started beside a CPU model, the generic PMU
 * would take that model's privilege levels. Exit status 1 and libpfm4's message when it
 * does not encode.
 */
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cpu;

static int encode(const char *name, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	memset(attr, 0, sizeof(*attr));
	arg.size = sizeof(arg);
	arg.attr = attr;
	int rc = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	cpu = arg.cpu;
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: libpfm-encode MODEL|- NAME\n", stderr);
		return 2;
	}
	const char *model = strcmp(argv[1], "-") ? argv[1] : NULL, *name = argv[2];
	if (model) {
		setenv("LIBPFM_FORCE_PMU", model, 1);
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	} else {
		setenv("LIBPFM_FORCE_PMU", strncmp(name, "perf_raw::", 10) ? "perf" : "perf_raw",
		       1);
	}
	if (pfm_initialize() != PFM_SUCCESS) {
		fputs("libpfm4 does not initialise\n", stderr);
		return 1;
	}
	struct perf_event_attr a;
	char buf[512];
	int rc;
	if (model && !strstr(name, "::")) {
		snprintf(buf, sizeof(buf), "%s::%s", model, name);
		rc = encode(buf, &a);
		if (rc == PFM_ERR_NOTFOUND) {
			snprintf(buf, sizeof(buf), "perf::%s", name);
			rc = encode(buf, &a);
		}
	} else {
		rc = encode(name, &a);
	}
	if (rc != PFM_SUCCESS) {
		printf("%s\n", pfm_strerror(rc));
		return 1;
	}
	printf("type %u config 0x%llx", a.type, (unsigned long long)a.config);
	if (a.config1)
		printf(" config1 0x%llx", (unsigned long long)a.config1);
	if (a.config2)
		printf(" config2 0x%llx", (unsigned long long)a.config2);
	if (a.freq)
		printf(" freq sample_freq %llu", (unsigned long long)a.sample_freq);
	else
		printf(" sample_period %llu", a.sample_period ? (unsigned long long)a.sample_period :
		       1000000ULL);
	const struct { unsigned on; const char *name; } bits[] = {
		{a.exclude_user, "exclude_user"}, {a.exclude_kernel, "exclude_kernel"},
		{a.exclude_hv, "exclude_hv"}, {a.exclude_idle, "exclude_idle"},
		{a.exclude_host, "exclude_host"}, {a.exclude_guest, "exclude_guest"},
	};
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (bits[i].on)
			printf(" %s", bits[i].name);
	if (a.precise_ip)
		printf(" precise_ip %u", a.precise_ip);
	if (a.exclusive)
		printf(" exclusive");
	if (a.pinned)
		printf(" pinned");
	if (cpu >= 0)
		printf(" cpu %d", cpu);
	putchar('\n');
	return 0;
}
