/* dwarf.c - a user-space program's debug information (libdw), as process("PATH") probes
 * need it: its functions (name, declaring file and line, first instruction, and where the
 * prologue ends: a .function probe's place, where the parameters are where DWARF says),
 * and the C that reads a context variable ($param, $local, $var->member[i], $return) at
 * a probe's address in the probed task, from the registers the uprobe handler got and
 * the task's memory.
 *
 * Locations: registers, DW_OP_bregN and DW_OP_fbreg against a frame base that is a
 * register, a register plus an offset, or the canonical frame address (from the file's
 * call-frame information at that address), a static address (plus the load bias of a
 * position-independent file), constants, and location lists at the probe's address. A
 * location hwtap cannot read (pieces, entry values, implicit pointers ...) is a pass-2
 * error naming the DWARF operation: never a wrong value.
 *
 * The generated C calls runtime/dwreg.h's _hwtap_dwreg(regs, N) (DWARF register N)
 * and uaccess.h's _hwtap_uread(c, addr, size, signed), which reads the task's memory
 * without faulting and reports SystemTap's "read fault" error. The kernel's DWARF
 * (kdwarf.c) is read the same way, with kaccess.h's _hwtap_kread() instead.
 */
#include "hwtap.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	Dwarf *dw;
	Dwarf_CFI *cfi_eh, *cfi_debug;
	VEC(UFunc *) funcs;
	bool read;              /* funcs has every unit's */
	VEC(UnitFuncs *) units; /* units read alone (dwarf_function_at()) */
} UDwarf;

/* One unit's functions, read alone. */
typedef struct UnitFuncs {
	Dwarf_Off cu;
	VEC(UFunc *) funcs;
} UnitFuncs;

static UDwarf *open_dwarf(UProgram *p)
{
	bool *tried;
	void **slot = uprog_dwarf_slot(p, &tried);
	if (*tried)
		return *slot;
	*tried = true;
	Dwarf *dw = dwarf_begin_elf(uprog_elf(p), DWARF_C_READ, NULL);
	if (!dw)
		return NULL;
	UDwarf *d = xalloc(sizeof(*d));
	d->dw = dw;
	d->cfi_eh = dwarf_getcfi_elf(uprog_elf(p));
	d->cfi_debug = dwarf_getcfi(dw);
	*slot = d;
	return d;
}

void dwarf_close(UProgram *p)
{
	bool *tried;
	void **slot = uprog_dwarf_slot(p, &tried);
	UDwarf *d = *slot;
	if (d) {
		if (d->cfi_eh)
			dwarf_cfi_end(d->cfi_eh);
		dwarf_end(d->dw);        /* and the CFI dwarf_getcfi() gave */
	}
	*slot = NULL;
}

/* ---- functions ------------------------------------------------------------------------ */

static UFunc *new_function(Dwarf_Die *die, Dwarf_Addr entry)
{
	Dwarf_Attribute a;
	const char *name = dwarf_attr_integrate(die, DW_AT_name, &a) ? dwarf_formstring(&a) :
			   NULL;
	if (!name)
		return NULL;
	UFunc *f = xalloc(sizeof(*f));
	f->name = xstrdup(name);
	const char *file = dwarf_decl_file(die);
	f->file = file ? xstrdup(file) : NULL;
	dwarf_decl_line(die, &f->line);
	f->entry = f->body = entry;
	f->die = f->frame_die = dwarf_dieoffset(die);
	f->dwarf = true;
	return f;
}

/* The inlined copies of functions below DIE (in its blocks, and in other copies), their
 * frame that of the function FRAME. */
static void add_inlined(UDwarf *d, Dwarf_Die *die, uint64_t frame)
{
	Dwarf_Die child;
	if (dwarf_child(die, &child))
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Addr entry;
		if (tag == DW_TAG_inlined_subroutine && !dwarf_entrypc(&child, &entry)) {
			UFunc *f = new_function(&child, entry);
			if (f) {
				f->inlined = true;
				f->frame_die = frame;
				vec_push(&d->funcs, f);
			}
		}
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
			add_inlined(d, &child, frame);
	} while (!dwarf_siblingof(&child, &child));
}

static void add_function(UDwarf *d, Dwarf_Die *die)
{
	Dwarf_Addr low;
	if (dwarf_hasattr(die, DW_AT_declaration) || dwarf_lowpc(die, &low))
		return;
	UFunc *f = new_function(die, low);
	if (!f)
		return;
	Dwarf_Addr *bk = NULL;
	int n = dwarf_entry_breakpoints(die, &bk);
	if (n > 0 && bk[0] >= low)
		f->body = bk[0];
	free(bk);
	vec_push(&d->funcs, f);
	add_inlined(d, die, f->die);
}

/* The functions among DIE's children, and in namespaces and classes below them. */
static void scan_children(UDwarf *d, Dwarf_Die *die)
{
	Dwarf_Die child;
	if (dwarf_child(die, &child))
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			add_function(d, &child);
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			scan_children(d, &child);
			break;
		}
	} while (!dwarf_siblingof(&child, &child));
}

/* The functions of every unit into D's list; with UNIT (a glob of a source file), of the
 * units compiled from a file it names only. */
static void read_functions(UDwarf *d, const char *unit)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (!dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		if (dwarf_offdie(d->dw, off + hsize, &cu) &&
		    (!unit || dwarf_file_matches(unit, dwarf_diename(&cu))))
			scan_children(d, &cu);
		off = next;
	}
	d->read = !unit;
}

/* The out-of-line function whose first instruction is at ENTRY: its unit's functions read
 * alone (and kept), not the whole file's. */
