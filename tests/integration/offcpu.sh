#!/bin/sh
# Integration tests of --off-cpu and --wall: the time threads wait off the
# CPU, counted by a sched_switch program (collect/offcpu.bpf.h), against
# workloads whose waits are known (tests/workloads/offcpu.c, wallhalf.c).
# The machine is shared: every assertion is on the workload's own lines.
set -u

SUITE=offcpu
. "$(dirname "$0")/lib.sh"

# off_cpu TAG PID [OPTION...]: 4 s of PID's waits, folded, into
# $TMP/TAG.folded (stderr in $TMP/TAG.err); an error exit fails
off_cpu() {
	tag=$1 target=$2
	shift 2
	$PROFILE --off-cpu -f "$@" -p "$target" 4 > "$TMP/$tag.folded" 2> "$TMP/$tag.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/$tag.err")"
}

# shares FILE A B C WANT_A WANT_B WANT_C: the counts of the lines matching
# the regexes A, B and C are WANT_X percent of their sum, within 3 points
shares() {
	a=$(sum_matching "$2" "$1") b=$(sum_matching "$3" "$1") c=$(sum_matching "$4" "$1")
	awk -v a="$a" -v b="$b" -v c="$c" -v wa="$5" -v wb="$6" -v wc="$7" 'BEGIN {
		t = a + b + c
		if (t == 0) { print "  nothing matched"; exit 1 }
		pa = 100 * a / t; pb = 100 * b / t; pc = 100 * c / t
		printf "  %d/%d/%d us: shares %.1f/%.1f/%.1f (want %d/%d/%d +-3)\n", a, b, c, pa, pb, pc, wa, wb, wc
		d = 3
		exit !(pa > wa - d && pa < wa + d && pb > wb - d && pb < wb + d && pc > wc - d && pc < wc + d) }'
}

# The workload waits 50, 30 and 20 ms in turn (nanosleep, a pipe, a
# futex): the off-CPU profile says 50/30/20, each wait under its own user
# stack and the kernel's path into it, from schedule() down (none of the
# profiler's own frames); the counts are microseconds: the thread's four
# seconds, all but its time on the CPU. By unwind tables: main;wait_round;
# wait_X;<libc's wrapper>. By frame pointers, libc's wrapper keeps no frame:
# its caller wait_X is skipped, as in any frame-pointer walk, and the
# wrapper names the wait.
t_waits_and_their_stacks() {
	start $W/offcpu 30
	pid=$LAST
	sleep 0.3
	for mode in dwarf fp; do
		echo "  --call-graph $mode"
		off_cpu "w$mode" "$pid" --call-graph $mode || return 1
		f=$TMP/w$mode.folded
		if [ $mode = dwarf ]; then
			sleep=';wait_round;wait_sleep;__nanosleep;clock_nanosleep;'
			pipe=';wait_round;wait_pipe;read;'
			futex=';wait_round;wait_futex;syscall;'
		else
			sleep=';wait_round;clock_nanosleep;'
			pipe=';wait_round;read;'
			futex=';wait_round;syscall;'
		fi
		shares "$f" "$sleep" "$pipe" "$futex" 50 30 20 || fail "shares off" || return 1
		grep -Eq "^offcpu;.*main$sleep.*;do_nanosleep;schedule;__schedule [0-9]+\$" "$f" ||
			fail "no $sleep ... do_nanosleep;schedule;__schedule: $(grep wait_round "$f" | head -3)" || return 1
		grep -Eq "^offcpu;.*main$pipe.*pipe_read;.*schedule;__schedule [0-9]+\$" "$f" ||
			fail "no $pipe ... pipe_read ... __schedule: $(grep wait_round "$f" | head -3)" || return 1
		grep -Eq "^offcpu;.*main$futex.*;futex_wait;.*schedule;__schedule [0-9]+\$" "$f" ||
			fail "no $futex ... futex_wait ... __schedule: $(grep wait_round "$f" | head -3)" || return 1
		# each wait under its own kernel path, none under another's
		for w in "$sleep:pipe_read|futex_wait" "$pipe:do_nanosleep|futex_wait" "$futex:do_nanosleep|pipe_read"; do
			! grep -F "${w%%:*}" "$f" | grep -Eq "${w#*:}" || fail "${w%%:*} under ${w#*:}" || return 1
		done
		! grep -Eq 'bpf_prog_|bpf_trace_run|__traceiter_' "$f" || fail "the profiler's own frames" || return 1
		total=$(awk -v a="$sleep" -v b="$pipe" -v c="$futex" \
			'index($0, a) || index($0, b) || index($0, c) { n += $NF } END { print n + 0 }' "$f")
		echo "  $total us of the main thread's 4 s"
		[ "$total" -ge 3400000 ] && [ "$total" -le 4100000 ] ||
			fail "$total us: not microseconds of 4 s" || return 1
		grep -q '^Tracing off-CPU time (us) of PID' "$TMP/w$mode.err" ||
			fail "no header naming the unit: $(head -1 "$TMP/w$mode.err")" || return 1
	done
	stop "$pid" || :
}

