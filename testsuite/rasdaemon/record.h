/* record.h - what oracle.c and words.c share: reading a line of records.c's and writing
 * a decoded text as both write it. */
#ifndef HWTAP_TEST_RASDAEMON_RECORD_H
#define HWTAP_TEST_RASDAEMON_RECORD_H

#include <stdio.h>

/* One of records.c's records. */
struct record {
	unsigned vendor, family, model, bank, apicid, cpu;
	unsigned long long status, misc, mcgstatus, mcgcap, ipid, synd;
};

/* The next record from standard input: 1, 0 at the end, -1 for a line that is none. */
static int read_record(struct record *r)
{
	char line[512];

	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return sscanf(line, "%u %x %x %u %llx %llx %llx %llx %u %llx %llx %u", &r->vendor,
		      &r->family, &r->model, &r->bank, &r->status, &r->misc, &r->mcgstatus,
		      &r->mcgcap, &r->apicid, &r->ipid, &r->synd, &r->cpu) == 12 ? 1 : -1;
}

/* S and a '|', a line feed inside it as \n. */
static void text(const char *s)
{
	for (; *s; s++)
		if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	putchar('|');
}

#endif
