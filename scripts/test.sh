#!/usr/bin/env bash
# The test suite: install what is missing, build duet into build/, run every test with CTest, then
# install duet into build/install and build and run examples/consumer against that installation,
# which tests the CMake package (find_package(duet), duet::duet) as a user's project sees it; then
# the Python package: `pip install .` into a virtual environment (build/python-venv, from
# /usr/bin/python3; build dependencies from PyPI) and its pytest suite (python/tests, the examples
# in examples/python included) against the installed package.
# Usage: scripts/test.sh [extra cmake configure arguments...]
# Environment: DUET_SKIP_PYTHON=1 leaves the Python part out.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${DUET_BUILD_DIR:-build}

"$repo_root/scripts/setup.sh" "$@"
cd "$repo_root"
# A failing test suite still lets the package test run, so one CI log shows both; the exit code
# is nonzero when either fails.
ctest_status=0
ctest --test-dir "$build_dir" --output-on-failure || ctest_status=$?

echo
echo "=== package test: examples/consumer against $build_dir/install"
prefix=$build_dir/install
[[ $prefix == /* ]] || prefix=$repo_root/$prefix
consumer_build=$build_dir/consumer
rm -rf "$prefix"
cmake --install "$build_dir" --prefix "$prefix"
consumer_configure=(cmake -S examples/consumer -B "$consumer_build" -DCMAKE_BUILD_TYPE=Release
                    "-DCMAKE_PREFIX_PATH=$prefix")
if [[ ! -f $consumer_build/CMakeCache.txt ]]; then
  consumer_configure+=(-G Ninja)
fi
"${consumer_configure[@]}"
cmake --build "$consumer_build"

status=0
"$consumer_build/duet_consumer" || status=$?
case $status in
  0) echo "package test: passed" ;;
  77) echo "package test: built and linked; run SKIPPED (no device)" ;;
  *) echo "package test: FAILED (exit code $status)" >&2; exit "$status" ;;
esac

if [[ -x $consumer_build/duet_consumer_mpi ]]; then
  echo "=== package test: duet::mpi (find_package(duet COMPONENTS mpi)), 2 ranks"
  mpi_status=0
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 DUET_BACKEND=opencl \
    mpirun --oversubscribe -np 2 "$consumer_build/duet_consumer_mpi" || mpi_status=$?
  case $mpi_status in
    0) echo "package test (mpi): passed" ;;
    77) echo "package test (mpi): built and linked; run SKIPPED (no device)" ;;
    *) echo "package test (mpi): FAILED (exit code $mpi_status)" >&2; exit "$mpi_status" ;;
  esac
fi

python_status=0
if [[ ${DUET_SKIP_PYTHON:-0} != 1 ]]; then
  "$repo_root/scripts/test-python.sh" || python_status=$?
fi

if ((ctest_status)); then
  echo "test suite: FAILED (ctest exit code $ctest_status)" >&2
  exit "$ctest_status"
fi
if ((python_status)); then
  echo "Python tests: FAILED (exit code $python_status)" >&2
  exit "$python_status"
fi
