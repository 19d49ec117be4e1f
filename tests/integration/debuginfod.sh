#!/bin/sh
# debuginfod.sh - end-to-end checks of debug files fetched from debuginfod
# servers: run ./profile as root against stripped workloads of its own
# and servers on loopback, and check the names it prints, what the
# servers were asked for, and what is left in the cache:
#
#   a local debuginfod (the debuginfod package's) naming a stripped
#   program and library
#   fake servers (tools/fake_debuginfod.py) that hang, lie, or send bodies
#   past the size bound: endless, chunked, gzipped
#   bounds on what one user's files make us ask for
#   no network work without servers
#
# Every count in profile's -v line covers all the files of the processes
# profiled, libc's too on a machine without its debug file: a test asserts
# on its own files (in the server's log, in its frames) and on bounds.
# Needs root (BPF, perf events, tmpfs mounts); builds its workloads with
# clang into a temporary directory. The last line is "debuginfod: N
# passed, N failed"; the exit status is non-zero when any failed.
set -u

SUITE=debuginfod
. "$(dirname "$0")/lib.sh"
SRC=tests/integration/symbols
CFLAGS="-O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"

cleanup_extra() {
	for m in "$TMP"/cache-*; do
		mountpoint -q "$m" 2>/dev/null && umount "$m"
	done
}

# start_debuginfod DIR: the debuginfod package's server for the debug
# files in DIR on a free loopback port, its URL in $URL; it indexes DIR
# first: wait_debuginfod before asking it.
start_debuginfod() {
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	start debuginfod -F "$1" -p "$port" -d :memory: > "$TMP/debuginfod.$port.log" 2>&1
	URL=http://127.0.0.1:$port
}

# wait_debuginfod PROBE_FILE: until $URL serves PROBE_FILE's debug file
wait_debuginfod() {
	probe_id=$(build_id_of "$1")
	for i in $(seq 50); do
		rm -rf "$TMP/probe-cache"
		DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$TMP/probe-cache \
			debuginfod-find debuginfo "$probe_id" > /dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "$URL does not serve the debug file of $1: $(tail -3 "$TMP"/debuginfod.*.log)"
}

# start_fake_debuginfod NAME MODE [ARG...]: tools/fake_debuginfod.py (hang,
# lie, endless, chunked, gzip) on a free loopback port, its URL in $URL;
# the connections it accepted and the requests it read are in
# $TMP/NAME.port.log.
start_fake_debuginfod() {
	name=$1
	shift
	start python3 tests/integration/tools/fake_debuginfod.py "$TMP/$name.port" "$@"
	for i in $(seq 50); do
		[ -s "$TMP/$name.port" ] && break
		sleep 0.1
	done
	[ -s "$TMP/$name.port" ] || fail "fake debuginfod '$name' did not start" || return 1
	URL=http://127.0.0.1:$(cat "$TMP/$name.port")
}

# strip_to_server FULL STRIPPED SERVER_DIR: FULL's debug file into
# SERVER_DIR (what debuginfod -F serves), FULL stripped into STRIPPED
strip_to_server() {
	mkdir -p "$3" &&
		objcopy --only-keep-debug "$1" "$3/$(basename "$2").debug" &&
		strip -o "$2" "$1" && chmod +x "$2" && rm -f "$1"
}

# fetch_profile NAME URL PIDS [OPTION...]: profile PIDS for 1 s into
# $TMP/NAME.folded with debug files from URL, into a cache of its own
# (libdebuginfod remembers failures: one test's must not reach another)
fetch_profile() {
	name=$1 url=$2 pids=$3
	shift 3
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMP/cache-$name \
		$PROFILE -U -f -v -F 99 -p "$pids" "$@" 1 > "$TMP/$name.folded" 2> "$TMP/$name.err" ||
		fail "profile exited $?: $(grep -v ^libbpf "$TMP/$name.err" | tail -3)" || return 1
	[ -s "$TMP/$name.folded" ] || fail "no samples: $(grep -v ^libbpf "$TMP/$name.err" | tail -3)"
}

# debuginfod_line FILE: the -v line "debuginfod: N debug files fetched, ..."
debuginfod_line() {
	grep 'profile: debuginfod: [0-9]* debug files\? fetched' "$1" || echo "(no debuginfod line)"
}

