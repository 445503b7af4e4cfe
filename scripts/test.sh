#!/usr/bin/env bash
# The test suite: install what is missing, build duet into build/, run every test with CTest, then
# install duet into build/install and build and run examples/consumer against that installation,
# which tests the CMake package (find_package(duet), duet::duet) as a user's project sees it; then
# builds into build-asan/ and build-tsan/ with sanitizers and runs the tests again there.
# Usage: scripts/test.sh [extra cmake configure arguments...]
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

# The sanitizer builds (cmake/DuetSanitize.cmake): AddressSanitizer with UndefinedBehaviorSanitizer
# over every test, and ThreadSanitizer over the OpenCL runs (PoCL's worker threads copy to and from
# duet's host memory, and tests/test_threads.cpp and test_shared_queue.cpp start threads of their
# own); the TSan build compiles duet_tests alone. Debug (-O0): with the sanitizers it compiles in a
# third of -O1's time, and the tests' time goes to PoCL, LLVM and NVRTC, which run as fast either
# way. DUET_SANITIZERS=0 skips both (a quicker run by hand).
sanitize_status=0
sanitized() {  # <build dir> <sanitizers> <build target> <ctest arguments...>
  local dir=$1 sanitizers=$2 target=$3
  shift 3
  echo
  echo "=== sanitizers $sanitizers: $dir"
  local configure=(cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug "-DDUET_SANITIZE=$sanitizers")
  [[ -f $dir/CMakeCache.txt ]] || configure+=(-G Ninja)
  "${configure[@]}" "${cmake_arguments[@]}" > /dev/null
  cmake --build "$dir" --target "$target"
  ctest --test-dir "$dir" --output-on-failure "$@" || sanitize_status=$?
}
cmake_arguments=("$@")
if [[ ${DUET_SANITIZERS:-1} != 0 ]]; then
  sanitized "$build_dir-asan" address,undefined all
  sanitized "$build_dir-tsan" thread duet_tests -L '^opencl$'
fi

if ((ctest_status)); then
  echo "test suite: FAILED (ctest exit code $ctest_status)" >&2
  exit "$ctest_status"
fi
if ((sanitize_status)); then
  echo "sanitizer builds: FAILED (ctest exit code $sanitize_status)" >&2
  exit "$sanitize_status"
fi
