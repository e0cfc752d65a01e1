/* words.c - hwtap-run's words (loader/mcewords.c) for each record records.c makes, a
 * line each as oracle.c writes rasdaemon's: BANK|bank_name|error_msg|mcgstatus_msg|
 * mcistatus_msg|mcastatus_msg|user_action|mc_location| (a line feed inside a text as \n),
 * or BANK|NORECORD where rasdaemon stores none. */
#include <stdio.h>
#include <string.h>

#include "mcewords.h"

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
		Mce m;
		MceWords w;

		if (sscanf(line, "%u %x %x %u %llx %llx %llx %llx %u %llx %llx %u", &vendor,
			   &family, &model, &bank, &status, &misc, &mcgstatus, &mcgcap, &apicid,
			   &ipid, &synd, &cpu) != 12)
			return 1;
		memset(&m, 0, sizeof(m));
		memset(&w, 0, sizeof(w));
		/* the CPUID signature of FAMILY and MODEL (extended fields as the kernel's) */
		m.cpuid = (family >= 15 ? 15u << 8 | (family - 15) << 20 : family << 8) |
			  (model & 15) << 4 | (model >> 4) << 16;
		m.cpuvendor = vendor;
		m.bank = bank;
		m.status = status;
		m.misc = misc;
		m.mcgstatus = mcgstatus;
		m.mcgcap = mcgcap;
		m.apicid = apicid;
		m.ipid = ipid;
		m.synd = synd;
		m.cpu = cpu;
		mce_words(&m, &w);
		if (w.no_record) {
			printf("%u|NORECORD\n", bank);
			continue;
		}
		/* rasdb.c's: an empty error_msg takes mcastatus_msg, as rasdaemon's does */
		if (!w.error_msg.s[0] && w.mcastatus_msg.s[0])
			words_add(&w.error_msg, "%s", w.mcastatus_msg.s);
		printf("%u|", bank);
		text(w.bank_name.s);
		text(w.error_msg.s);
		text(w.mcgstatus_msg.s);
		text(w.mcistatus_msg.s);
		text(w.mcastatus_msg.s);
		text(w.user_action.s);
		text(w.mc_location.s);
		putchar('\n');
	}
	return 0;
}
