// Offline CUDA compiles with NVRTC, no GPU needed (test suite "nvrtc", run by the ctest entry
// duet.nvrtc; main.cpp exits 77 there when NVRTC cannot be loaded). Every built-in kernel must compile
// for sm_90 through the CUDA expansion of the dialect, and a CUDA compile error must come back as a
// CompileError pointing at the user's line.
#include <doctest/doctest.h>

#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <iterator>
#include <string>
#include <vector>

#include "support.hpp"

TEST_SUITE_BEGIN("nvrtc");

namespace {

// The tensor kernels' input types, each into itself (unknown) and into float.
struct GemmTypes {
  duet::ScalarType in, out;
};
constexpr GemmTypes kHalfTypes[] = {{duet::ScalarType::f16, duet::ScalarType::unknown},
                                    {duet::ScalarType::f16, duet::ScalarType::f32},
                                    {duet::ScalarType::bf16, duet::ScalarType::unknown},
                                    {duet::ScalarType::bf16, duet::ScalarType::f32}};

}  // namespace

TEST_CASE("every built-in kernel compiles for sm_90 with NVRTC") {
  int count = 0;
  for (const char* const* name = duet::builtin_kernel_names(); *name; ++name, ++count) {
    INFO("kernel source ", std::string(*name));
    const char* source = duet::builtin_kernel_source(*name);
    REQUIRE(source != nullptr);
    std::size_t cubin = 0;
    try {
      cubin = duet::compile_for_cuda_arch(source, {}, "sm_90", std::string(*name) + ".duet");
    } catch (const duet::CompileError& e) {
      FAIL_CHECK("NVRTC rejected " << std::string(*name) << " (line " << e.line() << "):\n" << e.log());
    }
    CHECK(cubin > 0);
  }
  CHECK(count >= 4);
}

TEST_CASE("a user kernel with defines compiles for several architectures") {
  const char* source =
      "KERNEL void saxpy(const int n, const T a, GLOBAL const T* RESTRICT x, GLOBAL T* y,\n"
      "                  GLOBAL int* count) {\n"
      "  SHARED T tile[GROUP];\n"
      "  const int i = (int)GLOBAL_ID(0);\n"
      "  tile[LOCAL_ID(0)] = i < n ? x[i] : (T)0;\n"
      "  BARRIER();\n"
      "  if (i < n) y[i] = a * tile[LOCAL_ID(0)] + y[i];\n"
      "  if (i < n) ATOMIC_ADD_INT(count, 1);\n"
      "}\n";
  for (const char* arch : {"sm_80", "sm_90"}) {
    INFO("arch ", std::string(arch));
    CHECK(duet::compile_for_cuda_arch(source, {{"T", "float"}, {"GROUP", "128"}}, arch, "saxpy.duet") > 0);
  }
}

TEST_CASE("REQD_GROUP_SIZE compiles as __launch_bounds__, in one dimension and in three") {
  const char* source =
      "KERNEL REQD_GROUP_SIZE(64, 1, 1) void row(GLOBAL float* out, const int n) {\n"
      "  SHARED float tile[64];\n"
      "  tile[LOCAL_ID(0)] = (float)GLOBAL_ID(0);\n"
      "  BARRIER();\n"
      "  if ((int)GLOBAL_ID(0) < n) out[GLOBAL_ID(0)] = tile[63 - LOCAL_ID(0)];\n"
      "}\n"
      "KERNEL REQD_GROUP_SIZE(GROUP, 4, 2) void cube(GLOBAL float* out) { out[GLOBAL_ID(2)] = 1.0f; }\n";
  CHECK(duet::compile_for_cuda_arch(source, {{"GROUP", "8"}}, "sm_90", "required_group.duet") > 0);
}

TEST_CASE("a CUDA compile error is a CompileError at the user's line") {
  const char* source =
      "KERNEL void broken(GLOBAL float* x) {\n"  // 1
      "  const int i = (int)GLOBAL_ID(0);\n"     // 2
      "  x[i] = undeclared_thing_42 * 2.0f;\n"   // 3
      "}\n";                                     // 4
  for (const bool with_defines : {false, true}) {
    CAPTURE(with_defines);
    const duet::Defines defines =
        with_defines ? duet::Defines{{"T", "float"}, {"A", "1"}, {"B", "2"}} : duet::Defines{};
    const auto e =
        EXPECT_ERROR(duet::CompileError, duet::compile_for_cuda_arch(source, defines, "sm_90", "bad.duet"));
    if (!e) continue;
    CHECK(e->line() == 3);
    CHECK(e->backend() == "cuda");
    CHECK(e->source_name() == "bad.duet");
    CHECK_CONTAINS(e->log(), "undeclared_thing_42");
    const std::string what = e->what();
    CHECK_MESSAGE((contains(what, "bad.duet:3") || contains(what, "line 3")),
                  "what() does not name line 3: " << what);
    CHECK_MESSAGE(occurrences(what, e->log()) == 1, "what() should hold the log once: " << what);
  }
  // A define the source needs but was not given is also the user's error, not a crash.
  CHECK_THROWS_AS(duet::compile_for_cuda_arch("KERNEL void k(GLOBAL T* x) { x[0] = 0; }\n", {}, "sm_90"),
                  duet::CompileError);
}


