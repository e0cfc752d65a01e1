/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mce_smca.h - AMD Scalable MCA's bank types: the MCA_IPID fields that name each, its
 * name, and what its extended error codes (MCA_STATUS bits 21:16) mean. Data and one
 * lookup, no kernel types: tapset/ras.stp's mce_smca_bank_str() and mce_smca_error_str()
 * read it in the module, loader/history/rasdb.c in hwtap-run (rasdaemon's words for --ras-db).
 * Where the facts come from: tapset/ras.stp, "AMD Scalable MCA".
 */
#ifndef HWTAP_MCE_SMCA_H
#define HWTAP_MCE_SMCA_H

#include "mce_field.h"

/* One SMCA bank type: the MCA_IPID fields that name it, its name, and what each
 * extended error code means in it ("Reserved" where rasdaemon says so). */
struct _hwtap_smca_bank {
	unsigned short hwid;		/* MCA_IPID[43:32] */
	unsigned short mcatype;		/* MCA_IPID[63:48] */
	const char *name;		/* "SHORT (Long name)" */
	const char *const *codes;	/* indexed by MCA_STATUS[21:16] */
	unsigned int ncodes;
};

static const char *const _hwtap_smca_ls[] = {
	"Load queue parity",
	"Store queue parity",
	"Miss address buffer payload parity",
	"L1 TLB parity",
	"DC Tag error type 5",
	"DC tag error type 6",
	"DC tag error type 1",
	"Internal error type 1",
	"Internal error type 2",
	"Sys Read data error thread 0",
	"Sys read data error thread 1",
	"DC tag error type 2",
	"DC data error type 1 (poison consumption)",
	"DC data error type 2",
	"DC data error type 3",
	"DC tag error type 4",
	"L2 TLB parity",
	"PDC parity error",
	"DC tag error type 3",
	"DC tag error type 5",
	"L2 fill data error",
	"Error on SCB cacheline state or address field",
	"Error on SCB data, commit pipe 0",
	"Error on SCB data, commit pipe 1",
	"Error on SCB data for non-cacheable DRAM or IO",
	"System Read Data Error detected by write combine buffer",
	"Hardware Asserts",
};

static const char *const _hwtap_smca_ls_v2[] = {
	"An ECC error was detected on a data cache read by a probe or victimization",
	"An ECC error or L2 poison was detected on a data cache read by a load",
	"An ECC error was detected on a data cache read-modify-write by a store",
	"An ECC error or poison bit mismatch was detected on a tag read by a probe or "
		"victimization",
	"An ECC error or poison bit mismatch was detected on a tag read by a load",
	"An ECC error or poison bit mismatch was detected on a tag read by a store",
	"An ECC error was detected on an EMEM read by a load",
	"An ECC error was detected on an EMEM read-modify-write by a store",
	"A parity error was detected in an L1 TLB entry by any access",
	"A parity error was detected in an L2 TLB entry by any access",
	"A parity error was detected in a PWC entry by any access",
	"A parity error was detected in an STQ entry by any access",
	"A parity error was detected in an LDQ entry by any access",
	"A parity error was detected in a MAB entry by any access",
	"A parity error was detected in an SCB entry state field by any access",
	"A parity error was detected in an SCB entry address field by any access",
	"A parity error was detected in an SCB entry data field by any access",
	"A parity error was detected in a WCB entry by any access",
	"A poisoned line was detected in an SCB entry by any access",
	"A SystemReadDataError error was reported on read data returned from L2 for a "
		"load",
	"A SystemReadDataError error was reported on read data returned from L2 for an "
		"SCB store",
	"A SystemReadDataError error was reported on read data returned from L2 for a "
		"WCB store",
	"A hardware assertion error was reported",
	"A parity error was detected in an STLF, SCB EMEM entry, store data mask or SRB "
		"store data by any access",
};

static const char *const _hwtap_smca_if[] = {
	"microtag probe port parity error",
	"IC microtag or full tag multi-hit error",
	"IC full tag parity",
	"IC data array parity",
	"PRQ Parity Error",
	"L0 ITLB parity error",
	"L1-TLB parity error",
	"L2-TLB parity error",
	"BPQ snoop parity on Thread 0",
	"BPQ snoop parity on Thread 1",
	"BP L1-BTB Multi-Hit Error",
	"BP L2-BTB Multi-Hit Error",
	"L2 Cache Response Poison error",
	"System Read Data error",
	"Hardware Assertion Error",
	"L1-TLB Multi-Hit",
	"L2-TLB Multi-Hit",
	"BSR Parity Error",
	"CT MCE",
};

static const char *const _hwtap_smca_l2_cache[] = {
	"L2M Tag Multiple-Way-Hit error",
	"L2M Tag or State Array ECC Error",
	"L2M Data Array ECC Error",
	"Hardware Assert Error",
	"SDP Read Response Parity Error",
	"Error initiated by programmable state machine",
};

static const char *const _hwtap_smca_de[] = {
	"Micro-op cache tag array parity error",
	"Micro-op cache data array parity error",
	"IBB Register File parity error",
	"Micro-op queue parity error",
	"Instruction dispatch queue parity error",
	"Fetch address FIFO parity error",
	"Patch RAM data parity error",
	"Patch RAM sequencer parity error",
	"Micro-op fetch queue parity error",
	"Hardware Assertion MCA Error",
};

static const char *const _hwtap_smca_ex[] = {
	"Watchdog timeout error",
	"Physical register file parity error",
	"Flag register file parity error",
	"Immediate displacement register file parity error",
	"Address generator payload parity error",
	"EX payload parity error",
	"Checkpoint queue parity error",
	"Retire dispatch queue parity error",
	"Retire status queue parity error",
	"Scheduler queue parity error",
	"Branch buffer queue parity error",
	"Hardware Assertion error",
	"Spec Map parity error",
	"Retire Map parity error",
};

static const char *const _hwtap_smca_fp[] = {
	"Physical register file (PRF) parity error",
	"Freelist (FL) parity error",
	"Schedule queue parity error",
	"NSQ parity error",
	"Retire queue (RQ) parity error",
	"Status register file (SRF) parity error",
	"Hardware assertion",
	"Physical K mask register file (KRF) parity error",
};

static const char *const _hwtap_smca_l3_cache[] = {
	"Shadow tag macro ECC error",
	"Shadow tag macro multi-way-hit error",
	"L3M tag ECC error",
	"L3M tag multi-way-hit error",
	"L3M data ECC error",
	"SDP Parity Error from XI",
	"L3 victim queue Data Fabric error",
	"L3 Hardware Assertion",
	"XI WCB Parity Poison Creation event",
	"Machine check error initiated by DSM action",
};

static const char *const _hwtap_smca_cs[] = {
	"Illegal request",
	"Address violation",
	"Security violation",
	"Illegal response",
	"Unexpected response",
	"Request or Probe Parity Error",
	"Read Response Parity Error",
	"Atomic request parity error",
	"Probe Filter ECC Error",
};

static const char *const _hwtap_smca_pie[] = {
	"Hardware assert",
	"Register security violation",
	"Link error",
	"Poison data consumption",
	"A deferred error was detected in the DF",
	"Watch Dog Timer",
	"An SRAM ECC error was detected in the CNLI block",
	"Register access during DF Cstate",
	"DSM Error",
};

static const char *const _hwtap_smca_cs_v2[] = {
	"Illegal Request",
	"Address Violation",
	"Security Violation",
	"Illegal Response",
	"Unexpected Response",
	"Request or Probe Parity Error",
	"Read Response Parity Error",
	"Atomic Request Parity Error",
	"SDP read response had no match in the CS queue",
	"Probe Filter Protocol Error",
	"Probe Filter ECC Error",
	"SDP read response had an unexpected RETRY error",
	"Counter overflow error",
	"Counter underflow error",
	"Illegal Request on the no data channel",
	"Address Violation on the no data channel",
	"Security Violation on the no data channel",
	"Hardware Assert Error",
	"Shadow Tag Array Protocol Error",
	"Shadow Tag ECC Error",
	"Shadow Tag Transaction Error",
};

static const char *const _hwtap_smca_ma_llc[] = {
	"Counter overflow error",
	"Counter underflow error",
	"Write Data Parity Error",
	"Read Response Parity Error",
	"Cache Tag ECC Error Macro 0",
	"Cache Tag ECC Error Macro 1",
	"Cache Data ECC Error",
};

static const char *const _hwtap_smca_umc[] = {
	"DRAM ECC error",
	"Data poison error on DRAM",
	"SDP parity error",
	"Advanced peripheral bus error",
	"Command/address parity error",
	"Write data CRC error",
	"DCQ SRAM ECC error",
	"AES SRAM ECC error",
	"ECS Row Error",
	"ECS Error",
	"UMC Throttling Error",
	"Read CRC Error",
	[12 ... 15] = "Reserved",
	"RFM SRAM ECC error",
};

static const char *const _hwtap_smca_umc_v2[] = {
	"DRAM ECC error",
	"Data poison error",
	"SDP parity error",
	"Reserved",
	"Address/Command parity error",
	"Write data parity error",
	"DCQ SRAM ECC error",
	"Reserved",
	"Read data parity error",
	"Rdb SRAM ECC error",
	"RdRsp SRAM ECC error",
	"LM32 MP errors",
};

static const char *const _hwtap_smca_smu[] = {
	"An ECC or parity error in an SMU RAM instance",
};

static const char *const _hwtap_smca_smu_v2[] = {
	"High SRAM ECC or parity error",
	"Low SRAM ECC or parity error",
	"Data Cache Bank A ECC or parity error",
	"Data Cache Bank B ECC or parity error",
	"Data Tag Cache Bank A ECC or parity error",
	"Data Tag Cache Bank B ECC or parity error",
	"Instruction Cache Bank A ECC or parity error",
	"Instruction Cache Bank B ECC or parity error",
	"Instruction Tag Cache Bank A ECC or parity error",
	"Instruction Tag Cache Bank B ECC or parity error",
	"System Hub Read Buffer ECC or parity error",
	"PHY RAS ECC Error",
	[12 ... 57] = "Reserved",
	"A correctable error from a GFX Sub-IP",
	"A fatal error from a GFX Sub-IP",
	"Reserved",
	"Reserved",
	"A poison error from a GFX Sub-IP",
	"Reserved",
};

static const char *const _hwtap_smca_mp5[] = {
	"High SRAM ECC or parity error",
	"Low SRAM ECC or parity error",
	"Data Cache Bank A ECC or parity error",
	"Data Cache Bank B ECC or parity error",
	"Data Tag Cache Bank A ECC or parity error",
	"Data Tag Cache Bank B ECC or parity error",
	"Instruction Cache Bank A ECC or parity error",
	"Instruction Cache Bank B ECC or parity error",
	"Instruction Tag Cache Bank A ECC or parity error",
	"Instruction Tag Cache Bank B ECC or parity error",
	"Fuse SRAM ECC or parity error",
};

static const char *const _hwtap_smca_mpdma[] = {
	"Main SRAM [31:0] bank ECC or parity error",
	"Main SRAM [63:32] bank ECC or parity error",
	"Main SRAM [95:64] bank ECC or parity error",
	"Main SRAM [127:96] bank ECC or parity error",
	"Data Cache Bank A ECC or parity error",
	"Data Cache Bank B ECC or parity error",
	"Data Tag Cache Bank A ECC or parity error",
	"Data Tag Cache Bank B ECC or parity error",
	"Instruction Cache Bank A ECC or parity error",
	"Instruction Cache Bank B ECC or parity error",
	"Instruction Tag Cache Bank A ECC or parity error",
	"Instruction Tag Cache Bank B ECC or parity error",
	"Data Cache Bank A ECC or parity error",
	"Data Cache Bank B ECC or parity error",
	"Data Tag Cache Bank A ECC or parity error",
	"Data Tag Cache Bank B ECC or parity error",
	"Instruction Cache Bank A ECC or parity error",
	"Instruction Cache Bank B ECC or parity error",
	"Instruction Tag Cache Bank A ECC or parity error",
	"Instruction Tag Cache Bank B ECC or parity error",
	"Data Cache Bank A ECC or parity error",
	"Data Cache Bank B ECC or parity error",
	"Data Tag Cache Bank A ECC or parity error",
	"Data Tag Cache Bank B ECC or parity error",
	"Instruction Cache Bank A ECC or parity error",
	"Instruction Cache Bank B ECC or parity error",
	"Instruction Tag Cache Bank A ECC or parity error",
	"Instruction Tag Cache Bank B ECC or parity error",
	"System Hub Read Buffer ECC or parity error",
	"MPDMA TVF DVSEC Memory ECC or parity error",
	"MPDMA TVF MMIO Mailbox0 ECC or parity error",
	"MPDMA TVF MMIO Mailbox1 ECC or parity error",
	"MPDMA TVF Doorbell Memory ECC or parity error",
	"MPDMA TVF SDP Slave Memory 0 ECC or parity error",
	"MPDMA TVF SDP Slave Memory 1 ECC or parity error",
	"MPDMA TVF SDP Slave Memory 2 ECC or parity error",
	"MPDMA TVF SDP Master Memory 0 ECC or parity error",
	"MPDMA TVF SDP Master Memory 1 ECC or parity error",
	"MPDMA TVF SDP Master Memory 2 ECC or parity error",
	"MPDMA TVF SDP Master Memory 3 ECC or parity error",
	"MPDMA TVF SDP Master Memory 4 ECC or parity error",
	"MPDMA TVF SDP Master Memory 5 ECC or parity error",
	"MPDMA TVF SDP Master Memory 6 ECC or parity error",
	"SDP Watchdog Timer expired",
	"MPDMA PTE Command FIFO ECC or parity error",
	"MPDMA PTE Hub Data FIFO ECC or parity error",
	"MPDMA PTE Internal Data FIFO ECC or parity error",
	"MPDMA PTE Command Memory DMA ECC or parity error",
	"MPDMA PTE Command Memory Internal ECC or parity error",
	"MPDMA TVF SDP Master Memory 7 ECC or parity error",
};

static const char *const _hwtap_smca_pb[] = {
	"An ECC error in the Parameter Block RAM array",
};

static const char *const _hwtap_smca_nbio[] = {
	"ECC or Parity error",
	"PCIE error",
	"External SDP ErrEvent error",
	"SDP Egress Poison error",
	"Internal Poison error",
	"Internal system fatal error event",
};

static const char *const _hwtap_smca_pcie[] = {
	"CCIX PER Message logging",
	"CCIX Read Response with Status: Non-Data Error",
	"CCIX Write Response with Status: Non-Data Error",
	"CCIX Read Response with Status: Data Error",
	"CCIX Non-okay write response with data error",
};

static const char *const _hwtap_smca_pcie_v2[] = {
	"SDP Data Parity Error logging",
};

static const char *const _hwtap_smca_xgmi_pcs[] = {
	"Data Loss Error",
	"Training Error",
	"Flow Control Acknowledge Error",
	"Rx Fifo Underflow Error",
	"Rx Fifo Overflow Error",
	"CRC Error",
	"BER Exceeded Error",
	"Tx Vcid Data Error",
	"Replay Buffer Parity Error",
	"Data Parity Error",
	"Replay Fifo Overflow Error",
	"Replay Fifo Underflow Error",
	"Elastic Fifo Overflow Error",
	"Deskew Error",
	"Flow Control CRC Error",
	"Data Startup Limit Error",
	"FC Init Timeout Error",
	"Recovery Timeout Error",
	"Ready Serial Timeout Error",
	"Ready Serial Attempt Error",
	"Recovery Attempt Error",
	"Recovery Relock Attempt Error",
	"Replay Attempt Error",
	"Sync Header Error",
	"Tx Replay Timeout Error",
	"Rx Replay Timeout Error",
	"LinkSub Tx Timeout Error",
	"LinkSub Rx Timeout Error",
	"Rx CMD Pocket Error",
};

static const char *const _hwtap_smca_nbif_shub[] = {
	"Timeout error from GMI",
	"SRAM ECC error",
	"NTB Error Event",
	"SDP Parity error",
};

static const char *const _hwtap_smca_sata[] = {
	"Parity error for port 0",
	"Parity error for port 1",
	"Parity error for port 2",
	"Parity error for port 3",
	"Parity error for port 4",
	"Parity error for port 5",
	"Parity error for port 6",
	"Parity error for port 7",
};

static const char *const _hwtap_smca_usb[] = {
	"Parity error or ECC error for S0 RAM0",
	"Parity error or ECC error for S0 RAM1",
	"Parity error or ECC error for S0 RAM2",
	"Parity error for PHY RAM0",
	"Parity error for PHY RAM1",
	"AXI Slave Response error",
};

static const char *const _hwtap_smca_psp[] = {
	"An ECC or parity error in a PSP RAM instance",
};

static const char *const _hwtap_smca_psp_v2[] = {
	"High SRAM ECC or parity error",
	"Low SRAM ECC or parity error",
	"Instruction Cache Bank 0 ECC or parity error",
	"Instruction Cache Bank 1 ECC or parity error",
	"Instruction Tag Ram 0 parity error",
	"Instruction Tag Ram 1 parity error",
	"Data Cache Bank 0 ECC or parity error",
	"Data Cache Bank 1 ECC or parity error",
	"Data Cache Bank 2 ECC or parity error",
	"Data Cache Bank 3 ECC or parity error",
	"Data Tag Bank 0 parity error",
	"Data Tag Bank 1 parity error",
	"Data Tag Bank 2 parity error",
	"Data Tag Bank 3 parity error",
	"Dirty Data Ram parity error",
	"TLB Bank 0 parity error",
	"TLB Bank 1 parity error",
	"System Hub Read Buffer ECC or parity error",
	"FUSE IP SRAM ECC or parity error",
	"PCRU FUSE SRAM ECC or parity error",
	"SIB SRAM parity error",
	"mpASP SECEMC Error",
	"mpASP A5 Hang",
	"SIB WDT error",
};

static const char *const _hwtap_smca_usr_dp[] = {
	"Mst CMD Error",
	"Mst Rx FIFO Error",
	"Mst Deskew Error",
	"Mst Detect Timeout Error",
	"Mst FlowControl Error",
	"Mst DataValid FIFO Error",
	"Mac LinkState Error",
	"Deskew Error",
	"Init Timeout Error",
	"Init Attempt Error",
	"Recovery Timeout Error",
	"Recovery Attempt Error",
	"Eye Training Timeout Error",
	"Data Startup Limit Error",
	"LS0 Exit Error",
	"PLL powerState Update Timeout Error",
	"Rx FIFO Error",
	"Lcu Error",
	"Conv CECC Error",
	"Conv UECC Error",
	"Reserved",
	"Rx DataLoss Error",
	"Replay CECC Error",
	"Replay UECC Error",
	"CRC Error",
	"BER Exceeded Error",
	"FC Init Timeout Error",
	"FC Init Attempt Error",
	"Replay Timeout Error",
	"Replay Attempt Error",
	"Replay Underflow Error",
	"Replay Overflow Error",
};

static const char *const _hwtap_smca_usr_cp[] = {
	"Packet Type Error",
	"Rx FIFO Error",
	"Deskew Error",
	"Rx Detect Timeout Error",
	"Data Parity Error",
	"Data Loss Error",
	"Lcu Error",
	"HB1 Handshake Timeout Error",
	"HB2 Handshake Timeout Error",
	"Clk Sleep Rsp Timeout Error",
	"Clk Wake Rsp Timeout Error",
	"Reset Attack Error",
	"Remote Link Fatal Error",
};

static const char *const _hwtap_smca_gmi_pcs[] = {
	"Data Loss Error",
	"Training Error",
	"Replay Parity Error",
	"Rx Fifo Underflow Error",
	"Rx Fifo Overflow Error",
	"CRC Error",
	"BER Exceeded Error",
	"Tx Fifo Underflow Error",
	"Replay Buffer Parity Error",
	"Tx Overflow Error",
	"Replay Fifo Overflow Error",
	"Replay Fifo Underflow Error",
	"Elastic Fifo Overflow Error",
	"Deskew Error",
	"Offline Error",
	"Data Startup Limit Error",
	"FC Init Timeout Error",
	"Recovery Timeout Error",
	"Ready Serial Timeout Error",
	"Ready Serial Attempt Error",
	"Recovery Attempt Error",
	"Recovery Relock Attempt Error",
	"Deskew Abort Error",
	"Rx Buffer Error",
	"Rx LFDS Fifo Overflow Error",
	"Rx LFDS Fifo Underflow Error",
	"LinkSub Tx Timeout Error",
	"LinkSub Rx Timeout Error",
	"Rx CMD Packet Error",
	"LFDS Training Timeout Error",
	"LFDS FC Init Timeout Error",
	"Data Loss Error",
};

static const char *const _hwtap_smca_phy[] = {
	"RAM ECC Error",
	"ARC instruction buffer parity error",
	"ARC data buffer parity error",
	"PHY APB error",
};

static const struct _hwtap_smca_bank _hwtap_smca_banks[] = {
	{ 0x0b0, 0x00, "LS (Load Store Unit)",
	  _hwtap_smca_ls, _HWTAP_NELEM(_hwtap_smca_ls) },
	{ 0x0b0, 0x10, "LS_V2 (Load Store Unit)",
	  _hwtap_smca_ls_v2, _HWTAP_NELEM(_hwtap_smca_ls_v2) },
	{ 0x0b0, 0x01, "IF (Instruction Fetch Unit)",
	  _hwtap_smca_if, _HWTAP_NELEM(_hwtap_smca_if) },
	{ 0x0b0, 0x02, "L2_CACHE (L2 Cache)",
	  _hwtap_smca_l2_cache, _HWTAP_NELEM(_hwtap_smca_l2_cache) },
	{ 0x0b0, 0x03, "DE (Decode Unit)",
	  _hwtap_smca_de, _HWTAP_NELEM(_hwtap_smca_de) },
	{ 0x0b0, 0x05, "EX (Execution Unit)",
	  _hwtap_smca_ex, _HWTAP_NELEM(_hwtap_smca_ex) },
	{ 0x0b0, 0x06, "FP (Floating Point Unit)",
	  _hwtap_smca_fp, _HWTAP_NELEM(_hwtap_smca_fp) },
	{ 0x0b0, 0x07, "L3_CACHE (L3 Cache)",
	  _hwtap_smca_l3_cache, _HWTAP_NELEM(_hwtap_smca_l3_cache) },
	{ 0x02e, 0x00, "CS (Coherent Slave)",
	  _hwtap_smca_cs, _HWTAP_NELEM(_hwtap_smca_cs) },
	{ 0x02e, 0x01, "PIE (Power, Interrupts, etc.)",
	  _hwtap_smca_pie, _HWTAP_NELEM(_hwtap_smca_pie) },
	{ 0x02e, 0x02, "CS_V2 (Coherent Slave)",
	  _hwtap_smca_cs_v2, _HWTAP_NELEM(_hwtap_smca_cs_v2) },
	{ 0x02e, 0x04, "MA_LLC (Memory Attached Last Level Cache)",
	  _hwtap_smca_ma_llc, _HWTAP_NELEM(_hwtap_smca_ma_llc) },
	{ 0x096, 0x00, "UMC (Unified Memory Controller)",
	  _hwtap_smca_umc, _HWTAP_NELEM(_hwtap_smca_umc) },
	{ 0x096, 0x01, "UMC_V2 (Unified Memory Controller V2)",
	  _hwtap_smca_umc_v2, _HWTAP_NELEM(_hwtap_smca_umc_v2) },
	{ 0x001, 0x00, "SMU (System Management Unit)",
	  _hwtap_smca_smu, _HWTAP_NELEM(_hwtap_smca_smu) },
	{ 0x001, 0x01, "SMU_V2 (System Management Unit)",
	  _hwtap_smca_smu_v2, _HWTAP_NELEM(_hwtap_smca_smu_v2) },
	{ 0x001, 0x02, "MP5 (Microprocessor 5 Unit)",
	  _hwtap_smca_mp5, _HWTAP_NELEM(_hwtap_smca_mp5) },
	{ 0x001, 0x03, "MPDMA (MPDMA Unit)",
	  _hwtap_smca_mpdma, _HWTAP_NELEM(_hwtap_smca_mpdma) },
	{ 0x005, 0x00, "PB (Parameter Block)",
	  _hwtap_smca_pb, _HWTAP_NELEM(_hwtap_smca_pb) },
	{ 0x018, 0x00, "NBIO (Northbridge IO Unit)",
	  _hwtap_smca_nbio, _HWTAP_NELEM(_hwtap_smca_nbio) },
	{ 0x046, 0x00, "PCIE (PCI Express Unit)",
	  _hwtap_smca_pcie, _HWTAP_NELEM(_hwtap_smca_pcie) },
	{ 0x046, 0x01, "PCIE_V2 (PCI Express Unit)",
	  _hwtap_smca_pcie_v2, _HWTAP_NELEM(_hwtap_smca_pcie_v2) },
	{ 0x050, 0x00, "XGMI_PCS (Ext Global Memory Interconnect PCS Unit)",
	  _hwtap_smca_xgmi_pcs, _HWTAP_NELEM(_hwtap_smca_xgmi_pcs) },
	{ 0x06c, 0x00, "NBIF (NBIF Unit)",
	  _hwtap_smca_nbif_shub, _HWTAP_NELEM(_hwtap_smca_nbif_shub) },
	{ 0x080, 0x00, "SHUB (System Hub Unit)",
	  _hwtap_smca_nbif_shub, _HWTAP_NELEM(_hwtap_smca_nbif_shub) },
	{ 0x0a8, 0x00, "SATA (SATA Unit)",
	  _hwtap_smca_sata, _HWTAP_NELEM(_hwtap_smca_sata) },
	{ 0x0aa, 0x00, "USB (USB Unit)",
	  _hwtap_smca_usb, _HWTAP_NELEM(_hwtap_smca_usb) },
	{ 0x0ff, 0x00, "PSP (Platform Security Processor)",
	  _hwtap_smca_psp, _HWTAP_NELEM(_hwtap_smca_psp) },
	{ 0x0ff, 0x01, "PSP_V2 (Platform Security Processor)",
	  _hwtap_smca_psp_v2, _HWTAP_NELEM(_hwtap_smca_psp_v2) },
	{ 0x170, 0x00, "USR_DP (Ultra Short Reach Data Plane Controller)",
	  _hwtap_smca_usr_dp, _HWTAP_NELEM(_hwtap_smca_usr_dp) },
	{ 0x180, 0x00, "USR_CP (Ultra Short Reach Control Plane Controller)",
	  _hwtap_smca_usr_cp, _HWTAP_NELEM(_hwtap_smca_usr_cp) },
	{ 0x241, 0x00, "GMI_PCS (Global Memory Interconnect PCS Unit)",
	  _hwtap_smca_gmi_pcs, _HWTAP_NELEM(_hwtap_smca_gmi_pcs) },
	{ 0x259, 0x00, "XGMI_PHY (Ext Global Memory Interconnect PHY Unit)",
	  _hwtap_smca_phy, _HWTAP_NELEM(_hwtap_smca_phy) },
	{ 0x267, 0x00, "WAFL_PHY (WAFL PHY Unit)",
	  _hwtap_smca_phy, _HWTAP_NELEM(_hwtap_smca_phy) },
	{ 0x269, 0x00, "GMI_PHY (Global Memory Interconnect PHY Unit)",
	  _hwtap_smca_phy, _HWTAP_NELEM(_hwtap_smca_phy) },
};

/* The tables rasdaemon 0.8.5 puts in place of two banks' on some CPU models (its
 * fixup_hwid()): a Coherent Slave's (CS_V2) on family 19h models 10h-1Fh, 60h-7Bh and
 * A0h-AFh and family 1Ah models 40h-4Fh, whose codes Genoa's revision guide (erratum
 * 1384) reassigns; a memory controller's (UMC) on family 19h models 90h-9Fh (MI300's HBM
 * controllers). */
static const char *const _hwtap_smca_cs_v2_quirk[] = {
	"Illegal Request",
	"Address Violation",
	"Security Violation",
	"Illegal Response",
	"Unexpected Response",
	"Request or Probe Parity Error",
	"Read Response Parity Error",
	"Atomic Request Parity Error",
	"SDP read response had no match in the CS queue",
	"SDP read response had an unexpected RETRY error",
	"Counter overflow error",
	"Counter underflow error",
	"Probe Filter Protocol Error",
	"Probe Filter ECC Error",
	"Illegal Request on the no data channel",
	"Address Violation on the no data channel",
	"Security Violation on the no data channel",
	"Hardware Assert Error",
};

static const char *const _hwtap_smca_umc_quirk[] = {
	"DRAM On Die ECC error",
	"Data poison error",
	"SDP parity error",
	"Reserved",
	"Address/Command parity error",
	"HBM Write data parity error",
	"Consolidated SRAM ECC error",
	"Reserved",
	"Reserved",
	"Rdb SRAM ECC error",
	"Thermal throttling",
	"HBM Read Data Parity error",
	"Reserved",
	"UMC FW Error",
	"SRAM Parity Error",
	"HBM CRC Error",
};

static const struct _hwtap_smca_bank _hwtap_smca_quirks[] = {
	{ 0x02e, 0x02, "CS_V2 (Coherent Slave)",
	  _hwtap_smca_cs_v2_quirk, _HWTAP_NELEM(_hwtap_smca_cs_v2_quirk) },
	{ 0x096, 0x00, "UMC (Unified Memory Controller)",
	  _hwtap_smca_umc_quirk, _HWTAP_NELEM(_hwtap_smca_umc_quirk) },
};

/* Family 19h models 90h-9Fh, whose UMC errors rasdaemon locates by die, not channel. */
static inline int _hwtap_smca_mi300(unsigned int family, unsigned int model)
{
	return family == 0x19 && model >= 0x90 && model <= 0x9f;
}

/* The bank type MCA_IPID names, or NULL (an unknown pair, or no IPID at all). */
static inline const struct _hwtap_smca_bank *_hwtap_smca_find(unsigned long long ipid)
{
	unsigned int hwid = (ipid >> 32) & 0xfff, mcatype = ipid >> 48;
	const struct _hwtap_smca_bank *bank = _hwtap_smca_banks;
	const struct _hwtap_smca_bank *end = bank + _HWTAP_NELEM(_hwtap_smca_banks);

	if (!ipid)
		return NULL;
	for (; bank < end; bank++)
		if (bank->hwid == hwid && bank->mcatype == mcatype)
			return bank;
	return NULL;
}

/* The same on a CPU of FAMILY and MODEL, with rasdaemon's substitutes for its errata. */
static inline const struct _hwtap_smca_bank *
_hwtap_smca_find_cpu(unsigned long long ipid, unsigned int family, unsigned int model)
{
	const struct _hwtap_smca_bank *bank = _hwtap_smca_find(ipid);

	if (bank && bank->hwid == 0x02e && bank->mcatype == 0x02 &&
	    ((family == 0x19 && ((model >= 0x10 && model <= 0x1f) ||
				 (model >= 0x60 && model <= 0x7b) ||
				 (model >= 0xa0 && model <= 0xaf))) ||
	     (family == 0x1a && model >= 0x40 && model <= 0x4f)))
		return &_hwtap_smca_quirks[0];
	if (bank && bank->hwid == 0x096 && bank->mcatype == 0x00 && _hwtap_smca_mi300(family, model))
		return &_hwtap_smca_quirks[1];
	return bank;
}

#endif
