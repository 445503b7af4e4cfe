// Queues (CUDA streams / OpenCL command queues) and events.
//
// Every launch and transfer is asynchronous: it is enqueued and the call returns. Host memory handed
// to write()/read() must stay valid and unchanged until the queue has finished with it (finish(), or
// an Event recorded after the transfer has completed). Only finish(), Event::wait() and the
// functions documented as blocking wait for the device. A Queue may be used by one thread at a time.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "duet/buffer.hpp"
#include "duet/error.hpp"
#include "duet/program.hpp"
#include "duet/span.hpp"

namespace duet {

namespace detail {
template <class T>
struct NoDeduceT {
  using type = T;
};
// Keeps a parameter out of template deduction, so Span<const T> is built from a std::vector<T>.
template <class T>
using NoDeduce = typename NoDeduceT<T>::type;
}  // namespace detail

namespace backend {
class QueueImpl;
class EventImpl;
}  // namespace backend

// A 1-, 2- or 3-dimensional size. Range() (0 dimensions) as a local size lets duet choose.
struct Range {
  Range() = default;
  Range(std::size_t x) : dims(1), size{x, 1, 1} {}
  Range(std::size_t x, std::size_t y) : dims(2), size{x, y, 1} {}
  Range(std::size_t x, std::size_t y, std::size_t z) : dims(3), size{x, y, z} {}
  int dims = 0;
  std::array<std::size_t, 3> size{1, 1, 1};
  std::size_t operator[](int i) const { return size[static_cast<std::size_t>(i)]; }
};

namespace detail {
struct EventState;
}

// A point in a queue's timeline: it completes when everything enqueued on its queue before it has
// completed. Every launch, transfer and fill returns one; Queue::record() makes one explicitly.
// Events are cheap when unused: the driver's event is only created when an Event is kept past the
// next operation on its queue, or used. Events may be waited on from any thread.
class Event {
 public:
  Event() = default;
  explicit Event(std::shared_ptr<detail::EventState> state) : state_(std::move(state)) {}
  // Blocks until the event has completed.
  void wait() const;
  // Whether the event has completed; never blocks.
  bool done() const;
  bool valid() const noexcept { return state_ != nullptr; }
  const Device& device() const;
  backend::EventImpl& impl() const;

 private:
  std::shared_ptr<detail::EventState> state_;
};

// Device time in milliseconds between two events of the same queue. Waits for both.
double elapsed_ms(const Event& start, const Event& end);

// One launch argument, type-erased: a buffer or a scalar of at most 16 bytes.
struct KernelArg {
  enum class Kind { buffer, scalar };
  Kind kind = Kind::scalar;
  const RawBuffer* buffer = nullptr;
  ScalarType type = ScalarType::unknown;  // scalar type, or the buffer's element type
  std::size_t size = 0;                   // scalar size in bytes
  std::array<unsigned char, 16> bytes{};

  template <class T>
  static KernelArg from(const Buffer<T>& b) {
    KernelArg a;
    a.kind = Kind::buffer;
    a.buffer = &b.raw();
    a.type = scalar_type_of<T>();
    return a;
  }
  template <class T>
  static KernelArg from(const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 16,
                  "kernel scalars must be trivially copyable and at most 16 bytes");
    KernelArg a;
    a.type = scalar_type_of<T>();
    a.size = sizeof(T);
    std::memcpy(a.bytes.data(), &value, sizeof(T));
    return a;
  }
};

class Queue {
 public:
  Queue() = default;

  const Device& device() const;
  bool valid() const noexcept { return state_ != nullptr; }
  void release() noexcept { state_.reset(); }

  // Launch `kernel` over `global` work-items in groups of `local` (Range() lets duet choose).
  // The global size is rounded up to a multiple of the local size; kernels guard their bounds.
  // Argument count, kinds and types are checked against the kernel's declaration before launch.
  template <class... Args>
  Event launch(const Kernel& kernel, const Range& global, const Range& local, const Args&... args) {
    return launch_args(kernel, global, local, {KernelArg::from(args)...});
  }
  Event launch_args(const Kernel& kernel, const Range& global, const Range& local,
                    const std::vector<KernelArg>& args);

  template <class T>
  Event write(Buffer<T>& dst, detail::NoDeduce<Span<const T>> src, std::size_t dst_offset = 0) {
    return write_bytes(dst.raw(), dst_offset * sizeof(T), src.data(), src.size_bytes(), "write");
  }
  template <class T>
  Event read(const Buffer<T>& src, detail::NoDeduce<Span<T>> dst, std::size_t src_offset = 0) {
    return read_bytes(src.raw(), src_offset * sizeof(T), dst.data(), dst.size_bytes(), "read");
  }
  // Copies all of src into the start of dst; dst must be at least as large.
  template <class T>
  Event copy(const Buffer<T>& src, Buffer<T>& dst) {
    return copy_bytes(src.raw(), 0, dst.raw(), 0, src.bytes());
  }
  template <class T>
  Event copy(const Buffer<T>& src, std::size_t src_offset, Buffer<T>& dst, std::size_t dst_offset,
             std::size_t count) {
    return copy_bytes(src.raw(), src_offset * sizeof(T), dst.raw(), dst_offset * sizeof(T),
                      count * sizeof(T));
  }
  template <class T>
  Event fill(Buffer<T>& dst, const T& value) {
    return fill_bytes(dst.raw(), 0, dst.bytes(), &value, sizeof(T));
  }

  // Blocking: waits for the queue, then returns the buffer's contents.
  template <class T>
  std::vector<T> to_vector(const Buffer<T>& src) {
    std::vector<T> out(src.size());
    read(src, Span<T>(out));
    finish();
    return out;
  }

  // An event that completes when everything enqueued so far has completed.
  Event record();
  // Work enqueued on this queue from now on starts only after `event` (from any queue of the same
  // device) has completed. Does not block the host.
  void wait(const Event& event);
  // Blocks until everything enqueued so far has completed.
  void finish();

  Event write_bytes(RawBuffer& dst, std::size_t offset, const void* src, std::size_t bytes, const char* what);
  Event read_bytes(const RawBuffer& src, std::size_t offset, void* dst, std::size_t bytes, const char* what);
  Event copy_bytes(const RawBuffer& src, std::size_t src_offset, RawBuffer& dst, std::size_t dst_offset,
                   std::size_t bytes);
  Event fill_bytes(RawBuffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                   std::size_t pattern_size);

  struct State;
  explicit Queue(std::shared_ptr<State> s) : state_(std::move(s)) {}
  backend::QueueImpl& impl() const;

 private:
  State& state() const;
  // Brackets every enqueue: materialises the previous operation's event if someone kept it, and
  // hands out the event of the operation just enqueued.
  State& before_enqueue() const;
  Event after_enqueue(State& s) const;
  std::shared_ptr<State> state_;
};

}  // namespace duet
