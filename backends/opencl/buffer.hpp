// Device memory of the OpenCL backend: one cl_mem in its device's context, either allocated by duet
// or wrapped (a cl_mem another library made, retained here and released when the object goes, which
// frees nothing the owner still holds). The buffer holds its device, so the device reference that
// core asks for stays valid as long as any buffer lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backend.hpp"
#include "cl_api.hpp"

namespace duet::backend::opencl {

class OpenCLDevice;

class OpenCLBuffer final : public BufferImpl {
 public:
  // `buffer` holds one reference of its own (for a wrapped cl_mem, one retained by the caller).
  OpenCLBuffer(std::shared_ptr<const OpenCLDevice> device, cl::Buffer buffer, std::size_t bytes,
               bool owns_memory = true);
  ~OpenCLBuffer() override;

  std::size_t bytes() const override { return bytes_; }
  const DeviceImpl& device() const override;
  bool owns_memory() const override { return owns_; }
  std::uintptr_t native_handle(std::size_t) const override { return reinterpret_cast<std::uintptr_t>(buffer_()); }
  // A cl_mem starts at CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least 128 bytes on every device duet has
  // met; a wrapped sub-buffer's origin too), so the offset decides for the alignments kernels use.
  bool aligned_at(std::size_t byte_offset, std::size_t alignment) const override {
    return byte_offset % alignment == 0;
  }
  cl_mem mem() const { return buffer_(); }
  // Unique among the buffers of this process, never reused (unlike a released cl_mem's address):
  // kernels compare it to know whether an argument is already set.
  std::uint64_t serial() const { return serial_; }

 private:
  std::shared_ptr<const OpenCLDevice> device_;
  cl::Buffer buffer_;  // its destructor releases the cl_mem and ignores the code, so it never throws
  std::size_t bytes_;
  bool owns_;
  std::uint64_t serial_;
};

}  // namespace duet::backend::opencl
