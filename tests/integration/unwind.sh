#!/bin/sh
# unwind.sh - whole user stacks of code built without frame pointers, as
# Debian builds its archive: walked in BPF with unwind tables made from
# .eh_frame (--call-graph dwarf, the default). Root needed; prints
# "unwind: N passed, N failed" last.
set -u

SUITE=unwind
. "$(dirname "$0")/lib.sh"

# both_walks PID TAG HZ: PID's user stacks for 2 s with the tables
# ($TMP/TAG.folded, -v on $TMP/TAG.err), then 1 s by frame pointers
# ($TMP/TAG.fp.folded); PID is killed after.
both_walks() {
	$PROFILE -U -F "$3" -f -v -p "$1" 2 > "$TMP/$2.folded" 2> "$TMP/$2.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/$2.err")" || return 1
	$PROFILE -U -F "$3" -f --call-graph fp -p "$1" 1 > "$TMP/$2.fp.folded" 2> "$TMP/$2.fp.err" ||
		fail "profile --call-graph fp exited $?: $(tail -2 "$TMP/$2.fp.err")" || return 1
	kill "$1"
}

# The 5:3:2 program, gcc -O2 without frame pointers: nearly every sample
# walks up to _start, hot_a/b/c keep their shares; the frame-pointer walk
# of the same process does not get there (the fixture really is frameless).
t_whole_stacks_without_frame_pointers() {
	start $W/hotspots_nofp 30
	sleep 0.3
	both_walks "$LAST" nofp 999 || return 1
	all=$(sum_matching '^hotspots_nofp;' "$TMP/nofp.folded")
	whole=$(sum_matching '^hotspots_nofp;_start;.*;main;run_round;hot_[abc] [0-9]+$' "$TMP/nofp.folded")
	a=$(sum_matching ';run_round;hot_a [0-9]+$' "$TMP/nofp.folded")
	b=$(sum_matching ';run_round;hot_b [0-9]+$' "$TMP/nofp.folded")
	c=$(sum_matching ';run_round;hot_c [0-9]+$' "$TMP/nofp.folded")
	echo "  $whole of $all samples from _start to hot_X; hot_a=$a hot_b=$b hot_c=$c"
	grep 'unwind tables' "$TMP/nofp.err" | sed 's/^/  /'
	[ "$all" -gt 1000 ] || fail "only $all samples" || return 1
	[ "$(pct "$whole" "$all")" -ge 95 ] || fail "stacks not whole: $(sort -t' ' -k2 -rn "$TMP/nofp.folded" | head -3)" || return 1
	sa=$(pct "$a" "$whole") sb=$(pct "$b" "$whole") sc=$(pct "$c" "$whole")
	# +-8: gcc -O2 compiles the three loops apart (run.sh checks +-5 on clang's)
	[ "$sa" -ge 42 ] && [ "$sa" -le 58 ] && [ "$sb" -ge 22 ] && [ "$sb" -le 38 ] &&
		[ "$sc" -ge 12 ] && [ "$sc" -le 28 ] || fail "shares $sa/$sb/$sc, want 50/30/20" || return 1
	fp_all=$(sum_matching '^hotspots_nofp;' "$TMP/nofp.fp.folded")
	fp_whole=$(sum_matching '^hotspots_nofp;_start;.*;main;run_round;hot_[abc] [0-9]+$' "$TMP/nofp.fp.folded")
	echo "  frame pointers: $fp_whole of $fp_all"
	[ "$fp_all" -gt 300 ] && [ "$(pct "$fp_whole" "$fp_all")" -lt 50 ] ||
		fail "the frame-pointer walk got $fp_whole of $fp_all: not a frameless workload" || return 1
}

# System-wide, a process started after the profiler gets its tables when
# first sampled: its first samples are walked by frame pointers (counted
# under -v), the rest whole.
t_tables_at_first_sight() {
	$PROFILE -U -F 499 -f -v 5 > "$TMP/sw.folded" 2> "$TMP/sw.err" &
	prof=$!
	sleep 1.5
	$W/hotspots_nofp 2
	wait "$prof" || fail "profile exited $?: $(tail -2 "$TMP/sw.err")" || return 1
	all=$(sum_matching '^hotspots_nofp;' "$TMP/sw.folded")
	whole=$(sum_matching '^hotspots_nofp;_start;.*;main;run_round;hot_[abc] [0-9]+$' "$TMP/sw.folded")
	echo "  $whole of $all samples from _start to hot_X"
	grep 'unwind tables' "$TMP/sw.err" | sed 's/^/  /'
	[ "$all" -gt 400 ] || fail "only $all samples" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] || fail "stacks not whole" || return 1
	grep -Eq '[0-9]+ by frame pointers while their process had none yet' "$TMP/sw.err" ||
		fail "no count of stacks walked before the tables" || return 1
}