TEST_CASE("the array kernels compile for sm_90 with every element type they take") {
  const char* copy = duet::builtin_kernel_source("array_copy");
  const char* ramp = duet::builtin_kernel_source("array_ramp");
  REQUIRE(copy != nullptr);
  REQUIRE(ramp != nullptr);
  for (const char* bits : {"uchar", "ushort", "uint", "ulong"}) {
    INFO("ELEM ", std::string(bits));
    CHECK(duet::compile_for_cuda_arch(copy, {{"ELEM", bits}}, "sm_90", "array_copy.duet") > 0);
  }
  for (const char* t : {"half", "float", "double", "char", "uchar", "short", "int", "uint", "long", "ulong"})
    for (const char* r : {"float", "double"}) {
      INFO("T ", std::string(t), ", R ", std::string(r));
      CHECK(duet::compile_for_cuda_arch(ramp, {{"T", t}, {"R", r}}, "sm_90", "array_ramp.duet") > 0);
    }
}
TEST_CASE("the tensor-core GEMM kernel compiles for sm_80 and sm_90 in every variant") {
  // Every op pair of half and bfloat16 into themselves and into float, and of float in TF32, with
  // copies of whole 16-byte runs (cp.async) on sm_80; on sm_90 each type with element-wise copies
  // and the small tiles too. The compiled code must hold the matrix instructions, not the portable form.
  using duet::Op;
  using duet::ScalarType;
  const char* source = duet::builtin_kernel_source("gemm_tc");
  REQUIRE(source != nullptr);
  std::vector<GemmTypes> types(std::begin(kHalfTypes), std::end(kHalfTypes));
  types.push_back({ScalarType::f32, ScalarType::unknown});
  auto compiles = [&](const char* arch, duet::Defines defines, const std::string& what) {
    INFO(arch, " ", what);
    defines.push_back({"TC_REQUIRE_MMA", "1"});
    try {
      CHECK(duet::compile_for_cuda_arch(source, defines, arch, "gemm_tc.duet") > 0);
    } catch (const duet::CompileError& e) {
      FAIL_CHECK("NVRTC rejected gemm_tc (line " << e.line() << "):\n" << e.log());
    }
  };
  for (const GemmTypes& t : types) {
    const std::string name = std::string(duet::to_string(t.in)) + " into " +
                             duet::to_string(t.out == ScalarType::unknown ? t.in : t.out);
    for (Op a : {Op::none, Op::transpose})
      for (Op b : {Op::none, Op::transpose})
        compiles("sm_80", duet::gemm_tc_defines(duet::tensor_tile(t.in), t.in, t.out, a, b, true, true),
                 name + ", op_a " + duet::to_string(a) + ", op_b " + duet::to_string(b) + ", whole runs");
    compiles("sm_90", duet::gemm_tc_defines(duet::tensor_tile(t.in), t.in, t.out, Op::transpose, Op::none, false, false),
             name + ", element-wise copies");
    compiles("sm_90",
             duet::gemm_tc_defines(duet::tensor_small_tile(t.in), t.in, t.out, Op::none, Op::transpose, true, false),
             name + ", small tiles");
    // CUDA's large tiles (dynamic shared memory, 3 stages), and other shapes and rings of the kind
    // DUET_GEMM_TC_TILE sweeps, on both architectures.
    duet::DeviceInfo sm90;
    sm90.backend = "cuda", sm90.vendor = "NVIDIA", sm90.arch = "sm_90";
    const duet::TensorTile large = duet::tensor_tile(t.in, sm90);
    for (Op a : {Op::none, Op::transpose})
      for (Op b : {Op::none, Op::transpose})
        compiles("sm_80", duet::gemm_tc_defines(large, t.in, t.out, a, b, true, true),
                 name + ", " + duet::to_string(large) + ", op_a " + duet::to_string(a) + ", op_b " +
                     duet::to_string(b));
    // Swizzled rows (16-bit elements only; the layout is the types' own): every operand layout,
    // rows of 2, 4 and 8 chunks, for the first type.
    if (&t == &types.front())
      for (const char* tile : {"128x128x32:64x32:3:1", "32x64x16:16x32:4:1"})
        for (Op a : {Op::none, Op::transpose})
          for (Op b : {Op::none, Op::transpose})
            compiles("sm_80",
                     duet::gemm_tc_defines(duet::parse_tensor_tile(tile), t.in, t.out, a, b, true, a == b),
                     name + ", " + tile + ", op_a " + duet::to_string(a) + ", op_b " + duet::to_string(b));
    // The sweep's shapes change the tiles, not the types' code: the first type and float only.
    if (&t != &types.front() && t.in != ScalarType::f32) continue;
    for (const char* tile : {"128x256x32:64x64:4", "128x128x32:64x64:4", "128x128x64:64x32:3",
                             "256x128x32:64x64:3", "128x128x32:64x32:5", "64x128x32:32x64:8"}) {
      const duet::TensorTile tt = duet::parse_tensor_tile(tile);
      compiles("sm_90", duet::gemm_tc_defines(tt, t.in, t.out, Op::transpose, Op::none, true, true),
               name + ", " + tile);
      compiles("sm_80", duet::gemm_tc_defines(tt, t.in, t.out, Op::none, Op::transpose, false, true),
               name + ", " + tile + ", element-wise A");
    }
  }
}

