#!/bin/bash
# bench/profile.sh - what a timer.profile-style handler costs (bench/profile.stp: one add
# to a per-CPU aggregate), hwtap against SystemTap 4.8 in the same guest boot. The handler
# runs on every page fault of a workload (bench/faults.c) whose time per fault is measured
# without a script, with hwtap's module and with stap's, in rounds; the handler's cost is
# the median of each round's increase over its bare run. TCG emulation makes the absolute
# numbers slow and noisy; the ratio is what to read.
#   bench/profile.sh [HWTAP]        (RUNS=15 rounds by default)
# stap builds through bench/stap-guest.sh; without stap only hwtap runs.
set -euo pipefail
cd "$(dirname "$0")/.."
hwtap=${1:-translator/hwtap}
runs=${RUNS:-15}
. bench/stap-guest.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gcc -O2 -static -o "$tmp/faults" bench/faults.c
cp "$("$hwtap" -p4 -m hwtap_bench_profile -D STP_NO_OVERLOAD bench/profile.stp)" "$tmp/h.ko"
files=(--vm-file "$tmp/h.ko:/root/h.ko" --vm-file loader/hwtap-run:/root/hwtap-run
       --vm-file "$tmp/faults:/root/faults")
stap_run=true
if stap_build "$tmp" stap_bench_profile "$PWD/bench/profile.stp" -D STP_NO_OVERLOAD; then
	files+=("${stap_files[@]}")
	stap_run='echo "stap $(/usr/bin/staprun -c "/root/faults 8 8" /root/stap_bench_profile.ko | tr "\n" " ")"'
fi
translator/hwtap-guest "${files[@]}" --timeout 900 -- "cd /root; mkdir -p /tmp; exec 2>&1
for i in \$(seq $runs); do
	echo \"bare \$(/root/faults 8 8)\"
	echo \"hwtap \$(/root/hwtap-run -c '/root/faults 8 8' /root/h.ko | tr '\n' ' ')\"
	$stap_run
done" > "$tmp/out"
[ -z "${KEEP_OUT:-}" ] || cp "$tmp/out" "$KEEP_OUT"

# Rounds of "bare NS", "hwtap NS hits N", "stap NS hits N" lines. The host's load drifts
# over minutes, so each round's costs are taken against that round's bare run, and the
# medians of those differences are the costs.
costs() {
	awk -v who="$1" '$1 == "bare" { bare = $2 } $1 == who && $2 ~ /^[0-9]+$/ && bare {
		print $2 - bare }' "$tmp/out" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
median() {
	awk -v who="$1" -v f="$2" '$1 == who && $f ~ /^[0-9]+$/ { print $f }' "$tmp/out" |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
printf 'ns per page fault (medians of %d rounds, TCG guest): bare %s, hwtap %s, stap %s\n' \
	"$runs" "$(median bare 2)" "$(median hwtap 2)" "$(median stap 2)"
printf 'handler hits per run (median): hwtap %s, stap %s\n' "$(median hwtap 4)" \
	"$(median stap 4)"
hc=$(costs hwtap)
sc=$(costs stap)
if [ -n "$sc" ]; then
	printf 'handler cost (median of per-round differences): hwtap %s ns, stap %s ns; '\
'hwtap/stap = %s\n' "$hc" "$sc" \
		"$(awk -v a="$hc" -v b="$sc" 'BEGIN { print (b > 0 ? sprintf("%.2f", a / b) : "-") }')"
else
	printf 'handler cost (median of per-round differences): hwtap %s ns\n' "$hc"
fi
