#!/bin/bash
# bench/transport.sh - what the module runtime's transport and the loader cost, measured in
# hwtap's QEMU guest (TCG: expect real hardware to be several times faster) with the test
# module testsuite/hwtap.run/module/testmod.c:
#   - one _hwtap_write() of 64 bytes: 1e5 calls in a row in process context, timed in the
#     module with ktime_get_ns(), in a session with no reader, in a guest under QEMU's
#     icount (one vCPU: time counts instructions, 16 ns each, whatever the host's load):
#     with room, into a full buffer (the drop path), and into a full flight recorder
#     (overwrite mode, as a detached session's: each write past the end overwrites the
#     oldest record; 8 KiB and 256 KiB per CPU), with the ratio to the room case. (With a
#     reader attached on another vCPU, as this bench once forced overwrite mode, the
#     reader's page swaps contend with the writer's head-page moves: 1.46 under TCG; a
#     reader's open turns overwrite mode off, so the product never writes that way.)
#   - one _hwtap_write() of 4000 bytes (2e4 calls, with a reader), TCG wall clock
#   - reattaching to a detached session whose 32 MiB per CPU buffers are full (64 MiB in
#     the 2-CPU guest) and draining them: hwtap-run -A from start to exit
#   - throughput: a 1 ms hrtimer on each CPU writes N records of 4000 bytes per tick for
#     2 s while hwtap-run relays them to /dev/null; the largest N without drops, per CPU,
#     with the default 256 KiB buffers and with 4 MiB ones
#   - hwtap-run from its start to the first record of a module whose begin probe prints
#     one line (median of 5), with its parts: reading .modinfo, finit_module, "start"
#   bench/transport.sh [RELEASE]      (default: the guest's, as hwtap-guest picks it)
set -euo pipefail
cd "$(dirname "$0")/.."
g=guest/hwtap-guest
run=loader/hwtap-run
[ -x "$g" ] && [ -x "$run" ] || { echo "bench/transport.sh: run make first" >&2; exit 1; }
release=${1:-$(translator/hwtap --list-kernels | awk '/  default:/ { print $1 }')}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp testsuite/hwtap.run/module/testmod.c testsuite/hwtap.run/module/Kbuild "$tmp"
make -s -C "/lib/modules/$release/build" M="$tmp" HWTAP_TOP="$PWD" \
	HWTAP_FEATURES="$(translator/hwtap -r "$release" --kernel-features)" modules 2>&1 |
	grep -v 'Skipping BTF' >&2 || true

# The write path, detached (insmod, "start" on ctl, then -d collects the bench's line).
wscript='d() { insmod testmod.ko bench=100000 bench_size=64 "$@"
	echo start > /proc/hwtap_testmod/ctl; ./hwtap-run -o /dev/null -d testmod 2>&1; }
d hwtap_bufsize_kb=16384; d hwtap_bufsize_kb=8
d hwtap_bufsize_kb=8 bench_overwrite=1; d hwtap_bufsize_kb=256 bench_overwrite=1'
HWTAP_QEMU_EXTRA="-icount shift=4,align=off,sleep=off" "$g" --vm-kernel "$release" \
	--vm-cpus 1 --timeout 600 --vm-file "$run" --vm-file "$tmp/testmod.ko" -- "$wscript" \
	> "$tmp/wout"
script='r() { ./hwtap-run -o /dev/null testmod.ko "$@" 2>&1; }
./hwtap-run -D testmod.ko tput=8 ticks=3000 hwtap_bufsize_kb=32768 >/dev/null
sleep 8; ./hwtap-run -L | sed "s/^/list /"
read t0 x </proc/uptime; ./hwtap-run -o /dev/null -A testmod 2>&1 | grep -v tput
read t1 x </proc/uptime; echo "drain $t0 $t1"
for i in 1 2 3; do r bench=20000 bench_size=4000 hwtap_bufsize_kb=131072 exit_in_begin=1; done
for kb in 256 4096; do for n in 2 4 6 8 10 12 16 24 32; do
	echo "tput $kb $n $(r tput=$n ticks=2000 hwtap_bufsize_kb=$kb | tr "\n" " ")"
