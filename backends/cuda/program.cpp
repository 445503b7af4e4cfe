// CudaProgram (see program.hpp). A cubin from a newer NVRTC than the driver may be refused, so a
// failed load names both versions: that is the usual cause, and the error is otherwise cryptic.
#include "program.hpp"

#include "context.hpp"
#include "device.hpp"
#include "errors.hpp"
#include "kernel.hpp"
#include "nvrtc_api.hpp"

namespace duet::backend::cuda {

CudaProgram::CudaProgram(std::shared_ptr<const CudaDevice> device, CUcontext ctx,
                         const std::vector<char>& cubin, const std::string& name)
    : device_(std::move(device)), ctx_(ctx), cubin_(cubin.begin(), cubin.end()) {
  ContextGuard guard(ctx_);
  const CUresult r = driver().cuModuleLoadData(&module_, cubin.data());
  if (r == CUDA_SUCCESS) return;
  if (r == CUDA_ERROR_OUT_OF_MEMORY) throw_error(r, "cuModuleLoadData(" + name + ")");
  const DeviceInfo& info = device_->info();
  throw DriverError("cuda", "cuModuleLoadData(" + name + ")", static_cast<long>(r), result_name(r),
                    result_text(r) + "; the " + info.arch + " cubin came from " + nvrtc_description() +
                        " and " + info.name + " has a " + info.driver);
}

CudaProgram::~CudaProgram() {
  ContextGuard guard(ctx_, std::nothrow);
  if (guard.ok()) DUET_CU_NOTHROW(cuModuleUnload, module_);
}

std::shared_ptr<KernelImpl> CudaProgram::kernel(const std::string& name, int declared_params) {
  ContextGuard guard(ctx_);
  CUfunction fn = nullptr;
  const CUresult r = driver().cuModuleGetFunction(&fn, module_, name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND) return nullptr;
  check(r, ("cuModuleGetFunction(module, \"" + name + "\")").c_str());
  // Only a kernel whose cubin names its dynamic shared memory variable (see kernel.hpp) has it looked
  // up: a lookup that fails would show as an API error in every compute-sanitizer run.
  const std::string var = "duet_dynamic_shared_bytes_" + name;
  const bool dynamic_shared = cubin_.find(std::string(var.c_str(), var.size() + 1)) != std::string::npos;
  return std::make_shared<CudaKernel>(shared_from_this(), dynamic_shared ? module_ : nullptr, fn, name,
                                      declared_params);
}

}  // namespace duet::backend::cuda
