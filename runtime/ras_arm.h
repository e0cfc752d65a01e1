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
 */
#ifndef HWTAP_RAS_ARM_H
#define HWTAP_RAS_ARM_H

#include <linux/cper.h>

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
