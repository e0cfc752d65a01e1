/* words.c - hwtap-run's words (loader/history/mcewords.c) for each record records.c makes, a
 * line each as oracle.c writes rasdaemon's: BANK|bank_name|error_msg|mcgstatus_msg|
 * mcistatus_msg|mcastatus_msg|user_action|mc_location| (a line feed inside a text as \n),
 * or BANK|NORECORD where rasdaemon stores none. */
#include <stdio.h>
#include <string.h>

#include "mcewords.h"
#include "record.h"


int main(void)
{
	struct record r;
	int got;

	while ((got = read_record(&r)) > 0) {
		Mce m;
		MceWords w;

		memset(&m, 0, sizeof(m));
		memset(&w, 0, sizeof(w));
		/* the CPUID signature of FAMILY and MODEL (extended fields as the kernel's) */
		m.cpuid = (r.family >= 15 ? 15u << 8 | (r.family - 15) << 20 : r.family << 8) |
			  (r.model & 15) << 4 | (r.model >> 4) << 16;
		m.cpuvendor = r.vendor;
		m.bank = r.bank;
		m.status = r.status;
		m.misc = r.misc;
		m.mcgstatus = r.mcgstatus;
		m.mcgcap = r.mcgcap;
		m.apicid = r.apicid;
		m.ipid = r.ipid;
		m.synd = r.synd;
		m.cpu = r.cpu;
		mce_words(&m, &w);
		if (w.no_record) {
			printf("%u|NORECORD\n", r.bank);
			continue;
		}
		/* rasdb.c's: an empty error_msg takes mcastatus_msg, as rasdaemon's does */
		if (!w.error_msg.s[0] && w.mcastatus_msg.s[0])
			words_add(&w.error_msg, "%s", w.mcastatus_msg.s);
		printf("%u|", r.bank);
		text(w.bank_name.s);
		text(w.error_msg.s);
		text(w.mcgstatus_msg.s);
		text(w.mcistatus_msg.s);
		text(w.mcastatus_msg.s);
		text(w.user_action.s);
		text(w.mc_location.s);
		putchar('\n');
	}
	return got < 0;
}
