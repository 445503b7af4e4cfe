#!/usr/bin/env bash
# The test suite: install what is missing, build duet into build/, run every test with CTest, then
# install duet into build/install and build and run examples/consumer against that installation,
# which tests the CMake package (find_package(duet), duet::duet) as a user's project sees it; then
# the Python package: `pip install .` into a virtual environment (build/python-venv, from
# /usr/bin/python3; build dependencies from PyPI) and its pytest suite (python/tests, the examples
# in examples/python included) against the installed package. Last, the fuzzers (fuzz/): a second
# build with Clang in build-fuzz/, and ctest -L fuzz, which replays every regression input and
# fuzzes each parser for a short fixed time. Then build-asan/ and build-tsan/: the library and the
# tests built with sanitizers, and the tests run again there.
# Usage: scripts/test.sh [extra cmake configure arguments...]
# Environment: DUET_BUILD_DIR (default build), DUET_SKIP_PYTHON=1 leaves the Python part out,
# DUET_FUZZ_BUILD_DIR (default build-fuzz), DUET_FUZZ=0 skips the fuzzers (the log says so),
# DUET_SANITIZERS=0 the sanitizer builds.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${DUET_BUILD_DIR:-build}

"$repo_root/scripts/setup.sh" "$@"
cd "$repo_root"
# A failing test suite still lets the package test run, so one CI log shows both; the exit code
# is nonzero when either fails.
# Tests run side by side, one per core: the offline NVRTC compiles are one long single-threaded
# test, which the PoCL runs beside it keep the other cores busy during. The program cache they share takes
# processes side by side (one compiles an entry, the others wait for it).
ctest_status=0
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" || ctest_status=$?

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

# The fuzzers need an instrumented build of their own (Clang, libFuzzer, ASan, UBSan): only the
# library's parsers and the harnesses are built in it, no backend, tool, test or example.
fuzz_status=0
if [[ ${DUET_FUZZ:-1} == 0 ]]; then
  echo "=== fuzzing: SKIPPED (DUET_FUZZ=0)"
else
  fuzz_build=${DUET_FUZZ_BUILD_DIR:-build-fuzz}
  echo "=== fuzzing: fuzz/ in $fuzz_build (ctest -L fuzz)"
  fuzz_configure=(cmake -S . -B "$fuzz_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++
                  -DDUET_BUILD_FUZZERS=ON -DBUILD_TESTING=OFF -DDUET_BUILD_TOOLS=OFF -DDUET_BUILD_EXAMPLES=OFF
                  -DDUET_WITH_MPI=OFF -DDUET_WITH_CUDA=OFF -DDUET_WITH_OPENCL=OFF
                  "-DDUET_FUZZ_SECONDS=${DUET_FUZZ_SECONDS:-10}")
  if [[ ! -f $fuzz_build/CMakeCache.txt ]]; then
    fuzz_configure+=(-G Ninja)
  fi
  "${fuzz_configure[@]}"
  cmake --build "$fuzz_build" --target duet_fuzzers
  ctest --test-dir "$fuzz_build" -L fuzz -j "$(nproc)" --output-on-failure || fuzz_status=$?
fi

# The sanitizer builds (cmake/DuetSanitize.cmake): AddressSanitizer with UndefinedBehaviorSanitizer
# over every test, and ThreadSanitizer over the OpenCL runs (PoCL's worker threads copy to and from
# duet's host memory, and tests/test_threads.cpp and test_shared_queue.cpp start threads of their
# own); the TSan build compiles duet_tests alone. Both with Clang, Debug (-O0): instrumented code
# compiles in half of GCC's time there and in a third of -O1's, and the tests' time goes to PoCL,
# LLVM and NVRTC, which run as fast either way; the plain build stays with GCC, so both compilers
# build every test. The checked mode's second run of the suite (duet.<backend>.checked.dev<i>, DUET_CHECK=1) is left to
# the plain build: under the sanitizers it would only run the same code again, slower. The ASan
# build leaves out the duet command and the benchmark (-DDUET_BUILD_TOOLS=OFF), and with them the
# tests that drive the library through the command (duet.cache, duet.mpi.checkpoint, the benchmark
# smoke runs), to keep CI within its 20 minutes; every test of the library's own API runs there,
# but not the offline NVRTC compiles (duet.nvrtc: time in NVRTC, whose input the plain build checks).
# Its device runs come in three parts by test file (DUET_TEST_FILE_PARTS), which the cores share.
# Both load the kernels the plain build's tests compiled (DUET_TEST_CACHE_DIR: its program cache),
# which leaves the sanitizer runs' time to duet's own code rather than to compiling again.
# The TSan run keeps the test cases that start threads of their own or hand host memory to PoCL's
# threads (DUET_TEST_ONLY: threads, shared queues, events, order between queues, transfers, maps,
# graphs, two devices); the rest are single-threaded paths that the ASan run covers.
# DUET_SANITIZERS=0 skips both (a quicker run by hand).
sanitize_status=0
sanitized() {  # <build dir> <sanitizers> <build target> <ctest arguments...>
  local dir=$1 sanitizers=$2 target=$3
  shift 3
  echo
  echo "=== sanitizers $sanitizers: $dir"
  local configure=(cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug "-DDUET_SANITIZE=$sanitizers"
                   -DCMAKE_CXX_COMPILER=clang++ "-DDUET_TEST_CACHE_DIR=$plain_cache")
  [[ -f $dir/CMakeCache.txt ]] || configure+=(-G Ninja)
  "${configure[@]}" "${sanitize_configure[@]}" "${cmake_arguments[@]}" > /dev/null
  cmake --build "$dir" --target "$target"
  ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" "$@" || sanitize_status=$?
}
cmake_arguments=("$@")
plain_cache=$(cd "$build_dir" && pwd)/tests/program-cache
if [[ ${DUET_SANITIZERS:-1} != 0 ]]; then
  sanitize_configure=(-DDUET_BUILD_TOOLS=OFF -DDUET_TEST_FILE_PARTS=ON)
  sanitized "$build_dir-asan" address,undefined all -LE '^(checked|nvrtc)$'
  sanitize_configure=()
  DUET_TEST_ONLY='*thread*,*shared queue*,*queue_state*,*between queues*,*event*,*transfer*,*map*,*graph*,*replay*,*device*' \
    sanitized "$build_dir-tsan" thread duet_tests \
    -R '^duet[.]opencl[.](dev[0-9]+|two_devices|matmul_sizes)$'
fi

if ((ctest_status)); then
  echo "test suite: FAILED (ctest exit code $ctest_status)" >&2
  exit "$ctest_status"
fi
if ((python_status)); then
  echo "Python tests: FAILED (exit code $python_status)" >&2
  exit "$python_status"
fi
if ((fuzz_status)); then
  echo "fuzzing: FAILED (ctest exit code $fuzz_status); each crash's input is named above" >&2
  exit "$fuzz_status"
fi
if ((sanitize_status)); then
  echo "sanitizer builds: FAILED (ctest exit code $sanitize_status)" >&2
  exit "$sanitize_status"
fi
