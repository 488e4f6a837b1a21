#!/usr/bin/env bash
# Builds the Debian packages (napiscope, napiscope-gui, python3-napiscope) from this checkout,
# runs lintian on them, installs them into a fresh Debian 12 root (scripts/in-clean-root.sh;
# its debootstrap root and apt's downloads are cached under /var/cache/napiscope-debootstrap)
# and checks there that they work: `report --format json` of every bundled trace equals
# tests/golden (tests/golden/check_report_json.sh), the GUI prints its help and renders a trace
# offscreen, and Debian's python3 imports the module and reads a trace.
#   scripts/test-packages.sh [OUTDIR]    (default /var/tmp/napiscope-deb; the .debs end there)
# Tests are off in the package build (DEB_BUILD_OPTIONS=nocheck): scripts/test.sh runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-/var/tmp/napiscope-deb}")
version=$(dpkg-parsechangelog -S Version 2>/dev/null || sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)

# What building the packages needs (the Build-Depends without those of the tests).
missing=()
for package in dpkg-dev debhelper dh-python lintian fakeroot; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! dpkg-checkbuilddeps -P nocheck 2>/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq -P nocheck ./ >/dev/null
fi

# dpkg-buildpackage writes next to the source: build a copy of the checkout's files in $out.
rm -rf "$out" && mkdir -p "$out/napiscope-$version"
git ls-files -z --cached --others --exclude-standard |
  tar -c --null -T - --ignore-failed-read 2>/dev/null | tar -x -C "$out/napiscope-$version"
(cd "$out/napiscope-$version" &&
  DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -b -us -uc -Pnocheck >../build.log 2>&1) ||
  { tail -40 "$out/build.log"; echo "test-packages: dpkg-buildpackage failed ($out/build.log)" >&2; exit 1; }
arch=$(dpkg --print-architecture)
ls "$out"/*.deb
# Tags left are explained in docs/install.md; an error fails the test.
lintian --fail-on error --suppress-tags-from-file debian/lintian-explained "$out/napiscope_${version}_$arch.changes"

mkdir -p "$out/debs" && cp "$out"/*.deb "$out/debs/"
scripts/in-clean-root.sh --apt-cache --mount "$out/debs" --mount "$PWD/testdata" --mount "$PWD/tests" -- \
  bash -euc '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends /mnt/debs/*.deb >/dev/null
    mkdir /tmp/check && cp -a /mnt/testdata /mnt/tests /tmp/check/ && cd /tmp/check
    echo "napiscope: $(napiscope --version)"
    sh tests/golden/check_report_json.sh /usr/bin/napiscope
    (cd testdata && napiscope report real/veth-softirq-napi.dat >/tmp/report.txt) || [ $? -eq 2 ]
    cmp /tmp/report.txt testdata/real/veth-softirq-napi.report.txt
    echo "report of veth-softirq-napi.dat identical to the bundled text"
    man -w napiscope >/dev/null 2>&1 || test -f /usr/share/man/man1/napiscope.1.gz
    test -f /usr/share/bash-completion/completions/napiscope
    export QT_QPA_PLATFORM=offscreen
    napiscope-gui --help | head -1
    napiscope-gui testdata/real/idle.dat --screenshot /tmp/shot.png --size 800x600
    test -s /tmp/shot.png && echo "napiscope-gui rendered idle.dat offscreen"
    grep -q "^MimeType=application/x-trace-cmd-dat;" /usr/share/applications/napiscope-gui.desktop
    grep -q "application/x-trace-cmd-dat" /usr/share/mime/packages/napiscope.xml
    test -f /usr/share/icons/hicolor/scalable/apps/napiscope.svg
    /usr/bin/python3 -c "import napiscope; print(\"python3 imports napiscope from\", napiscope.__file__)"
    /usr/bin/python3 -c "import napiscope; print(napiscope.open(\"testdata/real/idle.dat\"))"
  '
echo "test-packages: the packages of napiscope $version install into a clean Debian 12 root and work"
