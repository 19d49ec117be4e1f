#!/bin/sh
# symbols.sh - end-to-end checks of where user symbols come from: run
# ./profile as root against workloads whose symbols are somewhere other
# than a plain unstripped file, and check the function names it prints.
#
#   a binary in a mount namespace, at a path the host does not have
#   a shared library deleted while its process runs
#   a stripped binary with its debug file found by .gnu_debuglink
#   a stripped binary with its debug file found by build-id (--debug-dir)
#   a stripped binary with MiniDebugInfo (.gnu_debugdata)
#   a stripped binary with no debug info: printed as [its-name]
#   JIT code in anonymous memory named by /tmp/perf-PID.map
#   C++ names, demangled (and not, with --no-demangle)
#   PLT stubs named func@plt: lazy .plt, IBT's .plt.sec, stripped or not
#   source lines with --lines
#   stripped files named by debug files fetched from debuginfod servers (a
#   local debuginfod, and fake ones that hang or lie), and no network work
#   without servers
#
# Needs root (BPF, perf events, unshare -m); builds its workloads with
# clang into a temporary directory. The last line is "symbols: N passed,
# N failed"; the exit status is non-zero when any failed.
set -u

SUITE=symbols
. "$(dirname "$0")/lib.sh"
SRC=tests/integration/symbols
CFLAGS="-O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"

cleanup_extra() {
	umount "$TMP/nsmnt" 2>/dev/null
}

# profile_pid PID NAME [OPTION...]: profile PID for 2 s into $TMP/NAME.folded
profile_pid() {
	pid=$1
	out=$TMP/$2
	shift 2
	$PROFILE "$@" -f -p "$pid" 2 > "$out.folded" 2> "$out.err" ||
		fail "profile exited $?: $(cat "$out.err")" || return 1
	[ -s "$out.folded" ] || fail "no samples: $(cat "$out.err")" || return 1
}

# has_frame NAME FILE: NAME is a whole frame of some folded stack
has_frame() {
	grep -qF -e ";$1;" -e ";$1 " "$2" ||
		fail "no frame '$1' in: $(head -c 600 "$2")"
}

# has_no_frame NAME FILE
has_no_frame() {
	! grep -qF -e ";$1;" -e ";$1 " "$2" || fail "frame '$1' should not be there"
}

# build_spin OUT HOT CALLER: spin.c with its own function names
build_spin() {
	clang $CFLAGS -DHOT="$2" -DCALLER="$3" "$SRC/spin.c" -o "$1"
}

# debug_split FULL STRIPPED DEBUG: the debug part of FULL into DEBUG, FULL stripped into STRIPPED
debug_split() {
	objcopy --only-keep-debug "$1" "$3" && strip -o "$2" "$1"
}

build_id_of() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3 }'
}

# --- debuginfod -----------------------------------------------------------

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

# start_fake_debuginfod NAME MODE [FILE]: tools/fake_debuginfod.py (hang,
# file, garbage) on a free loopback port, its URL in $URL; the connections
# it accepted are counted in $TMP/NAME.port.log.
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
	grep 'profile: debuginfod: ' "$1" || echo "(no debuginfod line)"
}

# --- tests -------------------------------------------------------------------

# The binary exists only on a tmpfs mounted inside the process's own mount
# namespace: the host has an empty directory at that path.
t_mount_namespace() {
	build_spin "$TMP/ns_spin" ns_only_hot ns_only_caller || return 1
	mkdir -p "$TMP/nsmnt"
	start unshare -m --propagation private sh -c \
		"mount -t tmpfs tmpfs '$TMP/nsmnt' && cp '$TMP/ns_spin' '$TMP/nsmnt/ns_only_spin' && exec '$TMP/nsmnt/ns_only_spin' 8"
	sleep 0.5
	[ ! -e "$TMP/nsmnt/ns_only_spin" ] || fail "the binary is visible on the host" || return 1
	grep -q "$TMP/nsmnt/ns_only_spin" "/proc/$LAST/maps" 2>/dev/null ||
		fail "workload not running from the namespace's path" || return 1
	rm -f "$TMP/ns_spin"	# nothing on the host has its symbols
	profile_pid "$LAST" ns || return 1
	stop "$LAST"
	has_frame ns_only_hot "$TMP/ns.folded" && has_frame ns_only_caller "$TMP/ns.folded"
}

