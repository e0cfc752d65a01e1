#!/bin/bash
# bench/profile.sh - what a timer.profile-style handler costs (bench/profile.stp: a count
# per CPU kept as a statistic, n[cpu()] <<< 1), hwtap against SystemTap 4.8 and bpftrace
# 0.17 (@n[cpu] = count()), in guest instructions per event.
#
# Method: the handler runs on every page fault of bench/faults.c (read faults that map the
# zero page, about 1400 guest instructions each with their share of madvise), in a guest
# under QEMU's icount mode (HWTAP_QEMU_EXTRA="-icount shift=4,align=off,sleep=off", one
# vCPU, see hwtap(1)): the guest's clocks advance 16 ns per executed instruction whatever
# the host's load, so the workload's CPU time per fault is an instruction count that
# repeats to a tenth of a percent (costs to about one instruction), where TCG's wall clock
# wandered by tens of percent. Each round in one boot runs the workload bare, with
# bench/nullperf.ko (the same sampling event with an empty overflow handler: the kernel's
# own share, which every tool pays), under hwtap's module, stap's and bpftrace; a cost per
# event is the increase over that round's bare run, and the medians over the rounds are
# printed with their spread. Page faults rather than cpu-clock at 10 kHz, timer.profile's
# own event: cpu-clock's events can only be estimated from the time, page faults are
# counted exactly, and a handler costs the same per event at any rate.
# The price of determinism: these are instructions, not cycles. A locked cmpxchg, a cache
# miss or a mispredicted branch counts as one instruction, so the ratio compares work
# done, not nanoseconds on real hardware.
#   bench/profile.sh [HWTAP]        (RUNS=5 rounds, SHIFT=4: 2^SHIFT ns per instruction)
# stap builds through bench/stap-guest.sh; without stap only hwtap runs. KEEP_OUT=FILE
# keeps the guest's raw lines.
. "$(dirname "$0")/common.sh"
runs=${RUNS:-5}
shift_=${SHIFT:-4}

gcc -O2 -Wall -static -o "$tmp/faults" bench/faults.c
cp "$("$hwtap" -p4 -m hwtap_bench_profile -D STP_NO_OVERLOAD bench/profile.stp)" "$tmp/h.ko"
files=(--vm-file "$tmp/h.ko:/root/h.ko" --vm-file loader/hwtap-run:/root/hwtap-run
       --vm-file "$tmp/faults:/root/faults")
work="/root/faults 512 16"
null_run=true
release=$("$hwtap" --list-kernels | awk '/  default:/ { print $1 }')	# the guest's
mkdir "$tmp/nullperf"
cp bench/nullperf.c "$tmp/nullperf/"
echo 'obj-m := nullperf.o' > "$tmp/nullperf/Kbuild"
if make -C "/lib/modules/$release/build" M="$tmp/nullperf" modules > "$tmp/nullperf.log" 2>&1
then
	files+=(--vm-file "$tmp/nullperf/nullperf.ko:/root/nullperf.ko")
	null_run="insmod /root/nullperf.ko && echo \"null \$($work)\"; rmmod nullperf"
else
	echo "(bench/nullperf.c did not build: no kernel share)"
	tail -5 "$tmp/nullperf.log"
fi
stap_run=true
if stap_build "$tmp" stap_bench_profile "$PWD/bench/profile.stp" -D STP_NO_OVERLOAD; then
	files+=("${stap_files[@]}")
	stap_run="echo \"stap \$(/usr/bin/staprun -c '$work' /root/stap_bench_profile.ko |
		tr '\n' ' ')\""
fi
# bpftrace 0.17 (Debian's), the same handler as a BPF program on the same event; it and
# its libraries (LLVM, clang, bcc: about 200 MB) go into the guest as they are.
bpf_run=true
mem=512
if bpftrace_guest_files; then
	files+=("${bpftrace_files[@]}")
	mem=1536
	bpf_run="echo \"bpftrace \$(bpftrace -q -e 'software:page-faults:1 { @n[cpu] = count(); }' \
		-c '$work' | tr '\n' ' ')\""
