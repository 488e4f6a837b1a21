#!/usr/bin/env bash
# Configures and builds napiscope into build/ (warnings are errors). Extra args go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNAPISCOPE_WERROR=ON "$@" >/dev/null
cmake --build build -j "$(nproc)"
