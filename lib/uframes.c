/* uframes.c - unwind rows from an ELF file's .eh_frame and .debug_frame (uframes.h). libdw interprets the CFI (dwarf_cfi_addrframe); this file only lists
 * the FDEs' ranges, asks libdw for the rules along each, and keeps those the module's
 * unwinder can follow. */
#include "uframes.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int sp, fp;                     /* DWARF's numbers for the two registers */
	bool x86;
} Machine;

static bool machine_of(Elf *elf, Machine *m)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return false;
	if (eh.e_machine == EM_X86_64)
		*m = (Machine){7, 6, true};
	else if (eh.e_machine == EM_AARCH64)
		*m = (Machine){31, 29, false};
	else
		return false;
	return true;
}

/* ---- the FDEs' ranges: their encoded pointers, as the CIE's augmentation says --------- */

static bool uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t u = 0;
	int shift = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;
		u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				u |= ~0ULL << shift;
			*v = (int64_t)u;
			return true;
		}
	}
	return false;
}

static bool fixed(const uint8_t **p, const uint8_t *end, int bytes, bool sign, uint64_t *v)
{
	if (end - *p < bytes)
		return false;
	uint64_t u = 0;
	for (int i = 0; i < bytes; i++)         /* ELF64 x86-64 and arm64: little-endian */
		u |= (uint64_t)(*p)[i] << (8 * i);
	if (sign && bytes < 8 && (u >> (8 * bytes - 1)) & 1)
		u |= ~0ULL << (8 * bytes);
	*p += bytes;
	*v = u;
	return true;
}

/* A pointer encoded as ENC at *P (its address ADDR), into *V: whether it could be read.
 * Absolute and PC-relative pointers only: nothing else appears in a linked file's FDEs. */
static bool encoded(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t addr,
		    uint64_t *v)
{
	bool ok;
	int64_t s = 0;
	if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return false;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: ok = fixed(p, end, 8, false, v); break;
	case DW_EH_PE_uleb128: ok = uleb(p, end, v); break;
	case DW_EH_PE_udata2: ok = fixed(p, end, 2, false, v); break;
	case DW_EH_PE_udata4: ok = fixed(p, end, 4, false, v); break;
	case DW_EH_PE_udata8: ok = fixed(p, end, 8, false, v); break;
	case DW_EH_PE_sleb128: ok = sleb(p, end, &s); *v = (uint64_t)s; break;
	case DW_EH_PE_sdata2: ok = fixed(p, end, 2, true, v); break;
	case DW_EH_PE_sdata4: ok = fixed(p, end, 4, true, v); break;
	case DW_EH_PE_sdata8: ok = fixed(p, end, 8, true, v); break;
	default: return false;
	}
	if (!ok)
		return false;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr: return true;
	case DW_EH_PE_pcrel: *v += addr; return true;
	default: return false;
	}
}

/* The encoding of the FDEs of CIE C ('R' in its augmentation; absolute without one):
 * whether it is known. */
static bool fde_encoding(const Dwarf_CIE *c, uint8_t *enc)
{
	const char *aug = c->augmentation ? c->augmentation : "";
	*enc = DW_EH_PE_absptr;
	if (!*aug)
		return true;
	if (*aug != 'z' || !c->augmentation_data)
		return false;
	const uint8_t *p = c->augmentation_data, *end = p + c->augmentation_data_size;
	for (aug++; *aug; aug++) {
		uint64_t skip;
		switch (*aug) {
		case 'R':
			if (p >= end)
				return false;
			*enc = *p++;
			break;
		case 'P':       /* the personality routine: its encoding, then it */
			if (p >= end)
				return false;
			uint8_t penc = *p++;
			if (!encoded(&p, end, penc & ~DW_EH_PE_indirect & 0x0f, 0, &skip))
				return false;
			break;
		case 'L':
			p++;
			break;
		case 'S': case 'B': case 'G':
			break;
		default:
			return false;
		}
	}
	return p <= end;
}

/* ---- what libdw will take -------------------------------------------------------------- */

/* Each CFA instruction's operands, as cfa_fits() reads them: R a register (ULEB, at most
 * UFRAMES_REG_MAX), U and S a ULEB and an SLEB, B a block (a ULEB length, then its bytes),
 * A an address in the FDEs' encoding, 1, 2 and 4 as many fixed bytes; "" none. An opcode
 * without an entry is not known. DW_CFA_advance_loc, _offset and _restore carry their
 * first operand (a register below 64, for the last two) in the opcode. */
