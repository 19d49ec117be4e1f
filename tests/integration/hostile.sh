#!/bin/sh
# hostile.sh - a local user (uid 65534) hands the root profiler files made
# to cost it: a sparse debug file of 40 GB, debug links that are symlinks
# to root-only files, FIFOs and device nodes, a compressed .symtab that
# inflates to 1 GiB, a .symtab of 5 M symbols, a 256 MiB perf map shared
# by three processes, a bind
# mount over a perf map in a user namespace, 60,000 executable mappings,
# a program whose .eh_frame names register 2^27, .eh_frames that libdw
# would run for seconds, libraries whose tables would fill every row,
# and debug files that take seconds to checksum while SIGINT comes in.
# Each of those bounds wall time, max RSS and the exit status. And a
# root-owned file that claims libc's build-id (root in a container, a FUSE
# or NFS mount), which must give libc neither its unwind rows nor its
# names, within a run or through the table cache. Root needed; prints
# "hostile: N passed, N failed" last.
set -u

SUITE=hostile
. "$(dirname "$0")/lib.sh"
NOBODY=65534
# the user's files live in a directory of theirs that they can reach
chmod 755 "$TMP"
H=$TMP/h
mkdir -p "$H"
chown $NOBODY:$NOBODY "$H"
RSS_MIB=200
SLOW=1	# time bounds are multiplied by it: ASan runs 2-4 times slower
if [ -n "${ASAN_OPTIONS:-}" ]; then
	RSS_MIB=400
	SLOW=3
fi

as_user() {
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"
}

# start_user CMD...: start as the user; setpriv execs CMD, so $LAST is its pid
start_user() {
	start setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"
}

# measure OUT CMD...: run CMD with its wall time, max RSS (KiB), user+sys
# CPU seconds and exit status in OUT ("wall rss cpu rc")
measure() {
	out=$1
	shift
	/usr/bin/time -f "%e %M %U %S %x" -o "$out.time" "$@"
	# a failed command adds a line "Command exited with non-zero status N" first
	tail -n 1 "$out.time" | awk '{ printf "%s %s %.2f %s\n", $1, $2, $3 + $4, $5 }' > "$out"
}

# bounded OUT WALL_S CPU_S: the run ended in time, within RSS_MIB, exit 0
bounded() {
	read -r wall rss cpu rc < "$1"
	echo "  wall ${wall}s, max RSS $((rss / 1024)) MiB, CPU ${cpu}s, exit $rc"
	[ "$rc" -eq 0 ] || fail "exit status $rc" || return 1
	awk -v w="$wall" -v m="$2" -v k=$SLOW 'BEGIN { exit !(w <= m * k) }' ||
		fail "took ${wall}s, over $2 s (x$SLOW)" || return 1
	awk -v c="$cpu" -v m="$3" -v k=$SLOW 'BEGIN { exit !(c <= m * k) }' ||
		fail "used ${cpu}s of CPU, over $3 s (x$SLOW)" || return 1
	[ "$rss" -le $((RSS_MIB * 1024)) ] || fail "max RSS $rss KiB, over $RSS_MIB MiB" || return 1
}

# user_binary NAME: a stripped copy of the hostile workload in the user's
# directory, with a .gnu_debuglink to NAME.debug (made real, then removed)
user_binary() {
	d=$H/$1
	mkdir -p "$d"
	cp $W/hostile "$d/$1"
	objcopy --only-keep-debug "$d/$1" "$d/$1.debug"
	strip --strip-all "$d/$1"
	objcopy --add-gnu-debuglink="$d/$1.debug" "$d/$1"
	rm -f "$d/$1.debug"
	chown -R $NOBODY:$NOBODY "$d"
	BIN=$d/$1
}

# A debug link that names a 40 GB sparse file: it is not checksummed (the
# CRC budget is 4 GiB), the run takes its time, and -v says why.
t_sparse_debuglink() {
	user_binary sparse
	truncate -s 40G "$BIN.debug"
	chown $NOBODY:$NOBODY "$BIN.debug"
	start_user "$BIN" burn 8
	wl=$LAST
	sleep 0.3
	measure "$TMP/sparse.m" $PROFILE -F 199 -f -v -p "$wl" 2 > "$TMP/sparse.folded" 2> "$TMP/sparse.err"
	stop "$wl"
	bounded "$TMP/sparse.m" 5 3 || return 1
	grep -q "sparse.debug.*over the budget" "$TMP/sparse.err" ||
		fail "no -v notice for the oversized debug file: $(grep -v samples "$TMP/sparse.err" | head -3)" || return 1
	[ "$(sum_matching '\[sparse\]' "$TMP/sparse.folded")" -gt 100 ] ||
		fail "the binary's samples are not there as [sparse]" || return 1
}

