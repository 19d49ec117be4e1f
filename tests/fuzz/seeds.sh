#!/bin/sh
# seeds.sh CORPUS_DIR FIXTURE_DIR - the seed corpus of every fuzz harness,
# from real inputs of each format: this machine's /proc files, the ELF
# fixtures the unit tests build, /bin/true, a generated perf map. Run by
# `make fuzz` into build/fuzz/corpus/<harness>/; the fuzzer adds to it.
set -eu
corpus=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for h in elf_mem elf_fd debuginfo unxz map_entry proc_maps ksyms perfmap cli; do
	mkdir -p "$corpus/$h"
done

# --- ELF files: every fixture, plus a system binary and a stripped copy ---
is_elf() {
	[ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]
}
for f in "$fixtures"/* /bin/true; do
	is_elf "$f" || continue
	n=$(basename "$f")
	for h in elf_mem elf_fd debuginfo; do
		cp "$f" "$corpus/$h/$n"
	done
done
if is_elf "$fixtures/fixture_pie"; then
	strip -o "$tmp/stripped" "$fixtures/fixture_pie"
	objcopy --only-keep-debug "$fixtures/fixture_pie" "$tmp/debugonly"
	for h in elf_mem elf_fd debuginfo; do
		cp "$tmp/stripped" "$corpus/$h/fixture_pie.stripped"
		cp "$tmp/debugonly" "$corpus/$h/fixture_pie.debug"
	done
fi

# --- xz streams (MiniDebugInfo); the first byte picks the output cap ---
xz_seed() {	# NAME CAPBYTE < stream
	{ printf "\\$(printf %03o "$2")"; cat; } > "$corpus/unxz/$1"
}
if is_elf "$fixtures/fixture_minidebuginfo"; then
	objcopy --dump-section .gnu_debugdata="$tmp/gnu_debugdata.xz" "$fixtures/fixture_minidebuginfo" "$tmp/discard"
	xz_seed gnu_debugdata 23 < "$tmp/gnu_debugdata.xz"	# 8 MiB cap: inflates
	xz_seed gnu_debugdata.small-cap 10 < "$tmp/gnu_debugdata.xz"	# 1 KiB: -EFBIG
fi
echo "profile" | xz -c > "$tmp/text.xz"
xz_seed text 23 < "$tmp/text.xz"
cat "$tmp/text.xz" "$tmp/text.xz" | xz_seed concatenated 23	# LZMA_CONCATENATED
head -c 4096 /bin/true | xz -c -0 --check=none | xz_seed check-none 23
head -c 4096 /bin/true | xz -c -6 --check=sha256 | xz_seed check-sha256 23
: | xz -c | xz_seed empty 23

# --- /proc/PID/maps: whole files, single lines, the kernel's odd cases ---
cat /proc/self/maps > "$corpus/proc_maps/self"
cat /proc/1/maps > "$corpus/proc_maps/init" 2>/dev/null || true
cat > "$corpus/proc_maps/odd" <<'MAPS'
55d0c0a00000-55d0c0a21000 r-xp 00001000 fd:01 1234567                    /usr/bin/with space (deleted)
7ffd3b5e1000-7ffd3b5e3000 r-xp 00000000 00:00 0                          [vdso]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
7f0000000000-7f0000001000 r-xp 00000000 103:02 18446744073709551615      /deleted (deleted)
7f0000001000-7f0000002000 rwxp 00000000 00:00 0 
MAPS
i=0
while IFS= read -r line && [ $i -lt 12 ]; do
	printf '%s\n' "$line" > "$corpus/map_entry/self.$i"
	i=$((i + 1))
done < /proc/self/maps
i=0
while IFS= read -r line; do
	printf '%s\n' "$line" > "$corpus/map_entry/odd.$i"
	i=$((i + 1))
done < "$corpus/proc_maps/odd"

# --- kallsyms: the head, module symbols, as seen with kptr_restrict ---
head -n 500 /proc/kallsyms > "$corpus/ksyms/head"
grep -m 300 '\[' /proc/kallsyms > "$corpus/ksyms/modules" || true
head -n 200 /proc/kallsyms | sed 's/^[0-9a-f]*/0000000000000000/' > "$corpus/ksyms/restricted"

# --- perf maps as JITs write them ---
cat > "$corpus/perfmap/jit" <<'PERF'
7f3a1c000000 40 Interpreter
0x7f3a1c000040 1a0 LambdaForm$MH/0x0000000800c0d000.invoke(Object, Object)
7F3A1C000100 100 overlaps the one before: written last, wins
7f3a1c000400	0x80	tab separated
7f3a1c000500 0 zero size: skipped
ffffffffffffff00 100 wraps: skipped
PERF
printf '7f3a1c000600 20 crlf line\r\n' >> "$corpus/perfmap/jit"
printf '7f00 10 a\n7f08 10 b\n7f00 4 c' > "$corpus/perfmap/partial-last-line"

# --- command lines (arguments separated by NUL bytes) ---
cli_seed() {	# NAME ARGS...
	n=$1
	shift
	: > "$corpus/cli/$n"
	first=1
	for a in "$@"; do
		[ $first -eq 1 ] || printf '\0' >> "$corpus/cli/$n"
		printf '%s' "$a" >> "$corpus/cli/$n"
		first=0
	done
}
cli_seed freq -F 99 30
cli_seed count -c 1000000 10
cli_seed pids -p 185,186 -U
cli_seed tids -L 190 -K -f -d -a
cli_seed long --frequency=49 --stack-storage-size 65536 --hash-storage-size=100000 --perf-max-stack-depth 64 5
cli_seed output -o 'p-%H%M%S.pb.gz' -i 1 -q --format pprof 3
cli_seed debug --debug-dir /usr/lib/debug --debug-dir=/opt/dbg --no-demangle --lines -C 1 -I -v
cli_seed help -p 1 --help
cli_seed version --version
cli_seed bad -U -K 12abc
