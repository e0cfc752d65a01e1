/* guest_arch.c - what differs between the architectures the guest runs, one entry each:
 * QEMU's program and machine, the console, how the kernel boots, and how modules are
 * built for it. Nothing elsewhere asks which architecture it is.
 *
 * The host's architecture boots the kernels of this machine (/boot, /lib/modules, its
 * packages). Another one boots kernels unpacked from Debian's packages of that
 * architecture under HWTAP_GUEST_ROOT/DEBIAN_ARCH (default /usr/local/lib/hwtap/arm64:
 * boot/vmlinuz-R, lib/modules/R with build -> /usr/src/linux-headers-R, bin/busybox),
 * as bootstrap.sh lays them out.
 */
#include "guest_impl.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

static const GuestArch arches[] = {
	{
		.name = "x86_64", .alias = "amd64", .debian = "amd64",
		.qemu = "qemu-system-x86_64", .qemu_package = "qemu-system-x86",
		.machine = { "-cpu", "max,vendor=GenuineIntel", NULL },
		/* One TCG thread for both vCPUs: with QEMU 7.2's multi-threaded TCG, about one
		 * boot in four of runok's perf set had both vCPUs stuck in the kernel taking the
		 * same write fault on a user page over and over (copy_to_user, put_user,
		 * clear_user) while the guest's page tables, read from QEMU's monitor, allowed the
		 * write; or hung silently in a suspend. 10 boots of that set with one thread: none,
		 * and no slower (30 s each both ways). What needs its CPUs to run at the same time
		 * (lock contention) asks for a thread each: --vm-tcg-threads multi. */
		.accel = "tcg,thread=single",
		.console = "ttyS0",
		.pvh = true,
		.elf_machine = EM_X86_64,
		.kbuild_arch = "x86", .cross_compile = "x86_64-linux-gnu-",
	},
	{
		.name = "arm64", .alias = "aarch64", .debian = "arm64",
		.qemu = "qemu-system-aarch64", .qemu_package = "qemu-system-arm",
		/* PMUv3 is emulated: hardware perf events count for real (TCG) */
		.machine = { "-M", "virt", "-cpu", "max,pauth-impdef=on", NULL },
		.accel = "tcg",
		.console = "ttyAMA0",
		.pvh = false,           /* the vmlinuz is an uncompressed Image: booted as is */
		.elf_machine = EM_AARCH64,
		.kbuild_arch = "arm64", .cross_compile = "aarch64-linux-gnu-",
	},
};

const GuestArch *guest_host_arch(void)
{
#if defined(__x86_64__)
	return &arches[0];
#elif defined(__aarch64__)
	return &arches[1];
#else
#error "hwtap's guest knows amd64 and arm64 hosts only"
#endif
}

const GuestArch *guest_find_arch(const char *name)
{
	if (!name || !*name)
		return guest_host_arch();
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (!strcmp(name, arches[i].name) || !strcmp(name, arches[i].alias))
			return &arches[i];
	return NULL;
}

const char *guest_arch_names(void)
{
	return "x86_64 (amd64), arm64 (aarch64)";
}

bool guest_arch_is_host(const GuestArch *a)
{
	return a == guest_host_arch();
}

char *guest_arch_root(const GuestArch *a)
{
	if (guest_arch_is_host(a))
		return guest_xstrdup("");
	const char *base = getenv("HWTAP_GUEST_ROOT");
	return guest_xformat("%s/%s", base && *base ? base : "/usr/local/lib/hwtap", a->debian);
}