# Debug links that are a symlink to /etc/shadow, a FIFO and a device node:
# none of them is opened for reading (strace: only O_PATH opens of them),
# the FIFO's writer is never released, and -v names each refusal.
t_debuglink_not_a_file() {
	user_binary linked
	ln -s /etc/shadow "$BIN.debug"
	chown -h $NOBODY:$NOBODY "$BIN.debug"
	b1=$BIN
	user_binary fifo
	mkfifo "$BIN.debug"
	chown $NOBODY:$NOBODY "$BIN.debug"
	b2=$BIN
	# a reader that opens the FIFO lets this writer through
	(echo planted > "$b2.debug" && touch "$TMP/fifo_opened") &
	writer=$!
	user_binary device
	mknod "$BIN.debug" c 1 3
	b3=$BIN
	start_user "$b1" burn 6
	p1=$LAST
	start_user "$b2" burn 6
	p2=$LAST
	start_user "$b3" burn 6
	p3=$LAST
	sleep 0.3
	# LeakSanitizer cannot run under ptrace: no leak check for this run
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	measure "$TMP/nf.m" strace -f -qq -e trace=open,openat,openat2 -o "$TMP/nf.strace" \
		$PROFILE -F 199 -f -v -p "$p1,$p2,$p3" 2 > "$TMP/nf.folded" 2> "$TMP/nf.err"
	stop "$p1"
	stop "$p2"
	stop "$p3"
	kill "$writer" 2>/dev/null
	bounded "$TMP/nf.m" 8 8 || return 1
	opened=$(grep -E '(linked|fifo|device)\.debug' "$TMP/nf.strace" | grep -v O_PATH | grep -v ' = -1 ')
	[ -z "$opened" ] || fail "opened for reading: $opened" || return 1
	! grep -q 'shadow' "$TMP/nf.strace" || fail "/etc/shadow was opened" || return 1
	[ ! -e "$TMP/fifo_opened" ] || fail "the FIFO was opened" || return 1
	grep -q "linked.debug.*symlink" "$TMP/nf.err" || fail "no notice for the symlink" || return 1
	grep -q "fifo.debug.*not a regular file" "$TMP/nf.err" || fail "no notice for the FIFO" || return 1
	grep -q "device.debug.*not a regular file" "$TMP/nf.err" || fail "no notice for the device" || return 1
}

# A .symtab that is a compressed section of 1 MiB claiming 1 GiB: refused
# before inflating (ratio and size budgets), RSS stays small.
t_compressed_bomb() {
	mkdir -p "$H/bomb"
	cp $W/hostile "$H/bomb/bomb"
	python3 tests/integration/tools/zbomb.py "$H/bomb/bomb" 1024 > /dev/null || fail "zbomb.py" || return 1
	chown -R $NOBODY:$NOBODY "$H/bomb"
	start_user "$H/bomb/bomb" burn 8
	wl=$LAST
	sleep 0.3
	measure "$TMP/bomb.m" $PROFILE -F 199 -f -v -p "$wl" 3 > "$TMP/bomb.folded" 2> "$TMP/bomb.err"
	stop "$wl"
	bounded "$TMP/bomb.m" 6 3 || return 1
	grep -q "bomb/bomb.*inflates to 1073741824" "$TMP/bomb.err" ||
		fail "no -v notice for the bomb: $(grep -v samples "$TMP/bomb.err" | head -3)" || return 1
	[ "$(sum_matching '\[bomb\]' "$TMP/bomb.folded")" -gt 100 ] ||
		fail "the bomb's samples are not there as [bomb]" || return 1
}

# Three processes with JIT memory share one 256 MiB perf map of one-byte
# entries (hard links): over the entry budget, refused, read once at most.
t_huge_perfmap() {
	pids=""
	for i in 1 2 3; do
		start_user $W/hostile anon 8
		pids="$pids $LAST"
	done
	set -- $pids
	yes '1 1 a' | head -c 268435456 > "/tmp/perf-$1.map"
	chown $NOBODY:$NOBODY "/tmp/perf-$1.map"
	ln -f "/tmp/perf-$1.map" "/tmp/perf-$2.map"
	ln -f "/tmp/perf-$1.map" "/tmp/perf-$3.map"
	sleep 0.3
	measure "$TMP/pm.m" $PROFILE -F 199 -f -v 3 > "$TMP/pm.folded" 2> "$TMP/pm.err"
	for p in $pids; do stop "$p"; rm -f "/tmp/perf-$p.map"; done
	bounded "$TMP/pm.m" 10 8 || return 1
	grep -q "perf-[0-9]*.map: perf map of more than" "$TMP/pm.err" ||
		fail "no -v notice for the perf map: $(grep -v samples "$TMP/pm.err" | head -3)" || return 1
}

