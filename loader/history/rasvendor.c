/* rasvendor.c - rasdaemon 0.8.5's decoders of vendors' non-standard CPER sections, for
 * hwtap-run --ras-db: a non_standard_event whose section type a vendor's decoder knows
 * also gets a row of that vendor's table, with the columns and words rasdaemon writes
 * (its non-standard-*.c), so that `ras-mc-ctl --vendor-errors' reads hwtap's rows as
 * rasdaemon's:
 *
 *   HiSilicon common error section   hisi_common_section_v2
 *   HiSilicon HIP08 OEM type 1, 2    hip08_oem_type1_event_v2, hip08_oem_type2_event_v2
 *   HiSilicon HIP08 PCIe local       hip08_pcie_local_event_v2
 *   Alibaba Yitian 710 DDR           yitian_ddr_reg_dump_event
 *   Nvidia Grace, Vera               nvidia_ns_event, nvidia_vera_ns_event
 *   JaguarMicro Corsica payloads     jm_payload0_event
 *
 * The section's bytes are the firmware's (little-endian, as every machine these come
 * from). Where rasdaemon reads past the section (a register count larger than what
 * follows) or stores what it never wrote (HIP08's register dump when no register is
 * valid), hwtap reads only the section (missing bytes are zeros) and stores "".
 */
#include "rasdb.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- reading the section ---------------------------------------------------------- */

/* The section: its bytes are read as the firmware wrote them, those past its end as 0. */
typedef struct Section {
	const unsigned char *p;
	size_t len;
} Section;

static unsigned u8_at(const Section *s, size_t at)
{
	return at < s->len ? s->p[at] : 0;
}

static unsigned u16_at(const Section *s, size_t at)
{
	return u8_at(s, at) | u8_at(s, at + 1) << 8;
}

static uint32_t u32_at(const Section *s, size_t at)
{
	return u16_at(s, at) | (uint32_t)u16_at(s, at + 2) << 16;
}

static uint64_t u64_at(const Section *s, size_t at)
{
	return u32_at(s, at) | (uint64_t)u32_at(s, at + 4) << 32;
}

/* BUF (SIZE bytes) gets FMT appended as rasdaemon's mce_snprintf() appends: a space
 * before it unless BUF is empty, both cut where BUF ends. */
__attribute__((format(printf, 3, 4)))
static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n + 1 >= size)
		return;
	if (n)
		buf[n++] = ' ', buf[n] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

static const char *hisi_severity(unsigned sev)
{
	static const char *const words[] = {"recoverable", "fatal", "corrected", "none"};
	return sev < 4 ? words[sev] : "unknown";
}

#define NAMES(...) (const char *const[]){__VA_ARGS__, NULL}

/* The name of entry ID of NAMES (NULL-ended), or "unknown". */
static const char *name_of(const char *const *names, unsigned id)
{
	for (unsigned i = 0; names[i]; i++)
		if (i == id)
			return names[i];
	return "unknown";
}

/* A one-byte field at AT whose validation bit is BIT, and its column. */
typedef struct ByteField {
	const char *col;
	int bit, at;
} ByteField;

/* Each of FIELDS (ending with NULL's) that VALID's bits say the section has, as a number. */
static void valid_bytes(const Section *s, uint64_t valid, const ByteField *fields, Row *row)
{
	for (; fields->col; fields++)
		if (valid & 1ull << fields->bit)
			set_num(row, fields->col, u8_at(s, fields->at));
}

/* ---- HiSilicon's common error section (non-standard-hisilicon.c) ------------------ */

