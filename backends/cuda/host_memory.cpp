// CudaHostMemory (see host_memory.hpp). A failed pinned allocation is reported as OutOfMemoryError:
// the limit is the system's page-locked memory, not the device's.
#include "host_memory.hpp"

#include <string>

#include "context.hpp"
#include "device.hpp"
#include "errors.hpp"

namespace duet::backend::cuda {

CudaHostMemory::CudaHostMemory(std::shared_ptr<const CudaDevice> device, CUcontext ctx, std::size_t bytes)
    : device_(std::move(device)), ctx_(ctx), bytes_(bytes) {
  ContextGuard guard(ctx_);
  const CUresult r = driver().cuMemHostAlloc(&data_, bytes_, CU_MEMHOSTALLOC_PORTABLE);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    throw OutOfMemoryError("cuda: cannot allocate " + std::to_string(bytes_) +
                               " bytes of pinned host memory (cuMemHostAlloc returned " + result_name(r) +
                               "); the system limits page-locked memory: allocate less",
                           bytes_, 0);
  check(r, "cuMemHostAlloc(&data_, bytes_, CU_MEMHOSTALLOC_PORTABLE)");
}

CudaHostMemory::~CudaHostMemory() {
  if (device_->abandoned()) return;
  ContextGuard guard(ctx_, std::nothrow);
  if (guard.ok()) DUET_CU_NOTHROW(cuMemFreeHost, data_);
}

}  // namespace duet::backend::cuda