# A mapped ELF file whose .symtab holds 5 M symbols (165 MB): within the
# symbol budget, read at about twice the file's size at most.
t_huge_symtab() {
	mkdir -p "$H/big"
	python3 tests/integration/tools/bigsymtab.py "$H/big/big.elf" 5000000 || fail "bigsymtab.py" || return 1
	chown -R $NOBODY:$NOBODY "$H/big"
	start_user $W/hostile mapfile "$H/big/big.elf" 12
	wl=$LAST
	sleep 0.3
	measure "$TMP/big.m" $PROFILE -F 99 -f -v -p "$wl" 2 > "$TMP/big.folded" 2> "$TMP/big.err"
	stop "$wl"
	rm -f "$H/big/big.elf"
	keep=$RSS_MIB
	RSS_MIB=$((RSS_MIB * 2))	# 400 MiB: 2.4 times the file
	bounded "$TMP/big.m" 8 6
	rc=$?
	RSS_MIB=$keep
	return $rc
}

# In a user namespace of its own, a user bind-mounts a root-only file over
# their perf map; it parses as a map naming every address. The file is
# root's and the process is not: it is not read, its name never printed.
t_userns_bind_mount() {
	if ! as_user unshare -Urm true 2> /dev/null; then
		# CI's machine has them (make check sets PROFILE_CI): a skip there checks nothing
		[ -z "${PROFILE_CI:-}" ] ||
			fail "no unprivileged user namespaces, which make check needs" || return 1
		echo "  skipped: no unprivileged user namespaces here, the bind mount cannot be made"
		return 0
	fi
	printf '0 7fffffffffff secret_root_name\n' > "$TMP/secret.map"
	chmod 600 "$TMP/secret.map"
	# unshare without --fork and sh's exec keep one pid: the workload's
	start_user unshare -Urm sh -c \
		"touch /tmp/perf-\$\$.map && mount --bind $TMP/secret.map /tmp/perf-\$\$.map && exec $W/hostile anon 6"
	wl=$LAST
	sleep 0.5
	measure "$TMP/ns.m" $PROFILE -F 199 -f -v -p "$wl" 2 > "$TMP/ns.folded" 2> "$TMP/ns.err"
	stop "$wl"
	rm -f "/tmp/perf-$wl.map"
	bounded "$TMP/ns.m" 5 3 || return 1
	[ "$(sum_matching '^hostile;' "$TMP/ns.folded")" -gt 100 ] || fail "the workload was not sampled" || return 1
	! grep -q 'secret_root_name' "$TMP/ns.folded" || fail "a root-only file shown as symbol names" || return 1
}

