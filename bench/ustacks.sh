#!/bin/bash
# bench/ustacks.sh - what a user backtrace costs, per frame, by each way of walking one:
# hwtap's unwind rows (from the program's .eh_frame, runtime/uunwind.c), hwtap's frame
# pointer walk (-D HWTAP_UFRAMES=0), SystemTap 4.8's DWARF CFI unwinder and bpftrace 0.17's
# frame pointers (ustack), side by side, in one guest boot under QEMU's icount.
#
# Method (bench/uprobes.sh's): bench/ucalls.c built -DDEEP calls target() CALLS times, ten
# calls deep (built -O2 with frame pointers, so that every way walks the whole stack:
# target, deep1 .. deep10, main, the C library's start code, _start); a probe on target()
# keeps the backtrace as an aggregate's key. A case's cost is its increase over the
# round's bare run, in guest instructions per call, the median of ROUNDS rounds.
#   floor             the kernel's uprobe trap (hwtap's -D HWTAP_UPROBES_FLOOR)
#   usymname key      s[usymname(uaddr())] <<< 1: a lookup and a key, no walk
#   frame pointers    s[ubacktrace()] <<< 1, -D HWTAP_UFRAMES=0
#   unwind rows       s[ubacktrace()] <<< 1 (bpftrace: @[ustack] = count(), frame pointers)
# The last lines give each walk's cost per frame, (case - usymname key) / frames, and
# the ratio of the rows' to the frame pointers'.
#   bench/ustacks.sh [HWTAP]      (ROUNDS=3, SHIFT=4, CALLS=20000)
. "$(dirname "$0")/common.sh"
rounds=${ROUNDS:-3}
shift_=${SHIFT:-4}
calls=${CALLS:-20000}

gcc -O2 -g -fno-omit-frame-pointer -DDEEP -Wall -static -o "$tmp/ucalls" bench/ucalls.c
work="/root/ucalls $calls /tmp/w"
files=(--vm-file loader/hwtap-run:/root/hwtap-run --vm-file "$tmp/ucalls:/root/ucalls")
fn='process("/root/ucalls").function("target")'
ncases=0
case_ floor - <<< "probe $fn { }"
case_ 'usymname key' 'uprobe:/root/ucalls:target { @[usym(reg("ip"))] = count(); }' <<EOS
global s
probe $fn { s[usymname(uaddr())] <<< 1 }
EOS
case_ 'frame pointers' 'uprobe:/root/ucalls:target { @[ustack] = count(); }' <<EOS
global s
probe $fn { s[ubacktrace()] <<< 1 }
EOS
case_ 'unwind rows' - <<EOS
global s
probe $fn { s[ubacktrace()] <<< 1 }
EOS
# the frames each backtrace has: hwtap's, printed once in the guest
cat > "$tmp/frames.stp" <<EOS
probe $fn { printf("frames %d\n", ustack_depth()); exit() }
function ustack_depth:long () { n = 0; bt = ubacktrace()
	for (a = tokenize(bt, " "); a != ""; a = tokenize("", " ")) n++
	return n }
EOS

cases_tools

guest_runs=""
for k in $(seq "$ncases"); do
	names[$k]=$(cat "$tmp/case$k.name")
	defs=(-D MAXACTION=100000 -D STP_NO_OVERLOAD)
	[ "${names[$k]}" != floor ] || defs+=(-D HWTAP_UPROBES_FLOOR)
	[ "${names[$k]}" != 'frame pointers' ] || defs+=(-D HWTAP_UFRAMES=0)
	cp "$("$hwtap" -p4 -m "h_$k" "${defs[@]}" --vm-file "$tmp/ucalls:/root/ucalls" \
	      "$tmp/case$k.stp")" "$tmp/h_$k.ko"
	hwtap_case "$k"
	# stap has one unwinder, its CFI one: its "frame pointers" case is that too
	if $have_stap && [ "${names[$k]}" != floor ] && [ "${names[$k]}" != 'frame pointers' ]; then
		sed "s#/root/ucalls#$tmp/ucalls#g" "$tmp/case$k.stp" > "$tmp/scase$k.stp"
		stap_case "$k" "$tmp/scase$k.stp" "$tmp/ucalls $calls /tmp/w" "${defs[@]}"
	fi
	$have_bpf && bpf_case "$k"
done
cp "$("$hwtap" -p4 -m h_frames --vm-file "$tmp/ucalls:/root/ucalls" "$tmp/frames.stp")" \
	"$tmp/h_frames.ko"
files+=(--vm-file "$tmp/h_frames.ko:/root/h_frames.ko")
guest_runs+="/root/hwtap-run -c '$work' /root/h_frames.ko
"
$have_stap && files+=(--vm-file "$tmp/ucalls:$tmp/ucalls")
cases_run_report ustacks "no stap, or no symbol table for it"
frames=$(awk '$1 == "frames" { print $2; exit }' "$tmp/out")
[ -n "$frames" ] || { echo "no frame count; the guest said:"; cat "$tmp/out"; exit 1; }
key=$(median_cost hwtap 2)
fp=$(median_cost hwtap 3)
rows=$(median_cost hwtap 4)
stap_rows=$(median_cost stap 4)
awk -v n="$frames" -v k="$key" -v fp="$fp" -v r="$rows" -v s="$stap_rows" -v sk="$(median_cost stap 2)" 'BEGIN {
	printf "frames per backtrace: %d\n", n
	printf "hwtap frame pointers: %.0f instructions per frame\n", (fp - k) / n
	printf "hwtap unwind rows: %.0f instructions per frame\n", (r - k) / n
	if (s != "" && sk != "")
		printf "stap CFI unwinder: %.0f instructions per frame\n", (s - sk) / n
	if (fp - k > 0)
		printf "ratio rows/frame pointers, per frame: %.2f\n", (r - k) / (fp - k)
	if (s != "" && sk != "" && s - sk > 0)
		printf "ratio hwtap rows/stap CFI, per frame: %.2f\n", (r - k) / (s - sk)
}'
