// One kernel of a CUDA program: its CUfunction, plus the byte size of each parameter when the
// driver can tell (cuFuncGetParamInfo, CUDA 12.4+ drivers). The sizes are read once, here, so the
// count check in core and the size check in CudaQueue::launch cost nothing per launch.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"

namespace duet::backend::cuda {

class CudaProgram;

class CudaKernel final : public KernelImpl {
 public:
  // `declared_params` >= 0: how many parameters the dialect declaration lists (see kernel.cpp).
  CudaKernel(std::shared_ptr<const CudaProgram> program, CUfunction fn, std::string name, int declared_params);

  int arg_count() const override;
  std::vector<ParamInfo> params() const override;
  CUfunction handle() const noexcept { return fn_; }
  const std::string& name() const noexcept { return name_; }
  // The size in bytes of each parameter; null when the driver cannot tell.
  const std::vector<std::size_t>* param_sizes() const noexcept {
    return sizes_known_ ? &param_sizes_ : nullptr;
  }

 private:
  std::shared_ptr<const CudaProgram> program_;  // keeps the module loaded
  CUfunction fn_;
  std::string name_;
  bool sizes_known_ = false;
  std::vector<std::size_t> param_sizes_;
};

}  // namespace duet::backend::cuda
