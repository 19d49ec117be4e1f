#!/bin/sh
# Integration tests: run ./profile as root against workloads with known hot
# functions and check what it prints. Run by `make integration` (and so by
# `make test` and CI), which builds ./profile and the workloads first.
# They need root (CAP_BPF, CAP_PERFMON): without it they fail, never skip.
set -u

SUITE=integration
. "$(dirname "$0")/lib.sh"

# --- tests -------------------------------------------------------------------

# hot_a/hot_b/hot_c burn CPU 5:3:2; the profile must say so within 5 points,
# with main -> run_round -> hot_X in that order and hot_X as the leaf.
t_ratio_and_stack_order() {
	start $W/hotspots 30
	sleep 0.3
	$PROFILE -F 999 -f -p "$LAST" 3 > "$TMP/ratio.folded" 2> "$TMP/ratio.err" ||
		fail "profile exited $?: $(cat "$TMP/ratio.err")" || return 1
	kill "$LAST"
	a=$(sum_matching ';hot_a( |;)' "$TMP/ratio.folded")
	b=$(sum_matching ';hot_b( |;)' "$TMP/ratio.folded")
	c=$(sum_matching ';hot_c( |;)' "$TMP/ratio.folded")
	total=$((a + b + c))
	echo "  hot_a=$a hot_b=$b hot_c=$c"
	[ "$total" -ge 1000 ] || fail "only $total samples in hot functions (expected ~3000)" || return 1
	awk -v a="$a" -v b="$b" -v c="$c" -v t="$total" 'BEGIN {
		pa = 100 * a / t; pb = 100 * b / t; pc = 100 * c / t
		ok = (pa > 45 && pa < 55 && pb > 25 && pb < 35 && pc > 15 && pc < 25)
		printf "  shares %.1f/%.1f/%.1f (want 50/30/20 +-5)\n", pa, pb, pc
		exit !ok }' || fail "ratio off" || return 1
	for f in hot_a hot_b hot_c; do
		grep -q "^hotspots;.*main;run_round;$f [0-9]*\$" "$TMP/ratio.folded" ||
			fail "no stack main;run_round;$f with $f as the leaf" || return 1
	done
	! grep -Eq 'hot_([abc]);hot_\1' "$TMP/ratio.folded" || fail "leaf frame duplicated" || return 1
}

# The interrupted function is the leaf: in user-only mode nearly every
# sample of the workload ends in hot_X, without a duplicate or a gap.
t_user_leaf_exact() {
	start $W/hotspots 30
	sleep 0.3
	$PROFILE -U -F 999 -f -p "$LAST" 2 > "$TMP/leaf.folded" 2> "$TMP/leaf.err" ||
		fail "profile exited $?" || return 1
	kill "$LAST"
	total=$(sum_matching '.' "$TMP/leaf.folded")
	leaf=$(sum_matching ';main;run_round;hot_[abc] [0-9]+$' "$TMP/leaf.folded")
	echo "  $leaf of $total samples end in main;run_round;hot_X"
	[ "$total" -gt 500 ] && [ $((leaf * 100)) -ge $((total * 95)) ] ||
		fail "leaf frame wrong in too many samples" || return 1
}

# A frame pointer aimed at garbage (as code without frame pointers leaves
# it): the stack ends at the first return address in no mapping.
t_garbage_frames_cut() {
	start $W/badfp 10
	sleep 0.3
	$PROFILE -U -F 199 -f --call-graph fp -p "$LAST" 1 > "$TMP/bad.folded" 2>/dev/null ||
		fail "profile exited $?" || return 1
	grep -q '^badfp;\[unknown\];bad_fp_spin [0-9]*$' "$TMP/bad.folded" ||
		fail "want badfp;[unknown];bad_fp_spin: $(head -c 300 "$TMP/bad.folded")" || return 1
	! grep -q '\[unknown\];\[unknown\]' "$TMP/bad.folded" || fail "garbage frames printed" || return 1
	# unwind tables place the CFA by rbp here too: the walk ends at the
	# first frame, whose CFA is not above the stack pointer, and says so
	$PROFILE -U -F 199 -f -v -p "$LAST" 1 > "$TMP/bad.folded" 2> "$TMP/bad.err" ||
		fail "profile exited $?" || return 1
	kill "$LAST"
	grep -q '^badfp;bad_fp_spin [0-9]*$' "$TMP/bad.folded" ||
		fail "want badfp;bad_fp_spin: $(head -c 300 "$TMP/bad.folded")" || return 1
	! grep -q '\[unknown\]' "$TMP/bad.folded" || fail "garbage frames printed" || return 1
	grep -Eq '\([1-9][0-9]* ended before the thread.s root' "$TMP/bad.err" ||
		fail "cut walks not counted: $(grep unwind "$TMP/bad.err")" || return 1
}

# -K: kernel frames only; the syscall workload shows its read path.
t_kernel_only() {
	start $W/syscalls 30
	sleep 0.3
	$PROFILE -K -F 499 -f -p "$LAST" 2 > "$TMP/k.folded" 2> "$TMP/k.err" ||
		fail "profile exited $?" || return 1
	kill "$LAST"
	grep -q 'vfs_read' "$TMP/k.folded" || fail "no vfs_read in kernel stacks" || return 1
	# frames, not substrings: kernel names such as rebalance_domains hold "main"
	! grep -Eq ';(main|do_reads|read)(;| )' "$TMP/k.folded" || fail "user frames in -K output" || return 1
}

# -U: user frames only, even for a workload that lives in the kernel.
t_user_only() {
	start $W/syscalls 30
	sleep 0.3
	$PROFILE -U -F 499 -f -p "$LAST" 2 > "$TMP/u.folded" 2> "$TMP/u.err" ||
		fail "profile exited $?" || return 1
	kill "$LAST"
	grep -q ';main' "$TMP/u.folded" || fail "no user frames" || return 1
	! grep -Eq 'vfs_read|entry_SYSCALL|do_syscall_64' "$TMP/u.folded" ||
		fail "kernel frames in -U output" || return 1
}

# Default output: BCC's header and blocks; -d puts "--" between the parts.
t_default_format() {
	start $W/syscalls 30
	sleep 0.3
	$PROFILE -d -F 499 -p "$LAST" 1 > "$TMP/d.out" 2> "$TMP/d.err" || fail "profile exited $?" || return 1
	kill "$LAST"
	head -1 "$TMP/d.out" | grep -qx "Sampling at 499 Hertz of PID $LAST by user + kernel stack until it exits, for at most 1 secs." ||
		fail "header: $(head -1 "$TMP/d.out")" || return 1
	grep -q "^    -                syscalls ($LAST)\$" "$TMP/d.out" || fail "no comm (pid) line" || return 1
	grep -qx '    --' "$TMP/d.out" || fail "no -- delimiter" || return 1
	grep -Eqx '        [0-9]+' "$TMP/d.out" || fail "no count line" || return 1
	$PROFILE -f -F 99 1 > "$TMP/f.out" 2>/dev/null || fail "folded run failed" || return 1
	! grep -q '^Sampling' "$TMP/f.out" || fail "header in folded output" || return 1
	# every folded line is "frames count"
	! grep -Evq '^[^ ].* [0-9]+$' "$TMP/f.out" || fail "malformed folded line" || return 1
}

# -a annotates kernel frames with _[k].
t_annotations() {
	start $W/syscalls 30
	sleep 0.3
	$PROFILE -a -F 499 -f -p "$LAST" 1 > "$TMP/a.folded" 2>/dev/null || fail "profile exited $?" || return 1
	kill "$LAST"
	grep -q 'vfs_read_\[k\]' "$TMP/a.folded" || fail "no vfs_read_[k]" || return 1
	! grep -q 'main_\[k\]' "$TMP/a.folded" || fail "user frame annotated" || return 1
}

