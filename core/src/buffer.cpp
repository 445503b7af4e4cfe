// RawBuffer: allocation with the size checks every backend shares, views, and wrapping memory
// other libraries own; RawHostBuffer: pinned host memory. Sizes above the device's largest single
// allocation fail here, with the numbers, before the driver is asked (OpenCL drivers may otherwise
// accept them and fail later, at first use); so do host buffers larger than the machine's memory.
#include "duet/buffer.hpp"

#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "duet/error.hpp"
#include "duet/host_buffer.hpp"
#include "guard_zones.hpp"
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
    s << "cannot allocate " << bytes << " bytes (" << gib(bytes) << ") on " << info.id() << " (" << info.name
      << "): the largest single allocation is " << info.max_alloc_bytes << " bytes ("
      << gib(info.max_alloc_bytes) << ") of " << gib(info.memory_bytes)
      << " device memory; use smaller buffers";
    throw OutOfMemoryError(s.str(), bytes, info.memory_bytes);
  }
  // A zero-length buffer is valid and owns no device memory; transfers of zero bytes are no-ops.
  const std::size_t guard = detail::guard_bytes(info);
  if (guard == 0) {
    impl_ = detail::Access::core(device)->impl->allocate(bytes == 0 ? 1 : bytes);
    if (detail::checked_mode()) impl_->accesses.set_mode(detail::BufferAccesses::Mode::checked);
    return;
  }
  if (bytes > info.max_alloc_bytes - 2 * guard) {
    std::ostringstream s;
    s << "cannot allocate " << bytes << " bytes on " << info.id()
      << " under DUET_CHECK=1: with its two guard "
      << "zones of " << guard << " bytes the allocation would pass the largest the device allows ("
      << info.max_alloc_bytes << " bytes); use smaller buffers, or unset DUET_CHECK";
    throw OutOfMemoryError(s.str(), bytes, info.memory_bytes);
  }
  impl_ = detail::Access::core(device)->impl->allocate(guard + bytes + guard);
  offset_ = guard;
  guard_ = guard;
  impl_->accesses.set_mode(detail::BufferAccesses::Mode::checked);
  detail::arm_guard_zones(device, *impl_, guard);
}

namespace {

// Holds a wrapped buffer and the owner's release callback. Every handle of the memory (the buffer
// and its views) shares this one object through an aliasing shared_ptr, so the callback runs once,
// when the last of them goes, and after the backend object let go of the memory.
struct ReleaseHook {
  std::shared_ptr<backend::BufferImpl> impl;
  std::function<void()> on_release;
  ~ReleaseHook() {
    impl.reset();
    try {
      on_release();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "duet: the release callback of a wrapped buffer threw: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "duet: the release callback of a wrapped buffer threw\n");
    }
  }
};

}  // namespace

RawBuffer RawBuffer::wrap(const Device& device, std::uintptr_t native, std::size_t bytes,
                          std::size_t byte_offset, std::function<void()> on_release) {
  const DeviceInfo& info = device.info();  // ReleasedError-free: throws for an empty handle
  if (native == 0)
    throw ArgumentError("cannot wrap a null " + std::string(detail::Access::core(device)->backend->native_buffer_type()) +
                        " as a buffer of " + info.id());
  if (byte_offset > static_cast<std::size_t>(-1) - bytes)
    throw BufferSizeError("a wrapped range of " + std::to_string(bytes) + " bytes at byte offset " +
                          std::to_string(byte_offset) + " does not fit in the address space");
  // A zero-length wrap still checks the handle: the driver is asked about one byte.
  std::shared_ptr<backend::BufferImpl> impl =
      detail::Access::core(device)->impl->wrap(native, byte_offset + (bytes == 0 ? 1 : bytes));
  if (detail::checked_mode()) impl->accesses.set_mode(detail::BufferAccesses::Mode::checked);
  RawBuffer out;
  if (on_release) {
    auto hook = std::make_shared<ReleaseHook>();
    hook->impl = std::move(impl);
    hook->on_release = std::move(on_release);
    backend::BufferImpl* raw = hook->impl.get();
    out.impl_ = std::shared_ptr<backend::BufferImpl>(std::move(hook), raw);
  } else {
    out.impl_ = std::move(impl);
  }
  out.device_ = device;
  out.bytes_ = bytes;
  out.offset_ = byte_offset;
  return out;
}

RawBuffer RawBuffer::share() const noexcept {
  RawBuffer out;
  if (!impl_) return out;
  out.impl_ = impl_;
  out.device_ = device_;
  out.bytes_ = bytes_;
  out.offset_ = offset_;
  out.guard_ = guard_;
  return out;
}

RawBuffer RawBuffer::view(std::size_t offset, std::size_t bytes) const {
  impl("buffer to view");
  if (offset > bytes_ || bytes > bytes_ - offset) {
    std::ostringstream s;
    s << "a view of " << bytes << " bytes at byte offset " << offset << " goes past the end of the " << bytes_
      << " bytes it is made from";
    throw BufferSizeError(s.str());
  }
  RawBuffer out = share();
  out.offset_ = offset_ + offset;
  out.bytes_ = bytes;
  return out;
}

