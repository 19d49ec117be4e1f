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

# Tables on demand: a process whose stacks pass through its own code and
# libc's alone gets those two tables built, not those of the six other
# files it maps (ld.so, libz, liblzma, libstdc++, libm, libgcc_s); its
# stacks are whole all the same. And /proc/PID/maps is read once for its
# symbols and its tables both: the opens strace sees are the readings -v
# counts (before, the tables' worker read it again). --no-python: the
# Python worker reads the maps of its own.
t_tables_on_demand() {
	start $W/ownloop 30
	pid=$LAST
	sleep 0.3
	mapped=$(awk '$2 ~ /x/ && $6 ~ /^\// { print $6 }' /proc/$pid/maps | sort -u | wc -l)
	# (LeakSanitizer cannot run under ptrace)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq --seccomp-bpf -e trace=open,openat,openat2 -o "$TMP/od.strace" \
		$PROFILE -U -F 499 -f -v --no-python --no-unwind-cache -p "$pid" 2 \
			> "$TMP/od.folded" 2> "$TMP/od.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/od.err")" || return 1
	kill "$pid"
	line=$(grep 'process readings' "$TMP/od.err")
	files=$(echo "$line" | sed -E 's/.* ([0-9]+) files, .*/\1/')
	built=$(echo "$line" | sed -E 's/.*; ([0-9]+) built .*/\1/')
	opens=$(grep -c "\"/proc/$pid/maps\"" "$TMP/od.strace")
	reads=$(sed -n 's/.*maps read \([0-9]*\) times.*/\1/p' "$TMP/od.err")
	all=$(sum_matching '^ownloop;' "$TMP/od.folded")
	whole=$(sum_matching '^ownloop;_start;__libc_start_main[^;]*;(__libc_start_call_main|\[libc\.so\.6\]);main;spin( |;)' "$TMP/od.folded")
	echo "  $mapped files mapped, $files tables loaded ($built built); /proc/$pid/maps opened $opens times, $reads readings; $whole of $all samples whole"
	grep 'on demand' "$TMP/od.err" | sed 's/^/  /'
	[ "$mapped" -ge 8 ] || fail "ownloop maps only $mapped files" || return 1
	[ "$files" = 2 ] && [ "$built" = 2 ] || fail "$files tables loaded, $built built: want ownloop's and libc's" || return 1
	[ -n "$reads" ] && [ "$reads" -ge 1 ] && [ "$opens" -eq "$reads" ] ||
		fail "/proc/$pid/maps opened $opens times for $reads readings" || return 1
	[ "$all" -gt 500 ] || fail "only $all samples" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "stacks not whole: $(sort -t' ' -k2 -rn "$TMP/od.folded" | head -3)" || return 1
}

# Debian's own python3 (no frame pointers): its samples reach the
# thread's root through the interpreter, whose eval loop's C frame is
# the script's Python frame (python.sh). By frame pointers, almost none do.
t_debian_python() {
	start /usr/bin/python3 -c 'while True: pass'
	sleep 0.5
	both_walks "$LAST" py 499 || return 1
	# libc's own functions are named only where libc6-dbg is installed
	root='^python3;_start;__libc_start_main[^;]*;(__libc_start_call_main|\[libc\.so\.6\]);Py_BytesMain;.*;PyEval_EvalCode;<module> [(]<string>[)]'
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
		whole=$(sum_matching '^python3;_start;.*;PyEval_EvalCode;' "$TMP/c$run.folded")
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
	grep -q "unwind cache '$TMP/cache' refused: '$TMP/cache' can be written by other users" "$TMP/c4.err" ||
		fail "a cache others can write was not refused: $(cat "$TMP/c4.err")" || return 1
}

