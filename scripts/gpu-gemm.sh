#!/usr/bin/env bash
# The GEMM suite of issue 11 in one call on the GPU machine (under 9 minutes on the H100): build
# (Release, build-gpu/, with CLBlast where it is installed or its .debs are in .device/), cuBLAS on
# the suite through CuPy (bench/gemm/gemm_cublas.py, TF32 off), duet-gemm-bench on cuda:0 and on
# opencl:NVIDIA (CLBlast beside it there), bench/gemm/gemm_report.py (the table, the targets and
# the plot), then gemm's correctness tests on CUDA and on NVIDIA's OpenCL (last, and skipped once
# BUDGET_S seconds, default 450, have passed, so the measurements are in first). Files go
# under $OUT (default ./gemm-out): gpu-gemm.log (everything printed), build.log, cublas.json,
# duet-cuda.json, duet-opencl.json, [duet-pocl.json,] gemm-report.md, gemm.png. The last lines
# printed are the targets.
#
# Without an NVIDIA GPU (a PoCL machine) the same script measures what is there: duet and CLBlast
# on the OpenCL device, no cuBLAS. BENCH_SMOKE=1 runs the suite at smoke sizes (a quick check that
# everything works end to end); on a CPU the default is --scale 4.
#
# CLBlast on the GPU machine, which cannot fetch packages: here, `apt-get download libclblast1
# libclblast-dev` into .device/; this script unpacks them into .device/clblast-root and builds
# against that copy.
#
# Usage (GPU machine): source .device/setup.sh && DUET_COMMIT=<this commit> scripts/gpu-gemm.sh
# Environment: DUET_BUILD_DIR (build-gpu), PYTHON (python3), DUET_COMMIT, BENCH_RUNS (timed runs per
# case), BENCH_SMOKE=1, BENCH_SCALE (divide the suite's sizes), BENCH_ONLY (comma-separated cases),
# TESTS=0 (skip the correctness tests), BUDGET_S (450), POCL=1 (also the PoCL device, at --scale 8,
# where present; otherwise only NVIDIA's OpenCL driver is loaded).
set -uo pipefail
out=${OUT:-gemm-out}
mkdir -p "$out"
build=${DUET_BUILD_DIR:-build-gpu}
python=${PYTHON:-python3}
log="$out/gpu-gemm.log"
: > "$log"
export DUET_COMMIT=${DUET_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export PYTHONUNBUFFERED=1
export DUET_CACHE_DIR=${DUET_CACHE_DIR:-$PWD/$build/program-cache}
start=$SECONDS
say() { echo "=== [$((SECONDS - start)) s] $*" | tee -a "$log"; }
status=0

# NVIDIA's OpenCL driver alone, as scripts/gpu-all.sh does (POCL=1 keeps every driver).
if [ "${POCL:-0}" != 1 ] && [ -e /etc/OpenCL/vendors/nvidia.icd ]; then
  vendors=$(mktemp -d)
  cp /etc/OpenCL/vendors/nvidia.icd "$vendors/"
  export OCL_ICD_VENDORS=$vendors
fi

# CLBlast from .debs carried in .device/ where it is not installed.
prefix=()
if ! ldconfig -p 2>/dev/null | grep -q libclblast; then
  debs=(.device/libclblast*.deb)
  if [ -e "${debs[0]}" ]; then
    root=$PWD/.device/clblast-root
    for d in "${debs[@]}"; do dpkg -x "$d" "$root"; done
    prefix=(-DCMAKE_PREFIX_PATH="$root/usr")
    export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
fi

say "build ($build)"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv 2>&1
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" &&
    cmake --build "$build" --target duet_tests duet_gemm_bench duet_tool
} > "$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
grep -E "CLBlast|CUDA backend" "$out/build.log" | tee -a "$log"
"$build/duet" devices 2>&1 | tee -a "$log"

# Which devices there are: CUDA, NVIDIA's OpenCL, PoCL.
devices=$("$build/duet" devices 2>/dev/null)
has_cuda=0; has_nvidia_cl=0; has_pocl=0
grep -qE "^ *cuda:0" <<< "$devices" && has_cuda=1
grep -E "^ *opencl:" <<< "$devices" | grep -qi nvidia && has_nvidia_cl=1
grep -qi "portable computing language" <<< "$devices" && has_pocl=1

extra=()
[ -n "${BENCH_RUNS:-}" ] && extra+=(--runs "$BENCH_RUNS")
[ "${BENCH_SMOKE:-0}" = 1 ] && extra+=(--smoke)
[ -n "${BENCH_SCALE:-}" ] && extra+=(--scale "$BENCH_SCALE")
[ -n "${BENCH_ONLY:-}" ] && extra+=(--only "$BENCH_ONLY")

files=()
if [ $has_cuda = 1 ]; then
  say "cuBLAS through CuPy"
  CUPY_TF32=0 "$python" bench/gemm/gemm_cublas.py --json "$out/cublas.json" "${extra[@]}" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  files+=("$out/cublas.json")
  say "duet on cuda:0"
  "$build/duet-gemm-bench" --device cuda:0 --json "$out/duet-cuda.json" "${extra[@]}" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  files+=("$out/duet-cuda.json")
fi
if [ $has_nvidia_cl = 1 ]; then
  say "duet and CLBlast on opencl:NVIDIA"
  "$build/duet-gemm-bench" --device opencl:NVIDIA --json "$out/duet-opencl.json" "${extra[@]}" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  files+=("$out/duet-opencl.json")
fi
if [ $has_pocl = 1 ] && { [ $has_cuda = 0 ] || [ "${POCL:-0}" = 1 ]; }; then
  pocl_extra=("${extra[@]}")
  [ "${BENCH_SMOKE:-0}" = 1 ] || [ -n "${BENCH_SCALE:-}" ] || pocl_extra+=(--scale "$([ $has_cuda = 1 ] && echo 8 || echo 4)")
  say "duet and CLBlast on PoCL"
  "$build/duet-gemm-bench" --device opencl:portable --json "$out/duet-pocl.json" "${pocl_extra[@]}" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  files+=("$out/duet-pocl.json")
fi

say "report"
existing=()
for f in "${files[@]}"; do [ -s "$f" ] && existing+=("$f"); done
if [ ${#existing[@]} -gt 0 ]; then
  "$python" bench/gemm/gemm_report.py "${existing[@]}" --out "$out/gemm-report.md" --plot "$out/gemm.png" \
    > "$out/report.txt" 2>&1 || status=1
  tail -1 "$out/report.txt" | tee -a "$log"
  sed -n '/^## Targets/,/^## Float/p' "$out/gemm-report.md" | grep -v "^## Float" | tee -a "$log"
  rm -f "$out/report.txt"
fi
# The correctness tests last, so that the measurements and the report are in even if time runs short.
if [ "${TESTS:-1}" = 1 ]; then
  for backend in cuda opencl; do
    [ $backend = cuda ] && [ $has_cuda = 0 ] && continue
    if [ $((SECONDS - start)) -gt "${BUDGET_S:-450}" ]; then
      say "correctness on $backend skipped: past ${BUDGET_S:-450} s (BUDGET_S)"
      continue
    fi
    say "correctness: gemm's tests on $backend"
    DUET_TEST_BACKEND=$backend "$build/tests/duet_tests" -tc="gemm*" 2>&1 | tail -40 | tee -a "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
  done
fi
say "done, status $status"
exit $status