# Several pids; threads keyed by tid with -L.
t_pid_list_and_tid() {
	start $W/hotspots 30
	p1=$LAST
	start $W/syscalls 30
	p2=$LAST
	sleep 0.3
	$PROFILE -F 499 -p "$p1,$p2" 1 > "$TMP/p.out" 2>/dev/null || fail "profile exited $?" || return 1
	grep -q "hotspots ($p1)" "$TMP/p.out" && grep -q "syscalls ($p2)" "$TMP/p.out" ||
		fail "not both pids in output" || return 1
	$PROFILE -F 499 -L "$p1" 1 > "$TMP/t.out" 2>/dev/null || fail "profile -L exited $?" || return 1
	kill "$p1" "$p2"
	grep -q "hotspots ($p1/$p1)" "$TMP/t.out" || fail "no (pid/tid) line for -L" || return 1
	! grep -q "syscalls" "$TMP/t.out" || fail "-L let another process through" || return 1
}

# -C: only the chosen CPU is sampled.
t_cpu_filter() {
	[ "$(nproc)" -ge 2 ] || { echo "  (one CPU: checking -C 0 only)"; }
	start taskset -c 0 $W/hotspots 30
	sleep 0.3
	$PROFILE -C 0 -F 499 -f -p "$LAST" 1 > "$TMP/c0.folded" 2>/dev/null || fail "profile exited $?" || return 1
	n0=$(sum_matching 'hot_' "$TMP/c0.folded")
	[ "$n0" -gt 200 ] || fail "only $n0 samples on the workload's CPU" || return 1
	if [ "$(nproc)" -ge 2 ]; then
		$PROFILE -C 1 -F 499 -f -p "$LAST" 1 > "$TMP/c1.folded" 2>/dev/null
		n1=$(sum_matching 'hot_' "$TMP/c1.folded")
		[ "$n1" -lt 5 ] || fail "$n1 samples on a CPU the workload is not on" || return 1
	fi
	kill "$LAST"
}

# SIGINT and SIGTERM end sampling and print what was collected.
signal_prints_profile() {
	sig=$1
	start $W/hotspots 30
	wl=$LAST
	sleep 0.3
	$PROFILE -F 499 -f -p "$wl" > "$TMP/sig.folded" 2> "$TMP/sig.err" &
	prof=$!
	sleep 2
	kill -"$sig" "$prof"
	wait "$prof"
	rc=$?
	kill "$wl"
	[ "$rc" -eq 0 ] || fail "exit status $rc after SIG$sig: $(cat "$TMP/sig.err")" || return 1
	grep -q ';hot_a' "$TMP/sig.folded" || fail "no profile printed after SIG$sig" || return 1
	! grep -Evq '^[^ ].* [0-9]+$' "$TMP/sig.folded" || fail "half-written line" || return 1
}
t_sigint() { signal_prints_profile INT; }
t_sigterm() { signal_prints_profile TERM; }
# an SSH session that drops sends SIGHUP
t_sighup() { signal_prints_profile HUP; }

# The -p target exits: sampling stops, the profile so far is printed.
# The header promises no more than the run may give, and the note at
# the end says how long it was.
t_target_exits() {
	start $W/hotspots 2
	$PROFILE -F 499 -p "$LAST" 30 > "$TMP/exit.txt" 2> "$TMP/exit.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "exit status $rc" || return 1
	head -1 "$TMP/exit.txt" | grep -q ' until it exits, for at most 30 secs\.$' ||
		fail "header: $(head -1 "$TMP/exit.txt")" || return 1
	secs=$(sed -n 's/^profile: every target process exited; stopping after \([0-9.]*\) secs$/\1/p' "$TMP/exit.err")
	[ -n "$secs" ] || fail "no note of when the target exited: $(cat "$TMP/exit.err")" || return 1
	awk -v s="$secs" 'BEGIN { exit !(s >= 1 && s < 10) }' || fail "stopped after $secs s, target ran 2 s" || return 1
	grep -q 'hot_a' "$TMP/exit.txt" || fail "profile lost" || return 1
}

# A closed pipe ends the run quietly.
t_closed_pipe() {
	{ $PROFILE -F 499 -I -f 1 2> "$TMP/pipe.err"; echo $? > "$TMP/pipe.rc"; } | head -1 > /dev/null
	[ "$(cat "$TMP/pipe.rc")" -eq 0 ] || fail "exit status $(cat "$TMP/pipe.rc")" || return 1
	# notes may remain (the output can fit in the pipe before head exits), errors not
	! grep -Eiq 'cannot|error|broken pipe' "$TMP/pipe.err" || fail "stderr: $(cat "$TMP/pipe.err")" || return 1
}

# Interval profiles into a reader that stops after 100 bytes: exit 0, no
# error (the last, partial interval has nobody to go to). Three times: the
# pipe can close before or after an interval is written.
t_closed_pipe_intervals() {
	for i in 1 2 3; do
		{ $PROFILE -F 499 -f -i 1 3 2> "$TMP/ipipe.err"; echo $? > "$TMP/ipipe.rc"; } |
			head -c 100 > /dev/null
		[ "$(cat "$TMP/ipipe.rc")" -eq 0 ] ||
			fail "run $i: exit status $(cat "$TMP/ipipe.rc"): $(cat "$TMP/ipipe.err")" || return 1
		! grep -Eiq 'cannot|error' "$TMP/ipipe.err" || fail "run $i: $(cat "$TMP/ipipe.err")" || return 1
	done
}

# Too small a count hash: the loss is counted and the fix named.
t_losses_reported() {
	start $W/hotspots 30
	p1=$LAST
	start $W/syscalls 30
	sleep 0.3
	$PROFILE -F 999 -f --hash-storage-size 2 -v 1 > "$TMP/l.folded" 2> "$TMP/l.err" ||
		fail "profile exited $?" || return 1
	kill "$p1" "$LAST"
	grep -q 'raise --hash-storage-size' "$TMP/l.err" || fail "hash loss not reported" || return 1
	# printed + dropped == what the kernel counted
	printed=$(sum_matching '.' "$TMP/l.folded")
	grep -Eq "[0-9]+ samples, $printed printed" "$TMP/l.err" || fail "printed $printed, stats: $(tail -1 "$TMP/l.err")" || return 1
	awk '/samples, [0-9]+ printed/ { s = $4; p = $6; d = $8; exit !(s == p + d) }' "$TMP/l.err" ||
		fail "samples != printed + dropped: $(tail -1 "$TMP/l.err")" || return 1
}

# A stack map far too small loses nothing: stacks that do not fit are kept
# in the overflow map, and the profile is the same.
t_stack_map_overflow() {
	start $W/hotspots 30
	sleep 0.3
	# the stack map holds frame-pointer walks
	$PROFILE -U -F 999 -f -v --call-graph fp --stack-storage-size 2 -p "$LAST" 2 > "$TMP/o.folded" 2> "$TMP/o.err" ||
		fail "profile exited $?" || return 1
	kill "$LAST"
	! grep -q 'Missed' "$TMP/o.folded" || fail "stacks missed" || return 1
	grep -Eq '[1-9][0-9]* kernel\+user stacks kept in the overflow map|\+[1-9][0-9]* kernel\+user' "$TMP/o.err" ||
		fail "overflow map unused: $(cat "$TMP/o.err")" || return 1
	leaf=$(sum_matching ';main;run_round;hot_[abc] [0-9]+$' "$TMP/o.folded")
	[ "$leaf" -gt 1000 ] || fail "only $leaf samples resolved" || return 1
}

