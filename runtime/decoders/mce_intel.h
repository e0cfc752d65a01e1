/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_intel.h - which Intel CPU a machine check comes from, as rasdaemon tells them apart
 * (its select_intel_cputype()), and the model-specific words rasdaemon 0.8.5 adds for the
 * older families and the ones with code of their own: P6 (before Core 2), Core 2,
 * Dunnington (Xeon 7400), Nehalem and Westmere, Xeon 7500 (Nehalem-EX), Pentium 4 and
 * Tulsa (Xeon 7100), Sandy Bridge and Sandy Bridge-EP, Ivy Bridge-EP/EX, Broadwell-DE,
 * Knights Landing and Knights Mill, Granite Rapids and its siblings, Diamond Rapids. The
 * tables and words are rasdaemon's (mce-intel-p4-p6.c, -dunnington.c, -tulsa.c,
 * -nehalem.c, -sb.c, -ivb.c, -broadwell-de.c, -knl.c, which cite the Intel SDM Vol. 3B's
 * model-specific tables; Granite Rapids(-D), Sierra Forest and Clearwater Forest's
 * -granite.c and Diamond Rapids' -diamond.c, both from mcelog), taken entry by entry,
 * quirks and all: rasdaemon reads a field list up to its first unnamed field, so the
 * fields after one are never printed, and here they are left out; its Sandy and Ivy
 * Bridge-EP code names both ranks even when MCi_MISC gives neither (-1).
 *
 * Unlike mce_skx.h and its kind, which are tables only, this header holds the code too,
 * in C that the module (the tapset's mce_model_str(), embedded C) and hwtap-run (its
 * --ras-db words) both compile: no kernel types, only vsnprintf, which both have.
 * Include <stdarg.h> (user space) or the kernel's headers first.
 */
#ifndef HWTAP_MCE_INTEL_H
#define HWTAP_MCE_INTEL_H

#include "mce_words.h"

/* rasdaemon's CPU types, the ones hwtap tells apart. */
enum _hwtap_intel_cpu {
	_HWTAP_INTEL_OTHER,		/* architectural decoding only */
	_HWTAP_INTEL_P6OLD, _HWTAP_INTEL_CORE2, _HWTAP_INTEL_DUNNINGTON,
	_HWTAP_INTEL_NEHALEM, _HWTAP_INTEL_XEON75XX, _HWTAP_INTEL_P4, _HWTAP_INTEL_TULSA,
	_HWTAP_INTEL_SNB, _HWTAP_INTEL_SNB_EP, _HWTAP_INTEL_IVB, _HWTAP_INTEL_IVB_EPEX,
	_HWTAP_INTEL_HSW, _HWTAP_INTEL_HSW_EPEX, _HWTAP_INTEL_BDW, _HWTAP_INTEL_BDW_DE,
	_HWTAP_INTEL_BDW_EPEX, _HWTAP_INTEL_KNL, _HWTAP_INTEL_KNM, _HWTAP_INTEL_SKX,
	_HWTAP_INTEL_I10NM,		/* Ice Lake-SP/-D, Tremont-D, Sapphire/Emerald Rapids */
	_HWTAP_INTEL_GRANITE,		/* Granite Rapids(-D), Sierra and Clearwater Forest */
	_HWTAP_INTEL_DIAMOND,		/* Diamond Rapids (family 19) */
};

/* The type of an Intel CPU of FAMILY and MODEL (the extended ones added), as rasdaemon
 * 0.8.5 chooses it: family 6 models below 0x1a that it does not list are P6 to it. */
static inline int _hwtap_intel_cpu(unsigned int family, unsigned int model)
{
	static const struct { unsigned char model, cpu; } models[] = {
		{0x0f, _HWTAP_INTEL_CORE2}, {0x17, _HWTAP_INTEL_CORE2},
		{0x1d, _HWTAP_INTEL_DUNNINGTON},
		{0x1a, _HWTAP_INTEL_NEHALEM}, {0x2c, _HWTAP_INTEL_NEHALEM},
		{0x1e, _HWTAP_INTEL_NEHALEM}, {0x25, _HWTAP_INTEL_NEHALEM},
		{0x2e, _HWTAP_INTEL_XEON75XX}, {0x2f, _HWTAP_INTEL_XEON75XX},
		{0x2a, _HWTAP_INTEL_SNB}, {0x2d, _HWTAP_INTEL_SNB_EP},
		{0x3a, _HWTAP_INTEL_IVB}, {0x3e, _HWTAP_INTEL_IVB_EPEX},
		{0x3c, _HWTAP_INTEL_HSW}, {0x45, _HWTAP_INTEL_HSW}, {0x46, _HWTAP_INTEL_HSW},
		{0x3f, _HWTAP_INTEL_HSW_EPEX}, {0x56, _HWTAP_INTEL_BDW_DE},
		{0x4f, _HWTAP_INTEL_BDW_EPEX}, {0x3d, _HWTAP_INTEL_BDW},
		{0x57, _HWTAP_INTEL_KNL}, {0x85, _HWTAP_INTEL_KNM}, {0x55, _HWTAP_INTEL_SKX},
		{0x6a, _HWTAP_INTEL_I10NM}, {0x6c, _HWTAP_INTEL_I10NM},
		{0x86, _HWTAP_INTEL_I10NM}, {0x8f, _HWTAP_INTEL_I10NM},
		{0xcf, _HWTAP_INTEL_I10NM}, {0xad, _HWTAP_INTEL_GRANITE},
		{0xae, _HWTAP_INTEL_GRANITE}, {0xaf, _HWTAP_INTEL_GRANITE},
		{0xdd, _HWTAP_INTEL_GRANITE},
	};
	unsigned int i;

	if (family == 15)
		return model == 6 ? _HWTAP_INTEL_TULSA : _HWTAP_INTEL_P4;
	if (family == 19)
		return model == 1 ? _HWTAP_INTEL_DIAMOND : _HWTAP_INTEL_OTHER;
	if (family != 6)
		return _HWTAP_INTEL_OTHER;
	if (model < 0x0f)
		return _HWTAP_INTEL_P6OLD;
	for (i = 0; i < _HWTAP_NELEM(models); i++)
		if (models[i].model == model)
			return models[i].cpu;
	return model > 0x1a ? _HWTAP_INTEL_OTHER : _HWTAP_INTEL_P6OLD;
}

/* ---- the tables ------------------------------------------------------------------------ */

/* P6 before Core 2 and Core 2, bus errors (rasdaemon's list starts with an unnamed field
 * and its shared part is never read): bits 28, 29, 31 */
static const struct _hwtap_mce_code _hwtap_p6old_bus[] = {
	_HWTAP_FLAG(28, "FRC error"), _HWTAP_FLAG(29, "BERR on this CPU"),
};
static const struct _hwtap_mce_code _hwtap_core2_bus[] = {
	_HWTAP_FLAG(28, "MCE driven"), _HWTAP_FLAG(29, "MCE is observed"),
	_HWTAP_FLAG(31, "BINIT observed"),
};
static const struct _hwtap_mce_number _hwtap_p6_syndrome[] = {
	{47, 54, 1, 0, "ECC syndrome"},
};

/* Pentium 4 and Tulsa bus errors: bits 16-23 of the model-specific code */
static const char *const _hwtap_p4_bus_words[8] = {
	"FSB address parity", "Response hard fail", "Response parity",
	"PIC and FSB data parity", "Invalid PIC request(Signature=0xF04H)",
	"Pad state machine", "Pad strobe glitch", "Pad address glitch",
};

/* Nehalem: Intel QPI (bank 1's bus errors), its MCi_MISC, the memory controller, the
 * internal errors */
