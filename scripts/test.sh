#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole test suite:
# once in the normal build (GUI included, headless), once under ASan+UBSan (core, CLI, tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j "$(nproc)"

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNAPISCOPE_WERROR=ON \
  -DNAPISCOPE_SANITIZE=ON -DNAPISCOPE_BUILD_GUI=OFF >/dev/null
cmake --build build-asan -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
ctest --test-dir build-asan --output-on-failure -j "$(nproc)"
