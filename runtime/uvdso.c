/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uvdso.c - names in the vDSO, the code the kernel maps into every process for
 * clock_gettime(), gettimeofday(), time() and getcpu() without a system call: an address
 * there is "__vdso_clock_gettime+0x45/0x1b0 [linux-vdso.so.1]" (its soname, as ldd and
 * glibc's link map name it; perf's "[vdso]"), not a bare hex number.
 * Included by usyms.c, whose lookups (_hwtap_umap_find()) fall back to it.
 *
 * Every 64-bit process maps the same image, which the kernel made: the start copies it
 * from its own task's mapping (process context; hwtap-run, which starts a session, is a
 * 64-bit process) and reads the image's dynamic symbols, once, with bounds on everything
 * all the same. A lookup, in any context, of an address of the current task (another
 * task's mm may be freed meanwhile: nothing here holds it) reads where its mm maps its
 * vDSO (mm->context.vdso) and only names it when that mm maps this image: a 32-bit or x32
 * process maps another (x86: mm->context.vdso_image; arm64: an AArch32 mm), unnamed.
 * Backtraces through it follow frame pointers (the kernel builds the vDSO with them): it
 * has no unwind rows here.
 */
#ifndef HWTAP_UVDSO_C
#define HWTAP_UVDSO_C

#include <linux/elf.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#define HWTAP_UVDSO_MAX (64 << 10)	/* the image's bytes, at most */
#define HWTAP_UVDSO_SYMS 256		/* its symbols, at most */
#define HWTAP_UVDSO_NAMES 8192		/* their names' bytes, at most */

static struct hwtap_umod _hwtap_uvdso;		/* nsyms 0: not read */
static unsigned long _hwtap_uvdso_size;		/* its mapping's bytes */
#ifdef CONFIG_X86_64
static const void *_hwtap_uvdso_image;		/* the kernel's image the start's mm maps */
#endif

/* Where MM maps its vDSO, if it is the image read at the start: its first byte, or 0. */
static unsigned long _hwtap_uvdso_base(const struct mm_struct *mm)
{
#if defined(CONFIG_X86_64)
	if (READ_ONCE(mm->context.vdso_image) != _hwtap_uvdso_image)
		return 0;
	return (unsigned long)READ_ONCE(mm->context.vdso);
#elif defined(CONFIG_ARM64)
	if (READ_ONCE(mm->context.flags) & MMCF_AARCH32)
		return 0;
	return (unsigned long)READ_ONCE(mm->context.vdso);
#else
	return 0;
#endif
}

/* Whether ADDR is in MM's vDSO: then *W says where, as _hwtap_umap_find() does. */
static bool _hwtap_uvdso_find(const struct mm_struct *mm, unsigned long addr,
			      struct hwtap_uwhere *w)
{
	unsigned long base;
	int i;

	/* current's mm only: another task's may be freed as it exits (nothing here holds
	 * it), current's cannot while current runs this */
	if (!READ_ONCE(_hwtap_uvdso.nsyms) || mm != current->mm ||
	    !(base = _hwtap_uvdso_base(mm)) || addr < base || addr - base >= _hwtap_uvdso_size)
		return false;
	w->mod = HWTAP_UVDSO_MOD;
	w->start = base;
	w->end = base + _hwtap_uvdso_size;
	w->vaddr = 0;
	w->lo = w->hi = 0;
	for (i = 0; i < _hwtap_uvdso.nsegs; i++) {
		const struct hwtap_useg *s = &_hwtap_uvdso.segs[i];
		u64 off = addr - base;

		if (off >= s->offset && off < s->offset + s->size) {
			w->vaddr = off - s->offset + s->vaddr;
			w->bias = w->vaddr - addr;
			w->lo = base + s->offset;
			w->hi = base + min_t(u64, s->offset + s->size, _hwtap_uvdso_size);
			break;
		}
	}
	return true;
}

static int _hwtap_uvdso_by_addr(const void *a, const void *b)
{
	const struct hwtap_usym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The symbol table of the vDSO image IMG (SIZE bytes): 0, or -EINVAL where it is not
 * what an image is (then nothing is named). */
static int _hwtap_uvdso_parse(const u8 *img, size_t size)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *symtab = NULL, *strtab;
	const Elf64_Phdr *ph;
	struct hwtap_useg *segs;
	struct hwtap_usym *syms;
	char *names;
	size_t used = 1;	/* names[0]: "", a dname of 0 is none */
	int i, n = 0, kept = 0, nsegs = 0;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_shoff > size ||
	    eh->e_shnum > (size - eh->e_shoff) / sizeof(Elf64_Shdr) || eh->e_phoff > size ||
	    eh->e_phnum > (size - eh->e_phoff) / sizeof(Elf64_Phdr) || eh->e_phnum > 16)
		return -EINVAL;
	sh = (const void *)(img + eh->e_shoff);
	ph = (const void *)(img + eh->e_phoff);
	for (i = 0; i < eh->e_shnum && !symtab; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			symtab = &sh[i];
	if (!symtab || symtab->sh_link >= eh->e_shnum || symtab->sh_offset > size ||
	    symtab->sh_size > size - symtab->sh_offset)
		return -EINVAL;
	strtab = &sh[symtab->sh_link];
	if (strtab->sh_offset > size || strtab->sh_size > size - strtab->sh_offset)
		return -EINVAL;
	segs = kcalloc(eh->e_phnum ? eh->e_phnum : 1, sizeof(*segs), GFP_KERNEL);
	syms = kcalloc(HWTAP_UVDSO_SYMS, sizeof(*syms), GFP_KERNEL);
	names = kzalloc(HWTAP_UVDSO_NAMES, GFP_KERNEL);
	if (!segs || !syms || !names)
		goto fail;
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset < size)
			segs[nsegs++] = (struct hwtap_useg){ ph[i].p_offset, ph[i].p_vaddr,
							     min_t(u64, ph[i].p_filesz,
								   size - ph[i].p_offset) };
	for (i = 0; i < symtab->sh_size / sizeof(Elf64_Sym) && n < HWTAP_UVDSO_SYMS; i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(img + symtab->sh_offset) + i;
		const char *name = (const char *)img + strtab->sh_offset + s->st_name;
		size_t len;

		if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
		    s->st_name >= strtab->sh_size)
			continue;
		len = strnlen(name, strtab->sh_size - s->st_name);
		if (!len || len == strtab->sh_size - s->st_name || used + len + 1 > HWTAP_UVDSO_NAMES)
			continue;	/* empty, not ended in the table, or no room */
		memcpy(names + used, name, len + 1);
		/* (.size is st_size, .dname the binding for now: 1 weak, 0 global) */
		syms[n++] = (struct hwtap_usym){ .addr = s->st_value, .name = used,
						 .size = min_t(u64, s->st_size, U32_MAX),
						 .dname = ELF64_ST_BIND(s->st_info) == STB_WEAK };
		used += len + 1;
	}
	sort(syms, n, sizeof(*syms), _hwtap_uvdso_by_addr, NULL);
	/* one name an address: clock_gettime is a weak alias of __vdso_clock_gettime, whose
	 * name perf gives (the global one; the first of equals) */
	for (i = 0; i < n; i++) {
		if (kept && syms[kept - 1].addr == syms[i].addr) {
			if (syms[kept - 1].dname && !syms[i].dname)
				syms[kept - 1] = syms[i];
			continue;
		}
		syms[kept++] = syms[i];
	}
	for (i = 0; i < kept; i++)
		syms[i].dname = 0;
	if (!kept || !nsegs)
		goto fail;
	_hwtap_uvdso = (struct hwtap_umod){ .path = "linux-vdso.so.1", .size = size, .segs = segs,
					    .nsegs = nsegs, .syms = syms, .names = names };
	/* published before any handler runs (the start), read with READ_ONCE */
	WRITE_ONCE(_hwtap_uvdso.nsyms, kept);
	return 0;
