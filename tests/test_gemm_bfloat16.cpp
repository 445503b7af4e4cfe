// duet::gemm and gemm_strided_batched with bfloat16 inputs, into a bfloat16 or a float C, on every
// device against a double-precision reference: sizes 1, primes and K past a whole slice, every op
// combination, leading dimensions wider than the rows, views at element offsets, batches (a
// broadcast operand included), alpha and beta (beta == 0 with C poisoned by NaN, which must not
// propagate), the rule's own path and the tensor kernel forced (tensor cores on CUDA sm_80 and
// later, its portable form elsewhere); every element of C's buffer outside C must stay poisoned.
// Then the plan the rule reports, with no device.
//
// The error bound. A bfloat16 has an 8-bit significand, so the product of two is exact in float
// (16 bits of 24): the only roundings are the float sums over K, at most about K u |a||b| summed
// with u = 2^-24 (tensor cores add in another order, with the same bound up to a small factor),
// alpha and beta (3 more u), and for a bfloat16 C the one final rounding to nearest even, at most
// 2^-8 of the result. The float part is doubled for slack, as gemm's other tests do.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <limits>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::bfloat16;
using duet::GemmOptions;
using duet::GemmPath;
using duet::Op;

constexpr Op kNone = Op::none, kTrans = Op::transpose;
const Op kOps[2] = {kNone, kTrans};

constexpr double kFloatU = 1.0 / (1 << 24);    // float's unit roundoff: the sums
constexpr double kBfloat16U = 1.0 / (1 << 8);  // bfloat16's: the one rounding of a bfloat16 C

double to_double(bfloat16 x) { return x.to_float(); }
double to_double(float x) { return x; }
bool is_nan(bfloat16 x) { return std::isnan(x.to_float()); }
bool is_nan(float x) { return std::isnan(x); }

template <class TC>
TC poison();
template <>
bfloat16 poison<bfloat16>() {
  return bfloat16{0x7fc0};  // a quiet NaN
}
template <>
float poison<float>() {
  return std::numeric_limits<float>::quiet_NaN();
}
template <class TC>
TC from_double(double x);
template <>
bfloat16 from_double<bfloat16>(double x) {
  return bfloat16::from_float(static_cast<float>(x));
}
template <>
float from_double<float>(double x) {
  return static_cast<float>(x);
}

struct Case {
  std::string label;
  Op op_a, op_b;
  std::size_t M, N, K;
  double alpha = 1.0, beta = 0.0;
  std::size_t pad_a = 0, pad_b = 0, pad_c = 0;  // ld = stored row width + pad
  std::size_t off_a = 0, off_b = 0, off_c = 0;  // views start this many elements in
  std::size_t batch = 0;                        // 0: gemm(); else gemm_strided_batched
  std::size_t gap = 0;                          // extra elements between a batch's matrices
  bool broadcast_b = false;                     // stride_b = 0: one B for the whole batch
  GemmOptions options = {};
};

std::string describe(const Case& c) {
  std::string s = c.label + ": op_a " + duet::to_string(c.op_a) + ", op_b " + duet::to_string(c.op_b) + ", " +
                  std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) + ", alpha " +
                  std::to_string(c.alpha) + ", beta " + std::to_string(c.beta) + ", pads " +
                  std::to_string(c.pad_a) + "/" + std::to_string(c.pad_b) + "/" + std::to_string(c.pad_c) +
                  ", offsets " + std::to_string(c.off_a) + "/" + std::to_string(c.off_b) + "/" +
                  std::to_string(c.off_c) + ", path " + duet::to_string(c.options.path);
  if (c.batch) s += ", batch " + std::to_string(c.batch) + (c.broadcast_b ? " (B broadcast)" : "");
  return s;
}

// One operand's place in its buffer: `count` matrices of rows x cols, `stride` apart, from `offset`.
struct Layout {
  std::size_t rows, cols, ld, stride, count, offset, size;
  bool inside(std::size_t i) const {
    if (i < offset) return false;
    const std::size_t j = i - offset;
    const std::size_t b = stride ? j / stride : 0, in = stride ? j % stride : j;
    return b < count && in / ld < rows && in % ld < cols;
  }
};

