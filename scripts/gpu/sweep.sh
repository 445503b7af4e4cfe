# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# sweep: duet-gemm-bench over the cases where the rule's tiles fall shortest of cuBLAS, once with the
# rule's own plan, then with each tile set and split count forced (--params, --splits), so the
# rule's constants can be set from measurements; cuBLAS's figures for the same cases come from the
# gemm phase. One line per case and variant in gemm-sweep.txt (in logs.tar.gz) and the summary.
# SWEEP_DEVICES ("cuda:0"), SWEEP_CASES, SWEEP_RUNS (10), SWEEP_TILES (tile sets separated by ";"),
# SWEEP_SPLITS (1: split counts 2 to 16 with three of the tile sets below on the small cases; 0: none).
# The tile sets: the table's, their halves and transposes, the unpipelined loops, and the large
# tiles with other rasters of the groups (GROUP_ROWS 4 and 16; the kernels' default is 8).
sweep_tiles=(
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
sweep_cases=sq64,sq128,sq256,sq512,tall65536x64,wide64x65536,tall16384x128,wide128,tall128,sq4097,sq1000,sq1000-nt
sweep_cases+=,sq1000-tn,sq1000-tt,sq1000-beta,sq4096,sq4096-nt,sq4096-tn,sq4096-tt,sq4096-beta,k256x256,k1024x1024

phase_sweep() {
  local dir=$1 device t s tiles=("${sweep_tiles[@]}") cases=${SWEEP_CASES:-$sweep_cases}
  [ -n "${SWEEP_TILES:-}" ] && IFS=';' read -r -a tiles <<< "$SWEEP_TILES"
  sweep_run() {  # LABEL, then duet-gemm-bench's arguments: the duet rows, labelled
    local label=$1
    shift
    timeout 120 "$build/duet-gemm-bench" --no-clblast --runs "${SWEEP_RUNS:-10}" "$@" 2>&1 |
      awk -v l="$label" '$5 == "duet" || $4 == "duet" {print l " | " $0}' >> "$dir/gemm-sweep.txt"
  }
  for device in ${SWEEP_DEVICES:-cuda:0}; do
    sweep_run "$device rule" --device "$device" --only "$cases"
    for t in "${tiles[@]}"; do sweep_run "$device [$t]" --device "$device" --only "$cases" --params "$t"; done
    [ "${SWEEP_SPLITS:-1}" = 0 ] && continue
    for s in 2 4 8 16; do
      for t in "${sweep_tiles[2]}" "${sweep_tiles[6]}" "${sweep_tiles[1]}"; do
        sweep_run "$device [$t] splits $s" --device "$device" --only sq128,sq256,sq512 --params "$t" --splits "$s"
      done
    done
  done
  note "- $(wc -l < "$dir/gemm-sweep.txt") rows in logs.tar.gz: sweep/gemm-sweep.txt"
}