# 60,000 executable mappings (vm.max_map_count allows ~65,000): re-reading
# them every second as a -p target does not eat the CPU, and they all name.
# 1.4 s of CPU in 10 s: about half of it is any run's start (the verifier,
# the stack map's preallocation: perf record of this run), 1.0-1.17 s in all.
t_many_mappings() {
	start_user $W/hostile maps 60000 18
	wl=$LAST
	# until it burns: every mapping made
	i=0
	while [ "$(grep -c . /proc/$wl/maps 2> /dev/null || echo 0)" -lt 60000 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	measure "$TMP/maps.m" $PROFILE -F 99 -f -v -p "$wl" 10 > "$TMP/maps.folded" 2> "$TMP/maps.err"
	stop "$wl"
	bounded "$TMP/maps.m" 12 1.4 || return 1
	[ "$(sum_matching ';hostile_burn ' "$TMP/maps.folded")" -gt 100 ] ||
		fail "hostile_burn not named" || return 1
}

# Three binaries whose debug files take seconds each to checksum (3.9 GB,
# within the budget): SIGINT 2.5 s in is answered within about a second,
# with the profile printed (the files not read by then show as [file]).
t_sigint_during_loading() {
	pids=""
	for n in slow1 slow2 slow3; do
		user_binary $n
		truncate -s 3900M "$BIN.debug"
		chown $NOBODY:$NOBODY "$BIN.debug"
		start_user "$BIN" burn 20
		pids="$pids,$LAST"
	done
	sleep 0.3
	$PROFILE -F 199 -f -p "${pids#,}" 30 > "$TMP/slow.folded" 2> "$TMP/slow.err" &
	prof=$!
	sleep 2.5
	t0=$(date +%s.%N)
	kill -INT "$prof"
	wait "$prof"
	rc=$?
	t1=$(date +%s.%N)
	for p in $(echo "$pids" | tr , ' '); do stop "$p"; done
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	echo "  SIGINT answered in ${took}s, exit $rc"
	[ "$rc" -eq 0 ] || fail "exit status $rc: $(cat "$TMP/slow.err")" || return 1
	awk -v t="$took" -v k=$SLOW 'BEGIN { exit !(t <= 1.5 * k) }' ||
		fail "took ${took}s after SIGINT" || return 1
	[ "$(sum_matching 'slow' "$TMP/slow.folded")" -gt 100 ] ||
		fail "no profile printed: $(head -c 300 "$TMP/slow.folded")" || return 1
}

# A user's program whose .eh_frame names register 2^27 (libdw would size
# a table by it: minutes and a GiB), built from the 5:3:2 program: its
# table is refused at once (cfi_check.c), the run bounded, the program
# still sampled (walked by frame pointers).
t_crafted_eh_frame() {
	objcopy -O binary --only-section=.eh_frame \
		tests/fuzz/regressions/cfi/register-128m-libdw-gib-timeout "$TMP/crafted.bin" &&
		objcopy --update-section .eh_frame="$TMP/crafted.bin" -R .eh_frame_hdr \
			$W/hotspots_nofp "$H/crafted" || return 1
	chown $NOBODY:$NOBODY "$H/crafted"
	start_user "$H/crafted" 20
	wl=$LAST
	sleep 0.3
	measure "$TMP/cfi.m" $PROFILE -F 99 -f -v --no-unwind-cache -p "$wl" 3 \
		> "$TMP/cfi.folded" 2> "$TMP/cfi.err"
	stop "$wl"
	bounded "$TMP/cfi.m" $((5 * SLOW)) $((1 * SLOW)) || return 1
	grep -Eq ' [1-9][0-9]* files without a usable .eh_frame' "$TMP/cfi.err" ||
		fail "the crafted table was not refused: $(grep 'process readings' "$TMP/cfi.err")" || return 1
	# -v names it, and why
	grep "^profile: $H/crafted: " "$TMP/cfi.err" | sed 's/^/  /'
	grep -q "^profile: $H/crafted: .*register" "$TMP/cfi.err" ||
		fail "-v does not name the refused file" || return 1
	[ "$(sum_matching '^crafted;.*hot_[abc] ' "$TMP/cfi.folded")" -gt 100 ] ||
		fail "the program was not sampled" || return 1
}

# crafted_libs DIR N MODE ARG...: N libraries of the user's in DIR,
# lib0.so to lib<N-1>.so, for manylibs to dlopen() (and, with "call", to
# run in: tables are built for the files walks meet): a small loop each,
# its .eh_frame renamed away and one that eh_frame_gen.py MODE makes in
# its place (at PC 0x1000 + 2i, so that no two share a digest, then ARG...).
crafted_libs() {
	dir=$1 n=$2 mode=$3
	shift 3
	[ -e "$dir/lib$((n - 1)).so" ] && return 0
	mkdir -p "$dir"
	printf 'int crafted_fn(int x) { for (int i = 0; i < 300000; i++) __asm__ volatile("" : "+r"(x)); return x; }\n' > "$TMP/tiny.c"
	gcc -shared -fPIC -O2 "$TMP/tiny.c" -o "$TMP/tiny.so" || fail "cannot build a library" || return 1
	i=0
	while [ $i -lt "$n" ]; do
		python3 tests/integration/tools/eh_frame_gen.py "$mode" "$dir/eh.bin" $((0x1000 + 2 * i)) "$@" &&
			objcopy --rename-section .eh_frame=.eh_orig --add-section .eh_frame="$dir/eh.bin" \
				"$TMP/tiny.so" "$dir/lib$i.so" || fail "cannot make $dir/lib$i.so" || return 1
		i=$((i + 1))
	done
	rm -f "$dir/eh.bin"
	chown -R $NOBODY:$NOBODY "$dir"
}

# most_cpu ERR: the most of the worker's CPU one file took, from -v's report
most_cpu() {
	sed -n 's/.* CPU, \([0-9.]*\) s the most one took.*/\1/p' "$1"
}

# Two user programs whose .eh_frame passes every byte budget
# (eh_frame_gen.py): one that cost the worker 8-13 s, a CIE libdw must run
# naming register 128 and 1 M remember/restore pairs that libdw ran again
# for each of 400 rows, copying its 129-register frame at each: the
# remembers are charged as those copies, and it is refused before libdw
# runs a row; one with 2 MB of DW_CFA_nop instead (0.7 s of libdw), given
# up at the worker's CPU cap. -v: the most one file took, at most 0.5 s;
# the run bounded, the programs still sampled.
t_crafted_remembers() {
	pc=0x$(nm $W/hotspots_nofp | awk '$3 == "hot_a" { print $1 }')
	gen=tests/integration/tools/eh_frame_gen.py
	{ python3 $gen remember "$TMP/rem.bin" "$pc" 1000000 400 && python3 $gen nops "$TMP/nop.bin" "$pc" 2000000 400 &&
		objcopy --rename-section .eh_frame=.eh_orig --add-section .eh_frame="$TMP/rem.bin" \
			$W/hotspots_nofp "$H/remembers" &&
		objcopy --rename-section .eh_frame=.eh_orig --add-section .eh_frame="$TMP/nop.bin" \
			$W/hotspots_nofp "$H/nops"; } || fail "cannot make the programs" || return 1
	chown $NOBODY:$NOBODY "$H/remembers" "$H/nops"
	start_user "$H/remembers" 20
	p1=$LAST
	start_user "$H/nops" 20
	p2=$LAST
	sleep 0.3
	measure "$TMP/rem.m" timeout -s INT 60 $PROFILE -F 199 -f -v --no-unwind-cache -p "$p1,$p2" 3 \
		> "$TMP/rem.folded" 2> "$TMP/rem.err"
	stop "$p1"
	stop "$p2"
	grep "^profile: $H/\|of the worker's CPU" "$TMP/rem.err" | sed 's/^/  /'
	# start-up (-p waits for the entries, not their tables), 3 s, the end
	bounded "$TMP/rem.m" 7 1.2 || return 1
	most=$(most_cpu "$TMP/rem.err")
	[ -n "$most" ] || fail "no -v report of the worker's CPU a file" || return 1
	awk -v m="$most" 'BEGIN { exit !(m <= 0.5) }' || fail "one file took ${most} s of the worker's CPU" || return 1
	grep -q "^profile: $H/remembers: .*too long to run" "$TMP/rem.err" ||
		fail "-v does not name the remembers' file refused" || return 1
	grep -q "^profile: $H/nops: .*given up after 0.25 s of CPU" "$TMP/rem.err" ||
		fail "-v does not name the file given up at the CPU cap" || return 1
	for t in remembers nops; do
		n=$(sum_matching "^$t;.*hot_[abc] " "$TMP/rem.folded")
		[ "$n" -gt 100 ] || fail "$t was not sampled: $n samples in hot_X" || return 1
	done
}

# Twenty libraries of the remembers' .eh_frames dlopen()ed by one user
# process, profiled system-wide: each refused at once, a turn at most
# 0.25 s of the worker's CPU, users served by the CPU theirs took, so
# root's hotspots_nofp started 3 s later has 90% of its stacks whole
# (before: none, the worker busy for minutes with the user's files).
t_crafted_libraries_later_root() {
	crafted_libs "$H/remlibs" 20 remember 1000000 400 || return 1
	start timeout -s INT 60 $PROFILE -F 99 -f -v 15 > "$TMP/rl.folded" 2> "$TMP/rl.err"
	prof=$LAST
	sleep 1
	start_user $W/manylibs "$H/remlibs" 20 17 call
	filler=$LAST
	sleep 3
	start $W/hotspots_nofp 10
	victim=$LAST
	wait "$prof"
	rc=$?
	stop "$filler"
	stop "$victim"
	grep "of the worker's CPU\|given up after" "$TMP/rl.err" | sed 's/^/  /'
	[ "$rc" -eq 0 ] || fail "profile exited $rc: $(tail -2 "$TMP/rl.err")" || return 1
	nofp_whole "$TMP/rl.folded" "root's hotspots_nofp, 3 s after" || return 1
	most=$(most_cpu "$TMP/rl.err")
	awk -v m="${most:-9}" 'BEGIN { exit !(m <= 0.5) }' || fail "one file took ${most:-?} s of the worker's CPU" || return 1
}

# -p on a process of 20 libraries of the DW_CFA_nop .eh_frames (0.25 s of
# the worker's CPU each, 5 s together), its samples in each: the run waits
# only for the target's entry (2 s at most), not for tables (built as its
# walks ask, given up at the cap), samples meanwhile and ends on time
# (before, with the remembers': 50 s waiting for a 5 s run, and nothing
# sampled; with tables loaded before sampling, the 2 s wait).
t_crafted_libraries_p_waits_bounded() {
	crafted_libs "$H/noplibs" 20 nops 2000000 400 || return 1
	start_user $W/manylibs "$H/noplibs" 20 14 call
	wl=$LAST
	sleep 0.5
	measure "$TMP/pw.m" timeout -s INT 60 $PROFILE -F 199 -f -v --no-unwind-cache -p "$wl" 3 \
		> "$TMP/pw.folded" 2> "$TMP/pw.err"
	stop "$wl"
	grep "still being published\|given up after" "$TMP/pw.err" | head -3 | sed 's/^/  /'
	read -r wall rss cpu rc < "$TMP/pw.m"
	echo "  wall ${wall}s, CPU ${cpu}s, exit $rc"
	[ "$rc" -eq 0 ] || fail "exit status $rc" || return 1
	# start-up, 3 s, the end (the file under way given up at once): no 2 s wait for tables
	awk -v w="$wall" -v k=$SLOW 'BEGIN { exit !(w <= 4.8 * k) }' || fail "took ${wall}s for a 3 s run" || return 1
	! grep -q "still being published" "$TMP/pw.err" || fail "-p waited 2 s for the target's entry" || return 1
	grep -q "^profile: $H/noplibs/lib[0-9]*\.so: .*given up after 0.25 s of CPU" "$TMP/pw.err" ||
		fail "no table of the libraries was asked for and given up" || return 1
	n=$(sum_matching '^manylibs;' "$TMP/pw.folded")
	[ "$n" -gt 100 ] || fail "the process was not sampled: $n samples" || return 1
}

# A user who fills the rows: a process dlopen()s libraries whose tables
# take 2^21 rows down to 2^2 (the biggest first in its maps), so that they
# would fill every row of the default --unwind-storage-size; root's
# hotspots_nofp started later (its own table needed) still has its
# tables: a user holds half the rows at most (before: rows full, none
# whole). The shipped build says the user reached its quota (under ASan
# the biggest tables may pass the CPU cap first).
t_row_filling_user() {
	d=$H/rowfill
	if [ ! -e "$d/lib19.so" ]; then
		mkdir -p "$d"
		printf 'int crafted_fn(int x) { for (int i = 0; i < 300000; i++) __asm__ volatile("" : "+r"(x)); return x; }\n' > "$TMP/tiny.c"
		gcc -shared -fPIC -O2 "$TMP/tiny.c" -o "$TMP/tiny.so" || fail "cannot build a library" || return 1
		# lib i: 2^(2 + i) rows; mmap puts lib19, the biggest, lowest
		for i in $(seq 0 19); do
			python3 tests/integration/tools/eh_frame_gen.py rows "$d/eh.bin" $((0x1000 + 2 * i)) $((1 << (2 + i))) 0 &&
				objcopy --rename-section .eh_frame=.eh_orig --add-section .eh_frame="$d/eh.bin" \
					"$TMP/tiny.so" "$d/lib$i.so" || fail "cannot make lib$i.so" || return 1
		done
		rm -f "$d/eh.bin"
		chown -R $NOBODY:$NOBODY "$d"
	fi
	start timeout -s INT 60 $PROFILE -F 99 -f -v 15 > "$TMP/rf.folded" 2> "$TMP/rf.err"
	prof=$LAST
	sleep 1
	start_user $W/manylibs "$d" 20 17 call
	filler=$LAST
	sleep 4
	start $W/hotspots_nofp 9
	victim=$LAST
	wait "$prof"
	rc=$?
	stop "$filler"
	stop "$victim"
	grep "quota\|did not fit\|rows (" "$TMP/rf.err" | sed 's/^/  /'
	[ "$rc" -eq 0 ] || fail "profile exited $rc: $(tail -2 "$TMP/rf.err")" || return 1
	nofp_whole "$TMP/rf.folded" "root's hotspots_nofp, 4 s after" || return 1
	[ -n "${ASAN_OPTIONS:-}" ] || grep -q "their user's quota of rows reached .*uid $NOBODY the last" "$TMP/rf.err" ||
		fail "the user's quota was not reached, or not said" || return 1
}

# forged_libc: $TMP/forged, root's, a static-pie build of the 5:3:2
# program claiming the build-id of the libc qsortburn runs with: its
# .eh_frame and .symtab describe other code at libc's addresses (static
# glibc's setlocale, __gconv_lookup_cache...), with other frames.
forged_libc() {
	libc=$(ldd $W/qsortburn | awk '/libc\.so\.6/ { print $3 }')
	id=$(readelf -n "$libc" | awk '/Build ID:/ { print $3 }')
	[ -n "$id" ] || fail "no build-id in '$libc'" || return 1
	gcc -O2 -static-pie -fno-optimize-sibling-calls -Wl,--build-id=0x"$id" \
		tests/workloads/hotspots.c -o "$TMP/forged" || fail "cannot build the forged file" || return 1
	readelf -n "$TMP/forged" | grep -q "Build ID: $id" || fail "the forged file has another build-id" || return 1
}

# nofp_whole FOLDED TAG: hotspots_nofp's samples walked whole from _start
# to main;run_round;hot_X (its own table needed: built without frame
# pointers): at least 90%
nofp_whole() {
	all=$(sum_matching '^hotspots_nofp;' "$1")
	whole=$(sum_matching '^hotspots_nofp;_start;.*;main;run_round;hot_[abc] [0-9]+$' "$1")
	echo "  $2: $whole of $all samples whole"
	[ "$all" -gt 100 ] || fail "$2: only $all samples" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "$2: $(grep '^hotspots_nofp;' "$1" | sort -t' ' -k2 -rn | head -3)" || return 1
}

# victim_whole FOLDED TAG: qsortburn's samples in cmp walked whole and
# named as libc names them (msort_with_tmp, or [libc.so.6] without
# libc6-dbg): at least 90%.
victim_whole() {
	all=$(sum_matching '^qsortburn;.*;cmp [0-9]+$' "$1")
	whole=$(sum_matching '^qsortburn;_start;.*;main;sort_round;(__)?qsort(_r)?;((msort_with_tmp[^;]*|\[libc\.so\.6\]);)+cmp [0-9]+$' "$1")
	echo "  $2: $whole of $all samples in cmp from _start through main;sort_round;qsort_r"
	[ "$all" -gt 100 ] || fail "$2: only $all samples in cmp" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "$2: stacks not libc's: $(grep '^qsortburn;' "$1" | sort -t' ' -k2 -rn | head -3)" || return 1
}

# The forged file sampled by a run that writes the table cache; then a
# run of the same cache profiles qsort: libc's frames are unwound by
# libc's own rows (keyed by what they are built from, not a build-id).
t_forged_build_id_cache() {
	forged_libc || return 1
	start "$TMP/forged" 20
	fpid=$LAST
	sleep 0.3
	$PROFILE -U -F 199 -f -v --unwind-cache-dir "$TMP/ucache" -p "$fpid" 1 \
		> "$TMP/fc1.folded" 2> "$TMP/fc1.err" || fail "run 1: profile exited $?: $(tail -2 "$TMP/fc1.err")" || return 1
	stop "$fpid"
	grep 'process readings' "$TMP/fc1.err" | sed 's/^/  run 1: /'
	grep -Eq ' [1-9][0-9]* stored' "$TMP/fc1.err" || fail "run 1 stored no table" || return 1
	start $W/qsortburn 20
	vpid=$LAST
	sleep 0.3
	$PROFILE -U -F 499 -f -v --unwind-cache-dir "$TMP/ucache" -p "$vpid" 2 \
		> "$TMP/fc2.folded" 2> "$TMP/fc2.err" || fail "run 2: profile exited $?: $(tail -2 "$TMP/fc2.err")" || return 1
	stop "$vpid"
	grep 'unwind tables' "$TMP/fc2.err" | sed 's/^/  run 2: /'
	victim_whole "$TMP/fc2.folded" "run 2" || return 1
}

# Both in one run, no cache: libc's frames get neither the forged file's
# rows nor its names, and the forged file neither libc's.
t_forged_build_id_one_run() {
	forged_libc || return 1
	start "$TMP/forged" 20
	fpid=$LAST
	start $W/qsortburn 20
	vpid=$LAST
	sleep 0.3
	$PROFILE -U -F 499 -f -v --no-unwind-cache -p "$fpid,$vpid" 2 \
		> "$TMP/f1.folded" 2> "$TMP/f1.err" || fail "profile exited $?: $(tail -2 "$TMP/f1.err")" || return 1
	stop "$fpid"
	stop "$vpid"
	grep 'process readings' "$TMP/f1.err" | sed 's/^/  /'
	victim_whole "$TMP/f1.folded" "qsortburn" || return 1
	all=$(sum_matching '^forged;' "$TMP/f1.folded")
	own=$(sum_matching '^forged;.*;main;run_round;hot_[abc] [0-9]+$' "$TMP/f1.folded")
	echo "  forged: $own of $all samples main;run_round;hot_X"
	[ "$all" -gt 100 ] && [ "$(pct "$own" "$all")" -ge 90 ] ||
		fail "forged: $(grep '^forged;' "$TMP/f1.folded" | sort -t' ' -k2 -rn | head -3)" || return 1
}


# For 22 s the user runs fresh copies (new inodes: each copy is kept, or
# the next would reuse its inode, and be a file rewritten in place) of a
# program with 20,000 functions (690 KiB of table each), one after the
# other, each with a symbol renamed (so no two share a table), while root
# profiles the system with -i 1: every file's module and symbol table is
# freed once its process is gone and printed, so the floor of the
# profiler's RSS grows by less than 16 MiB over the last 10 s (main: +46
# and +50 MiB, about 60 copies' tables), and the last whole interval
# still names the copies' churn_spin. Not 8 MiB: the run is system-wide,
# and another process started meanwhile that maps a large file (a
# compiler) holds its table while it runs (steps of 9 and 13 MiB seen on
# a shared 2-CPU host). The tables worker lets go of its record of each
# copy once it is gone: -v counts at least one for every two copies run.
t_exec_churn_memory() {
	d=$H/churn
	mkdir -p "$d" "$TMP/mem"
	sh tests/workloads/manyfn.sh "$d/manyfn" || fail "cannot build the 20,000-function program" || return 1
	[ "$(nm "$d/manyfn" | grep -c ' T many_[0-9]')" -eq 20000 ] || fail "not 20,000 functions" || return 1
	off=$(grep -obUa many_id_AAAAAAAA "$d/manyfn" | cut -d: -f1)
	[ "$(echo "$off" | wc -w)" -eq 1 ] || fail "many_id_AAAAAAAA at '$off'" || return 1
	off=$((off + 8))
	chown -R $NOBODY:$NOBODY "$d"
	start $PROFILE -F 49 -f -v -i 1 -o "$TMP/mem/%H%M%S.folded" 600 2> "$TMP/mem/err"
	prof=$LAST
	sleep 1
	start_user sh -c 'cd "$1" && i=0 && while :; do
		cp manyfn c$i && printf %08d $i | dd of=c$i bs=1 seek=$2 conv=notrunc 2> /dev/null &&
		./c$i 150; i=$((i + 1)); echo $i > runs; done' sh "$d" "$off"
	churn=$LAST
	: > "$TMP/mem/rss"
	: > "$TMP/mem/runs"
	for s in $(seq 22); do
		sleep 1
		awk '/^VmRSS:/ { print $2 }' /proc/$prof/status >> "$TMP/mem/rss"
		cat "$d/runs" >> "$TMP/mem/runs" 2> /dev/null
	done
	last=$(ls "$TMP/mem" | grep folded | sort | tail -n 1)
	stop "$churn"
	stop "$prof"
	runs=$(cat "$d/runs")
	rm -f "$d"/c*
	rss=$(tr '\n' ' ' < "$TMP/mem/rss")
	echo "  $runs fresh copies run; RSS (KiB) each second: $rss"
	echo "  copies run by each second: $(tr '\n' ' ' < "$TMP/mem/runs")"
	echo "  $(grep -o '[0-9]* ELF files read[^,]*' "$TMP/mem/err")"
	[ "$(echo $rss | wc -w)" -eq 22 ] || fail "RSS read $(echo $rss | wc -w) times of 22: the profiler died?" || return 1
	# the floor (a printed interval's peak passes): the least of seconds 10-12, of 20-22
	set -- $(echo $rss | awk '{ a = $10; if ($11 < a) a = $11; if ($12 < a) a = $12
		b = $20; if ($21 < b) b = $21; if ($22 < b) b = $22; print a, b, b - a }')
	echo "  RSS from 10-12 s to 20-22 s: $(($1 / 1024)) -> $(($2 / 1024)) MiB, $3 KiB"
	[ "$runs" -gt 60 ] || fail "only $runs copies run" || return 1
	[ "$3" -lt 16384 ] || fail "RSS grew by $3 KiB in 10 s" || return 1
	named=$(sum_matching ';churn_spin [0-9]+$' "$TMP/mem/$last")
	echo "  the last whole interval ($last): $named samples in churn_spin"
	[ "$named" -gt 0 ] || fail "churn_spin not named in the last interval" || return 1
	# the tables worker's records of the copies went with them (before: one kept per pid met)
	gone=$(sed -n 's/.* \([0-9]*\) let go as their processes went.*/\1/p' "$TMP/mem/err")
	echo "  $(grep -o '[0-9]* records of processes kept at the end, [0-9]* let go' "$TMP/mem/err")"
	[ -n "$gone" ] && [ "$gone" -ge $((runs / 2)) ] ||
		fail "${gone:-no} records let go for $runs copies run" || return 1
}

run_shipped_test "a 40 GB sparse debug file is not checksummed" t_sparse_debuglink
run_shipped_test "debug links to /etc/shadow, a FIFO, a device: never opened" t_debuglink_not_a_file
run_shipped_test "a compressed .symtab claiming 1 GiB is not inflated" t_compressed_bomb
run_shipped_test "a 256 MiB perf map shared by three processes" t_huge_perfmap
run_shipped_test "a .symtab of 5 M symbols" t_huge_symtab
run_shipped_test "a root file bind-mounted over a perf map in a user namespace" t_userns_bind_mount
run_shipped_test "60,000 executable mappings" t_many_mappings
run_shipped_test "SIGINT while debug files are checksummed" t_sigint_during_loading
run_shipped_test "a crafted .eh_frame: refused at once, the run bounded" t_crafted_eh_frame
run_shipped_test "crafted .eh_frames: 1 M remembers refused at once, 2 MB of nops at the CPU cap" t_crafted_remembers
run_test "20 libraries of such .eh_frames: root's process started later has its tables" t_crafted_libraries_later_root
run_test "-p on a process of 20 libraries that take the CPU cap: sampling starts without waiting for their tables" t_crafted_libraries_p_waits_bounded
run_test "a user whose libraries would fill the rows: root's process started later has its tables" t_row_filling_user
run_test "a root file with libc's build-id: libc's rows from the cache are libc's own" t_forged_build_id_cache
run_test "a root file with libc's build-id: neither shares rows nor names with libc" t_forged_build_id_one_run
run_test "fresh copies of a 20,000-function program exec'd for 22 s: RSS flat under -i 1" t_exec_churn_memory
finish
