#!/bin/bash
# bench/newfiles.sh - what naming every program costs a machine that runs many programs
# (runtime/udyn.c's wait, hwtap-run's reading), as execs a second in the x86 guest (TCG:
# the ratios carry over, not the figures): a static program with the C library's 2000
# symbols run RUNS times from one file (the same program again and again), then RUNS new
# copies of it, each run once (a new file each time: configure scripts, builds, test
# suites). Each row is one guest boot, in turn, ROUNDS times:
#   no session      a session that samples user code and names nothing
#   names, wait     it names every program (usymname): hwtap's default, a process waits
#                   for its new file's names on its way back to user space
#   names, no wait  the same with -D HWTAP_UDYN_WAIT_MS=0: names come as hwtap-run reads
#                   them, a program's samples before that are unnamed
# The ratio is to the no-session median.
#   bench/newfiles.sh [HWTAP]      (RUNS=200 ROUNDS=3)
. "$(dirname "$0")/common.sh"
runs=${RUNS:-200}
rounds=${ROUNDS:-3}

echo 'int main(void) { return 0; }' | gcc -O2 -static -o "$tmp/nop" -x c -
cat > "$tmp/loop.sh" <<SH
n=$runs
t0=\$(cut -d' ' -f1 /proc/uptime)
i=0; while [ \$i -lt \$n ]; do /root/nop; i=\$((i+1)); done
t1=\$(cut -d' ' -f1 /proc/uptime)
i=0; while [ \$i -lt \$n ]; do cp /root/nop /tmp/x\$i; i=\$((i+1)); done
t2=\$(cut -d' ' -f1 /proc/uptime)
i=0; while [ \$i -lt \$n ]; do /tmp/x\$i; i=\$((i+1)); done
t3=\$(cut -d' ' -f1 /proc/uptime)
awk -v a=\$t0 -v b=\$t1 -v c=\$t2 -v d=\$t3 -v n=\$n 'BEGIN { printf("rates %.1f %.1f\n", n / (b - a), n / (d - c)) }'
SH
echo 'probe perf.sw.cpu_clock.sample(1000000) { if (user_mode()) n++ } global n' > "$tmp/off.stp"
echo 'probe perf.sw.cpu_clock.sample(1000000) { if (user_mode() && usymname(uaddr()) != "") n++ } global n' \
	> "$tmp/on.stp"
run() {	# options..., then the script
	"$hwtap" --vm --vm-file "$tmp/nop:/root/" --vm-file "$tmp/loop.sh:/root/" \
		-c 'sh /root/loop.sh' "$@" 2>&1 | awk '$1 == "rates" { print $2, $3 }'
}
for r in $(seq "$rounds"); do
	echo "off $(run "$tmp/off.stp")"
	echo "wait $(run "$tmp/on.stp")"
	echo "nowait $(run -D HWTAP_UDYN_WAIT_MS=0 "$tmp/on.stp")"
done > "$tmp/out"
grep -q '^nowait [0-9]' "$tmp/out" || { echo "no results:"; cat "$tmp/out"; exit 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
col() { awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$tmp/out" | median; }
echo "guest (TCG), execs a second, medians of $rounds boots of $runs execs each:"
printf '%-16s %10s %6s %10s %6s\n' case "same file" ratio "new files" ratio
for c in "off:no session" "wait:names, wait" "nowait:names, no wait"; do
	k=${c%%:*}
	printf '%-16s %10s %6s %10s %6s\n' "${c#*:}" "$(col "$k" 2)" \
		"$(awk -v a="$(col "$k" 2)" -v b="$(col off 2)" 'BEGIN { printf "%.2f", a / b }')" \
		"$(col "$k" 3)" \
		"$(awk -v a="$(col "$k" 3)" -v b="$(col off 3)" 'BEGIN { printf "%.2f", a / b }')"
done
