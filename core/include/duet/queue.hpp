// Queues (CUDA streams / OpenCL command queues), events, mapping device memory into the host, and
// copies between devices.
//
// Every launch and transfer is asynchronous: it is enqueued and the call returns. Host memory handed
// to write()/read() must stay valid and unchanged until the queue has finished with it (finish(), or
// an Event recorded after the transfer has completed). Only finish(), Event::wait(), map() and the
// functions documented as blocking wait for the device. Copies from and to pinned memory
// (HostBuffer, host_buffer.hpp) overlap kernels running on other queues of the device.
//
// Thread safety: a Queue may be used by any number of threads at once, like the CUDA stream or
// OpenCL command queue beneath it. Each operation (launch, write, read, copy, fill, map, unmap,
// record, wait, finish, native_handle) is enqueued whole, and the queue runs them in the order the
// threads' calls got there; a thread that needs its own operations kept together (none of another
// thread's in between) orders them itself. The operations take the queue's lock for as long as they
// enqueue, so one thread's blocking map() also holds up the other threads' operations on that queue
// until it returns; finish() waits without it. Queues are cheap, and a queue per thread never waits
// for another thread and keeps each thread's work in its own order. The handle is like a
// shared_ptr: threads may call one Queue object's operations at once, but assigning or releasing
// an object while another thread uses it is a race; give each thread a copy to be free of that.
// The Device may be shared by any number of threads, and so may Programs, Kernels (also launched on
// several queues at once) and Events: an Event may be waited on, or passed to Queue::wait, from any
// thread. Several queues of one device run concurrently; order work across them with events.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "duet/buffer.hpp"
#include "duet/error.hpp"
#include "duet/export.hpp"
#include "duet/host_buffer.hpp"
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
struct Access;
}

class Event;
// (Declared before Event names it a friend, so that the friend is the exported function below.)
DUET_API double elapsed_ms(const Event& start, const Event& end);

// A point in a queue's timeline: it completes when everything enqueued on its queue before it has
// completed. Every launch, transfer, fill, copy and unmap returns one; Queue::record() makes one
// explicitly. Events may be waited on from any thread.
//
// What an operation's event marks: the point right after that operation in its queue, and after
// no later one. duet creates the driver's event lazily (a CUDA event recorded on the stream, an
// OpenCL marker enqueued on the queue): when the event is first used (wait, done, elapsed_ms,
// duration_ms, Queue::wait), or just before the next operation on its queue if the event is still
// held, whichever comes first. So an event kept past later operations still marks its own, and
// events dropped unused cost no driver call. Under DUET_CHECK=1 a launch's event comes after the
// guard-zone check that follows the launch. Queue::record() creates its driver event at once.
//
// What its time is (elapsed_ms): the moment the device reached that point, which is when everything
// before it had ended, or, if the queue had already run dry, when duet created the driver's event.
// For a span with no idle time in it, record() both ends right after enqueueing (as a timing loop
// does), or time single operations with duration_ms.
class DUET_API Event {
 public:
  Event() = default;
  // Blocks until the event has completed.
  void wait() const;
  // Whether the event has completed; never blocks.
  bool done() const;
  // How long the event's operation ran on the device, in milliseconds: from the start of its first
  // command to the end of its last (a launch: the kernel; a transfer, copy or fill: the transfer),
  // by the device's clock, without the time it waited in the queue. Waits for the operation. Needs
  // a queue made with QueueOptions::command_timing (device.hpp); an operation with nothing to do
  // (an empty launch, zero bytes) lasts 0 ms. TimingUnavailableError for an event of another
  // queue, and for one of Queue::record() (a point has no duration); ReleasedError when empty.
  double duration_ms() const;
  bool valid() const noexcept { return state_ != nullptr; }
  const Device& device() const;

 private:
  friend struct detail::Access;
  friend double elapsed_ms(const Event& start, const Event& end);
  explicit Event(std::shared_ptr<detail::EventState> state) : state_(std::move(state)) {}
  backend::EventImpl& impl() const;
  std::shared_ptr<detail::EventState> state_;
};

