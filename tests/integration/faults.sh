#!/bin/sh
# faults.sh - what must not cost the profile that was collected: tiny maps,
# signals while printing, a corrupt ELF file under a running process.
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

run_test "tiny maps: what fits is printed, losses add up" t_tiny_maps
run_test "signals while printing: output complete" t_signal_while_printing
run_test "corrupt ELF under a running process" t_corrupt_elf
finish
