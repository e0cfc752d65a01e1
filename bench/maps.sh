#!/bin/bash
# bench/maps.sh - array and statistics operations in a timer probe (bench/maps.stp), hwtap
# against SystemTap 4.8 in the same guest boot: ns per operation, the median of 5 runs of
# each, taken in turns. TCG emulation makes absolute numbers slow and noisy; compare the
# two columns. With ICOUNT=1 the guest runs on 1 CPU under QEMU's icount mode (as
# bench/profile.sh does): its clock advances 2^SHIFT ns (SHIFT=4) per executed instruction
# whatever the host's load, so each column is an exact instruction count times 2^SHIFT and
# the ratio repeats from run to run. stap builds through bench/stap-guest.sh; without stap
# only hwtap runs.
#   [ICOUNT=1] [SHIFT=4] bench/maps.sh [HWTAP]
. "$(dirname "$0")/common.sh"
runs=5
guest_opts=()
if [ -n "${ICOUNT:-}" ]; then
	export HWTAP_QEMU_EXTRA="-icount shift=${SHIFT:-4},align=off,sleep=off"
	guest_opts=(--vm-cpus 1)
fi

cp "$("$hwtap" -p4 -m hwtap_bench_maps -D MAXACTION=1000000 bench/maps.stp)" "$tmp/h.ko"
files=(--vm-file "$tmp/h.ko:/root/h.ko" --vm-file loader/hwtap-run:/root/hwtap-run)
stap_run=""
if stap_build "$tmp" stap_bench_maps "$PWD/bench/maps.stp" -D MAXACTION=1000000 \
	      -D STP_NO_OVERLOAD; then
	files+=("${stap_files[@]}")
	stap_run='/usr/bin/staprun /root/stap_bench_maps.ko > /root/stap.$i'
fi
guest/hwtap-guest "${guest_opts[@]}" "${files[@]}" --timeout 600 -- "cd /root
for i in \$(seq $runs); do /root/hwtap-run /root/h.ko > /root/h.\$i; ${stap_run:-true}; done
for i in \$(seq $runs); do cat /root/h.\$i; done > /root/hwtap
cat /root/stap.* > /root/stap 2>/dev/null || : > /root/stap
echo HWTAP; cat /root/hwtap; echo STAP; cat /root/stap" 2>/dev/null > "$tmp/out"

# The median of the runs, for each line "NAME NS" of one section (HWTAP or STAP).
medians() {
	local lines name
	lines=$(sed -n "/^$1\$/,/^$2\$/p" "$tmp/out" | grep -av "^$1\$\|^$2\$" || true)
	[ -n "$lines" ] || return 0
	while IFS= read -r name; do
		printf '%s\t%s\n' "$name" "$(grep -aF "$name " <<< "$lines" | awk '{ print $NF }' |
			sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
	done < <(awk '{ $NF = ""; sub(/ +$/, ""); print }' <<< "$lines" | awk '!seen[$0]++')
}
medians HWTAP STAP > "$tmp/h.med"
medians STAP END > "$tmp/s.med"
[ -z "${ICOUNT:-}" ] ||
	printf 'icount guest, 1 CPU, %d ns per instruction\n' "$((1 << ${SHIFT:-4}))"
printf '%-28s %10s %10s %10s\n' "ns per operation" "hwtap" "stap" "hwtap/stap"
paste "$tmp/h.med" "$tmp/s.med" |
	awk -F'\t' '{ printf "%-28s %10s %10s %10s\n", $1, $2, ($4 == "" ? "-" : $4),
		       ($4 > 0 ? sprintf("%.2f", $2 / $4) : "-") }'
