#!/bin/bash
# bench/ras-burst.sh - a burst of N machine checks (default 10000, mce-inject's software
# path as fast as the kernel takes them) recorded into rasdaemon's database by hwtap
# (examples/ras/ras-history.stp, hwtap-run --ras-db) and, in the same guest boot, by
# Debian's rasdaemon 0.6.8 (unpacked by bootstrap.sh check): the rows each kept of the
# records the kernel emitted (its own mce_record trace event, counted in tracefs: it drops
# some itself when its pool of records waiting to be logged fills), and the burst's time.
#   bench/ras-burst.sh [HWTAP]        (N=10000)
set -euo pipefail
cd "$(dirname "$0")/.."
hwtap=${1:-translator/hwtap}
n=${N:-10000}
rd=${HWTAP_RASDAEMON:-/usr/local/lib/hwtap/rasdaemon}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT; [ -z "${KEEP_TMP:-}" ] || trap - EXIT

cp "$("$hwtap" -p4 -m hwtap_bench_burst examples/ras/ras-history.stp)" "$tmp/h.ko"
files=(--vm-file "$tmp/h.ko:/root/h.ko" --vm-file loader/hwtap-run:/root/hwtap-run
       --vm-file inject/hwtap-inject:/usr/bin/hwtap-inject --vm-modprobe mce-inject)
start_rasdaemon=true
if [ -x "$rd/usr/sbin/rasdaemon" ]; then
	files+=(--vm-file "$rd/usr/sbin/rasdaemon:/usr/sbin/rasdaemon")
	for l in $(ldd "$rd/usr/sbin/rasdaemon" |
		   awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/lib/ { print $1 }'); do
		files+=(--vm-file "$(readlink -f "$l"):$l")
	done
	# 0.6.8 sees events only with its instance's buffer_percent at 0 (kernel-facts.md)
	start_rasdaemon='mkdir -p /sys/kernel/tracing/instances/rasdaemon /var/lib/rasdaemon
		echo 0 > /sys/kernel/tracing/instances/rasdaemon/buffer_percent
		/usr/sbin/rasdaemon -f -r >/dev/null 2>&1 & rd=$!; sleep 3'
else
	echo "(no rasdaemon in $rd: only hwtap records)"
fi
guest/hwtap-guest "${files[@]}" --timeout 1800 -- "cd /root
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
echo 65536 > /sys/kernel/tracing/buffer_size_kb
echo 1 > /sys/kernel/tracing/events/mce/mce_record/enable
$start_rasdaemon
t0=\$(date +%s)
./hwtap-run --ras-db /root/hwtap.db -c 'hwtap-inject mce --cpu 0 --bank 4 \
	--status 0x9c00000000010091 --addr 0x1000 --count $n; sleep 3' h.ko >/dev/null
echo \"seconds \$(( \$(date +%s) - t0 ))\"
echo \"kernel \$(grep -c 'mce_record:' /sys/kernel/tracing/trace)\"
sleep 5
[ -n \"\${rd:-}\" ] && { kill \$rd; wait \$rd; }
echo @HWTAP; base64 /root/hwtap.db
[ -n \"\${rd:-}\" ] && { echo @RASDAEMON; base64 /var/lib/rasdaemon/ras-mc_event.db; }
echo @END" > "$tmp/out" 2>&1 || { tail -20 "$tmp/out"; exit 1; }

rows() {        # SECTION: the mce_record rows of that database, or "-"
	awk -v s="@$1" '$0 == s { f = 1; next } /^@/ { f = 0 } f' "$tmp/out" |
		base64 -d > "$tmp/$1.db" 2>/dev/null || true
	sqlite3 "$tmp/$1.db" "select count(*) from mce_record" 2>/dev/null || echo -
}
h=$(rows HWTAP)
r=$(rows RASDAEMON)
k=$(awk '$1 == "kernel" { print $2 }' "$tmp/out")
printf "%d machine checks injected in %s s (TCG guest, 2 CPUs); the kernel emitted %s\n" \
	"$n" "$(awk '$1 == "seconds" { print $2 }' "$tmp/out")" "$k"
for who in "hwtap --ras-db:$h" "rasdaemon 0.6.8:$r"; do
	v=${who#*:}
	printf "%-16s %6s rows (%s of the emitted lost)\n" "${who%%:*}:" "$v" \
		"$([ "$v" = - ] && echo - || echo $((k - v)))"
done