t_deleted_library() {
	mkdir -p "$TMP/libdel"
	clang $CFLAGS -fPIC -shared "$SRC/libspin.c" -o "$TMP/libdel/libspin.so" &&
		clang $CFLAGS "$SRC/spin_lib.c" -L"$TMP/libdel" -lspin -Wl,-rpath,"$TMP/libdel" \
			-o "$TMP/spin_lib" || return 1
	start "$TMP/spin_lib" 8
	sleep 0.3
	rm -f "$TMP/libdel/libspin.so"
	grep -q "libspin.so (deleted)" "/proc/$LAST/maps" || fail "library not deleted" || return 1
	profile_pid "$LAST" deleted || return 1
	stop "$LAST"
	has_frame lib_deleted_hot "$TMP/deleted.folded"
}

t_debuglink() {
	build_spin "$TMP/dl_full" debuglink_hot debuglink_caller &&
		debug_split "$TMP/dl_full" "$TMP/dl_stripped" "$TMP/dl_spin.debug" &&
		objcopy --add-gnu-debuglink="$TMP/dl_spin.debug" "$TMP/dl_stripped" "$TMP/dl_spin" &&
		chmod +x "$TMP/dl_spin" && rm -f "$TMP/dl_full" "$TMP/dl_stripped" || return 1
	nm "$TMP/dl_spin" 2>/dev/null | grep -q debuglink_hot && fail "not stripped" && return 1
	start "$TMP/dl_spin" 8
	sleep 0.3
	profile_pid "$LAST" debuglink || return 1
	stop "$LAST"
	has_frame debuglink_hot "$TMP/debuglink.folded" &&
		has_frame debuglink_caller "$TMP/debuglink.folded"
}

t_build_id() {
	build_spin "$TMP/bid_full" buildid_hot buildid_caller || return 1
	id=$(build_id_of "$TMP/bid_full")
	[ -n "$id" ] || fail "no build-id" || return 1
	dir=$TMP/debugroot/.build-id/$(echo "$id" | cut -c1-2)
	mkdir -p "$dir"
	debug_split "$TMP/bid_full" "$TMP/bid_spin" "$dir/$(echo "$id" | cut -c3-).debug" || return 1
	rm -f "$TMP/bid_full"
	start "$TMP/bid_spin" 8
	sleep 0.3
	profile_pid "$LAST" buildid --debug-dir "$TMP/debugroot" || return 1
	stop "$LAST"
	has_frame buildid_hot "$TMP/buildid.folded" &&
		has_frame buildid_caller "$TMP/buildid.folded"
}

t_minidebuginfo() {
	build_spin "$TMP/mdi_full" minidebug_hot minidebug_caller &&
		sh tests/fixtures/minidebuginfo.sh "$TMP/mdi_full" "$TMP/mdi_spin" &&
		chmod +x "$TMP/mdi_spin" && rm -f "$TMP/mdi_full" || return 1
	readelf -SW "$TMP/mdi_spin" | grep -q gnu_debugdata || fail "no .gnu_debugdata" || return 1
	start "$TMP/mdi_spin" 8
	sleep 0.3
	profile_pid "$LAST" minidebug || return 1
	stop "$LAST"
	has_frame minidebug_hot "$TMP/minidebug.folded" &&
		has_frame minidebug_caller "$TMP/minidebug.folded"
}

# Stripped with nothing to find: the frames name the file instead.
t_stripped_names_the_file() {
	build_spin "$TMP/nodbg_full" nodebug_hot nodebug_caller &&
		strip -o "$TMP/nodebug_spin" "$TMP/nodbg_full" && rm -f "$TMP/nodbg_full" || return 1
	start "$TMP/nodebug_spin" 8
	sleep 0.3
	profile_pid "$LAST" nodebug || return 1
	stop "$LAST"
	has_no_frame nodebug_hot "$TMP/nodebug.folded" &&
		has_frame "[nodebug_spin]" "$TMP/nodebug.folded"
}

