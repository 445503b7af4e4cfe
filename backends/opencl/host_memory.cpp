// OpenCLHostMemory (see host_memory.hpp). The unmap in the destructor is waited for, so the
// buffer's release that follows never races a pending unmap of the same memory.
#include "host_memory.hpp"

#include <cstdio>
#include <string>

#include "device.hpp"
#include "errors.hpp"

namespace duet::backend::opencl {

OpenCLHostMemory::OpenCLHostMemory(std::shared_ptr<const OpenCLDevice> device, cl::Buffer buffer,
                                   cl::CommandQueue queue, std::size_t bytes)
    : device_(std::move(device)), buffer_(std::move(buffer)), queue_(std::move(queue)), bytes_(bytes) {
  cl_int err = CL_SUCCESS;
  data_ = clEnqueueMapBuffer(queue_(), buffer_(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes_, 0, nullptr,
                             nullptr, &err);
  if (err != CL_SUCCESS) {
    if (is_allocation_failure(err))
      throw OutOfMemoryError(device_->label() + " could not map " + std::to_string(bytes_) +
                                 " bytes of host memory (clEnqueueMapBuffer returned " + error_name(err) +
                                 "); allocate a smaller host buffer",
                             bytes_, 0);
    throw_driver_error("clEnqueueMapBuffer", err,
                       "mapping a " + std::to_string(bytes_) + "-byte host buffer on " + device_->label());
  }
}

OpenCLHostMemory::~OpenCLHostMemory() {
  if (device_->abandoned()) {  // leaked, not unmapped: see OpenCLDevice::abandon
    clRetainMemObject(buffer_());
    clRetainCommandQueue(queue_());
    return;
  }
  cl_event event = nullptr;
  cl_int err = clEnqueueUnmapMemObject(queue_(), buffer_(), data_, 0, nullptr, &event);
  if (err == CL_SUCCESS) {
    err = clWaitForEvents(1, &event);
    clReleaseEvent(event);
  }
  if (err != CL_SUCCESS)
    std::fprintf(stderr, "duet: opencl: unmapping a host buffer failed with %s (%d)\n", error_name(err),
                 static_cast<int>(err));
}

}  // namespace duet::backend::opencl
