#!/bin/sh
# san-run.sh CMD [ARGS...] - run a test command of `make test SANITIZE=1` so
# that every ASan, LeakSanitizer or UBSan report fails it, also the ones
# that change no exit status: leaks in Criterion's test workers (reported
# after the test passed), reports from a ./profile run whose status the
# integration test does not look at. Reports go to files, not into the
# stderr the integration tests compare, and are printed at the end.
set -u
dir=$(mktemp -d /tmp/profile-san.XXXXXX) || exit 1
chmod 1777 "$dir"	# the unprivileged integration test writes here too
# ASan holds 256 MiB of freed memory by default to catch use after free;
# 16 MiB keeps that check for recent frees and the tool's RSS near its
# own, which tests/integration/processes.sh bounds (128 MiB under ASan).
ASAN_OPTIONS="log_path=$dir/asan:detect_leaks=1:quarantine_size_mb=16${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="log_path=$dir/ubsan:print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS

"$@"
rc=$?
reports=$(find "$dir" -type f | sort)
if [ -n "$reports" ]; then
	echo "san-run: $(echo "$reports" | wc -l) sanitizer report(s) from: $*" >&2
	for r in $reports; do
		cat "$r" >&2
	done
	[ "$rc" -ne 0 ] || rc=1
fi
rm -rf "$dir"
exit "$rc"
