#!/bin/bash
# bench/soak.sh - a session under everything at once, for MINUTES (default 30) in the QEMU
# guest, with REATTACHES (default 20) detach/reattach rounds of hwtap-run:
#   - perf sampling at 10 kHz on every CPU (perf.sw.cpu_clock.sample(100000)) and a
#     counting probe (context switches, read with @perf)
#   - ras.mce, with a corrected machine check injected every second (hwtap-inject)
#   - output at about 1 MB/s: 500 numbered lines of 2000 bytes a second, one record each
#   - CPU 1 taken offline and back every 2 s
#   - the session detached (hwtap-run -D), its reader attached and detached REATTACHES
#     times (-A, then SIGINT), the flight recorder overwriting while nobody reads
# Then it checks and prints:
#   - the numbered lines received, and the missing ones against what the session counted
#     as overwritten or dropped: every missing line must be counted (unaccounted: 0); an
#     unaccounted line is placed by the session's own counts: lost in the kernel (printed
#     is not dropped + overwritten + read by readers + still buffered) or between the
#     kernel and the file (read + buffered is not received)
#   - machine checks seen against injected, samples per CPU per second, the counter
#   - the guest's MemAvailable and Slab over the run (first, highest, last)
#   - the guest kernel's reports: hwtap-guest fails the run (status 125) on any oops, BUG,
#     WARNING, lockup or panic, and prints its log
# Exit status 0 when nothing is unaccounted or duplicated and the session had no error;
# else the guest's whole report is kept in $SOAK_KEEP (default /var/tmp) for a look.
#   bench/soak.sh [MINUTES [REATTACHES]]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30}
rounds=${2:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seconds=$((minutes * 60))

cat > "$tmp/soak.stp" <<'EOF'
# $1: seconds to print for. Every line printed carries the next number of one sequence.
global seq, samples, mces, pad, t0, printing = 1
probe begin {
	t0 = gettimeofday_s()
	pad = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz"
}
probe perf.sw.cpu_clock.sample(100000) { samples[cpu()] <<< 1 }
probe perf.sw.context_switches.counter("cs") { }
probe timer.ms(2) {
	if (!printing)
		next
	if (gettimeofday_s() - t0 >= $1) {
		printing = 0
		next
	}
	# 20 x 100 bytes: one line of 2000 bytes, one record
	printf("%d %s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s\n", ++seq, pad, pad, pad, pad, pad,
	       pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad)
}
probe ras.mce {
	mces++
	if (printing)
		printf("%d mce cpu %d bank %d status %#x\n", ++seq, $cpu, $bank, $status)
}
probe end {
	foreach (c in samples)
		printf("end: cpu %d samples %d\n", c, @count(samples[c]))
	printf("end: mces %d\n", mces)
	printf("end: context switches %d\n", @perf("cs"))
	printf("end: lines %d\n", seq)
}
EOF

# Skipped probes are counted, not fatal: a loaded host makes handlers collide at 10 kHz.
translator/hwtap -p4 -m p_soak -D MAXACTION=100000 -D MAXSKIPPED=1000000000 "$tmp/soak.stp" \
	"$seconds" > "$tmp/ko"
ko=$(cat "$tmp/ko")

# In the guest: the detached session, hotplug and injection loops, the reader rounds
# (only each line's number is kept: 1 MB/s would fill the guest's memory), then the
# counts, the end, and the memory lines.
attached=$(((seconds - 10) / rounds * 3 / 4))
detached=$(((seconds - 10) / rounds - attached))
cat > "$tmp/guest.sh" <<EOF
cd /root
mem() { grep -E '^(MemAvailable|Slab):' /proc/meminfo >> /tmp/mem
	echo "Tmp: \$(du -sk /tmp | cut -f1) kB" >> /tmp/mem; }
mem
# -D relays what the session printed before it detached: lines like the readers'
./hwtap-run -D p_soak.ko hwtap_bufsize_kb=1024 > /tmp/detach || exit 1
grep -E '^[0-9]+ ' /tmp/detach | cut -d' ' -f1 >> /tmp/seqs
( while :; do echo 0 > /sys/devices/system/cpu/cpu1/online; sleep 1
	echo 1 > /sys/devices/system/cpu/cpu1/online; sleep 1; done ) &
hot=\$!
( while :; do hwtap-inject mce --bank 1 --status 0x9c00000000010151 && echo >> /tmp/injected
	sleep 1; done ) &
inj=\$!
( while :; do sleep 60; mem; done ) &
memloop=\$!
for i in \$(seq $rounds); do
	sleep $detached
	./hwtap-run -A p_soak 2>>/tmp/reader.err |
		awk '/^[0-9]+ / { print \$1; next } { print > "/tmp/other" }' >> /tmp/seqs &
	sleep $attached
	kill -INT \$(pidof hwtap-run) 2>/dev/null
	wait \$!
done
kill \$hot \$inj \$memloop; wait 2>/dev/null
echo 1 > /sys/devices/system/cpu/cpu1/online
sleep 15
mem
./hwtap-run -L --json > /tmp/list
./hwtap-run -d p_soak > /tmp/end 2>>/tmp/reader.err
grep -E '^[0-9]+ ' /tmp/end | cut -d' ' -f1 >> /tmp/seqs
echo "@@ list"; cat /tmp/list
echo "@@ end"; grep -v -E '^[0-9]+ ' /tmp/end; cat /tmp/other 2>/dev/null
echo "@@ injected \$(wc -l < /tmp/injected)"
echo "@@ mem"; cat /tmp/mem
echo "@@ reader stderr"; cat /tmp/reader.err
echo "@@ seqs"; sort -n /tmp/seqs | uniq -c | awk '\$1 > 1 { d++ } END { print "duplicates", d + 0 }'
sort -n -u /tmp/seqs | awk '{ n++ } END { print "received", n + 0 }'
sort -n -u /tmp/seqs | awk 'NR == 1 && \$1 > 1 { print "gap", \$1 - 1, "after", 0 } NR > 1 && \$1 != p + 1 { print "gap", \$1 - p - 1, "after", p } { p = \$1 }'
EOF

start=$(date +%s)
status=0
guest/hwtap-guest --timeout $((seconds + 600)) --vm-modprobe mce-inject \
	--vm-file loader/hwtap-run:/root/hwtap-run --vm-file inject/hwtap-inject:/usr/bin/hwtap-inject \
	--vm-file "$ko:/root/p_soak.ko" -- "$(cat "$tmp/guest.sh")" > "$tmp/out" 2> "$tmp/err" ||
	status=$?
wall=$(($(date +%s) - start))
if [ $status -ne 0 ]; then
	echo "the guest run failed (status $status):" >&2
	tail -n 80 "$tmp/err" >&2
	tail -n 40 "$tmp/out" >&2
	exit 1
fi

field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$tmp/out" | head -n 1; }
lines=$(sed -n 's/^end: lines \([0-9]*\)$/\1/p' "$tmp/out")
if [ -z "$lines" ] || ! grep -q '"session":"p_soak"' "$tmp/out"; then
	echo "the session did not last the run: its end and list are missing; what the" \
		"readers and the guest said:" >&2
	sed -n '/^@@ end/,$p' "$tmp/out" | grep -v -E '^(gap|[0-9]+$)' | sort | uniq -c | head -n 30 >&2
	exit 1
fi
received=$(sed -n 's/^received \([0-9]*\)$/\1/p' "$tmp/out")
dups=$(sed -n 's/^duplicates \([0-9]*\)$/\1/p' "$tmp/out")
overwritten=$(field overwritten)
dropped=$(field dropped)
read=$(field read)
buffered=$(field records)
skipped=$(field skipped)
errors=$(field errors)
missing=$((lines - received))
counted=$((overwritten + dropped))
unaccounted=$((missing > counted ? missing - counted : 0))
# Every record but the numbered lines went out after the list: printing was over by then.
in_kernel=$((lines - dropped - overwritten - read - buffered))
in_relay=$((read + buffered - received))

printf '%-46s %s min, %s rounds (%s s wall)\n' "run" "$minutes" "$rounds" "$wall"
printf '%-46s %s\n' "lines printed (end probe)" "$lines"
printf '%-46s %s (%s MB), duplicates %s\n' "lines received by the readers" "$received" \
	"$((received * 2 / 1000))" "$dups"
printf '%-46s %s\n' "lines missing" "$missing"
printf '%-46s %s overwritten + %s dropped = %s\n' "records the session counted as lost" \
	"$overwritten" "$dropped" "$counted"
printf '%-46s %s\n' "missing and not counted (unaccounted)" "$unaccounted"
printf '%-46s %s in the kernel, %s between the kernel and the file\n' "  by the session's counts" \
	"$in_kernel" "$in_relay"
printf '%-46s %s errors, %s skipped probes\n' "session" "$errors" "$skipped"
printf '%-46s %s seen of %s injected\n' "machine checks" \
	"$(sed -n 's/^end: mces //p' "$tmp/out")" "$(sed -n 's/^@@ injected //p' "$tmp/out")"
awk -v s="$seconds" '/^end: cpu / { printf "%-46s %.0f per second (%.1f %% of 10000)\n",
	"samples, cpu " $3, $5 / s, $5 / s / 100 }' "$tmp/out"
