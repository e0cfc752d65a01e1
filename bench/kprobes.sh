#!/bin/bash
# bench/kprobes.sh - what a kprobe point costs per call of the probed kernel function:
# hwtap, SystemTap 4.8 (kprobe.function) and bpftrace 0.17 (kprobe:, kretprobe:) side by
# side, with the kernel's own empty kprobe as the floor, in one guest boot under QEMU's
# icount.
#
# Method (bench/uprobes.sh's): bench/ucalls.c built -DKCALLS makes the getppid() system
# call CALLS times and prints its CPU time per call; in a guest whose clocks count
# executed instructions (icount, one vCPU), that is an instruction count that repeats. A round runs it bare,
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
kcalls_setup
sym=__x64_sys_getppid
fn="kprobe.function(\"$sym\")"
# The cases (stap-guest.sh's case_): NAME, BPFTRACE-PROGRAM (or -), the script on stdin.
ncases=0
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

cases_tools

guest_runs=""
for k in $(seq "$ncases"); do
	names[$k]=$(cat "$tmp/case$k.name")
	defs=(-D MAXACTION=100000 -D STP_NO_OVERLOAD)
	[ "${names[$k]}" != floor ] || defs+=(-D HWTAP_KPROBES_FLOOR)
	cp "$("$hwtap" -p4 -m "h_$k" "${defs[@]}" "$tmp/case$k.stp")" "$tmp/h_$k.ko"
	hwtap_case "$k"
	# (stap 4.8 reads no perf counter in a kprobe: its perf.stp pattern needs
	# process.function)
	if $have_stap && [ "${names[$k]}" != floor ] && [ "${names[$k]}" != '2 counters' ]; then
		stap_case "$k" "$tmp/case$k.stp" "$work" "${defs[@]}"
	fi
	$have_bpf && bpf_case "$k"
done
cases_run_report kprobes "no stap, or no symbol table for it"