static const struct _hwtap_mce_code _hwtap_nhm_qpi[] = {
	_HWTAP_FLAG(16, "QPI header had bad parity"),
	_HWTAP_FLAG(17, "QPI Data packet had bad parity"),
	_HWTAP_FLAG(18, "Number of QPI retries exceeded"),
	_HWTAP_FLAG(19, "Received QPI data packet that was poisoned by sender"),
	_HWTAP_FLAG(20, "QPI reserved 20"),
	_HWTAP_FLAG(21, "QPI reserved 21"),
	_HWTAP_FLAG(22, "QPI received unsupported message encoding"),
	_HWTAP_FLAG(23, "QPI credit type is not supported"),
	_HWTAP_FLAG(24, "Sender sent too many QPI flits to the receiver"),
	_HWTAP_FLAG(25, "QPI Sender sent a failed response to receiver"),
	_HWTAP_FLAG(26, "Clock jitter detected in internal QPI clocking"),
};
static const struct _hwtap_mce_code _hwtap_nhm_qpi_misc[] = {
	_HWTAP_FLAG(14, "QPI misc reserved 14"),
	_HWTAP_FLAG(15, "QPI misc reserved 15"),
	_HWTAP_FLAG(24, "QPI Interleave/Head Indication Bit (IIB)"),
};
static const struct _hwtap_mce_number _hwtap_nhm_qpi_misc_numbers[] = {
	{0, 7, 1, 0, "QPI class and opcode of packet with error"},
	{8, 13, 1, 0, "QPI Request Transaction ID"},
	{16, 18, 0, 1, "QPI Requestor/Home Node ID (RHNID)"},
	{19, 23, 1, 0, "QPI miscreserved 19-23"},
};
static const struct _hwtap_mce_code _hwtap_nhm_memory[] = {
	_HWTAP_FLAG(16, "Memory read ECC error"),
	_HWTAP_FLAG(17, "Memory ECC error occurred during scrub"),
	_HWTAP_FLAG(18, "Memory write parity error"),
	_HWTAP_FLAG(19, "Memory error in half of redundant memory"),
	_HWTAP_FLAG(20, "Memory reserved 20"),
	_HWTAP_FLAG(21, "Memory access out of range"),
	_HWTAP_FLAG(22, "Memory internal RTID invalid"),
	_HWTAP_FLAG(23, "Memory address parity error"),
	_HWTAP_FLAG(24, "Memory byte enable parity error"),
};
static const struct _hwtap_mce_number _hwtap_nhm_memory_numbers[] = {
	{25, 37, 1, 0, "Memory MISC reserved 25..37"},
	{38, 52, 0, 1, "Memory corrected error count (CORE_ERR_CNT)"},
	{53, 56, 1, 0, "Memory MISC reserved 53..56"},
};
static const struct _hwtap_mce_number _hwtap_nhm_memory_misc_numbers[] = {
	{0, 7, 1, 1, "Memory transaction Tracker ID (RTId)"},
	{16, 17, 0, 1, "Memory DIMM ID of error"},
	{18, 19, 0, 1, "Memory channel ID of error"},
	{32, 63, 1, 1, "Memory ECC syndrome"},
};
static const char *const _hwtap_nhm_internal_words[] = {
	[0x00] = "No Error",
	[0x03] = "Reset firmware did not complete",
	[0x08] = "Received an invalid CMPD",
	[0x0a] = "Invalid Power Management Request",
	[0x0d] = "Invalid S-state transition",
	[0x11] = "VID controller does not match POC controller selected",
	[0x1a] = "MSID from POC does not match CPU MSID",
};
static const struct _hwtap_mce_code _hwtap_nhm_internal[] = {
	_HWTAP_CODE(24, _hwtap_nhm_internal_words),
};
static const struct _hwtap_mce_number _hwtap_nhm_internal_numbers[] = {
	{16, 23, 1, 0, "Internal machine check status reserved 16..23"},
	{32, 56, 1, 0, "Internal machine check status reserved 32..56"},
};

/* Dunnington and Tulsa: bus errors (rasdaemon reads their lists up to bit 17 and 19),
 * and internal errors by the model-specific code (bits 31:16): front side, internal,
 * corrected and uncorrected ECC on outgoing data */
static const struct _hwtap_mce_code _hwtap_dnt_bus[] = {
	_HWTAP_FLAG(16, "Parity error detected during FSB request phase"),
};
static const char *const _hwtap_dnt_front_words[15] = {
	[0x1] = "Inclusion error from core 0",
	[0x2] = "Inclusion error from core 1",
	[0x3] = "Write Exclusive error from core 0",
	[0x4] = "Write Exclusive error from core 1",
	[0x5] = "Inclusion error from FSB",
	[0x6] = "SNP stall error from FSB",
	[0x7] = "Write stall error from FSB",
	[0x8] = "FSB Arbiter Timeout error",
	[0xa] = "Inclusion error from core 2",
	[0xb] = "Write exclusive error from core 2",
};
static const char *const _hwtap_dnt_internal_words[15] = {
	[0x2] = "Internal timeout error",
	[0x3] = "Internal timeout error",
	[0x4] = "Intel Cache Safe Technology Queue full error\nor disabled ways in a set overflow",
	[0x5] = "Quiet cycle timeout error (correctable)",
};
static const struct _hwtap_mce_code _hwtap_dnt_internal[4][3] = {
	{_HWTAP_CODE(0, _hwtap_dnt_front_words)},
	{_HWTAP_CODE(8, _hwtap_dnt_internal_words)},
	{_HWTAP_FLAG(1, "Correctable ECC event on outgoing core 0 data"),
	 _HWTAP_FLAG(2, "Correctable ECC event on outgoing core 1 data"),
	 _HWTAP_FLAG(3, "Correctable ECC event on outgoing core 2 data")},
	{_HWTAP_FLAG(1, "Uncorrectable ECC event on outgoing core 0 data"),
	 _HWTAP_FLAG(2, "Uncorrectable ECC event on outgoing core 1 data"),
	 _HWTAP_FLAG(3, "Uncorrectable ECC event on outgoing core 2 data")},
};
static const struct _hwtap_mce_code _hwtap_tls_bus[] = {
	_HWTAP_FLAG(16, "Parity error detected during FSB request phase"),
	_HWTAP_FLAG(17, "Partity error detected on Core 0 request's address field"),
	_HWTAP_FLAG(18, "Partity error detected on Core 1 request's address field"),
};
static const char *const _hwtap_tls_front_words[15] = {
	[0x1] = "Inclusion error from core 0",
	[0x2] = "Inclusion error from core 1",
	[0x3] = "Write Exclusive error from core 0",
	[0x4] = "Write Exclusive error from core 1",
	[0x5] = "Inclusion error from FSB",
	[0x6] = "SNP stall error from FSB",
	[0x7] = "Write stall error from FSB",
	[0x8] = "FSB Arbiter Timeout error",
	[0x9] = "CBC OOD Queue Underflow/overflow",
};
static const char *const _hwtap_tls_internal_words[15] = {
	[0x1] = "Enhanced Intel SpeedStep Technology TM1-TM2 Error",
	[0x2] = "Internal timeout error",
	[0x3] = "Internal timeout error",
	[0x4] = "Intel Cache Safe Technology Queue full error\nor disabled ways in a set overflow",
};
static const struct _hwtap_mce_code _hwtap_tls_internal[4][3] = {
	{_HWTAP_CODE(0, _hwtap_tls_front_words)},
	{_HWTAP_CODE(8, _hwtap_tls_internal_words)},
	{_HWTAP_FLAG(0, "Correctable ECC event on outgoing FSB data"),
	 _HWTAP_FLAG(1, "Correctable ECC event on outgoing core 0 data"),
	 _HWTAP_FLAG(2, "Correctable ECC event on outgoing core 1 data")},
	{_HWTAP_FLAG(0, "Uncorrectable ECC event on outgoing FSB data"),
	 _HWTAP_FLAG(1, "Uncorrectable ECC event on outgoing core 0 data"),
	 _HWTAP_FLAG(2, "Uncorrectable ECC event on outgoing core 1 data")},
};
static const struct _hwtap_mce_number _hwtap_tls_corrected[] = {
	{32, 39, 0, 0, "Corrected events"},
};
static const struct _hwtap_mce_number _hwtap_tls_syndrome[] = {
	{44, 51, 1, 0, "ECC syndrome"},
};

/* Sandy Bridge(-EP) and Ivy Bridge-EP: the PCU (bank 4: bits 19:16, 31:24), the memory
 * controller (Sandy Bridge's banks 8-11, Ivy Bridge-EP's 9-16: bits 24:16 as one code) */
