# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# ab: this checkout against a baseline source tree, in one call, so that both sides meet the same
# machine: BASELINE=<dir> holds the other tree (made in the checkout with e.g.
#   mkdir .baseline && git archive d01175e | tar -x -C .baseline
# and carried along: .baseline/ is ignored by git). Builds it in <build>-baseline (the duet command
# and duet-gemm-bench), then, round by round, with the order of the two sides swapped every round so
# that any drift of the machine falls on both alike:
#   `duet bench --kernels launch,vector_add,heat` (AB_KERNELS) on each device of AB_DEVICES (default cuda:0 and
#   opencl:NVIDIA, those present; else PoCL), AB_ROUNDS rounds (3);
#   the float cases of bench/gemm/suite.txt (this checkout's list, for both sides) with
#   duet-gemm-bench on AB_GEMM_DEVICE (cuda:0; none: skip), and cuBLAS through CuPy beside them
#   where there is a CUDA GPU, AB_GEMM_ROUNDS rounds (1).
# scripts/gpu/ab_table.py writes $OUT/ab.md: each row's median over rounds for the baseline and this
# checkout, and their ratio (above 1: this checkout is faster), with the SGEMM suite's geometric mean
# of duet / cuBLAS on each side. AB_GEMM_ONLY: the cases instead (a,b,...); AB_BENCH_ARGS, AB_GEMM_ARGS:
# more arguments (--runs N, --smoke). Build the current tree alone for this phase with
# BUILD_TARGETS="duet_tool duet_gemm_bench".
phase_ab() {
  local dir=$1 baseline=${BASELINE:-} base_build=$build-baseline round side spec name first second
  if [ -z "$baseline" ] || [ ! -d "$baseline" ]; then
    fail "BASELINE=<dir> must name the baseline's source tree"
    return
  fi
  baseline=$(cd "$baseline" && pwd)
  say "ab: the baseline's build ($baseline into $base_build)"
  build_tree "$baseline" "$base_build" "$dir/build-baseline.log" duet_tool duet_gemm_bench ||
    { tail -30 "$dir/build-baseline.log"; fail "the baseline's build"; return; }
  local -A tree=([baseline]=$base_build [current]=$build)
  local devices_ab=${AB_DEVICES:-}
  if [ -z "$devices_ab" ]; then
    has cuda && devices_ab+=" cuda:0"
    has nvidia && devices_ab+=" opencl:NVIDIA"
    [ -n "$devices_ab" ] || devices_ab=opencl:portable
  fi
  local gemm_device=${AB_GEMM_DEVICE:-cuda:0} cases bench_args gemm_args
  has cuda || [ -n "${AB_GEMM_DEVICE:-}" ] || gemm_device=none
  cases=${AB_GEMM_ONLY:-$(awk '!/^#/ && NF >= 10 && $10 == "f32" {print $1}' bench/gemm/suite.txt | paste -sd,)}
  # shellcheck disable=SC2206  # argument lists, split on spaces
  bench_args=(${AB_BENCH_ARGS:-}) gemm_args=(--cases "$repo/bench/gemm/suite.txt" --only "$cases" ${AB_GEMM_ARGS:-})
  for round in $(seq 1 "${AB_ROUNDS:-3}"); do
    first=baseline second=current
    [ $((round % 2)) = 0 ] && first=current second=baseline
    for side in $first $second; do
      for spec in $devices_ab; do
        name=${spec//:/-}
        logged "$dir/bench-$side-$name-$round.log" "${tree[$side]}/duet" bench --device "$spec" \
          --kernels "${AB_KERNELS:-launch,vector_add,heat}" "${bench_args[@]}" --json "$dir/bench-$side-$name-$round.json" ||
          fail "duet bench, $side, $spec, round $round"
      done
    done
  done
  if [ "$gemm_device" != none ]; then
    for round in $(seq 1 "${AB_GEMM_ROUNDS:-1}"); do
      first=baseline second=current
      [ $((round % 2)) = 0 ] && first=current second=baseline
      if has cuda; then
        logged "$dir/cublas-$round.log" env CUPY_TF32=0 "$python" bench/gemm/gemm_cublas.py \
          --json "$dir/cublas-$round.json" "${gemm_args[@]}" || fail "cuBLAS, round $round"
      fi
      for side in $first $second; do
        logged "$dir/gemm-$side-$round.log" "${tree[$side]}/duet-gemm-bench" --device "$gemm_device" --no-clblast \
          --json "$dir/gemm-$side-$round.json" "${gemm_args[@]}" || fail "duet-gemm-bench, $side, round $round"
      done
    done
  fi
  "$python" scripts/gpu/ab_table.py "$dir" > "$out/ab.md" || fail "scripts/gpu/ab_table.py"
  tee -a "$summary" < "$out/ab.md"
}