Layout layout(std::size_t rows, std::size_t cols, std::size_t pad, std::size_t offset, std::size_t count,
              std::size_t gap, bool broadcast) {
  Layout l;
  l.rows = rows, l.cols = cols, l.ld = std::max<std::size_t>(cols + pad, 1), l.offset = offset;
  l.count = broadcast ? 1 : count;
  l.stride = broadcast ? 0 : rows * l.ld + gap;
  l.size = offset + (l.count - 1) * l.stride + rows * l.ld + 3;  // 3 more past the end
  return l;
}

// Runs the case with C of TC (bfloat16 or float) and checks every output and every element around C.
template <class TC>
void run_case(const duet::Device& dev, duet::Queue& q, const Case& c) {
  INFO("bfloat16 into ", (std::is_same_v<TC, float> ? "float" : "bfloat16"), " ", describe(c));
  const bool ta = c.op_a == kTrans, tb = c.op_b == kTrans;
  const std::size_t nb = c.batch ? c.batch : 1;
  const Layout la = layout(ta ? c.K : c.M, ta ? c.M : c.K, c.pad_a, c.off_a, nb, c.gap, false);
  const Layout lb = layout(tb ? c.N : c.K, tb ? c.K : c.N, c.pad_b, c.off_b, nb, c.gap, c.broadcast_b);
  const Layout lc = layout(c.M, c.N, c.pad_c, c.off_c, nb, c.gap, false);

  auto rng = make_rng("gemm bfloat16 " + c.label, c.M * 1000003 + c.N * 1009 + c.K);
  // Matrix elements random, everything else poisoned: a padding element read into a sum shows as NaN.
  auto fill = [&](const Layout& l, bool poison_matrix, auto zero) {
    using U = decltype(zero);
    std::vector<U> v(l.size, poison<U>());
    const std::vector<float> values = random_floats(rng, l.size);
    for (std::size_t i = 0; i < l.size; ++i)
      if (l.inside(i) && !poison_matrix) v[i] = from_double<U>(values[i]);
    return v;
  };
  const std::vector<bfloat16> A = fill(la, false, bfloat16{}), B = fill(lb, false, bfloat16{});
  const std::vector<TC> C0 = fill(lc, c.beta == 0.0, TC{});

  duet::Buffer<bfloat16> dA(dev, la.size), dB(dev, lb.size);
  duet::Buffer<TC> dC(dev, lc.size);
  q.write(dA, A);
  q.write(dB, B);
  q.write(dC, C0);
  const duet::BufferView<bfloat16> vA = dA.view(c.off_a, la.size - c.off_a),
                                   vB = dB.view(c.off_b, lb.size - c.off_b);
  const duet::BufferView<TC> vC = dC.view(c.off_c, lc.size - c.off_c);
  const float alpha = static_cast<float>(c.alpha), beta = static_cast<float>(c.beta);
  if (c.batch == 0)
    duet::gemm(q, c.op_a, c.op_b, c.M, c.N, c.K, alpha, vA, la.ld, vB, lb.ld, beta, vC, lc.ld, c.options);
  else
    duet::gemm_strided_batched(q, c.op_a, c.op_b, c.M, c.N, c.K, alpha, vA, la.ld, la.stride, vB, lb.ld,
                               lb.stride, beta, vC, lc.ld, lc.stride, c.batch, c.options);
  const std::vector<TC> got = q.to_vector(dC);

  std::vector<double> a(A.size()), b(B.size()), c0(C0.size());
  for (std::size_t i = 0; i < A.size(); ++i) a[i] = to_double(A[i]);
  for (std::size_t i = 0; i < B.size(); ++i) b[i] = to_double(B[i]);
  for (std::size_t i = 0; i < C0.size(); ++i) c0[i] = to_double(C0[i]);
  const double store_u = std::is_same_v<TC, float> ? 0.0 : kBfloat16U;
  std::vector<double> want(c.M * c.N), scale(c.M * c.N);
  std::size_t bad = 0, outside = 0;
  double worst = 0;
  std::string first;
  for (std::size_t m = 0; m < nb; ++m) {
    reference_gemm(ta, tb, c.M, c.N, c.K, alpha, &a[la.offset + m * la.stride], la.ld,
                   &b[lb.offset + m * lb.stride], lb.ld, beta, &c0[lc.offset + m * lc.stride], lc.ld,
                   want.data(), scale.data());
    for (std::size_t i = 0; i < c.M; ++i)
      for (std::size_t j = 0; j < c.N; ++j) {
        const double w = want[i * c.N + j];
        const double g = to_double(got[lc.offset + m * lc.stride + i * lc.ld + j]);
        const double sums = 2.0 * double(c.K + 3) * kFloatU * scale[i * c.N + j];
        // The final rounding is of the float result, which may be off by `sums` already; the
        // smallest normal float covers results that round into bfloat16's subnormals.
        const double tol = sums + store_u * (std::fabs(w) + sums) + 1e-38;
        const double err = std::fabs(g - w);
        if (!(err <= tol)) {
          if (bad < 4)
            first += "\n  batch " + std::to_string(m) + " C[" + std::to_string(i) + "][" + std::to_string(j) +
                     "] got " + std::to_string(g) + " want " + std::to_string(w) + " (tolerance " +
                     std::to_string(tol) + ")";
          ++bad;
        }
        if (err > worst || err != err) worst = err;
      }
  }
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!lc.inside(i) && !is_nan(got[i])) {
      if (outside < 4) first += "\n  C's buffer element " + std::to_string(i) + " outside C was written";
      ++outside;
    }
  INFO(bad, " of ", nb * c.M * c.N, " outputs out of tolerance (worst error ", worst, "), ", outside,
       " elements outside C written", first);
  CHECK(bad == 0);
  CHECK(outside == 0);
}

