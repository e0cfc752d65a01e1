/* fuzz_front.c - libFuzzer harness over the translator's front end (passes 1-2).
 *
 * Built by `make fuzz' with clang -fsanitize=fuzzer,address,undefined from this file and
 * every translator source but main.c. Each input is one script: it is lexed, preprocessed,
 * parsed and elaborated against the tapset exactly as `hwtap -p2 FILE' would, with the
 * diagnostics thrown away. arena_reset() after each input frees everything the front end
 * allocated, so LeakSanitizer reports only real leaks (malloc outside the arena).
 *
 *   translator/fuzz_front -max_total_time=600 -timeout=5 CORPUS_DIR...
 */
#include "hwtap.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool initialized;
	if (!initialized) {
		FILE *null = fopen("/dev/null", "w");
		if (null)
			diag_out = null;
		initialized = true;
	}

	/* A private NUL-terminated copy: the front end may rely on the terminator, and ASan
	 * then catches any read beyond it. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	Session s;
	memset(&s, 0, sizeof s);
	session_init(&s);
	s.pass = 2;
	s.out = diag_out;
	run_front_end(&s, "fuzz.stp", text, size);

	uprog_close_all(&s);
	arena_reset();
	free(text);
	return 0;
}
