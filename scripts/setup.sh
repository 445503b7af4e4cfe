#!/usr/bin/env bash
# Shared set-up for run.sh and test.sh: installs whichever of duet's Debian 12 packages are missing
# (apt-get, through sudo when not root), then configures duet with CMake + Ninja in Release into
# build/ and builds it. Safe to run again: installed packages are skipped, the build is incremental.
# A fresh build tree compiles through ccache (cache in <build>/ccache), which the Python package's
# build in test.sh shares, so the library is compiled once for both.
#
# Usage: scripts/setup.sh [extra cmake configure arguments...]
# Environment: DUET_BUILD_DIR (default: build, relative to the repository root).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${DUET_BUILD_DIR:-build}

packages=(
  cmake ninja-build g++ doctest-dev
  ocl-icd-opencl-dev opencl-clhpp-headers opencl-c-headers pocl-opencl-icd
  libpng-dev libcli11-dev clinfo
  libopenmpi-dev openmpi-bin
  libdlpack-dev clang libclang-rt-14-dev
  libclblast-dev
  python3-dev python3-venv ccache
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg -s "$package" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "setup: apt-get not found; install these packages by hand: ${missing[*]}" >&2
    exit 1
  fi
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "setup: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi

cd "$repo_root"
configure=(cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release)
# The generator of an existing build tree cannot change: name Ninja only for a fresh one, and the
# compiler launcher too (adding it to an existing tree would rebuild everything once).
if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  configure+=(-G Ninja)
  if command -v ccache >/dev/null; then
    configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
fi
build_abs=$build_dir
[[ $build_abs == /* ]] || build_abs=$repo_root/$build_abs
export CCACHE_DIR=${CCACHE_DIR:-$build_abs/ccache}
"${configure[@]}" "$@"
cmake --build "$build_dir"
