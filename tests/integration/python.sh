#!/bin/sh
# python.sh - Python functions in the stacks: CPython's frames read in
# the BPF program and counted with the native ones, in place of the
# interpreter's C frames that run them (python/). On Debian's own
# python3 (3.11). Root needed; prints "python: N passed, N failed" last.
set -u

SUITE=python
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/python_lib.sh"

# Debian's python3 (3.11), frameless, at 999 Hz: each sample's stack is
# the native one from _start into the interpreter, then the script's
# functions in call order where the eval loop's C frame was, then the C
# code they called; hot_a/b/c keep their 5:3:2 within 3 points.
t_mixed_stacks() {
	py_profile hot 3 "-v" $PY $HOT 30 || return 1
	grep 'python:' "$TMP/hot.err" | sed 's/^/  /'
	shares_532 "$TMP/hot.folded" '^pyhot;_start;__libc_start_main[^;]*;__libc_start_call_main;Py_BytesMain;.*;PyEval_EvalCode' pyhot 1500 95 || return 1
	# the eval loop's frames are all replaced: the interpreter runs no other code here
	evals=$(sum_matching '_PyEval_EvalFrameDefault' "$TMP/hot.folded")
	all=$(sum_matching '^pyhot;' "$TMP/hot.folded")
	[ "$(pct "$evals" "$all")" -le 1 ] || fail "$evals of $all samples still show _PyEval_EvalFrameDefault" || return 1
}

# By frame pointers (no tables): the Python frames need none, and keep
# their order and shares; the native part is what frame pointers give.
t_frame_pointers() {
	py_profile fp 3 "--call-graph fp" $PY $HOT 30 || return 1
	shares_532 "$TMP/fp.folded" '^pyhot(;[^;(]*)*' pyhot 1500 95
}

# Two threads running Python at once: each sample carries its own
# thread's frames, never the other's.
t_threads() {
	py_profile th 3 "" $PY $PW/pythreads.py 30 || return 1
	threads_check "$TMP/th.folded" "$PWD/$PW/pythreads.py"
}

# Code objects made and freed in a loop (pydie.py): every frame keeps the
# names of its own code object, though the next one takes its memory.
# fn_N is in gen_N.py, each fn_N (run once) has a run's samples, not
# those of all the functions that lived at its address; "work" from
# heavy.py and from light.py (same name, same line) keep their 3:1.
t_code_objects_die() {
	py_profile die 3 "" $PY $PW/pydie.py 30 || return 1
	die_check "$TMP/die.folded"
}

# One function object whose code is replaced in a loop (pyrecode.py):
# its frames keep the names of the code they run, though the function
# stays and each code takes the memory of the one before; the function's
# version (py_funcs.bpf.h) stands for its code only while it has it.
t_code_replaced() {
	py_profile recode 3 -v $PY $PW/pyrecode.py 30 || return 1
	# frames known by their code object's address: what the frees of code objects keep right
	watched_check "$TMP/recode.err" && recode_check "$TMP/recode.folded" || return 1
	# the same in a thread that is not the main one: its frees count for its process
	py_profile recode-thread 3 "" $PY $PW/pyrecode.py 30 thread || return 1
	recode_check "$TMP/recode-thread.folded"
}