static void hisi_common(const Section *s, Row *row)
{
	static const char *const modules[] = {
		"MN", "PLL", "SLLC", "AA", "SIOE", "POE", "CPA", "DISP", "GIC", "ITS", "AVSBUS",
		"CS", "PPU", "SMMU", "PA", "HLLC", "DDRC", "L3TAG", "L3DATA", "PCS", "HHA",
		"PCIe Local", "SAS", "SATA", "NIC", "RoCE", "USB", "ZIP", "HPRE", "SEC", "RDE",
		"MEE", "L4D", "Tsensor", "ROH", "BTC", "HILINK", "STARS", "SDMA", "UC", "HBMC",
		"PMC", "SCHE", "ASMB_DFS", "ASMB_NTU", "UB", "UMMU", "PCU", "UCMI", "DJTAGM",
		"CFGBUS", "MPU", "CRG", NULL};
	static const ByteField ids[] = {
		{"soc_id", 0, 5}, {"socket_id", 1, 6}, {"totem_id", 2, 7}, {"nimbus_id", 3, 8},
		{"sub_system_id", 4, 9}, {"sub_module_id", 6, 11}, {"core_id", 7, 12},
		{"port_id", 8, 13}, {NULL, 0, 0}};
	uint32_t valid = u32_at(s, 0);
	char text[64], regs[2048] = "";

	row->table = T_HISI_COMMON;
	set_num(row, "version", u8_at(s, 4));
	valid_bytes(s, valid, ids, row);
	if (valid & 1u << 5)
		set_text(row, "module_id", name_of(modules, u8_at(s, 10)));
	if (valid & 1u << 9)
		set_num(row, "err_type", u16_at(s, 14));
	if (valid & 1u << 10) {
		snprintf(text, sizeof(text), "%04x:%02x:%02x.%x", u16_at(s, 18), u8_at(s, 20),
			 u8_at(s, 17), u8_at(s, 16));
		set_text(row, "pcie_info", text);
	}
	if (valid & 1u << 11)
		set_text(row, "err_severity", hisi_severity(u8_at(s, 24)));
	uint32_t size = u32_at(s, 28);
	if (valid & 1u << 12 && size > 0)
		for (uint32_t i = 0; i < size / 4 && 36 + 4 * (size_t)i <= s->len; i++)
			append(regs, sizeof(regs), "reg%02u=0x%08x", i, u32_at(s, 32 + 4 * i));
	set_text(row, "regs_dump", regs);
}

/* ---- HiSilicon HIP08 (non-standard-hisi_hip08.c) ---------------------------------- */

typedef struct Module {
	unsigned id;
	const char *name;
	const char *const *sub;         /* its sub-modules' names by number, or NULL */
} Module;

static const Module hip08_type1[] = {
	{0, "MN", NULL},
	{1, "PLL", NAMES("TB_PLL0", "TB_PLL1", "TB_PLL2", "TB_PLL3", "TA_PLL0", "TA_PLL1",
			 "TA_PLL2", "TA_PLL3", "NIMBUS_PLL0", "NIMBUS_PLL1", "NIMBUS_PLL2",
			 "NIMBUS_PLL3", "NIMBUS_PLL4")},
	{2, "SLLC", NAMES("TB_SLLC0", "TB_SLLC1", "TB_SLLC2", "TA_SLLC0", "TA_SLLC1",
			  "TA_SLLC2", "NIMBUS_SLLC0", "NIMBUS_SLLC1")},
	{3, "AA", NULL},
	{4, "SIOE", NAMES("TB_SIOE0", "TB_SIOE1", "TB_SIOE2", "TB_SIOE3", "TA_SIOE0",
			  "TA_SIOE1", "TA_SIOE2", "TA_SIOE3", "NIMBUS_SIOE0", "NIMBUS_SIOE1")},
	{5, "POE", NAMES("TB_POE", "TA_POE")},
	{8, "DISP", NAMES("TB_PERI_DISP", "TB_POE_DISP", "TB_GIC_DISP", "TA_PERI_DISP",
			  "TA_POE_DISP", "TA_GIC_DISP", "HAC_DISP", "PCIE_DISP", "IO_MGMT_DISP",
			  "NETWORK_DISP")},
	{9, "LPC", NULL},
	{13, "GIC", NULL},
	{14, "RDE", NULL},
	{15, "SAS", NAMES("SAS0", "SAS1")},
	{16, "SATA", NULL},
	{17, "USB", NULL},
	{0, NULL, NULL},
};

