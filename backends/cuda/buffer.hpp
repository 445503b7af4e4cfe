// Device memory from cuMemAlloc, freed when the last reference goes; or memory another library
// allocated (wrapped), which is never freed here. The buffer keeps its device (and so the device's
// context) alive, because freeing memory needs the context it came from.
#pragma once

#include <cuda.h>

#include <memory>

#include "backend.hpp"

namespace duet::backend::cuda {

class CudaDevice;

class CudaBuffer final : public BufferImpl {
 public:
  // Allocates `bytes` (> 0) in `ctx`, the device's context; throws OutOfMemoryError when the device
  // cannot provide them.
  CudaBuffer(std::shared_ptr<const CudaDevice> device, CUcontext ctx, std::size_t bytes);
  // Adopts `ptr` (checked by CudaDevice::wrap) without taking ownership.
  struct Wrapped {};
  CudaBuffer(Wrapped, std::shared_ptr<const CudaDevice> device, CUdeviceptr ptr, std::size_t bytes);
  // Memory another process exported, opened with cuIpcOpenMemHandle at `base` in `ctx`; `ptr` lies
  // within it. Closed (cuIpcCloseMemHandle), never freed, when the buffer goes.
  struct Imported {};
  CudaBuffer(Imported, std::shared_ptr<const CudaDevice> device, CUcontext ctx, CUdeviceptr base, CUdeviceptr ptr,
             std::size_t bytes);
  ~CudaBuffer() override;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  std::size_t bytes() const override { return bytes_; }
  const DeviceImpl& device() const override;
  bool owns_memory() const override { return owns_; }
  std::uintptr_t native_handle(std::size_t byte_offset) const override {
    return static_cast<std::uintptr_t>(ptr_) + byte_offset;
  }
  bool aligned_at(std::size_t byte_offset, std::size_t alignment) const override {
    return (static_cast<std::uintptr_t>(ptr_) + byte_offset) % alignment == 0;
  }
  CUdeviceptr handle() const noexcept { return ptr_; }

 private:
  std::shared_ptr<const CudaDevice> device_;
  CUcontext ctx_ = nullptr;
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_;
  bool owns_ = true;
  CUdeviceptr imported_base_ = 0;  // non-zero for imported memory
};

}  // namespace duet::backend::cuda