# A stripped binary under a directory whose name holds a terminal escape
# sequence: -v names it, with the control characters defused.
t_verbose_path_escaped() {
	dir=$(printf '%s/esc\033]0;owned\007dir' "$TMP")
	mkdir -p "$dir" && build_spin "$TMP/esc_full" esc_hot esc_caller &&
		strip -o "$dir/esc_spin" "$TMP/esc_full" || return 1
	start "$dir/esc_spin" 8
	sleep 0.3
	profile_pid "$LAST" esc -v || return 1
	stop "$LAST"
	grep -q 'esc?\]0;owned?dir/esc_spin: [0-9]* samples without symbols' "$TMP/esc.err" ||
		fail "no escaped path in: $(grep -a esc_spin "$TMP/esc.err")" || return 1
	! grep -q "$(printf '\033')" "$TMP/esc.err" || fail "an escape character reached stderr" || return 1
}

t_jit_perf_map() {
	clang $CFLAGS "$SRC/jit.c" -o "$TMP/jit" || return 1
	start sh -c "exec '$TMP/jit' 8 > '$TMP/jit.out'"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		grep -q ready "$TMP/jit.out" 2>/dev/null && break
		sleep 0.1
	done
	[ -s "/tmp/perf-$LAST.map" ] || fail "no /tmp/perf-$LAST.map" || return 1
	profile_pid "$LAST" jit || return 1
	stop "$LAST"
	rm -f "/tmp/perf-$LAST.map"
	has_frame jit_compiled_spin "$TMP/jit.folded" && has_frame main "$TMP/jit.folded"
}

# A process without JIT code (only files, [vdso] and [vsyscall] mapped
# executable) has no perf map looked for: /proc/PID/status and a walk
# under its root saved per process.
t_no_jit_no_perf_map() {
	start $W/hotspots 8
	sleep 0.3
	# LeakSanitizer cannot run under ptrace: the leak check is the other tests'
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat,openat2 -o "$TMP/nojit.strace" \
		$PROFILE -F 499 -f -p "$LAST" 1 > "$TMP/nojit.folded" 2> "$TMP/nojit.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/nojit.err")" || return 1
	stop "$LAST"
	has_frame hot_a "$TMP/nojit.folded" || return 1
	! grep -q "perf-$LAST\.map" "$TMP/nojit.strace" ||
		fail "looked for a perf map: $(grep "perf-$LAST" "$TMP/nojit.strace" | head -2)" || return 1
}

t_cxx_demangled() {
	clang++ $CFLAGS "$SRC/cxx.cc" -o "$TMP/cxx_spin" || return 1
	start "$TMP/cxx_spin" 8
	sleep 0.3
	profile_pid "$LAST" cxx || return 1
	profile_pid "$LAST" cxx_raw --no-demangle || return 1
	stop "$LAST"
	has_frame "app::engine::Worker<long>::crunch(unsigned long) const" "$TMP/cxx.folded" &&
		has_frame "app::engine::run_batch(app::engine::Worker<long> const&)" "$TMP/cxx.folded" &&
		has_frame "_ZNK3app6engine6WorkerIlE6crunchEm" "$TMP/cxx_raw.folded"
}