fail:
	kfree(segs);
	kfree(syms);
	kfree(names);
	return -EINVAL;
}

/* The vDSO's names, from the image the starting task maps: 0 whether or not there is one
 * to name (a kernel without a vDSO, a start from a 32-bit process: then nothing is). */
static int _hwtap_uvdso_start(void)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long base, size = 0;
	void *img;

	if (!mm || (current->flags & PF_KTHREAD))
		return 0;
#ifdef CONFIG_X86_64
	_hwtap_uvdso_image = READ_ONCE(mm->context.vdso_image);
#endif
	base = _hwtap_uvdso_base(mm);
	if (!base || mmap_read_lock_killable(mm))
		return 0;
	vma = find_vma(mm, base);
	if (vma && vma->vm_start == base)
		size = vma->vm_end - vma->vm_start;
	mmap_read_unlock(mm);
	if (!size || size > HWTAP_UVDSO_MAX)
		return 0;
	img = kvmalloc(size, GFP_KERNEL);
	if (!img)
		return 0;
	/* (its pages fault in as any user page does: process context, no lock held) */
	if (!copy_from_user(img, (const void __user *)base, size)) {
		_hwtap_uvdso_size = size;
		if (_hwtap_uvdso_parse(img, size))
			_hwtap_note("user symbols: the vDSO at %#lx is not an ELF image hwtap "
				    "reads: its addresses are not named", base);
	}
	kvfree(img);
	return 0;
}

/* After the stop: no lookup reaches it (usyms.c's pool is gone first). */
static void _hwtap_uvdso_stop(void)
{
	WRITE_ONCE(_hwtap_uvdso.nsyms, 0);
	kfree(_hwtap_uvdso.segs);
	kfree(_hwtap_uvdso.syms);
	kfree(_hwtap_uvdso.names);
	_hwtap_uvdso = (struct hwtap_umod){ 0 };
}

#endif /* HWTAP_UVDSO_C */
