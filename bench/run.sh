#!/bin/sh
# bench/run.sh - compare ./profile with perf record and bpftrace on the
# same workloads, at the same rates, interleaved. Run by `make bench`, which
# builds ./profile first. Needs root.
#
# Profilers: profile (user stacks by .eh_frame unwind tables, the default),
# profile-fp (--call-graph fp), perf (record -g: frame pointers), perf-dwarf
# (record --call-graph dwarf: 8 KiB of user stack copied per sample, unwound
# by perf script), bpftrace (ustack: frame pointers). Workloads cpu, sys, mp
# and deep are built with frame pointers; nofp is deep's source built as
# Debian builds its archive (gcc -O2 -fomit-frame-pointer), py a pure-Python
# loop in Debian's own python3 (built the same way).
#
# Per workload and repetition, one batch: BASELINES unprofiled runs and one
# run per profiler and rate, in shuffled order. The workload is pinned to
# CPU 1, the profiler (and what it runs at the end: perf script, the folder)
# to CPU 0. Each run: start the profiler, wait until it is attached, start
# the workload, which works for DURATION seconds, prints what it did, and
# stays alive (asleep) so that symbols resolve from live processes; then the
# BPF stats are read, SIGINT ends the profiler, and its output is counted.
# One markdown table of medians [min-max] over the repetitions goes to
# stdout and, with the machine and the command, to RESULTS_MD.
#
# Environment (defaults; QUICK=1 gives a ~1-2 minute run per workload):
#   REPS=3 DURATION=3 BASELINES=2      QUICK=1: REPS=1 DURATION=1 BASELINES=1 RUN_TIMEOUT=30
#   RATES="99 999 4999"  WORKLOADS="cpu sys mp deep nofp py"
#   PROFILERS="profile profile-fp perf perf-dwarf bpftrace"
#   PYTHON=/usr/bin/python3 (Debian's, whatever python3 comes first in PATH)
#   MP_PROCS=60 DEEP_PATHS=10000 SETTLE=0.7 RUN_TIMEOUT=60
#   BT_MAP_KEYS=40960 (BPFTRACE_MAP_KEYS_MAX: our --hash-storage-size default)
#   RESULTS_MD=bench/results.md (QUICK=1: build/bench/results-quick.md)
#   KEEP_TMP=1 keeps the per-run files
if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi
set -u
# Other users of this box (builds, tests, fuzzers) share both CPUs. With
# autogroup scheduling each session gets an equal share whatever its nice,
# so a busy neighbour would halve the workload's CPU. Run the bench in a
# session of its own and raise that session's weight (only ours).
if [ "${BENCH_SESSION:-}" != 1 ] && [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ] &&
	command -v setsid >/dev/null 2>&1; then
	BENCH_SESSION=1 setsid bash "$0" "$@" &
	child=$!
	trap 'kill -TERM $child 2>/dev/null' INT TERM
	while :; do
		wait $child
		rc=$?
		kill -0 $child 2>/dev/null || exit $rc
	done
fi
if [ -w /proc/self/autogroup ] && ! echo -20 > /proc/self/autogroup 2>/dev/null; then
	echo "bench: cannot raise the autogroup's priority; neighbours may slow the runs" >&2
fi
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=$ROOT/build/bench
CMDLINE="$(for v in QUICK REPS DURATION BASELINES RATES WORKLOADS PROFILERS PYTHON RESULTS_MD MP_PROCS DEEP_PATHS SETTLE RUN_TIMEOUT BT_MAP_KEYS; do
	[ -n "${!v+x}" ] && printf "%s='%s' " "$v" "${!v}"; done)make bench"

QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
	REPS=${REPS:-1} DURATION=${DURATION:-1} BASELINES=${BASELINES:-1} RUN_TIMEOUT=${RUN_TIMEOUT:-30}
	RESULTS_MD=${RESULTS_MD:-$OUT/results-quick.md}
	RAW=$OUT/raw-quick.tsv
else
	REPS=${REPS:-3} DURATION=${DURATION:-3} BASELINES=${BASELINES:-2}
	RESULTS_MD=${RESULTS_MD:-$ROOT/bench/results.md}
	RAW=$OUT/raw.tsv