done; done
for i in 1 2 3 4 5; do ./hwtap-run -v testmod.ko begin_lines=1 exit_in_begin=1 2>&1 >/dev/null; done'
"$g" --vm-kernel "$release" --timeout 600 --vm-file "$run" --vm-file "$tmp/testmod.ko" -- "$script" > "$tmp/out"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ns() { grep "writes of $1 bytes" "$tmp/out" | grep " 0 dropped$" | sed 's/.*: \([0-9]*\) ns each.*/\1/'; }
# the Nth line of the icount boot, in guest instructions (16 ns each)
wi() { grep "writes of 64 bytes" "$tmp/wout" | sed -n "$1s/.*: \([0-9]*\) ns each.*/\1/p" |
	awk '{ printf "%.1f", $1 / 16 }'; }
room=$(wi 1)
printf '%-52s %s insns\n' "_hwtap_write, 64 bytes, with room (icount)" "$room"
printf '%-52s %s insns\n' "_hwtap_write, 64 bytes, buffer full (dropped)" "$(wi 2)"
for n in 3 4; do
	printf '%-52s %s insns  (overwrite/room = %s)\n' \
		"_hwtap_write, 64 bytes, full flight recorder, $([ $n = 3 ] && echo 8 || echo 256) KiB" \
		"$(wi $n)" "$(awk -v a="$(wi $n)" -v b="$room" 'BEGIN { printf "%.3f", a / b }')"
done
printf '%-52s %s ns  (runs: %s)\n' "_hwtap_write, 4000 bytes, median of 3" \
	"$(ns 4000 | median)" "$(ns 4000 | tr '\n' ' ' | sed 's/ $//')"
# TCG and a busy host make single runs noisy: the largest clean N, where drops first
# appear, and the most records relayed (the reader's ceiling) are all worth a look.
for kb in 256 4096; do
	t=$(awk -v kb=$kb '$1 == "tput" && $2 == kb' "$tmp/out")
	best=$(echo "$t" | awk '!/dropped/ { n = $3 } END { print n + 0 }')
	first=$(echo "$t" | awk '/dropped/ { print $3; exit }')
	top=$(echo "$t" | awk '{ if ($6 > m) m = $6 } END { print m + 0 }')
	printf '%-52s %s records/ms = %s MB/s per CPU (first drops at %s/ms)\n' \
		"largest rate without drops, ${kb} KiB per CPU" "$best" "$((best * 4))" "${first:--}"
	printf '%-52s %s records/s = %s MB/s, all CPUs\n' "  most relayed in 2 s" \
		"$((top / 2))" "$((top * 4000 / 2 / 1000000))"
done
grep '^tput' "$tmp/out" | sed 's/WARNING: //; s/^/  /'
grep '^list ' "$tmp/out" | sed 's/^list /  /'
awk '$1 == "drain" { printf "%-52s %.2f s\n", \
	"reattach and drain a detached 2 x 32 MiB, hwtap-run -A", $3 - $2 }' "$tmp/out"
# Per run of hwtap-run -v: when loading began (after .modinfo), when finit_module returned,
# how long "start" took, when the first record came; all from hwtap-run's start.
awk '/parameters .* \(at/ { sub(/.*\(at /, ""); b = $1 }
     /: loaded \(at/ { sub(/.*\(at /, ""); l = $1 }
     /started in/ { sub(/.*started in /, ""); s = $1 }
     /first output \(at/ { sub(/.*\(at /, ""); f = $1 }
     /: unloaded \(at/ { print b, l - b, s, f }' "$tmp/out" > "$tmp/lat"
col() { awk -v c=$1 '{ print $c }' "$tmp/lat" | median; }
printf '%-52s %s ms  (runs: %s)\n' "hwtap-run start to first output, median of 5" \
	"$(col 4)" "$(awk '{ print $4 }' "$tmp/lat" | tr '\n' ' ' | sed 's/ $//')"
printf '%-52s %s ms\n' "  .modinfo, vermagic, parameters checked" "$(col 1)"
printf '%-52s %s ms\n' "  finit_module" "$(col 2)"
printf '%-52s %s ms\n' "  start: the ctl write (begin probes)" "$(col 3)"