// Device time in milliseconds from `start` to `end`, two events of the same queue (see Event for
// what each point's time is). Waits for both. ArgumentError, before waiting, when the events
// belong to different queues (their spans overlap and neither queue's time is measured) or to
// different devices (their clocks differ); ReleasedError when either is empty.
DUET_API double elapsed_ms(const Event& start, const Event& end);

// How a mapped range is used (Queue::map). `write` promises to overwrite the whole range, so its
// old contents need not be fetched to the host (they are undefined in the mapping).
enum class MapAccess { read, write, read_write };

class RawMapping;
template <class T>
class Mapped;
class Graph;

// Where a 2D block lies in linear memory (a buffer, or host memory), in elements: its first row
// starts `offset` elements in, each further row `pitch` elements after the start of the one before.
// A row-major matrix of nx columns has pitch nx. With one row, pitch is not used.
struct Pitched {
  std::size_t offset = 0;
  std::size_t pitch = 0;
};
// A 2D block's size: `rows` rows of `width` elements each.
struct Extent2D {
  std::size_t width = 0;
  std::size_t rows = 0;
};

// One launch argument, type-erased: a buffer (or a view of one) or a scalar of at most 16 bytes.
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
  static KernelArg from(const BufferView<T>& v) {
    KernelArg a;
    a.kind = Kind::buffer;
    a.buffer = &v.raw();
    a.type = scalar_type_of<T>();
    return a;
  }
  // A buffer argument of element type `type` over untyped memory (for generated kernels, whose
  // element types are known at run time). `b` must outlive the launch call.
  static KernelArg from_raw(const RawBuffer& b, ScalarType type) {
    KernelArg a;
    a.kind = Kind::buffer;
    a.buffer = &b;
    a.type = type;
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

class Queue;
namespace extension {
DUET_API std::shared_ptr<void> queue_slot(const Queue& queue, std::string_view key,
                                          const std::function<std::shared_ptr<void>()>& make);
}

class DUET_API Queue {
 public:
  Queue() = default;

  const Device& device() const;
  bool valid() const noexcept { return state_ != nullptr; }
  void release() noexcept { state_.reset(); }
  // Expires with the last copy of this queue: shows whether a queue is gone without keeping it.
  std::weak_ptr<const void> lifetime() const noexcept { return state_; }

  // Launch `kernel` over `global` work-items in groups of `local` (Range() lets duet choose).
  // The global size is rounded up to a multiple of the local size; kernels guard their bounds.
  // Argument count, kinds and types are checked against the kernel's declaration before launch.
  template <class... Args>
  Event launch(const Kernel& kernel, const Range& global, const Range& local, const Args&... args) {
    const std::array<KernelArg, sizeof...(Args)> list{KernelArg::from(args)...};
    return launch_args(kernel, global, local, Span<const KernelArg>(list.data(), list.size()));
  }
  Event launch_args(const Kernel& kernel, const Range& global, const Range& local,
                    const std::vector<KernelArg>& args);
  Event launch_args(const Kernel& kernel, const Range& global, const Range& local,
                    Span<const KernelArg> args);

  template <class T>
  Event write(Buffer<T>& dst, detail::NoDeduce<Span<const T>> src, std::size_t dst_offset = 0) {
    return write_bytes(dst.raw(), dst_offset * sizeof(T), src.data(), src.size_bytes(), "write");
  }
  // A write only enqueues: a temporary vector would be gone before the copy reads it.
  template <class T>
  Event write(Buffer<T>& dst, std::vector<T>&& src, std::size_t dst_offset = 0) = delete;
  template <class T>
  Event write(BufferView<T> dst, std::vector<T>&& src, std::size_t dst_offset = 0) = delete;
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

  // The same operations on views (Buffer<T>::view): offsets count from the view's first element.
  // A copy takes any mix of buffers and views of one element type.
  template <class T>
  Event write(BufferView<T> dst, detail::NoDeduce<Span<const T>> src, std::size_t dst_offset = 0) {
    return write_bytes(dst.raw(), dst_offset * sizeof(T), src.data(), src.size_bytes(), "write");
  }
  template <class T>
  Event read(const BufferView<T>& src, detail::NoDeduce<Span<T>> dst, std::size_t src_offset = 0) {
    return read_bytes(src.raw(), src_offset * sizeof(T), dst.data(), dst.size_bytes(), "read");
  }
  template <class T>
  Event copy(const BufferView<T>& src, detail::NoDeduce<BufferView<T>> dst) {
    return copy_bytes(src.raw(), 0, dst.raw(), 0, src.bytes());
  }
  template <class T>
  Event copy(const Buffer<T>& src, BufferView<T> dst) {
    return copy_bytes(src.raw(), 0, dst.raw(), 0, src.bytes());
  }
  template <class T>
  Event fill(BufferView<T> dst, const detail::NoDeduce<T>& value) {
    return fill_bytes(dst.raw(), 0, dst.bytes(), &value, sizeof(T));
  }

  // Strided 2D transfers between a buffer (or view) and host memory, one command each
  // (cuMemcpy2DAsync, clEnqueueWriteBufferRect / clEnqueueReadBufferRect): `block` as laid out in
  // the buffer (`in_buffer`) and in the host memory (`in_host`), e.g. a column strip of a row-major
  // matrix straight into a contiguous host array, with no pack kernel. Both layouts are checked
  // against the memory they describe; rows of one side may not overlap (pitch >= width).
  template <class T>
  Event write_rect(Buffer<T>& dst, Pitched in_buffer, detail::NoDeduce<Span<const T>> src, Pitched in_host,
                   Extent2D block) {
    return write_rect_bytes(dst.raw(), in_buffer, src.data(), src.size(), in_host, block, sizeof(T));
  }
  template <class T>
  Event write_rect(BufferView<T> dst, Pitched in_buffer, detail::NoDeduce<Span<const T>> src, Pitched in_host,
                   Extent2D block) {
    return write_rect_bytes(dst.raw(), in_buffer, src.data(), src.size(), in_host, block, sizeof(T));
  }
  template <class T>
  Event read_rect(const Buffer<T>& src, Pitched in_buffer, detail::NoDeduce<Span<T>> dst, Pitched in_host,
                  Extent2D block) {
    return read_rect_bytes(src.raw(), in_buffer, dst.data(), dst.size(), in_host, block, sizeof(T));
  }
  template <class T>
  Event read_rect(const BufferView<T>& src, Pitched in_buffer, detail::NoDeduce<Span<T>> dst, Pitched in_host,
                  Extent2D block) {
    return read_rect_bytes(src.raw(), in_buffer, dst.data(), dst.size(), in_host, block, sizeof(T));
  }

  // Blocking: waits for the queue, then returns the buffer's (or view's) contents.
  template <class T>
  std::vector<T> to_vector(const Buffer<T>& src) {
    std::vector<T> out(src.size());
    read(src, Span<T>(out));
    finish();
    return out;
  }
  template <class T>
  std::vector<T> to_vector(const BufferView<T>& src) {
    std::vector<T> out(src.size());
    read(src, Span<T>(out));
    finish();
    return out;
  }

  // Maps a buffer (or view) into host memory. Blocking: it waits for the work enqueued before it on
  // this queue and returns when the host may use the memory. The mapping's writes reach the device
  // when it is unmapped (Mapped::unmap(), or its destructor); work enqueued after the unmap sees
  // them. Do not use the buffer in device work while it is mapped.
  //   OpenCL: clEnqueueMapBuffer, zero-copy where the driver can (CPU devices such as PoCL, and
  //           integrated GPUs); a discrete GPU's driver copies behind the scenes.
  //   CUDA:   the driver has no map of device memory, so duet stages through pinned host memory: map
  //           copies the range to the host (skipped for MapAccess::write), unmap enqueues the copy
  //           back (skipped for MapAccess::read) and frees the staging memory once it completed.
  template <class T>
  Mapped<T> map(Buffer<T>& buffer, MapAccess access = MapAccess::read_write);
  template <class T>
  Mapped<T> map(BufferView<T> view, MapAccess access = MapAccess::read_write);

  // An event that completes when everything enqueued so far has completed.
  Event record();
  // Work enqueued on this queue from now on starts only after `event` (from any queue of the same
  // device) has completed. Does not block the host.
  void wait(const Event& event);
  // Blocks until everything enqueued so far, by any thread, has completed.
  void finish();
  // Makes this queue's later work wait, on the device, for the operations other queues have pending
  // on `buffer`'s bytes: their writes, and with `write` their reads too; what an operation on
  // memory that orders itself does first (RawBuffer::order_between_queues). For memory about to be
  // used where duet does not see it (a DLPack consumer, native work on native_handle()). Knows of
  // pending work only on memory that orders itself, or on any memory under DUET_CHECK=1.
  void order_after(const RawBuffer& buffer, bool write = false);

  // Signals between processes (duet/interprocess.hpp; CUDA only, ArgumentError elsewhere), on the
  // 32-bit word `byte_offset` bytes into `flags` (a multiple of 4). signal() stores `value` there
  // once this queue's earlier work is done and its writes are visible to the machine's other devices;
  // `flags` is typically another process's memory, imported. wait_signal() makes this queue's later
  // work wait, on the device, until the word equals `value`; the host does not block. A queue waiting
  // for a value nobody stores waits for ever, like a kernel that never ends.
  Event signal(RawBuffer& flags, std::size_t byte_offset, std::uint32_t value);
  Event wait_signal(const RawBuffer& flags, std::size_t byte_offset, std::uint32_t value);

  // The native queue, as an integer: the CUstream (CUDA) or cl_command_queue (OpenCL). Work you
  // enqueue on it yourself runs in order with duet's work on this queue; events duet handed out
  // before it still mark their own operations. Valid as long as any handle of this Queue lives; do
  // not destroy it. Any thread may use it, but duet's operations that other threads enqueue
  // meanwhile are ordered against your native work only as the calls reach the driver.
  std::uintptr_t native_handle() const;

  Event write_bytes(RawBuffer& dst, std::size_t offset, const void* src, std::size_t bytes, const char* what);
  Event read_bytes(const RawBuffer& src, std::size_t offset, void* dst, std::size_t bytes, const char* what);
  Event copy_bytes(const RawBuffer& src, std::size_t src_offset, RawBuffer& dst, std::size_t dst_offset,
                   std::size_t bytes);
  // The rect transfers of `element_size`-byte elements; `host_elements` is the host memory's size.
  Event write_rect_bytes(RawBuffer& dst, Pitched in_buffer, const void* src, std::size_t host_elements,
                         Pitched in_host, Extent2D block, std::size_t element_size);
  Event read_rect_bytes(const RawBuffer& src, Pitched in_buffer, void* dst, std::size_t host_elements,
                        Pitched in_host, Extent2D block, std::size_t element_size);
  Event fill_bytes(RawBuffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                   std::size_t pattern_size);
  // Maps all of `buffer`'s range (see map()).
  RawMapping map_bytes(const RawBuffer& buffer, MapAccess access);

  // Graphs (duet/graph.hpp): between begin_capture() and end_capture() launches, copies, fills and
  // waits are recorded instead of enqueued. CaptureError for a second begin_capture, and for
  // end_capture without a capture. abort_capture() drops a capture, if any; never throws.
  void begin_capture();
  Graph end_capture();
  void abort_capture() noexcept;
  bool capturing() const;
  // begin_capture(), body(), end_capture(); aborts the capture if body throws (defined in graph.hpp).
  template <class F>
  Graph record_graph(F&& body);
  // Enqueues `graph` on this queue (Graph::replay).
  Event replay(const Graph& graph);

  struct State;

 private:
  friend struct detail::Access;
  explicit Queue(std::shared_ptr<State> s) : state_(std::move(s)) {}
  backend::QueueImpl& impl() const;
  State& state() const;
  friend class RawMapping;
  friend std::shared_ptr<void> extension::queue_slot(const Queue&, std::string_view,
                                                     const std::function<std::shared_ptr<void>()>&);
  Event unmap_bytes(RawMapping& mapping);
  std::shared_ptr<State> state_;
};

// A mapped range of device memory (Queue::map): host-addressable until unmapped. Move-only. The
// destructor unmaps if unmap() was not called (reporting a failure on stderr, since destructors
// cannot throw); call unmap() to see errors and to get the event of the unmap.
class DUET_API RawMapping {
 public:
  RawMapping() = default;
  RawMapping(RawMapping&& o) noexcept;
  RawMapping& operator=(RawMapping&& o) noexcept;
  RawMapping(const RawMapping&) = delete;
  RawMapping& operator=(const RawMapping&) = delete;
  ~RawMapping();

  bool mapped() const noexcept { return queue_.valid(); }
  // Null when not mapped (or for an empty range).
  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }
  // Enqueues the unmap on the queue that mapped the range; returns its event. ReleasedError when
  // not mapped (any more).
  Event unmap();

 private:
  friend class Queue;
  Queue queue_;
  RawBuffer buffer_;  // the mapped range; keeps the memory alive while mapped
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  MapAccess access_ = MapAccess::read_write;
};

