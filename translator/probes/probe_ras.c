/* probe_ras.c - RAS probes: the kernel's hardware-error event sources.
 *
 *   ras.mce              a machine-check record (struct mce), decoded by tapset/ras.stp
 *   ras.memory_failure   a page taken out of service (ras:memory_failure_event)
 *   ras.aer              a PCIe Advanced Error Reporting event (ras:aer_event)
 *   ras.mc_event         an EDAC memory-controller error (ras:mc_event)
 *   ras.arm              an ARM processor error (ras:arm_event)
 *   ras.non_standard     a CPER record of an unknown section type
 *   ras.extlog_mem       an extended-log memory error (ras:extlog_mem_event)
 *   ras.disk_error       a block device's failed request (block:block_rq_error)
 *   ras.signal           a SIGBUS for a memory error (signal:signal_generate, filtered)
 *   ras.devlink_health   a device's health report (devlink:devlink_health_report)
 *
 * The last three are sources rasdaemon consumes beside the hardware's own, with the
 * fields it records.
 *
 * Each is a kernel tracepoint, found by name when the module starts (runtime/probes/ras.c). Its
 * context variables are the event's fields, as $name: pass 3 writes a tracepoint callback
 * with the tracepoint's arguments that copies them, in the order listed, into a record
 * (longs and strings apart) that the probe's handler reads. The C expressions below are
 * what the kernel's own trace events record for each field (include/ras/ras_event.h,
 * include/trace/events/mce.h), so a value here is the one `perf trace' would show.
 *
 * SystemTap's own spelling of the same tracepoints, kernel.trace("mce:mce_record") and
 * kernel.trace("ras:*_event"), runs through the same machinery: there the context
 * variables are the tracepoint's arguments by their names, as stap has them ($pfn,
 * $type), a pointer being its value, and struct mce's members are read as $m->status.
 * The record copies them all when the event fires, so the handler (which runs later, in
 * process context) sees the values the event had; `$m->x' is the only member access.
 */
#include "hwtap.h"

#include <stdlib.h>
#include <string.h>

static const PointShape ras_shapes[] = {
	{"ras.mce", "status:long misc:long addr:long mcgstatus:long mcgcap:long ip:long "
		    "tsc:long time:long cpuvendor:long cpuid:long apicid:long socketid:long "
		    "cs:long bank:long cpu:long synd:long ipid:long ppin:long microcode:long "
		    "severity:long"},
	{"ras.memory_failure", "pfn:long type:long result:long"},
	{"ras.aer", "dev_name:string status:long severity:long tlp_header_valid:long "
		    "tlp_header:string"},
	{"ras.mc_event", "error_type:long error_msg:string label:string error_count:long "
			 "mc_index:long top_layer:long middle_layer:long lower_layer:long "
			 "address:long grain_bits:long syndrome:long driver_detail:string"},
	{"ras.arm", "affinity:long mpidr:long midr:long running_state:long psci_state:long "
		    "error_count:long types:long flags:long error_info:long "
		    "virt_fault_addr:long phy_fault_addr:long pei_len:long ctx_len:long "
		    "oem_len:long pei_err:long ctx_err:long oem:long severity:long cpu:long"},
	{"ras.non_standard", "sec_type:string fru_id:string fru_text:string severity:long "
			     "len:long err:long"},
	{"ras.extlog_mem", "error_seq:long etype:long severity:long pa:long pa_mask_lsb:long "
			   "fru_id:string fru_text:string mem:long"},
	{"ras.disk_error", "dev:long major:long minor:long disk:string sector:long "
			   "nr_sector:long error:long rwbs:string"},
	{"ras.signal", "sig:long errno:long code:long comm:string pid:long group:long "
		       "result:long"},
	{"ras.devlink_health", "bus_name:string dev_name:string driver_name:string "
			       "reporter_name:string msg:string"},
	{NULL},
};

/* Each tracepoint: its name, the kernel option without which it is missing, the header
 * its arguments' types need, and its arguments as C parameters (6.1's; 6.12 added
 * arguments at the end of arm_event's, which runtime/decoders/ras_arm.h's HWTAP_ARM_EVENT_MORE
 * declares where the kernel passes them). */
#define TP_MCE_RECORD "mce_record", "CONFIG_X86_MCE", "asm/mce.h", "struct mce *m"
#define TP_MEMORY_FAILURE "memory_failure_event", "CONFIG_MEMORY_FAILURE", NULL, \
	"unsigned long pfn, int type, int result"