UFunc *dwarf_function_at(UProgram *p, uint64_t entry)
{
	UDwarf *d = open_dwarf(p);
	Dwarf_Die cu;
	if (!d || !dwarf_addrdie(d->dw, entry, &cu))
		return NULL;
	UnitFuncs *u = NULL;
	for (int i = 0; i < d->units.len && !u; i++)
		if (((UnitFuncs *)d->units.data[i])->cu == dwarf_dieoffset(&cu))
			u = d->units.data[i];
	if (!u) {               /* that unit's functions alone, once */
		UDwarf unit = *d;
		unit.funcs = (typeof(unit.funcs)){0};
		scan_children(&unit, &cu);
		u = xalloc(sizeof(*u));
		u->cu = dwarf_dieoffset(&cu);
		u->funcs = unit.funcs;
		vec_push(&d->units, u);
	}
	for (int i = 0; i < u->funcs.len; i++) {
		UFunc *f = u->funcs.data[i];
		if (!f->inlined && f->entry == entry)
			return f;
	}
	return NULL;
}

bool uprog_has_dwarf(UProgram *p)
{
	UDwarf *d = open_dwarf(p);
	if (d && !d->read)
		read_functions(d, NULL);
	return d && d->funcs.len;
}

/* Whether P has debug information, without reading its functions. */
bool uprog_dwarf_opens(UProgram *p)
{
	Dwarf_Off next;
	size_t hsize;
	UDwarf *d = open_dwarf(p);
	return d && !dwarf_nextcu(d->dw, 0, &next, &hsize, NULL, NULL, NULL);
}

/* Whether the glob FILE names PATH: the whole path, or a tail of it after a '/'
 * ("x.c" and "src/x.c" both name "/build/src/x.c"). */
bool dwarf_file_matches(const char *glob, const char *path)
{
	if (!path)
		return false;
	if (!fnmatch(glob, path, 0))
		return true;
	for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/'))
		if (!fnmatch(glob, s + 1, 0))
			return true;
	return false;
}

/* Appends to OUT P's functions matching the globs NAME and FILE (NULL: any) and LINE
 * (0: any), out-of-line and or inlined copies as KINDS says (UFUNC_*), from DWARF when
 * P has it, else from its symbol table (no FILE nor LINE nor inlined copies then). */
void uprog_functions(UProgram *p, const char *name, const char *file, int line, int kinds,
		     Vec *out)
{
	UDwarf *d = open_dwarf(p);
	size_t flen = file ? strlen(file) : 0;
	if (d && !d->read && uprog_is_kernel(p) && flen > 2 && !strcmp(file + flen - 2, ".c")) {
		/* a kernel's .c file: only the units compiled from it (a whole vmlinux's
		 * functions take a second to read; these, milliseconds) */
		UDwarf unit = *d;
		unit.funcs = (typeof(unit.funcs)){0};
		read_functions(&unit, file);
		for (int i = 0; i < unit.funcs.len; i++) {
			UFunc *f = unit.funcs.data[i];
			if ((kinds & (f->inlined ? UFUNC_INLINED : UFUNC_OUT_OF_LINE)) &&
			    !fnmatch(name, f->name, 0) && dwarf_file_matches(file, f->file) &&
			    (!line || f->line == line))
				vec_push(out, f);
		}
		if (out->len)
			return;
	}
	if (!uprog_has_dwarf(p)) {
		if (!file && (kinds & UFUNC_OUT_OF_LINE))
			uprog_symbol_functions(p, name, out);
		return;
	}
	for (int i = 0; i < d->funcs.len; i++) {
		UFunc *f = d->funcs.data[i];
		if (!(kinds & (f->inlined ? UFUNC_INLINED : UFUNC_OUT_OF_LINE)) ||
		    fnmatch(name, f->name, 0) || (file && !dwarf_file_matches(file, f->file)) ||
		    (line && f->line != line))
			continue;
		bool dup = false;       /* one DIE per address: a function in two units */
		for (int j = 0; j < out->len && !dup; j++)
			dup = ((UFunc *)out->data[j])->entry == f->entry;
		if (!dup)
			vec_push(out, f);
	}
}

/* ---- the C that reads a variable ------------------------------------------------------- */

/* Where an object is, as C: its address in the task, or (in a register, or computed)
 * its value; and its type, typedefs and qualifiers peeled. */
typedef struct {
	char *addr;
	char *value;
	Dwarf_Die type;
	bool typed;             /* false: void */
} Place;

typedef struct {
	UProgram *prog;
	UDwarf *d;
	Dwarf_Die func;         /* the function, or its inlined copy */
	Dwarf_Die frame;        /* the out-of-line function whose frame it runs in */
	uint64_t pc;
	const char *var;        /* "$x", for messages */
	const char *why;
	Token *where;
	UTarget *t;
} Reader;

