#!/bin/bash
# bench/python.sh - what the Python walk costs (issue 24 item 8): the BPF
# program's ns per sample with and without it, against bpftrace's walk by
# frame pointers, in the same run. Two Debian python3 running
# tests/workloads/python/pyhot.py (the 5:3:2 script) under the comm
# "pybench" (tests run pyhot.py as "pyhot" meanwhile), one pinned to each
# CPU, run throughout; each profiler samples the whole system at HZ:
#
#   profile          ./profile -f -v (unwind tables and the Python walk, the default)
#   profile-nopy     ./profile -f -v --no-python
#   profile-fp       ./profile -f -v --call-graph fp (the Python walk by frame pointers)
#   profile-fp-nopy  ./profile -f -v --call-graph fp --no-python
#   bpftrace         @[kstack, ustack, comm] = count() (frame pointers)
#
# Per repetition, one run of each, in shuffled order. A run: start the
# profiler, wait until its programs are attached, SETTLE seconds (unwind
# tables and Python processes are looked at on their first samples), read
# the kernel's bpf_stats (kernel.bpf_stats_enabled=1) of its perf_event
# programs, DURATION seconds, read them again, SIGINT. BPF ns per sample
# is run_time_ns / run_cnt between the two readings: both CPUs, so a
# sample of another process (or of the idle task, where profile returns
# at once) counts too. Also the profiler's CPU seconds (start to exit,
# symbols and printing included) and max RSS, and, of pybench's samples
# in profile's folded output, the share with pyhot.py's Python frames (a
# run that lost the walk shows). The ratio to bpftrace is taken within each
# repetition. A markdown table of medians [min-max] goes to stdout and,
# with the date, machine, commit and command, to RESULTS_MD; the runs, one
# line each, beside it (.txt). A run where fewer than 95% of pybench's
# samples had Python frames is said on stderr, with -v's line of them.
#
#   REPS=3 DURATION=5 SETTLE=1 HZ=999 bash bench/python.sh
#   PROFILERS="profile bpftrace" (a subset)  RESULTS_MD=bench/results-python.md
#   PYTHON=/usr/bin/python3  PROFILE=./profile  KEEP_TMP=1 keeps the runs' files
# Needs root, bpftool, bpftrace (installed from Debian when missing), gcc.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
CMDLINE="$(for v in REPS DURATION SETTLE HZ PROFILERS PYTHON RESULTS_MD; do
	[ -n "${!v+x}" ] && printf "%s='%s' " "$v" "${!v}"; done)bash bench/python.sh"
REPS=${REPS:-3}
DURATION=${DURATION:-5}
SETTLE=${SETTLE:-1}
HZ=${HZ:-999}
PROFILERS=${PROFILERS:-profile profile-nopy profile-fp profile-fp-nopy bpftrace}
PYTHON=${PYTHON:-/usr/bin/python3}
PROFILE=${PROFILE:-$ROOT/profile}
RESULTS_MD=${RESULTS_MD:-$ROOT/bench/results-python.md}
HOTP=$ROOT/tests/workloads/python/pyhot.py

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (BPF, sysctl)"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (a pyhot on each of CPUs 0 and 1)"
[ -x "$PROFILE" ] || die "no $PROFILE: run make first"
for p in $PROFILERS; do
	case $p in profile | profile-nopy | profile-fp | profile-fp-nopy | bpftrace) ;;
	*) die "unknown profiler '$p'" ;; esac
done
. bench/bpf_stats.sh
# WL: the two pyhot; RM: the run's runmeter, while it runs
bench_start pybench taskset shuf "$PYTHON"
# the same profile for every run, even if the tree is rebuilt meanwhile
cp "$PROFILE" "$TMP/profile" || die "cannot copy $PROFILE"
COMMIT=$(git -C "$ROOT" describe --always --dirty 2> /dev/null || echo '?')

for cpu in 0 1; do
	taskset -c $cpu "$PYTHON" "$HOTP" 100000 pybench & WL="$WL $!"
done
sleep 1


# kv FILE KEY: the value of KEY=value in a runmeter stats file
kv() { sed -n "s/.*\\<$2=\\([^ ]*\\).*/\\1/p" "$1" 2> /dev/null; }

