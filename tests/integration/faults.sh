#!/bin/sh
# faults.sh - what must not cost the profile that was collected: tiny maps,
# stacks crafted to collide in the overflow hash, signals while printing, a
# corrupt ELF file under a running process; and a kernel that lacks a
# feature the BPF program needs (made to look so by an LD_PRELOAD shim, or
# by hiding its BTF).
# (Process churn is in processes.sh.) (Bad options, a target that exits, closed pipes, full disks and
# missing privileges are in run.sh.) Root needed; prints
# "faults: N passed, N failed" last.
set -u

SUITE=faults
. "$(dirname "$0")/lib.sh"
SRC=tests/integration/symbols
CFLAGS="-O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"

# Stack map and count hash far too small: what fit is printed, the losses
# are counted and named with their options, and printed + dropped samples
# equal what the kernel counted.
t_tiny_maps() {
	start $W/hotspots 30
	p1=$LAST
	start $W/syscalls 30
	sleep 0.3
	$PROFILE -F 999 -f -v --stack-storage-size 8 --hash-storage-size 4 2 \
		> "$TMP/tiny.folded" 2> "$TMP/tiny.err" || fail "profile exited $?" || return 1
	stop "$p1"
	stop "$LAST"
	grep -q 'raise --hash-storage-size' "$TMP/tiny.err" || fail "hash losses not reported" || return 1
	s=$(stat_field 4 "$TMP/tiny.err")
	d=$(stat_field 8 "$TMP/tiny.err")
	p=$(sum_matching '.' "$TMP/tiny.folded")
	echo "  kernel counted $s, printed $p, dropped $d"
	[ -n "$s" ] && [ "$p" -gt 0 ] && [ "$s" -eq $((p + d)) ] ||
		fail "printed + dropped != counted" || return 1
}

# Samples of "fnvcollide;[unknown];root_X;spin", fnvcollide's stack X.
fnv_samples() {
	sum_matching "^fnvcollide;[[]unknown[]];root_$1;spin [0-9]+\$" "$2"
}

# Different user stacks with the same FNV-1a hash of their frames, which
# any user can make (fnvcollide crafts three with its frame pointers: the
# frame-pointer walk, which the stack map holds, is what it tests), and
# a stack map of one stack: two or three of them go to the overflow hash
# under the same hash. Each is printed as itself, none merged into another.
t_overflow_same_hash() {
	start $W/fnvcollide 30 3 > "$TMP/fnv3.out"
	sleep 0.3
	$PROFILE -U -F 999 -f -v --call-graph fp --stack-storage-size 1 -p "$LAST" 2 \
		> "$TMP/fnv3.folded" 2> "$TMP/fnv3.err" || fail "profile exited $?" || return 1
	stop "$LAST"
	grep -q '^fnvcollide: 3 stacks' "$TMP/fnv3.out" || fail "no colliding stacks made" || return 1
	grep -Eq '\+[1-9][0-9]* kernel\+user stacks kept in the overflow map' "$TMP/fnv3.err" ||
		fail "overflow map unused" || return 1
	for r in a b c; do
		n=$(fnv_samples $r "$TMP/fnv3.folded")
		echo "  root_$r: $n samples"
		[ "$n" -gt 0 ] || fail "stack root_$r merged into another: $(cat "$TMP/fnv3.folded")" ||
			return 1
	done
	! grep -q 'Missed' "$TMP/fnv3.folded" || fail "stacks lost" || return 1
}

