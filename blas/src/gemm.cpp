// duet::gemm and gemm_strided_batched: the argument checks (every operand's liveness, device,
// leading dimension and size, with overflow-safe arithmetic and messages that name the operand),
// then the plan of gemm_plan.cpp, then the launches: gemm.duet (tiled, split-K; for float and
// double on devices of kind cpu gemm_cpu.duet, with the same arguments, plain products included),
// gemv.duet, gemm_reduce.duet (split-K's sum and C = beta C), or duet::matmul's kernel for plain
// products on other devices.
//
// Per device, worked out once and kept: the tuning table's size classes and the compiled kernels
// by variant (a map lookup on the launch path, no defines built). Per queue, freed with it: the
// workspace of split-K's partial sums and a placeholder for the workspace argument of launches
// that write none. Calls on one queue run in order, so they share its workspace without waiting;
// threads sharing a queue take turns at it while they enqueue, so two calls' launches never
// interleave over the same partials.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "duet/blas.hpp"
#include "duet/extension.hpp"
#include "duet_embedded_kernels.hpp"
#include "gemm_maps.hpp"

namespace duet {
namespace {

constexpr std::size_t kMaxGridY = 65535;  // CUDA's limit on the second grid dimension
constexpr int kGemvThreads = 256;         // gemv.duet's groups

// gemm accumulates half and bfloat16 in float, and every other type in itself.
template <class T>
using Accumulator = compute_type_t<T>;

// What gemm keeps per queue (extension::queue_state).
struct QueueScratch {
  std::mutex enqueueing;  // held from a call's first launch on the workspace to its last
  RawBuffer workspace;
  RawBuffer placeholder;  // the workspace argument of launches that write none
};

struct State {
  std::vector<GemmSizeClass> classes;

  std::mutex mutex;  // guards kernels
  std::map<std::vector<int>, Kernel> kernels;

  // The kernel of `source`, compiled once per key.
  Kernel kernel(const Device& device, const std::vector<int>& key,
                const std::function<GemmKernelSource()>& source) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto found = kernels.find(key);
      if (found != kernels.end()) return found->second;
    }
    const GemmKernelSource s = source();
    Kernel k =
        embedded_kernels.kernel(device, s.file.c_str(), s.name.c_str(), s.defines);  // outside the lock
    std::lock_guard<std::mutex> lock(mutex);
    return kernels.emplace(key, k).first->second;
  }
};

std::shared_ptr<State> state_for(const Device& device) {
  return extension::device_state<State>(device, "duet.blas.gemm", [&] {
    auto s = std::make_shared<State>();
    s->classes = gemm_size_classes(device.info());  // reads the tuning file
    return s;
  });
}

std::shared_ptr<QueueScratch> scratch_for(const Queue& q) {
  return extension::queue_state<QueueScratch>(q, "duet.blas.gemm", [&] {
    auto s = std::make_shared<QueueScratch>();
    s->placeholder = RawBuffer(q.device(), 8);
    return s;
  });
}

template <class Acc>
BufferView<Acc> acc_view(const RawBuffer& raw) {
  return BufferView<Acc>(raw.share(), raw.bytes() / sizeof(Acc), 0);
}

// One matrix operand as the kernels take it: a view they can be handed on every backend, the
// element offset of the operand's first element from that view's start, and whether its rows start
// 16-byte aligned (GemmProblem::aligned_a etc.).
template <class T>
struct Operand {
  extension::KernelRange<T> range;
  bool aligned = false;
  bool passable = false;  // the view itself can be a kernel argument, 16-byte aligned
};

