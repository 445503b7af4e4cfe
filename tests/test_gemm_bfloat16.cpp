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
#include "gemm_cases.hpp"
#include "support.hpp"

namespace {

using duet::bfloat16;
using duet::GemmOptions;
using duet::GemmPath;
using duet::Op;

constexpr Op kNone = Op::none, kTrans = Op::transpose;
const Op kOps[2] = {kNone, kTrans};

using gemm_cases::Elem;
using Case = gemm_cases::GemmCase;

// The bound above: the float sums (Elem<bfloat16>::u is float's unit roundoff), then for a bfloat16
// C the one rounding of the float result, which may be off by `sums` already; the smallest normal
// float covers results that round into bfloat16's subnormals.
template <class TC>
double tolerance(const Case& c, double want, double scale) {
  const double sums = 2.0 * double(c.K + 3) * Elem<bfloat16>::u * scale;
  return sums + Elem<TC>::store_u * (std::fabs(want) + sums) + 1e-38;
}

// Runs the case with C of TC (bfloat16 or float) and checks every output and every element around C
// (gemm_cases.hpp).
template <class TC>
void run_case(const duet::Device& dev, duet::Queue& q, const Case& c) {
  gemm_cases::run_gemm_case<bfloat16, TC>(dev, q, c, "gemm bfloat16 ", tolerance<TC>);
}

GemmOptions forced_tensor() {
  GemmOptions o;
  o.path = GemmPath::tensor;
  return o;
}

// One whole 128 x 256 x 64 tile of the warpgroup kernel, alpha not 1.
Case one_tile_case(const char* label, Op oa, Op ob, const GemmOptions& options) {
  Case c{label, oa, ob, 128, 256, 64};
  c.options = options, c.alpha = 0.75;
  return c;
}

// Whole tiles read through padded, offset views, beta negative.
Case views_case(const char* label, Op oa, Op ob, const GemmOptions& options) {
  Case c{label, oa, ob, 384, 128, 192};
  c.options = options, c.pad_a = 8, c.pad_b = 16, c.off_a = 8, c.off_b = 24;
  c.pad_c = 3, c.off_c = 1, c.beta = -0.5;
  return c;
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

TEST_CASE("gemm bfloat16: the tensor kernel's Intel form, sub-groups of 8 and of 16 (DUET_GEMM_TC_INTEL)") {
  // Intel's bfloat16 built-in on OpenCL devices that have it at that size, its definition through
  // local memory elsewhere (PoCL in CI): every op pair at primes, into bfloat16 and into float.
  for_each_device([&](const duet::Device& dev) {
    if (dev.info().backend != "opencl") {
      MESSAGE(dev.info().id() << ": skipped, the Intel form is OpenCL C");
      return;
    }
    duet::Queue q = dev.queue();
    for (const char* size : {"8", "16"}) {
      const EnvGuard form("DUET_GEMM_TC_INTEL", size);
      // The half file runs every op pair; here the two where both operands keep one layout.
      for (Op op : kOps) {
        Case prime{"intel primes", op, op, 29, 23, 53};
        prime.options = forced_tensor(), prime.alpha = 0.5, prime.beta = 0.25, prime.pad_a = 1,
        prime.off_c = 3;
        run_case<bfloat16>(dev, q, prime);
        prime.beta = -1.0;
        run_case<float>(dev, q, prime);
      }
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

TEST_CASE("gemm bfloat16: whole tiles of the warpgroup kernel, by the rule and forced") {
  // Shapes gemm_wgmma.duet takes (M a multiple of 128, N of 128, K of 64, operands in whole 16-byte
  // runs): on CUDA sm_90 the forced path (GemmPath::wgmma) runs them on wgmma, and so does the rule
  // unless DUET_GEMM_WGMMA=0; elsewhere the rule takes its other kernels and the forced path the
  // kernel's portable form, so both sides are checked on every device. Each op pair, into bfloat16
  // and into float, views and batches.
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const bool wgmma = duet::wgmma_cores(dev.info());
    const bool rule_wgmma = wgmma && duet::wgmma_by_rule();
    MESSAGE(dev.info().id() << ": whole tiles run "
                            << std::string(wgmma ? "on wgmma" : "the other kernels (rule) and the portable form"));
    GemmOptions forced;
    forced.path = GemmPath::wgmma;
    for (const GemmOptions& o : {GemmOptions{}, forced})
      for (Op oa : kOps)
        for (Op ob : kOps) {
          run_case<bfloat16>(dev, q, one_tile_case("wgmma one tile", oa, ob, o));
          run_case<float>(dev, q, one_tile_case("wgmma one tile", oa, ob, o));
          run_case<bfloat16>(dev, q, views_case("wgmma views", oa, ob, o));
          run_case<float>(dev, q, views_case("wgmma views", oa, ob, o));
          Case batched{"wgmma batched", oa, ob, 256, 384, 128};
          batched.options = o, batched.batch = 3, batched.gap = 8, batched.beta = 0.25, batched.off_c = 2;
          run_case<bfloat16>(dev, q, batched);
          run_case<float>(dev, q, batched);
          Case broadcast{"wgmma batched, B broadcast", oa, ob, 128, 128, 320};
          broadcast.options = o, broadcast.batch = 2, broadcast.broadcast_b = true;
          run_case<bfloat16>(dev, q, broadcast);
          if (wgmma) {
            // Enough tiles for the wide ones (128 x 256) on an H100's 132 units.
            Case wide{"wgmma wide tiles", oa, ob, 1536, 2816, 64};
            wide.options = o, wide.beta = 1.0;
            run_case<bfloat16>(dev, q, wide);
          }
        }
    if (wgmma) {
      // The tensor memory accelerator's copies (DUET_GEMM_WGMMA_TMA=1, and 2: persistent blocks),
      // the same shapes and more: batches whose strides are whole rows (one tall map each), a
      // broadcast B, K long enough that the stages are refilled several times, and more tiles
      // than compute units (persistent blocks take several, the stages' count going on across
      // them). A wrong barrier wait hangs the kernel: the test then stops at the launch, or fails
      // with a KernelFaultError under DUET_KERNEL_TIMEOUT. A batch stride that is not whole rows
      // (gap 8) runs the cp.async form instead.
      for (const char* mode : {"0", "1", "2"}) {
        const EnvGuard tma("DUET_GEMM_WGMMA_TMA", mode);
        MESSAGE("DUET_GEMM_WGMMA_TMA=" << std::string(mode));
        for (Op oa : kOps)
          for (Op ob : kOps) {
            run_case<bfloat16>(dev, q, one_tile_case("wgmma TMA one tile", oa, ob, forced));
            run_case<float>(dev, q, one_tile_case("wgmma TMA one tile", oa, ob, forced));
            run_case<bfloat16>(dev, q, views_case("wgmma TMA views", oa, ob, forced));
            Case rows{"wgmma TMA batched, strides of whole rows", oa, ob, 256, 384, 128};
            rows.options = forced, rows.batch = 3, rows.beta = 0.25;
            rows.pad_a = 512 - (oa == kNone ? 128 : 256), rows.pad_b = 512 - (ob == kNone ? 384 : 128);
            rows.pad_c = 128, rows.gap = 512;  // one row of A's and B's
            run_case<bfloat16>(dev, q, rows);
            Case gaps{"wgmma TMA batched, gaps (cp.async)", oa, ob, 256, 384, 128};
            gaps.options = forced, gaps.batch = 3, gaps.gap = 8;
            run_case<bfloat16>(dev, q, gaps);
            Case broadcast{"wgmma TMA batched, B broadcast", oa, ob, 128, 128, 320};
            broadcast.options = forced, broadcast.batch = 2, broadcast.broadcast_b = true;
            run_case<bfloat16>(dev, q, broadcast);
            Case long_k{"wgmma TMA long K (narrow tiles, 6 stages)", oa, ob, 256, 256, 1024};
            long_k.options = forced, long_k.beta = 1.0;
            run_case<bfloat16>(dev, q, long_k);
            if (oa == ob) {
              Case wide{"wgmma TMA wide tiles, long K (4 stages)", oa, ob, 1536, 2816, 384};
              wide.options = forced;
              run_case<bfloat16>(dev, q, wide);
              Case many{"wgmma TMA more wide tiles than compute units", oa, ob, 2048, 2304, 192};
              many.options = forced, many.beta = 0.5;
              run_case<bfloat16>(dev, q, many);
            }
          }
        const std::string five_stages = std::string("128:5:8:0:1:0:") + mode;
        const EnvGuard five("DUET_GEMM_WGMMA_TILE", five_stages.c_str());
        Case ring{"wgmma TMA, 5 stages", kTrans, kNone, 256, 256, 704};
        ring.options = forced;
        run_case<bfloat16>(dev, q, ring);
      }
    }
    // What the rule reports; shapes past whole tiles go to the tensor kernel, and the forced path
    // refuses them.
    duet::GemmProblem p;
    p.type = duet::ScalarType::bf16;
    p.M = p.N = p.K = 4096;
    p.runs_a = p.runs_b = true;
    const duet::GemmPlan plan = duet::gemm_plan_for(dev, p);
    CHECK((plan.kernel == duet::GemmKernel::wgmma) == rule_wgmma);
    if (rule_wgmma) CHECK_CONTAINS(plan.reason, "wgmma");
    p.K = 4100;
    CHECK(duet::gemm_plan_for(dev, p).kernel != duet::GemmKernel::wgmma);
    duet::Buffer<bfloat16> H(dev, 130 * 130);
    const auto e = EXPECT_ERROR(duet::ArgumentError,
                                duet::gemm(q, kNone, kNone, 130, 128, 64, 1.0f, H, 64, H, 128, 0.0f, H, 128, forced));
    if (e) CHECK_CONTAINS(std::string(e->what()), "whole tiles");
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
  const EnvGuard mma_sync("DUET_GEMM_WGMMA", "0");  // whole tiles on sm_90 would go to wgmma
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
  p.M = p.N = p.K = 4096;  // 512 large tiles for 132 units
  const duet::GemmPlan tc = duet::plan_gemm(gpu, classes, p);
  CHECK(tc.kernel == duet::GemmKernel::tensor);
  CHECK_CONTAINS(tc.reason, "bfloat16 on tensor cores");
  CHECK(tc.tensor == duet::tensor_tile(duet::ScalarType::f16, gpu));  // the same tiles as half
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

TEST_CASE("gemm bfloat16: the warpgroup kernel's plan, tiles and defines, with no device") {
  const EnvGuard by_rule("DUET_GEMM_WGMMA", "1"), no_copies("DUET_GEMM_WGMMA_KMAJOR", "0");
  duet::DeviceInfo h100;
  h100.backend = "cuda", h100.name = "an sm_90 GPU", h100.vendor = "NVIDIA", h100.arch = "sm_90";
  h100.kind = duet::DeviceKind::gpu, h100.compute_units = 132, h100.max_group_size = 1024;
  h100.local_memory_bytes = 48 * 1024, h100.arch_specific_target = "sm_90a";
  duet::DeviceInfo a100 = h100, cl = h100;
  a100.arch = "sm_80", a100.arch_specific_target = "";
  cl.backend = "opencl", cl.arch_specific_target = "";  // NVIDIA's OpenCL without NVRTC
  const std::vector<duet::GemmSizeClass> classes = duet::gemm_size_classes(h100);
  auto plan = [&](const duet::DeviceInfo& d, const duet::GemmProblem& p, duet::GemmOptions o = {}) {
    return duet::plan_gemm(d, classes, p, o);
  };

  duet::GemmProblem p;
  p.type = duet::ScalarType::bf16;
  p.M = p.N = p.K = 8192;
  p.runs_a = p.runs_b = true;
  CHECK(duet::wgmma_problem(p).empty());
  const duet::GemmPlan w = plan(h100, p);
  CHECK(w.kernel == duet::GemmKernel::wgmma);
  CHECK_CONTAINS(w.reason, "wgmma");
  CHECK(w.wgmma.bn == 256);
  CHECK(w.wgmma.stages == 4);
  CHECK(w.splits == 1);
  CHECK(duet::wgmma_shared_bytes(w.wgmma) <= 227 * 1024);  // an H100's opt-in shared memory per block
  duet::WgmmaTile narrow;
  narrow.bn = 128, narrow.stages = 6, narrow.tma = 1;
  CHECK(duet::wgmma_shared_bytes(narrow) <= 227 * 1024);
  // Every op pair, half too, and into float.
  for (duet::Op a : {duet::Op::none, duet::Op::transpose})
    for (duet::Op b : {duet::Op::none, duet::Op::transpose}) {
      duet::GemmProblem o = p;
      o.op_a = a, o.op_b = b, o.type = duet::ScalarType::f16, o.c_type = duet::ScalarType::f32;
      CHECK(plan(h100, o).kernel == duet::GemmKernel::wgmma);
    }
  // Few wide tiles, or N not a multiple of 256: the narrow ones.
  duet::GemmProblem small = p;
  small.M = small.N = 1024;
  CHECK(plan(h100, small).wgmma == narrow);
  duet::GemmProblem n384 = p;
  n384.N = 384;
  CHECK(plan(h100, n384).wgmma.bn == 128);
  // Past whole tiles, unaligned rows, float, other architectures and backends: not wgmma.
  for (auto change : std::vector<void (*)(duet::GemmProblem&)>{
           [](duet::GemmProblem& q) { q.M = 8191; }, [](duet::GemmProblem& q) { q.N = 8200; },
           [](duet::GemmProblem& q) { q.K = 8192 + 32; }, [](duet::GemmProblem& q) { q.runs_b = false; },
           [](duet::GemmProblem& q) { q.type = duet::ScalarType::f32; }}) {
    duet::GemmProblem q = p;
    change(q);
    CHECK_FALSE(duet::wgmma_problem(q).empty());
    CHECK(plan(h100, q).kernel != duet::GemmKernel::wgmma);
  }
  CHECK(plan(a100, p).kernel == duet::GemmKernel::tensor);
  CHECK(plan(cl, p).kernel != duet::GemmKernel::wgmma);
  // Forced: any device (the portable form elsewhere), whole tiles only; forced tiles or the tensor
  // path keep their kernels.
  duet::GemmOptions forced;
  forced.path = duet::GemmPath::wgmma;
  CHECK(plan(cl, p, forced).kernel == duet::GemmKernel::wgmma);
  CHECK_CONTAINS(plan(cl, p, forced).reason, "portable form");
  duet::GemmProblem edge = p;
  edge.K = 100;
  CHECK_THROWS_AS(plan(h100, edge, forced), duet::ArgumentError);
  duet::GemmOptions tensor;
  tensor.path = duet::GemmPath::tensor;
  CHECK(plan(h100, p, tensor).kernel == duet::GemmKernel::tensor);
  CHECK(std::string(duet::to_string(duet::GemmKernel::wgmma)) == "wgmma");
  CHECK(std::string(duet::to_string(duet::GemmPath::wgmma)) == "wgmma");
  {
    const EnvGuard off("DUET_GEMM_WGMMA", "0");
    CHECK(plan(h100, p).kernel == duet::GemmKernel::tensor);
  }
  {
    // The tiles from the environment, for every problem whose N they divide.
    const EnvGuard tile("DUET_GEMM_WGMMA_TILE", "128:4:16:1");
    const duet::WgmmaTile t = plan(h100, p).wgmma;
    CHECK(t.bn == 128);
    CHECK(t.stages == 4);
    CHECK(t.group_rows == 16);
    CHECK(t.mma_first);
    CHECK(t.blocks_per_sm == 1);
    const duet::Defines d0 = duet::gemm_kernel_source(p, plan(h100, p)).defines;
    CHECK(std::find(d0.begin(), d0.end(), duet::Defines::value_type{"MMA_FIRST", "1"}) != d0.end());
  }
  {
    // TMA copies by default; off where asked (the environment, the tile string's seventh field) and
    // where the tiles ask for what excludes them (two blocks, WS 1).
    const EnvGuard no_tile("DUET_GEMM_WGMMA_TILE", ""), no_tma("DUET_GEMM_WGMMA_TMA", nullptr);
    CHECK(duet::wgmma_tma_by_rule() == 1);
    CHECK(plan(h100, p).wgmma.tma == 1);
    {
      const EnvGuard off("DUET_GEMM_WGMMA_TMA", "0");
      CHECK(plan(h100, p).wgmma.tma == 0);
      CHECK(plan(h100, p).wgmma.threads() == 256);
    }
    {
      const EnvGuard tile("DUET_GEMM_WGMMA_TILE", "256:4:8:0:1:0:0");
      CHECK(plan(h100, p).wgmma.tma == 0);
    }
    {
      const EnvGuard tile("DUET_GEMM_WGMMA_TILE", "256:4");
      CHECK(plan(h100, p).wgmma.tma == 1);
    }
  }
  {
    const EnvGuard tile("DUET_GEMM_WGMMA_TILE", "128:3:8:0:2");
    CHECK(plan(h100, p).wgmma.blocks_per_sm == 2);
    CHECK(plan(h100, p).wgmma.tma == 0);
  }
  {
    const EnvGuard tile("DUET_GEMM_WGMMA_TILE", "256:4:8:0:1:1");
    CHECK(plan(h100, p).wgmma.ws);
    CHECK(plan(h100, p).wgmma.tma == 0);
    CHECK(plan(h100, p).wgmma.threads() == 384);
  }
  {
    // The tensor memory accelerator's copies: from the tiles' seventh field or DUET_GEMM_WGMMA_TMA=1,
    // on CUDA sm_90 only (the portable form elsewhere is the same whatever they say).
    const EnvGuard tile("DUET_GEMM_WGMMA_TILE", "128:5:8:0:1:0:1");
    CHECK(plan(h100, p).wgmma.tma == 1);
    CHECK(plan(h100, p).wgmma.stages == 5);
    CHECK(plan(h100, p).wgmma.threads() == 384);
    CHECK_CONTAINS(plan(h100, p).reason, "TMA");
    const duet::Defines d0 = duet::gemm_kernel_source(p, plan(h100, p)).defines;
    CHECK(std::find(d0.begin(), d0.end(), duet::Defines::value_type{"TMA", "1"}) != d0.end());
    duet::GemmOptions forced;
    forced.path = duet::GemmPath::wgmma;
    CHECK(plan(cl, p, forced).wgmma.tma == 0);
  }
  {
    const EnvGuard no_tile("DUET_GEMM_WGMMA_TILE", ""), tma("DUET_GEMM_WGMMA_TMA", "1");
    CHECK(duet::wgmma_tma_by_rule() == 1);
    CHECK(plan(h100, p).wgmma.tma == 1);
    CHECK(plan(h100, p).wgmma.bn == 256);
    CHECK(plan(h100, small).wgmma.tma == 1);
    duet::GemmOptions forced;
    forced.path = duet::GemmPath::wgmma;
    CHECK(plan(cl, p, forced).wgmma.tma == 0);
    CHECK(plan(cl, p, forced).wgmma.threads() == 256);
  }
  {
    // Persistent blocks: DUET_GEMM_WGMMA_TMA=2, or the seventh field 2.
    const EnvGuard no_tile("DUET_GEMM_WGMMA_TILE", ""), tma("DUET_GEMM_WGMMA_TMA", "2");
    CHECK(plan(h100, p).wgmma.tma == 2);
    CHECK_CONTAINS(plan(h100, p).reason, "persistent");
    const duet::Defines d2 = duet::gemm_kernel_source(p, plan(h100, p)).defines;
    CHECK(std::find(d2.begin(), d2.end(), duet::Defines::value_type{"TMA", "2"}) != d2.end());
    const EnvGuard tile("DUET_GEMM_WGMMA_TILE", "256:4:8:0:1:0:2");
    CHECK(plan(h100, p).wgmma.tma == 2);
  }
  {
    const EnvGuard tile("DUET_GEMM_WGMMA_TILE", "256:3");
    CHECK(plan(h100, p).wgmma.stages == 3);
    CHECK(plan(h100, n384).wgmma.bn == 128);  // 256 does not divide N: the rule's tiles
  }
  {
    // Float as TF32: only where allowed, A as stored and B transposed, K in slices of 32.
    duet::GemmProblem f = p;
    f.type = duet::ScalarType::f32, f.op_b = duet::Op::transpose, f.K = 8192 + 32;
    duet::GemmOptions tf32;
    tf32.allow_tf32 = true;
    CHECK_FALSE(duet::wgmma_problem(f).empty());
    CHECK(duet::wgmma_problem(f, true).empty());
    const duet::GemmPlan t = plan(h100, f, tf32);
    CHECK(t.kernel == duet::GemmKernel::wgmma);
    CHECK(t.tf32);
    CHECK_CONTAINS(t.reason, "128x256x32");
    CHECK_CONTAINS(t.reason, "TF32");
    CHECK_FALSE(t.kmajor_a);
    CHECK_FALSE(t.kmajor_b);
    CHECK(plan(h100, f).kernel != duet::GemmKernel::wgmma);  // TF32 not allowed
    // Stored MN-major: copied K-major first (the instructions read TF32 K-major only), while the
    // copies fit.
    f.op_a = duet::Op::transpose, f.op_b = duet::Op::none;
    CHECK_CONTAINS(duet::wgmma_problem(f, true), "K-major");
    const duet::GemmPlan copied = plan(h100, f, tf32);
    CHECK(copied.kernel == duet::GemmKernel::wgmma);
    CHECK(copied.kmajor_a);
    CHECK(copied.kmajor_b);
    CHECK_CONTAINS(copied.reason, "A and B copied K-major first");
    const duet::Defines cd = duet::gemm_kernel_source(f, copied).defines;
    CHECK(std::find(cd.begin(), cd.end(), duet::Defines::value_type{"OP_A", "0"}) != cd.end());
    CHECK(std::find(cd.begin(), cd.end(), duet::Defines::value_type{"OP_B", "1"}) != cd.end());
    duet::GemmProblem huge = f;
    huge.batch = 8;  // 8 x 2 x 8192 x 8224 floats to copy: past kWgmmaCopyLimit
    CHECK(plan(h100, huge, tf32).kernel == duet::GemmKernel::tensor);
    f.op_a = duet::Op::none, f.op_b = duet::Op::transpose, f.K = 8192 + 16;
    CHECK_CONTAINS(duet::wgmma_problem(f, true), "K of 32");
    // 16-bit operands are copied only where DUET_GEMM_WGMMA_KMAJOR=1 asks.
    duet::GemmProblem h = p;
    h.op_b = duet::Op::none;
    CHECK_FALSE(plan(h100, h).kmajor_b);
    const EnvGuard kmajor("DUET_GEMM_WGMMA_KMAJOR", "1");
    CHECK(duet::wgmma_kmajor_by_rule());
    CHECK(plan(h100, h).kmajor_b);
    CHECK_FALSE(plan(h100, h).kmajor_a);
  }
  for (const char* bad : {"256", "192:4", "256:2", "256:8", "256:4:0", "256:4:8:2", "x:4",
                          "256:4q", "256:3:8:0:2", "128:4:8:0:2", "128:3:8:0:3", "128:3:8:0:0", "128:3:8:0:2:1",
                          "256:4:8:0:1:2", "256:4:8:0:1:1:1", "128:3:8:0:2:0:1",
                          "256:4:8:0:1:0:1:0", "256:5:8:0:1:0:1", "256:4:8:0:1:0:3"}) {
    const EnvGuard tile("DUET_GEMM_WGMMA_TILE", bad);
    CHECK_THROWS_WITH_AS(plan(h100, p), doctest::Contains("DUET_GEMM_WGMMA_TILE"), duet::ArgumentError);
  }

  const duet::GemmKernelSource s = duet::gemm_kernel_source(p, w);
  CHECK(s.file == "gemm_wgmma");
  CHECK(s.name == "gemm_wgmma");
  const duet::Defines d = duet::gemm_wgmma_defines(narrow, duet::ScalarType::f16, duet::ScalarType::f32,
                                                   duet::Op::transpose, duet::Op::none);
  const duet::Defines want = {{"T", "half"},        {"TO", "float"},     {"T_IS_BF16", "0"},
                              {"T_IS_FLOAT", "0"}, {"BN", "128"},       {"STAGES", "6"},
                              {"GROUP_ROWS", "8"}, {"MMA_FIRST", "0"},  {"BLOCKS_PER_SM", "1"},
                              {"WS", "0"},         {"TMA", "1"},        {"OP_A", "1"},
                              {"OP_B", "0"}};
  CHECK(d == want);
  CHECK_THROWS_AS(duet::gemm_wgmma_defines(narrow, duet::ScalarType::f32, duet::ScalarType::unknown,
                                           duet::Op::none, duet::Op::none),
                  duet::ArgumentError);
}

TEST_SUITE_END();
