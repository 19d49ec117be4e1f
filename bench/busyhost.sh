#!/bin/bash
# bench/busyhost.sh - what whole user stacks cost on a busy host: two
# python3 loops (both CPUs) and a compile loop (gcc's driver, cc1, as, sh,
# ls, sort: new processes all the time, cc1's 478,000-row table) run while
# each profiler samples the whole system at HZ for DURATION seconds:
#
#   profile-fp     ./profile -f --call-graph fp
#   profile-cold   ./profile -f (unwind tables, the default), an empty cache
#   profile-warm   the same, its cache filled by a run before
#   perf-dwarf     perf record -a --call-graph dwarf, then perf script | fold
#   bpftrace       @[kstack, ustack, comm] = count() (frame pointers)
#
# For each: the profiler's CPU (user + sys, perf script included), max
# RSS, BPF ns per run (kernel.bpf_stats_enabled; profile and bpftrace),
# the wall time beyond DURATION until the output is complete (start-up,
# and the work after sampling: symbols, perf script), output bytes, and
# the share of python3's samples whose user stack reaches _start.
# Medians of REPS runs. Needs root, perf and bpftrace.
#
#   HZ=99 DURATION=8 REPS=3 PROFILE=./profile bash bench/busyhost.sh
#   PROFILERS="profile-cold profile-warm" (a subset; the cold before the warm)
#
# With BASE=path/to/another/profile, also that build as base-fp, base-cold
# and base-warm (a cache of its own), in the same repetitions: a change's
# effect under the same load. Each repetition runs every profiler once,
# in the order given.
set -u
cd "$(dirname "$0")/.." || exit 1
PROFILE=${PROFILE:-./profile}
BASE=${BASE:-}
HZ=${HZ:-99}
DURATION=${DURATION:-8}
REPS=${REPS:-3}
PROFILERS=${PROFILERS:-profile-fp profile-cold profile-warm ${BASE:+base-fp base-cold base-warm} perf-dwarf bpftrace}
TMP=$(mktemp -d /tmp/profile-busy.XXXXXX)
OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
WL=""
. bench/busy_load.sh
cleanup() {
	busy_load_stop "$TMP"
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS"
	rm -rf "$TMP"
}
trap cleanup EXIT
sysctl -q -w kernel.bpf_stats_enabled=1 || exit 1

# the busy host, for the whole bench
busy_load_start "$TMP" 2

# prog_ids PID, bpf_stats IDS...
. bench/bpf_stats.sh

# bpf_ns PID: ns per run of the perf_event programs PID holds, summed
bpf_ns() {
	local rt cnt
	read -r rt cnt < <(bpf_stats $(prog_ids "$1"))
	[ "$cnt" -gt 0 ] && echo $((rt / cnt)) || echo "—"
}

# whole FOLDED: % of python3's samples from _start
whole() {
	awk '/^python3;/ { n += $NF; if ($0 ~ /^python3;_start;/) w += $NF }
		END { if (n) printf "%.1f", 100 * w / n; else print "—" }' "$1"
}

# one PROF REP: "cpu rss_mib bpf_ns extra_wall_s bytes whole"
one() {
	local prof=$1 out=$TMP/$1.$2 pid tp ns="—" t0 t1 w="—"
	case $prof in
	profile-fp) set -- "$PROFILE" -f -F "$HZ" --call-graph fp "$DURATION" ;;
	profile-cold) rm -rf "$TMP/cache"
		set -- "$PROFILE" -f -F "$HZ" --unwind-cache-dir "$TMP/cache" "$DURATION" ;;
	profile-warm) set -- "$PROFILE" -f -F "$HZ" --unwind-cache-dir "$TMP/cache" "$DURATION" ;;
	base-fp) set -- "$BASE" -f -F "$HZ" --call-graph fp "$DURATION" ;;
	base-cold) rm -rf "$TMP/base-cache"
		set -- "$BASE" -f -F "$HZ" --unwind-cache-dir "$TMP/base-cache" "$DURATION" ;;
	base-warm) set -- "$BASE" -f -F "$HZ" --unwind-cache-dir "$TMP/base-cache" "$DURATION" ;;
	perf-dwarf) set -- perf record -q -a -F "$HZ" --call-graph dwarf -o "$out.data" -- sleep "$DURATION" ;;
	bpftrace) set -- bpftrace -e "profile:hz:$HZ { @[kstack, ustack, comm] = count(); }
		interval:s:$DURATION { exit(); }" ;;
	esac
	t0=$(date +%s.%N)
	/usr/bin/time -f "%U %S %M" -o "$out.time" "$@" > "$out.out" 2> "$out.err" &
	tp=$!
	sleep $((DURATION - 1))
	pid=$(pgrep -P $tp | head -1)
	[ "$prof" != perf-dwarf ] && [ -n "$pid" ] && ns=$(bpf_ns "$pid")
	wait $tp
	read -r u s rss < <(tail -1 "$out.time")
	if [ "$prof" = perf-dwarf ]; then
		/usr/bin/time -f "%U %S %M" -o "$out.time2" sh -c \
			"perf script -i '$out.data' 2> /dev/null | awk -f bench/fold-perf.awk > '$out.out'"
		read -r u2 s2 rss2 < <(tail -1 "$out.time2")
		u=$(echo "$u + $u2" | bc) s=$(echo "$s + $s2" | bc)
		[ "$rss2" -gt "$rss" ] && rss=$rss2
	fi
	t1=$(date +%s.%N)
	case $prof in bpftrace) ;; *) w=$(whole "$out.out") ;; esac
	printf '%.2f %d %s %.2f %d %s\n' "$(echo "$u + $s" | bc)" $((rss / 1024)) "$ns" \
		"$(echo "$t1 - $t0 - $DURATION" | bc)" "$(stat -c %s "$out.out")" "$w"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# profile-warm runs after profile-cold, over the cache it filled
for r in $(seq "$REPS"); do
	for prof in $PROFILERS; do
		one "$prof" "$r" >> "$TMP/rows.$prof"
		# each run's row on stderr: the spread behind the medians
		echo "bench: rep $r $prof: $(tail -1 "$TMP/rows.$prof")" >&2
	done
done
echo "| profiler | CPU s | max RSS MiB | BPF ns/run | wall beyond ${DURATION} s | output bytes | python3 whole % |"
echo "|---|--:|--:|--:|--:|--:|--:|"
for prof in $PROFILERS; do
	row="| $prof"
	for c in 1 2 3 4 5 6; do
		row="$row | $(awk -v c=$c '{ print $c }' "$TMP/rows.$prof" | median)"
	done
	echo "$row |"
done
