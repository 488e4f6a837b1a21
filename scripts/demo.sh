#!/usr/bin/env bash
# Installs what building the CLI and the GUI needs (not the test stack), builds those two, and
# runs the main job on a bundled real trace. About 5 minutes on a fresh Debian 12 machine with
# 2 cores (docs/install.md says how that was measured); scripts/test.sh adds the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
scripts/build.sh -DNAPISCOPE_BUILD_TESTS=OFF -DNAPISCOPE_BUILD_PYTHON=OFF -- napiscope napiscope-gui
# Exit code 2 means findings above their thresholds: a result, not a failure of the demo.
build/cli/napiscope report testdata/real/veth-softirq-napi.dat || [ $? -eq 2 ]
