#!/usr/bin/env bash
# Installs the Debian 12 packages napiscope needs to build, test and record; skips what is there.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
  libtracecmd-dev libtraceevent-dev libtracefs-dev libzstd-dev zlib1g-dev liblzma-dev trace-cmd
  libabsl-dev libfmt-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
  libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev libegl-dev libxkbcommon-dev
  xvfb xauth xdotool python3 python3-jsonschema libxml2-utils groff-base iproute2 iputils-ping
  gzip zstd xz-utils bzip2 zip tar
  pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest python3-matplotlib
  python3-dask python3-distributed
  chromium-headless-shell
)
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
