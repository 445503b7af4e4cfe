// duet::gemm and gemm_strided_batched on every device, against a double-precision reference: every
// op combination, alpha and beta (beta == 0 with C poisoned by NaN, which must not propagate),
// leading dimensions wider than the rows, views at offsets (misaligned for OpenCL's sub-buffers
// included), float4-aligned and unaligned operands, batches (a broadcast operand included), double
// where the device has it, half storage, sizes 1, primes and non-multiples of every tile, split-K
// and the matrix-vector kernels both forced and chosen by the rule; every element of the output
// buffer outside C (padding, the batch's gaps, before and after the view) must stay poisoned, and a
// padding element of A or B read into a sum would show as NaN. Then each typed error. The rule
// itself is tested without a device in test_gemm_plan.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "devices.hpp"
#include "gemm_cases.hpp"
#include "support.hpp"

namespace {

using duet::GemmOptions;
using duet::GemmPath;
using duet::Op;

constexpr Op kNone = Op::none, kTrans = Op::transpose;

using gemm_cases::Elem;
using Case = gemm_cases::GemmCase;

// Each product's float or double sums round at most about K u |a||b| summed, doubled for slack, plus
// the rounding of the inputs inside the kernel (input_u, for TF32); a half C adds its one rounding.
template <class T, class TC>
double tolerance(const Case& c, double want, double scale) {
  return (2.0 * double(c.K + 3) * Elem<T>::u + c.input_u) * scale + Elem<TC>::store_u * std::fabs(want) +
         (Elem<TC>::store_u > 0 ? 1e-7 : 1e-300);
}

// Runs the case and checks it (gemm_cases.hpp); returns C's whole buffer as read back (for
// determinism checks). A and B hold T, C holds TC (T, or float for half inputs).
template <class T, class TC = T>
std::vector<TC> run_case(const duet::Device& dev, duet::Queue& q, const Case& c) {
  return gemm_cases::run_gemm_case<T, TC>(dev, q, c, "gemm ", tolerance<T, TC>);
}

const Op kOps[2] = {kNone, kTrans};

bool has_double(const duet::Device& dev) { return dev.info().supports_double; }

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("gemm: every op combination, alpha and beta, wide leading dimensions, views at odd offsets") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (Op oa : kOps)
      for (Op ob : kOps) {
        // Primes, past one CPU tile (64) in M and K: unaligned rows (scalar accesses), views at
        // element offsets no sub-buffer can start at; beta 0 over a NaN C, then beta != 0.
        Case c{"odd", oa, ob, 67, 45, 131};
        c.pad_a = 3, c.pad_b = 5, c.pad_c = 2;
        c.off_a = 3, c.off_b = 7, c.off_c = 5;
        c.alpha = 0.75, c.beta = 0.0;
        run_case<float>(dev, q, c);
        c.beta = -0.5;
        c.alpha = -1.25;
        run_case<float>(dev, q, c);
      }
  });
}

TEST_CASE("gemm: thin edges computed apart, every op, batches, views, double") {
  // GemmEdges::apart: C's whole tiles, then the rows and the columns past them as products of their
  // own (the rule does this on GPUs for large products). 1 row and 1 column past (matrix-vector
  // strips), several rows and columns, M and N within one tile (nothing to split off), batches.
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (Op oa : kOps)
      for (Op ob : kOps)
        for (const auto& [M, N, K] :
             std::vector<std::array<std::size_t, 3>>{{129, 257, 37}, {71, 133, 64}, {20, 300, 5}}) {
          Case c{"edges apart", oa, ob, M, N, K};
          c.options.edges = duet::GemmEdges::apart;
          c.pad_a = 1, c.pad_b = 2, c.pad_c = 3, c.off_a = 1, c.off_c = 2;
          c.alpha = 1.5, c.beta = 0.0;
          run_case<float>(dev, q, c);
          c.beta = 0.25;
          c.batch = 3, c.gap = 5;
          run_case<float>(dev, q, c);
        }
    Case c{"edges apart, double", kTrans, kNone, 129, 67, 33};
    c.options.edges = duet::GemmEdges::apart;
    c.beta = -1.0;
    if (dev.info().supports_double) run_case<double>(dev, q, c);
  });
}

TEST_CASE("gemm: float4-aligned operands with partial runs at every edge") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    // (none, transpose) and (transpose, none) take each operand's two float4 load paths (along K
    // and along M or N) between them; each further combination would be one more compile.
    for (Op oa : kOps) {
      const Op ob = oa == kNone ? kTrans : kNone;
      // Leading dimensions and offsets multiples of 4 floats (16 bytes; the offsets of 32 also
      // start a sub-buffer on OpenCL), sizes that are not: the last run of each row is partial.
      Case c{"aligned", oa, ob, 70, 37, 45};
      c.pad_a = (4 - (oa == kTrans ? c.M : c.K) % 4) % 4 + 4;
      c.pad_b = (4 - (ob == kTrans ? c.K : c.N) % 4) % 4;
      c.pad_c = (4 - c.N % 4) % 4 + 8;
      c.off_a = 32, c.off_b = 4, c.off_c = 64;
      c.alpha = 1.5, c.beta = 0.25;
      run_case<float>(dev, q, c);
    }
  });
}

