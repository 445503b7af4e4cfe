#!/usr/bin/env bash
# One call on the GPU machine: build (Release, build-gpu/), run CuPy's side of the benchmark
# (bench/compare_cupy.py: copy, cupy.add/multiply, cuBLAS SGEMM with TF32 off, a RawKernel stencil,
# small launches), then `duet bench` on the CUDA backend (cuda:0), on NVIDIA's OpenCL platform
# (opencl:NVIDIA) and on PoCL when it is installed, each given CuPy's results so that matmul is held
# against cuBLAS; then bench/report.py (RESULTS.md with the targets of issue 3) and bench/plot.py.
# Everything goes under $OUT (default ./bench-out); the last lines printed are the target checks.
#
# The GPU machine's copy of the checkout may carry an older .git: give the commit from here.
# Usage (GPU machine): source .device/setup.sh && DUET_COMMIT=<this commit> scripts/gpu-bench.sh
# Environment: DUET_BUILD_DIR (build-gpu), PYTHON (python3), DUET_COMMIT (git rev-parse, else unknown),
# BENCH_RUNS (timed runs per case; default: the benchmark's), BENCH_SMOKE=1 (tiny sizes: a dry run).
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
build=${DUET_BUILD_DIR:-build-gpu}
python=${PYTHON:-python3}
log="$out/gpu-bench.log"
: > "$log"
export DUET_COMMIT=${DUET_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export PYTHONUNBUFFERED=1
extra=()
[ -n "${BENCH_RUNS:-}" ] && extra+=(--runs "$BENCH_RUNS")
[ "${BENCH_SMOKE:-0}" = 1 ] && extra+=(--smoke)
status=0

{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv 2>&1
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build "$build"
} > "$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
tail -2 "$out/build.log"
"$build/duet" devices 2>&1 | tee -a "$log"

echo "=== launch floors (the drivers themselves)" | tee -a "$log"
"$build/duet-launch-floor" 2>&1 | tee "$out/launch-floor.jsonl" | tee -a "$log"

echo "=== CuPy (commit $DUET_COMMIT)" | tee -a "$log"
CUPY_TF32=0 "$python" bench/compare_cupy.py --json "$out/cupy.json" "${extra[@]}" 2>&1 | tee -a "$log" || status=1
peer=()
[ -s "$out/cupy.json" ] && peer=(--peer "$out/cupy.json")

run_duet() {  # name spec
  echo "=== duet bench --device $2" | tee -a "$log"
  "$build/duet" bench --device "$2" "${peer[@]}" "${extra[@]}" --json "$out/duet-$1.json" 2>&1 | tee -a "$log" ||
    status=1
}
run_duet cuda cuda:0
run_duet opencl opencl:NVIDIA
if "$build/duet" devices 2>/dev/null | grep -qi "portable computing language"; then
  run_duet pocl opencl:portable
else
  echo "=== no PoCL device here: run scripts/pocl-bench.sh on a machine with PoCL" | tee -a "$log"
fi

echo "=== report" | tee -a "$log"
inputs=()
for f in "$out"/cupy.json "$out"/duet-cuda.json "$out"/duet-opencl.json "$out"/duet-pocl.json \
         "$out"/pyopencl.json; do
  [ -s "$f" ] && inputs+=("$f")
done
if [ ${#inputs[@]} -gt 0 ]; then
  "$python" bench/plot.py "${inputs[@]}" --out "$out/results.png" 2>&1 | tee -a "$log" ||
    echo "plot failed (matplotlib missing?): run bench/plot.py on the fetched JSON" | tee -a "$log"
  "$python" bench/report.py "${inputs[@]}" --floor "$out/launch-floor.jsonl" --out "$out/RESULTS.md" --plot results.png 2>&1 | tee -a "$log" || status=1
fi
exit $status
