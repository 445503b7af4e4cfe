// Device memory of the OpenCL backend: one cl_mem in its device's context. The buffer holds its
// device, so the device reference that core asks for stays valid as long as any buffer lives.
#pragma once

#include <cstddef>
#include <memory>

#include "backend.hpp"
#include "cl_api.hpp"

namespace duet::backend::opencl {

class OpenCLDevice;

class OpenCLBuffer final : public BufferImpl {
 public:
  OpenCLBuffer(std::shared_ptr<const OpenCLDevice> device, cl::Buffer buffer, std::size_t bytes);

  std::size_t bytes() const override { return bytes_; }
  const DeviceImpl& device() const override;
  cl_mem mem() const { return buffer_(); }

 private:
  std::shared_ptr<const OpenCLDevice> device_;
  cl::Buffer buffer_;  // its destructor releases the cl_mem and ignores the code, so it never throws
  std::size_t bytes_;
};

}  // namespace duet::backend::opencl
