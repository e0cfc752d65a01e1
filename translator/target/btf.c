/* btf.c - the target kernel's BTF, read with libbpf: its functions by name (what
 * kernel.function("GLOB") matches, and -l lists) and each function's parameters, by name,
 * with their sizes and signedness ($NAME in a kernel.function probe).
 *
 * Which BTF: the running kernel's /sys/kernel/btf/vmlinux when it is the target; else the
 * target kernel's own vmlinux (the guest's: guest_kernel_vmlinux() extracts it from
 * /boot/vmlinuz-RELEASE into the cache once, as for booting it), or for arm64 the blob
 * inside its Image. Read once per session.
 */
#include "hwtap.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "../guest/guest.h"

struct KBtf {
	struct btf *btf;
	VEC(char *) funcs;               /* sorted, each once */
	const char *module;              /* a module's (split on the kernel's), or NULL */
	const char *why;                 /* a module's: why it has none (btf NULL) */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The BTF inside RELEASE's kernel image for ARCH, an arm64 Image booted as it is (no ELF
 * sections to name it): the blob that starts with BTF's magic and a header whose parts fit
 * where they say, parsed whole. NULL and *WHY when there is none. */
static struct btf *image_btf(const GuestArch *a, const char *release, const char **why)
{
	char *root = guest_arch_root(a);
	char *path = xformat("%s/boot/vmlinuz-%s", root ? root : "", release);
	free(root);
	StrBuf img = {0};
	img.buf = read_whole_file(path, &img.len);
	*why = img.buf ? "its kernel image has no BTF (CONFIG_DEBUG_INFO_BTF)" :
			 "its kernel image cannot be read";
	const unsigned char magic[] = {0x9f, 0xeb, 0x01};      /* 0xeb9f, version 1 */
	for (size_t i = 0; img.len >= 24 && i + 24 <= img.len; i++) {
		const unsigned char *p = memchr(img.buf + i, magic[0], img.len - 24 - i + 1);
		if (!p)
			break;
		i = p - (const unsigned char *)img.buf;
		if (memcmp(p, magic, sizeof(magic)))
			continue;
		uint32_t h[6];
		memcpy(h, p + 4, sizeof(uint32_t) * 5);
		/* hdr_len, type_off, type_len, str_off, str_len: types, then strings */
		uint64_t size = (uint64_t)h[0] + h[3] + h[4];
		if (h[0] != 24 || h[1] != 0 || h[3] != h[2] || size > img.len - i)
			continue;
		struct btf *btf = btf__new(p, size);
		if (btf && btf__type_cnt(btf) > 1000)
			return btf;
		btf__free(btf);
	}
	return NULL;
}

static KBtf *kbtf_wrap(struct btf *btf, int first);

static KBtf *load(Session *s, const char **why)
{
	struct utsname u;
	struct btf *btf = NULL;
	libbpf_set_print(NULL);         /* its own messages: ours say what failed */
	bool here = !s->target_arch && !uname(&u) && !strcmp(u.release, s->kernel_release);
	if (here)
		btf = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	const GuestArch *a = s->target_arch ? s->target_arch : guest_host_arch();
	if (!btf && a && !a->pvh) {
		btf = image_btf(a, s->kernel_release, why);
		if (!btf)
			return NULL;
	} else if (!btf) {
		char *vmlinux = a ? guest_kernel_vmlinux(a, s->kernel_release, stderr, why) : NULL;
		if (!vmlinux)
			return NULL;
		btf = btf__parse_elf(vmlinux, NULL);
		free(vmlinux);
		if (!btf) {
			*why = "its vmlinux has no BTF (CONFIG_DEBUG_INFO_BTF)";
			return NULL;
		}
	}
	return kbtf_wrap(btf, 1);
}

/* BTF as a KBtf, its functions from type FIRST on listed. */
static KBtf *kbtf_wrap(struct btf *btf, int first)
{
	KBtf *k = xalloc(sizeof(*k));
	k->btf = btf;
	int n = btf__type_cnt(btf);
	for (int id = first; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (btf_kind(t) == BTF_KIND_FUNC)
			vec_push(&k->funcs, (void *)btf__name_by_offset(btf, t->name_off));
	}
	qsort(k->funcs.data, k->funcs.len, sizeof(char *), by_name);
	int kept = 0;
	for (int i = 0; i < k->funcs.len; i++)
		if (!kept || strcmp(k->funcs.data[kept - 1], k->funcs.data[i]))
			k->funcs.data[kept++] = k->funcs.data[i];
	k->funcs.len = kept;
	return k;
}

