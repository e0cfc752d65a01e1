/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ras_arm.h - what an ARM processor error section (UEFI 2.9 N.2.4.4: the CPER section
 * the ras:arm_event tracepoint passes) says beyond its header, for ras.arm: the error
 * information entries after the header, the context information records after those,
 * and the vendor data after them; the lengths of the three as 6.12's arm_event computes
 * them (ghes.c's log_arm_hw_error), from the section itself so that 6.1, whose event
 * passes only the section, gets the same; and what rasdaemon 0.8.5 keeps of the entries
 * (its arm_event row): the error count, error information and fault addresses of the
 * last entry that has each, and the entries' error types and flags (here the bits of all
 * entries, or'ed).
 *
 * Only the section's own bytes are read: the entries and records counted in its header
 * but lying past its section_length are not (6.12's event would pass them on); a
 * context record whose size runs past the section ends the walk.
 *
 * And the two things 6.12's event passes beside the section that 6.1's does not: the
 * error's severity as GHES grades it and the CPU the section's MPIDR names (what
 * rasdaemon's CPU isolation counts by). On 6.1 hwtap finds them itself: the severity in
 * the generic data entry ghes.c found the section behind, the CPU in the ACPI MADT's
 * entries, as the kernel's get_logical_index() does in its copy of them.
 */
#ifndef HWTAP_RAS_ARM_H
#define HWTAP_RAS_ARM_H

#include <linux/acpi.h>
#include <linux/cper.h>
#include <linux/uaccess.h>
#ifdef CONFIG_ARM64
#include <asm/cputype.h>
#endif

#ifdef HWTAP_HAVE_ARM_EVENT_SEV_CPU
/* 6.12's arguments after the section (ras_event.h's arm_event) */
#define HWTAP_ARM_EVENT_MORE , const u8 *pei_err, const u32 pei_len, const u8 *ctx_err, \
	const u32 ctx_len, const u8 *oem, const u32 oem_len, u8 sev, int cpu
#define HWTAP_ARM_SEV(proc) (sev)
#define HWTAP_ARM_CPU(proc) (cpu)
#else
#define HWTAP_ARM_EVENT_MORE
#define HWTAP_ARM_SEV(proc) _hwtap_arm_sev(proc)
#define HWTAP_ARM_CPU(proc) _hwtap_arm_cpu((proc)->mpidr)
#endif

#ifndef HWTAP_HAVE_ARM_EVENT_SEV_CPU
/* GHES's grades (include/acpi/ghes.h's ghes_severity()) of a CPER severity */
static inline int _hwtap_ghes_severity(u32 cper_sev)
{
	switch (cper_sev) {
	case CPER_SEV_INFORMATIONAL:
		return 0;               /* GHES_SEV_NO */
	case CPER_SEV_CORRECTED:
		return 1;               /* GHES_SEV_CORRECTED */
	case CPER_SEV_RECOVERABLE:
		return 2;               /* GHES_SEV_RECOVERABLE */
	default:
		return 3;               /* GHES_SEV_PANIC: fatal, and what no grade names */
	}
}

/* The severity of the generic data entry (ACPI 6.5 18.3.2.7.1) the section is the
 * payload of: its header ends where the section starts, 72 bytes from revision 3 on, 64
 * before. Each is taken only when it says it holds an ARM processor section of this
 * length; -1 when neither does (no GHES record around the section). */
static inline int _hwtap_arm_sev(const struct cper_sec_proc_arm *proc)
{
#ifdef CONFIG_ACPI
	const u8 *at = (const u8 *)proc;
	struct acpi_hest_generic_data_v300 v3;
	struct acpi_hest_generic_data v1;

	if (!copy_from_kernel_nofault(&v3, at - sizeof(v3), sizeof(v3)) &&
	    (v3.revision >> 8) >= 3 && v3.error_data_length == proc->section_length &&
	    guid_equal((const guid_t *)v3.section_type, &CPER_SEC_PROC_ARM))
		return _hwtap_ghes_severity(v3.error_severity);
	if (!copy_from_kernel_nofault(&v1, at - sizeof(v1), sizeof(v1)) &&
	    (v1.revision >> 8) < 3 && v1.error_data_length == proc->section_length &&
	    guid_equal((const guid_t *)v1.section_type, &CPER_SEC_PROC_ARM))
		return _hwtap_ghes_severity(v1.error_severity);
#endif
	return -1;
}

/* The logical CPU whose MPIDR the section names (its affinity bits), -EINVAL for none:
 * 6.12's GET_LOGICAL_INDEX(). Each CPU's MPIDR is its MADT GICC entry's, as arm64's
 * cpu_logical_map() has it from there under ACPI (GHES is ACPI's). */
static inline int _hwtap_arm_cpu(u64 mpidr)
{
#if defined(CONFIG_ARM64) && defined(CONFIG_ACPI)
	int cpu;

	for_each_possible_cpu(cpu) {
		struct acpi_madt_generic_interrupt *gicc = acpi_cpu_get_madt_gicc(cpu);

		if (gicc && gicc->arm_mpidr == (mpidr & MPIDR_HWID_BITMASK))
			return cpu;
	}
#endif
	return -EINVAL;
}
#endif

struct _hwtap_arm_summary {
	u32 pei_len, ctx_len, oem_len;	/* bytes of entries, context records, vendor data */
	const void *pei_err, *ctx_err, *oem;	/* where each starts, in the section */
	u32 types, flags;		/* every entry's type and flag bits */
	s64 error_count;		/* the last entry with one: multiple_error + 1; 0 */
	u64 error_info, virt_fault_addr, phy_fault_addr;	/* the last entry's with each */
};

static inline void _hwtap_arm_summarize(const struct cper_sec_proc_arm *proc,
					struct _hwtap_arm_summary *s)
{
	const struct cper_arm_err_info *e = (const void *)(proc + 1);
	u32 len = proc->section_length, at = sizeof(*proc), n, i;

	memset(s, 0, sizeof(*s));
	if (len < at)
		return;
	n = min_t(u32, proc->err_info_num, (len - at) / sizeof(*e));
	for (i = 0; i < n; i++, e++) {
		s->types |= e->type;
		if (e->validation_bits & CPER_ARM_INFO_VALID_MULTI_ERR)
			s->error_count = e->multiple_error + 1;
		if (e->validation_bits & CPER_ARM_INFO_VALID_FLAGS)
			s->flags |= e->flags;
		if (e->validation_bits & CPER_ARM_INFO_VALID_ERR_INFO)
			s->error_info = e->error_info;
		if (e->validation_bits & CPER_ARM_INFO_VALID_VIRT_ADDR)
			s->virt_fault_addr = e->virt_fault_addr;
		if (e->validation_bits & CPER_ARM_INFO_VALID_PHYSICAL_ADDR)
			s->phy_fault_addr = e->physical_fault_addr;
	}
	s->pei_len = n * sizeof(*e);
	at += s->pei_len;
	for (i = 0; i < proc->context_info_num; i++) {
		const struct cper_arm_ctx_info *c = (const void *)((const u8 *)proc + at);
		u32 size;

		if (len - at < sizeof(*c))
			break;
		size = sizeof(*c) + c->size;
		if (c->size > len - at - sizeof(*c))
			break;
		at += size;
		s->ctx_len += size;
	}
	s->oem_len = len - at;
	s->pei_err = proc + 1;
	s->ctx_err = (const u8 *)s->pei_err + s->pei_len;
	s->oem = (const u8 *)proc + at;
}

#endif