static const char *const _hwtap_snb_pcu_low[] = {
	"No error", "Non_IMem_Sel", "I_Parity_Error", "Bad_OpCode", "I_Stack_Underflow",
	"I_Stack_Overflow", "D_Stack_Underflow", "D_Stack_Overflow", "Non-DMem_Sel",
	"D_Parity_Error",
};
static const char *const _hwtap_snb_pcu_high[] = {
	[0x00] = "No Error",
	[0x0D] = "MC_IMC_FORCE_SR_S3_TIMEOUT",
	[0x0E] = "MC_MC_CPD_UNCPD_ST_TIMEOUT",
	[0x0F] = "MC_PKGS_SAFE_WP_TIMEOUT",
	[0x43] = "MC_PECI_MAILBOX_QUIESCE_TIMEOUT",
	[0x5C] = "MC_MORE_THAN_ONE_LT_AGENT",
	[0x60] = "MC_INVALID_PKGS_REQ_PCH",
	[0x61] = "MC_INVALID_PKGS_REQ_QPI",
	[0x62] = "MC_INVALID_PKGS_RES_QPI",
	[0x63] = "MC_INVALID_PKGC_RES_PCH",
	[0x64] = "MC_INVALID_PKG_STATE_CONFIG",
	[0x70] = "MC_WATCHDG_TIMEOUT_PKGC_SLAVE",
	[0x71] = "MC_WATCHDG_TIMEOUT_PKGC_MASTER",
	[0x72] = "MC_WATCHDG_TIMEOUT_PKGS_MASTER",
	[0x7A] = "MC_HA_FAILSTS_CHANGE_DETECTED",
	[0x81] = "MC_RECOVERABLE_DIE_THERMAL_TOO_HOT",
};
static const char *const _hwtap_ivb_pcu_high[] = {
	[0x00] = "No Error",
	[0x0D] = "MC_IMC_FORCE_SR_S3_TIMEOUT",
	[0x0E] = "MC_MC_CPD_UNCPD_ST_TIMEOUT",
	[0x0F] = "MC_PKGS_SAFE_WP_TIMEOUT",
	[0x43] = "MC_PECI_MAILBOX_QUIESCE_TIMEOUT",
	[0x44] = "MC_CRITICAL_VR_FAILED",
	[0x45] = "MC_ICC_MAX-NOTSUPPORTED",
	[0x5C] = "MC_MORE_THAN_ONE_LT_AGENT",
	[0x60] = "MC_INVALID_PKGS_REQ_PCH",
	[0x61] = "MC_INVALID_PKGS_REQ_QPI",
	[0x62] = "MC_INVALID_PKGS_RES_QPI",
	[0x63] = "MC_INVALID_PKGC_RES_PCH",
	[0x64] = "MC_INVALID_PKG_STATE_CONFIG",
	[0x70] = "MC_WATCHDG_TIMEOUT_PKGC_SLAVE",
	[0x71] = "MC_WATCHDG_TIMEOUT_PKGC_MASTER",
	[0x72] = "MC_WATCHDG_TIMEOUT_PKGS_MASTER",
	[0x7A] = "MC_HA_FAILSTS_CHANGE_DETECTED",
	[0x7B] = "MC_PCIE_R2PCIE-RW_BLOCK_ACK_TIMEOUT",
	[0x81] = "MC_RECOVERABLE_DIE_THERMAL_TOO_HOT",
};
static const struct _hwtap_mce_code _hwtap_snb_pcu[] = {
	_HWTAP_CODE(16, _hwtap_snb_pcu_low), _HWTAP_CODE(24, _hwtap_snb_pcu_high),
};
static const struct _hwtap_mce_code _hwtap_ivb_pcu[] = {
	_HWTAP_CODE(16, _hwtap_snb_pcu_low), _HWTAP_CODE(24, _hwtap_ivb_pcu_high),
};
static const char *const _hwtap_snb_imc_words[] = {
	[0x001] = "Address parity error",
	[0x002] = "HA Wrt buffer Data parity error",
	[0x004] = "HA Wrt byte enable parity error",
	[0x008] = "Corrected patrol scrub error",
	[0x010] = "Uncorrected patrol scrub error",
	[0x020] = "Corrected spare error",
	[0x040] = "Uncorrected spare error",
};
static const char *const _hwtap_ivb_imc_words[] = {
	[0x001] = "Address parity error",
	[0x002] = "HA Wrt buffer Data parity error",
	[0x004] = "HA Wrt byte enable parity error",
	[0x008] = "Corrected patrol scrub error",
	[0x010] = "Uncorrected patrol scrub error",
	[0x020] = "Corrected spare error",
	[0x040] = "Uncorrected spare error",
	[0x080] = "Corrected memory read error",
	[0x100] = "iMC, WDB, parity errors",
};
static const struct _hwtap_mce_code _hwtap_snb_imc[] = {
	_HWTAP_CODE(16, _hwtap_snb_imc_words),
};
static const struct _hwtap_mce_code _hwtap_ivb_imc[] = {
	_HWTAP_CODE(16, _hwtap_ivb_imc_words),
};

/* Broadwell-DE: the PCU's code (bits 31:24), the memory controller's flags (banks 9, 10) */
static const char *const _hwtap_bdw_de_pcu_words[] = {
	[0x00] = "No Error",
	[0x09] = "MC_MESSAGE_CHANNEL_TIMEOUT",
	[0x13] = "MC_DMI_TRAINING_TIMEOUT",
	[0x15] = "MC_DMI_CPU_RESET_ACK_TIMEOUT",
	[0x1E] = "MC_VR_ICC_MAX_LT_FUSED_ICC_MAX",
	[0x25] = "MC_SVID_COMMAN_TIMEOUT",
	[0x26] = "MCA_PKGC_DIRECT_WAKE_RING_TIMEOUT",
	[0x29] = "MC_VR_VOUT_MAC_LT_FUSED_SVID",
	[0x2B] = "MC_PKGC_WATCHDOG_HANG_CBZ_DOWN",
	[0x2C] = "MC_PKGC_WATCHDOG_HANG_CBZ_UP",
	[0x44] = "MC_CRITICAL_VR_FAILED",
	[0x46] = "MC_VID_RAMP_DOWN_FAILED",
	[0x49] = "MC_SVID_WRITE_REG_VOUT_MAX_FAILED",
	[0x4B] = "MC_BOOT_VID_TIMEOUT_DRAM_0",
	[0x4F] = "MC_SVID_COMMAND_ERROR",
	[0x52] = "MC_FIVR_CATAS_OVERVOL_FAULT",
	[0x53] = "MC_FIVR_CATAS_OVERCUR_FAULT",
	[0x57] = "MC_SVID_PKGC_REQUEST_FAILED",
	[0x58] = "MC_SVID_IMON_REQUEST_FAILED",
	[0x59] = "MC_SVID_ALERT_REQUEST_FAILED",
	[0x62] = "MC_INVALID_PKGS_RSP_QPI",
	[0x64] = "MC_INVALID_PKG_STATE_CONFIG",
	[0x67] = "MC_HA_IMC_RW_BLOCK_ACK_TIMEOUT",
	[0x6A] = "MC_MSGCH_PMREQ_CMP_TIMEOUT",
	[0x72] = "MC_WATCHDOG_TIMEOUT_PKGS_MASTER",
	[0x81] = "MC_RECOVERABLE_DIE_THERMAL_TOO_HOT",
};
static const struct _hwtap_mce_code _hwtap_bdw_de_pcu[] = {
	_HWTAP_CODE(24, _hwtap_bdw_de_pcu_words),
};
static const struct _hwtap_mce_code _hwtap_bdw_de_imc[] = {
	_HWTAP_FLAG(16, "Address parity error"),
	_HWTAP_FLAG(17, "HA Wrt buffer Data parity error"),
	_HWTAP_FLAG(18, "HA Wrt byte enable parity error"),
	_HWTAP_FLAG(19, "Corrected patrol scrub error"),
	_HWTAP_FLAG(20, "Uncorrected patrol scrub error"),
	_HWTAP_FLAG(21, "Corrected spare error"),
	_HWTAP_FLAG(22, "Uncorrected spare error"),
	_HWTAP_FLAG(23, "Corrected memory read error"),
	_HWTAP_FLAG(24, "iMC, WDB, parity errors"),
};