static const char *const cfa_operands[0x40] = {
	[DW_CFA_nop] = "", [DW_CFA_set_loc] = "A", [DW_CFA_advance_loc1] = "1",
	[DW_CFA_advance_loc2] = "2", [DW_CFA_advance_loc4] = "4",
	[DW_CFA_offset_extended] = "RU", [DW_CFA_restore_extended] = "R",
	[DW_CFA_undefined] = "R", [DW_CFA_same_value] = "R", [DW_CFA_register] = "RR",
	[DW_CFA_remember_state] = "", [DW_CFA_restore_state] = "", [DW_CFA_def_cfa] = "RU",
	[DW_CFA_def_cfa_register] = "R", [DW_CFA_def_cfa_offset] = "U",
	[DW_CFA_def_cfa_expression] = "B", [DW_CFA_expression] = "RB",
	[DW_CFA_offset_extended_sf] = "RS", [DW_CFA_def_cfa_sf] = "RS",
	[DW_CFA_def_cfa_offset_sf] = "S", [DW_CFA_val_offset] = "RU",
	[DW_CFA_val_offset_sf] = "RS", [DW_CFA_val_expression] = "RB",
	[DW_CFA_GNU_window_save] = "",          /* arm64's DW_CFA_AARCH64_negate_ra_state */
	[DW_CFA_GNU_args_size] = "U", [DW_CFA_GNU_negative_offset_extended] = "RU",
};

/* Whether libdw can interpret the CFA instructions [P, END) (FDEs' pointers encoded as ENC)
 * within bounds. It keeps a table of the registers up to the highest number an instruction
 * names (DW_CFA_offset_extended of register 60 million took a reader to 459 MiB; the
 * fuzzer found register 9 million asking for 150 MB)
 * and a copy for each state remembered: an FDE naming a register past UFRAMES_REG_MAX, or
 * remembering more than UFRAMES_STATES_MAX states at once, is not given to it (its range
 * falls back to frame pointers), nor one with an instruction this does not know or that
 * is cut short. */
static bool cfa_fits(const uint8_t *p, const uint8_t *end, uint8_t enc)
{
	int depth = 0;
	while (p < end) {
		uint8_t op = *p++;
		const char *ops = (op & 0xc0) == DW_CFA_offset ? "U" : (op & 0xc0) ? "" :
				  cfa_operands[op];
		if (!ops || (op == DW_CFA_remember_state && ++depth > UFRAMES_STATES_MAX))
			return false;
		if (op == DW_CFA_restore_state)
			depth -= depth > 0;
		for (; *ops; ops++) {
			uint64_t v;
			int64_t s;
			bool ok;
			switch (*ops) {
			case 'R': ok = uleb(&p, end, &v) && v <= UFRAMES_REG_MAX; break;
			case 'U': ok = uleb(&p, end, &v); break;
			case 'S': ok = sleb(&p, end, &s); break;
			case 'B':
				ok = uleb(&p, end, &v) && v <= (uint64_t)(end - p);
				p += ok ? v : 0;
				break;
			case 'A': ok = encoded(&p, end, enc & 0x0f, 0, &v); break;
			default: ok = fixed(&p, end, *ops - '0', false, &v); break;
			}
			if (!ok)
				return false;
		}
	}
	return true;
}

/* ---- the rules, as rows ------------------------------------------------------------------ */

