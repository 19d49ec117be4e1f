#!/bin/bash
# bench/unwind.sh - what a user stack costs the BPF program per sample
# (issue 25 item 1): the walk by unwind tables (the default) against
# profile's own walk by frame pointers and bpftrace's, in the same run.
# Two copies of WORKLOAD run throughout, one pinned to each CPU, under the
# comm "uwbench"; each profiler samples them at HZ (SCOPE=pid: profile -p
# PID,PID, bpftrace with a predicate on pid; SCOPE=all: the whole system,
# where the other processes' stacks, of whoever else uses the machine,
# change from run to run):
#
#   WORKLOAD=fp  tests/workloads/hotspots.c built by clang with frame
#                pointers (main -> run_round -> hot_a/b/c, 5:3:2)
#   WORKLOAD=py  Debian's python3 running tests/workloads/python/pyhot.py
#                (no frame pointers, ~28 C frames under the eval loop)
#
#   profile      ./profile -f -v --no-python (unwind tables, the default)
#   profile-fp   ./profile -f -v --no-python --call-graph fp
#   bpftrace     @[kstack, ustack, comm] = count() (frame pointers)
#   NAME=BINARY  another build of profile, as "profile" (a variant, e.g.
#                one whose BPF object was built with parts short-circuited)
#
# The Python walk is left out (--no-python): this measures the native
# walk. Per repetition, one run of each, in shuffled order. A run: start
# the profiler, wait until its programs are attached, SETTLE seconds
# (tables are built at the first samples), read the kernel's bpf_stats
# (kernel.bpf_stats_enabled=1) of its perf_event programs, DURATION
# seconds, read them again, SIGINT. BPF ns per sample is run_time_ns /
# run_cnt between the readings (both CPUs: a sample of another process
# counts too, and with SCOPE=pid costs only the filter). The ratio to bpftrace is taken within each repetition.
# Also, of uwbench's samples in the output, the frames per sample (kernel
# and user; what each walk got). A markdown table of medians [min-max] to
# stdout; the runs, one line each, to stderr's log with KEEP_TMP=1.
#
#   WORKLOAD=fp REPS=5 DURATION=5 SETTLE=2 HZ=999 bash bench/unwind.sh
#   PROFILERS="profile bpftrace base=/tmp/profile.old" (a subset, variants)
# Needs root, bpftool, bpftrace (installed from Debian when missing), clang.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
WORKLOAD=${WORKLOAD:-fp}
REPS=${REPS:-5}
DURATION=${DURATION:-5}
SETTLE=${SETTLE:-2}
HZ=${HZ:-999}
SCOPE=${SCOPE:-pid}
PROFILERS=${PROFILERS:-profile profile-fp bpftrace}
PYTHON=${PYTHON:-/usr/bin/python3}
PROFILE=${PROFILE:-$ROOT/profile}

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (BPF, sysctl)"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (a workload on each of CPUs 0 and 1)"
[ -x "$PROFILE" ] || die "no $PROFILE: run make first"
case $WORKLOAD in fp | py) ;; *) die "unknown WORKLOAD '$WORKLOAD' (fp, py)" ;; esac
case $SCOPE in pid | all) ;; *) die "unknown SCOPE '$SCOPE' (pid, all)" ;; esac
. bench/bpf_stats.sh
# WL: the two workloads; RM: the run's runmeter, while it runs
bench_start uwbench clang taskset shuf "$PYTHON"
# the same binaries for every run, even if the tree is rebuilt meanwhile
declare -A BIN
for p in $PROFILERS; do
	case $p in
	profile | profile-fp) BIN[$p]=$TMP/profile; cp "$PROFILE" "$TMP/profile" ;;
	bpftrace) ;;
	*=*) BIN[${p%%=*}]=$TMP/${p%%=*}.bin; cp "${p#*=}" "$TMP/${p%%=*}.bin" || die "cannot copy ${p#*=}" ;;
	*) die "unknown profiler '$p'" ;;
	esac
done

if [ "$WORKLOAD" = fp ]; then
	clang -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra \
		tests/workloads/hotspots.c -o "$TMP/uwbench" || die "cannot build hotspots"
	for cpu in 0 1; do taskset -c $cpu "$TMP/uwbench" & WL="$WL $!"; done
else
	for cpu in 0 1; do
		taskset -c $cpu "$PYTHON" tests/workloads/python/pyhot.py 100000 uwbench & WL="$WL $!"
	done
fi
sleep 1
# PIDS: -p's list, PRED: bpftrace's predicate (none system-wide)
PIDS=$(echo $WL | tr ' ' ','); PRED=""
[ "$SCOPE" = pid ] && PRED="/$(printf 'pid == %s || ' $WL | sed 's/ || $//')/"


# one NAME REP: one line "rep name ok run_ns runs ours frames"
one() {
	local name=$1 rep=$2 r=$TMP/$1.$2 ok=1 ours fr
	case $name in
	bpftrace) set -- bpftrace -e "profile:hz:$HZ $PRED { @[kstack, ustack, comm] = count(); }" ;;
	profile-fp) set -- "${BIN[$name]}" -f -v -F "$HZ" --no-python --call-graph fp ;;
	*) set -- "${BIN[$name]}" -f -v -F "$HZ" --no-python ;;
	esac
	[ "$SCOPE" = pid ] && [ "$name" != bpftrace ] && set -- "$@" -p "$PIDS"
	bench_window "$name" "$r" "$@" || ok=0
	grep -q '^rc=0 ' "$r.stats" 2> /dev/null || { ok=0; log "$name: failed: $(tail -n 2 "$r.err" | tr '\n' ' ')"; }
	if [ "$name" = bpftrace ]; then
		read -r ours fr < <(awk '/^@\[/ { k = 0 } /^    / { k++ }
			/^(@\[)?, uwbench\]: [0-9]+$/ { c = $NF; n += c; f += c * k }
			END { print n + 0, f + 0 }' "$r.out")
	else
		read -r ours fr < <(awk '/^uwbench;/ { c = $NF; n += c; f += c * (split($0, x, ";") - 1) }
			END { print n + 0, f + 0 }' "$r.out")
	fi
	echo "$rep $name $ok $WIN_NS $WIN_RUNS $ours $fr"
}

names() { local p; for p in $PROFILERS; do echo "${p%%=*}"; done; }
: > "$TMP/raw"
for ((rep = 1; rep <= REPS; rep++)); do
	for name in $(names | shuf); do
		log "rep $rep/$REPS $name"
		one "$name" "$rep" | tee -a "$TMP/raw" >&2
	done
done

echo "WORKLOAD=$WORKLOAD SCOPE=$SCOPE REPS=$REPS DURATION=${DURATION}s HZ=$HZ, profile $(git describe --always --dirty 2> /dev/null), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk -v order="$(names | tr '\n' ' ')" -f bench/cells.awk -f bench/unwind-table.awk "$TMP/raw"