TEST_CASE("gemm and matmul: runs along k turned in registers, every op, float and half") {
  // Tiles where each work-item loads 4 runs of A's and of B's slice (64 x 64 x 16 of 8 x 8: 64
  // work-items, 256 runs each): A none and B transpose go through gemm.duet's quads, the other ops
  // through its plain stores; edges in every dimension, both loops, whole and split. CPUs run
  // gemm.duet for half only (float goes to gemm_cpu.duet there): half with A none covers the quads
  // there, in the loop CPUs run (each variant takes PoCL seconds to compile).
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const bool cpu = dev.info().kind == duet::DeviceKind::cpu;
    duet::GemmTile p;
    p.bm = 64, p.bn = 64, p.bk = 16, p.tm = 8, p.tn = 8, p.wx = 8;
    for (int pipeline : {0, 1}) {
      p.pipeline = pipeline;
      if (!duet::gemm_params_problem(p, 4, kTrans, dev.info()).empty() || (cpu && pipeline)) continue;
      for (Op oa : kOps)
        for (Op ob : kOps) {
          if (cpu) {
            if (oa == kTrans) continue;
            Case h{"quads half", oa, ob, 65, 66, 47};
            h.beta = 0.5;
            h.options.params = p;
            h.options.path = GemmPath::tiled;
            run_case<duet::half>(dev, q, h);
            continue;
          }
          Case c{"quads", oa, ob, 131, 70, 89};
          c.pad_a = 3, c.pad_b = 1, c.off_c = 2, c.alpha = 1.5, c.beta = pipeline ? 0.0 : -0.5;
          c.options.params = p;
          c.options.path = GemmPath::tiled;
          run_case<float>(dev, q, c);
          Case aligned{"quads, float4 rows", oa, ob, 128, 64, 96};
          aligned.options = c.options;
          run_case<float>(dev, q, aligned);
          Case split{"quads split", oa, ob, 67, 129, 301};
          split.options.params = p;
          split.options.path = GemmPath::split_k;
          split.options.splits = 3;
          run_case<float>(dev, q, split);
          Case h{"quads half", oa, ob, 65, 66, 47};
          h.options = c.options;
          run_case<duet::half>(dev, q, h);
        }
      // duet::matmul's kernel turns A's runs too (in its pipelined loop): in fours with these
      // tiles, in pairs with 4 x 8 of them (2 runs a work-item); C at odd sizes and whole tiles.
      duet::GemmTile pairs = p;
      pairs.tm = 4;
      for (const duet::GemmTile& t : {p, pairs})
        for (const auto& [M, N, K] : std::vector<std::array<std::size_t, 3>>{{128, 64, 96}, {75, 130, 52}}) {
          Case plain{"turned runs, duet::matmul's kernel", kNone, kNone, M, N, K};
          plain.options.params = t;
          run_case<float>(dev, q, plain);
        }
    }
  });
}

TEST_CASE("gemm: the pipelined loop GPUs run, on every device (forced parameters)") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    // PIPELINE=1 with both slices swizzled, small tiles (quick to compile on CPUs); edges in every
    // dimension, one slice of K and many, with and without a split.
    duet::GemmTile p;
    p.bm = 32, p.bn = 32, p.bk = 8, p.tm = 4, p.tn = 4, p.wx = 8, p.pipeline = 1;
    for (Op oa : kOps) {
      const Op ob = oa == kNone ? kTrans : kNone;
      for (std::size_t K : {std::size_t{5}, std::size_t{8}, std::size_t{203}}) {
        Case c{"pipelined", oa, ob, 45, 70, K};
        c.pad_a = 1, c.pad_c = 2, c.alpha = 0.5, c.beta = K == 8 ? 1.0 : 0.0;
        c.options.params = p;
        c.options.path = GemmPath::tiled;
        run_case<float>(dev, q, c);
      }
      Case c{"pipelined split", oa, ob, 33, 31, 400};
      c.options.params = p;
      c.options.path = GemmPath::split_k;
      c.options.splits = 3;
      run_case<float>(dev, q, c);
    }
    // The H100's tiles for mid-sized C (several runs of a slice per work-item), both operands
    // transposed, over two tiles each way, whole and split.
    duet::GemmTile h;
    h.bm = 64, h.bn = 128, h.bk = 16, h.tm = 8, h.tn = 8, h.wx = 16, h.pipeline = 1;
    if (duet::gemm_params_problem(h, 4, kTrans, dev.info()).empty()) {
      Case c{"h100 tiles", kTrans, kTrans, 70, 135, 50};
      c.pad_b = 3, c.off_a = 1, c.beta = -1.0;
      c.options.params = h;
      c.options.path = GemmPath::tiled;
      run_case<float>(dev, q, c);
      c.options.path = GemmPath::split_k;
      c.options.splits = 2;
      run_case<float>(dev, q, c);
    }
    // Other rasters of the groups (GROUP_ROWS): 1, 3 (bands that do not divide the 5 tile rows) and
    // 64 (one band), through the general kernel and duet::matmul's.
    for (const int rows : {1, 3, 64}) {
      INFO("GROUP_ROWS=", rows);
      duet::GemmTile r = p;
      r.group_rows = rows;
      Case c{"group rows", kNone, kNone, 150, 70, 37};
      c.options.params = r;
      c.options.path = GemmPath::tiled;
      run_case<float>(dev, q, c);
      // duet::matmul's kernel with the tiles the rule gives this device's C: with the 32 x 32 x 8
      // tiles of 4 x 4 above and GROUP_ROWS=1, PoCL 5.0 (Ubuntu 24.04) computed every product
      // wrong, in either loop; with its own CPU tiles it computes them right, as PoCL 3.1 and 6.0
      // do with both.
      if (dev.info().kind == duet::DeviceKind::cpu) {
        r = duet::gemm_tile_choice(dev.info(), 150, 70).params;
        r.group_rows = rows;
      }
      Case plain{"group rows, matmul", kNone, kNone, 150, 70, 37};
      plain.options.params = r;
      run_case<float>(dev, q, plain);
    }
  });
}

TEST_CASE("gemm: small and degenerate sizes") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    // 1x1x1 and thin shapes through every kernel the rule picks for them.
    const std::size_t shapes[][3] = {{1, 1, 1}, {1, 1, 7},   {2, 3, 1}, {1, 5, 3},
                                     {5, 1, 3}, {3, 2, 129}, {65, 1, 2}};
    for (const auto& s : shapes)
      for (Op oa : kOps) {
        Case c{"small", oa, kTrans, s[0], s[1], s[2]};
        c.alpha = 2.0, c.beta = 0.5, c.pad_a = 1;
        run_case<float>(dev, q, c);
      }
    // K == 0 and alpha == 0: C = beta C, A and B unread; with beta == 0, zeros over NaN.
    for (double beta : {0.0, -2.0}) {
      Case c{"k0", kNone, kNone, 9, 11, 0};
      c.beta = beta, c.pad_a = 1, c.pad_c = 3;
      run_case<float>(dev, q, c);
      Case z{"alpha0", kTrans, kNone, 9, 11, 6};
      z.alpha = 0.0, z.beta = beta, z.off_c = 1;
      run_case<float>(dev, q, z);
    }
    // M == 0, N == 0 and batch == 0: nothing is written.
    duet::Buffer<float> a(dev, 4), b(dev, 4), cb(dev, 4);
    q.fill(cb, kNaN);
    duet::gemm(q, kNone, kNone, 0, 2, 2, 1.0f, a, 2, b, 2, 0.0f, cb, 2);
    duet::gemm(q, kNone, kNone, 2, 0, 2, 1.0f, a, 2, b, 1, 0.0f, cb, 1);
    duet::gemm_strided_batched(q, kNone, kNone, 2, 2, 2, 1.0f, a, 2, 4, b, 2, 4, 0.0f, cb, 2, 4, 0);
    for (float x : q.to_vector(cb)) CHECK(std::isnan(x));
  });
}