GemmOptions forced_tensor() {
  GemmOptions o;
  o.path = GemmPath::tensor;
  return o;
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("gemm bfloat16: every size of {1, 7, 61, 130} cubed, every op, into bfloat16 and into float") {
  // Into bfloat16 the rule's own path (tensor cores where the device has them, else the SIMT
  // kernels: tiled, gemv for M or N of 1); into float the tensor kernel, the only one that takes it.
  const std::size_t sizes[] = {1, 7, 61, 130};
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (Op oa : kOps)
      for (Op ob : kOps)
        for (std::size_t M : sizes)
          for (std::size_t N : sizes)
            for (std::size_t K : sizes) {
              Case c{"sizes", oa, ob, M, N, K};
              c.alpha = 0.75, c.beta = (M + N + K) % 2 ? 0.0 : -0.5;
              run_case<bfloat16>(dev, q, c);
              run_case<float>(dev, q, c);
            }
  });
}

TEST_CASE("gemm bfloat16: the tensor kernel forced, wide leading dimensions, views, alpha and beta") {
  // GemmPath::tensor on every device: matrix instructions on CUDA sm_80 and later, the portable
  // form elsewhere (PoCL in CI). Operands whose rows are whole 16-byte runs (cp.async) and ones
  // that are not; C past its last whole tile.
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    MESSAGE(dev.info().id() << ": the bfloat16 tensor kernel runs "
                            << std::string(duet::tensor_cores(dev.info()) ? "on tensor cores"
                                                                          : "its portable form"));
    for (Op oa : kOps)
      for (Op ob : kOps) {
        Case prime{"tensor primes", oa, ob, 131, 17, 37};
        prime.options = forced_tensor(), prime.alpha = 0.5, prime.beta = 0.25, prime.pad_a = 1,
        prime.pad_b = 5, prime.pad_c = 2, prime.off_c = 3;
        run_case<bfloat16>(dev, q, prime);
        run_case<float>(dev, q, prime);
        Case runs{"tensor whole runs", oa, ob, 136, 72, 40};  // every ld a multiple of 8, K = 32 + 8
        runs.options = forced_tensor(), runs.beta = -1.0;
        run_case<bfloat16>(dev, q, runs);
        Case views{"tensor whole runs in views", oa, ob, 64, 136, 96};
        views.options = forced_tensor(), views.pad_a = 8, views.pad_b = 16, views.off_a = 8, views.off_b = 24;
        views.pad_c = 1, views.off_c = 1, views.beta = 2.0;
        run_case<bfloat16>(dev, q, views);
        Case odd{"views at odd offsets", oa, ob, 61, 7, 130};
        odd.off_a = 3, odd.off_b = 5, odd.off_c = 7, odd.pad_a = 2, odd.pad_b = 1, odd.pad_c = 3;
        odd.alpha = -1.25, odd.beta = 0.5;
        run_case<bfloat16>(dev, q, odd);
        run_case<float>(dev, q, odd);
      }
  });
}