# Six such stacks: one fits in the stack map, four take the keys an
# overflow stack may try (its hash and the next three, profile.bpf.c); the
# sixth finds them all taken by other stacks and is lost and counted, not
# merged into one of them.
t_overflow_keys_taken() {
	start $W/fnvcollide 30 6 > "$TMP/fnv6.out"
	sleep 0.3
	$PROFILE -U -F 999 -f -v --call-graph fp --stack-storage-size 1 -p "$LAST" 2 \
		> "$TMP/fnv6.folded" 2> "$TMP/fnv6.err" || fail "profile exited $?" || return 1
	stop "$LAST"
	grep -q '^fnvcollide: 6 stacks' "$TMP/fnv6.out" || fail "no colliding stacks made" || return 1
	named=0
	for r in a b c d e f; do
		[ "$(fnv_samples $r "$TMP/fnv6.folded")" -gt 0 ] && named=$((named + 1))
	done
	lost=$(sum_matching '^fnvcollide;[[]Missed User Stack[]] [0-9]+$' "$TMP/fnv6.folded")
	echo "  $named stacks printed, $lost samples without their stack"
	[ "$named" -eq 5 ] || fail "$named stacks printed, want 5: $(cat "$TMP/fnv6.folded")" || return 1
	[ "$lost" -gt 0 ] || fail "no stack lost" || return 1
	grep -q '[1-9][0-9]* user stacks lost' "$TMP/fnv6.err" || fail "losses not reported" || return 1
}

# A second SIGINT while the profile is being resolved and printed does not
# cut it short: the output is complete and well formed.
t_signal_while_printing() {
	start $W/hotspots 30
	wl=$LAST
	sleep 0.3
	$PROFILE -F 999 -f -v -p "$wl" > "$TMP/sig2.folded" 2> "$TMP/sig2.err" &
	prof=$!
	sleep 2
	kill -INT "$prof"
	kill -INT "$prof"
	sleep 0.01
	kill -TERM "$prof"
	wait "$prof"
	rc=$?
	stop "$wl"
	[ "$rc" -eq 0 ] || fail "exit status $rc" || return 1
	! grep -Evq '^[^ ].* [0-9]+$' "$TMP/sig2.folded" || fail "malformed line" || return 1
	p=$(sum_matching '.' "$TMP/sig2.folded")
	s=$(stat_field 4 "$TMP/sig2.err")
	[ -n "$s" ] && [ "$p" -eq "$s" ] || fail "printed $p of $s samples" || return 1
}

# A library whose section headers are overwritten on disk while a process
# runs from it: its frames degrade to the file's name, the rest resolves.
t_corrupt_elf() {
	mkdir -p "$TMP/corrupt"
	clang $CFLAGS -fPIC -shared "$SRC/libspin.c" -o "$TMP/corrupt/libspin.so" &&
		clang $CFLAGS "$SRC/spin_lib.c" -L"$TMP/corrupt" -lspin -Wl,-rpath,"$TMP/corrupt" \
			-o "$TMP/corrupt/spin_lib" || return 1
	start "$TMP/corrupt/spin_lib" 8
	sleep 0.3
	# the section header table (never mapped) becomes garbage
	shoff=$(readelf -hW "$TMP/corrupt/libspin.so" | awk '/Start of section headers/ { print $5 }')
	size=$(stat -c %s "$TMP/corrupt/libspin.so")
	head -c $((size - shoff)) /dev/urandom |
		dd of="$TMP/corrupt/libspin.so" bs=1 seek="$shoff" conv=notrunc 2>/dev/null
	$PROFILE -U -F 499 -f -p "$LAST" 2 > "$TMP/corrupt.folded" 2> "$TMP/corrupt.err" ||
		fail "profile exited $?: $(cat "$TMP/corrupt.err")" || return 1
	stop "$LAST"
	grep -q ';main;\[libspin.so\] [0-9]*$' "$TMP/corrupt.folded" ||
		fail "library frame not named by its file: $(head -3 "$TMP/corrupt.folded")" || return 1
}

