/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_zhaoxin.h - the words rasdaemon 0.8.5 writes for a machine check of a Zhaoxin
 * KH-50000 server processor (vendor "CentaurHauls" or "  Shanghai  ", family 7 model
 * 0x7b): the bank's name and what its model-specific code, and MCi_MISC where valid,
 * say (its mce-zhaoxin-kh50000.c, contributed by Zhaoxin), taken entry by entry. C that
 * the module (the tapset's mce_model_str(), embedded C) and hwtap-run (--ras-db) both
 * compile, on mce_words.h: include <stdarg.h>, <stdio.h> and <string.h> (user space) or
 * the kernel's headers first.
 *
 * rasdaemon's ways are kept so that ras-mc-ctl shows the same: the memory banks'
 * "Internal Error Code" is added after a space even where no MCA code came before it
 * (", Internal Error Code: ..."); a code past a table is "Unknown error" ("Unknown Error"
 * for PCIe), a bank past 31 has no name.
 */
#ifndef HWTAP_MCE_ZHAOXIN_H
#define HWTAP_MCE_ZHAOXIN_H

#include "mce_words.h"

/* KH-50000 is family 7 model 0x7b (the extended model counted, as the kernel does). */
static inline int _hwtap_zhaoxin_kh50000(unsigned int vendor, unsigned int family,
					 unsigned int model)
{
	/* X86_VENDOR_CENTAUR 5, X86_VENDOR_ZHAOXIN 10 */
	return (vendor == 5 || vendor == 10) && family == 7 && model == 0x7b;
}

/* The banks' names, by number (0x00-0x1f). */
static const char *const _hwtap_kh_bank_names[32] = {
	"CPU Error Bank", "PL2 Cache Error Bank", "CRMCA0 PCIE Error Bank",
	"CRMCA0 IOD ZDI Error Bank", "SVID0 Error Bank", "CRMCA1 IOD ZDI Error Bank",
	"CRMCA1 PCIE Error Bank", "CCD ZDI Error Bank", "Reserved Error Bank",
	[0x09 ... 0x10] = "Memory Error Bank", [0x11] = "LLC Cache Error Bank",
	[0x12 ... 0x15] = "Memory Error Bank", [0x16] = "SVID2 Error Bank",
	[0x17 ... 0x19] = "Reserved Error Bank", [0x1a] = "ZPI Error Bank",
	[0x1b] = "SVID1 Error Bank", [0x1c] = "HIF H0 Error Bank", [0x1d] = "HIF H1 Error Bank",
	[0x1e] = "HIF H2 Error Bank", [0x1f] = "HIF H3 Error Bank",
};
static const char *const _hwtap_kh_cpu[] = {
	"Unknown error", "Unknown error", "Machine hung error", "Undefined ucode address error",
};
static const char *const _hwtap_kh_cache[] = {
	"Unknown Error", "ECC single bit error for data part in the same line",
	"ECC single bit error for different line", "ECC multi bit error for data part",
};
static const char *const _hwtap_kh_pcie[] = {
	"Fatal error", "Non-fatal error", "Correctable error",
};
static const char *const _hwtap_kh_zdi_zpi[] = {
	"Unknown error", "Receiver overflow status error(TL)",
	"Flow control protocol error(TL)", "Surprise down error",
	"Data link protocol error(DLL)", "Replay timer timeout error(DLL)",
	"REPLAY_NUM Rollover error(DLL)", "Bad data link layer packet error(DLL)",
	"Bad transaction layer packet error(DLL)", "Receiver error(PHY)",
	"Phy raining error(PHY)", "Link-width down-mode due to link unreliable",
	"Unknown error", "Unknown error", "Link-speed down-mode due to link unreliable",
	"Unknown error", "X32X24 Link-width down-mode due to link unreliable",
	"X16X12 Link-width down-mode due to link unreliable",
	"X8 Link-width down-mode due to link unreliable",
	"X4 Link-width down-mode due to link unreliable",
	"X2 Link-width down-mode due to link unreliable",
	"GEN4 Link-speed down-mode due to link unreliable",
	"GEN3 Link-speed down-mode due to link unreliable",
	"GEN2 Link-speed down-mode due to link unreliable",
};
static const char *const _hwtap_kh_ccd_zdi[] = {
	"Unknown error", "Receive overflow error", "PHY training error", "FC protocol error",
	"Surprise down error", "DLLM protocol error", "DLLM replay timeout error",
	"DLLM replay number rollover report", "Bad DLLP error", "Bad TLP error",
	"Gen2 unreliable error", "Gen3 unreliable error", "Gen4 unreliable error",
	"X2 unreliable error", "X4 unreliable error", "X8 unreliable error",
	"X16/X12 unreliable error", "X32/X24 unreliable error",
};
static const char *const _hwtap_kh_svid[] = {
	"No error", "SVID Resend fail error", "VRM Over current error", "VRM Over temp error",
	"VRM Parity error",
};
static const char *const _hwtap_kh_mem_request[] = {
	"Generic undefined request error", "Memory read error", "Memory write error",
	"Address/Command error", "Memory scrubbing error",
	"data posion enable, Error source is dramc, maser normal read",
	"data posion enable, Error source is dramc, patrol read", "key hit error",
};
static const char *const _hwtap_kh_mem_channel[] = {
	"channel A0", "channel B0", "channel A1", "channel B1", "channel C0", "channel C1",
	"channel A2", "channel B2", "channel C2", "channel A3", "channel B3", "channel C3",
};
static const char *const _hwtap_kh_mem_internal[] = {
	"Unknown error", "Single bit ECC error", "Multiple bit ECC error",
	"Command parity error", "CRC error", "Parity error retry failed",
	"CRC error retry failed", "CPUIF CHA0 DVAD decode error(reserved)",
	"CPUIF CHB0 DVAD decode error(reserved)", "CPUIF CHA1 DVAD decode error(reserved)",
	"CPUIF CHB1 DVAD decode error(reserved)", "MCUTRF DVAD decode error(reserved)",
	"GMINT CHA0 DVAD decode error(reserved)", "GMINT CHB0 DVAD decode error(reserved)",
	"GMINT CHA1 DVAD decode error(reserved)", "GMINT CHB1 DVAD decode error(reserved)",
	"Key not hit error",
};
static const char *const _hwtap_kh_hif[] = {
	"Unknown error", "HIF dvad error", "SNT multi bit ecc error",
	"SNT single bit ecc error", "CXL decpoison uc error", "CXL decpoison ce error",
	"CXL parity error",
};

/* words[v], or UNKNOWN past the table */
#define _HWTAP_KH_WORD(words, v, unknown) \
	((v) < _HWTAP_NELEM(words) ? (words)[v] : (unknown))

/* Which of a ZDI or ZPI bank's N links MCi_MISC bits START.. name: the first link whose
 * bit is the highest one set (rasdaemon's test_prefix()); -1 for none. */
static inline int _hwtap_kh_link(unsigned long long misc, unsigned int start, unsigned int n)
{
	unsigned int code = misc >> start & ((1u << n) - 1), i;

	for (i = 0; i < n; i++)
		if (code >> i == 1)
			return i;
	return -1;
}

/* A KH-50000 record's words: bank_name, and mcastatus_msg (rasdaemon copies that into an
 * empty error_msg afterwards; a script's caller joins the two). MISCV: MCi_MISC is known
 * and valid (status bit 59 and a caller that has it). */
static __attribute__((unused)) void _hwtap_mce_kh50000_words(struct _hwtap_mce_texts *t,
					unsigned int bank, unsigned long long status,
					unsigned long long misc, int miscv)
{
	struct _hwtap_mce_text *w = &t->mcastatus_msg;
	unsigned int core = status >> 16 & 7, ccd = status >> 19 & 15, siod = status >> 23 & 3;
	unsigned int code, mca = status & 0xffff;
	int link;

	if (bank < 32)
		_hwtap_mce_add(&t->bank_name, "%s", _hwtap_kh_bank_names[bank]);
	switch (bank) {
	case 0x00:
		code = status >> 25 & 31;
		_hwtap_mce_add(w, "siod_id %u ccd_id %u core_id %u occurred %s", siod, ccd, core,
			       _HWTAP_KH_WORD(_hwtap_kh_cpu, code, "Unknown error"));
		break;
	case 0x01:
		code = status >> 24 & 3;
		_hwtap_mce_add(w, "occurred PL2 %s", _hwtap_kh_cache[code]);
		break;
	case 0x11:
		code = status >> 25 & 3;
		_hwtap_mce_add(w, "siod_id %u ccd_id %u core_id %u occurred LLC %s", siod, ccd,
			       core, _hwtap_kh_cache[code]);
		break;
	case 0x02:
	case 0x06:
		if (!miscv)
			break;
		code = status >> 16 & 0xff;
		_hwtap_mce_add(w, "Device %x:%x:%x.%x occurred pcie %s",
			       (unsigned int)(misc >> 32 & 0xff), (unsigned int)(misc >> 24 & 0xff),
			       (unsigned int)(misc >> 19 & 31), (unsigned int)(misc >> 16 & 7),
			       _HWTAP_KH_WORD(_hwtap_kh_pcie, code, "Unknown Error"));
		break;
	case 0x03:
	case 0x05:
	case 0x1a:
		code = status >> 16 & 0xffff;
		_hwtap_mce_add(w, bank == 0x1a ? "zpi" : "iod_zdi");
		link = !miscv ? -1 : bank == 0x1a ? _hwtap_kh_link(misc, 25, 3) :
						    _hwtap_kh_link(misc, 25, 6);
		if (link >= 0)
			_hwtap_mce_add(w, bank == 0x1a ? "zpi%d" : "zdi%d", link);
		_hwtap_mce_add(w, "occurred %s",
			       _HWTAP_KH_WORD(_hwtap_kh_zdi_zpi, code, "Unknown error"));
		break;
	case 0x07:
		code = status >> 25 & 31;
		_hwtap_mce_add(w, "siod_id %u ccd_id %u core_id %u occurred ccd_zdi %s", siod,
			       ccd, core, _HWTAP_KH_WORD(_hwtap_kh_ccd_zdi, code, "Unknown error"));
		break;
	case 0x04:
	case 0x1b:
	case 0x16:
		code = status >> 24 & 0xff;
		_hwtap_mce_add(w, "%s", bank == 0x04 ? "svid 0" : bank == 0x1b ? "svid 1" : "svid 2");
		if (miscv)
			_hwtap_mce_add(w, "vrm %u", (unsigned int)(misc >> 24 & 3));
		_hwtap_mce_add(w, "occurred %s",
			       _HWTAP_KH_WORD(_hwtap_kh_svid, code, "Unknown error"));
		break;
	case 0x09 ... 0x10:
	case 0x12 ... 0x15:
		code = status >> 16 & 0xffff;
		if (mca == 1)
			_hwtap_mce_add(w, "Memory Error, MCA Error Code: DVAD Error");
		else if (mca == 5)
			_hwtap_mce_add(w, "Memory Error, MCA Error Code: Parity Error");
		else if (mca & 0x80)
			_hwtap_mce_add(w, "Memory Error, MCA Error Code: %s %s",
				       _HWTAP_KH_WORD(_hwtap_kh_mem_channel, mca & 15,
						      "Unknown channel"),
				       _hwtap_kh_mem_request[mca >> 4 & 7]);
		_hwtap_mce_add(w, ", Internal Error Code: %s",
			       _HWTAP_KH_WORD(_hwtap_kh_mem_internal, code, "Unknown error"));
		if (miscv) {
			_hwtap_mce_add(w, ", CRC/PAR MRP Log: %llu", misc >> 31 & 0x1ffffffffULL);
			_hwtap_mce_add(w, ", Rank: %llu", misc >> 25 & 3);
			_hwtap_mce_add(w, ", ECC ERROR Syndrome Single Bit: %llu", misc >> 9 & 0xff);
			_hwtap_mce_add(w, ", Addr Mode: %s",
				       (misc >> 6 & 7) == 2 ? "SVA" : "Unknown");
		}
		break;
	case 0x1c ... 0x1f:
		code = status >> 16 & 0xff;
		_hwtap_mce_add(w, "HIF %u occurred %s", bank - 0x1c,
			       _HWTAP_KH_WORD(_hwtap_kh_hif, code, "Unknown error"));
		break;
	}
}

#endif
