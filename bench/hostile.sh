#!/bin/sh
# hostile.sh crafted|libs|rowfill [PROFILE...] - what a hostile local user
# (uid 65534) costs the unwind tables worker, with each PROFILE binary in
# turn, REPS times (default 3; default binary ./profile; name the build
# before as a second one to have both in the same run). Root needed.
#
#   crafted  two programs whose .eh_frame passes every byte budget
#            (tests/integration/tools/eh_frame_gen.py): "remember", a CIE
#            libdw must run, naming register 128, and 1 M
#            remember/restore pairs before each of 400 rows; "nops", 2 MB
#            of DW_CFA_nop instead. Each profiled alone:
#            `PROFILE -F 99 -f -v --no-unwind-cache -p PID 3`. Prints the
#            run's wall and CPU (/usr/bin/time) and -v's CPU the worker
#            spent on files (all, the most one took).
#   libs     system-wide `PROFILE -F 99 -f -v 15`: the user's manylibs
#            dlopen()s 20 libraries of the "remember" .eh_frame; root's
#            hotspots_nofp (built without frame pointers) starts 3 s later,
#            for 10 s. Prints its samples walked whole (_start to
#            main;run_round;hot_X), of all.
#   rowfill  the same with libraries of 2^21 down to 2^2 rows (the
#            biggest first in the user's maps: 4,194,303 rows, the whole
#            default --unwind-storage-size); hotspots_nofp 4 s later for 9
#            s. Prints its whole stacks, and -v's rows and files refused.
set -u
mode=$1
shift
[ $# -gt 0 ] || set -- ./profile
REPS=${REPS:-3}
NOBODY=65534
W=build/workloads
GEN=tests/integration/tools/eh_frame_gen.py
d=$(mktemp -d /tmp/bench-hostile.XXXXXX)
chmod 755 "$d"
trap 'rm -rf "$d"' EXIT

# libs DIR MODE N ARGS...: N libraries for manylibs, the .eh_frame of lib i
# made by eh_frame_gen.py MODE at 0x1000 + 2i (ARGS, or "rows" of 2^(2+i))
libs() {
	dir=$1 kind=$2 n=$3
	shift 3
	mkdir -p "$dir"
	printf 'int crafted_fn(int x) { return x + 1; }\n' > "$d/tiny.c"
	gcc -shared -fPIC -O2 "$d/tiny.c" -o "$d/tiny.so" || exit 1
	for i in $(seq 0 $((n - 1))); do
		if [ "$kind" = rows ]; then
			python3 $GEN rows "$d/eh.bin" $((0x1000 + 2 * i)) $((1 << (2 + i))) 0
		else
			python3 $GEN "$kind" "$d/eh.bin" $((0x1000 + 2 * i)) "$@"
		fi || exit 1
		objcopy --rename-section .eh_frame=.eh_orig --add-section .eh_frame="$d/eh.bin" \
			"$d/tiny.so" "$dir/lib$i.so" || exit 1
	done
	chown -R $NOBODY:$NOBODY "$dir"
}

# a command as the user: setpriv execs it, so $! is its pid
AS_USER="setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups"

# whole FOLDED: "W of A" hotspots_nofp samples walked whole
whole() {
	awk '/^hotspots_nofp;/ { a += $NF }
		/^hotspots_nofp;_start;.*;main;run_round;hot_[abc] [0-9]+$/ { w += $NF }
		END { printf "%d of %d whole", w, a }' "$1"
}

# the victim run: system-wide PROFILE, the user's manylibs of DIR (N
# libraries), hotspots_nofp after AFTER s for SECS s
victim_run() {
	prof=$1 dir=$2 n=$3 after=$4 secs=$5
	timeout -s INT 120 "$prof" -F 99 -f -v 15 > "$d/v.folded" 2> "$d/v.err" &
	p=$!
	sleep 1
	$AS_USER $W/manylibs "$dir" "$n" 17 &
	u=$!
	sleep "$after"
	$W/hotspots_nofp "$secs" &
	v=$!
	wait $p
	kill $u $v 2> /dev/null
	wait $u $v 2> /dev/null
}

case $mode in
crafted)
	pc=0x$(nm $W/hotspots_nofp | awk '$3 == "hot_a" { print $1 }')
	python3 $GEN remember "$d/remember.bin" "$pc" 1000000 400 &&
		python3 $GEN nops "$d/nops.bin" "$pc" 2000000 400 || exit 1
	for k in remember nops; do
		objcopy --rename-section .eh_frame=.eh_orig --add-section .eh_frame="$d/$k.bin" \
			$W/hotspots_nofp "$d/$k" || exit 1
	done
	chown $NOBODY:$NOBODY "$d/remember" "$d/nops"
	for r in $(seq "$REPS"); do
		for prof in "$@"; do
			for k in remember nops; do
				$AS_USER "$d/$k" 120 &
				wl=$!
				sleep 0.3
				/usr/bin/time -f "%e %U %S" -o "$d/time" timeout -s INT 120 \
					"$prof" -F 99 -f -v --no-unwind-cache -p $wl 3 > /dev/null 2> "$d/err"
				kill $wl
				wait $wl 2> /dev/null
				worker=$(sed -n "s/.*: files took \([0-9.]*\) s of the worker's CPU, \([0-9.]*\) s the most.*/\1 s, the most one file \2 s/p" "$d/err")
				tail -n 1 "$d/time" | awk -v r="$r" -v p="$prof" -v k="$k" -v w="${worker:-(no such -v line)}" \
					'{ printf "rep %s %s %s: wall %.2f s, CPU %.2f s; worker for files: %s\n", r, p, k, $1, $2 + $3, w }'
			done
		done
	done
	;;
libs|rowfill)
	if [ "$mode" = libs ]; then
		libs "$d/libs" remember 20 1000000 400
		after=3 secs=10
	else
		libs "$d/libs" rows 20
		after=4 secs=9
	fi
	for r in $(seq "$REPS"); do
		for prof in "$@"; do
			victim_run "$prof" "$d/libs" 20 $after $secs
			echo "rep $r $prof: root's hotspots_nofp, $after s after: $(whole "$d/v.folded")"
			grep -o '[0-9]* of [0-9]* rows[^;]*;' "$d/v.err" | sed 's/^/  /'
			grep -o "[0-9]* over --unwind-storage-size, [0-9]* over a uid's quota of rows" "$d/v.err" | sed 's/^/  /'
			grep -o '[0-9]* over --unwind-storage-size, [0-9]* processes' "$d/v.err" | sed 's/^/  /'
			grep -o "files took [^;]*" "$d/v.err" | sed 's/^/  /'
		done
	done
	;;
*)
	echo "usage: bench/hostile.sh crafted|libs|rowfill [PROFILE...]" >&2
	exit 2
	;;
esac
