/* probe_ras.c - RAS probes: the kernel's hardware-error event sources.
 *
 *   ras.mce              a machine-check record (struct mce), decoded by tapset/ras
 *   ras.memory_failure   a page taken out of service (ras:memory_failure_event)
 *   ras.aer              a PCIe Advanced Error Reporting event (ras:aer_event)
 *   ras.mc_event         an EDAC memory-controller error (ras:mc_event)
 *   ras.arm              an ARM processor error (ras:arm_event)
 *   ras.non_standard     a CPER record of an unknown section type
 *   ras.extlog_mem       an extended-log memory error (ras:extlog_mem_event)
 *
 * The context variables are the fields of each event, as $name. Their code comes with
 * the RAS probes' own issue; this file fixes the names and what each one carries.
 */
#include "hwtap.h"

static const PointShape ras_shapes[] = {
	{"ras.mce", "status:long misc:long addr:long mcgstatus:long mcgcap:long ip:long "
		    "tsc:long time:long cpuvendor:long cpuid:long apicid:long socketid:long "
		    "cs:long bank:long cpu:long synd:long ipid:long ppin:long microcode:long "
		    "severity:long"},
	{"ras.memory_failure", "pfn:long type:long result:long"},
	{"ras.aer", "dev_name:string status:long severity:long tlp_header_valid:long"},
	{"ras.mc_event", "error_type:long error_msg:string label:string error_count:long "
			 "mc_index:long top_layer:long middle_layer:long lower_layer:long "
			 "address:long grain_bits:long syndrome:long driver_detail:string"},
	{"ras.arm", "affinity:long mpidr:long midr:long running_state:long psci_state:long"},
	{"ras.non_standard", "sec_type:string fru_id:string fru_text:string severity:long "
			     "len:long"},
	{"ras.extlog_mem", "error_seq:long etype:long severity:long pa:long pa_mask_lsb:long "
			   "fru_id:string fru_text:string"},
	{NULL},
};

const ProbeFamily ras_family = {.name = "ras", .shapes = ras_shapes};