static const Module hip08_type2[] = {
	{0, "SMMU", NAMES("HAC_SMMU", "PCIE_SMMU", "MGMT_SMMU", "NIC_SMMU")},
	{1, "HHA", NAMES("TB_HHA0", "TB_HHA1", "TA_HHA0", "TA_HHA1")},
	{2, "PA", NULL},
	{3, "HLLC", NAMES("HLLC0", "HLLC1", "HLLC2")},
	{4, "DDRC", NAMES("TB_DDRC0", "TB_DDRC1", "TB_DDRC2", "TB_DDRC3", "TA_DDRC0",
			  "TA_DDRC1", "TA_DDRC2", "TA_DDRC3")},
	{5, "L3TAG", NAMES("TB_PARTITION0", "TB_PARTITION1", "TB_PARTITION2",
			   "TB_PARTITION3", "TB_PARTITION4", "TB_PARTITION5", "TB_PARTITION6",
			   "TB_PARTITION7", "TA_PARTITION0", "TA_PARTITION1", "TA_PARTITION2",
			   "TA_PARTITION3", "TA_PARTITION4", "TA_PARTITION5", "TA_PARTITION6",
			   "TA_PARTITION7")},
	{6, "L3DATA", NAMES("TB_BANK0", "TB_BANK1", "TB_BANK2", "TB_BANK3", "TA_BANK0",
			    "TA_BANK1", "TA_BANK2", "TA_BANK3")},
	{0, NULL, NULL},
};

static const Module *module_of(const Module *table, unsigned id)
{
	for (; table->name; table++)
		if (table->id == id)
			return table;
	return NULL;
}

/* The header both OEM types share: val_bits (32 bits), version, SoC, socket, nimbus,
 * module, sub-module and severity bytes. */
static void hip08_oem_header(const Section *s, const Module *modules, Row *row)
{
	uint32_t valid = u32_at(s, 0);
	const Module *m = module_of(modules, u8_at(s, 8));
	unsigned sub = u8_at(s, 9);

	static const ByteField ids[] = {
		{"soc_id", 0, 5}, {"socket_id", 1, 6}, {"nimbus_id", 2, 7}, {NULL, 0, 0}};

	set_num(row, "version", u8_at(s, 4));
	valid_bytes(s, valid, ids, row);
	if (valid & 1u << 3)
		set_text(row, "module_id", m ? m->name : "unknown");
	if (valid & 1u << 4)
		set_text(row, "sub_module_id", !m ? "unknown" : !m->sub ? m->name :
			 name_of(m->sub, sub));
	if (valid & 1u << 5)
		set_text(row, "err_severity", hisi_severity(u8_at(s, 10)));
}

/* The registers REGS names, from offset AT of the section, 4 bytes each; a register is
 * there where val_bits' bit FIRST + its group is (a group is one name, or two that share
 * a bit): "NAME=0x..." joined by spaces. */
