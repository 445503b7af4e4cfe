// NVRTC's PTX made fit for NVIDIA's OpenCL (backends/opencl/ptx_program.hpp), tested on text laid out
// as NVRTC writes it for compute_90a, so the rewrite is checked on every machine, without NVRTC or a
// GPU. Whether the driver then runs such PTX is for the GPU machine (docs/blas.md).
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "../../backends/opencl/ptx_program.hpp"

namespace {

using duet::backend::opencl::opencl_ptx;

const char* const kModule =
    ".version 9.0\n"
    ".target sm_90a\n"
    ".address_size 64\n"
    "\n"
    ".global .align 4 .u32 duet_dynamic_shared_bytes_k = 99328;\n"
    ".extern .shared .align 16 .b8 sh[];\n"
    "\n"
    ".visible .entry k(\n"
    "\t.param .u64 k_param_0,\n"
    "\t.param .u64 k_param_1,\n"
    "\t.param .u32 k_param_2,\n"
    "\t.param .u64 k_param_3\n"
    ")\n"
    "{\n"
    "\tld.param.u64 \t%rd2, [k_param_0];\n"
    "\tld.param.u64 \t%rd4, [k_param_3];\n"
    "}\n"
    ".visible .entry other(\n"
    "\t.param .u64 other_param_0\n"
    ")\n"
    "{\n"
    "}\n";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("buffer parameters become global pointers; 64-bit scalars stay as they are") {
  std::string problem;
  const std::map<std::string, std::vector<bool>> buffers{{"k", {true, true, false, false}}};
  const std::string fit = opencl_ptx(kModule, buffers, problem);
  CHECK(problem.empty());
  CHECK(has(fit, "\t.param .u64 .ptr .global .align 16 k_param_0,\n"));
  CHECK(has(fit, "\t.param .u64 .ptr .global .align 16 k_param_1,\n"));
  CHECK(has(fit, "\t.param .u32 k_param_2,\n"));
  CHECK(has(fit, "\t.param .u64 k_param_3\n)"));  // a view's byte offset: a scalar
  // A kernel the map does not name keeps its parameters, and the bodies are untouched.
  CHECK(has(fit, "\t.param .u64 other_param_0\n"));
  CHECK(has(fit, "\tld.param.u64 \t%rd2, [k_param_0];\n"));
  CHECK(has(fit, ".target sm_90a\n"));
}

TEST_CASE("the dynamic shared array becomes static, of the size the module declares") {
  std::string problem;
  const std::string fit = opencl_ptx(kModule, {{"k", {true, true, false, false}}}, problem);
  CHECK(problem.empty());
  CHECK(has(fit, "\n.shared .align 16 .b8 sh[99328];\n"));
  CHECK_FALSE(has(fit, ".extern .shared"));
}

TEST_CASE("PTX that cannot be made fit is refused with the reason") {
  std::string problem;
  std::string text = kModule;
  text.erase(text.find(".global .align 4"), text.find(".extern") - text.find(".global .align 4"));
  CHECK(opencl_ptx(text, {{"k", {true, true, false, false}}}, problem).empty());
  CHECK(has(problem, "declares no duet_dynamic_shared_bytes_<kernel>"));

  problem.clear();
  CHECK(opencl_ptx(kModule, {{"k", {true, true, true, false}}}, problem).empty());
  CHECK(has(problem, "parameter 2 of kernel k is a buffer but its PTX parameter is not 64 bits"));
}
