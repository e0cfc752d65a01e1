#!/bin/bash
# guest/debug-kernel.sh - build and install a guest kernel with the kernel's own rule checkers
# on (lockdep, KASAN, atomic-sleep, debug objects, list, preempt and hung-task checks), from
# Debian's kernel source package, so that hwtap's guest boots it like any installed kernel:
#
#   guest/debug-kernel.sh [debug|rt-debug|sig]...   build (unless cached) and install
#                                               each flavour (default: debug)
#   guest/debug-kernel.sh --print-release FLAVOUR   the release it installs, e.g.
#                                               6.1.192-hwtap-debug; nothing else is done
#   guest/debug-kernel.sh --uninstall FLAVOUR   remove that release from /boot, /lib/modules
#                                               and the cache
#   guest/debug-kernel.sh --print-test-key     the key and certificate (PEM) the sig flavour
#                                               trusts, a line each
#
# then `translator/hwtap -r RELEASE ...`, `translator/hwtap --list-kernels`, or
# `make check RUNTESTFLAGS="runok.exp HWTAP_KERNEL=RELEASE"`.
#
# Flavours:
#   debug     linux-source-6.1 (Debian's 6.1 with Debian's patches), PREEMPT_DYNAMIC
#             (voluntary by default) like Debian's amd64 kernel, plus the checks.
#   rt-debug  the same checks on PREEMPT_RT. Debian's linux-source-6.1 does NOT ship the
#             PREEMPT_RT patch (6.1.192-2 holds only /usr/src/linux-source-6.1.tar.xz, no
#             linux-patch-6.1-rt.patch.xz); Debian keeps its rt series in the source package
#             (debian/patches-rt), and the mirror here serves no source packages (deb-src:
#             404). PREEMPT_RT is mainline from 6.12 on, so rt-debug is built from
#             linux-source-6.12 instead: release 6.12.N-hwtap-rt-debug.
#   sig       Debian's 6.1 without the checks, taking only signed modules
#             (CONFIG_MODULE_SIG_FORCE, its own modules signed at installation) and trusting,
#             beside its own build key, a test key this script makes once in the cache
#             ($cache/test-key: key.pem 0600, cert.pem, cert.der; --print-test-key names
#             them): release 6.1.N-hwtap-sig, where testsuite's fleet.exp loads a module
#             hwtap signed with that key, as on a Secure Boot machine with an enrolled MOK.
#
# What is built: x86_64_defconfig + kvm_guest.config + this script's fragment (below), then
# olddefconfig; every option the fragment turns on is checked in the final .config (the
# script stops if olddefconfig dropped one). Out of tree (O=) under the cache root
# $HWTAP_DEBUG_KERNEL_CACHE (default /var/cache/hwtap/debug-kernels), in a folder keyed by
# the source package's version, the fragment, the compiler and this script's recipe: a
# second run with the same key only checks the installation and says "cached" (< 1 s).
# The build folder stays: it is /lib/modules/RELEASE/build (its `source` link points at the
# unpacked tree beside it), where `make -C /lib/modules/RELEASE/build M=DIR modules` builds
# external modules. Installed like a Debian kernel, without an initrd (hwtap makes its own):
# /boot/vmlinuz-RELEASE (gzip bzImage with a PVH note), /boot/config-RELEASE,
# /boot/System.map-RELEASE, /lib/modules/RELEASE (modules_install, INSTALL_MOD_STRIP=1,
# depmod). Needs root (or sudo) for apt-get and the installation.
#
# Changes to Debian's tree (see build_flavour), each a fix newer kernels have: the PVH
# entry is built without KASAN (QEMU boots the vmlinux through it before KASAN's shadow
# exists; 6.1 triple-faults at once), and 6.1's printk gets 6.12's lockdep annotation of
# legacy console writes (else the first printk from hard-irq context, such as the hrtimer's
# "interrupt took N ns", is a false "BUG: Invalid wait context" that turns lockdep off for
# the rest of the boot). And the fragment builds acpi=noirq into the command line: with
# KASAN, ACPI's PCI interrupt routing took 12-17 s a virtio device under TCG.
# Once installed, `translator/hwtap --list-kernels' lists the release (the default kernel
# stays Debian's); `make check-debug' runs this script and then the guest suite on each
# flavour, `make check-kernels' leaves the -hwtap- releases out.
#
# How long (2 cores, gcc 12, TCG guest, measured 2026-11-25):
#   debug, cold: 31 min 25 s wall for the whole script on an otherwise idle machine
#     (apt-get of linux-source-6.1 and bison/flex 20 s, unpack + configure 45 s, make -j2
#     30 min 8 s, install 10 s); 46 min with guest tests running beside it
#   debug, cached: 0.6 s
#   sizes: cache 2.2 GB a flavour (unpacked source 1.5 GB, build tree 763 MB),
#     /boot/vmlinuz 15 MB, /lib/modules/RELEASE 1.9 MB (15 modules: the rest is built in)
#   debug with the ras records' options (PCIe AER, scsi_debug, memory hotplug, netdevsim),
#     cold, 2026-11-27: unpack + configure 16 s, make -j2 13 min (775 s) with a guest test
#     run beside it; /boot/vmlinuz 17 MB, /lib/modules/RELEASE 3.0 MB (22 modules)
#   sig, cold, 2026-12-03: unpack + configure 14 s, make -j2 7 min 49 s (469 s; no
#     KASAN or lockdep), nice 10 beside other work; cache 4.0 GB, /lib/modules 2.2 MB
#   guest, `hwtap -e 'probe begin { println("hello") exit() }'' (wall, second run):
#     6.1.0-56-amd64 (Debian's)  3.1 s, the script starts 3.4 s after QEMU
#     6.1.192-hwtap-debug        9.1 s, the script starts 8.7 s after QEMU (26-29 s
#                                without acpi=noirq)
#   An external module against /lib/modules/6.1.192-hwtap-debug/build: 5.3 s cold.
#   rt-debug, cold: 29 min 35 s wall (apt-get of linux-source-6.12, unpack + configure
#     120 s, make -j2 27 min 2 s, with guest tests running beside it); cache 2.6 GB
#     (source 1.7 GB, build tree 913 MB), /boot/vmlinuz 18 MB, /lib/modules 2.7 MB
#   guest boot with another guest run and a build beside it (load 3.5), to the script:
#     Debian's 6.1 4.9 s, 6.1.192-hwtap-debug 11.8 s, 6.12.117-hwtap-rt-debug 21-22 s
#     (under more load rt-debug passed 30 s before /init, the runner's limit for a hung
#     boot, twice in a row)
set -euo pipefail

