#!/bin/bash
# bench/offcpu.sh - what tracing off-CPU time costs a context switch
# (issue 29 item 3): sched_switch fires far more often than a 49 Hz timer.
# A ping-pong over two pipes between two threads pinned to CPU 1
# (bench/workloads/bw_pingpong.c: two switches a round trip, as many as
# the kernel allows) runs DURATION seconds under each tracer, all of them
# tracing the whole system:
#
#   none         no tracer: the ping-pong's own rate, this repetition
#   profile      ./profile --off-cpu -q -o x.folded (unwind tables)
#   profile-fp   ./profile --off-cpu -q -o x.folded --call-graph fp
#   profile-fp-U ... -U: the user stack (by frame pointers) alone
#   profile-fp-K ... -K: the kernel stack alone
#   profile-none ... -p 1: no switch of the ping-pong profiled, what every
#                switch of a thread not profiled pays
#   bpftrace     off-CPU time by kernel and user stack, as profile counts
#                it: at sched_switch, the waiting task's start and stacks
#                kept by pid, its time summed under them when it runs
#                again (BPF Performance Tools' one-liner takes them at
#                kprobe:finish_task_switch, but this kernel has no kprobes)
#   perf         perf record -a -g -e sched:sched_switch: every switch and
#                its stacks into the ring buffer, summed up later
#   perf-offcpu  perf record -a -g --off-cpu, where this perf has it (perf
#                5.19 built with BPF skeletons; Debian 12's 6.1 is not, and
#                ignores the option: said, and not run)
#
# Per repetition, one run of each in shuffled order. A run: start the
# tracer, wait until its programs are attached (perf: SETTLE seconds),
# SETTLE seconds, read the kernel's bpf_stats (kernel.bpf_stats_enabled=1)
# of its programs, the ping-pong for DURATION seconds, read them again,
# SIGINT. Per tracer:
#   - round trips a second of the ping-pong, and its CPU time (both
#     threads, user and system: the tracer's work at their switches runs
#     in them) a round trip; the CPU ns each switch took more than without
#     a tracer in the same repetition. CPU time, not the rate: a thread
#     that waits for the CPU (the machine is shared) spends none;
#   - BPF ns a program run (run_time_ns / run_cnt: every switch of both
#     CPUs, the other agents' too), and the switches a second it ran for;
#   - the tracer's own CPU seconds (user + system) over the whole run.
# The machine is shared: the spread of "none" over the repetitions, and
# the load average before and after, say how noisy the run was. A
# markdown table of medians [min-max] to stdout.
#
#   REPS=5 DURATION=3 SETTLE=1 bash bench/offcpu.sh
#   TRACERS="none profile bpftrace" (a subset)
# Needs root, bpftool, bpftrace (installed from Debian when missing), perf, gcc, taskset.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
REPS=${REPS:-5}
DURATION=${DURATION:-3}
SETTLE=${SETTLE:-1}
CPU=${CPU:-1}
TRACERS=${TRACERS:-none profile profile-fp profile-fp-U profile-fp-K profile-none bpftrace perf perf-offcpu}
PROFILE=${PROFILE:-$ROOT/profile}

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (BPF, sysctl)"
[ "$(nproc)" -gt "$CPU" ] || die "no CPU $CPU"
[ -x "$PROFILE" ] || die "no $PROFILE: run make first"
. bench/bpf_stats.sh
bench_start offcpu taskset shuf perf
gcc -O2 -Wall -Wextra bench/workloads/bw_pingpong.c -o "$TMP/pingpong" -lpthread ||
	die "cannot build bw_pingpong"
# the statistics on whatever another bench sets kernel.bpf_stats_enabled to
gcc -O2 -Wall -Wextra bench/stats_fd.c -o "$TMP/stats_fd" || die "cannot build stats_fd"
"$TMP/stats_fd" > "$TMP/stats_fd.out" &
WL=$!
for ((i = 0; i < 50; i++)); do grep -q on "$TMP/stats_fd.out" && break; sleep 0.1; done
grep -q on "$TMP/stats_fd.out" || die "cannot keep the BPF statistics on"

# Debian 12's perf takes --off-cpu and ignores it, with a warning
if perf record --off-cpu -o "$TMP/probe.data" -- true 2>&1 | grep -q "off-cpu' is being ignored"; then
	PERF_OFFCPU="not supported by this perf ($(perf --version)): built without BPF skeletons (BUILD_BPF_SKEL=1)"
	TRACERS=$(printf '%s\n' $TRACERS | grep -vx perf-offcpu | tr '\n' ' ')
	log "perf-offcpu: $PERF_OFFCPU"
else
	PERF_OFFCPU=""
fi