# Debian's own python3 (no frame pointers): its samples reach the
# thread's root through the interpreter. By frame pointers, almost none do.
t_debian_python() {
	start /usr/bin/python3 -c 'while True: pass'
	sleep 0.5
	both_walks "$LAST" py 499 || return 1
	root='^python3;_start;__libc_start_main[^;]*;__libc_start_call_main;Py_BytesMain;.*_PyEval_EvalFrameDefault'
	all=$(sum_matching '^python3;' "$TMP/py.folded")
	whole=$(sum_matching "$root" "$TMP/py.folded")
	fp_all=$(sum_matching '^python3;' "$TMP/py.fp.folded")
	fp_whole=$(sum_matching "$root" "$TMP/py.fp.folded")
	echo "  $whole of $all samples from _start through Py_BytesMain into the interpreter; by frame pointers $fp_whole of $fp_all"
	[ "$all" -gt 500 ] && [ "$fp_all" -gt 200 ] || fail "too few samples" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] || fail "python3 stacks stop short: $(sort -t' ' -k2 -rn "$TMP/py.folded" | head -2)" || return 1
	[ "$(pct "$fp_whole" "$fp_all")" -lt 10 ] || fail "frame pointers did as well: python3 has them?" || return 1
}

# A process that execs: the old image's tables are dropped at exec, and
# the new image's are loaded when it is sampled.
t_exec_loads_new_tables() {
	bash -c 'end=$((SECONDS + 2)); while [ $SECONDS -lt $end ]; do :; done; exec '"$W"'/hotspots_nofp 3' &
	pid=$!
	PIDS="$PIDS $pid"
	$PROFILE -U -F 499 -f -p "$pid" 6 > "$TMP/ex.folded" 2> "$TMP/ex.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/ex.err")" || return 1
	all=$(sum_matching '^hotspots_nofp;' "$TMP/ex.folded")
	whole=$(sum_matching '^hotspots_nofp;_start;.*;main;run_round;hot_[abc] [0-9]+$' "$TMP/ex.folded")
	bash=$(sum_matching '^bash;' "$TMP/ex.folded")
	broot=$(sum_matching '^bash;_start;' "$TMP/ex.folded")
	echo "  after exec: $whole of $all whole; bash before it: $broot of $bash from _start"
	[ "$all" -gt 500 ] && [ "$bash" -gt 300 ] || fail "too few samples" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] || fail "post-exec stacks not whole" || return 1
	[ "$(pct "$broot" "$bash")" -ge 90 ] || fail "bash stacks not whole" || return 1
}

# Tables of root's files are kept between runs: a second run builds none
# and its stacks are as whole; a damaged cache file is rebuilt, never
# trusted; a cache directory others can write is refused in one line.
t_cache_between_runs() {
	start /usr/bin/python3 -c 'while True: pass'
	pid=$LAST
	sleep 0.5
	for run in 1 2 3; do
		[ $run -eq 3 ] && for f in "$TMP"/cache/*.v[0-9]*; do
			# one byte in the middle of the rows
			printf 'X' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") / 2)) conv=notrunc 2>/dev/null
		done
		$PROFILE -U -F 499 -f -v --unwind-cache-dir "$TMP/cache" -p "$pid" 1 \
			> "$TMP/c$run.folded" 2> "$TMP/c$run.err" || fail "run $run: profile exited $?" || return 1
		line=$(grep 'process readings' "$TMP/c$run.err")
		built=$(echo "$line" | sed -E 's/.*; ([0-9]+) built .*/\1/')
		cached=$(echo "$line" | sed -E 's/.* ([0-9]+) from the cache.*/\1/')
		all=$(sum_matching '^python3;' "$TMP/c$run.folded")
		whole=$(sum_matching '^python3;_start;.*_PyEval_EvalFrameDefault' "$TMP/c$run.folded")
		echo "  run $run: $built built, $cached from the cache; $whole of $all samples whole"
		[ "$all" -gt 100 ] && [ "$(pct "$whole" "$all")" -ge 90 ] || fail "run $run: stacks not whole" || return 1
		case $run in
		1) [ "$built" -gt 0 ] || fail "nothing built" || return 1 ;;
		2) [ "$built" -eq 0 ] && [ "$cached" -gt 0 ] || fail "the cache was not used" || return 1 ;;
		3) [ "$built" -gt 0 ] || fail "damaged cache files were trusted" || return 1 ;;
		esac
	done
	chmod 777 "$TMP/cache"
	$PROFILE -U -F 199 -f --unwind-cache-dir "$TMP/cache" -p "$pid" 1 > /dev/null 2> "$TMP/c4.err" ||
		fail "profile exited $? with a refused cache" || return 1
	kill "$pid"
	grep -q "unwind cache '$TMP/cache': not root's alone" "$TMP/c4.err" ||
		fail "a cache others can write was not refused: $(cat "$TMP/c4.err")" || return 1
}

