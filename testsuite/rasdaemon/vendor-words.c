/* vendor-words.c - what hwtap-run --ras-db stores for each section sections.c makes:
 * each becomes the history record ras.history.non_standard sends (runtime/protocol.h),
 * given to hwtap-run's own rasdb.c (and its rasvendor.c) over the database DB
 * (argv[1]), as vendor-oracle.c gives it to rasdaemon's decoders. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

/* what rasdb.c takes from hwtap-run's other files */
void *loader_realloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		abort();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = loader_realloc(NULL, n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

int main(int argc, char **argv)
{
	static char line[16384], type[64], hex[16000];
	static unsigned char rec[16384];
	char *why = NULL;

	if (argc != 2)
		return 2;
	if (rasdb_open(argv[1], &why)) {
		fprintf(stderr, "vendor-words: %s\n", why);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		size_t n = 0, len;

		if (sscanf(line, "%63s %15999s", type, hex) != 2)
			return 2;
		/* source, time, sec_type, fru_id, fru_text, severity, then the payload */
		len = snprintf((char *)rec, sizeof(rec), "ras.non_standard%c0%c%s%c"
			       "00000000-0000-0000-0000-000000000000%c%c1%c%zu", 0, 0, type, 0, 0,
			       0, 0, strlen(hex) / 2) + 1;
		for (; hex[2 * n] && hex[2 * n + 1]; n++)
			sscanf(hex + 2 * n, "%2hhx", &rec[len + n]);
		if (rasdb_record(rec, len + n, &why)) {
			fprintf(stderr, "vendor-words: %s\n", why);
			return 1;
		}
	}
	if (rasdb_commit(&why)) {
		fprintf(stderr, "vendor-words: %s\n", why);
		return 1;
	}
	rasdb_close();
	return 0;
}
