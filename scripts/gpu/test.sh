# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# test: the whole test suite (ctest, every device the machine has: CUDA, NVIDIA's OpenCL, PoCL),
# then `duet run` on the CUDA and the OpenCL backend. TEST_ARGS: more ctest arguments (-R ...).
phase_test() {
  local dir=$1 backend
  # The live log goes straight to $OUT, written as ctest goes, so that it comes back even when the
  # call's limit stops the phase before its logs are packed.
  # shellcheck disable=SC2086  # TEST_ARGS: ctest arguments, split on spaces
  ctest --test-dir "$build" -j "$(($(nproc) / 2 + 1))" --output-on-failure -O "$out/ctest-live.log" ${TEST_ARGS:-} \
    > "$dir/ctest.log" 2>&1 ||
    fail "ctest (logs.tar.gz: test/ctest.log)"
  note "- ctest: $(grep -E 'tests passed' "$dir/ctest.log" || echo 'no summary')"
  grep -E '^ *[0-9]+ - .*\((Failed|Timeout|Not Run|Subprocess)' "$dir/ctest.log" | head -20 | sed 's/^/  /' |
    tee -a "$summary"
  for backend in cuda opencl; do
    [ $backend = cuda ] && ! has cuda && continue
    DUET_BACKEND=$backend "$build/duet" run > "$dir/run-$backend.txt" 2>&1 || fail "duet run on $backend"
    note "- duet run, DUET_BACKEND=$backend: $(tail -1 "$dir/run-$backend.txt")"
  done
}
