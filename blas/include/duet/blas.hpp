// duet::blas: matrix products on any duet device (CMake target duet::blas, part of duet::duet).
// Written once in the dialect (blas/kernels/), with tile parameters from a table per device and
// size class (duet/tuning.hpp) and a kernel chosen per call by the rule in duet/gemm_plan.hpp. Like
// every launch, the calls are asynchronous: they enqueue work on `q` and return. Sizes are checked
// against the buffers (BufferSizeError) and buffers must belong to the queue's device
// (DeviceMismatchError). Every call may be made from several threads, on their own queues or on a
// shared one.
//
// Layout. Matrices are row-major: element (i, j) of a matrix with leading dimension ld is element
// i * ld + j of its buffer (or view), and ld >= the number of columns stored. Column-major callers
// (BLAS, cuBLAS, Fortran) use the transpose identity: a column-major matrix is its transpose read
// row-major, and C = op(A) op(B) is C^T = op(B)^T op(A)^T, so the column-major
//     C (M x N) = alpha op(A) op(B) + beta C
// is, with the same buffers and leading dimensions,
//     gemm(q, op_b, op_a, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
// (the operands swap places, and so do M and N; the ops stay with their operands).
#pragma once

#include "duet/export.hpp"

#include <cstddef>
#include <optional>
#include <string>

#include "duet/bfloat16.hpp"
#include "duet/buffer.hpp"
#include "duet/gemm_plan.hpp"
#include "duet/half.hpp"
#include "duet/queue.hpp"
#include "duet/tuning.hpp"

namespace duet {

// C = A * B, row-major float32: A is M x K, B is K x N, C is M x N. Any sizes >= 1 (0 is an
// ArgumentError). The same as gemm(q, Op::none, Op::none, M, N, K, 1, A, K, B, N, 0, C, N).
DUET_API void matmul(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C,
                     std::size_t M, std::size_t N, std::size_t K);

// General matrix product, BLAS semantics, row-major:
//     C = alpha * op(A) * op(B) + beta * C
// op(A) is M x K, op(B) is K x N, C is M x N; op = Op::none uses the matrix as stored, Op::transpose
// its transpose. So A is stored M x K (op_a none; lda >= K) or K x M (transpose; lda >= M), B K x N
// (ldb >= N) or N x K (ldb >= K), and C M x N (ldc >= N).
//   - beta == 0: C is only written, never read, so NaN or garbage in C does not propagate.
//   - K == 0 or alpha == 0: C = beta * C, and A and B are not read (nor their sizes checked).
//   - M == 0 or N == 0: nothing to do (the leading dimensions are still checked).
// Products are summed in float (double for double), fused where the compiler contracts them; the
// order over K is fixed per device, shape and plan, so a call repeats bit for bit (split-K included).
//
// Types: float; double where DeviceInfo::supports_double (else ArgumentError); half and bfloat16
// storage (duet::half, duet::bfloat16) with float arithmetic and float alpha/beta, each result
// rounded once to the storage type, to nearest even; on CUDA devices of sm_80 and later half and
// bfloat16 products run on tensor cores (float sums of exact products of halves or bfloat16s, in
// another order), and float ones too where GemmOptions::allow_tf32 or DUET_ALLOW_TF32=1 allow TF32
// (inputs rounded to 10-bit mantissas).
// Buffers and views (Buffer<T> converts to BufferView<T>) at any element offset, on every backend.
//
// Errors, before anything is enqueued: ReleasedError (an operand was released), DeviceMismatchError
// (an operand of another device), ArgumentError naming the operand ("gemm: B: ldb=3 is smaller than
// its row width 5 ..."; sizes whose extent overflows; sizes past the kernels' int range; C
// overlapping itself across a batch), BufferSizeError naming the operand and what it needs. C may
// not overlap A or B (not checked).
DUET_API void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
                   const BufferView<float>& A, std::size_t lda, const BufferView<float>& B, std::size_t ldb,
                   float beta, const BufferView<float>& C, std::size_t ldc, const GemmOptions& options = {});
DUET_API void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, double alpha,
                   const BufferView<double>& A, std::size_t lda, const BufferView<double>& B, std::size_t ldb,
                   double beta, const BufferView<double>& C, std::size_t ldc,
                   const GemmOptions& options = {});
DUET_API void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
                   const BufferView<half>& A, std::size_t lda, const BufferView<half>& B, std::size_t ldb,
                   float beta, const BufferView<half>& C, std::size_t ldc, const GemmOptions& options = {});
DUET_API void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
                   const BufferView<bfloat16>& A, std::size_t lda, const BufferView<bfloat16>& B,
                   std::size_t ldb, float beta, const BufferView<bfloat16>& C, std::size_t ldc,
                   const GemmOptions& options = {});

// Half or bfloat16 inputs into a float C: the products summed in float as above, each result
// stored as a float (no rounding to 16 bits). It runs the tensor kernel (gemm_tc.duet), on tensor
// cores where the device has them (gemm_plan.hpp, rule step 2a) and in its portable form
// elsewhere; GemmPath automatic or tensor only.
DUET_API void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
                   const BufferView<half>& A, std::size_t lda, const BufferView<half>& B, std::size_t ldb,
                   float beta, const BufferView<float>& C, std::size_t ldc, const GemmOptions& options = {});
DUET_API void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
                   const BufferView<bfloat16>& A, std::size_t lda, const BufferView<bfloat16>& B,
                   std::size_t ldb, float beta, const BufferView<float>& C, std::size_t ldc,
                   const GemmOptions& options = {});

