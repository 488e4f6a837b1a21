#!/usr/bin/env bash
# Cross-builds napiscope's CLI for an ARM board on an amd64 Debian 12 machine with Debian's
# multiarch packages and cmake/ARCH.cmake, runs the core and CLI tests under qemu-user, and checks
# that `report --format json` of every bundled trace is byte-identical to tests/golden (what the
# amd64 build prints). docs/boards.md says how to copy the result to a board.
#   scripts/cross-build.sh arm64|armhf [--no-tests] [--deb]
# --deb also builds the napiscope package for ARCH (dpkg-buildpackage -aARCH, CLI only) into
# /var/tmp/napiscope-deb-ARCH. The build is in build-ARCH/ (tests on, GUI and Python off).
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-}
case $arch in
  arm64) triplet=aarch64-linux-gnu qemu=aarch64 ;;
  armhf) triplet=arm-linux-gnueabihf qemu=arm ;;
  *) echo "usage: $0 arm64|armhf [--no-tests] [--deb]" >&2; exit 1 ;;
esac
shift
tests=1 deb=0
for option in "$@"; do
  case $option in
    --no-tests) tests=0 ;;
    --deb) deb=1 ;;
    *) echo "usage: $0 arm64|armhf [--no-tests] [--deb]" >&2; exit 1 ;;
  esac
done

# The cross compiler, qemu-user, and the target's libraries (Multi-Arch: same -dev packages).
dpkg --print-foreign-architectures | grep -qx "$arch" || { dpkg --add-architecture "$arch"; apt-get update -qq; }
packages=(g++-$triplet qemu-user-static pkg-config cmake ninja-build python3
  nlohmann-json3-dev libcli11-dev protobuf-compiler)
for package in libtraceevent-dev libtracefs-dev libzstd-dev zlib1g-dev liblzma-dev libabsl-dev \
               libfmt-dev libtomlplusplus-dev libgtest-dev libgmock-dev libbenchmark-dev \
               libprotobuf-dev libc6-dev; do
  packages+=("$package:$arch")
done
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  # Never at the price of a package of the build machine: refuse if apt would remove one.
  if apt-get install -s --no-install-recommends "${missing[@]}" | grep '^Remv'; then
    echo "cross-build: installing ${missing[*]} would remove the packages above; not done" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# libtracecmd1 and libtracecmd-dev are not Multi-Arch: same in Debian 12 (the target's would
# replace the build machine's): unpack the target's next to the toolchain's search paths.
unpacked=/var/cache/napiscope-cross/$triplet
if [[ ! -f $unpacked/usr/lib/$triplet/pkgconfig/libtracecmd.pc ]]; then
  mkdir -p "$unpacked/debs" "$unpacked/packages"
  # The version of the build machine's (its headers are the same); explicit, as the host pins the
  # target's libtracecmd out of apt's candidates (/etc/apt/preferences.d) so none replaces it.
  version=$(dpkg-query -W -f='${Version}' libtracecmd1)
  [[ -f $unpacked/debs/libtracecmd-dev_${version}_$arch.deb ]] ||
    (cd "$unpacked/debs" && apt-get download -q "libtracecmd1:$arch=$version" "libtracecmd-dev:$arch=$version")
  for deb in "$unpacked"/debs/*.deb; do
    name=$(dpkg-deb -f "$deb" Package)
    dpkg-deb -x "$deb" "$unpacked"
    dpkg-deb -R "$deb" "$unpacked/packages/$name"   # with DEBIAN/shlibs, for dpkg-shlibdeps -S
  done
  sed -i "s|=/usr/|=$unpacked/usr/|" "$unpacked/usr/lib/$triplet/pkgconfig/libtracecmd.pc"
fi

# Run the target's programs (the CLI tests start build-ARCH/cli/napiscope) through qemu-user.
if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-$qemu ]]; then
  [[ -e /proc/sys/fs/binfmt_misc/register ]] ||
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  cat "/usr/lib/binfmt.d/qemu-$qemu.conf" > /proc/sys/fs/binfmt_misc/register
fi

build=build-$arch
cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/$arch.cmake" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DNAPISCOPE_WERROR=ON -DNAPISCOPE_BUILD_GUI=OFF -DNAPISCOPE_BUILD_PYTHON=OFF \
  -DNAPISCOPE_BUILD_TESTS=$( ((tests)) && echo ON || echo OFF) \
  -DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST >/dev/null
targets=(napiscope)
((tests)) && targets+=(napiscope_core_tests napiscope_cli_tests)
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
file "$build/cli/napiscope" 2>/dev/null || true

# The numbers must not depend on the word size or alignment: the same JSON as amd64's.
sh tests/golden/check_report_json.sh "$build/cli/napiscope"
if ((tests)); then
  "$build/tests/napiscope_core_tests" --gtest_brief=1
  "$build/tests/napiscope_cli_tests" --gtest_brief=1
fi

if ((deb)); then
  out=/var/tmp/napiscope-deb-$arch
  version=$(dpkg-parsechangelog -S Version)
  rm -rf "$out" && mkdir -p "$out/napiscope-$version"
  git ls-files -z --cached --others --exclude-standard |
    tar -c --null -T - --ignore-failed-read 2>/dev/null | tar -x -C "$out/napiscope-$version"
  # -d: the Build-Depends are the :arch ones installed above, and libtracecmd unpacked.
  (cd "$out/napiscope-$version" &&
    DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -a"$arch" -Pcross,nocheck,nogui,nopython \
      -b -us -uc -d >../build.log 2>&1) ||
    { tail -30 "$out/build.log"; echo "cross-build: dpkg-buildpackage failed ($out/build.log)" >&2; exit 1; }
  ls "$out"/*.deb
  dpkg-deb -f "$out/napiscope_${version}_$arch.deb" Architecture Depends
fi
