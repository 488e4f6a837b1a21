#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole test suite in the
# normal build (gcc, GUI and Python module included, headless), then again in a clang build with
# ASan+UBSan (GUI included; the Python module is not, as python3 itself is not sanitized) that
# also runs each libFuzzer target for NAPISCOPE_FUZZ_SECONDS (15 s here). The sanitizer pass
# leaves out what it cannot add to: the layer probes (the same includes compile either way),
# the benchmarks and the browser's look at the HTML (timings, and the same page), and the tests
# that record from the running kernel (label kernel: the kernel's timing decides them).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j "$(nproc)"

# -O1 and line tables only: enough for sanitizer stack traces, and a faster build.
grep -qs 'CMAKE_CXX_COMPILER:.*clang++' build-asan/CMakeCache.txt || rm -rf build-asan
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DCMAKE_UNITY_BUILD=ON \
  -DNAPISCOPE_WERROR=ON -DNAPISCOPE_SANITIZE=ON -DNAPISCOPE_FUZZ=ON -DNAPISCOPE_BUILD_PYTHON=OFF \
  -DNAPISCOPE_FUZZ_SECONDS=15 \
  >/dev/null
cmake --build build-asan -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -LE 'fuzz|bench|layers|kernel|browser'
ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -L fuzz