static bool breg(const Dwarf_Op *op, int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (int)op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

static bool fits16(int64_t v) { return v >= INT16_MIN && v <= INT16_MAX; }

/* x86-64's lazy PLT (the linker's CFI for it): CFA = rsp + A, + 8 once past the push,
 * i.e. where (rip & 15) >= K. */
static bool plt_cfa(const Dwarf_Op *o, size_t n, int64_t *a, int *k)
{
	int reg;
	int64_t off;
	if (n != 9 || !breg(&o[0], &reg, a) || reg != 7 || !breg(&o[1], &reg, &off) ||
	    reg != 16 || off || o[2].atom != DW_OP_lit15 || o[3].atom != DW_OP_and ||
	    o[4].atom < DW_OP_lit0 || o[4].atom > DW_OP_lit15 || o[5].atom != DW_OP_ge ||
	    o[6].atom != DW_OP_lit3 || o[7].atom != DW_OP_shl || o[8].atom != DW_OP_plus)
		return false;
	*k = o[4].atom - DW_OP_lit0;
	return true;
}

static bool cfa_rule(const Machine *m, Dwarf_Frame *f, UFrameRow *r)
{
	Dwarf_Op *o;
	size_t n;
	int reg, k;
	int64_t off;
	if (dwarf_frame_cfa(f, &o, &n) || !n)
		return false;
	if (m->x86 && plt_cfa(o, n, &off, &k)) {
		r->cfa = HWTAP_UFRAME_CFA_PLT;
		r->plt = (uint8_t)k;
	} else if ((n == 1 || (n == 2 && o[1].atom == DW_OP_deref)) && breg(&o[0], &reg, &off) &&
		   (reg == m->sp || reg == m->fp)) {
		r->cfa = reg == m->sp ? HWTAP_UFRAME_CFA_SP : HWTAP_UFRAME_CFA_FP;
		if (n == 2)
			r->flags |= HWTAP_UFRAME_DEREF;
	} else {
		return false;
	}
	if (off < INT32_MIN || off > INT32_MAX)
		return false;
	r->cfa_off = (int32_t)off;
	return true;
}

/* Register REGNO's rule in F as *KIND and *OFF: whether it is one the rows hold. */
static bool reg_rule(const Machine *m, Dwarf_Frame *f, int regno, uint8_t *kind, int16_t *off)
{
	Dwarf_Op mem[3], *o;
	size_t n;
	int reg;
	int64_t v;
	*off = 0;
	if (dwarf_frame_register(f, regno, mem, &o, &n))
		return false;
	if (!n) {
		*kind = o ? HWTAP_UFRAME_REG_UNDEF : HWTAP_UFRAME_REG_SAME;
		return true;
	}
	/* offset(N): the word at CFA + N, which libdw gives as CFA, N, plus */
	if (o[0].atom == DW_OP_call_frame_cfa && (n == 1 || !breg(&o[1], &reg, &v))) {
		if (n == 1)
			v = 0;
		else if (n == 2 && o[1].atom == DW_OP_plus_uconst)
			v = (int64_t)o[1].number;
		else if (n == 3 && (o[1].atom == DW_OP_consts || o[1].atom == DW_OP_constu) &&
			 o[2].atom == DW_OP_plus)
			v = (int64_t)o[1].number;
		else
			return false;
		if (!fits16(v))
			return false;
		*kind = HWTAP_UFRAME_REG_CFA;
		*off = (int16_t)v;
		return true;
	}
	/* expression(SP + N): a signal frame's saved registers (libdw puts the CFA under
	 * the expression, as DWARF says it is evaluated) */
	if (n == 2 && o[0].atom == DW_OP_call_frame_cfa && breg(&o[1], &reg, &v) &&
	    reg == m->sp && fits16(v)) {
		*kind = HWTAP_UFRAME_REG_SP;
		*off = (int16_t)v;
		return true;
	}
	return false;
}

/* The row of frame F (of a CIE whose return address column is RA): whether its rules are
 * ones the unwinder follows (else R says NONE). */
static void row_of(const Machine *m, Dwarf_Frame *f, int ra, bool signal, UFrameRow *r)
{
	uint8_t kind;
	int16_t off;
	UFrameRow none = {.addr = r->addr};
	if (!cfa_rule(m, f, r))
		goto none;
	if (!reg_rule(m, f, ra, &kind, &off))
		goto none;
	if (kind == HWTAP_UFRAME_REG_UNDEF) {         /* the outermost frame (_start, a thread's) */
		*r = (UFrameRow){.addr = r->addr, .cfa = HWTAP_UFRAME_CFA_END};
		return;
	}
	r->ra = kind;
	r->ra_off = off;
	if (!reg_rule(m, f, m->fp, &r->fp, &r->fp_off))
		goto none;
	if (signal)
		r->flags |= HWTAP_UFRAME_SIGNAL;
	return;
none:
	*r = none;
}

/* ---- the table ---------------------------------------------------------------------------- */

typedef struct {
	UFrameRow row;
	uint64_t seq;                   /* the order found: of two at one address, the first */
} Found;

typedef struct {
	Found *v;
	size_t n, cap;
} Rows;

static int push(Rows *rows, const UFrameRow *r)
{
	if (rows->n >= UFRAMES_ROWS_MAX)
		return 1;
	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? rows->cap * 2 : 256;
		Found *v = realloc(rows->v, cap * sizeof(*v));
		if (!v)
			return -1;
		rows->v = v;
		rows->cap = cap;
	}
	rows->v[rows->n] = (Found){*r, rows->n};
	rows->n++;
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const Found *x = a, *y = b;
	if (x->row.addr != y->row.addr)
		return x->row.addr < y->row.addr ? -1 : 1;
	/* an FDE's start before another's end at the same address */
	bool xe = x->row.cfa == HWTAP_UFRAME_CFA_NONE, ye = y->row.cfa == HWTAP_UFRAME_CFA_NONE;
	if (xe != ye)
		return xe - ye;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool same_rules(const UFrameRow *a, const UFrameRow *b)
{
	return a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->ra == b->ra &&
	       a->ra_off == b->ra_off && a->fp == b->fp && a->fp_off == b->fp_off &&
	       a->flags == b->flags && a->plt == b->plt;
}

/* The rows of the FDE over [LO, HI) into ROWS, then a NONE row at HI: 0, 1 when the table
 * is full or the work (COST a row, summed in *WORK) past its bound, -1 out of memory. */
static int fde_rows(const Machine *m, Dwarf_CFI *cfi, uint64_t lo, uint64_t hi, size_t cost,
		    size_t *work, Rows *rows)
{
	uint64_t addr = lo;
	int rc = 0;
	for (int i = 0; addr < hi && i < UFRAMES_FDE_ROWS_MAX; i++) {
		Dwarf_Frame *f;
		Dwarf_Addr start, end;
		bool signal;
		/* each row is libdw's reading of the FDE from its start */
		if ((*work += cost) > UFRAMES_WORK_MAX)
			return 1;
		if (dwarf_cfi_addrframe(cfi, addr, &f))
			break;
		int ra = dwarf_frame_info(f, &start, &end, &signal);
		UFrameRow r = {.addr = addr};
		if (ra >= 0 && end > addr)
			row_of(m, f, ra, signal, &r);
		free(f);
		if ((rc = push(rows, &r)))
			return rc;
		if (ra < 0 || end <= addr)
			break;
		addr = end;
	}
	return push(rows, &(UFrameRow){.addr = hi});
}

void uframes_free(UFrameTab *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* The section NAME with contents, within UFRAMES_SECTION_MAX bytes (decompressed, for a
 * compressed .debug_frame: SHF_COMPRESSED, as gcc -gz and Go's linker write it). */
static Elf_Scn *cfi_section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *name;
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh->sh_name)) || strcmp(name, want))
			continue;
		if (sh->sh_size > UFRAMES_SECTION_MAX)
			return NULL;
		if (sh->sh_flags & SHF_COMPRESSED) {
			GElf_Chdr ch;
			if (!gelf_getchdr(scn, &ch) || ch.ch_size > UFRAMES_SECTION_MAX ||
			    elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, sh))
				return NULL;
		}
		return scn;
	}
	return NULL;
}

