# bench/stap-guest.sh - sourced (through bench/common.sh) by the benches that run
# SystemTap 4.8 or bpftrace beside hwtap in the guest. After `stap_build TMP NAME SCRIPT
# [STAP OPTIONS...] [-- SCRIPT ARGUMENTS...]' succeeds, TMP/NAME.ko is built and the array
# stap_files holds the --vm-file arguments that put it, staprun, stapio and their
# libraries into the guest (as /root/NAME.ko and their own paths). It
# fails, saying why, when stap is missing or cannot build for the kernel the guest boots
# (the default of `$hwtap --list-kernels').
#
# STAP_BUILD_TREE, when set, is the build tree stap builds against (stap_symbol_tree).
#
# SystemTap 4.8's runtime calls task_work_cancel(task, func), which 6.1.1xx kernels
# renamed task_work_cancel_func: the build uses a copy patched for that (kernel-facts.md),
# or STAP_RUNTIME when set.

stap_build() {
	local tmp=$1 name=$2 script=$3 release runtime l opts=() args=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# -eq 0 ] || { shift; args=("$@"); }
	release=$("${hwtap:-translator/hwtap}" --list-kernels 2>/dev/null |
		  awk '/  default:/ { print $1 }')
	if ! command -v stap > /dev/null || [ -z "$release" ]; then
		echo "(no stap or no kernel build tree: only hwtap runs)"
		return 1
	fi
	runtime=${STAP_RUNTIME:-}
	if [ -z "$runtime" ]; then
		runtime=$tmp/stap-runtime
		[ -d "$runtime" ] || cp -r /usr/share/systemtap/runtime "$runtime"
		if grep -qs task_work_cancel_func \
		   "/usr/src/linux-headers-${release%-amd64}-common/include/linux/task_work.h"; then
			sed -i 's/\btask_work_cancel\b/task_work_cancel_func/g' \
				"$runtime/stp_task_work.c"
		fi
	fi
	if ! (cd "$tmp" && SYSTEMTAP_DIR="$tmp/st" stap -R "$runtime" \
		-r "${STAP_BUILD_TREE:-$release}" -p4 \
		-m "$name" "${opts[@]}" "$script" "${args[@]}" > /dev/null 2> "$tmp/$name.log"); then
		echo "(stap could not build for $release; only hwtap runs:)"
		tail -5 "$tmp/$name.log"
		return 1
	fi
	stap_files=(--vm-file "$tmp/$name.ko:/root/$name.ko"
		    --vm-file /usr/bin/staprun:/usr/bin/staprun
		    --vm-file /usr/lib/systemtap/stapio:/usr/lib/systemtap/stapio)
	for l in $(ldd /usr/bin/staprun /usr/lib/systemtap/stapio |
		   awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/lib/ { print $1 }' |
		   sort -u); do
		stap_files+=(--vm-file "$(readlink -f "$l"):$l")
	done
}