#define TP_AER "aer_event", "CONFIG_PCIEAER", NULL, \
	"const char *dev_name, const u32 status, const u8 severity, " \
	"const u8 tlp_header_valid, void *tlp"
#define TP_MC_EVENT "mc_event", "CONFIG_RAS", NULL, \
	"const unsigned int err_type, const char *error_msg, const char *label, " \
	"const int error_count, const u8 mc_index, const s8 top_layer, const s8 mid_layer, " \
	"const s8 low_layer, unsigned long address, const u8 grain_bits, " \
	"unsigned long syndrome, const char *driver_detail"
#define TP_ARM "arm_event", "CONFIG_RAS", "runtime/decoders/ras_arm.h", \
	"const struct cper_sec_proc_arm *proc HWTAP_ARM_EVENT_MORE"
#define TP_NON_STANDARD "non_standard_event", "CONFIG_RAS", "linux/uuid.h", \
	"const guid_t *sec_type, const guid_t *fru_id, const char *fru_text, const u8 sev, " \
	"const u8 *err, const u32 len"
#define TP_EXTLOG_MEM "extlog_mem_event", "CONFIG_RAS", "linux/cper.h", \
	"struct cper_sec_mem_err *mem, u32 err_seq, const guid_t *fru_id, " \
	"const char *fru_text, u8 sev"

#define TP_BLOCK_RQ_ERROR "block_rq_error", "CONFIG_BLOCK", "linux/blktrace_api.h", \
	"struct request *rq, blk_status_t error, unsigned int nr_bytes"
#define TP_SIGNAL_GENERATE "signal_generate", "CONFIG_TRACEPOINTS", "linux/sched/signal.h", \
	"int sig, struct kernel_siginfo *info, struct task_struct *task, int group, " \
	"int result"
#define TP_DEVLINK_HEALTH_REPORT "devlink_health_report", "CONFIG_NET_DEVLINK", \
	"net/devlink.h", "const struct devlink *devlink, const char *reporter_name, " \
	"const char *msg"

/* signal_generate's si_code, as the kernel's event records it */
#define SIGINFO_CODE "(info == SEND_SIG_NOINFO ? SI_USER : info == SEND_SIG_PRIV ? " \
	"SI_KERNEL : info->si_code)"
#define DISK_DEVT "(rq->q->disk ? disk_devt(rq->q->disk) : 0)"

/* The sources in the order of ras_shapes; each field's C expression in the order of its
 * shape's context variables. */
