#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on a bundled real trace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# Exit code 2 means findings above their thresholds: a result, not a failure of the demo.
build/cli/napiscope report testdata/real/veth-softirq-napi.dat || [ $? -eq 2 ]
