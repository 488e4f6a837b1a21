#!/usr/bin/env bash
# Prints the peak resident memory of `napiscope report` and `info` on every case of the
# hostile-input suite (docs/robustness.md), largest first, and fails when one passes 256 MB.
# Usage: scripts/hostile-rss.sh [BUILD_DIR]   (default: build; needs napiscope_cli_tests)
set -euo pipefail
build=${1:-build}
tests="$build/tests/napiscope_cli_tests"
if [[ ! -x $tests ]]; then
  echo "hostile-rss: $tests is missing (cmake --build $build --target napiscope_cli_tests)" >&2
  exit 1
fi
out=$("$tests" --gtest_filter='HostileCliTest.PeakMemoryOfEveryCaseStaysUnder256MB' 2>&1) || status=$?
grep '^peak-rss' <<<"$out" | sort -k2 -n -r
if [[ ${status:-0} -ne 0 ]]; then
  echo "hostile-rss: a case passed 256 MB or did not run:" >&2
  grep -E 'Failure|Expected|Which is|case' <<<"$out" >&2 || true
  exit 1
fi
echo "hostile-rss: every case under 256 MB"