# A short run's maps are sized from what it can sample (map_config.h): at
# 49 Hz for 1 s on every possible CPU (and a second's slack), two stacks a
# sample, sixteen times as many stack-map entries, a power of two within
# [1024, 16384]; counts four times the samples, at least 1024. Sizes given are
# kept. At 999 Hz on a busy CPU, the smaller maps lose nothing.
t_maps_sized_by_need() {
	ncpu=$(awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { k = split($i, r, "-");
		n += k == 2 ? r[2] - r[1] + 1 : 1 } print n }' /sys/devices/system/cpu/possible)
	samples=$((49 * ncpu * 2))
	want=1024
	while [ "$want" -lt $((16 * 2 * samples)) ] && [ "$want" -lt 16384 ]; do want=$((want * 2)); done
	counts=$((4 * samples < 1024 ? 1024 : 4 * samples))
	[ "$counts" -le 40960 ] || counts=40960
	$PROFILE -v -F 49 1 > /dev/null 2> "$TMP/maps.err" || fail "profile exited $?" || return 1
	line=$(grep '^profile: BPF maps: ' "$TMP/maps.err")
	echo "  $ncpu CPUs: $line"
	echo "$line" | grep -q "two sets of $want stacks, $counts counts and $((2 * counts)) overflow stacks" ||
		fail "want $want stacks and $counts counts" || return 1
	$PROFILE -v -F 49 --stack-storage-size 16384 --hash-storage-size 40960 1 > /dev/null 2> "$TMP/given.err" ||
		fail "profile exited $?" || return 1
	grep -q 'two sets of 16384 stacks, 40960 counts' "$TMP/given.err" ||
		fail "sizes given not kept: $(grep 'BPF maps' "$TMP/given.err")" || return 1
	start $W/hotspots 30
	sleep 0.3
	$PROFILE -v -F 999 -f 2 > "$TMP/fast.folded" 2> "$TMP/fast.err" || fail "profile exited $?" || return 1
	kill "$LAST"
	grep -e 'BPF maps' -e '^profile: event ' "$TMP/fast.err" | sed 's/^/  /'
	! grep -E 'stacks lost|samples dropped|Missed' "$TMP/fast.err" "$TMP/fast.folded" ||
		fail "lost with maps sized by need" || return 1
	grep -Eq '^profile: event [a-z-]+, ([0-9]+) samples, \1 printed, 0 dropped' "$TMP/fast.err" ||
		fail "not every sample printed" || return 1
	# the machine is shared: the workload gets at least a fair part of a CPU
	all=$(sum_matching '^hotspots;' "$TMP/fast.folded")
	[ "$all" -gt 300 ] || fail "only $all samples of hotspots" || return 1
}

# The kernel image's symbols are kept in the cache directory for the boot
# (kallsyms_cache.h): the first run reads /proc/kallsyms and writes them,
# mode 0600, under this boot's id; the next names the image's frames from
# them, reading /proc/kallsyms at most once (for a module's frame), and
# names as many frames.
t_kallsyms_cached_for_the_boot() {
	start $W/syscalls 30
	sleep 0.3
	for run in 1 2; do
		$PROFILE -v -K -F 499 -f --unwind-cache-dir "$TMP/kc" -p "$LAST" 1 \
			> "$TMP/kc$run.folded" 2> "$TMP/kc$run.err" || fail "run $run: exit $?" || return 1
		grep '^profile: kernel symbols:' "$TMP/kc$run.err" | sed "s/^/  run $run: /"
	done
	stop "$LAST"
	grep -q "from /proc/kallsyms; /proc/kallsyms read 1 times" "$TMP/kc1.err" ||
		fail "run 1 did not read /proc/kallsyms" || return 1
	[ "$(stat -c '%a %u' "$TMP/kc/kallsyms")" = "600 0" ] ||
		fail "cache file: $(stat -c '%a %u' "$TMP/kc/kallsyms")" || return 1
	[ "$(head -n 1 "$TMP/kc/kallsyms")" = "# profile kallsyms 1 $(cat /proc/sys/kernel/random/boot_id)" ] ||
		fail "header: $(head -n 1 "$TMP/kc/kallsyms")" || return 1
	grep -Eq "from the cache of this boot; /proc/kallsyms read [01] times" "$TMP/kc2.err" ||
		fail "run 2: $(grep 'kernel symbols' "$TMP/kc2.err")" || return 1
	for run in 1 2; do
		all=$(sum_matching '^syscalls;' "$TMP/kc$run.folded")
		named=$(sum_matching '^syscalls;.*(ksys_read|entry_SYSCALL)' "$TMP/kc$run.folded")
		echo "  run $run: $named of $all samples through ksys_read or entry_SYSCALL"
		[ "$all" -gt 50 ] && [ "$(pct "$named" "$all")" -ge 90 ] ||
			fail "run $run: kernel frames not named" || return 1
	done
}

# Processes that burn CPU for 100 ms and exit long before the profile ends
# still have named frames: their mappings are read when first sampled.
t_short_lived() {
	$PROFILE -F 999 -f 4 > "$TMP/short.folded" 2> "$TMP/short.err" &
	prof=$!
	sleep 0.5
	$W/shortlived 20
	wait "$prof" || fail "profile exited $?" || return 1
	named=$(sum_matching '^shortlived;.*short_burn' "$TMP/short.folded")
	all=$(sum_matching '^shortlived;' "$TMP/short.folded")
	echo "  $named of $all samples of the short-lived processes in short_burn"
	[ "$all" -gt 500 ] && [ $((named * 100)) -ge $((all * 90)) ] ||
		fail "short-lived processes lost their symbols" || return 1
}

# CPU time (clock ticks) a process has used: utime + stime.
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# -i: timestamped interval profiles that lose nothing between intervals:
# samples per CPU-second of the workload match one run of the same length
# within 10%, and every sample the kernel counted is printed.
t_interval() {
	start $W/hotspots 30
	sleep 0.3
	c0=$(cpu_ticks "$LAST")
	$PROFILE -F 199 -f -v -i 1 -p "$LAST" 3 > "$TMP/i.folded" 2> "$TMP/i.err" ||
		fail "profile -i exited $?" || return 1
	c1=$(cpu_ticks "$LAST")
	$PROFILE -F 199 -f -p "$LAST" 3 > "$TMP/i1.folded" 2>/dev/null || fail "profile exited $?" || return 1
	c2=$(cpu_ticks "$LAST")
	kill "$LAST"
	stamps=$(cut -d';' -f1 "$TMP/i.folded" | sort -u | grep -Ec '^[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{2}:[0-9]{2}:[0-9]{2}$')
	[ "$stamps" -eq 3 ] || fail "$stamps timestamps, want 3" || return 1
	a=$(sum_matching '.' "$TMP/i.folded")
	b=$(sum_matching '.' "$TMP/i1.folded")
	echo "  intervals: $a samples in $((c1 - c0)) ticks, one run: $b in $((c2 - c1)) ticks"
	awk -v a="$a" -v b="$b" -v ta=$((c1 - c0)) -v tb=$((c2 - c1)) 'BEGIN {
		if (ta <= 0 || tb <= 0) exit 1
		r = (a / ta) / (b / tb); exit !(r > 0.9 && r < 1.1) }' ||
		fail "interval rate not within 10% of a single run's" || return 1
	grep -Eq "[0-9]+ samples, $a printed" "$TMP/i.err" ||
		fail "printed $a, kernel counted: $(tail -1 "$TMP/i.err")" || return 1
}

# -o FILE in every format: each loads in its real client.
t_output_formats() {
	start $W/hotspots 30
	sleep 0.3
	# the four at once, over the same two seconds
	runs=""
	for f in p.pb.gz p.svg p.json p.folded; do
		{ $PROFILE -F 499 -p "$LAST" -o "$TMP/$f" 2 2> "$TMP/$f.err"; echo $? > "$TMP/$f.rc"; } &
		runs="$runs $!"
	done
	wait $runs
	kill "$LAST"
	for f in p.pb.gz p.svg p.json p.folded; do
		[ "$(cat "$TMP/$f.rc")" = 0 ] || fail "-o $f exited $(cat "$TMP/$f.rc"): $(cat "$TMP/$f.err")" || return 1
		[ -s "$TMP/$f" ] || fail "$f empty" || return 1
	done
	# pprof: the hottest functions in the 5:3:2 order, as go tool pprof sees them
	go tool pprof -top "$TMP/p.pb.gz" > "$TMP/top.txt" 2>&1 || fail "go tool pprof: $(cat "$TMP/top.txt")" || return 1
	order=$(grep -Eo 'hot_[abc]$' "$TMP/top.txt" | tr '\n' ' ')
	[ "$order" = "hot_a hot_b hot_c " ] || fail "pprof -top order: '$order'" || return 1
	xmllint --noout "$TMP/p.svg" || fail "SVG not well-formed" || return 1
	for h in hot_a hot_b hot_c; do
		grep -q "$h" "$TMP/p.svg" || fail "no $h in the SVG" || return 1
		grep -q "\"$h\"" "$TMP/p.json" || fail "no $h in the JSON" || return 1
	done
	python3 -m json.tool "$TMP/p.json" > /dev/null || fail "JSON not valid" || return 1
	grep -q '^hotspots;.*;hot_a [0-9]*$' "$TMP/p.folded" || fail "folded file" || return 1
}

