/* mcewords.h - rasdaemon's words for a machine check (mcewords.c), for rasdb.c. */
#ifndef HWTAP_MCEWORDS_H
#define HWTAP_MCEWORDS_H

/* A text that grows as rasdaemon's do: each piece after the first after one space. */
typedef struct Words {
	char s[1024];
} Words;

typedef struct MceWords {
	Words bank_name, error_msg, mcgstatus_msg, mcistatus_msg, mcastatus_msg, user_action,
	      mc_location;
	int no_ip;              /* rasdaemon stores the record's ip as 0 */
	int no_record;          /* rasdaemon stores no record of it */
} MceWords;

/* The raw fields of a machine check, as ras.mce has them. */
typedef struct Mce {
	unsigned long long status, misc, addr, mcgstatus, mcgcap, ip, tsc, time, cpuvendor,
			   cpuid, apicid, socketid, cs, bank, cpu, synd, ipid, ppin, microcode,
			   severity;
} Mce;

#define BIT(n) (1ULL << (n))

/* Adds a piece to W (a space before it, unless it is the first). */
void words_add(Words *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* M's words, as rasdaemon's parse_*_event() write them, for the CPU M names (its vendor,
 * family and model). */
void mce_words(const Mce *m, MceWords *w);

#endif /* HWTAP_MCEWORDS_H */
