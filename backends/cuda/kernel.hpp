// One kernel of a CUDA program: its CUfunction, plus the byte size of each parameter when the
// driver can tell (cuFuncGetParamInfo, CUDA 12.4+ drivers). The sizes are read once, here, so the
// count check in core and the size check in CudaQueue::launch cost nothing per launch.
//
// Dynamic shared memory: a kernel `k` whose program defines the device variable
// `__device__ unsigned int duet_dynamic_shared_bytes_k = BYTES;` is launched with BYTES of dynamic
// shared memory (`extern __shared__`), past the 48 KiB a block's static shared memory may hold;
// the variable is read once, here, and the kernel allowed that much
// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES). The dialect has no such declaration: kernels
// written for one architecture's instructions (gemm_wgmma.duet) declare it in their CUDA part.
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
  // `module`: where to read the kernel's dynamic shared memory from; null for a kernel without any.
  CudaKernel(std::shared_ptr<const CudaProgram> program, CUmodule module, CUfunction fn, std::string name,
             int declared_params);

  int arg_count() const override;
  std::vector<ParamInfo> params() const override;
  CUfunction handle() const noexcept { return fn_; }
  // Bytes of dynamic shared memory every launch gives the kernel (0 for most).
  unsigned dynamic_shared_bytes() const noexcept { return dynamic_shared_; }
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
  unsigned dynamic_shared_ = 0;
};

}  // namespace duet::backend::cuda
