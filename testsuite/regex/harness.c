/* harness.c - runs runtime/regex.h in user space (hwtap.base/regex.exp): every regex of
 * CASES, a file holding the regex part of `hwtap -p3' output and then
 *   static const char *const subjects[];            NULL-terminated
 *   static bool match(int i, const char *s, struct hwtap_re_last *last, void *scratch);
 *   #define NREGEXES ...                             regex i is hwtap_re<i>
 *   #define CAPTURE 0 or 1                           the script reads the last match
 * against every subject, printing one line per pair: whether it matched, and with
 * CAPTURE the match and each capture slot (relative to the match), "-" when unset. Each
 * subject has a buffer of its own length, for ASan to catch a read past its NUL. */
#include "kernel.h"
#include CASES

static union {
	unsigned long align;
	unsigned char bytes[1 << 20];
} scratch;

int main(void)
{
	static struct hwtap_re_last last;

	for (int i = 0; i < NREGEXES; i++) {
		for (int j = 0; subjects[j]; j++) {
			char *s = strdup(subjects[j]);  /* no byte past the NUL to read */
			bool m;

			memset(&last, 0x5a, sizeof(last));
			m = match(i, s, CAPTURE ? &last : NULL, &scratch);
			printf("%d %d: %d", i, j, m);
			if (CAPTURE && m != last.matched)
				printf(" (last match says %d)", last.matched);
			if (CAPTURE && m) {
				printf(" \"%s\"", last.subject);
				for (int k = 0; k < last.ncaps; k++) {
					if (last.caps[k] == HWTAP_RE_UNSET)
						printf(" -");
					else
						printf(" %d", last.caps[k]);
				}
			}
			printf("\n");
			free(s);
		}
	}
	return 0;
}
