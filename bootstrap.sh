#!/bin/bash
# bootstrap.sh - from a fresh Debian 12 checkout to a built (and optionally tested) hwtap.
#
#   ./bootstrap.sh          install missing packages, build, run examples/countdown.stp (in
#                           the QEMU guest where this kernel takes no modules); set up the
#                           arm64 guest (its PMU counts hardware events) and greet from it
#   ./bootstrap.sh check    the same, then `make check' (exits non-zero if any test fails):
#                           the quick tier, what CI runs (every kind of test, at most 35
#                           minutes on a new 2-core machine)
#   ./bootstrap.sh check-full  the same, then `make check-full': everything, with the smoke
#                           set on Debian 12's other kernels (6.1 PREEMPT_RT, 6.12, 6.12
#                           PREEMPT_RT), which it installs beside the default one. The
#                           guest keeps booting the default.
#
# Packages are installed with apt-get (as root, or through sudo) only when some are missing,
# so repeated runs are fast and work offline.
set -euo pipefail

cd "$(dirname "$0")"

mode=build
case "${1:-}" in
'') ;;
check) mode=check ;;
check-full) mode=check-full ;;
-h|--help)
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
	exit 0 ;;
*)
	echo "usage: $0 [check | check-full]" >&2
	exit 2 ;;
esac

say() { printf '==> %s\n' "$*"; }

packages=(
	build-essential autoconf automake pkg-config dejagnu
	python3                         # trust.exp reads hwtap-run --json with its json module
	python3-prometheus-client       # and --textfile with the Prometheus client's parser
	debhelper lintian               # package.exp builds, checks and installs the .deb
	systemd                         # systemd-analyze verifies the unit (examples.exp, package.exp)
	clang libclang-rt-14-dev        # libFuzzer runtime for make fuzz
	libelf-dev libpfm4-dev
	libdw-dev                       # process("PATH") probes: functions and variables from DWARF
	libbpf-dev                      # kernel.function probes: functions and parameters from BTF
	zlib1g-dev                      # static libelf.a needs libz.a (loader/hwtap-run is static)
	liblzma-dev libbz2-dev          # and static libdw.a (hwtap-run's readers: unwind rows)
	libiberty-dev                   # cplus_demangle(): C++ and Rust names in backtraces
	libc6-dbg                       # the C library's debug file: its static functions named
	golang-go                       # persist.exp reads --pprof's profile with go tool pprof
	libsqlite3-dev                  # hwtap-run --ras-db: rasdaemon's database
	sqlite3 libdbd-sqlite3-perl     # rasdb.exp reads it, and rasdaemon's ras-mc-ctl does
	systemtap                       # its tapset is the parse corpus
	systemtap-doc                   # its example scripts are too
	linux-headers-amd64 linux-image-amd64
	qemu-system-x86 busybox-static
	qemu-user                       # pmu.exp runs the translator as on an Intel host
	xz-utils                        # the guest runner extracts vmlinux from vmlinuz with it
	time                            # bench/front.sh counts page faults with GNU time's %R
	openssl                         # hwtap-keygen's key pair for signed modules (fleet.exp)
	linux-perf                      # stacks.exp: perf record --call-graph dwarf, the oracle for user stacks
	# the arm64 guest (-a arm64): QEMU, the cross compiler for modules and hwtap-run
	qemu-system-arm gcc-aarch64-linux-gnu libelf-dev:arm64 zlib1g-dev:arm64
	libdw-dev:arm64 liblzma-dev:arm64 libbz2-dev:arm64 libiberty-dev:arm64
	libsqlite3-dev:arm64
	qemu-efi-aarch64                # its UEFI firmware: the GHES guest (--vm-ghes)
)

# PKG[:ARCH] is installed: a name without an architecture means the native one (with arm64
# added, "libelf-dev" alone has a status for each), or an Architecture: all package.
installed() {
	local q=$1
	case $q in *:*) ;; *) q="$q:$(dpkg --print-architecture)" ;; esac
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$q" 2>/dev/null || true)" = installed ] ||
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

# The kernels hwtap claims to support besides the default, for `make check-kernels' (in
# make check-full).
test_kernels=(
	linux-image-rt-amd64 linux-headers-rt-amd64
	linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64
)
if [ "$mode" = check-full ] && [ "$(dpkg --print-architecture)" = amd64 ]; then
	packages+=("${test_kernels[@]}")
fi
# Debian 12's 6.12 beside the default 6.1 for every check: fleet.exp builds one bundle
# for both and boots each (check-kernels' smoke set runs on it too, in check-full)
if [ "$mode" != build ] && [ "$(dpkg --print-architecture)" = amd64 ]; then
	packages+=(linux-image-6.12-amd64 linux-headers-6.12-amd64)
fi

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done

if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null; then
	sudo=(sudo)
else
	sudo=(false)                    # said when something needs root
fi
as_root() {
	if [ "${sudo[*]}" = false ]; then
		echo "bootstrap.sh: $* needs root, and there is no sudo" >&2
		exit 1
	fi
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive "$@" </dev/null
}

if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		as_root dpkg --add-architecture arm64
	fi
	as_root apt-get update
	as_root apt-get install -y --no-install-recommends "${missing[@]}"
else
	say "packages: all ${#packages[@]} installed"
fi

