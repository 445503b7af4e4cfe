#!/usr/bin/env bash
# compute-sanitizer over the test suite on the CUDA backend: builds duet_tests with the CUDA toolkit,
# then runs it (DUET_TEST_BACKEND=cuda) under each tool, memcheck (with --leak-check full) and
# racecheck by default, with one log per tool under $OUT (default gpu-sanitize) and a summary: the
# tool's ERROR SUMMARY, doctest's counts and the exit code. NVRTC compiles duet's kernels with
# -lineinfo, so reports name the kernel's source line. The CPU side has its own sanitizer builds in
# CI (scripts/test.sh, cmake/DuetSanitize.cmake).
# Environment: TOOLS (default "memcheck racecheck"; initcheck and synccheck work too), TOOL_TIMEOUT
# (seconds per tool, default 240), DUET_BUILD_DIR (default build-gpu, shared with gpu-check.sh).
# Arguments go to duet_tests, e.g. -tc='*matmul*' to narrow a slow tool to some test cases.
# Usage (GPU machine): source .device/setup.sh && scripts/gpu-sanitize.sh [doctest options...]
set -uo pipefail
out=${OUT:-gpu-sanitize}
mkdir -p "$out"
build=${DUET_BUILD_DIR:-build-gpu}
tools=${TOOLS:-memcheck racecheck}
tool_timeout=${TOOL_TIMEOUT:-240}
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  compute-sanitizer --version | tail -1
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build "$build" --target duet_tests
} > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
head -2 "$out/build.log"

# A program cache of its own: every kernel is compiled by NVRTC in the sanitized process.
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
status=0
for tool in $tools; do
  options=(--tool "$tool" --error-exitcode 99)
  # API errors off: duet's CUDA backend asks the driver questions whose "no" is the answer it
  # wants (cuFuncGetParamInfo past the last parameter counts them; cuModuleGetFunction for a name
  # the program lacks is the test of an unknown kernel name), which memcheck would count as errors.
  [ "$tool" = memcheck ] && options+=(--leak-check full --report-api-errors no)
  log=$out/$tool.log
  rc=0
  DUET_TEST_BACKEND=cuda DUET_CACHE_DIR=$cache timeout -k 30 "$tool_timeout" \
    compute-sanitizer "${options[@]}" "$build/tests/duet_tests" "$@" > "$log" 2>&1 || rc=$?
  case $rc in
    0) verdict=clean ;;
    77) verdict="SKIPPED ($(grep -m1 SKIPPED "$log"))" ;;
    99) verdict="ERRORS (see $log)"; status=1 ;;
    124) verdict="TIMED OUT after ${tool_timeout}s (narrow it with -tc=...)"; status=1 ;;
    *) verdict="FAILED (exit code $rc, see $log)"; status=1 ;;
  esac
  echo "=== $tool: $verdict"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|test cases:|assertions:" "$log" | tail -5
  # The first reports, to read without fetching the logs.
  grep -m 30 -E "^========= (Invalid|Error|Race|Warning|Leaked|Uninitialized|Barrier|Program hit)|^=========     at " "$log"
done
exit $status
