/* sections.c - random non-standard CPER sections of the types rasdaemon 0.8.5's vendor
 * decoders know (HiSilicon's common section, HIP08's OEM types 1 and 2 and PCIe local,
 * Yitian 710's DDR payload), seeded: a line each, "TYPE HEX" (the type as rasdaemon
 * names it, the section's bytes in hex), for vendor-oracle.c and vendor-words.c.
 * Usage: sections SEED N
 *
 * Each section is whole (as long as its structure, a HiSilicon register array as long
 * as its size says) and a HIP08 one has a register valid: where a section is not,
 * rasdaemon reads past it or stores memory it never wrote (rasvendor.c does neither). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint32_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (uint32_t)(state >> 16);
}

/* Mostly small numbers (names' indexes, and just past them), sometimes any byte. */
static unsigned small(unsigned below)
{
	return next() % 4 ? next() % below : next() & 0xff;
}

static void put(unsigned char *b, size_t at, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		b[at + i] = v >> (8 * i);
}

int main(int argc, char **argv)
{
	static const char *const types[] = {
		"c8b328a8-9917-4af6-9a13-2e08ab2e7586", "1f8161e1-55d6-41e6-bd10-7afd1dc5f7c5",
		"45534ea6-ce23-4115-8535-e07ab3aef91d", "b2889fc9-e7d7-4f9d-a867-af42e98be772",
		"a6980811-16ea-4e4d-b936-fb00a23ff29c"};
	if (argc != 3)
		return 2;
	state = 0x9e3779b97f4a7c15ULL * (strtoull(argv[1], NULL, 10) + 1);
	long n = strtol(argv[2], NULL, 10);
	for (long k = 0; k < n; k++) {
		unsigned char b[4096];
		size_t len, kind = next() % 5;
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = next();
		switch (kind) {
		case 0: {               /* HiSilicon common: up to 600 registers */
			uint32_t regs = next() % 3 ? next() % 8 : next() % 600;
			put(b, 0, next() % 4 ? next() & 0x1fff : 0x1fff, 4);
			put(b, 4, small(4), 1);
			put(b, 5, small(5), 1);
			put(b, 10, small(60), 1);
			put(b, 24, small(6), 1);
			put(b, 28, regs * 4 + (next() % 8 ? 0 : next() % 4), 4);
			len = 32 + 4 * regs;
			break;
		}
		case 1:
		case 2:                 /* HIP08 OEM: a register bit among bits 6-11 */
			put(b, 0, (next() & 0xfff) | 1u << (6 + next() % 6), 4);
			put(b, 8, small(kind == 1 ? 20 : 9), 1);
			put(b, 9, small(18), 1);
			put(b, 10, small(6), 1);
			len = kind == 1 ? 40 : 60;
			break;
		case 3: {               /* HIP08 PCIe local: a register bit among bits 9-41 */
			uint64_t valid = ((uint64_t)next() << 32 | next()) & 0x3ffffffffffULL;
			put(b, 0, valid | 1ULL << (9 + next() % 33), 8);
			put(b, 12, small(7), 1);
			put(b, 15, small(6), 1);
			len = 152;
			break;
		}
		default:                /* Yitian: mostly a DDR payload */
			put(b, 0, next() % 8 ? 0x50 : next() & 0xff, 1);
			len = 128;
			break;
		}
		printf("%s ", types[kind]);
		for (size_t i = 0; i < len; i++)
			printf("%02x", b[i]);
		putchar('\n');
	}
	return 0;
}