TEST_CASE("gemm: split-K forced and chosen, repeatable bit for bit") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (Op oa : kOps) {
      Case c{"split", oa, oa == kTrans ? kNone : kTrans, 33, 18, 1001};
      c.pad_a = 2, c.pad_c = 1, c.off_c = 3, c.alpha = 0.5;
      c.options.path = GemmPath::split_k;
      c.options.splits = 3;
      run_case<float>(dev, q, c);
      c.options.splits = 0;  // the rule's count
      c.beta = 1.0;
      const std::vector<float> first = run_case<float>(dev, q, c);
      const std::vector<float> again = run_case<float>(dev, q, c);
      CHECK_MESSAGE(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)) == 0,
                    "a split-K product repeated differs");
    }
    // A shape the rule splits on a GPU (one tile, long K): whatever the device, the same answer.
    Case c{"auto split", kNone, kNone, 40, 24, 4100};
    c.beta = 0.5, c.pad_a = 3, c.pad_b = 1, c.pad_c = 1;
    run_case<float>(dev, q, c);
    duet::GemmProblem p;
    p.M = 40, p.N = 24, p.K = 4100;
    const duet::GemmPlan plan = duet::gemm_plan_for(dev, p);
    INFO(plan.reason);
    CHECK(plan.kernel ==
          (duet::uses_cpu_form(dev.info()) ? duet::GemmKernel::tiled_cpu : duet::GemmKernel::tiled));
    if (dev.info().kind == duet::DeviceKind::gpu) CHECK(plan.splits > 1);
  });
}

TEST_CASE("gemm_reduce: several work-items an output, every lane count, alpha and beta, a grid too small") {
  // The split's last step on its own: `lanes` work-items share an output (reduce_lanes() picks
  // them on GPUs; CPUs take 1, so the kernel is driven directly here on every device). Outputs
  // that do not fill the last group, a grid that must loop, beta == 0 over NaN.
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Kernel reduce =
        dev.compile(duet::builtin_kernel_source("gemm_reduce"),
                    duet::gemm_reduce_defines(duet::ScalarType::f32), "gemm_reduce.duet")
            .kernel("gemm_reduce");
    auto rng = make_rng("gemm_reduce lanes");
    for (const std::array<int, 4>& shape :
         std::vector<std::array<int, 4>>{{1, 1, 1, 1}, {7, 13, 2, 37}, {3, 101, 1, 256}, {64, 64, 1, 5}}) {
      // Not bindings: the doctest macros' lambdas capture them.
      const int rows = shape[0], cols = shape[1], batches = shape[2], splits = shape[3];
      const std::size_t outputs = std::size_t(rows) * cols * batches, ldc = cols + 3;
      const std::vector<float> parts = random_floats(rng, outputs * splits);
      const std::vector<float> old = random_floats(rng, batches * rows * ldc);
      duet::Buffer<float> P(dev, parts.size()), C(dev, old.size());
      q.write(P, duet::Span<const float>(parts.data(), parts.size()));
      for (int lanes = 1; lanes <= duet::kReduceMaxLanes; lanes *= 2)
        for (const float beta : {0.0f, -0.5f}) {
          INFO(rows << "x" << cols << " x" << batches << ", " << splits << " slices, " << lanes
                    << " lanes, beta " << beta);
          std::vector<float> c = old;
          if (beta == 0.0f)
            for (std::size_t i = 0; i < c.size(); i += ldc) c[i] = std::numeric_limits<float>::quiet_NaN();
          q.write(C, duet::Span<const float>(c.data(), c.size()));
          const std::size_t per = duet::kReduceGroupSize / lanes;
          const std::size_t groups = std::min<std::size_t>(3, (outputs + per - 1) / per);
          q.launch(reduce, duet::Range(groups * duet::kReduceGroupSize), duet::Range(duet::kReduceGroupSize),
                   P, splits, std::uint64_t(outputs), C, std::uint64_t(0), int(ldc),
                   std::uint64_t(rows * ldc), rows, cols, batches, 2.0f, beta, lanes);
          std::vector<float> got(c.size());
          q.read(C, duet::Span<float>(got.data(), got.size()));
          q.finish();
          int wrong = 0;
          for (int b = 0; b < batches; ++b)
            for (int r = 0; r < rows; ++r)
              for (std::size_t col = 0; col < ldc; ++col) {
                const std::size_t at = (std::size_t(b) * rows + r) * ldc + col;
                double want = c[at];  // the padding stays as written
                if (col < std::size_t(cols)) {
                  double sum = 0, size = 0;
                  for (int s = 0; s < splits; ++s) {
                    const double v =
                        parts[std::size_t(s) * outputs + (std::size_t(b) * rows + r) * cols + col];
                    sum += v, size += std::fabs(v);
                  }
                  const double kept = beta == 0.0f ? 0.0 : double(beta) * c[at];
                  want = 2.0 * sum + kept;
                  const double tolerance = 4.0 * splits * Elem<float>::u * (2.0 * size + std::fabs(kept));
                  if (!(std::fabs(got[at] - want) <= tolerance)) ++wrong;
                } else if (!(got[at] == c[at] || (std::isnan(got[at]) && std::isnan(c[at])))) {
                  ++wrong;
                }
              }
          CHECK(wrong == 0);
        }
    }
  });
}