# The BPF programs of pid PID that run at switches: "run_time_ns run_cnt"
switch_stats() {
	local id j rt=0 cnt=0 r c
	for id in $(prog_ids "$1"); do
		j=$(bpftool prog show id "$id" -j 2>/dev/null) || continue
		case $j in *'"type":"raw_tracepoint"'* | *'"type":"kprobe"'* | *'"type":"tracepoint"'*) ;;
		*) continue ;; esac
		# profile's exec, exit and fork programs run at no switch
		case $j in *'"name":"on_exec"'* | *'"name":"on_exit"'* | *'"name":"on_fork"'*) continue ;; esac
		r=$(echo "$j" | grep -o '"run_time_ns":[0-9]*' | cut -d: -f2)
		c=$(echo "$j" | grep -o '"run_cnt":[0-9]*' | cut -d: -f2)
		rt=$((rt + ${r:-0})) cnt=$((cnt + ${c:-0}))
	done
	echo "$rt $cnt"
}

BPFTRACE_PROG='tracepoint:sched:sched_switch {
	if (args->prev_state & 3) {
		@start[args->prev_pid] = nsecs;
		@ks[args->prev_pid] = kstack;
		@us[args->prev_pid] = ustack;
	}
	$s = @start[args->next_pid];
	if ($s) {
		@[@ks[args->next_pid], @us[args->next_pid], args->next_comm] = sum(nsecs - $s);
		delete(@start[args->next_pid]);
	}
}
END { clear(@start); clear(@ks); clear(@us); }'

# one TRACER REP: "rep tracer round_trips_per_s cpu_ns_per_round_trip bpf_ns runs_per_s cpu_s" to $TMP/runs
one() {
	local t=$1 rep=$2 r=$TMP/$1.$2 child="" ids="" rt0=0 c0=0 rt1=0 c1=0 i trips wl_cpu cpu
	case $t in
	none) set -- sleep 3600 ;;
	profile) set -- "$PROFILE" --off-cpu -q -o "$r.folded" ;;
	profile-fp) set -- "$PROFILE" --off-cpu -q --call-graph fp -o "$r.folded" ;;
	profile-fp-U) set -- "$PROFILE" --off-cpu -q --call-graph fp -U -o "$r.folded" ;;
	profile-fp-K) set -- "$PROFILE" --off-cpu -q --call-graph fp -K -o "$r.folded" ;;
	profile-none) set -- "$PROFILE" --off-cpu -q -p 1 -o "$r.folded" ;;
	bpftrace) set -- bpftrace -e "$BPFTRACE_PROG" ;;
	perf) set -- perf record -q -a -g -e sched:sched_switch -o "$r.data" ;;
	perf-offcpu) set -- perf record -q -a -g --off-cpu -o "$r.data" ;;
	esac
	"$TMP/runmeter" -p "$r.pid" -o "$r.stats" -- "$@" > "$r.out" 2> "$r.err" &
	RM=$!
	for ((i = 0; i < 300; i++)); do
		child=$(cat "$r.pid" 2> /dev/null)
		[ -n "$child" ] && ids=$(prog_ids "$child")
		[ -n "$ids" ] && break
		case $t in none | perf*) [ -n "$child" ] && break ;; esac
		kill -0 $RM 2> /dev/null || break
		sleep 0.1
	done
	kill -0 $RM 2> /dev/null || { log "$t did not start: $(tail -n 2 "$r.err" | tr '\n' ' ')"; return; }
	sleep "$SETTLE"
	[ -n "$ids" ] && read -r rt0 c0 < <(switch_stats "$child")
	read -r _ trips _ wl_cpu < <(taskset -c "$CPU" "$TMP/pingpong" "$DURATION")
	[ -n "$ids" ] && read -r rt1 c1 < <(switch_stats "$child")
	kill -INT $RM
	wait $RM
	RM=""
	cpu=$(sed -n 's/.* cpu=\([0-9.]*\) .*/\1/p' "$r.stats")
	rm -f "$r.data" "$r.folded"
	awk -v rep="$rep" -v t="$t" -v n="${trips:-0}" -v w="${wl_cpu:-0}" -v d="$DURATION" \
		-v rt=$((rt1 - rt0)) -v c=$((c1 - c0)) -v cpu="${cpu:--}" 'BEGIN {
		printf "%s %s %.0f %s %s %s %s\n", rep, t, n / d, (n > 0) ? sprintf("%.0f", w * 1e9 / n) : "-",
			(c > 0) ? sprintf("%.0f", rt / c) : "-", (c > 0) ? sprintf("%.0f", c / d) : "-", cpu }' >> "$TMP/runs"
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((rep = 1; rep <= REPS; rep++)); do
	for t in $(printf '%s\n' $TRACERS | shuf); do
		log "rep $rep/$REPS $t"
		one "$t" "$rep"
	done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
[ "${KEEP_TMP:-0}" = 1 ] && cat "$TMP/runs" >&2

echo "Ping-pong on CPU $CPU, $DURATION s a run, $REPS repetitions; load average $LOAD0 before, $LOAD1 after ($(nproc) CPUs)."
echo
awk -f bench/cells.awk -f bench/offcpu-table.awk -v order="$TRACERS" "$TMP/runs"
[ -z "$PERF_OFFCPU" ] || { echo; echo "perf record --off-cpu: $PERF_OFFCPU."; }