# one PROF REP: one line "rep prof ok run_ns runs cpu_s rss_kb ours py_samples frames all"
one() {
	local prof=$1 rep=$2 r=$TMP/$1.$2 ok=1 ours py fr all
	case $prof in
	profile) set -- "$TMP/profile" -f -v -F "$HZ" ;;
	profile-nopy) set -- "$TMP/profile" -f -v -F "$HZ" --no-python ;;
	profile-fp) set -- "$TMP/profile" -f -v -F "$HZ" --call-graph fp ;;
	profile-fp-nopy) set -- "$TMP/profile" -f -v -F "$HZ" --call-graph fp --no-python ;;
	bpftrace) set -- bpftrace -e "profile:hz:$HZ { @[kstack, ustack, comm] = count(); }" ;;
	esac
	bench_window "$prof" "$r" "$@" || ok=0
	[ "$(kv "$r.stats" rc)" = 0 ] || { ok=0; log "$prof: exit $(kv "$r.stats" rc): $(tail -n 2 "$r.err" | tr '\n' ' ')"; }
	# pybench's samples, those with Python frames, their frames (kernel
	# and user); all samples in the output
	if [ "$prof" = bpftrace ]; then
		read -r ours py fr all < <(awk '/^@\[/ { k = 0 } /^    / { k++ }
			/\]: [0-9]+$/ { a += $NF }
			/^(@\[)?, pybench\]: [0-9]+$/ { c = $NF; n += c; f += c * k }
			END { print n + 0, "-", f + 0, a + 0 }' "$r.out")
	else
		read -r ours py fr all < <(awk -v f=" ($HOTP)" '{ a += $NF } /^pybench;/ { c = $NF; n += c
				if (index($0, f)) p += c
				fr += c * (split($0, x, ";") - 1) }
			END { print n + 0, p + 0, fr + 0, a + 0 }' "$r.out")
	fi
	# a run that lost the Python walk for some of pybench's samples: what -v said of it
	case $prof in profile | profile-fp)
		[ "$ours" -gt 0 ] && [ $((py * 100 / ours)) -lt 95 ] &&
			log "$prof rep $rep: $py of $ours pybench samples with Python frames; $(grep -h '^profile: python:' "$r.err")" ;;
	esac
	echo "$rep $prof $ok $WIN_NS $WIN_RUNS $(kv "$r.stats" cpu) $(kv "$r.stats" maxrss_kb) $ours $py $fr $all"
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
log "REPS=$REPS DURATION=${DURATION}s HZ=$HZ: about $((REPS * $(echo $PROFILERS | wc -w) * (DURATION + SETTLE + 3) / 60 + 1)) min"
: > "$TMP/raw"
for ((rep = 1; rep <= REPS; rep++)); do
	for prof in $(printf '%s\n' $PROFILERS | shuf); do
		log "rep $rep/$REPS $prof"
		one "$prof" "$rep" >> "$TMP/raw"
	done
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
RESULTS_RAW=${RESULTS_MD%.md}.txt
{
	echo "# rep profiler ok bpf_run_ns bpf_runs cpu_s maxrss_kb pybench_samples python_samples frames all_samples"
	cat "$TMP/raw"
} > "$RESULTS_RAW"

TABLE=$(awk -v order="$PROFILERS" -f bench/cells.awk -f bench/python-table.awk "$TMP/raw")
echo "$TABLE"
{
	echo "# The Python walk's cost: profile with and without it vs bpftrace"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), profile built from $COMMIT"
	echo "- machine: $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r), event cpu-clock"
	echo "- tools: $(bpftrace --version), $($PYTHON --version 2>&1) ($PYTHON)"
	echo "- command: \`$CMDLINE\` (REPS=$REPS DURATION=${DURATION}s SETTLE=${SETTLE}s HZ=$HZ)"
	echo "- workload: two \`$PYTHON tests/workloads/python/pyhot.py 100000 pybench\` (5:3:2 of hot_a/b/c under run_round, main, <module>; comm pybench), pinned to CPUs 0 and 1, run throughout; each profiler samples the whole system; one run of each per repetition, in shuffled order; median [min-max] over $REPS repetitions"
	echo "- load average before the runs: $LOAD_START; after: $LOAD_END (the two pyhot make 2 of it)"
	echo
	echo "$TABLE"
	cat <<-'EOF'

	Columns:
	- BPF ns/sample: run_time_ns / run_cnt of the profiler's perf_event programs (kernel.bpf_stats_enabled=1) between two readings DURATION seconds apart, SETTLE seconds after attaching; both CPUs, every process sampled.
	- x bpftrace: that over bpftrace's BPF ns/sample in the same repetition.
	- samples: run_cnt between the two readings (both CPUs).
	- CPU s: the profiler's user + sys CPU, start to exit (wait4 rusage).
	- max RSS MiB: ru_maxrss of the profiler.
	- pybench samples: the workload's in the output (both processes), and their share of all samples in it (the rest: other processes, the machine's other users).
	- frames/sample: of pybench's samples, the frames (kernel, user and Python) per sample, on average: what each walk got. Debian's python3 is built without frame pointers: a walk by them stops after a frame or two.
	- Python frames %: of pybench's samples, those whose stack holds a frame ` (.../pyhot.py)` (bpftrace: none can).
	EOF
} > "$RESULTS_MD"
log "table written to ${RESULTS_MD#$ROOT/}, its runs to ${RESULTS_RAW#$ROOT/}"
