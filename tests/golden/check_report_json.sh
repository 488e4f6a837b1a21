#!/bin/sh
# `report --format json` must stay byte-identical on every trace in testdata unless a commit
# fixes a named bug (and updates the files here in the same commit).
#   check_report_json.sh NAPISCOPE_BINARY [--update]
# Runs from the repository root with relative paths (the report names its file).
set -u
bin=$1
mode=${2:-check}
root=$(cd "$(dirname "$0")/../.." && pwd)
expected_dir="$root/tests/golden/report-json"
cd "$root" || exit 1
[ -x "$bin" ] || { echo "check_report_json: $bin: not an executable" >&2; exit 1; }
mkdir -p "$expected_dir"
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
failed=0
checked=0
for trace in testdata/scenarios/*.dat testdata/real/*.dat testdata/text/*; do
  [ -f "$trace" ] || continue
  name=$(echo "$trace" | sed 's|^testdata/||; s|/|__|g').json
  "$bin" report --quiet --format json "$trace" > "$tmp" 2>/dev/null
  rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
    echo "FAIL $trace: report exited $rc"
    failed=1
    continue
  fi
  checked=$((checked + 1))
  if [ "$mode" = "--update" ]; then
    cp "$tmp" "$expected_dir/$name"
  elif ! cmp -s "$tmp" "$expected_dir/$name"; then
    echo "FAIL $trace: report --format json differs from tests/golden/report-json/$name"
    diff "$expected_dir/$name" "$tmp" | head -20
    failed=1
  fi
done
[ "$checked" -gt 0 ] || { echo "check_report_json: no traces found under testdata" >&2; exit 1; }
[ "$failed" -eq 0 ] && echo "report --format json identical on $checked traces"
exit "$failed"
