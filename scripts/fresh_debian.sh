#!/usr/bin/env bash
# Times a README command (`make run`, `make test`) as a newcomer meets it: on a fresh Debian 12 with only `make`
# added, from a clean clone of this repository's HEAD, with ../shared beside it (read-only). The fresh system is a
# minimal bookworm made by debootstrap in a folder and entered with chroot: packages come from Debian's mirror as
# on a new machine, the kernel and the cores are this machine's. Needs root and debootstrap (not a build dependency:
# `apt-get install debootstrap`). A chroot refuses user namespaces, so the design sandbox runs there without them
# (ktune says so; the hostile test that needs every layer skips).
#   sudo scripts/fresh_debian.sh run            # prints "fresh make run: rc=0, N s"
#   sudo scripts/fresh_debian.sh test /tmp/f    # the folder is removed first and left in place after
set -euo pipefail
target=${1:?usage: fresh_debian.sh run|test [FOLDER]}
root=${2:-/tmp/ktune-fresh-debian}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$here/../shared" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "fresh_debian.sh: needs root (debootstrap, mount, chroot)" >&2; exit 2; }
command -v debootstrap > /dev/null || { echo "fresh_debian.sh: apt-get install debootstrap first" >&2; exit 2; }
cleanup() { umount -R "$root/proc" "$root/sys" "$root/dev" "$root/root/k/shared" 2> /dev/null || true; }
trap cleanup EXIT
cleanup
if grep -q " $root/" /proc/mounts; then
  echo "fresh_debian.sh: something is still mounted under $root; unmount it first" >&2
  exit 2
fi
rm -rf --one-file-system "$root"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian > "$root.debootstrap.log" 2>&1
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mkdir -p "$root/root/k/shared"
git clone -q "$here" "$root/root/k/main"
mount --bind "$shared" "$root/root/k/shared"
mount -o remount,bind,ro "$root/root/k/shared"
chroot "$root" /bin/bash -c \
  "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make > /dev/null"
chroot "$root" /bin/bash -c "cd /root/k/main && export HOME=/root && s=\$(date +%s); rc=0; make $target || rc=\$?; \
  echo \"fresh make $target: rc=\$rc, \$(( \$(date +%s) - s )) s\"; exit \$rc"