// `batch` independent products, C_i = alpha op(A_i) op(B_i) + beta C_i for i < batch, with A_i
// starting stride_a elements after A_{i-1} (likewise B and C). Any stride of A and B, 0 included
// (one matrix for the whole batch); C's stride must keep the outputs apart (stride_c >=
// (M - 1) * ldc + N, else ArgumentError). batch == 0 does nothing. Everything else as gemm.
DUET_API void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                                   float alpha, const BufferView<float>& A, std::size_t lda,
                                   std::size_t stride_a, const BufferView<float>& B, std::size_t ldb,
                                   std::size_t stride_b, float beta, const BufferView<float>& C,
                                   std::size_t ldc, std::size_t stride_c, std::size_t batch,
                                   const GemmOptions& options = {});
DUET_API void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                                   double alpha, const BufferView<double>& A, std::size_t lda,
                                   std::size_t stride_a, const BufferView<double>& B, std::size_t ldb,
                                   std::size_t stride_b, double beta, const BufferView<double>& C,
                                   std::size_t ldc, std::size_t stride_c, std::size_t batch,
                                   const GemmOptions& options = {});
DUET_API void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                                   float alpha, const BufferView<half>& A, std::size_t lda,
                                   std::size_t stride_a, const BufferView<half>& B, std::size_t ldb,
                                   std::size_t stride_b, float beta, const BufferView<half>& C,
                                   std::size_t ldc, std::size_t stride_c, std::size_t batch,
                                   const GemmOptions& options = {});

DUET_API void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                                   float alpha, const BufferView<half>& A, std::size_t lda,
                                   std::size_t stride_a, const BufferView<half>& B, std::size_t ldb,
                                   std::size_t stride_b, float beta, const BufferView<float>& C,
                                   std::size_t ldc, std::size_t stride_c, std::size_t batch,
                                   const GemmOptions& options = {});
DUET_API void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                                   float alpha, const BufferView<bfloat16>& A, std::size_t lda,
                                   std::size_t stride_a, const BufferView<bfloat16>& B, std::size_t ldb,
                                   std::size_t stride_b, float beta, const BufferView<bfloat16>& C,
                                   std::size_t ldc, std::size_t stride_c, std::size_t batch,
                                   const GemmOptions& options = {});
DUET_API void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                                   float alpha, const BufferView<bfloat16>& A, std::size_t lda,
                                   std::size_t stride_a, const BufferView<bfloat16>& B, std::size_t ldb,
                                   std::size_t stride_b, float beta, const BufferView<float>& C,
                                   std::size_t ldc, std::size_t stride_c, std::size_t batch,
                                   const GemmOptions& options = {});

// The defines gemm compiles its kernels with (for offline compiles: compile_for_cuda_arch with
// builtin_kernel_source("gemm"), "gemv", "gemm_reduce"). `type`: f32, f64, f16 or bf16; vec_*: the
// operand's rows start 16-byte aligned (float only; see blas/kernels/gemm.duet).
DUET_API Defines gemm_defines(const GemmTile& p, ScalarType type, Op op_a, Op op_b, bool vec_a, bool vec_b,
                              bool vec_c);
DUET_API Defines gemv_defines(ScalarType type, bool vec_w, bool vec_x);
DUET_API Defines gemm_reduce_defines(ScalarType type);
// gemm_tc.duet's defines (the tensor kernel): A's and B's element `type` (f16, bf16, or f32 for
// TF32; else ArgumentError), C's (`c_type`, unknown for the same), the tiles, the ops, and whether A's
// and B's rows start on whole 16-byte runs (GemmProblem::runs_a, runs_b: cp.async copies).
DUET_API Defines gemm_tc_defines(const TensorTile& t, ScalarType type, ScalarType c_type, Op op_a, Op op_b,
                                 bool runs_a, bool runs_b);
// gemm_wgmma.duet's defines: the element types (half or bfloat16 inputs, else ArgumentError; C of
// c_type, or of the inputs' type when unknown), the tiles and the ops.
DUET_API Defines gemm_wgmma_defines(const WgmmaTile& t, ScalarType type, ScalarType c_type, Op op_a, Op op_b);
// gemm_cpu.duet's defines (float and double on devices of kind cpu, duet::matmul's products
// included; OpenCL C only): the element type (f32 or f64, else ArgumentError), the tiles, the ops,
// and whether beta is 0 (or K split), which leaves every read of C out of the program.
DUET_API Defines gemm_cpu_defines(const GemmTile& p, ScalarType type, Op op_a, Op op_b, bool beta_zero);

// The kernel a plan's main launch compiles for `problem`: its source (blas/kernels/<file>.duet),
// its name and defines (from the plan's kernel, tiles and flags), as gemm compiles it: for offline
// compiles and for compiling ahead of a call.
struct DUET_API GemmKernelSource {
  std::string file, name;
  Defines defines;
};
DUET_API GemmKernelSource gemm_kernel_source(const GemmProblem& problem, const GemmPlan& plan);

// The plan gemm would follow on q's device for these arguments (see gemm_plan.hpp), without
// enqueueing anything: for benchmarks and tests that report or check which kernel ran. The plan's
// kernel is the one that runs (tiled_cpu on CPUs); its flags are the call's where `problem` says
// what the call's operands are (beta_zero, aligned_a/b/c, plain).
DUET_API GemmPlan gemm_plan_for(const Device& device, const GemmProblem& problem,
                                const GemmOptions& options = {});

}  // namespace duet