std::string stored_text(std::size_t rows, std::size_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

// (batch - 1) * stride + (rows - 1) * ld + cols elements, 0 for an empty matrix; ArgumentError
// when that overflows.
std::size_t extent(const char* call, const char* name, std::size_t rows, std::size_t cols, std::size_t ld,
                   std::size_t batch, std::size_t stride) {
  if (rows == 0 || cols == 0 || batch == 0) return 0;
  std::size_t e = 0, s = 0;
  const bool overflow = __builtin_mul_overflow(rows - 1, ld, &e) || __builtin_add_overflow(e, cols, &e) ||
                        __builtin_mul_overflow(batch - 1, stride, &s) || __builtin_add_overflow(e, s, &e);
  if (overflow) {
    std::ostringstream m;
    m << call << ": " << name << ": the elements it spans (a " << stored_text(rows, cols)
      << " matrix with ld " << ld;
    if (batch > 1) m << ", " << batch << " of them " << stride << " apart";
    m << ") overflow the address space";
    throw ArgumentError(m.str());
  }
  return e;
}

template <class T>
void check_operand_handle(const char* call, const char* name, const BufferView<T>& v, const Queue& q) {
  v.raw().check_live((std::string("operand ") + name + " of " + call).c_str());
  if (v.device() != q.device())
    throw DeviceMismatchError(std::string(call) + ": " + name + " is a buffer of " + v.device().info().id() +
                              " (" + v.device().info().name + "), but the queue is of " +
                              q.device().info().id() + " (" + q.device().info().name + ")");
}

void check_ld(const char* call, const char* name, const char* ld_name, std::size_t ld, std::size_t rows,
              std::size_t cols, const std::string& how) {
  if (ld < std::max<std::size_t>(1, cols)) {
    std::ostringstream m;
    m << call << ": " << name << ": " << ld_name << "=" << ld << " is smaller than its row width " << cols
      << " (" << name << " is stored " << stored_text(rows, cols) << ": " << how << ")";
    if (cols == 0)
      m.str(std::string(call) + ": " + name + ": " + ld_name + "=0; a leading dimension is at least 1");
    throw ArgumentError(m.str());
  }
}

template <class T>
void check_size(const char* call, const char* name, const BufferView<T>& v, std::size_t need,
                std::size_t rows, std::size_t cols, const char* ld_name, std::size_t ld, std::size_t batch,
                std::size_t stride) {
  if (v.size() >= need) return;
  std::ostringstream m;
  m << call << ": " << name << " holds " << v.size() << " elements but the call needs " << need << " (a "
    << stored_text(rows, cols) << " matrix with " << ld_name << "=" << ld;
  if (batch > 1) m << ", " << batch << " of them " << stride << " apart";
  m << ")";
  throw BufferSizeError(m.str());
}

template <class T>
Operand<T> operand(const char* call, const char* name, const BufferView<T>& v, const DeviceInfo& info,
                   std::size_t ld, std::size_t batch, std::size_t stride) {
  Operand<T> o;
  o.range = extension::kernel_range(call, name, v, info);
  const bool aligned = v.raw().starts_aligned(16);
  o.aligned = aligned && ld % 4 == 0 && (batch <= 1 || stride % 4 == 0);
  o.passable = aligned && v.raw().offset() % info.view_alignment == 0;
  return o;
}

Defines type_defines(ScalarType type) {
  const bool f64 = type == ScalarType::f64;
  return {{"T", type == ScalarType::f16    ? "half"
                : type == ScalarType::bf16 ? "bfloat16"
                : f64                      ? "double"
                                           : "float"},
          {"ACC", f64 ? "double" : "float"},
          {"ACC_DOUBLE", f64 ? "1" : "0"},
          {"T_IS_FLOAT", type == ScalarType::f32 ? "1" : "0"}};
}

// C = beta C (splits = 0) or the sum of the workspace's slices (splits > 0), over nb matrices.
template <class T>
void launch_reduce(State& s, Queue& q, const BufferView<Accumulator<T>>& P, int splits, std::uint64_t slice,
                   const Operand<T>& C, std::uint64_t c_off, int ldc, std::uint64_t c_stride, int rows,
                   int cols, int nb, Accumulator<T> alpha, Accumulator<T> beta) {
  const Kernel k = s.kernel(q.device(), {100, static_cast<int>(scalar_type_of<T>())}, [] {
    return GemmKernelSource{"gemm_reduce", "gemm_reduce", gemm_reduce_defines(scalar_type_of<T>())};
  });
  const std::size_t total = std::size_t(rows) * std::size_t(cols) * std::size_t(nb);
  const int lanes = reduce_lanes(q.device().info(), total, splits);
  const std::size_t per = kReduceGroupSize / lanes;
  const std::size_t groups = std::clamp<std::size_t>((total + per - 1) / per, 1, 65535);
  q.launch(k, Range(groups * kReduceGroupSize), Range(kReduceGroupSize), P, splits, slice, C.range.arg, c_off,
           ldc, c_stride, rows, cols, nb, alpha, beta, lanes);
}

// One gemm or gemm_strided_batched call, as its caller made it: A and B of T, C of TC (T, or
// float for half and bfloat16 inputs).
template <class T, class TC = T>
struct GemmCall {
  const char* call;
  Queue& q;
  Op op_a, op_b;
  std::size_t M, N, K;
  Accumulator<T> alpha;
  const BufferView<T>& A;
  std::size_t lda, sa;
  const BufferView<T>& B;
  std::size_t ldb, sb;
  Accumulator<T> beta;
  const BufferView<TC>& C;
  std::size_t ldc, sc, batch;

  bool ta() const { return op_a == Op::transpose; }
  bool tb() const { return op_b == Op::transpose; }
};

// The call's checks: liveness and device of every operand, then leading dimensions, then sizes
// (A and B only where they are read). False when there is nothing to compute.
template <class T, class TC>
bool check_call(const GemmCall<T, TC>& g, const DeviceInfo& info) {
  using Acc = Accumulator<T>;
  const char* call = g.call;
  check_operand_handle(call, "A", g.A, g.q);
  check_operand_handle(call, "B", g.B, g.q);
  check_operand_handle(call, "C", g.C, g.q);
  if constexpr (std::is_same_v<T, double>) {
    if (!info.supports_double)
      throw ArgumentError(std::string(call) + ": double needs a device with double precision; " + info.id() +
                          " (" + info.name + ") has none");
  }
  const std::size_t M = g.M, N = g.N, K = g.K;
  const std::size_t a_rows = g.ta() ? K : M, a_cols = g.ta() ? M : K;
  const std::size_t b_rows = g.tb() ? N : K, b_cols = g.tb() ? K : N;
  check_ld(call, "A", "lda", g.lda, a_rows, a_cols, g.ta() ? "op_a transpose, K x M" : "op_a none, M x K");
  check_ld(call, "B", "ldb", g.ldb, b_rows, b_cols, g.tb() ? "op_b transpose, N x K" : "op_b none, K x N");
  check_ld(call, "C", "ldc", g.ldc, M, N, "M x N");
  if (g.batch == 0 || M == 0 || N == 0) return false;
  if (K > 0 && g.alpha != Acc(0)) {
    check_size(call, "A", g.A, extent(call, "A", a_rows, a_cols, g.lda, g.batch, g.sa), a_rows, a_cols, "lda",
               g.lda, g.batch, g.sa);
    check_size(call, "B", g.B, extent(call, "B", b_rows, b_cols, g.ldb, g.batch, g.sb), b_rows, b_cols, "ldb",
               g.ldb, g.batch, g.sb);
  }
  check_size(call, "C", g.C, extent(call, "C", M, N, g.ldc, g.batch, g.sc), M, N, "ldc", g.ldc, g.batch, g.sc);
  if (g.batch > 1 && g.sc < (M - 1) * g.ldc + N)
    throw ArgumentError(std::string(call) + ": C: stride_c=" + std::to_string(g.sc) +
                        " is smaller than one matrix's extent (M - 1) * ldc + N = " +
                        std::to_string((M - 1) * g.ldc + N) + ": the batch's outputs would overlap");
  return true;
}

// The operands as the kernels take them, and the sizes as the ints they index with.
template <class T, class TC = T>
struct Operands {
  Operand<T> a, b;
  Operand<TC> c;
  int m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
};

template <class T, class TC>
Operands<T, TC> prepare_operands(const GemmCall<T, TC>& g, const DeviceInfo& info) {
  Operands<T, TC> o;
  o.m = extension::as_int(g.call, "M", g.M), o.n = extension::as_int(g.call, "N", g.N),
  o.k = extension::as_int(g.call, "K", g.K);
  o.lda = extension::as_int(g.call, "lda", g.lda), o.ldb = extension::as_int(g.call, "ldb", g.ldb),
  o.ldc = extension::as_int(g.call, "ldc", g.ldc);
  o.a = operand(g.call, "A", g.A, info, g.lda, g.batch, g.sa);
  o.b = operand(g.call, "B", g.B, info, g.ldb, g.batch, g.sb);
  o.c = operand(g.call, "C", g.C, info, g.ldc, g.batch, g.sc);
  return o;
}

// What the rule looks at in the call.
// Whether the operand's rows start on whole 16-byte runs (GemmProblem::runs_a).
template <class T>
bool whole_runs(const BufferView<T>& v, std::size_t ld, std::size_t batch, std::size_t stride) {
  constexpr std::size_t run = 16 / sizeof(T);
  return v.raw().starts_aligned(16) && ld % run == 0 && (batch <= 1 || stride % run == 0);
}

template <class T, class TC>
GemmProblem problem_of(const GemmCall<T, TC>& g, const Operands<T, TC>& o) {
  using Acc = Accumulator<T>;
  GemmProblem p;
  p.type = scalar_type_of<T>();
  if (!std::is_same_v<T, TC>) p.c_type = scalar_type_of<TC>();
  p.runs_a = whole_runs(g.A, g.lda, g.batch, g.sa);
  p.runs_b = whole_runs(g.B, g.ldb, g.batch, g.sb);
  p.op_a = g.op_a, p.op_b = g.op_b;
  p.M = g.M, p.N = g.N, p.K = g.K, p.batch = g.batch;
  p.alpha_zero = g.alpha == Acc(0);
  p.beta_zero = g.beta == Acc(0);
  p.aligned_a = o.a.aligned, p.aligned_b = o.b.aligned, p.aligned_c = o.c.aligned;
  p.plain = std::is_same_v<T, float> && !g.ta() && !g.tb() && g.alpha == Acc(1) && g.beta == Acc(0) &&
            g.lda == g.K && g.ldb == g.N && g.ldc == g.N && g.batch == 1 && o.a.passable && o.b.passable &&
            o.c.passable;
  return p;
}

template <class T, class TC>
void run_gemm(const GemmCall<T, TC>& g, const GemmOptions& options);
template <class T>
void run_planned(const GemmCall<T>& g, const Operands<T>& o, State& s, const GemmProblem& problem,
                 const GemmPlan& plan, const GemmOptions& options);

// Thin edges apart: the whole tiles, then each edge as a product of its own (views at the edge's
// first row or column; the batch's strides stay).
template <class T>
void run_edges(const GemmCall<T>& g, const GemmPlan& plan, const GemmOptions& options) {
  GemmOptions part = options;
  part.edges = GemmEdges::whole;
  const std::size_t m1 = plan.bulk_m, n1 = plan.bulk_n;
  GemmCall<T> bulk = g;
  bulk.M = m1, bulk.N = n1;
  run_gemm(bulk, part);
  if (n1 < g.N) {
    const std::size_t b_off = g.tb() ? n1 * g.ldb : n1;
    const BufferView<T> B = g.B.view(b_off, g.B.size() - b_off), C = g.C.view(n1, g.C.size() - n1);
    GemmCall<T> right{g.call, g.q,    g.op_a, g.op_b, m1,   g.N - n1, g.K,  g.alpha, g.A,  g.lda,
                      g.sa,   B,      g.ldb,  g.sb,   g.beta, C,      g.ldc, g.sc,   g.batch};
    run_gemm(right, part);
  }
  if (m1 < g.M) {
    const std::size_t a_off = g.ta() ? m1 : m1 * g.lda;
    const BufferView<T> A = g.A.view(a_off, g.A.size() - a_off),
                        C = g.C.view(m1 * g.ldc, g.C.size() - m1 * g.ldc);
    GemmCall<T> bottom{g.call, g.q,  g.op_a, g.op_b, g.M - m1, g.N,  g.K,   g.alpha, A,      g.lda,
                       g.sa,   g.B,  g.ldb,  g.sb,   g.beta,   C,    g.ldc, g.sc,    g.batch};
    run_gemm(bottom, part);
  }
}

// C = beta C, for K == 0 or alpha == 0.
template <class T, class TC>
void launch_scale(State& s, const GemmCall<T, TC>& g, const Operands<T, TC>& o) {
  using Acc = Accumulator<TC>;
  const BufferView<Acc> placeholder = acc_view<Acc>(scratch_for(g.q)->placeholder);
  for (std::size_t b0 = 0; b0 < g.batch; b0 += kMaxGridY) {
    const int nb = static_cast<int>(std::min(kMaxGridY, g.batch - b0));
    launch_reduce<TC>(s, g.q, placeholder, 0, 0, o.c, o.c.range.offset + b0 * g.sc, o.ldc, g.sc, o.m, o.n, nb,
                     Acc(0), g.beta);
  }
}

// The compiled kernel of the plan's main launch, by a key of everything its defines depend on.
Kernel main_kernel(State& s, const Device& device, const GemmProblem& p, const GemmPlan& plan) {
  const GemmTile& t = plan.params;
  const std::vector<int> key{static_cast<int>(plan.kernel),
                             t.bm,
                             t.bn,
                             t.bk,
                             t.tm,
                             t.tn,
                             t.wx,
                             t.pipeline,
                             t.group_rows,
                             static_cast<int>(p.type),
                             p.op_a == Op::transpose,
                             p.op_b == Op::transpose,
                             plan.vec_a,
                             plan.vec_b,
                             plan.vec_c,
                             plan.beta_zero};
  return s.kernel(device, key, [&] { return gemm_kernel_source(p, plan); });
}

// The tensor kernel's, by its own key.
Kernel tensor_kernel(State& s, const Device& device, const GemmProblem& p, const GemmPlan& plan) {
  const TensorTile& t = plan.tensor;
  const std::vector<int> key{static_cast<int>(GemmKernel::tensor),
                             t.bm,
                             t.bn,
                             t.bk,
                             t.wm,
                             t.wn,
                             t.stages,
                             t.swizzle,
                             t.intel,
                             static_cast<int>(p.type),
                             static_cast<int>(p.c_type),
                             p.op_a == Op::transpose,
                             p.op_b == Op::transpose,
                             plan.vec_a,
                             plan.vec_b};
  return s.kernel(device, key, [&] { return gemm_kernel_source(p, plan); });
}

// The tensor kernels' launch: `groups` tiles of C of `threads` work-items each, over the whole batch
// in launches of at most kMaxGridY matrices (the grid's second dimension).
template <class T, class TC>
void launch_tiles(const GemmCall<T, TC>& g, const Operands<T, TC>& o, const Kernel& kernel, std::size_t groups,
                  std::size_t threads) {
  extension::as_int(g.call, "the number of tiles of C", groups);
  const float alpha = static_cast<float>(g.alpha), beta = static_cast<float>(g.beta);
  for (std::size_t b0 = 0; b0 < g.batch; b0 += kMaxGridY) {
    const std::size_t nb = std::min(kMaxGridY, g.batch - b0);
    g.q.launch(kernel, Range(groups * threads, nb), Range(threads, 1), o.a.range.arg,
               std::uint64_t(o.a.range.offset + b0 * g.sa), o.lda, std::uint64_t(g.sa), o.b.range.arg,
               std::uint64_t(o.b.range.offset + b0 * g.sb), o.ldb, std::uint64_t(g.sb), o.c.range.arg,
               std::uint64_t(o.c.range.offset + b0 * g.sc), o.ldc, std::uint64_t(g.sc), o.m, o.n, o.k, alpha,
               beta);
  }
}

// gemm_tc.duet over the whole batch, in launches of at most kMaxGridY matrices.
template <class T, class TC>
void launch_tensor(const GemmCall<T, TC>& g, const Operands<T, TC>& o, const Kernel& kernel,
                   const GemmPlan& plan) {
  const TensorTile& t = plan.tensor;
  const std::size_t groups = ((g.M + t.bm - 1) / t.bm) * ((g.N + t.bn - 1) / t.bn);
  launch_tiles(g, o, kernel, groups, static_cast<std::size_t>(t.threads()));
}

// The warpgroup kernel's, by its own key.
Kernel wgmma_kernel(State& s, const Device& device, const GemmProblem& p, const GemmPlan& plan) {
  const std::vector<int> key{static_cast<int>(GemmKernel::wgmma),
                             plan.wgmma.bn,
                             plan.wgmma.stages,
                             plan.wgmma.group_rows,
                             plan.wgmma.mma_first,
                             plan.wgmma.blocks_per_sm,
                             plan.wgmma.ws,
                             plan.wgmma.tma,
                             static_cast<int>(p.type),
                             static_cast<int>(p.c_type),
                             p.op_a == Op::transpose && !plan.kmajor_a,
                             p.op_b == Op::transpose || plan.kmajor_b};
  return s.kernel(device, key, [&] { return gemm_kernel_source(p, plan); });
}

// gemm_transpose.duet for elements of T.
template <class T>
Kernel transpose_kernel(State& s, const Device& device) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "gemm_transpose moves 2- or 4-byte elements");
  const std::vector<int> key{-1, static_cast<int>(scalar_type_of<T>())};
  return s.kernel(device, key, [] {
    return GemmKernelSource{"gemm_transpose",
                            "gemm_transpose",
                            {{"E", to_string(scalar_type_of<T>())}, {"W", sizeof(T) == 2 ? "ushort" : "uint"}}};
  });
}

