// Typed device memory, views of it, and memory another library owns.
//
// A Buffer<T> holds `size()` elements of T on one device. It is move-only, like std::unique_ptr: a
// moved-from or released buffer throws duet::ReleasedError when used. Transfers go through a Queue
// (see queue.hpp).
//
// Memory is shared between a buffer and its views (BufferView<T>, from Buffer<T>::view): device
// memory duet allocated is freed when the buffer and every view of it are gone. release() drops
// one handle's reference; free_now() frees the memory at once and refuses when it cannot.
//
// Interop without copies: Buffer<T>::wrap adopts memory another library allocated (a CUdeviceptr
// on CUDA, a cl_mem on OpenCL) without taking ownership, and native_handle() hands out duet's own.
// Thread safety: a buffer handle may be read from several threads (native_handle, view, launches);
// moving, releasing or freeing it needs the caller to ensure no other thread uses it meanwhile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "duet/device.hpp"
#include "duet/error.hpp"
#include "duet/export.hpp"
#include "duet/scalar_type.hpp"

namespace duet {

namespace backend {
class BufferImpl;
}
namespace detail {
struct Access;
}

// The untyped part shared by every Buffer<T> and BufferView<T>: a byte range [offset(), offset() +
// bytes()) of one device allocation.
class DUET_API RawBuffer {
 public:
  RawBuffer() = default;
  // Allocates `bytes` on `device`; OutOfMemoryError when the device cannot provide them.
  RawBuffer(const Device& device, std::size_t bytes);
  RawBuffer(RawBuffer&&) noexcept = default;
  RawBuffer& operator=(RawBuffer&&) noexcept = default;
  RawBuffer(const RawBuffer&) = delete;
  RawBuffer& operator=(const RawBuffer&) = delete;

  // Adopts memory another library owns, without copying and without taking ownership: duet never
  // frees it. `native` is a CUdeviceptr (CUDA) or a cl_mem (OpenCL) of `device`; the buffer covers
  // `bytes` bytes starting `byte_offset` bytes into it. Validated as far as the driver can tell:
  //   CUDA: cuPointerGetAttribute must know the address as device (or managed) memory of this
  //         device's context (the primary context, which the CUDA runtime uses too), with at least
  //         byte_offset + bytes bytes left in its allocation (ArgumentError, DeviceMismatchError,
  //         BufferSizeError).
  //   OpenCL: the cl_mem must be a buffer of this device's context (Device::native_context()) with
  //         CL_MEM_SIZE >= byte_offset + bytes. duet retains the cl_mem while it uses it and releases
  //         that reference when the last handle goes; the memory stays the owner's. A handle that is
  //         not a live cl_mem cannot be detected and is undefined behaviour, as in OpenCL itself.
  // `on_release`, when given, runs exactly once, after duet's last handle of the memory (the buffer
  // and every view of it) is gone: that is where the owner may free it (DLPack's deleter, for one).
  // If wrap throws, on_release is not called and the memory stays entirely the caller's.
  static RawBuffer wrap(const Device& device, std::uintptr_t native, std::size_t bytes,
                        std::size_t byte_offset = 0, std::function<void()> on_release = {});

  bool valid() const noexcept { return impl_ != nullptr; }
  std::size_t bytes() const noexcept { return bytes_; }
  // Bytes from the start of the device allocation (non-zero for views and offset wraps, and under
  // DUET_CHECK=1, where the allocation starts with a guard zone).
  std::size_t offset() const noexcept { return offset_; }
  // DUET_CHECK=1: the bytes of the guard zones before and after the allocation, which every launch
  // checks (0 otherwise, and for wrapped memory).
  std::size_t guard_bytes() const noexcept { return guard_; }
  // false for memory adopted with wrap(): duet never frees it.
  bool owns_memory() const;
  // Makes the memory (the whole allocation, through every handle of it, views included) order
  // itself between queues, as every Array's does: from now on an operation on one queue that uses
  // bytes another queue's pending operation writes (or, for a write, reads or writes) first makes
  // its queue wait for that operation, on the device (cuStreamWaitEvent, an OpenCL barrier; the
  // host never blocks). Without it, buffers follow CUDA streams and OpenCL queues: you order
  // queues yourself with events, and DUET_CHECK=1 reports an unordered use (UnorderedAccessError).
  // Launches count a kernel's const buffer parameters as reads and every other buffer as written.
  // Memory duet does not see used (native handles, DLPack consumers, wraps of the same memory made
  // separately) is not ordered. Cannot be undone.
  void order_between_queues();
  bool ordered_between_queues() const;
  // Leaves the memory out of DUET_CHECK's race detector: for memory that queues share by cells the
  // detector cannot see, which judges a launch by the whole buffer it is given (one queue's kernel
  // steps a tile while another queue unpacks the halo around it, say), where it would report a race
  // that is not there. Memory that orders itself keeps doing so. Cannot be undone.
  void exempt_from_queue_check();
  // The native memory handle, as an integer. CUDA: the CUdeviceptr of this range's first byte
  // (offset() included). OpenCL: the cl_mem of the whole allocation (add offset() yourself, or make
  // a sub-buffer); duet keeps its reference, so retain it if you keep it longer than the buffer.
  std::uintptr_t native_handle() const;
  // Whether this range's first byte lies at a multiple of `alignment` bytes (a power of two) in
  // device memory, which is what vector loads need: the offset alone does not tell for memory
  // wrapped at any address (a CUDA pointer from DLPack, say).
  bool starts_aligned(std::size_t alignment) const;
  // Another handle to bytes [offset, offset + bytes) of this range, sharing the memory.
  // BufferSizeError when the range does not fit.
  RawBuffer view(std::size_t offset, std::size_t bytes) const;
  // Another handle to this same range (an empty one for an empty handle). Never throws.
  RawBuffer share() const noexcept;

