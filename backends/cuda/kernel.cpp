// CudaKernel (see kernel.hpp). cuFuncGetParamInfo has no "count" query: it answers
// CUDA_ERROR_INVALID_VALUE for the first index past the last parameter, so the count is the number
// of indices that succeed. Any other answer means the driver cannot tell, and the kernel reports -1.
// For a dialect kernel the declaration gives the count, and only those indices are asked: the
// failing call past the end would show up as an API error in every compute-sanitizer run of a
// program that uses duet.
#include "kernel.hpp"

#include "context.hpp"
#include "errors.hpp"
#include "driver_api.hpp"
#include "program.hpp"

namespace duet::backend::cuda {

CudaKernel::CudaKernel(std::shared_ptr<const CudaProgram> program, CUmodule module, CUfunction fn,
                       std::string name, int declared_params)
    : program_(std::move(program)), fn_(fn), name_(std::move(name)) {
  if (module) {
    ContextGuard guard(program_->context());
    CUdeviceptr var = 0;
    std::size_t bytes = 0;
    const std::string var_name = "duet_dynamic_shared_bytes_" + name_;
    const CUresult r = driver().cuModuleGetGlobal(&var, &bytes, module, var_name.c_str());
    if (r == CUDA_SUCCESS && bytes == sizeof(unsigned)) {
      check(driver().cuMemcpyDtoH(&dynamic_shared_, var, sizeof(unsigned)),
            ("cuMemcpyDtoH(" + var_name + ")").c_str());
      check(driver().cuFuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        static_cast<int>(dynamic_shared_)),
            ("cuFuncSetAttribute(" + name_ + ", max dynamic shared memory " + std::to_string(dynamic_shared_) +
             " bytes)")
                .c_str());
    } else if (r != CUDA_ERROR_NOT_FOUND && r != CUDA_SUCCESS) {
      check(r, ("cuModuleGetGlobal(" + var_name + ")").c_str());
    }
  }
#if CUDA_VERSION >= 12040
  const DriverApi& api = driver();
  if (!api.cuFuncGetParamInfo) return;
  ContextGuard guard(program_->context(), std::nothrow);
  if (!guard.ok()) return;
  // Kernel parameters take at most 32 KiB, so this bound is never the reason the loop stops.
  const std::size_t asked = declared_params >= 0 ? static_cast<std::size_t>(declared_params) : 32768;
  for (std::size_t i = 0; i < asked; ++i) {
    std::size_t offset = 0, size = 0;
    const CUresult r = api.cuFuncGetParamInfo(fn_, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) {
      sizes_known_ = true;
      return;
    }
    if (r != CUDA_SUCCESS) break;
    param_sizes_.push_back(size);
  }
  if (declared_params >= 0 && param_sizes_.size() == asked) {
    sizes_known_ = true;
    return;
  }
  param_sizes_.clear();
#endif
}

int CudaKernel::arg_count() const { return sizes_known_ ? static_cast<int>(param_sizes_.size()) : -1; }

std::vector<ParamInfo> CudaKernel::params() const {
  std::vector<ParamInfo> params;
  for (std::size_t size : param_sizes_) {
    params.emplace_back();
    params.back().size = size;
  }
  return params;
}

}  // namespace duet::backend::cuda
