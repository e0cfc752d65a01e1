#!/bin/bash
# bench/guest.sh - what the QEMU guest runner costs (guest/guest.c, via hwtap-guest):
#   - extracting the uncompressed vmlinux from /boot/vmlinuz-RELEASE, cold (empty cache)
#   - boot to poweroff for the script `true': the median of 5 runs, wall clock of the whole
#     hwtap-guest process, and QEMU's part of it (hwtap-guest -v says)
#   - the output channel (virtio-serial): the guest's `cat' of 1 MiB and 16 MiB of random
#     bytes to stdout, timed in the guest with /proc/timer_list (ns), byte counts checked
#   bench/guest.sh [HWTAP_GUEST]        (default: guest/hwtap-guest of this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
g=${1:-guest/hwtap-guest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Cold extraction: a cache of its own, so the user's stays.
XDG_CACHE_HOME=$tmp/cache "$g" -v -- true 2> "$tmp/cold" || { cat "$tmp/cold"; exit 1; }
extract=$(sed -n 's/.*extracted .* in \([0-9.]*\) s .*/\1/p' "$tmp/cold")
printf '%-46s %s s\n' "vmlinux extraction (cold, xz)" "${extract:-?}"

"$g" -- true     # warm the user's cache
for i in 1 2 3 4 5; do
	start=$(date +%s%N)
	"$g" -v -- true 2> "$tmp/v$i"
	end=$(date +%s%N)
	echo "scale=2; ($end - $start) / 1000000000" | bc >> "$tmp/wall"
	sed -n 's/.*QEMU ran \([0-9.]*\) s.*/\1/p' "$tmp/v$i" >> "$tmp/qemu"
done
printf '%-46s %s s  (runs: %s)\n' "boot to poweroff, \`true', median of 5" \
	"$(median < "$tmp/wall")" "$(tr '\n' ' ' < "$tmp/wall" | sed 's/ $//')"
printf '%-46s %s s\n' "  of which QEMU, median of 5" "$(median < "$tmp/qemu")"

script='now() { awk "/^now at/ { print \$3; exit }" /proc/timer_list; }
head -c 1048576 /dev/urandom > /tmp/a; head -c 16777216 /dev/urandom > /tmp/b
t0=$(now); t1=$(now); cat /tmp/a; t2=$(now); cat /tmp/b; t3=$(now)
echo $((t1 - t0)) $((t2 - t1)) $((t3 - t2)) >&2'
"$g" -- "$script" > "$tmp/out" 2> "$tmp/err"
read -r clock one sixteen < "$tmp/err"
bytes=$(wc -c < "$tmp/out")
[ "$bytes" -eq $((17 * 1048576)) ] || { echo "received $bytes bytes, expected 17 MiB" >&2; exit 1; }
# t1 - t0 is the cost of reading the clock once (awk under TCG): subtracted.
ms() { echo "scale=1; ($1 - $clock) / 1000000" | bc; }
printf '%-46s %s ms  (reading the clock took %s ms more)\n' "output channel, 1 MiB" \
	"$(ms "$one")" "$(echo "scale=1; $clock / 1000000" | bc)"
printf '%-46s %s ms  = %s MiB/s\n' "output channel, 16 MiB" \
	"$(ms "$sixteen")" "$(echo "16 * 1000000000 / ($sixteen - $clock)" | bc)"