# System-wide, a Python process started after the profiler: looked at
# when first sampled, its frames from then on. The look is made from the
# mappings the main thread read for the symbols, not from a reading of
# its own: -v counts both kinds of look. Only a process that exec'd or
# exited between its notice and the main thread's reading gets one of its
# own (the machine's other processes may): a few, never most.
t_system_wide() {
	$PROFILE -v -U -F 999 -f 6 > "$TMP/sw.folded" 2> "$TMP/sw.err" &
	prof=$!
	sleep 1.5
	$PY $HOT 4
	wait "$prof" || fail "profile exited $?: $(tail -2 "$TMP/sw.err")" || return 1
	shares_532 "$TMP/sw.folded" '^pyhot;_start;.*;PyEval_EvalCode' pyhot 1200 90 || return 1
	looks=$(sed -n 's/^profile: python: \([0-9]*\) looks at the mappings the symbols read (handed over), \([0-9]*\) at mappings read again .*/\1 \2/p' "$TMP/sw.err")
	echo "  looks at the symbols' reading, at a reading of their own: ${looks:-none}"
	set -- $looks
	[ $# -eq 2 ] || fail "no count of the looks: $(grep 'python: ' "$TMP/sw.err")" || return 1
	[ "$1" -ge 1 ] || fail "no look at the symbols' reading" || return 1
	[ $(($2 * 4)) -le "$1" ] ||
		fail "$2 looks read the mappings again, of $(($1 + $2))" || return 1
}

# exec into Python and out of it, system-wide: a shell busy long enough
# to be sampled execs python3 (a new generation, looked at from its own
# reading: the shell's look found nothing), which spins for 2 s, then
# execs execburn (exec deleted the interpreter's entry: the C program's
# samples carry no Python frames, although the pid is the same).
t_exec_in_and_out() {
	$PROFILE -U -F 999 -f 7 > "$TMP/ex.folded" 2> "$TMP/ex.err" &
	prof=$!
	sleep 1.5
	sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done; exec "$@"' sh $PY -c "
import os, time
with open('/proc/self/comm', 'w') as f:
    f.write('pyexec')
def spin(secs):
    s, end = 0, time.monotonic() + secs
    while time.monotonic() < end:
        for i in range(2000):
            s += i
spin(2)
os.execv('$W/execburn', ['execburn', '1500'])
"
	wait "$prof" || fail "profile exited $?: $(tail -2 "$TMP/ex.err")" || return 1
	py=$(sum_matching '^pyexec;' "$TMP/ex.folded")
	spin=$(sum_matching '^pyexec;.*;<module> [(]<string>[)];spin [(]<string>[)]( [0-9]+$|;)' "$TMP/ex.folded")
	c=$(sum_matching '^execburn;.*;main;exec_burn [0-9]+$' "$TMP/ex.folded")
	cpy=$(sum_matching '^execburn;.* [(][^;]*[)](;| [0-9]+$)' "$TMP/ex.folded")
	echo "  pyexec: $spin of $py samples in spin; execburn: $c in exec_burn, $cpy with Python frames"
	[ "$spin" -ge 1000 ] && [ "$(pct "$spin" "$py")" -ge 90 ] ||
		fail "python3 after the exec without its frames: $(grep '^pyexec;' "$TMP/ex.folded" | sort -t' ' -k2 -rn | head -3)" || return 1
	[ "$c" -ge 700 ] || fail "execburn: $c samples in exec_burn" || return 1
	[ "$cpy" -eq 0 ] || fail "Python frames after the exec: $(grep '^execburn;.* [(]' "$TMP/ex.folded" | head -3)" || return 1
}

# libpython in another program: a C program embedding it (built here,
# as python3-config --embed says) runs pyhot.py under its own C frames.
t_embedded() {
	gcc -O1 -g -fno-optimize-sibling-calls $(/usr/bin/python3-config --cflags --embed) \
		$PW/pyembed.c $(/usr/bin/python3-config --ldflags --embed) -o "$TMP/pyembed" \
		> "$TMP/cc.log" 2>&1 || fail "cannot build pyembed: $(tail -2 "$TMP/cc.log")" || return 1
	ldd "$TMP/pyembed" | grep -q 'libpython3[.0-9]*[.]so' || fail "pyembed has no libpython" || return 1
	py_profile emb 3 "" "$TMP/pyembed" "$HOTP" 30 || return 1
	shares_532 "$TMP/emb.folded" '^pyhot;_start;__libc_start_main[^;]*;__libc_start_call_main;main;embed_run;PyRun_SimpleFileExFlags;.*;PyEval_EvalCode(;[^;(]*)*' pyhot 1500 95
}

# A process sampled, and looked at, before it had Python: a plugin host
# that dlopen()s libpython 2 s in. A look at it is skipped while nothing
# is mapped (its readings find nothing new); its first samples in libpython ask for a
# re-read, and that look finds the interpreter: most of the script's
# samples have their Python frames.
t_dlopened_late() {
	gcc -O1 -g -fno-omit-frame-pointer $PW/pylate.c -o "$TMP/pylate" > "$TMP/cc.log" 2>&1 ||
		fail "cannot build pylate: $(tail -2 "$TMP/cc.log")" || return 1
	lib=$($PY -c 'import sysconfig as s; print(s.get_config_var("LIBDIR") + "/" + s.get_config_var("INSTSONAME"))')
	[ -f "$lib" ] || fail "no $lib" || return 1
	py_profile late 4 "-v" "$TMP/pylate" "$lib" 2000 "$HOTP" 30 || return 1
	[ "$(sum_matching '^pylate;.*;main;burn_c [0-9]+$' "$TMP/late.folded")" -gt 100 ] ||
		fail "no burn_c before the dlopen" || return 1
	# the readings that found nothing new go to no look at all (docs/symbols.md)
	grep -Eq 'maps read [0-9]+ times [(][^)]*; [1-9][0-9]* of them found nothing new' "$TMP/late.err" ||
		grep -q 'python: .* [1-9][0-9]* skipped (no interpreter last time' "$TMP/late.err" ||
		fail "no look skipped: $(grep 'python: \|maps read' "$TMP/late.err")" || return 1
	shares_532 "$TMP/late.folded" '^pyhot;_start;__libc_start_main[^;]*;__libc_start_call_main;main;PyRun_SimpleStringFlags;.*' pyhot 1000 70
}

# A venv's python (a link to the interpreter it was made from).
t_venv() {
	$PY -m venv --without-pip "$TMP/venv" > "$TMP/venv.log" 2>&1 ||
		fail "python3 -m venv: $(tail -1 "$TMP/venv.log")" || return 1
	py_profile venv 3 "" "$TMP/venv/bin/python" $HOT 30 || return 1
	shares_532 "$TMP/venv.folded" '^pyhot;_start;.*;PyEval_EvalCode' pyhot 1500 95
}

# --lines: each Python frame's line, from its code object's location
# table: the call in each caller, the loop in hot_X; in folded, pprof
# (its Line) and speedscope (the frame's line).
t_lines() {
	start $PY $HOT 30
	sleep 0.5
	{ $PROFILE -U --lines -F 999 -f -p "$LAST" 3 > "$TMP/l.folded" 2> "$TMP/l.err"; echo $? > "$TMP/l.rc"; } &
	f=$!
	{ $PROFILE -U --lines -F 499 -p "$LAST" -o "$TMP/l.pb.gz" 2 2> "$TMP/lpb.err"; echo $? > "$TMP/lpb.rc"; } &
	wait $f $!
	$PROFILE -U --lines -F 499 -p "$LAST" -o "$TMP/l.json" 1 2> "$TMP/lj.err" ||
		fail "speedscope run: $(tail -1 "$TMP/lj.err")" || return 1
	stop "$LAST"
	[ "$(cat "$TMP/l.rc")" = 0 ] && [ "$(cat "$TMP/lpb.rc")" = 0 ] ||
		fail "profile exited $(cat "$TMP/l.rc"), $(cat "$TMP/lpb.rc"): $(tail -1 "$TMP/l.err" "$TMP/lpb.err")" || return 1
	lines_532 "$TMP/l.folded" pyhot 1500 || return 1
	def=$(line_of "$HOT" '^def hot_a[(]')
	loop=$(line_of "$HOT" 'for i in range' "$def") body=$(line_of "$HOT" 's [+]= i' "$def")
	# go tool pprof -raw: "hot_a FILE:LINE s=START"
	go tool pprof -raw "$TMP/l.pb.gz" > "$TMP/lraw.txt" 2>&1 || fail "go tool pprof: $(tail -2 "$TMP/lraw.txt")" || return 1
	grep -Eq " hot_a $HOTP:($loop|$body) s=$def\$" "$TMP/lraw.txt" ||
		fail "pprof: $(grep -m3 hot_a "$TMP/lraw.txt"), want line $loop or $body, s=$def" || return 1
	python3 - "$TMP/l.json" "$HOTP" "$loop" "$body" <<'PYCHECK' || fail "speedscope: no hot_a frame with its line" || return 1
import json, sys
frames = json.load(open(sys.argv[1]))["shared"]["frames"]
lines = {int(sys.argv[3]), int(sys.argv[4])}
sys.exit(0 if any(f["name"] == "hot_a (%s:%d)" % (sys.argv[2], f.get("line", 0)) and
                  f.get("file") == sys.argv[2] and f.get("line") in lines for f in frames) else 1)
PYCHECK
}

# set_py_version FILE HEX: FILE's Py_Version made HEX (its 8 bytes in
# the section that holds the address nm gives it)
set_py_version() {
	addr=$(nm -D "$1" | awk '$3 == "Py_Version" { print $1 }')
	[ -n "$addr" ] || return 1
	python3 - "$1" "$addr" "$2" <<'PYSET'
import struct, sys
addr, value = int(sys.argv[2], 16), int(sys.argv[3], 16)
with open(sys.argv[1], "r+b") as f:
    elf = f.read()
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3a)
    for i in range(shnum):
        _, kind, _, start, off, size = struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize)
        if kind == 1 and start <= addr < start + size:
            f.seek(off + addr - start)
            f.write(struct.pack("<Q", value))
            sys.exit(0)