TEST_CASE("gemm bfloat16: a larger product, split-K and gemv forced, batches") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (Op oa : kOps)
      for (Op ob : kOps) {
        Case large{"larger", oa, ob, 257, 300, 520};
        large.beta = 0.5, large.pad_b = 3, large.off_a = 1;
        run_case<bfloat16>(dev, q, large);
        run_case<float>(dev, q, large);
      }
    Case split{"split-K", kNone, kTrans, 37, 29, 700};
    split.options.path = GemmPath::split_k, split.beta = 1.0;
    run_case<bfloat16>(dev, q, split);
    Case gemv{"gemv", kTrans, kNone, 90, 1, 300};
    gemv.options.path = GemmPath::gemv, gemv.options.splits = 3, gemv.pad_c = 2;
    run_case<bfloat16>(dev, q, gemv);
    for (Op oa : kOps)
      for (Op ob : kOps) {
        Case batched{"batched", oa, ob, 33, 40, 61};
        batched.batch = 3, batched.gap = 5, batched.beta = 0.25, batched.off_c = 2;
        run_case<bfloat16>(dev, q, batched);
        run_case<float>(dev, q, batched);
        Case broadcast{"batched tensor, B broadcast", oa, ob, 17, 24, 40};
        broadcast.batch = 4, broadcast.broadcast_b = true, broadcast.options = forced_tensor();
        run_case<bfloat16>(dev, q, broadcast);
        run_case<float>(dev, q, broadcast);
      }
    Case scale{"K == 0", kNone, kNone, 5, 7, 0};
    scale.beta = 2.0, scale.pad_c = 1;
    run_case<bfloat16>(dev, q, scale);
    run_case<float>(dev, q, scale);
  });
}