RawBuffer RawBuffer::aligned_back(std::size_t alignment) const {
  impl("buffer to align");
  RawBuffer out = share();
  if (alignment > 1) {
    const std::size_t back = offset_ % alignment;
    out.offset_ = offset_ - back;
    out.bytes_ = bytes_ + back;
  }
  return out;
}

void RawBuffer::order_between_queues() {
  impl("buffer to order between queues").accesses.set_mode(detail::BufferAccesses::Mode::ordered);
}

void RawBuffer::exempt_from_queue_check() {
  detail::BufferAccesses& a = impl("buffer to exempt from the queue check").accesses;
  if (a.mode() == detail::BufferAccesses::Mode::checked) a.set_mode(detail::BufferAccesses::Mode::off);
}

bool RawBuffer::ordered_between_queues() const {
  return impl("buffer").accesses.mode() == detail::BufferAccesses::Mode::ordered;
}

bool RawBuffer::owns_memory() const { return impl("buffer").owns_memory(); }

bool RawBuffer::starts_aligned(std::size_t alignment) const {
  return impl("buffer").aligned_at(offset_, alignment);
}

std::uintptr_t RawBuffer::native_handle() const { return impl("buffer").native_handle(offset_); }

void RawBuffer::release() noexcept {
  impl_.reset();
  bytes_ = 0;
  offset_ = 0;
  guard_ = 0;
}

void RawBuffer::free_now() {
  const backend::BufferImpl& b = impl("buffer to free");
  if (!b.owns_memory())
    throw ArgumentError(
        "cannot free a wrapped external buffer: its memory belongs to the library that allocated it "
        "(Buffer::wrap / from_dlpack). Free it through its owner; release() drops duet's reference");
  const long others = impl_.use_count() - 1;
  if (others > 0)
    throw ArgumentError("cannot free the buffer now: " + std::to_string(others) +
                        " other handle(s) (views, mappings or DLPack exports) still use its memory; "
                        "drop them first, or call release() to drop only this handle");
  release();
}

backend::BufferImpl& RawBuffer::impl(const char* what) const {
  if (!impl_)
    throw ReleasedError(std::string("the ") + what +
                        " was released or moved from; it holds no device memory");
  return *impl_;
}

void RawBuffer::check_live(const char* what) const { impl(what); }

bool RawBuffer::same_allocation(const RawBuffer& other) const {
  return &impl("buffer") == &other.impl("buffer");
}

const Device& RawBuffer::device() const {
  impl("buffer");
  return device_;
}

RawHostBuffer::RawHostBuffer(const Device& device, std::size_t bytes) : device_(device), bytes_(bytes) {
  const DeviceInfo& info = device.info();  // throws for an empty handle
  // More than the machine has can never be page-locked; drivers answer that in their own ways (an
  // invalid value, an out-of-memory code, a mapping that fails), so it is refused here, alike.
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0 && bytes / static_cast<std::size_t>(page) >= static_cast<std::size_t>(pages)) {
    const std::uint64_t memory = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
    std::ostringstream s;
    s << "cannot allocate " << bytes << " bytes (" << gib(bytes) << ") of pinned host memory for "
      << info.id() << ": the machine has " << gib(memory) << " of memory; use smaller host buffers";
    throw OutOfMemoryError(s.str(), bytes, 0);
  }
  // Like device buffers, an empty host buffer is valid; it still holds a (1-byte) allocation so
  // that data() is a real address.
  impl_ = detail::Access::core(device)->impl->allocate_host(bytes == 0 ? 1 : bytes);
  data_ = impl_->data();
}

void* RawHostBuffer::checked_data(const char* what) const {
  if (!impl_)
    throw ReleasedError(std::string("the ") + what + " was released or moved from; it holds no host memory");
  return data_;
}

void RawHostBuffer::release() noexcept {
  impl_.reset();
  data_ = nullptr;
  bytes_ = 0;
}

const Device& RawHostBuffer::device() const {
  checked_data();
  return device_;
}

std::string RawHostBuffer::device_view_unavailable() const {
  checked_data();
  return impl_->device_view_unavailable();
}

RawBuffer RawHostBuffer::device_view() const {
  const std::string why = device_view_unavailable();
  if (!why.empty()) throw ArgumentError("RawHostBuffer::device_view: " + why);
  // The buffer's backend object and the host memory under it, in one owner shared by every handle
  // of the view: the host memory goes only after the last of them (members end in reverse order).
  struct Mapped {
    std::shared_ptr<backend::HostMemoryImpl> host;
    std::shared_ptr<backend::BufferImpl> view;
  };
  auto mapped = std::make_shared<Mapped>(Mapped{impl_, impl_->device_view()});
  backend::BufferImpl* view = mapped->view.get();
  RawBuffer out = detail::Access::make_buffer(
      device_, std::shared_ptr<backend::BufferImpl>(std::move(mapped), view), bytes_);
  if (detail::checked_mode()) view->accesses.set_mode(detail::BufferAccesses::Mode::checked);
  return out;
}

}  // namespace duet
