#!/usr/bin/env bash
# Matmul parameter sets side by side with cuBLAS, on the GPU machine, in one call: build; `duet tune
# --quick` at 4096^3 on the CUDA and OpenCL backends (their top few join the candidates); then
# rounds of [CuPy's cuBLAS SGEMM, then `duet bench -k matmul` once per candidate], so every
# candidate is held against the cuBLAS runs just before and after it (the card's clock drifts with
# its temperature over a run). bench/matmul_ab.py prints the table.
# Usage (GPU machine): source .device/setup.sh && scripts/gpu-matmul-ab.sh
# Environment: CANDIDATES (file, lines "cuda|opencl BM=.. BN=.. BK=.. TM=.. TN=.. WX=.. PIPELINE=.."),
# TUNE=0 (skip the searches), TUNE_SIZE (4096), ROUNDS (2), AB_RUNS (timed runs per case, 20), TOP (from each search, 3).
set -uo pipefail
out=${OUT:-ab-out}
mkdir -p "$out"
build=${DUET_BUILD_DIR:-build-gpu}
python=${PYTHON:-python3}
rounds=${ROUNDS:-2}
runs=${AB_RUNS:-20}
top=${TOP:-3}
export PYTHONUNBUFFERED=1

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build "$build"
} > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }

candidates=$out/candidates.txt
: > "$candidates"
[ -n "${CANDIDATES:-}" ] && grep -v '^#' "$CANDIDATES" | grep . >> "$candidates"
declare -A spec=([cuda]=cuda:0 [opencl]=opencl:NVIDIA)
if [ "${TUNE:-1}" = 1 ]; then
  for backend in cuda opencl; do
    "$build/duet" tune --device "${spec[$backend]}" --quick --size "${TUNE_SIZE:-4096}" > "$out/tune-$backend.txt" 2>&1
    grep -E '^ *[0-9]+ +BM=' "$out/tune-$backend.txt" | head -n "$top" |
      sed -E "s/^ *[0-9]+ +(BM=[^|]*PIPELINE=[01]).*/$backend \1/" >> "$candidates"
  done
fi
sort -u -o "$candidates" "$candidates"
echo "candidates:"; cat "$candidates"

for round in $(seq 1 "$rounds"); do
  CUPY_TF32=0 "$python" bench/compare_cupy.py --kernels matmul --runs "$runs" --json "$out/cupy-$round.json" \
    > "$out/cupy-$round.log" 2>&1 || echo "cupy round $round failed"
  i=0
  while read -r backend params; do
    i=$((i + 1))
    file=$out/tuning-$i.txt
    echo "matmul device=\"NVIDIA H100 80GB HBM3\" backend=$backend $params" > "$file"
    DUET_TUNING_FILE=$file "$build/duet" bench --device "${spec[$backend]}" --kernels matmul --runs "$runs" \
      --json "$out/duet-$round-$i.json" > "$out/duet-$round-$i.log" 2>&1 || echo "candidate $i round $round failed"
  done < "$candidates"
done
CUPY_TF32=0 "$python" bench/compare_cupy.py --kernels matmul --runs "$runs" --json "$out/cupy-$((rounds + 1)).json" \
  > "$out/cupy-$((rounds + 1)).log" 2>&1
"$python" bench/matmul_ab.py "$out" | tee "$out/summary.md"
