#!/bin/sh
# faults.sh - what must not cost the profile that was collected: tiny maps,
# stacks crafted to collide in the overflow hash, signals while printing, a
# corrupt ELF file under a running process; and a kernel that lacks a
# feature the BPF program needs (made to look so by an LD_PRELOAD shim, or
# by hiding its BTF); a capability the snapshot service's bounding set
# could leave out, said in one line. (Process churn is in processes.sh.) (Bad options, a target that exits, closed pipes, full disks and
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

# The capabilities profile-snapshot.service keeps (its
# CapabilityBoundingSet=, docs/packaging.md, *The snapshot service*), as setpriv spells them
UNIT_CAPS=-all,+bpf,+perfmon,+sys_ptrace,+dac_read_search,+checkpoint_restore,+syslog

# with_caps SET CMD...: CMD as root with bounding set SET and no new
# privileges, as the unit runs it
with_caps() {
	caps=$1
	shift
	setpriv --bounding-set="$caps" --no-new-privs "$@"
}

# whole_pct FILE: the percentage of hotspots_nofp's samples walked from
# _start to hot_X (unwind.sh: tables give ~100, frame pointers under 50)
whole_pct() {
	pct "$(sum_matching '^hotspots_nofp;_start;.*;main;run_round;hot_[abc] [0-9]+$' "$1")" \
		"$(sum_matching '^hotspots_nofp;' "$1")"
}

# The unit's capabilities less CAP_CHECKPOINT_RESTORE: /proc/PID/map_files
# opens nothing, so no unwind table is built. That is said in one line,
# once, also under -q (the service's flag), and counted under -v; the
# frameless program's stacks are then walked by frame pointers. Before,
# the run said nothing ("84 process readings, 0 files" under -v alone).
t_no_checkpoint_restore() {
	start $W/hotspots_nofp 30
	sleep 0.3
	with_caps "$UNIT_CAPS,-checkpoint_restore" $PROFILE -q -U -F 499 -f -p "$LAST" 1 \
		> "$TMP/ncr.folded" 2> "$TMP/ncr.err" || fail "profile exited $?: $(cat "$TMP/ncr.err")" || return 1
	with_caps "$UNIT_CAPS,-checkpoint_restore" $PROFILE -v -U -F 499 -f -p "$LAST" 1 \
		> /dev/null 2> "$TMP/ncr.v.err" || fail "profile -v exited $?: $(tail -1 "$TMP/ncr.v.err")" || return 1
	with_caps "$UNIT_CAPS" $PROFILE -q -U -F 499 -f -p "$LAST" 1 \
		> "$TMP/cr.folded" 2> "$TMP/cr.err" || fail "profile exited $?: $(cat "$TMP/cr.err")" || return 1
	stop "$LAST"
	echo "  without it: $(cat "$TMP/ncr.err")"
	grep 'unwind tables: .*readings' "$TMP/ncr.v.err" | cut -c1-160 | sed 's/^/  -v: /'
	echo "  stacks whole: $(whole_pct "$TMP/ncr.folded")% without it, $(whole_pct "$TMP/cr.folded")% with it"
	[ "$(wc -l < "$TMP/ncr.err")" -eq 1 ] &&
		grep -q '^profile: unwind tables need CAP_CHECKPOINT_RESTORE .*frame pointers$' "$TMP/ncr.err" ||
		fail "-q: want one line naming CAP_CHECKPOINT_RESTORE: $(cat "$TMP/ncr.err")" || return 1
	[ "$(grep -c CAP_CHECKPOINT_RESTORE "$TMP/ncr.v.err")" -eq 1 ] ||
		fail "-v: said $(grep -c CAP_CHECKPOINT_RESTORE "$TMP/ncr.v.err") times, want once" || return 1
	grep -Eq 'process readings, 0 files,' "$TMP/ncr.v.err" &&
		grep -Eq '; [1-9][0-9]* mappings whose file /proc/PID/map_files refused' "$TMP/ncr.v.err" ||
		fail "-v: refusals not counted: $(grep 'unwind tables' "$TMP/ncr.v.err")" || return 1
	[ "$(whole_pct "$TMP/ncr.folded")" -lt 50 ] || fail "stacks whole without tables?" || return 1
	[ ! -s "$TMP/cr.err" ] && [ "$(whole_pct "$TMP/cr.folded")" -ge 95 ] ||
		fail "with CAP_CHECKPOINT_RESTORE: $(cat "$TMP/cr.err") $(whole_pct "$TMP/cr.folded")% whole" || return 1
}

