// RawBuffer: allocation with the size checks every backend shares. Sizes above the device's largest
// single allocation fail here, with the numbers, before the driver is asked (OpenCL drivers may
// otherwise accept them and fail later, at first use).
#include "duet/buffer.hpp"

#include <sstream>

#include "duet/error.hpp"
#include "state.hpp"

namespace duet {
namespace {

std::string gib(std::uint64_t bytes) {
  std::ostringstream s;
  s.precision(3);
  s << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return s.str();
}

}  // namespace

RawBuffer::RawBuffer(const Device& device, std::size_t bytes) : device_(device), bytes_(bytes) {
  const DeviceInfo& info = device.info();
  if (bytes > info.max_alloc_bytes || bytes > info.memory_bytes) {
    std::ostringstream s;
    s << "cannot allocate " << bytes << " bytes (" << gib(bytes) << ") on " << info.id() << " ("
      << info.name << "): the largest single allocation is " << info.max_alloc_bytes << " bytes ("
      << gib(info.max_alloc_bytes) << ") of " << gib(info.memory_bytes)
      << " device memory; use smaller buffers";
    throw OutOfMemoryError(s.str(), bytes, info.memory_bytes);
  }
  // A zero-length buffer is valid and owns no device memory; transfers of zero bytes are no-ops.
  impl_ = device.core()->impl->allocate(bytes == 0 ? 1 : bytes);
}

void RawBuffer::release() noexcept {
  impl_.reset();
  bytes_ = 0;
}

backend::BufferImpl& RawBuffer::impl(const char* what) const {
  if (!impl_)
    throw ReleasedError(std::string("the ") + what +
                        " was released or moved from; it holds no device memory");
  return *impl_;
}

const Device& RawBuffer::device() const {
  impl("buffer");
  return device_;
}

}  // namespace duet
