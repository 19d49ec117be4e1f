#!/bin/sh
# bench/count-test.sh - count.awk on small outputs of each format whose
# counts are known: workload samples, all samples, and those whose user
# stack reaches the thread's root. No root needed; exits non-zero on a
# wrong count.
set -u
cd "$(dirname "$0")" || exit 1
fails=0

check() {	# NAME FMT EXPECTED < INPUT
	got=$(awk -f count.awk -v fmt="$2")
	if [ "$got" = "$3" ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1: got '$got', want '$3'"
		fails=$((fails + 1))
	fi
}

# a root frame, none, a thread's root, a name that only starts like _start,
# another process's root
check "folded" folded "14 21 7" <<'IN'
bw_x;_start;main;f 3
bw_x;main;f 2
bw_x;clone3;start_thread;g 4
bw_x;_start_x;f 5
other;_start;f 7
IN

# a kernel stack with a user stack up to _start; a user stack that stops
# at an address; _start in the kernel stack only (not a user root); both
# stacks empty (on one line); another process's root
check "bpftrace" bpftrace "14 20 3" <<'IN'
Attaching 1 probe...


@[
    kfunc+1
, 
    ufunc+2
    _start+37
, bw_a]: 3
@[, 
    ufunc+2
    0x123
, bw_a]: 4
@[
    _start+1
, 
, bw_a]: 5
@[, , bw_b]: 2
@[, 
    _start+3
, python3]: 6
IN

[ "$fails" = 0 ]