cache=${HWTAP_DEBUG_KERNEL_CACHE:-/var/cache/hwtap/debug-kernels}
jobs=${HWTAP_DEBUG_KERNEL_JOBS:-$(nproc)}
# Bump when the steps below change what gets built: it is part of the cache key.
recipe=1

say() { printf '==> debug-kernel: %s\n' "$*"; }
die() { printf 'debug-kernel.sh: error: %s\n' "$*" >&2; exit 1; }

usage() {
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
}

if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null; then
	sudo=(sudo)
else
	sudo=(false)
fi
as_root() {
	if [ "${sudo[*]}" = false ]; then
		die "$* needs root, and there is no sudo"
	fi
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive "$@" </dev/null
}

# PKG is installed (for the native architecture: with arm64 added, as bootstrap.sh does,
# "libelf-dev" alone has a status for each).
installed() {
	local q
	q=$1:$(dpkg --print-architecture)
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$q" 2>/dev/null || true)" = installed ] ||
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

# ---- flavours ------------------------------------------------------------------------------

source_package() {
	case $1 in
	debug) echo linux-source-6.1 ;;
	# 6.1 has no PREEMPT_RT here (see the header): 6.12 has it in mainline
	rt-debug) echo linux-source-6.12 ;;
	sig) echo linux-source-6.1 ;;
	*) return 1 ;;
	esac
}