printf '%-46s %s\n' "context switches (counter)" \
	"$(sed -n 's/^end: context switches //p' "$tmp/out")"
# MemAvailable plus what the guest's /tmp (RAM) holds: the lines' numbers grow it.
awk '/^MemAvailable:/ { a[++n] = $2 } /^Tmp:/ { t[n] = $2 }
	/^Slab:/ { b[++m] = $2; if ($2 > hi) hi = $2 }
	END { for (i = 1; i <= n; i++) { v = a[i] + t[i]; if (!lo || v < lo) lo = v }
	      printf "%-46s %d -> %d kB (lowest %d)\n", "guest MemAvailable + /tmp, first -> last",
		     a[1] + t[1], a[n] + t[n], lo;
	      printf "%-46s %d -> %d kB (highest %d)\n", "guest Slab, first -> last", b[1], b[m], hi }' \
	"$tmp/out"
sed -n '/^@@ reader stderr/,/^@@ seqs/p' "$tmp/out" | grep -v '^@@' | sort | uniq -c |
	sed 's/^/reader stderr: /' | head -n 20
grep '^gap ' "$tmp/out" | awk '{ n[$2 > 100 ? "large" : "small"]++; s[$2 > 100 ? "large" : "small"] += $2 }
	END { for (k in n) printf "%-46s %d gaps, %d lines\n", "missing lines in " k " gaps", n[k], s[k] }'
grep '^gap ' "$tmp/out" | awk '$2 <= 100 { print "small gap (100 lines or fewer):", $2, "lines after", $4 }' |
	head -n 10
if [ "$unaccounted" -ne 0 ] || [ "$dups" -ne 0 ] || [ "$errors" -ne 0 ] ||
	[ "$in_kernel" -ne 0 ] || [ "$in_relay" -ne 0 ]; then
	keep=${SOAK_KEEP:-/var/tmp}/soak-$(date +%Y%m%d-%H%M%S).out
	cp "$tmp/out" "$keep"
	echo "the guest's whole report, gaps included, kept in $keep"
	exit 1
fi