static void hip08_regs(const Section *s, uint64_t valid, Row *row)
{
	char dump[1024] = "";
	size_t n = 0;

	if (row->table == T_HIP08_TYPE1) {
		for (int i = 0; i < 5; i++)
			if (valid & 1u << (6 + i))
				n += snprintf(dump + n, sizeof(dump) - n, "ERR_MISC%d=0x%x ", i,
					      u32_at(s, 12 + 4 * i));
		if (valid & 1u << 11)
			n += snprintf(dump + n, sizeof(dump) - n, "ERR_ADDR=0x%llx ",
				      (unsigned long long)u64_at(s, 32));
	} else if (row->table == T_HIP08_TYPE2) {
		static const char *const pairs[] = {"ERR_FR", "ERR_CTRL", "ERR_STATUS",
						    "ERR_ADDR", "ERR_MISC0", "ERR_MISC1"};
		for (int i = 0; i < 6; i++)
			if (valid & 1u << (6 + i))
				n += snprintf(dump + n, sizeof(dump) - n, "%s_0=0x%x %s_1=0x%x ",
					      pairs[i], u32_at(s, 12 + 8 * i), pairs[i],
					      u32_at(s, 16 + 8 * i));
	} else {
		for (int i = 0; i < 33; i++)
			if (valid & 1ull << (9 + i))
				n += snprintf(dump + n, sizeof(dump) - n, "ERR_MISC_%d=0x%x ", i,
					      u32_at(s, 20 + 4 * i));
	}
	if (n)
		dump[n - 1] = '\0';     /* the last space */
	set_text(row, "regs_dump", dump);
}

static bool hip08_oem(const Section *s, int table, Row *row)
{
	if (!u32_at(s, 0))
		return false;           /* rasdaemon: "no valid error information" */
	row->table = table;
	hip08_oem_header(s, table == T_HIP08_TYPE1 ? hip08_type1 : hip08_type2, row);
	hip08_regs(s, u32_at(s, 0), row);
	return true;
}

static bool hip08_pcie_local(const Section *s, Row *row)
{
	static const char *const layers[] = {"AP_Layer", "TL_Layer", "MAC_Layer",
					     "DL_Layer", "SDI_Layer", NULL};
	static const ByteField ids[] = {
		{"soc_id", 1, 9}, {"socket_id", 2, 10}, {"nimbus_id", 3, 11}, {"core_id", 5, 13},
		{"port_id", 6, 14}, {NULL, 0, 0}};
	uint64_t valid = u64_at(s, 0);

	if (!valid)
		return false;
	row->table = T_HIP08_PCIE_LOCAL;
	set_num(row, "version", u8_at(s, 8));
	valid_bytes(s, valid, ids, row);
	if (valid & 1u << 4)
		set_text(row, "sub_module_id", name_of(layers, u8_at(s, 12)));
	if (valid & 1u << 8)
		set_text(row, "err_severity", hisi_severity(u8_at(s, 15)));
	if (valid & 1u << 7)
		set_num(row, "err_type", u16_at(s, 16));
	hip08_regs(s, valid, row);
	return true;
}

/* ---- Alibaba Yitian 710 (non-standard-yitian.c) ----------------------------------- */

static bool yitian(const Section *s, Row *row)
{
	static const char *const regs[] = {
		"ECCCFG0", "ECCCFG1", "ECCSTAT", "ECCERRCNT", "ECCCADDR0", "ECCCADDR1",
		"ECCCSYN0", "ECCCSYN1", "ECCCSYN2", "ECCUADDR0", "ECCUADDR1", "ECCUSYN0",
		"ECCUSYN1", "ECCUSYN2", "ECCBITMASK0", "ECCBITMASK1", "ECCBITMASK2",
		"ADVECCSTAT", "ECCAPSTAT", "ECCCDATA0", "ECCCDATA1", "ECCUDATA0", "ECCUDATA1",
		"ECCSYMBOL", "ECCERRCNTCTL", "ECCERRCNTSTAT", "ECCERRCNT0", "ECCERRCNT1",
		"RESERVED0", "RESERVED1", "RESERVED2"};
	char dump[1024];
	size_t n;

	if (u8_at(s, 0) != 0x50)        /* a DDR payload: the only kind it decodes */
		return false;
	row->table = T_YITIAN_DDR;
	/* the sub-type of a kind without sub-types is the kind's name */
	n = snprintf(dump, sizeof(dump), " Error Type: DDR, Error SubType: DDR, Error "
		     "Instance: 0x%x,", u16_at(s, 2));
	for (int i = 0; i < 31; i++)
		n += snprintf(dump + n, sizeof(dump) - n, " %s: 0x%x ", regs[i],
			      u32_at(s, 4 + 4 * i));
	dump[n - 1] = '\0';
	set_num(row, "address", 0);
	set_text(row, "regs_dump", dump);
	return true;
}