# pprof_top FILE [OPTION...]: go tool pprof -top of FILE into $TMP/top.txt, or fail.
pprof_top() {
	f=$1
	shift
	go tool pprof -top "$@" "$f" > "$TMP/top.txt" 2>&1 || fail "go tool pprof $f: $(cat "$TMP/top.txt")"
}

# pprof_total: the "of N total" of the last pprof_top.
pprof_total() {
	sed -n 's/.* of \([0-9]*\) total.*/\1/p' "$TMP/top.txt" | head -1
}

# --from: a folded file and a pprof file from one workload, each written
# again as SVG, pprof and speedscope, checked in the clients; folded in,
# folded out the same lines; two inputs merged sum their counts; a
# malformed line is one line naming file and line, exit 2.
t_from_inputs() {
	start $W/hotspots 30
	sleep 0.3
	{ $PROFILE -F 499 -p "$LAST" -o "$TMP/in.folded" 2 2> "$TMP/f.err"; echo $? > "$TMP/f.rc"; } &
	a=$!
	{ $PROFILE -F 499 -p "$LAST" -o "$TMP/in.pb.gz" 2 2> "$TMP/p.err"; echo $? > "$TMP/p.rc"; } &
	b=$!
	wait $a $b
	kill "$LAST"
	[ "$(cat "$TMP/f.rc")$(cat "$TMP/p.rc")" = 00 ] ||
		fail "profile exited: $(cat "$TMP/f.err" "$TMP/p.err")" || return 1
	folded_total=$(sum_matching '.' "$TMP/in.folded")
	pprof_top "$TMP/in.pb.gz" -sample_index=samples || return 1
	pprof_total=$(pprof_total)
	echo "  inputs: $folded_total samples folded, $pprof_total in pprof"
	[ "$folded_total" -gt 100 ] && [ "${pprof_total:-0}" -gt 100 ] || fail "too few samples" || return 1
	for in in in.folded in.pb.gz; do
		for out in svg pb.gz json; do
			$PROFILE --from "$TMP/$in" -o "$TMP/$in.$out" 2> "$TMP/from.err" ||
				fail "--from $in -o .$out exited $?: $(cat "$TMP/from.err")" || return 1
		done
		# pprof: the 5:3:2 order, and every sample of the input
		pprof_top "$TMP/$in.pb.gz" -sample_index=samples || return 1
		order=$(grep -Eo 'hot_[abc]$' "$TMP/top.txt" | tr '\n' ' ')
		[ "$order" = "hot_a hot_b hot_c " ] || fail "$in -> pprof: -top order '$order'" || return 1
		want=$folded_total
		[ $in = in.pb.gz ] && want=$pprof_total
		[ "$(pprof_total)" = "$want" ] || fail "$in -> pprof: $(pprof_total) samples, not $want" || return 1
		xmllint --noout "$TMP/$in.svg" || fail "$in -> SVG not well-formed" || return 1
		python3 -m json.tool "$TMP/$in.json" > /dev/null || fail "$in -> JSON not valid" || return 1
		for h in hot_a hot_b hot_c; do
			grep -q ">$h (" "$TMP/$in.svg" || fail "$in -> no $h frame in the SVG" || return 1
			grep -q "\"$h\"" "$TMP/$in.json" || fail "$in -> no $h in the JSON" || return 1
		done
		# speedscope: the weights of hot_a's stacks are what the input counted
		got=$(jq --arg h hot_a '.shared.frames | map(.name) | index($h) as $i |
			[input.profiles[] as $p | range($p.samples | length) |
			 select(any($p.samples[.][]; . == $i)) | $p.weights[.]] | add' \
			"$TMP/$in.json" "$TMP/$in.json")
		# hot_a's samples: what go tool pprof says of the input (cum), and -f of it
		$PROFILE --from "$TMP/$in" -f > "$TMP/$in.folded" 2> "$TMP/from.err" ||
			fail "--from $in -f exited $?: $(cat "$TMP/from.err")" || return 1
		n=$(sum_matching ';hot_a(;| )' "$TMP/$in.folded")
		if [ $in = in.folded ]; then
			want=$(sum_matching ';hot_a(;| )' "$TMP/in.folded")
		else
			pprof_top "$TMP/in.pb.gz" -sample_index=samples || return 1
			want=$(awk '$NF == "hot_a" { print $4 }' "$TMP/top.txt")
		fi
		[ "$n" = "$want" ] || fail "$in -> folded: hot_a in $n samples, the input $want" || return 1
		# by time from pprof: each sample 1e9 / 499 ns, as the input says; folded: by samples
		[ $in = in.pb.gz ] && want=$((want * (1000000000 / 499)))
		[ "$got" = "$want" ] || fail "$in -> speedscope: hot_a weighs $got, the input $want" || return 1
	done
	# folded in, folded out: the very same lines
	$PROFILE --from "$TMP/in.folded" -f > "$TMP/again.folded" 2> "$TMP/from.err" ||
		fail "--from -f exited $?: $(cat "$TMP/from.err")" || return 1
	cmp -s "$TMP/in.folded" "$TMP/again.folded" || fail "folded in and out differ: $(diff "$TMP/in.folded" "$TMP/again.folded" | head -5)" || return 1
	# merged: a folded file twice (the second as flamegraph.pl takes files), every
	# count doubled; folded and pprof, the sum
	$PROFILE --from "$TMP/in.folded" "$TMP/in.folded" -f > "$TMP/twice.folded" 2> "$TMP/from.err" ||
		fail "--from twice exited $?: $(cat "$TMP/from.err")" || return 1
	awk '{ $NF *= 2; print }' "$TMP/in.folded" | cmp -s - "$TMP/twice.folded" ||
		fail "a file twice: not every count doubled: $(head -3 "$TMP/twice.folded")" || return 1
	$PROFILE --from "$TMP/in.folded" --from "$TMP/in.pb.gz" -o "$TMP/both.pb.gz" 2> "$TMP/from.err" ||
		fail "--from both exited $?: $(cat "$TMP/from.err")" || return 1
	pprof_top "$TMP/both.pb.gz" || return 1
	[ "$(pprof_total)" = $((folded_total + pprof_total)) ] ||
		fail "merged: $(pprof_total) samples, not $folded_total + $pprof_total: $(head -5 "$TMP/top.txt")" || return 1
	# a malformed line: one line naming the file and the line, exit 2, nothing written
	{ head -3 "$TMP/in.folded"; echo 'hotspots;main;run_round 1.5'; } > "$TMP/bad.folded"
	$PROFILE --from "$TMP/bad.folded" -o "$TMP/bad.svg" 2> "$TMP/bad.err"
	rc=$?
	[ $rc = 2 ] || fail "malformed line: exit $rc" || return 1
	[ "$(wc -l < "$TMP/bad.err")" = 1 ] && grep -q "'$TMP/bad.folded' line 4: count '1.5' is not a whole number" "$TMP/bad.err" ||
		fail "malformed line: '$(cat "$TMP/bad.err")'" || return 1
	[ ! -e "$TMP/bad.svg" ] || fail "malformed line: an SVG written anyway" || return 1
}

# pprof's header in go tool pprof -top: "File:" the program profiled,
# though its hottest frames are the kernel's; the comment says which
# process; the whole system has no one program: no "File:".
t_pprof_header() {
	start $W/syscalls 30
	sleep 0.3
	$PROFILE -q -F 199 -p "$LAST" -o "$TMP/one.pb.gz" 2 || fail "-p: exit $?" || return 1
	kill "$LAST"
	go tool pprof -top "$TMP/one.pb.gz" > "$TMP/one.top" 2>&1 || fail "go tool pprof: $(cat "$TMP/one.top")" || return 1
	head -1 "$TMP/one.top" | grep -qx 'File: syscalls' || fail "-p: $(head -1 "$TMP/one.top")" || return 1
	grep -q "^profile -F 199 of PID $LAST, user + kernel stacks on " "$TMP/one.top" ||
		fail "-p: no comment naming the process: $(head -3 "$TMP/one.top")" || return 1
	$PROFILE -q -F 49 -o "$TMP/all.pb.gz" 1 || fail "whole system: exit $?" || return 1
	go tool pprof -top "$TMP/all.pb.gz" > "$TMP/all.top" 2>&1 || fail "go tool pprof: $(cat "$TMP/all.top")" || return 1
	! grep -q '^File:' "$TMP/all.top" || fail "whole system: $(grep '^File:' "$TMP/all.top")" || return 1
	grep -q '^profile -F 49 of all threads, ' "$TMP/all.top" || fail "whole system: $(head -3 "$TMP/all.top")" || return 1
}

# The SVG flame graph renders in a real browser: headless Chromium's
# screenshot is mostly coloured frames, and its DOM has the hot functions.
chromium_headless() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMP/chromium" "$@" 2>/dev/null
}
t_svg_renders() {
	start $W/hotspots 30
	sleep 0.3
	$PROFILE -F 499 -p "$LAST" -o "$TMP/r.svg" 2 || fail "profile exited $?" || return 1
	kill "$LAST"
	if [ -n "${PROFILE_SANITIZED:-}" ]; then
		# the sanitized tool writes the bytes the normal pass rendered
		grep -q hot_a "$TMP/r.svg" || fail "no hot_a in the SVG" || return 1
		echo "  rendering checked in the normal pass"
		return 0
	fi
	chromium_headless --screenshot="$TMP/r.png" --window-size=1200,300 "file://$TMP/r.svg" > /dev/null
	[ -s "$TMP/r.png" ] || fail "no screenshot" || return 1
	ink=$(python3 tests/integration/tools/png_ink.py "$TMP/r.png")
	echo "  $ink% of the screenshot is frames"
	awk -v i="$ink" 'BEGIN { exit !(i > 5) }' || fail "screenshot nearly blank" || return 1
	chromium_headless --dump-dom "file://$TMP/r.svg" > "$TMP/r.dom"
	for h in hot_a hot_b hot_c; do
		grep -q "$h" "$TMP/r.dom" || fail "$h not in the rendered DOM" || return 1
	done
}