# The same stacks as the reference, `perf record --call-graph dwarf`
# (8 KiB of stack copied per sample, unwound afterwards), taken at once:
# the three hot stacks of the frameless workload, frame for frame from
# main down (perf's stop at __libc_start_call_main in some runs).
t_same_stacks_as_perf_dwarf() {
	start $W/hotspots_nofp 30
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 499 -f -p "$pid" 3 > "$TMP/pd.folded" 2> "$TMP/pd.err" &
	prof=$!
	perf record -q -a -F 499 --call-graph dwarf -o "$TMP/perf.data" -- sleep 2 2> "$TMP/perf.err" ||
		fail "perf record failed: $(tail -1 "$TMP/perf.err")" || return 1
	wait "$prof" || fail "profile exited $?: $(tail -2 "$TMP/pd.err")" || return 1
	kill "$pid"
	perf script -i "$TMP/perf.data" 2> /dev/null | awk -f bench/fold-perf.awk > "$TMP/perf.folded"
	# the three heaviest user-only stacks, from main down
	top3() {
		grep '^hotspots_nofp;' "$1" | grep -v '_\[k\]\|asm_\|entry_SYSCALL' |
			sed 's/^hotspots_nofp;.*;main;/main;/' |
			awk '{ n = $NF; sub(/ [0-9]+$/, ""); c[$0] += n } END { for (s in c) print c[s], s }' |
			sort -rn | head -3 | cut -d' ' -f2- | sort
	}
	top3 "$TMP/pd.folded" > "$TMP/ours.top"
	top3 "$TMP/perf.folded" > "$TMP/perf.top"
	sed 's/^/  ours: /' "$TMP/ours.top"
	[ "$(wc -l < "$TMP/perf.top")" -eq 3 ] || fail "perf's stacks: $(head -3 "$TMP/perf.folded")" || return 1
	cmp -s "$TMP/ours.top" "$TMP/perf.top" || fail "perf has: $(cat "$TMP/perf.top")" || return 1
}

# Two copies of one binary (a container each, a build tree): one table,
# the second copy shares its rows, both walked whole.
t_copies_share_rows() {
	cp $W/hotspots_nofp "$TMP/copy1"
	cp $W/hotspots_nofp "$TMP/copy2"
	start "$TMP/copy1" 30
	p1=$LAST
	start "$TMP/copy2" 30
	p2=$LAST
	sleep 0.3
	$PROFILE -U -F 199 -f -v --no-unwind-cache -p "$p1,$p2" 1 > "$TMP/cp.folded" 2> "$TMP/cp.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/cp.err")" || return 1
	kill "$p1" "$p2"
	grep 'process readings' "$TMP/cp.err" | sed 's/^/  /'
	grep -Eq ' [1-9][0-9]* copies sharing rows' "$TMP/cp.err" || fail "the copies did not share" || return 1
	for c in copy1 copy2; do
		all=$(sum_matching "^$c;" "$TMP/cp.folded")
		whole=$(sum_matching "^$c;_start;.*;main;run_round;hot_[abc] [0-9]+\$" "$TMP/cp.folded")
		[ "$all" -gt 50 ] && [ "$(pct "$whole" "$all")" -ge 90 ] || fail "$c: $whole of $all whole" || return 1
	done
}

# gcc 12 with -fno-omit-frame-pointer still leaves leaf functions
# frameless: a frame-pointer walk skips the leaf's caller (run_round);
# the tables keep it.
t_frameless_leaves() {
	start $W/hotspots_gccfp 30
	sleep 0.3
	both_walks "$LAST" gl 999 || return 1
	all=$(sum_matching '^hotspots_gccfp;' "$TMP/gl.folded")
	caller=$(sum_matching ';main;run_round;hot_[abc] [0-9]+$' "$TMP/gl.folded")
	fp_all=$(sum_matching '^hotspots_gccfp;' "$TMP/gl.fp.folded")
	fp_caller=$(sum_matching ';main;run_round;hot_[abc] [0-9]+$' "$TMP/gl.fp.folded")
	echo "  leaf's caller kept: $caller of $all; by frame pointers $fp_caller of $fp_all"
	[ "$all" -gt 1000 ] && [ "$fp_all" -gt 500 ] || fail "too few samples" || return 1
	[ "$(pct "$caller" "$all")" -ge 95 ] || fail "run_round missing: $(sort -t' ' -k2 -rn "$TMP/gl.folded" | head -2)" || return 1
	[ "$(pct "$fp_caller" "$fp_all")" -lt 50 ] ||
		fail "frame pointers kept run_round too: the leaves have frames" || return 1
}

