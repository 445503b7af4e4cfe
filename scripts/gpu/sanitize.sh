# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# sanitize: compute-sanitizer over the test suite on the CUDA backend, one tool after another
# (SANITIZE_TOOLS, default "memcheck racecheck"; initcheck and synccheck work too), each within
# SANITIZE_TIMEOUT seconds (240), with a program cache of its own so that every kernel is compiled in
# the sanitized process. NVRTC compiles duet's kernels with -lineinfo, so reports name the source
# line. SANITIZE_ARGS: duet_tests arguments, e.g. -tc='*gemm*' to narrow a slow tool. (The CPU side
# has its own sanitizer builds in CI: scripts/test.sh.)
phase_sanitize() {
  local dir=$1 tool rc verdict options
  compute-sanitizer --version | tail -1
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
    options=(--tool "$tool" --error-exitcode 99)
    # API errors off: duet's CUDA backend asks the driver questions whose "no" is the answer it
    # wants (cuFuncGetParamInfo past the last parameter counts them; cuModuleGetFunction for a name
    # the program lacks is the test of an unknown kernel name), which memcheck would count as errors.
    [ "$tool" = memcheck ] && options+=(--leak-check full --report-api-errors no)
    rc=0
    # shellcheck disable=SC2086  # SANITIZE_ARGS: doctest arguments, split on spaces
    DUET_TEST_BACKEND=cuda DUET_CACHE_DIR=$dir/cache timeout -k 30 "${SANITIZE_TIMEOUT:-240}" \
      compute-sanitizer "${options[@]}" "$build/tests/duet_tests" ${SANITIZE_ARGS:-} > "$dir/$tool.log" 2>&1 ||
      rc=$?
    rm -rf "$dir/cache"
    case $rc in
      0) verdict=clean ;;
      77) verdict="SKIPPED ($(grep -m1 SKIPPED "$dir/$tool.log"))" ;;
      99) verdict="ERRORS (sanitize/$tool.log)"; fail ;;
      124) verdict="TIMED OUT after ${SANITIZE_TIMEOUT:-240} s (narrow it: SANITIZE_ARGS=-tc=...)"; fail ;;
      *) verdict="FAILED (exit code $rc, sanitize/$tool.log)"; fail ;;
    esac
    note "- $tool: $verdict; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$dir/$tool.log" | tail -2 |
      tr '\n' ' ')"
    # The first reports, to read without unpacking the logs.
    grep -m 30 -E "^=+ (Invalid|Error|Race|Warning|Leaked|Uninitialized|Barrier|Program hit)|^=+     at " \
      "$dir/$tool.log"
  done
}
