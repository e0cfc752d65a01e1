#!/bin/bash
# bench/mmaps.sh - what following mappings costs a machine while a session names user
# addresses (usymname(), ubacktrace() ...): per mmap+munmap of a file, hwtap (a kprobe on
# perf_event_mmap, runtime/usyms.c) and SystemTap 4.8 (its task finder's vma tracking),
# in one guest boot under QEMU's icount (bench/compare.sh's method: instructions per
# event above the round's bare run, the median of ROUNDS rounds).
#   names other      the script names a program the workload is not (-d another file),
#                    and only what it names (-D HWTAP_UDYN_FILES=0, SystemTap's way):
#                    each mapping is of a file the session has no symbols of
#   names this       the script names the workload itself (-d it): each mapping is
#                    recorded, and each unmapped range trimmed at the next mapping
#   names all        hwtap's default: nothing named in the script, every file a process
#                    maps for execution named at run time (hwtap-run hands the module
#                    the workload's symbols at its exec); stap's figure is its -d of the
#                    workload, the same names
# The last line is the worst ratio hwtap/stap.
#   bench/mmaps.sh [HWTAP]      (ROUNDS=3, SHIFT=4, COUNT=20000)
. "$(dirname "$0")/common.sh"
rounds=${ROUNDS:-3}
shift_=${SHIFT:-4}
count=${COUNT:-20000}

gcc -O2 -Wall -static -o "$tmp/mmaps" bench/mmaps.c
gcc -O2 -Wall -static -o "$tmp/other" bench/ucalls.c
work="/root/mmaps $count /tmp/w"
files=(--vm-file loader/hwtap-run:/root/hwtap-run --vm-file "$tmp/mmaps:/root/mmaps"
       --vm-file "$tmp/other:/root/other")
script='probe begin { print(usymname(0) == "" ? "?" : "") }'
echo "$script" > "$tmp/names.stp"
have_stap=false
if command -v stap > /dev/null; then have_stap=true; fi

guest_runs=""
names=("" "names other" "names this" "names all")
hopts=("" "-d /root/other -D HWTAP_UDYN_FILES=0" "-d /root/mmaps" "")
for k in 1 2 3; do
	# hwtap reads the guest's paths through --vm-file; stap reads the files where the
	# guest has them too ($tmp), both named alike
	# shellcheck disable=SC2086  # (the options are words)
	cp "$("$hwtap" -p4 -m "h_$k" ${hopts[$k]} "${files[@]}" "$tmp/names.stp")" "$tmp/h_$k.ko"
	files+=(--vm-file "$tmp/h_$k.ko:/root/h_$k.ko")
	guest_runs+="rm -f /tmp/w; /root/hwtap-run -c '$work' /root/h_$k.ko >/dev/null
	echo \"hwtap $k \$(cat /tmp/w 2>&1)\"
"
	sd=$([ "$k" = 1 ] && echo "$tmp/other" || echo "$tmp/mmaps")
	if [ "$k" = 3 ]; then
		continue	# (stap's "names this" is the figure to compare with)
	elif $have_stap && stap_build "$tmp" "s_$k" "$tmp/names.stp" -d "$sd" > "$tmp/stap_$k.why"
	then
		files+=("${stap_files[@]}")
		guest_runs+="rm -f /tmp/w; /usr/bin/staprun -c '$tmp/mmaps $count /tmp/w' /root/s_$k.ko >/dev/null
	echo \"stap $k \$(cat /tmp/w 2>&1)\"
"
	elif $have_stap; then
		echo "(stap did not build '${names[$k]}':)"; cat "$tmp/stap_$k.why"
	fi
done
$have_stap && files+=(--vm-file "$tmp/mmaps:$tmp/mmaps" --vm-file "$tmp/other:$tmp/other")
$have_stap || echo "(no stap: only hwtap runs)"

icount_rounds 512
grep -q '^bare ' "$tmp/out" || { echo "no results; the guest said:"; cat "$tmp/out"; exit 1; }
cost() { median_cost "$@"; }

bare=$(awk -v ns="$((1 << shift_))" '$1 == "bare" { print $4 / ns }' "$tmp/out" | sort -g |
       awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
printf 'icount guest, 1 CPU; guest instructions per mmap+munmap above the bare %.0f, medians of %s rounds\n' \
	"$bare" "$rounds"
printf '%-20s %10s %10s %11s\n' case hwtap stap hwtap/stap
worst=""
for k in 1 2 3; do
	h=$(cost hwtap "$k"); s=$(cost stap "$([ "$k" = 3 ] && echo 2 || echo "$k")")
	line=$(awk -v name="${names[$k]}" -v h="$h" -v s="$s" '
		function show(x) { return x == "" ? "-" : sprintf("%.0f", x) }
		BEGIN { r = (h == "" || s == "") ? "-" : (s <= 0 ? "inf" : sprintf("%.2f", (h < 0 ? 0 : h) / s))
			printf "%-20s %10s %10s %11s\n", name, show(h), show(s), r }')
	echo "$line"
	r=$(awk '{ print $NF }' <<< "$line"); [ "$r" = - ] || worst+="$r "
done
echo "worst ratio hwtap/stap (mmaps): $(tr ' ' '\n' <<< "$worst" | grep -v '^$' | sort -g | tail -1)"
