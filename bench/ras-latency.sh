#!/bin/bash
# bench/ras-latency.sh - how soon a script hears of a hardware error: the time from the
# write that injects a machine check (mce-inject's software path) to the arrival of the
# handler's output line in user space, the median of N injections (default 20), for
# hwtap and for SystemTap 4.8 running the same script (bench/ras-latency.stp, in stap's
# kernel.trace("mce:mce_record") spelling) in the same guest boot; the ratio hwtap/stap.
# hwtap's reader is woken by the record itself (irq_work); stapio polls its buffers.
#   bench/ras-latency.sh [HWTAP]        (N=20)
set -euo pipefail
cd "$(dirname "$0")/.."
hwtap=${1:-translator/hwtap}
n=${N:-20}
. bench/stap-guest.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT; [ -z "${KEEP_TMP:-}" ] || trap - EXIT

gcc -O2 -Wall -static -o "$tmp/mcelat" bench/mcelat.c
sed "s/@N@/$n/" bench/ras-latency.stp > "$tmp/ras-latency.stp"
cp "$("$hwtap" -p4 -m hwtap_bench_ras "$tmp/ras-latency.stp")" "$tmp/h.ko"
files=(--vm-file "$tmp/h.ko:/root/h.ko" --vm-file loader/hwtap-run:/root/hwtap-run
       --vm-file "$tmp/mcelat:/root/mcelat" --vm-modprobe mce-inject)
stap_run=true
if stap_build "$tmp" stap_bench_ras "$tmp/ras-latency.stp" > "$tmp/stap.out"; then
	files+=("${stap_files[@]}")
	stap_run="/usr/bin/staprun /root/stap_bench_ras.ko | /root/mcelat $n 2>&1 |
		sed 's/^/stap /'"
else
	cat "$tmp/stap.out"
fi
guest/hwtap-guest "${files[@]}" --timeout 600 -- "cd /root
/root/hwtap-run /root/h.ko | /root/mcelat $n 2>&1 | sed 's/^/hwtap /'
$stap_run" > "$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }

median() {      # WHO FIELD: the median of FIELD in the lines "WHO latency NS HANDLER_NS", us
	awk -v w="$1" -v f="$2" '$1 == w && $2 == "latency" { print $f / 1000 }' "$tmp/out" |
		sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
h=$(median hwtap 3)
s=$(median stap 3)
hk=$(median hwtap 4)
sk=$(median stap 4)
[ -n "$h" ] || { echo "no results; the guest said:"; cat "$tmp/out"; exit 1; }
printf "injecting write to the handler's line in user space, median of %d (TCG guest, 2 CPUs)\n" "$n"
printf "hwtap:    %8.1f us (%.1f of them until the handler ran)\n" "$h" "$hk"
if [ -n "$s" ]; then
	printf "stap 4.8: %8.1f us (%.1f of them until the handler ran); hwtap/stap = %.3f\n" \
		"$s" "$sk" "$(echo "$h / $s" | bc -l)"
else
	echo "stap 4.8: no result"; grep '^stap' "$tmp/out" | head -5
fi