fi
RATES=${RATES:-"99 999 4999"}
WORKLOADS=${WORKLOADS:-"cpu sys mp deep nofp py"}
PROFILERS=${PROFILERS:-"profile profile-fp perf perf-dwarf bpftrace"}
PYTHON=${PYTHON:-/usr/bin/python3}
MP_PROCS=${MP_PROCS:-60}
DEEP_PATHS=${DEEP_PATHS:-10000}
SETTLE=${SETTLE:-0.7}
RUN_TIMEOUT=${RUN_TIMEOUT:-60}
BT_MAP_KEYS=${BT_MAP_KEYS:-40960}
PROFILE=$ROOT/profile
WL_CPU=1	# the workload's CPU
PROF_CPU=0	# the profiler's CPU

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (BPF, perf events, sysctl)"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (workload on CPU $WL_CPU, profiler on CPU $PROF_CPU)"
[ -x "$PROFILE" ] || die "no $PROFILE: run 'make bench' (or make first)"

# --- tools ---------------------------------------------------------------------

install_missing() {
	local missing="" p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	log "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q $missing >&2 ||
		{ apt-get update -q >&2 && apt-get install -y -q $missing >&2; } ||
		die "apt-get install$missing failed"
}
install_missing linux-perf bpftrace bpftool clang gcc python3-minimal util-linux coreutils
for t in perf bpftrace bpftool clang gcc "$PYTHON" taskset shuf timeout; do
	command -v $t >/dev/null 2>&1 || die "'$t' not found after installing packages"
done

# --- workloads -----------------------------------------------------------------

WCC="clang -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra"
SRC=$ROOT/bench/workloads
MP_FILES=""

build() {
	local l depth b libs
	mkdir -p "$OUT" || return 1
	clang -O2 -Wall -Wextra "$ROOT/bench/runmeter.c" -o "$OUT/runmeter" || return 1
	for w in cpu sys deep spawn; do
		$WCC "$SRC/bw_$w.c" -o "$OUT/bw_$w" || return 1
	done
	# deep again, as Debian builds its packages: no frame pointers
	gcc -O2 -fomit-frame-pointer -Wall -Wextra "$SRC/bw_deep.c" -o "$OUT/bw_deep_nofp" || return 1
	# three shared libraries with their own symbols and depths
	depth=2
	for l in a b c; do
		$WCC -fPIC -shared -DPFX=bw$l -DDEPTH=$depth -Wl,-soname,libbw$l.so \
			"$SRC/bw_lib.c" -o "$OUT/libbw$l.so" || return 1
		depth=$((depth + 3))
	done
	# four binaries over them, each copied under three names (distinct files)
	for b in a b c abc; do
		libs="" defs=""
		for l in $(echo $b | sed 's/./& /g'); do
			libs="$libs -lbw$l"
			defs="$defs -DUSE_$(echo $l | tr a-z A-Z)"
		done
		$WCC $defs "$SRC/bw_mp.c" -L"$OUT" $libs -Wl,-rpath,"$OUT" -o "$OUT/bw_mp$b" || return 1
		for i in 1 2 3; do
			cp -f "$OUT/bw_mp$b" "$OUT/bw_mp${b}_$i" || return 1
			MP_FILES="$MP_FILES $OUT/bw_mp${b}_$i"
		done
	done
}
sh "$ROOT/bench/count-test.sh" > /dev/null || die "bench/count.awk fails bench/count-test.sh"
log "building workloads in ${OUT#$ROOT/}"
build || die "cannot build the workloads"
# the same profile for every run, even if the tree is rebuilt meanwhile
cp -f "$PROFILE" "$OUT/profile" || die "cannot copy $PROFILE"
PROFILE_VERSION="$($PROFILE --version 2>&1 | head -n 1) built from $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')"
PROFILE=$OUT/profile

# bw_spawn's arguments: MP_PROCS processes spread over the 12 files
MP_ARGS=()
set -- $MP_FILES
for ((i = 0; i < MP_PROCS; i++)); do
	eval "MP_ARGS+=(\"\${$((i % $# + 1))}\")"
done

workload_cmd() {	# WL -> WL_CMD array
	case $1 in
	cpu) WL_CMD=("$OUT/bw_cpu" "$DURATION") ;;
	sys) WL_CMD=("$OUT/bw_sys" "$DURATION") ;;
	deep) WL_CMD=("$OUT/bw_deep" "$DURATION" "$DEEP_PATHS") ;;
	mp) WL_CMD=("$OUT/bw_spawn" "$DURATION" "${MP_ARGS[@]}") ;;
	nofp) WL_CMD=("$OUT/bw_deep_nofp" "$DURATION" "$DEEP_PATHS") ;;
	py) WL_CMD=("$PYTHON" "$SRC/bw_py.py" "$DURATION") ;;
	*) die "unknown workload '$1'" ;;
	esac
}