# Debian's xz, two threads compressing (-6: 24 MiB blocks, so 60 MB make
# three): their stacks reach the threads' root (clone3, start_thread),
# through liblzma, which has no frame pointers.
t_debian_xz_threads() {
	head -c 60000000 /dev/urandom > "$TMP/rand"
	# sh execs xz: the same pid, its output thrown away
	start sh -c 'exec xz -6 -T2 -c "$1" > /dev/null' sh "$TMP/rand"
	pid=$LAST
	sleep 0.5
	$PROFILE -U -F 499 -f -p "$pid" 2 > "$TMP/xz.folded" 2> "$TMP/xz.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/xz.err")" || return 1
	kill "$pid"
	all=$(sum_matching '^xz;' "$TMP/xz.folded")
	threads=$(sum_matching '^xz;clone3;start_thread;' "$TMP/xz.folded")
	main=$(sum_matching '^xz;_start;__libc_start_main[^;]*;__libc_start_call_main;' "$TMP/xz.folded")
	echo "  $threads of $all samples from clone3;start_thread, $main from _start"
	[ "$all" -gt 500 ] || fail "only $all samples" || return 1
	[ "$(pct $((threads + main)) "$all")" -ge 90 ] || fail "xz stacks stop short: $(sort -t' ' -k2 -rn "$TMP/xz.folded" | head -2)" || return 1
	[ "$(pct "$threads" "$all")" -ge 50 ] || fail "the compressing threads did not reach start_thread" || return 1
}

# Code built without unwind tables has its rules in .debug_frame alone:
# stripped of it, its whole stacks come back once its debug file is found
# by build-id under --debug-dir, and stay cut without.
t_debug_frame() {
	cp $W/hotspots_debugframe "$TMP/hsdf.full"
	objcopy --only-keep-debug "$TMP/hsdf.full" "$TMP/hsdf.debug"
	objcopy --strip-debug "$TMP/hsdf.full" "$TMP/hsdf"
	id=$(readelf -n "$TMP/hsdf" | sed -n 's/.*Build ID: //p')
	[ -n "$id" ] || fail "no build-id" || return 1
	mkdir -p "$TMP/dbg/.build-id/${id%"${id#??}"}"
	cp "$TMP/hsdf.debug" "$TMP/dbg/.build-id/${id%"${id#??}"}/${id#??}.debug"
	start "$TMP/hsdf" 30
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 999 -f -v --unwind-cache-dir "$TMP/dfcache" --debug-dir "$TMP/dbg" -p "$pid" 2 \
		> "$TMP/df.folded" 2> "$TMP/df.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/df.err")" || return 1
	$PROFILE -U -F 999 -f -p "$pid" 1 > "$TMP/df.no.folded" 2> "$TMP/df.no.err" ||
		fail "profile without the debug file exited $?: $(tail -2 "$TMP/df.no.err")" || return 1
	kill "$pid"
	all=$(sum_matching '^hsdf;' "$TMP/df.folded")
	whole=$(sum_matching '^hsdf;_start;.*;main;run_round;hot_[abc] [0-9]+$' "$TMP/df.folded")
	no_all=$(sum_matching '^hsdf;' "$TMP/df.no.folded")
	no_whole=$(sum_matching '^hsdf;_start;.*;main;run_round;hot_[abc] [0-9]+$' "$TMP/df.no.folded")
	echo "  with the debug file $whole of $all samples from _start to hot_X; without $no_whole of $no_all"
	grep 'built in' "$TMP/df.err" | sed 's/^/  /'
	[ "$all" -gt 1000 ] && [ "$no_all" -gt 300 ] || fail "too few samples" || return 1
	[ "$(pct "$whole" "$all")" -ge 95 ] || fail "stacks not whole: $(sort -t' ' -k2 -rn "$TMP/df.folded" | head -3)" || return 1
	[ "$(pct "$no_whole" "$no_all")" -lt 50 ] || fail "whole without .debug_frame: not the workload meant" || return 1
	grep -Eq 'built in [0-9.]+ s \([1-9][0-9]* with rows of a \.debug_frame\)' "$TMP/df.err" ||
		fail "-v counts no table with .debug_frame rows" || return 1
}

# A signal handler's stack goes on through the signal frame (the
# trampoline, __restore_rt, in libc) into the code it interrupted, up to
# _start: sigburn's handler interrupts spin() every 10 ms of CPU.
t_signal_frame() {
	start $W/sigburn 30
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 999 -f -p "$pid" 2 > "$TMP/sig.folded" 2> "$TMP/sig.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/sig.err")" || return 1
	kill "$pid"
	handler=$(sum_matching ';on_prof;in_handler [0-9]+$' "$TMP/sig.folded")
	through=$(sum_matching '^sigburn;_start;.*;main;spin;[^;]+;on_prof;in_handler [0-9]+$' "$TMP/sig.folded")
	echo "  $through of $handler samples in the handler go on to main;spin and _start"
	[ "$handler" -gt 50 ] || fail "only $handler samples in the handler" || return 1
	[ "$(pct "$through" "$handler")" -ge 90 ] ||
		fail "the walk stopped at the signal frame: $(grep in_handler "$TMP/sig.folded" | sort -t' ' -k2 -rn | head -2)" || return 1
}