# stap decides whether a kernel has uprobes from its symbol table, which Debian ships only
# in the -dbg package: `stap_symbol_tree TMP' makes TMP/stap-tree, links to the default
# kernel's build tree with a System.map from the guest's /proc/kallsyms (one boot), and
# sets STAP_BUILD_TREE to it.
stap_symbol_tree() {
	local tmp=$1 release build f
	release=$("${hwtap:-translator/hwtap}" --list-kernels 2>/dev/null |
		  awk '/  default:/ { print $1 }')
	build=$(readlink -f "/lib/modules/$release/build")
	mkdir -p "$tmp/stap-tree"
	for f in "$build"/* "$build"/.[!.]*; do
		[ -e "$f" ] && ln -sfn "$f" "$tmp/stap-tree/"
	done
	guest/hwtap-guest -- 'echo 0 >/proc/sys/kernel/kptr_restrict; grep -v "\[" /proc/kallsyms' \
		> "$tmp/stap-tree/System.map" 2>/dev/null || return 1
	STAP_BUILD_TREE=$tmp/stap-tree
}

# mem=512, or with bpftrace's files added to the array files when $1 is true and bpftrace
# is installed, 1536 (bpftrace_guest_files).
guest_mem_with_bpftrace() {
	mem=512
	if $1 && bpftrace_guest_files; then
		files+=("${bpftrace_files[@]}")
		mem=1536
	fi
}

# bpftrace 0.17 (Debian's) in the guest as it is: the array bpftrace_files gets the
# --vm-file arguments for it and its libraries (LLVM, clang, bcc: about 200 MB, so the
# guest wants 1536 MB). Fails, saying so, when bpftrace is not installed.
bpftrace_guest_files() {
	local l
	if ! command -v bpftrace > /dev/null; then
		echo "(no bpftrace: apt-get install bpftrace to compare with it)"
		return 1
	fi
	bpftrace_files=(--vm-file /usr/bin/bpftrace:/usr/bin/bpftrace)
	for l in $(ldd /usr/bin/bpftrace |
		   awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/lib/ { print $1 }' |
		   sort -u); do
		bpftrace_files+=(--vm-file "$(readlink -f "$l"):$l")
	done
}

# `icount_rounds MEM': ROUNDS rounds, in one guest under QEMU's icount (one vCPU, SHIFT:
# 2^SHIFT ns per instruction), of the bare workload $work (its line: "bare 0 ...") and
# then $guest_runs, the guest having the --vm-file arguments in the array files; the
# guest's lines go to $tmp/out (and KEEP_OUT when set).
icount_rounds() {
	HWTAP_QEMU_EXTRA="-icount shift=$shift_,align=off,sleep=off" \
	guest/hwtap-guest --vm-cpus 1 --vm-mem "$1" "${files[@]}" --timeout 3600 -- "cd /root
exec 2>&1
for i in \$(seq $rounds); do
	$work; echo \"bare 0 \$(cat /tmp/w)\"
$guest_runs
done" > "$tmp/out"
	[ -z "${KEEP_OUT:-}" ] || cp "$tmp/out" "$KEEP_OUT"
}

# `median_cost WHO K': from $tmp/out's "WHO K COUNT CPU_NS ..." lines, WHO's median
# increase over its round's bare run for case K, in instructions per event.
median_cost() {
	awk -v who="$1" -v k="$2" -v ns="$((1 << shift_))" '
		$1 == "bare" { bare = $4 }
		$1 == who && $2 == k && $4 ~ /^[0-9.]+$/ && bare != "" { print ($4 - bare) / ns }' \
		"$tmp/out" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# For the benches of cases (bench/uprobes.sh, bench/kprobes.sh), which run $work in the
# guest under each tool's module for each case, appending to $files and $guest_runs:
# case_ NAME BPFTRACE-PROGRAM (or -), the hwtap and stap script on stdin: case $ncases+1.
case_() {
	ncases=$((ncases + 1))
	echo "$1" > "$tmp/case$ncases.name"
	echo "$2" > "$tmp/case$ncases.bpf"
	cat > "$tmp/case$ncases.stp"
}

# cases_tools: have_stap (stap, with a kernel symbol tree for it) and have_bpf, true or
# false: which tools besides hwtap the benches of cases run.
cases_tools() {
	have_stap=false
	if command -v stap > /dev/null && stap_symbol_tree "$tmp"; then have_stap=true; fi
	have_bpf=false
	if command -v bpftrace > /dev/null; then have_bpf=true; fi
}

# hwtap_case K: the run of hwtap's module $tmp/h_K.ko.
hwtap_case() {
	files+=(--vm-file "$tmp/h_$1.ko:/root/h_$1.ko")
	guest_runs+="rm -f /tmp/w; /root/hwtap-run -c '$work' /root/h_$1.ko >/dev/null
	echo \"hwtap $1 \$(cat /tmp/w 2>&1)\"
"
}

# stap_case K SCRIPT COMMAND DEFS...: stap's module of case K, built from SCRIPT with
# DEFS, and its run with -c COMMAND; or why it did not build.
stap_case() {
	local k=$1 script=$2 cmd=$3
	shift 3
	if stap_build "$tmp" "s_$k" "$script" -u "$@" > "$tmp/stap_$k.why"; then
		files+=("${stap_files[@]}")
		guest_runs+="rm -f /tmp/w; /usr/bin/staprun -c '$cmd' /root/s_$k.ko >/dev/null
	echo \"stap $k \$(cat /tmp/w 2>&1)\"
"
	else
		echo "(stap did not build '${names[$k]}':)"; cat "$tmp/stap_$k.why"
	fi
}

# bpf_case K: the run of case K's bpftrace program, if it has one.
bpf_case() {
	local bpf
	bpf=$(cat "$tmp/case$1.bpf")
	[ "$bpf" != "-" ] || return 0
	printf '%s\n' "$bpf" > "$tmp/bpf_$1"
	files+=(--vm-file "$tmp/bpf_$1:/root/bpf_$1")
	guest_runs+="rm -f /tmp/w; bpftrace -q -c '$work' /root/bpf_$1 >/dev/null
	echo \"bpftrace $1 \$(cat /tmp/w 2>&1)\"
"
}

# The setup of a bench whose workload is bench/ucalls.c built -DKCALLS (getppid() CALLS
# times): rounds, shift_, calls, work and files (hwtap-run and the workload).
kcalls_setup() {
	rounds=${ROUNDS:-3}
	shift_=${SHIFT:-4}
	calls=${CALLS:-20000}
	gcc -O2 -Wall -static -DKCALLS -o "$tmp/kcalls" bench/ucalls.c
	work="/root/kcalls $calls /tmp/w"
	files=(--vm-file loader/hwtap-run:/root/hwtap-run --vm-file "$tmp/kcalls:/root/kcalls")
}

# The runs of a bench of cases (guest_runs, with files) in one icount guest, then their
# table (cases_report LABEL); NOSTAP says why stap is missing when it is.
cases_run_report() {
	local label=$1 nostap=$2
	guest_mem_with_bpftrace $have_bpf
	$have_stap || echo "($nostap: only hwtap and bpftrace run)"
	icount_rounds $mem
	grep -q '^bare ' "$tmp/out" || { echo "no results; the guest said:"; cat "$tmp/out"; exit 1; }
	# case K's cost for WHO, in instructions per call
	cost() { median_cost "$@"; }
	cases_report "$label"
}

# The table of a bench of cases (bench/uprobes.sh, bench/kprobes.sh): for each of the
# NCASES cases named names[K], each tool's cost per call (cost WHO K), the ratios, then
# each tool's empty handler above the "floor" case's cost and the worst ratios over the
# cases but the floor, labelled LABEL ("worst ratio hwtap/stap (LABEL): R").
cases_report() {
	local label=$1 k h s b line r who worst_s="" worst_b="" floor=""
	local -A empty=()
	printf 'icount guest, 1 CPU; guest instructions per call of the probed function, medians of %s rounds\n' \
		"$rounds"
	printf '%-20s %10s %10s %10s %11s %15s\n' case hwtap stap bpftrace hwtap/stap hwtap/bpftrace
	for k in $(seq "$ncases"); do
		h=$(cost hwtap "$k"); s=$(cost stap "$k"); b=$(cost bpftrace "$k")
		[ "${names[$k]}" != empty ] || empty=([hwtap]=$h [stap]=$s [bpftrace]=$b)
		[ "${names[$k]}" != floor ] || floor=$h
		line=$(awk -v name="${names[$k]}" -v h="$h" -v s="$s" -v b="$b" '
			function show(x) { return x == "" ? "-" : sprintf("%.0f", x) }
			function ratio(a, c) {
				if (a == "" || c == "") return "-"
				return c <= 0 ? "inf" : sprintf("%.2f", a / c)
			}
			BEGIN { printf "%-20s %10s %10s %10s %11s %15s\n", name, show(h), show(s),
				show(b), ratio(h, s), ratio(h, b) }')
		echo "$line"
		[ "${names[$k]}" = floor ] && continue
		r=$(awk '{ print $(NF - 1) }' <<< "$line"); [ "$r" = - ] || worst_s+="$r "
		r=$(awk '{ print $NF }' <<< "$line"); [ "$r" = - ] || worst_b+="$r "
	done
	echo
	for who in hwtap stap bpftrace; do
		[ -n "${empty[$who]:-}" ] && [ -n "$floor" ] &&
			awk -v w="$who" -v e="${empty[$who]}" -v f="$floor" \
				'BEGIN { printf "%s empty handler above the floor: %.0f instructions per call\n", w, e - f }'
	done
	echo "worst ratio hwtap/stap ($label): $(tr ' ' '\n' <<< "$worst_s" | grep -v '^$' | sort -g | tail -1)"
	echo "worst ratio hwtap/bpftrace ($label): $(tr ' ' '\n' <<< "$worst_b" | grep -v '^$' | sort -g | tail -1)"
}
