#!/bin/bash
# bench/perfread.sh - what @perf("NAME") costs in a timer probe (bench/perfread.stp): guest
# instructions per read of a system-wide counter, against a global variable's read in the
# same run, the median of RUNS runs in one boot of a guest under QEMU's icount mode (as
# bench/profile.sh: time there counts instructions, whatever the host's load).
# hwtap's @perf reads a snapshot that a work item refreshes (hwtap-perf(7), COUNTING), so
# a read costs a few instructions more than a global's. The same script goes to SystemTap
# 4.8, whose @perf reads only per-process counters from process probes (it calls
# perf_event_read_value(), which may sleep): it refuses the script in pass 3, and what it
# says is printed (were it to build, its run in the same boot is). bpftrace 0.17 has no
# way to read a counter from a program.
#   bench/perfread.sh [HWTAP]        (RUNS=5, SHIFT=4: 2^SHIFT ns per instruction)
. "$(dirname "$0")/common.sh"
runs=${RUNS:-5}
shift_=${SHIFT:-4}

cp "$("$hwtap" -p4 -m hwtap_bench_perfread -D MAXACTION=100000 bench/perfread.stp)" \
	"$tmp/h.ko"
files=(--vm-file "$tmp/h.ko:/root/h.ko" --vm-file loader/hwtap-run:/root/hwtap-run)
stap_run=true
if stap_build "$tmp" stap_bench_perfread "$PWD/bench/perfread.stp" -D MAXACTION=100000 \
	      -D STP_NO_OVERLOAD > "$tmp/stap.out"; then
	files+=("${stap_files[@]}")
	stap_run="/usr/bin/staprun /root/stap_bench_perfread.ko 2>&1 | sed 's/^/stap: /' | sort -u"
elif [ -s "$tmp/stap_bench_perfread.log" ]; then
	stap_said=$(grep -m1 'error' "$tmp/stap_bench_perfread.log" || :)
else
	stap_said=$(head -1 "$tmp/stap.out")
fi
HWTAP_QEMU_EXTRA="-icount shift=$shift_,align=off,sleep=off" \
guest/hwtap-guest --vm-cpus 1 "${files[@]}" --timeout 900 -- "cd /root
for i in \$(seq $runs); do /root/hwtap-run /root/h.ko; done
$stap_run" > "$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }

median() {      # WHAT: the median over the runs of the lines "WHAT NS"
	awk -v w="$1" '$1 == w { print $2 }' "$tmp/out" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
global=$(median global)
perf=$(median @perf)
[ -n "$global" ] && [ -n "$perf" ] || { echo "no results; the guest said:"; cat "$tmp/out"
					 exit 1; }
awk -v g="$global" -v p="$perf" -v ns="$((1 << shift_))" -v runs="$runs" 'BEGIN {
	printf "icount guest, 1 CPU, %d ns per instruction; medians of %d runs\n", ns, runs
	printf "v += g (a global):      %.1f insns\n", g / ns
	printf "v += @perf(\"pf\"):       %.1f insns (@perf/global = %.2f)\n", p / ns,
	       (g > 0 ? p / g : 0) }'
if [ -n "${stap_said:-}" ]; then
	echo "stap 4.8: $stap_said"
else
	grep '^stap: ' "$tmp/out" | head -3 || echo "stap: (said nothing)"
fi
