#!/bin/bash
# bench/compare.sh - hwtap, SystemTap 4.8 and bpftrace 0.17 side by side: what each
# language operation costs in a probe handler, in one guest boot under QEMU's icount, and
# how long each translator takes. One line per operation with the three costs and the
# ratios; the last two lines are the worst ratios over the operations both tools have:
#   worst ratio hwtap/stap: R
#   worst ratio hwtap/bpftrace: R
#
# Method (bench/profile.sh's, which explains it at length): each operation is the body of
# a handler on every page fault of bench/faults.c, in a guest whose clocks count executed
# instructions (icount, one vCPU), so a run's CPU time per fault is an instruction count
# that repeats. A round runs the workload bare, then under each tool's module for each
# operation; a handler's cost is its run's increase over the round's bare run, in guest
# instructions per event, the median of ROUNDS rounds. "empty handler" is the floor each
# tool pays per event; every other line is the operation alone: its handler's cost minus
# the tool's empty handler's. printf's line is the throughput its cost per 64-byte line
# gives, in MB/s (larger is better: its ratios are the other way up, so that <= 1.00 still
# means hwtap is as good). The translation times are wall-clock medians of 3 on the host
# (-p2; -p4 with an empty cache; -p4 of a module not built yet, the caches of the kernel
# warm; -p4 again, cached), for the sa[k] operation's script.
# bpftrace has no regular expressions, sprintf or foreach over a map in a probe: "-".
#   bench/compare.sh [HWTAP]       (ROUNDS=3, SHIFT=4: 2^SHIFT ns per instruction;
#                                   ONLY=ERE: the operations whose names match, and the
#                                   empty handler; NOTRANS=1: no translation times;
#                                   NOUPROBES=1: not bench/uprobes.sh's process probes;
#                                   NOKERNEL=1: not bench/kprobes.sh's and
#                                   bench/tracepoints.sh's kernel functions and tracepoints;
#                                   TRANSONLY=1: the translation times alone, no guest)
# Needs stap (through bench/stap-guest.sh) and bpftrace for their columns; takes about
# 25 minutes (TRANSONLY=1: about 5). KEEP_OUT=FILE keeps the guest's raw lines.
. "$(dirname "$0")/common.sh"
rounds=${ROUNDS:-3}
shift_=${SHIFT:-4}

# NAME | globals and other probes (stap's language, both tools) | the handler's body |
# bpftrace's handler body, or "-"
ops='empty||| 
counter|global n|n++|@n++;
a[k]++|global a|a[cpu()]++|@a[cpu]++;
s <<< v|global s|s <<< 100|@s = stats(100);
sa[k] <<< v|global sa|sa[cpu()] <<< 100|@sa[cpu] = stats(100);
@hist_log add|global h; probe end { print(@hist_log(h)) }|h <<< 100|@h = hist(100);
regex match|global subj, n; probe begin { subj = "faults-1234" }|if (subj =~ "^fa[ul]+ts-[0-9]+$") n++|-
sprintf 3 values|global str, n|str = sprintf("%d %s %d", n++, "abc", 42)|-
foreach 1000 keys|global big, t; probe begin { for (i = 0; i < 1000; i++) big[i] = i }|foreach (k in big) t += big[k]|-
printf 64 bytes|global n|printf("%8d 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO\n", n++)|printf("%8d 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO\n", 1);'
line_bytes=64
printf_op="printf 64 bytes"

gcc -O2 -Wall -static -o "$tmp/faults" bench/faults.c
# the workload, its numbers in /tmp/w
work="/root/faults 512 16 /tmp/w"
files=(--vm-file loader/hwtap-run:/root/hwtap-run --vm-file "$tmp/faults:/root/faults")
have_stap=false
if command -v stap > /dev/null; then have_stap=true; fi
have_bpf=false
if command -v bpftrace > /dev/null; then have_bpf=true; fi