/* ---- Nvidia Grace and Vera (non-standard-nvidia.c) --------------------------------- */

static bool nvidia_grace(const Section *s, Row *row)
{
	if (s->len < 32)
		return false;           /* rasdaemon: "section too small" */
	row->table = T_NVIDIA_GRACE;
	set_text_bytes(row, "signature", (const char *)s->p, 16);
	set_num(row, "error_type", u16_at(s, 16));
	set_num(row, "error_instance", u16_at(s, 18));
	set_num(row, "severity", u8_at(s, 20));
	set_num(row, "socket", u8_at(s, 21));
	set_num(row, "number_regs", u8_at(s, 22));
	set_num(row, "instance_base", (long long)u64_at(s, 24));
	if (s->len > 32)
		set_blob(row, "reg_data", s->p + 32, s->len - 32);
	set_blob(row, "raw_data", s->p, s->len);
	return true;
}

/* A Vera section as rasdaemon accepts it: version 1, a CPU source, the CPU information
 * and each of at most 16 context records whole, each one's data a whole number of its
 * format's entries (0 raw, 1 pairs of 64 bits, 2 pairs of 32, 3 values of 64, 4 of 32). */
static bool nvidia_vera_whole(const Section *s)
{
	static const unsigned entry[5] = {1, 16, 8, 8, 4};
	size_t at, info;

	if (s->len < 64 || u8_at(s, 0) != 1 || u8_at(s, 2) != 0)
		return false;
	info = u8_at(s, 34);
	if (info < 32 || s->len - 32 < info || u8_at(s, 1) > 16)
		return false;
	at = 32 + info;
	for (unsigned i = 0; i < u8_at(s, 1); i++) {
		if (s->len - at < 16)
			return false;
		uint32_t size = u32_at(s, at), data = u32_at(s, at + 12);
		unsigned format = u16_at(s, at + 8);
		size_t advance;
		if (size < 16 || format > 4 || (uint64_t)16 + data > s->len - at)
			return false;
		if (size == 16)
			advance = 16 + (size_t)data;
		else if (data <= size - 16)
			advance = size;
		else
			return false;
		if (advance > s->len - at || data % entry[format])
			return false;
		at += advance;
	}
	return true;
}

static bool nvidia_vera(const Section *s, Row *row)
{
	if (!nvidia_vera_whole(s))
		return false;
	row->table = T_NVIDIA_VERA;
	set_text_bytes(row, "signature", (const char *)s->p + 16, 16);
	set_num(row, "event_type", u16_at(s, 4));
	set_num(row, "event_sub_type", u16_at(s, 6));
	set_num(row, "event_link_id", (long long)u64_at(s, 8));
	set_num(row, "source_device_type", u8_at(s, 2));
	set_num(row, "event_context_count", u8_at(s, 1));
	set_num(row, "socket", u8_at(s, 35));
	set_num(row, "architecture", u32_at(s, 36));
	set_blob(row, "chip_serial_number", s->p + 40, 16);
	set_num(row, "instance_base", (long long)u64_at(s, 56));
	set_blob(row, "raw_data", s->p, s->len);
	return true;
}

/* ---- JaguarMicro Corsica (non-standard-jaguarmicro.c) ----------------------------- */

/* The modules of each subsystem (by number): AP, CMN, DDRH, DDRV, GIC, IOSUB, SCP, MCP,
 * IMU0, DPE, RPE, PSUB, HAC, TCM, IMU1. */
