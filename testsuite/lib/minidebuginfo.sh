#!/bin/sh
# minidebuginfo.sh BIN [CROSS] - strips the program BIN and gives it MiniDebugInfo: the
# .symtab entries of its functions that .dynsym lacks, in an ELF file of no other
# contents, xz-compressed into a .gnu_debugdata section (gdb's manual, "MiniDebugInfo"; as
# Fedora's find-debuginfo makes it). CROSS: the binutils' prefix (aarch64-linux-gnu-).
set -eu
bin=$1
cross=${2-}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"${cross}nm" -D --format=posix --defined-only "$bin" | awk '{ print $1 }' | sort >"$t/dynsyms"
"${cross}nm" --format=posix --defined-only "$bin" |
	awk '$2 == "T" || $2 == "t" { print $1 }' | sort >"$t/funcsyms"
comm -13 "$t/dynsyms" "$t/funcsyms" >"$t/keep"
"${cross}objcopy" --only-keep-debug "$bin" "$t/debug"
"${cross}objcopy" -S --remove-section .gdb_index --remove-section .comment \
	--keep-symbols="$t/keep" "$t/debug" "$t/mini"
"${cross}strip" --strip-all -R .comment "$bin"
xz "$t/mini"
"${cross}objcopy" --add-section .gnu_debugdata="$t/mini.xz" "$bin"