# Translation: wall-clock medians of 3 on the host, for the sa[k] operation's script.
translations() {
	wall() {        # COMMAND...: seconds, the median of 3 runs; "-" when it fails
		if ! "$@" > "$tmp/wall.log" 2>&1; then
			echo "($* failed:" "$(tail -2 "$tmp/wall.log"))" >&2
			echo -
			return
		fi
		for i in 1 2 3; do
			local t0 t1
			t0=$(date +%s.%N)
			"$@" > /dev/null 2>&1 || true
			t1=$(date +%s.%N)
			awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
		done | sort -g | sed -n 2p
	}
	script=$tmp/op5.stp
	release=$("$hwtap" --list-kernels | awk '/  default:/ { print $1 }')
	echo
	printf '%-20s %10s %10s %11s   (host wall seconds, medians of 3)\n' translation hwtap stap \
		hwtap/stap
	cold_h() { XDG_CACHE_HOME=$(mktemp -d -p "$tmp") "$hwtap" -p4 -r "$release" "$script"; }
	# (stap -p4 leaves NAME.ko in the working folder: each runs in $tmp)
	cold_s() { (cd "$tmp" && SYSTEMTAP_DIR=$(mktemp -d -p "$tmp") stap -R "$tmp/stap-runtime" \
		-r "$release" -p4 "$script"); }
	cache_h=$(mktemp -d -p "$tmp"); cache_s=$(mktemp -d -p "$tmp")
	warm_h() { XDG_CACHE_HOME=$cache_h "$hwtap" -p4 -r "$release" "$script"; }
	warm_s() { (cd "$tmp" && SYSTEMTAP_DIR=$cache_s stap -R "$tmp/stap-runtime" -r "$release" \
		-p4 "$script"); }
	# a module neither has built, each with its caches of the kernel warm (hwtap's features
	# and kbuild's compiler probes, stap's autoconf tests): what a user's next script costs
	new_h() { XDG_CACHE_HOME=$cache_h "$hwtap" -p4 -r "$release" -m "h_$(date +%s%N)" "$script"; }
	new_s() { (cd "$tmp" && SYSTEMTAP_DIR=$cache_s stap -R "$tmp/stap-runtime" -r "$release" \
		-p4 -m "s_$(date +%s%N)" "$script"); }
	warm_h > /dev/null 2>&1 || :
	! $have_stap || warm_s > /dev/null 2>&1 || :
	for row in "-p2|$hwtap -p2 -r $release $script|stap -p2 -r $release $script" \
		   "-p4 cold|cold_h|cold_s" \
		   "-p4 new module|new_h|new_s" \
		   "-p4 cached|warm_h|warm_s"; do
		IFS='|' read -r label hc sc <<< "$row"
		h=$(wall $hc)
		s=-
		! $have_stap || s=$(wall $sc)
		awk -v l="$label" -v h="$h" -v s="$s" 'BEGIN {
			f = "%.3f"
			printf "%-20s %10s %10s %11s\n", l, (h == "-" ? "-" : sprintf(f, h)),
			(s == "-" ? "-" : sprintf(f, s)),
			(s == "-" || h == "-" || s == 0 ? "-" : sprintf("%.2f", h / s)) }'
		[ "$s" = - ] || [ "$h" = - ] ||
			worst_s+="$(awk -v h="$h" -v s="$s" 'BEGIN { printf "%.2f", h / s }') "
	done
}

# TRANSONLY=1: the translation times alone (no guest): op 5's script and stap's runtime
if [ -n "${TRANSONLY:-}" ]; then
	printf '%s\nprobe perf.sw.page_faults.sample(1) { %s }\n' "global sa" "sa[cpu()] <<< 100" \
		> "$tmp/op5.stp"
	cp -r /usr/share/systemtap/runtime "$tmp/stap-runtime"
	release=$("$hwtap" --list-kernels | awk '/  default:/ { print $1 }')
	if grep -qs task_work_cancel_func \
	   "/usr/src/linux-headers-${release%-amd64}-common/include/linux/task_work.h"; then
		sed -i 's/\btask_work_cancel\b/task_work_cancel_func/g' "$tmp/stap-runtime/stp_task_work.c"
	fi
	translations
	exit 0
fi

# Scripts and modules: op K is h_K.ko and s_K.ko; K's bpftrace program is bpf_K.
guest_runs=""
k=0
while IFS='|' read -r name globals body bpf; do
	k=$((k + 1))
	names[$k]=$name
	printf '%s\nprobe perf.sw.page_faults.sample(1) { %s }\n' "$globals" "$body" \
		> "$tmp/op$k.stp"
	# ONLY=ERE: the operations whose names match it, and the empty handler
	if [ -n "${ONLY:-}" ] && [ "$k" -gt 1 ] && ! grep -Eq -- "$ONLY" <<< "$name"; then
		continue
	fi
	out=/dev/null
	[ "$name" != "$printf_op" ] || out=/tmp/printed
	cp "$("$hwtap" -p4 -m "h_$k" -D MAXACTION=100000 -D STP_NO_OVERLOAD "$tmp/op$k.stp")" \
		"$tmp/h_$k.ko"
	files+=(--vm-file "$tmp/h_$k.ko:/root/h_$k.ko")
	guest_runs+="rm -f /tmp/w; /root/hwtap-run -o $out -c '$work' /root/h_$k.ko hwtap_bufsize_kb=4096
	echo \"hwtap $k \$(cat /tmp/w 2>&1)\"
