#!/bin/sh
# ci-extra.sh - the checks CI runs after `make integration-shipped`: every
# fuzz harness over its regressions and then 2 s of fuzzing (two at a
# time), then the unit and integration tests with ASan, LeakSanitizer and
# UBSan (objects and tool in build/san). About 7 minutes on 2 cores; needs
# root, as `make test` does. FUZZ_SECONDS=N changes the fuzzing time.
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
make -j2 fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-2}"
# The suites' shipped tests (bounds) ran on ./profile just before: not
# again under ASan, but hostile.sh's whose files are crafted to hurt a
# parser (those of sizes and counts alone are not run again).
ran="integration processes service debuginfod package"
ran="$ran t_many_mappings t_sigint_during_loading t_sparse_debuglink t_huge_perfmap t_userns_bind_mount"
SHIPPED_DONE=$ran make test SANITIZE=1
echo "ci-extra: passed in $(($(date +%s) - start)) s"