# The unit's capabilities less CAP_SYSLOG: where the kernel then shows
# /proc/kallsyms with every address 0 (kptr_restrict 1, or 0 with
# perf_event_paranoid above 1), one line names CAP_SYSLOG (before: "cannot
# read /proc/kallsyms: No such file or directory"); kernel frames stay
# [unknown]. With it they are named.
t_no_syslog() {
	start $W/syscalls 30
	sleep 0.3
	with_caps "$UNIT_CAPS,-syslog" $PROFILE -q -K -F 499 -f -p "$LAST" 1 \
		> "$TMP/nsl.folded" 2> "$TMP/nsl.err" || fail "profile exited $?: $(cat "$TMP/nsl.err")" || return 1
	with_caps "$UNIT_CAPS" $PROFILE -q -K -F 499 -f -p "$LAST" 1 \
		> "$TMP/sl.folded" 2> "$TMP/sl.err" || fail "profile exited $?: $(cat "$TMP/sl.err")" || return 1
	stop "$LAST"
	shown=$(with_caps "$UNIT_CAPS,-syslog" awk '$1 !~ /^0+$/ { n++ } END { print n + 0 }' /proc/kallsyms)
	named=$(sum_matching '^syscalls;.*(ksys_read|entry_SYSCALL)' "$TMP/sl.folded")
	unnamed=$(sum_matching '^syscalls(;\[unknown\])* [0-9]+$' "$TMP/nsl.folded")
	echo "  without it: $shown addresses shown; '$(cat "$TMP/nsl.err")'; $unnamed of $(sum_matching . "$TMP/nsl.folded") samples unnamed"
	[ "$named" -gt 0 ] && [ ! -s "$TMP/sl.err" ] ||
		fail "with CAP_SYSLOG: $named samples in ksys_read; $(cat "$TMP/sl.err")" || return 1
	if [ "$shown" -gt 0 ]; then
		echo "  (this kernel shows addresses without CAP_SYSLOG: kernel.perf_event_paranoid <= 1)"
		[ ! -s "$TMP/nsl.err" ] || fail "told: $(cat "$TMP/nsl.err")" || return 1
		return 0
	fi
	[ "$(wc -l < "$TMP/nsl.err")" -eq 1 ] &&
		grep -q '^profile: kernel symbols need CAP_SYSLOG: .*\[unknown\]$' "$TMP/nsl.err" ||
		fail "want one line naming CAP_SYSLOG: $(cat "$TMP/nsl.err")" || return 1
	[ "$unnamed" -eq "$(sum_matching . "$TMP/nsl.folded")" ] && [ "$unnamed" -gt 0 ] ||
		fail "kernel frames named without kallsyms?" || return 1
}

run_test "tiny maps: what fits is printed, losses add up" t_tiny_maps
run_test "stacks with the same overflow hash are not merged" t_overflow_same_hash
run_test "stacks whose overflow keys are all taken are lost, not merged" t_overflow_keys_taken
run_test "signals while printing: output complete" t_signal_while_printing
run_test "corrupt ELF under a running process" t_corrupt_elf
run_test "a kernel without the BPF ring buffer: one line, exit 1" t_kernel_without_ringbuf
run_test "a kernel without bpf_loop(): frame pointers, one line" t_kernel_without_bpf_loop
run_test "a kernel without BTF: frame pointers, one line naming BTF" t_kernel_without_btf
run_test "without CAP_CHECKPOINT_RESTORE: no unwind tables, said in one line and counted" t_no_checkpoint_restore
run_test "without CAP_SYSLOG: kernel frames unnamed, said in one line naming it" t_no_syslog
finish
