#!/bin/sh
# python_procs.sh - Python processes as the profiler finds them
# (python/py_procs.c): the targets of -p looked at before sampling
# starts, so none of their samples lacks its Python frames; and a process
# that maps files without end costs a bounded look and bounded memory,
# its interpreter still found. Root needed; prints "python_procs: N
# passed, N failed" last.
set -u

SUITE=python_procs
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/python_lib.sh"

# The cap of files opened in one look at a process (PY_FILES_PER_LOOK)
CAP=256

# no_py_frames FOLDED: the samples of pyhot without a frame of pyhot.py
no_py_frames() {
	awk -v f="$HOTP)" '/^pyhot;/ && index($0, f) == 0 { n += $NF } END { print n + 0 }' "$1"
}

# -p's target is looked at before sampling starts: its first samples
# carry their Python frames too. Five runs of 1 s, at 999 Hz each: when
# it was looked at only after its first sample, 1 to 4 samples of each
# run had none (12 of 2,451 here).
t_preload() {
	start $PY $HOT 60
	sleep 0.5
	total=0 all=0 each=""
	for i in 1 2 3 4 5; do
		$PROFILE -U -F 999 -f -p "$LAST" 1 > "$TMP/pre$i.folded" 2> "$TMP/pre$i.err" ||
			fail "profile exited $?: $(tail -2 "$TMP/pre$i.err")" || return 1
		n=$(no_py_frames "$TMP/pre$i.folded")
		total=$((total + n)) all=$((all + $(sum_matching '^pyhot;' "$TMP/pre$i.folded")))
		each="$each $n"
	done
	stop "$LAST"
	echo "  $total of $all samples without Python frames (by run:$each)"
	[ "$all" -ge 1500 ] || fail "only $all samples" || return 1
	[ "$total" -le 2 ] ||
		fail "$total samples without Python frames: $(cat "$TMP"/pre*.folded | awk -v f="$HOTP)" '/^pyhot;/ && index($0, f) == 0' | head -2 | cut -c1-300)" || return 1
}

# pymaps DIR N: the workload (built here) maps N files of its own in DIR,
# executable; its pid in $LAST once they are all mapped
pymaps() {
	[ -x "$TMP/pymaps" ] || gcc -O1 -Wall -o "$TMP/pymaps" $PW/pymaps.c ||
		fail "cannot build pymaps" || return 1
	mkdir -p "$1"
	start "$TMP/pymaps" "$1" "$2" 60 > "$1.out"
	i=0
	while ! grep -q mapped "$1.out" 2> /dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q mapped "$1.out" || fail "pymaps did not map $2 files" || return 1
}

# field_of WHAT FILE: the number before WHAT in the -v python line
field_of() {
	grep 'python:.*files looked at' "$2" | grep -o "[0-9]* $1" | head -1 | cut -d' ' -f1
}

# A process mapping 20,000 files of its own, executable, none of them an
# interpreter (what any local user can make): each look at it opens
# $CAP of them at most, and the cut is counted in the -v line. (Every
# one was read and kept before: "20003 files looked at", ~1.4 KiB each.)
t_many_files() {
	pymaps "$TMP/many" 20000 || return 1
	wl=$LAST
	$PROFILE -U -F 999 -f -v -p "$wl" 2 > "$TMP/many.folded" 2> "$TMP/many.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/many.err")" || return 1
	stop "$wl"
	rm -rf "$TMP/many"
	files=$(field_of 'files looked at' "$TMP/many.err")
	cut=$(field_of "looks cut at $CAP files" "$TMP/many.err")
	echo "  $files files looked at, $cut looks cut at $CAP"
	[ -n "$files" ] || fail "no -v python line: $(grep python: "$TMP/many.err")" || return 1
	[ "$files" -le $((CAP + 16)) ] || fail "$files files looked at" || return 1
	[ -n "$cut" ] && [ "$cut" -ge 1 ] || fail "the cut is not counted: $(grep python: "$TMP/many.err")" || return 1
	# sampled, so looked at again at its new stacks: each look cut, none reading more
	[ "$(sum_matching '^pymaps;' "$TMP/many.folded")" -ge 200 ] || fail "pymaps not sampled" || return 1
}

