#!/usr/bin/env bash
# One call on the GPU machine: build, run the whole test suite and `duet run` on the CUDA backend and
# on the OpenCL backend (NVIDIA's platform), with logs under $OUT (default ./gpu-logs).
# Usage (GPU machine): source .device/setup.sh && scripts/gpu-check.sh
set -uo pipefail
out=${OUT:-gpu-logs}
mkdir -p "$out"
build=${DUET_BUILD_DIR:-build-gpu}
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build "$build"
} > "$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
tail -3 "$out/build.log"
"$build/duet" devices 2>&1 | tee "$out/devices.txt"
status=0
for backend in cuda opencl; do
  echo "=== DUET_BACKEND=$backend: ctest"
  DUET_BACKEND=$backend ctest --test-dir "$build" -j4 -V > "$out/ctest-$backend.log" 2>&1 || status=1
  grep -E "tests passed|Test +#|test cases:|Skipped|Failed|\*\*\*" "$out/ctest-$backend.log" | tail -20
  echo "=== DUET_BACKEND=$backend: duet run"
  DUET_BACKEND=$backend "$build/duet" run 2>&1 | tee "$out/run-$backend.txt" || status=1
done
exit $status