/* Knights Landing and Mill: the memory controllers' and EDCs' flags (banks 7-16) */
static const struct _hwtap_mce_code _hwtap_knl_imc[] = {
	_HWTAP_FLAG(16, "CA Parity error"),
	_HWTAP_FLAG(17, "Internal Parity error except WDB"),
	_HWTAP_FLAG(18, "Internal Parity error from WDB"),
	_HWTAP_FLAG(19, "Correctable Patrol Scrub"),
	_HWTAP_FLAG(20, "Uncorrectable Patrol Scrub"),
	_HWTAP_FLAG(21, "Spare Correctable Error"),
	_HWTAP_FLAG(22, "Spare UC Error"),
	_HWTAP_FLAG(23, "CORR Chip fail even MC only, 4 bit burst error EDC only"),
};
static const char *const _hwtap_knl_requests[5] = {
	"Undefined request", "Read", "Write", "CA error", "Scrub error",
};

/* Granite Rapids (-D), Sierra Forest, Clearwater Forest: UPI (bank 5), the Punit (6),
 * B2CMI (12), the memory channels (13-24, by their code's high byte) and the DRAM
 * address a memory channel's MCi_MISC holds (rasdaemon's mce-intel-granite.c) */
static const char *const _hwtap_gnr_upi_words[] = {
	[0x00] = "UC Phy Initialization Failure (NumInit)",
	[0x01] = "UC Phy Detected Drift Buffer Alarm",
	[0x02] = "UC Phy Detected Latency Buffer Rollover",
	[0x10] = "UC LL Rx detected CRC error: unsuccessful LLR (entered Abort state)",
	[0x11] = "UC LL Rx Unsupported/Undefined packet",
	[0x12] = "UC LL or Phy Control Error",
	[0x13] = "UC LL Rx Parameter Exception",
	[0x14] = "UC LL TDX Failure",
	[0x15] = "UC LL SGX Failure",
	[0x16] = "UC LL Tx SDC Parity Error",
	[0x17] = "UC LL Rx SDC Parity Error",
	[0x18] = "UC LL FLE Failure",
	[0x1F] = "UC LL Detected Control Error",
	[0x20] = "COR Phy Initialization Abort",
	[0x21] = "COR Phy Inband Reset",
	[0x22] = "COR Phy Lane failure, recovery in x8 width",
	[0x23] = "COR Phy L0c error corrected without Phy reset",
	[0x24] = "COR Phy L0c error triggering Phy reset",
	[0x25] = "COR Phy L0p exit error corrected with reset",
	[0x30] = "COR LL Rx detected CRC error: successful LLR without Phy Reinit",
	[0x31] = "COR LL Rx detected CRC error: successful LLR with Phy Reinit",
};
static const char *const _hwtap_gnr_punit_low[] = {
	[0x02] = "Power Management Unit microcontroller double-bit ECC error",
	[0x03] = "Power Management Unit microcontroller double-bit ECC error",
	[0x08] = "Power Management Unit microcontroller error",
	[0x09] = "Power Management Unit microcontroller error",
	[0x0a] = "Power Management Unit microcontroller patch load error",
	[0x0b] = "Power Management Unit microcontroller POReqValid error",
	[0x10] = "Power Management Unit microcontroller TeleSRAM double-bit ECC error",
	[0x20] = "Power Management Agent signaled error",
	[0x80] = "S3M signaled error",
	[0xa0] = "Power Management Unit HPMSRAM double-bit ECC error detected",
	[0xb0] = "Power Management Unit TPMISRAM double-bit ECC error detected",
};
static const char *const _hwtap_gnr_punit_high[] = {
	[0x09] = "MCA_TSC_DOWNLOAD_TIMEOUT: TSC download timed out",
	[0x0b] = "MCA_GPSB_TIMEOUT: GPSB does not respond within timeout value",
	[0x0c] = "MCA_PMSB_TIMEOUT: PMSB does not respond within timeout value",
	[0x10] = "MCA_PMAX_CALIB_ERROR: PMAX calibration error",
	[0x1a] = "MCA_DISP_RUN_BUSY_TIMEOUT: Dispatcher busy beyond timeout",
	[0x1d] = "MCA_MORE_THAN_ONE_LT_AGENT: During Boot Mode Processing, >1 LT Agent detected",
	[0x23] = "MCA_PCU_SVID_ERROR: SVID error",
	[0x35] = "MCA_SVID_LOADLINE_INVALID: Invalid SVID VCCIN Loadline resistance value",
	[0x36] = "MCA_SVID_ICCMAX_INVALID: Invalid SVID ICCMAX value",
	[0x40] = "MCA_SVID_VIDMAX_INVALID: Invalid SVID VID_MAX value",
	[0x41] = "MCA_SVID_VDDRAMP_INVALID: Invalid ramp voltage for VDD_RAMP",
	[0x48] = "MCA_ITD_FUSE_INVALID: ITD fuse settings are not valid",
	[0x49] = "MCA_SVID_DC_LL_INVALID: ITD fuse settings are not valid",
	[0x4a] = "MCA_FIVR_PD_HARDERR: PM event has issued some FIVR Fault",
	[0x4c] = "MCA_HPM_DOUBLE_BIT_ERROR_DETECTED: Read from HPM SRAM resulted in Double bit error",
	[0x56] = "SVID_ACTIVE_VID_FUSE_ERROR: Invalid fuse values programmed for SVID Active vid",
};
static const char *const _hwtap_gnr_b2cmi_words[] = {
	[0x01] = "Read ECC error",
	[0x02] = "Bucket1 error",
	[0x03] = "Tracker Parity error",
	[0x04] = "Security mismatch",
	[0x07] = "Read completion parity error",
	[0x08] = "Response parity error",
	[0x09] = "Timeout error",
	[0x0a] = "Address parity error",
	[0x0c] = "CMI credit over subscription error",
	[0x0d] = "SAI mismatch error",
};
static const char *const _hwtap_gnr_mcchan_0[] = {
	[0x01] = "Address Parity Error (APPP)",
	[0x02] = "CMI Wr data parity Error on sCH0",
	[0x03] = "CMI Uncorr/Corr ECC error on sCH0",
	[0x04] = "CMI Wr BE parity Error on sCH0",
	[0x05] = "CMI Wr MAC parity Error on sCH0",
	[0x08] = "Corr Patrol Scrub Error",
	[0x10] = "UnCorr Patrol Scrub Error",
	[0x20] = "Corr Spare Error",
	[0x40] = "UnCorr Spare Error",
	[0x80] = "Transient or Correctable Error for Demand or Underfill Reads",
	[0xa0] = "Uncorrectable Error for Demand or Underfill Reads",
	[0xb0] = "Poison was read from memory when poison was disabled in memory controller",
	[0xc0] = "Read 2LM MetaData Error",
};
static const char *const _hwtap_gnr_mcchan_1[] = {
	[0x00] = "WDB Read Parity Error on sCH0",
	[0x02] = "WDB Read Uncorr/Corr ECC Error on sCH0",
	[0x04] = "WDB BE Read Parity Error on sCH0",
	[0x06] = "WDB Read Persistent Corr ECC Error on sCH0",
	[0x08] = "DDR Link Fail",
	[0x09] = "Illegal incoming opcode",
};
static const char *const _hwtap_gnr_mcchan_2[] = { "DDR CAParity or WrCRC Error" };
static const char *const _hwtap_gnr_mcchan_4[] = { "Scheduler address parity error" };
static const char *const _hwtap_gnr_mcchan_8[] = {
	[0x32] = "MC Internal Errors",
	[0x33] = "MCTracker Address RF parity error",
};
static const char *const _hwtap_gnr_mcchan_32[] = {
	[0x02] = "CMI Wr data parity Error on sCH1",
	[0x03] = "CMI Uncorr/Corr ECC error on sCH1",
	[0x04] = "CMI Wr BE parity Error on sCH1",
	[0x05] = "CMI Wr MAC parity Error on sCH1",
};
static const char *const _hwtap_gnr_mcchan_33[] = {
	[0x00] = "WDB Read Parity Error on sCH1",
	[0x02] = "WDB Read Uncorr/Corr ECC Error on sCH1",
	[0x04] = "WDB BE Read Parity Error on sCH1",
	[0x06] = "WDB Read Persistent Corr ECC Error on sCH1",
};
/* the memory channels' tables by the code's high byte (bits 31:24) */
static const struct _hwtap_mce_by_high _hwtap_gnr_mcchan[] = {
	{0, _HWTAP_CODE(0, _hwtap_gnr_mcchan_0)}, {1, _HWTAP_CODE(0, _hwtap_gnr_mcchan_1)},
	{2, _HWTAP_CODE(0, _hwtap_gnr_mcchan_2)}, {4, _HWTAP_CODE(0, _hwtap_gnr_mcchan_4)},
	{8, _HWTAP_CODE(0, _hwtap_gnr_mcchan_8)}, {32, _HWTAP_CODE(0, _hwtap_gnr_mcchan_32)},
	{33, _HWTAP_CODE(0, _hwtap_gnr_mcchan_33)},
};
static const struct _hwtap_mce_code _hwtap_gnr_upi = _HWTAP_CODE(0, _hwtap_gnr_upi_words);
static const struct _hwtap_mce_code _hwtap_gnr_punit[] = {
	_HWTAP_CODE(0, _hwtap_gnr_punit_low), _HWTAP_CODE(0, _hwtap_gnr_punit_high),
};
static const struct _hwtap_mce_code _hwtap_gnr_b2cmi = _HWTAP_CODE(0, _hwtap_gnr_b2cmi_words);
static const char *const _hwtap_gnr_ecc_modes[11] = {
	[1] = "SDDC 128b 1LM", [2] = "SDDC 125b 1LM", [3] = "SDDC 96b 1LM",
	[4] = "SDDC 96b 2LM", [5] = "ADDDC 80b 1LM", [6] = "ADDDC 80b 2LM",
	[7] = "ADDDC 64b 1LM", [8] = "9x4 61b 1LM", [9] = "9x4 32b 1LM", [10] = "9x4 32b 2LM",
};