// dst, from element dst_off (compact, cols x rows per matrix) = each of `count` rows x cols matrices
// of `src` transposed.
template <class T>
void launch_transpose(Queue& q, const Kernel& kernel, const Operand<T>& src, std::size_t ld, std::size_t stride,
                      const BufferView<T>& dst, std::size_t dst_off, std::size_t rows, std::size_t cols,
                      std::size_t count) {
  constexpr std::size_t kTile = 32, kThreads = kTile * 8;
  const std::size_t tiles = (rows / kTile) * (cols / kTile);
  for (std::size_t b0 = 0; b0 < count; b0 += kMaxGridY) {
    const std::size_t nb = std::min(kMaxGridY, count - b0);
    q.launch(kernel, Range(tiles * kThreads, nb), Range(kThreads, 1), src.range.arg,
             std::uint64_t(src.range.offset + b0 * stride), static_cast<int>(ld), std::uint64_t(stride), dst,
             std::uint64_t(dst_off + b0 * rows * cols), static_cast<int>(rows), static_cast<int>(cols));
  }
}

// The tensor maps of A and B as the warpgroup kernel reads them (op(A) K-major: M rows of K;
// MN-major: K rows of M; B likewise), in the kernel's boxes; empty maps where they cannot be made.
template <class T, class TC>
blas_detail::WgmmaMaps wgmma_maps_for(const GemmCall<T, TC>& g, const Operands<T, TC>& o, const GemmPlan& plan) {
  const std::uint32_t bk = static_cast<std::uint32_t>(WgmmaTile::bk_of(scalar_type_of<T>()));
  const auto start = [](const auto& operand) {
    const RawBuffer& raw = operand.range.arg.raw();
    const std::size_t skip = operand.range.offset * sizeof(T);
    return raw.view(skip, raw.bytes() - skip);
  };
  blas_detail::MappedOperand a{start(o.a), sizeof(T), g.ta() ? g.K : g.M, g.ta() ? g.M : g.K, g.lda, g.sa, g.batch,
                               g.ta() ? bk : std::uint32_t(WgmmaTile::bm), g.ta() ? 64u : bk};
  blas_detail::MappedOperand b{start(o.b), sizeof(T), g.tb() ? g.N : g.K, g.tb() ? g.K : g.N, g.ldb, g.sb, g.batch,
                               g.tb() ? std::uint32_t(plan.wgmma.bn) : bk, g.tb() ? bk : 64u};
  return blas_detail::wgmma_maps(g.call, g.q, a, b);
}

