#!/bin/sh
# python_debian.sh - Python frames of the CPythons of other Debian
# releases, which describe their own layout (_Py_DebugOffsets, 3.13 on):
# trixie's python3.13, sid's python3.14 and, where sid has it, python3.15,
# each in a bare root made by mmdebstrap from this machine's Debian mirror,
# run under chroot in a mount namespace of its own (a container, as far as
# the profiler can tell: the host has none of these interpreters) and
# profiled from the host. Root needed; the mirror must be reachable.
# Prints "python_debian: N passed, N failed" last.
#
# The roots are kept in $PACKAGE_CACHE (default /var/cache/profile-tests),
# named after the mirror, suite, packages and architecture, made again
# when a week old; they stay as made (the workload is bind-mounted in the
# namespace, /proc mounted there).
set -u

SUITE=python_debian
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
. "$(dirname "$0")/debian_lib.sh"
trap 'exit 1' INT TERM HUP

# in_container PYTHON ARGS...: PYTHON of $ROOT run under chroot in a mount
# namespace of its own, /proc mounted there and the workloads on /mnt;
# its pid (the same through unshare, sh and chroot's execs) in $LAST
in_container() {
	py=$1
	shift
	start unshare --mount --propagation private sh -c \
		'mount -t proc proc "$1/proc" && mount --bind "$2" "$1/mnt" && r=$1 && shift 2 && exec chroot "$r" "$@"' \
		sh "$ROOT" "$PWD/$PW" "$py" "$@"
}

# t_version VERSION SUITE: pyhot.py in SUITE's python3.VERSION, 5:3:2 in
# its whole chains within 3 points at 999 Hz; -v says nothing of versions
# it cannot read; with --lines, each frame's line; two threads each in
# its own frames; code objects freed in a loop, each frame named from its
# own; Python called from C called from Python, each activation's frames
# in its place (python.sh's checks)
t_version() {
	v=$1 suite=$2
	[ -x "$ROOT/usr/bin/python$v" ] || fail "$suite has no python$v" || return 1
	in_container "/usr/bin/python$v" /mnt/pyhot.py 30
	pid=$LAST
	sleep 0.5
	# and at once, --lines: the lines its location tables give
	{ $PROFILE -U --lines -F 999 -f -p "$pid" 2 > "$TMP/$v.lines" 2> "$TMP/$v.lerr"; echo $? > "$TMP/$v.lrc"; } &
	lines=$!
	$PROFILE -U -F 999 -f -v -p "$pid" 3 > "$TMP/$v.folded" 2> "$TMP/$v.err" ||
		{ rc=$?; wait $lines; stop "$pid"; fail "profile exited $rc: $(tail -2 "$TMP/$v.err")"; return 1; }
	wait $lines
	stop "$pid"
	[ "$(cat "$TMP/$v.lrc")" = 0 ] || fail "profile --lines exited $(cat "$TMP/$v.lrc"): $(tail -2 "$TMP/$v.lerr")" || return 1
	grep 'python:' "$TMP/$v.err" | sed 's/^/  /'
	! grep -q 'native frames only' "$TMP/$v.err" || fail "$(grep 'native frames only' "$TMP/$v.err")" || return 1
	watched_check "$TMP/$v.err" || return 1
	shares_532 "$TMP/$v.folded" '^pyhot;_start;.*;PyEval_EvalCode(;[^;(]*)*' pyhot 1500 95 /mnt/pyhot.py ||
		return 1
	lines_532 "$TMP/$v.lines" pyhot 1000 /mnt/pyhot.py || return 1
	# two threads, each its own frames; code objects freed, names kept right
	for w in pythreads pydie pynest; do
		in_container "/usr/bin/python$v" /mnt/$w.py 30 5
		pid=$LAST
		sleep 0.5
		$PROFILE -U -F 999 -f -p "$pid" 3 > "$TMP/$v.$w" 2> "$TMP/$v.$w.err" ||
			fail "profile ($w) exited $?: $(tail -2 "$TMP/$v.$w.err")" || return 1
		stop "$pid"
	done
	threads_check "$TMP/$v.pythreads" /mnt/pythreads.py && die_check "$TMP/$v.pydie" &&
		nested_check "$TMP/$v.pynest" /mnt/pynest.py 5
}

t_python313() {
	debian_root trixie python3.13 || return 1
	t_version 3.13 trixie
}

t_python314() {
	debian_root sid python3.14 python3.15 || return 1
	t_version 3.14 sid
}

# sid's newest: a sid without it fails (the test would check nothing)
t_python315() {
	debian_root sid python3.14 python3.15 || return 1
	t_version 3.15 sid
}

run_test "trixie's python3.13, by its _Py_DebugOffsets, in a container" t_python313
run_test "sid's python3.14, by its _Py_DebugOffsets, in a container" t_python314
run_test "sid's python3.15, by its _Py_DebugOffsets, in a container" t_python315
finish