# speedscope's own app, pinned, fetched from npm by this test alone (the
# tool's build needs no network) and kept in the build tree for the next run
SPEEDSCOPE_VERSION=1.25.0
SPEEDSCOPE_DIR=build/speedscope-$SPEEDSCOPE_VERSION
SPEEDSCOPE_PKG=$SPEEDSCOPE_DIR/node_modules/speedscope

# speedscope_fetch: npm install it unless there; npm's errors on stdout.
# One retry, a few seconds apart: a registry out of reach fails in seconds,
# not npm's minute and more.
speedscope_fetch() {
	[ "$(jq -r .version "$SPEEDSCOPE_PKG/package.json" 2>/dev/null)" = "$SPEEDSCOPE_VERSION" ] && return 0
	command -v npm > /dev/null || { echo "npm not installed (sh scripts/deps.sh test)"; return 1; }
	rm -rf "$SPEEDSCOPE_DIR.new" && mkdir -p "$SPEEDSCOPE_DIR.new" || return 1
	npm install --prefix "$SPEEDSCOPE_DIR.new" --no-save --no-package-lock --ignore-scripts \
		--no-audit --no-fund --loglevel=error --fetch-retries=1 \
		--fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
		"speedscope@$SPEEDSCOPE_VERSION" 2>&1 || { rm -rf "$SPEEDSCOPE_DIR.new"; return 1; }
	rm -rf "$SPEEDSCOPE_DIR" && mv "$SPEEDSCOPE_DIR.new" "$SPEEDSCOPE_DIR"
}

# speedscope_row_weight NAME ROWS: the Total column of NAME's row in the
# Sandwich table, in ns, and its percentage ("585.17ms (29%)" -> 585170000
# 29); a minute and more is shown M:SS
speedscope_row_weight() {
	awk -v name="$1" '$NF == name {
		v = $1; unit = v; sub(/^[0-9.:]+/, "", unit)
		f = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "\302\265s" ? 1e3 : unit == "ns" ? 1 : -1
		if (v ~ /^[0-9]+:[0-9][0-9]$/) {
			split(v, ms, ":"); v = ms[1] * 60 + ms[2]; f = 1e9
		}
		pct = $2; gsub(/[()%]/, "", pct)
		if (f > 0 && pct ~ /^[0-9.]+$/)
			printf "%.0f %s\n", v * f, pct
		exit }' "$2"
}

# The speedscope JSON opens in the speedscope app, in headless Chromium, as
# the app's CLI opens it: index.html#localProfilePath=SCRIPT, the script
# handing the file to speedscope.loadFileFromBase64. It shows the Sandwich
# view, a DOM table (the flame charts are a canvas), where hot_a/hot_b/hot_c
# each have a row with the weight the JSON gives them, in ns, and shares of
# 50/30/20 within 5 points.
t_speedscope_renders() {
	if [ -n "${PROFILE_SANITIZED:-}" ]; then
		# the JSON the sanitized tool writes is checked by t_output_formats
		echo "  rendering checked in the normal pass"
		return 0
	fi
	speedscope_fetch > "$TMP/npm.log" &
	fetch=$!
	start $W/hotspots 30
	sleep 0.3
	$PROFILE -F 999 -p "$LAST" -o "$TMP/s.json" 2 || fail "profile exited $?" || return 1
	kill "$LAST"
	wait "$fetch" || fail "cannot fetch speedscope@$SPEEDSCOPE_VERSION from npm ($(npm config get registry 2>/dev/null)):" \
		"$(grep -v '^npm error  *at ' "$TMP/npm.log" | head -4 | sed 's/^npm error //' | tr '\n' ' ')" || return 1
	# Two things for the headless browser around the CLI's one line: an
	# alert() (speedscope's "Unrecognized format!") would hang it, so it
	# goes into the title; the table sizes itself in a requestAnimationFrame,
	# which may not run before the page is dumped (then it has no rows), and
	# on a resize event too, which a timer sends in virtual time.
	{
		echo 'window.alert = function (m) { document.title = "alert: " + m; };'
		printf 'speedscope.loadFileFromBase64("s.json", "%s");\n' "$(base64 -w0 "$TMP/s.json")"
		echo 'setInterval(function () { window.dispatchEvent(new Event("resize")); }, 250);'
	} > "$TMP/s.js"
	# WebGL in software: without a GL canvas speedscope loads nothing
	chromium_headless --enable-unsafe-swiftshader --window-size=1200,800 --virtual-time-budget=5000 \
		--dump-dom "file://$PWD/$SPEEDSCOPE_PKG/dist/release/index.html#localProfilePath=$TMP/s.js&view=sandwich" \
		> "$TMP/s.dom"
	# one line per table row, one per tag's text
	sed -e 's,</tr>,\n,g' -e 's/<[^>]*>/ /g' "$TMP/s.dom" | awk 'NF' > "$TMP/s.rows"
	title=$(sed -n 's,.*<title>\(.*\)</title>.*,\1,p' "$TMP/s.dom")
	name=$(jq -r .name "$TMP/s.json" 2> /dev/null)
	[ "$title" = "$name - speedscope" ] ||
		fail "speedscope did not load the profile: title '$title'; page: $(tr -s ' \n' ' ' < "$TMP/s.rows" | cut -c1-300)" ||
		return 1
	# the file cannot open another view than Time Order: its title says which to use
	case $title in
	*'[counted samples, not a timeline: view Left Heavy (key 2) or Sandwich (key 3)] - speedscope') ;;
	*) fail "the page's title names no view for counted samples: '$title'"; return 1 ;;
	esac
	: > "$TMP/s.weights"
	for h in hot_a hot_b hot_c; do
		rows=$(awk -v h="$h" '$NF == h' "$TMP/s.rows" | wc -l)
		[ "$rows" -eq 1 ] ||
			fail "$rows rows for $h in the Sandwich table: $(tr -s ' \n' ' ' < "$TMP/s.rows" | cut -c1-500)" ||
			return 1
		got=$(speedscope_row_weight "$h" "$TMP/s.rows")
		[ -n "$got" ] || fail "$h's weight unreadable: $(awk -v h="$h" '$NF == h' "$TMP/s.rows")" || return 1
		# what the JSON says: the weights of the samples with $h in them
		want=$(jq --arg n "$h" '(.shared.frames | map(.name) | index($n)) as $i |
			[.profiles[0] | . as $p | range($p.samples | length) |
			 select(any($p.samples[.][]; . == $i)) | $p.weights[.]] | add' "$TMP/s.json")
		echo "$h $got $want" >> "$TMP/s.weights"
	done
	# name, shown weight (ns), shown percentage of the profile, JSON weight
	awk '{ name[NR] = $1; got[NR] = $2; pct[NR] = $3; want[NR] = $4; t += $2; p += $3 }
	END {
		for (i = 1; i <= NR; i++) {
			printf "  %s: %.0f ns (%s%%), the JSON has %.0f\n", name[i], got[i], pct[i], want[i]
			# shown rounded to 3 to 5 digits
			if (got[i] < want[i] * 0.99 || got[i] > want[i] * 1.01)
				bad = 1
		}
		if (bad || t == 0)
			exit 1
		sa = 100 * got[1] / t; sb = 100 * got[2] / t; sc = 100 * got[3] / t
		printf "  shares %.1f/%.1f/%.1f (want 50/30/20 +-5), %s%% of the profile\n", sa, sb, sc, p
		exit 2 * !(sa > 45 && sa < 55 && sb > 25 && sb < 35 && sc > 15 && sc < 25 && p >= 90 && p <= 102)
	}' "$TMP/s.weights"
	case $? in
	0) ;;
	1) fail "speedscope shows weights the JSON does not have" || return 1 ;;
	*) fail "shares off in speedscope" || return 1 ;;
	esac
}

