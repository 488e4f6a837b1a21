#!/usr/bin/env bash
# Runs a command as root in a fresh Debian 12 root: a scratch copy of a minimal debootstrap
# root (the first run makes it with debootstrap from the Debian mirror apt uses, about 2.5 min,
# and keeps it in /var/cache/napiscope-debootstrap/bookworm), with this machine's apt sources
# and DNS, /proc and /dev, and the given directories bind-mounted read-only under /mnt. The copy
# and the mounts are gone when the command ends (the mounts live in their own mount namespace).
#   scripts/in-clean-root.sh [--apt-cache] [--mount DIR]... -- COMMAND...
# --apt-cache keeps the .debs apt downloads in /var/cache/napiscope-debootstrap/archives for the
# next run (a fresh machine has none: leave it off to time a first install).
# Example (what docs/install.md measures): a fresh machine running scripts/demo.sh
#   scripts/in-clean-root.sh --mount "$PWD" -- bash -c 'cp -a /mnt/napiscope /root && cd /root/napiscope && time scripts/demo.sh'
set -euo pipefail
mounts=(); apt_cache=
while (($#)); do
  case $1 in
    --apt-cache) apt_cache=/var/cache/napiscope-debootstrap/archives; shift ;;
    --mount) mounts+=("$(realpath "$2")"); shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--apt-cache] [--mount DIR]... -- COMMAND..." >&2; exit 1 ;;
  esac
done
(($#)) || { echo "usage: $0 [--apt-cache] [--mount DIR]... -- COMMAND..." >&2; exit 1; }
((EUID == 0)) || { echo "$0: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
cache=/var/cache/napiscope-debootstrap/bookworm
if [[ ! -x $cache/usr/bin/apt-get ]]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq --no-install-recommends debootstrap
  rm -rf "$cache.partial"
  debootstrap --variant=minbase bookworm "$cache.partial" http://deb.debian.org/debian >&2
  # apt in the root reads the same mirrors as this machine (updates and security included).
  rm -f "$cache.partial/etc/apt/sources.list"
  cp /etc/apt/sources.list.d/debian.sources "$cache.partial/etc/apt/sources.list.d/" 2>/dev/null ||
    cp /etc/apt/sources.list "$cache.partial/etc/apt/"
  rm -rf "$cache.partial/var/lib/apt/lists/"* "$cache.partial/var/cache/apt/archives/"*.deb
  mv "$cache.partial" "$cache"
fi
root=$(mktemp -d /var/tmp/napiscope-root.XXXXXX)
trap 'rm -rf --one-file-system "$root"' EXIT
cp -a "$cache/." "$root/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount_script='mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && mount -t tmpfs tmpfs "$0/tmp"'
if [[ -n $apt_cache ]]; then
  mkdir -p "$apt_cache/partial"
  mount_script+=" && mount --bind '$apt_cache' \"\$0/var/cache/apt/archives\""
fi
for dir in ${mounts[@]+"${mounts[@]}"}; do
  mkdir -p "$root/mnt/$(basename "$dir")"
  mount_script+=" && mount --bind -o ro '$dir' \"\$0/mnt/$(basename "$dir")\""
done
unshare --mount --propagation private \
  sh -c "$mount_script"' && exec chroot "$0" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb LANG=C.UTF-8 "$@"' \
  "$root" "$@"
