#!/bin/bash
# bench/tracepoints.sh - what a kernel.trace probe costs per hit of the tracepoint: hwtap,
# SystemTap 4.8 (kernel.trace) and bpftrace 0.17 (tracepoint:) side by side, with the
# kernel's tracepoint and an empty callback as the floor, in one guest boot under QEMU's
# icount.
#
# Method (bench/kprobes.sh's): bench/ucalls.c built -DKCALLS makes the getppid() system
# call CALLS times and prints its CPU time per call, under icount an instruction count; a
# case's cost is its increase over the round's bare run, per call, the median of ROUNDS
# rounds. Each getppid() passes raw_syscalls:sys_enter once.
#   floor      hwtap's module built with -D HWTAP_TRACEPOINTS_FLOOR: its callback takes
#              the arguments and returns, so what is left is the tracepoint's own call
#   empty      an empty handler
#   argument   a test of an argument and a count in a statistic ($id == 110: getppid)
#   member     an argument's member read through it ($regs->ax, with BTF; bpftrace's
#              tracepoint: has no pt_regs members, "-")
# The last lines give each tool's cost of the empty handler above the floor, and the
# worst ratios hwtap/stap and hwtap/bpftrace over the cases.
#   bench/tracepoints.sh [HWTAP]      (ROUNDS=3, SHIFT=4, CALLS=20000)
. "$(dirname "$0")/common.sh"
kcalls_setup
tp='kernel.trace("raw_syscalls:sys_enter")'
ncases=0
case_ floor - <<< "probe $tp { }"
case_ empty "tracepoint:raw_syscalls:sys_enter { }" <<< "probe $tp { }"
case_ argument "tracepoint:raw_syscalls:sys_enter /args->id == 110/ { @n = count(); }" <<EOS
global n
probe $tp { if (\$id == 110) n <<< 1 }
EOS
case_ member - <<EOS
global n
probe $tp { if (\$id == 110) n <<< \$regs->ax }
EOS

have_stap=false
command -v stap > /dev/null && have_stap=true
have_bpf=false
command -v bpftrace > /dev/null && have_bpf=true

guest_runs=""
for k in $(seq "$ncases"); do
	names[$k]=$(cat "$tmp/case$k.name")
	defs=(-D MAXACTION=100000 -D STP_NO_OVERLOAD)
	[ "${names[$k]}" != floor ] || defs+=(-D HWTAP_TRACEPOINTS_FLOOR)
	cp "$("$hwtap" -p4 -m "h_$k" "${defs[@]}" "$tmp/case$k.stp")" "$tmp/h_$k.ko"
	hwtap_case "$k"
	# (stap reads the tracepoint's arguments from its kernel headers: the release's tree)
	if $have_stap && [ "${names[$k]}" != floor ]; then
		stap_case "$k" "$tmp/case$k.stp" "$work" "${defs[@]}"
	fi
	$have_bpf && bpf_case "$k"
done
cases_run_report tracepoints "no stap"
