#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on a bundled real trace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/cli/napiscope info testdata/real/veth-softirq-napi.dat
