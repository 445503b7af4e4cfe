#!/usr/bin/env bash
# Everything the GPU machine proves, in one call: scripts/gpu-check.sh (build, the whole test suite
# and `duet run` under DUET_BACKEND=cuda and =opencl), the program-cache timings (a second process
# building every shared kernel source from the cache, per backend), the copy/compute overlap
# benchmark and the CUDA runtime interop round trip, then scripts/gpu-bench.sh (the benchmark with
# CuPy beside it). Logs go to one archive, $OUT/gpu-all.tar.gz, as few files come back.
# Usage (GPU machine): source .device/setup.sh && scripts/gpu-all.sh
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out"
work=$(mktemp -d)
build=${DUET_BUILD_DIR:-build-gpu}
status=0

OUT=$work/check scripts/gpu-check.sh > "$work/check.txt" 2>&1 || status=1
tail -40 "$work/check.txt"

{
  for spec in cuda:0 opencl:NVIDIA; do
    export DUET_CACHE_DIR=$work/cache-${spec%%:*}
    echo "=== program cache, $spec: first process, then a second one"
    "$build/duet" cache warm --device "$spec"
    "$build/duet" cache warm --device "$spec"
  done
} > "$work/cache.txt" 2>&1 || status=1
cat "$work/cache.txt"

{
  for spec in cuda:0 opencl:NVIDIA; do
    echo "=== copy/compute overlap, $spec"
    "$build/duet-overlap" --device "$spec"
  done
  echo "=== zero-copy interop with the CUDA runtime"
  "$build/tests/duet_cuda_interop"
} > "$work/overlap.txt" 2>&1 || status=1
cat "$work/overlap.txt"

OUT=$work/bench scripts/gpu-bench.sh > "$work/bench.txt" 2>&1 || status=1
tail -30 "$work/bench.txt"
cp "$work/bench/RESULTS.md" "$work/bench/results.png" "$out/" 2>/dev/null
tar -C "$work" -czf "$out/gpu-all.tar.gz" .
exit $status
