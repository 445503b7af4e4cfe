// Pinned (page-locked) host memory that duet allocates for one device. Transfers between a
// HostBuffer and device memory run asynchronously on the device's copy engines, so a copy on one
// queue overlaps a kernel on another; from ordinary (pageable) memory the driver must stage the
// data through a pinned buffer of its own, which serialises the copy with the calling thread.
//
//   CUDA:   cuMemHostAlloc(CU_MEMHOSTALLOC_PORTABLE): pinned for every CUDA context of the process.
//   OpenCL: a CL_MEM_ALLOC_HOST_PTR buffer of the device's context, mapped once (on a private
//           queue) for its host address and unmapped when the HostBuffer is destroyed. Drivers such
//           as NVIDIA's back such buffers with pinned memory; on CPU devices it is ordinary memory.
//
// A HostBuffer<T> is move-only and frees its memory when destroyed or released. Its contents are
// not initialised. It converts to Span<T> / Span<const T>, so it is passed to Queue::write/read like
// a std::vector; as with any host memory, it must outlive the transfers that use it (Queue::finish,
// or wait for the transfer's Event, before destroying or reusing it). It may be used from any
// thread; concurrent writes to the same elements need the caller's own synchronisation.
//
// Where the device allows it (CUDA with unified addressing), device_view() gives the same memory
// as a buffer of the device: kernels then read and write it in place, over the bus, with no copy
// command and no device memory (zero-copy), for data a kernel touches once. Each access crosses the
// bus, so data used more than once belongs in device memory. Host and kernels take turns: what a
// kernel writes is the host's once an event after the kernel has completed, and what the host
// writes is the kernel's if written before the launch is enqueued.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/error.hpp"
#include "duet/export.hpp"
#include "duet/span.hpp"

namespace duet {

namespace backend {
class HostMemoryImpl;
}

// The untyped part of HostBuffer<T>.
class DUET_API RawHostBuffer {
 public:
  RawHostBuffer() = default;
  // Allocates `bytes` of pinned host memory for `device`; OutOfMemoryError when the system refuses.
  RawHostBuffer(const Device& device, std::size_t bytes);
  RawHostBuffer(RawHostBuffer&&) noexcept = default;
  RawHostBuffer& operator=(RawHostBuffer&&) noexcept = default;
  RawHostBuffer(const RawHostBuffer&) = delete;
  RawHostBuffer& operator=(const RawHostBuffer&) = delete;

  bool valid() const noexcept { return impl_ != nullptr; }
  std::size_t bytes() const noexcept { return bytes_; }
  // Null when released.
  void* data() const noexcept { return data_; }
  // The address, or ReleasedError naming `what` when released.
  void* checked_data(const char* what = "host buffer") const;
  void release() noexcept;
  const Device& device() const;
  // Why the device's kernels cannot use this memory in place; empty when they can (CUDA with
  // unified addressing: yes; OpenCL: no). ReleasedError when released.
  std::string device_view_unavailable() const;
  // This memory as a buffer of the device (the whole range, never freed through the buffer, which
  // keeps the host memory alive as long as any handle of it lives). ArgumentError, with the reason,
  // where device_view_unavailable() is not empty; ReleasedError when released.
  RawBuffer device_view() const;

 private:
  std::shared_ptr<backend::HostMemoryImpl> impl_;
  Device device_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

template <class T>
class HostBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "HostBuffer<T> needs a trivially copyable T");

 public:
  using value_type = T;

  HostBuffer() = default;
  HostBuffer(const Device& device, std::size_t count) : raw_(device, bytes_for(count)), count_(count) {}
  HostBuffer(HostBuffer&& o) noexcept : raw_(std::move(o.raw_)), count_(o.count_) { o.count_ = 0; }
  HostBuffer& operator=(HostBuffer&& o) noexcept {
    raw_ = std::move(o.raw_);
    count_ = o.count_;
    o.count_ = 0;
    return *this;
  }

  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  bool valid() const noexcept { return raw_.valid(); }
  // Null when released.
  T* data() const noexcept { return static_cast<T*>(raw_.data()); }
  T* begin() const noexcept { return data(); }
  T* end() const noexcept { return data() + count_; }
  T& operator[](std::size_t i) const noexcept { return data()[i]; }
  const Device& device() const { return raw_.device(); }
  // Frees the pinned memory now; later use throws ReleasedError.
  void release() noexcept {
    raw_.release();
    count_ = 0;
  }

  // All elements; ReleasedError when released.
  Span<T> span() const { return Span<T>(static_cast<T*>(raw_.checked_data()), count_); }
  // Elements [offset, offset + count); BufferSizeError when the host buffer is too small for them.
  Span<T> span(std::size_t offset, std::size_t count) const {
    T* p = static_cast<T*>(raw_.checked_data());
    if (offset > count_ || count > count_ - offset)
      throw BufferSizeError("the host buffer holds " + std::to_string(count_) + " elements, too few for " +
                            std::to_string(count) + " elements at element " + std::to_string(offset));
    return Span<T>(p + offset, count);
  }
  operator Span<T>() const { return span(); }
  operator Span<const T>() const { return span(); }

  RawHostBuffer& raw() noexcept { return raw_; }
  const RawHostBuffer& raw() const noexcept { return raw_; }
  // RawHostBuffer::device_view as a Buffer<T> of size() elements.
  Buffer<T> device_view() const { return Buffer<T>::from_raw(raw_.device_view()); }

 private:
  static std::size_t bytes_for(std::size_t count) {
    if (count > static_cast<std::size_t>(-1) / sizeof(T))
      throw OutOfMemoryError("a host buffer of " + std::to_string(count) + " elements of " +
                                 std::to_string(sizeof(T)) + " bytes does not fit in the address space",
                             static_cast<std::uint64_t>(-1), 0);
    return count * sizeof(T);
  }

  RawHostBuffer raw_;
  std::size_t count_ = 0;
};

}  // namespace duet