TEST_CASE("gemm: matrix-vector products (M == 1, N == 1), every op, strided vectors, split and not") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (Op oa : kOps)
      for (Op ob : kOps) {
        // N == 1: y = op(A) x; M == 1: y = x op(B). Unaligned first, then aligned (float4 rows).
        for (bool aligned : {false, true}) {
          Case y{"gemv N=1", oa, ob, 77, 1, 3001};
          Case x{"gemv M=1", oa, ob, 1, 83, 2999};
          for (Case* c : {&y, &x}) {
            c->alpha = -0.5, c->beta = 0.75;
            c->pad_a = aligned ? (4 - (oa == kTrans ? c->M : c->K) % 4) % 4 : 2;
            c->pad_b = aligned ? (4 - (ob == kTrans ? c->K : c->N) % 4) % 4 : 1;
            c->pad_c = aligned ? 3 : 2;
            c->off_a = aligned ? 32 : 5;
            c->off_b = aligned ? 64 : 1;
            c->off_c = 2;
            run_case<float>(dev, q, *c);
          }
        }
      }
    // Forced: the gemv kernels with a chosen split, and beta == 0 over NaN; the tiled kernel on a
    // vector shape.
    Case c{"gemv forced", kNone, kNone, 1, 300, 700};
    c.options.path = GemmPath::gemv;
    c.options.splits = 5;
    run_case<float>(dev, q, c);
    c.op_b = kTrans;
    run_case<float>(dev, q, c);
    c.options = GemmOptions{};
    c.options.path = GemmPath::tiled;
    run_case<float>(dev, q, c);
    duet::GemmProblem p;
    p.M = 1, p.N = 4096, p.K = 4096;
    CHECK(duet::gemm_plan_for(dev, p).kernel == duet::GemmKernel::gemv_axpy);
    p.op_b = kTrans;
    CHECK(duet::gemm_plan_for(dev, p).kernel == duet::GemmKernel::gemv_dot);
  });
}

TEST_CASE("gemm_strided_batched: tiled, split-K, gemv, a broadcast operand, gaps between matrices") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    Case c{"batched", kTrans, kNone, 19, 23, 29};
    c.batch = 5, c.gap = 3, c.pad_a = 1, c.pad_b = 2, c.pad_c = 1, c.off_a = 2, c.off_c = 1;
    c.alpha = 1.25, c.beta = -1.0;
    run_case<float>(dev, q, c);
    c.broadcast_b = true, c.op_b = kTrans, c.beta = 0.0;
    run_case<float>(dev, q, c);
    Case s{"batched split", kNone, kNone, 17, 9, 600};
    s.batch = 3, s.gap = 1, s.beta = 0.5;
    s.options.path = GemmPath::split_k;
    s.options.splits = 4;
    run_case<float>(dev, q, s);
    Case v{"batched gemv", kNone, kTrans, 1, 130, 300};
    v.batch = 4, v.gap = 2, v.beta = 2.0;
    v.options.splits = 2;
    v.options.path = GemmPath::gemv;
    run_case<float>(dev, q, v);
    // Many small matrices in one call, aligned: 64 matrices of 20 x 20 x 20.
    Case m{"many", kNone, kNone, 20, 20, 20};
    m.batch = 64, m.gap = 1;
    run_case<float>(dev, q, m);
  });
}

TEST_CASE("gemm keeps no queue alive: split-K's workspace goes with the queue it belongs to") {
  for_each_device([&](const duet::Device& dev) {
    // A workspace holding its queue would hold the device too, from inside the device's own state:
    // neither would ever be freed (compute-sanitizer's leak check found the device memory).
    std::weak_ptr<const void> life;
    {
      duet::Queue q = dev.queue();
      life = q.lifetime();
      Case c{"split, then the queue dropped", kNone, kNone, 9, 7, 300};
      c.options.path = GemmPath::split_k;
      c.options.splits = 3;
      run_case<float>(dev, q, c);
      CHECK_FALSE(life.expired());
    }
    CHECK(life.expired());
  });
}

// Not run by default (doctest --no-skip -tc="gemm probe*"): where a wrong product's values came
// from. Exact small integers encode their position: with a one-hot second operand, each output
// should be one element of the first, and a wrong output names the element it got instead. Written
// for PoCL 5.0 (the GPU machine's CPU device), where op_b transpose with float4 loads gives wrong
// numbers that no other implementation gives.
TEST_CASE("gemm probe: which elements a product read (diagnostic)" * doctest::skip()) {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::GemmTile p;
    p.bm = 32, p.bn = 32, p.bk = 8, p.tm = 4, p.tn = 4, p.wx = 8, p.pipeline = 1;
    const std::size_t M = 45, N = 70, K = 8;
    for (int probe_b = 0; probe_b < 2; ++probe_b)
      for (int forced = 0; forced < 2; ++forced) {
        // probe_b == 0: A[m][k] = 16 m + k + 1, B one-hot (C[m][n] = A[m][n % K]); else the reverse.
        std::vector<float> A(M * K), Bt(N * K);  // B stored transposed: N x K
        for (std::size_t m = 0; m < M; ++m)
          for (std::size_t k = 0; k < K; ++k)
            A[m * K + k] = probe_b ? float(k == m % K) : float(16 * m + k + 1);
        for (std::size_t n = 0; n < N; ++n)
          for (std::size_t k = 0; k < K; ++k)
            Bt[n * K + k] = probe_b ? float(16 * n + k + 1) : float(k == n % K);
        duet::Buffer<float> dA(dev, A.size()), dB(dev, Bt.size()), dC(dev, M * N);
        q.write(dA, A);
        q.write(dB, Bt);
        q.fill(dC, kNaN);
        GemmOptions o;
        if (forced) o.params = p, o.path = GemmPath::tiled;
        duet::gemm(q, kNone, kTrans, M, N, K, 1.0f, dA, K, dB, K, 0.0f, dC, N, o);
        const std::vector<float> C = q.to_vector(dC);
        std::string report;
        std::size_t bad = 0;
        for (std::size_t m = 0; m < M; ++m)
          for (std::size_t n = 0; n < N; ++n) {
            const float want = probe_b ? float(16 * n + m % K + 1) : float(16 * m + n % K + 1);
            const float got = C[m * N + n];
            if (got == want) continue;
            if (++bad > 12) continue;
            report += "\n  C[" + std::to_string(m) + "][" + std::to_string(n) + "] = " + std::to_string(got);
            const float code = got - 1;
            if (got >= 1 && code == std::floor(code))
              report += std::string(" = ") + (probe_b ? "B[" : "A[") + std::to_string(int(code) / 16) + "][" +
                        std::to_string(int(code) % 16) + "]";
            report += ", want " + std::string(probe_b ? "B[" : "A[") + std::to_string(probe_b ? n : m) +
                      "][" + std::to_string(probe_b ? m % K : n % K) + "]";
          }
        const std::string what = std::string(probe_b ? " probing B" : " probing A") +
                                 (forced ? ", forced 32x32x8 pipelined" : ", the rule's choice");
        MESSAGE(dev.info().id() << what << ": " << bad << " of " << M * N << " outputs wrong" << report);
      }
  });
}