// gemm_wgmma.duet over the whole batch (whole tiles: the plan's rule), in launches of at most
// kMaxGridY matrices; with persistent blocks (tma 2), one launch of a block per compute unit (or
// per tile, where they are fewer). The TMA forms where their maps can be made, else the same
// tiles with cp.async.
template <class T, class TC>
void launch_wgmma(const GemmCall<T, TC>& g, const Operands<T, TC>& o, State& s, const GemmProblem& problem,
                  const GemmPlan& planned) {
  GemmPlan plan = planned;
  blas_detail::WgmmaMaps maps;
  const std::size_t groups = (g.M / WgmmaTile::bm) * (g.N / static_cast<std::size_t>(plan.wgmma.bn));
  extension::as_int(g.call, "the number of tiles of C", groups);
  if (plan.wgmma.tma == 2 && groups * g.batch > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    plan.wgmma.tma = 1;  // the persistent blocks count the batch's tiles in int
  if (plan.wgmma.tma != 0) {
    maps = wgmma_maps_for(g, o, plan);
    if (!maps.maps.valid()) plan.wgmma.tma = 0;
  }
  const Kernel kernel = wgmma_kernel(s, g.q.device(), problem, plan);
  const RawBuffer map_bytes = maps.maps.valid() ? maps.maps.share() : scratch_for(g.q)->placeholder.share();
  const BufferView<std::uint64_t> map_view(map_bytes.share(), map_bytes.bytes() / sizeof(std::uint64_t), 0);
  const std::size_t threads = static_cast<std::size_t>(plan.wgmma.threads());
  const float alpha = static_cast<float>(g.alpha), beta = static_cast<float>(g.beta);
  const bool persistent = plan.wgmma.tma == 2;
  const std::size_t units = std::max<std::size_t>(1, g.q.device().info().compute_units);
  const std::size_t per_launch = persistent ? g.batch : kMaxGridY;
  for (std::size_t b0 = 0; b0 < g.batch; b0 += per_launch) {
    const std::size_t nb = std::min(per_launch, g.batch - b0);
    const Range global = persistent ? Range(std::min(units, groups * nb) * threads, 1) : Range(groups * threads, nb);
    g.q.launch(kernel, global, Range(threads, 1), o.a.range.arg, std::uint64_t(o.a.range.offset + b0 * g.sa), o.lda,
               std::uint64_t(g.sa), o.b.range.arg, std::uint64_t(o.b.range.offset + b0 * g.sb), o.ldb,
               std::uint64_t(g.sb), o.c.range.arg, std::uint64_t(o.c.range.offset + b0 * g.sc), o.ldc,
               std::uint64_t(g.sc), o.m, o.n, o.k, alpha, beta, map_view, static_cast<int>(b0) * maps.a_step,
               maps.a_step, static_cast<int>(b0) * maps.b_step, maps.b_step, static_cast<int>(nb));
  }
}

// duet::matmul's kernel on a plain product (one matrix, one slice, compact operands).
template <class T>
void launch_matmul(const GemmCall<T>& g, const Operands<T>& o, const Kernel& kernel, const GemmPlan& plan) {
  const GemmTile& p = plan.params;
  const std::size_t groups = ((g.M + p.bm - 1) / p.bm) * ((g.N + p.bn - 1) / p.bn);
  extension::as_int(g.call, "the number of tiles of C", groups);
  const std::size_t threads = static_cast<std::size_t>(p.threads());
  g.q.launch(kernel, Range(groups * threads), Range(threads), g.A, g.B, g.C, o.m, o.n, o.k);
}

// Where split-K's slices go: the queue's workspace, grown to the plan's need and held for the
// call's launches; else the placeholder argument.
template <class T>
struct Workspace {
  BufferView<Accumulator<T>> view;
  std::unique_lock<std::mutex> turn;
};

// The queue's workspace grown to at least `need` bytes (with room), under scratch.enqueueing: the
// old buffer is freed once the work using it is done.
void grow_workspace(QueueScratch& scratch, const Device& device, std::size_t need) {
  if (scratch.workspace.bytes() >= need) return;
  scratch.workspace = RawBuffer();
  scratch.workspace = RawBuffer(device, std::max(need, std::size_t{1} << 20));
}

template <class T>
Workspace<T> workspace_for(const GemmCall<T>& g, const GemmPlan& plan, std::size_t per_launch) {
  using Acc = Accumulator<T>;
  const std::shared_ptr<QueueScratch> scratch = scratch_for(g.q);
  Workspace<T> w{acc_view<Acc>(scratch->placeholder), {}};
  if (plan.splits < 2) return w;
  const std::size_t splits = static_cast<std::size_t>(plan.splits);
  const std::size_t outputs = plan.workspace_elements / (splits * g.batch);
  const std::size_t need = splits * std::min(g.batch, per_launch) * outputs * sizeof(Acc);
  w.turn = std::unique_lock<std::mutex>(scratch->enqueueing);
  grow_workspace(*scratch, g.q.device(), need);
  w.view = acc_view<Acc>(scratch->workspace);
  return w;
}

// The tiled kernels (gemm.duet, gemm_cpu.duet) over matrices b0 .. b0 + nb - 1.
template <class T>
void launch_tiled(const GemmCall<T>& g, const Operands<T>& o, const Kernel& kernel, const GemmPlan& plan,
                  const BufferView<Accumulator<T>>& W, int k_chunk, std::size_t b0, std::size_t nb) {
  const GemmTile& p = plan.params;
  const std::size_t groups = ((g.M + p.bm - 1) / p.bm) * ((g.N + p.bn - 1) / p.bn);
  extension::as_int(g.call, "the number of tiles of C", groups);
  const std::size_t threads = static_cast<std::size_t>(p.threads());
  g.q.launch(kernel, Range(groups * threads, nb * plan.splits), Range(threads, 1), o.a.range.arg,
             std::uint64_t(o.a.range.offset + b0 * g.sa), o.lda, std::uint64_t(g.sa), o.b.range.arg,
             std::uint64_t(o.b.range.offset + b0 * g.sb), o.ldb, std::uint64_t(g.sb), o.c.range.arg,
             std::uint64_t(o.c.range.offset + b0 * g.sc), o.ldc, std::uint64_t(g.sc), W, o.m, o.n, o.k,
             g.alpha, g.beta, plan.splits, k_chunk);
}

// gemv.duet over matrices b0 .. b0 + nb - 1: the matrix, the vector and the output as the kernel
// sees them (see gemm_plan.hpp).
template <class T>
void launch_gemv(const GemmCall<T>& g, const Operands<T>& o, const Kernel& kernel, const GemmPlan& plan,
                 const BufferView<Accumulator<T>>& W, int k_chunk, std::size_t b0, std::size_t nb) {
  const bool on_a = g.N == 1;
  const Operand<T>& w = on_a ? o.a : o.b;
  const Operand<T>& x = on_a ? o.b : o.a;
  const std::size_t ldw = on_a ? g.lda : g.ldb, w_stride = on_a ? g.sa : g.sb, x_stride = on_a ? g.sb : g.sa;
  const std::size_t incx = on_a ? (g.tb() ? 1 : g.ldb) : (g.ta() ? g.lda : 1);
  const std::size_t incy = on_a ? g.ldc : 1;
  const int R = on_a ? o.m : o.n;
  const std::size_t per_group =
      plan.kernel == GemmKernel::gemv_dot ? kGemvDotRows : std::size_t{kGemvAxpyCols} * 4;
  const std::size_t groups = (std::size_t(R) + per_group - 1) / per_group;
  const int ldw_i = static_cast<int>(ldw), incx_i = extension::as_int(g.call, "the vector's stride", incx),
            incy_i = static_cast<int>(incy);
  g.q.launch(kernel, Range(groups * kGemvThreads, nb * plan.splits), Range(kGemvThreads, 1), w.range.arg,
             std::uint64_t(w.range.offset + b0 * w_stride), ldw_i, std::uint64_t(w_stride), x.range.arg,
             std::uint64_t(x.range.offset + b0 * x_stride), incx_i, std::uint64_t(x_stride), o.c.range.arg,
             std::uint64_t(o.c.range.offset + b0 * g.sc), incy_i, std::uint64_t(g.sc), W, R, o.k, g.alpha,
             g.beta, plan.splits, k_chunk);
}

// The sum of the slices of matrices b0 .. b0 + nb - 1 into C, with alpha and beta.
template <class T>
void reduce_slices(State& s, const GemmCall<T>& g, const Operands<T>& o, const GemmPlan& plan,
                   const BufferView<Accumulator<T>>& W, std::size_t b0, std::size_t nb) {
  const bool gemv = plan.kernel == GemmKernel::gemv_dot || plan.kernel == GemmKernel::gemv_axpy;
  const bool on_a = g.N == 1;
  const int rows = gemv && !on_a ? 1 : o.m, cols = gemv && on_a ? 1 : o.n;
  launch_reduce<T>(s, g.q, W, plan.splits, std::uint64_t(nb) * std::uint64_t(rows) * std::uint64_t(cols),
                   o.c, o.c.range.offset + b0 * g.sc, o.ldc, g.sc, rows, cols, static_cast<int>(nb), g.alpha,
                   g.beta);
}

// The warpgroup kernel on K-major copies of its MN-major operands: each copied into the queue's
// workspace by gemm_transpose.duet (a broadcast operand, stride 0, once), then the product reads
// the copies as A as stored and B transposed. The workspace is held from the copies to the
// product's launches, as split-K holds it.
template <class T, class TC>
void run_wgmma_kmajor(const GemmCall<T, TC>& g, const Operands<T, TC>& o, State& s, const GemmProblem& problem,
                      const GemmPlan& plan) {
  if constexpr (sizeof(T) != 2 && sizeof(T) != 4) {
    throw ArgumentError(std::string(g.call) + ": the warpgroup kernel takes 2- or 4-byte inputs");
  } else {
    const Device& device = g.q.device();
    const std::size_t M = g.M, N = g.N, K = g.K;
    const std::size_t count_a = g.sa == 0 ? 1 : g.batch, count_b = g.sb == 0 ? 1 : g.batch;
    const std::size_t a_elems = plan.kmajor_a ? count_a * M * K : 0, b_elems = plan.kmajor_b ? count_b * N * K : 0;
    const std::shared_ptr<QueueScratch> scratch = scratch_for(g.q);
    std::unique_lock<std::mutex> turn(scratch->enqueueing);
    grow_workspace(*scratch, device, (a_elems + b_elems) * sizeof(T));
    const std::size_t held = scratch->workspace.bytes() / sizeof(T);
    // The whole workspace, the copies at element offsets in it (A's at 0, B's after it).
    const BufferView<T> whole(scratch->workspace.share(), held, 0);
    const Kernel transpose = transpose_kernel<T>(s, device);
    // Stored K x M (A transposed) and K x N (B as stored), each made M x K and N x K.
    if (plan.kmajor_a) launch_transpose(g.q, transpose, o.a, g.lda, g.sa, whole, 0, K, M, count_a);
    if (plan.kmajor_b) launch_transpose(g.q, transpose, o.b, g.ldb, g.sb, whole, a_elems, K, N, count_b);
    const std::size_t sa = plan.kmajor_a ? (g.sa == 0 ? 0 : M * K) : g.sa;
    const std::size_t sb = plan.kmajor_b ? (g.sb == 0 ? 0 : N * K) : g.sb;
    const GemmCall<T, TC> k{g.call, g.q, plan.kmajor_a ? Op::none : g.op_a, plan.kmajor_b ? Op::transpose : g.op_b,
                            M, N, K, g.alpha, plan.kmajor_a ? whole : g.A, plan.kmajor_a ? K : g.lda, sa,
                            plan.kmajor_b ? whole : g.B, plan.kmajor_b ? K : g.ldb, sb, g.beta, g.C, g.ldc, g.sc,
                            g.batch};
    Operands<T, TC> ko = prepare_operands(k, device.info());
    if (plan.kmajor_b) ko.b.range.offset += a_elems;
    launch_wgmma(k, ko, s, problem, plan);
  }
}

// Checks the call, plans it, and carries out the plan.
template <class T, class TC>
void run_gemm(const GemmCall<T, TC>& g, const GemmOptions& asked) {
  const Device& device = g.q.device();
  const DeviceInfo& info = device.info();
  if (!check_call(g, info)) return;
  const Operands<T, TC> o = prepare_operands(g, info);
  const std::shared_ptr<State> state = state_for(device);
  const GemmProblem problem = problem_of(g, o);
  GemmOptions options = asked;
  options.allow_tf32 = tf32_allowed(asked);
  const GemmPlan plan = plan_gemm(info, state->classes, problem, options);
  if (plan.kernel == GemmKernel::none) return;
  if (plan.kernel == GemmKernel::scale) return launch_scale(*state, g, o);
  if (plan.kernel == GemmKernel::tensor)
    return launch_tensor(g, o, tensor_kernel(*state, device, problem, plan), plan);
  if (plan.kernel == GemmKernel::wgmma) {
    if (plan.kmajor_a || plan.kmajor_b) return run_wgmma_kmajor(g, o, *state, problem, plan);
    return launch_wgmma(g, o, *state, problem, plan);
  }
  if constexpr (!std::is_same_v<T, TC>) {
    throw ArgumentError(std::string(g.call) + ": the plan for " + to_string(problem.type) +
                        " inputs into a float C runs " + to_string(plan.kernel) + ", which cannot");
  } else {
    run_planned(g, o, *state, problem, plan, options);
  }
}

// The plans of the SIMT kernels, whose C is of the inputs' type.
template <class T>
void run_planned(const GemmCall<T>& g, const Operands<T>& o, State& s, const GemmProblem& problem,
                 const GemmPlan& plan, const GemmOptions& options) {
  State* state = &s;
  const Device& device = g.q.device();
  if (plan.bulk_m > 0 && (plan.bulk_m < g.M || plan.bulk_n < g.N)) return run_edges(g, plan, options);
  const Kernel kernel = main_kernel(*state, device, problem, plan);
  if (plan.kernel == GemmKernel::matmul) return launch_matmul(g, o, kernel, plan);

  const int k_chunk = extension::as_int(g.call, "K per slice", plan.k_chunk);
  // Batches per launch: the second grid dimension holds batch * splits groups.
  const std::size_t per_launch = std::max<std::size_t>(1, kMaxGridY / static_cast<std::size_t>(plan.splits));
  const Workspace<T> w = workspace_for(g, plan, per_launch);
  const bool gemv = plan.kernel == GemmKernel::gemv_dot || plan.kernel == GemmKernel::gemv_axpy;
  for (std::size_t b0 = 0; b0 < g.batch; b0 += per_launch) {
    const std::size_t nb = std::min(per_launch, g.batch - b0);
    if (gemv)
      launch_gemv(g, o, kernel, plan, w.view, k_chunk, b0, nb);
    else
      launch_tiled(g, o, kernel, plan, w.view, k_chunk, b0, nb);
    if (plan.splits > 1) reduce_slices(*state, g, o, plan, w.view, b0, nb);
  }
}

template <class T, class TC = T>
void run_gemm(const char* call, Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
              Accumulator<T> alpha, const BufferView<T>& A, std::size_t lda, std::size_t sa,
              const BufferView<T>& B, std::size_t ldb, std::size_t sb, Accumulator<T> beta,
              const BufferView<TC>& C, std::size_t ldc, std::size_t sc, std::size_t batch,
              const GemmOptions& options) {
  run_gemm(
      GemmCall<T, TC>{call, q, op_a, op_b, M, N, K, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch},
      options);
}

}  // namespace

