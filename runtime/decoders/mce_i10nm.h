/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_i10nm.h - the model-specific error codes of Intel's 10 nm server processors and
 * their successors: Ice Lake-SP (family 6, model 0x6a), Ice Lake-D (0x6c), Tremont-D
 * (Snow Ridge, 0x86), Sapphire Rapids (0x8f) and Emerald Rapids (0xcf), bank type by bank
 * type (PCU, UPI, M2M, memory controller), and which bank is which type on each model.
 * The words and bank maps are rasdaemon's (mce-intel-i10nm.c, the same in 0.6.8 and
 * 0.8.5, which took them from mcelog's i10nm.c, Intel's), taken entry by entry; not yet
 * checked against Intel's own documents, which this machine cannot read. Data without
 * kernel types: loader/history/rasdb.c reads it for --ras-db's words.
 */
#ifndef HWTAP_MCE_I10NM_H
#define HWTAP_MCE_I10NM_H

#include "mce_field.h"

/* the PCU's code in MCi_STATUS bits 31:24 */
static const char *const _hwtap_i10nm_pcu1_words[] = {
	[0x0D] = "MCA_LLC_BIST_ACTIVE_TIMEOUT",
	[0x0E] = "MCA_DMI_TRAINING_TIMEOUT",
	[0x0F] = "MCA_DMI_STRAP_SET_ARRIVAL_TIMEOUT",
	[0x10] = "MCA_DMI_CPU_RESET_ACK_TIMEOUT",
	[0x11] = "MCA_MORE_THAN_ONE_LT_AGENT",
	[0x14] = "MCA_INCOMPATIBLE_PCH_TYPE",
	[0x1E] = "MCA_BIOS_RST_CPL_INVALID_SEQ",
	[0x1F] = "MCA_BIOS_INVALID_PKG_STATE_CONFIG",
	[0x2D] = "MCA_PCU_PMAX_CALIB_ERROR",
	[0x2E] = "MCA_TSC100_SYNC_TIMEOUT",
	[0x3A] = "MCA_GPSB_TIMEOUT",
	[0x3B] = "MCA_PMSB_TIMEOUT",
	[0x3E] = "MCA_IOSFSB_PMREQ_CMP_TIMEOUT",
	[0x40] = "MCA_SVID_VCCIN_VR_ICC_MAX_FAILURE",
	[0x42] = "MCA_SVID_VCCIN_VR_VOUT_FAILURE",
	[0x43] = "MCA_SVID_CPU_VR_CAPABILITY_ERROR",
	[0x44] = "MCA_SVID_CRITICAL_VR_FAILED",
	[0x45] = "MCA_SVID_SA_ITD_ERROR",
	[0x46] = "MCA_SVID_READ_REG_FAILED",
	[0x47] = "MCA_SVID_WRITE_REG_FAILED",
	[0x4A] = "MCA_SVID_PKGC_REQUEST_FAILED",
	[0x4B] = "MCA_SVID_IMON_REQUEST_FAILED",
	[0x4C] = "MCA_SVID_ALERT_REQUEST_FAILED",
	[0x4D] = "MCA_SVID_MCP_VR_RAMP_ERROR",
	[0x56] = "MCA_FIVR_PD_HARDERR",
	[0x58] = "MCA_WATCHDOG_TIMEOUT_PKGC_SLAVE",
	[0x59] = "MCA_WATCHDOG_TIMEOUT_PKGC_MASTER",
	[0x5A] = "MCA_WATCHDOG_TIMEOUT_PKGS_MASTER",
	[0x5B] = "MCA_WATCHDOG_TIMEOUT_MSG_CH_FSM",
	[0x5C] = "MCA_WATCHDOG_TIMEOUT_BULK_CR_FSM",
	[0x5D] = "MCA_WATCHDOG_TIMEOUT_IOSFSB_FSM",
	[0x60] = "MCA_PKGS_SAFE_WP_TIMEOUT",
	[0x61] = "MCA_PKGS_CPD_UNCPD_TIMEOUT",
	[0x62] = "MCA_PKGS_INVALID_REQ_PCH",
	[0x63] = "MCA_PKGS_INVALID_REQ_INTERNAL",
	[0x64] = "MCA_PKGS_INVALID_RSP_INTERNAL",
	[0x65 ... 0x7A] = "MCA_PKGS_RESET_PREP_TIMEOUT",
	[0x7B] = "MCA_PKGS_SMBUS_VPP_PAUSE_TIMEOUT",
	[0x7C] = "MCA_PKGS_SMBUS_MCP_PAUSE_TIMEOUT",
	[0x7D] = "MCA_PKGS_SMBUS_SPD_PAUSE_TIMEOUT",
	[0x80] = "MCA_PKGC_DISP_BUSY_TIMEOUT",
	[0x81] = "MCA_PKGC_INVALID_RSP_PCH",
	[0x83] = "MCA_PKGC_WATCHDOG_HANG_CBZ_DOWN",
	[0x84] = "MCA_PKGC_WATCHDOG_HANG_CBZ_UP",
	[0x87] = "MCA_PKGC_WATCHDOG_HANG_C2_BLKMASTER",
	[0x88] = "MCA_PKGC_WATCHDOG_HANG_C2_PSLIMIT",
	[0x89] = "MCA_PKGC_WATCHDOG_HANG_SETDISP",
	[0x8B] = "MCA_PKGC_ALLOW_L1_ERROR",
	[0x90] = "MCA_RECOVERABLE_DIE_THERMAL_TOO_HOT",
	[0xA0] = "MCA_ADR_SIGNAL_TIMEOUT",
	[0xA1] = "MCA_BCLK_FREQ_OC_ABOVE_THRESHOLD",
	[0xB0] = "MCA_DISPATCHER_RUN_BUSY_TIMEOUT",
};