  // Drops this handle's reference; the memory is freed when no handle (buffer or view) is left,
  // and wrapped memory is never freed by duet (its on_release runs instead). Never throws.
  void release() noexcept;
  // Frees the device memory now. ArgumentError, and nothing changes, when duet does not own the
  // memory (wrapped: free it through its owner; release() drops duet's reference) or when other
  // handles (views, DLPack exports, mappings) still use it.
  void free_now();

  // This range extended back to start at the nearest multiple of `alignment` bytes from the start
  // of its allocation (the same range when it already does), sharing the memory. For libraries
  // that pass a view at any offset to a kernel: OpenCL takes a view argument only at a multiple of
  // DeviceInfo::view_alignment, so they pass the widened range with the difference, offset() -
  // widened.offset(), as an argument of their own (see duet/extension.hpp, kernel_range).
  RawBuffer aligned_back(std::size_t alignment) const;

  // Throws ReleasedError naming `what` ("the <what> was released or moved from") when this handle
  // holds no memory: empty, released or moved from. The check every call taking a buffer makes
  // first, so a released buffer is never reported as another problem.
  void check_live(const char* what = "buffer") const;
  // Whether this range and `other` lie in one device allocation (a buffer and its views, or views
  // of one buffer), overlapping or not. ReleasedError when either handle holds no memory.
  bool same_allocation(const RawBuffer& other) const;
  const Device& device() const;

 private:
  friend struct detail::Access;
  backend::BufferImpl& impl(const char* what) const;

