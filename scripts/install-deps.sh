#!/usr/bin/env bash
# Installs the Debian 12 packages napiscope needs; skips what is there.
#   scripts/install-deps.sh          everything: build, tests, fuzzing, Python module, recording
#   scripts/install-deps.sh build    only what building the CLI and the GUI needs (scripts/demo.sh)
set -euo pipefail
# Building the CLI (napiscope) and the GUI (napiscope-gui), and running them.
build_packages=(
  build-essential cmake ninja-build pkg-config python3
  libtracecmd-dev libtraceevent-dev libtracefs-dev libzstd-dev zlib1g-dev liblzma-dev
  libabsl-dev libfmt-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev libegl-dev libxkbcommon-dev
)
# The test suite (scripts/test.sh): clang for the sanitizer and fuzz build, the test and bench
# libraries, the Python module and its tests, the headless GUI and HTML checks, trace-cmd and
# the network tools the recording tests drive, the archive formats the loader tests read, and
# what scripts/test-packages.sh needs to build the .debs and a clean Debian 12 root.
test_packages=(
  clang libclang-rt-14-dev trace-cmd
  libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  xvfb xauth xdotool python3-jsonschema libxml2-utils groff-base iproute2 iputils-ping
  gzip zstd xz-utils bzip2 zip tar
  pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest python3-matplotlib
  python3-dask python3-distributed
  chromium-headless-shell
  debhelper dh-python lintian fakeroot debootstrap
)
case "${1:-all}" in
  build) packages=("${build_packages[@]}") ;;
  all) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
  *) echo "usage: $0 [build|all]" >&2; exit 1 ;;
esac
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
