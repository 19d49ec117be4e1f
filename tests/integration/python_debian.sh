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
trap 'exit 1' INT TERM HUP

CACHE=${PACKAGE_CACHE:-/var/cache/profile-tests}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# debian_mirror: the URI this machine's apt takes Debian from
debian_mirror() {
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v c="$codename" 'BEGIN { RS = "" }
			$0 ~ "(^|\n)Suites:[^\n]*[ \t]" c "([ \t\n]|$)" {
				if (match($0, /URIs:[ \t]*[^ \t\n]+/)) { u = substr($0, RSTART, RLENGTH)
					sub(/URIs:[ \t]*/, "", u); print u; exit } }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v c="$codename" '$1 == "deb" && $3 == c { print $2 }' "$f"
	done
}

# debian_root SUITE PACKAGE [OPTIONAL...]: in $ROOT a bare SUITE with
# PACKAGE, and each OPTIONAL package the suite has; made by mmdebstrap
# unless kept and less than a week old
debian_root() {
	suite=$1 pkg=$2
	shift 2
	mirror=$(debian_mirror | head -1)
	[ -n "$mirror" ] || fail "no Debian mirror in /etc/apt" || return 1
	key=$(echo "$mirror $suite $pkg $* $(dpkg --print-architecture)" | cksum | cut -d' ' -f1)
	ROOT=$CACHE/python-$suite-$key
	mkdir -p "$CACHE"
	find "$CACHE" -maxdepth 1 -name 'python-*.ok' -mtime +7 -delete
	find "$CACHE" -maxdepth 1 -name 'python-*.new.*' -mmin +60 -exec rm -rf {} +
	if [ -f "$ROOT.ok" ] && [ -x "$ROOT/usr/bin/apt-get" ]; then
		echo "  $suite from $ROOT"
		return 0
	fi
	rm -rf "$ROOT" "$ROOT.ok"
	new=$ROOT.new.$$
	# sid's Release may be past its Valid-Until on a mirror kept at a date
	mmdebstrap --mode=root --format=directory --variant=apt --include="$pkg" \
		--aptopt='Acquire::Check-Valid-Until "false"' --skip=cleanup/apt/lists \
		--hook-dir=/usr/share/mmdebstrap/hooks/eatmydata \
		"$suite" "$new" "deb [signed-by=$KEYRING] $mirror $suite main" \
		> "$TMP/mmdebstrap-$suite.log" 2>&1 ||
		{ rm -rf "$new"; fail "mmdebstrap $suite: $(tail -1 "$TMP/mmdebstrap-$suite.log")"; return 1; }
	for o in "$@"; do
		chroot "$new" apt-cache show "$o" > /dev/null 2>&1 || continue
		chroot "$new" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$o" \
			> "$TMP/apt-$o.log" 2>&1 ||
			{ rm -rf "$new"; fail "apt-get install $o in $suite: $(tail -1 "$TMP/apt-$o.log")"; return 1; }
	done
	mv -T "$new" "$ROOT" 2>/dev/null || rm -rf "$new"
	touch "$ROOT.ok"
	echo "  $suite made by mmdebstrap --variant=apt with $pkg $*, kept in $ROOT"
}

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