/* bits 23:20 */
static const char *const _hwtap_i10nm_pcu2_words[] = {
	[0x04] = "Clock/power IP response timeout",
	[0x05] = "SMBus controller raised SMI",
	[0x09] = "PM controller received invalid transaction",
};

/* bits 19:16 */
static const char *const _hwtap_i10nm_pcu3_words[] = {
	[0x01] = "Instruction address out of valid space",
	[0x02] = "Double bit RAM error on Instruction Fetch",
	[0x03] = "Invalid OpCode seen",
	[0x04] = "Stack Underflow",
	[0x05] = "Stack Overflow",
	[0x06] = "Data address out of valid space",
	[0x07] = "Double bit RAM error on Data Fetch",
};

/* UPI: flags in bits 31:22 */
static const char *const _hwtap_i10nm_upi1_words[] = {
	[22] = "Phy Control Error",
	[23] = "Unexpected Retry.Ack flit",
	[24] = "Unexpected Retry.Req flit",
	[25] = "RF parity error",
	[26] = "Routeback Table error",
	[27] = "Unexpected Tx Protocol flit (EOP, Header or Data)",
	[28] = "Rx Header-or-Credit BGF credit overflow/underflow",
	[29] = "Link Layer Reset still in progress when Phy enters L0",
	[30] = "Link Layer reset initiated while protocol traffic not idle",
	[31] = "Link Layer Tx Parity Error",
};

/* UPI: the code in bits 21:16 */
static const char *const _hwtap_i10nm_upi2_words[] = {
	[0x00] = "Phy Initialization Failure (NumInit)",
	[0x01] = "Phy Detected Drift Buffer Alarm",
	[0x02] = "Phy Detected Latency Buffer Rollover",
	[0x10] = "LL Rx detected CRC error: unsuccessful LLR (entered Abort state)",
	[0x11] = "LL Rx Unsupported/Undefined packet",
	[0x12] = "LL or Phy Control Error",
	[0x13] = "LL Rx Parameter Exception",
	[0x1F] = "LL Detected Control Error",
	[0x20] = "Phy Initialization Abort",
	[0x21] = "Phy Inband Reset",
	[0x22] = "Phy Lane failure, recovery in x8 width",
	[0x23] = "Phy L0c error corrected without Phy reset",
	[0x24] = "Phy L0c error triggering Phy reset",
	[0x25] = "Phy L0p exit error corrected with reset",
	[0x30] = "LL Rx detected CRC error: successful LLR without Phy Reinit",
	[0x31] = "LL Rx detected CRC error: successful LLR with Phy Reinit",
	[0x32] = "Tx received LLR",
};

