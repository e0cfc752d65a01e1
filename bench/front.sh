#!/bin/bash
# bench/front.sh - passes 1-2 of the translator against SystemTap 4.8 in the same run.
#
# Prints milliseconds per run (the mean of many runs, process start included) and the
# ratio to stap -p2 measured here and now, since absolute times drift on shared machines;
# then the page faults of one run (getrusage's ru_minflt, through GNU time: on a virtual
# machine each costs microseconds, and they were most of the tiny script's time) and
# callgrind's instruction counts, which do not drift.
#   bench/front.sh [HWTAP]        (default: translator/hwtap of this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
hwtap=${1:-translator/hwtap}
release=$("$hwtap" --list-kernels 2>/dev/null | awk '/  default:/ { print $1 }')	# the guest's
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench/gen-script.sh 500 > "$tmp/script500.stp"
echo 'probe begin { exit() }' > "$tmp/tiny.stp"
"$hwtap" -p2 "$tmp/script500.stp" > /dev/null      # it must elaborate, or nothing counts

# ms_per_run RUNS CMD... : mean wall time of one run in milliseconds
ms_per_run() {
	local runs=$1; shift
	local start end
	start=$(date +%s%N)
	for ((i = 0; i < runs; i++)); do "$@" > /dev/null 2>&1 || true; done
	end=$(date +%s%N)
	echo "scale=2; ($end - $start) / $runs / 1000000" | bc
}

tiny=$(ms_per_run 200 "$hwtap" -p2 "$tmp/tiny.stp")
big=$(ms_per_run 100 "$hwtap" -p2 "$tmp/script500.stp")
printf '%-44s %8s ms\n' "hwtap -p2 'probe begin { exit() }'" "$tiny"
printf '%-44s %8s ms  (%s lines)\n' "hwtap -p2 500-line script" "$big" \
	"$(wc -l < "$tmp/script500.stp")"
if command -v stap > /dev/null && [ -n "$release" ]; then
	stap_tiny=$(ms_per_run 10 stap -r "$release" -p2 "$tmp/tiny.stp")
	printf '%-44s %8s ms\n' "stap -p2 'probe begin { exit() }'" "$stap_tiny"
	printf '%-44s %8sx\n' "stap / hwtap (tiny script)" \
		"$(echo "scale=1; $stap_tiny / $tiny" | bc)"
else
	echo "stap or a kernel build tree is missing: no ratio"
fi
if [ -x /usr/bin/time ]; then
	for f in tiny script500; do
		faults=$(/usr/bin/time -f '%R' "$hwtap" -p2 "$tmp/$f.stp" 2>&1 >/dev/null | tail -1)
		printf '%-44s %12s page faults\n' "hwtap -p2 $f.stp" "$faults"
	done
else
	echo "no GNU time (/usr/bin/time, package time): no page faults"
fi
if command -v valgrind > /dev/null; then
	for f in tiny script500; do
		ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$hwtap" -p2 \
			"$tmp/$f.stp" 2>&1 >/dev/null | sed -n 's/.*Collected : //p')
		printf '%-44s %12s instructions\n' "callgrind hwtap -p2 $f.stp" "$ir"
	done
fi
