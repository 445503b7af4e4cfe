# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# session: a short check of what one working session changed, in one call: the tests named by
# SESSION_TESTS (a doctest -tc filter, default none) on cuda:0 and on NVIDIA's OpenCL, then
# duet-gemm-bench and cuBLAS on the cases named by SESSION_GEMM (default none) on cuda:0.
phase_session() {
  local dir=$1 backend
  if [ -n "${SESSION_TESTS:-}" ]; then
    # NVIDIA's OpenCL device by its place among the OpenCL devices, so PoCL's (slow) is left out.
    local nvidia_index index
    nvidia_index=$(grep -E '^ *opencl:' <<< "$devices" | grep -n -i nvidia | head -1 | cut -d: -f1)
    for backend in cuda opencl; do
      index=0
      if [ $backend = opencl ]; then
        [ -n "$nvidia_index" ] || continue
        index=$((nvidia_index - 1))
      fi
      if DUET_TEST_BACKEND=$backend DUET_TEST_DEVICE_INDEX=$index "$build/tests/duet_tests" -tc="$SESSION_TESTS" > "$dir/tests-$backend.log" 2>&1; then
        note "- duet_tests -tc='$SESSION_TESTS' on $backend: $(grep -m1 -o 'test cases: .*' "$dir/tests-$backend.log")"
      else
        fail "duet_tests -tc='$SESSION_TESTS' on $backend"; tail -30 "$dir/tests-$backend.log"
      fi
    done
  fi
  if [ -n "${SESSION_GEMM:-}" ]; then
    "$build/duet-gemm-bench" --device cuda:0 --only "$SESSION_GEMM" 2>&1 | tee "$dir/gemm-duet.log" | tee -a "$summary"
    CUPY_TF32=0 "$python" bench/gemm/gemm_cublas.py --only "$SESSION_GEMM" 2>&1 | tee "$dir/gemm-cublas.log" |
      tee -a "$summary"
  fi
}
