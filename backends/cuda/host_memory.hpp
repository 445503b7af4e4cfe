// Pinned host memory from cuMemHostAlloc, freed with cuMemFreeHost when the object goes. Allocated
// PORTABLE, so it counts as pinned for every CUDA context of the process, not only the device's:
// a HostBuffer of one GPU stages copies to another GPU at full speed too. With unified addressing
// (every 64-bit process on devices that have it) such memory is mapped for every device's kernels
// at its host address, whatever the allocation's flags: device_view wraps that address.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>

#include "backend.hpp"

namespace duet::backend::cuda {

class CudaDevice;

class CudaHostMemory final : public HostMemoryImpl {
 public:
  // Allocates `bytes` (> 0) with `ctx` current; OutOfMemoryError when the system refuses.
  CudaHostMemory(std::shared_ptr<const CudaDevice> device, CUcontext ctx, std::size_t bytes);
  ~CudaHostMemory() override;
  CudaHostMemory(const CudaHostMemory&) = delete;
  CudaHostMemory& operator=(const CudaHostMemory&) = delete;

  void* data() const override { return data_; }
  std::size_t bytes() const override { return bytes_; }
  std::string device_view_unavailable() const override;
  std::shared_ptr<BufferImpl> device_view() override;

 private:
  std::shared_ptr<const CudaDevice> device_;  // keeps the context alive for cuMemFreeHost
  CUcontext ctx_;
  void* data_ = nullptr;
  std::size_t bytes_;
};

}  // namespace duet::backend::cuda
