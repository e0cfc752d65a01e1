#!/bin/bash
# bench/list.sh - listing the PMU's events: `hwtap -l 'perf.events("*")'' (libpfm4's
# events of the PMUs it detects) against `perf list' (the kernel's and perf's own event
# list) in the same run, and `hwtap -L' (which also encodes each event and reads sysfs).
# Median wall time of RUNS runs each (default 21), events listed, and the ratio; then
# hwtap -l's instruction count under callgrind, which repeats whatever the machine does.
#   bench/list.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hwtap=translator/hwtap

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Each command RUNS times, alternating, so that load changes hit all of them alike.
for i in $(seq "$runs"); do
	for name in hwtap-l hwtap-L perf; do
		case $name in
		hwtap-l) cmd=("$hwtap" -l 'perf.events("*")') ;;
		hwtap-L) cmd=("$hwtap" -L 'perf.events("*")') ;;
		perf) cmd=(perf list) ;;
		esac
		t0=$(date +%s%N)
		"${cmd[@]}" > "$tmp/$name.out" 2>&1
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000)) >> "$tmp/$name.us"
	done
done
for name in hwtap-l hwtap-L perf; do
	printf '%-34s %6s us  (%s lines)\n' "$name, median of $runs" \
		"$(median < "$tmp/$name.us")" "$(wc -l < "$tmp/$name.out")"
done
printf '%-34s %s\n' "ratio hwtap -l / perf list" \
	"$(echo "scale=2; $(median < "$tmp/hwtap-l.us") / $(median < "$tmp/perf.us")" | bc)"
if command -v valgrind > /dev/null; then
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$hwtap" -l 'perf.events("*")' \
		> /dev/null 2> "$tmp/cg.err"
	printf '%-34s %s\n' "hwtap -l instructions (callgrind)" \
		"$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.err")"
fi