/* The rows of the FDEs in ELF's section NAME (.eh_frame: EH) into ROWS, the CFI
 * interpreted counted in *WORK: fde_rows()'s 0, 1 or -1; 0 for no such section. */
static int section_rows(Elf *elf, const unsigned char *ident, const Machine *m,
			const char *name, bool eh, size_t *work, Rows *rows)
{
	GElf_Shdr sh;
	Elf_Scn *scn = cfi_section(elf, name, &sh);
	Elf_Data *data;
	if (!scn || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
		return 0;
	/* .debug_frame's CFI libdw reads through a Dwarf handle of the file */
	Dwarf *dw = NULL;
	Dwarf_CFI *cfi = eh ? dwarf_getcfi_elf(elf) :
			 (dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL)) ? dwarf_getcfi(dw) : NULL;
	if (!cfi) {
		if (dw)
			dwarf_end(dw);
		return 0;
	}
	int rc = 0;
	Dwarf_Off off = 0, next, cie_off = (Dwarf_Off)-1;
	uint8_t enc = 0;
	bool cie_ok = false, cie_z = false;
	size_t cie_cost = 0;
	Dwarf_CFI_Entry e;
	while (!rc && off < data->d_size && dwarf_next_cfi(ident, data, eh, off, &next, &e) == 0) {
		if (next <= off)
			break;
		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (e.fde.CIE_pointer != cie_off) {
			Dwarf_CFI_Entry c;
			Dwarf_Off skip;
			cie_off = e.fde.CIE_pointer;
			cie_ok = dwarf_next_cfi(ident, data, eh, cie_off, &skip, &c) == 0 &&
				 dwarf_cfi_cie_p(&c) && fde_encoding(&c.cie, &enc) &&
				 c.cie.return_address_register <= UFRAMES_REG_MAX &&
				 cfa_fits(c.cie.initial_instructions,
					  c.cie.initial_instructions_end, enc);
			cie_z = cie_ok && c.cie.augmentation && c.cie.augmentation[0] == 'z';
			cie_cost = cie_ok ? (size_t)(c.cie.initial_instructions_end -
						     c.cie.initial_instructions) : 0;
		}
		const uint8_t *p = e.fde.start, *end = e.fde.end;
		uint64_t lo, len, aug;
		/* .debug_frame's addresses are plain: no PC-relative ones */
		uint64_t at = eh ? sh.sh_addr + (uint64_t)(p - (const uint8_t *)data->d_buf) : 0;
		if (!cie_ok || !encoded(&p, end, enc, at, &lo) ||
		    !encoded(&p, end, enc & 0x0f, 0, &len) || !len || lo + len < lo)
			continue;
		/* its instructions, after the augmentation data, as libdw will take them */
		if (cie_z && (!uleb(&p, end, &aug) || aug > (uint64_t)(end - p)))
			continue;
		if (!cfa_fits(p + (cie_z ? aug : 0), end, enc))
			continue;
		size_t cost = (size_t)(e.fde.end - e.fde.start) + cie_cost;
		rc = fde_rows(m, cfi, lo, lo + len, cost, work, rows);
	}
	if (eh)
		dwarf_cfi_end(cfi);
	else
		dwarf_end(dw);          /* and the CFI it owns */
	return rc;
}

