/* oracle.c - rasdaemon's own words for each record records.c makes: compiled with a
 * rasdaemon source tree's decoders (mce-intel*.c, mce-amd*.c, mce-zhaoxin*.c,
 * bitfield.c) and its CPU-type choice (select_intel_cputype(), which rasdaemon.exp
 * copies out of ras-mce-handler.c into select.inc), it writes what rasdaemon would store
 * for the record, as words.c writes hwtap-run's. The CPU type is chosen as rasdaemon
 * chooses it from /proc/cpuinfo: Intel by r.family and r.model, AMD K8 for r.family 0Fh, Scalable
 * MCA for the others, Zhaoxin KH-50000 or generic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ras-mce-handler.h"
#include "record.h"

#define log(...) do { } while (0)
#include "select.inc"

int parse_intel_event(struct ras_events *ras, struct mce_event *e);
int parse_amd_k8_event(struct ras_events *ras, struct mce_event *e);
int parse_amd_smca_event(struct ras_events *ras, struct mce_event *e);
int parse_zhaoxin_event(struct ras_events *ras, struct mce_event *e);


int main(void)
{
	struct record r;
	int got;

	while ((got = read_record(&r)) > 0) {
		struct mce_event e;
		struct mce_priv mce;
		struct ras_events ras;
		int rc;

		memset(&e, 0, sizeof(e));
		memset(&mce, 0, sizeof(mce));
		memset(&ras, 0, sizeof(ras));
		ras.mce_priv = &mce;
		mce.family = r.family;
		mce.model = r.model;
		e.bank = r.bank;
		e.status = r.status;
		e.misc = r.misc;
		e.mcgstatus = r.mcgstatus;
		e.mcgcap = r.mcgcap;
		e.apicid = r.apicid;
		e.ipid = r.ipid;
		e.synd = r.synd;
		e.cpu = r.cpu;
		if (r.vendor == 0) {
			mce.cputype = select_intel_cputype(&mce);
			rc = parse_intel_event(&ras, &e);
		} else if (r.vendor == 2 && r.family == 0xf) {
			mce.cputype = CPU_K8;
			rc = parse_amd_k8_event(&ras, &e);
		} else if (r.vendor == 2) {
			mce.cputype = CPU_AMD_SMCA;
			rc = parse_amd_smca_event(&ras, &e);
		} else {
			mce.cputype = r.family == 7 && r.model == 0x7b ? CPU_ZHAOXIN_KH50000 :
									CPU_ZHAOXIN;
			rc = parse_zhaoxin_event(&ras, &e);
		}
		if (rc) {
			printf("%u|NORECORD\n", r.bank);
			continue;
		}
		/* ras_mce_event_handler()'s, before it stores the record */
		if (!*e.error_msg && *e.mcastatus_msg)
			mce_snprintf(e.error_msg, "%s", e.mcastatus_msg);
		printf("%u|", r.bank);
		text(e.bank_name);
		text(e.error_msg);
		text(e.mcgstatus_msg);
		text(e.mcistatus_msg);
		text(e.mcastatus_msg);
		text(e.user_action);
		text(e.mc_location);
		putchar('\n');
	}
	return got < 0;
}
