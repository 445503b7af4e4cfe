#!/usr/bin/env bash
# The CPU side of the benchmark on a machine with PoCL (no GPU needed): build, `duet bench` on PoCL's
# device, the same kernels through PyOpenCL plus numpy's matmul (bench/compare_pyopencl.py, with
# Debian's python3-pyopencl), then report.py and plot.py over these and any GPU results given.
# Writes under $OUT (default ./bench-out). REPEAT (3) alternating rounds, RUNS (15) timed runs per case,
# FLOOR: the GPU call's launch-floor.jsonl for the report.
#
# Usage: scripts/pocl-bench.sh [GPU-RESULT.json ...]
#   e.g. scripts/pocl-bench.sh gpu/cupy.json gpu/duet-cuda.json gpu/duet-opencl.json, then copy
#   bench-out/RESULTS.md and bench-out/results.png to bench/.
# Needs: apt-get install python3-pyopencl python3-numpy python3-matplotlib
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
build=${DUET_BUILD_DIR:-build}
python=${PYTHON:-/usr/bin/python3}
export DUET_COMMIT=${DUET_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export PYTHONUNBUFFERED=1
status=0
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build "$build"; } > "$out/build-pocl.log" 2>&1 ||
  { tail -50 "$out/build-pocl.log"; exit 1; }
# duet and PyOpenCL take turns, REPEAT times (default 3; --runs RUNS, default 15): on a small shared
# machine, report.py then keeps each row's fastest median for both alike. duet goes first: its JSON
# records the matmul parameters, which the PyOpenCL side then uses.
inputs=("$@")
for i in $(seq 1 "${REPEAT:-3}"); do
  "$build/duet" bench --device opencl:portable --runs "${RUNS:-15}" --json "$out/duet-pocl-$i.json" || status=1
  "$python" bench/compare_pyopencl.py --device portable --runs "${RUNS:-15}" --duet-json "$out/duet-pocl-$i.json" \
    --json "$out/pyopencl-$i.json" || status=1
  for f in "$out/duet-pocl-$i.json" "$out/pyopencl-$i.json"; do [ -s "$f" ] && inputs+=("$f"); done
done
"$python" bench/plot.py "${inputs[@]}" --out "$out/results.png" || status=1
"$python" bench/report.py "${inputs[@]}" ${FLOOR:+--floor "$FLOOR"} --out "$out/RESULTS.md" --plot results.png || status=1
exit $status
