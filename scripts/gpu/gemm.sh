# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# gemm: the GEMM suite (bench/gemm/suite.txt) beside its peers: cuBLAS through CuPy
# (bench/gemm/gemm_cublas.py, TF32 off), duet-gemm-bench on cuda:0 and on opencl:NVIDIA (CLBlast
# beside it there), PoCL (with CLBlast) where there is no CUDA GPU or with GEMM_POCL=1; then
# bench/gemm/gemm_report.py into $OUT/gemm-report.md (the table, the targets) and $OUT/gemm.png;
# last, gemm's correctness tests on every backend, skipped once GEMM_TESTS_AFTER_S seconds
# (default 450) of the call have passed, so the measurements come in first.
# GEMM_ARGS: arguments for every side (--runs N, --smoke, --scale N, --only a,b,...);
# GEMM_TESTS=0 leaves the tests out.
phase_gemm() {
  local dir=$1 files=() args=() backend
  # shellcheck disable=SC2206  # GEMM_ARGS: arguments, split on spaces
  args=(${GEMM_ARGS:-})
  if has cuda; then
    logged "$dir/cublas.log" env CUPY_TF32=0 "$python" bench/gemm/gemm_cublas.py --json "$dir/cublas.json" \
      "${args[@]}" || fail "cuBLAS's side (gemm/cublas.log)"
    files+=("$dir/cublas.json")
    logged "$dir/duet-cuda.log" "$build/duet-gemm-bench" --device cuda:0 --json "$dir/duet-cuda.json" "${args[@]}" ||
      fail "duet-gemm-bench on cuda:0"
    files+=("$dir/duet-cuda.json")
  fi
  if has nvidia; then
    logged "$dir/duet-opencl.log" "$build/duet-gemm-bench" --device opencl:NVIDIA --json "$dir/duet-opencl.json" \
      "${args[@]}" || fail "duet-gemm-bench on opencl:NVIDIA"
    files+=("$dir/duet-opencl.json")
  fi
  if has pocl && { ! has cuda || [ "${GEMM_POCL:-0}" = 1 ]; }; then
    local scale=()  # PoCL at a fraction of the sizes, unless the sizes are given
    [[ " ${args[*]} " == *" --s"[cm]* ]] || scale=(--scale "$(has cuda && echo 8 || echo 4)")
    logged "$dir/duet-pocl.log" "$build/duet-gemm-bench" --device opencl:portable --json "$dir/duet-pocl.json" \
      "${args[@]}" "${scale[@]}" || fail "duet-gemm-bench on PoCL"
    files+=("$dir/duet-pocl.json")
  fi
  local existing=()
  for f in "${files[@]}"; do [ -s "$f" ] && existing+=("$f"); done
  if [ ${#existing[@]} -gt 0 ]; then
    logged "$dir/report.log" "$python" bench/gemm/gemm_report.py "${existing[@]}" --out "$out/gemm-report.md" \
      --plot "$out/gemm.png" || fail "a row failed or did not verify (gemm-report.md)"
    sed -n '/^## Targets/,/^## Float/p' "$out/gemm-report.md" | grep '^|' | tee -a "$summary"
  fi
  [ "${GEMM_TESTS:-1}" = 1 ] || return 0
  for backend in cuda opencl; do
    [ $backend = cuda ] && ! has cuda && continue
    if [ $((SECONDS - start)) -gt "${GEMM_TESTS_AFTER_S:-450}" ]; then
      note "- gemm's tests on $backend skipped: past ${GEMM_TESTS_AFTER_S:-450} s"
      continue
    fi
    DUET_TEST_BACKEND=$backend "$build/tests/duet_tests" -tc='gemm*' > "$dir/tests-$backend.log" 2>&1 ||
      fail "gemm's tests on $backend"
    note "- gemm's tests, $backend: $(grep -E '^\[doctest\] test cases' "$dir/tests-$backend.log" | tr -s ' ')"
  done
}
