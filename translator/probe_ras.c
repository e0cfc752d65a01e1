/* probe_ras.c - RAS probes: the kernel's hardware-error event sources.
 *
 *   ras.mce              a machine-check record (struct mce), decoded by tapset/ras.stp
 *   ras.memory_failure   a page taken out of service (ras:memory_failure_event)
 *   ras.aer              a PCIe Advanced Error Reporting event (ras:aer_event)
 *   ras.mc_event         an EDAC memory-controller error (ras:mc_event)
 *   ras.arm              an ARM processor error (ras:arm_event)
 *   ras.non_standard     a CPER record of an unknown section type
 *   ras.extlog_mem       an extended-log memory error (ras:extlog_mem_event)
 *
 * Each is a kernel tracepoint, found by name when the module starts (runtime/ras.c). Its
 * context variables are the event's fields, as $name: pass 3 writes a tracepoint callback
 * with the tracepoint's arguments that copies them, in the order listed, into a record
 * (longs and strings apart) that the probe's handler reads. The C expressions below are
 * what the kernel's own trace events record for each field (include/ras/ras_event.h,
 * include/trace/events/mce.h), so a value here is the one `perf trace' would show.
 */
#include "hwtap.h"

#include <string.h>

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

/* The sources in the order of ras_shapes; each field's C expression in the order of its
 * shape's context variables. */
static const RasSource ras_sources[] = {
	{"ras.mce", "mce_record", "CONFIG_X86_MCE", "asm/mce.h", "struct mce *m",
	 {"m->status", "m->misc", "m->addr", "m->mcgstatus", "m->mcgcap", "m->ip", "m->tsc",
	  "m->time", "m->cpuvendor", "m->cpuid", "m->apicid", "m->socketid", "m->cs",
	  "m->bank", "m->extcpu", "m->synd", "m->ipid", "m->ppin", "m->microcode",
	  "m->severity"}},
	{"ras.memory_failure", "memory_failure_event", "CONFIG_MEMORY_FAILURE", NULL,
	 "unsigned long pfn, int type, int result", {"pfn", "type", "result"}},
	{"ras.aer", "aer_event", "CONFIG_PCIEAER", NULL,
	 "const char *dev_name, const u32 status, const u8 severity, "
	 "const u8 tlp_header_valid, void *tlp",
	 {"dev_name", "status", "severity", "tlp_header_valid"}},
	{"ras.mc_event", "mc_event", "CONFIG_RAS", NULL,
	 "const unsigned int err_type, const char *error_msg, const char *label, "
	 "const int error_count, const u8 mc_index, const s8 top_layer, const s8 mid_layer, "
	 "const s8 low_layer, unsigned long address, const u8 grain_bits, "
	 "unsigned long syndrome, const char *driver_detail",
	 {"err_type", "error_msg", "label", "error_count", "mc_index", "top_layer",
	  "mid_layer", "low_layer", "address", "grain_bits", "syndrome",
	  "driver_detail"}},
	{"ras.arm", "arm_event", "CONFIG_RAS", "linux/cper.h",
	 "const struct cper_sec_proc_arm *proc",
	 {"proc->validation_bits & CPER_ARM_VALID_AFFINITY_LEVEL ? proc->affinity_level : 0xff",
	  "proc->validation_bits & CPER_ARM_VALID_MPIDR ? proc->mpidr : 0ULL", "proc->midr",
	  "proc->validation_bits & CPER_ARM_VALID_RUNNING_STATE ? proc->running_state : 0",
	  "proc->validation_bits & CPER_ARM_VALID_RUNNING_STATE ? proc->psci_state : 0"}},
	{"ras.non_standard", "non_standard_event", "CONFIG_RAS", "linux/uuid.h",
	 "const guid_t *sec_type, const guid_t *fru_id, const char *fru_text, const u8 sev, "
	 "const u8 *err, const u32 len",
	 {"guid:sec_type", "guid:fru_id", "fru_text", "sev", "len"}},
	{"ras.extlog_mem", "extlog_mem_event", "CONFIG_RAS", "linux/cper.h",
	 "struct cper_sec_mem_err *mem, u32 err_seq, const guid_t *fru_id, "
	 "const char *fru_text, u8 sev",
	 {"err_seq",
	  "mem->validation_bits & CPER_MEM_VALID_ERROR_TYPE ? mem->error_type : 0xff", "sev",
	  "mem->validation_bits & CPER_MEM_VALID_PA ? mem->physical_addr : ~0ULL",
	  "mem->validation_bits & CPER_MEM_VALID_PA_MASK ? "
	  "__ffs64(mem->physical_addr_mask) : 0xff",
	  "guid:fru_id", "fru_text"}},
	{NULL},
};

const RasSource *ras_source(const PointShape *shape)
{
	for (const RasSource *r = ras_sources; r->point; r++)
		if (!strcmp(r->point, shape->pattern))
			return r;
	return NULL;
}

const ProbeFamily ras_family = {.name = "ras", .shapes = ras_shapes, .decided_at_load = true};
