#!/bin/bash
# bench/kprobes.sh - what a kprobe point costs per call of the probed kernel function:
# hwtap, SystemTap 4.8 (kprobe.function) and bpftrace 0.17 (kprobe:, kretprobe:) side by
# side, with the kernel's own empty kprobe as the floor, in one guest boot under QEMU's
# icount.
#
# Method (bench/uprobes.sh's): bench/kcalls.c makes the getppid() system call CALLS times
# and prints its CPU time per call; in a guest whose clocks count executed instructions
# (icount, one vCPU), that is an instruction count that repeats. A round runs it bare,
# then under each tool's module for each case; a case's cost is its increase over the
# round's bare run, in guest instructions per call, the median of ROUNDS rounds.
#   floor          hwtap's module built with -D HWTAP_KPROBES_FLOOR: its kprobe's
#                  handler returns at once, so what is left is the kernel's kprobe (an
#                  int3, or a jump when the kernel optimizes it) and its lookup
#   empty          an empty handler at the function's entry
#   entry+return   an empty handler at the entry and one at the return (a kretprobe)
#   2 counters     at the entry and the return, two .process counters read with @perf
#                  and their difference kept per thread (SystemTap's perf.stp pattern;
#                  stap 4.8 reads no counter in a kprobe, bpftrace cannot: "-")
# The last lines give each tool's cost of the empty handler above the floor, and the
# worst ratios hwtap/stap and hwtap/bpftrace over the cases.
#   bench/kprobes.sh [HWTAP]      (ROUNDS=3, SHIFT=4, CALLS=20000)
. "$(dirname "$0")/common.sh"
rounds=${ROUNDS:-3}
shift_=${SHIFT:-4}
calls=${CALLS:-20000}

gcc -O2 -Wall -static -o "$tmp/kcalls" bench/kcalls.c
work="/root/kcalls $calls /tmp/w"
files=(--vm-file loader/hwtap-run:/root/hwtap-run --vm-file "$tmp/kcalls:/root/kcalls")
sym=__x64_sys_getppid
fn="kprobe.function(\"$sym\")"
# The cases: case NAME BPFTRACE-PROGRAM (or -) with the hwtap and stap script on stdin.
ncases=0
case_() {
	ncases=$((ncases + 1))
	echo "$1" > "$tmp/case$ncases.name"
	echo "$2" > "$tmp/case$ncases.bpf"
	cat > "$tmp/case$ncases.stp"
}
case_ floor - <<< "probe $fn { }"
case_ empty "kprobe:$sym { }" <<< "probe $fn { }"
case_ entry+return "kprobe:$sym { } kretprobe:$sym { }" \
	<<< "probe $fn { } probe $fn.return { }"
case_ '2 counters' - <<EOS
global t, d
probe perf.sw.page_faults.process.counter("a") { }
probe perf.sw.context_switches.process.counter("b") { }
probe $fn { t[tid(), 1] = @perf("a"); t[tid(), 2] = @perf("b") }
probe $fn.return { d[tid()] += @perf("a") - t[tid(), 1] + @perf("b") - t[tid(), 2] }
EOS

have_stap=false
if command -v stap > /dev/null && stap_symbol_tree "$tmp"; then have_stap=true; fi
have_bpf=false
if command -v bpftrace > /dev/null; then have_bpf=true; fi

guest_runs=""
for k in $(seq "$ncases"); do
	names[$k]=$(cat "$tmp/case$k.name")
	defs=(-D MAXACTION=100000 -D STP_NO_OVERLOAD)
	[ "${names[$k]}" != floor ] || defs+=(-D HWTAP_KPROBES_FLOOR)
	cp "$("$hwtap" -p4 -m "h_$k" "${defs[@]}" "$tmp/case$k.stp")" "$tmp/h_$k.ko"
	files+=(--vm-file "$tmp/h_$k.ko:/root/h_$k.ko")
	guest_runs+="rm -f /tmp/w; /root/hwtap-run -c '$work' /root/h_$k.ko >/dev/null
	echo \"hwtap $k \$(cat /tmp/w 2>&1)\"