# debuginfod_count WHAT FILE: the number before WHAT ("fetched", "too big",
# "timed out"...) in the -v line. These count every file of the processes
# profiled, libc's too where the machine has no debug file for it: a test
# asserts on bounds of them, and on its own files in the server's log.
debuginfod_count() {
	debuginfod_line "$2" | sed -n "s/.* \([0-9][0-9]*\) \(debug files\? \)\?$1,.*/\1/p"
}

# asked LOG ID: the requests for build-id ID's debug file in a server's log
asked() {
	grep -c "GET /buildid/$2/debuginfo" "$1"
}

# tmpfs_cache NAME MIB: a tmpfs of MIB MiB, root's alone, for fetch_profile NAME's cache
tmpfs_cache() {
	mkdir -p "$TMP/cache-$1" &&
		mount -t tmpfs -o size="$2"m,mode=0700 none "$TMP/cache-$1"
}

# watch_largest DIR OUT: the size of the largest file under DIR, every 20
# ms, appended to OUT until killed
watch_largest() {
	while :; do
		find "$1" -type f -printf '%s\n' 2>/dev/null | sort -n | tail -1
		sleep 0.02
	done >> "$2"
}

# largest OUT: the largest size watch_largest saw
largest() {
	sort -n "$1" | tail -1 | awk '{ print $1 + 0 }'
}

# kept_files DIR: the non-empty files left in a cache (empty ones are
# libdebuginfod's marks of files no server had)
kept_files() {
	find "$1" -type f -size +0 ! -name 'cache_*' ! -name 'max_unused_age_s'
}

# --- tests -------------------------------------------------------------------

# The 5:3:2 program and a library's static function, both stripped, their
# debug files only on a local debuginfod: named as if they were not stripped.
t_debuginfod_names() {
	d=$TMP/dfd
	mkdir -p "$d/bin" "$d/lib" &&
		cp $W/hotspots "$d/hotspots.full" &&
		strip_to_server "$d/hotspots.full" "$d/bin/hotspots" "$d/srv" &&
		clang $CFLAGS -Wl,--build-id=sha1 -fPIC -shared "$SRC/libstatic.c" \
			-o "$d/libdfdstatic.full" &&
		strip_to_server "$d/libdfdstatic.full" "$d/lib/libdfdstatic.so" "$d/srv" || return 1
	# the server indexes its directory while the program builds
	start_debuginfod "$d/srv"
	clang $CFLAGS -DLIB_ENTRY=lib_static_entry "$SRC/spin_lib.c" -L"$d/lib" -ldfdstatic \
		-Wl,-rpath,"$d/lib" -o "$d/bin/dfd_lib" || return 1
	nm "$d/bin/hotspots" 2>/dev/null | grep -q hot_a && fail "hotspots not stripped" && return 1
	wait_debuginfod "$d/bin/hotspots" || return 1
	start "$d/bin/hotspots" 8
	p1=$LAST
	start "$d/bin/dfd_lib" 8
	p2=$LAST
	sleep 0.3
	fetch_profile dfd "$URL" "$p1,$p2" || return 1
	stop "$p1"
	stop "$p2"
	all=$(sum_matching '^hotspots;' "$TMP/dfd.folded")
	named=$(sum_matching '^hotspots;.*main;run_round;hot_[abc] [0-9]+$' "$TMP/dfd.folded")
	[ "$all" -gt 0 ] && [ "$(pct "$named" "$all")" -ge 95 ] ||
		fail "$named of $all hotspots samples named main;...;hot_X: $(head -c 600 "$TMP/dfd.folded"); $(debuginfod_line "$TMP/dfd.err")" ||
		return 1
	has_frame lib_static_hot "$TMP/dfd.folded" || return 1
	# both served by the server, and both counted as fetched (libc and
	# ld.so too, where the machine has no debug files of its own for them)
	log=$(echo "$TMP"/debuginfod.*.log)
	for f in "$d/bin/hotspots" "$d/lib/libdfdstatic.so"; do
		grep -q "GET /buildid/$(build_id_of "$f")/debuginfo 200 " "$log" ||
			fail "$f's debug file not served: $(grep 'GET /buildid' "$log")" || return 1
	done
	[ "$(debuginfod_count fetched "$TMP/dfd.err")" -ge 2 ] || fail "$(debuginfod_line "$TMP/dfd.err")"
}

