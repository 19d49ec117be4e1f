#!/bin/sh
# bench/drain.sh - what emptying the stack map costs against its size: a
# `profile -f -F 999 DURATION` run system-wide (the deep workload keeps
# many distinct stacks in the map) for each --stack-storage-size, its wall,
# user and system time. Clearing walks the map once per drain; it used to
# delete while walking, and the kernel restarts that walk at bucket 0 after
# a deleted key, so the cost grew with the square of the size.
# PROFILE=path compares another build. Needs root.
#
#   SIZES="16384 131072 524288" DURATION=3 REPS=3 INTERVAL= (e.g. 1: -i 1)
set -u
cd "$(dirname "$0")/.." || exit 1
PROFILE=${PROFILE:-./profile}
SIZES=${SIZES:-16384 131072 524288}
DURATION=${DURATION:-3}
REPS=${REPS:-3}
INTERVAL=${INTERVAL:-}
TMP=$(mktemp -d /tmp/profile-drain.XXXXXX)
trap 'kill $wl 2> /dev/null; rm -rf "$TMP"' EXIT

# many distinct stacks: bw_deep's 10,000 call paths, built as bench/run.sh builds it
clang -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	bench/workloads/bw_deep.c -o "$TMP/bw_deep" || exit 1
"$TMP/bw_deep" $((DURATION * REPS * 4 + 30)) 100000 > /dev/null 2>&1 &
wl=$!
sleep 0.5
echo "| --stack-storage-size | wall s | user s | sys s |"
echo "|--:|--:|--:|--:|"
for size in $SIZES; do
	for r in $(seq "$REPS"); do
		/usr/bin/time -f "%e %U %S" -o "$TMP/t.$r" $PROFILE -f -F 999 \
			${INTERVAL:+-i $INTERVAL} --stack-storage-size "$size" "$DURATION" \
			> /dev/null 2> "$TMP/err"
	done
	# median of the repetitions, per column
	for col in 1 2 3; do
		for r in $(seq "$REPS"); do tail -n 1 "$TMP/t.$r" | awk -v c=$col '{ print $c }'; done |
			sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' > "$TMP/m.$col"
	done
	echo "| $size | $(cat "$TMP/m.1") | $(cat "$TMP/m.2") | $(cat "$TMP/m.3") |"
done