static const RasSource ras_sources[] = {
	{"ras.mce", TP_MCE_RECORD,
	 {"m->status", "m->misc", "m->addr", "m->mcgstatus", "m->mcgcap", "m->ip", "m->tsc",
	  "m->time", "m->cpuvendor", "m->cpuid", "m->apicid", "m->socketid", "m->cs",
	  "m->bank", "m->extcpu", "m->synd", "m->ipid", "m->ppin", "m->microcode",
	  "m->severity"}},
	{"ras.memory_failure", TP_MEMORY_FAILURE, {"pfn", "type", "result"}},
	{"ras.aer", TP_AER, {"dev_name", "status", "severity", "tlp_header_valid", "tlp:tlp"}},
	{"ras.mc_event", TP_MC_EVENT,
	 {"err_type", "error_msg", "label", "error_count", "mc_index", "top_layer",
	  "mid_layer", "low_layer", "address", "grain_bits", "syndrome",
	  "driver_detail"}},
	{"ras.arm", TP_ARM,
	 {"proc->validation_bits & CPER_ARM_VALID_AFFINITY_LEVEL ? proc->affinity_level : 0xff",
	  "proc->validation_bits & CPER_ARM_VALID_MPIDR ? proc->mpidr : 0ULL", "proc->midr",
	  "proc->validation_bits & CPER_ARM_VALID_RUNNING_STATE ? proc->running_state : ~0U",
	  "proc->validation_bits & CPER_ARM_VALID_RUNNING_STATE ? proc->psci_state : ~0U",
	  /* the error information entries after the section's header (runtime/decoders/ras_arm.h) */
	  "arm.error_count", "arm.types", "arm.flags", "arm.error_info", "arm.virt_fault_addr",
	  "arm.phy_fault_addr", "arm.pei_len", "arm.ctx_len", "arm.oem_len",
	  /* where those three are: read in the handler, while the event fires */
	  "ptr:arm.pei_err", "ptr:arm.ctx_err", "ptr:arm.oem",
	  /* 6.12's arguments; found by runtime/decoders/ras_arm.h on 6.1 */
	  "HWTAP_ARM_SEV(proc)", "HWTAP_ARM_CPU(proc)"},
	 .prologue = "struct _hwtap_arm_summary arm; _hwtap_arm_summarize(proc, &arm);"},
	{"ras.non_standard", TP_NON_STANDARD,
	 {"guid:sec_type", "guid:fru_id", "fru_text", "sev", "len", "ptr:err"}},
	{"ras.extlog_mem", TP_EXTLOG_MEM,
	 {"err_seq",
	  "mem->validation_bits & CPER_MEM_VALID_ERROR_TYPE ? mem->error_type : 0xff", "sev",
	  "mem->validation_bits & CPER_MEM_VALID_PA ? mem->physical_addr : ~0ULL",
	  "mem->validation_bits & CPER_MEM_VALID_PA_MASK ? "
	  "__ffs64(mem->physical_addr_mask) : 0xff",
	  "guid:fru_id", "fru_text", "ptr:mem"}},
	/* as the kernel's own event records them (include/trace/events/block.h) */
	{"ras.disk_error", TP_BLOCK_RQ_ERROR,
	 {DISK_DEVT, "MAJOR" DISK_DEVT, "MINOR" DISK_DEVT,
	  "(rq->q->disk ? rq->q->disk->disk_name : NULL)", "blk_rq_pos(rq)", "nr_bytes >> 9",
	  "blk_status_to_errno(error)", "rwbs:rq->cmd_flags"}},
	/* rasdaemon's filter: a SIGBUS for a hardware error (BUS_OBJERR, BUS_MCEERR_AR/AO) */
	{"ras.signal", TP_SIGNAL_GENERATE,
	 {"sig", "(info == SEND_SIG_NOINFO || info == SEND_SIG_PRIV ? 0 : info->si_errno)",
	  SIGINFO_CODE, "array:task->comm", "task->pid", "group", "result"},
	 "sig == SIGBUS && " SIGINFO_CODE " >= BUS_OBJERR"},
	{"ras.devlink_health", TP_DEVLINK_HEALTH_REPORT,
	 {"devlink_to_dev(devlink)->bus->name", "dev_name(devlink_to_dev(devlink))",
	  "devlink_to_dev(devlink)->driver->name", "reporter_name", "msg"}},
	{NULL},
};

/* struct mce's members (arch/x86/include/uapi/asm/mce.h, unchanged from 6.1 to 6.12), for
 * $m->NAME in kernel.trace("mce:mce_record"). */
#define MCE_MEMBERS(X) X(status) X(misc) X(addr) X(mcgstatus) X(ip) X(tsc) X(time) \
	X(cpuvendor) X(inject_flags) X(severity) X(pad) X(cpuid) X(cs) X(bank) X(cpu) \
	X(finished) X(extcpu) X(socketid) X(apicid) X(mcgcap) X(synd) X(ipid) X(ppin) \
	X(microcode) X(kflags)
#define MCE_VAR(name) " m->" #name ":long"
#define MCE_FIELD(name) "m->" #name,

/* kernel.trace("SYSTEM:NAME"): one concrete shape per tracepoint hwtap knows. */
static const PointShape trace_shapes[] = {
	{"kernel.trace(\"mce:mce_record\")", "m:long" MCE_MEMBERS(MCE_VAR)},
	{"kernel.trace(\"ras:memory_failure_event\")", "pfn:long type:long result:long"},
	{"kernel.trace(\"ras:aer_event\")", "dev_name:long status:long severity:long "
					    "tlp_header_valid:long tlp:long"},
	{"kernel.trace(\"ras:mc_event\")", "err_type:long error_msg:long label:long "
					   "error_count:long mc_index:long top_layer:long "
					   "mid_layer:long low_layer:long address:long "
					   "grain_bits:long syndrome:long driver_detail:long"},
	{"kernel.trace(\"ras:arm_event\")", "proc:long"},
	{"kernel.trace(\"ras:non_standard_event\")", "sec_type:long fru_id:long fru_text:long "
						     "sev:long err:long len:long"},
	{"kernel.trace(\"ras:extlog_mem_event\")", "mem:long err_seq:long fru_id:long "
						   "fru_text:long sev:long"},
	{NULL},
};

