// Typed device memory. A Buffer<T> owns `size()` elements of T on one device and frees them when it
// is destroyed or released. It is move-only, like std::unique_ptr: a moved-from or released buffer
// throws duet::ReleasedError when used. Transfers go through a Queue (see queue.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "duet/device.hpp"
#include "duet/error.hpp"
#include "duet/scalar_type.hpp"

namespace duet {

namespace backend {
class BufferImpl;
}

// The untyped part shared by every Buffer<T>.
class RawBuffer {
 public:
  RawBuffer() = default;
  RawBuffer(const Device& device, std::size_t bytes);
  RawBuffer(RawBuffer&&) noexcept = default;
  RawBuffer& operator=(RawBuffer&&) noexcept = default;
  RawBuffer(const RawBuffer&) = delete;
  RawBuffer& operator=(const RawBuffer&) = delete;

  bool valid() const noexcept { return impl_ != nullptr; }
  std::size_t bytes() const noexcept { return bytes_; }
  void release() noexcept;
  // Throws ReleasedError naming `what` when released; returns the backend object otherwise.
  backend::BufferImpl& impl(const char* what = "buffer") const;
  const Device& device() const;

 private:
  std::shared_ptr<backend::BufferImpl> impl_;
  Device device_;
  std::size_t bytes_ = 0;
};

template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>, "Buffer<T> needs a trivially copyable T");

 public:
  Buffer() = default;
  Buffer(const Device& device, std::size_t count) : raw_(device, bytes_for(count)), count_(count) {}
  Buffer(Buffer&& o) noexcept : raw_(std::move(o.raw_)), count_(o.count_) { o.count_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept {
    raw_ = std::move(o.raw_);
    count_ = o.count_;
    o.count_ = 0;
    return *this;
  }

  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  bool valid() const noexcept { return raw_.valid(); }
  // Frees the device memory now; later use throws ReleasedError.
  void release() noexcept { raw_.release(); count_ = 0; }
  const Device& device() const { return raw_.device(); }
  static constexpr ScalarType element_type() { return scalar_type_of<T>(); }

  RawBuffer& raw() noexcept { return raw_; }
  const RawBuffer& raw() const noexcept { return raw_; }

 private:
  static std::size_t bytes_for(std::size_t count) {
    if (count > static_cast<std::size_t>(-1) / sizeof(T))
      throw OutOfMemoryError("a buffer of " + std::to_string(count) + " elements of " +
                                 std::to_string(sizeof(T)) + " bytes does not fit in the address space",
                             static_cast<std::uint64_t>(-1), 0);
    return count * sizeof(T);
  }

  RawBuffer raw_;
  std::size_t count_ = 0;
};

}  // namespace duet
