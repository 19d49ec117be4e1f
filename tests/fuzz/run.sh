#!/bin/sh
# run.sh NAME SECONDS OUTDIR - run one fuzz harness as `make fuzz` does:
# first over every input in tests/fuzz/regressions/NAME/ (crashers found
# before, which must stay fixed), then SECONDS of fuzzing from
# OUTDIR/corpus/NAME/. Fails on any crash, sanitizer report, leak, hang
# (10 s per input) or RSS above 2 GiB; the input that did it is kept in
# OUTDIR/artifacts/NAME/ and its log in OUTDIR/logs/NAME.log.
set -u
name=$1
seconds=$2
out=$3
bin=$out/fuzz_$name
regressions=tests/fuzz/regressions/$name
log=$out/logs/$name.log
artifacts=$out/artifacts/$name
mkdir -p "$out/logs" "$artifacts" "$out/corpus/$name"
set -- -timeout=10 -rss_limit_mb=2048 -detect_leaks=1
[ -f "tests/fuzz/$name.dict" ] && set -- "$@" -dict="tests/fuzz/$name.dict"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

failed() {
	echo "fuzz $name: FAILED ($1); log: $2" >&2
	grep -E 'ERROR|SUMMARY|check failed|Test unit written|^artifact_prefix|==[0-9]+==' "$2" | head -20 >&2
	exit 1
}

nreg=0
if [ -d "$regressions" ]; then
	files=$(find "$regressions" -type f ! -name '*.md' | sort)
	if [ -n "$files" ]; then
		nreg=$(echo "$files" | wc -l)
		# shellcheck disable=SC2086 # file names are ours: no spaces
		"$bin" "$@" $files > "$log.regressions" 2>&1 ||
			failed "a regression input fails again" "$log.regressions"
	fi
fi

"$bin" "$@" -max_total_time="$seconds" -print_final_stats=1 \
	-artifact_prefix="$artifacts/" "$out/corpus/$name" > "$log" 2>&1 ||
	failed "crash, leak or hang" "$log"
runs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$log")
rate=$(awk '/stat::average_exec_per_sec:/ { print $2 }' "$log")
corpus=$(find "$out/corpus/$name" -type f | wc -l)
printf 'fuzz %-10s ok: %s regressions, %s runs in %s s (%s/s), corpus %s\n' \
	"$name" "$nreg" "$runs" "$seconds" "$rate" "$corpus"
