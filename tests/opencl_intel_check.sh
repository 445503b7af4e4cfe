#!/usr/bin/env bash
# gemm_tc.duet's Intel form with the built-ins of cl_intel_subgroup_matrix_multiply_accumulate, as
# an Intel OpenCL device compiles it, checked without Intel's driver: the OpenCL source duet
# assembles (backend marker, prelude, defines, kernel; the OpenCL backend's -D DUET_INTEL_MATRIX for
# such devices) compiled by clang for SPIR. clang's OpenCL header does not declare the extension's
# built-ins, so they are declared here as its specification lists them: the check is that the form
# calls them with those types (and that the OpenCL C is sound), not what they compute, which the
# device tests check on PoCL through the form's emulation.
# Usage: opencl_intel_check.sh CLANG; exits 77 (skipped) where clang cannot compile OpenCL C for SPIR.
set -euo pipefail
clang=${1:-clang}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# SPIR needs only clang's front end (LLVM IR out, no code generator).
echo "__kernel void probe(void) {}" >"$work/probe.cl"
if ! "$clang" -x cl -cl-std=CL1.2 -target spir64 -S -emit-llvm -o /dev/null "$work/probe.cl" 2>/dev/null; then
  echo "skipped: $clang does not compile OpenCL C for spir64"
  exit 77
fi
cat >"$work/intel.h" <<'SHIM'
#define OVL __attribute__((overloadable))
float8 OVL intel_sub_group_f16_f16_matrix_mad_k16(int8 a, int8 b, float8 acc);
float8 OVL intel_sub_group_bf16_bf16_matrix_mad_k16(int8 a, int8 b, float8 acc);
float8 OVL intel_sub_group_f16_f16_matrix_mad_k16(short8 a, int8 b, float8 acc);
float8 OVL intel_sub_group_bf16_bf16_matrix_mad_k16(short8 a, int8 b, float8 acc);
SHIM
status=0
check() {
  local src="$work/gemm_tc.cl" what="$*"
  {
    echo "#define DUET_OPENCL 1"
    cat "$root/core/kernels/prelude.h"
    for d in "$@"; do echo "#define ${d%%=*} ${d#*=}"; done
    cat "$root/blas/kernels/gemm_tc.duet"
  } >"$src"
  if ! "$clang" -x cl -cl-std=CL1.2 -target spir64 -Xclang -finclude-default-header -include "$work/intel.h" \
      -O1 -S -emit-llvm -o "$work/out.ll" "$src" 2>"$work/log"; then
    echo "FAILED: $what"
    cat "$work/log"
    status=1
    return
  fi
  # The built-in, not the emulation, and the sub-group size it needs.
  if ! grep -q "matrix_mad_k16" "$work/out.ll" || grep -q "xmx_emulated" "$work/out.ll" ||
     ! grep -q "intel_reqd_sub_group_size" "$work/out.ll"; then
    echo "FAILED: $what: no call of the built-in, or no required sub-group size, in the output"
    status=1
    return
  fi
  echo "ok: $what"
}
for size in 8 16; do
  for type in "T=half TO=half" "T=bfloat16 TO=bfloat16 T_IS_BF16=1" "T=half TO=float"; do
    for ops in "OP_A=0 OP_B=0" "OP_A=1 OP_B=1"; do
      # shellcheck disable=SC2086
      check TC_INTEL=$size DUET_INTEL_MATRIX=$size $type $ops ALIGNED_A=0 ALIGNED_B=0 BM=128 BN=128 BK=32 WM=64 \
        WN=32 STAGES=2 THREADS=256
    done
  done
done
exit $status
