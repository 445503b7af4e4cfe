#!/usr/bin/env bash
# A session's GPU measurements over one build (device time is short: the build is the costly part,
# and a warm machine keeps build-gpu/ between calls). Runs the phases named in PHASES, in order,
# and starts none once BUDGET_S seconds (default 540) have passed:
#   check    issue 10: the checked suite on CUDA, NVIDIA's OpenCL and PoCL, then the fault entries
#   gemmcl   issue 11: gemm's correctness tests on every OpenCL device (PoCL included)
#   bench    issues 14, 15: scripts/gpu-bench.sh on CUDA and NVIDIA's OpenCL, CuPy beside them
#   python   issue 12: scripts/gpu-python.sh against the module in the build tree (NVIDIA's OpenCL)
#   gemm     issue 11: scripts/gpu-gemm.sh (the suite, cuBLAS and CLBlast beside it)
# Logs go under $OUT/<phase>/; the lines printed are each phase's summary.
# Usage (GPU machine): DUET_COMMIT=<commit> PHASES="check bench" scripts/gpu-session.sh
set -uo pipefail
out=${OUT:-gpu-session}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export DUET_BUILD_DIR=${DUET_BUILD_DIR:-build-gpu}
export DUET_COMMIT=${DUET_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
phases=${PHASES:-check gemmcl bench}
start=$SECONDS
status=0
say() { echo "=== [$((SECONDS - start)) s] $*"; }

source scripts/gpu-env.sh > /dev/null

say "build ($DUET_BUILD_DIR, commit $DUET_COMMIT)"
python=${PYTHON:-python3}
cmake -S . -B "$DUET_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE="$(command -v "$python")" > "$out/build.log" 2>&1 &&
  cmake --build "$DUET_BUILD_DIR" >> "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
grep -E "CLBlast|CUDA backend|Python module|DLPack" "$out/build.log" | head -8
echo "libduet's C++ runtime: $(readelf -d "$DUET_BUILD_DIR"/core/libduet.so | grep -o 'libstdc++[^]]*' || echo 'none linked (a private copy)')"
"$DUET_BUILD_DIR/duet" devices
echo "NVIDIA's OpenCL alone: $(OCL_ICD_FILENAMES=$ocl_nvidia "$DUET_BUILD_DIR/duet" devices | grep -c '^opencl:') OpenCL device(s)"

for phase in $phases; do
  if [ $((SECONDS - start)) -gt "${BUDGET_S:-540}" ]; then
    say "$phase skipped: past ${BUDGET_S:-540} s (BUDGET_S)"
    continue
  fi
  say "$phase"
  mkdir -p "$out/$phase"
  case $phase in
    check)
      # The checked suite (ctest's duet.<backend>.checked) on CUDA, NVIDIA's OpenCL and PoCL at once,
      # one process each (PoCL alone takes minutes), then the kernel-fault entries.
      exclude="-tce=*dlpack*,*native handles*,*wrap*,*wrapped*"
      DUET_TEST_BACKEND=cuda DUET_CHECK=1 timeout 420 "$DUET_BUILD_DIR/tests/duet_tests" "$exclude" \
        > "$out/check/cuda.log" 2>&1 &
      DUET_TEST_DEVICE_KIND=gpu DUET_TEST_BACKEND=opencl DUET_CHECK=1 timeout 420 \
        "$DUET_BUILD_DIR/tests/duet_tests" "$exclude" > "$out/check/opencl-nvidia.log" 2>&1 &
      DUET_TEST_DEVICE_KIND=cpu DUET_TEST_BACKEND=opencl DUET_CHECK=1 timeout 420 \
        "$DUET_BUILD_DIR/tests/duet_tests" "$exclude" > "$out/check/opencl-pocl.log" 2>&1 &
      wait
      for f in cuda opencl-nvidia opencl-pocl; do
        echo "checked, $f: $(grep -E "^\[doctest\] (test cases|assertions)" "$out/check/$f.log" | tr -s ' ' | tr '\n' ' ')"
        grep -E -A3 "ERROR|FATAL" "$out/check/$f.log" | head -20
      done
      timeout 200 ctest --test-dir "$DUET_BUILD_DIR" -R "faults" -j4 > "$out/check/ctest-faults.log" 2>&1 || status=1
      grep -E "tests passed|Test +#|Failed" "$out/check/ctest-faults.log" | tail -12
      for f in cuda opencl-nvidia opencl-pocl; do grep -q "Status: SUCCESS" "$out/check/$f.log" || status=1; done ;;
    build) ;;
    gemmcl)
      DUET_TEST_BACKEND=opencl timeout 180 "$DUET_BUILD_DIR/tests/duet_tests" -tc="gemm*" \
        > "$out/gemmcl/tests.log" 2>&1 || status=1
      grep -E "device|test cases:|assertions:|ERROR|FAILED" "$out/gemmcl/tests.log" | tail -20 ;;
    bench)
      OCL_ICD_FILENAMES=$ocl_nvidia OUT=$out/bench scripts/gpu-bench.sh > "$out/bench/stdout.log" 2>&1 || status=1
      tail -60 "$out/bench/stdout.log" ;;
    python)
      OCL_ICD_FILENAMES=$ocl_nvidia PIP_INSTALL=0 OUT=$out/python scripts/gpu-python.sh 2>&1 | tail -60
      [ "${PIPESTATUS[0]}" = 0 ] || status=1 ;;
    gemm)
      OUT=$out/gemm scripts/gpu-gemm.sh > "$out/gemm/stdout.log" 2>&1 || status=1
      tail -70 "$out/gemm/stdout.log" ;;
    *) say "unknown phase $phase"; status=1 ;;
  esac
done
say "done, status $status"
exit $status