# A server that accepts and never answers: the run ends within its duration
# plus --debuginfod-deadline, a SIGINT during a long one is answered at
# once, and the frames name the file.
t_debuginfod_slow_server() {
	build_spin "$TMP/slow_full" slow_hot slow_caller &&
		strip -o "$TMP/slow_spin" "$TMP/slow_full" || return 1
	start_fake_debuginfod slow hang || return 1
	start "$TMP/slow_spin" 12
	pid=$LAST
	sleep 0.3
	t0=$(date +%s%N)
	fetch_profile slow "$URL" "$pid" --debuginfod-deadline 1 || return 1
	slow_ms=$((($(date +%s%N) - t0) / 1000000))
	[ -s "$TMP/slow.port.log" ] || fail "the server saw no connection" || return 1
	# 1 s of sampling, 1 s of deadline, and 3 s for the rest: loading the BPF
	# program (slower under ASan), printing, up to 300 ms at exit for the
	# fetch thread. Without the deadline: DEBUGINFOD_TIMEOUT, 90 s.
	[ "$slow_ms" -le 5000 ] || fail "a 1 s run took $slow_ms ms with a hanging server" || return 1
	has_no_frame slow_hot "$TMP/slow.folded" && has_frame "[slow_spin]" "$TMP/slow.folded" || return 1
	[ "$(asked "$TMP/slow.port.log" "$(build_id_of "$TMP/slow_spin")")" -ge 1 ] ||
		fail "slow_spin's debug file not asked for: $(cat "$TMP/slow.port.log")" || return 1
	grep -q 'debuginfod: 0 debug files fetched, 0 cached, 0 failed, 0 too big' "$TMP/slow.err" &&
		[ "$(debuginfod_count "timed out" "$TMP/slow.err")" -ge 1 ] ||
		fail "$(debuginfod_line "$TMP/slow.err")" || return 1
	# SIGINT during a long deadline: answered at once, not at the deadline
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$TMP/cache-slowint \
		$PROFILE -U -f -p "$pid" --debuginfod-deadline 60 > "$TMP/slowint.folded" 2> "$TMP/slowint.err" &
	prof=$!
	sleep 1.5
	t0=$(date +%s%N)
	kill -INT "$prof"
	wait "$prof" || fail "profile exited $? after SIGINT" || return 1
	int_ms=$((($(date +%s%N) - t0) / 1000000))
	stop "$pid"
	echo "  a 1 s run with a hanging server: $slow_ms ms; SIGINT answered in $int_ms ms"
	[ "$int_ms" -le 1000 ] || fail "SIGINT answered after $int_ms ms" || return 1
	has_frame "[slow_spin]" "$TMP/slowint.folded"
}

# A server that answers with another program's debug file (its symbols at
# the same addresses, other names) for one stripped program, and with
# garbage for another: no name changes, and neither file stays in the
# cache (libdebuginfod's empty mark of a missing file takes its place).
t_debuginfod_lying_server() {
	# two at a time (a failed build fails the strip or objcopy of its output)
	build_spin "$TMP/truth_full" truth_hot truth_caller &
	b1=$!
	build_spin "$TMP/liar_full" liar_hot liar_caller &&
		build_spin "$TMP/junk_full" junk_hot junk_caller
	wait "$b1"
	strip_to_server "$TMP/truth_full" "$TMP/truth_spin" "$TMP/liesrv" &&
		objcopy --only-keep-debug "$TMP/liar_full" "$TMP/liar.debug" &&
		strip_to_server "$TMP/junk_full" "$TMP/junk_spin" "$TMP/liesrv" || return 1
	id=$(build_id_of "$TMP/truth_spin")
	[ "$id" != "$(build_id_of "$TMP/liar.debug")" ] || fail "the lie has the same build-id" || return 1
	start_fake_debuginfod liar lie "$TMP/liar.debug" "$id" || return 1
	start "$TMP/truth_spin" 8
	p1=$LAST
	start "$TMP/junk_spin" 8
	p2=$LAST
	sleep 0.3
	fetch_profile liar "$URL" "$p1,$p2" || return 1
	stop "$p1"
	stop "$p2"
	[ "$(grep -c accepted "$TMP/liar.port.log")" -ge 2 ] ||
		fail "the server saw $(grep -c accepted "$TMP/liar.port.log") connections" || return 1
	for name in liar_hot truth_hot junk_hot; do
		has_no_frame $name "$TMP/liar.folded" || return 1
	done
	has_frame "[truth_spin]" "$TMP/liar.folded" && has_frame "[junk_spin]" "$TMP/liar.folded" ||
		return 1
	grep -q 'debuginfod: 0 debug files fetched, 0 cached, ' "$TMP/liar.err" &&
		[ "$(debuginfod_count failed "$TMP/liar.err")" -ge 2 ] ||
		fail "$(debuginfod_line "$TMP/liar.err")" || return 1
	grep -q "truth_spin: fetched debug file not used: its build-id is another file's" "$TMP/liar.err" &&
		grep -q "junk_spin: fetched debug file not used: not an ELF file" "$TMP/liar.err" ||
		fail "no -v notices of the refused files: $(grep 'not used' "$TMP/liar.err")" || return 1
	for f in truth_spin junk_spin; do
		[ -e "$TMP/cache-liar/$(build_id_of "$TMP/$f")/debuginfo" ] ||
			fail "no mark of $f's refused file in the cache" || return 1
	done
	[ -z "$(kept_files "$TMP/cache-liar")" ] ||
		fail "refused files stayed in the cache: $(kept_files "$TMP/cache-liar" | xargs ls -l)"
}