static const struct {
	int op;
	const char *name;
} op_names[] = {
	{DW_OP_piece, "DW_OP_piece"}, {DW_OP_bit_piece, "DW_OP_bit_piece"},
	{DW_OP_deref, "DW_OP_deref"}, {DW_OP_entry_value, "DW_OP_entry_value"},
	{DW_OP_GNU_entry_value, "DW_OP_GNU_entry_value"},
	{DW_OP_implicit_value, "DW_OP_implicit_value"},
	{DW_OP_implicit_pointer, "DW_OP_implicit_pointer"},
	{DW_OP_GNU_implicit_pointer, "DW_OP_GNU_implicit_pointer"},
	{DW_OP_plus_uconst, "DW_OP_plus_uconst"}, {DW_OP_plus, "DW_OP_plus"},
	{DW_OP_minus, "DW_OP_minus"}, {DW_OP_and, "DW_OP_and"}, {DW_OP_convert, "DW_OP_convert"},
	{DW_OP_GNU_parameter_ref, "DW_OP_GNU_parameter_ref"},
	{DW_OP_form_tls_address, "DW_OP_form_tls_address"},
	{DW_OP_GNU_push_tls_address, "DW_OP_GNU_push_tls_address"},
	{DW_OP_call_frame_cfa, "DW_OP_call_frame_cfa"}, {DW_OP_stack_value, "DW_OP_stack_value"},
	{DW_OP_fbreg, "DW_OP_fbreg"}, {DW_OP_addr, "DW_OP_addr"}, {DW_OP_mul, "DW_OP_mul"},
	{DW_OP_neg, "DW_OP_neg"}, {DW_OP_shl, "DW_OP_shl"}, {DW_OP_shr, "DW_OP_shr"},
	{DW_OP_shra, "DW_OP_shra"}, {DW_OP_or, "DW_OP_or"}, {DW_OP_xor, "DW_OP_xor"},
	{DW_OP_dup, "DW_OP_dup"}, {DW_OP_swap, "DW_OP_swap"}, {DW_OP_over, "DW_OP_over"},
	{DW_OP_constu, "DW_OP_constu"}, {DW_OP_consts, "DW_OP_consts"},
};

static const char *op_name(int op)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (op_names[i].op == op)
			return op_names[i].name;
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31)
		return xformat("DW_OP_reg%d", op - DW_OP_reg0);
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
		return xformat("DW_OP_breg%d", op - DW_OP_breg0);
	if (op >= DW_OP_lit0 && op <= DW_OP_lit31)
		return xformat("DW_OP_lit%d", op - DW_OP_lit0);
	return xformat("DWARF operation 0x%x", op);
}

static bool fail(Reader *r, const char *why)
{
	if (!r->why)
		r->why = why;
	return false;
}

static bool unreadable(Reader *r, const char *what, int op)
{
	return fail(r, xformat("%s at 0x%llx has a location hwtap cannot read (%s)", what,
			       (unsigned long long)r->pc, op_name(op)));
}

/* The DWARF registers the runtime's _hwtap_dwreg() knows on this machine. */
static int max_register(UProgram *p)
{
	return uprog_machine(p) == EM_AARCH64 ? 31 : 16;
}

static char *reg_c(Reader *r, int reg, bool *ok)
{
	if (reg < 0 || reg > max_register(r->prog)) {
		*ok = fail(r, xformat("%s at 0x%llx is in DWARF register %d, which hwtap does not "
				      "read on this machine", r->var, (unsigned long long)r->pc, reg));
		return "0";
	}
	return xformat("_hwtap_dwreg(regs, %d)", reg);
}

/* The canonical frame address at the probe's address, from the call-frame information. */
static char *cfa_c(Reader *r, bool *ok)
{
	Dwarf_CFI *cfis[2] = {r->d->cfi_eh, r->d->cfi_debug};
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *frame;
		Dwarf_Op *ops;
		size_t n;
		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], r->pc, &frame))
			continue;
		int rc = dwarf_frame_cfa(frame, &ops, &n);
		char *c = NULL;
		if (!rc && n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
			c = xformat("(%s + %lld)", reg_c(r, ops[0].atom - DW_OP_breg0, ok),
				    (long long)ops[0].number);
		else if (!rc && n == 1 && ops[0].atom == DW_OP_bregx)
			c = xformat("(%s + %lld)", reg_c(r, (int)ops[0].number, ok),
				    (long long)ops[0].number2);
		free(frame);
		if (c)
			return c;
		*ok = fail(r, xformat("the frame address at 0x%llx of %s is not a register plus "
				      "an offset", (unsigned long long)r->pc, r->var));
		return "0";
	}
	*ok = fail(r, xformat("no call-frame information for 0x%llx, where %s is relative to "
			      "the frame", (unsigned long long)r->pc, r->var));
	return "0";
}

/* The function's frame base at the probe's address, as a C value. */
static char *frame_base_c(Reader *r, bool *ok)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (!dwarf_attr_integrate(&r->frame, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, r->pc, &ops, &n, 1) != 1 || n != 1) {
		*ok = fail(r, xformat("%s is relative to a frame base its function does not have "
				      "at 0x%llx", r->var, (unsigned long long)r->pc));
		return "0";
	}
	int op = ops[0].atom;
	if (op == DW_OP_call_frame_cfa)
		return cfa_c(r, ok);
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
		return xformat("(%s + %lld)", reg_c(r, op - DW_OP_breg0, ok),
			       (long long)ops[0].number);
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31)
		return reg_c(r, op - DW_OP_reg0, ok);
	*ok = unreadable(r, xformat("the frame base of %s", r->var), op);
	return "0";
}

static char *static_addr_c(Reader *r, uint64_t a)
{
	if (uprog_is_kernel(r->prog))           /* where KASLR put the kernel */
		return xformat("(0x%llxUL + _hwtap_kbias)", (unsigned long long)a);
	return uprog_is_pie(r->prog) ? xformat("(0x%llxUL + ubias)", (unsigned long long)a) :
				       xformat("0x%llxUL", (unsigned long long)a);
}

/* The C reading memory where the variable is: the task's, or the kernel's. */
static const char *reader(Reader *r)
{
	return uprog_is_kernel(r->prog) ? "_hwtap_kread" : "_hwtap_uread";
}