/* Granite Rapids' memory channel MCi_MISC: the DRAM address, the failed device, the ECC
 * mode (each line as rasdaemon ends it). */
static __attribute__((unused)) void _hwtap_mce_gnr_misc(struct _hwtap_mce_texts *t,
							 unsigned long long status,
							 unsigned long long misc)
{
	struct _hwtap_mce_text *to = t->dram.s ? &t->dram : &t->error_msg;
	unsigned int code = status >> 16 & 0xffff, mode = misc >> 58 & 15;
	int transient = misc >> 63 & 1;

	if (code >= 0x800 && code <= 0x82f)
		return;
	_hwtap_mce_add(to, "bank: 0x%x bankgroup: 0x%x row: 0x%x column: 0x%x%s",
		       (unsigned int)(misc >> 37 & 3), (unsigned int)(misc >> 39 & 7),
		       (unsigned int)(misc >> 19 & 0x3ffff), (unsigned int)(misc >> 9 & 0x3ff) << 2,
		       t->nl);
	if (!transient)
		_hwtap_mce_add(to, "failed device: 0x%x%s", (unsigned int)(misc >> 43 & 0x3f),
			       t->nl);
	_hwtap_mce_add(to, "chipselect: 0x%x subrank: 0x%x%s", (unsigned int)(misc >> 55 & 7),
		       (unsigned int)(misc >> 51 & 15), t->nl);
	_hwtap_mce_add(to, "ecc mode: ");
	_hwtap_mce_add(to, "%s%s", mode < 11 && _hwtap_gnr_ecc_modes[mode] ?
		       _hwtap_gnr_ecc_modes[mode] : "Invalid/unknown ECC mode", t->nl);
	if (transient)
		_hwtap_mce_add(to, "transient%s", t->nl);
}

/* Diamond Rapids (family 19 model 1): the CBB's Punit (bank 4), an IMH's Punit (11), UPI
 * (18) and an IMH's eight memory channels (19-26), as rasdaemon's mce-intel-diamond.c
 * (from mcelog) names them. Which of the package's two IMHs (its I/O and memory hubs) a
 * record comes from is bit 2 of the reporting CPU's APIC ID. */