workload_label() {
	case $1 in
	cpu) echo "(a) cpu-bound" ;;
	sys) echo "(b) syscalls" ;;
	mp) echo "(c) $MP_PROCS procs" ;;
	deep) echo "(d) $DEEP_PATHS stacks" ;;
	nofp) echo "(e) $DEEP_PATHS stacks, gcc -O2 no FP" ;;
	py) echo "(f) python3 loop" ;;
	esac
}

# --- state, cleanup ------------------------------------------------------------

TMP=$(mktemp -d /tmp/profile-bench.XXXXXX) || die "mktemp failed"
OLD_BPF_STATS=$(sysctl -n kernel.bpf_stats_enabled)
MAX_RATE=$(sysctl -n kernel.perf_event_max_sample_rate)
LIVE=""		# pids of what a run started and has not reaped yet
THROTTLED=0

cleanup() {
	local p
	for p in $LIVE; do kill -TERM "$p" 2>/dev/null; done
	sleep 0.2
	for p in $LIVE; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_BPF_STATS" >/dev/null 2>&1
	[ "${KEEP_TMP:-0}" = 1 ] && log "run files kept in $TMP" || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null || die "cannot enable kernel.bpf_stats_enabled"

live_add() { LIVE="$LIVE $1"; }
live_del() { LIVE=$(echo " $LIVE " | sed "s/ $1 / /"); }

# wait_gone PID SECS: poll until PID exits; 1 on timeout
wait_gone() {
	local i n=$(($2 * 20))
	for ((i = 0; i < n; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# stop PID: SIGTERM, then SIGKILL, reap
stop() {
	kill -TERM "$1" 2>/dev/null
	wait_gone "$1" 5 || kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	live_del "$1"
}

# kv FILE KEY: the value of KEY=value in a runmeter stats file
kv() { sed -n "s/.*\\<$2=\\([^ ]*\\).*/\\1/p" "$1" 2>/dev/null; }

# prog_ids PID, bpf_stats IDS...
. bench/bpf_stats.sh

# attached PROF CHILD_PID: true once the profiler has its events set up
attached() {
	case ${1%%-*} in
	perf) ls -l /proc/"$2"/fd 2>/dev/null | grep -q 'perf_event' ;;
	bpftrace) [ -n "$(prog_ids "$2")" ] && grep -q Attaching "$R/prof.out" 2>/dev/null ;;
	*) [ -n "$(prog_ids "$2")" ] ;;
	esac
}

# --- one run -------------------------------------------------------------------
# run_one WL PROF HZ: prints one TSV record (see RAW's header)

run_one() {
	local wl=$1 prof=$2 hz=$3 rm_pid="" child="" wl_pid i ok=1 ids=""
	local iters="" wlcpu="" rt="" cnt="" cpu="" rss="" endt="" kept="" all="" whole="" lost="" ovf="" psamples="" rc
	local noroom="" fpfirst=""
	R=$TMP/run
	rm -rf "$R" && mkdir -p "$R"

	if [ "$prof" != base ]; then
		case $prof in
		profile) set -- "$PROFILE" -f -v -F "$hz" ;;
		profile-fp) set -- "$PROFILE" -f -v -F "$hz" --call-graph fp ;;
		perf) set -- perf record -F "$hz" -a -g -o "$R/perf.data" ;;
		perf-dwarf) set -- perf record -F "$hz" -a --call-graph dwarf -o "$R/perf.data" ;;
		bpftrace) set -- env BPFTRACE_MAP_KEYS_MAX="$BT_MAP_KEYS" bpftrace -e \
			"profile:hz:$hz { @[kstack, ustack, comm] = count(); }" ;;
		esac
		taskset -c $PROF_CPU "$OUT/runmeter" -p "$R/prof.pid" -o "$R/prof.stats" -- "$@" \
			> "$R/prof.out" 2> "$R/prof.err" &
		rm_pid=$!
		live_add $rm_pid
		for ((i = 0; i < RUN_TIMEOUT * 10; i++)); do
			child=$(cat "$R/prof.pid" 2>/dev/null)
			[ -n "$child" ] && attached "$prof" "$child" && break
			kill -0 $rm_pid 2>/dev/null || break
			sleep 0.1
		done
		if ! kill -0 $rm_pid 2>/dev/null || ! attached "$prof" "$child"; then
			log "$prof -F $hz did not start: $(tail -n 2 "$R/prof.err" | tr '\n' ' ')"
			stop $rm_pid
			printf '%s\t%s\t%s\t%s\t0\n' "$wl" "$REP" "$prof" "$hz"
			return
		fi
		ids=$(prog_ids "$child")
		sleep "$SETTLE"
	fi

	workload_cmd "$wl"
	taskset -c $WL_CPU "${WL_CMD[@]}" > "$R/wl.out" 2> "$R/wl.err" &
	wl_pid=$!
	live_add $wl_pid
	for ((i = 0; i < (DURATION + RUN_TIMEOUT) * 20; i++)); do
		grep -q '^iterations' "$R/wl.out" 2>/dev/null && break
		kill -0 $wl_pid 2>/dev/null || break
		sleep 0.05
	done
	read -r _ iters _ wlcpu _ < <(grep '^iterations' "$R/wl.out")
	[ -n "$iters" ] || { ok=0; log "$wl: no result ($(head -c 200 "$R/wl.err"))"; }

	if [ -n "$rm_pid" ]; then
		# the BPF programs' totals, read while the profiler still runs
		[ -n "$ids" ] && read -r rt cnt < <(bpf_stats $ids)
		kill -INT $rm_pid
		if ! wait_gone $rm_pid "$RUN_TIMEOUT"; then
			log "$prof -F $hz did not exit ${RUN_TIMEOUT}s after SIGINT"
			kill -KILL "$child" 2>/dev/null
			ok=0
		fi
		wait $rm_pid 2>/dev/null
		live_del $rm_pid
		rc=$(kv "$R/prof.stats" rc)
		# perf record re-raises the SIGINT it handled: 130 is its success
		[ "${prof%%-*}" = perf ] && [ "$rc" = 130 ] && rc=0
		[ "$rc" = 0 ] || { ok=0; log "$prof -F $hz: exit ${rc:-?}: $(grep -v '^libbpf' "$R/prof.err" | tail -n 2 | tr '\n' ' ')"; }
		cpu=$(kv "$R/prof.stats" cpu)
		rss=$(kv "$R/prof.stats" maxrss_kb)
		endt=$(kv "$R/prof.stats" int_to_exit)
	fi

	case ${prof%%-*} in
	profile)
		read -r kept all whole < <(awk -f "$ROOT/bench/count.awk" -v fmt=folded "$R/prof.out")
		lost=$(awk '/^profile: .* stacks lost/ { n += $2 + $5 }
			/^profile: .* samples dropped/ { n += $2 } END { print n + 0 }' "$R/prof.err")
		ovf=$(sed -n 's/.* \([0-9]*\)+\([0-9]*\) kernel+user stacks kept in the overflow map.*/\1 \2/p' "$R/prof.err" |
			awk '{ print $1 + $2 }')
		psamples=$(sed -n 's/^profile: event [^,]*, \([0-9]*\) samples,.*/\1/p' "$R/prof.err")
		# unwind tables (-v): files whose table found no room in the rows
		# left (their stacks walked by frame pointers), and stacks walked
		# by frame pointers because their process had no table yet
		noroom=$(sed -n 's/^profile: unwind tables: .* \([0-9]*\) over --unwind-storage-size.*/\1/p' "$R/prof.err")
		fpfirst=$(sed -n 's/^profile: unwind tables: .*), \([0-9]*\) by frame pointers while.*/\1/p' "$R/prof.err")
		;;
	perf)
		# the rest of perf's end of run: script and fold, also on the profiler's CPU
		if [ "$ok" = 1 ]; then
			timeout -s KILL "$RUN_TIMEOUT" taskset -c $PROF_CPU "$OUT/runmeter" -o "$R/script.stats" -- \
				sh -c "perf script -i '$R/perf.data' 2> '$R/script.err' | awk -f '$ROOT/bench/fold-perf.awk' > '$R/perf.folded'"
			rc=$(kv "$R/script.stats" rc)
			if [ "$rc" = 0 ]; then
				cpu=$(awk -v a="$cpu" -v b="$(kv "$R/script.stats" cpu)" 'BEGIN { print a + b }')
				endt=$(awk -v a="$endt" -v b="$(kv "$R/script.stats" wall)" 'BEGIN { print a + b }')
				rss=$(awk -v a="$rss" -v b="$(kv "$R/script.stats" maxrss_kb)" 'BEGIN { print (a > b ? a : b) }')
				read -r kept all whole < <(awk -f "$ROOT/bench/count.awk" -v fmt=folded "$R/perf.folded")
				# perf reports ring-buffer losses as "lost N chunks" / "N samples lost"
				lost=$(cat "$R/prof.err" "$R/script.err" | awk '
					{ for (i = 2; i <= NF; i++) {
						if ($(i-1) == "lost" && $i + 0 > 0 && $(i+1) ~ /^chunks/) n += $i
						if ($i ~ /^samples?$/ && $(i+1) == "lost") n += $(i-1) } }
					END { print n + 0 }')
			else
				ok=0
				log "perf script -F $hz failed: $(tail -n 2 "$R/script.err" | tr '\n' ' ')"
			fi
		fi
		;;
	bpftrace)
		read -r kept all whole < <(awk -f "$ROOT/bench/count.awk" -v fmt=bpftrace "$R/prof.out")
		# a stack id bpftrace could not print: lost at sample time (-EEXIST:
		# collision, -ENOMEM) or at print time
		lost=$(grep -c 'failed to look up stack id' "$R/prof.err")
		;;
	esac

	stop $wl_pid
	if [ "$ok" = 1 ] && [ "$prof" != base ] && [ "${all:-0}" = 0 ]; then
		ok=0
		log "$prof -F $hz on $wl: no samples in its output"
	fi
	# the kernel lowers the maximum rate when sampling interrupts run long;
	# put it back so that the next run can ask for the same rate
	if [ "$(sysctl -n kernel.perf_event_max_sample_rate)" -lt "$MAX_RATE" ]; then
		THROTTLED=$((THROTTLED + 1))
		log "kernel lowered perf_event_max_sample_rate to $(sysctl -n kernel.perf_event_max_sample_rate) during $prof -F $hz on $wl; restoring $MAX_RATE"
		sysctl -q -w kernel.perf_event_max_sample_rate="$MAX_RATE" >/dev/null
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$wl" "$REP" "$prof" "$hz" "$ok" "$iters" "$wlcpu" "$rt" "$cnt" "$psamples" \
		"$cpu" "$rss" "$endt" "$kept" "$lost" "$ovf" "$all" "$whole" "$noroom" "$fpfirst"
	[ "${KEEP_TMP:-0}" = 1 ] && mv "$R" "$TMP/$wl.$REP.$prof.$hz.$RANDOM"
	return 0
}

