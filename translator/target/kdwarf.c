/* kdwarf.c - the target kernel's DWARF, where it is installed: what kernel.function
 * ("NAME@FILE:LINE"), kernel.function("NAME").inline and kernel.statement need (source
 * files and lines, inlined copies, locals), which BTF does not have.
 *
 * Which file: the vmlinux with debug information of the target's release, as Debian's
 * linux-image-RELEASE-dbg installs it (/usr/lib/debug/boot/vmlinux-RELEASE), as other
 * distributions do (/usr/lib/debug/lib/modules/RELEASE/vmlinux), or a kernel built here
 * (its build tree's vmlinux: hwtap's debug kernels). It must be the same build as the
 * image the module runs on: its GNU build ID is compared with the image's (the running
 * kernel's /sys/kernel/notes, or the vmlinux the guest extracts from /boot/vmlinuz).
 *
 * The file is opened as a program (elf.c, dwarf.c) marked as the kernel: dwarf.c reads
 * its variables with kernel reads, and its static addresses are link-time ones, which
 * the runtime shifts by the kernel's KASLR offset (runtime/probes/kprobes.c's _hwtap_kbias, from
 * where kfree() really is against KDWARF_BIAS_SYMBOL's address here).
 */
#include "hwtap.h"

#include <elf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "../guest/guest.h"

/* Where distributions put a release's vmlinux with DWARF ("%s": the release), under the
 * target's root. */
static const char *const candidates[] = {
	"/usr/lib/debug/boot/vmlinux-%s",
	"/usr/lib/debug/lib/modules/%s/vmlinux",
	"/lib/modules/%s/build/vmlinux",
};

/* The GNU build ID in the notes DATA (LEN bytes), as hex; or NULL. */
static char *notes_build_id(const unsigned char *data, size_t len)
{
	size_t off = 0;
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, data + off, 4);
		memcpy(&descsz, data + off + 4, 4);
		memcpy(&type, data + off + 8, 4);
		size_t name = off + 12, desc = name + ((namesz + 3) & ~3u);
		size_t next = desc + ((descsz + 3) & ~3u);
		if (next > len || next <= off)
			return NULL;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(data + name, "GNU", 4)) {
			StrBuf sb = {0};
			sb_putn(&sb, "", 0);
			for (uint32_t i = 0; i < descsz; i++)
				sb_printf(&sb, "%02x", data[desc + i]);
			return sb.buf;
		}
		off = next;
	}
	return NULL;
}

/* The build ID of the ELF file ELF (its note sections), or NULL. */
static char *elf_build_id(Elf *elf)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		char *id = notes_build_id(d->d_buf, d->d_size);
		if (id)
			return id;
	}
	return NULL;
}

static char *file_build_id(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fileno(f), ELF_C_READ, NULL);
	char *id = elf && elf_kind(elf) == ELF_K_ELF ? elf_build_id(elf) : NULL;
	if (elf)
		elf_end(elf);
	fclose(f);
	return id;
}

/* The build ID of the kernel image S's module runs on, or NULL (*WHY). */
static char *image_build_id(Session *s, const GuestArch *a, const char **why)
{
	struct utsname u;
	if (!s->target_arch && !uname(&u) && !strcmp(u.release, s->kernel_release)) {
		StrBuf sb = {0};
		sb.buf = read_whole_file("/sys/kernel/notes", &sb.len);
		char *id = sb.buf ? notes_build_id((unsigned char *)sb.buf, sb.len) : NULL;
		if (!id)
			*why = "the running kernel's /sys/kernel/notes has no build ID";
		return id;
	}
	char *vmlinux = a ? guest_kernel_vmlinux(a, s->kernel_release, stderr, why) : NULL;
	if (!vmlinux)
		return NULL;
	char *id = file_build_id(vmlinux);
	free(vmlinux);
	if (!id)
		*why = "its kernel image has no build ID";
	return id;
}

const char *kdwarf_file(Session *s)
{
	const GuestArch *a = s->target_arch ? s->target_arch : guest_host_arch();
	char *root = a && s->target_arch ? guest_arch_root(a) : NULL;
	const char *found = NULL;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]) && !found; i++) {
		char *path = xformat("%s%s", root ? root : "", xformat(candidates[i],
								       s->kernel_release));
		if (!access(path, R_OK))
			found = path;
	}
	free(root);
	return found;
}

/* The DWARF file for S's target kernel, opened, or NULL and *WHY. */
static UProgram *load(Session *s, const char **why)
{
	const GuestArch *a = s->target_arch ? s->target_arch : guest_host_arch();
	const char *found = kdwarf_file(s);
	if (!found) {
		*why = xformat("no DWARF for kernel %s is installed (Debian's package "
			       "linux-image-%s-dbg has it)", s->kernel_release, s->kernel_release);
		return NULL;
	}
	UProgram *p = uprog_open(s, found, why);
	if (!p)
		return NULL;
	if (!uprog_dwarf_opens(p)) {
		*why = xformat("no DWARF for kernel %s is installed (Debian's package "
			       "linux-image-%s-dbg has it; '%s' has no debug information)",
			       s->kernel_release, s->kernel_release, found);
		return NULL;
	}
	const char *image_why = "its image cannot be read";
	char *want = image_build_id(s, a, &image_why), *have = elf_build_id(uprog_elf(p));
	if (!want) {
		*why = xformat("kernel %s: cannot tell whether '%s' is its DWARF: %s",
			       s->kernel_release, found, image_why);
		return NULL;
	}
	if (!have || strcmp(want, have)) {
		*why = xformat("'%s' is not the DWARF of kernel %s's image (build ID %s, the "
			       "image's %s): install the linux-image-%s-dbg of that build",
			       found, s->kernel_release, have ? have : "none", want,
			       s->kernel_release);
		return NULL;
	}
	uint64_t link;
	if (!kdwarf_bias_link(p, &link)) {
		*why = xformat("'%s' has no one function %s, which hwtap needs to find where KASLR "
			       "put the kernel", found, KDWARF_BIAS_SYMBOL);
		return NULL;
	}
	uprog_set_kernel(p);
	return p;
}

UProgram *kdwarf(Session *s, const char **why)
{
	if (!s->kdwarf_loaded) {
		s->kdwarf_loaded = true;
		s->kdwarf = load(s, &s->kdwarf_why);
	}
	*why = s->kdwarf_why;
	return s->kdwarf;
}

/* The link-time address of KDWARF_BIAS_SYMBOL in P (the runtime's KASLR reference). */
bool kdwarf_bias_link(UProgram *p, uint64_t *addr)
{
	Vec syms = {0};
	uprog_symbol_functions(p, KDWARF_BIAS_SYMBOL, &syms);
	if (syms.len != 1)
		return false;
	*addr = ((UFunc *)syms.data[0])->entry;
	return true;
}