# A stripped program of its own and the server's hostile bodies (each run
# with DEBUGINFOD_MAXSIZE=8 MiB, the cache on a 64 MiB tmpfs): no file in
# the cache ever grows past 8 MiB, the transfer stops there (-v: too big),
# nothing is kept.
#   hostile_body NAME MODE [ARG]: fake_debuginfod.py MODE, $TMP/NAME.*
hostile_body() {
	name=$1
	shift
	build_spin "$TMP/${name}_full" "${name}_hot" "${name}_caller" &&
		strip -o "$TMP/${name}_spin" "$TMP/${name}_full" || return 1
	tmpfs_cache "$name" 64 || return 1
	start_fake_debuginfod "$name" "$@" || return 1
	start "$TMP/${name}_spin" 12
	pid=$LAST
	sleep 0.3
	start watch_largest "$TMP/cache-$name" "$TMP/$name.sizes"
	watcher=$LAST
	DEBUGINFOD_MAXSIZE=8388608 fetch_profile "$name" "$URL" "$pid" || return 1
	stop "$watcher"
	stop "$pid"
	max=$(largest "$TMP/$name.sizes")
	echo "  largest file in the cache: $max bytes; $(debuginfod_line "$TMP/$name.err")"
	[ "$(asked "$TMP/$name.port.log" "$(build_id_of "$TMP/${name}_spin")")" -ge 1 ] ||
		fail "not asked for: $(cat "$TMP/$name.port.log")" || return 1
	[ "$max" -le 8388608 ] || fail "a file of $max bytes in the cache, over 8 MiB" || return 1
	[ "$(debuginfod_count "too big" "$TMP/$name.err")" -ge 1 ] ||
		fail "$(debuginfod_line "$TMP/$name.err")" || return 1
	[ -z "$(kept_files "$TMP/cache-$name")" ] ||
		fail "kept in the cache: $(kept_files "$TMP/cache-$name" | xargs ls -l)" || return 1
	has_frame "[${name}_spin]" "$TMP/$name.folded"
}

# A chunked body that never ends (no Content-Length): before, it filled
# the tmpfs.
t_debuginfod_endless_body() {
	hostile_body endless endless
}

# A chunked body of 24 MiB (no Content-Length, so libdebuginfod's own
# DEBUGINFOD_MAXSIZE check never sees it): before, it landed, was refused,
# and stayed in the cache.
t_debuginfod_chunked_body() {
	hostile_body chunked chunked 25165824
}

# 256 MiB of zeros gzipped (256 KiB), sent with Content-Encoding: gzip: libcurl
# decodes it whatever was asked for. We ask for identity; before, the
# decoded file filled the tmpfs.
t_debuginfod_gzip_body() {
	hostile_body gzip gzip 268435456 || return 1
	grep -q "GET /buildid/$(build_id_of "$TMP/gzip_spin")/debuginfo accept-encoding=identity$" \
		"$TMP/gzip.port.log" || fail "identity not asked for: $(grep GET "$TMP/gzip.port.log")"
}