TEST_CASE("gemm bfloat16: rounding to nearest even once, and the plan the rule reports") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    // 1 x 2 times 2 x 1, sums exact in float. bfloat16's spacing at 1 is 2^-7, so 1 + 2^-8 is a tie
    // and goes to the even neighbour 1, and 1 + 3 * 2^-8 is a tie that goes up to the even
    // 1 + 2^-6: truncation, or rounding half away from zero, gets one of the two wrong.
    const float h = 1.0f / 256;
    const std::vector<bfloat16> a = {bfloat16::from_float(1.0f), bfloat16::from_float(h)};
    const std::vector<bfloat16> b = {bfloat16::from_float(1.0f), bfloat16::from_float(1.0f)};
    const std::vector<bfloat16> b3 = {bfloat16::from_float(1.0f), bfloat16::from_float(3.0f)};
    duet::Buffer<bfloat16> dA(dev, 2), dB(dev, 2), dC(dev, 1);
    q.write(dA, a);
    for (const GemmOptions& o : {GemmOptions{}, forced_tensor()}) {
      q.write(dB, b);
      duet::gemm(q, kNone, kNone, 1, 1, 2, 1.0f, dA, 2, dB, 1, 0.0f, dC, 1, o);
      CHECK(q.to_vector(dC)[0].to_float() == 1.0f);
      q.write(dB, b3);
      duet::gemm(q, kNone, kNone, 1, 1, 2, 1.0f, dA, 2, dB, 1, 0.0f, dC, 1, o);
      CHECK(q.to_vector(dC)[0].to_float() == 1.0f + 1.0f / 64);
    }
    // Where the device has tensor cores bfloat16 products take them, as half ones do.
    duet::GemmProblem p;
    p.type = duet::ScalarType::bf16;
    p.M = p.N = p.K = 256;
    const duet::GemmPlan plan = duet::gemm_plan_for(dev, p);
    CHECK((plan.kernel == duet::GemmKernel::tensor) == duet::tensor_cores(dev.info()));
    p.c_type = duet::ScalarType::f32;
    const duet::GemmPlan into_float = duet::gemm_plan_for(dev, p);
    CHECK(into_float.kernel == duet::GemmKernel::tensor);
    CHECK_CONTAINS(into_float.reason, "bfloat16");
    // Only the tensor kernel takes a float C.
    duet::Buffer<float> F(dev, 64);
    duet::Buffer<bfloat16> H(dev, 64);
    GemmOptions tiled;
    tiled.path = GemmPath::tiled;
    const auto e = EXPECT_ERROR(duet::ArgumentError,
                                duet::gemm(q, kNone, kNone, 8, 8, 8, 1.0f, H, 8, H, 8, 0.0f, F, 8, tiled));
    if (e) CHECK_CONTAINS(std::string(e->what()), "bfloat16 inputs into a float C");
    const auto small = EXPECT_ERROR(duet::BufferSizeError, duet::gemm(q, kNone, kNone, 9, 8, 8, 1.0f, H, 8, H,
                                                                      8, 0.0f, H, 8, forced_tensor()));
    if (small) CHECK_CONTAINS(std::string(small->what()), "A holds");
  });
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("gemm bfloat16: the plan and the tensor kernel's defines, with no device") {
  duet::DeviceInfo gpu;
  gpu.backend = "cuda", gpu.name = "an sm_90 GPU", gpu.vendor = "NVIDIA", gpu.arch = "sm_90";
  gpu.kind = duet::DeviceKind::gpu, gpu.compute_units = 132, gpu.max_group_size = 1024;
  gpu.local_memory_bytes = 48 * 1024;
  duet::DeviceInfo old = gpu;
  old.arch = "sm_75";
  duet::DeviceInfo cpu = gpu;
  cpu.backend = "opencl", cpu.name = "a CPU", cpu.arch = "", cpu.kind = duet::DeviceKind::cpu;
  cpu.compute_units = 16, cpu.max_group_size = 4096, cpu.local_memory_bytes = 512 * 1024;
  const std::vector<duet::GemmSizeClass> classes = duet::gemm_size_classes(gpu);

  duet::GemmProblem p;
  p.type = duet::ScalarType::bf16;
  p.M = p.N = p.K = 2048;  // 256 large tiles for 132 units
  const duet::GemmPlan tc = duet::plan_gemm(gpu, classes, p);
  CHECK(tc.kernel == duet::GemmKernel::tensor);
  CHECK_CONTAINS(tc.reason, "bfloat16 on tensor cores");
  CHECK(tc.tensor == duet::tensor_tile(duet::ScalarType::f16));  // the same tiles as half
  CHECK(duet::plan_gemm(old, duet::gemm_size_classes(old), p).kernel == duet::GemmKernel::tiled);
  // CPUs: gemm.duet, not the float-only CPU form.
  CHECK(duet::plan_gemm(cpu, duet::gemm_size_classes(cpu), p).kernel == duet::GemmKernel::tiled);
  duet::GemmProblem v = p;
  v.N = 1;
  CHECK(duet::plan_gemm(gpu, classes, v).kernel != duet::GemmKernel::tensor);

  auto value = [](const duet::Defines& d, const std::string& name) {
    for (const auto& [k, val] : d)
      if (k == name) return val;
    return std::string();
  };
  const duet::GemmKernelSource s = duet::gemm_kernel_source(p, tc);
  CHECK(s.file == "gemm_tc");
  CHECK(value(s.defines, "T") == "bfloat16");
  CHECK(value(s.defines, "TO") == "bfloat16");
  CHECK(value(s.defines, "T_IS_BF16") == "1");
  duet::GemmProblem f = p;
  f.c_type = duet::ScalarType::f32;
  CHECK(value(duet::gemm_kernel_source(f, duet::plan_gemm(cpu, duet::gemm_size_classes(cpu), f)).defines,
              "TO") == "float");
  // bfloat16 into half is no overload, and the rule refuses it too.
  duet::GemmProblem h = p;
  h.c_type = duet::ScalarType::f16;
  CHECK_THROWS_AS(duet::plan_gemm(gpu, classes, h), duet::ArgumentError);
}

TEST_SUITE_END();