fi
HWTAP_QEMU_EXTRA="-icount shift=$shift_,align=off,sleep=off" \
guest/hwtap-guest --vm-cpus 1 --vm-mem $mem "${files[@]}" --timeout 1800 -- "cd /root; mkdir -p /tmp
exec 2>&1
for i in \$(seq $runs); do
	echo \"bare \$($work)\"
	$null_run
	echo \"hwtap \$(/root/hwtap-run -c '$work' /root/h.ko | tr '\n' ' ')\"
	$stap_run
	$bpf_run
done" > "$tmp/out"
[ -z "${KEEP_OUT:-}" ] || cp "$tmp/out" "$KEEP_OUT"

# Rounds of "bare FAULTS CPU_NS WALL_NS", "null ...", "hwtap ... hits N", "stap ... hits
# N", "bpftrace ... @n[0]: N" lines. The CPU time leaves out hwtap-run's, stapio's and
# bpftrace's own wakeups (the wall time has them). COST WHO: "MEDIAN MIN MAX" of the rounds' increases over bare, instructions
# per fault.
costs() {
	awk -v who="$1" -v ns="$((1 << shift_))" '$1 == "bare" { bare = $3 }
		$1 == who && $3 ~ /^[0-9.]+$/ && bare != "" { print ($3 - bare) / ns }' \
		"$tmp/out" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR) printf "%.1f %.1f %.1f\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
median() {
	awk -v who="$1" -v f="$2" '$1 == who && $f ~ /^[0-9.]+$/ { print $f }' "$tmp/out" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { print (b > 0 ? sprintf("%.2f", a / b) : "-") }'
}
say() {         # WHO COSTS: "WHO M insns/event (MIN-MAX, M*2^SHIFT ns)"
	[ -z "$2" ] || awk -v who="$1" -v ns="$((1 << shift_))" -v c="$2" 'BEGIN {
		split(c, v, " "); printf "%s %.1f insns/event (%.1f-%.1f; %.0f ns virtual)",
		who, v[1], v[2], v[3], v[1] * ns }'
}
bare=$(median bare 3)
[ -n "$bare" ] || { echo "no results; the guest said:"; cat "$tmp/out"; exit 1; }
printf 'icount guest, 1 CPU, %d ns per instruction; medians of %s rounds of %s faults\n' \
	"$((1 << shift_))" "$runs" "$(median bare 2)"
printf 'bare workload: %.1f insns per fault; handler hits per run: %s\n' \
	"$(awk -v b="$bare" -v ns="$((1 << shift_))" 'BEGIN { print b / ns }')" \
	"hwtap $(median hwtap 6), stap $(median stap 6), bpftrace $(median bpftrace 6)"
nc=$(costs null)
hc=$(costs hwtap)
sc=$(costs stap)
bc=$(costs bpftrace)
[ -z "$nc" ] || printf 'kernel share (empty perf overflow handler): %s\n' "$(say perf "$nc")"
printf 'cost per event over bare: %s%s%s\n' "$(say hwtap "$hc")" "${sc:+, $(say stap "$sc")}" \
	"${bc:+, $(say bpftrace "$bc")}"
if [ -n "$bc" ]; then
	[ -z "$nc" ] || awk -v h="${hc%% *}" -v b="${bc%% *}" -v n="${nc%% *}" 'BEGIN {
		printf "above the kernel share: hwtap %.1f, bpftrace %.1f insns/event; " \
		       "handlers alone hwtap/bpftrace = %.2f\n", h - n, b - n, (h - n) / (b - n) }'
	printf 'hwtap/bpftrace = %s\n' "$(ratio "${hc%% *}" "${bc%% *}")"
fi
if [ -n "$sc" ]; then
	if [ -n "$nc" ]; then
		awk -v h="${hc%% *}" -v s="${sc%% *}" -v n="${nc%% *}" 'BEGIN {
			printf "above the kernel share: hwtap %.1f, stap %.1f insns/event; " \
			       "handlers alone hwtap/stap = %.2f\n", h - n, s - n, (h - n) / (s - n) }'
	fi
	printf 'hwtap/stap = %s\n' "$(ratio "${hc%% *}" "${sc%% *}")"
fi
