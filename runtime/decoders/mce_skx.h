/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_skx.h - the model-specific error codes of Intel's Skylake-SP and Cascade Lake-SP
 * (family 6, model 0x55), bank by bank, as fields of MCi_STATUS and their words. Data
 * without kernel types: tapset/ras-models.stp's mce_model_str() reads it in the
 * module, loader/history/rasdb.c in hwtap-run (rasdaemon's words for --ras-db). Where the facts
 * come from: tapset/ras-models.stp.
 */
#ifndef HWTAP_MCE_SKX_H
#define HWTAP_MCE_SKX_H

#include "mce_field.h"

/* The PCU's code in bits 31:24 (SDM table 16-27). */
static const char *const _hwtap_skx_pcu_codes[] = {
	[0x00] = "No Error",
	[0x0d] = "MCA_DMI_TRAINING_TIMEOUT",
	[0x0f] = "MCA_DMI_CPU_RESET_ACK_TIMEOUT",
	[0x10] = "MCA_MORE_THAN_ONE_LT_AGENT",
	[0x1e] = "MCA_BIOS_RST_CPL_INVALID_SEQ",
	[0x1f] = "MCA_BIOS_INVALID_PKG_STATE_CONFIG",
	[0x25] = "MCA_MESSAGE_CHANNEL_TIMEOUT",
	[0x27] = "MCA_MSGCH_PMREQ_CMP_TIMEOUT",
	[0x30] = "MCA_PKGC_DIRECT_WAKE_RING_TIMEOUT",
	[0x31] = "MCA_PKGC_INVALID_RSP_PCH",
	[0x33] = "MCA_PKGC_WATCHDOG_HANG_CBZ_DOWN",
	[0x34] = "MCA_PKGC_WATCHDOG_HANG_CBZ_UP",
	[0x38] = "MCA_PKGC_WATCHDOG_HANG_C3_UP_SF",
	[0x40] = "MCA_SVID_VCCIN_VR_ICC_MAX_FAILURE",
	[0x41] = "MCA_SVID_COMMAND_TIMEOUT",
	[0x42] = "MCA_SVID_VCCIN_VR_VOUT_FAILURE",
	[0x43] = "MCA_SVID_CPU_VR_CAPABILITY_ERROR",
	[0x44] = "MCA_SVID_CRITICAL_VR_FAILED",
	[0x45] = "MCA_SVID_SA_ITD_ERROR",
	[0x46] = "MCA_SVID_READ_REG_FAILED",
	[0x47] = "MCA_SVID_WRITE_REG_FAILED",
	[0x48] = "MCA_SVID_PKGC_INIT_FAILED",
	[0x49] = "MCA_SVID_PKGC_CONFIG_FAILED",
	[0x4a] = "MCA_SVID_PKGC_REQUEST_FAILED",
	[0x4b] = "MCA_SVID_IMON_REQUEST_FAILED",
	[0x4c] = "MCA_SVID_ALERT_REQUEST_FAILED",
	[0x4d] = "MCA_SVID_MCP_VR_ABSENT_OR_RAMP_ERROR",
	[0x4e] = "MCA_SVID_UNEXPECTED_MCP_VR_DETECTED",
	[0x51] = "MCA_FIVR_CATAS_OVERVOL_FAULT",
	[0x52] = "MCA_FIVR_CATAS_OVERCUR_FAULT",
	[0x58] = "MCA_WATCHDOG_TIMEOUT_PKGC_SLAVE",
	[0x59] = "MCA_WATCHDOG_TIMEOUT_PKGC_MASTER",
	[0x5a] = "MCA_WATCHDOG_TIMEOUT_PKGS_MASTER",
	[0x61] = "MCA_PKGS_CPD_UNCPD_TIMEOUT",
	[0x63] = "MCA_PKGS_INVALID_REQ_PCH",
	[0x64] = "MCA_PKGS_INVALID_REQ_INTERNAL",
	[0x65] = "MCA_PKGS_INVALID_RSP_INTERNAL",
	[0x6b] = "MCA_PKGS_SMBUS_VPP_PAUSE_TIMEOUT",
	[0x81] = "MCA_RECOVERABLE_DIE_THERMAL_TOO_HOT",
};

/* The UPI link's code in bits 21:16 (table 16-28). */
static const char *const _hwtap_skx_upi_codes[] = {
	[0x00] = "UC Phy Initialization Failure",
	[0x01] = "UC Phy detected drift buffer alarm",
	[0x02] = "UC Phy detected latency buffer rollover",
	[0x10] = "UC LL Rx detected CRC error: unsuccessful LLR: entered abort state",
	[0x11] = "UC LL Rx unsupported or undefined packet",
	[0x12] = "UC LL or Phy control error",
	[0x13] = "UC LL Rx parameter exchange exception",
	[0x1f] = "UC LL detected control error from the link-mesh interface",
	[0x20] = "COR Phy initialization abort",
	[0x21] = "COR Phy reset",
	[0x22] = "COR Phy lane failure, recovery in x8 width",
	[0x23] = "COR Phy L0c error corrected without Phy reset",
	[0x24] = "COR Phy L0c error triggering Phy Reset",
	[0x25] = "COR Phy L0p exit error corrected with Phy reset",
	[0x30] = "COR LL Rx detected CRC error - successful LLR without Phy Reinit",
	[0x31] = "COR LL Rx detected CRC error - successful LLR with Phy Reinit",
};

/* For UPI code 0x12 ("UC LL or Phy control error"): which, by bits 31:22. */
static const char *const _hwtap_skx_upi_0x12_bits[32] = {
	[0x16] = "Phy Control Error",
	[0x17] = "Unexpected Retry.Ack flit",
	[0x18] = "Unexpected Retry.Req flit",
	[0x19] = "RF parity error",
	[0x1a] = "Routeback Table error",
	[0x1b] = "unexpected Tx Protocol flit (EOP, Header or Data)",
	[0x1c] = "Rx Header-or-Credit BGF credit overflow/underflow",
	[0x1d] = "Link Layer Reset still in progress when Phy enters L0",
	[0x1e] = "Link Layer reset initiated while protocol traffic not idle",
	[0x1f] = "Link Layer Tx Parity Error",
};

/* A memory controller's error by bits 26:16, when bit 27 is clear (table 16-29). */
static const char *const _hwtap_skx_mc_bits[32] = {
	[0x10] = "Address parity error",
	[0x11] = "HA write data parity error",
	[0x12] = "HA write byte enable parity error",
	[0x13] = "Corrected patrol scrub error",
	[0x14] = "Uncorrected patrol scrub error",
	[0x15] = "Corrected spare error",
	[0x16] = "Uncorrected spare error",
	[0x17] = "Any HA read error",
	[0x18] = "WDB read parity error",
	[0x19] = "DDR4 command address parity error",
	[0x1a] = "Uncorrected address parity error",
};

/* A memory controller's code in bits 19:16, when bit 27 is set (table 16-29). */
static const char *const _hwtap_skx_mc_codes[] = {
	[0x00] = "Unrecognized request type",
	[0x01] = "Read response to an invalid scoreboard entry",
	[0x02] = "Unexpected read response",
	[0x03] = "DDR4 completion to an invalid scoreboard entry",
	[0x04] = "Completion to an invalid scoreboard entry",
	[0x05] = "Completion FIFO overflow",
	[0x06] = "Correctable parity error",
	[0x07] = "Uncorrectable error",
	[0x08] = "Interrupt received while outstanding interrupt was not ACKed",
	[0x09] = "ERID FIFO overflow",
	[0x0a] = "Error on Write credits",
	[0x0b] = "Error on Read credits",
	[0x0c] = "Scheduler error",
	[0x0d] = "Error event",
};

/* The mesh-to-memory agent's error, by bits 23:16 (table 16-30). */
static const char *const _hwtap_skx_m2m_bits[32] = {
	[0x10] = "MscodDataRdErr",
	[0x11] = "Reserved",
	[0x12] = "MscodPtlWrErr",
	[0x13] = "MscodFullWrErr",
	[0x14] = "MscodBgfErr",
	[0x15] = "MscodTimeout",
	[0x16] = "MscodParErr",
	[0x17] = "MscodBucket1Err",
};

static const struct _hwtap_mce_field _hwtap_skx_fields[] = {
	_HWTAP_MCE_FIELD(24, 0, _hwtap_skx_pcu_codes),
	_HWTAP_MCE_FIELD(16, 0, _hwtap_skx_upi_codes),
	_HWTAP_MCE_FIELD(0, 1, _hwtap_skx_upi_0x12_bits),
	_HWTAP_MCE_FIELD(0, 1, _hwtap_skx_mc_bits),
	_HWTAP_MCE_FIELD(16, 0, _hwtap_skx_mc_codes),
	_HWTAP_MCE_FIELD(0, 1, _hwtap_skx_m2m_bits),
};

#endif