/* The location expression OPS (N operations) as a place. */
static bool location(Reader *r, Dwarf_Op *ops, size_t n, Place *pl)
{
	bool ok = true;
	bool stack_value = n > 1 && ops[n - 1].atom == DW_OP_stack_value;
	if (stack_value)
		n--;
	if (n != 1)
		return unreadable(r, r->var, n ? ops[1].atom : DW_OP_stack_value);
	int op = ops[0].atom;
	char *addr = NULL, *value = NULL;
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31)
		value = reg_c(r, op - DW_OP_reg0, &ok);
	else if (op == DW_OP_regx)
		value = reg_c(r, (int)ops[0].number, &ok);
	else if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
		addr = xformat("(%s + %lld)", reg_c(r, op - DW_OP_breg0, &ok),
			       (long long)ops[0].number);
	else if (op == DW_OP_bregx)
		addr = xformat("(%s + %lld)", reg_c(r, (int)ops[0].number, &ok),
			       (long long)ops[0].number2);
	else if (op == DW_OP_fbreg)
		addr = xformat("(%s + %lld)", frame_base_c(r, &ok), (long long)ops[0].number);
	else if (op == DW_OP_addr)
		addr = static_addr_c(r, ops[0].number);
	else if (op >= DW_OP_lit0 && op <= DW_OP_lit31 && stack_value)
		value = xformat("%d", op - DW_OP_lit0);
	else if ((op == DW_OP_constu || op == DW_OP_const1u || op == DW_OP_const2u ||
		  op == DW_OP_const4u || op == DW_OP_const8u) && stack_value)
		value = xformat("0x%llxULL", (unsigned long long)ops[0].number);
	else if ((op == DW_OP_consts || op == DW_OP_const1s || op == DW_OP_const2s ||
		  op == DW_OP_const4s || op == DW_OP_const8s) && stack_value)
		value = xformat("%lldLL", (long long)ops[0].number);
	else
		return unreadable(r, r->var, op);
	if (stack_value && addr) {      /* DW_OP_bregN off, DW_OP_stack_value: a value */
		value = addr;
		addr = NULL;
	}
	pl->addr = addr;
	pl->value = value;
	return ok;
}

/* DIE's type (its DW_AT_type, peeled of typedefs and qualifiers) into PL. */
static void set_type(Dwarf_Die *die, Place *pl)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	pl->typed = dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, &t) &&
		    !dwarf_peel_type(&t, &pl->type);
}

static const char *type_name_of(Dwarf_Die *t)
{
	const char *n = dwarf_diename(t);
	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type: return xformat("struct %s", n ? n : "{...}");
	case DW_TAG_union_type: return xformat("union %s", n ? n : "{...}");
	case DW_TAG_enumeration_type: return xformat("enum %s", n ? n : "{...}");
	case DW_TAG_pointer_type: return "a pointer";
	case DW_TAG_array_type: return "an array";
	}
	return n ? n : "a value";
}

/* A pointer's value: what it points to becomes the place. */
static bool through_pointer(Reader *r, Place *pl, const char *what)
{
	Dwarf_Die ptr = pl->type;
	char *v = pl->value ? pl->value : xformat("%s(c, %s, 8, 0)", reader(r), pl->addr);
	Place to = {.addr = v};
	set_type(&ptr, &to);
	if (!to.typed)
		return fail(r, xformat("%s is a void pointer: %s needs a type", r->var, what));
	*pl = to;
	return true;
}

static bool member(Reader *r, Place *pl, const char *field, Dwarf_Die *agg, int64_t base,
		   Place *out);

/* PL.FIELD, PL->FIELD (SystemTap takes either for both). */
static bool field(Reader *r, Place *pl, TargetComp *tc)
{
	r->where = tc->tok;
	if (pl->typed && dwarf_tag(&pl->type) == DW_TAG_pointer_type &&
	    !through_pointer(r, pl, xformat("'->%s'", tc->field)))
		return false;
	int tag = pl->typed ? dwarf_tag(&pl->type) : 0;
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_class_type)
		return fail(r, xformat("%s is %s, not a structure: it has no member '%s'", r->var,
				       pl->typed ? type_name_of(&pl->type) : "void", tc->field));
	if (!pl->addr)
		return fail(r, xformat("%s is a structure in registers, which hwtap does not read",
				       r->var));
	Place out;
	Dwarf_Die agg = pl->type;
	if (!member(r, pl, tc->field, &agg, 0, &out)) {
		if (!r->why)
			fail(r, xformat("%s (%s) has no member '%s'", r->var, type_name_of(&agg),
					tc->field));
		return false;
	}
	*pl = out;
	return true;
}

/* Finds FIELD among AGG's members, anonymous structures and unions included. */
static bool member(Reader *r, Place *pl, const char *name, Dwarf_Die *agg, int64_t base,
		   Place *out)
{
	Dwarf_Die m;
	if (dwarf_child(agg, &m))
		return false;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		Dwarf_Word off = 0;
		Dwarf_Attribute a;
		if (dwarf_attr_integrate(&m, DW_AT_data_member_location, &a) &&
		    dwarf_formudata(&a, &off))
			continue;       /* a location expression: C++ virtual bases */
		const char *mname = dwarf_diename(&m);
		if (!mname) {
			Place inner;
			set_type(&m, &inner);
			if (inner.typed && member(r, pl, name, &inner.type, base + off, out))
				return true;
			continue;
		}
		if (strcmp(mname, name))
			continue;
		if (dwarf_hasattr(&m, DW_AT_bit_size) || dwarf_hasattr(&m, DW_AT_data_bit_offset))
			return fail(r, xformat("member '%s' of %s is a bit field, which hwtap does "
					       "not read", name, r->var));
		*out = (Place){.addr = xformat("(%s + %lld)", pl->addr, (long long)(base + off))};
		set_type(&m, out);
		return true;
	} while (!dwarf_siblingof(&m, &m));
	return false;
}

