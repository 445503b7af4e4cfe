// CudaBuffer (see buffer.hpp). cuMemFree waits for work still using the memory, so a buffer
// released while a queue is busy with it is freed safely, at the cost of that wait.
#include "buffer.hpp"

#include "context.hpp"
#include "device.hpp"
#include "errors.hpp"

namespace duet::backend::cuda {

CudaBuffer::CudaBuffer(std::shared_ptr<const CudaDevice> device, CUcontext ctx, std::size_t bytes)
    : device_(std::move(device)), ctx_(ctx), bytes_(bytes) {
  ContextGuard guard(ctx_);
  const DeviceInfo& info = device_->info();
  check_alloc(driver().cuMemAlloc(&ptr_, bytes_), "cuMemAlloc", bytes_, info.memory_bytes,
              info.id() + " (" + info.name + ")");
}

CudaBuffer::CudaBuffer(Wrapped, std::shared_ptr<const CudaDevice> device, CUdeviceptr ptr, std::size_t bytes)
    : device_(std::move(device)), ptr_(ptr), bytes_(bytes), owns_(false) {}

CudaBuffer::CudaBuffer(Imported, std::shared_ptr<const CudaDevice> device, CUcontext ctx, CUdeviceptr base,
                       CUdeviceptr ptr, std::size_t bytes)
    : device_(std::move(device)), ctx_(ctx), ptr_(ptr), bytes_(bytes), owns_(false), imported_base_(base) {}

CudaBuffer::~CudaBuffer() {
  if (device_->abandoned()) return;
  if (imported_base_) {
    ContextGuard guard(ctx_, std::nothrow);
    if (guard.ok()) DUET_CU_NOTHROW(cuIpcCloseMemHandle, imported_base_);
    return;
  }
  if (!owns_) return;  // the memory belongs to whoever allocated it
  ContextGuard guard(ctx_, std::nothrow);
  if (guard.ok()) DUET_CU_NOTHROW(cuMemFree, ptr_);
}

const DeviceImpl& CudaBuffer::device() const { return *device_; }

}  // namespace duet::backend::cuda