KBtf *kbtf(Session *s, const char **why)
{
	if (!s->kbtf_loaded) {
		s->kbtf_loaded = true;
		s->kbtf = load(s, &s->kbtf_why);
	}
	*why = s->kbtf_why;
	return s->kbtf;
}

void kbtf_functions(KBtf *k, const char *glob, Vec *out)
{
	for (int i = 0; i < k->funcs.len; i++)
		if (glob_match(glob, k->funcs.data[i]))
			vec_push(out, k->funcs.data[i]);
}

/* FUNC's prototype, or NULL. */
static const struct btf_type *proto(KBtf *k, const char *func)
{
	int id = btf__find_by_name_kind(k->btf, func, BTF_KIND_FUNC);
	if (id <= 0)
		return NULL;
	const struct btf_type *t = btf__type_by_id(k->btf, id);
	t = btf__type_by_id(k->btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

int kbtf_param(KBtf *k, const char *func, int skip, const char *name, int *type_id)
{
	const struct btf_type *t = proto(k, func);
	if (!t)
		return -1;
	const struct btf_param *p = btf_params(t);
	for (int i = skip; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(k->btf, p[i].name_off), name)) {
			*type_id = p[i].type;
			return i - skip;
		}
	return -1;
}

int kbtf_return(KBtf *k, const char *func)
{
	const struct btf_type *t = proto(k, func);
	return t ? (int)t->type : 0;
}

/* ---- types: their C names, and the reads of a value's members ------------------------- */

static void dump_print(void *ctx, const char *fmt, va_list ap)
{
	sb_puts(ctx, xvformat(fmt, ap));
}

/* TYPE_ID in C, as SystemTap's -L shows it: "struct task_struct*", "unsigned int". */
static char *btf_c_name(KBtf *k, int type_id)
{
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	struct btf_dump *d = btf_dump__new(k->btf, dump_print, &sb, NULL);
	if (!d)
		return "?";
	DECLARE_LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = "");
	if (btf_dump__emit_type_decl(d, type_id, &o))
		sb.len = 0;
	btf_dump__free(d);
	StrBuf out = {0};
	sb_putn(&out, "", 0);
	for (size_t i = 0; i < sb.len; i++)      /* "struct task_struct *" */
		if (!(sb.buf[i] == ' ' && i + 1 < sb.len && sb.buf[i + 1] == '*'))
			sb_putc(&out, sb.buf[i]);
	return out.len ? out.buf : "?";
}

char *kbtf_params(KBtf *k, const char *func, int skip)
{
	const struct btf_type *t = proto(k, func);
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	if (!t)
		return sb.buf;
	const struct btf_param *p = btf_params(t);
	for (int i = skip; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(k->btf, p[i].name_off);
		if (name && *name)
			sb_printf(&sb, "%s$%s:%s", sb.len ? " " : "", name, btf_c_name(k, p[i].type));
	}
	return sb.buf;
}

void kbtf_param_names(KBtf *k, const char *func, int skip, Vec *out)
{
	const struct btf_type *t = proto(k, func);
	const struct btf_param *p = t ? btf_params(t) : NULL;
	for (int i = skip; t && i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(k->btf, p[i].name_off);
		if (name && *name)
			vec_push(out, (char *)name);
	}
}

char *kbtf_type_name(KBtf *k, int type_id)
{
	return type_id ? btf_c_name(k, type_id) : "void";
}

/* Where a value is while its members are walked: in memory at ADDR (C), or a register's
 * VALUE; TYPE its BTF type, typedefs and qualifiers peeled; a bit field's bits. */
typedef struct {
	char *addr, *value;
	int type;
	int bit_off, bits;
	const char *var;        /* "$prev->se" for messages */
	const char *why;
	UTarget *t;
} KPlace;

static const struct btf_type *peel(KBtf *k, int *id)
{
	*id = *id ? btf__resolve_type(k->btf, *id) : 0;
	return *id > 0 ? btf__type_by_id(k->btf, *id) : NULL;
}

static bool kfail(KPlace *pl, const char *why)
{
	pl->why = why;
	return false;
}

/* What type ID is, in a message: "a pointer", "size_t" (its typedef's name, as written). */
static const char *kind_name(KBtf *k, int id)
{
	int peeled = id;
	const struct btf_type *t = peel(k, &peeled);
	if (!t)
		return "void";
	if (btf_is_ptr(t))
		return "a pointer";
	if (btf_is_array(t))
		return "an array";
	return btf_c_name(k, id);
}

