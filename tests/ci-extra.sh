#!/bin/sh
# ci-extra.sh - the checks CI runs after `make integration-shipped`: every
# fuzz harness over its regressions and then 2 s of fuzzing (two at a
# time), then the unit tests and the integration tests with ASan,
# LeakSanitizer and UBSan (objects and tool in build/san), the integration
# suites in the Makefile's two lanes at once (integration-a and -b, each
# lane's output printed whole when it ends; a test that fails there is run
# again alone, which decides). About 7 minutes on 2 cores;
# needs root, as `make test` does. FUZZ_SECONDS=N changes the fuzzing time.
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
make -j2 fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-2}"
t=$(date +%s)
echo "ci-extra: fuzzing in $((t - start)) s"
# The suites' shipped tests (bounds) ran on ./profile just before: not
# again under ASan, but hostile.sh's whose files are crafted to hurt a
# parser (those of sizes and counts alone are not run again).
ran="integration processes service debuginfod package"
ran="$ran t_many_mappings t_sigint_during_loading t_sparse_debuglink t_huge_perfmap t_userns_bind_mount"
export SHIPPED_DONE="$ran"
make unit SANITIZE=1
t2=$(date +%s)
echo "ci-extra: unit tests in $((t2 - t)) s"
# A test that failed in a lane is run again alone, without the other
# lane taking half the machine: most tests count their workload's samples
# against a minimum that assumes a CPU of its own. Failing alone fails CI;
# each retry is said, so a test that needs one shows in the log.
RETRY_LOG=$(mktemp /tmp/profile-retry.XXXXXX)
trap 'rm -f "$RETRY_LOG" "$RETRY_LOG.out"' EXIT
RETRY_LOG=$RETRY_LOG make -j2 --output-sync=target integration SANITIZE=1
t3=$(date +%s)
echo "ci-extra: integration lanes in $((t3 - t2)) s, $(wc -l < "$RETRY_LOG") tests failed there"
while read -r suite test; do
	echo "ci-extra: $suite's $test failed in its lane: run again alone"
	ONLY=$test make integration SANITIZE=1 < /dev/null > "$RETRY_LOG.out" 2>&1 || {
		cat "$RETRY_LOG.out"
		echo "ci-extra: $suite's $test failed alone too"
		exit 1
	}
	grep -A100 "^test: " "$RETRY_LOG.out" | grep -v ": 0 passed, 0 failed"
done < "$RETRY_LOG"
[ ! -s "$RETRY_LOG" ] || echo "ci-extra: retries in $(($(date +%s) - t3)) s"
echo "ci-extra: passed in $(($(date +%s) - start)) s"
