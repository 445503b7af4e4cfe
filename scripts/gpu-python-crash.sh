#!/usr/bin/env bash
# Issue 12's open crash on the GPU machine: `duet.asarray(a, dtype="float64")` and
# `duet.astype` segfault under CUDA and NVIDIA's OpenCL (pytest and plain scripts alike; PoCL and
# an ASan+UBSan build on PoCL are clean). Builds the module, runs scripts/python-crash/ under a
# native SIGSEGV handler (there is no gdb there), and brings back the .so files under $OUT/so for
# addr2line here.
# Usage (GPU machine): scripts/gpu-python-crash.sh
set -uo pipefail
repo=$(pwd)
source scripts/gpu-env.sh > /dev/null
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v python3)" > /tmp/build.log 2>&1 &&
  cmake --build build-gpu --target duet_python >> /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
gcc -shared -fPIC -O1 -o /tmp/segv_backtrace.so scripts/python-crash/segv_backtrace.c
export PYTHONPATH=$repo/build-gpu/python
for backend in cuda opencl; do
  echo "=== DUET_BACKEND=$backend"
  (cd /tmp && DUET_BACKEND=$backend timeout 60 python3 "$repo/scripts/python-crash/run_steps.py" 2>&1 | head -40)
done
mkdir -p "${OUT:-gpu-out}/so"
cp build-gpu/python/duet/_duet*.so build-gpu/core/libduet.so.0.1.0 build-gpu/array/libduet_array.so.0.1.0 "${OUT:-gpu-out}/so/"