# dlclose() of a library and dlopen() of another at its address: the
# second one's stacks are walked with its own rows. Walked with the first
# one's (a frameless leaf), they read a return address of 0 from the
# second's frame of zeros and end at once, as if at the root.
t_dlopen_at_the_same_address() {
	start $W/dlswap "$PWD/$W/libswap_a.so" "$PWD/$W/libswap_b.so" 1000 4000
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 499 -f -v -p "$pid" 4 > "$TMP/sw.folded" 2> "$TMP/sw.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/sw.err")" || return 1
	b=$(sum_matching ';swap_spin;swap_spin_b( |;)' "$TMP/sw.folded")
	cut=$(sum_matching '^dlswap;swap_spin_b( |;)' "$TMP/sw.folded")
	whole=$(sum_matching '^dlswap;_start;.*;main;burn_in;run_lib;swap_spin;swap_spin_b( |;)' "$TMP/sw.folded")
	echo "  the second library: $whole samples whole, $cut cut at its leaf"
	grep 'process readings' "$TMP/sw.err" | sed 's/^/  /'
	[ "$((whole + cut))" -gt 800 ] || fail "only $((whole + cut)) samples in the second library" || return 1
	[ "$(pct "$whole" "$((whole + cut))")" -ge 90 ] ||
		fail "walked with the first library's rows: $(sort -t' ' -k2 -rn "$TMP/sw.folded" | head -3)" || return 1
	[ "$b" -eq "$whole" ] || fail "$b samples in swap_spin_b, $whole of them whole" || return 1
}

# A process with more executable mappings than an entry holds (150 copies
# of a library, dlopen()ed): libc and ld.so, mapped first and so highest,
# keep their tables, and qsort's stacks reach _start.
t_many_libraries() {
	mkdir -p "$TMP/libs"
	for i in $(seq 0 149); do
		cp $W/libdlburn.so "$TMP/libs/lib$i.so"
	done
	start $W/manylibs "$TMP/libs" 150 30
	pid=$LAST
	i=0
	while n=$(grep -c 'r-xp.*/libs/lib' /proc/$pid/maps 2> /dev/null); [ "${n:-0}" -lt 150 ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "  $(grep -c r-xp /proc/$pid/maps) executable mappings"
	$PROFILE -U -F 499 -f -v -p "$pid" 2 > "$TMP/ml.folded" 2> "$TMP/ml.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/ml.err")" || return 1
	kill "$pid"
	all=$(sum_matching ';cmp [0-9]+$' "$TMP/ml.folded")
	whole=$(sum_matching '^manylibs;_start;.*;main;sort_round;.*qsort.*;cmp [0-9]+$' "$TMP/ml.folded")
	echo "  $whole of $all samples in cmp from _start through qsort"
	[ "$all" -gt 300 ] || fail "only $all samples in cmp" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "stacks cut: $(sort -t' ' -k2 -rn "$TMP/ml.folded" | head -3)" || return 1
}