sys.exit(1)
PYSET
}

# An interpreter whose version we cannot read (python3.11 claiming 3.10),
# or one claiming 3.13 without its _Py_DebugOffsets: native frames only,
# whole, and one -v line naming it and why.
t_unknown_version() {
	for v in 030a0cf0:'Python 3.10.12 .*a version whose frames profile cannot read' \
		030d01f0:'Python 3.13.1 .*_Py_DebugOffsets are missing or not its version'"'"'s'; do
		cp /usr/bin/python3.11 "$TMP/python-lies"
		set_py_version "$TMP/python-lies" "${v%%:*}" || fail "cannot set Py_Version" || return 1
		start "$TMP/python-lies" $HOT 30
		sleep 0.5
		$PROFILE -U -F 499 -f -v -p "$LAST" 2 > "$TMP/lies.folded" 2> "$TMP/lies.err" ||
			fail "profile exited $?: $(tail -1 "$TMP/lies.err")" || return 1
		stop "$LAST"
		grep "python-lies" "$TMP/lies.err" | sed 's/^/  /'
		[ "$(grep -c "${v#*:}.*native frames only" "$TMP/lies.err")" = 1 ] ||
			fail "no one line naming the version: $(grep -i python "$TMP/lies.err")" || return 1
		all=$(sum_matching '^pyhot;' "$TMP/lies.folded")
		[ "$all" -ge 500 ] || fail "$all samples" || return 1
		! grep -q 'pyhot[.]py' "$TMP/lies.folded" || fail "Python frames of a version it cannot read" || return 1
		[ "$(pct "$(sum_matching '^pyhot;_start;.*;_PyEval_EvalFrameDefault' "$TMP/lies.folded")" "$all")" -ge 90 ] ||
			fail "native frames not whole: $(sort -t' ' -k2 -rn "$TMP/lies.folded" | head -2)" || return 1
	done
}

# -K: kernel stacks only, no Python walk at all.
t_kernel_only() {
	start $PY $HOT 30
	sleep 0.5
	$PROFILE -K -F 499 -f -v -p "$LAST" 1 > "$TMP/k.folded" 2> "$TMP/k.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/k.err")" || return 1
	stop "$LAST"
	! grep -q 'python:' "$TMP/k.err" || fail "a Python walk under -K: $(grep python: "$TMP/k.err")" || return 1
	! grep -q '[(]' "$TMP/k.folded" || fail "Python frames under -K" || return 1
}

# --no-python: native frames only, by unwind tables and by frame
# pointers, while a run beside them on the same process (the control)
# shows its Python frames: the interpreter's eval loop stays in their
# place (by tables in nearly every sample; by frame pointers where it
# is the leaf), and -v says nothing of a Python walk.
t_no_python() {
	start $PY $HOT 30
	sleep 0.5
	runs=""
	for m in on off off-fp; do
		case $m in
		on) set -- ;;
		off) set -- --no-python ;;
		off-fp) set -- --no-python --call-graph fp ;;
		esac
		{ $PROFILE -U -F 999 -f -v "$@" -p "$LAST" 2 > "$TMP/np-$m.folded" 2> "$TMP/np-$m.err"
			echo $? > "$TMP/np-$m.rc"; } &
		runs="$runs $!"
	done
	wait $runs
	stop "$LAST"
	for m in on off off-fp; do
		[ "$(cat "$TMP/np-$m.rc")" = 0 ] || fail "$m: profile exited $(cat "$TMP/np-$m.rc"): $(tail -2 "$TMP/np-$m.err")" || return 1
		all=$(sum_matching '^pyhot;' "$TMP/np-$m.folded")
		py=$(sum_matching "^pyhot;.* [(]$HOTP[)]" "$TMP/np-$m.folded")
		eval=$(sum_matching '^pyhot;.*;_PyEval_EvalFrameDefault[; ]' "$TMP/np-$m.folded")
		echo "  $m: $py of $all samples with pyhot.py's frames, $eval in _PyEval_EvalFrameDefault"
		[ "$all" -ge 1000 ] || fail "$m: only $all samples" || return 1
		case $m in
		on) [ "$(pct "$py" "$all")" -ge 95 ] || fail "the control has no Python frames" || return 1 ;;
		*)
			[ "$py" -eq 0 ] || fail "$m: Python frames: $(grep "$HOTP" "$TMP/np-$m.folded" | head -2)" || return 1
			# by frame pointers, frameless python3's stacks are mostly the
			# leaf: in the loop (29-33% here) or below it
			min=90
			[ "$m" = off-fp ] && min=15
			[ "$(pct "$eval" "$all")" -ge "$min" ] || fail "$m: the eval loop's frames are gone: $(head -3 "$TMP/np-$m.folded")" || return 1
			! grep -q 'python:' "$TMP/np-$m.err" || fail "$m: $(grep python: "$TMP/np-$m.err")" || return 1
			;;
		esac
	done
}