/* M2M: flags in bits 23:16 */
static const char *const _hwtap_i10nm_m2m_words[] = {
	[16] = "MC read data error",
	[17] = "Reserved",
	[18] = "MC partial write data error",
	[19] = "Full write data error",
	[20] = "M2M clock-domain-crossing buffer (BGF) error",
	[21] = "M2M time out",
	[22] = "M2M tracker parity error",
	[23] = "fatal Bucket1 error",
};

/* the memory controller: bits 23:16 when bits 31:24 are 0 */
static const char *const _hwtap_i10nm_imc0_words[] = {
	[0x01] = "Address parity error",
	[0x02] = "Data parity error",
	[0x03] = "Data ECC error",
	[0x04] = "Data byte enable parity error",
	[0x07] = "Transaction ID parity error",
	[0x08] = "Corrected patrol scrub error",
	[0x10] = "Uncorrected patrol scrub error",
	[0x20] = "Corrected spare error",
	[0x40] = "Uncorrected spare error",
	[0x80] = "Corrected read error",
	[0xA0] = "Uncorrected read error",
	[0xC0] = "Uncorrected metadata",
};

/* the memory controller: bits 23:16 when bits 31:24 are 1 */
static const char *const _hwtap_i10nm_imc1_words[] = {
	[0x00] = "WDB read parity error",
	[0x03] = "RPA parity error",
	[0x06] = "DDR_T_DPPP data BE error",
	[0x07] = "DDR_T_DPPP data error",
	[0x08] = "DDR link failure",
	[0x11] = "PCLS CAM error",
	[0x12] = "PCLS data error",
};

/* the memory controller: bits 23:16 when bits 31:24 are 2 */
static const char *const _hwtap_i10nm_imc2_words[] = {
	[0x00] = "DDR4 command / address parity error",
	[0x20] = "HBM command / address parity error",
	[0x21] = "HBM data parity error",
};

/* the memory controller: bits 23:16 when bits 31:24 are 4 */
static const char *const _hwtap_i10nm_imc4_words[] = {
	[0x00] = "RPQ parity (primary) error",
};

/* the memory controller: bits 23:16 when bits 31:24 are 8 */
static const char *const _hwtap_i10nm_imc8_words[] = {
	[0x00] = "DDR-T bad request",
	[0x01] = "DDR Data response to an invalid entry",
	[0x02] = "DDR data response to an entry not expecting data",
	[0x03] = "DDR4 completion to an invalid entry",
	[0x04] = "DDR-T completion to an invalid entry",
	[0x05] = "DDR data/completion FIFO overflow",
	[0x06] = "DDR-T ERID correctable parity error",
	[0x07] = "DDR-T ERID uncorrectable error",
	[0x08] = "DDR-T interrupt received while outstanding interrupt was not ACKed",
	[0x09] = "ERID FI FO overflow",
	[0x0A] = "DDR-T error on FNV write credits",
	[0x0B] = "DDR-T error on FNV read credits",
	[0x0C] = "DDR-T scheduler error",
	[0x0D] = "DDR-T FNV error event",
	[0x0E] = "DDR-T FNV thermal event",
	[0x0F] = "CMI packet while idle",
	[0x10] = "DDR_T_RPQ_REQ_PARITY_ERR",
	[0x11] = "DDR_T_WPQ_REQ_PARITY_ERR",
	[0x12] = "2LM_NMFILLWR_CAM_ERR",
	[0x13] = "CMI_CREDIT_OVERSUB_ERR",
	[0x14] = "CMI_CREDIT_TOTAL_ERR",
	[0x15] = "CMI_CREDIT_RSVD_POOL_ERR",
	[0x16] = "DDR_T_RD_ERROR",
	[0x17] = "WDB_FIFO_ERR",
	[0x18] = "CMI_REQ_FIFO_OVERFLOW",
	[0x19] = "CMI_REQ_FIFO_UNDERFLOW",
	[0x1A] = "CMI_RSP_FIFO_OVERFLOW",
	[0x1B] = "CMI_RSP_FIFO_UNDERFLOW",
	[0x1C] = "CMI _MISC_MC_CRDT_ERRORS",
	[0x1D] = "CMI_MISC_MC_ARB_ERRORS",
	[0x1E] = "DDR_T_WR_CMPL_FI FO_OVERFLOW",
	[0x1F] = "DDR_T_WR_CMPL_FI FO_UNDERFLOW",
	[0x20] = "CMI_RD_CPL_FIFO_OVERFLOW",
	[0x21] = "CMI_RD_CPL_FIFO_UNDERFLOW",
	[0x22] = "TME_KEY_PAR_ERR",
	[0x23] = "TME_CMI_MISC_ERR",
	[0x24] = "TME_CMI_OVFL_ERR",
	[0x25] = "TME_CMI_UFL_ERR",
	[0x26] = "TME_TEM_SECURE_ERR",
	[0x27] = "TME_UFILL_PAR_ERR",
	[0x29] = "INTERNAL_ERR",
	[0x2A] = "TME_INTEGRITY_ERR",
	[0x2B] = "TME_TDX_ERR",
	[0x2C] = "TME_UFILL_TEM_SECURE_ERR",
	[0x2D] = "TME_KEY_POISON_ERR",
	[0x2E] = "TME_SECURITY_ENGINE_ERR",
};