# --min-block and --max-block: only the waits within, as offcputime. The
# 50 ms sleeps are over 40 ms and the 20 ms futex waits under it, but on a
# loaded machine a wait can end late (the pipe's after its helper thread
# woke, late too): a few of the shorter waits may pass 40 ms, never most
# of them. No wait can end early: none of the sleeps or pipe waits is
# 25 ms or less.
t_min_and_max_block() {
	start $W/offcpu 30
	pid=$LAST
	sleep 0.3
	off_cpu min "$pid" --min-block 40000 || return 1
	off_cpu max "$pid" --max-block 25000 || return 1
	stop "$pid"
	sleep=$(sum_matching ';wait_sleep;' "$TMP/min.folded")
	pipe=$(sum_matching ';wait_pipe;' "$TMP/min.folded")
	futex=$(sum_matching ';wait_futex;' "$TMP/min.folded")
	echo "  --min-block 40000: $sleep us in 50 ms sleeps, $pipe in 30 ms pipe waits, $futex in 20 ms futex waits"
	[ "$sleep" -gt 1000000 ] || fail "no 50 ms waits over 40 ms" || return 1
	[ $((pipe * 100)) -le $((sleep * 10)) ] && [ $((futex * 100)) -le $((sleep * 2)) ] ||
		fail "waits under 40 ms counted" || return 1
	echo "  --max-block 25000: $(sum_matching ';wait_futex;' "$TMP/max.folded") us in futex waits"
	[ "$(sum_matching ';wait_futex;' "$TMP/max.folded")" -gt 400000 ] || fail "no 20 ms waits under 25 ms" || return 1
	[ "$(sum_matching ';wait_(sleep|pipe);' "$TMP/max.folded")" -eq 0 ] ||
		fail "waits over 25 ms: $(grep -E 'wait_(sleep|pipe)' "$TMP/max.folded" | head -2)" || return 1
}

# -U, -K and -L as with samples: user frames only, kernel frames only, the
# main thread only (its helper thread's waits left out).
t_filters() {
	start $W/offcpu 30
	pid=$LAST
	sleep 0.3
	off_cpu u "$pid" -U || return 1
	off_cpu k "$pid" -K || return 1
	$PROFILE --off-cpu -f -L "$pid" 4 > "$TMP/l.folded" 2> "$TMP/l.err" || fail "-L: exit $?" || return 1
	stop "$pid"
	grep -Eq '^offcpu;.*main;wait_round;wait_sleep;__nanosleep;clock_nanosleep [0-9]+$' "$TMP/u.folded" ||
		fail "-U: $(head -c 300 "$TMP/u.folded")" || return 1
	! grep -q 'schedule' "$TMP/u.folded" || fail "-U: kernel frames" || return 1
	grep -Eq '^offcpu;.*do_nanosleep;schedule;__schedule [0-9]+$' "$TMP/k.folded" ||
		fail "-K: $(head -c 300 "$TMP/k.folded")" || return 1
	! grep -q 'wait_' "$TMP/k.folded" || fail "-K: user frames" || return 1
	grep -q ';wait_futex;' "$TMP/l.folded" || fail "-L: no main thread" || return 1
	! grep -q 'helper' "$TMP/l.folded" || fail "-L: the helper thread's waits" || return 1
}