TEST_CASE("gemm: column-major products through the transpose identity") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    // Column-major C (M x N) = op(A) op(B) with A M x K, B K x N column-major (lda = M, ldb = K,
    // ldc = M): gemm(op_b, op_a, N, M, K, B, ldb, A, lda, C, ldc) reads them row-major.
    const std::size_t M = 13, N = 7, K = 11;
    auto rng = make_rng("gemm column-major");
    const std::vector<float> A = random_floats(rng, M * K), B = random_floats(rng, K * N);
    // C's columns are padded to M + 1 (ldc), which keeps the call off duet::matmul's kernel.
    const std::size_t ldc = M + 1;
    duet::Buffer<float> dA(dev, A.size()), dB(dev, B.size()), dC(dev, ldc * N);
    q.write(dA, A);
    q.write(dB, B);
    q.fill(dC, kNaN);
    duet::gemm(q, kNone, kNone, N, M, K, 1.0f, dB, K, dA, M, 0.0f, dC, ldc);
    const std::vector<float> C = q.to_vector(dC);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        double want = 0, scale = 0;
        for (std::size_t k = 0; k < K; ++k) {
          want += double(A[k * M + i]) * B[j * K + k];  // column-major A(i, k), B(k, j)
          scale += std::fabs(double(A[k * M + i]) * B[j * K + k]);
        }
        if (!(std::fabs(C[j * ldc + i] - want) <= 2.0 * (K + 3) * kUnitRoundoff * scale)) ++bad;
      }
    CHECK(bad == 0);
  });
}

TEST_CASE("gemm in double where the device has it, and with half storage") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    if (has_double(dev)) {
      for (Op o : kOps) {
        Case c{"double", o, o, 37, 70, 33};
        c.pad_a = 1, c.pad_c = 2, c.off_a = 1, c.off_b = 3, c.alpha = 0.3, c.beta = 0.7;
        run_case<double>(dev, q, c);
      }
      Case v{"double gemv", kNone, kNone, 61, 1, 900};
      v.beta = 0.0, v.pad_b = 2;
      run_case<double>(dev, q, v);
      Case b{"double batched split", kTrans, kTrans, 9, 11, 400};
      b.batch = 2, b.beta = -1.0;
      b.options.path = GemmPath::split_k;
      run_case<double>(dev, q, b);
    } else {
      MESSAGE(dev.info().id() << " has no double: the double cases are skipped there");
    }
    Case h{"half", kNone, kTrans, 33, 21, 40};
    h.pad_a = 1, h.off_c = 3, h.alpha = 0.5, h.beta = 0.25;
    run_case<duet::half>(dev, q, h);
    Case hv{"half gemv", kTrans, kNone, 50, 1, 70};
    hv.options.splits = 2;
    hv.options.path = GemmPath::gemv;
    run_case<duet::half>(dev, q, hv);
    Case hb{"half batched split", kNone, kTrans, 5, 6, 300};
    hb.batch = 2, hb.beta = 1.0;
    hb.options.path = GemmPath::split_k;
    run_case<duet::half>(dev, q, hb);
  });
}