static bool element_size(Reader *r, Dwarf_Die *elem, Dwarf_Word *size)
{
	if (dwarf_aggregate_size(elem, size) || !*size)
		return fail(r, xformat("the elements of %s have no size", r->var));
	return true;
}

/* PL[i]: an array's element, or the element a pointer points into. */
static bool index_into(Reader *r, Place *pl, TargetComp *tc)
{
	r->where = tc->tok;
	int tag = pl->typed ? dwarf_tag(&pl->type) : 0;
	if (tag != DW_TAG_pointer_type && tag != DW_TAG_array_type)
		return fail(r, xformat("%s is %s, which cannot be indexed", r->var,
				       pl->typed ? type_name_of(&pl->type) : "void"));
	Dwarf_Die arr = pl->type;
	Place elem;
	char *base;
	if (tag == DW_TAG_pointer_type) {
		base = pl->value ? pl->value : xformat("%s(c, %s, 8, 0)", reader(r), pl->addr);
		set_type(&arr, &elem);
		if (!elem.typed)
			return fail(r, xformat("%s is a void pointer, which cannot be indexed",
					       r->var));
	} else {
		if (!pl->addr)
			return fail(r, xformat("%s is an array in registers, which hwtap does not "
					       "read", r->var));
		base = pl->addr;
		set_type(&arr, &elem);
	}
	Dwarf_Word size;
	if (!element_size(r, &elem.type, &size))
		return false;
	int k = r->t->indexes.len;
	vec_push(&r->t->indexes, tc->index);
	elem.addr = xformat("(%s + (unsigned long)(\001%d\002) * %llu)", base, k,
			    (unsigned long long)size);
	elem.value = NULL;
	*pl = elem;
	return true;
}

/* The place's value as a script sees it, a long: integers, enums, pointers, and an
 * array's address. */
static bool finish(Reader *r, Place *pl)
{
	if (!pl->typed)
		return fail(r, xformat("%s has no type (void)", r->var));
	int tag = dwarf_tag(&pl->type);
	if (tag == DW_TAG_array_type) {
		/* as in SystemTap and C: its address (user_string($p->name) reads a char[]) */
		if (!pl->addr)
			return fail(r, xformat("%s is an array in registers, which hwtap does not "
					       "read", r->var));
		r->t->type = TY_LONG;
		r->t->c = xformat("((int64_t)(%s))", pl->addr);
		return true;
	}
	bool is_signed = false;
	int size = dwarf_bytesize(&pl->type);
	if (tag == DW_TAG_pointer_type) {
		size = 8;
	} else if (tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type) {
		Dwarf_Attribute a;
		Dwarf_Word enc = DW_ATE_signed;
		Place under = *pl;
		if (tag == DW_TAG_enumeration_type) {
			set_type(&pl->type, &under);   /* its underlying type, when DWARF says */
			if (!under.typed)
				under = *pl;
		}
		if (dwarf_attr(&under.type, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float)
			return fail(r, xformat("%s is floating point (%s), which hwtap does not read",
					       r->var, type_name_of(&pl->type)));
		is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	} else {
		return fail(r, xformat("%s is %s: print its members (->NAME)", r->var,
				       type_name_of(&pl->type)));
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return fail(r, xformat("%s is %d bytes, which hwtap does not read", r->var, size));
	r->t->type = TY_LONG;
	if (pl->addr) {
		r->t->c = xformat("%s(c, %s, %d, %d)", reader(r), pl->addr, size, is_signed);
		return true;
	}
	static const char *const as[2][9] = {
		{[1] = "uint8_t", [2] = "uint16_t", [4] = "uint32_t", [8] = "uint64_t"},
		{[1] = "int8_t", [2] = "int16_t", [4] = "int32_t", [8] = "int64_t"},
	};
	r->t->c = xformat("((int64_t)(%s)(%s))", as[is_signed][size], pl->value);
	return true;
}

/* The scopes at PC, innermost first, and which of them is the function. */
static int scopes_at(Reader *r, Dwarf_Die **scopes, int *func_at)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(&r->func, &cu, NULL, NULL))
		return 0;
	int n = dwarf_getscopes(&cu, r->pc, scopes);
	for (int i = 0; i < n; i++)
		if (dwarf_dieoffset(&(*scopes)[i]) == dwarf_dieoffset(&r->func)) {
			*func_at = i;
			return n;
		}
	/* PC is in a function inlined into this one (a line of its own the compiler put
	 * there): libdw's chain goes up through that function's abstract tree, not this
	 * one. This function's own blocks around PC instead, innermost first, then it and
	 * the unit. */
	free(*scopes);
	Vec chain = {0};
	Dwarf_Die *at = xalloc(sizeof(*at)), child;
	*at = r->func;
	vec_push(&chain, at);
	for (bool deeper = true; deeper;) {
		deeper = false;
		if (dwarf_child(at, &child))
			break;
		do {
			if (dwarf_tag(&child) == DW_TAG_lexical_block &&
			    dwarf_haspc(&child, r->pc) == 1) {
				at = xalloc(sizeof(*at));
				*at = child;
				vec_push(&chain, at);
				deeper = true;
				break;
			}
		} while (!dwarf_siblingof(&child, &child));
	}
	n = chain.len + 1;
	*scopes = malloc(sizeof(Dwarf_Die) * n);        /* the caller frees it, as libdw's */
	if (!*scopes)
		return 0;
	for (int i = 0; i < chain.len; i++)
		(*scopes)[i] = *(Dwarf_Die *)chain.data[chain.len - 1 - i];
	(*scopes)[n - 1] = cu;
	*func_at = n - 2;
	return n;
}