static const char *const _hwtap_dmr_cbb_punit_0[] = {
	[0x01] = "CR4_MCE_CLEAR: MCE when CR4.MCE is clear",
	[0x02] = "MCE_MCIP_SET: MCE when MCIP bit is set",
	[0x03] = "MCE_UNDER_WFS: MCE under WPS",
	[0x04] = "MCE_LT_HANDSHAKE: Unrecoverable error during security flow execution",
	[0x05] = "TRIPLE_FAULT: SW triple fault shutdown",
	[0x06] = "VMX_ABORT: VMX exit consistency check failures",
	[0x07] = "RSM_CONSISTENCY_FAIL: RSM consistency check failures",
	[0x08] = "SMM_PROTECTED_ENTRY_FAIL: Invalid conditions on protected mode SMM entry",
	[0x09] = "UCODE_PATCH_LOAD_FAIL: Unrecoverable error during security flow execution",
};
static const char *const _hwtap_dmr_cbb_punit_8[] = {
	[0x16] = "MCA_DVFS_COUNTER_EXPIRED", [0x23] = "MCA_UNSUPP_RESP",
	[0x25] = "MCA_FUSA_MBIST", [0x26] = "MCA_SA_PLL_LOCKED",
	[0x27] = "MCA_XTAL_FREQ_MON_ERROR", [0x28] = "MCA_PMSB_FUSE_PULLER_ERROR",
	[0x29] = "MCA_GPSB_FUSE_PULLER_ERROR", [0x30] = "MCA_PCODE_WATCHDOG",
	[0x31] = "MCA_BGR_FUSA_ERR", [0x32] = "MCA_CORE_FIVR_ERR",
	[0x33] = "MCA_D2D_FIVR_ERR", [0x34] = "MCA_MLC_FIVR_ERR",
	[0x35] = "MCA_RING_FIVR_ERR", [0x36] = "MCA_D2D_MONF_PLL_FUSA_0",
	[0x37] = "MCA_D2D_MONF_PLL_FUSA_1", [0x38] = "MCA_TOP0_FUSA_PLL_ERR",
	[0x39] = "MCA_BASE_FUSA_PLL_ERR", [0x40] = "MCA_UCIE_RESET_BUS_STOP_ON_ERROR",
	[0x41] = "MCA_RSRC_ADAPT_0_ERR", [0x42] = "MCA_RSC_ADAPT_1_ERR",
	[0x45] = "MCA_TOP1_FUSA_PLL_ERR", [0x46] = "MCA_TOP2_FUSA_PLL_ERR",
	[0x47] = "MCA_TOP3_FUSA_PLL_ERR", [0x48] = "UC_PATCH_LOAD_ACK_ERROR",
};
static const char *const _hwtap_dmr_cbb_punit_12[] = {
	[0x01] = "MCA_UC_IRAM_DOUBLE_ERROR", [0x02] = "MCA_UC_DOUBLE_EXCEPTION_ERROR",
	[0x03] = "MCA_UC_TELEM_SRAM_ERROR", [0x04] = "MCA_UC_DRAM_DOUBLE_ERROR",
	[0x05] = "MCA_UC_TPMI_SRAM_ERROR",
};
static const char *const _hwtap_dmr_cbb_punit_20[] = {
	[0x01] = "MCA_FIVR_HI_YELLOW", [0x02] = "MCA_FIVR_HI_RED",
};
static const struct _hwtap_mce_by_high _hwtap_dmr_cbb_punit[] = {
	{0x00, _HWTAP_CODE(0, _hwtap_dmr_cbb_punit_0)},
	{0x08, _HWTAP_CODE(0, _hwtap_dmr_cbb_punit_8)},
	{0x0c, _HWTAP_CODE(0, _hwtap_dmr_cbb_punit_12)},
	{0x14, _HWTAP_CODE(0, _hwtap_dmr_cbb_punit_20)},
};
/* an IMH's Punit: the low byte of MSCOD when its high one is 0, else the high one */
static const char *const _hwtap_dmr_imh_punit_low[] = {
	[0x02 ... 0x03] = "Power Management Unit microcontroller double-bit ECC error",
	[0x08 ... 0x09] = "Power Management Unit microcontroller error",
	[0x0a] = "Power Management Unit microcontroller Patch Load error",
	[0x0b] = "Power Management Unit microcontroller POReqValid error",
	[0x0c] = "Power Management Unit microcontroller RAM address error",
	[0x0d] = "Power Management Unit microcontroller RAM access error",
	[0x10] = "If MCI_MISC.MODEL_SPECIFIC_INFORMATION is set to 1, "
		 "indicates Pcode Watchdog Timer expired. "
		 "If MCI_MISC.MODEL_SPECIFIC_INFORMATION is set to 3, "
		 "indicates Power Management Unit TeleSRAM double-bit ECC error detected.",
	[0x20] = "Power Management Agent signaled Error",
	[0x30] = "Power Management Unit Microcontroller Error",
	[0xa0] = "Power Management Unit HPMSRAM double-bit ECC error detected",
	[0xb0] = "Power Management Unit TPMISRAM double-bit ECC error detected",
};
static const char *const _hwtap_dmr_imh_punit_high[] = {
	[0x09] = "MCA_TSC_DOWNLOAD_TIMEOUT", [0x0a] = "MCA_INVALID_XTALFREQ_RANGE",
	[0x0b] = "MCA_GPSB_TIMEOUT", [0x0c] = "MCA_PMSB_TIMEOUT",
	[0x0d] = "MCA_CFG_ACK_TIMEOUT", [0x23] = "MCA_PCU_SVID_ERROR",
	[0x35] = "MCA_SVID_LOADLINE_INVALID", [0x36] = "MCA_SVID_ICCMAX_INVALID",
	[0x4a] = "MCA_FIVR_PD_HARDERR", [0x4c] = "MCA_HPM_DOUBLE_BIT_ERROR_DETECTED",
	[0x58] = "MCA_INVALID_MEMORY_FREQUENCY", [0x63] = "MCA_SVID_VCCIN_PROTOCOL_ERROR",
	[0x6a] = "MCA_SPPR_TIMEOUT", [0x6f] = "MCA_INVALID_SID_ERROR",
	[0x70] = "MCA_INVALID_REMOTE_LEGACY_AGENT_ERROR",
	[0x71] = "MCA_INVALID_REMOTE_LT_AGENT_ERROR", [0x7b] = "MCA_THERMAL_SENSOR_INVALID",
	[0x7c] = "MCA_CXL_DEVICE_NO_CREDIT", [0x7e] = "MCA_RECOVERABLE_DIE_THERMAL_TOO_HOT",
	[0x83] = "MCA_PKGS_RECOVERABLE_RESET_PREP_ACK_TIMEOUT",
};
static const struct _hwtap_mce_code _hwtap_dmr_imh_punit[] = {
	_HWTAP_CODE(0, _hwtap_dmr_imh_punit_low), _HWTAP_CODE(0, _hwtap_dmr_imh_punit_high),
};
static const char *const _hwtap_dmr_upi_0[] = {
	[0x00 ... 0x02] = "Internal Parity Error", [0x05] = "Internal Parity Error",
	[0x08] = "Internal Queue Overflow Error", [0x09] = "UPI link layer buffer overflow",
	[0x0a] = "Internal Queue Underflow Error", [0x0b] = "UPI link layer buffer underflow",
	[0x0c] = "Link layer or internal credit overflow",
	[0x11 ... 0x12] = "Internal Queue Overflow Error",
	[0x13 ... 0x14] = "Internal Queue Underflow Error",
	[0x21] = "Internal Interface Error", [0x23] = "Invalid Message",
	[0x24] = "UPI Protocol Error", [0x25] = "UPI Interleave Error",
	[0x28] = "Internal Interface Error", [0x29] = "Link integrity or initialization error",
	[0x2a ... 0x2d] = "Power Management Transition Error - Timeout",
	[0x30] = "Received poison when poison is disabled", [0x31] = "Internal Interface Error",
};
static const char *const _hwtap_dmr_upi_2[] = {
	[0x00] = "Link integrity or initialization error", [0x03] = "Link degraded",
	[0x04 ... 0x07] = "Power Management Transition Error - Timeout",
};
static const struct _hwtap_mce_by_high _hwtap_dmr_upi[] = {
	{0x00, _HWTAP_CODE(0, _hwtap_dmr_upi_0)}, {0x02, _HWTAP_CODE(0, _hwtap_dmr_upi_2)},
};
static const char *const _hwtap_dmr_mcchan_0[] = {
	[0x01] = "CMI Request Address Parity Error (APPP)", [0x02] = "CMI Wr data parity error",
	[0x04] = "CMI Wr BE parity error",
	[0x08] = "Transient or Correctable Error for Patrol Reads",
	[0x10] = "UnCorr Patrol Scrub Error",
	[0x20] = "Nontransient or Transient ectable Error for Spare Reads",
	[0x40] = "UnCorr Spare Error",
	[0x80] = "Transient or Correctable Error for Demand or Underfill Reads",
	[0xa0] = "Uncorrectable Error for Demand or Underfill Reads",
	[0xb0] = "Poisoned Read Data when Poison Disabled",
	[0xc0] = "Read 2LM MetaData Error for Demand, Underfill, or Patrol/Spare",
};
static const char *const _hwtap_dmr_mcchan_1[] = {
	[0x02] = "WDB Read ECC Error", [0x04] = "WDB BE Read Parity Error",
	[0x06] = "WDB Read Persistent ECC Error", [0x08] = "DDR Link Fail",
	[0x09] = "Illegal incoming opcode",
};
static const char *const _hwtap_dmr_mcchan_2[] = {
	[0x00] = "DDR CAParity or WrCRC Error", [0x40] = "Decoder structure error",
};
static const char *const _hwtap_dmr_mcchan_4[] = { "MC internal address parity error" };
static const char *const _hwtap_dmr_mcchan_8[] = {
	[0x13] = "CMI Credit Oversubscription Error", [0x14] = "CMI Total Credit Count Error",
	[0x15] = "CMI Reserved Credit Pool Error", [0x32] = "MC Internal Errors",
	[0x34] = "MC Tracker RDCMP RF parity error", [0x36] = "MC Tracker WRCMP RF parity error",
};
static const struct _hwtap_mce_by_high _hwtap_dmr_mcchan[] = {
	{0x00, _HWTAP_CODE(0, _hwtap_dmr_mcchan_0)}, {0x01, _HWTAP_CODE(0, _hwtap_dmr_mcchan_1)},
	{0x02, _HWTAP_CODE(0, _hwtap_dmr_mcchan_2)}, {0x04, _HWTAP_CODE(0, _hwtap_dmr_mcchan_4)},
	{0x08, _HWTAP_CODE(0, _hwtap_dmr_mcchan_8)},
};
static const char *const _hwtap_dmr_ecc_modes[12] = {
	[1] = "SDDC 128b 1LM", [2] = "SDDC 125b 1LM", [3] = "SDDC 125b 2LM",
	[4] = "ADDDC 80b 1LM", [5] = "ADDDC 80b 2LM", [9] = "5x8 128b 1LM",
	[10] = "5x8 125b 1LM", [11] = "5x8 125b 2LM",
};

/* Diamond Rapids' memory channel MCi_MISC: the DRAM address, then (unless the error was
 * transient) the failed device and the ECC mode; nothing for MSCOD 0800h and up, where
 * bits 31:9 are proprietary. */
static __attribute__((unused)) void _hwtap_mce_dmr_misc(struct _hwtap_mce_text *to,
							 const char *nl,
							 unsigned long long status,
							 unsigned long long misc)
{
	unsigned int mode = misc >> 58 & 15;

	if ((status >> 16 & 0xffff) >= 0x800)
		return;
	_hwtap_mce_add(to, "bank: 0x%x bankgroup: 0x%x row: 0x%x column: 0x%x%s",
		       (unsigned int)(misc >> 37 & 3), (unsigned int)(misc >> 39 & 7),
		       (unsigned int)(misc >> 19 & 0x3ffff), (unsigned int)(misc >> 9 & 0x3ff) << 2,
		       nl);
	_hwtap_mce_add(to, "chipselect: 0x%x subrank: 0x%x subchan: 0x%x%s",
		       (unsigned int)(misc >> 55 & 3), (unsigned int)(misc >> 51 & 15),
		       (unsigned int)(misc >> 49 & 1), nl);
	if (misc >> 63 & 1) {
		_hwtap_mce_add(to, "transient%s", nl);
		return;
	}
	if (misc >> 42 & 1)
		_hwtap_mce_add(to, "failed device: 0x%x%s", (unsigned int)(misc >> 44 & 0x1f), nl);
	_hwtap_mce_add(to, "ecc mode: ");
	_hwtap_mce_add(to, "%s%s", mode < 12 && _hwtap_dmr_ecc_modes[mode] ?
		       _hwtap_dmr_ecc_modes[mode] : "Invalid/unknown ECC mode", nl);
}