TEST_CASE("gemm on the tensor kernel: every op, edges, aligned runs or not, alpha and beta, batches, views") {
  // GemmPath::tensor on every device: matrix instructions on CUDA sm_80 and later, the portable
  // form elsewhere (PoCL in CI). Sizes of 1, primes, K not a multiple of the slice, C past its last
  // whole tile; operands whose rows are whole 16-byte runs (cp.async) and ones that are not.
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const bool tc = duet::tensor_cores(dev.info());
    MESSAGE(dev.info().id() << ": the tensor kernel runs "
                            << std::string(tc ? "on tensor cores" : "its portable form"));
    GemmOptions tensor;
    tensor.path = GemmPath::tensor;
    for (Op a : kOps)
      for (Op b : kOps) {
        Case one{"tensor 1x1x1", a, b, 1, 1, 1};
        one.options = tensor;
        run_case<duet::half>(dev, q, one);
        Case prime{"tensor primes", a, b, 131, 17, 37};
        prime.options = tensor, prime.alpha = 0.5, prime.beta = 0.25, prime.pad_a = 1, prime.off_c = 3;
        run_case<duet::half>(dev, q, prime);
        Case runs{"tensor whole runs", a, b, 136, 72, 40};  // every ld a multiple of 8, K = 32 + 8
        runs.options = tensor, runs.beta = -1.0;
        run_case<duet::half>(dev, q, runs);
        Case views{"tensor whole runs in views", a, b, 64, 136, 96};
        views.options = tensor, views.pad_a = 8, views.pad_b = 16, views.off_a = 8, views.off_b = 24;
        views.pad_c = 1, views.off_c = 1;
        run_case<duet::half>(dev, q, views);
        Case into_float{"tensor half into float", a, b, 45, 130, 70};
        into_float.options = tensor, into_float.alpha = -1.5, into_float.beta = 0.5, into_float.off_b = 8;
        run_case<duet::half, float>(dev, q, into_float);
      }
    Case batched{"tensor batched", kNone, kTrans, 33, 40, 48};
    batched.options = tensor, batched.batch = 3, batched.gap = 8, batched.broadcast_b = true, batched.beta = 1.0;
    run_case<duet::half>(dev, q, batched);
    Case batched_float{"tensor batched into float", kTrans, kNone, 16, 24, 16};
    batched_float.batch = 2, batched_float.gap = 8;  // automatic: half into float is the tensor kernel's
    run_case<duet::half, float>(dev, q, batched_float);
    Case vector{"tensor half into float, N == 1", kNone, kNone, 70, 1, 33};
    run_case<duet::half, float>(dev, q, vector);
    Case scale{"half into float, K == 0", kNone, kNone, 5, 7, 0};
    scale.beta = 2.0, scale.pad_a = 1;
    run_case<duet::half, float>(dev, q, scale);
    // TF32: inputs rounded to 10-bit mantissas (each product within 2 2^-11 of the exact one).
    GemmOptions tf32 = tensor;
    tf32.allow_tf32 = true;
    for (Op a : kOps)
      for (Op b : kOps) {
        Case f{"tf32", a, b, 129, 67, 53};
        f.options = tf32, f.alpha = 0.75, f.beta = 0.5, f.input_u = 2.0 / 2048, f.pad_b = 3;
        run_case<float>(dev, q, f);
        Case fr{"tf32 whole runs", a, b, 132, 20, 36};
        fr.options = tf32, fr.input_u = 2.0 / 2048;
        run_case<float>(dev, q, fr);
      }
    // TF32 on the warpgroup kernel: whole tiles, by the rule (on sm_90) and forced (its portable form
    // elsewhere); operands stored MN-major (A transposed, B as stored) are copied K-major first. Its
    // instructions drop each input's low mantissa bits rather than round them: each product within
    // 2 2^-10 of the exact one.
    GemmOptions tf32_rule, tf32_wgmma;
    tf32_rule.allow_tf32 = tf32_wgmma.allow_tf32 = true;
    tf32_wgmma.path = GemmPath::wgmma;
    const bool wgmma = duet::wgmma_cores(dev.info());
    for (const GemmOptions& o : {tf32_rule, tf32_wgmma})
      for (Op a : kOps)
        for (Op b : kOps) {
          Case w{"tf32 wgmma tiles", a, b, 256, 384, 96};
          w.options = o, w.alpha = 0.75, w.beta = 0.5, w.input_u = 4.0 / 2048, w.pad_a = 4, w.off_b = 4;
          w.pad_c = 1;
          run_case<float>(dev, q, w);
          Case wb{"tf32 wgmma batched", a, b, 128, 128, 160};
          wb.options = o, wb.input_u = 4.0 / 2048, wb.batch = 3, wb.gap = 8, wb.beta = 0.25;
          wb.broadcast_b = b == kNone;  // a broadcast operand is copied once
          run_case<float>(dev, q, wb);
          if (wgmma && a == b) {
            Case wide{"tf32 wgmma wide tiles", a, b, 1536, 2816, 64};
            wide.options = o, wide.input_u = 4.0 / 2048, wide.beta = 1.0;
            run_case<float>(dev, q, wide);
          }
        }
    if (wgmma) {
      // The same through the tensor memory accelerator's copies, in blocks of one tile and in
      // persistent ones (K-major copies included: their maps are of the queue's workspace).
      for (const char* mode : {"0", "1", "2"}) {
        const EnvGuard tma("DUET_GEMM_WGMMA_TMA", mode);
        for (Op a : kOps)
          for (Op b : kOps) {
            Case w{"tf32 wgmma TMA tiles", a, b, 256, 384, 96};
            w.options = tf32_wgmma, w.alpha = 0.75, w.beta = 0.5, w.input_u = 4.0 / 2048, w.pad_a = 4, w.off_b = 4;
            run_case<float>(dev, q, w);
            Case wide{"tf32 wgmma TMA wide tiles, long K", a, b, 1536, 2816, 320};
            wide.options = tf32_wgmma, wide.input_u = 4.0 / 2048;
            if (a == b) run_case<float>(dev, q, wide);
          }
      }
    }
    {
      duet::GemmProblem t;
      t.type = duet::ScalarType::f32;
      t.M = t.N = 512, t.K = 256;
      t.runs_a = t.runs_b = true;
      const duet::GemmPlan nn = duet::gemm_plan_for(dev, t, tf32_rule);
      CHECK((nn.kernel == duet::GemmKernel::wgmma) == (wgmma && duet::wgmma_by_rule()));
      if (nn.kernel == duet::GemmKernel::wgmma) {
        CHECK(nn.kmajor_b);
        CHECK_FALSE(nn.kmajor_a);
        CHECK_CONTAINS(nn.reason, "B copied K-major first");
      }
    }
    // Automatic: where the device has tensor cores, half products take them (and the plan says so).
    duet::GemmProblem p;
    p.type = duet::ScalarType::f16;
    p.M = p.N = p.K = 256;
    const duet::GemmPlan plan = duet::gemm_plan_for(dev, p);
    CHECK((plan.kernel == duet::GemmKernel::tensor) == (tc || duet::intel_matrix_form(dev.info()) != 0));
    GemmOptions no_tf32;
    duet::GemmProblem f32 = p;
    f32.type = duet::ScalarType::f32;
    CHECK(duet::gemm_plan_for(dev, f32, no_tf32).kernel != duet::GemmKernel::tensor);
    Case automatic{"half automatic", kTrans, kTrans, 256, 200, 72};
    run_case<duet::half>(dev, q, automatic);
  });
}

TEST_CASE("gemm on the tensor kernel's Intel form: sub-groups of 8 and of 16 (DUET_GEMM_TC_INTEL)") {
  // The form for Intel's subgroup matrix multiply-accumulate on every OpenCL device: its built-ins
  // where the device has them at that sub-group size, elsewhere (PoCL in CI) the same packed
  // operands multiplied as the extension defines them. Every op pair at awkward sizes (1, primes,
  // K past the last whole slice, C past its last tile), both tile sizes, a view, a batch, and half
  // into a float C; the bfloat16 file runs its types.
  for_each_device([&](const duet::Device& dev) {
    if (dev.info().backend != "opencl") {
      MESSAGE(dev.info().id() << ": skipped, the Intel form is OpenCL C");
      return;
    }
    duet::Queue q = dev.queue();
    GemmOptions tensor;
    tensor.path = GemmPath::tensor;
    for (const char* size : {"8", "16"}) {
      const EnvGuard form("DUET_GEMM_TC_INTEL", size);
      duet::GemmProblem p;
      p.type = duet::ScalarType::f16;
      p.M = 33, p.N = 40, p.K = 48;
      const duet::GemmPlan plan = duet::gemm_plan_for(dev, p, tensor);
      CHECK(plan.tensor.intel == std::stoi(size));
      CHECK_CONTAINS(plan.reason, "Intel");
      // Each op pair reads the slices through its own layout; sizes of 1 and primes share a kernel
      // (each new kernel costs PoCL a compile of its own).
      for (Op a : kOps)
        for (Op b : kOps) {
          Case prime{"intel primes", a, b, 37, 19, 41};
          prime.options = tensor, prime.alpha = 0.5, prime.beta = 0.25, prime.pad_a = 1, prime.off_c = 3;
          run_case<duet::half>(dev, q, prime);
          Case one{"intel 1x1x1", a, b, 1, 1, 1};
          one.options = tensor, one.pad_a = 1;
          run_case<duet::half>(dev, q, one);
        }
      Case large{"intel large tiles, views, batched", kNone, kTrans, 131, 136, 40};  // 128 x 128, K = 32 + 8
      large.options = tensor, large.beta = -1.0, large.batch = 2, large.gap = 8, large.pad_a = 1,
      large.off_c = 1;
      run_case<duet::half>(dev, q, large);
      Case into_float{"intel half into float", kNone, kNone, 45, 30, 70};
      into_float.options = tensor, into_float.alpha = -1.5, into_float.beta = 0.5, into_float.pad_a = 1;
      run_case<duet::half, float>(dev, q, into_float);
    }
    {
      const EnvGuard off("DUET_GEMM_TC_INTEL", "0");
      duet::GemmProblem p;
      p.type = duet::ScalarType::f16;
      p.M = p.N = p.K = 256;
      CHECK(duet::gemm_plan_for(dev, p, tensor).tensor.intel == 0);
    }
    const EnvGuard bad("DUET_GEMM_TC_INTEL", "32");
    CHECK_THROWS_AS(duet::intel_matrix_form(dev.info()), duet::ArgumentError);
  });
}