# The Debian version of PKG: the installed one, else apt's candidate ("" when neither).
package_version() {
	local v=""
	if installed "$1"; then
		v=$(dpkg-query -W -f='${Version}' "$1")
	else
		v=$(apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
		[ "$v" = "(none)" ] && v=""
	fi
	echo "$v"
}

# 6.1.192-2 -> 6.1.192, 6.12.117-1~deb12u1 -> 6.12.117 (what the tarball's Makefile says).
upstream_version() {
	local v=${1#*:}
	v=${v%%-*}
	echo "${v%%+*}"
}

# The config fragment of FLAVOUR: what must be =y/=m (checked after olddefconfig), and what
# is switched off to keep the build small (only warned about if something turns it back on).
fragment() {
	[ "$1" = sig ] || cat <<'EOF'
# ---- the rule checkers ----
CONFIG_DEBUG_KERNEL=y
CONFIG_PROVE_LOCKING=y
CONFIG_PROVE_RAW_LOCK_NESTING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_PREEMPT=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_DEBUG_OBJECTS=y
CONFIG_DEBUG_OBJECTS_TIMERS=y
CONFIG_DEBUG_OBJECTS_WORK=y
CONFIG_DEBUG_LIST=y
CONFIG_DETECT_HUNG_TASK=y
CONFIG_SOFTLOCKUP_DETECTOR=y
CONFIG_HARDLOCKUP_DETECTOR=y
EOF
	cat <<'EOF'
# ---- what hwtap's runtime and tests use ----
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_MODULE_FORCE_UNLOAD=y
CONFIG_KALLSYMS=y
CONFIG_KALLSYMS_ALL=y
CONFIG_PERF_EVENTS=y
CONFIG_FTRACE=y
CONFIG_FUNCTION_TRACER=y
CONFIG_TRACING=y
CONFIG_TRACEPOINTS=y
CONFIG_RING_BUFFER=y
CONFIG_RELAY=y
CONFIG_KPROBES=y
CONFIG_KRETPROBES=y
CONFIG_KPROBE_EVENTS=y
CONFIG_UPROBES=y
CONFIG_UPROBE_EVENTS=y
CONFIG_SMP=y
CONFIG_HOTPLUG_CPU=y
CONFIG_NR_CPUS=64
CONFIG_HIGH_RES_TIMERS=y
CONFIG_HZ_250=y
CONFIG_HZ=250
CONFIG_X86_MCE=y
CONFIG_X86_MCE_INTEL=y
CONFIG_X86_MCE_AMD=y
CONFIG_X86_MCE_INJECT=m
CONFIG_MEMORY_FAILURE=y
CONFIG_RAS=y
CONFIG_ACPI=y
CONFIG_ACPI_APEI=y
CONFIG_ACPI_APEI_GHES=y
CONFIG_PSTORE=y
CONFIG_PSTORE_RAM=m
# (runok's records of programs in overlayfs and of a FUSE file that never answers)
CONFIG_FUSE_FS=m
CONFIG_OVERLAY_FS=m
CONFIG_DEBUG_FS=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_DEVTMPFS=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_KERNEL_GZIP=y
CONFIG_HYPERVISOR_GUEST=y
CONFIG_PVH=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_VIRTIO_PCI=m
CONFIG_VIRTIO_CONSOLE=m
CONFIG_NET_9P=m
CONFIG_NET_9P_VIRTIO=m
CONFIG_9P_FS=m
CONFIG_PM=y
CONFIG_PM_SLEEP=y
CONFIG_SUSPEND=y
CONFIG_PM_DEBUG=y
CONFIG_PM_ADVANCED_DEBUG=y
CONFIG_PM_SLEEP_DEBUG=y
CONFIG_KEXEC=y
# ---- what the ras records inject through (else UNSUPPORTED on this kernel) ----
# PCIe AER and its injector (runok ras-aer-injected, rasdb.exp, --vm-pcie), scsi_debug's
# medium errors (ras-disk-error-medium), memory hotplug's soft_offline_page file
# (ras-action-soft-offline), and netdevsim, whose devlink health reporter "dummy" reports
# what is written to its debugfs break_health file (ras-devlink-health-netdevsim: Debian's
# kernels build netdevsim nowhere).
CONFIG_PCIEPORTBUS=y
CONFIG_PCIEAER=y
CONFIG_PCIEAER_INJECT=m
CONFIG_SCSI=y
CONFIG_BLK_DEV_SD=y
CONFIG_SCSI_LOWLEVEL=y
CONFIG_SCSI_DEBUG=m
CONFIG_MEMORY_HOTPLUG=y
CONFIG_NETDEVSIM=m
# and the RAS sources Debian's kernels have: EDAC's core and the extended error log
# (ras:extlog_mem_event exists only with it), built in as there
CONFIG_EDAC=y
CONFIG_ACPI_EXTLOG=y
# BTF, as Debian's kernels have it: kernel.function and kernel.trace find functions,
# tracepoints and their arguments' types there (translator/target/btf.c). It needs DWARF to be
# built from (pahole, package dwarves), which the build then drops from nothing: vmlinux
# carries both. DWARF 4: pahole 1.24 reads it fastest.
CONFIG_BPF_SYSCALL=y
CONFIG_DEBUG_INFO_DWARF4=y
CONFIG_DEBUG_INFO_BTF=y
# x86_64_defconfig has -Werror, which external modules inherit: with 6.12's
# -Wmissing-prototypes hwtap's feature tests (runtime/features) failed to compile there.
# Debian's kernels build without it.
CONFIG_WERROR=n
# With KASAN every slab allocation and free saves its stack (an ORC unwind, with lockdep
# on each frame's RCU lookup), and ACPICA allocates and frees an object per AML operation:
# evaluating QEMU i440fx's _PRT (the PCI interrupt routing) for each PCI device that is
# enabled took 12-17 s under TCG (insmod virtio_pci). acpi=noirq routes PCI interrupts
# without ACPI (the MP table; virtio uses MSI-X anyway): 0.2 s. Built in, as the runner's
# command line is not ours; it goes before the boot loader's.
CONFIG_CMDLINE_BOOL=y
CONFIG_CMDLINE="acpi=noirq"
# CONFIG_LOCALVERSION_AUTO is not set
EOF
	# the release: 6.1.192-hwtap-debug
	printf 'CONFIG_LOCALVERSION="-hwtap-%s"\n' "$1"
	cat <<'EOF'
# ---- off: not needed in a TCG guest that boots with an initramfs ----
# CONFIG_DRM is not set
# CONFIG_FB is not set
# CONFIG_AGP is not set
# CONFIG_SOUND is not set
# CONFIG_USB_SUPPORT is not set
# CONFIG_HID is not set
# CONFIG_HID_SUPPORT is not set
# CONFIG_INPUT_JOYSTICK is not set
# CONFIG_INPUT_TABLET is not set
# CONFIG_INPUT_TOUCHSCREEN is not set
# CONFIG_INPUT_MISC is not set
# CONFIG_WLAN is not set
# CONFIG_WIRELESS is not set
# CONFIG_CFG80211 is not set
# CONFIG_MAC80211 is not set
# CONFIG_RFKILL is not set
# CONFIG_ETHERNET is not set
# CONFIG_VIRTIO_NET is not set
# CONFIG_VIRTIO_BLK is not set
# CONFIG_VIRTIO_INPUT is not set
# CONFIG_NETFILTER is not set
# CONFIG_IP_PNP is not set
# CONFIG_MD is not set
# CONFIG_ATA is not set
# CONFIG_PCCARD is not set
# CONFIG_HOTPLUG_PCI is not set
# CONFIG_NFS_FS is not set
# CONFIG_ISO9660_FS is not set
# CONFIG_VFAT_FS is not set
# CONFIG_MSDOS_FS is not set
# CONFIG_SECURITY_SELINUX is not set
# CONFIG_EFI is not set
# CONFIG_CRASH_DUMP is not set
EOF
	[ "$1" = sig ] || echo '# CONFIG_MODULE_SIG is not set'
	case $1 in
	debug)
		cat <<'EOF'
# ---- preemption as Debian's amd64 kernel: dynamic, voluntary by default ----
CONFIG_PREEMPT_DYNAMIC=y
CONFIG_PREEMPT_VOLUNTARY=y
EOF
		;;
	rt-debug)
		cat <<'EOF'
# ---- PREEMPT_RT (mainline on 6.12) ----
CONFIG_EXPERT=y
CONFIG_PREEMPT_RT=y
# CONFIG_PREEMPT_DYNAMIC is not set
EOF
		;;
	sig)
		cat <<'EOF'