/* The names of the function's parameters (PARMS) or of its locals at the probe's
 * address, "$a $b" */
static void var_names(Reader *r, bool parms, bool locals, Vec *out)
{
	Dwarf_Die *scopes = NULL;
	int fn, n = scopes_at(r, &scopes, &fn);
	/* innermost block first, the function's own last, as SystemTap lists them */
	for (int i = 0; i <= (fn < n ? fn : n - 1); i++) {
		Dwarf_Die v;
		if (dwarf_child(&scopes[i], &v))
			continue;
		do {
			int tag = dwarf_tag(&v);
			const char *name = dwarf_diename(&v);
			if (name && ((tag == DW_TAG_formal_parameter && parms && i == fn) ||
				     (tag == DW_TAG_variable && locals)))
				vec_push(out, xstrdup(name));
		} while (!dwarf_siblingof(&v, &v));
	}
	free(scopes);
}

static bool open_function(Reader *r, UProgram *p, UFunc *f, uint64_t pc)
{
	r->prog = p;
	r->d = open_dwarf(p);
	r->pc = pc;
	if (!f->dwarf || !r->d || !dwarf_offdie(r->d->dw, f->die, &r->func) ||
	    !dwarf_offdie(r->d->dw, f->frame_die, &r->frame))
		return fail(r, xformat("'%s' has no debug information in '%s' (built without -g?): "
				       "its context variables are unknown", f->name, uprog_path(p)));
	return true;
}

/* Whether NAME is a variable of the compilation unit (not the function's) at the PC. */
static bool unit_variable(Reader *r, const char *name)
{
	Dwarf_Die *scopes = NULL, var;
	int fn, n = scopes_at(r, &scopes, &fn);
	int at = n ? dwarf_getscopevar(scopes, n, name, 0, NULL, 0, 0, &var) : -1;
	free(scopes);
	return at > fn;
}

/* VAR, when it is a declaration ("extern unsigned long total_forks;" in a header the unit
 * includes), becomes its unit's definition of it, the DIE whose DW_AT_specification it is
 * and which says where it is. */
static void definition(Reader *r, Dwarf_Die *var)
{
	Dwarf_Die cu, child;
	if (!dwarf_hasattr(var, DW_AT_declaration) || !dwarf_diecu(&r->func, &cu, NULL, NULL) ||
	    dwarf_child(&cu, &child))
		return;
	Dwarf_Off want = dwarf_dieoffset(var);
	do {
		Dwarf_Attribute a;
		Dwarf_Die spec;
		if (dwarf_tag(&child) == DW_TAG_variable &&
		    dwarf_attr(&child, DW_AT_specification, &a) && dwarf_formref_die(&a, &spec) &&
		    dwarf_dieoffset(&spec) == want) {
			*var = child;
			return;
		}
	} while (!dwarf_siblingof(&child, &child));
}

/* The variable NAME (a parameter, a local live at the probe, or a variable of the
 * compilation unit) as a place. */
static bool variable(Reader *r, const char *name, UFunc *f, Place *pl)
{
	Dwarf_Die *scopes = NULL, var;
	int fn, n = scopes_at(r, &scopes, &fn);
	int at = n ? dwarf_getscopevar(scopes, n, name, 0, NULL, 0, 0, &var) : -1;
	free(scopes);
	if (at < 0) {
		Vec names = {0};
		var_names(r, true, true, &names);
		StrBuf sb = {0};
		sb_putn(&sb, "", 0);
		for (int i = 0; i < names.len; i++)
			sb_printf(&sb, "%s$%s", i ? " " : "", (char *)names.data[i]);
		return fail(r, xformat("'$%s' is not a parameter or local of '%s' where the probe "
				       "is%s%s", name, f->name,
				       names.len ? "; it has " : " (it has none)", sb.buf));
	}
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	definition(r, &var);
	if (dwarf_attr_integrate(&var, DW_AT_const_value, &a)) {
		Dwarf_Sword v;
		if (dwarf_formsdata(&a, &v))
			return fail(r, xformat("%s is a constant hwtap cannot read", r->var));
		*pl = (Place){.value = xformat("%lldLL", (long long)v)};
	} else if (!dwarf_attr_integrate(&var, DW_AT_location, &a) ||
		   dwarf_getlocation_addr(&a, r->pc, &ops, &nops, 1) != 1) {
		return fail(r, xformat("%s is not available at 0x%llx in '%s' (optimized out "
				       "there)", r->var, (unsigned long long)r->pc, f->name));
	} else if (!nops) {
		return fail(r, xformat("%s is optimized out at 0x%llx in '%s'", r->var,
				       (unsigned long long)r->pc, f->name));
	} else if (!location(r, ops, nops, pl)) {
		return false;
	}
	set_type(&var, pl);
	return true;
}

/* $NAME->...[...] (N_TARGET node N) at PC of function F, or $return in its .return
 * probe (RET): the C that reads it (with ADDRESS, that takes its address: &$p->x), or
 * NULL and *WHY (at *WHERE, when not N's token). */
