/* btf.c - the target kernel's BTF, read with libbpf: its functions by name (what
 * kernel.function("GLOB") matches, and -l lists) and each function's parameters, by name,
 * with their sizes and signedness ($NAME in a kernel.function probe).
 *
 * Which BTF: the running kernel's /sys/kernel/btf/vmlinux when it is the target; else the
 * target kernel's own vmlinux (the guest's: guest_kernel_vmlinux() extracts it from
 * /boot/vmlinuz-RELEASE into the cache once, as for booting it). Read once per session.
 */
#include "hwtap.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../guest/guest.h"

struct KBtf {
	struct btf *btf;
	VEC(char *) funcs;               /* sorted, each once */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static KBtf *load(Session *s, const char **why)
{
	struct utsname u;
	struct btf *btf = NULL;
	libbpf_set_print(NULL);         /* its own messages: ours say what failed */
	bool here = !s->target_arch && !uname(&u) && !strcmp(u.release, s->kernel_release);
	if (here)
		btf = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	if (!btf) {
		const GuestArch *a = s->target_arch ? s->target_arch : guest_host_arch();
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
	KBtf *k = xalloc(sizeof(*k));
	k->btf = btf;
	int n = btf__type_cnt(btf);
	for (int id = 1; id < n; id++) {
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

/* TYPE_ID as a register's value: its size (0: not a scalar) and signedness. */
static int scalar(KBtf *k, int type_id, bool *is_signed)
{
	int id = btf__resolve_type(k->btf, type_id);
	const struct btf_type *t = id > 0 ? btf__type_by_id(k->btf, id) : NULL;
	*is_signed = false;
	if (!t)
		return 0;
	if (btf_is_ptr(t))
		return 8;
	if (btf_is_enum(t))
		return t->size;
	if (btf_is_int(t)) {
		*is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		return t->size <= 8 ? t->size : 0;
	}
	return 0;
}

int kbtf_param(KBtf *k, const char *func, const char *name, int *size, bool *is_signed)
{
	const struct btf_type *t = proto(k, func);
	if (!t)
		return -1;
	const struct btf_param *p = btf_params(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(k->btf, p[i].name_off), name)) {
			*size = scalar(k, p[i].type, is_signed);
			return i;
		}
	return -1;
}

int kbtf_return(KBtf *k, const char *func, bool *is_signed)
{
	const struct btf_type *t = proto(k, func);
	if (!t || !t->type)
		return 0;
	return scalar(k, t->type, is_signed);
}

char *kbtf_params(KBtf *k, const char *func)
{
	const struct btf_type *t = proto(k, func);
	StrBuf sb = {0};
	sb_putn(&sb, "", 0);
	if (!t)
		return sb.buf;
	const struct btf_param *p = btf_params(t);
	for (int i = 0; i < btf_vlen(t); i++) {
		bool sgn;
		const char *name = btf__name_by_offset(k->btf, p[i].name_off);
		if (name && *name && scalar(k, p[i].type, &sgn))
			sb_printf(&sb, "%s$%s:long", sb.len ? " " : "", name);
	}
	return sb.buf;
}

void kbtf_close(Session *s)
{
	if (s->kbtf)
		btf__free(s->kbtf->btf);
	s->kbtf = NULL;
	s->kbtf_loaded = false;
}