Defines gemm_defines(const GemmTile& p, ScalarType type, Op op_a, Op op_b, bool vec_a, bool vec_b,
                     bool vec_c) {
  const bool tb = op_b == Op::transpose;
  const bool f32 = type == ScalarType::f32;
  Defines d = type_defines(type);
  const Defines tiles = gemm_tile_defines(p);
  d.insert(d.end(), tiles.begin(), tiles.end());
  d.insert(d.end(), {{"OP_A", op_a == Op::transpose ? "1" : "0"},
                     {"OP_B", tb ? "1" : "0"},
                     {"VEC_A", f32 && vec_a ? "1" : "0"},
                     {"VEC_B", f32 && vec_b ? "1" : "0"},
                     {"VEC_C", f32 && vec_c ? "1" : "0"},
                     {"B_SWIZZLE", gemm_swizzles_b(p, op_b) ? "1" : "0"}});
  return d;
}

Defines gemm_tc_defines(const TensorTile& t, ScalarType type, ScalarType c_type, Op op_a, Op op_b,
                        bool runs_a, bool runs_b) {
  if (type != ScalarType::f16 && type != ScalarType::bf16 && type != ScalarType::f32)
    throw ArgumentError(std::string("gemm_tc_defines: ") + to_string(type) +
                        " is not half, bfloat16 or float (TF32)");
  const ScalarType out = c_type == ScalarType::unknown ? type : c_type;
  Defines defines{{"T", to_string(type)},
                  {"TO", to_string(out)},
                  {"T_IS_FLOAT", type == ScalarType::f32 ? "1" : "0"},
                  {"T_IS_BF16", type == ScalarType::bf16 ? "1" : "0"},
                  {"BM", std::to_string(t.bm)},
                  {"BN", std::to_string(t.bn)},
                  {"BK", std::to_string(t.bk)},
                  {"WM", std::to_string(t.wm)},
                  {"WN", std::to_string(t.wn)},
                  {"STAGES", std::to_string(t.stages)},
                  {"THREADS", std::to_string(t.threads())},
                  {"OP_A", op_a == Op::transpose ? "1" : "0"},
                  {"OP_B", op_b == Op::transpose ? "1" : "0"},
                  {"ALIGNED_A", runs_a ? "1" : "0"},
                  {"ALIGNED_B", runs_b ? "1" : "0"}};
  // Named only when on: the kernel takes it as off otherwise.
  if (t.swizzle) defines.push_back({"TC_SWIZZLE", "1"});
  if (t.intel != 0) {
    if ((t.intel != 8 && t.intel != 16) || type == ScalarType::f32)
      throw ArgumentError("gemm_tc_defines: TensorTile::intel = " + std::to_string(t.intel) + " with " +
                          to_string(type) + ": the Intel form takes sub-groups of 8 or 16, half or bfloat16");
    defines.push_back({"TC_INTEL", std::to_string(t.intel)});
  }
  return defines;
}