# --- plan and run --------------------------------------------------------------

for p in $PROFILERS; do
	case $p in profile | profile-fp | perf | perf-dwarf | bpftrace) ;;
	*) die "unknown profiler '$p' (profile, profile-fp, perf, perf-dwarf, bpftrace)" ;; esac
done
for wl in $WORKLOADS; do workload_cmd "$wl"; done
nrates=$(echo $RATES | wc -w)
nprof=$(echo $PROFILERS | wc -w)
nwl=$(echo $WORKLOADS | wc -w)
est=$(( REPS * nwl * (BASELINES * DURATION + nrates * nprof * (DURATION + 3)) ))
log "REPS=$REPS DURATION=${DURATION}s BASELINES=$BASELINES RATES='$RATES' workloads '$WORKLOADS'; about $((est / 60 + 1)) min"

printf 'workload\trep\tprofiler\thz\tok\titerations\twl_cpu_us\tbpf_run_ns\tbpf_run_cnt\tprof_samples\tcpu_s\tmaxrss_kb\tend_s\tkept\tlost\toverflow\tall_samples\twhole\tno_room\tfp_before_tables\n' > "$RAW"
START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for ((REP = 1; REP <= REPS; REP++)); do
	for wl in $(printf '%s\n' $WORKLOADS | shuf); do
		plan=""
		for ((b = 0; b < BASELINES; b++)); do plan="$plan base:0"; done
		for p in $PROFILERS; do for hz in $RATES; do plan="$plan $p:$hz"; done; done
		for step in $(printf '%s\n' $plan | shuf); do
			log "rep $REP/$REPS $wl ${step%:*} ${step#*:}"
			run_one "$wl" "${step%:*}" "${step#*:}" >> "$RAW"
		done
	done