# The profiler's memory with those 20,000 files is within 32 MiB of its
# memory with 10 (ASan: 64): it was 48 MiB more (56 against 7.5 MiB),
# 22 now; what is left is the mappings' own (their symbols and unwind
# entries), not Python's.
t_many_files_memory() {
	bound=32
	[ -n "${ASAN_OPTIONS:-}" ] && bound=64
	for n in 10 20000; do
		pymaps "$TMP/m$n" $n || return 1
		wl=$LAST
		/usr/bin/time -f %M -o "$TMP/m$n.rss" $PROFILE -U -F 999 -f -v -p "$wl" 2 \
			> "$TMP/m$n.folded" 2> "$TMP/m$n.err" ||
			fail "profile exited $?: $(tail -2 "$TMP/m$n.err")" || return 1
		stop "$wl"
		rm -rf "$TMP/m$n"
	done
	small=$(tail -1 "$TMP/m10.rss") big=$(tail -1 "$TMP/m20000.rss")
	echo "  max RSS $((small / 1024)) MiB with 10 files mapped, $((big / 1024)) MiB with 20,000"
	[ "$big" -le $((small + bound * 1024)) ] ||
		fail "$(((big - small) / 1024)) MiB more for 20,000 files, over $bound" || return 1
}

# libpython in a program that then maps 2,000 files (mapped below it, so
# listed first in its maps): libpython is looked at first, by its name,
# and its frames show though the look is cut at $CAP.
t_interpreter_first() {
	gcc -O1 -g $(/usr/bin/python3-config --cflags --embed) \
		$PW/pyembed.c $(/usr/bin/python3-config --ldflags --embed) -o "$TMP/pyembed" \
		> "$TMP/cc.log" 2>&1 || fail "cannot build pyembed: $(tail -2 "$TMP/cc.log")" || return 1
	mkdir -p "$TMP/junk"
	cat > "$TMP/mapsrun.py" <<'PYMAPS'
import mmap, os, runpy, sys
keep = []
for i in range(2000):
    path = os.path.join(sys.argv[1], "f%d" % i)
    with open(path, "wb") as f:
        f.write(b"\xc3" * 4096)
    with open(path, "rb") as f:
        keep.append(mmap.mmap(f.fileno(), 4096, flags=mmap.MAP_PRIVATE,
                              prot=mmap.PROT_READ | mmap.PROT_EXEC))
sys.argv = [sys.argv[2], sys.argv[3]]
runpy.run_path(sys.argv[0], run_name="__main__")
PYMAPS
	start "$TMP/pyembed" "$TMP/mapsrun.py" "$TMP/junk" "$HOTP" 30
	i=0
	while [ "$(grep -c "$TMP/junk/" /proc/$LAST/maps 2> /dev/null)" != 2000 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	libpy=$(grep -n 'libpython' /proc/$LAST/maps | head -1 | cut -d: -f1)
	junk=$(grep -n "$TMP/junk/" /proc/$LAST/maps | head -1 | cut -d: -f1)
	echo "  maps: the first junk file at line $junk, libpython at line $libpy"
	[ -n "$libpy" ] && [ -n "$junk" ] && [ "$junk" -lt "$libpy" ] ||
		fail "the files are not mapped before libpython" || return 1
	$PROFILE -U -F 999 -f -v -p "$LAST" 3 > "$TMP/first.folded" 2> "$TMP/first.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/first.err")" || return 1
	stop "$LAST"
	all=$(sum_matching '^pyhot;' "$TMP/first.folded")
	hot=$(sum_matching "^pyhot;.*;hot_[abc] [(]$HOTP[)]" "$TMP/first.folded")
	echo "  $hot of $all samples in hot_a/b/c; $(grep -o '[0-9]* files looked at' "$TMP/first.err")"
	[ "$all" -ge 500 ] || fail "only $all samples" || return 1
	[ "$(pct "$hot" "$all")" -ge 90 ] ||
		fail "Python frames missing: $(sort -t' ' -k2 -rn "$TMP/first.folded" | head -2 | cut -c1-300)" || return 1
}

run_test "-p: the target looked at before sampling, every sample with its Python frames" t_preload
run_test "20,000 files mapped executable: a look opens $CAP, the cut counted" t_many_files
run_shipped_test "20,000 files mapped executable: the profiler's memory bounded" t_many_files_memory
run_test "libpython after 2,000 files in the maps: looked at first, by its name" t_interpreter_first
finish
