# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# matmul-ab: matmul tile sets side by side with cuBLAS. `duet tune --quick` at MATMUL_AB_SIZE^3 (4096)
# on the CUDA and the OpenCL backend (their best MATMUL_AB_TOP, default 3, join the candidates of
# MATMUL_AB_CANDIDATES, a file of lines "cuda|opencl BM=.. BN=.. BK=.. TM=.. TN=.. WX=.. PIPELINE=.."),
# then MATMUL_AB_ROUNDS (2) rounds of [CuPy's cuBLAS SGEMM, `duet bench -k matmul` once per
# candidate], so that every candidate is held against the cuBLAS runs just before and after it (the
# card's clock drifts with its temperature). bench/matmul_ab.py's table goes to $OUT/matmul-ab.md.
# MATMUL_AB_TUNE=0 skips the searches; MATMUL_AB_RUNS: timed runs per case (20).
phase_matmul_ab() {
  local dir=$1 backend round i params runs=${MATMUL_AB_RUNS:-20} rounds=${MATMUL_AB_ROUNDS:-2}
  local -A spec=([cuda]=cuda:0 [opencl]=opencl:NVIDIA)
  local gpu
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
  : > "$dir/candidates.txt"
  [ -n "${MATMUL_AB_CANDIDATES:-}" ] && grep -v '^#' "$MATMUL_AB_CANDIDATES" | grep . >> "$dir/candidates.txt"
  if [ "${MATMUL_AB_TUNE:-1}" = 1 ]; then
    for backend in cuda opencl; do
      "$build/duet" tune --device "${spec[$backend]}" --quick --size "${MATMUL_AB_SIZE:-4096}" \
        > "$dir/tune-$backend.txt" 2>&1 || fail "duet tune on $backend"
      grep -E '^ *[0-9]+ +BM=' "$dir/tune-$backend.txt" | head -n "${MATMUL_AB_TOP:-3}" |
        sed -E "s/^ *[0-9]+ +(BM=[^|]*PIPELINE=[01]).*/$backend \1/" >> "$dir/candidates.txt"
    done
  fi
  sort -u -o "$dir/candidates.txt" "$dir/candidates.txt"
  sed 's/^/  candidate: /' "$dir/candidates.txt"
  for round in $(seq 1 $((rounds + 1))); do
    logged "$dir/cupy-$round.log" env CUPY_TF32=0 "$python" bench/compare_cupy.py --kernels matmul --runs "$runs" \
      --json "$dir/cupy-$round.json" || fail "cuBLAS, round $round"
    [ "$round" -le "$rounds" ] || break  # a last cuBLAS run after the last round
    i=0
    while read -r backend params; do
      i=$((i + 1))
      echo "matmul device=\"$gpu\" backend=$backend $params" > "$dir/tuning-$i.txt"
      DUET_TUNING_FILE=$dir/tuning-$i.txt logged "$dir/duet-$round-$i.log" "$build/duet" bench \
        --device "${spec[$backend]}" --kernels matmul --runs "$runs" --json "$dir/duet-$round-$i.json" ||
        fail "candidate $i, round $round"
    done < "$dir/candidates.txt"
  done
  "$python" bench/matmul_ab.py "$dir" > "$out/matmul-ab.md" || fail "bench/matmul_ab.py"
  tee -a "$summary" < "$out/matmul-ab.md"
}