/* Each kernel.trace shape's source: ras_sources' tracepoint, its arguments as values. */
static const RasSource trace_sources[] = {
	{"kernel.trace(\"mce:mce_record\")", TP_MCE_RECORD, {"m", MCE_MEMBERS(MCE_FIELD)}},
	{"kernel.trace(\"ras:memory_failure_event\")", TP_MEMORY_FAILURE,
	 {"pfn", "type", "result"}},
	{"kernel.trace(\"ras:aer_event\")", TP_AER,
	 {"dev_name", "status", "severity", "tlp_header_valid", "tlp"}},
	{"kernel.trace(\"ras:mc_event\")", TP_MC_EVENT,
	 {"err_type", "error_msg", "label", "error_count", "mc_index", "top_layer",
	  "mid_layer", "low_layer", "address", "grain_bits", "syndrome", "driver_detail"}},
	{"kernel.trace(\"ras:arm_event\")", TP_ARM, {"proc"}},
	{"kernel.trace(\"ras:non_standard_event\")", TP_NON_STANDARD,
	 {"sec_type", "fru_id", "fru_text", "sev", "err", "len"}},
	{"kernel.trace(\"ras:extlog_mem_event\")", TP_EXTLOG_MEM,
	 {"mem", "err_seq", "fru_id", "fru_text", "sev"}},
	{NULL},
};

const RasSource *ras_source(const PointShape *shape)
{
	for (const RasSource *r = ras_sources; r->point; r++)
		if (!strcmp(r->point, shape->pattern))
			return r;
	for (const RasSource *r = trace_sources; r->point; r++)
		if (!strcmp(r->point, shape->pattern))
			return r;
	return NULL;
}

/* "mce:mce_record" from its shape. */
static char *trace_name(const PointShape *sh)
{
	const char *q = strchr(sh->pattern, '"') + 1;
	return xstrndup(q, strcspn(q, "\""));
}

const char *trace_system(const PointShape *shape)
{
	if (strncmp(shape->pattern, "kernel.trace(", 13))
		return NULL;
	char *name = trace_name(shape);
	name[strcspn(name, ":")] = '\0';
	return name;
}

/* Whether the tracepoint's argument NAME is a pointer ("struct mce *m"). */
bool trace_arg_is_pointer(const PointShape *shape, const char *name)
{
	const char *params = ras_source(shape)->params;
	size_t len = strlen(name);
	for (const char *p = strchr(params, '*'); p; p = strchr(p + 1, '*'))
		if (!strncmp(p + 1, name, len) &&
		    (p[1 + len] == ',' || p[1 + len] == ' ' || !p[1 + len]))
			return true;
	return false;
}

/*
 * kernel.trace("NAME"): NAME as "SYSTEM:EVENT" or a bare "EVENT", as stap takes it, of the
 * tracepoints decoded here. Others, and patterns, are probe_tracepoint.c's.
 */
static const PointShape *trace_match(const ProbeFamily *f, ProbePoint *pp, Session *s)
{
	(void)f;
	(void)s;
	Component *c2 = pp->comps.len > 1 ? pp->comps.data[1] : NULL;
	if (pp->comps.len != 2 || strcmp(c2->name, "trace") || !c2->arg ||
	    c2->arg->kind != N_STR)
		return NULL;
	const char *want = c2->arg->str;
	for (const PointShape *sh = trace_shapes; sh->pattern; sh++) {
		char *name = trace_name(sh);
		if (!strcmp(want, name) || !strcmp(want, strchr(name, ':') + 1))
			return sh;
	}
	return NULL;        /* probe_tracepoint.c's: any other tracepoint, patterns */
}

bool trace_is_decoded(const char *point)
{
	for (const PointShape *sh = trace_shapes; sh->pattern; sh++)
		if (!strcmp(sh->pattern, point))
			return true;
	return false;
}

const ProbeFamily ras_family = {.name = "ras", .shapes = ras_shapes, .decided_at_load = true};
const ProbeFamily trace_family = {
	.name = "kernel", .shapes = trace_shapes, .match = trace_match, .decided_at_load = true,
};