UTarget *dwarf_target(UProgram *p, UFunc *f, uint64_t pc, bool ret, Node *n, bool address,
		      const char **why, Token **where)
{
	char *name = xstrndup(n->name + 1, strcspn(n->name + 1, "$"));
	Reader r = {.var = xformat("'$%s'", name), .t = xalloc(sizeof(UTarget))};
	Place pl = {0};
	bool ok = open_function(&r, p, f, pc);
	if (ok && !strcmp(name, "return")) {
		if (!ret) {
			ok = fail(&r, "'$return' is only available in .return probes");
		} else {
			pl.value = "regs_return_value(regs)";
			set_type(&r.func, &pl);
			if (!pl.typed)
				ok = fail(&r, xformat("'%s' returns void: it has no $return", f->name));
		}
	} else if (ok && ret && !unit_variable(&r, name)) {
		/* sema makes a .return probe's $var @entry($var): @var("NAME") comes here, which
		 * reads a variable of the unit as it is at the return, as SystemTap's does */
		ok = fail(&r, xformat("%s in a .return probe is its value at the call: "
				      "@entry($%s)", r.var, name));
	} else if (ok) {
		ok = variable(&r, name, f, &pl);
	}
	for (int i = 0; ok && i < n->comps.len; i++) {
		TargetComp *tc = n->comps.data[i];
		ok = tc->kind == TC_FIELD ? field(&r, &pl, tc) : index_into(&r, &pl, tc);
	}
	if (ok && address) {
		if (pl.addr) {
			r.t->type = TY_LONG;
			r.t->c = xformat("((int64_t)(%s))", pl.addr);
		} else {
			ok = fail(&r, xformat("%s is not in memory here (a register or a "
					      "constant): it has no address", r.var));
		}
	} else if (ok) {
		ok = finish(&r, &pl);
	}
	if (!ok) {
		*why = r.why;
		*where = r.where;
		return NULL;
	}
	return r.t;
}

/* Whether variable NAME at PC of F is a structure or union (which $$vars shows as
 * "{...}", as SystemTap does). */
bool dwarf_var_is_struct(UProgram *p, UFunc *f, uint64_t pc, const char *name)
{
	Reader r = {.var = name};
	Place pl = {0};
	Dwarf_Die *scopes = NULL, var;
	int fn, n = open_function(&r, p, f, pc) ? scopes_at(&r, &scopes, &fn) : 0;
	int at = n ? dwarf_getscopevar(scopes, n, name, 0, NULL, 0, 0, &var) : -1;
	free(scopes);
	if (at < 0)             /* (whether or not it has a value there) */
		return false;
	set_type(&var, &pl);
	if (!pl.typed)
		return false;
	int tag = dwarf_tag(&pl.type);
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* $$parms, $$locals, $$vars: each variable's name, to be read with dwarf_target(). */
void dwarf_var_names(UProgram *p, UFunc *f, uint64_t pc, bool parms, bool locals, Vec *out)
{
	Reader r = {.var = "$$vars"};
	if (open_function(&r, p, f, pc))
		var_names(&r, parms, locals, out);
}

/* ---- -L: variables with their types ------------------------------------------------------ */

/* A type as C spells it, the way SystemTap's -L shows it: "int", "struct point*",
 * "char const*". */
static char *type_string(Dwarf_Die *die, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return "void";
	if (depth > 8)
		return "...";
	const char *name = dwarf_diename(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type: return xformat("%s*", type_string(&t, depth + 1));
	case DW_TAG_const_type: return xformat("%s const", type_string(&t, depth + 1));
	case DW_TAG_volatile_type: return xformat("%s volatile", type_string(&t, depth + 1));
	case DW_TAG_restrict_type: return type_string(&t, depth + 1);
	case DW_TAG_array_type: return xformat("%s[]", type_string(&t, depth + 1));
	case DW_TAG_structure_type: return xformat("struct %s", name ? name : "{...}");
	case DW_TAG_union_type: return xformat("union %s", name ? name : "{...}");
	case DW_TAG_enumeration_type: return xformat("enum %s", name ? name : "{...}");
	case DW_TAG_subroutine_type: return "function";
	}
	return name ? xstrdup(name) : "?";
}

/* "$a:int $p:struct point*": F's parameters and locals at PC (and $return:TYPE for a
 * .return probe), as -L lists them; "" without DWARF. */
/* Whether VAR has a value at PC: a constant, or a location there (as SystemTap's -L
 * lists only those). */
static bool available(Dwarf_Die *var, uint64_t pc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a))
		return true;
	return dwarf_attr_integrate(var, DW_AT_location, &a) &&
	       dwarf_getlocation_addr(&a, pc, &ops, &n, 1) == 1 && n;
}

char *dwarf_var_list(UProgram *p, UFunc *f, uint64_t pc, bool ret)
{
	Reader r = {.var = "$$vars"};
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	if (!open_function(&r, p, f, pc))
		return sb.buf;
	if (ret) {
		char *t = type_string(&r.func, 0);
		if (strcmp(t, "void"))
			sb_printf(&sb, "$return:%s", t);
	}
	Vec names = {0};
	var_names(&r, true, true, &names);
	Dwarf_Die *scopes = NULL;
	int fn, n = scopes_at(&r, &scopes, &fn);
	for (int i = 0; i < names.len && n; i++) {
		Dwarf_Die var;
		if (dwarf_getscopevar(scopes, n, names.data[i], 0, NULL, 0, 0, &var) >= 0 &&
		    available(&var, pc))
			sb_printf(&sb, "%s$%s:%s", sb.len ? " " : "", (char *)names.data[i],
				  type_string(&var, 0));
	}
	free(scopes);
	return sb.buf;
}

/* The canonical frame address at PC in F, as C (an @entry's key: at the body, and the
 * stack pointer after the return); NULL and *WHY when the CFI does not say. */
