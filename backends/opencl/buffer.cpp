// The OpenCL buffer. All the work of allocating (and of reporting a full device) happens in
// OpenCLDevice::allocate, which is the only place that makes these, already committed to the device.
#include "buffer.hpp"

#include <atomic>

#include <utility>

#include "device.hpp"

namespace duet::backend::opencl {

OpenCLBuffer::OpenCLBuffer(std::shared_ptr<const OpenCLDevice> device, cl::Buffer buffer,
                           std::size_t bytes, bool owns_memory)
    : device_(std::move(device)), buffer_(std::move(buffer)), bytes_(bytes), owns_(owns_memory) {
  static std::atomic<std::uint64_t> next{1};  // 0 stands for "a scalar" in OpenCLKernel's cache
  serial_ = next.fetch_add(1, std::memory_order_relaxed);
}

OpenCLBuffer::~OpenCLBuffer() {
  if (device_->abandoned()) clRetainMemObject(buffer_());  // leaked: see OpenCLDevice::abandon
}

const DeviceImpl& OpenCLBuffer::device() const { return *device_; }

}  // namespace duet::backend::opencl