# The text, pprof, speedscope and SVG outputs carry the Python frames;
# pprof's Function has the file and first line.
t_formats() {
	start $PY $HOT 30
	sleep 0.5
	runs=""
	for f in p.txt p.pb.gz p.json p.svg; do
		{ $PROFILE -U -F 499 -p "$LAST" -o "$TMP/$f" 2 2> "$TMP/$f.err"; echo $? > "$TMP/$f.rc"; } &
		runs="$runs $!"
	done
	wait $runs
	stop "$LAST"
	for f in p.txt p.pb.gz p.json p.svg; do
		[ "$(cat "$TMP/$f.rc")" = 0 ] || fail "-o $f exited $(cat "$TMP/$f.rc"): $(cat "$TMP/$f.err")" || return 1
	done
	grep -q "^    hot_a ($HOTP)\$" "$TMP/p.txt" || fail "text: no hot_a frame: $(head -20 "$TMP/p.txt")" || return 1
	grep -q "hot_a ($HOTP)" "$TMP/p.svg" || fail "SVG: no hot_a frame" || return 1
	python3 - "$TMP/p.json" "$HOTP" <<'PYCHECK' || fail "speedscope JSON" || return 1
import json, sys
frames = json.load(open(sys.argv[1]))["shared"]["frames"]
want = {"name": "hot_a (%s)" % sys.argv[2], "file": sys.argv[2]}
sys.exit(0 if any(all(f.get(k) == v for k, v in want.items()) for f in frames) else 1)
PYCHECK
	# go tool pprof -raw: "hot_a FILE:0 s=LINE", LINE that of "def hot_a"
	line=$(grep -n '^def hot_a' $HOT | cut -d: -f1)
	go tool pprof -raw "$TMP/p.pb.gz" > "$TMP/raw.txt" 2>&1 || fail "go tool pprof: $(tail -2 "$TMP/raw.txt")" || return 1
	grep -Eq " hot_a $HOTP:[0-9]+ s=$line\$" "$TMP/raw.txt" || fail "pprof: $(grep -m3 hot_a "$TMP/raw.txt"), want s=$line" || return 1
}

