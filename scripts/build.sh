#!/usr/bin/env bash
# Configures and builds napiscope into build/ (warnings are errors; sources compiled in unity
# batches, which halves the build). Extra args go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
  -DNAPISCOPE_WERROR=ON "$@" >/dev/null
cmake --build build -j "$(nproc)"