static const char *const *const jm_modules[15] = {
	NAMES("CORE"),
	NAMES("MXP", "HNI", "HNF", "SBSX", "CCG", "HND"),
	NAMES("DDRCtrl", "DDRPHY", "SRAM"),
	NAMES("DDRCtrl", "DDRPHY", "SRAM"),
	NAMES("GICIP", "GICSRAM"),
	NAMES("SMMU", "NIC450", "OTHER"),
	NAMES("SRAM", "WDT", "PLL"),
	NAMES("SRAM", "WDT"),
	NAMES("SRAM", "WDT"),
	NAMES("EPG", "PIPE", "EMEP", "IMEP", "EPAE", "IPAE", "ETH", "TPG", "MIG", "HIG",
	      "DPETOP", "SMMU"),
	NAMES("TOP", "TXP_RXP", "SMMU"),
	NAMES("PCIE0", "UP_MIX", "PCIE1", "PTOP", "N2IF", "VPE0_RAS", "VPE1_RAS", "X2RC_SMMU",
	      "X16RC_SMMU", "SDMA_SMMU"),
	NAMES("SRAM", "SMMU"),
	NAMES("SRAM", "SMMU", "IP"),
	NAMES("SRAM", "WDT"),
};

static const char *const *const jm_smmu = NAMES("TCU", "TBU");

/* A module's sub-modules: IOSUB's SMMU and OTHER, the SMMUs of DPE, RPE, PSUB and TCM,
 * PSUB's PCIE0; none for the rest. */
static const char *jm_submodule(unsigned subsys, unsigned module, unsigned sub)
{
	const char *const *names = subsys == 5 && module == 0 ? NAMES("TBU", "TCU") :
				   subsys == 5 && module == 2 ? NAMES("RAM") :
				   (subsys == 9 && module == 11) || (subsys == 10 && module == 2) ||
				   (subsys == 11 && module >= 7 && module <= 9) ||
				   (subsys == 13 && module == 1) ? jm_smmu :
				   subsys == 11 && module == 0 ? NAMES("RAS0", "RAS1") : NULL;
	return names ? name_of(names, sub) : "unknown";
}

/* each payload type's registers: their names, size, and where the tail is */
static const struct { const char *const *regs; int size; } jm_types[7] = {
	[0] = {NAMES("LOCK_CONTROL", "LOCK_FUNCTION", "CFG_RAM_ID", "ERR_FR_LOW32",
		     "ERR_FR_HIGH32", "ERR_CTLR_LOW32", "ECC_STATUS_LOW32", "ECC_ADDR_LOW32",
		     "ECC_ADDR_HIGH32", "ECC_MISC0_LOW32", "ECC_MISC0_HIGH32",
		     "ECC_MISC1_LOW32", "ECC_MISC1_HIGH32", "ECC_MISC2_LOW32",
		     "ECC_MISC2_HIGH32"), 4},
	[1] = {NAMES("CSR_INT_STATUS", "ERR_FR", "ERR_CTLR", "ERR_STATUS", "ERR_GEN"), 4},
	[2] = {NAMES("ECC_1BIT_INFO_LOW32", "ECC_1BIT_INFO_HIGH32", "ECC_2BIT_INFO_LOW32",
		     "ECC_2BIT_INFO_HIGH32"), 4},
	[5] = {NAMES("CFGM_MXP_0", "CFGM_HNF_0", "CFGM_HNI_0", "CFGM_SBSX_0", "ERR_FR_NS",
		     "ERR_CTLRR_NS", "ERR_STATUSR_NS", "ERR_ADDRR_NS", "ERR_MISCR_NS",
		     "ERR_FR", "ERR_CTLR", "ERR_STATUS", "ERR_ADDR", "ERR_MISC"), 8},
	[6] = {NAMES("RECORD_ID", "GICT_ERR_FR", "GICT_ERR_CTLR", "GICT_ERR_STATUS",
		     "GICT_ERR_ADDR", "GICT_ERR_MISC0", "GICT_ERR_MISC1", "GICT_ERRGSR"), 8},
};

