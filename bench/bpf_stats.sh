#!/bin/bash
# bench/bpf_stats.sh - sourced by run.sh, busyhost.sh, python.sh and
# unwind.sh: what the kernel counts of a profiler's BPF programs
# (kernel.bpf_stats_enabled=1), and the setup the last two share.

# BPF programs whose fds PID holds
prog_ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -u
}

# bpf_stats IDS...: "run_time_ns run_cnt" summed over the perf_event programs
bpf_stats() {
	local id rt=0 cnt=0 j r c
	for id in "$@"; do
		j=$(bpftool prog show id "$id" -j 2>/dev/null) || continue
		case $j in *'"type":"perf_event"'*) ;; *) continue ;; esac
		r=$(echo "$j" | grep -o '"run_time_ns":[0-9]*' | cut -d: -f2)
		c=$(echo "$j" | grep -o '"run_cnt":[0-9]*' | cut -d: -f2)
		rt=$((rt + ${r:-0})) cnt=$((cnt + ${c:-0}))
	done
	echo "$rt $cnt"
}

# bench_window NAME R CMD...: CMD run under the runmeter (R.pid, R.stats,
# R.out, R.err; RM its pid while it runs), its perf_event programs'
# bpf_stats read SETTLE s after they attach and again DURATION s later,
# then SIGINT. Sets WIN_NS and WIN_RUNS, what the programs ran between the
# readings; fails when CMD did not start or ran none.
bench_window() {
	local name=$1 r=$2 child="" ids="" rt0 c0 rt1 c1 i
	shift 2
	"$TMP/runmeter" -p "$r.pid" -o "$r.stats" -- "$@" > "$r.out" 2> "$r.err" &
	RM=$!
	for ((i = 0; i < 600; i++)); do
		child=$(cat "$r.pid" 2> /dev/null)
		[ -n "$child" ] && ids=$(prog_ids "$child")
		[ -n "$ids" ] && break
		kill -0 $RM 2> /dev/null || break
		sleep 0.1
	done
	[ -n "$ids" ] || log "$name did not start: $(tail -n 2 "$r.err" | tr '\n' ' ')"
	sleep "$SETTLE"
	# again: the first ones were those loaded first, maybe not the sampling ones
	[ -n "$ids" ] && ids=$(prog_ids "$child")
	read -r rt0 c0 < <(bpf_stats $ids)
	sleep "$DURATION"
	read -r rt1 c1 < <(bpf_stats $ids)
	kill -INT $RM
	wait $RM
	RM=""
	WIN_NS=$((rt1 - rt0)) WIN_RUNS=$((c1 - c0))
	[ -n "$ids" ] && [ "$WIN_RUNS" -gt 0 ]
}

# bench_start TAG TOOL... (bash; log and die defined): bpftrace installed
# from Debian when missing, bpftrace, bpftool, gcc and each TOOL checked,
# TMP made (/tmp/profile-TAG.XXXXXX), kernel.bpf_stats_enabled on until
# exit, bench/runmeter.c built as $TMP/runmeter. At exit the pids in RM
# (the run's runmeter) and WL (the workloads) are killed and TMP removed
# (KEEP_TMP=1 keeps it).
bench_start() {
	local tag=$1 t
	shift
	if ! command -v bpftrace > /dev/null; then
		log "installing bpftrace"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q bpftrace >&2 ||
			die "apt-get install bpftrace failed"
	fi
	for t in bpftrace bpftool gcc "$@"; do
		command -v "$t" > /dev/null || die "'$t' not found"
	done
	TMP=$(mktemp -d "/tmp/profile-$tag.XXXXXX") || die "mktemp failed"
	OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
	WL=""
	RM=""
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
	sysctl -q -w kernel.bpf_stats_enabled=1 || die "cannot enable kernel.bpf_stats_enabled"
	gcc -O2 -Wall -Wextra bench/runmeter.c -o "$TMP/runmeter" || die "cannot build runmeter"
}

bench_cleanup() {
	local p
	for p in $RM $WL; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS"
	if [ "${KEEP_TMP:-0}" = 1 ]; then log "run files kept in $TMP"; else rm -rf "$TMP"; fi
}