Defines gemm_wgmma_defines(const WgmmaTile& t, ScalarType type, ScalarType c_type, Op op_a, Op op_b) {
  if (type != ScalarType::f16 && type != ScalarType::bf16 && type != ScalarType::f32)
    throw ArgumentError(std::string("gemm_wgmma_defines: ") + to_string(type) +
                        " is not half, bfloat16 or float (TF32)");
  if (type == ScalarType::f32 && (op_a != Op::none || op_b != Op::transpose))
    throw ArgumentError("gemm_wgmma_defines: float (TF32) operands are read K-major only: op_a none and op_b "
                        "transpose, not " + std::string(to_string(op_a)) + " and " + to_string(op_b));
  const ScalarType out = c_type == ScalarType::unknown ? type : c_type;
  return {{"T", to_string(type)},
          {"TO", to_string(out)},
          {"T_IS_BF16", type == ScalarType::bf16 ? "1" : "0"},
          {"T_IS_FLOAT", type == ScalarType::f32 ? "1" : "0"},
          {"BN", std::to_string(t.bn)},
          {"STAGES", std::to_string(t.stages)},
          {"GROUP_ROWS", std::to_string(t.group_rows)},
          {"MMA_FIRST", t.mma_first ? "1" : "0"},
          {"BLOCKS_PER_SM", std::to_string(t.blocks_per_sm)},
          {"WS", t.ws ? "1" : "0"},
          {"TMA", std::to_string(t.tma)},
          {"OP_A", op_a == Op::transpose ? "1" : "0"},
          {"OP_B", op_b == Op::transpose ? "1" : "0"}};
}