static const char *const *const jm_subsystems = NAMES("AP", "CMN", "DDRH", "DDRV", "GIC",
	"IOSUB", "SCP", "MCP", "IMU0", "DPE", "RPE", "PSUB", "HAC", "TCM", "IMU1");

static bool jaguarmicro(const Section *s, int payload, Row *row)
{
	static const char *const devices[15] = {"CORE", "NID", "CHNL", "CHNL"};
	uint32_t valid = u32_at(s, 0);
	unsigned subsys = u8_at(s, 6), module = u8_at(s, 7), sub = u8_at(s, 8);
	char regs[2048] = "";
	size_t at = 16;

	row->table = T_JAGUARMICRO;
	/* rasdaemon writes the version where the SoC is valid, and the sub-module's number
	 * in module_id (its own column stays NULL) */
	if (valid & 1u << 1) {
		set_num(row, "version", u8_at(s, 4));
		set_num(row, "soc_id", u8_at(s, 5));
	}
	if (valid & 1u << 2)
		set_text(row, "subsystem", name_of(jm_subsystems, subsys));
	if (valid & 1u << 3) {
		set_text(row, "module", subsys < 15 ? name_of(jm_modules[subsys], module) :
			 "unknown");
		set_num(row, "module_id", module);
	}
	if (valid & 1u << 4) {
		set_text(row, "sub_module", jm_submodule(subsys, module, sub));
		set_num(row, "module_id", sub);
	}
	if (valid & 1u << 5) {
		set_text(row, "dev", subsys < 4 ? devices[subsys] : "DEV");
		set_num(row, "dev_id", u8_at(s, 9));
	}
	if (valid & 1u << 6)
		set_num(row, "err_type", u16_at(s, 10));
	if (valid & 1u << 7)
		set_text(row, "err_severity", hisi_severity(u8_at(s, 12)));
	append(regs, sizeof(regs), "[");
	for (int i = 0; jm_types[payload].regs[i]; i++, at += jm_types[payload].size) {
		append(regs, sizeof(regs), "%s:", jm_types[payload].regs[i]);
		if (jm_types[payload].size == 8)
			append(regs, sizeof(regs), "0x%llx", (unsigned long long)u64_at(s, at));
		else
			append(regs, sizeof(regs), "0x%x", u32_at(s, at));
	}
	append(regs, sizeof(regs), "]");
	uint32_t count = u32_at(s, at);
	if (valid & 1u << 11 && count > 0) {
		append(regs, sizeof(regs), "Extended Register Dump:");
		append(regs, sizeof(regs), "[");
		for (uint32_t i = 0; i < count && at + 8 + 4 * (size_t)i <= s->len; i++)
			append(regs, sizeof(regs), "reg%02d=0x%08x", (int)i,
			       u32_at(s, at + 4 + 4 * i));
		append(regs, sizeof(regs), "]");
	}
	set_text(row, "regs_dump", regs);
	return true;
}

/* ---- by section type -------------------------------------------------------------- */