# A recursion 2,000 deep: the walk keeps --perf-max-stack-depth frames
# (past kernel.perf_event_max_stack, which bounds only the kernel's
# walks), and the root-most printed frame says the rest was left out; one
# 100 deep is whole and says nothing.
t_depth_limit() {
	start $W/deeprec 2000 30
	deep=$LAST
	start $W/deeprec 100 30
	shallow=$LAST
	sleep 0.3
	$PROFILE -U -F 199 -f -v -p "$deep,$shallow" 2 > "$TMP/d127.folded" 2> "$TMP/d127.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/d127.err")" || return 1
	$PROFILE -U -F 199 -f --perf-max-stack-depth 1024 -p "$deep,$shallow" 2 > "$TMP/d1024.folded" 2> "$TMP/d1024.err" ||
		fail "profile --perf-max-stack-depth 1024 exited $?: $(tail -2 "$TMP/d1024.err")" || return 1
	stop "$deep"
	stop "$shallow"
	for run in d127 d1024; do
		want=127
		[ $run = d1024 ] && want=1024
		# the deep one: comm, [truncated], then want frames ending in leaf
		awk -F';' -v w="$want" '$NF ~ /^leaf [0-9]+$/ && $0 ~ /^deeprec;\[truncated\];descend;/ {
			n = split($NF, last, " "); if (NF == w + 2) ok += last[n]; else bad++ }
			END { printf "%d %d\n", ok, bad }' "$TMP/$run.folded" > "$TMP/$run.n"
		read -r ok bad < "$TMP/$run.n"
		echo "  $run: $ok samples of the deep recursion kept $want frames and [truncated], $bad stacks otherwise"
		[ "$ok" -gt 50 ] || fail "$run: no truncated stacks of $want frames: $(cut -c1-200 "$TMP/$run.folded" | head -3)" || return 1
	done
	grep -Eq '[1-9][0-9]* stopped at the depth limit' "$TMP/d127.err" || fail "-v counts no stack stopped at the depth" || return 1
	# (awk has no {n}: count the frames)
	whole=$(awk -F';' '/^deeprec;_start;.*;main;descend;/ && NF == 107 && $NF ~ /^leaf [0-9]+$/ {
		n = split($NF, last, " "); s += last[n] } END { print s + 0 }' "$TMP/d1024.folded")
	echo "  the shallow one: $whole samples whole from _start"
	[ "$whole" -gt 50 ] || fail "the 100-deep recursion not whole at depth 1024" || return 1
	! grep -q '^deeprec;_start;.*\[truncated\]' "$TMP/d1024.folded" || fail "a whole stack marked [truncated]" || return 1
}

# gcc keeps the CFA of a function that realigns its stack (a 64-byte
# aligned local and a VLA) in its frame, *(rbp - 16), and rbp where rbp
# points: its callee's samples go on through it to _start. By frame
# pointers (its frame looks like one) the walk goes wrong at its caller.
t_realigned_stack() {
	start $W/drapburn 30
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 999 -f -p "$pid" 2 > "$TMP/drap.folded" 2> "$TMP/drap.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/drap.err")" || return 1
	stop "$pid"
	all=$(sum_matching '^drapburn;' "$TMP/drap.folded")
	whole=$(sum_matching '^drapburn;_start;.*;main;run;realigned(;burn)? [0-9]+$' "$TMP/drap.folded")
	echo "  $whole of $all samples from _start through realigned"
	[ "$all" -gt 300 ] || fail "only $all samples" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "stacks cut at the realigned frame: $(sort -t' ' -k2 -rn "$TMP/drap.folded" | head -3)" || return 1
}

# glibc's __vfork pops its return address into rdi (DW_CFA_register):
# the parent's samples in the vfork system call go on from __vfork to
# spawn, main and _start, read from the registers at kernel entry.
t_return_address_in_a_register() {
	start $W/vforkburn 30
	pid=$LAST
	sleep 0.3
	$PROFILE -F 999 -f -p "$pid" 2 > "$TMP/vf.folded" 2> "$TMP/vf.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/vf.err")" || return 1
	stop "$pid"
	all=$(sum_matching '^vforkburn;([^;]*;)*__vfork(;| )' "$TMP/vf.folded")
	whole=$(sum_matching '^vforkburn;_start;.*;main;spawn;__vfork(;| )' "$TMP/vf.folded")
	echo "  $whole of $all samples in __vfork from _start"
	[ "$all" -gt 100 ] || fail "only $all samples in __vfork" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "stacks cut at __vfork: $(grep __vfork "$TMP/vf.folded" | sort -t' ' -k2 -rn | head -3)" || return 1
}

