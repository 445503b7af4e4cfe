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

namespace duet {
namespace {

constexpr std::size_t kMaxGridY = 65535;  // CUDA's limit on the second grid dimension
constexpr int kGemvThreads = 256;         // gemv.duet's groups

// gemm accumulates half in float, and every other type in itself.
template <class T>
using Accumulator = std::conditional_t<std::is_same_v<T, half>, float, T>;

// What gemm keeps per queue (extension::queue_state).
struct QueueScratch {
  std::mutex enqueueing;  // held from a call's first launch on the workspace to its last
  RawBuffer workspace;
  RawBuffer placeholder;  // the workspace argument of launches that write none
};

struct State {
  std::vector<MatmulSizeClass> classes;

  std::mutex mutex;  // guards kernels
  std::map<std::vector<int>, Kernel> kernels;

  // Kernel `kernel` of source `file` with `defines`, compiled once per key.
  Kernel kernel(const Device& device, const std::vector<int>& key, const char* file, const char* kernel,
                const std::function<Defines()>& defines) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto found = kernels.find(key);
      if (found != kernels.end()) return found->second;
    }
    Kernel k = embedded_kernels.kernel(device, file, kernel, defines());  // compiles outside the lock
    std::lock_guard<std::mutex> lock(mutex);
    return kernels.emplace(key, k).first->second;
  }
};