# Waits of 1.5 s across the drains of -i 1: each counted whole, in the
# interval it ended in, with the stacks it began with (carried past the
# drains: collect/offcpu_drain.h); none lost.
t_long_waits_across_drains() {
	start $W/offcpu 30 long
	pid=$LAST
	sleep 0.2
	$PROFILE --off-cpu -f -v -i 1 -p "$pid" 6 > "$TMP/long.folded" 2> "$TMP/long.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/long.err")" || return 1
	stop "$pid"
	n=$(grep -c ';main;wait_long;.*;do_nanosleep;schedule;__schedule [0-9]*$' "$TMP/long.folded")
	echo "  $n waits of wait_long: $(grep ';wait_long;' "$TMP/long.folded" | awk '{ printf "%s ", $NF }')"
	[ "$n" -ge 2 ] || fail "$n waits of 1.5 s in 6 s: $(head -c 400 "$TMP/long.folded")" || return 1
	grep ';wait_long;' "$TMP/long.folded" | awk '$NF < 1490000 || $NF > 1600000 { bad = 1 } END { exit bad }' ||
		fail "a 1.5 s wait not counted whole" || return 1
	grep -Eq 'off CPU: .* [1-9][0-9]* ended after a drain, [1-9][0-9]* carried past one' "$TMP/long.err" ||
		fail "no wait carried: $(grep 'off CPU' "$TMP/long.err")" || return 1
	! grep -q 'not counted\|not timed' "$TMP/long.err" || fail "$(grep 'not' "$TMP/long.err")" || return 1
}

# --include-runnable: two busy threads on one CPU each wait for it half the
# time, under the functions they were preempted in; without, that is no
# waiting (nearly none counted).
t_include_runnable() {
	command -v taskset > /dev/null || fail "taskset missing" || return 1
	start taskset -c 0 $W/hotspots 30
	pid=$LAST
	start taskset -c 0 $W/hotspots 30
	sleep 0.3
	off_cpu run "$pid" --include-runnable || return 1
	off_cpu norun "$pid" || return 1
	stop "$pid"
	with=$(sum_matching ';hot_[abc];' "$TMP/run.folded")
	without=$(sum_matching ';hot_[abc];' "$TMP/norun.folded")
	echo "  $with us waiting for the CPU in hot_X, $without without --include-runnable"
	[ "$with" -gt 800000 ] || fail "$with us: preempted time not counted" || return 1
	[ "$without" -lt 40000 ] || fail "$without us counted as waiting without --include-runnable" || return 1
	grep -Eq ';hot_[abc];.*schedule;__schedule [0-9]+$' "$TMP/run.folded" ||
		fail "no preemption path: $(grep hot_ "$TMP/run.folded" | head -2)" || return 1
}

# --wall: a thread that computes 20 ms and sleeps 20 ms is half in each,
# in one unit; on-CPU samples weigh their period.
t_wall_half_and_half() {
	start $W/wallhalf 30
	pid=$LAST
	sleep 0.3
	$PROFILE --wall -F 999 -f -p "$pid" 4 > "$TMP/wall.folded" 2> "$TMP/wall.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/wall.err")" || return 1
	stop "$pid"
	c=$(sum_matching ';half_compute( |;)' "$TMP/wall.folded")
	s=$(sum_matching ';half_sleep;' "$TMP/wall.folded")
	awk -v c="$c" -v s="$s" 'BEGIN {
		t = c + s
		if (t == 0) exit 1
		printf "  compute %d us, sleep %d us: %.1f/%.1f (want 50/50 +-3)\n", c, s, 100 * c / t, 100 * s / t
		exit !(100 * c / t > 47 && 100 * c / t < 53) }' || fail "not half and half" || return 1
	[ $((c + s)) -ge 3400000 ] && [ $((c + s)) -le 4100000 ] ||
		fail "$((c + s)) us: not microseconds of 4 s" || return 1
	grep -q '^Wall-clock time (us): on-CPU sampled at 999 Hertz plus off-CPU time' "$TMP/wall.err" ||
		fail "no header naming the unit: $(head -1 "$TMP/wall.err")" || return 1
}