# Debian's openssl, its assembly as written: AES-CTR keeps its CFA in r11
# for the whole loop, known at the leaf from the sample's registers. The
# leaf's samples go on through EVP to __libc_start_main (openssl is
# stripped: its own frames are [openssl]); without the rule they stop at
# the leaf.
t_openssl_cfa_in_a_register() {
	grep -qw aes /proc/cpuinfo || fail "this CPU has no AES-NI: aesni_ctr32_encrypt_blocks does not run" || return 1
	start openssl enc -aes-128-ctr -pass pass:x -pbkdf2 -in /dev/zero -out /dev/null
	pid=$LAST
	sleep 0.5
	$PROFILE -U -F 999 -f -p "$pid" 2 > "$TMP/aes.folded" 2> "$TMP/aes.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/aes.err")" || return 1
	stop "$pid"
	leaf='\[libcrypto\.so\.3\] [0-9]+$'
	all=$(sum_matching "^openssl;(.*;)?$leaf" "$TMP/aes.folded")
	whole=$(sum_matching "^openssl;[^;]+;__libc_start_main;.*;$leaf" "$TMP/aes.folded")
	ctr=$(sum_matching "^openssl;[^;]+;__libc_start_main;.*;CRYPTO_ctr128_encrypt_ctr32;$leaf" "$TMP/aes.folded")
	echo "  $whole of $all samples in libcrypto's unnamed code from __libc_start_main, $ctr of them in AES"
	[ "$ctr" -gt 150 ] || fail "only $ctr AES samples whole" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "stacks cut: $(sort -t' ' -k2 -rn "$TMP/aes.folded" | head -3 | cut -c1-200)" || return 1
}

# openssl's SHA-512 reads its CFA from its frame, *(rsp + N) + 8: the
# hashing's samples (of /dev/zero, endless) go on to __libc_start_main.
t_openssl_cfa_read_from_the_frame() {
	start openssl dgst -sha512 /dev/zero
	pid=$LAST
	sleep 0.5
	$PROFILE -U -F 999 -f -p "$pid" 2 > "$TMP/sha.folded" 2> "$TMP/sha.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/sha.err")" || return 1
	stop "$pid"
	leaf='\[libcrypto\.so\.3\] [0-9]+$'
	all=$(sum_matching "^openssl;(.*;)?$leaf" "$TMP/sha.folded")
	whole=$(sum_matching "^openssl;[^;]+;__libc_start_main;.*;$leaf" "$TMP/sha.folded")
	sha512=$(sum_matching "^openssl;[^;]+;__libc_start_main;.*;SHA512_Update;$leaf" "$TMP/sha.folded")
	echo "  $whole of $all samples in libcrypto's unnamed code from __libc_start_main, $sha512 of them in SHA-512"
	[ "$sha512" -gt 300 ] || fail "only $sha512 SHA-512 samples whole" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "stacks cut: $(grep '^openssl;' "$TMP/sha.folded" | sort -t' ' -k2 -rn | head -3 | cut -c1-200)" || return 1
}

# musl's __restore_rt has no FDE (Debian's musl has no CFI at all): the
# trampoline, found by its code (mov $15, %rax; syscall), steps over the
# signal frame, so the handler's samples go on into main;spin. (They end
# at libc_start_main_stage2, musl's C code without CFI nor frame pointer.)
t_musl_signal_frame() {
	start $W/sigburn_musl 30
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 999 -f -p "$pid" 2 > "$TMP/sigm.folded" 2> "$TMP/sigm.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/sigm.err")" || return 1
	stop "$pid"
	handler=$(sum_matching ';on_prof;in_handler [0-9]+$' "$TMP/sigm.folded")
	through=$(sum_matching '^sigburn_musl;(.*;)?main;spin;[^;]+;on_prof;in_handler [0-9]+$' "$TMP/sigm.folded")
	echo "  $through of $handler samples in the handler go on to main;spin"
	[ "$handler" -gt 50 ] || fail "only $handler samples in the handler" || return 1
	[ "$(pct "$through" "$handler")" -ge 90 ] ||
		fail "the walk stopped at the signal frame: $(grep in_handler "$TMP/sigm.folded" | sort -t' ' -k2 -rn | head -2)" || return 1
}

