// CudaHostMemory (see host_memory.hpp). A failed pinned allocation is reported as OutOfMemoryError:
// the limit is the system's page-locked memory, not the device's.
#include "host_memory.hpp"

#include <string>

#include "buffer.hpp"
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

std::string CudaHostMemory::device_view_unavailable() const {
  if (device_->unified_addressing()) return {};
  return device_->info().id() +
         " has no unified addressing, so its kernels cannot reach pinned host memory "
         "at its address; copy to and from a device buffer with Queue::write and read";
}

std::shared_ptr<BufferImpl> CudaHostMemory::device_view() {
  return std::make_shared<CudaBuffer>(CudaBuffer::Wrapped{}, device_, reinterpret_cast<CUdeviceptr>(data_),
                                      bytes_);
}

CudaHostMemory::~CudaHostMemory() {
  if (device_->abandoned()) return;
  ContextGuard guard(ctx_, std::nothrow);
  if (guard.ok()) DUET_CU_NOTHROW(cuMemFreeHost, data_);
}

}  // namespace duet::backend::cuda