# The structured formats name the unit: pprof off_cpu/nanoseconds (as go
# tool pprof reads it), speedscope nanoseconds, the SVG's frames their
# time; the three agree with the folded output.
t_formats_name_the_unit() {
	start $W/offcpu 30
	pid=$LAST
	sleep 0.3
	for out in pb.gz json svg; do
		$PROFILE --off-cpu -p "$pid" -o "$TMP/o.$out" 3 2> "$TMP/o.err" ||
			fail "-o o.$out: exit $?: $(cat "$TMP/o.err")" || return 1
	done
	stop "$pid"
	go tool pprof -raw "$TMP/o.pb.gz" > "$TMP/raw.txt" 2>&1 || fail "go tool pprof: $(head -3 "$TMP/raw.txt")" || return 1
	grep -A1 '^Samples:' "$TMP/raw.txt" | grep -qx 'off_cpu/nanoseconds' ||
		fail "pprof: $(head -5 "$TMP/raw.txt")" || return 1
	go tool pprof -top "$TMP/o.pb.gz" > "$TMP/top.txt" 2>&1 || fail "go tool pprof -top" || return 1
	grep -Eq '^Type: off_cpu$' "$TMP/top.txt" || fail "pprof -top: $(head -3 "$TMP/top.txt")" || return 1
	grep -Eq ' wait_sleep$' "$TMP/top.txt" || fail "no wait_sleep in: $(head -12 "$TMP/top.txt")" || return 1
	[ "$(jq -r '[.profiles[] | .unit] | unique | join(",")' "$TMP/o.json")" = nanoseconds ] ||
		fail "speedscope unit: $(jq -c '[.profiles[] | .unit]' "$TMP/o.json")" || return 1
	xmllint --noout "$TMP/o.svg" || fail "SVG not well-formed" || return 1
	grep -Eq '<title>wait_sleep \([0-9]+\.[0-9]{3} ms, [0-9.]+%\)</title>' "$TMP/o.svg" ||
		fail "SVG: no wait_sleep (N ms, P%)" || return 1
	grep -q 'profile --off-cpu of PID' "$TMP/o.svg" || fail "SVG title" || return 1
}

# Bad combinations: one line, exit 2, before anything is loaded.
t_bad_combinations() {
	for args in "--off-cpu -F 99" "--off-cpu -c 1000000" "--wall -K" "--off-cpu --wall" \
		"--min-block 10" "--off-cpu -e cycles"; do
		# shellcheck disable=SC2086
		$PROFILE $args 1 > "$TMP/bad.out" 2> "$TMP/bad.err"
		rc=$?
		[ "$rc" -eq 2 ] || fail "'$args': exit $rc, want 2" || return 1
		[ "$(wc -l < "$TMP/bad.err")" -eq 1 ] || fail "'$args': $(cat "$TMP/bad.err")" || return 1
		grep -Eq 'conflict|needs' "$TMP/bad.err" || fail "'$args': $(cat "$TMP/bad.err")" || return 1
		echo "  $args: $(cat "$TMP/bad.err")"
	done
}

run_test "off-CPU: 50/30/20 ms waits under their user and kernel stacks, in us" t_waits_and_their_stacks
run_test "--min-block and --max-block" t_min_and_max_block
run_test "off-CPU with -U, -K and -L" t_filters
run_test "waits across drains counted whole, none lost" t_long_waits_across_drains
run_test "--include-runnable: time waiting for the CPU" t_include_runnable
run_test "--wall: half computing, half sleeping is 50/50" t_wall_half_and_half
run_test "pprof, speedscope and SVG name the unit" t_formats_name_the_unit
run_test "bad combinations: one line, exit 2" t_bad_combinations

finish
