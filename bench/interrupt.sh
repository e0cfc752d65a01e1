#!/bin/bash
# bench/interrupt.sh - how long a Ctrl-C takes to bring a script's end report to the user
# when the script runs in the QEMU guest:
#   - through hwtap: SIGINT to hwtap on the host (as a terminal's Ctrl-C) until the end
#     probe's last line arrives on the host; 10 runs, each its own guest boot
#   - the baseline, in one guest boot: SIGINT to hwtap-run inside the guest until that
#     line is in its output file, for the same module, 10 times
# and prints the medians and their ratio: what passing the signal through the guest's
# control port and carrying the output back costs on top of the stop itself.
#   bench/interrupt.sh [RUNS]        (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

cat > "$tmp/script.stp" <<'EOF'
global n
probe begin { println("started") }
probe timer.ms(10) { n++ }
probe end { printf("ticks: %d\n", n > 0); println("end done") }
EOF
ko=$(translator/hwtap -p4 -m hwtap_interrupt_bench "$tmp/script.stp")

# Through hwtap: a coprocess whose SIGINT is not ignored (a background job's would be).
for i in $(seq "$runs"); do
	coproc H { exec perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' -- \
		translator/hwtap -m hwtap_interrupt_bench "$tmp/script.stp" 2>&1; }
	pid=$H_PID
	while IFS= read -r line <&"${H[0]}"; do
		[ "$line" = started ] && break
	done
	sleep 1
	t0=$(date +%s%N)
	kill -INT "$pid"
	while IFS= read -r line <&"${H[0]}"; do
		[ "$line" = "end done" ] && break
	done
	t1=$(date +%s%N)
	wait "$pid" || { echo "hwtap ended with status $? after SIGINT" >&2; exit 1; }
	awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f\n", ns / 1e9 }' >> "$tmp/host"
done

# The baseline: the same stop inside the guest, timed with the guest's clock (busybox's
# date has no %N; the kernel's timer_list says "now at NS nsecs").
guest_script="now() { head -3 /proc/timer_list | sed -n 's/^now at \\([0-9]*\\) nsecs/\\1/p'; }
for i in \$(seq $runs); do
	./hwtap-run hwtap_interrupt_bench.ko > out 2>&1 & p=\$!
	until grep -q started out; do usleep 10000; done
	sleep 1
	t0=\$(now); kill -INT \$p
	until grep -q 'end done' out; do usleep 1000; done
	t1=\$(now); wait \$p || echo \"hwtap-run: status \$?\" >&2
	echo \$((t1 - t0))
done"
guest/hwtap-guest --vm-file loader/hwtap-run --vm-file "$ko" -- "$guest_script" \
	> "$tmp/guest.ns"
awk '{ printf "%.3f\n", $1 / 1e9 }' "$tmp/guest.ns" > "$tmp/guest"
[ "$(wc -l < "$tmp/guest")" -eq "$runs" ] || { echo "the guest baseline failed" >&2; exit 1; }

host=$(median < "$tmp/host")
guest=$(median < "$tmp/guest")
printf '%-52s %s s  (runs: %s)\n' "Ctrl-C to the end report through hwtap, median" "$host" \
	"$(tr '\n' ' ' < "$tmp/host" | sed 's/ $//')"
printf '%-52s %s s  (runs: %s)\n' "baseline: SIGINT to hwtap-run in the guest, median" "$guest" \
	"$(tr '\n' ' ' < "$tmp/guest" | sed 's/ $//')"
printf '%-52s %s\n' "ratio hwtap/baseline" "$(echo "scale=2; $host / $guest" | bc)"
