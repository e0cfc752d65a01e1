/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_hsw.h - the model-specific error codes of Intel's Xeon E5/E7 v3 (Haswell-EP/EX,
 * family 6 model 0x3f) and v4 (Broadwell-EP/EX, 0x4f): the PCU's code (bank 4, MCi_STATUS
 * bits 31:24), Intel QPI's (banks 5, 20, 21: bits 21:16) and the memory controller's
 * flags (banks 9-16, bits 25:16), the same on the two but for bit 23, which Broadwell-EP
 * does not have (its SDM table 16-26). The words are rasdaemon
 * 0.8.5's (mce-intel-haswell.c and mce-intel-broadwell-epex.c, which cite the Intel SDM
 * Vol. 3B tables 16-20 to 16-22 and 16-26), taken entry by entry; 0.6.8 spelled QPI code
 * 0x31 "wihout". Data without kernel types: the tapset's mce_model_str() and hwtap-run's
 * --ras-db words read it.
 */
#ifndef HWTAP_MCE_HSW_H
#define HWTAP_MCE_HSW_H

#include "mce_field.h"

/* The PCU's code in bits 31:24 (SDM table 16-20). */
static const char *const _hwtap_hsw_pcu_codes[] = {
	[0x00] = "No Error",
	[0x09] = "MC_MESSAGE_CHANNEL_TIMEOUT",
	[0x0D] = "MC_IMC_FORCE_SR_S3_TIMEOUT",
	[0x0E] = "MC_CPD_UNCPD_SD_TIMEOUT",
	[0x13] = "MC_DMI_TRAINING_TIMEOUT",
	[0x15] = "MC_DMI_CPU_RESET_ACK_TIMEOUT",
	[0x1E] = "MC_VR_ICC_MAX_LT_FUSED_ICC_MAX",
	[0x25] = "MC_SVID_COMMAN_TIMEOUT",
	[0x29] = "MC_VR_VOUT_MAC_LT_FUSED_SVID",
	[0x2B] = "MC_PKGC_WATCHDOG_HANG_CBZ_DOWN",
	[0x2C] = "MC_PKGC_WATCHDOG_HANG_CBZ_UP",
	[0x39] = "MC_PKGC_WATCHDOG_HANG_C3_UP_SF",
	[0x44] = "MC_CRITICAL_VR_FAILED",
	[0x45] = "MC_ICC_MAX_NOTSUPPORTED",
	[0x46] = "MC_VID_RAMP_DOWN_FAILED",
	[0x47] = "MC_EXCL_MODE_NO_PMREQ_CMP",
	[0x48] = "MC_SVID_READ_REG_ICC_MAX_FAILED",
	[0x49] = "MC_SVID_WRITE_REG_VOUT_MAX_FAILED",
	[0x4B] = "MC_BOOT_VID_TIMEOUT_DRAM_0",
	[0x4C] = "MC_BOOT_VID_TIMEOUT_DRAM_1",
	[0x4D] = "MC_BOOT_VID_TIMEOUT_DRAM_2",
	[0x4E] = "MC_BOOT_VID_TIMEOUT_DRAM_3",
	[0x4F] = "MC_SVID_COMMAND_ERROR",
	[0x52] = "MC_FIVR_CATAS_OVERVOL_FAULT",
	[0x53] = "MC_FIVR_CATAS_OVERCUR_FAULT",
	[0x57] = "MC_SVID_PKGC_REQUEST_FAILED",
	[0x58] = "MC_SVID_IMON_REQUEST_FAILED",
	[0x59] = "MC_SVID_ALERT_REQUEST_FAILED",
	[0x60] = "MC_INVALID_PKGS_REQ_PCH",
	[0x61] = "MC_INVALID_PKGS_REQ_QPI",
	[0x62] = "MC_INVALID_PKGS_RSP_QPI",
	[0x63] = "MC_INVALID_PKGS_RSP_PCH",
	[0x64] = "MC_INVALID_PKG_STATE_CONFIG",
	[0x67] = "MC_HA_IMC_RW_BLOCK_ACK_TIMEOUT",
	[0x68] = "MC_IMC_RW_SMBUS_TIMEOUT",
	[0x69] = "MC_HA_FAILSTS_CHANGE_DETECTED",
	[0x6A] = "MC_MSGCH_PMREQ_CMP_TIMEOUT",
	[0x70] = "MC_WATCHDOG_TIMEOUT_PKGC_SLAVE",
	[0x71] = "MC_WATCHDOG_TIMEOUT_PKGC_MASTER",
	[0x72] = "MC_WATCHDOG_TIMEOUT_PKGS_MASTER",
	[0x7C] = "MC_BIOS_RST_CPL_INVALID_SEQ",
	[0x7D] = "MC_MORE_THAN_ONE_TXT_AGENT",
	[0x81] = "MC_RECOVERABLE_DIE_THERMAL_TOO_HOT",
};

/* Intel QPI's code in bits 21:16 (SDM table 16-21). */
static const char *const _hwtap_hsw_qpi_codes[] = {
	[0x02] = "Intel QPI physical layer detected drift buffer alarm",
	[0x03] = "Intel QPI physical layer detected latency buffer rollover",
	[0x10] = "Intel QPI link layer detected control error from R3QPI",
	[0x11] = "Rx entered LLR abort state on CRC error",
	[0x12] = "Unsupported or undefined packet",
	[0x13] = "Intel QPI link layer control error",
	[0x15] = "RBT used un-initialized value",
	[0x20] = "Intel QPI physical layer detected a QPI in-band reset but aborted initialization",
	[0x21] = "Link failover data self healing",
	[0x22] = "Phy detected in-band reset (no width change)",
	[0x23] = "Link failover clock failover",
	[0x30] = "Rx detected CRC error - successful LLR after Phy re-init",
	[0x31] = "Rx detected CRC error - successful LLR without Phy re-init",
};

/* The memory controller's flags in bits 25:16 (SDM table 16-22). */
static const char *const _hwtap_hsw_mc_bits[] = {
	[16] = "DDR3 address parity error",
	[17] = "Uncorrected HA write data error",
	[18] = "Uncorrected HA data byte enable error",
	[19] = "Corrected patrol scrub error",
	[20] = "Uncorrected patrol scrub error",
	[21] = "Corrected spare error",
	[22] = "Uncorrected spare error",
	[23] = "Corrected memory read error",
	[24] = "iMC write data buffer parity error",
	[25] = "DDR4 command address parity error",
};

/* 0: the PCU's code, 1: QPI's, 2: the memory controller's flags */
static const struct _hwtap_mce_field _hwtap_hsw_fields[] = {
	_HWTAP_MCE_FIELD(24, 0, _hwtap_hsw_pcu_codes),
	_HWTAP_MCE_FIELD(16, 0, _hwtap_hsw_qpi_codes),
	_HWTAP_MCE_FIELD(0, 1, _hwtap_hsw_mc_bits),
};

#endif