# Python called from C called from Python (map() here), 40 deep: each
# level an activation of the eval loop of its own; past 32 (PY_MAX_RUNS)
# the stack keeps the innermost 32 activations' frames, is marked
# [truncated] and counted under -v.
t_deep_activations() {
	cat > "$TMP/runs.py" <<'PYRUNS'
def level(n):
    if n:
        return list(map(level, [n - 1]))
    while True:
        pass
with open("/proc/self/comm", "w") as f:
    f.write("pyruns")
level(40)
PYRUNS
	start $PY "$TMP/runs.py"
	sleep 0.5
	$PROFILE -U -F 499 -f -v --perf-max-stack-depth 400 -p "$LAST" 1 > "$TMP/runs.folded" 2> "$TMP/runs.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/runs.err")" || return 1
	stop "$LAST"
	all=$(sum_matching '^pyruns;' "$TMP/runs.folded")
	cut=$(awk '/^pyruns;\[truncated\];/ { if (gsub(/;level [(]/, "&") == 32 && !/<module>/) n += $NF } END { print n + 0 }' "$TMP/runs.folded")
	echo "  $cut of $all samples with 32 activations' level frames under [truncated]; $(grep -o '[0-9]* at 32 activations' "$TMP/runs.err")"
	[ "$all" -ge 150 ] && [ "$(pct "$cut" "$all")" -ge 95 ] || fail "$(sort -t' ' -k2 -rn "$TMP/runs.folded" | head -c 600)" || return 1
	grep -Eq '[1-9][0-9]* at 32 activations' "$TMP/runs.err" || fail "not counted: $(grep python: "$TMP/runs.err")" || return 1
}