std::shared_ptr<State> state_for(const Device& device) {
  return extension::device_state<State>(device, "duet.blas.gemm", [&] {
    auto s = std::make_shared<State>();
    s->classes = matmul_size_classes(device.info());  // reads the tuning file
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
// 16-byte aligned for float4 accesses.
template <class T>
struct Operand {
  extension::KernelRange<T> range;
  bool vec = false;
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
  v.raw().impl((std::string("operand ") + name + " of " + call).c_str());
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
  o.vec = std::is_same_v<T, float> && aligned && ld % 4 == 0 && (batch <= 1 || stride % 4 == 0);
  o.passable = aligned && v.raw().offset() % info.view_alignment == 0;
  return o;
}

std::vector<int> params_key(int kind, const MatmulParams& p) {
  return {kind, p.bm, p.bn, p.bk, p.tm, p.tn, p.wx, p.pipeline, p.group_rows};
}

Defines type_defines(ScalarType type) {
  const bool f64 = type == ScalarType::f64;
  return {{"T", type == ScalarType::f16 ? "half"
                : f64                   ? "double"
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
  const Kernel k = s.kernel(q.device(), {100, static_cast<int>(scalar_type_of<T>())}, "gemm_reduce",
                            "gemm_reduce", [] { return gemm_reduce_defines(scalar_type_of<T>()); });
  const std::size_t total = std::size_t(rows) * std::size_t(cols) * std::size_t(nb);
  const int lanes = reduce_lanes(q.device().info(), total, splits);
  const std::size_t per = kReduceGroupSize / lanes;
  const std::size_t groups = std::clamp<std::size_t>((total + per - 1) / per, 1, 65535);
  q.launch(k, Range(groups * kReduceGroupSize), Range(kReduceGroupSize), P, splits, slice, C.range.arg, c_off,
           ldc, c_stride, rows, cols, nb, alpha, beta, lanes);
}

template <class T>
void run_gemm(const char* call, Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
              Accumulator<T> alpha, const BufferView<T>& A, std::size_t lda, std::size_t sa,
              const BufferView<T>& B, std::size_t ldb, std::size_t sb, Accumulator<T> beta,
              const BufferView<T>& C, std::size_t ldc, std::size_t sc, std::size_t batch,
              const GemmOptions& options) {
  using Acc = Accumulator<T>;
  const Device& device = q.device();
  const DeviceInfo& info = device.info();
  // Liveness and device of every operand, then leading dimensions, then sizes.
  check_operand_handle(call, "A", A, q);
  check_operand_handle(call, "B", B, q);
  check_operand_handle(call, "C", C, q);
  if constexpr (std::is_same_v<T, double>) {
    if (!info.supports_double)
      throw ArgumentError(std::string(call) + ": double needs a device with double precision; " + info.id() +
                          " (" + info.name + ") has none");
  }
  const bool ta = op_a == Op::transpose, tb = op_b == Op::transpose;
  const std::size_t a_rows = ta ? K : M, a_cols = ta ? M : K;
  const std::size_t b_rows = tb ? N : K, b_cols = tb ? K : N;
  check_ld(call, "A", "lda", lda, a_rows, a_cols, ta ? "op_a transpose, K x M" : "op_a none, M x K");
  check_ld(call, "B", "ldb", ldb, b_rows, b_cols, tb ? "op_b transpose, N x K" : "op_b none, K x N");
  check_ld(call, "C", "ldc", ldc, M, N, "M x N");
  if (batch == 0 || M == 0 || N == 0) return;
  const bool alpha_zero = alpha == Acc(0);
  const bool reads_ab = K > 0 && !alpha_zero;
  if (reads_ab) {
    check_size(call, "A", A, extent(call, "A", a_rows, a_cols, lda, batch, sa), a_rows, a_cols, "lda", lda,
               batch, sa);
    check_size(call, "B", B, extent(call, "B", b_rows, b_cols, ldb, batch, sb), b_rows, b_cols, "ldb", ldb,
               batch, sb);
  }
  check_size(call, "C", C, extent(call, "C", M, N, ldc, batch, sc), M, N, "ldc", ldc, batch, sc);
  if (batch > 1 && sc < (M - 1) * ldc + N)
    throw ArgumentError(std::string(call) + ": C: stride_c=" + std::to_string(sc) +
                        " is smaller than one matrix's extent (M - 1) * ldc + N = " +
                        std::to_string((M - 1) * ldc + N) + ": the batch's outputs would overlap");
  // The kernels index with int.
  const int m = extension::as_int(call, "M", M), n = extension::as_int(call, "N", N),
            k = extension::as_int(call, "K", K);
  const int lda_i = extension::as_int(call, "lda", lda), ldb_i = extension::as_int(call, "ldb", ldb),
            ldc_i = extension::as_int(call, "ldc", ldc);

  const std::shared_ptr<State> state = state_for(device);
  Operand<T> a = operand(call, "A", A, info, lda, batch, sa);
  Operand<T> b = operand(call, "B", B, info, ldb, batch, sb);
  if (info.kind == DeviceKind::cpu) {
    // gemm.duet (CPUs run it for half): PoCL 5.0 computes wrong products when a float4
    // load along k is scattered into the shared slice one element at a time (op_a none, op_b
    // transpose; issue 11's notes), where PoCL 3.1 and 6.0 do not. CPUs read those runs element by
    // element, which PoCL vectorises across work-items.
    a.vec = a.vec && ta;
    b.vec = b.vec && !tb;
  }
  const Operand<T> c = operand(call, "C", C, info, ldc, batch, sc);

  GemmProblem problem;
  problem.type = scalar_type_of<T>();
  problem.op_a = op_a, problem.op_b = op_b;
  problem.M = M, problem.N = N, problem.K = K, problem.batch = batch;
  problem.alpha_zero = alpha_zero;
  problem.plain = std::is_same_v<T, float> && !ta && !tb && alpha == Acc(1) && beta == Acc(0) && lda == K &&
                  ldb == N && ldc == N && batch == 1 && a.passable && b.passable && c.passable;
  const GemmPlan plan = plan_gemm(info, state->classes, problem, options);
  if (plan.kernel == GemmKernel::none) return;
  if (plan.bulk_m > 0 && (plan.bulk_m < M || plan.bulk_n < N)) {
    // Thin edges apart: the whole tiles, then each edge as a product of its own (views at the
    // edge's first row or column; the batch's strides stay).
    GemmOptions part = options;
    part.edges = GemmEdges::whole;
    const std::size_t m1 = plan.bulk_m, n1 = plan.bulk_n;
    run_gemm<T>(call, q, op_a, op_b, m1, n1, K, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch, part);
    if (n1 < N) {
      const std::size_t b_off = tb ? n1 * ldb : n1;
      run_gemm<T>(call, q, op_a, op_b, m1, N - n1, K, alpha, A, lda, sa, B.view(b_off, B.size() - b_off), ldb,
                  sb, beta, C.view(n1, C.size() - n1), ldc, sc, batch, part);
    }
    if (m1 < M) {
      const std::size_t a_off = ta ? m1 : m1 * lda;
      run_gemm<T>(call, q, op_a, op_b, M - m1, N, K, alpha, A.view(a_off, A.size() - a_off), lda, sa, B, ldb,
                  sb, beta, C.view(m1 * ldc, C.size() - m1 * ldc), ldc, sc, batch, part);
    }
    return;
  }
  if (plan.kernel == GemmKernel::scale) {
    const BufferView<Acc> placeholder = acc_view<Acc>(scratch_for(q)->placeholder);
    for (std::size_t b0 = 0; b0 < batch; b0 += kMaxGridY) {
      const int nb = static_cast<int>(std::min(kMaxGridY, batch - b0));
      launch_reduce<T>(*state, q, placeholder, 0, 0, c, c.range.offset + b0 * sc, ldc_i, sc, m, n, nb, Acc(0),
                       beta);
    }
    return;
  }
  // Float and double on CPUs: gemm_cpu.duet, for plain products too (the tiled launch below, one
  // slice of K).
  const bool cpu_form = !std::is_same_v<T, half> && uses_cpu_form(info);
  if (plan.kernel == GemmKernel::matmul && !cpu_form) {
    if constexpr (std::is_same_v<T, float>) {
      const MatmulParams& p = plan.params;
      std::vector<int> key = params_key(0, p);
      key.push_back(K % 4 == 0);
      key.push_back(N % 4 == 0);
      const Kernel kernel =
          state->kernel(device, key, "matmul", "matmul", [&] { return matmul_defines(p, N, K); });
      const std::size_t groups = ((M + p.bm - 1) / p.bm) * ((N + p.bn - 1) / p.bn);
      extension::as_int(call, "the number of tiles of C", groups);
      const std::size_t threads = static_cast<std::size_t>(p.threads());
      q.launch(kernel, Range(groups * threads), Range(threads), A, B, C, m, n, k);
    }
    return;
  }

  const int splits = plan.splits;
  const int k_chunk = extension::as_int(call, "K per slice", plan.k_chunk);
  const std::shared_ptr<QueueScratch> scratch = scratch_for(q);
  std::unique_lock<std::mutex> turn;
  BufferView<Acc> W = acc_view<Acc>(scratch->placeholder);
  // Batches per launch: the second grid dimension holds batch * splits groups.
  const std::size_t per_launch = std::max<std::size_t>(1, kMaxGridY / static_cast<std::size_t>(splits));
  if (splits > 1) {
    const std::size_t outputs = plan.workspace_elements / (static_cast<std::size_t>(splits) * batch);
    const std::size_t need =
        static_cast<std::size_t>(splits) * std::min(batch, per_launch) * outputs * sizeof(Acc);
    turn = std::unique_lock<std::mutex>(scratch->enqueueing);
    if (scratch->workspace.bytes() < need) {
      // Grown to the need, with room: the old buffer is freed once the work using it is done.
      scratch->workspace = RawBuffer();
      scratch->workspace = RawBuffer(device, std::max(need, std::size_t{1} << 20));
    }
    W = acc_view<Acc>(scratch->workspace);
  }

  if (plan.kernel == GemmKernel::tiled || plan.kernel == GemmKernel::matmul) {
    const MatmulParams& p = plan.params;
    Kernel kernel;
    if (cpu_form) {
      // Split-K applies beta in the reduction, so its launches share one variant.
      const bool beta_zero = beta == Acc(0) || splits > 1;
      std::vector<int> key = params_key(3, p);
      key.insert(key.end(), {static_cast<int>(scalar_type_of<T>()), ta, tb, beta_zero});
      kernel = state->kernel(device, key, "gemm_cpu", "gemm_cpu",
                             [&] { return gemm_cpu_defines(p, scalar_type_of<T>(), op_a, op_b, beta_zero); });
    } else {
      std::vector<int> key = params_key(1, p);
      key.insert(key.end(), {static_cast<int>(scalar_type_of<T>()), ta, tb, a.vec, b.vec, c.vec});
      kernel = state->kernel(device, key, "gemm", "gemm", [&] {
        return gemm_defines(p, scalar_type_of<T>(), op_a, op_b, a.vec, b.vec, c.vec);
      });
    }
    const std::size_t groups = ((M + p.bm - 1) / p.bm) * ((N + p.bn - 1) / p.bn);
    extension::as_int(call, "the number of tiles of C", groups);
    const std::size_t threads = static_cast<std::size_t>(p.threads());
    for (std::size_t b0 = 0; b0 < batch; b0 += per_launch) {
      const std::size_t nb = std::min(per_launch, batch - b0);
      q.launch(kernel, Range(groups * threads, nb * splits), Range(threads, 1), a.range.arg,
               std::uint64_t(a.range.offset + b0 * sa), lda_i, std::uint64_t(sa), b.range.arg,
               std::uint64_t(b.range.offset + b0 * sb), ldb_i, std::uint64_t(sb), c.range.arg,
               std::uint64_t(c.range.offset + b0 * sc), ldc_i, std::uint64_t(sc), W, m, n, k, alpha, beta,
               splits, k_chunk);
      if (splits > 1)
        launch_reduce<T>(*state, q, W, splits, std::uint64_t(nb) * M * N, c, c.range.offset + b0 * sc, ldc_i,
                         sc, m, n, static_cast<int>(nb), alpha, beta);
    }
    return;
  }

  // gemv: the matrix, the vector and the output as gemv.duet sees them (see gemm_plan.hpp).
  const bool on_a = N == 1;
  const Operand<T>& w = on_a ? a : b;
  const Operand<T>& x = on_a ? b : a;
  const std::size_t ldw = on_a ? lda : ldb, w_stride = on_a ? sa : sb, x_stride = on_a ? sb : sa;
  const std::size_t incx = on_a ? (tb ? 1 : ldb) : (ta ? lda : 1);
  const std::size_t incy = on_a ? ldc : 1;
  const int R = on_a ? m : n;
  const bool dot = plan.kernel == GemmKernel::gemv_dot;
  const bool vec_x = dot && std::is_same_v<T, float> && incx == 1 && x.vec;
  const bool vec_w = w.vec;
  const Kernel kernel = state->kernel(device, {2, dot, static_cast<int>(scalar_type_of<T>()), vec_w, vec_x},
                                      "gemv", dot ? "gemv_dot" : "gemv_axpy",
                                      [&] { return gemv_defines(scalar_type_of<T>(), vec_w, vec_x); });
  const std::size_t per_group = dot ? kGemvDotRows : std::size_t{kGemvAxpyCols} * 4;
  const std::size_t groups = (std::size_t(R) + per_group - 1) / per_group;
  const int ldw_i = static_cast<int>(ldw), incx_i = extension::as_int(call, "the vector's stride", incx),
            incy_i = static_cast<int>(incy);
  for (std::size_t b0 = 0; b0 < batch; b0 += per_launch) {
    const std::size_t nb = std::min(per_launch, batch - b0);
    q.launch(kernel, Range(groups * kGemvThreads, nb * splits), Range(kGemvThreads, 1), w.range.arg,
             std::uint64_t(w.range.offset + b0 * w_stride), ldw_i, std::uint64_t(w_stride), x.range.arg,
             std::uint64_t(x.range.offset + b0 * x_stride), incx_i, std::uint64_t(x_stride), c.range.arg,
             std::uint64_t(c.range.offset + b0 * sc), incy_i, std::uint64_t(sc), W, R, k, alpha, beta, splits,
             k_chunk);
    if (splits > 1)
      launch_reduce<T>(*state, q, W, splits, std::uint64_t(nb) * R, c, c.range.offset + b0 * sc, ldc_i, sc,
                       on_a ? m : 1, on_a ? 1 : n, static_cast<int>(nb), alpha, beta);
  }
}

}  // namespace

Defines gemm_defines(const MatmulParams& p, ScalarType type, Op op_a, Op op_b, bool vec_a, bool vec_b,
                     bool vec_c) {
  // B is swizzled like A where its transposed slice is scattered and the reads allow it (TX a
  // multiple of 8 vectors); gemm_shared_bytes() counts the layout.
  const bool tb = op_b == Op::transpose;
  const bool swizzle_b = tb && p.bn % 32 == 0 && p.tn > 0 && (p.bn / p.tn) % 8 == 0;
  const bool f32 = type == ScalarType::f32;
  Defines d = type_defines(type);
  const Defines tiles = matmul_tile_defines(p);
  d.insert(d.end(), tiles.begin(), tiles.end());
  d.insert(d.end(), {{"OP_A", op_a == Op::transpose ? "1" : "0"},
                     {"OP_B", tb ? "1" : "0"},
                     {"VEC_A", f32 && vec_a ? "1" : "0"},
                     {"VEC_B", f32 && vec_b ? "1" : "0"},
                     {"VEC_C", f32 && vec_c ? "1" : "0"},
                     {"B_SWIZZLE", swizzle_b ? "1" : "0"}});
  return d;
}

Defines gemm_cpu_defines(const MatmulParams& p, ScalarType type, Op op_a, Op op_b, bool beta_zero) {
  if (type != ScalarType::f32 && type != ScalarType::f64)
    throw ArgumentError(std::string("gemm_cpu_defines: ") + to_string(type) + " is not float or double");
  Defines d = type_defines(type);
  const Defines tiles = matmul_tile_defines(p);
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

GemmPlan gemm_plan_for(const Device& device, const GemmProblem& problem, const GemmOptions& options) {
  return plan_gemm(device.info(), state_for(device)->classes, problem, options);
}

}  // namespace duet
