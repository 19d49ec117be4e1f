#!/bin/bash
# bench/ab.sh "ARGS" BIN... - the BPF time per sample of several builds
# (or bpftrace, named as such) sampling the same workload at once: two
# copies of WL (by default tests/workloads/python/pyhot.py), each build
# `BIN -f -F 999 -p PIDS ARGS`, bpftrace its frame-pointer walk of the
# same pids. For each repetition, after 2 s of warm-up, each one's ns per
# run and runs over DUR seconds, from kernel.bpf_stats_enabled. Running
# them at once makes a change's effect stand out of the machine's noise.
#
#   REPS=3 DUR=6 bash bench/ab.sh "" /tmp/base/profile ./profile bpftrace
#   WL="build/workloads/hotspots_nofp" bash bench/ab.sh "--call-graph fp" ./profile
#   WL="python3 tests/workloads/python/pychain.py 100000" bash bench/ab.sh "" ./profile bpftrace
# Needs root.
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${REPS:-3}
DUR=${DUR:-6}
ARGS=$1
shift
[ "$(id -u)" -eq 0 ] || { echo "bench: must run as root" >&2; exit 1; }
. bench/bpf_stats.sh
old=$(sysctl -n kernel.bpf_stats_enabled)
WL=${WL:-/usr/bin/python3 tests/workloads/python/pyhot.py 100000 pybench}
$WL > /dev/null 2>&1 & w1=$!
$WL > /dev/null 2>&1 & w2=$!
trap 'kill $w1 $w2 2> /dev/null; sysctl -q -w kernel.bpf_stats_enabled=$old' EXIT
sysctl -q -w kernel.bpf_stats_enabled=1 || exit 1
sleep 1
for r in $(seq "$REPS"); do
	ps=() ids=() rt0=() c0=()
	for b in "$@"; do
		if [ "$b" = bpftrace ]; then
			bpftrace -e "profile:hz:999 /pid == $w1 || pid == $w2/ { @[kstack, ustack, comm] = count(); }" > /dev/null 2>&1 &
		else
			# shellcheck disable=SC2086 # ARGS: several options
			"$b" -f -F 999 -p "$w1,$w2" $ARGS > /dev/null 2>&1 &
		fi
		ps+=($!)
	done
	for i in "${!ps[@]}"; do
		ids[$i]=""
		for _ in $(seq 100); do
			ids[$i]=$(prog_ids "${ps[$i]}" | tr '\n' ' ')
			[ -n "${ids[$i]}" ] && break
			sleep 0.1
		done
	done
	sleep 2
	for i in "${!ps[@]}"; do
		# again: the first ones were those loaded first, maybe not the sampling ones
		ids[$i]=$(prog_ids "${ps[$i]}" | tr '\n' ' ')
		read -r rt0[$i] c0[$i] < <(bpf_stats ${ids[$i]})
	done
	sleep "$DUR"
	line="rep $r:"
	for i in "${!ps[@]}"; do
		read -r a c < <(bpf_stats ${ids[$i]})
		line="$line ${@:$((i + 1)):1}=$(((a - rt0[$i]) / (c - c0[$i] + 1)))ns/$((c - c0[$i]))"
	done
	echo "$line"
	for p in "${ps[@]}"; do kill -INT "$p"; done
	wait "${ps[@]}" 2> /dev/null
done
