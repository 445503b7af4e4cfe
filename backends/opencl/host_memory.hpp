// Pinned host memory on OpenCL: a CL_MEM_ALLOC_HOST_PTR buffer of the device's context, mapped once
// for its host address on the device's private queue (never a user's queue, so allocating waits for
// no user work) and unmapped when the object goes. OpenCL has no call that pins memory as such;
// this is the form drivers back with page-locked memory (NVIDIA documents it as the way to get
// pinned memory), and transfers from its address run asynchronously at full speed.
#pragma once

#include <memory>
#include <string>

#include "backend.hpp"
#include "cl_api.hpp"

namespace duet::backend::opencl {

class OpenCLDevice;

class OpenCLHostMemory final : public HostMemoryImpl {
 public:
  // Maps `buffer` (of `bytes` > 0) on `queue`; throws DriverError / OutOfMemoryError on failure.
  OpenCLHostMemory(std::shared_ptr<const OpenCLDevice> device, cl::Buffer buffer, cl::CommandQueue queue,
                   std::size_t bytes);
  ~OpenCLHostMemory() override;
  OpenCLHostMemory(const OpenCLHostMemory&) = delete;
  OpenCLHostMemory& operator=(const OpenCLHostMemory&) = delete;

  void* data() const override { return data_; }
  std::size_t bytes() const override { return bytes_; }
  // OpenCL hands host and device a buffer's contents in turn (mapped or not), never both at once.
  std::string device_view_unavailable() const override {
    return "OpenCL lets the host and kernels use a buffer only in turn (clEnqueueMapBuffer / unmap), so "
           "its kernels cannot use pinned host memory in place; copy to and from a device buffer with "
           "Queue::write and read";
  }
  std::shared_ptr<BufferImpl> device_view() override { return nullptr; }

 private:
  std::shared_ptr<const OpenCLDevice> device_;
  cl::Buffer buffer_;
  cl::CommandQueue queue_;
  void* data_ = nullptr;
  std::size_t bytes_;
};

}  // namespace duet::backend::opencl