bool vendor_row(const unsigned char sec_type[16], const unsigned char *p, size_t len,
		Row *row)
{
	/* each type as the kernel stores a guid_t: the first three fields little-endian */
	static const struct { unsigned char guid[16]; int kind; } types[] = {
		{{0xa8, 0x28, 0xb3, 0xc8, 0x17, 0x99, 0xf6, 0x4a, 0x9a, 0x13, 0x2e, 0x08, 0xab,
		  0x2e, 0x75, 0x86}, T_HISI_COMMON},
		{{0xe1, 0x61, 0x81, 0x1f, 0xd6, 0x55, 0xe6, 0x41, 0xbd, 0x10, 0x7a, 0xfd, 0x1d,
		  0xc5, 0xf7, 0xc5}, T_HIP08_TYPE1},
		{{0xa6, 0x4e, 0x53, 0x45, 0x23, 0xce, 0x15, 0x41, 0x85, 0x35, 0xe0, 0x7a, 0xb3,
		  0xae, 0xf9, 0x1d}, T_HIP08_TYPE2},
		{{0xc9, 0x9f, 0x88, 0xb2, 0xd7, 0xe7, 0x9d, 0x4f, 0xa8, 0x67, 0xaf, 0x42, 0xe9,
		  0x8b, 0xe7, 0x72}, T_HIP08_PCIE_LOCAL},
		{{0x11, 0x08, 0x98, 0xa6, 0xea, 0x16, 0x4d, 0x4e, 0xb9, 0x36, 0xfb, 0x00, 0xa2,
		  0x3f, 0xf2, 0x9c}, T_YITIAN_DDR},
		/* JaguarMicro's payload types 0, 1, 2, 5, 6 */
		{{0xa3, 0x8b, 0xd7, 0x82, 0x14, 0xfa, 0x7a, 0x40, 0xba, 0x0e, 0xf3, 0xba, 0x81,
		  0x70, 0x01, 0x3c}, T_JAGUARMICRO + 0 * 16},
		{{0x53, 0x30, 0x72, 0xf9, 0x58, 0x25, 0xb1, 0x49, 0xb5, 0x8a, 0x1c, 0x1a, 0x82,
		  0x49, 0x2a, 0x62}, T_JAGUARMICRO + 1 * 16},
		{{0x54, 0xde, 0x31, 0x2d, 0x37, 0x30, 0x24, 0x4f, 0xa2, 0x83, 0xf6, 0x9c, 0xa1,
		  0xec, 0x0b, 0x9a}, T_JAGUARMICRO + 2 * 16},
		{{0x69, 0x0d, 0xc8, 0xda, 0x72, 0x0a, 0xba, 0x4e, 0x81, 0x14, 0x14, 0x8e, 0xe3,
		  0x44, 0xaf, 0x06}, T_JAGUARMICRO + 5 * 16},
		{{0xfe, 0x06, 0x6f, 0x74, 0x5e, 0x40, 0x1f, 0x45, 0x8d, 0x09, 0x02, 0xe8, 0x02,
		  0xed, 0x98, 0x4a}, T_JAGUARMICRO + 6 * 16},
		{{0xf2, 0x44, 0x52, 0x6d, 0x12, 0x27, 0xec, 0x11, 0xbe, 0xa7, 0xcb, 0x3f, 0xdb,
		  0x95, 0xc7, 0x86}, T_NVIDIA_GRACE},
		{{0x68, 0xe5, 0x68, 0x90, 0xa0, 0x6c, 0xf0, 0x11, 0xae, 0xaf, 0x15, 0x93, 0x43,
		  0x59, 0x1e, 0xac}, T_NVIDIA_VERA},
	};
	Section s = {p, len};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (memcmp(types[i].guid, sec_type, 16))
			continue;
		switch (types[i].kind) {
		case T_HISI_COMMON:
			hisi_common(&s, row);
			return true;
		case T_HIP08_TYPE1:
		case T_HIP08_TYPE2:
			return hip08_oem(&s, types[i].kind, row);
		case T_HIP08_PCIE_LOCAL:
			return hip08_pcie_local(&s, row);
		case T_NVIDIA_GRACE:
			return nvidia_grace(&s, row);
		case T_NVIDIA_VERA:
			return nvidia_vera(&s, row);
		case T_JAGUARMICRO + 0 * 16:
		case T_JAGUARMICRO + 1 * 16:
		case T_JAGUARMICRO + 2 * 16:
		case T_JAGUARMICRO + 5 * 16:
		case T_JAGUARMICRO + 6 * 16:
			return jaguarmicro(&s, (types[i].kind - T_JAGUARMICRO) / 16, row);
		default:
			return yitian(&s, row);
		}
	}
	return false;
}