/* Diamond Rapids' words. APICID: the record's APIC ID, or -1 when the caller has none
 * (a script's 4-argument mce_model_str()): then the IMH is not numbered, and a memory
 * error's channel (which the IMH's number is part of) is not said. LOCATE: the caller
 * wants the location (MCi_MISC's DRAM address, the channel), which rasdaemon writes
 * into error_msg after the words; a script's mce_model_str() does not. */
static __attribute__((unused)) void _hwtap_mce_dmr_words(struct _hwtap_mce_texts *t, unsigned int bank,
				 unsigned long long status, unsigned long long misc,
				 int miscv, int locate, long long apicid)
{
	struct _hwtap_mce_text *to = t->dram.s ? &t->dram : &t->error_msg;
	char imh[8] = "IMH";

	if (apicid >= 0)
		imh[3] = '0' + (apicid >> 2 & 1), imh[4] = '\0';
	if (bank == 4) {
		_hwtap_mce_add(&t->error_msg, "CBB Punit: ");
		if ((status & 0xffff) == 0x040b)
			_hwtap_mce_add(&t->error_msg, "Scan-at-Field Error%s", t->nl);
		else
			_HWTAP_BY_HIGH(&t->error_msg, _hwtap_dmr_cbb_punit, status);
	} else if (bank == 11) {
		_hwtap_mce_add(&t->error_msg, "%s Punit: ", imh);
		if (status >> 24 & 0xff)
			_hwtap_mce_codes(&t->error_msg, &_hwtap_dmr_imh_punit[1], 1,
					 status >> 24 & 0xff);
		else
			_hwtap_mce_codes(&t->error_msg, &_hwtap_dmr_imh_punit[0], 1,
					 status >> 16 & 0xff);
	} else if (bank == 18) {
		_hwtap_mce_add(&t->error_msg, "UPI: ");
		_HWTAP_BY_HIGH(&t->error_msg, _hwtap_dmr_upi, status);
	} else if (bank >= 19 && bank <= 26) {
		_hwtap_mce_add(&t->error_msg, "%s MCCHAN: ", imh);
		_HWTAP_BY_HIGH(&t->error_msg, _hwtap_dmr_mcchan, status);
		/* MCi_MISC when MISCV and OTHER_INFO bit 1 (status bit 33) say */
		if (miscv && (status >> 33 & 1))
			_hwtap_mce_dmr_misc(to, t->nl, status, misc);
		if ((status & 0xefff) >> 7 == 1 && apicid >= 0 && locate)
			_hwtap_mce_add(to, "channel: %d", (int)(bank - 19 + 8 * (apicid >> 2 & 1)));
	}
}

/* ---- the words ------------------------------------------------------------------------- */

/* Dunnington's and Tulsa's internal errors: by the model-specific code. */
static __attribute__((unused)) void _hwtap_mce_fsb_internal(struct _hwtap_mce_texts *t,
				    const struct _hwtap_mce_code table[4][3],
				    unsigned long long status)
{
	unsigned int code = status >> 16 & 0xffff, which;

	if ((code & 0xfff0) == 0)
		which = 0;
	else if ((code & 0xf0ff) == 0)
		which = 1;
	else if ((code & 0xfff0) == 0xc000)
		which = 2;
	else if ((code & 0xfff0) == 0xe000)
		which = 3;
	else
		return;
	_hwtap_mce_codes(&t->error_msg, table[which], which < 2 ? 1 : 3, code);
}

/* A corrected memory-controller error of banks FIRST..LAST with a channel (not 15): its
 * channel, and the ranks MCi_MISC names. BOTH: Sandy and Ivy Bridge-EP's way (the two
 * ranks always, -1 for one not named); else Haswell's (rank 1 only with rank 0). */
static __attribute__((unused)) void _hwtap_mce_imc_location(struct _hwtap_mce_texts *t, unsigned int bank,
				    unsigned long long status, unsigned long long misc,
				    unsigned int first, unsigned int last, int both)
{
	int rank0 = -1, rank1 = -1;

	if ((status & 0xffff) >> 7 != 1 || bank < first || bank > last ||
	    status >> 61 & 1 || (status & 0xefff) >> 7 != 1 || (status & 15) == 15)
		return;
	_hwtap_mce_add(&t->mc_location, "memory_channel=%d", (int)(status & 15));
	if (misc >> 62 & 1)
		rank0 = misc >> 46 & 0x1f;
	if (misc >> 63 & 1 && (both || rank0 != -1))
		rank1 = misc >> 51 & 0x1f;
	if (both || (rank0 != -1 && rank1 != -1))
		_hwtap_mce_add(&t->mc_location, "ranks=%d and %d", rank0, rank1);
	else if (rank0 != -1)
		_hwtap_mce_add(&t->mc_location, "rank=%d", rank0);
}

/* What a PCU record's code and bits 19:16 (those of PCU_BITS) say, in mcastatus_msg,
 * trailing spaces and all, as rasdaemon's Broadwell-DE, Broadwell-EP and Skylake-SP
 * decoders write it. */
static __attribute__((unused)) void _hwtap_mce_pcu_prefix(struct _hwtap_mce_texts *t,
							   unsigned long long status,
							   unsigned int pcu_bits)
{
	unsigned int code = status & 0xffff & ~0x1000u;

	if (code == 0x402 || code == 0x403)
		_hwtap_mce_add(&t->mcastatus_msg, "Internal errors ");
	else if (code == 0x406)
		_hwtap_mce_add(&t->mcastatus_msg, "Intel TXT errors ");
	else if (code == 0x407)
		_hwtap_mce_add(&t->mcastatus_msg, "Other UBOX Internal errors ");
	if (status >> 16 & pcu_bits)
		_hwtap_mce_add(&t->mcastatus_msg, "PCU internal error ");
}

/* Knights Landing's and Mill's memory location: channels 3-5 in bank 15. */
static __attribute__((unused)) void _hwtap_mce_knl_location(struct _hwtap_mce_texts *t, unsigned int bank,
				    unsigned long long status, unsigned long long misc)
{
	int rank0 = -1, rank1 = -1;

	if ((status & 0xffff) >> 7 != 1 || bank < 7 || bank > 16 || status >> 61 & 1 ||
	    (status & 0xefff) >> 7 != 1)
		return;
	if ((status & 15) == 15) {
		_hwtap_mce_add(&t->mc_location, "memory_channel=unspecified");
		return;
	}
	_hwtap_mce_add(&t->mc_location, "memory_channel=%d",
		       (int)(status & 15) + 3 * (bank == 15));
	if (misc >> 62 & 1)
		rank0 = misc >> 46 & 0x1f;
	if (misc >> 63 & 1)
		rank1 = misc >> 51 & 0x1f;
	if (rank0 != -1 && rank1 != -1)
		_hwtap_mce_add(&t->mc_location, "ranks=%d and %d", rank0, rank1);
	else if (rank0 != -1)
		_hwtap_mce_add(&t->mc_location, "rank=%d", rank0);
}

/* The model-specific words rasdaemon adds for a record of CPU (_hwtap_intel_cpu()) in BANK,
 * after its architectural ones: for the families above (others: nothing). MISC: MCi_MISC,
 * or 0 with MISC_KNOWN 0 (a script's mce_model_str(), which has no misc: what MCi_MISC
 * says is left out). APICID: the record's APIC ID, -1 if not known (Diamond Rapids'
 * words need it). */