# Python called from C called from Python, 6 levels: each activation's
# frames in the place of its own C frame, the C frames of map() between
t_nested() {
	py_profile nest 2 "" $PY $PW/pynest.py 30 5 || return 1
	nested_check "$TMP/nest.folded" "$PWD/$PW/pynest.py" 5
}

# The Python walk has its own limit, PY_MAX_FRAMES (128): a deeper stack
# keeps its innermost 128 Python frames and is marked [truncated] at its
# root, and -v counts it; below --perf-max-stack-depth, the stack's.
t_deep_recursion() {
	cat > "$TMP/deep.py" <<'PYDEEP'
def deep(n):
    if n:
        return deep(n - 1)
    while True:
        pass
with open("/proc/self/comm", "w") as f:
    f.write("pydeep")
deep(300)
PYDEEP
	start $PY "$TMP/deep.py"
	sleep 0.5
	$PROFILE -U -F 499 -f -v --perf-max-stack-depth 400 -p "$LAST" 1 > "$TMP/deep.folded" 2> "$TMP/deep.err" &&
		$PROFILE -U -F 499 -f -p "$LAST" 1 > "$TMP/deep127.folded" 2> "$TMP/deep127.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/deep.err" "$TMP/deep127.err")" || return 1
	stop "$LAST"
	all=$(sum_matching '^pydeep;' "$TMP/deep.folded")
	cut=$(awk '/^pydeep;\[truncated\];/ { if (gsub(/;deep [(]/, "&") == 128) n += $NF } END { print n + 0 }' "$TMP/deep.folded")
	echo "  $cut of $all samples with 128 Python frames under [truncated]; $(grep -o '[0-9]* cut at 128 Python frames' "$TMP/deep.err")"
	[ "$all" -ge 150 ] && [ "$(pct "$cut" "$all")" -ge 95 ] || fail "$(head -c 300 "$TMP/deep.folded")" || return 1
	grep -Eq '[1-9][0-9]* cut at 128 Python frames' "$TMP/deep.err" || fail "not counted: $(grep python: "$TMP/deep.err")" || return 1
	all=$(sum_matching '^pydeep;' "$TMP/deep127.folded")
	cut=$(awk -F';' '/^pydeep;\[truncated\];/ && NF == 129 { sub(/.* /, ""); n += $0 } END { print n + 0 }' "$TMP/deep127.folded")
	echo "  default depth: $cut of $all samples with 127 frames under [truncated]"
	[ "$all" -ge 150 ] && [ "$(pct "$cut" "$all")" -ge 95 ] || fail "$(head -c 300 "$TMP/deep127.folded")" || return 1
}

