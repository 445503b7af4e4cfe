#!/usr/bin/env bash
# The Python package's test, run by test.sh after the C++ suite: `pip install .` from the checkout
# into a virtual environment (<build>/python-venv, made with /usr/bin/python3: Debian's python3-venv
# and python3-dev), with scikit-build-core and nanobind fetched from PyPI by pip's build isolation,
# then pytest on python/tests against the installed package (run from outside the source tree, so
# the import is the installed one). The library's objects come from the C++ build's ccache
# (setup.sh), so the package's build compiles little more than the module.
# Usage: scripts/test-python.sh (after setup.sh)
# Environment: DUET_BUILD_DIR (build), PYTHON (/usr/bin/python3).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${DUET_BUILD_DIR:-build}
[[ $build_dir == /* ]] || build_dir=$repo_root/$build_dir
python=${PYTHON:-/usr/bin/python3}
venv=$build_dir/python-venv
export CCACHE_DIR=${CCACHE_DIR:-$build_dir/ccache}
cd "$repo_root"

start=$(date +%s)
echo
echo "=== Python: pip install . into $venv"
if [[ ! -x $venv/bin/python ]]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check numpy pytest pytest-xdist matplotlib ml_dtypes
# --config-settings, not -C: Debian 12's pip (23.0) has only the long form.
pip_args=(-q --disable-pip-version-check "--config-settings=build-dir=$build_dir/python-wheel")
if command -v ccache >/dev/null; then
  pip_args+=("--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache")
  # The C++ build's compiler by the same name: ccache's key holds the name (c++, not the
  # x86_64-linux-gnu-g++ that Python's build settings would choose).
  compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:FILEPATH=//p' "$build_dir/CMakeCache.txt" 2>/dev/null || true)
  [[ -n $compiler ]] && pip_args+=("--config-settings=cmake.define.CMAKE_CXX_COMPILER=$compiler")
fi
"$venv/bin/python" -m pip install "${pip_args[@]}" .
installed=$(date +%s)
echo "installed in $((installed - start)) s: $(cd "$build_dir" && "$venv/bin/python" -c 'import duet; print(duet.__file__, "DLPack", duet.HAVE_DLPACK)')"

echo "=== Python: pytest python/tests"
cd "$build_dir"
# One pytest worker per core (pytest-xdist): most of a test's time is PoCL compiling its kernels on
# one thread. The workers share the program cache, which takes processes side by side.
DUET_CACHE_DIR=$build_dir/tests/program-cache "$venv/bin/python" -m pytest -q -rs -n "$(nproc)" \
  "$repo_root/python/tests"
echo "Python part: $(($(date +%s) - start)) s"