Defines gemm_cpu_defines(const GemmTile& p, ScalarType type, Op op_a, Op op_b, bool beta_zero) {
  if (type != ScalarType::f32 && type != ScalarType::f64)
    throw ArgumentError(std::string("gemm_cpu_defines: ") + to_string(type) + " is not float or double");
  Defines d = type_defines(type);
  const Defines tiles = gemm_tile_defines(p);
  d.insert(d.end(), tiles.begin(), tiles.end());
  d.insert(d.end(), {{"OP_A", op_a == Op::transpose ? "1" : "0"},
                     {"OP_B", op_b == Op::transpose ? "1" : "0"},
                     {"BETA_ZERO", beta_zero ? "1" : "0"}});
  return d;
}

Defines gemv_defines(ScalarType type, bool vec_w, bool vec_x) {
  const bool f32 = type == ScalarType::f32;
  Defines d = type_defines(type);
  d.insert(d.end(), {{"VEC_W", f32 && vec_w ? "1" : "0"},
                     {"VEC_X", f32 && vec_x ? "1" : "0"},
                     {"DOT_ROWS", std::to_string(kGemvDotRows)},
                     {"DOT_LANES", std::to_string(kGemvDotLanes)},
                     {"DOT_RUNS", std::to_string(kGemvDotRuns)},
                     {"AX_COLS", std::to_string(kGemvAxpyCols)},
                     {"AX_ROWS", std::to_string(kGemvAxpyRows)},
                     {"AX_RUNS", std::to_string(kGemvAxpyRuns)}});
  return d;
}

Defines gemm_reduce_defines(ScalarType type) {
  Defines d = type_defines(type);
  d.push_back({"REDUCE_GROUP", std::to_string(kReduceGroupSize)});
  return d;
}

