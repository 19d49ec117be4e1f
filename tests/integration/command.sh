#!/bin/sh
# command.sh - profile -- CMD ARGS: the command is profiled from its first
# instruction with the processes it forks, its exit status is passed on,
# and Ctrl-C is its own. Root needed; prints "command: N passed, N failed"
# last.
set -u

SUITE=command
. "$(dirname "$0")/lib.sh"

# only_comms FILE RE: every folded line's comm matches RE (the pid filter
# keeps the rest of the machine out; a canary burns beside each run)
only_comms() {
	others=$(awk -F';' -v re="$2" '$1 !~ re { print $1 }' "$1" | sort -u | tr '\n' ' ')
	[ -z "$others" ] || fail "other processes in the profile: $others"
}

# profile_cmd TAG [OPTION...] -- CMD...: folded at 999 Hz into $TMP/TAG.folded,
# stderr in $TMP/TAG.err, exit status in $rc; a canary burns meanwhile
profile_cmd() {
	tag=$1
	shift
	start $W/hotspots 30
	canary=$LAST
	$PROFILE -F 999 -f "$@" > "$TMP/$tag.folded" 2> "$TMP/$tag.err"
	rc=$?
	stop "$canary"
}

# The command's status is profile's: an exit code, 128 + a signal.
t_exit_status() {
	for want in "0 exit 0" "3 exit 3" "138 signal 10"; do
		set -- $want
		code=$1
		shift
		profile_cmd status -- $W/cmdburn "$@"
		echo "  cmdburn $*: exit $rc"
		[ "$rc" -eq "$code" ] || fail "exit $rc, not $code: $(tail -2 "$TMP/status.err")" || return 1
		has_frame short_burn "$TMP/status.folded" || return 1
		only_comms "$TMP/status.folded" '^cmdburn$' || return 1
	done
}

# Its first 200 ms in startup_burn, then 300 ms in steady_burn: both
# sampled, so sampling was on before it ran.
t_startup() {
	profile_cmd startup -- $W/cmdburn startup
	[ "$rc" -eq 0 ] || fail "exit $rc: $(tail -2 "$TMP/startup.err")" || return 1
	first=$(sum_matching '^cmdburn;.*main;startup_burn [0-9]+$' "$TMP/startup.folded")
	then=$(sum_matching '^cmdburn;.*main;steady_burn [0-9]+$' "$TMP/startup.folded")
	echo "  startup_burn $first samples, steady_burn $then (about 200 and 300 at 999 Hz on an idle CPU)"
	[ "$first" -ge 20 ] || fail "start-up not sampled: $first in startup_burn" || return 1
	[ "$then" -ge 30 ] || fail "only $then in steady_burn" || return 1
	only_comms "$TMP/startup.folded" '^cmdburn$'
}

# It forks a child that forks a grandchild at once: all three are
# profiled, each under its comm, until the last has exited.
t_children() {
	profile_cmd fork -- $W/cmdburn fork
	[ "$rc" -eq 0 ] || fail "exit $rc: $(tail -2 "$TMP/fork.err")" || return 1
	p=$(sum_matching '^cmdburn;.*main;parent_burn [0-9]+$' "$TMP/fork.folded")
	c=$(sum_matching '^cmdchild;.*main;child_burn [0-9]+$' "$TMP/fork.folded")
	g=$(sum_matching '^cmdgrandchild;.*main;grandchild_burn [0-9]+$' "$TMP/fork.folded")
	echo "  parent_burn $p, cmdchild child_burn $c, cmdgrandchild grandchild_burn $g samples (about 400 each)"
	[ "$p" -ge 40 ] || fail "parent: $p samples" || return 1
	[ "$c" -ge 40 ] || fail "child not followed: $c samples" || return 1
	[ "$g" -ge 40 ] || fail "grandchild not followed: $g samples" || return 1
	only_comms "$TMP/fork.folded" '^(cmdburn|cmdchild|cmdgrandchild)$'
}

# A command that cannot run: one line naming it, 127 or 126 as the shell
# says, nothing on stdout; -p with a command is a usage error.
t_cannot_run() {
	for want in "127 no-such-command-here" "127 ./no/such/file" "126 /etc/passwd" "126 /etc"; do
		set -- $want
		$PROFILE -- "$2" arg > "$TMP/bad.out" 2> "$TMP/bad.err"
		rc=$?
		echo "  $2: exit $rc: $(cat "$TMP/bad.err")"
		[ "$rc" -eq "$1" ] || fail "exit $rc, not $1" || return 1
		[ "$(wc -l < "$TMP/bad.err")" -eq 1 ] && grep -qF "$2" "$TMP/bad.err" ||
			fail "not one line naming '$2'" || return 1
		[ ! -s "$TMP/bad.out" ] || fail "stdout: $(head -2 "$TMP/bad.out")" || return 1
	done
	$PROFILE -p 1 -- true > /dev/null 2> "$TMP/usage.err"
	rc=$?
	echo "  -p with a command: exit $rc: $(cat "$TMP/usage.err")"
	[ "$rc" -eq 2 ] && [ "$(wc -l < "$TMP/usage.err")" -eq 1 ] || fail "not a usage error"
}

# Ctrl-C (SIGINT to the process group) ends the command, which dies of
# it; the profile is then printed, and its status is the command's.
t_ctrl_c() {
	start $W/hotspots 30
	canary=$LAST
	setsid $PROFILE -F 999 -f -- $W/cmdburn spin 30 > "$TMP/int.folded" 2> "$TMP/int.err" &
	prof=$!
	PIDS="$PIDS $prof"
	sleep 2
	# dash's kill takes no process group
	python3 -c 'import os, signal, sys; os.killpg(int(sys.argv[1]), signal.SIGINT)' "$prof"
	t0=$(date +%s%N)
	wait "$prof"
	rc=$?
	stop "$canary"
	n=$(sum_matching '^cmdburn;.*main;spin_burn [0-9]+$' "$TMP/int.folded")
	echo "  exit $rc $(elapsed_since "$t0") after SIGINT, $n samples in spin_burn"
	[ "$rc" -eq 130 ] || fail "exit $rc, not 130: $(tail -2 "$TMP/int.err")" || return 1
	[ "$n" -ge 200 ] || fail "profile not printed: $n samples in spin_burn" || return 1
	only_comms "$TMP/int.folded" '^cmdburn$'
}

# A duration ends a command still running, as perf does: SIGTERM (143),
# and the profile of that second.
t_duration() {
	t0=$(date +%s%N)
	profile_cmd dur 1 -- $W/cmdburn spin 30
	n=$(sum_matching '^cmdburn;.*main;spin_burn [0-9]+$' "$TMP/dur.folded")
	echo "  exit $rc after $(elapsed_since "$t0"), $n samples in spin_burn"
	[ "$rc" -eq 143 ] || fail "exit $rc, not 143: $(tail -2 "$TMP/dur.err")" || return 1
	[ "$n" -ge 100 ] || fail "only $n samples in spin_burn"
}

run_test "the command's exit status is profile's (0, 3, 128 + signal)" t_exit_status
run_test "the command's start-up is sampled" t_startup
run_test "its children and grandchildren are followed, each under its comm" t_children
run_test "a command that cannot run: 127/126 and one line; -p with it: exit 2" t_cannot_run
run_test "Ctrl-C ends the command, the profile is printed, exit 130" t_ctrl_c
run_test "a duration ends the command with SIGTERM" t_duration
finish