/* The pointer's target becomes the place: "->" and "[i]" through it. */
static bool deref(KBtf *k, KPlace *pl, const char *what)
{
	const struct btf_type *t = btf__type_by_id(k->btf, pl->type);
	char *v = pl->value ? pl->value : xformat("_hwtap_kread(c, %s, 8, 0)", pl->addr);
	int to = t->type;
	if (!peel(k, &to))
		return kfail(pl, xformat("%s is a void pointer: %s needs a type (@cast)", pl->var,
					 what));
	*pl = (KPlace){.addr = v, .type = to, .var = pl->var, .t = pl->t};
	return true;
}

/* NAME among the members of struct or union ID (anonymous ones searched inside), at
 * bit offset BASE: the member's type and bit place. */
static bool find_member(KBtf *k, int id, const char *name, int base, KPlace *out)
{
	const struct btf_type *t = btf__type_by_id(k->btf, id);
	const struct btf_member *m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *mname = btf__name_by_offset(k->btf, m[i].name_off);
		int off = base + (int)btf_member_bit_offset(t, i);
		if (!mname || !*mname) {
			int inner = m[i].type;
			const struct btf_type *it = peel(k, &inner);
			if (it && (btf_is_struct(it) || btf_is_union(it)) &&
			    find_member(k, inner, name, off, out))
				return true;
			continue;
		}
		if (strcmp(mname, name))
			continue;
		out->type = m[i].type;
		out->bit_off = off;
		out->bits = (int)btf_member_bitfield_size(t, i);
		return true;
	}
	return false;
}

static bool kfield(KBtf *k, KPlace *pl, TargetComp *tc)
{
	int id = pl->type;
	const struct btf_type *t = peel(k, &id);
	if (t && btf_is_ptr(t)) {
		pl->type = id;
		if (!deref(k, pl, xformat("'->%s'", tc->field)))
			return false;
		id = pl->type;
		t = peel(k, &id);
	}
	if (!t || !(btf_is_struct(t) || btf_is_union(t)))
		return kfail(pl, xformat("%s is %s, not a structure: it has no member '%s'",
					 pl->var, kind_name(k, pl->type), tc->field));
	if (!pl->addr)
		return kfail(pl, xformat("%s is a structure passed by value, which hwtap does not "
					 "read", pl->var));
	KPlace m = {0};
	if (!find_member(k, id, tc->field, 0, &m))
		return kfail(pl, xformat("%s (%s) has no member '%s'", pl->var, btf_c_name(k, id),
					 tc->field));
	if (pl->bits)
		return kfail(pl, "a bit field has no members");
	pl->addr = m.bits ? pl->addr : xformat("(%s + %d)", pl->addr, m.bit_off / 8);
	pl->bit_off = m.bits ? m.bit_off : 0;
	pl->bits = m.bits;
	pl->type = m.type;
	pl->var = xformat("%s->%s", pl->var, tc->field);
	return true;
}

static bool kindex(KBtf *k, KPlace *pl, TargetComp *tc)
{
	int id = pl->type;
	const struct btf_type *t = peel(k, &id);
	char *base;
	int elem;
	if (t && btf_is_ptr(t)) {
		base = pl->value ? pl->value : xformat("_hwtap_kread(c, %s, 8, 0)", pl->addr);
		elem = t->type;
		if (!peel(k, &elem))
			return kfail(pl, xformat("%s is a void pointer, which cannot be indexed",
						 pl->var));
	} else if (t && btf_is_array(t)) {
		if (!pl->addr)
			return kfail(pl, xformat("%s is an array passed by value", pl->var));
		base = pl->addr;
		elem = btf_array(t)->type;
	} else {
		return kfail(pl, xformat("%s is %s, which cannot be indexed", pl->var,
					 kind_name(k, pl->type)));
	}
	long long size = btf__resolve_size(k->btf, elem);
	if (size <= 0)
		return kfail(pl, xformat("the elements of %s have no size", pl->var));
	int i = pl->t->indexes.len;
	vec_push(&pl->t->indexes, tc->index);
	*pl = (KPlace){.addr = xformat("(%s + (unsigned long)(\001%d\002) * %lld)", base, i,
				       size),
		       .type = elem, .var = xformat("%s[...]", pl->var), .t = pl->t};
	return true;
}

