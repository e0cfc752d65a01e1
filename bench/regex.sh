#!/bin/bash
# bench/regex.sh - what a =~ match costs, hwtap against SystemTap 4.8, in guest instructions
# per match: bench/regex.stp times 1000 matches of each of four regexes (a literal, a class
# with repetition, an alternation, groups) against 1000 additions of a local, in a timer
# probe, under QEMU's icount mode (as bench/profile.sh: the guest's clock advances 2^SHIFT
# ns per instruction whatever the host's load, so a time is an instruction count). Both
# tools run the script twice in one boot: as it is, where a match only answers yes or no,
# and with the argument "capture", where the script reads matched() and every match
# records where it is and its groups. Each figure is the median over RUNS runs of the
# handler's average; the ratio is hwtap/stap.
#   bench/regex.sh [HWTAP]        (RUNS=3, SHIFT=4: 2^SHIFT ns per instruction)
set -euo pipefail
cd "$(dirname "$0")/.."
hwtap=${1:-translator/hwtap}
runs=${RUNS:-3}
shift_=${SHIFT:-4}
loops=1000      # N in bench/regex.stp
. bench/stap-guest.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT; [ -z "${KEEP_TMP:-}" ] || trap - EXIT

opts=(-D MAXACTION=1000000 -D STP_NO_OVERLOAD)
files=(--vm-file loader/hwtap-run:/root/hwtap-run)
run=""
for mode in yesno capture; do
	arg=()
	[ $mode = yesno ] || arg=(capture)
	cp "$("$hwtap" -p4 -m hwtap_bench_re_$mode "${opts[@]}" bench/regex.stp "${arg[@]}")" \
		"$tmp/h_$mode.ko"
	files+=(--vm-file "$tmp/h_$mode.ko:/root/h_$mode.ko")
	run+="/root/hwtap-run /root/h_$mode.ko | sed 's/^/hwtap-$mode /'
"
	if stap_build "$tmp" stap_bench_re_$mode "$PWD/bench/regex.stp" "${opts[@]}" -- "${arg[@]}" \
	   > "$tmp/stap.out"; then
		files+=("${stap_files[@]}")
		run+="/usr/bin/staprun /root/stap_bench_re_$mode.ko | sed 's/^/stap-$mode /'
"
	else
		cat "$tmp/stap.out"
	fi
done
HWTAP_QEMU_EXTRA="-icount shift=$shift_,align=off,sleep=off" \
guest/hwtap-guest --vm-cpus 1 "${files[@]}" --timeout 1800 -- "cd /root
exec 2>&1
for i in \$(seq $runs); do
$run
done" > "$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
[ -z "${KEEP_OUT:-}" ] || cp "$tmp/out" "$KEEP_OUT"

median() {      # WHO WHAT: the median over the runs of the lines "WHO WHAT NS"
	awk -v who="$1" -v w="$2" '$1 == who && $2 == w { print $3 }' "$tmp/out" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
per_match() {   # WHO WHAT: instructions per match, over the loop's share
	local base what
	base=$(median "$1" base)
	what=$(median "$1" "$2")
	[ -n "$base" ] && [ -n "$what" ] || return 0
	awk -v b="$base" -v w="$what" -v ns="$((1 << shift_))" -v n="$loops" \
		'BEGIN { printf "%.0f", (w - b) / ns / n }'
}
[ -n "$(median hwtap-yesno base)" ] || { echo "no results; the guest said:"; cat "$tmp/out"
					 exit 1; }
printf 'icount guest, 1 CPU, %d ns per instruction; guest instructions per match, medians' \
	"$((1 << shift_))"
printf ' of %d runs\n' "$runs"
printf '%-32s %-36s %-22s %s\n' "" "" "yes or no" "with matched()"
printf '%-32s %-36s %6s %5s %6s  %6s %5s %6s\n' regex subject hwtap stap ratio hwtap stap \
	ratio
row() {         # WHAT REGEX SUBJECT
	local cells="" h s mode
	for mode in yesno capture; do
		h=$(per_match hwtap-$mode "$1")
		s=$(per_match stap-$mode "$1")
		cells+=$(awk -v h="$h" -v s="$s" 'BEGIN {
			printf " %6s %5s %6s ", h, (s == "" ? "-" : s),
			       (h != "" && s > 0 ? sprintf("%.2fx", h / s) : "") }')
	done
	printf '%-32s %-36s%s\n' "$2" "$3" "$cells"
}
row literal '"journal"' '"/usr/lib/systemd/systemd-journald"'
row class '"[0-9]+\\.[0-9]+"' '"Linux version 6.1.0-56-amd64"'
row alternation '"read|write|open|close"' '"syscalls:sys_enter_openat"'
row groups '"([a-z]+)@([a-z]+)\\.([a-z]+)"' '"mail from: bob@example.org"'
grep -h '^\(hwtap\|stap\)-capture groups:' "$tmp/out" | sort -u