# Any user decides which build-ids we ask for: 6 stripped copies of a
# program with build-ids of their own, owned by uid 65534, and one of
# root's. With --debuginfod-max-user-files 3, 3 of the user's are asked
# for and 3 are not (one line says so), root's is asked for all the
# same; what the server sent (garbage) leaves the cache.
t_debuginfod_user_bound() {
	clang $CFLAGS -DHOT=bound_hot -DCALLER=bound_caller -c "$SRC/spin.c" -o "$TMP/bound.o" ||
		return 1
	pids=""
	for i in 1 2 3 4 5 6 7; do
		id=$(od -An -N20 -tx1 /dev/urandom | tr -d ' \n')
		clang -Wl,--build-id=0x$id "$TMP/bound.o" -o "$TMP/bound_full$i" &&
			strip -o "$TMP/bound_spin$i" "$TMP/bound_full$i" || return 1
		[ "$i" -eq 7 ] || chown 65534 "$TMP/bound_spin$i"
		start "$TMP/bound_spin$i" 12
		pids="$pids${pids:+,}$LAST"
	done
	start_fake_debuginfod bound lie /dev/null 0 || return 1
	sleep 0.3
	fetch_profile bound "$URL" "$pids" --debuginfod-max-user-files 3 || return 1
	for p in $(echo "$pids" | tr , ' '); do stop "$p"; done
	n=0
	for i in 1 2 3 4 5 6; do
		n=$((n + $(asked "$TMP/bound.port.log" "$(build_id_of "$TMP/bound_spin$i")")))
	done
	echo "  the user's files asked for: $n of 6; $(debuginfod_line "$TMP/bound.err")"
	[ "$n" -eq 3 ] || fail "$n of the user's 6 files asked for, want 3" || return 1
	[ "$(asked "$TMP/bound.port.log" "$(build_id_of "$TMP/bound_spin7")")" -ge 1 ] ||
		fail "root's file not asked for" || return 1
	grep -qx 'profile: debuginfod: 3 debug files not asked for: over --debuginfod-max-user-files (3 for the files of one user)' \
		"$TMP/bound.err" || fail "no line on the files not asked for: $(grep debuginfod "$TMP/bound.err")" ||
		return 1
	[ -z "$(kept_files "$TMP/cache-bound")" ] ||
		fail "the server's files stayed in the cache: $(kept_files "$TMP/cache-bound" | xargs ls -l)"
}

# No server, or --no-debuginfod: not one connect(). The same run with a
# server (a closed port) does connect, so strace would have seen it.
t_debuginfod_no_server() {
	build_spin "$TMP/nonet_full" nonet_hot nonet_caller &&
		strip -o "$TMP/nonet_spin" "$TMP/nonet_full" || return 1
	start "$TMP/nonet_spin" 10
	pid=$LAST
	sleep 0.3
	for run in unset off on; do
		case $run in
		unset) set -- env -u DEBUGINFOD_URLS ;;
		off) set -- env DEBUGINFOD_URLS=http://127.0.0.1:9 "$PROFILE" --no-debuginfod ;;
		on) set -- env DEBUGINFOD_URLS=http://127.0.0.1:9 "$PROFILE" ;;
		esac
		[ "$run" = unset ] && set -- "$@" "$PROFILE"
		export DEBUGINFOD_CACHE_PATH="$TMP/cache-nonet-$run"
		# LeakSanitizer cannot run under ptrace (the other tests check leaks)
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=connect -o "$TMP/nonet-$run.strace" \
			"$@" -U -f -p "$pid" 1 > "$TMP/nonet-$run.folded" 2> "$TMP/nonet-$run.err" ||
			fail "$run: profile exited $?: $(tail -3 "$TMP/nonet-$run.err")" || return 1
		n=$(grep -c 'connect(' "$TMP/nonet-$run.strace")
		if [ "$run" = on ]; then
			[ "$n" -gt 0 ] || fail "with a server: no connect() seen" || return 1
		else
			[ "$n" -eq 0 ] || fail "$run: $n connect() calls: $(grep 'connect(' "$TMP/nonet-$run.strace" | head -3)" ||
				return 1
		fi
	done
	unset DEBUGINFOD_CACHE_PATH
	stop "$pid"
	return 0
}

run_test "stripped program and library named by debuginfod" t_debuginfod_names
run_shipped_test "a hanging debuginfod: run and SIGINT on time" t_debuginfod_slow_server
run_test "a lying debuginfod changes no name, and what it sent leaves the cache" t_debuginfod_lying_server
run_test "an endless chunked body stops at the size bound" t_debuginfod_endless_body
run_test "a chunked body over the bound stops there, nothing kept" t_debuginfod_chunked_body
run_test "a gzip bomb stops at the size bound; identity asked for" t_debuginfod_gzip_body
run_test "what one user's files make us ask for is bounded" t_debuginfod_user_bound
run_test "no debuginfod servers: no connect()" t_debuginfod_no_server

finish
