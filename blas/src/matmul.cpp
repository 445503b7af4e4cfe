// matmul: C = A * B, the simple form of gemm (gemm.cpp), which runs the register-blocked dialect
// kernel of blas/kernels/matmul.duet for it where one slice of K suffices (on CPUs gemm_cpu.duet),
// with the tile sizes the tuning table gives for the size of C (gemm_tiles.cpp,
// tuning_file.cpp). matmul_with and matmul_prepare run that kernel with explicit parameters, as
// plan_matmul_with (gemm_plan.cpp) says.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "duet/blas.hpp"
#include "duet/extension.hpp"
#include "duet_embedded_kernels.hpp"

namespace duet {

Defines gemm_tile_defines(const GemmTile& p) {
  return {{"BM", std::to_string(p.bm)},
          {"BN", std::to_string(p.bn)},
          {"BK", std::to_string(p.bk)},
          {"TM", std::to_string(p.tm)},
          {"TN", std::to_string(p.tn)},
          {"WX", std::to_string(p.wx)},
          {"PIPELINE", std::to_string(p.pipeline)},
          {"GROUP_ROWS", std::to_string(p.group_rows)},
          {"A_SWIZZLE", p.swizzles_a() ? "1" : "0"}};
}

Defines matmul_defines(const GemmTile& p, std::size_t N, std::size_t K) {
  // float4 accesses need rows that start 16-byte aligned: K % 4 for A, N % 4 for B and C.
  Defines d = gemm_tile_defines(p);
  d.insert(d.end(), {{"VEC_A", K % 4 ? "0" : "1"}, {"VEC_B", N % 4 ? "0" : "1"}});
  return d;
}

namespace {

void check_params(const char* call, const Device& device, const GemmTile& p) {
  const std::string problem = gemm_tile_problem(p, device.info());
  if (!problem.empty()) throw ArgumentError(std::string(call) + ": parameters not usable: " + problem);
}

// matmul's own checks and messages: sizes of at least 1, buffers that hold the matrices.
void check_sizes(const char* call, const Buffer<float>& A, const Buffer<float>& B, const Buffer<float>& C,
                 std::size_t M, std::size_t N, std::size_t K) {
  if (M == 0 || N == 0 || K == 0) throw ArgumentError(std::string(call) + ": M, N and K must be at least 1");
  extension::require_elements(call, "A (M x K)", A, M * K);
  extension::require_elements(call, "B (K x N)", B, K * N);
  extension::require_elements(call, "C (M x N)", C, M * N);
}

// A plain M x N x K product of compact float matrices in buffers of their own (16-byte aligned).
GemmProblem plain_problem(std::size_t M, std::size_t N, std::size_t K) {
  GemmProblem problem;
  problem.M = M, problem.N = N, problem.K = K;
  problem.beta_zero = true;
  problem.aligned_a = K % 4 == 0;
  problem.aligned_b = problem.aligned_c = N % 4 == 0;
  problem.plain = true;
  return problem;
}

// The plan's kernel (matmul.duet) with its tiles.
void launch(const char* call, Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C,
            const GemmProblem& problem, const GemmPlan& plan) {
  const std::size_t M = problem.M, N = problem.N;
  const int m = extension::as_int(call, "M", M), n = extension::as_int(call, "N", N),
            k = extension::as_int(call, "K", problem.K);
  // The kernel numbers its groups with int.
  const GemmTile& p = plan.params;
  const std::size_t groups = ((M + p.bm - 1) / p.bm) * ((N + p.bn - 1) / p.bn);
  extension::as_int(call, "the number of tiles of C", groups);
  const std::size_t threads = static_cast<std::size_t>(p.threads());
  const GemmKernelSource source = gemm_kernel_source(problem, plan);
  q.launch(embedded_kernels.kernel(q.device(), source.file.c_str(), source.name.c_str(), source.defines),
           Range(groups * threads), Range(threads), A, B, C, m, n, k);
}

}  // namespace

void matmul(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C, std::size_t M,
            std::size_t N, std::size_t K) {
  // matmul's own checks, then gemm's plan: the tuned tiles for the size of C, split-K for few
  // tiles over a long K, a matrix-vector kernel for M == 1 or N == 1.
  check_sizes("matmul", A, B, C, M, N, K);
  gemm(q, Op::none, Op::none, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
}

void matmul_with(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C, std::size_t M,
                 std::size_t N, std::size_t K, const GemmTile& p) {
  check_params("matmul_with", q.device(), p);
  check_sizes("matmul_with", A, B, C, M, N, K);
  const GemmProblem problem = plain_problem(M, N, K);
  const GemmPlan plan = plan_matmul_with(q.device().info(), problem, p);
  if (plan.kernel != GemmKernel::matmul) {
    // Not matmul.duet (gemm_cpu.duet): launched where gemm launches it, as its tiled path with
    // these tiles plans it.
    GemmOptions forced;
    forced.path = GemmPath::tiled;
    forced.params = p;
    gemm(q, Op::none, Op::none, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N, forced);
    return;
  }
  launch("matmul_with", q, A, B, C, problem, plan);
}

void matmul_prepare(const Device& device, const GemmTile& p, std::size_t N, std::size_t K) {
  check_params("matmul_prepare", device, p);
  // Any M: matmul_with's kernel and defines do not depend on it.
  const GemmProblem problem = plain_problem(static_cast<std::size_t>(p.bm), N, K);
  const GemmKernelSource source = gemm_kernel_source(problem, plan_matmul_with(device.info(), problem, p));
  embedded_kernels.kernel(device, source.file.c_str(), source.name.c_str(), source.defines);
}

}  // namespace duet
