#!/usr/bin/env bash
# The GPU machine's CPU device here: PoCL 5.0 from Ubuntu 24.04 (noble), in a chroot made with
# debootstrap from Ubuntu's archive, running a test binary of this checkout's build. PoCL 5.0
# miscompiled two of gemm's forms that PoCL 3.1 (Debian 12, CI) and 6.0 compute right (issue 11);
# this is how that was found and checked without device time. Needs root, debootstrap and the
# network; the chroot (about 600 MB) is made once.
# Usage: scripts/pocl5-chroot.sh [duet_tests arguments...]   e.g. -tc="gemm*"
# Environment: DUET_BUILD_DIR (build), POCL5_ROOT (/tmp/noble).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DUET_BUILD_DIR:-build}
[[ $build == /* ]] || build=$repo/$build
root=${POCL5_ROOT:-/tmp/noble}
if [[ ! -x $root/usr/bin/clinfo ]]; then
  command -v debootstrap > /dev/null || apt-get install -y -q debootstrap
  # Debian's debootstrap knows noble's layout under the script all Ubuntu releases share.
  [[ -e /usr/share/debootstrap/scripts/noble ]] || ln -s gutsy /usr/share/debootstrap/scripts/noble
  debootstrap --no-check-gpg --variant=minbase --components=main,universe \
    --include=pocl-opencl-icd,ocl-icd-libopencl1,libpng16-16t64,clinfo noble "$root" http://archive.ubuntu.com/ubuntu
fi
for d in proc sys dev; do
  mkdir -p "$root/$d"
  mountpoint -q "$root/$d" || mount --bind "/$d" "$root/$d"
done
mkdir -p "$root$repo"
mountpoint -q "$root$repo" || mount --bind "$repo" "$root$repo"
[[ $build == "$repo"/* ]] || { echo "the build folder must lie inside the checkout ($repo)" >&2; exit 1; }
chroot "$root" sh -c "cd '$build' && DUET_TEST_BACKEND=opencl tests/duet_tests $*"