"
	# (stap elides an empty probe, and then has none: -u keeps it)
	unopt=()
	[ "$k" -gt 1 ] || unopt=(-u)
	if $have_stap && stap_build "$tmp" "s_$k" "$tmp/op$k.stp" -D MAXACTION=100000 \
				    -D STP_NO_OVERLOAD "${unopt[@]}" > "$tmp/stap_$k.why"; then
		files+=("${stap_files[@]}")
		guest_runs+="rm -f /tmp/w; /usr/bin/staprun -b 4 -o $out -c '$work' /root/s_$k.ko
	echo \"stap $k \$(cat /tmp/w 2>&1)\"
"
	elif $have_stap; then
		echo "(stap did not build '$name':)"; cat "$tmp/stap_$k.why"
	fi
	if $have_bpf && [ "$bpf" != "-" ]; then
		printf 'software:page-faults:1 { %s }\n' "$bpf" > "$tmp/bpf_$k"
		files+=(--vm-file "$tmp/bpf_$k:/root/bpf_$k")
		guest_runs+="rm -f /tmp/w; BPFTRACE_PERF_RB_PAGES=1024 bpftrace -q -o $out -c '$work' /root/bpf_$k
	echo \"bpftrace $k \$(cat /tmp/w 2>&1)\"
"
	fi
done <<< "$ops"
nops=$k
guest_mem_with_bpftrace $have_bpf
$have_stap || echo "(no stap: apt-get install systemtap to compare with it)"

icount_rounds $mem

# op K's cost for WHO, in instructions per event (stap-guest.sh)
cost() { median_cost "$@"; }
grep -q '^bare ' "$tmp/out" || { echo "no results; the guest said:"; cat "$tmp/out"; exit 1; }

printf 'icount guest, 1 CPU; guest instructions per event, medians of %s rounds\n' "$rounds"
printf '%-20s %10s %10s %10s %11s %15s\n' operation hwtap stap bpftrace hwtap/stap \
	hwtap/bpftrace
declare -A floor
for who in hwtap stap bpftrace; do
	floor[$who]=$(cost "$who" 1)
done
worst_s=""; worst_b=""
for k in $(seq "$nops"); do
	declare -A c=()
	for who in hwtap stap bpftrace; do
		v=$(cost "$who" "$k")
		if [ -n "$v" ] && [ "$k" -gt 1 ] && [ -n "${floor[$who]}" ]; then
			v=$(awk -v a="$v" -v b="${floor[$who]}" 'BEGIN { print a - b }')
		fi
		c[$who]=$v
	done
	[ -n "${c[hwtap]}${c[stap]}${c[bpftrace]}" ] || continue
	line=$(awk -v name="${names[$k]}" -v h="${c[hwtap]}" -v s="${c[stap]}" \
		   -v b="${c[bpftrace]}" -v tput="$([ "${names[$k]}" = "$printf_op" ] && echo 1)" \
		   -v bytes=$line_bytes -v ns="$((1 << shift_))" '
		function show(x) {
			if (x == "") return "-"
			if (tput) return sprintf("%.1f MB/s", bytes * 1000 / (x * ns))
			return sprintf("%.1f", x)
		}
		# cost ratio hwtap/other; for throughput, other/hwtap of MB/s is the same
		function ratio(a, b) {
			if (a == "" || b == "") return "-"
			if (b <= 0) return (a <= 0 ? "1.00" : "inf")
			return sprintf("%.2f", (a < 0 ? 0 : a) / b)
		}
		BEGIN { printf "%-20s %10s %10s %10s %11s %15s\n", name, show(h), show(s),
			show(b), ratio(h, s), ratio(h, b) }')
	echo "$line"
	r=$(awk '{ print $(NF - 1) }' <<< "$line"); [ "$r" = - ] || worst_s+="$r "
	r=$(awk '{ print $NF }' <<< "$line"); [ "$r" = - ] || worst_b+="$r "
	unset c
done

max() { tr ' ' '\n' <<< "$1" | grep -v '^$' | sort -g | tail -1; }
worst() {
	echo
	echo "worst ratio hwtap/stap: $(max "$worst_s")"
	echo "worst ratio hwtap/bpftrace: $(max "$worst_b")"
}
# Per call of a probed function or tracepoint: the tables of bench/uprobes.sh (process
# probes), bench/kprobes.sh (kernel functions) and bench/tracepoints.sh (kernel.trace),
# before the worst lines.
uprobes() {
	local b
	for b in uprobes kprobes tracepoints; do
		case $b in
		uprobes) [ -n "${NOUPROBES:-}" ] && continue ;;
		*) [ -n "${NOKERNEL:-}" ] && continue ;;
		esac
		echo
		ROUNDS=$rounds SHIFT=$shift_ "bench/$b.sh" "$hwtap" || echo "(bench/$b.sh failed)"
	done
}
if [ -n "${NOTRANS:-}" ]; then
	uprobes
	worst
	exit 0
fi
translations
uprobes
worst