/* The place's value as a long: integers, enums, pointers; an array's address. */
static bool kfinish(KBtf *k, KPlace *pl, bool address)
{
	int id = pl->type;
	const struct btf_type *t = peel(k, &id);
	UTarget *out = pl->t;
	out->type = TY_LONG;
	if (address) {
		if (!pl->addr || pl->bits)
			return kfail(pl, xformat("%s has no address (%s)", pl->var, pl->bits ?
						 "a bit field" : "passed in a register"));
		out->c = xformat("((int64_t)(%s))", pl->addr);
		return true;
	}
	if (!t)
		return kfail(pl, xformat("%s has no type (void)", pl->var));
	if (btf_is_array(t)) {
		/* as in SystemTap and C: its address (kernel_string($p->comm) reads a char[]) */
		if (!pl->addr)
			return kfail(pl, xformat("%s is an array passed by value", pl->var));
		out->c = xformat("((int64_t)(%s))", pl->addr);
		return true;
	}
	int size;
	bool sgn = false;
	if (btf_is_ptr(t)) {
		size = 8;
	} else if (btf_is_int(t)) {
		size = t->size;
		sgn = btf_int_encoding(t) & BTF_INT_SIGNED;
	} else if (btf_is_any_enum(t)) {
		size = t->size;
		sgn = btf_kflag(t);
	} else if (btf_is_struct(t) || btf_is_union(t)) {
		return kfail(pl, xformat("%s is %s: print its members (->NAME)", pl->var,
					 btf_c_name(k, id)));
	} else {
		return kfail(pl, xformat("%s is %s, which hwtap does not read", pl->var,
					 btf_c_name(k, id)));
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return kfail(pl, xformat("%s is %d bytes, which hwtap does not read", pl->var,
					 size));
	if (pl->bits) {
		int byte = pl->bit_off / 8, shift = pl->bit_off % 8;
		out->c = xformat("_hwtap_kread_bits(c, (%s + %d), %d, %d, %d, %d)", pl->addr, byte,
				 (shift + pl->bits + 7) / 8, shift, pl->bits, sgn);
	} else if (pl->addr) {
		out->c = xformat("_hwtap_kread(c, %s, %d, %d)", pl->addr, size, sgn);
	} else {
		static const char *const as[2][9] = {
			{[1] = "uint8_t", [2] = "uint16_t", [4] = "uint32_t", [8] = "uint64_t"},
			{[1] = "int8_t", [2] = "int16_t", [4] = "int32_t", [8] = "int64_t"},
		};
		out->c = xformat("((int64_t)(%s)(%s))", as[sgn][size], pl->value);
	}
	return true;
}

/* The struct, union, typedef or integer type NAME of the kernel ("task_struct", "struct
 * file", "unsigned int"): its id, or 0. */
int kbtf_named_type(KBtf *k, const char *name)
{
	static const struct {
		const char *prefix;
		int kind;
	} kinds[] = {{"struct ", BTF_KIND_STRUCT}, {"union ", BTF_KIND_UNION},
		     {"", BTF_KIND_STRUCT}, {"", BTF_KIND_UNION}, {"", BTF_KIND_TYPEDEF},
		     {"", BTF_KIND_INT}};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].prefix);
		if (strncmp(name, kinds[i].prefix, n))
			continue;
		int id = btf__find_by_name_kind(k->btf, name + n, kinds[i].kind);
		if (id > 0)
			return id;
	}
	return 0;
}

UTarget *kbtf_target(KBtf *k, int type_id, const char *value, Node *n, bool address,
		     const char **why, Token **where)
{
	UTarget *t = xalloc(sizeof(*t));
	bool cast = n->kind == N_AT_CAST;
	/* @cast(p, "T"): the T at address p; $var: a register's value of its type */
	KPlace pl = {.value = cast ? NULL : (char *)value, .addr = cast ? (char *)value : NULL,
		     .type = type_id, .t = t,
		     .var = cast ? xformat("@cast(..., \"%s\")", n->args.len ?
					   ((Node *)n->args.data[0])->str : "") :
			    xstrndup(n->name, 1 + strcspn(n->name + 1, "$"))};
	int first = 0;
	if (cast) {
		vec_push(&t->indexes, n->lhs);      /* \0010\002: the address */
		TargetComp *tc = n->comps.len ? n->comps.data[0] : NULL;
		if (tc && tc->kind == TC_INDEX) {
			/* @cast(p, "T")[i]: p as an array of T (@cast_sizeof: &@cast(0, T)[1]) */
			long long size = btf__resolve_size(k->btf, type_id);
			if (size <= 0) {
				*why = xformat("%s has no size", pl.var);
				*where = tc->tok;
				return NULL;
			}
			vec_push(&t->indexes, tc->index);
			pl.addr = xformat("(%s + (unsigned long)(\0011\002) * %lld)", value, size);
			first = 1;
		}
	}
	*where = n->tok;
	for (int i = first; i < n->comps.len; i++) {
		TargetComp *tc = n->comps.data[i];
		*where = tc->tok;
		if (!(tc->kind == TC_FIELD ? kfield(k, &pl, tc) : kindex(k, &pl, tc))) {
			*why = pl.why;
			return NULL;
		}
	}
	*where = n->tok;
	if (!kfinish(k, &pl, address)) {
		*why = pl.why;
		return NULL;
	}
	return t;
}