# ---- only signed modules, as under Secure Boot: the build's own key and the test key ----
CONFIG_PREEMPT_DYNAMIC=y
CONFIG_PREEMPT_VOLUNTARY=y
CONFIG_MODULE_SIG=y
CONFIG_MODULE_SIG_FORCE=y
CONFIG_MODULE_SIG_ALL=y
CONFIG_MODULE_SIG_SHA256=y
CONFIG_MODULE_SIG_HASH="sha256"
CONFIG_SYSTEM_TRUSTED_KEYRING=y
CONFIG_SECURITY_LOCKDOWN_LSM=y
EOF
		printf 'CONFIG_SYSTEM_TRUSTED_KEYS="%s"\n' "$cache/test-key/cert.pem"
		;;
	esac
}

# The sig flavour's test key: made once (RSA 2048, self-signed, 10 years), the private key
# 0600 and its folder 0700; kept across builds, since the kernel built trusts it.
test_key() {
	local d=$cache/test-key
	[ -f "$d/key.pem" ] && [ -f "$d/cert.pem" ] && [ -f "$d/cert.der" ] && return 0
	ensure_packages openssl
	rm -rf "$d"
	mkdir -m 0700 "$d"
	(umask 077 && openssl req -new -x509 -newkey rsa:2048 -sha256 -nodes -days 3650 \
		-subj "/CN=hwtap test signing key/" -keyout "$d/key.pem" -out "$d/cert.pem" \
		2>"$d/openssl.log") || die "cannot make the test key (see $d/openssl.log)"
	openssl x509 -in "$d/cert.pem" -outform DER -out "$d/cert.der" ||
		die "cannot write $d/cert.der"
	chmod 0644 "$d/cert.pem" "$d/cert.der"
}

