/* oracle.c - rasdaemon's own words for each record records.c makes: compiled with a
 * rasdaemon source tree's decoders (mce-intel*.c, mce-amd*.c, mce-zhaoxin*.c,
 * bitfield.c) and its CPU-type choice (select_intel_cputype(), which rasdaemon.exp
 * copies out of ras-mce-handler.c into select.inc), it writes what rasdaemon would store
 * for the record, as words.c writes hwtap-run's. The CPU type is chosen as rasdaemon
 * chooses it from /proc/cpuinfo: Intel by family and model, AMD K8 for family 0Fh, Scalable
 * MCA for the others, Zhaoxin KH-50000 or generic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ras-mce-handler.h"

#define log(...) do { } while (0)
#include "select.inc"

int parse_intel_event(struct ras_events *ras, struct mce_event *e);
int parse_amd_k8_event(struct ras_events *ras, struct mce_event *e);
int parse_amd_smca_event(struct ras_events *ras, struct mce_event *e);
int parse_zhaoxin_event(struct ras_events *ras, struct mce_event *e);

static void text(const char *s)
{
	for (; *s; s++)
		if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	putchar('|');
}

int main(void)
{
	unsigned vendor, family, model, bank, apicid, cpu;
	unsigned long long status, misc, mcgstatus, mcgcap, ipid, synd;
	char line[512];

	while (fgets(line, sizeof(line), stdin)) {
		struct mce_event e;
		struct mce_priv mce;
		struct ras_events ras;
		int rc;

		if (sscanf(line, "%u %x %x %u %llx %llx %llx %llx %u %llx %llx %u", &vendor,
			   &family, &model, &bank, &status, &misc, &mcgstatus, &mcgcap, &apicid,
			   &ipid, &synd, &cpu) != 12)
			return 1;
		memset(&e, 0, sizeof(e));
		memset(&mce, 0, sizeof(mce));
		memset(&ras, 0, sizeof(ras));
		ras.mce_priv = &mce;
		mce.family = family;
		mce.model = model;
		e.bank = bank;
		e.status = status;
		e.misc = misc;
		e.mcgstatus = mcgstatus;
		e.mcgcap = mcgcap;
		e.apicid = apicid;
		e.ipid = ipid;
		e.synd = synd;
		e.cpu = cpu;
		if (vendor == 0) {
			mce.cputype = select_intel_cputype(&mce);
			rc = parse_intel_event(&ras, &e);
		} else if (vendor == 2 && family == 0xf) {
			mce.cputype = CPU_K8;
			rc = parse_amd_k8_event(&ras, &e);
		} else if (vendor == 2) {
			mce.cputype = CPU_AMD_SMCA;
			rc = parse_amd_smca_event(&ras, &e);
		} else {
			mce.cputype = family == 7 && model == 0x7b ? CPU_ZHAOXIN_KH50000 :
								     CPU_ZHAOXIN;
			rc = parse_zhaoxin_event(&ras, &e);
		}
		if (rc) {
			printf("%u|NORECORD\n", bank);
			continue;
		}
		/* ras_mce_event_handler()'s, before it stores the record */
		if (!*e.error_msg && *e.mcastatus_msg)
			mce_snprintf(e.error_msg, "%s", e.mcastatus_msg);
		printf("%u|", bank);
		text(e.bank_name);
		text(e.error_msg);
		text(e.mcgstatus_msg);
		text(e.mcistatus_msg);
		text(e.mcastatus_msg);
		text(e.user_action);
		text(e.mc_location);
		putchar('\n');
	}
	return 0;
}
