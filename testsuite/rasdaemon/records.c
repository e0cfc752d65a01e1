/* records.c - machine checks to decode: N records from SEED (xorshift64: every run with
 * the same seed makes the same ones), one a line, for words.c and oracle.c to decode alike:
 *
 *   VENDOR FAMILY MODEL BANK STATUS MISC MCGSTATUS MCGCAP APICID IPID SYND CPU
 *
 * (VENDOR the kernel's: 0 Intel, 2 AMD, 5 Centaur, 10 Zhaoxin; FAMILY, MODEL, STATUS,
 * MISC, MCGSTATUS, MCGCAP, IPID and SYND in hex). CPUs of every kind rasdaemon 0.8.5
 * decodes apart, and two it does not; MCA codes of every class, model-specific codes,
 * MISC and the corrected-error count random, the banks the models' decoders name and
 * the kernel's thermal and timeout banks. AMD Scalable MCA records carry IPIDs of known
 * bank types: rasdaemon reads an uninitialized bank type for one it does not know.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;

static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static unsigned below(unsigned n)
{
	return next() % n;
}

static const struct { unsigned vendor, family, model; } cpus[] = {
	{0, 6, 0x0e}, {0, 6, 0x0f}, {0, 6, 0x1d}, {0, 6, 0x1a}, {0, 6, 0x2e}, {0, 0xf, 0},
	{0, 0xf, 6}, {0, 6, 0x2a}, {0, 6, 0x2d}, {0, 6, 0x3a}, {0, 6, 0x3e}, {0, 6, 0x3c},
	{0, 6, 0x3f}, {0, 6, 0x3d}, {0, 6, 0x56}, {0, 6, 0x4f}, {0, 6, 0x57}, {0, 6, 0x85},
	{0, 6, 0x55}, {0, 6, 0x6a}, {0, 6, 0x6c}, {0, 6, 0x86}, {0, 6, 0x8f}, {0, 6, 0xcf},
	{0, 6, 0xad}, {0, 6, 0xae}, {0, 6, 0xaf}, {0, 6, 0xdd}, {0, 0x13, 1}, {0, 6, 0x99},
	{0, 6, 0x1c}, {2, 0xf, 0x41}, {2, 0x17, 0x31}, {2, 0x19, 0x11}, {2, 0x19, 0x90},
	{2, 0x1a, 0x45}, {10, 7, 0x7b}, {5, 6, 0x0f},
};

static const uint64_t ipids[] = {
	0x000000b000000000, 0x001000b000000000, 0x000200b000000000, 0x0002002e00000000,
	0x0000002e00000000, 0x0000009600500000, 0x0000c09600500000, 0x0001009600000000,
	0x0000000100000000, 0x0000001800000000,
};

static unsigned code(void)
{
	static const unsigned simple[] = {0, 1, 2, 3, 4, 5, 0x400, 0x401, 0x402, 0x403, 0x406,
					  0x407, 0x40b, 0xe0b, 0xe0f, 0xc0f};

	switch (below(10)) {
	case 0: return simple[below(sizeof(simple) / sizeof(simple[0]))];
	case 1: return 0x80 | below(0x80);		/* memory controller */
	case 2: return 0x10 | below(0x10);		/* TLB */
	case 3: return 0x100 | below(0x100);		/* cache */
	case 4: return 0x800 | below(0x800);		/* bus */
	case 5: return below(0x10000);
	case 6: return 0x1000 | 0x80 | below(0x80);	/* corrected filtering */
	case 7: return 0x400 + below(16);		/* internal */
	default: return below(0x1000);
	}
}

int main(int argc, char **argv)
{
	static const uint64_t mcgcaps[] = {0, 0x820, 0x420, 0xc20, 0x1000c20};
	static const unsigned intel_banks[] = {128, 218};
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000;

	state = argc > 1 ? strtoull(argv[1], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1 : 1;
	for (unsigned long i = 0; i < n; i++) {
		unsigned c = below(sizeof(cpus) / sizeof(cpus[0])), bank, mcgstatus, apicid, cpu;
		uint64_t status, misc, mcgcap, ipid, synd;
		int smca = cpus[c].vendor == 2 && cpus[c].family != 0xf;

		status = next() & ((1ULL << 47) - 1);
		status = 1ULL << 63 | status << 16 | code();

		if (cpus[c].vendor == 0 && below(5) == 0)
			bank = intel_banks[below(2)];
		else
			bank = below(4) == 0 ? below(8) : below(32);
		if (below(10) < 3)
			status &= ~(0x7fffULL << 38);
		/* one draw a statement: the order of a call's arguments is the compiler's */
		misc = below(10) < 7 ? next() : 0;
		mcgstatus = below(16);
		mcgcap = mcgcaps[below(5)];
		apicid = below(16);
		ipid = smca ? ipids[below(10)] : 0;
		synd = next() & 0xff;
		cpu = below(4);
		printf("%u %x %x %u %llx %llx %x %llx %u %llx %llx %u\n", cpus[c].vendor,
		       cpus[c].family, cpus[c].model, bank, (unsigned long long)status,
		       (unsigned long long)misc, mcgstatus, (unsigned long long)mcgcap, apicid,
		       (unsigned long long)ipid, (unsigned long long)synd, cpu);
	}
	return 0;
}
