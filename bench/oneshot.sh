#!/bin/bash
# bench/oneshot.sh - what a one-shot profile costs, as a cron or timer
# snapshot pays it every time (issue 25's start cost): the CPU seconds
# (user + system), wall time and max RSS of a whole 1-second system-wide
# profile at 49 Hz, start-up (the verifier, the maps) and output included,
# against bpftrace and perf recording the same in the same run:
#
#   profile          ./profile -v -q -F 49 -o x.pb.gz 1 (unwind tables, Python frames)
#   profile-fp       ... --call-graph fp
#   profile-fp-nopy  ... --call-graph fp --no-python
#   bpftrace         profile:hz:49 { @[kstack, ustack, comm] = count(); } and exit after 1 s
#   perf             perf record -a -g -F 49 -- sleep 1 (raw data only: no symbols)
#
# REPS rounds, each profiler once per round in shuffled order; medians
# [min-max]. For profile, also the instructions the kernel's verifier went
# through to accept the program, from -v. A markdown table to stdout.
#
# With BASE=path/to/another/profile, also that build as base and base-fp,
# in the same rounds: a change's effect under the same load.
#
#   REPS=5 bash bench/oneshot.sh      PROFILERS="profile bpftrace" (a subset)
# Needs root; installs bpftrace and perf from Debian when missing.
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${REPS:-5}
BASE=${BASE:-}
PROFILERS=${PROFILERS:-profile profile-fp profile-fp-nopy ${BASE:+base base-fp} bpftrace perf}
PROFILE=${PROFILE:-$PWD/profile}

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root"
[ -x "$PROFILE" ] || die "no $PROFILE: run make first"
for p in $PROFILERS; do
	case $p in profile | profile-fp | profile-fp-nopy | bpftrace | perf) ;;
	base | base-fp) [ -x "$BASE" ] || die "$p: no BASE build" ;;
	*) die "unknown profiler '$p'" ;; esac
done
for t in bpftrace perf; do
	case " $PROFILERS " in *" $t "*) ;; *) continue ;; esac
	command -v $t > /dev/null && continue
	pkg=$t
	[ $t = perf ] && pkg=linux-perf
	log "installing $pkg"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkg >&2 || die "apt-get install $pkg failed"
done
[ -x /usr/bin/time ] || die "no /usr/bin/time (Debian's time package)"

TMP=$(mktemp -d /tmp/profile-oneshot.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cp "$PROFILE" "$TMP/profile" || die "cannot copy $PROFILE"
[ -z "$BASE" ] || cp "$BASE" "$TMP/base" || die "cannot copy $BASE"

# one PROF REP: "prof cpu_s wall_s rss_kib insns" to $TMP/runs
one() {
	local prof=$1 r=$TMP/$1.$2 insns=-
	case $prof in
	profile) set -- "$TMP/profile" -v -q -F 49 -o "$r.pb.gz" 1 ;;
	profile-fp) set -- "$TMP/profile" -v -q -F 49 --call-graph fp -o "$r.pb.gz" 1 ;;
	profile-fp-nopy) set -- "$TMP/profile" -v -q -F 49 --call-graph fp --no-python -o "$r.pb.gz" 1 ;;
	base) set -- "$TMP/base" -v -q -F 49 -o "$r.pb.gz" 1 ;;
	base-fp) set -- "$TMP/base" -v -q -F 49 --call-graph fp -o "$r.pb.gz" 1 ;;
	bpftrace) set -- bpftrace -e 'profile:hz:49 { @[kstack, ustack, comm] = count(); } interval:s:1 { exit(); }' ;;
	perf) set -- perf record -q -a -g -F 49 -o "$r.data" -- sleep 1 ;;
	esac
	/usr/bin/time -f "%U %S %e %M" -o "$r.time" "$@" > "$r.out" 2> "$r.err" ||
		{ log "$prof failed: $(tail -n 2 "$r.err" | tr '\n' ' ')"; return; }
	case $prof in profile* | base*)
		insns=$(sed -n 's/.* \([0-9]*\) instructions verified.*/\1/p' "$r.err") ;;
	esac
	awk -v p="$prof" -v i="${insns:--}" '{ printf "%s %.2f %.2f %d %s\n", p, $1 + $2, $3, $4, i }' \
		"$r.time" >> "$TMP/runs"
}

for ((rep = 1; rep <= REPS; rep++)); do
	for p in $(printf '%s\n' $PROFILERS | shuf); do
		log "rep $rep/$REPS $p"
		one "$p" "$rep"
	done
done

# median [min-max] of column c of profiler p's runs
stat() {
	awk -v p="$1" -v c="$2" '$1 == p { print $c }' "$TMP/runs" | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) { print "—"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			if (v[1] == v[NR]) print m; else printf "%s [%s–%s]\n", m, v[1], v[NR] }'
}

echo "| profiler | CPU s | wall s | max RSS KiB | verified instructions |"
echo "|---|--:|--:|--:|--:|"
for p in $PROFILERS; do
	echo "| $p | $(stat "$p" 2) | $(stat "$p" 3) | $(stat "$p" 4) | $(stat "$p" 5 | sed 's/^-$/—/') |"
done