TEST_CASE("the warpgroup GEMM kernel compiles for sm_90a in every variant, and portably for sm_90") {
  // Every op pair of half and bfloat16 into themselves and into float, in both tile widths, and
  // the other pipelines (step order, two blocks, warp-specialized), must compile to the wgmma form
  // for sm_90a (the target the CUDA backend builds it for on an sm_90 device); the plain sm_90
  // target (no wgmma) gets the portable form, as every built-in kernel does.
  using duet::Op;
  using duet::ScalarType;
  const char* source = duet::builtin_kernel_source("gemm_wgmma");
  REQUIRE(source != nullptr);
  duet::WgmmaTile narrow, issue_first, two_blocks, specialized;
  narrow.bn = 128, narrow.stages = 6;
  issue_first.mma_first = true;  // DUET_GEMM_WGMMA_TILE's other step order
  two_blocks.bn = 128, two_blocks.stages = 3, two_blocks.blocks_per_sm = 2;
  specialized.ws = true;
  // The step order, two blocks and the warp-specialized form change the pipeline, not the operands'
  // layouts: each compiles for the first type's op pairs, the tile widths for every type's.
  for (const GemmTypes& t : kHalfTypes)
    for (const duet::WgmmaTile& tile : {duet::WgmmaTile{}, narrow, issue_first, two_blocks, specialized})
      for (Op a : {Op::none, Op::transpose})
        for (Op b : {Op::none, Op::transpose}) {
          if (!(tile == duet::WgmmaTile{}) && !(tile == narrow) && &t != &kHalfTypes[0]) continue;
          INFO(duet::to_string(t.in), " into ", duet::to_string(t.out == ScalarType::unknown ? t.in : t.out),
               ", BN ", tile.bn, ", op_a ", duet::to_string(a), ", op_b ", duet::to_string(b));
          duet::Defines defines = duet::gemm_wgmma_defines(tile, t.in, t.out, a, b);
          defines.push_back({"WG_REQUIRE_MMA", "1"});
          try {
            CHECK(duet::compile_for_cuda_arch(source, defines, "sm_90a", "gemm_wgmma.duet") > 0);
          } catch (const duet::CompileError& e) {
            FAIL_CHECK("NVRTC rejected gemm_wgmma for sm_90a (line " << e.line() << "):\n" << e.log());
          }
        }
  // TF32: float into float, A as stored and B transposed only (the instructions read it K-major).
  for (const duet::WgmmaTile& tile : {duet::WgmmaTile{}, narrow, issue_first, two_blocks, specialized}) {
    INFO("float (TF32), BN ", tile.bn, ", mma first ", tile.mma_first);
    duet::Defines defines = duet::gemm_wgmma_defines(tile, ScalarType::f32, ScalarType::unknown, Op::none,
                                                     Op::transpose);
    defines.push_back({"WG_REQUIRE_MMA", "1"});
    try {
      CHECK(duet::compile_for_cuda_arch(source, defines, "sm_90a", "gemm_wgmma.duet") > 0);
    } catch (const duet::CompileError& e) {
      FAIL_CHECK("NVRTC rejected gemm_wgmma (TF32) for sm_90a (line " << e.line() << "):\n" << e.log());
    }
  }
  // The tensor memory accelerator's copies (DUET_GEMM_WGMMA_TMA): one compile, half with both
  // operands as stored (A K-major, B MN-major: both kinds of box).
  {
    duet::WgmmaTile tma;
    tma.tma = true;
    duet::Defines defines = duet::gemm_wgmma_defines(tma, ScalarType::f16, ScalarType::unknown, Op::none, Op::none);
    defines.push_back({"WG_REQUIRE_MMA", "1"});
    try {
      CHECK(duet::compile_for_cuda_arch(source, defines, "sm_90a", "gemm_wgmma.duet") > 0);
    } catch (const duet::CompileError& e) {
      FAIL_CHECK("NVRTC rejected gemm_wgmma (TMA) for sm_90a (line " << e.line() << "):\n" << e.log());
    }
  }
  CHECK_THROWS_AS(duet::gemm_wgmma_defines(duet::WgmmaTile{}, ScalarType::f32, ScalarType::unknown, Op::none, Op::none),
                  duet::ArgumentError);
  duet::Defines required = duet::gemm_wgmma_defines(duet::WgmmaTile{}, ScalarType::bf16, ScalarType::unknown,
                                                    Op::none, Op::none);
  CHECK(duet::compile_for_cuda_arch(source, required, "sm_90", "gemm_wgmma.duet") > 0);
  required.push_back({"WG_REQUIRE_MMA", "1"});
  CHECK_THROWS_AS(duet::compile_for_cuda_arch(source, required, "sm_90", "gemm_wgmma.duet"), duet::CompileError);
}

TEST_SUITE_END();