  std::shared_ptr<backend::BufferImpl> impl_;
  Device device_;
  std::size_t bytes_ = 0;
  std::size_t offset_ = 0;
  std::size_t guard_ = 0;
};

template <class T>
class BufferView;

template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>, "Buffer<T> needs a trivially copyable T");

 public:
  using value_type = T;

  Buffer() = default;
  Buffer(const Device& device, std::size_t count) : raw_(device, bytes_for(count)), count_(count) {}
  Buffer(Buffer&& o) noexcept : raw_(std::move(o.raw_)), count_(o.count_) { o.count_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept {
    raw_ = std::move(o.raw_);
    count_ = o.count_;
    o.count_ = 0;
    return *this;
  }

  // A Buffer<T> over a range another handle holds (RawBuffer::share or view), sharing its memory: for
  // code that keeps memory untyped, such as the Python module's arrays. ArgumentError when the range
  // is not a whole number of T.
  static Buffer from_raw(RawBuffer raw) {
    if (raw.bytes() % sizeof(T) != 0)
      throw ArgumentError("a range of " + std::to_string(raw.bytes()) + " bytes is not a whole number of " +
                          std::to_string(sizeof(T)) + "-byte elements");
    const std::size_t count = raw.bytes() / sizeof(T);
    return Buffer(std::move(raw), count);
  }

  // `count` elements of memory another library owns, without copying (see RawBuffer::wrap for
  // the handle each backend takes, the checks, and when on_release runs). The result's
  // owns_memory() is false; release() only drops duet's reference, free_now() throws ArgumentError.
  static Buffer wrap(const Device& device, std::uintptr_t native, std::size_t count,
                     std::size_t byte_offset = 0, std::function<void()> on_release = {}) {
    return Buffer(RawBuffer::wrap(device, native, bytes_for(count), byte_offset, std::move(on_release)),
                  count);
  }

  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  bool valid() const noexcept { return raw_.valid(); }
  bool owns_memory() const { return raw_.owns_memory(); }
  // CUdeviceptr (CUDA) or cl_mem (OpenCL) as an integer; see RawBuffer::native_handle.
  std::uintptr_t native_handle() const { return raw_.native_handle(); }
  // Elements [offset, offset + count) as a view sharing this buffer's memory: usable as a kernel
  // argument and in every transfer. BufferSizeError when the range does not fit. A view does not
  // carry constness (like a pointer into the buffer, not a copy of it).
  BufferView<T> view(std::size_t offset, std::size_t count) const;
  // Drops this handle's reference (see RawBuffer::release); later use throws ReleasedError.
  void release() noexcept {
    raw_.release();
    count_ = 0;
  }
  // Frees the device memory now; ArgumentError for wrapped memory or memory views still use.
  void free_now() {
    raw_.free_now();
    count_ = 0;
  }
  const Device& device() const { return raw_.device(); }
  // See RawBuffer::order_between_queues.
  void order_between_queues() { raw_.order_between_queues(); }
  static constexpr ScalarType element_type() { return scalar_type_of<T>(); }

  RawBuffer& raw() noexcept { return raw_; }
  const RawBuffer& raw() const noexcept { return raw_; }

 private:
  Buffer(RawBuffer raw, std::size_t count) : raw_(std::move(raw)), count_(count) {}

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

// A sub-range of a Buffer<T>: `size()` elements starting `offset()` elements into it. A view shares
// the buffer's memory and keeps it alive. It can be passed wherever a buffer is read or written:
// Queue::write/read/copy/fill/map/to_vector, duet::copy, and as a kernel argument, where its
// element type is checked against the kernel's parameter like a Buffer<T>'s.
// Kernel arguments: on CUDA a view is its first element's address, at any offset. On OpenCL it
// becomes a sub-buffer (clCreateSubBuffer), whose start must be a multiple of the device's
// CL_DEVICE_MEM_BASE_ADDR_ALIGN (DeviceInfo::view_alignment bytes, e.g. 128 on PoCL); a view
// that starts elsewhere is refused at launch with ArgumentError. Transfers take any offset.
template <class T>
class BufferView {
 public:
  using value_type = T;

  BufferView() = default;
  // The whole buffer.
  BufferView(const Buffer<T>& buffer) : raw_(buffer.raw().share()), count_(buffer.size()) {}
  BufferView(const BufferView& o) : raw_(o.raw_.share()), count_(o.count_), first_(o.first_) {}
  BufferView& operator=(const BufferView& o) {
    if (this != &o) *this = BufferView(o);
    return *this;
  }
  BufferView(BufferView&&) noexcept = default;
  BufferView& operator=(BufferView&&) noexcept = default;

  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  // The first element's index in the buffer the view was made from.
  std::size_t offset() const noexcept { return first_; }
  bool valid() const noexcept { return raw_.valid(); }
  const Device& device() const { return raw_.device(); }
  std::uintptr_t native_handle() const { return raw_.native_handle(); }
  // A view of elements [offset, offset + count) of this view.
  BufferView view(std::size_t offset, std::size_t count) const {
    check(offset, count, count_, "view of a view");
    return BufferView(raw_.view(offset * sizeof(T), count * sizeof(T)), count, first_ + offset);
  }
  static constexpr ScalarType element_type() { return scalar_type_of<T>(); }

  const RawBuffer& raw() const noexcept { return raw_; }
  RawBuffer& raw() noexcept { return raw_; }

  // Internal, for Buffer<T>::view.
  static void check(std::size_t offset, std::size_t count, std::size_t size, const char* what) {
    if (offset > size || count > size - offset)
      throw BufferSizeError(std::string(what) + " of " + std::to_string(count) + " elements at element " +
                            std::to_string(offset) + " goes past the end of the " + std::to_string(size) +
                            " elements it is made from");
  }
  BufferView(RawBuffer raw, std::size_t count, std::size_t first)
      : raw_(std::move(raw)), count_(count), first_(first) {}

 private:
  RawBuffer raw_;
  std::size_t count_ = 0;
  std::size_t first_ = 0;
};

template <class T>
BufferView<T> Buffer<T>::view(std::size_t offset, std::size_t count) const {
  raw_.check_live("buffer to view");
  BufferView<T>::check(offset, count, count_, "a view");
  return BufferView<T>(raw_.view(offset * sizeof(T), count * sizeof(T)), count, offset);
}

}  // namespace duet
