#!/bin/bash
# bench/steady.sh - what a profiler left running costs once it has
# started (issue 25's steady state): on a busy host (a python3 loop and a
# compile loop: gcc's driver, cc1, as, sh, ls, sort, new processes all
# the time), each profiler samples the whole system at HZ and writes a
# snapshot every INTERVAL seconds, for DURATION seconds:
#
#   profile      ./profile -q -F HZ -i INTERVAL -o DIR/%s.folded --keep 3
#   profile-fp   the same, --call-graph fp
#   bpftrace     profile:hz:HZ { @[kstack, ustack, comm] = count(); }
#                interval:s:INTERVAL { print(@); clear(@); }
#
# For each: its CPU from FROM to TO seconds after it started (utime +
# stime from /proc/PID/stat, so start-up is left out) as a % of one CPU,
# and its max RSS (VmHWM) at TO. Medians of REPS runs, one markdown table
# to stdout, each run's figures on stderr. Needs root; installs bpftrace
# from Debian when missing.
#
#   HZ=49 INTERVAL=10 FROM=20 TO=38 REPS=3 bash bench/steady.sh
#   PROFILERS="profile profile-fp" (a subset); BASE=other/profile adds
#   base and base-fp, the same runs of another build.
set -u
cd "$(dirname "$0")/.." || exit 1
PROFILE=${PROFILE:-$PWD/profile}
BASE=${BASE:-}
HZ=${HZ:-49}
INTERVAL=${INTERVAL:-10}
FROM=${FROM:-20}
TO=${TO:-38}
REPS=${REPS:-3}
PROFILERS=${PROFILERS:-profile profile-fp ${BASE:+base base-fp} bpftrace}
TICK=$(getconf CLK_TCK)

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root"
[ -x "$PROFILE" ] || die "no $PROFILE: run make first"
[ -z "$BASE" ] || [ -x "$BASE" ] || die "no BASE build $BASE"
[ "$TO" -gt "$FROM" ] || die "TO ($TO) must be after FROM ($FROM)"
case " $PROFILERS " in *" bpftrace "*)
	command -v bpftrace > /dev/null || {
		log "installing bpftrace"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q bpftrace >&2 ||
			die "apt-get install bpftrace failed"
	} ;;
esac

TMP=$(mktemp -d /tmp/profile-steady.XXXXXX) || die "mktemp failed"
WL=""
. bench/busy_load.sh
cleanup() {
	busy_load_stop "$TMP"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the busy host, for the whole bench
busy_load_start "$TMP" 1

# cpu_ticks PID: its utime + stime so far (the fields after the comm's ')')
cpu_ticks() {
	local stat
	stat=$(cat "/proc/$1/stat" 2> /dev/null) || return 1
	echo "${stat##*) }" | awk '{ print $12 + $13 }'
}

# one PROF REP: "cpu_pct rss_mib"
one() {
	local prof=$1 dir=$TMP/$1.$2 pid c0 c1 rss
	mkdir -p "$dir"
	case $prof in
	profile | base | profile-fp | base-fp)
		local bin=$PROFILE
		case $prof in base*) bin=$BASE ;; esac
		set -- "$bin" -q -F "$HZ" -i "$INTERVAL" -o "$dir/%s.folded" --keep 3
		case $prof in *-fp) set -- "$@" --call-graph fp ;; esac ;;
	bpftrace) set -- bpftrace -e "profile:hz:$HZ { @[kstack, ustack, comm] = count(); }
		interval:s:$INTERVAL { print(@); clear(@); }" ;;
	esac
	"$@" > "$dir/out" 2> "$dir/err" &
	pid=$!
	sleep "$FROM"
	c0=$(cpu_ticks "$pid") || { log "$prof: exited before $FROM s: $(tail -1 "$dir/err")"; return 1; }
	sleep $((TO - FROM))
	c1=$(cpu_ticks "$pid") || { log "$prof: exited before $TO s: $(tail -1 "$dir/err")"; return 1; }
	rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	kill -INT "$pid"
	wait "$pid" 2> /dev/null
	case $prof in bpftrace) ;; *)
		[ "$(ls "$dir" | grep -c '\.folded$')" -ge 2 ] || log "$prof: fewer than 2 snapshots written" ;;
	esac
	awk -v c=$((c1 - c0)) -v t="$TICK" -v s=$((TO - FROM)) -v r="$rss" \
		'BEGIN { printf "%.2f %.1f\n", 100 * c / t / s, r / 1024 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for r in $(seq "$REPS"); do
	for prof in $PROFILERS; do
		# a profiler that failed leaves its repetition out (said on stderr)
		one "$prof" "$r" > "$TMP/row" && cat "$TMP/row" >> "$TMP/rows.$prof" &&
			log "rep $r $prof: $(cat "$TMP/row")"
	done
done
echo "| profiler | CPU % of one CPU, ${FROM}-${TO} s | max RSS MiB |"
echo "|---|--:|--:|"
for prof in $PROFILERS; do
	[ -s "$TMP/rows.$prof" ] || { echo "| $prof | — | — |"; continue; }
	echo "| $prof | $(awk '{ print $1 }' "$TMP/rows.$prof" | median) | $(awk '{ print $2 }' "$TMP/rows.$prof" | median) |"
done