GemmKernelSource gemm_kernel_source(const GemmProblem& p, const GemmPlan& plan) {
  switch (plan.kernel) {
    case GemmKernel::scale:
      return {"gemm_reduce", "gemm_reduce", gemm_reduce_defines(p.type)};
    case GemmKernel::matmul:
      return {"matmul", "matmul", matmul_defines(plan.params, p.N, p.K)};
    case GemmKernel::tiled:
      return {"gemm", "gemm",
              gemm_defines(plan.params, p.type, p.op_a, p.op_b, plan.vec_a, plan.vec_b, plan.vec_c)};
    case GemmKernel::tiled_cpu:
      return {"gemm_cpu", "gemm_cpu", gemm_cpu_defines(plan.params, p.type, p.op_a, p.op_b, plan.beta_zero)};
    case GemmKernel::gemv_dot:
    case GemmKernel::gemv_axpy: {
      const bool on_a = p.N == 1;
      return {"gemv", to_string(plan.kernel),
              gemv_defines(p.type, on_a ? plan.vec_a : plan.vec_b, on_a ? plan.vec_b : plan.vec_a)};
    }
    case GemmKernel::tensor:
      return {"gemm_tc", "gemm_tc",
              gemm_tc_defines(plan.tensor, p.type, p.c_type, p.op_a, p.op_b, plan.vec_a, plan.vec_b)};
    case GemmKernel::wgmma:
      // Operands copied K-major first are read as A as stored, B transposed.
      return {"gemm_wgmma", "gemm_wgmma",
              gemm_wgmma_defines(plan.wgmma, p.type, p.c_type, plan.kmajor_a ? Op::none : p.op_a,
                                 plan.kmajor_b ? Op::transpose : p.op_b)};
    case GemmKernel::none:
      break;
  }
  throw ArgumentError("gemm_kernel_source: the plan runs no kernel (" + plan.reason + ")");
}

void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
          const BufferView<float>& A, std::size_t lda, const BufferView<float>& B, std::size_t ldb,
          float beta, const BufferView<float>& C, std::size_t ldc, const GemmOptions& options) {
  run_gemm<float>("gemm", q, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1, options);
}
void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, double alpha,
          const BufferView<double>& A, std::size_t lda, const BufferView<double>& B, std::size_t ldb,
          double beta, const BufferView<double>& C, std::size_t ldc, const GemmOptions& options) {
  run_gemm<double>("gemm", q, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1, options);
}
void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
          const BufferView<half>& A, std::size_t lda, const BufferView<half>& B, std::size_t ldb, float beta,
          const BufferView<half>& C, std::size_t ldc, const GemmOptions& options) {
  run_gemm<half>("gemm", q, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1, options);
}

void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                          float alpha, const BufferView<float>& A, std::size_t lda, std::size_t stride_a,
                          const BufferView<float>& B, std::size_t ldb, std::size_t stride_b, float beta,
                          const BufferView<float>& C, std::size_t ldc, std::size_t stride_c,
                          std::size_t batch, const GemmOptions& options) {
  run_gemm<float>("gemm_strided_batched", q, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, ldb, stride_b,
                  beta, C, ldc, stride_c, batch, options);
}
void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                          double alpha, const BufferView<double>& A, std::size_t lda, std::size_t stride_a,
                          const BufferView<double>& B, std::size_t ldb, std::size_t stride_b, double beta,
                          const BufferView<double>& C, std::size_t ldc, std::size_t stride_c,
                          std::size_t batch, const GemmOptions& options) {
  run_gemm<double>("gemm_strided_batched", q, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, ldb, stride_b,
                   beta, C, ldc, stride_c, batch, options);
}
void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                          float alpha, const BufferView<half>& A, std::size_t lda, std::size_t stride_a,
                          const BufferView<half>& B, std::size_t ldb, std::size_t stride_b, float beta,
                          const BufferView<half>& C, std::size_t ldc, std::size_t stride_c, std::size_t batch,
                          const GemmOptions& options) {
  run_gemm<half>("gemm_strided_batched", q, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, ldb, stride_b,
                 beta, C, ldc, stride_c, batch, options);
}

void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
          const BufferView<half>& A, std::size_t lda, const BufferView<half>& B, std::size_t ldb, float beta,
          const BufferView<float>& C, std::size_t ldc, const GemmOptions& options) {
  run_gemm<half, float>("gemm", q, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1,
                        options);
}

void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                          float alpha, const BufferView<half>& A, std::size_t lda, std::size_t stride_a,
                          const BufferView<half>& B, std::size_t ldb, std::size_t stride_b, float beta,
                          const BufferView<float>& C, std::size_t ldc, std::size_t stride_c, std::size_t batch,
                          const GemmOptions& options) {
  run_gemm<half, float>("gemm_strided_batched", q, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, ldb,
                        stride_b, beta, C, ldc, stride_c, batch, options);
}

void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
          const BufferView<bfloat16>& A, std::size_t lda, const BufferView<bfloat16>& B, std::size_t ldb,
          float beta, const BufferView<bfloat16>& C, std::size_t ldc, const GemmOptions& options) {
  run_gemm<bfloat16>("gemm", q, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1,
                     options);
}

void gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
          const BufferView<bfloat16>& A, std::size_t lda, const BufferView<bfloat16>& B, std::size_t ldb,
          float beta, const BufferView<float>& C, std::size_t ldc, const GemmOptions& options) {
  run_gemm<bfloat16, float>("gemm", q, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1,
                            options);
}

void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                          float alpha, const BufferView<bfloat16>& A, std::size_t lda, std::size_t stride_a,
                          const BufferView<bfloat16>& B, std::size_t ldb, std::size_t stride_b, float beta,
                          const BufferView<bfloat16>& C, std::size_t ldc, std::size_t stride_c,
                          std::size_t batch, const GemmOptions& options) {
  run_gemm<bfloat16>("gemm_strided_batched", q, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, ldb,
                     stride_b, beta, C, ldc, stride_c, batch, options);
}

void gemm_strided_batched(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                          float alpha, const BufferView<bfloat16>& A, std::size_t lda, std::size_t stride_a,
                          const BufferView<bfloat16>& B, std::size_t ldb, std::size_t stride_b, float beta,
                          const BufferView<float>& C, std::size_t ldc, std::size_t stride_c,
                          std::size_t batch, const GemmOptions& options) {
  run_gemm<bfloat16, float>("gemm_strided_batched", q, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, ldb,
                            stride_b, beta, C, ldc, stride_c, batch, options);
}

GemmPlan gemm_plan_for(const Device& device, const GemmProblem& problem, const GemmOptions& options) {
  GemmOptions resolved = options;
  resolved.allow_tf32 = tf32_allowed(options);
  return plan_gemm(device.info(), state_for(device)->classes, problem, resolved);
}

}  // namespace duet