# A write that fails (full file system) is an error and leaves the previous
# file as it was; no temporary file is left behind.
t_output_atomic() {
	mkdir -p "$TMP/full"
	mount -t tmpfs -o size=64k tmpfs "$TMP/full" || fail "cannot mount a tmpfs" || return 1
	echo "previous profile 1" > "$TMP/full/p.folded"
	dd if=/dev/zero of="$TMP/full/filler" bs=4k count=100 2>/dev/null
	$PROFILE -F 999 -I -o "$TMP/full/p.folded" 1 2> "$TMP/full.err"
	rc=$?
	content=$(cat "$TMP/full/p.folded")
	left=$(ls "$TMP/full" | grep -cv '^filler$\|^p.folded$')
	umount "$TMP/full"
	[ "$rc" -ne 0 ] || fail "exit 0 on a full disk" || return 1
	[ "$(wc -l < "$TMP/full.err")" -eq 1 ] || fail "stderr: $(cat "$TMP/full.err")" || return 1
	grep -q "p.folded" "$TMP/full.err" || fail "error does not name the file: $(cat "$TMP/full.err")" || return 1
	[ "$content" = "previous profile 1" ] || fail "previous file changed" || return 1
	[ "$left" -eq 0 ] || fail "temporary file left behind" || return 1
}

# -o to a device or to /dev/stdout writes to it in place: the device node
# and the symlink stay what they were. (Should either be replaced, it is put
# back for the rest of the machine, and the test fails.)
t_output_dev_null() {
	$PROFILE -F 499 -I -f -o /dev/null 1 2> "$TMP/null.err"
	rc=$?
	if [ ! -c /dev/null ]; then
		was=$(ls -l /dev/null)
		rm -f /dev/null && mknod -m 666 /dev/null c 1 3
		fail "/dev/null replaced: $was" || return 1
	fi
	[ "$rc" -eq 0 ] || fail "exit $rc: $(cat "$TMP/null.err")" || return 1
}
t_output_dev_stdout() {
	start $W/hotspots 30
	sleep 0.3
	{ $PROFILE -F 499 -f -p "$LAST" -o /dev/stdout 1 2> "$TMP/stdout.err"; echo $? > "$TMP/stdout.rc"; } |
		cat > "$TMP/stdout.folded"
	kill "$LAST"
	if [ ! -L /dev/stdout ]; then
		was=$(ls -l /dev/stdout)
		rm -f /dev/stdout && ln -s /proc/self/fd/1 /dev/stdout
		fail "/dev/stdout replaced: $was" || return 1
	fi
	[ "$(cat "$TMP/stdout.rc")" -eq 0 ] ||
		fail "exit $(cat "$TMP/stdout.rc"): $(cat "$TMP/stdout.err")" || return 1
	grep -q '^hotspots;.*;hot_a [0-9]*$' "$TMP/stdout.folded" || fail "no profile on stdout" || return 1
}

# -o into a missing directory, or through another user's symlink to a
# directory of root's, is refused before anything is sampled: exit 2 at
# once, not after the 30 seconds asked for; nothing is written.
refused_at_once() {
	t0=$(date +%s%N)
	expect_usage_error "$@"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "  refused after $ms ms"
	[ "$rc" -eq 0 ] || return 1
	[ "$ms" -lt 3000 ] || fail "refused after $ms ms: sampled first" || return 1
}
t_output_missing_dir() {
	refused_at_once "'$TMP/missing': No such file or directory" -F 99 -o "$TMP/missing/p.folded" 30
}
t_output_untrusted_link() {
	mkdir "$TMP/rootdir" && ln -s "$TMP/rootdir" "$TMP/theirs" && chown -h 65534 "$TMP/theirs" ||
		fail "cannot make the symlink" || return 1
	refused_at_once "'$TMP/theirs' is a symlink owned by uid 65534, not followed" \
		-F 99 -i 1 -o "$TMP/theirs/p-%H%M%S.folded" 3
	rc=$?
	[ -z "$(ls -A "$TMP/rootdir")" ] || fail "written through the link: $(ls -A "$TMP/rootdir")" || return 1
	return $rc
}

# -q: nothing on stderr but errors; strftime patterns in -o give one file
# per interval.
t_quiet_interval_files() {
	start $W/hotspots 30
	sleep 0.3
	$PROFILE -q -F 199 -p "$LAST" -i 1 -o "$TMP/snap-%H%M%S.folded" 3 2> "$TMP/q.err" ||
		fail "exit $?" || return 1
	kill "$LAST"
	[ ! -s "$TMP/q.err" ] || fail "stderr under -q: $(cat "$TMP/q.err")" || return 1
	n=$(ls "$TMP"/snap-*.folded | wc -l)
	[ "$n" -eq 3 ] || fail "$n files, want 3" || return 1
}

# Bad input: one line on stderr, exit 2, nothing loaded.
expect_usage_error() {
	want=$1
	shift
	$PROFILE "$@" > "$TMP/bad.out" 2> "$TMP/bad.err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "'$*': exit $rc, want 2" || return 1
	[ "$(wc -l < "$TMP/bad.err")" -eq 1 ] || fail "'$*': stderr not one line: $(cat "$TMP/bad.err")" || return 1
	grep -q -- "$want" "$TMP/bad.err" || fail "'$*': '$(cat "$TMP/bad.err")' lacks '$want'" || return 1
	[ ! -s "$TMP/bad.out" ] || fail "'$*': wrote to stdout" || return 1
}
t_bad_input() {
	gone=$(sh -c 'echo $$')	# a pid that just exited
	expect_usage_error conflict -U -K 1 &&
	expect_usage_error conflict -F 99 -c 1000000 1 &&
	expect_usage_error "frequency '100000' out of range" -F 100000 1 &&
	expect_usage_error "count '1' out of range" -c 1 1 &&
	expect_usage_error "MiB of kernel memory" --stack-storage-size 4000000 1 &&
	expect_usage_error "pid $gone does not exist" -p "$gone" 1 &&
	expect_usage_error "cpu 4096" -C 4096 1 &&
	expect_usage_error duration 0 &&
	expect_usage_error "invalid duration '12abc'" 12abc &&
	expect_usage_error "invalid frequency" -F 9x9 &&
	expect_usage_error "unknown option '--bogus'" --bogus &&
	expect_usage_error "requires an argument" -p &&
	expect_usage_error "perf_event_max_stack" --call-graph fp --perf-max-stack-depth 1000 1 &&
	expect_usage_error "names one file for more than one interval" -i 1 -o "$TMP/same.folded" 2 &&
	expect_usage_error "out of range" --perf-max-stack-depth 60000 1 &&
	expect_usage_error "unknown event 'bogus'" -e bogus 1
}