"
	# (stap 4.8 reads no perf counter in a kprobe: its perf.stp pattern needs
	# process.function)
	if $have_stap && [ "${names[$k]}" != floor ] && [ "${names[$k]}" != '2 counters' ]; then
		if stap_build "$tmp" "s_$k" "$tmp/case$k.stp" -u "${defs[@]}" \
			> "$tmp/stap_$k.why"; then
			files+=("${stap_files[@]}")
			guest_runs+="rm -f /tmp/w; /usr/bin/staprun -c '$work' /root/s_$k.ko >/dev/null
	echo \"stap $k \$(cat /tmp/w 2>&1)\"
"
		else
			echo "(stap did not build '${names[$k]}':)"; cat "$tmp/stap_$k.why"
		fi
	fi
	bpf=$(cat "$tmp/case$k.bpf")
	if $have_bpf && [ "$bpf" != "-" ]; then
		printf '%s\n' "$bpf" > "$tmp/bpf_$k"
		files+=(--vm-file "$tmp/bpf_$k:/root/bpf_$k")
		guest_runs+="rm -f /tmp/w; bpftrace -q -c '$work' /root/bpf_$k >/dev/null
	echo \"bpftrace $k \$(cat /tmp/w 2>&1)\"
"
	fi
done
guest_mem_with_bpftrace $have_bpf
$have_stap || echo "(no stap, or no symbol table for it: only hwtap and bpftrace run)"

icount_rounds $mem
grep -q '^bare ' "$tmp/out" || { echo "no results; the guest said:"; cat "$tmp/out"; exit 1; }

# case K's cost for WHO, in instructions per call (stap-guest.sh)
cost() { median_cost "$@"; }

printf 'icount guest, 1 CPU; guest instructions per call of the probed function, medians of %s rounds\n' \
	"$rounds"
printf '%-20s %10s %10s %10s %11s %15s\n' case hwtap stap bpftrace hwtap/stap hwtap/bpftrace
worst_s=""; worst_b=""
declare -A empty
for k in $(seq "$ncases"); do
	h=$(cost hwtap "$k"); s=$(cost stap "$k"); b=$(cost bpftrace "$k")
	[ "${names[$k]}" != empty ] || empty=([hwtap]=$h [stap]=$s [bpftrace]=$b)
	[ "${names[$k]}" != floor ] || floor=$h
	line=$(awk -v name="${names[$k]}" -v h="$h" -v s="$s" -v b="$b" '
		function show(x) { return x == "" ? "-" : sprintf("%.0f", x) }
		function ratio(a, c) {
			if (a == "" || c == "") return "-"
			return c <= 0 ? "inf" : sprintf("%.2f", a / c)
		}
		BEGIN { printf "%-20s %10s %10s %10s %11s %15s\n", name, show(h), show(s),
			show(b), ratio(h, s), ratio(h, b) }')
	echo "$line"
	[ "${names[$k]}" = floor ] && continue
	r=$(awk '{ print $(NF - 1) }' <<< "$line"); [ "$r" = - ] || worst_s+="$r "
	r=$(awk '{ print $NF }' <<< "$line"); [ "$r" = - ] || worst_b+="$r "
done
echo
for who in hwtap stap bpftrace; do
	[ -n "${empty[$who]:-}" ] && [ -n "${floor:-}" ] &&
		awk -v w="$who" -v e="${empty[$who]}" -v f="$floor" \
			'BEGIN { printf "%s empty handler above the floor: %.0f instructions per call\n", w, e - f }'
done
max() { tr ' ' '\n' <<< "$1" | grep -v '^$' | sort -g | tail -1; }
echo "worst ratio hwtap/stap (kprobes): $(max "$worst_s")"
echo "worst ratio hwtap/bpftrace (kprobes): $(max "$worst_b")"
