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
# (Debug files fetched from debuginfod servers are in debuginfod.sh.)
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

# debug_split FULL STRIPPED DEBUG: the debug part of FULL into DEBUG, FULL stripped into STRIPPED
debug_split() {
	objcopy --only-keep-debug "$1" "$3" && strip -o "$2" "$1"
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

# Stripped with nothing to find: the frames name the file instead, a run
# of them (main, the caller, the hot function) as one frame; the end of
# the run names the file and what would name its frames.
t_stripped_names_the_file() {
	build_spin "$TMP/nodbg_full" nodebug_hot nodebug_caller &&
		strip -o "$TMP/nodebug_spin" "$TMP/nodbg_full" && rm -f "$TMP/nodbg_full" || return 1
	start "$TMP/nodebug_spin" 8
	sleep 0.3
	profile_pid "$LAST" nodebug || return 1
	stop "$LAST"
	has_no_frame nodebug_hot "$TMP/nodebug.folded" &&
		has_frame "[nodebug_spin]" "$TMP/nodebug.folded" || return 1
	! grep -qF "[nodebug_spin];[nodebug_spin]" "$TMP/nodebug.folded" ||
		fail "a run of unnamed frames not collapsed: $(head -c 600 "$TMP/nodebug.folded")" || return 1
	grep -q "__libc_start_call_main;\[nodebug_spin\] [0-9]*$" "$TMP/nodebug.folded" ||
		fail "no collapsed leaf frame: $(head -c 600 "$TMP/nodebug.folded")" || return 1
	grep "no debug file found for $TMP/nodebug_spin: " "$TMP/nodebug.err" |
		grep -e '-dbgsym' | grep DEBUGINFOD_URLS | grep -q -e '--debug-dir' ||
		fail "no hint naming the file: $(cat "$TMP/nodebug.err")" || return 1
}

# A Debian library's hidden functions (liblzma's, under xz) with no debug
# file to be had (--debug-dir of nothing, no debuginfod): the hint names the
# file and its -dbgsym package, which dpkg's lists know as /lib/..., the
# process's maps as /usr/lib/....
t_debian_library_hint() {
	lib=$(readlink -f "$(ldd "$(command -v xz)" | awk '/liblzma/ { print $3 }')")
	pkg=$(dpkg -S "*/${lib##*/}" 2>/dev/null | sed -n '1s/:.*//p')
	[ -n "$lib" ] && [ -n "$pkg" ] || fail "xz's liblzma ('$lib') from no package ('$pkg')" || return 1
	mkdir -p "$TMP/nodebugdir"
	start sh -c 'exec xz -9e -T1 < /dev/urandom > /dev/null'
	sleep 0.5
	profile_pid "$LAST" xz -U --no-debuginfod --debug-dir "$TMP/nodebugdir" || return 1
	stop "$LAST"
	has_frame "[${lib##*/}]" "$TMP/xz.folded" || return 1
	grep "^profile: no debug file found for .*$lib" "$TMP/xz.err" | grep -qF "packages ($pkg-dbgsym" ||
		fail "no hint naming $lib and $pkg-dbgsym: $(cat "$TMP/xz.err")" || return 1
}

# --offsets: unnamed frames each with their ELF address, which addr2line
# takes; -v changes no frame.
t_stripped_offsets() {
	build_spin "$TMP/offs_full" offs_hot offs_caller &&
		strip -o "$TMP/offs_spin" "$TMP/offs_full" || return 1
	start "$TMP/offs_spin" 8
	sleep 0.3
	profile_pid "$LAST" offs -U --offsets || return 1
	profile_pid "$LAST" offsv -U -v || return 1
	stop "$LAST"
	! grep -q 'offs_spin+0x' "$TMP/offsv.folded" || fail "-v printed offsets: $(head -1 "$TMP/offsv.folded")" || return 1
	line=$(sort -k2 -n "$TMP/offs.folded" | tail -1)
	leaf=$(echo "$line" | sed -n 's/.*;\[offs_spin+\(0x[0-9a-f]*\)\] [0-9]*$/\1/p')
	[ -n "$leaf" ] || fail "no leaf with an offset: $line" || return 1
	name=$(addr2line -f -e "$TMP/offs_full" "$leaf" | head -1)
	[ "$name" = offs_hot ] || fail "leaf $leaf is '$name' in the unstripped file, not offs_hot" || return 1
	echo "$line" | grep -q 'offs_spin+0x[0-9a-f]*\];\[offs_spin+0x[0-9a-f]*\];\[offs_spin+0x' ||
		fail "--offsets collapsed the frames: $line" || return 1
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

run_test "binary in another mount namespace" t_mount_namespace
run_test "library deleted while running" t_deleted_library
run_test "stripped, debug file by .gnu_debuglink" t_debuglink
run_test "stripped, debug file by build-id (--debug-dir)" t_build_id
run_test "stripped, MiniDebugInfo" t_minidebuginfo
run_test "stripped without debug info: frames name the file, once a run, and a hint" t_stripped_names_the_file
run_test "stripped without debug info: --offsets keeps each frame's address" t_stripped_offsets
run_test "a Debian library without its debug file: the hint names its -dbgsym package" t_debian_library_hint
run_test "-v prints a hostile path escaped" t_verbose_path_escaped
run_test "JIT code named by /tmp/perf-PID.map" t_jit_perf_map
run_test "no JIT code: no perf map looked for" t_no_jit_no_perf_map
run_test "C++ names demangled" t_cxx_demangled
run_test "PLT stubs named func@plt" t_plt_stubs
run_test "source lines (--lines)" t_lines

finish
