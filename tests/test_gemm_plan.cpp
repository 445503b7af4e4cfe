// The gemm selection rule (duet/gemm_plan.hpp) without a device: made-up devices (an H100 on both
// backends, a 16-core CPU, a small GPU) and the built-in tuning table's size classes, and what the
// rule picks for the GEMM suite's shapes (bench/gemm/suite.txt): the kernel, the tiles, the split of
// K, the workspace, the vector flags.
#include <doctest/doctest.h>

#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <string>
#include <vector>

#include "support.hpp"

namespace {

using duet::GemmKernel;
using duet::GemmOptions;
using duet::GemmPath;
using duet::GemmPlan;
using duet::GemmProblem;
using duet::Op;

duet::DeviceInfo device(const std::string& backend, const std::string& name, duet::DeviceKind kind,
                        unsigned units) {
  duet::DeviceInfo info;
  info.backend = backend;
  info.name = name;
  info.vendor = kind == duet::DeviceKind::gpu ? "NVIDIA" : "GenuineIntel";
  info.arch = kind == duet::DeviceKind::gpu ? "sm_90" : "";
  info.kind = kind;
  info.compute_units = units;
  info.max_group_size = kind == duet::DeviceKind::gpu ? 1024 : 4096;
  info.local_memory_bytes = kind == duet::DeviceKind::gpu ? 48 * 1024 : 512 * 1024;
  info.supports_double = true;
  // CUDA's compiler gives every sm_90 device sm_90a; NVIDIA's OpenCL gets it only through NVRTC.
  if (backend == "cuda" && kind == duet::DeviceKind::gpu) info.arch_specific_target = "sm_90a";
  return info;
}

const duet::DeviceInfo kH100 = device("cuda", "NVIDIA H100 80GB HBM3", duet::DeviceKind::gpu, 132);
const duet::DeviceInfo kH100cl = device("opencl", "NVIDIA H100 80GB HBM3", duet::DeviceKind::gpu, 132);
const duet::DeviceInfo kCpu = device("opencl", "pthread-cpu", duet::DeviceKind::cpu, 16);
// NVIDIA's OpenCL with the tensor kernel off (DUET_OPENCL_PTX=0 does the same): half on the SIMT
// kernels.
const duet::DeviceInfo kH100clSimt = [] {
  duet::DeviceInfo d = kH100cl;
  d.arch = "sm_75";
  return d;
}();

duet::DeviceInfo pocl5(unsigned cores) {
  duet::DeviceInfo info = device("opencl", "cpu-haswell", duet::DeviceKind::cpu, cores);
  info.vendor = "Portable Computing Language";
  info.driver = "5.0";
  return info;
}

// A problem whose operands all start 16-byte aligned.
GemmProblem aligned(GemmProblem p) {
  p.aligned_a = p.aligned_b = p.aligned_c = true;
  return p;
}

GemmProblem problem(std::size_t M, std::size_t N, std::size_t K, Op op_a = Op::none, Op op_b = Op::none,
                    std::size_t batch = 1) {
  GemmProblem p;
  p.M = M, p.N = N, p.K = K, p.op_a = op_a, p.op_b = op_b, p.batch = batch;
  return p;
}

GemmPlan plan(const duet::DeviceInfo& info, const GemmProblem& p, const GemmOptions& options = {}) {
  EnvGuard no_file("DUET_TUNING_FILE", "");
  const GemmPlan result = duet::plan_gemm(info, duet::gemm_size_classes(info), p, options);
  // Every plan covers K with its slices, in whole BK steps when split.
  const bool tiled = result.kernel == GemmKernel::tiled || result.kernel == GemmKernel::tiled_cpu;
  if (tiled || result.kernel == GemmKernel::matmul || result.kernel == GemmKernel::gemv_dot ||
      result.kernel == GemmKernel::gemv_axpy) {
    CHECK(result.splits >= 1);
    CHECK(result.k_chunk * static_cast<std::size_t>(result.splits) >= p.K);
    CHECK(result.k_chunk * static_cast<std::size_t>(result.splits - 1) < p.K);
    if (result.splits > 1 && tiled)
      CHECK(result.k_chunk % static_cast<std::size_t>(result.params.bk) == 0);
    CHECK(result.workspace_elements ==
          (result.splits > 1
               ? result.splits * p.batch *
                     (result.kernel == GemmKernel::gemv_dot || result.kernel == GemmKernel::gemv_axpy
                          ? (p.N == 1 ? p.M : p.N)
                          : p.M * p.N)
               : 0));
  }
  return result;
}

// The value of a define in a kernel's defines; empty when it has none.
std::string define_value(const duet::Defines& d, const std::string& name) {
  for (const auto& kv : d)
    if (kv.first == name) return kv.second;
  return {};
}

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("gemm plan: empty products, K == 0 and alpha == 0") {
  CHECK(plan(kH100, problem(0, 5, 5)).kernel == GemmKernel::none);
  CHECK(plan(kH100, problem(5, 0, 5)).kernel == GemmKernel::none);
  CHECK(plan(kH100, problem(5, 5, 5, Op::none, Op::none, 0)).kernel == GemmKernel::none);
  CHECK(plan(kH100, problem(5, 5, 0)).kernel == GemmKernel::scale);
  GemmProblem p = problem(5, 5, 5);
  p.alpha_zero = true;
  CHECK(plan(kH100, p).kernel == GemmKernel::scale);
  CHECK(plan(kCpu, p).kernel == GemmKernel::scale);
}

TEST_CASE("gemm plan: big squares take the table's tiles, plain ones duet::matmul's kernel") {
  GemmProblem p = problem(4096, 4096, 4096);
  p.plain = true;
  GemmPlan cuda = plan(kH100, p);
  CHECK(cuda.kernel == GemmKernel::matmul);
  CHECK(cuda.splits == 1);
  CHECK(cuda.params.bm == 128);
  CHECK(cuda.params.bn == 256);
  CHECK(cuda.params.tn == 16);  // the CUDA entry
  CHECK_CONTAINS(cuda.source, "backend=cuda");
  CHECK(plan(kH100cl, p).params.tm == 16);  // the OpenCL entry
  // Any op, alpha, beta or padding: the general kernel with the same tiles, unpipelined.
  for (Op a : {Op::none, Op::transpose})
    for (Op b : {Op::none, Op::transpose}) {
      const GemmPlan t = plan(kH100, problem(4096, 4096, 4096, a, b));
      CHECK(t.kernel == GemmKernel::tiled);
      duet::GemmTile unpipelined = cuda.params;
      unpipelined.pipeline = 0;
      CHECK(t.params == unpipelined);
      CHECK(t.splits == 1);
    }
  // A small C takes the small tiles of its size class where they fill the GPU (512^3 and under).
  CHECK(plan(kH100, problem(512, 512, 512)).params.bn == 128);
  // A forced tiled path never takes matmul's kernel.
  GemmOptions tiled;
  tiled.path = GemmPath::tiled;
  CHECK(plan(kH100, p, tiled).kernel == GemmKernel::tiled);
}

TEST_CASE("gemm plan: few tiles over a long K split K") {
  // 64 x 64 x 65536: one tile, 512 tiles' worth of K.
  const GemmPlan small = plan(kH100, problem(64, 64, 65536));
  INFO(small.reason);
  CHECK(small.kernel == GemmKernel::tiled);
  CHECK(small.splits >= 64);
  CHECK(small.k_chunk >= duet::kSplitMinChunkGpu);
  CHECK(small.workspace_elements * 4 <= duet::kMaxWorkspaceBytes);
  // Plain arguments do not keep it on matmul's kernel: the split wins.
  GemmProblem plain = problem(64, 64, 65536);
  plain.plain = true;
  CHECK(plan(kH100, plain).kernel == GemmKernel::tiled);
  // 192 tiles of 128 x 256 for 132 units (1.45 waves): two slices make 2.9 waves.
  CHECK(plan(kH100, problem(2000, 3000, 5000)).splits == 2);
  // 128 tiles of 128 work-items, one per unit: more slices for occupancy where K is long
  // (128 x 8192 x 8192 and its transpose).
  CHECK(plan(kH100, problem(128, 8192, 8192)).splits >= 2);
  CHECK(plan(kH100, problem(8192, 128, 8192, Op::transpose)).splits >= 2);
  // Batched small products fill the GPU without a split.
  CHECK(plan(kH100, problem(64, 64, 64, Op::none, Op::none, 1024)).splits == 1);
  CHECK(plan(kH100, problem(128, 128, 128, Op::none, Op::none, 512)).splits == 1);
  // Enough tiles: no split. 8192 x 8192: 2048 tiles.
  CHECK(plan(kH100, problem(8192, 8192, 8192)).splits == 1);
  // On a GPU a short K splits into slices of at least kSplitMinChunkGpu (one tile, 300 deep: 10
  // slices of 32), on a CPU into slices of at least kSplitMinChunk (none here).
  const GemmPlan short_k = plan(kH100, problem(64, 64, 300));
  CHECK(short_k.splits == 10);
  CHECK(short_k.k_chunk == duet::kSplitMinChunkGpu);
  CHECK(plan(kCpu, problem(64, 64, 300)).splits == 1);
  // A CPU's cores are its compute units: one tile for 16 cores splits too, 64 tiles do not.
  CHECK(plan(kCpu, problem(64, 64, 65536)).splits >= 2);
  CHECK(plan(kCpu, problem(512, 512, 65536)).splits == 1);
  // Forced: at least 2 where K allows, the count asked for when given, none where K is one slice.
  GemmOptions split;
  split.path = GemmPath::split_k;
  CHECK(plan(kCpu, problem(64, 64, 65536), split).splits >= 2);
  CHECK(plan(kCpu, problem(30, 30, 100), split).splits >= 2);
  CHECK(plan(kH100, problem(30, 30, 4), split).splits == 1);
  split.splits = 7;
  const GemmPlan seven = plan(kCpu, problem(64, 64, 6000), split);
  CHECK(seven.splits == 7);
  // A count that K cannot fill in whole BK steps comes out lower.
  split.splits = 100;
  CHECK(plan(kCpu, problem(10, 10, 64), split).splits < 100);
}

TEST_CASE("gemm plan: tiles that C would fill poorly give way to smaller ones") {
  // 32 x 32 matrices: 64 x 128 tiles would be an eighth full; GemmTile{}'s 32 x 32 fit.
  const GemmPlan tiny = plan(kH100, problem(32, 32, 32, Op::none, Op::none, 8192));
  CHECK(tiny.params == duet::GemmTile{});
  // 65536 x 64: the large class's 128 x 256 tiles a quarter full, 64 x 128 half full; 64 x 64 full.
  const GemmPlan tall = plan(kH100, problem(65536, 64, 256));
  CHECK(tall.params.bm == 64);
  CHECK(tall.params.bn == 64);
  // 8192 x 128 x 8192: the large tiles turned on their side (256 x 128, half of 128 x 256 empty),
  // 4 slices of K, on both backends; tiles of 8 x 8 keep their side (65536 x 64 above).
  for (const duet::DeviceInfo& h100 : {kH100, kH100cl}) {
    CAPTURE(h100.backend);
    const GemmPlan side = plan(h100, problem(8192, 128, 8192));
    CHECK(side.params.bm == 256);
    CHECK(side.params.bn == 128);
    CHECK(side.params.tm * side.params.tn == 128);
    CHECK(side.splits == 4);
    CHECK_CONTAINS(side.source, "transposed");
  }
  // 64 x 65536: 128 x 256 half full; 64 x 128 full and larger than 64 x 64.
  const GemmPlan wide = plan(kH100, problem(64, 65536, 256));
  CHECK(wide.params.bm == 64);
  CHECK(wide.params.bn == 128);
  // 64 x 64 matrices take the H100's class of C up to 4096 elements (64 x 64 tiles).
  CHECK(plan(kH100, problem(64, 64, 64, Op::none, Op::none, 1024)).params.bn == 64);
  // The CPU's classes: 32 x 32 tiles for C of up to 1024 elements (the fullest for an 8 x 8 C),
  // 64 x 64 above.
  const GemmPlan cpu_tiny = plan(kCpu, problem(8, 8, 100));
  CHECK(cpu_tiny.params.bm == 32);
  CHECK(cpu_tiny.params.bk == 16);
  CHECK(plan(kCpu, problem(32, 32, 32, Op::none, Op::none, 1024)).params.bn == 32);
  CHECK(plan(kCpu, problem(64, 64, 64, Op::none, Op::none, 128)).params.bn == 64);
}

TEST_CASE("gemm plan: few tiles take smaller ones where the estimate says so") {
  // 256^3: 8 tiles of 64 x 128 for 132 SMs; 16 of 64 x 64 in 8 slices of 32 fill it.
  const GemmPlan sq256 = plan(kH100, problem(256, 256, 256));
  INFO(sq256.reason);
  CHECK(sq256.params.bn == 64);
  CHECK(sq256.splits == 8);
  CHECK(sq256.kernel == GemmKernel::tiled);
  const GemmPlan sq128 = plan(kH100, problem(128, 128, 128));
  CHECK(sq128.params.bn == 64);
  CHECK(sq128.splits == 4);
  // (On OpenCL, 128^3 is a tiny product: see the tiny products' test case.)
  // 64^3: one tile of 4 steps, faster whole than split with a second launch.
  CHECK(plan(kH100, problem(64, 64, 64)).splits == 1);
  // 512^3 (under kPacedProblemFlops): 32 tiles of 64 x 128, split for occupancy.
  const GemmPlan sq512 = plan(kH100, problem(512, 512, 512));
  CHECK(sq512.params.bn == 128);
  CHECK(sq512.splits == 8);
  // Forced parameters are kept.
  GemmOptions forced;
  forced.params = duet::GemmTile{};
  forced.params->bm = 64, forced.params->bn = 128, forced.params->tm = 8, forced.params->tn = 8;
  forced.params->bk = 16, forced.params->wx = 16;
  CHECK(plan(kH100, problem(256, 256, 256), forced).params.bn == 128);
  // A 16-core CPU: 128^3 is 4 tiles of 64 x 64, 16 of the small class's 32 x 32; 256^3 is 16 tiles
  // of 64 x 64, enough.
  CHECK(plan(kCpu, problem(128, 128, 128)).params.bn == 32);
  CHECK(plan(kCpu, problem(64, 64, 64)).params.bn == 32);
  CHECK(plan(kCpu, problem(256, 256, 256)).params.bn == 64);
}

TEST_CASE("gemm plan: the split's sum shares outputs between work-items where they are few") {
  // 64 x 64 in 256 slices: 4096 outputs, 32 work-items each (132 units of 1024 work-items);
  // 1 x 4096 in 32 slices likewise; 16384 outputs in 132 slices get 8; a million outputs, or a
  // CPU, or no split, 1; never more lanes than slices.
  CHECK(duet::reduce_lanes(kH100, 4096, 256) == 32);
  CHECK(duet::reduce_lanes(kH100, 4096, 32) == 32);
  CHECK(duet::reduce_lanes(kH100, 16384, 132) == 8);
  CHECK(duet::reduce_lanes(kH100, 4096, 5) == 4);
  CHECK(duet::reduce_lanes(kH100, 1 << 20, 4) == 1);
  CHECK(duet::reduce_lanes(kH100, 1, 1) == 1);
  CHECK(duet::reduce_lanes(kCpu, 16, 256) == 1);
}

TEST_CASE("gemm plan: thin edges of large products go apart on GPUs") {
  // 4097^3: 4096^2 in whole tiles, the last row and column on their own; 4000^3 (edges of 32 and
  // 160 past 128 x 256 tiles) and 1025^3 (too small) stay whole, and so does every CPU.
  const GemmPlan odd = plan(kH100, problem(4097, 4097, 4097));
  INFO(odd.reason);
  CHECK(odd.bulk_m == 4096);
  CHECK(odd.bulk_n == 4096);
  CHECK_CONTAINS(odd.reason, "thin edges apart");
  const GemmPlan tall = plan(kH100cl, problem(8200, 4096, 4096, Op::transpose, Op::none));
  CHECK(tall.bulk_m == 8192);
  CHECK(tall.bulk_n == 4096);
  CHECK(plan(kH100, problem(4000, 4000, 4000)).bulk_m == 4000);
  CHECK(plan(kH100, problem(1025, 1025, 1025)).bulk_n == 1025);
  CHECK(plan(kCpu, problem(4097, 4097, 4097)).bulk_m == 4097);
  // Forced: apart wherever a whole tile leaves a remainder, never past the rule's thin limit when
  // automatic, and not at all when whole.
  GemmOptions apart;
  apart.edges = duet::GemmEdges::apart;
  const GemmPlan cpu = plan(kCpu, problem(130, 30, 64), apart);
  CHECK(cpu.bulk_m == 130 - 130 % cpu.params.bm);
  CHECK(cpu.bulk_m < 130);
  CHECK(cpu.bulk_n == 30);
  GemmOptions whole;
  whole.edges = duet::GemmEdges::whole;
  CHECK(plan(kH100, problem(4097, 4097, 4097), whole).bulk_m == 4097);
  CHECK(plan(kH100, problem(1, 4097, 4097)).bulk_m == 0);  // gemv
}

TEST_CASE("gemm plan: M == 1 and N == 1 take the matrix-vector kernels") {
  // y = A x with A's rows along K: dot; x^T B with B's rows along N: axpy.
  CHECK(plan(kH100, problem(4096, 1, 4096)).kernel == GemmKernel::gemv_dot);
  CHECK(plan(kH100, problem(4096, 1, 4096, Op::transpose)).kernel == GemmKernel::gemv_axpy);
  CHECK(plan(kH100, problem(1, 4096, 4096)).kernel == GemmKernel::gemv_axpy);
  CHECK(plan(kH100, problem(1, 4096, 4096, Op::none, Op::transpose)).kernel == GemmKernel::gemv_dot);
  // 4096 rows are 512 groups: enough for 132 units, no split. 4096 columns of axpy are 16 groups:
  // K is split.
  CHECK(plan(kH100, problem(4096, 1, 4096)).splits == 1);
  // gemv_axpy: 2 groups a unit (16 slices of 256 rows), or slices of 1024 rows where K is long.
  const GemmPlan axpy = plan(kH100, problem(1, 4096, 4096));
  CHECK(axpy.splits == 16);
  CHECK(axpy.k_chunk >= duet::kGemvAxpyMinChunk);
  CHECK(axpy.k_chunk % (duet::kGemvAxpyRows * duet::kGemvAxpyRuns) == 0);
  CHECK(plan(kH100, problem(1, 8192, 8192)).splits == 8);
  CHECK(plan(kH100, problem(8192, 1, 8192, Op::transpose)).splits == 8);
  CHECK(plan(kH100, problem(1, 16384, 16384)).splits == 16);
  // 1 x 1 x K, a dot product: split over a long K.
  const GemmPlan dot = plan(kH100, problem(1, 1, 1 << 20));
  CHECK(dot.kernel == GemmKernel::gemv_dot);
  CHECK(dot.splits > 1);
  CHECK(dot.k_chunk % (4 * duet::kGemvDotLanes) == 0);
  // Forced: gemv needs a vector shape; the tiled kernel takes one when asked.
  GemmOptions gemv;
  gemv.path = GemmPath::gemv;
  CHECK_THROWS_AS(plan(kH100, problem(2, 2, 2), gemv), duet::ArgumentError);
  gemv.splits = 3;
  CHECK(plan(kCpu, problem(1, 50, 900), gemv).splits == 3);
  GemmOptions tiled;
  tiled.path = GemmPath::tiled;
  CHECK(plan(kH100, problem(1, 4096, 4096), tiled).kernel == GemmKernel::tiled);
}

TEST_CASE("gemm plan: tiny float products on OpenCL GPUs take 32 x 32 x 32 tiles in one slice") {
  // 64^3 and 128^3 (2^21 multiply-adds, the bound) on NVIDIA's OpenCL; plain ones run
  // duet::matmul's kernel, others gemm.duet; half too.
  for (std::size_t n : {std::size_t{64}, std::size_t{128}}) {
    GemmProblem p = problem(n, n, n);
    p.plain = true;
    const GemmPlan plain = plan(kH100cl, p);
    INFO(plain.reason);
    CHECK(plain.params == duet::tiny_params());
    CHECK(plain.splits == 1);
    CHECK(plain.kernel == GemmKernel::matmul);
    GemmProblem t = problem(n, n, n, Op::transpose, Op::transpose);
    t.type = duet::ScalarType::f16;
    CHECK(plan(kH100clSimt, t).params == duet::tiny_params());
    CHECK(plan(kH100clSimt, t).kernel == GemmKernel::tiled);
  }
  CHECK(plan(kH100cl, problem(2, 3, 5)).params == duet::tiny_params());
  CHECK(plan(kH100cl, problem(20, 20, 20, Op::none, Op::none, 8)).params == duet::tiny_params());
  // Past the bound, on CUDA, on CPUs, for double, and with forced tiles: the rest of the rule.
  CHECK_FALSE(plan(kH100cl, problem(129, 128, 128)).params == duet::tiny_params());
  CHECK_FALSE(plan(kH100cl, problem(64, 64, 64, Op::none, Op::none, 9)).params == duet::tiny_params());
  CHECK(plan(kH100cl, problem(256, 256, 256)).splits > 1);
  CHECK_FALSE(plan(kH100, problem(128, 128, 128)).params == duet::tiny_params());
  CHECK(plan(kH100, problem(128, 128, 128)).splits > 1);
  CHECK_FALSE(plan(kCpu, problem(64, 64, 64)).params == duet::tiny_params());
  GemmProblem d = problem(64, 64, 64);
  d.type = duet::ScalarType::f64;
  CHECK(plan(kH100cl, d).params == duet::double_params(kH100cl));
  GemmOptions forced;
  forced.params = duet::GemmTile{};
  CHECK(plan(kH100cl, problem(64, 64, 64), forced).params == duet::GemmTile{});
  CHECK(duet::gemm_params_problem(duet::tiny_params(), 4, Op::transpose, kH100cl).empty());
}

TEST_CASE("gemm plan: double takes its own tiles, half the float ones; parameters are checked") {
  GemmProblem d = problem(2048, 2048, 2048);
  d.type = duet::ScalarType::f64;
  const GemmPlan pd = plan(kH100, d);
  CHECK(pd.params == duet::double_params(kH100));
  CHECK(duet::gemm_params_problem(pd.params, 8, Op::transpose, kH100).empty());
  CHECK(duet::gemm_params_problem(duet::double_params(kCpu), 8, Op::transpose, kCpu).empty());
  GemmProblem h = problem(2048, 2048, 2048);
  h.type = duet::ScalarType::f16;
  // (On OpenCL without tensor cores: elsewhere half runs the tensor kernel, tested below.)
  CHECK(plan(kH100clSimt, h).params == plan(kH100clSimt, problem(2048, 2048, 2048)).params);
  // Every built-in entry runs with either op of B, in float (the H100's 48 KiB included).
  for (const duet::TuningEntry& e : duet::tuning::builtin_entries())
    for (Op b : {Op::none, Op::transpose}) {
      INFO(duet::tuning::format_entry(e), " op_b ", duet::to_string(b));
      duet::DeviceInfo any = kH100;
      any.max_group_size = 1024;
      CHECK(duet::gemm_params_problem(e.params, 4, b, any).empty());
    }
  // Forced parameters the device cannot run: an ArgumentError; too much shared memory for
  // double: the message says so.
  GemmOptions forced;
  forced.params = duet::GemmTile{};
  forced.params->bk = 6;
  CHECK_THROWS_AS(plan(kH100, problem(100, 100, 100), forced), duet::ArgumentError);
  duet::GemmTile big;
  big.bm = 128, big.bn = 256, big.bk = 16, big.tm = 8, big.tn = 16, big.wx = 8;
  CHECK_CONTAINS(duet::gemm_params_problem(big, 8, Op::none, kH100), "shared memory");
  CHECK(duet::gemm_shared_bytes(big, 4, Op::none) == 48 * 1024);
  // The register estimate: one group of 8 x 16 per unit, three of 8 x 8.
  CHECK(duet::resident_groups(big, kH100) == 1);
  duet::GemmTile mid = big;
  mid.bm = 64, mid.bn = 128, mid.tn = 8, mid.wx = 16;
  CHECK(duet::resident_groups(mid, kH100) == 3);
  CHECK(duet::resident_groups(mid, kCpu) == 1);
}

TEST_CASE("gemm plan: large products compare the classes' tiles by estimated time") {
  // 1000^3: 128 tiles of 64 x 128 (one 128-work-item group per SM, half the accumulators a unit
  // needs) against 32 of 128 x 256 in 4 slices: the large tiles, split, unpipelined.
  for (Op a : {Op::none, Op::transpose}) {
    GemmProblem p = problem(1000, 1000, 1000, a);
    p.plain = a == Op::none;
    const GemmPlan sq1000 = plan(kH100, p);
    INFO(sq1000.reason);
    CHECK(sq1000.kernel == GemmKernel::tiled);
    CHECK(sq1000.params.bn == 256);
    CHECK(sq1000.splits == 4);
    CHECK(sq1000.params.pipeline == 0);
    CHECK_CONTAINS(sq1000.reason, "estimated time");
  }
  // K-heavy and wide: 128 x 256 tiles split to one group per SM.
  const GemmPlan deep = plan(kH100, problem(256, 256, 131072));
  CHECK(deep.params.bn == 256);
  CHECK(deep.splits == 66);
  const GemmPlan k1024 = plan(kH100, problem(1024, 1024, 32768));
  CHECK(k1024.params.bn == 256);
  CHECK(k1024.splits == 4);
  CHECK(plan(kH100, problem(128, 8192, 8192)).params.bn == 256);
  // 4097^3: 561 tiles of 128 x 256 are 4.25 waves; 2145 of 64 x 128 waste less.
  GemmProblem odd = problem(4097, 4097, 4097);
  odd.plain = true;
  const GemmPlan sq4097 = plan(kH100, odd);
  CHECK(sq4097.params.bn == 128);
  CHECK(sq4097.kernel == GemmKernel::matmul);
  CHECK(sq4097.params.pipeline == 1);  // duet::matmul's kernel keeps its pipeline
  // NVIDIA's OpenCL keeps the large tiles where rows are not whole vectors of 4.
  CHECK(plan(kH100cl, odd).params.bn == 256);
  CHECK(plan(kH100cl, problem(1000, 1000, 1000)).params.bn == 256);
  // Whole multiples of the large tiles keep them: 4096^3, 8192^3, 2000 x 3000 x 5000.
  CHECK(plan(kH100, problem(4096, 4096, 4096)).params.bn == 256);
  CHECK(plan(kH100, problem(8192, 8192, 8192)).params.bn == 256);
  CHECK(plan(kH100, problem(2000, 3000, 5000)).params.bn == 256);
  // C of one 128 x 128 tile: that class's tiles, one group a unit (not two of 64 x 128).
  for (const duet::DeviceInfo& gpu : {kH100, kH100cl}) {
    const GemmPlan one = plan(gpu, problem(128, 128, 262144));
    INFO(one.reason);
    CHECK(one.params.bm == 128);
    CHECK(one.params.bn == 128);
    CHECK(one.splits == 132);
    const GemmPlan batched = plan(gpu, problem(128, 128, 128, Op::none, Op::none, 512));
    CHECK(batched.params.bm == 128);
    CHECK(batched.params.bn == 128);
  }
  // Tiles C does not fill are not candidates: 8192 x 128 keeps 64 x 128.
  CHECK(plan(kH100, problem(8192, 128, 8192)).params.bn == 128);
  // Forced parameters keep their pipeline; CPUs are not paced.
  GemmOptions forced;
  forced.params = plan(kH100, problem(4096, 4096, 4096)).params;
  forced.params->pipeline = 1;
  CHECK(plan(kH100, problem(4096, 4096, 4096, Op::transpose), forced).params.pipeline == 1);
  CHECK(plan(kCpu, problem(1000, 1000, 1000)).params == plan(kCpu, problem(512, 512, 512)).params);
}

TEST_CASE("gemm plan: the kernel that runs on CPUs, and the vector flags") {
  // Float and double tiled and plain plans run gemm_cpu.duet on CPU devices (PoCL 5.0 among them),
  // with the tiles and slices the rule chose; half keeps gemm.duet.
  for (const duet::DeviceInfo& cpu : {kCpu, pocl5(2), pocl5(16)}) {
    INFO(cpu.name, " ", cpu.driver, ", ", cpu.compute_units, " cores");
    GemmProblem p = aligned(problem(512, 512, 512));
    p.plain = true, p.beta_zero = true;
    const GemmPlan plain = plan(cpu, p);
    CHECK(plain.kernel == GemmKernel::tiled_cpu);
    CHECK(plain.beta_zero);
    CHECK_FALSE(plain.vec_a);
    CHECK_CONTAINS(plain.reason, "gemm_cpu.duet");
    const GemmPlan general = plan(cpu, aligned(problem(512, 512, 512, Op::transpose, Op::transpose)));
    CHECK(general.kernel == GemmKernel::tiled_cpu);
    CHECK_FALSE(general.beta_zero);  // beta may not be 0: C is read
    CHECK(general.params == plain.params);
    GemmProblem d = problem(300, 300, 300);
    d.type = duet::ScalarType::f64;
    CHECK(plan(cpu, d).kernel == GemmKernel::tiled_cpu);
    CHECK(plan(cpu, d).params == duet::double_params(cpu));
    GemmProblem h = aligned(problem(300, 300, 300));
    h.type = duet::ScalarType::f16;
    CHECK(plan(cpu, h).kernel == GemmKernel::tiled);
    CHECK_FALSE(plan(cpu, h).vec_a);  // half is never read in float4s
    // A split applies beta in its sum, so the slices never read C.
    const GemmPlan split = plan(cpu, problem(64, 64, 65536));
    REQUIRE(split.splits > 1);
    CHECK(split.kernel == GemmKernel::tiled_cpu);
    CHECK(split.beta_zero);
    // Forced paths and tiles too: a forced tiled path is what duet::matmul_with runs there.
    GemmOptions tiled;
    tiled.path = GemmPath::tiled;
    tiled.params = duet::GemmTile{};
    CHECK(plan(cpu, p, tiled).kernel == GemmKernel::tiled_cpu);
    CHECK(duet::plan_matmul_with(cpu, p, duet::GemmTile{}).kernel == GemmKernel::tiled_cpu);
    // gemv keeps its kernels; on CPUs its float4 reads are only of rows that arrive whole.
    const GemmPlan axpy = plan(cpu, aligned(problem(4096, 1, 4096, Op::transpose)));
    CHECK(axpy.kernel == GemmKernel::gemv_axpy);
    CHECK(axpy.vec_a);
    CHECK_FALSE(axpy.vec_b);
    const GemmPlan dot = plan(cpu, aligned(problem(4096, 1, 4096, Op::none, Op::transpose)));
    CHECK(dot.kernel == GemmKernel::gemv_dot);
    CHECK_FALSE(dot.vec_a);
    CHECK_FALSE(dot.vec_b);
  }
  // GPUs: gemm.duet reads every aligned float operand in float4s; on CPUs only A transposed and B
  // as stored (runs along k are scattered element by element; PoCL 5.0 computes them wrongly).
  for (Op a : {Op::none, Op::transpose})
    for (Op b : {Op::none, Op::transpose}) {
      const GemmPlan gpu = plan(kH100, aligned(problem(1000, 1000, 1000, a, b)));
      CHECK(gpu.kernel == GemmKernel::tiled);
      CHECK(gpu.vec_a);
      CHECK(gpu.vec_b);
      CHECK(gpu.vec_c);
      GemmProblem h = aligned(problem(1000, 1000, 1000, a, b));
      h.type = duet::ScalarType::f16;
      const GemmPlan half = plan(kH100, h);
      CHECK_FALSE((half.vec_a || half.vec_b || half.vec_c));
      GemmOptions forced;
      forced.path = GemmPath::tiled;
      CHECK(plan(kH100, problem(1000, 1000, 1000, a, b), forced).vec_a == false);  // not aligned
    }
  // gemv_dot reads its vector in float4s where the vector's elements are adjacent.
  const GemmPlan dot = plan(kH100, aligned(problem(4096, 1, 4096, Op::none, Op::transpose)));
  CHECK(dot.kernel == GemmKernel::gemv_dot);
  CHECK(dot.vec_a);
  CHECK(dot.vec_b);
  CHECK_FALSE(plan(kH100, aligned(problem(4096, 1, 4096))).vec_b);  // B's column: ldb apart
  // duet::matmul's kernel reads rows of whole float4s (K % 4 for A, N % 4 for B and C).
  GemmProblem plain = aligned(problem(4096, 4096, 4096));
  plain.plain = true;
  const GemmPlan m = plan(kH100, plain);
  CHECK(m.kernel == GemmKernel::matmul);
  CHECK((m.vec_a && m.vec_b && m.vec_c));
  const GemmPlan with = duet::plan_matmul_with(kH100, problem(64, 66, 64), duet::GemmTile{});
  CHECK(with.kernel == GemmKernel::matmul);
  CHECK(with.vec_a);
  CHECK_FALSE(with.vec_b);
  CHECK(with.splits == 1);
}

TEST_CASE("gemm plan: B's slice is swizzled only where B is transposed and the reads allow it") {
  duet::GemmTile t;
  t.bm = 128, t.bn = 256, t.bk = 16, t.tm = 8, t.tn = 16, t.wx = 8;
  CHECK(duet::gemm_swizzles_b(t, Op::transpose));
  CHECK_FALSE(duet::gemm_swizzles_b(t, Op::none));
  // Padded instead: one more vector a row of the transposed slice.
  duet::GemmTile narrow = duet::GemmTile{};  // 32 x 32 of 4 x 4: TX 8, BN 32
  CHECK(duet::gemm_swizzles_b(narrow, Op::transpose));
  narrow.tn = 8;  // TX 4
  CHECK_FALSE(duet::gemm_swizzles_b(narrow, Op::transpose));
  CHECK(duet::gemm_shared_bytes(narrow, 4, Op::transpose) > duet::gemm_shared_bytes(narrow, 4, Op::none));
  CHECK(duet::gemm_shared_bytes(t, 4, Op::transpose) == duet::gemm_shared_bytes(t, 4, Op::none));
  const auto b_swizzle = [](const duet::Defines& d) {
    for (const auto& [k, v] : d)
      if (k == "B_SWIZZLE") return v;
    return std::string("missing");
  };
  for (const duet::GemmTile& p : {t, narrow})
    for (Op b : {Op::none, Op::transpose})
      CHECK(b_swizzle(duet::gemm_defines(p, duet::ScalarType::f32, Op::none, b, true, true, true)) ==
            (duet::gemm_swizzles_b(p, b) ? "1" : "0"));
}

TEST_CASE("gemm_cpu.duet's defines: float and double name their element type, half is refused") {
  const duet::GemmTile p = duet::double_params(kCpu);
  auto value_of = [](const duet::Defines& d, const std::string& name) {
    for (const auto& [key, value] : d)
      if (key == name) return value;
    return std::string("(none)");
  };
  CHECK(value_of(duet::gemm_cpu_defines(p, duet::ScalarType::f32, Op::none, Op::none, true), "T") == "float");
  const duet::Defines d = duet::gemm_cpu_defines(p, duet::ScalarType::f64, Op::transpose, Op::none, false);
  CHECK(value_of(d, "T") == "double");
  CHECK(value_of(d, "OP_A") == "1");
  CHECK(value_of(d, "BETA_ZERO") == "0");
  EXPECT_ERROR(duet::ArgumentError,
               duet::gemm_cpu_defines(p, duet::ScalarType::f16, Op::none, Op::none, true));
}

TEST_CASE("gemm plan: half on tensor cores on NVIDIA sm_80 and later, TF32 only where allowed") {
  GemmProblem h = problem(4096, 4096, 4096, Op::transpose, Op::none);
  h.type = duet::ScalarType::f16;
  h.runs_a = true;
  const GemmPlan tc = plan(kH100, h);
  CHECK(tc.kernel == GemmKernel::tensor);
  CHECK_FALSE(tc.tf32);
  CHECK(tc.tensor == duet::tensor_tile(duet::ScalarType::f16, kH100));
  CHECK(tc.tensor.bn == 256);
  CHECK(tc.tensor.stages == 3);
  CHECK(tc.splits == 1);
  CHECK(tc.k_chunk == 4096);
  CHECK(tc.bulk_m == 4096);
  CHECK(tc.vec_a);  // whole 16-byte runs: cp.async
  CHECK_FALSE(tc.vec_b);
  CHECK_CONTAINS(tc.reason, "tensor cores");
  const duet::GemmKernelSource source = duet::gemm_kernel_source(h, tc);
  CHECK(source.file == "gemm_tc");
  CHECK(define_value(source.defines, "OP_A") == "1");
  CHECK(define_value(source.defines, "ALIGNED_A") == "1");
  CHECK(define_value(source.defines, "TO") == "half");
  CHECK(define_value(source.defines, "THREADS") == "256");
  CHECK(define_value(source.defines, "STAGES") == "3");
  // An A100 too; a T4 (sm_75) and CPUs keep the SIMT kernels (NVIDIA's OpenCL: the next case).
  duet::DeviceInfo a100 = kH100, t4 = kH100;
  a100.arch = "sm_80", t4.arch = "sm_75";
  CHECK(plan(a100, h).kernel == GemmKernel::tensor);
  CHECK(plan(t4, h).kernel == GemmKernel::tiled);
  CHECK(plan(kCpu, h).kernel == GemmKernel::tiled);
  // Few tiles: the smaller ones.
  GemmProblem small = h;
  small.M = small.N = 512;
  CHECK(plan(kH100, small).tensor == duet::tensor_small_tile(duet::ScalarType::f16));
  // Matrix-vector products stay memory-bound kernels; forced tiles keep the tiled kernel.
  GemmProblem v = h;
  v.N = 1;
  CHECK(plan(kH100, v).kernel == GemmKernel::gemv_axpy);
  GemmOptions tiles;
  tiles.params = duet::GemmTile{};
  CHECK(plan(kH100, h, tiles).kernel == GemmKernel::tiled);
  // float: TF32 only where allowed.
  GemmProblem f = problem(4096, 4096, 4096);
  CHECK(plan(kH100, f).kernel != GemmKernel::tensor);
  GemmOptions tf32;
  tf32.allow_tf32 = true;
  const GemmPlan t = plan(kH100, f, tf32);
  CHECK(t.kernel == GemmKernel::tensor);
  CHECK(t.tf32);
  CHECK(t.tensor.bk == 16);
  CHECK(define_value(duet::gemm_kernel_source(f, t).defines, "T_IS_FLOAT") == "1");
  // The portable tiles fit the 48 KiB of static shared memory every device has, every op; CUDA's
  // large ones the 99 KiB of dynamic shared memory the smallest sm_8x opts into.
  duet::DeviceInfo sm86 = kH100;
  sm86.arch = "sm_86";
  CHECK(duet::tensor_shared_limit(sm86) == 99 * 1024);
  CHECK(duet::tensor_shared_limit(kH100cl) == 48 * 1024);
  for (duet::ScalarType type : {duet::ScalarType::f16, duet::ScalarType::f32})
    for (Op a : {Op::none, Op::transpose})
      for (Op b : {Op::none, Op::transpose}) {
        CHECK(duet::tensor_shared_bytes(duet::tensor_tile(type), type, a, b) <= 48 * 1024);
        CHECK(duet::tensor_shared_bytes(duet::tensor_small_tile(type), type, a, b) <= 48 * 1024);
        CHECK(duet::tensor_tile_problem(duet::tensor_tile(type, sm86), type, a, b, sm86).empty());
        CHECK(duet::tensor_tile_problem(duet::tensor_tile(type, kH100cl), type, a, b, kH100cl).empty());
      }
}

TEST_CASE("gemm plan: NVIDIA's OpenCL takes the tensor kernel through inline PTX, unless DUET_OPENCL_PTX=0") {
  GemmProblem h = problem(4096, 4096, 4096);
  h.type = duet::ScalarType::f16;
  h.runs_a = h.runs_b = true;
  // kH100cl: backend opencl, vendor NVIDIA, arch sm_90 (what cl_nv_device_attribute_query gives).
  CHECK(duet::tensor_cores(kH100cl));
  const GemmPlan cl = plan(kH100cl, h);
  CHECK(cl.kernel == GemmKernel::tensor);
  CHECK_CONTAINS(cl.reason, "inline PTX");
  // OpenCL's static local memory: the 48 KiB tiles.
  CHECK(cl.tensor == duet::tensor_tile(duet::ScalarType::f16));
  CHECK(duet::tensor_shared_bytes(cl.tensor, h.type, h.op_a, h.op_b) <= kH100cl.local_memory_bytes);
  GemmOptions tf32;
  tf32.allow_tf32 = true;
  CHECK(plan(kH100cl, problem(4096, 4096, 4096), tf32).kernel == GemmKernel::tensor);
  // Older NVIDIA devices, other vendors' sm_-less devices and PoCL keep the SIMT kernels.
  duet::DeviceInfo old = kH100cl, other = kH100cl;
  old.arch = "sm_75";
  other.vendor = "Advanced Micro Devices, Inc.", other.arch = "gfx90a";
  CHECK_FALSE(duet::tensor_cores(old));
  CHECK_FALSE(duet::tensor_cores(other));
  CHECK(plan(old, h).kernel == GemmKernel::tiled);
  CHECK(plan(other, h).kernel == GemmKernel::tiled);
  CHECK(plan(pocl5(4), h).kernel == GemmKernel::tiled);
  {
    EnvGuard off("DUET_OPENCL_PTX", "0");
    CHECK_FALSE(duet::tensor_cores(kH100cl));
    CHECK(plan(kH100cl, h).kernel == GemmKernel::tiled);
    CHECK(duet::tensor_cores(kH100));  // CUDA is not affected
  }
}

TEST_CASE("gemm plan: DUET_GEMM_TC_TILE replaces the tensor tiles, checked") {
  GemmProblem h = problem(8192, 8192, 8192);
  h.type = duet::ScalarType::bf16;
  {
    EnvGuard tile("DUET_GEMM_TC_TILE", "128x128x32:64x64:4");
    const GemmPlan p = plan(kH100, h);
    CHECK(p.kernel == GemmKernel::tensor);
    CHECK(duet::to_string(p.tensor) == "128x128x32:64x64:4");
    CHECK(p.tensor.threads() == 128);
    CHECK(p.source == "DUET_GEMM_TC_TILE");
    CHECK(define_value(duet::gemm_kernel_source(h, p).defines, "STAGES") == "4");
    CHECK(define_value(duet::gemm_kernel_source(h, p).defines, "THREADS") == "128");
    // Few tiles too: the tiles asked for, not the small ones.
    CHECK(plan(kH100, problem(256, 256, 256, Op::none, Op::none, 1),
               [] {
                 GemmOptions o;
                 o.allow_tf32 = true;
                 return o;
               }())
              .tensor == duet::parse_tensor_tile("128x128x32:64x64:4"));
    // 75 KiB: more than OpenCL's 48 KiB of local memory.
    const auto e = EXPECT_ERROR(duet::ArgumentError, plan(kH100cl, h));
    if (e) CHECK_CONTAINS(std::string(e->what()), "DUET_GEMM_TC_TILE");
  }
  {
    EnvGuard tile("DUET_GEMM_TC_TILE", "128x128x32:64x32:2");
    CHECK(plan(kH100cl, h).tensor == duet::tensor_tile(duet::ScalarType::bf16));
  }
  {
    EnvGuard tile("DUET_GEMM_TC_TILE", "128x256");
    EXPECT_ERROR(duet::ArgumentError, plan(kH100, h));
  }
  for (const char* bad :
       {"", "128x256x32", "128x256x32:64x64", "128x256x32:64x64:3x", "128x256x32:64x64:1",
        "128x256x32:64x64:9", "128x256x24:64x64:3", "128x256x32:48x64:3", "96x256x32:64x64:3",
        "0x256x32:64x64:3", "256x256x32:16x16:2", "128 x256x32:64x64:3"}) {
    INFO(bad);
    CHECK_THROWS_AS(duet::parse_tensor_tile(bad), duet::ArgumentError);
  }
  CHECK(duet::to_string(duet::parse_tensor_tile("64x64x16:32x32:2")) == "64x64x16:32x32:2");
}

TEST_CASE("gemm plan: swizzled tensor tiles, unpadded, fit three stages in OpenCL's 48 KiB") {
  GemmProblem h = problem(8192, 8192, 8192);
  h.type = duet::ScalarType::f16;
  const duet::TensorTile swizzled = duet::parse_tensor_tile("128x128x32:64x32:3:1");
  CHECK(swizzled.swizzle);
  CHECK(swizzled.stages == 3);
  CHECK(duet::to_string(swizzled) == "128x128x32:64x32:3:1");
  CHECK_FALSE(duet::parse_tensor_tile("128x128x32:64x32:3:0").swizzle);
  CHECK(duet::to_string(duet::parse_tensor_tile("128x128x32:64x32:3:0")) == "128x128x32:64x32:3");
  CHECK_FALSE(swizzled == duet::parse_tensor_tile("128x128x32:64x32:3"));
  // 3 x (128 x 32 + 32 x 128) halves, every op pair: exactly 48 KiB; padded rows take more.
  for (Op a : {Op::none, Op::transpose})
    for (Op b : {Op::none, Op::transpose}) {
      CHECK(duet::tensor_shared_bytes(swizzled, h.type, a, b) == 48 * 1024);
      CHECK(duet::tensor_shared_bytes(duet::parse_tensor_tile("128x128x32:64x32:3"), h.type, a, b) >
            48 * 1024);
    }
  {
    EnvGuard tile("DUET_GEMM_TC_TILE", "128x128x32:64x32:3:1");
    const GemmPlan p = plan(kH100cl, h);
    CHECK(p.kernel == GemmKernel::tensor);
    CHECK(p.tensor == swizzled);
    CHECK(define_value(duet::gemm_kernel_source(h, p).defines, "TC_SWIZZLE") == "1");
    CHECK(define_value(duet::gemm_kernel_source(h, p).defines, "STAGES") == "3");
  }
  {
    EnvGuard tile("DUET_GEMM_TC_TILE", "128x128x32:64x32:3");
    EXPECT_ERROR(duet::ArgumentError, plan(kH100cl, h));  // padded: over 48 KiB
  }
  {
    // TF32 reads single floats from padded rows: a swizzled tile is refused, saying why.
    EnvGuard tile("DUET_GEMM_TC_TILE", "64x64x16:32x32:2:1");
    GemmOptions tf32;
    tf32.allow_tf32 = true;
    const auto e = EXPECT_ERROR(duet::ArgumentError, plan(kH100, problem(512, 512, 512), tf32));
    if (e) CHECK_CONTAINS(std::string(e->what()), "swizzled");
  }
  CHECK(define_value(duet::gemm_tc_defines(duet::tensor_tile(h.type), h.type, duet::ScalarType::unknown,
                                           Op::none, Op::none, true, true),
                     "TC_SWIZZLE")
            .empty());
  for (const char* bad : {"128x128x32:64x32:3:2", "128x128x32:64x32:3:", "128x128x32:64x32:3:1x",
                          "128x128x32:64x32:3::1", "128x128x32:64x32:3:1:1"}) {
    INFO(bad);
    CHECK_THROWS_AS(duet::parse_tensor_tile(bad), duet::ArgumentError);
  }
}

TEST_CASE("gemm plan: a forced tensor path, and half inputs into a float C, on any device") {
  GemmProblem h = problem(100, 37, 19);
  h.type = duet::ScalarType::f16;
  GemmOptions forced;
  forced.path = GemmPath::tensor;
  for (const duet::DeviceInfo& d : {kH100, kH100cl, kCpu}) {
    INFO(d.backend, " ", d.name);
    const GemmPlan p = plan(d, h, forced);
    CHECK(p.kernel == GemmKernel::tensor);
    CHECK_CONTAINS(p.reason, "asked for");
  }
  CHECK_CONTAINS(plan(kCpu, h, forced).reason, "portable form");
  GemmProblem mixed = h;
  mixed.c_type = duet::ScalarType::f32;
  mixed.N = 1;  // even a matrix-vector product: no other kernel takes it
  CHECK(plan(kCpu, mixed).kernel == GemmKernel::tensor);
  CHECK(define_value(duet::gemm_kernel_source(mixed, plan(kCpu, mixed)).defines, "TO") == "float");
  CHECK(plan(kCpu, [&] {
          GemmProblem z = mixed;
          z.alpha_zero = true;
          return z;
        }()).kernel == GemmKernel::scale);
  GemmOptions gemv;
  gemv.path = GemmPath::gemv;
  CHECK_THROWS_AS(plan(kCpu, mixed, gemv), duet::ArgumentError);
  GemmProblem d = problem(64, 64, 64);
  d.type = duet::ScalarType::f64;
  CHECK_THROWS_AS(plan(kH100, d, forced), duet::ArgumentError);
  CHECK_THROWS_AS(plan(kH100, problem(64, 64, 64), forced), duet::ArgumentError);  // float without TF32
  GemmProblem dm = d;
  dm.c_type = duet::ScalarType::f32;
  CHECK_THROWS_AS(plan(kH100, dm), duet::ArgumentError);
  CHECK_THROWS_AS(duet::gemm_tc_defines(duet::TensorTile{}, duet::ScalarType::f64, duet::ScalarType::unknown,
                                        Op::none, Op::none, false, false),
                  duet::ArgumentError);
  CHECK(std::string(duet::to_string(GemmPath::tensor)) == "tensor");
  CHECK(std::string(duet::to_string(GemmKernel::tensor)) == "tensor");
}

TEST_CASE("gemm plan: Intel's subgroup matrix multiply-accumulate takes half and bfloat16, not TF32") {
  const EnvGuard unset("DUET_GEMM_TC_INTEL", nullptr);
  for (unsigned size : {8u, 16u}) {
    duet::DeviceInfo intel = device("opencl", "Intel(R) Arc(TM) A770 Graphics", duet::DeviceKind::gpu, 512);
    intel.vendor = "Intel(R) Corporation", intel.arch = "", intel.intel_matrix_subgroup = size;
    INFO("sub-groups of ", size);
    CHECK_FALSE(duet::tensor_cores(intel));
    CHECK(duet::intel_matrix_form(intel) == int(size));
    for (duet::ScalarType type : {duet::ScalarType::f16, duet::ScalarType::bf16}) {
      GemmProblem h = problem(4096, 4096, 4096);
      h.type = type;
      const GemmPlan p = plan(intel, h);
      CHECK(p.kernel == GemmKernel::tensor);
      CHECK(p.tensor.intel == int(size));
      CHECK_CONTAINS(p.reason,
                     "Intel's subgroup matrix multiply-accumulate, sub-groups of " + std::to_string(size));
      const duet::Defines defines = duet::gemm_kernel_source(h, p).defines;
      CHECK(define_value(defines, "TC_INTEL") == std::to_string(size));
      GemmProblem vector = h;
      vector.N = 1;
      CHECK(plan(intel, vector).kernel != GemmKernel::tensor);  // memory-bound: gemv
    }
    GemmOptions tf32;
    tf32.allow_tf32 = true;
    GemmProblem f = problem(4096, 4096, 4096);
    CHECK(plan(intel, f, tf32).kernel != GemmKernel::tensor);  // the extension has no TF32
    tf32.path = GemmPath::tensor;
    const GemmPlan forced = plan(intel, f, tf32);  // forced: the portable form, in float
    CHECK(forced.tensor.intel == 0);
    CHECK(define_value(duet::gemm_kernel_source(f, forced).defines, "TC_INTEL").empty());
    duet::DeviceInfo cuda = intel;
    cuda.backend = "cuda";
    CHECK(duet::intel_matrix_form(cuda) == 0);
  }
  duet::TensorTile t;
  t.intel = 8;
  CHECK_THROWS_AS(duet::gemm_tc_defines(t, duet::ScalarType::f32, duet::ScalarType::unknown, Op::none,
                                        Op::none, false, false),
                  duet::ArgumentError);
  t.intel = 12;
  CHECK_THROWS_AS(duet::gemm_tc_defines(t, duet::ScalarType::f16, duet::ScalarType::unknown, Op::none,
                                        Op::none, false, false),
                  duet::ArgumentError);
  // Forced on a device without it (the emulation the device tests run), or off on one with it.
  {
    const EnvGuard forced("DUET_GEMM_TC_INTEL", "16");
    CHECK(duet::intel_matrix_form(kCpu) == 16);
    GemmProblem h = problem(100, 37, 19);
    h.type = duet::ScalarType::f16;
    GemmOptions tensor;
    tensor.path = GemmPath::tensor;
    CHECK_CONTAINS(plan(kCpu, h, tensor).reason, "(emulated)");
  }
  const EnvGuard off("DUET_GEMM_TC_INTEL", "0");
  duet::DeviceInfo intel = kCpu;
  intel.intel_matrix_subgroup = 8;
  CHECK(duet::intel_matrix_form(intel) == 0);
}

TEST_CASE("gemm plan: the emulated Intel form's exchange counts against local memory") {
  GemmProblem h = problem(4096, 4096, 4096);
  h.type = duet::ScalarType::f16;
  duet::TensorTile large = duet::tensor_tile(h.type);
  // A device whose local memory holds the large tiles with less room to spare than the exchange.
  duet::DeviceInfo gpu = device("opencl", "a GPU without Intel's built-ins", duet::DeviceKind::gpu, 512);
  gpu.local_memory_bytes = duet::tensor_shared_bytes(large, h.type, h.op_a, h.op_b) + 1024;
  CHECK(duet::tensor_tile_problem(large, h.type, h.op_a, h.op_b, gpu).empty());
  large.intel = 8;
  CHECK(duet::tensor_exchange_bytes(large, gpu) == std::size_t(large.threads()) * 8 * sizeof(int));
  CHECK_CONTAINS(duet::tensor_tile_problem(large, h.type, h.op_a, h.op_b, gpu), "bytes of shared memory");
  duet::DeviceInfo builtins = gpu;
  builtins.intel_matrix_subgroup = 8;
  CHECK(duet::tensor_exchange_bytes(large, builtins) == 0);  // the built-ins need no exchange
  CHECK(duet::tensor_tile_problem(large, h.type, h.op_a, h.op_b, builtins).empty());

  const EnvGuard forced("DUET_GEMM_TC_INTEL", "8");
  GemmOptions tensor;
  tensor.path = GemmPath::tensor;
  const GemmPlan p = plan(gpu, h, tensor);  // the large tiles leave no room: the small ones
  CHECK(p.tensor.bm == duet::tensor_small_tile(h.type).bm);
  CHECK(p.tensor.intel == 8);
  CHECK(duet::tensor_tile_problem(p.tensor, h.type, h.op_a, h.op_b, gpu).empty());
  large.intel = 0;
  const EnvGuard tile("DUET_GEMM_TC_TILE", duet::to_string(large).c_str());
  CHECK_THROWS_WITH_AS(plan(gpu, h, tensor), doctest::Contains("DUET_GEMM_TC_TILE"), duet::ArgumentError);
  CHECK(plan(builtins, h, tensor).tensor.bm == large.bm);  // with the built-ins the asked tiles fit
}

TEST_SUITE_END();

TEST_CASE("NVIDIA's OpenCL on sm_90 takes the warpgroup kernel only where NVRTC gives it sm_90a PTX") {
  GemmProblem h = aligned(problem(4096, 4096, 4096));
  h.type = duet::ScalarType::f16;
  h.runs_a = h.runs_b = true;
  // Without NVRTC, or with DUET_PTX_PROGRAMS=0: the OpenCL C tensor kernel.
  CHECK_FALSE(duet::wgmma_cores(kH100cl));
  CHECK(plan(kH100cl, h).kernel == GemmKernel::tensor);
  duet::DeviceInfo ptx = kH100cl;
  ptx.arch_specific_target = "compute_90a";
  CHECK(duet::wgmma_cores(ptx));
  CHECK_FALSE(duet::wgmma_cores(kCpu));
  duet::DeviceInfo older = ptx;  // sm_80 has no warpgroup instructions, whatever the target
  older.arch = "sm_80";
  CHECK_FALSE(duet::wgmma_cores(older));
  const GemmPlan p = plan(ptx, h);
  CHECK(p.kernel == GemmKernel::wgmma);
  CHECK(p.wgmma.tma == 0);  // the tensor maps come from CUDA's driver: the cp.async form
  CHECK(plan(kH100, h).wgmma.tma == 1);
}