# For the tests of the points the kernel's DWARF resolves (kernel.statement, kernel.function
# ("NAME@FILE"), .inline): Debian's -dbg package of exactly the release linux-image-amd64
# depends on, the guest's default kernel (858 MB to download, 5.6 GB installed). Check
# mode only; where it cannot be installed, those tests are UNSUPPORTED.
if [ "$mode" != build ] && [ "$(dpkg --print-architecture)" = amd64 ]; then
	release=$(dpkg-query -W -f='${Depends}' linux-image-amd64 |
		sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
	if [ -n "$release" ] && ! installed "linux-image-$release-dbg"; then
		say "installing linux-image-$release-dbg (the guest kernel's DWARF)"
		as_root apt-get install -y --no-install-recommends "linux-image-$release-dbg" ||
			say "linux-image-$release-dbg cannot be installed: its tests are UNSUPPORTED"
	fi
fi

# Debian's rasdaemon, the oracle of hwtap-run --ras-db (testsuite/hwtap.guest/rasdb.exp):
# unpacked, not installed (its package would start a daemon here), under
# /usr/local/lib/hwtap/rasdaemon; rasdb.exp copies it into the guest and runs its
# ras-mc-ctl. Check mode only; where it cannot be had, its tests are UNSUPPORTED.
rasdaemon_root=/usr/local/lib/hwtap/rasdaemon
if [ "$mode" != build ] && [ ! -x "$rasdaemon_root/usr/sbin/rasdaemon" ]; then
	say "rasdaemon: unpacking Debian's into $rasdaemon_root"
	debs=$(mktemp -d)
	chmod 755 "$debs"
	if (cd "$debs" && as_root apt-get download rasdaemon); then
		as_root mkdir -p "$rasdaemon_root"
		as_root dpkg-deb -x "$debs"/rasdaemon_*.deb "$rasdaemon_root"
	else
		say "rasdaemon cannot be downloaded: the --ras-db oracle tests are UNSUPPORTED"
	fi
	rm -rf "$debs"
fi

# The arm64 guest's kernel: Debian's linux-image and linux-headers for arm64 and its
# busybox-static, unpacked (not installed: they are another architecture's) under
# /usr/local/lib/hwtap/arm64, the headers tree in /usr/src beside the -common tree it
# includes (its links reach the host's kbuild tools), and depmod run on the modules.
arm64_root=/usr/local/lib/hwtap/arm64
arm64_release=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
	sed -n 's/^ *Depends: linux-image-\(.*\):arm64$/\1/p' | head -n 1)
if [ -z "$arm64_release" ]; then
	say "arm64 guest: no linux-image-arm64 in apt's lists; -a arm64 will not run"
elif [ -f "$arm64_root/boot/vmlinuz-$arm64_release" ] &&
     [ -d "/usr/src/linux-headers-$arm64_release" ] &&
     [ -f "$arm64_root/lib/modules/$arm64_release/modules.dep" ]; then
	say "arm64 guest: $arm64_release unpacked in $arm64_root"
else
	say "arm64 guest: unpacking $arm64_release into $arm64_root"
	common=linux-headers-${arm64_release%-arm64}-common
	installed "$common" || as_root apt-get install -y --no-install-recommends "$common"
	debs=$(mktemp -d)
	chmod 755 "$debs"
	(cd "$debs" && as_root apt-get download "linux-image-$arm64_release:arm64" \
		"linux-headers-$arm64_release:arm64" busybox-static:arm64)
	as_root mkdir -p "$arm64_root"
	for deb in "$debs"/*.deb; do
		as_root dpkg-deb -x "$deb" "$arm64_root"
	done
	as_root rm -rf "/usr/src/linux-headers-$arm64_release"
	as_root mv "$arm64_root/usr/src/linux-headers-$arm64_release" /usr/src/
	as_root depmod -b "$arm64_root" "$arm64_release"
	rm -rf "$debs"
fi

# perf for the arm64 guest, the oracle of stacks.exp's arm64 stacks: Debian's linux-perf
# for arm64 and the programs it profiles there (xz, bash, python3.11), with every arm64
# package they need, unpacked (not installed) under /usr/local/lib/hwtap/arm64-perf.
arm64_perf=/usr/local/lib/hwtap/arm64-perf
arm64_perf_pkgs="linux-perf:arm64 xz-utils:arm64 bash:arm64 python3.11-minimal:arm64"
if [ -z "$arm64_release" ]; then
	:
elif [ -x "$arm64_perf/usr/bin/perf" ]; then
	say "arm64 guest: perf unpacked in $arm64_perf"
else
	say "arm64 guest: unpacking perf into $arm64_perf"
	debs=$(mktemp -d)
	chmod 755 "$debs"
	# the closure of what they depend on, arm64's packages only (the rest are the
	# architecture-independent ones perf does not load)
	pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $arm64_perf_pkgs 2>/dev/null |
		grep -v '^[ <]' | grep ':arm64$' | sort -u)
	if (cd "$debs" && as_root apt-get download $pkgs); then
		as_root mkdir -p "$arm64_perf"
		for deb in "$debs"/*.deb; do
			as_root dpkg-deb -x "$deb" "$arm64_perf"
		done
	else
		say "arm64 perf cannot be downloaded: stacks.exp's arm64 cases are UNSUPPORTED"
	fi
	rm -rf "$debs"
fi

say "autoreconf -fi"
autoreconf -fi

say "./configure"
./configure

say "make -j2"
make -j2

say "translator/hwtap examples/countdown.stp"
translator/hwtap examples/countdown.stp

if [ -x loader/hwtap-run-arm64 ] && [ -f "$arm64_root/boot/vmlinuz-$arm64_release" ]; then
	say "translator/hwtap -a arm64: the arm64 guest's PMU counts cycles"
	translator/hwtap -a arm64 -e 'probe perf.hw.cpu_cycles.counter("cycles") { }
		probe timer.s(1) { printf("arm64 guest: %d cycles a second on 2 CPUs\n",
					  @perf("cycles")); exit() }'
fi

if [ "$mode" = check ]; then
	say "make check"
	make check
elif [ "$mode" = check-full ]; then
	say "make check-full"
	make check-full
fi

say "done"
