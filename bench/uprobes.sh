#!/bin/bash
# bench/uprobes.sh - what a process probe costs per call of the probed function: hwtap,
# SystemTap 4.8 (process.function) and bpftrace 0.17 (uprobe:, uretprobe:) side by side,
# with the kernel's own uprobe trap as the floor, in one guest boot under QEMU's icount.
# bench/compare.sh runs it after its own operations.
#
# Method (bench/compare.sh's): bench/ucalls.c calls a small function CALLS times and
# prints its CPU time per call; in a guest whose clocks count executed instructions
# (icount, one vCPU), that is an instruction count that repeats. A round runs it bare,
# then under each tool's module for each case; a case's cost is its increase over the
# round's bare run, in guest instructions per call, the median of ROUNDS rounds.
#   floor          hwtap's module built with -D HWTAP_UPROBES_FLOOR: its uprobe consumer
#                  returns at once, so what is left is the kernel's breakpoint trap,
#                  its single-step out of line and its lookup of the consumers
#   empty          an empty handler at the function's entry
#   entry+return   an empty handler at the entry and one at the return (a uretprobe)
#   2 counters     at the entry and the return, two .process("PATH") counters read
#                  with @perf and their difference kept per thread (SystemTap's perf.stp
#                  pattern; bpftrace cannot read a perf counter in a uprobe: "-")
#   usymname key   the function the task is in as an aggregate's key (pf3's
#                  s[usymname(uaddr())] <<< 1; bpftrace 0.17's @[usym(reg("ip"))] =
#                  count(), which keeps the address and names it when the map is
#                  printed, from /proc/PID/maps: ucalls has exited then, so it prints
#                  the address in hex)
#   ubacktrace key the user backtrace as a key (s[ubacktrace()] <<< 1; bpftrace's
#                  @[ustack] = count()): ucalls is built with frame pointers, as
#                  hwtap's backtraces need (stap unwinds with the DWARF CFI)
# The symbol cases cost the same in a sample handler (a cpu-clock probe) as here: the
# lookup does not depend on the context.
# The last lines give each tool's cost of the empty handler above the floor, and the
# worst ratios hwtap/stap and hwtap/bpftrace over the cases.
#   bench/uprobes.sh [HWTAP]      (ROUNDS=3, SHIFT=4, CALLS=20000)
. "$(dirname "$0")/common.sh"
rounds=${ROUNDS:-3}
shift_=${SHIFT:-4}
calls=${CALLS:-20000}

gcc -O2 -g -fno-omit-frame-pointer -Wall -static -o "$tmp/ucalls" bench/ucalls.c
work="/root/ucalls $calls /tmp/w"
files=(--vm-file loader/hwtap-run:/root/hwtap-run --vm-file "$tmp/ucalls:/root/ucalls")
fn='process("/root/ucalls").function("target")'
# The cases (stap-guest.sh's case_): NAME, BPFTRACE-PROGRAM (or -), the script on stdin.
ncases=0
case_ floor - <<< "probe $fn { }"
case_ empty 'uprobe:/root/ucalls:target { }' <<< "probe $fn { }"
case_ entry+return 'uprobe:/root/ucalls:target { } uretprobe:/root/ucalls:target { }' \
	<<< "probe $fn { } probe $fn.return { }"
case_ '2 counters' - <<EOS
global t, d
probe perf.sw.page_faults.process("/root/ucalls").counter("a") { }
probe perf.sw.context_switches.process("/root/ucalls").counter("b") { }
probe $fn { t[tid(), 1] = @perf("a"); t[tid(), 2] = @perf("b") }
probe $fn.return { d[tid()] += @perf("a") - t[tid(), 1] + @perf("b") - t[tid(), 2] }
EOS
case_ 'usymname key' 'uprobe:/root/ucalls:target { @[usym(reg("ip"))] = count(); }' <<EOS
global s
probe $fn { s[usymname(uaddr())] <<< 1 }
EOS
case_ 'ubacktrace key' 'uprobe:/root/ucalls:target { @[ustack] = count(); }' <<EOS
global s
probe $fn { s[ubacktrace()] <<< 1 }
EOS

cases_tools

guest_runs=""
for k in $(seq "$ncases"); do
	names[$k]=$(cat "$tmp/case$k.name")
	defs=(-D MAXACTION=100000 -D STP_NO_OVERLOAD)
	[ "${names[$k]}" != floor ] || defs+=(-D HWTAP_UPROBES_FLOOR)
	cp "$("$hwtap" -p4 -m "h_$k" "${defs[@]}" --vm-file "$tmp/ucalls:/root/ucalls" \
	      "$tmp/case$k.stp")" "$tmp/h_$k.ko"
	hwtap_case "$k"
	# stap reads the program where its script names it, here and in the guest alike:
	# its scripts name the copy in $tmp, which the guest has at that path too
	if $have_stap && [ "${names[$k]}" != floor ]; then
		sed "s#/root/ucalls#$tmp/ucalls#g" "$tmp/case$k.stp" > "$tmp/scase$k.stp"
		stap_case "$k" "$tmp/scase$k.stp" "$tmp/ucalls $calls /tmp/w" "${defs[@]}"
	fi
	$have_bpf && bpf_case "$k"
done
# stap's copy of the program, where its scripts name it
$have_stap && files+=(--vm-file "$tmp/ucalls:$tmp/ucalls")
cases_run_report uprobes "no stap, or no symbol table for it"
