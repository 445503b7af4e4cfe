// A compiled program on CUDA: the CUmodule loaded from NVRTC's cubin. Kernels hold the program,
// so the module stays loaded while any of its functions can still be launched.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"

namespace duet::backend::cuda {

class CudaDevice;

class CudaProgram final : public ProgramImpl, public std::enable_shared_from_this<CudaProgram> {
 public:
  // Loads `cubin` into `ctx`, the device's context; throws DriverError when the driver refuses it.
  CudaProgram(std::shared_ptr<const CudaDevice> device, CUcontext ctx, const std::vector<char>& cubin,
              const std::string& name);
  ~CudaProgram() override;
  CudaProgram(const CudaProgram&) = delete;
  CudaProgram& operator=(const CudaProgram&) = delete;

  std::shared_ptr<KernelImpl> kernel(const std::string& name, int declared_params) override;
  // Empty: core knows the kernel names from the dialect source.
  std::vector<std::string> kernel_names() const override { return {}; }
  // The cubin itself: loading it again needs the same architecture, which the cache key holds.
  std::string binary() const override { return cubin_; }

  CUcontext context() const noexcept { return ctx_; }

 private:
  std::shared_ptr<const CudaDevice> device_;
  CUcontext ctx_;
  CUmodule module_ = nullptr;
  std::string cubin_;
};

}  // namespace duet::backend::cuda
