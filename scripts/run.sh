#!/usr/bin/env bash
# Quick start: install what is missing, build duet into build/, list the devices and run every
# built-in kernel (timed and checked) on the default device (DUET_BACKEND / DUET_DEVICE choose another).
# Usage: scripts/run.sh [extra cmake configure arguments...]
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${DUET_BUILD_DIR:-build}

"$repo_root/scripts/setup.sh" "$@"
cd "$repo_root"
"$build_dir/duet" devices
echo
"$build_dir/duet" run
