#!/usr/bin/env bash
# Configures and builds napiscope into build/ (warnings are errors; sources compiled in unity
# batches, which halves the build). Optimised, with line tables and function names only (-g1):
# stack traces, perf and valgrind still name files and lines, and the cold build takes about a
# quarter less than with full debug information (-g). Arguments before `--` go to cmake (for a
# debugger's view of local variables: -DCMAKE_BUILD_TYPE=Debug), after it the targets to build
# (default: all). Tests, GUI and Python module are on unless an argument turns them off, so a
# build after scripts/demo.sh's (tests and Python off) builds everything again.
set -euo pipefail
cd "$(dirname "$0")/.."
options=(); targets=()
while (($#)); do [[ $1 == -- ]] && { shift; targets=("$@"); break; }; options+=("$1"); shift; done
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DNAPISCOPE_WERROR=ON \
  -DNAPISCOPE_BUILD_TESTS=ON -DNAPISCOPE_BUILD_GUI=ON -DNAPISCOPE_BUILD_PYTHON=ON \
  ${options[@]+"${options[@]}"} >/dev/null
cmake --build build -j "$(nproc)" ${targets[@]+--target "${targets[@]}"}