char *dwarf_cfa(UProgram *p, UFunc *f, uint64_t pc, const char **why)
{
	Reader r = {.var = "@entry"};
	r.prog = p;
	r.d = open_dwarf(p);
	r.pc = pc;
	bool ok = true;
	char *c = r.d ? cfa_c(&r, &ok) : NULL;
	if (!r.d)
		r.why = xformat("'%s' has no call-frame information in '%s'", f->name,
				uprog_path(p));
	*why = r.why;
	return ok && c ? c : NULL;
}

/* ---- source lines ------------------------------------------------------------------------ */

/* A row of F's code: where source LINE of F's own file starts, as SystemTap reads the
 * line table. */
typedef struct {
	uint64_t addr;
	int line;
	bool stmt;
} Row;

/* F's rows, one per address in F (in any of its ranges: a function's cold part may be
 * elsewhere), of lines of F's file from its declaration on (not an inlined header's, nor
 * a function's declared before F and inlined into it): where several lines share an
 * address, the first that begins a statement there, else the first. As SystemTap reads
 * them: a line whose every address another line has first is no line of F's (an
 * `if (f.file)` compiled into the line before). In table order. */
static void function_rows(UProgram *p, UFunc *f, Vec *out)
{
	UDwarf *d = open_dwarf(p);
	Dwarf_Die die, cu;
	Dwarf_Lines *lines;
	size_t n;
	if (!d || !f->dwarf || !f->file || !dwarf_offdie(d->dw, f->die, &die) ||
	    !dwarf_diecu(&die, &cu, NULL, NULL) || dwarf_getsrclines(&cu, &lines, &n))
		return;
	Row *last = NULL;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		bool stmt;
		if (dwarf_lineaddr(l, &a) || dwarf_haspc(&die, a) != 1 || dwarf_lineno(l, &ln) ||
		    ln <= 0 || dwarf_linebeginstatement(l, &stmt))
			continue;
		/* not another file's line, nor one of a function declared before F and
		 * inlined into it */
		const char *src = dwarf_linesrc(l, NULL, NULL);
		if (!src || strcmp(src, f->file) || ln < f->line)
			continue;
		if (last && last->addr == a) {
			if (stmt && !last->stmt)        /* a statement begins here after all */
				*last = (Row){a, ln, true};
			continue;
		}
		Row *r = xalloc(sizeof(*r));
		*r = (Row){a, ln, stmt};
		vec_push(out, r);
		last = r;
	}
}

/* Where F's code for source LINE of its own file starts: the lowest address of that line's
 * rows (function_rows()). With NEAREST, the next line that has code in F, when LINE has
 * none (*AT says which line it was). False when there is none. */
bool dwarf_line_address(UProgram *p, UFunc *f, int line, bool nearest, uint64_t *addr,
			int *at)
{
	Vec rows = {0};
	function_rows(p, f, &rows);
	int best_line = 0;
	uint64_t best = 0;
	for (int i = 0; i < rows.len; i++) {
		Row *r = rows.data[i];
		if (r->line <= 0 || (r->line != line && (!nearest || r->line < line)))
			continue;
		/* the line itself, else (nearest) the closest one after it; its lowest address */
		if (!best_line || r->line < best_line || (r->line == best_line && r->addr < best)) {
			best_line = r->line;
			best = r->addr;
		}
	}
	*addr = best;
	*at = best_line;
	return best_line != 0;
}

static int by_int(const void *a, const void *b)
{
	intptr_t x = (intptr_t)*(void *const *)a, y = (intptr_t)*(void *const *)b;
	return x < y ? -1 : x > y;
}

/* The lines of F's own file that have code in F, each once, in order (as intptr_t). */
void dwarf_code_lines(UProgram *p, UFunc *f, Vec *out)
{
	Vec rows = {0}, all = {0};
	function_rows(p, f, &rows);
	for (int i = 0; i < rows.len; i++)
		if (((Row *)rows.data[i])->line > 0)
			vec_push(&all, (void *)(intptr_t)((Row *)rows.data[i])->line);
	if (all.len)
		qsort(all.data, all.len, sizeof(void *), by_int);
	for (int i = 0; i < all.len; i++)
		if (!i || all.data[i] != all.data[i - 1])
			vec_push(out, all.data[i]);
}

/* ---- line tables (usymfileline(), usyms.c) ---------------------------------------------- */

static int by_line_addr(const void *a, const void *b)
{
	const ULine *x = *(ULine *const *)a, *y = *(ULine *const *)b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Every row of every unit's line table into OUT, by address: one row per address (the
 * last of a sequence's rows there; an end of sequence only where no sequence begins). */
void dwarf_line_rows(UProgram *p, Vec *out)
{
	UDwarf *d = open_dwarf(p);
	Dwarf_Off off = 0, next;
	size_t header;
	int order = 0;
	Vec all = {0};
	while (d && !dwarf_nextcu(d->dw, off, &next, &header, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;
		if (dwarf_offdie(d->dw, off + header, &cu) && !dwarf_getsrclines(&cu, &lines, &n)) {
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr a;
				int ln;
				bool end;
				const char *src = dwarf_linesrc(l, NULL, NULL);
				if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) ||
				    dwarf_lineendsequence(l, &end))
					continue;
				ULine *r = xalloc(sizeof(*r));
				*r = (ULine){a, ln, src ? xstrdup(src) : NULL, end, order++};
				vec_push(&all, r);
			}
		}
		off = next;
	}
	if (all.len)
		qsort(all.data, all.len, sizeof(void *), by_line_addr);
	for (int i = 0; i < all.len; i++) {
		ULine *r = all.data[i];
		ULine *last = out->len ? out->data[out->len - 1] : NULL;
		if (last && last->addr == r->addr) {
			if (!r->end || last->end)
				out->data[out->len - 1] = r;
			continue;
		}
		vec_push(out, r);
	}
}