# Names and files a process chose are escaped as every name is: no ';'
# or newline of theirs in folded output.
t_names_escaped() {
	cat > "$TMP/odd.py" <<'PYODD'
def spin():
    while True:
        pass
with open("/proc/self/comm", "w") as f:
    f.write("pyodd")
spin.__code__ = spin.__code__.replace(co_name="a;b\nc", co_qualname="a;b\nc",
                                      co_filename="x;y\n.py")
spin()
PYODD
	start $PY "$TMP/odd.py"
	sleep 0.5
	$PROFILE -U -F 499 -f -p "$LAST" 1 > "$TMP/odd.folded" 2> "$TMP/odd.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/odd.err")" || return 1
	stop "$LAST"
	grep -q ';a:b?c (x:y?.py) [0-9]*$' "$TMP/odd.folded" || fail "no escaped frame: $(head -3 "$TMP/odd.folded")" || return 1
	awk '!/^pyodd;.* [0-9]+$/ { bad++ } END { exit bad > 0 }' "$TMP/odd.folded" ||
		fail "a line broken by a name: $(head -3 "$TMP/odd.folded")" || return 1
}

run_test "Debian's python3: mixed stacks, exact chains, 5:3:2 within 3 points" t_mixed_stacks
run_test "--call-graph fp: the Python frames without unwind tables" t_frame_pointers
run_test "threads running Python, and one in C without the GIL: each its own frames" t_threads
run_test "Python called from C called from Python: each activation in its place" t_nested
run_test "code objects freed and their memory reused: names stay right" t_code_objects_die
run_test "a function's code replaced in a loop: names stay right" t_code_replaced
run_test "system-wide: a Python process started after the profiler" t_system_wide
run_test "exec into python3 and out of it, system-wide: each image its own frames" t_exec_in_and_out
run_test "libpython embedded in a C program" t_embedded
run_test "libpython dlopen()ed by a process sampled before" t_dlopened_late
run_test "a venv's python" t_venv
run_test "--lines: the line of each Python frame" t_lines
run_test "a version it cannot read: native frames, and one -v line" t_unknown_version
run_test "-K: no Python walk" t_kernel_only
run_test "--no-python: native frames only" t_no_python
run_test "text, pprof, speedscope and SVG carry the Python frames" t_formats
run_test "the Python walk's own limit: cut, marked and counted" t_deep_recursion
run_test "past 32 activations of the eval loop: cut, marked and counted" t_deep_activations
run_test "names and files a process chose are escaped" t_names_escaped
finish