static __attribute__((unused)) void _hwtap_mce_intel_words(struct _hwtap_mce_texts *t, int cpu, unsigned int bank,
				   unsigned long long status, unsigned long long misc,
				   int misc_known, long long apicid)
{
	unsigned int mca = status & 0xffff;
	int miscv = misc_known && (status >> 59 & 1);
	unsigned int i;

	/* bus and interconnect errors */
	if (mca >> 11 == 1) {
		switch (cpu) {
		case _HWTAP_INTEL_P6OLD:
			_HWTAP_CODES(&t->error_msg, _hwtap_p6old_bus, status);
			_HWTAP_NUMBERS(t, _hwtap_p6_syndrome, status);
			break;
		case _HWTAP_INTEL_DUNNINGTON:
		case _HWTAP_INTEL_CORE2:
		case _HWTAP_INTEL_NEHALEM:
		case _HWTAP_INTEL_XEON75XX:
			_HWTAP_CODES(&t->error_msg, _hwtap_core2_bus, status);
			_HWTAP_NUMBERS(t, _hwtap_p6_syndrome, status);
			break;
		case _HWTAP_INTEL_TULSA:
		case _HWTAP_INTEL_P4:
			for (i = 0; i < 8; i++)
				if (status >> (16 + i) & 1)
					_hwtap_mce_add(&t->error_msg, "%s",
						       _hwtap_p4_bus_words[i]);
			break;
		}
	}
	switch (cpu) {
	case _HWTAP_INTEL_NEHALEM:
		if (mca >> 11 == 1) {
			_HWTAP_CODES(&t->error_msg, _hwtap_nhm_qpi, status);
			if (miscv) {
				_HWTAP_NUMBERS(t, _hwtap_nhm_qpi_misc_numbers, misc);
				_HWTAP_CODES(&t->error_msg, _hwtap_nhm_qpi_misc, misc);
			}
		} else if (mca == 1) {
			_HWTAP_CODES(&t->error_msg, _hwtap_nhm_internal, status);
			_HWTAP_NUMBERS(t, _hwtap_nhm_internal_numbers, status);
		} else if (mca >> 7 == 1) {
			_HWTAP_CODES(&t->error_msg, _hwtap_nhm_memory, status);
			_HWTAP_NUMBERS(t, _hwtap_nhm_memory_numbers, status);
			if (miscv)
				_HWTAP_NUMBERS(t, _hwtap_nhm_memory_misc_numbers, misc);
		}
		if (mca >> 7 == 1 && miscv)
			_hwtap_mce_add(&t->mc_location, "channel=%d, dimm=%d",
				       (int)(misc >> 18 & 3), (int)(misc >> 16 & 3));
		break;
	case _HWTAP_INTEL_XEON75XX:
		if (mca == 1) {
			_HWTAP_CODES(&t->error_msg, _hwtap_nhm_internal, status);
			_HWTAP_NUMBERS(t, _hwtap_nhm_internal_numbers, status);
		}
		break;
	case _HWTAP_INTEL_DUNNINGTON:
		if (mca == 0xe0f)
			_HWTAP_CODES(&t->error_msg, _hwtap_dnt_bus, status);
		else if (mca == 0x400)
			_hwtap_mce_fsb_internal(t, _hwtap_dnt_internal, status);
		break;
	case _HWTAP_INTEL_TULSA:
		_HWTAP_NUMBERS(t, _hwtap_tls_corrected, status);
		if (status >> 52 & 1)
			_HWTAP_NUMBERS(t, _hwtap_tls_syndrome, status);
		if (miscv)
			_hwtap_mce_add(&t->mcistatus_msg, "MISC format %llx value %llx%s",
				       status >> 40 & 3, misc, t->nl);
		if (mca == 0xe0f)
			_HWTAP_CODES(&t->error_msg, _hwtap_tls_bus, status);
		else if (mca == 0x400)
			_hwtap_mce_fsb_internal(t, _hwtap_tls_internal, status);
		break;
	case _HWTAP_INTEL_SNB:
	case _HWTAP_INTEL_SNB_EP:
		if (bank == 4)
			_HWTAP_CODES(&t->error_msg, _hwtap_snb_pcu, status);
		else if ((bank == 6 || bank == 7) && cpu == _HWTAP_INTEL_SNB_EP)
			_hwtap_mce_add(&t->bank_name, "QPI");
		else if (bank >= 8 && bank <= 11)
			_HWTAP_CODES(&t->error_msg, _hwtap_snb_imc, status);
		_hwtap_mce_imc_location(t, bank, status, misc_known ? misc : 0, 8, 11, 1);
		break;
	case _HWTAP_INTEL_IVB_EPEX:
		if (bank == 4)
			_HWTAP_CODES(&t->error_msg, _hwtap_ivb_pcu, status);
		else if (bank == 5)
			_hwtap_mce_add(&t->bank_name, "QPI");
		else if (bank >= 9 && bank <= 16)
			_HWTAP_CODES(&t->error_msg, _hwtap_ivb_imc, status);
		_hwtap_mce_imc_location(t, bank, status, misc_known ? misc : 0, 9, 16, 1);
		break;
	case _HWTAP_INTEL_BDW_DE:
		if (bank == 4) {
			_hwtap_mce_pcu_prefix(t, status, 3);
			if (status >> 20 & 4)
				_hwtap_mce_add(&t->mcastatus_msg, "Ubox error ");
			_HWTAP_CODES(&t->error_msg, _hwtap_bdw_de_pcu, status);
		} else if (bank == 9 || bank == 10) {
			_hwtap_mce_add(&t->mcastatus_msg, "MemCtrl: ");
			_HWTAP_CODES(&t->error_msg, _hwtap_bdw_de_imc, status);
		}
		_hwtap_mce_imc_location(t, bank, status, misc_known ? misc : 0, 9, 16, 0);
		break;
	case _HWTAP_INTEL_GRANITE:
		if (bank == 5) {
			_hwtap_mce_add(&t->error_msg, "UPI: ");
			_hwtap_mce_codes(&t->error_msg, &_hwtap_gnr_upi, 1, status >> 16 & 0xffff);
		} else if (bank == 6) {
			_hwtap_mce_add(&t->error_msg, "Punit: ");
			_hwtap_mce_codes(&t->error_msg, &_hwtap_gnr_punit[0], 1, status >> 16 & 0xff);
			_hwtap_mce_codes(&t->error_msg, &_hwtap_gnr_punit[1], 1, status >> 24 & 0xff);
		} else if (bank == 12) {
			_hwtap_mce_add(&t->error_msg, "B2CMI: ");
			_hwtap_mce_codes(&t->error_msg, &_hwtap_gnr_b2cmi, 1, status >> 16 & 0xffff);
		} else if (bank >= 13 && bank <= 24) {
			_hwtap_mce_add(&t->error_msg, "MCCHAN: ");
			_HWTAP_BY_HIGH(&t->error_msg, _hwtap_gnr_mcchan, status);
			/* MCi_MISC when MISCV and OTHER_INFO bit 1 (status bit 33) say */
			if (miscv && (status >> 33 & 1))
				_hwtap_mce_gnr_misc(t, status, misc);
		}
		break;
	case _HWTAP_INTEL_DIAMOND:
		_hwtap_mce_dmr_words(t, bank, status, misc, miscv, misc_known, apicid);
		break;
	case _HWTAP_INTEL_KNL:
	case _HWTAP_INTEL_KNM:
		if (bank == 5) {
			if (mca == 0x402)
				_hwtap_mce_add(&t->mcastatus_msg, "PCU Internal Errors");
			else if (mca == 0x403)
				_hwtap_mce_add(&t->mcastatus_msg, "VCU Internal Errors");
			else if (mca == 0x407)
				_hwtap_mce_add(&t->mcastatus_msg, "Other UBOX Internal Errors");
		} else if (bank >= 7 && bank <= 16) {
			unsigned int request = mca >> 4 & 15;

			if (mca == 5)
				_hwtap_mce_add(&t->mcastatus_msg, "Internal Parity error");
			else if (request < 5)
				_hwtap_mce_add(&t->mcastatus_msg, "%s on channel %d",
					       _hwtap_knl_requests[request],
					       (int)(mca & 15) + 3 * (bank == 15));
			_HWTAP_CODES(&t->error_msg, _hwtap_knl_imc, status);
		}
		_hwtap_mce_knl_location(t, bank, status, misc_known ? misc : 0);
		break;
	}
}

#endif
