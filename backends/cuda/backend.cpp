// The CUDA backend as the registry sees it: its probe, the name of its buffer handles, and NVRTC,
// which compiles for an architecture without a GPU (CI checks the CUDA side of every kernel so).
#include <cuda.h>

#include <string>
#include <vector>

#include "nvrtc_api.hpp"
#include "probe.hpp"

namespace duet::backend {
namespace cuda {
namespace {

class CudaBackend final : public Backend {
 public:
  Probe probe() const override { return probe_cuda(); }
  const char* native_buffer_type() const override { return "CUdeviceptr"; }
  std::optional<OfflineBuild> compile_offline(const std::string& source, const std::string& name,
                                              const std::string& target) const override {
    OfflineBuild build;
    std::vector<char> cubin;
    build.compiled = nvrtc_compile_cubin(source, name, target, {}, cubin, build.log, build.options);
    build.binary_bytes = cubin.size();
    return build;
  }
  std::string ptx_unavailable() const override {
    std::string reason;
    return load_nvrtc(&reason) ? std::string() : reason;
  }
  std::optional<bool> compile_ptx(const std::string& source, const std::string& name,
                                  const std::string& target, std::string& ptx, std::string& log,
                                  std::vector<std::string>& options) const override {
    return nvrtc_compile_ptx(source, name, target, {}, ptx, log, options);
  }
  std::vector<std::string> native_kernel_markers() const override { return {"__global__"}; }
  // A fault loses the context: every later call in it returns the fault's code.
  bool survives_kernel_fault() const override { return false; }
  // The codes a kernel's own failure leaves in the context (sticky: every later call returns them).
  bool is_kernel_fault(const DriverError& error) const override {
    if (error.backend() != "cuda") return false;
    switch (static_cast<CUresult>(error.native_code())) {
      case CUDA_ERROR_ILLEGAL_ADDRESS:
      case CUDA_ERROR_LAUNCH_FAILED:
      case CUDA_ERROR_MISALIGNED_ADDRESS:
      case CUDA_ERROR_ILLEGAL_INSTRUCTION:
      case CUDA_ERROR_INVALID_ADDRESS_SPACE:
      case CUDA_ERROR_INVALID_PC:
      case CUDA_ERROR_HARDWARE_STACK_ERROR:
      case CUDA_ERROR_ASSERT:
      case CUDA_ERROR_LAUNCH_TIMEOUT:
        return true;
      default:
        return false;
    }
  }
};

}  // namespace
}  // namespace cuda

const Backend& cuda_backend() {
  static const cuda::CudaBackend backend;
  return backend;
}

}  // namespace duet::backend
