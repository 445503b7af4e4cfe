#!/usr/bin/env bash
# gemm_tc.duet's matrix-instruction form as NVIDIA's OpenCL compiles it, checked without NVIDIA's
# driver: the OpenCL source duet assembles (backend marker, prelude, defines, kernel; the OpenCL
# backend's -D DUET_NV_ARCH for NVIDIA devices) compiled by clang for its NVPTX OpenCL target, which
# takes the same inline PTX (`asm`, constraints "r", "l", "f") into the PTX it emits. clang checks
# the OpenCL C (address spaces, no half arithmetic without cl_khr_fp16) and the asm operands, not the
# PTX text itself: NVRTC checks that (duet.nvrtc), and only NVIDIA's driver checks both together.
# Usage: opencl_ptx_check.sh CLANG; exits 77 (skipped) where clang has no NVPTX target.
set -euo pipefail
clang=${1:-clang}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$clang" -print-targets 2>/dev/null | grep -q nvptx64; then
  echo "skipped: $clang has no NVPTX target"
  exit 77
fi
# clang's OpenCL header leaves vload_half / vstore_half undeclared on NVPTX unless cl_khr_fp16 is on
# (every OpenCL 1.2 device has them without it): declared here, so the check runs without fp16.
cat >"$work/half.h" <<'SHIM'
float __attribute__((overloadable)) vload_half(size_t offset, const __global half* p);
float __attribute__((overloadable)) vload_half(size_t offset, const __local half* p);
void __attribute__((overloadable)) vstore_half(float v, size_t offset, __global half* p);
SHIM
status=0
# One compile: arch, then NAME=VALUE defines.
check() {
  local arch=$1
  shift
  local src="$work/gemm_tc.cl" what="sm_$arch $*"
  {
    echo "#define DUET_OPENCL 1"
    cat "$root/core/kernels/prelude.h"
    for d in "$@" TC_REQUIRE_MMA=1; do echo "#define ${d%%=*} ${d#*=}"; done
    cat "$root/blas/kernels/gemm_tc.duet"
  } >"$src"
  # -fgnu-keywords: clang's OpenCL mode knows only __asm__; NVIDIA's compiler takes `asm` as CUDA does.
  if ! "$clang" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header \
      -include "$work/half.h" -fgnu-keywords -DDUET_NV_ARCH="$arch" -O1 -S -o "$work/out.ptx" "$src" \
      2>"$work/log"; then
    echo "FAILED: $what"
    cat "$work/log"
    status=1
    return
  fi
  local need
  for need in "mma.sync.aligned" "cp.async.cg.shared.global" "cp.async.wait_group"; do
    if ! grep -q "$need" "$work/out.ptx"; then
      echo "FAILED: $what: no $need in the PTX"
      status=1
      return
    fi
  done
  echo "ok: $what"
}
tiles() {  # BMxBNxBK:WMxWN:STAGES -> defines
  local t=$1 bm bn bk wm wn st
  IFS='x:' read -r bm bn bk wm wn st <<<"$t"
  echo "BM=$bm BN=$bn BK=$bk WM=$wm WN=$wn STAGES=$st THREADS=$(((bm / wm) * (bn / wn) * 32))"
}
for type in "T=half TO=half" "T=bfloat16 TO=bfloat16 T_IS_BF16=1" "T=half TO=float" \
            "T=float TO=float T_IS_FLOAT=1"; do
  bk=32
  [[ $type == *T_IS_FLOAT=1* ]] && bk=16
  for ops in "OP_A=0 OP_B=0" "OP_A=1 OP_B=0" "OP_A=0 OP_B=1" "OP_A=1 OP_B=1"; do
    # shellcheck disable=SC2046
    check 90 $type $ops ALIGNED_A=1 ALIGNED_B=1 $(tiles "128x128x$bk:64x32:2")
  done
  # shellcheck disable=SC2046
  check 80 $type OP_A=1 OP_B=0 ALIGNED_A=0 ALIGNED_B=1 $(tiles "64x64x$bk:32x32:3")
  # shellcheck disable=SC2046
  check 90 $type OP_A=0 OP_B=1 ALIGNED_A=1 ALIGNED_B=0 $(tiles "128x64x$bk:64x64:4")
done
# Swizzled rows (16-bit elements): three stages of the large tile within OpenCL's 48 KiB.
for ops in "OP_A=0 OP_B=0" "OP_A=1 OP_B=1"; do
  # shellcheck disable=SC2046,SC2086
  check 90 T=half TO=half $ops ALIGNED_A=1 ALIGNED_B=1 TC_SWIZZLE=1 $(tiles "128x128x32:64x32:3")
done
exit $status
