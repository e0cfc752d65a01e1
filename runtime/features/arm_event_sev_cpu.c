/* ras:arm_event passes the section's entries, context and vendor data, the severity and
 * the CPU beside the section (6.12; 6.1 passes the section only):
 * HWTAP_HAVE_ARM_EVENT_SEV_CPU. */
#include <linux/module.h>
#include <linux/cper.h>
#include <ras/ras_event.h>

int hwtap_probe(const struct cper_sec_proc_arm *proc)
{
	return sizeof((trace_arm_event(proc, NULL, 0, NULL, 0, NULL, 0, 0, 0), 0));
}
MODULE_LICENSE("GPL");