# On a terminal, a status line once a second while sampling, erased
# before the profile; none into a file or pipe, with -q, or with folded
# output on the same terminal. script(1) gives the run a terminal.
t_progress_on_a_terminal() {
	start $W/hotspots 30
	pid=$LAST
	sleep 0.3
	script -eqc "$PROFILE -F 99 -p $pid 3 > $TMP/tty.out" "$TMP/tty.log" > /dev/null ||
		fail "profile on a terminal exited $?" || return 1
	lines=$(tr '\r' '\n' < "$TMP/tty.log" | grep -Ec '^.\[Kprofile: [0-9] of 3 s, [0-9]+ samples, 1 process$')
	last=$(tr '\r' '\n' < "$TMP/tty.log" | grep -Eo 'profile: 2 of 3 s, [0-9]+ samples' | grep -Eo '[0-9]+ samples')
	echo "  $lines status lines on the terminal, the last at $last"
	[ "$lines" -ge 2 ] || fail "no status line: $(cat -v "$TMP/tty.log" | head -3)" || return 1
	[ "${last% samples}" -gt 100 ] || fail "the samples did not add up: $last" || return 1
	# erased: what follows the last status line starts with the erase sequence
	tr '\r' '\n' < "$TMP/tty.log" > "$TMP/tty.lines"
	n=$(grep -n ' samples, 1 process' "$TMP/tty.lines" | tail -1 | cut -d: -f1)
	sed -n "$((n + 1))p" "$TMP/tty.lines" | grep -q "^$(printf '\033')\\[K" ||
		fail "the status line was not erased: $(sed -n "$((n + 1))p" "$TMP/tty.lines" | cat -v)" || return 1
	grep -q "$(printf '\033')" "$TMP/tty.out" && fail "escape sequences in the profile" && return 1
	grep -q 'hot_a' "$TMP/tty.out" || fail "no profile on stdout" || return 1
	# not into a file, nor with -q, nor with folded output on the terminal (at once)
	$PROFILE -F 99 -p "$pid" 2 > /dev/null 2> "$TMP/file.err" &
	a=$!
	script -qc "$PROFILE -q -F 99 -p $pid 2 > /dev/null" "$TMP/q.log" > /dev/null &
	b=$!
	script -qc "$PROFILE -f -F 99 -p $pid 2" "$TMP/f.log" > /dev/null
	wait $a $b
	kill "$pid"
	for f in file.err q.log f.log; do
		grep -q ' samples, 1 process' "$TMP/$f" && fail "a status line in $f" && return 1
	done
	return 0
}

# --keep 2 with one file per interval: the two newest of the pattern's
# files stay, an older one of an earlier run goes; a name the pattern could
# not write, a symlink, another user's file and bad patterns are left alone.
t_keep() {
	d=$TMP/keep
	mkdir -p "$d"
	touch -d 2020-01-01 "$d/2020-01-01_000000.folded"
	touch -d 2020-01-01 "$d/2020-01-01_00000.folded" "$d/notes.txt"
	ln -s /etc/passwd "$d/2019-01-01_000000.folded"
	touch -d 2018-01-01 "$d/2018-01-01_000000.folded"
	chown 65534 "$d/2018-01-01_000000.folded"
	$PROFILE -q -F 49 -i 1 -o "$d/%F_%H%M%S.folded" --keep 2 3 2> "$TMP/keep.err" ||
		fail "profile exited $?: $(cat "$TMP/keep.err")" || return 1
	new=$(ls "$d" | grep -c '^20[2-9][0-9]-.*_[0-9]\{6\}\.folded$')
	echo "  left: $(ls "$d" | tr '\n' ' ')"
	[ "$new" -eq 2 ] || fail "$new files of the pattern kept, want 2" || return 1
	[ ! -e "$d/2020-01-01_000000.folded" ] || fail "the oldest file stayed" || return 1
	for f in 2020-01-01_00000.folded notes.txt 2019-01-01_000000.folded 2018-01-01_000000.folded; do
		[ -e "$d/$f" ] || [ -L "$d/$f" ] || fail "$f was removed" || return 1
	done
	[ -s /etc/passwd ] || fail "the symlink's target was touched" || return 1
	expect_usage_error "--keep needs -o FILE with strftime patterns" --keep 2 1 &&
		expect_usage_error "not the directory" -o "$d/%F/p.folded" --keep 2 1
}

# A user who owns a component of -o's directory swaps it for a symlink to
# another directory right after the profile is written (tools/swap_dir.c,
# at the directory's fsync): --keep removes old files where the profile
# went, as -o checked the path, never in the link's target.
t_keep_swapped_dir() {
	d=$TMP/keepswap
	mkdir -p "$d/out" "$d/victim"
	cc -O1 -fPIC -shared tests/integration/tools/swap_dir.c -o "$TMP/swap_dir.so" -ldl ||
		return 1
	touch -d 2020-01-01 "$d/out/1577836800.folded"
	touch -d 2020-01-01 "$d/victim/1577836800.folded"
	touch -d 2020-01-02 "$d/victim/1577923200.folded"
	SWAP_DIR=$d/out SWAP_TO=$d/victim LD_PRELOAD="$TMP/swap_dir.so" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		$PROFILE -q -F 49 -o "$d/out/%s.folded" --keep 1 1 2> "$TMP/keepswap.err" ||
		fail "profile exited $?: $(cat "$TMP/keepswap.err")" || return 1
	[ -L "$d/out" ] && [ -d "$d/out.moved" ] || fail "the directory was not swapped: $(cat "$TMP/keepswap.err")" ||
		return 1
	echo "  left where the profile went: $(ls "$d/out.moved" | tr '\n' ' '); in the link's target: $(ls "$d/victim" | tr '\n' ' ')"
	[ -e "$d/victim/1577836800.folded" ] && [ -e "$d/victim/1577923200.folded" ] ||
		fail "--keep removed files in the symlink's target" || return 1
	[ ! -e "$d/out.moved/1577836800.folded" ] || fail "the old file where the profile went stayed" ||
		return 1
	[ "$(ls "$d/out.moved" | grep -c '^[0-9]*\.folded$')" -eq 1 ] ||
		fail "want the new profile alone in $d/out.moved: $(ls "$d/out.moved")"
}

t_help_and_version() {
	$PROFILE --help | grep -q -- '--stack-storage-size' || fail "--help" || return 1
	$PROFILE --version | grep -Eq '^profile [0-9]' || fail "--version" || return 1
}