# A kernel older than 5.8 has no BPF ring buffer: creating one fails with
# EINVAL (tools/bpf_fault.c makes this kernel answer so). One line names
# what is missing and the kernel that has it; exit 1.
t_kernel_without_ringbuf() {
	cc -O1 -fPIC -shared tests/integration/tools/bpf_fault.c -o "$TMP/bpf_fault.so" -ldl ||
		return 1
	# 27: BPF_MAP_TYPE_RINGBUF; an ASan build must accept a library before its runtime
	BPF_FAULT_MAP_TYPE=27 LD_PRELOAD="$TMP/bpf_fault.so" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		$PROFILE -F 99 1 > "$TMP/noringbuf.out" 2> "$TMP/noringbuf.err"
	rc=$?
	[ "$rc" -eq 1 ] || fail "exit status $rc: $(cat "$TMP/noringbuf.err")" || return 1
	[ ! -s "$TMP/noringbuf.out" ] || fail "a profile printed" || return 1
	want="profile: this kernel lacks the BPF ring buffer (needs Linux 5.8 or later)"
	[ "$(cat "$TMP/noringbuf.err")" = "$want" ] ||
		fail "stderr: $(cat "$TMP/noringbuf.err")" || return 1
}

# A kernel without bpf_loop() (before 5.17): one line says so, and user
# stacks are walked by frame pointers; the profile is printed, exit 0.
t_kernel_without_bpf_loop() {
	cc -O1 -fPIC -shared tests/integration/tools/bpf_fault.c -o "$TMP/bpf_fault.so" -ldl ||
		return 1
	start $W/hotspots 30
	sleep 0.3
	# 181: BPF_FUNC_loop
	BPF_FAULT_HELPER=181 LD_PRELOAD="$TMP/bpf_fault.so" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		$PROFILE -U -F 199 -f -p "$LAST" 2 > "$TMP/noloop.folded" 2> "$TMP/noloop.err" ||
		fail "exit status $?: $(cat "$TMP/noloop.err")" || return 1
	stop "$LAST"
	grep -q '^profile: this kernel lacks bpf_loop() in perf event programs (Linux 5.17): user stacks by frame pointers only$' \
		"$TMP/noloop.err" || fail "stderr: $(cat "$TMP/noloop.err")" || return 1
	n=$(sum_matching '^hotspots;.*main;run_round;hot_[abc] [0-9]+$' "$TMP/noloop.folded")
	[ "$n" -gt 100 ] || fail "only $n samples by frame pointers" || return 1
}

# A kernel built without BTF (CONFIG_DEBUG_INFO_BTF) of any release: the
# verifier refuses bpf_get_current_task_btf(), which the walk by unwind
# tables calls. Made to look so by a tmpfs over /sys/kernel/btf in a mount
# namespace of the run's own: one line names BTF, user stacks by frame
# pointers, exit 0.
t_kernel_without_btf() {
	[ -e /sys/kernel/btf/vmlinux ] || fail "this kernel has no BTF to hide" || return 1
	start $W/hotspots 30
	sleep 0.3
	unshare -m --propagation private sh -c \
		"mount -t tmpfs none /sys/kernel/btf && exec $PROFILE -U -F 199 -f -p $LAST 2" \
		> "$TMP/nobtf.folded" 2> "$TMP/nobtf.err" ||
		fail "exit status $?: $(cat "$TMP/nobtf.err")" || return 1
	stop "$LAST"
	grep -qx 'profile: this kernel has no BTF (no /sys/kernel/btf/vmlinux): user stacks by frame pointers only' \
		"$TMP/nobtf.err" || fail "stderr: $(cat "$TMP/nobtf.err")" || return 1
	n=$(sum_matching '^hotspots;.*main;run_round;hot_[abc] [0-9]+$' "$TMP/nobtf.folded")
	[ "$n" -gt 100 ] || fail "only $n samples by frame pointers" || return 1
}

run_test "tiny maps: what fits is printed, losses add up" t_tiny_maps
run_test "stacks with the same overflow hash are not merged" t_overflow_same_hash
run_test "stacks whose overflow keys are all taken are lost, not merged" t_overflow_keys_taken
run_test "signals while printing: output complete" t_signal_while_printing
run_test "corrupt ELF under a running process" t_corrupt_elf
run_test "a kernel without the BPF ring buffer: one line, exit 1" t_kernel_without_ringbuf
run_test "a kernel without bpf_loop(): frame pointers, one line" t_kernel_without_bpf_loop
run_test "a kernel without BTF: frame pointers, one line naming BTF" t_kernel_without_btf
finish
