#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time: run_fuzzer.sh FUZZER SECONDS WORKDIR SEED...
# Seeds (files, or directories whose trace-like files are taken) are copied into
# WORKDIR/corpus so nothing in the repo is written; a crash is saved as WORKDIR/crash-* and
# should become a file under tests/fuzz/regressions/<target>/ once fixed.
set -euo pipefail
fuzzer=$1 seconds=$2 work=$3
shift 3
rm -rf "$work/corpus"
mkdir -p "$work/corpus"
for seed in "$@"; do
  if [[ -d $seed ]]; then
    find "$seed" -maxdepth 1 -type f ! -name '*.json' ! -name '*.md' -exec cp -t "$work/corpus" {} +
  elif [[ -f $seed ]]; then
    cp "$seed" "$work/corpus/"
  fi
done
# -rss_limit_mb and -timeout make a blow-up or a hang a finding, not a stuck CI job.
# libtracecmd mallocs sizes read from the file and checks for NULL, as a normal malloc gives
# for absurd sizes; ASan must return NULL too instead of stopping (sizes past the RSS limit
# are still reported by libFuzzer's malloc limit).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus"