/* ---- tracepoints: each has a __traceiter_NAME function (its arguments after __data) -- */

#define TRACEITER "__traceiter_"

void kbtf_tracepoints(KBtf *k, Vec *out)
{
	size_t n = strlen(TRACEITER);
	for (int i = 0; i < k->funcs.len; i++)
		if (!strncmp(k->funcs.data[i], TRACEITER, n))
			vec_push(out, (char *)k->funcs.data[i] + n);
}

bool kbtf_has_function(KBtf *k, const char *name)
{
	return k->funcs.len && bsearch(&name, k->funcs.data, k->funcs.len, sizeof(char *),
				       by_name);
}

char *kbtf_traceiter(const char *tracepoint)
{
	return xformat(TRACEITER "%s", tracepoint);
}

/* Whether FUNC's parameters after SKIP are all passed as one register or stack slot
 * each (no structure by value): what a tracepoint callback of unsigned longs needs. */
bool kbtf_params_fit(KBtf *k, const char *func, int skip, const char **bad)
{
	const struct btf_type *t = proto(k, func);
	if (!t)
		return false;
	const struct btf_param *p = btf_params(t);
	for (int i = skip; i < btf_vlen(t); i++) {
		int id = p[i].type;
		const struct btf_type *pt = peel(k, &id);
		bool fits = pt && (btf_is_ptr(pt) || ((btf_is_int(pt) || btf_is_any_enum(pt)) &&
						       pt->size >= 1 && pt->size <= 8));
		if (!fits) {
			*bad = btf__name_by_offset(k->btf, p[i].name_off);
			return false;
		}
	}
	return true;
}

int kbtf_nparams(KBtf *k, const char *func)
{
	const struct btf_type *t = proto(k, func);
	return t ? btf_vlen(t) : 0;
}

/* ---- modules: their BTF split on the kernel's, from their .ko ------------------------ */

/* The BTF of MODULE of the target kernel, split on BASE: its .ko's .BTF section, the file
 * found (and decompressed) by the guest's module code. NULL and *WHY when there is none. */
static struct btf *module_btf(Session *s, const char *module, struct btf *base,
			      const char **why)
{
	const GuestArch *a = s->target_arch ? s->target_arch : guest_host_arch();
	char dir[] = "/tmp/hwtap-module.XXXXXX";
	const char *gwhy = "cannot be looked for (no folder in /tmp)";
	char *ko = a && mkdtemp(dir) ? guest_kernel_module(a, s->kernel_release, module, dir,
							   stderr, &gwhy) : NULL;
	struct btf *btf = ko ? btf__parse_elf_split(ko, base) : NULL;
	if (ko && libbpf_get_error(btf)) {
		btf = NULL;
		*why = xformat("%s has no BTF (CONFIG_DEBUG_INFO_BTF_MODULES)", ko);
	} else if (!ko) {
		*why = xformat("module %s of the target kernel %s", module, gwhy);
	}
	if (ko && !strncmp(ko, dir, strlen(dir)))
		unlink(ko);
	rmdir(dir);
	free(ko);
	return btf;
}

KBtf *kbtf_module(Session *s, const char *module, const char **why)
{
	for (int i = 0; i < s->kbtf_modules.len; i++) {
		KBtf *k = s->kbtf_modules.data[i];
		if (!strcmp(k->module, module)) {
			*why = k->why;
			return k->btf ? k : NULL;
		}
	}
	KBtf *base = kbtf(s, why);
	if (!base)
		return NULL;
	struct btf *btf = module_btf(s, module, base->btf, why);
	KBtf *k = btf ? kbtf_wrap(btf, btf__type_cnt(base->btf)) : xalloc(sizeof(*k));
	k->module = xstrdup(module);
	k->why = btf ? NULL : *why;
	vec_push(&s->kbtf_modules, k);
	return btf ? k : NULL;
}

void kbtf_close(Session *s)
{
	if (s->kbtf)
		btf__free(s->kbtf->btf);
	for (int i = 0; i < s->kbtf_modules.len; i++)
		btf__free(((KBtf *)s->kbtf_modules.data[i])->btf);
	s->kbtf_modules = (Vec){0};
	s->kbtf = NULL;
	s->kbtf_loaded = false;
}
