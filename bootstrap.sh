#!/bin/bash
# bootstrap.sh - from a fresh Debian 12 checkout to a built (and optionally tested) hwtap.
#
#   ./bootstrap.sh          install missing packages, build, run examples/countdown.stp (in
#                           the QEMU guest where this kernel takes no modules)
#   ./bootstrap.sh check    the same, then `make check' (exits non-zero if any test fails)
#
# Packages are installed with apt-get (as root, or through sudo) only when some are missing,
# so repeated runs are fast and work offline.
set -euo pipefail

cd "$(dirname "$0")"

mode=build
case "${1:-}" in
'') ;;
check) mode=check ;;
-h|--help)
	sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
	exit 0 ;;
*)
	echo "usage: $0 [check]" >&2
	exit 2 ;;
esac

say() { printf '==> %s\n' "$*"; }

packages=(
	build-essential autoconf automake pkg-config dejagnu
	clang libclang-rt-14-dev        # libFuzzer runtime for make fuzz
	libelf-dev libpfm4-dev
	zlib1g-dev                      # static libelf.a needs libz.a (loader/hwtap-run is static)
	systemtap                       # its tapset is the parse corpus
	linux-headers-amd64 linux-image-amd64
	qemu-system-x86 busybox-static
	xz-utils                        # the guest runner extracts vmlinux from vmlinuz with it
)

missing=()
for p in "${packages[@]}"; do
	if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" != installed ]; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	if [ "$(id -u)" -eq 0 ]; then
		sudo=()
	elif command -v sudo >/dev/null; then
		sudo=(sudo)
	else
		echo "bootstrap.sh: missing packages (${missing[*]}) and not root, no sudo" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update </dev/null
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
else
	say "packages: all ${#packages[@]} installed"
fi

say "autoreconf -fi"
autoreconf -fi

say "./configure"
./configure

say "make -j2"
make -j2

say "translator/hwtap examples/countdown.stp"
translator/hwtap examples/countdown.stp

if [ "$mode" = check ]; then
	say "make check"
	make check
fi

say "done"
