#!/bin/bash
# bench/backend.sh - passes 4-5 against SystemTap 4.8 in the same run.
#
# Prints seconds for: hwtap end to end in the guest with a cached module, a pass-4 cache
# hit, a cold pass 4 (an empty module cache), and stap -p4 cold on the same script with the
# ratio. Then pass 4 of a module not yet built (the kernel's features and kbuild's compiler
# probes known from before, as on a user's second script) against a bare kbuild of an
# empty module on the same tree, with hwtap-cc (the compiler front that remembers the
# probes) and without it (HWTAP_KBUILD_CC=0): medians of 5, interleaved, and the ratios. stap needs a runtime copy that builds for this kernel (kernel-facts.md: pass it as
# STAP_RUNTIME=DIR); without one the stap line is skipped.
#   bench/backend.sh [HWTAP]
set -euo pipefail
cd "$(dirname "$0")/.."
hwtap=${1:-translator/hwtap}
script='probe begin { println("hi"); exit() }'
release=$("$hwtap" --list-kernels 2>/dev/null | awk '/  default:/ { print $1 }')	# the guest's
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

secs() {   # secs CMD... : wall seconds of one run, output discarded
	local start end
	start=$(date +%s%N)
	"$@" > /dev/null 2>&1
	end=$(date +%s%N)
	echo "scale=3; ($end - $start) / 1000000000" | bc
}

"$hwtap" -p4 -e "$script" > /dev/null
"$hwtap" --vm -e "$script" > /dev/null                 # warm the vmlinux cache
printf '%-44s %8s s\n' "hwtap --vm, cached module (end to end)" \
	"$(secs "$hwtap" --vm -e "$script")"
printf '%-44s %8s s\n' "hwtap -p4, cache hit" "$(secs "$hwtap" -p4 -e "$script")"
cold=$(secs env XDG_CACHE_HOME="$tmp/hw" "$hwtap" -p4 -e "$script")
printf '%-44s %8s s\n' "hwtap -p4, cold" "$cold"
if command -v stap > /dev/null && [ -n "${STAP_RUNTIME:-}" ] && [ -n "$release" ]; then
	stap=$(secs env SYSTEMTAP_DIR="$tmp/st" stap -R "$STAP_RUNTIME" -r "$release" -p4 \
		-e "$script")
	printf '%-44s %8s s\n' "stap -p4, cold" "$stap"
	printf '%-44s %8sx\n' "stap / hwtap (cold pass 4)" "$(echo "scale=1; $stap / $cold" | bc)"
else
	echo "stap -p4: set STAP_RUNTIME to a runtime copy that builds for $release"
fi

# A module not built before: a new -m name makes new C, nothing else changes.
build=/lib/modules/$release/build
mkdir -p "$tmp/empty" "$tmp/warm"
printf '#include <linux/module.h>\nMODULE_LICENSE("GPL");\n' > "$tmp/empty/e.c"
echo 'obj-m := e.o' > "$tmp/empty/Kbuild"
bare() { rm -f "$tmp/empty/"*.o "$tmp/empty/"*.ko "$tmp/empty/"*.mod* "$tmp/empty/".*.cmd
	 make -s -C "$build" M="$tmp/empty" modules; }
fresh() { XDG_CACHE_HOME="$tmp/warm" "$hwtap" -p4 -m "bench_$(date +%s%N)" -e "$script"; }
unfronted() { HWTAP_KBUILD_CC=0 fresh; }
fresh > /dev/null 2>&1                                  # features and probe answers
declare -a t_bare t_front t_plain
for i in 1 2 3 4 5; do
	t_bare+=("$(secs bare)")
	t_front+=("$(secs fresh)")
	t_plain+=("$(secs unfronted)")
done
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
b=$(median "${t_bare[@]}"); f=$(median "${t_front[@]}"); p=$(median "${t_plain[@]}")
printf '%-44s %8s s\n' "bare kbuild of an empty module" "$b"
printf '%-44s %8s s\n' "hwtap -p4, new module (hwtap-cc)" "$f"
printf '%-44s %8s s\n' "hwtap -p4, new module (HWTAP_KBUILD_CC=0)" "$p"
printf '%-44s %8sx\n' "hwtap-cc / bare kbuild" "$(echo "scale=2; $f / $b" | bc)"
printf '%-44s %8sx\n' "without / with hwtap-cc" "$(echo "scale=2; $p / $f" | bc)"