TEST_CASE("gemm on the tensor kernel: other tiles and rings of stages (DUET_GEMM_TC_TILE)") {
  // A ring deeper than the slices (K = 40: 3 slices of 16 in 4 stages), long K through a ring of 5
  // with warps of 16 rows: the ring's waits, empty groups and reuse of stages, in whichever form
  // the device runs. Few variants: each is a compile of its own, slow on PoCL.
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    GemmOptions tensor;
    tensor.path = GemmPath::tensor;
    {
      EnvGuard env("DUET_GEMM_TC_TILE", "64x64x16:32x32:4");
      Case few{"tensor ring, few slices", kNone, kNone, 70, 45, 40};
      few.options = tensor, few.beta = 0.5;
      run_case<duet::half>(dev, q, few);
      GemmOptions tf32 = tensor;
      tf32.allow_tf32 = true;
      Case f{"tf32 ring", kNone, kNone, 65, 72, 150};
      f.options = tf32, f.input_u = 2.0 / 2048;
      run_case<float>(dev, q, f);
    }
    {
      EnvGuard env("DUET_GEMM_TC_TILE", "32x64x32:16x32:5");
      Case long_k{"tensor ring, long K", kTrans, kTrans, 37, 136, 333};
      long_k.options = tensor, long_k.pad_b = 8, long_k.off_b = 8;
      run_case<duet::half>(dev, q, long_k);
    }
    // Swizzled shared rows (unpadded, chunks permuted by row): rows of 2, 4 and 8 chunks, both
    // layouts of each operand, with the copies' edges and a ring past the slices.
    {
      EnvGuard env("DUET_GEMM_TC_TILE", "64x64x32:32x32:3:1");
      Case plain{"swizzled tiles", kNone, kNone, 131, 70, 97};
      plain.options = tensor, plain.beta = 0.5, plain.pad_a = 8;
      run_case<duet::half>(dev, q, plain);
    }
    {
      EnvGuard env("DUET_GEMM_TC_TILE", "32x64x16:16x32:4:1");
      Case turned{"swizzled tiles, both turned", kTrans, kTrans, 45, 133, 61};
      turned.options = tensor, turned.off_a = 8;
      run_case<duet::half>(dev, q, turned);
    }
  });
}

TEST_CASE("gemm: the tensor path refuses what it cannot take") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<float> A(dev, 64), B(dev, 64), C(dev, 64);
    duet::Buffer<duet::half> H(dev, 64);
    GemmOptions tensor;
    tensor.path = GemmPath::tensor;
    const auto e = EXPECT_ERROR(duet::ArgumentError,
                                duet::gemm(q, kNone, kNone, 8, 8, 8, 1.0f, A, 8, B, 8, 0.0f, C, 8, tensor));
    if (e) CHECK_CONTAINS(std::string(e->what()), "allow_tf32");
    GemmOptions gemv;
    gemv.path = GemmPath::gemv;
    EXPECT_ERROR(duet::ArgumentError, duet::gemm(q, kNone, kNone, 8, 1, 8, 1.0f, H, 8, H, 1, 0.0f, C, 1, gemv));
    // A too small, named, as for every other path.
    const auto small = EXPECT_ERROR(
        duet::BufferSizeError, duet::gemm(q, kNone, kNone, 9, 8, 8, 1.0f, H, 8, H, 8, 0.0f, C, 8, tensor));
    if (small) CHECK_CONTAINS(std::string(small->what()), "A holds");
  });
}