/* the memory controller: bits 23:16 when bits 31:24 are 0x10 */
static const char *const _hwtap_i10nm_imc10_words[] = {
	[0x08] = "CORR_PATSCRUB_MIRR2ND_ERR",
	[0x10] = "UC_PATSCRUB_MIRR2ND_ERR",
	[0x20] = "COR_SPARE_MIRR2ND_ERR",
	[0x40] = "UC_SPARE_MIRR2ND_ERR",
	[0x80] = "HA_RD_MIRR2ND_ERR",
	[0xA0] = "HA_UNCORR_RD_MIRR2ND_ERR",
};

/* Fields 0-2: PCU, 3-4: UPI, 5: M2M, 6-11: the memory controller's tables for bits
 * 31:24 = 0, 1, 2, 4, 8, 0x10. The codes' fields start at 0: their value is extracted
 * first (the PCU's and the memory controller's), as rasdaemon reads them. */
static const struct _hwtap_mce_field _hwtap_i10nm_fields[] = {
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_pcu1_words),
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_pcu2_words),
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_pcu3_words),
	_HWTAP_MCE_FIELD(0, 1, _hwtap_i10nm_upi1_words),
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_upi2_words),
	_HWTAP_MCE_FIELD(0, 1, _hwtap_i10nm_m2m_words),
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_imc0_words),
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_imc1_words),
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_imc2_words),
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_imc4_words),
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_imc8_words),
	_HWTAP_MCE_FIELD(0, 0, _hwtap_i10nm_imc10_words),
};

enum _hwtap_i10nm_bank { _HWTAP_I10NM_NONE, _HWTAP_I10NM_PCU, _HWTAP_I10NM_UPI,
			 _HWTAP_I10NM_M2M, _HWTAP_I10NM_IMC };

/* What bank BANK is on the model (family 6), or NONE: a model or bank not listed. */
static inline enum _hwtap_i10nm_bank _hwtap_i10nm_bank_type(unsigned int model,
							    unsigned int bank)
{
	switch (model) {
	case 0x6a:                              /* Ice Lake-SP */
		if (bank == 4)
			return _HWTAP_I10NM_PCU;
		if (bank == 5 || bank == 7 || bank == 8)
			return _HWTAP_I10NM_UPI;
		if (bank >= 12 && bank <= 27)   /* M2M then 3 channels, per controller */
			return bank % 4 == 0 ? _HWTAP_I10NM_M2M : _HWTAP_I10NM_IMC;
		return _HWTAP_I10NM_NONE;
	case 0x6c:                              /* Ice Lake-D */
	case 0x86:                              /* Tremont-D */
		if (bank == 4)
			return _HWTAP_I10NM_PCU;
		if (bank >= 12 && bank <= (model == 0x6c ? 19u : 15u))
			return bank % 4 == 0 ? _HWTAP_I10NM_M2M : _HWTAP_I10NM_IMC;
		return _HWTAP_I10NM_NONE;
	case 0x8f:                              /* Sapphire Rapids */
	case 0xcf:                              /* Emerald Rapids */
		return bank == 4 ? _HWTAP_I10NM_PCU : bank == 5 ? _HWTAP_I10NM_UPI :
		       bank == 12 ? _HWTAP_I10NM_M2M :
		       bank >= 13 && bank <= 20 ? _HWTAP_I10NM_IMC : _HWTAP_I10NM_NONE;
	}
	return _HWTAP_I10NM_NONE;
}

#endif