template <class T>
class Mapped {
 public:
  Mapped() = default;
  explicit Mapped(RawMapping raw) : raw_(std::move(raw)) {}

  T* data() const noexcept { return static_cast<T*>(raw_.data()); }
  std::size_t size() const noexcept { return raw_.bytes() / sizeof(T); }
  bool mapped() const noexcept { return raw_.mapped(); }
  T* begin() const noexcept { return data(); }
  T* end() const noexcept { return data() + size(); }
  T& operator[](std::size_t i) const noexcept { return data()[i]; }
  operator Span<T>() const noexcept { return Span<T>(data(), size()); }
  operator Span<const T>() const noexcept { return Span<const T>(data(), size()); }
  Event unmap() { return raw_.unmap(); }

 private:
  RawMapping raw_;
};

template <class T>
Mapped<T> Queue::map(Buffer<T>& buffer, MapAccess access) {
  return Mapped<T>(map_bytes(buffer.raw(), access));
}
template <class T>
Mapped<T> Queue::map(BufferView<T> view, MapAccess access) {
  return Mapped<T>(map_bytes(view.raw(), access));
}

// Copies all of `src` into the start of `dst` where the two may live on different devices, even
// of different backends; `from_queue` is a queue of src's device, `to_queue` of dst's device, and
// dst must hold at least as many elements as src (BufferSizeError).
//   Same device: a device-to-device copy on to_queue, after the work enqueued so far on from_queue
//     (to_queue waits for its event). Asynchronous, like Queue::copy.
//   Different devices: staged through pinned host memory in chunks of up to 8 MiB, two at a time,
//     so reading chunk i+1 from the source device overlaps writing chunk i to the destination.
//     This blocks the calling thread until the whole copy has completed (the host is the only
//     place the two devices' queues can meet). The reads wait for the work enqueued before on
//     from_queue; the writes are ordered after the work enqueued before on to_queue.
// Returns an event of to_queue that completes when the copy has (already complete when staged).
DUET_API Event copy_between(Queue& from_queue, const RawBuffer& src, Queue& to_queue, RawBuffer& dst);

template <class T>
Event copy(Queue& from_queue, const Buffer<T>& src, Queue& to_queue, Buffer<T>& dst) {
  return copy_between(from_queue, src.raw(), to_queue, dst.raw());
}
template <class T>
Event copy(Queue& from_queue, const BufferView<T>& src, Queue& to_queue, detail::NoDeduce<BufferView<T>> dst) {
  return copy_between(from_queue, src.raw(), to_queue, dst.raw());
}
template <class T>
Event copy(Queue& from_queue, const Buffer<T>& src, Queue& to_queue, BufferView<T> dst) {
  return copy_between(from_queue, src.raw(), to_queue, dst.raw());
}

}  // namespace duet
