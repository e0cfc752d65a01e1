/* sections.c - random non-standard CPER sections of the types rasdaemon 0.8.5's vendor
 * decoders know (HiSilicon's common section, HIP08's OEM types 1 and 2 and PCIe local,
 * Yitian 710's DDR payload, Nvidia Grace's and Vera's, JaguarMicro's), seeded: a line each, "TYPE HEX"
 * (the type as rasdaemon names it, the section's bytes in hex), for vendor-oracle.c and
 * vendor-words.c. Usage: sections SEED N
 *
 * A HiSilicon or Yitian section is whole (as long as its structure, a register array as
 * long as its size says) and a HIP08 one has a register valid: where one is not,
 * rasdaemon reads past it or stores memory it never wrote (rasvendor.c does neither).
 * Nvidia's are sometimes short, and Vera's context records sometimes malformed: its
 * decoder checks them, and stores no row of what it refuses. */
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
		"a6980811-16ea-4e4d-b936-fb00a23ff29c", "6d5244f2-2712-11ec-bea7-cb3fdb95c786",
		"9068e568-6ca0-11f0-aeaf-159343591eac", "82d78ba3-fa14-407a-ba0e-f3ba8170013c",
		"f9723053-2558-49b1-b58a-1c1a82492a62", "2d31de54-3037-4f24-a283-f69ca1ec0b9a",
		"dac80d69-0a72-4eba-8114-148ee344af06", "746f06fe-405e-451f-8d09-02e802ed984a"};
	/* JaguarMicro's payload types: where their register array (its count) starts */
	static const unsigned jm_tail[5] = {76, 36, 32, 128, 80};
	if (argc != 3)
		return 2;
	state = 0x9e3779b97f4a7c15ULL * (strtoull(argv[1], NULL, 10) + 1);
	long n = strtol(argv[2], NULL, 10);
	for (long k = 0; k < n; k++) {
		unsigned char b[4096];
		size_t len, kind = next() % 12;
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
		case 4:                 /* Yitian: mostly a DDR payload */
			put(b, 0, next() % 8 ? 0x50 : next() & 0xff, 1);
			len = 128;
			break;
		case 5:                 /* Nvidia Grace: a header and 0-8 register pairs */
			len = next() % 16 ? 32 + 16 * (next() % 9) : 1 + next() % 39;
			if (next() % 2)
				b[next() % 16] = 0;     /* a signature shorter than 16 */
			break;
		case 7: case 8: case 9: case 10: case 11: {    /* JaguarMicro */
			unsigned tail = jm_tail[kind - 7];
			uint32_t regs = next() % 3 ? next() % 8 : next() % 200;
			put(b, 0, next() % 4 ? next() & 0xfff : 0xfff, 4);
			put(b, 6, small(17), 1);
			put(b, 7, small(14), 1);
			put(b, 8, small(4), 1);
			put(b, 12, small(6), 1);
			put(b, tail, regs, 4);
			len = tail + 4 + 4 * regs;
			break;
		}
		default: {              /* Nvidia Vera: mostly whole, contexts of each format */
			static const unsigned entry[5] = {1, 16, 8, 8, 4};
			unsigned contexts = next() % 4, info = next() % 8 ? 32 : next() % 64;
			put(b, 0, next() % 16 ? 1 : 2, 1);
			put(b, 1, contexts, 1);
			put(b, 2, next() % 16 ? 0 : 1, 1);
			put(b, 34, info, 1);
			len = 32 + info;
			for (unsigned c = 0; c < contexts && len + 16 < 3000; c++) {
				unsigned format = next() % 16 ? next() % 5 : 5 + next() % 3;
				/* mostly whole entries; sometimes any multiple of 4, or odd */
				unsigned data = next() % 3 ? entry[format % 5] * (next() % 6) :
						4 * (next() % 12) + (next() % 4 ? 0 : 1);
				unsigned size = next() % 4 ? 16 : 16 + data + next() % 3 * 4;
				put(b, len, next() % 32 ? size : next() % 16, 4);
				put(b, len + 8, format, 2);
				put(b, len + 12, data, 4);
				len += (size > 16 + data ? size : 16 + data);
			}
			if (!(next() % 16))
				len -= next() % 8;
			break;
		}
		}
		printf("%s ", types[kind]);
		for (size_t i = 0; i < len; i++)
			printf("%02x", b[i]);
		putchar('\n');
	}
	return 0;
}
