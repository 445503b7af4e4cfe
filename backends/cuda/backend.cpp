// The CUDA backend as the registry sees it: its probe, the name of its buffer handles, and NVRTC,
// which compiles for an architecture without a GPU (CI checks the CUDA side of every kernel so).
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
};

}  // namespace
}  // namespace cuda

const Backend& cuda_backend() {
  static const cuda::CudaBackend backend;
  return backend;
}

}  // namespace duet::backend
