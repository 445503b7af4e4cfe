#!/usr/bin/env bash
# Everything the GPU machine proves, in one call (device time is short, so each step runs once):
# build; the whole test suite (CUDA, and OpenCL on NVIDIA's platform: PoCL is left out here, CI
# covers it); `duet run` with DUET_BACKEND=cuda and =opencl; the program-cache timings (a second
# process building every shared kernel source from the cache, per backend); the copy/compute
# overlap benchmark and the CUDA runtime interop round trip; the benchmark with CuPy beside it.
# Logs go to one archive, $OUT/gpu-all.tar.gz, plus RESULTS.md and results.png.
# The GPU machine's copy of the checkout may carry an older .git: give the commit from here.
# Usage (GPU machine): source .device/setup.sh && DUET_COMMIT=<this commit> scripts/gpu-all.sh
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out"
work=$(mktemp -d)
build=${DUET_BUILD_DIR:-build-gpu}
status=0

# Only NVIDIA's OpenCL driver: the ICD loader reads the vendors from this folder.
vendors=$(mktemp -d)
cp /etc/OpenCL/vendors/nvidia.icd "$vendors/"
export OCL_ICD_VENDORS=$vendors

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build "$build"
} > "$work/build.log" 2>&1 || { tail -40 "$work/build.log"; tar -C "$work" -czf "$out/gpu-all.tar.gz" .; exit 1; }
"$build/duet" devices | tee "$work/devices.txt"

ctest --test-dir "$build" -j6 -V > "$work/ctest.log" 2>&1 || status=1
grep -E "tests passed|Test +#|test cases:|assertions:|Skipped|Failed|\*\*\*" "$work/ctest.log" | tail -40

for backend in cuda opencl; do
  echo "=== DUET_BACKEND=$backend duet run"
  DUET_BACKEND=$backend "$build/duet" run 2>&1 | tee "$work/run-$backend.txt" || status=1
done

{
  for spec in cuda:0 opencl:NVIDIA; do
    export DUET_CACHE_DIR=$work/cache-${spec%%:*}
    echo "=== program cache, $spec: first process, then a second one"
    "$build/duet" cache warm --device "$spec"
    "$build/duet" cache warm --device "$spec"
  done
  unset DUET_CACHE_DIR
  for spec in cuda:0 opencl:NVIDIA; do
    echo "=== copy/compute overlap, $spec"
    "$build/duet-overlap" --device "$spec"
  done
  echo "=== zero-copy interop with the CUDA runtime"
  "$build/tests/duet_cuda_interop"
} > "$work/cache-overlap-interop.txt" 2>&1 || status=1
cat "$work/cache-overlap-interop.txt"

OUT=$work/bench DUET_BUILD_DIR=$build scripts/gpu-bench.sh > "$work/bench.txt" 2>&1 || status=1
tail -40 "$work/bench.txt"
rm -rf "$work"/cache-cuda "$work"/cache-opencl  # the program caches, not the log beside them
cp "$work/bench/RESULTS.md" "$work/bench/results.png" "$out/" 2>/dev/null
tar -C "$work" -czf "$out/gpu-all.tar.gz" .
exit $status