# profile(8) as man renders it: FILES and ENVIRONMENT name what the tool
# and its service read and write, the service has its example, and every
# option --help lists is described. (package.sh finds it installed.)
t_man_page() {
	MANWIDTH=200 man -l profile.8 > "$TMP/man.txt" 2> "$TMP/man.err" || fail "man -l: $(cat "$TMP/man.err")" || return 1
	for s in FILES ENVIRONMENT 'FRAMES WITHOUT NAMES' '   Snapshots as a service'; do
		grep -q "^$s\$" "$TMP/man.txt" || fail "no section '$s'" || return 1
	done
	sed -n '/^FILES$/,/^[A-Z]/p' "$TMP/man.txt" > "$TMP/files.txt"
	for f in /etc/default/profile profile-snapshot.service profile-snapshot.timer /var/lib/profile \
		/var/cache/profile/unwind /var/cache/profile/debuginfod /usr/lib/debug /usr/share/doc/profile; do
		grep -qF -- "$f" "$TMP/files.txt" || fail "FILES lacks $f" || return 1
	done
	sed -n '/^ENVIRONMENT$/,/^[A-Z]/p' "$TMP/man.txt" > "$TMP/env.txt"
	for v in DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH PATH; do
		grep -qw -- "$v" "$TMP/env.txt" || fail "ENVIRONMENT lacks $v" || return 1
	done
	grep -q 'systemctl enable --now profile-snapshot.timer' "$TMP/man.txt" || fail "no service example" || return 1
	for o in $($PROFILE --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$o" "$TMP/man.txt" || fail "profile(8) does not describe $o" || return 1
	done
}

# Not privileged: one line naming what is missing, exit 1.
t_unprivileged() {
	command -v setpriv > /dev/null || fail "setpriv missing" || return 1
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		$PROFILE -F 49 1 > /dev/null 2> "$TMP/priv.err"
	rc=$?
	[ "$rc" -eq 1 ] || fail "exit $rc, want 1" || return 1
	[ "$(wc -l < "$TMP/priv.err")" -eq 1 ] || fail "stderr: $(cat "$TMP/priv.err")" || return 1
	grep -Eq 'root|CAP_' "$TMP/priv.err" || fail "'$(cat "$TMP/priv.err")' names no privilege" || return 1
}

# -e: cpu-clock by default, PMU or not; cycles only when asked for, and
# then on every CPU or not at all (one line, exit 1 where there is no PMU).
t_event() {
	$PROFILE -v -F 49 1 > /dev/null 2> "$TMP/ev.err" || fail "default: exit $?" || return 1
	grep -q '^profile: event cpu-clock,' "$TMP/ev.err" ||
		fail "default event: $(grep 'event' "$TMP/ev.err")" || return 1
	$PROFILE -v -e cycles -F 49 1 > "$TMP/cyc.out" 2> "$TMP/cyc.all"
	rc=$?
	# -v: libbpf's own log, what verifying the program took, the maps' sizes
	grep -v -e '^libbpf: ' -e ' instructions verified; loaded in ' -e '^profile: BPF maps: ' \
		"$TMP/cyc.all" > "$TMP/cyc.err"
	if [ "$rc" -eq 0 ]; then
		grep -q '^profile: event cycles,' "$TMP/cyc.err" ||
			fail "-e cycles ran as: $(grep 'event' "$TMP/cyc.err")" || return 1
		return 0
	fi
	[ "$rc" -eq 1 ] || fail "-e cycles: exit $rc, want 0 or 1" || return 1
	[ "$(wc -l < "$TMP/cyc.err")" -eq 1 ] || fail "-e cycles: stderr: $(cat "$TMP/cyc.err")" || return 1
	grep -q 'cannot open cycles event on cpu [0-9]*: .*PMU' "$TMP/cyc.err" ||
		fail "-e cycles: '$(cat "$TMP/cyc.err")'" || return 1
	[ ! -s "$TMP/cyc.out" ] || fail "-e cycles failed but printed a profile" || return 1
}

# The whole system: profile's own samples are left out and counted (-v),
# --include-self keeps them (its worker threads build unwind tables then).
# Other profile runs on the machine are not ours: the block is ours by pid.
t_self_left_out() {
	$PROFILE -v -F 999 2 > "$TMP/self.txt" 2> "$TMP/self.err" &
	pid=$!
	wait $pid || fail "exit $?" || return 1
	! grep -q "^    -  *profile ($pid)\$" "$TMP/self.txt" || fail "profile's own stacks printed" || return 1
	n=$(sed -n 's/.* dropped, \([0-9]*\) of profile itself left out.*/\1/p' "$TMP/self.err")
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail "left out: '$n': $(grep 'samples,' "$TMP/self.err")" || return 1
	$PROFILE -v --include-self -F 999 2 > "$TMP/self2.txt" 2> "$TMP/self2.err" &
	pid=$!
	wait $pid || fail "--include-self: exit $?" || return 1
	grep -q "^    -  *profile ($pid)\$" "$TMP/self2.txt" || fail "--include-self: no stack of profile ($pid)" || return 1
	grep -q ' dropped, 0 of profile itself left out' "$TMP/self2.err" ||
		fail "--include-self: $(grep 'samples,' "$TMP/self2.err")" || return 1
}

# -v: our own statistics, a few lines, not libbpf's debug log (hundreds
# of lines a load); -vv adds that.
t_verbose_levels() {
	$PROFILE -v -U -F 49 1 > /dev/null 2> "$TMP/v1.err" || fail "-v: exit $?" || return 1
	$PROFILE -vv -U -F 49 1 > /dev/null 2> "$TMP/v2.err" || fail "-vv: exit $?" || return 1
	n1=$(grep -c '^libbpf: ' "$TMP/v1.err")
	n2=$(grep -c '^libbpf: ' "$TMP/v2.err")
	grep -q '^profile: event cpu-clock,' "$TMP/v1.err" || fail "-v: no statistics" || return 1
	[ "$n1" -le 10 ] || fail "-v: $n1 lines of libbpf's: $(grep '^libbpf: ' "$TMP/v1.err" | head -3)" || return 1
	[ "$n2" -ge 100 ] || fail "-vv: only $n2 lines of libbpf's" || return 1
}

run_test "5:3:2 ratio and main->run_round->hot_X order" t_ratio_and_stack_order
run_test "user leaf frame exact" t_user_leaf_exact
run_test "garbage frame chain cut at the first unmapped address" t_garbage_frames_cut
run_test "-K shows kernel stacks only" t_kernel_only
run_test "-U shows user stacks only" t_user_only
run_test "default format, header, -d" t_default_format
run_test "-a annotations" t_annotations
run_test "-p list and -L tid" t_pid_list_and_tid
run_test "-C cpu filter" t_cpu_filter
run_test "SIGINT prints the profile" t_sigint
run_test "SIGTERM prints the profile" t_sigterm
run_test "SIGHUP prints the profile" t_sighup
run_test "target exit stops and prints" t_target_exits
run_test "closed pipe is quiet" t_closed_pipe
run_test "closed pipe between intervals: exit 0" t_closed_pipe_intervals
run_test "losses reported with the fixing option" t_losses_reported
run_test "tiny stack map: overflow map keeps every stack" t_stack_map_overflow
run_test "a short run's maps sized by what it can sample; sizes given kept" t_maps_sized_by_need
run_test "the kernel image's symbols kept for the boot, read back" t_kallsyms_cached_for_the_boot
run_test "short-lived processes keep their symbols" t_short_lived
run_test "-i interval snapshots add up" t_interval
run_test "-o in every format loads in its client" t_output_formats
run_test "--from folded and pprof: every format in its client, merged inputs sum" t_from_inputs
run_test "pprof: File: the program, comment: the process" t_pprof_header
run_shipped_test "SVG flame graph renders in Chromium" t_svg_renders
run_shipped_test "speedscope JSON opens in the speedscope app: hot functions and weights" t_speedscope_renders
run_test "-o on a full disk keeps the previous file" t_output_atomic
run_test "-o /dev/null: still a device, exit 0" t_output_dev_null
run_test "-o /dev/stdout: the profile on stdout, still a symlink" t_output_dev_stdout
run_test "-o into a missing directory: exit 2 at once" t_output_missing_dir
run_test "-o through another user's symlink: exit 2 at once, nothing written" t_output_untrusted_link
run_test "-q and one file per interval" t_quiet_interval_files
run_test "bad input: one line, exit 2" t_bad_input
run_test "a status line on a terminal, none elsewhere" t_progress_on_a_terminal
run_test "--keep: the newest of the pattern's files stay, nothing else goes" t_keep
run_test "--keep: a directory swapped for a symlink after the write: nothing goes there" t_keep_swapped_dir
run_test "--help and --version" t_help_and_version
run_test "profile(8): FILES, ENVIRONMENT, the service's example, every option" t_man_page
run_test "unprivileged: one line, exit 1" t_unprivileged
run_test "-e: cpu-clock by default, cycles on request or one line" t_event
run_test "-v: our statistics; -vv: libbpf's debug log too" t_verbose_levels
run_test "the whole system but profile itself, unless --include-self" t_self_left_out

finish