done
log "runs done in $(( $(date +%s) - START ))s; raw data in ${RAW#$ROOT/}"
[ "$THROTTLED" -gt 0 ] && log "note: the kernel throttled the sample rate $THROTTLED times"

# --- report --------------------------------------------------------------------

LABELS=""
for wl in $WORKLOADS; do LABELS="$LABELS$wl=$(workload_label $wl)|"; done
TABLE=$(awk -F'\t' -f "$ROOT/bench/cells.awk" -f "$ROOT/bench/table.awk" -v none=n/a -v workloads="$WORKLOADS" -v profilers="$PROFILERS" \
	-v rates="$RATES" -v labels="$LABELS" "$RAW")
echo "$TABLE"

{
	echo "# profile vs perf vs bpftrace"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- machine: $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r), event cpu-clock (no hardware PMU)"
	echo "- tools: profile $PROFILE_VERSION, $(perf --version), $(bpftrace --version), BPFTRACE_MAP_KEYS_MAX=$BT_MAP_KEYS, $($PYTHON --version 2>&1) ($PYTHON), $(gcc --version | head -n 1)"
	echo "- profilers: profile = \`profile -f -v\` (user stacks by .eh_frame unwind tables, the default); profile-fp = the same with \`--call-graph fp\`; perf = \`perf record -a -g\` + \`perf script\` + fold; perf-dwarf = \`perf record -a --call-graph dwarf\` (8 KiB of user stack per sample) + \`perf script\` (which unwinds) + fold; bpftrace = \`@[kstack, ustack, comm] = count()\`"
	echo "- command: \`$CMDLINE\` (REPS=$REPS DURATION=${DURATION}s BASELINES=$BASELINES RATES='$RATES' MP_PROCS=$MP_PROCS DEEP_PATHS=$DEEP_PATHS)"
	echo "- workload on CPU $WL_CPU, profiler on CPU $PROF_CPU; values are median [min-max] over $REPS repetitions"
	echo "- load average before the runs: $LOAD_START; after: $(cut -d' ' -f1-3 /proc/loadavg); share of all samples (any process, idle included for perf and bpftrace) that came from the workload: $(awk -F'\t' 'NR > 1 && $3 != "base" && $17 > 0 { s += $14 / $17; n++ } END { printf "%.0f%%", n ? 100 * s / n : 0 }' "$RAW") on average"
	[ "$THROTTLED" -gt 0 ] && echo "- the kernel lowered perf_event_max_sample_rate $THROTTLED times (restored after each run)"
	echo
	echo "$TABLE"
	cat <<-'EOF'

	Columns:
	- slowdown %: 1 - (workload iterations per CPU second it used) / (the same in the unprofiled runs of the batch, median). Interrupt time, and so the BPF program's, is charged to the interrupted workload (no IRQ time accounting), while time other tasks took from CPU 1 is not: per CPU second rather than per wall second keeps neighbours out.
	- BPF ns/run: run_time_ns / run_cnt of the profiler's perf_event programs (kernel.bpf_stats_enabled=1), read just before SIGINT; runs on both CPUs, idle ones included (profile returns at once on idle; bpftrace still walks the idle kernel stack). perf has no BPF program.
	- CPU s: the profiler's user+sys CPU for the whole run, start to exit, children included (wait4 rusage); for perf: record + script + fold.
	- max RSS MiB: ru_maxrss of the profiler process (for perf: the larger of record and script | fold).
	- end-of-run s: from the SIGINT to the complete output on disk; for perf: record's exit + script + fold.
	- kept %: samples of the workload's processes (comm bw_*) in the output / (Hz x the CPU seconds they used); a sample lost or kept under an empty stack still counts as kept in this ratio.
	- whole %: of those samples, the share whose user stack reaches the thread's root (`_start`, or `start_thread` for threads): the unwinder got from the leaf all the way up.
	- lost stacks: profile: stacks reported lost and samples dropped on stderr (with -v, how many were rescued by the overflow map; with unwind tables, system-wide: how many files' tables found no room in --unwind-storage-size rows, their stacks walked by frame pointers, and how many stacks were walked by frame pointers because their process's tables were not loaded yet); perf: lost ring-buffer chunks reported by perf; bpftrace: stack ids it could not print ("failed to look up stack id": stack-map collisions, or map lookups failing at print time), whole system.
	EOF
} > "$RESULTS_MD"
RESULTS_TSV=${RESULTS_MD%.md}.tsv
cp -f "$RAW" "$RESULTS_TSV"
log "table written to ${RESULTS_MD#$ROOT/}, its runs to ${RESULTS_TSV#$ROOT/}"
