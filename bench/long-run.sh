#!/bin/bash
# bench/long-run.sh - a long session in the QEMU guest, as a collection script has it:
# 1 ms sampling on every CPU (timer.profile) and 1000 numbered output lines a second into
# `hwtap -o FILE' for MINUTES (default 30), with the guest's memory read every minute.
# Then it checks and prints:
#   - every numbered line arrived, in order, none twice; the end probe's line last
#   - nothing dropped, no errors, no skipped probes (hwtap-run would say so on stderr)
#   - samples per CPU per second against the 1000 asked for
#   - the guest's MemAvailable and Slab over the run (bounded: the last minus the first)
#   - the host side: hwtap's peak RSS and the largest its guest work folder grew to
#     (output copied to FILE is punched out of QEMU's files)
#   bench/long-run.sh [MINUTES]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/long.stp" <<'EOF'
global k, samples
probe timer.profile { samples[cpu()] <<< 1 }
probe timer.ms(1) { printf("line %d\n", ++k) }
probe end {
	foreach (c in samples)
		printf("cpu %d samples %d\n", c, @count(samples[c]))
	printf("end after line %d\n", k)
}
EOF
# The command ends the run: memory once a minute on stderr, MINUTES times.
cmd="for i in \$(seq $minutes); do grep -E '^(MemAvailable|Slab):' /proc/meminfo >&2; sleep 60; done
grep -E '^(MemAvailable|Slab):' /proc/meminfo >&2"

export TMPDIR=$tmp
start=$(date +%s)
translator/hwtap -o "$tmp/out" -c "$cmd" "$tmp/long.stp" 2> "$tmp/err" &
hwtap=$!
# hwtap's own peak RSS (VmHWM; QEMU, its child, is not counted) and its work folder's size
while kill -0 $hwtap 2>/dev/null; do
	sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/$hwtap/status >> "$tmp/rss.kb" 2>/dev/null || true
	{ du -sk "$tmp"/hwtap-guest.* 2>/dev/null || true; } | awk '{ print $1 }' >> "$tmp/workdir.kb"
	sleep 10
done
wait $hwtap || { cat "$tmp/err" >&2; exit 1; }
seconds=$(($(date +%s) - start))

problems=$(grep -v -E '^(MemAvailable|Slab):' "$tmp/err" || true)
[ -z "$problems" ] || { echo "stderr had more than memory lines:" >&2; echo "$problems" >&2; }
last=$(sed -n 's/^end after line \([0-9]*\)$/\1/p' "$tmp/out")
ordered=$(awk -v last="$last" '/^line / { if ($2 != ++n) bad++ }
	END { print (bad || n != last) ? "NO (" bad + 0 " out of place, " n " of " last ")" : "yes" }' \
	"$tmp/out")
tail_ok=$([ "$(tail -n 1 "$tmp/out")" = "end after line $last" ] && echo yes || echo NO)

printf '%-44s %s min (%s s wall)\n' "run" "$minutes" "$seconds"
printf '%-44s %s lines, %s MB\n' "output received in -o FILE" "$last" \
	"$(($(stat -c %s "$tmp/out") / 1000000))"
printf '%-44s %s; end probe last: %s\n' "every line, in order, none twice" "$ordered" "$tail_ok"
printf '%-44s %s\n' "stderr besides memory lines" "${problems:-none}"
awk -v s="$((minutes * 60))" '/^cpu / { printf "%-44s %.0f per second (%.1f %% of 1000)\n",
	"samples, cpu " $2, $4 / s, $4 / s / 10 }' "$tmp/out"
awk '/^MemAvailable:/ { a[++n] = $2 } /^Slab:/ { b[++m] = $2 }
	END { printf "%-44s %d -> %d kB (%+d)\n", "guest MemAvailable, first -> last", a[1], a[n], a[n] - a[1];
	      printf "%-44s %d -> %d kB (%+d)\n", "guest Slab, first -> last", b[1], b[m], b[m] - b[1] }' \
	"$tmp/err"
printf '%-44s %s kB\n' "hwtap's peak RSS on the host (VmHWM)" "$(sort -n "$tmp/rss.kb" | tail -n 1)"
printf '%-44s %s kB\n' "largest guest work folder on the host" \
	"$(sort -n "$tmp/workdir.kb" | tail -n 1)"