# The backport of 6.12's printk_legacy_allow_spinlock_enter() to 6.1 (see build_flavour).
printk_patch() {
	cat <<'EOF'
--- a/kernel/printk/printk.c
+++ b/kernel/printk/printk.c
@@ -1957,6 +1957,28 @@
 }
 
 /*
+ * Legacy console printing from printk() caller context does not respect
+ * raw_spinlock/spinlock nesting. For !PREEMPT_RT the lockdep warning is a
+ * false positive (backported from 6.12's printk_legacy_allow_spinlock_enter()).
+ */
+#ifdef CONFIG_PREEMPT_RT
+static inline void printk_legacy_allow_spinlock_enter(void) { }
+static inline void printk_legacy_allow_spinlock_exit(void) { }
+#else
+static DEFINE_WAIT_OVERRIDE_MAP(printk_legacy_map, LD_WAIT_SLEEP);
+
+static inline void printk_legacy_allow_spinlock_enter(void)
+{
+	lock_map_acquire_try(&printk_legacy_map);
+}
+
+static inline void printk_legacy_allow_spinlock_exit(void)
+{
+	lock_map_release(&printk_legacy_map);
+}
+#endif
+
+/*
  * Call the specified console driver, asking it to write out the specified
  * text and length. If @dropped_text is non-NULL and any records have been
  * dropped, a dropped message will be written out first.
@@ -1966,6 +1988,7 @@
 {
 	size_t dropped_len;
 
+	printk_legacy_allow_spinlock_enter();
 	if (con->dropped && dropped_text) {
 		dropped_len = snprintf(dropped_text, DROPPED_TEXT_MAX,
 				       "** %lu printk messages dropped **\n",
@@ -1975,6 +1998,7 @@
 	}
 
 	con->write(con, text, len);
+	printk_legacy_allow_spinlock_exit();
 }
 
 /*
EOF
}

release_of() {
	local pkg ver
	pkg=$(source_package "$1") || die "unknown flavour '$1' (debug, rt-debug or sig)"
	ver=$(package_version "$pkg")
	[ -n "$ver" ] || die "apt knows no $pkg (apt-get update?)"
	echo "$(upstream_version "$ver")-hwtap-$1"
}

# ---- the steps -----------------------------------------------------------------------------

build_deps=(build-essential bc bison flex libssl-dev libelf-dev cpio kmod xz-utils gzip perl
	    dwarves)

ensure_packages() {
	local missing=() p
	for p in "$@"; do
		installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing: ${missing[*]}"
	# apt-get update only when apt's lists do not know one of them
	for p in "${missing[@]}"; do
		if [ -z "$(package_version "$p")" ]; then
			as_root apt-get update
			break
		fi
	done
	as_root apt-get install -y --no-install-recommends "${missing[@]}"
}

# Check the final .config against the fragment: every =y/=m/=value line must be there as
# written (olddefconfig drops options whose dependencies are off, silently), every =n line
# must be off; a "# CONFIG_X is not set" line that something turned on is only a warning.
check_config() {
	local config=$1 frag=$2 line sym want have bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			sym=${line%%=*}
			want=${line#*=}
			have=$(sed -n "s/^$sym=//p" "$config")
			# =n: must be off (absent, or "# CONFIG_X is not set")
			[ "$want" = n ] && [ -z "$have" ] && have=n
			if [ "$have" != "$want" ]; then
				printf 'debug-kernel.sh: %s=%s asked for, the .config has %s\n' \
					"$sym" "$want" "${have:-it off}" >&2
				bad=1
			fi
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			have=$(sed -n "s/^$sym=//p" "$config")
			if [ -n "$have" ]; then
				printf 'debug-kernel.sh: warning: %s=%s (something selects it)\n' \
					"$sym" "$have" >&2
			fi
			;;
		esac
	done <"$frag"
	[ $bad -eq 0 ] || die "$config lacks options the fragment asks for (see above)"
}

# The installation of RELEASE is the one built in DIR.
install_intact() {
	local release=$1 dir=$2
	[ -f "$dir/installed" ] && [ -f "/boot/vmlinuz-$release" ] &&
	[ -f "/lib/modules/$release/modules.dep" ] &&
	[ "$(readlink -f "/lib/modules/$release/build")" = "$(readlink -f "$dir/build")" ] &&
	[ "$(sha256sum <"/boot/vmlinuz-$release")" = "$(cat "$dir/installed")" ]
}

# Remove RELEASE's installed files (not the cache).
uninstall_release() {
	local release=$1
	as_root rm -rf "/lib/modules/$release"
	as_root rm -f "/boot/vmlinuz-$release" "/boot/config-$release" "/boot/System.map-$release"
}

build_flavour() {
	local flavour=$1 pkg ver release key dir src build t0 t1 tarball
	pkg=$(source_package "$flavour") || die "unknown flavour '$flavour' (debug, rt-debug or sig)"
	ver=$(package_version "$pkg")
	[ -n "$ver" ] || ensure_packages "$pkg"
	ver=$(package_version "$pkg")
	[ -n "$ver" ] || die "apt knows no $pkg"
	release=$(upstream_version "$ver")-hwtap-$flavour
	tarball=/usr/src/${pkg}.tar.xz

	[ "$flavour" != sig ] || test_key
	key=$( {
		echo "recipe $recipe"
		echo "package $pkg $ver"
		gcc --version | head -n 1
		fragment "$flavour"
		[ "$flavour" != sig ] || cat "$cache/test-key/cert.pem"
	} | sha256sum | cut -c1-12)
	dir=$cache/$release-$key
	src=$dir/src
	build=$dir/build

	if install_intact "$release" "$dir"; then
		say "$release is cached and installed ($dir): nothing to do"
		return 0
	fi

	ensure_packages "${build_deps[@]}" "$pkg"
	[ -f "$tarball" ] || die "$pkg is installed but $tarball is missing"

	if [ ! -f "$dir/built" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		t0=$(date +%s)
		say "$release: unpacking $tarball ($pkg $ver) into $src"
		tar -xf "$tarball" -C "$dir"
		mv "$dir/${pkg}" "$src"
		# 6.1's PVH entry (arch/x86/platform/pvh/enlighten.c) runs before KASAN's
		# shadow is mapped: instrumented, it faults at once (a triple fault, not a
		# line on the console) and QEMU cannot boot the vmlinux. Mainline turned KASAN
		# off there (6.12's Makefile has it); so do we where the tree lacks it.
		local pvh_mk=$src/arch/x86/platform/pvh/Makefile
		grep -q '^KASAN_SANITIZE' "$pvh_mk" ||
			sed -i '/^OBJECT_FILES_NON_STANDARD_head.o/a KASAN_SANITIZE := n' "$pvh_mk"
		grep -q '^KASAN_SANITIZE' "$pvh_mk" || die "cannot turn KASAN off in $pvh_mk"
		# It also calls memcmp() (xen_cpuid_base()), from lib/string.c, which 6.1 and
		# 6.12 leave uninstrumented only with AMD_MEM_ENCRYPT (as Debian's config has
		# it): turn KASAN off for string.o always (the mem*() checks stay: they are
		# KASAN's own wrappers in mm/kasan/shadow.c).
		printf '\n# hwtap debug-kernel.sh: the PVH entry calls memcmp() before KASAN is up\n%s\n' \
			'KASAN_SANITIZE_string.o := n' >>"$src/lib/Makefile"
		# 6.1's printk writes to legacy consoles (the 8250 of the guest's console=ttyS0)
		# from the caller's context: a printk in hard-irq context (the hrtimer's
		# "interrupt took N ns", which a slow TCG guest prints in nearly every boot)
		# takes the port's spinlock_t under raw locks, which PROVE_RAW_LOCK_NESTING
		# reports as "BUG: Invalid wait context" - and then lockdep switches itself off
		# for the rest of the boot. A false positive on !PREEMPT_RT; 6.12 marks the
		# console write (printk_legacy_allow_spinlock_enter()): backported here.
		if [ "$flavour" != sig ] &&
		   ! grep -q printk_legacy_allow_spinlock_enter "$src/kernel/printk/printk.c"; then
			printk_patch | patch -p1 -d "$src" --forward --quiet ||
				die "cannot apply the printk patch to $src"
		fi
		fragment "$flavour" >"$dir/hwtap.config"
		cp "$dir/hwtap.config" "$src/kernel/configs/hwtap.config"

		say "$release: x86_64_defconfig + kvm_guest.config + the fragment, olddefconfig"
		make -s -C "$src" O="$build" LOCALVERSION= \
			x86_64_defconfig kvm_guest.config hwtap.config >"$dir/config.log" 2>&1 || {
			tail -n 30 "$dir/config.log" >&2
			die "configuring failed (all of it in $dir/config.log)"
		}
		check_config "$build/.config" "$dir/hwtap.config"

		say "$release: make -j$jobs (log: $dir/build.log)"
		t1=$(date +%s)
		if ! make -C "$src" O="$build" LOCALVERSION= -j"$jobs" >"$dir/build.log" 2>&1; then
			grep -E 'error|Error' "$dir/build.log" | head -n 20 >&2 || true
			tail -n 20 "$dir/build.log" >&2
			die "the build failed (all of it in $dir/build.log)"
		fi
		local got
		got=$(cat "$build/include/config/kernel.release")
		[ "$got" = "$release" ] || die "the tree's release is $got, not $release"
		echo "unpack+configure $((t1 - t0)) s, make $(($(date +%s) - t1)) s" >"$dir/built"
		say "$release: built: $(cat "$dir/built")"
	fi

	say "$release: installing /boot/vmlinuz-$release and /lib/modules/$release"
	uninstall_release "$release"
	as_root install -m 0644 "$build/arch/x86/boot/bzImage" "/boot/vmlinuz-$release"
	as_root install -m 0644 "$build/.config" "/boot/config-$release"
	as_root install -m 0644 "$build/System.map" "/boot/System.map-$release"
	as_root make -s -C "$src" O="$build" LOCALVERSION= INSTALL_MOD_STRIP=1 modules_install \
		>"$dir/install.log" 2>&1 || {
		tail -n 20 "$dir/install.log" >&2
		die "modules_install failed (all of it in $dir/install.log)"
	}
	# modules_install links build (the O= folder) and source; make sure of both
	as_root ln -sfn "$build" "/lib/modules/$release/build"
	as_root ln -sfn "$src" "/lib/modules/$release/source"
	as_root depmod -a "$release"
	sha256sum <"/boot/vmlinuz-$release" >"$dir/installed"

	# Other builds of this flavour (an older source version or fragment) go: their
	# release is replaced or their build tree is no longer what /lib/modules links to.
	local old oldrel
	for old in "$cache"/*-hwtap-"$flavour"-*; do
		[ -d "$old" ] && [ "$old" != "$dir" ] || continue
		oldrel=$(basename "$old")
		oldrel=${oldrel%-*}
		if [ "$oldrel" != "$release" ]; then
			say "removing the older $oldrel"
			uninstall_release "$oldrel"
		fi
		rm -rf "$old"
	done
	say "$release: installed ($(du -sh "/lib/modules/$release/kernel" | cut -f1) of modules;" \
	    "cache $(du -sh "$dir" | cut -f1)); run it with: translator/hwtap -r $release ..."
}

# ---- the command line ----------------------------------------------------------------------

flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help)
		usage
		exit 0 ;;
	--print-release)
		[ $# -ge 2 ] || die "--print-release needs a flavour (debug, rt-debug or sig)"
		release_of "$2"
		exit 0 ;;
	--uninstall)
		[ $# -ge 2 ] || die "--uninstall needs a flavour (debug, rt-debug or sig)"
		rel=$(release_of "$2")
		say "removing $rel and its cached builds"
		uninstall_release "$rel"
		as_root rm -rf "$cache/$rel"-*
		exit 0 ;;
	--print-test-key)
		printf '%s\n' "$cache/test-key/key.pem" "$cache/test-key/cert.pem"
		exit 0 ;;
	debug|rt-debug|sig)
		flavours+=("$1") ;;
	*)
		usage >&2
		exit 2 ;;
	esac
	shift
done
[ ${#flavours[@]} -gt 0 ] || flavours=(debug)

as_root mkdir -p "$cache"
[ -w "$cache" ] || as_root chown "$(id -u):$(id -g)" "$cache"
exec 9>>"$cache/.lock"
if ! flock -n 9; then
	say "another debug-kernel.sh holds $cache/.lock: waiting"
	flock 9
fi
for f in "${flavours[@]}"; do
	build_flavour "$f"
done