TEST_CASE("gemm: each error names its operand, before anything runs") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<float> a(dev, 12), b(dev, 20), c(dev, 15);
    q.fill(c, kNaN);
    // 3 x 4 times 4 x 5. Leading dimensions below the row width.
    auto e =
        EXPECT_ERROR(duet::ArgumentError, duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, 3, b, 5, 0.0f, c, 5));
    if (e) CHECK_CONTAINS(std::string(e->what()), "A: lda=3 is smaller than its row width 4");
    e = EXPECT_ERROR(duet::ArgumentError,
                     duet::gemm(q, kTrans, kNone, 3, 5, 4, 1.0f, a, 2, b, 5, 0.0f, c, 5));
    if (e) CHECK_CONTAINS(std::string(e->what()), "A: lda=2 is smaller than its row width 3");
    e = EXPECT_ERROR(duet::ArgumentError,
                     duet::gemm(q, kNone, kTrans, 3, 5, 4, 1.0f, a, 4, b, 3, 0.0f, c, 5));
    if (e) CHECK_CONTAINS(std::string(e->what()), "B: ldb=3 is smaller than its row width 4");
    e = EXPECT_ERROR(duet::ArgumentError, duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, 4, b, 5, 0.0f, c, 4));
    if (e) CHECK_CONTAINS(std::string(e->what()), "C: ldc=4 is smaller than its row width 5");
    // Buffers too small for the sizes and leading dimensions.
    auto s = EXPECT_ERROR(duet::BufferSizeError,
                          duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, 5, b, 5, 0.0f, c, 5));
    if (s) CHECK_CONTAINS(std::string(s->what()), "A holds 12 elements but the call needs 14");
    s = EXPECT_ERROR(duet::BufferSizeError,
                     duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, 4, b.view(1, 19), 5, 0.0f, c, 5));
    if (s) CHECK_CONTAINS(std::string(s->what()), "B holds 19 elements but the call needs 20");
    s = EXPECT_ERROR(duet::BufferSizeError,
                     duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, 4, b, 5, 0.0f, c, 6));
    if (s) CHECK_CONTAINS(std::string(s->what()), "C holds 15 elements but the call needs 17");
    s = EXPECT_ERROR(duet::BufferSizeError, duet::gemm_strided_batched(q, kNone, kNone, 3, 5, 4, 1.0f, a, 4,
                                                                       0, b, 5, 0, 0.0f, c, 5, 15, 2));
    if (s) CHECK_CONTAINS(std::string(s->what()), "C holds 15 elements but the call needs 30");
    // A batch whose outputs overlap.
    duet::Buffer<float> big(dev, 100);
    e = EXPECT_ERROR(duet::ArgumentError, duet::gemm_strided_batched(q, kNone, kNone, 3, 5, 4, 1.0f, a, 4, 0,
                                                                     b, 5, 0, 0.0f, big, 5, 14, 2));
    if (e) CHECK_CONTAINS(std::string(e->what()), "C: stride_c=14");
    // Extents that overflow, and sizes past the kernels' int range.
    const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
    e = EXPECT_ERROR(duet::ArgumentError,
                     duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, huge, b, 5, 0.0f, c, 5));
    if (e) CHECK_CONTAINS(std::string(e->what()), "A: the elements it spans");
    const std::size_t past_int = std::size_t{1} << 31;
    e = EXPECT_ERROR(duet::ArgumentError,
                     duet::gemm(q, kNone, kNone, 1, 5, 4, 1.0f, a, past_int, b, 5, 0.0f, c, 5));
    if (e) CHECK_CONTAINS(std::string(e->what()), "lda");
    // A path that cannot serve the shape; parameters the device cannot run.
    GemmOptions gemv;
    gemv.path = GemmPath::gemv;
    e = EXPECT_ERROR(duet::ArgumentError,
                     duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, 4, b, 5, 0.0f, c, 5, gemv));
    if (e) CHECK_CONTAINS(std::string(e->what()), "M == 1 or N == 1");
    GemmOptions bad_params;
    bad_params.params = duet::GemmTile{};
    bad_params.params->tm = 6;
    EXPECT_ERROR(duet::ArgumentError,
                 duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, 4, b, 5, 0.0f, c, 5, bad_params));
    GemmOptions too_many;
    too_many.splits = duet::kMaxSplits + 1;
    EXPECT_ERROR(duet::ArgumentError,
                 duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, 4, b, 5, 0.0f, c, 5, too_many));
    // A released operand.
    duet::Buffer<float> gone(dev, 20);
    gone.release();
    auto r = EXPECT_ERROR(duet::ReleasedError,
                          duet::gemm(q, kNone, kNone, 3, 5, 4, 1.0f, a, 4, gone, 5, 0.0f, c, 5));
    if (r) CHECK_CONTAINS(std::string(r->what()), "operand B of gemm");
    // Double on a device without it.
    if (!has_double(dev)) {
      duet::Buffer<double> d(dev, 4);
      EXPECT_ERROR(duet::ArgumentError, duet::gemm(q, kNone, kNone, 2, 2, 1, 1.0, d, 1, d, 2, 0.0, d, 2));
    }
    // Nothing ran: C is still poisoned.
    for (float x : q.to_vector(c)) CHECK(std::isnan(x));
  });
}

TEST_CASE("gemm refuses operands of another device") {
  const std::vector<duet::Device> devices = two_devices();
  if (devices.size() < 2) {
    MESSAGE("needs two devices (POCL_DEVICES=\"pthread pthread\"): skipped");
    return;
  }
  duet::Queue q0 = devices[0].queue();
  duet::Buffer<float> a0(devices[0], 4), b0(devices[0], 4), c1(devices[1], 4);
  const auto e = EXPECT_ERROR(duet::DeviceMismatchError,
                              duet::gemm(q0, kNone, kNone, 2, 2, 2, 1.0f, a0, 2, b0, 2, 0.0f, c1, 2));
  if (e) CHECK_CONTAINS(std::string(e->what()), "gemm: C is a buffer of");
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("gemm's kernels compile for sm_90 with every parameter set of the table") {
  // Each distinct float parameter set with (none, none) and float4 rows, and with (transpose,
  // transpose) and scalar rows (the other load paths, B swizzled); then double, half, the gemv
  // kernels and the reduction.
  const char* gemm = duet::builtin_kernel_source("gemm");
  const char* gemv = duet::builtin_kernel_source("gemv");
  const char* reduce = duet::builtin_kernel_source("gemm_reduce");
  REQUIRE(gemm != nullptr);
  REQUIRE(gemv != nullptr);
  REQUIRE(reduce != nullptr);
  auto compiles = [](const char* source, const duet::Defines& defines, const char* name,
                     const std::string& what) {
    INFO(what);
    try {
      CHECK(duet::compile_for_cuda_arch(source, defines, "sm_90", name) > 0);
    } catch (const duet::CompileError& error) {
      FAIL_CHECK("NVRTC rejected " << name << " (line " << error.line() << "):\n" << error.log());
    }
  };
  std::vector<duet::GemmTile> sets;
  for (const duet::TuningEntry& e : duet::tuning::builtin_entries())
    if (std::find(sets.begin(), sets.end(), e.params) == sets.end()) sets.push_back(e.params);
  sets.push_back(duet::tiny_params());
  for (const duet::GemmTile& p : sets) {
    compiles(gemm, duet::gemm_defines(p, duet::ScalarType::f32, kNone, kNone, true, true, true), "gemm.duet",
             duet::to_string(p) + " none/none float4");
    compiles(gemm, duet::gemm_defines(p, duet::ScalarType::f32, kTrans, kTrans, false, false, false),
             "gemm.duet", duet::to_string(p) + " transpose/transpose scalar");
  }
  duet::DeviceInfo gpu;
  gpu.kind = duet::DeviceKind::gpu;
  compiles(
      gemm,
      duet::gemm_defines(duet::double_params(gpu), duet::ScalarType::f64, kTrans, kNone, false, false, false),
      "gemm.duet", "double");
  compiles(gemm, duet::gemm_defines(sets.front(), duet::ScalarType::f16, kNone, kTrans, false, false, false),
           "gemm.duet", "half");
  for (duet::ScalarType t : {duet::ScalarType::f32, duet::ScalarType::f64, duet::ScalarType::f16}) {
    compiles(gemv, duet::gemv_defines(t, true, true), "gemv.duet", std::string("gemv ") + duet::to_string(t));
    compiles(reduce, duet::gemm_reduce_defines(t), "gemm_reduce.duet",
             std::string("reduce ") + duet::to_string(t));
  }
}

TEST_SUITE_END();