# --unwind-cache-size: python3's tables fill a cache; a run of another
# program under a cap of 1 MiB evicts the least recently used (counted
# under -v), and the entries are within the cap after it.
t_cache_cap() {
	start /usr/bin/python3 -c 'while True: pass'
	py=$LAST
	start $W/hotspots_nofp 30
	hs=$LAST
	sleep 0.5
	$PROFILE -U -F 99 -f -v --unwind-cache-dir "$TMP/capped" -p "$py" 1 > /dev/null 2> "$TMP/cap1.err" ||
		fail "run 1: profile exited $?" || return 1
	before=$(du -sk "$TMP/capped" | cut -f1)
	stop "$py"
	$PROFILE -U -F 199 -f -v --unwind-cache-dir "$TMP/capped" --unwind-cache-size 1 -p "$hs" 1 \
		> "$TMP/cap2.folded" 2> "$TMP/cap2.err" || fail "run 2: profile exited $?" || return 1
	stop "$hs"
	after=$(find "$TMP/capped" -type f -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
	line=$(grep 'process readings' "$TMP/cap2.err")
	evicted=$(echo "$line" | sed -E 's/.* ([0-9]+) evicted from the cache.*/\1/')
	stored=$(echo "$line" | sed -E 's/.* ([0-9]+) stored.*/\1/')
	echo "  ${before} KiB after run 1; run 2 under 1 MiB: $stored stored, $evicted evicted, $after bytes left"
	[ "$before" -gt 1024 ] || fail "run 1 left only $before KiB: nothing to evict" || return 1
	[ "$evicted" -gt 0 ] && [ "$stored" -gt 0 ] || fail "no eviction counted: $line" || return 1
	[ "$after" -le 1048576 ] || fail "$after bytes left, over the cap" || return 1
	all=$(sum_matching '^hotspots_nofp;' "$TMP/cap2.folded")
	whole=$(sum_matching '^hotspots_nofp;_start;.*hot_[abc] [0-9]+$' "$TMP/cap2.folded")
	[ "$all" -gt 50 ] && [ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "run 2: $whole of $all samples whole: $(sort -t' ' -k2 -rn "$TMP/cap2.folded" | head -3)" || return 1
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
	# --offsets: unnamed libc frames each their own, not a run as one
	$PROFILE -U -F 499 -f -v --offsets -p "$pid" 2 > "$TMP/xz.folded" 2> "$TMP/xz.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/xz.err")" || return 1
	kill "$pid"
	all=$(sum_matching '^xz;' "$TMP/xz.folded")
	# clone3 and start_thread are named where libc6-dbg is installed, else
	# [libc.so.6+0x...]: then -v's count of walks cut says they ended at the root
	libc='\[libc\.so\.6\+0x[0-9a-f]+\]'
	threads=$(sum_matching "^xz;(clone3|$libc);(start_thread|$libc);" "$TMP/xz.folded")
	main=$(sum_matching "^xz;_start;__libc_start_main[^;]*;(__libc_start_call_main|$libc);" "$TMP/xz.folded")
	cut=$(sed -n "s/.*(\([0-9]*\) ended before the thread's root.*/\1/p" "$TMP/xz.err")
	echo "  $threads of $all samples from clone3;start_thread, $main from _start; ${cut:-?} walks cut"
	[ "$all" -gt 500 ] || fail "only $all samples" || return 1
	[ "$(pct $((threads + main)) "$all")" -ge 90 ] || fail "xz stacks stop short: $(sort -t' ' -k2 -rn "$TMP/xz.folded" | head -2)" || return 1
	[ "$(pct "$threads" "$all")" -ge 50 ] || fail "the compressing threads did not reach start_thread" || return 1
	[ -n "$cut" ] && [ "$(pct "$cut" "$all")" -lt 10 ] || fail "${cut:-?} of $all walks cut before the thread's root" || return 1
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
	profile_pid sig "$pid" -U || return 1
	kill "$pid"
	whole_share sig ';on_prof;in_handler [0-9]+$' \
		'^sigburn;_start;.*;main;spin;[^;]+;on_prof;in_handler [0-9]+$' 50 \
		"samples in the handler that go on to main;spin and _start"
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
	profile_pid ml "$pid" -U -v || return 1
	kill "$pid"
	whole_share ml ';cmp [0-9]+$' '^manylibs;_start;.*;main;sort_round;.*qsort.*;cmp [0-9]+$' 300 \
		"samples in cmp from _start through qsort"
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

# The entry count of profile PID's "unwind_procs" map, by pid, one a line
# (its fds name its maps' ids).
unwind_entries() {
	for f in /proc/$1/fdinfo/*; do
		id=$(awk '/^map_id:/ { print $2 }' "$f" 2> /dev/null)
		[ -n "$id" ] && bpftool map show id "$id" 2> /dev/null | grep -q ' name unwind_procs ' &&
			bpftool -j map dump id "$id" | jq -r '
				def byte: ltrimstr("0x") | explode |
					map(if . >= 97 then . - 87 elif . >= 65 then . - 55 else . - 48 end) |
					.[0] * 16 + .[1];
				# a key with BTF is a number; without, little-endian bytes
				.[] | .key | if type == "array" then
					[.[] | byte] | .[0] + .[1] * 256 + .[2] * 65536 + .[3] * 16777216
				else . end' && return 0
	done
	return 1
}

# Children that exit at once and stay zombies for a second: their
# mappings, read after they exited, read empty. No entry is kept for
# them (one left would stay until the pid came round again).
t_zombies_leave_no_entries() {
	$PROFILE -F 499 -f 8 > /dev/null 2> "$TMP/z.err" &
	prof=$!
	sleep 1
	$W/zombies 4 40 "$TMP/z.pids" || fail "zombies exited $?" || return 1
	sleep 2.5
	unwind_entries "$prof" > "$TMP/z.keys" || fail "no unwind_procs map in profile $prof" || return 1
	kill -INT "$prof"
	wait "$prof" || fail "profile exited $?: $(tail -2 "$TMP/z.err")" || return 1
	children=$(wc -l < "$TMP/z.pids")
	left=$(grep -Fxc -f "$TMP/z.pids" "$TMP/z.keys")
	echo "  $children children, $left of them with an entry left; $(wc -l < "$TMP/z.keys") entries in all"
	[ "$children" -ge 120 ] || fail "only $children children" || return 1
	[ "$left" -le 2 ] || fail "$left entries of children that are gone" || return 1
}

# go_build OUT [LDFLAGS]: tests/workloads/gochurn.go built with Debian's Go,
# offline (no module, no proxy, no toolchain download), its cache under
# build/ so that later runs reuse the compiled runtime.
go_build() {
	env HOME="$TMP/gohome" GOCACHE="$PWD/build/go-cache" GOPATH="$TMP/gopath" GOFLAGS=-mod=mod \
		GO111MODULE=off GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 \
		go build -ldflags "${2:-}" -o "$1" tests/workloads/gochurn.go > "$TMP/gobuild.err" 2>&1 ||
		fail "go build: $(tail -3 "$TMP/gobuild.err")"
}

GO_ROOT='runtime\.(goexit|mstart|rt0_go)(\.abi0)?'

# go_stacks FILE COMM LABEL [ABOVE%]: a folded profile of gochurn held to
# what Go's frame pointers give: >= 90% of its samples start at a root
# (goexit, mstart, rt0_go) with nothing above it, no root below another
# frame (but ABOVE% of the samples, default 0: system-wide, a process's
# first samples go by frame pointers alone, before its tables are in),
# and the GC's system stacks (systemstack) go on to the goroutine under
# them.
go_stacks() {
	all=$(sum_matching "^$2;" "$1")
	rooted=$(sum_matching "^$2;$GO_ROOT[; ]" "$1")
	above=$(sum_matching "^$2;.+;$GO_ROOT[; ]" "$1")
	sys=$(sum_matching "^$2;(.*;)?runtime\.systemstack\.abi0;" "$1")
	sys_rooted=$(sum_matching "^$2;$GO_ROOT;.*runtime\.systemstack\.abi0;" "$1")
	echo "  $3: $rooted of $all samples from a root, $above with a frame above one; systemstack: $sys_rooted of $sys from a root"
	[ "$all" -gt 300 ] || fail "$3: only $all samples" || return 1
	[ "$sys" -gt 20 ] || fail "$3: only $sys samples on the GC's system stack: not the workload meant" || return 1
	[ "$(pct "$rooted" "$all")" -ge 90 ] ||
		fail "$3: stacks not from a root: $(grep "^$2;" "$1" | grep -Ev "^$2;$GO_ROOT;" | sort -t' ' -k2 -rn | head -3)" || return 1
	[ $((above * 100)) -le $((all * ${4:-0})) ] ||
		fail "$3: frames above a root: $(grep -E "^$2;.+;$GO_ROOT;" "$1" | head -2)" || return 1
	[ "$(pct "$sys_rooted" "$sys")" -ge 90 ] ||
		fail "$3: system stacks cut: $(grep "^$2;.*systemstack" "$1" | grep -Ev "^$2;$GO_ROOT;" | sort -t' ' -k2 -rn | head -3)" || return 1
}

# The frames around each systemstack: "caller;runtime.systemstack.abi0;callee", by count
go_switches() {
	grep "^$2;" "$1" | awk '{ n = $NF; sub(/ [0-9]+$/, "")
		k = split($0, f, ";")
		for (i = 3; i < k; i++) if (f[i] == "runtime.systemstack.abi0") c[f[i - 1] ";" f[i] ";" f[i + 1]] += n }
		END { for (s in c) print c[s], s }' | sort -rn
}

# A Go program (Debian's Go, frame pointers on, its own stacks switched by
# its runtime): its goroutines' stacks end at runtime.goexit, the GC's
# system stacks go on through systemstack into the goroutine that called
# it as perf -g has them, system-wide and with -p; and the leaf keeps its
# caller (spinHot has no frame: frame pointers skip worker).
t_go_stacks() {
	go_build "$TMP/gochurn" || return 1
	start "$TMP/gochurn" 30
	pid=$LAST
	sleep 0.5
	$PROFILE -U -F 499 -f 3 > "$TMP/go.sw.folded" 2> "$TMP/go.sw.err" &
	prof=$!
	perf record -q -a -F 499 -g -o "$TMP/go.perf.data" -- sleep 2 2> "$TMP/go.perf.err" ||
		fail "perf record failed: $(tail -1 "$TMP/go.perf.err")" || return 1
	wait "$prof" || fail "profile exited $?: $(tail -2 "$TMP/go.sw.err")" || return 1
	$PROFILE -U -F 499 -f -p "$pid" 2 > "$TMP/go.p.folded" 2> "$TMP/go.p.err" ||
		fail "profile -p exited $?: $(tail -2 "$TMP/go.p.err")" || return 1
	$PROFILE -U -F 499 -f --call-graph fp -p "$pid" 1 > "$TMP/go.fp.folded" 2> "$TMP/go.fp.err" ||
		fail "profile --call-graph fp exited $?: $(tail -2 "$TMP/go.fp.err")" || return 1
	stop "$pid"
	# its user frames (a frame line ends with its file in parentheses)
	perf script -i "$TMP/go.perf.data" 2> /dev/null | grep -v '(\[kernel\.kallsyms\])$' |
		awk -f bench/fold-perf.awk | grep '^gochurn;' > "$TMP/go.perf.folded"
	go_stacks "$TMP/go.sw.folded" gochurn system-wide 1 || return 1
	go_stacks "$TMP/go.p.folded" gochurn "-p" || return 1
	# perf -g has the same frames on either side of systemstack (its caller's
	# frame is skipped: systemstack has none), ours' heaviest among them
	go_switches "$TMP/go.perf.folded" gochurn | cut -d' ' -f2 > "$TMP/go.perf.sw"
	[ -s "$TMP/go.perf.sw" ] || fail "perf -g saw no systemstack: $(head -2 "$TMP/go.perf.folded")" || return 1
	go_switches "$TMP/go.p.folded" gochurn | head -3 | while read -r n s; do
		echo "  $n x $s"
		grep -qxF "$s" "$TMP/go.perf.sw" || { fail "perf -g has no $s"; return 1; }
	done || return 1
	spin=$(sum_matching ';main\.spinHot [0-9]+$' "$TMP/go.p.folded")
	caller=$(sum_matching ';main\.worker;main\.spinHot [0-9]+$' "$TMP/go.p.folded")
	fp_spin=$(sum_matching ';main\.spinHot [0-9]+$' "$TMP/go.fp.folded")
	fp_caller=$(sum_matching ';main\.worker;main\.spinHot [0-9]+$' "$TMP/go.fp.folded")
	perf_spin=$(sum_matching ';main\.spinHot [0-9]+$' "$TMP/go.perf.folded")
	perf_caller=$(sum_matching ';main\.worker;main\.spinHot [0-9]+$' "$TMP/go.perf.folded")
	echo "  spinHot under worker: $caller of $spin; by frame pointers $fp_caller of $fp_spin; perf -g $perf_caller of $perf_spin"
	[ "$spin" -gt 50 ] && [ "$fp_spin" -gt 20 ] || fail "too few samples in spinHot" || return 1
	[ "$(pct "$caller" "$spin")" -ge 90 ] || fail "the leaf lost its caller: $(grep 'spinHot [0-9]' "$TMP/go.p.folded" | head -2)" || return 1
	[ "$(pct "$fp_caller" "$fp_spin")" -lt 50 ] || fail "frame pointers kept worker: spinHot has a frame" || return 1
}

# pprof_fold PROF BINARY COMM: the stacks of the pprof file PROF folded as
# "COMM;root;...;leaf count", named by the addresses go tool pprof -raw
# gives and BINARY's symbols (nm; a caller's at its return address - 1):
# the frames of a stripped file, named by the same text unstripped.
pprof_fold() {
	nm -n --defined-only "$2" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' > "$TMP/pf.syms"
	env HOME="$TMP/gohome" GOCACHE="$PWD/build/go-cache" GOTOOLCHAIN=local GOPROXY=off \
		go tool pprof -raw "$1" 2> "$TMP/pf.err" | awk -v comm="$3" -v syms="$TMP/pf.syms" '
		function hex(s,    v, i, c) {
			v = 0
			s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) {
				c = index("0123456789abcdef", substr(s, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}
		function name_of(a,    lo, hi, mid) {
			lo = 1; hi = ns
			if (!ns || a < at[1]) return "[unknown]"
			while (lo < hi) { mid = int((lo + hi + 1) / 2); if (at[mid] <= a) lo = mid; else hi = mid - 1 }
			return nm[lo]
		}
		BEGIN { while ((getline l < syms) > 0) { split(l, f, " "); ns++; at[ns] = hex(f[1]); nm[ns] = f[2] } }
		/^Locations/ { part = "loc"; next }
		/^Mappings/ { part = "" }
		part == "loc" && $1 ~ /^[0-9]+:$/ { sub(/:/, "", $1); addr[$1] = hex($2); next }
		$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+:$/ { split($0, f, ":"); count[++nst] = $1; ids[nst] = f[2] }
		END {
			for (k = 1; k <= nst; k++) {
				n = split(ids[k], id, " ")
				s = ""
				for (i = n; i >= 1; i--)
					s = s ";" name_of(i == 1 ? addr[id[i]] : addr[id[i]] - 1)
				c[comm s] += count[k]
			}
			for (s in c) print s, c[s]
		}'
}

# The same program stripped by its linker (-s -w: no .symtab, no
# .debug_frame, no debug file anywhere): its roots come from .gopclntab's
# function table, its leaf's rows from its pc-to-sp tables. Its frames
# are named from the same text unstripped (the same build-id, so the
# same addresses), through the addresses in a pprof file.
t_go_stripped() {
	id=0123456789abcdef0123456789abcdef01234567
	go_build "$TMP/gochurn.full" "-B 0x$id" || return 1
	go_build "$TMP/gostrip" "-s -w -B 0x$id" || return 1
	! readelf -S "$TMP/gostrip" | grep -Eq '\.symtab|\.debug_frame' || fail "not stripped" || return 1
	start "$TMP/gostrip" 30
	pid=$LAST
	sleep 0.5
	$PROFILE -U -F 499 --format pprof -o "$TMP/gos.pb.gz" -p "$pid" 2 2> "$TMP/gos.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/gos.err")" || return 1
	stop "$pid"
	pprof_fold "$TMP/gos.pb.gz" "$TMP/gochurn.full" gostrip > "$TMP/gos.folded"
	[ -s "$TMP/gos.folded" ] || fail "no stacks from go tool pprof: $(head -2 "$TMP/pf.err")" || return 1
	go_stacks "$TMP/gos.folded" gostrip stripped || return 1
	spin=$(sum_matching ';main\.spinHot [0-9]+$' "$TMP/gos.folded")
	caller=$(sum_matching ';main\.worker;main\.spinHot [0-9]+$' "$TMP/gos.folded")
	echo "  spinHot under worker: $caller of $spin"
	[ "$spin" -gt 50 ] || fail "too few samples in spinHot" || return 1
	[ "$(pct "$caller" "$spin")" -ge 90 ] || fail "the leaf lost its caller: $(grep 'spinHot [0-9]' "$TMP/gos.folded" | head -2)" || return 1
}

run_test "gcc -O2 without frame pointers: whole stacks, 5:3:2 kept" t_whole_stacks_without_frame_pointers
run_test "gcc -fno-omit-frame-pointer: the frameless leaf's caller kept" t_frameless_leaves
run_test "system-wide: tables loaded when a process is first sampled" t_tables_at_first_sight
run_test "tables on demand: only the files stacks pass through; the maps read once" t_tables_on_demand
run_test "Debian's python3: stacks reach the thread's root" t_debian_python
run_test "Debian's xz, two threads: stacks reach clone3 and start_thread" t_debian_xz_threads
run_test "a signal handler's stack goes on through the signal frame" t_signal_frame
run_test ".debug_frame of a debug file: whole stacks of code without unwind tables" t_debug_frame
run_test "exec: the new image's tables" t_exec_loads_new_tables
run_test "tables cached between runs, a damaged one rebuilt" t_cache_between_runs
run_test "the table cache kept under --unwind-cache-size" t_cache_cap
run_test "the same stacks as perf --call-graph dwarf" t_same_stacks_as_perf_dwarf
run_test "copies of one binary share its rows" t_copies_share_rows
run_test "dlclose, then dlopen of another library at its address: its own rows" t_dlopen_at_the_same_address
run_test "150 libraries: libc and ld.so keep their tables" t_many_libraries
run_test "a recursion deeper than the walk: --perf-max-stack-depth frames, [truncated]" t_depth_limit
run_test "children reaped late leave no entry behind" t_zombies_leave_no_entries
run_test "Go: stacks from runtime.goexit, through the GC's system stacks, like perf -g" t_go_stacks
run_test "Go, stripped (-s -w): stacks still end at runtime.goexit" t_go_stripped
finish
