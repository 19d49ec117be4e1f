#!/bin/bash
# bench/bpf_stats.sh - sourced by run.sh and busyhost.sh: what the kernel
# counts of a profiler's BPF programs (kernel.bpf_stats_enabled=1).

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