# musl's _start (crt1.o) has no FDE: a walk that reaches it ends there as
# at the thread's root, not cut short (-v counts those; a cut also asks
# for the mappings to be read again). muslstart gives _start a caller
# with CFI: musl's own __libc_start_main has none.
t_musl_start_is_a_root() {
	start $W/muslstart
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 999 -f -v -p "$pid" 2 > "$TMP/ms.folded" 2> "$TMP/ms.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/ms.err")" || return 1
	stop "$pid"
	all=$(sum_matching '^muslstart;' "$TMP/ms.folded")
	whole=$(sum_matching '^muslstart;[^;]+;__libc_start_main;main;work [0-9]+$' "$TMP/ms.folded")
	line=$(grep 'user stacks walked by them' "$TMP/ms.err")
	walked=$(echo "$line" | sed -E 's/.*: ([0-9]+) user stacks walked.*/\1/')
	cut=$(echo "$line" | sed -E 's/.*\(([0-9]+) ended before.*/\1/')
	echo "  $whole of $all samples from _start; $cut of $walked walks ended before the root"
	[ "$all" -gt 300 ] && [ "$(pct "$whole" "$all")" -ge 90 ] || fail "stacks not from _start" || return 1
	[ "$walked" -gt 300 ] && [ "$(pct "$cut" "$walked")" -lt 10 ] || fail "_start ended the walks as a cut" || return 1
}

# The vDSO's .eh_frame is in the image the kernel maps into every
# process: its table, built from our own, walks a [vdso] that holds the
# same bytes. clang -O2 code without frame pointers calling into it:
# clock_gettime (the vDSO keeps a frame there, but for a few
# instructions), time and getcpu (frameless leaves, where a frame-pointer
# walk goes wrong) all reach _start through main.
t_vdso() {
	start $W/vdsoburn 30
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 999 -f -v -p "$pid" 3 > "$TMP/vdso.folded" 2> "$TMP/vdso.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/vdso.err")" || return 1
	stop "$pid"
	for f in in_clock:__vdso_clock_gettime in_time:__vdso_time in_getcpu:__vdso_getcpu; do
		caller=${f%:*} leaf=${f#*:}
		all=$(sum_matching ";$leaf [0-9]+\$" "$TMP/vdso.folded")
		whole=$(sum_matching "^vdsoburn;_start;.*;main;$caller;(.*;)?$leaf [0-9]+\$" "$TMP/vdso.folded")
		echo "  $leaf: $whole of $all samples from _start through main;$caller"
		[ "$all" -gt 40 ] || fail "only $all samples in $leaf" || return 1
		[ "$(pct "$whole" "$all")" -ge 90 ] ||
			fail "$leaf's stacks cut: $(grep "$leaf" "$TMP/vdso.folded" | sort -t' ' -k2 -rn | head -2)" || return 1
	done
	grep -Eq '[1-9][0-9]* processes'"'"' \[vdso\] given the vDSO'"'"'s table' "$TMP/vdso.err" ||
		fail "-v counts no [vdso] with the vDSO's table: $(grep vdso "$TMP/vdso.err")" || return 1
}

run_test "gcc -O2 without frame pointers: whole stacks, 5:3:2 kept" t_whole_stacks_without_frame_pointers
run_test "gcc -fno-omit-frame-pointer: the frameless leaf's caller kept" t_frameless_leaves
run_test "system-wide: tables loaded when a process is first sampled" t_tables_at_first_sight
run_test "Debian's python3: stacks reach the thread's root" t_debian_python
run_test "Debian's xz, two threads: stacks reach clone3 and start_thread" t_debian_xz_threads
run_test "a signal handler's stack goes on through the signal frame" t_signal_frame
run_test ".debug_frame of a debug file: whole stacks of code without unwind tables" t_debug_frame
run_test "exec: the new image's tables" t_exec_loads_new_tables
run_test "tables cached between runs, a damaged one rebuilt" t_cache_between_runs
run_test "the same stacks as perf --call-graph dwarf" t_same_stacks_as_perf_dwarf
run_test "copies of one binary share its rows" t_copies_share_rows
run_test "dlclose, then dlopen of another library at its address: its own rows" t_dlopen_at_the_same_address
run_test "150 libraries: libc and ld.so keep their tables" t_many_libraries
run_test "a recursion deeper than the walk: --perf-max-stack-depth frames, [truncated]" t_depth_limit
run_test "gcc's stack realignment: the CFA read from the frame" t_realigned_stack
run_test "__vfork: the return address in a register" t_return_address_in_a_register
run_test "Debian's openssl, AES-CTR: a CFA in r11 at the leaf" t_openssl_cfa_in_a_register
run_test "Debian's openssl, SHA-512: a CFA read from the frame" t_openssl_cfa_read_from_the_frame
run_test "musl: __restore_rt without CFI, found by its code" t_musl_signal_frame
run_test "musl: _start without an FDE is the thread's root" t_musl_start_is_a_root
run_test "[vdso]: walked with the vDSO's own table" t_vdso
finish