# A loop that calls labs() through the PLT: the samples in the stub print
# as labs@plt, never as _init (the function before .plt) nor as the file,
# in a lazy .plt with its symbols, stripped (-rdynamic names the rest),
# and IBT's .plt.sec, stripped.
t_plt_stubs() {
	f="$CFLAGS -fno-builtin $SRC/plt_spin.c"
	clang $f -Wl,-z,lazy -o "$TMP/plt_lazy" &&
		clang $f -rdynamic -Wl,-z,now -o "$TMP/plt_now_full" &&
		strip -o "$TMP/plt_strip" "$TMP/plt_now_full" &&
		clang $f -rdynamic -fcf-protection=full -Wl,-z,ibtplt -o "$TMP/plt_ibt_full" &&
		strip -o "$TMP/plt_ibt" "$TMP/plt_ibt_full" && chmod +x "$TMP/plt_strip" "$TMP/plt_ibt" ||
		return 1
	readelf -SW "$TMP/plt_ibt" | grep -q '\.plt\.sec' || fail "no .plt.sec in the IBT build" || return 1
	pids=
	for b in plt_lazy plt_strip plt_ibt; do
		start "$TMP/$b" 8
		pids=$pids${pids:+,}$LAST
	done
	sleep 0.3
	$PROFILE -U -f -F 999 -p "$pids" 2 > "$TMP/plt.folded" 2> "$TMP/plt.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/plt.err")" || return 1
	for p in $(echo "$pids" | tr , ' '); do stop "$p"; done
	for b in plt_lazy plt_strip plt_ibt; do
		grep "^$b;" "$TMP/plt.folded" > "$TMP/$b.folded"
		all=$(sum_matching . "$TMP/$b.folded")
		stub=$(sum_matching ';labs@plt [0-9]+$' "$TMP/$b.folded")
		echo "  $b: $stub of $all samples in labs@plt"
		# about 7% of the loop's time (perf sees as much)
		[ "$all" -gt 0 ] && [ "$(pct "$stub" "$all")" -ge 1 ] ||
			fail "$b: $stub of $all samples in labs@plt: $(sort -t' ' -k2 -rn "$TMP/$b.folded" | head -4)" ||
			return 1
		has_no_frame _init "$TMP/$b.folded" || return 1
		[ $b = plt_lazy ] || has_no_frame "[$b]" "$TMP/$b.folded" || return 1
	done
}

# --lines: the leaf at some line of its loop, the caller at the line of its call.
t_lines() {
	build_spin "$TMP/lines_spin" lines_hot lines_caller || return 1
	call_line=$(grep -n 'return HOT(1000000);' "$SRC/spin.c" | cut -d: -f1)
	start "$TMP/lines_spin" 8
	sleep 0.3
	profile_pid "$LAST" lines --lines || return 1
	stop "$LAST"
	grep -qE ';lines_hot \(spin\.c:[0-9]+\)( |;)' "$TMP/lines.folded" ||
		fail "no 'lines_hot (spin.c:N)' in: $(head -c 600 "$TMP/lines.folded")" || return 1
	has_frame "lines_caller (spin.c:$call_line)" "$TMP/lines.folded"
}

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
	grep -q 'debuginfod: 2 debug files fetched, 0 cached, 0 failed, 0 timed out' "$TMP/dfd.err" ||
		fail "$(debuginfod_line "$TMP/dfd.err")"
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
	grep -q 'debuginfod: 0 debug files fetched, 0 cached, 0 failed, 1 timed out' "$TMP/slow.err" ||
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
# garbage for another: no name changes.
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
	grep -q 'debuginfod: 0 debug files fetched, 0 cached, 2 failed, 0 timed out' "$TMP/liar.err" ||
		fail "$(debuginfod_line "$TMP/liar.err")" || return 1
	grep -q "fetched debug file not used: its build-id is another file's" "$TMP/liar.err" &&
		grep -q "fetched debug file not used: not an ELF file" "$TMP/liar.err" ||
		fail "no -v notices of the refused files: $(grep 'not used' "$TMP/liar.err")"
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

run_test "binary in another mount namespace" t_mount_namespace
run_test "library deleted while running" t_deleted_library
run_test "stripped, debug file by .gnu_debuglink" t_debuglink
run_test "stripped, debug file by build-id (--debug-dir)" t_build_id
run_test "stripped, MiniDebugInfo" t_minidebuginfo
run_test "stripped without debug info: frames name the file" t_stripped_names_the_file
run_test "-v prints a hostile path escaped" t_verbose_path_escaped
run_test "JIT code named by /tmp/perf-PID.map" t_jit_perf_map
run_test "no JIT code: no perf map looked for" t_no_jit_no_perf_map
run_test "C++ names demangled" t_cxx_demangled
run_test "PLT stubs named func@plt" t_plt_stubs
run_test "source lines (--lines)" t_lines
run_test "stripped program and library named by debuginfod" t_debuginfod_names
run_shipped_test "a hanging debuginfod: run and SIGINT on time" t_debuginfod_slow_server
run_test "a lying debuginfod changes no name" t_debuginfod_lying_server
run_test "no debuginfod servers: no connect()" t_debuginfod_no_server

finish
