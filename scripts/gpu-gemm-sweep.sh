#!/usr/bin/env bash
# Issue 11's tile sweep: duet-gemm-bench on the cases where the rule's tiles fall short of cuBLAS,
# once with the rule's own plan, then with each forced tile set and split count (--params,
# --splits), so the rule can be set from measurements. cuBLAS's figures for the same cases are in
# the last suite report (bench/results/). Prints one line per case and variant; the log goes to
# $OUT/gemm-sweep.txt.
# Usage (GPU machine, after a build in $DUET_BUILD_DIR): scripts/gpu-gemm-sweep.sh
# Environment: DUET_BUILD_DIR (build-gpu), SWEEP_BACKENDS ("cuda:0"), SWEEP_CASES, SWEEP_RUNS (10),
# SWEEP_TILES, SWEEP_SPLITS (1: the split-count runs on the small cases; 0: none).
# The tile sets are the table's, their halves and transposes, the OpenCL entries' unpipelined
# loops (on OpenCL the transposed cases run within 1% of the plain ones, on CUDA 11% below), and
# the large tiles with other rasters of the groups (GROUP_ROWS 4 and 16; the kernels' default 8).
set -uo pipefail
out=${OUT:-gemm-sweep}
mkdir -p "$out"
bench=${DUET_BUILD_DIR:-build-gpu}/duet-gemm-bench
cases=${SWEEP_CASES:-sq64,sq128,sq256,sq512,tall65536x64,wide64x65536,tall16384x128,wide128,tall128,sq4097,sq1000,sq1000-nt,sq1000-tn,sq1000-tt,sq1000-beta,sq4096,sq4096-nt,sq4096-tn,sq4096-tt,sq4096-beta,k256x256,k1024x1024}
small=sq128,sq256,sq512
tiles=(
  "BM=128 BN=256 BK=16 TM=8 TN=16 WX=8 PIPELINE=1"
  "BM=64 BN=128 BK=16 TM=8 TN=8 WX=16 PIPELINE=1"
  "BM=64 BN=64 BK=16 TM=4 TN=8 WX=8 PIPELINE=1"
  "BM=64 BN=256 BK=16 TM=8 TN=16 WX=8 PIPELINE=1"
  "BM=128 BN=64 BK=16 TM=8 TN=8 WX=8 PIPELINE=1"
  "BM=128 BN=128 BK=16 TM=8 TN=8 WX=16 PIPELINE=1"
  "BM=32 BN=64 BK=16 TM=4 TN=8 WX=8 PIPELINE=1"
  "BM=64 BN=32 BK=16 TM=4 TN=4 WX=8 PIPELINE=1"
  "BM=128 BN=256 BK=16 TM=16 TN=8 WX=16 PIPELINE=0"
  "BM=128 BN=256 BK=16 TM=8 TN=16 WX=8 PIPELINE=0"
  "BM=64 BN=128 BK=16 TM=8 TN=8 WX=16 PIPELINE=0"
  "BM=128 BN=256 BK=16 TM=8 TN=16 WX=8 PIPELINE=1 GROUP_ROWS=4"
  "BM=128 BN=256 BK=16 TM=8 TN=16 WX=8 PIPELINE=1 GROUP_ROWS=16"
)
# SWEEP_TILES replaces the list: tile sets separated by ";".
if [ -n "${SWEEP_TILES:-}" ]; then IFS=';' read -r -a tiles <<< "$SWEEP_TILES"; fi
log="$out/gemm-sweep.txt"
: > "$log"
run() {  # label, then duet-gemm-bench's arguments
  local label=$1
  shift
  timeout 120 "$bench" --no-clblast --runs "${SWEEP_RUNS:-10}" "$@" 2>&1 |
    awk -v l="$label" '$5 == "duet" || $4 == "duet" {print l " | " $0}' | tee -a "$log"
}
for device in ${SWEEP_BACKENDS:-cuda:0}; do
  echo "=== $device" | tee -a "$log"
  run "$device rule" --device "$device" --only "$cases"
  for t in "${tiles[@]}"; do run "$device [$t]" --device "$device" --only "$cases" --params "$t"; done
  [ "${SWEEP_SPLITS:-1}" = 0 ] && continue
  for s in 2 4 8 16; do
    for t in "${tiles[2]}" "${tiles[6]}" "${tiles[1]}"; do
      run "$device [$t] splits $s" --device "$device" --only "$small" --params "$t" --splits "$s"
    done
  done
done
