#!/bin/bash
# bench/kdwarf.sh - resolving points with the kernel's DWARF (linux-image-RELEASE-dbg):
# `hwtap -p2' against `stap -p2' of the same script in the same run, alternating, for a
# function named by its file, every line of a function (-L 'kernel.statement("F@FILE:*")'
# lists them with their variables) and a function's inlined copies (which needs every
# unit of the vmlinux). Median wall time of RUNS runs each (default 7) and the ratio.
#   bench/kdwarf.sh [RUNS]      (RELEASE: the guest's default kernel, or $HWTAP_KERNEL)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
hwtap=translator/hwtap
release=${HWTAP_KERNEL:-$("$hwtap" --list-kernels | sed -n 's/^\(\S*\)  default: .*/\1/p')}
if [ ! -r "/usr/lib/debug/boot/vmlinux-$release" ]; then
	echo "bench/kdwarf.sh: no DWARF for $release (install linux-image-$release-dbg)" >&2
	exit 2
fi
command -v stap > /dev/null || { echo "bench/kdwarf.sh: no stap" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

cases=(file lines inline)
for c in "${cases[@]}"; do
	case $c in
	file) point='kernel.function("vfs_read@fs/read_write.c")' ;;
	lines) point='kernel.statement("ksys_read@fs/read_write.c:*")' ;;
	inline) point='kernel.function("fdget_pos").inline' ;;
	esac
	echo "probe $point { n++ } global n" > "$tmp/$c.stp"
done
for i in $(seq "$runs"); do
	for c in "${cases[@]}"; do
		for tool in hwtap stap; do
			if [ "$tool" = hwtap ]; then
				cmd=("$hwtap" -p2 -r "$release" "$tmp/$c.stp")
			else
				cmd=(stap -p2 -r "$release" "$tmp/$c.stp")
			fi
			t0=$(date +%s%N)
			"${cmd[@]}" > "$tmp/$c.$tool.out" 2> /dev/null
			t1=$(date +%s%N)
			echo $(((t1 - t0) / 1000000)) >> "$tmp/$c.$tool.ms"
		done
	done
done
printf '%-8s %10s %10s %6s  %s\n' case "hwtap ms" "stap ms" ratio points
for c in "${cases[@]}"; do
	h=$(median < "$tmp/$c.hwtap.ms")
	s=$(median < "$tmp/$c.stap.ms")
	printf '%-8s %10s %10s %6s  %s / %s\n' "$c" "$h" "$s" "$(echo "scale=2; $h / $s" | bc)" \
		"$(grep -c '^kernel' "$tmp/$c.hwtap.out" || true)" \
		"$(grep -c '^kernel' "$tmp/$c.stap.out" || true)"
done
