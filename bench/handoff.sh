#!/bin/bash
# bench/handoff.sh - what naming every program costs a process that maps files nobody
# named (runtime/udyn.c, loader/usyms.c): the first exec of bash (with libtinfo, the C
# library and the dynamic linker: four files new to the session) waits on its way back to
# user space until hwtap-run has read each file's symbols and handed them to the module;
# later execs find them there. In one guest boot (TCG: every figure is slower than on
# hardware, the ratios are what carry over), wall time per exec of `bash -c true', in
# milliseconds:
#   no session          the bare exec
#   names built in      a session whose script names user code, only the files built
#                       into its module (-D HWTAP_UDYN_FILES=0, SystemTap's way)
#   names all, first    hwtap's default, the first exec: four handoffs
#   names all, later    the median of the execs after it
# and, on the host, hwtap-run's reading of the same four files (libelf, as it answers),
# the median of 20.
#   bench/handoff.sh [HWTAP]     (RUNS=10)
. "$(dirname "$0")/common.sh"
runs=${RUNS:-10}

gcc -O2 -Wall -static -o "$tmp/timeexec" bench/timeexec.c
gcc -O2 -Wall -Ilib -o "$tmp/readsyms" -x c - lib/usymtab.c -lelf <<'C'
#include "usymtab.h"
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
/* Reads each file's symbols as hwtap-run does: prints the milliseconds for all. */
int main(int argc, char **argv)
{
	struct timespec a, b;
	elf_version(EV_CURRENT);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		Elf *e = elf_begin(fd, ELF_C_READ, NULL);
		USymTab t;
		if (!e || usymtab_read(e, &t))
			return 1;
		usymtab_free(&t);
		elf_end(e);
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.2f\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	return 0;
}
C
libs=(/lib/x86_64-linux-gnu/libtinfo.so.6 /lib/x86_64-linux-gnu/libc.so.6
      /lib64/ld-linux-x86-64.so.2)
files=(--vm-file loader/hwtap-run:/root/hwtap-run --vm-file "$tmp/timeexec:/root/timeexec"
       --vm-file /usr/bin/bash:/usr/bin/bash)
for l in "${libs[@]}"; do files+=(--vm-file "$l:$(dirname "$l")/"); done
echo 'probe begin { print(usymname(0) == "" ? "?" : "") }' > "$tmp/names.stp"
cp "$("$hwtap" -p4 -m h_built -D HWTAP_UDYN_FILES=0 "$tmp/names.stp")" "$tmp/h_built.ko"
cp "$("$hwtap" -p4 -m h_all "$tmp/names.stp")" "$tmp/h_all.ko"
files+=(--vm-file "$tmp/h_built.ko:/root/" --vm-file "$tmp/h_all.ko:/root/")

run="/root/timeexec $runs /usr/bin/bash -c true"
guest/hwtap-guest "${files[@]}" --timeout 600 -- "
$run | sed 's/^/bare /'
/root/hwtap-run -c '$run' /root/h_built.ko | sed 's/^/built /'
/root/hwtap-run -c '$run' /root/h_all.ko | sed 's/^/all /'
" > "$tmp/out"
grep -q '^all ' "$tmp/out" || { echo "no results; the guest said:"; cat "$tmp/out"; exit 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
ms() { awk '{ printf "%.1f", $1 / 1000 }'; }
bare=$(awk '$1 == "bare" { print $2 }' "$tmp/out" | median)
built=$(awk '$1 == "built" { print $2 }' "$tmp/out" | median)
first=$(awk '$1 == "all" { print $2; exit }' "$tmp/out")
later=$(awk '$1 == "all" && n++ { print $2 }' "$tmp/out" | median)
for i in $(seq 20); do "$tmp/readsyms" /usr/bin/bash "${libs[@]}"; done > "$tmp/host"

echo "guest (TCG), wall ms per exec of bash -c true, medians of $runs:"
printf '%-24s %8s %8s\n' case ms ratio
printf '%-24s %8s %8s\n' "no session" "$(ms <<< "$bare")" 1.00
for c in "names built in:$built" "names all, first:$first" "names all, later:$later"; do
	printf '%-24s %8s %8s\n' "${c%%:*}" "$(ms <<< "${c#*:}")" \
		"$(awk -v a="${c#*:}" -v b="$bare" 'BEGIN { printf "%.2f", a / b }')"
done
echo "host: hwtap-run reading bash, libtinfo, libc and ld.so: $(median < "$tmp/host") ms (median of 20)"