int uframes_read(Elf *elf, Elf *debug, UFrameTab *t)
{
	memset(t, 0, sizeof(*t));
	Machine m;
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	if (!ident || !machine_of(elf, &m))
		return 0;
	/* .eh_frame, which the program's own unwinding uses, then .debug_frame, where gcc
	 * -fno-asynchronous-unwind-tables -g and Go's linker put the CFI of the code they
	 * leave out of .eh_frame (the start files' .eh_frame is still linked in): of two rows
	 * at one address, .eh_frame's */
	Rows rows = {0};
	size_t work = 0;
	int rc = section_rows(elf, ident, &m, ".eh_frame", true, &work, &rows);
	if (!rc)
		rc = section_rows(elf, ident, &m, ".debug_frame", false, &work, &rows);
	/* a stripped file's debug file keeps its .debug_frame (its .eh_frame is NOBITS): the
	 * CFI of code built -fno-asynchronous-unwind-tables -g, once stripped */
	const unsigned char *dident = debug ? (const unsigned char *)elf_getident(debug, NULL) :
				      NULL;
	Machine dm;
	if (!rc && dident && machine_of(debug, &dm) && dm.x86 == m.x86)
		rc = section_rows(debug, dident, &m, ".debug_frame", false, &work, &rows);
	if (rc) {                       /* out of memory, or past the bound: no table */
		free(rows.v);
		memset(t, 0, sizeof(*t));
		return rc < 0 ? -1 : 0;
	}
	if (rows.n)
		qsort(rows.v, rows.n, sizeof(*rows.v), by_addr);
	t->rows = malloc((rows.n ? rows.n : 1) * sizeof(*t->rows));
	if (!t->rows) {
		free(rows.v);
		return -1;
	}
	for (size_t i = 0; i < rows.n; i++) {
		const UFrameRow *r = &rows.v[i].row;
		if (t->nrows && t->rows[t->nrows - 1].addr == r->addr)
			continue;               /* one row per address: the first */
		if (t->nrows && same_rules(&t->rows[t->nrows - 1], r))
			continue;               /* the same rules on: one row */
		t->rows[t->nrows++] = *r;
	}
	free(rows.v);
	return 0;
}
