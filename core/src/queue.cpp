// Queue: every argument is checked here, once, before the backend is called: released objects,
// objects of another device, sizes against buffers, and launch arguments against the kernel's
// declared parameters. The backend then only enqueues.
#include "duet/queue.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>

#include "duet/graph.hpp"
#include "graph_state.hpp"
#include "guard_zones.hpp"
#include "kernel_faults.hpp"
#include "queue_order.hpp"
#include "state.hpp"

namespace duet {
namespace {

std::string describe(const KernelParam& p) {
  return p.kind == KernelParam::Kind::buffer ? "GLOBAL " + p.type_name + "* " + p.name
                                             : p.type_name + " " + p.name;
}

std::string describe(const KernelArg& a) {
  if (a.kind == KernelArg::Kind::buffer)
    return std::string(a.buffer && a.buffer->valid() && a.buffer->offset() != a.buffer->guard_bytes() ? "BufferView<" : "Buffer<") +
           to_string(a.type) + ">";
  if (a.type == ScalarType::unknown) return "a " + std::to_string(a.size) + "-byte value";
  return to_string(a.type);
}

std::string signature_text(const KernelSignature& sig) {
  std::string s = sig.name + "(";
  for (std::size_t i = 0; i < sig.params.size(); ++i) s += (i ? ", " : "") + describe(sig.params[i]);
  return s + ")";
}

[[noreturn]] void device_mismatch(const Device& queue_device, const Device& other, const std::string& what) {
  throw DeviceMismatchError(what + " belongs to " + other.info().id() + " (" + other.info().name +
                            ") but the queue is on " + queue_device.info().id() + " (" +
                            queue_device.info().name + "); use objects of the queue's device");
}

// Takes a plain string so the check costs nothing on the launch path; the message is built only on
// a mismatch.
void check_same_device(const Device& queue_device, const Device& other, const char* what) {
  if (queue_device != other) device_mismatch(queue_device, other, what);
}

void check_range(const RawBuffer& b, std::size_t offset, std::size_t bytes, const char* what) {
  if (offset > b.bytes() || bytes > b.bytes() - offset) {
    std::ostringstream s;
    s << what << " of " << bytes << " bytes at byte offset " << offset << " does not fit in a buffer of "
      << b.bytes() << " bytes";
    throw BufferSizeError(s.str());
  }
}

void check_launch_args(const Kernel& kernel, Span<const KernelArg> args) {
  const auto& sig = kernel.signature();
  if (!sig) {
    int count = detail::Access::kernel(kernel).arg_count();
    if (count >= 0 && static_cast<std::size_t>(count) != args.size())
      throw ArgumentError("kernel '" + kernel.name() + "' takes " + std::to_string(count) +
                          " arguments but the launch passes " + std::to_string(args.size()));
    return;
  }
  if (sig->params.size() != args.size())
    throw ArgumentError("kernel " + signature_text(*sig) + " takes " + std::to_string(sig->params.size()) +
                        " arguments but the launch passes " + std::to_string(args.size()));
  for (std::size_t i = 0; i < args.size(); ++i) {
    const KernelParam& p = sig->params[i];
    const KernelArg& a = args[i];
    auto fail = [&](const std::string& why) {
      throw ArgumentError("argument " + std::to_string(i + 1) + " of kernel '" + sig->name + "' ('" +
                          describe(p) + "'): " + why);
    };
    bool want_buffer = p.kind == KernelParam::Kind::buffer;
    if (want_buffer && a.kind != KernelArg::Kind::buffer)
      fail("the kernel takes a buffer but the launch passes " + describe(a));
    if (!want_buffer && a.kind == KernelArg::Kind::buffer)
      fail("the kernel takes a scalar but the launch passes " + describe(a));
    if (p.type == ScalarType::unknown) continue;
    if (want_buffer) {
      if (a.type != ScalarType::unknown && a.type != p.type)
        fail("the kernel takes " + p.type_name + " elements but the launch passes " + describe(a));
    } else if (a.type != p.type) {
      if (a.type != ScalarType::unknown || a.size != size_of(p.type))
        fail("the kernel takes " + p.type_name + " but the launch passes " + describe(a) +
             "; convert it, e.g. static_cast<" +
             (p.type == ScalarType::i32 ? std::string("int")
              : p.type == ScalarType::u32 ? std::string("unsigned")
              : p.type == ScalarType::i64 ? std::string("std::int64_t")
              : p.type == ScalarType::u64 ? std::string("std::uint64_t")
                                          : p.type_name) +
             ">(value)");
    }
  }
}

Range default_local(const Range& global, std::size_t max_group) {
  Range local = global.dims == 1   ? Range(256)
                : global.dims == 2 ? Range(16, 16)
                                   : Range(8, 8, 4);
  // Shrink the largest dimension until the group fits the device.
  auto total = [&] { return local.size[0] * local.size[1] * local.size[2]; };
  while (total() > max_group) {
    int d = 0;
    for (int i = 1; i < 3; ++i)
      if (local.size[static_cast<std::size_t>(i)] > local.size[static_cast<std::size_t>(d)]) d = i;
    local.size[static_cast<std::size_t>(d)] /= 2;
  }
  return local;
}

std::string size_text(const std::array<std::size_t, 3>& size, int dims) {
  std::string s = std::to_string(size[0]);
  for (int d = 1; d < dims; ++d) s += "x" + std::to_string(size[static_cast<std::size_t>(d)]);
  return s;
}

// The local size of a kernel declared with REQD_GROUP_SIZE(x, y, z): that size in the launch's
// dimensions, which the launch may leave to duet (Range()) or repeat, but not change. Checked here
// because the drivers' own refusals (CL_INVALID_WORK_GROUP_SIZE, CUDA_ERROR_INVALID_VALUE) name
// neither the kernel nor the size it needs.
Range required_local_size(const KernelSignature& sig, const Range& global, const Range& given) {
  const std::array<std::size_t, 3>& need = sig.required_group_size;
  Range local = global;
  for (int d = 0; d < 3; ++d) local.size[static_cast<std::size_t>(d)] = d < global.dims ? need[static_cast<std::size_t>(d)] : 1;
  const std::string required =
      "kernel '" + sig.name + "' requires work-groups of " + size_text(need, 3) + " (REQD_GROUP_SIZE)";
  if (local.size != need)
    throw ArgumentError(required + " but the launch's global size has " + std::to_string(global.dims) +
                        " dimension(s); launch it over " + (need[2] != 1 ? "3" : "2") + " dimensions");
  if (given.dims != 0 && (given.dims != global.dims || given.size != local.size))
    throw ArgumentError(required + " but the launch gives a local size of " + size_text(given.size, given.dims) +
                        "; pass Range() as the local size, or " + size_text(local.size, global.dims));
  return local;
}

// A launch's shape, checked: 1 to 3 dimensions, and the local size (the kernel's required size or
// duet's choice when not given) of as many, none of them 0, in a group the device allows.
Range checked_local_size(const Kernel& kernel, const Range& global, const Range& local_in, const DeviceInfo& info) {
  if (global.dims < 1 || global.dims > 3)
    throw ArgumentError("the global size of a launch needs 1 to 3 dimensions");
  const std::optional<KernelSignature>& sig = kernel.signature();
  Range local = sig && sig->requires_group_size() ? required_local_size(*sig, global, local_in)
                : local_in.dims == 0               ? default_local(global, info.max_group_size)
                                                   : local_in;
  if (local.dims != global.dims)
    throw ArgumentError("the local size has " + std::to_string(local.dims) +
                        " dimension(s) but the global size has " + std::to_string(global.dims));
  std::size_t group = 1;
  for (int d = 0; d < 3; ++d) {
    if (local[d] == 0) throw ArgumentError("a local size of 0 in dimension " + std::to_string(d));
    group *= local[d];
  }
  if (group > info.max_group_size)
    throw ArgumentError("a work-group of " + std::to_string(group) + " work-items is larger than " +
                        info.id() + " allows (" + std::to_string(info.max_group_size) + ")");
  // launch_shape rounds the global size up to whole groups; where that wraps around, the launch
  // would silently cover a few work-items, or none.
  for (int d = 0; d < 3; ++d)
    if (global[d] > static_cast<std::size_t>(-1) - (local[d] - 1))
      throw ArgumentError("a global size of " + std::to_string(global[d]) + " in dimension " +
                          std::to_string(d) + " cannot be rounded up to whole groups of " +
                          std::to_string(local[d]) + " work-items: it does not fit in a size_t");
  return local;
}

[[noreturn]] void misaligned_view(const Kernel& kernel, std::size_t i, std::size_t offset,
                                  const Device& device, const DeviceInfo& info) {
  const std::string rule = detail::Access::core(device)->backend->view_alignment_rule();
  std::ostringstream m;
  m << "argument " << (i + 1) << " of kernel '" << kernel.name() << "' is a view starting " << offset
    << " bytes into its buffer, but " << info.id() << " (" << info.name
    << ") can pass a view to a kernel only at a multiple of " << info.view_alignment << " bytes"
    << (rule.empty() ? "" : " (" + rule + ")")
    << "; start the view at a multiple of " << info.view_alignment
    << " bytes, or pass the whole buffer with the offset as an argument. Copies, reads and writes take "
       "views at any offset";
  throw ArgumentError(m.str());
}

// The arguments as the backend takes them, into `out` (the queue's scratch, so a launch allocates
// nothing). Buffers are checked here, scalars against the kernel's parameters by check_launch_args.
// A kernel whose buffer parameters take byte offsets (view_offsets.hpp) gets each of those buffers
// as its whole allocation and the view's offset among the arguments after the declared ones,
// written to `offsets` (scratch too).
void translate_args(const Kernel& kernel, Span<const KernelArg> args, const Device& device,
                    const DeviceInfo& info, std::vector<backend::LaunchArg>& out,
                    std::vector<std::uint64_t>& offsets) {
  const std::vector<std::size_t>& offset_params = detail::Access::view_offset_params(kernel);
  out.assign(args.size(), backend::LaunchArg{});
  offsets.clear();
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind == KernelArg::Kind::buffer) {
      const RawBuffer& b = *args[i].buffer;
      out[i].buffer = &detail::Access::buffer(b, "buffer passed as a kernel argument");
      if (device != b.device())
        device_mismatch(device, b.device(), "buffer argument " + std::to_string(i + 1));
      out[i].offset = b.offset();
      out[i].bytes = b.bytes();
      if (std::find(offset_params.begin(), offset_params.end(), i) != offset_params.end()) {
        offsets.push_back(b.offset());
        out[i].offset = 0;
        out[i].bytes = out[i].buffer->bytes();
      } else if (b.offset() % info.view_alignment != 0) {
        misaligned_view(kernel, i, b.offset(), device, info);
      }
    } else {
      out[i].scalar = args[i].bytes.data();
      out[i].scalar_size = args[i].size;
    }
  }
  // Only when the launch matches the declaration: check_launch_args refuses it otherwise.
  if (offsets.size() != offset_params.size()) return;
  for (const std::uint64_t& offset : offsets) {
    backend::LaunchArg hidden;
    hidden.scalar = &offset;
    hidden.scalar_size = sizeof offset;
    out.push_back(hidden);
  }
}

// A launch's buffers for the order between queues: the dialect's (and a native kernel's declared)
// const parameters are reads, every other buffer may be written. Buffers that the checks below will
// refuse are left out.
void use_kernel_args(detail::CrossQueueOrder& order, const Device& device, const Kernel& kernel,
                     Span<const KernelArg> args) {
  const std::optional<KernelSignature>* sig = nullptr;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    if (a.kind != KernelArg::Kind::buffer || !a.buffer || !a.buffer->valid() || a.buffer->device() != device)
      continue;
    detail::BufferAccesses& accesses = detail::Access::buffer(*a.buffer).accesses;
    if (accesses.mode() == detail::BufferAccesses::Mode::off) continue;
    if (!sig) sig = &kernel.signature();
    const bool read = *sig && i < (*sig)->params.size() && (*sig)->params[i].is_const;
    order.add(accesses, a.buffer->offset(), a.buffer->offset() + a.buffer->bytes(), !read, a.buffer->bytes());
  }
}

// The global size rounded up to whole groups, as the backends launch it.
backend::LaunchShape launch_shape(const Range& global, const Range& local) {
  backend::LaunchShape shape;
  shape.dims = global.dims;
  for (int d = 0; d < 3; ++d) {
    shape.local[d] = local[d];
    shape.global[d] = (global[d] + local[d] - 1) / local[d] * local[d];
  }
  return shape;
}

// Every operation reaches the backend queue inside one EnqueueScope, opened before its arguments are
// checked. The scope holds the queue's lock for its whole life, which is what lets threads share a
// Queue: the backend queue (an OpenCL queue remembers its last command's event, a CUDA queue keeps
// launch scratch), the launch scratch here and the event handoff below all see one operation at a
// time, and each operation's arguments are translated and enqueued without another thread's in
// between. Launches are the common case and their lock is uncontended, tens of nanoseconds against
// microseconds for the launch.
//
// The scope also keeps the rule for the operations' events (see detail::EventState): each operation
// hands out a pending event, which costs no driver call, and settles the previous operation's event
// first. If someone kept that event, it is recorded now, before this operation, so that it marks the
// end of its own operation and not of this one; if nobody kept it and it is still pending, the next
// event reuses it, so operations whose events are dropped allocate nothing. A use count of 1 cannot
// grow under the lock: only the queue holds that event, so no other thread can copy it.
class EnqueueScope {
 public:
  explicit EnqueueScope(Queue::State& s) : s_(s), lock_(s.queue->mutex) { detail::throw_if_abandoned(s.device); }
  // An operation on buffers that may be ordered between queues (queue_order.hpp): `order` is prepared
  // before the queue's lock is taken (it may record on other queues), its waits are enqueued first,
  // and enqueue() remembers the operation's uses.
  EnqueueScope(Queue::State& s, detail::CrossQueueOrder& order)
      : s_(s), order_(prepared(s, order)), lock_(s.queue->mutex) {
    detail::throw_if_abandoned(s.device);
    if (order_)
      detail::watching_faults(s_.device, s_.queue->log.get(), [&] { order_->wait(settled_queue(), *s_.queue); });
  }
  EnqueueScope(const EnqueueScope&) = delete;
  EnqueueScope& operator=(const EnqueueScope&) = delete;

  const Device& device() const { return s_.device; }
  std::vector<backend::LaunchArg>& launch_scratch() { return s_.launch_scratch; }
  std::vector<std::uint64_t>& offset_scratch() { return s_.offset_scratch; }
  detail::LaunchLog& launch_log() { return *s_.queue->log; }
  const std::shared_ptr<detail::LaunchLog>& launch_log_shared() const { return s_.queue->log; }
  const std::shared_ptr<detail::LockedQueue>& locked_queue() const { return s_.queue; }
  // The number of the latest operation enqueued (the one enqueue() just did).
  std::uint64_t operation() const { return s_.queue->operations.load(std::memory_order_relaxed); }

  // Enqueues op(backend queue), then after(backend queue), and returns the operation's (pending)
  // event. On a queue with command timing the backend times op's commands alone: `after` is work
  // duet adds to the operation (DUET_CHECK's guard-zone check) that its duration leaves out. A
  // kernel's fault that the driver reports here, at a later operation, becomes a KernelFaultError.
  template <class Op, class After>
  Event enqueue(Op&& op, After&& after) {
    std::shared_ptr<backend::CommandTimeImpl> time;
    detail::watching_faults(s_.device, s_.queue->log.get(), [&] {
      backend::QueueImpl& q = settled_queue();
      if (s_.command_timing) q.start_timing();
      op(q);
      if (s_.command_timing) time = q.stop_timing();
      after(q);
    });
    Event event = pending_event();
    if (s_.command_timing) s_.last->command_time = std::move(time);
    const std::uint64_t operation = s_.queue->operations.load(std::memory_order_relaxed) + 1;
    s_.queue->operations.store(operation, std::memory_order_relaxed);
    s_.last->operation = operation;
    s_.last->clock = s_.queue->clock;
    if (order_) order_->remember(s_.queue, operation);
    return event;
  }
  template <class Op>
  Event enqueue(Op&& op) {
    return enqueue(op, [](backend::QueueImpl&) {});
  }

  // The backend queue, for work that hands out no pending event of its own: recording an event,
  // waiting for one, or work enqueued natively, which comes after whatever duet enqueued.
  backend::QueueImpl& settled_queue() {
    settle_previous_event();
    return *s_.queue->impl;
  }

 private:
  void settle_previous_event() {
    if (!s_.last) return;
    if (s_.last.use_count() > 1)
      s_.last->materialise_locked();
    else if (!s_.last->impl)
      s_.spare = std::move(s_.last);
    s_.last.reset();
  }

  Event pending_event() {
    if (s_.spare) {
      s_.last = std::move(s_.spare);
    } else {
      s_.last = std::make_shared<detail::EventState>();
      s_.last->device = s_.device;
      s_.last->queue = s_.queue;
      s_.last->log = s_.queue->log;
      s_.last->origin = s_.queue;
    }
    return detail::Access::make_event(s_.last);
  }

  static detail::CrossQueueOrder* prepared(Queue::State& s, detail::CrossQueueOrder& order) {
    if (order.empty()) return nullptr;
    order.prepare(s.queue);
    return &order;
  }

  Queue::State& s_;
  detail::CrossQueueOrder* order_ = nullptr;  // before lock_: prepared without the lock
  std::lock_guard<std::mutex> lock_;
};

// Graph capture (duet/graph.hpp; defined at the end of this file). The record_* functions record
// the operation into the queue's capture, under its lock, and return the event recorded operations
// get; nullopt when another thread ended the capture meanwhile (the operation is then enqueued).
void refuse_if_capturing(const Queue::State& s, const char* call, const char* instead);
std::optional<Event> record_launch(Queue::State& s, const Kernel& kernel, const Range& global, const Range& local,
                                   Span<const KernelArg> args);
std::optional<Event> record_copy(Queue::State& s, const RawBuffer& src, std::size_t from, RawBuffer& dst,
                                 std::size_t to, std::size_t bytes);
std::optional<Event> record_fill(Queue::State& s, RawBuffer& dst, std::size_t offset, std::size_t bytes,
                                 const void* pattern, std::size_t pattern_size);
std::optional<Event> record_wait(Queue::State& s, const Event& event);

}  // namespace

Queue::State& Queue::state() const {
  if (!state_) throw ReleasedError("the queue was released or never created; get one with Device::queue()");
  return *state_;
}

const Device& Queue::device() const { return state().device; }
backend::QueueImpl& Queue::impl() const { return *state().queue->impl; }

Event Queue::launch_args(const Kernel& kernel, const Range& global, const Range& local,
                         const std::vector<KernelArg>& args) {
  return launch_args(kernel, global, local, Span<const KernelArg>(args.data(), args.size()));
}

Event Queue::launch_args(const Kernel& kernel, const Range& global, const Range& local_in,
                         Span<const KernelArg> args) {
  State& s = state();
  if (s.capturing.load(std::memory_order_relaxed))
    if (std::optional<Event> e = record_launch(s, kernel, global, local_in, args)) return *e;
  detail::CrossQueueOrder order("kernel");
  use_kernel_args(order, s.device, kernel, args);
  if (!order.empty()) order.set_name(&kernel.name());
  EnqueueScope scope(s, order);
  const Device& queue_device = scope.device();
  if (queue_device != kernel.device())
    device_mismatch(queue_device, kernel.device(), "kernel '" + kernel.name() + "'");
  const DeviceInfo& info = queue_device.info();
  const Range local = checked_local_size(kernel, global, local_in, info);
  std::vector<backend::LaunchArg>& backend_args = scope.launch_scratch();
  translate_args(kernel, args, queue_device, info, backend_args, scope.offset_scratch());
  check_launch_args(kernel, args);
  const backend::LaunchShape shape = launch_shape(global, local);
  const bool empty = global[0] == 0 || global[1] == 0 || global[2] == 0;
  return scope.enqueue(
      [&](backend::QueueImpl& q) {
        if (empty) return;
        q.launch(detail::Access::kernel(kernel), shape, backend_args);
        scope.launch_log().launched(kernel.name());
      },
      [&](backend::QueueImpl& q) {
        if (!empty && detail::checked_mode())
          detail::check_guard_zones(queue_device, q, scope.launch_log(), kernel, args);
      });
}

Event Queue::write_bytes(RawBuffer& dst, std::size_t offset, const void* src, std::size_t bytes,
                         const char* what) {
  State& s = state();
  auto& impl = detail::Access::buffer(dst, "destination buffer");
  check_same_device(s.device, dst.device(), "the destination buffer");
  check_range(dst, offset, bytes, what);
  if (bytes && src == nullptr) throw ArgumentError(std::string(what) + ": the host memory is null");
  refuse_if_capturing(s, what,
                      "a graph records launches, copies, fills and waits, not transfers from host memory; "
                      "write before begin_capture(), or copy from a device buffer inside the capture");
  detail::CrossQueueOrder order("write from the host");
  order.add(impl.accesses, dst.offset() + offset, dst.offset() + offset + bytes, true, dst.bytes());
  EnqueueScope scope(s, order);
  return scope.enqueue([&](backend::QueueImpl& q) {
    if (bytes) q.write(impl, dst.offset() + offset, src, bytes);
  });
}

Event Queue::read_bytes(const RawBuffer& src, std::size_t offset, void* dst, std::size_t bytes,
                        const char* what) {
  State& s = state();
  auto& impl = detail::Access::buffer(src, "source buffer");
  check_same_device(s.device, src.device(), "the source buffer");
  check_range(src, offset, bytes, what);
  if (bytes && dst == nullptr) throw ArgumentError(std::string(what) + ": the host memory is null");
  refuse_if_capturing(s, what,
                      "a graph records launches, copies, fills and waits, not transfers to host memory; "
                      "read after end_capture() and a replay, or copy to a device buffer inside the capture");
  detail::CrossQueueOrder order("read to the host");
  order.add(impl.accesses, src.offset() + offset, src.offset() + offset + bytes, false, src.bytes());
  EnqueueScope scope(s, order);
  return scope.enqueue([&](backend::QueueImpl& q) {
    if (bytes) q.read(impl, src.offset() + offset, dst, bytes);
  });
}

namespace {

// The elements from a block's first to its last (exclusive) in memory laid out as `at` says; false
// when that overflows.
bool block_end(Pitched at, Extent2D block, std::size_t& end) {
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  const std::size_t pitch = block.rows > 1 ? at.pitch : 0;
  if (block.rows > 1 && pitch > (max - block.width) / (block.rows - 1)) return false;
  const std::size_t span = (block.rows - 1) * pitch + block.width;
  if (at.offset > max - span) return false;
  end = at.offset + span;
  return true;
}

// Checks a rect transfer's two layouts against the buffer and the host memory and returns it in
// bytes (offset into the allocation); `buffer_end` gets the byte after its last in the allocation.
backend::RectTransfer checked_rect(const RawBuffer& buffer, Pitched in_buffer, const void* host,
                                   std::size_t host_elements, Pitched in_host, Extent2D block,
                                   std::size_t element_size, const char* what, std::size_t& buffer_end) {
  const auto fail = [&](const std::string& why) { throw ArgumentError(std::string(what) + ": " + why); };
  if (element_size == 0) fail("the element size is 0");
  if (block.rows > 1 && in_buffer.pitch < block.width)
    fail("the buffer's pitch (" + std::to_string(in_buffer.pitch) +
         " elements) is less than the block's width (" + std::to_string(block.width) +
         "), so its rows would overlap; give the distance from one row's start to the "
         "next (a row-major matrix's number of columns)");
  if (block.rows > 1 && in_host.pitch < block.width)
    fail("the host memory's pitch (" + std::to_string(in_host.pitch) +
         " elements) is less than the block's width (" + std::to_string(block.width) +
         "), so its rows would overlap; give the distance from one row's start to the "
         "next (the width, for a contiguous block)");
  std::size_t buffer_elements_end = 0, host_end = 0;
  const std::size_t max_elements = std::numeric_limits<std::size_t>::max() / element_size;
  if (!block_end(in_buffer, block, buffer_elements_end) || buffer_elements_end > max_elements)
    throw BufferSizeError(std::string(what) + ": the block's last row in the buffer lies beyond any address");
  if (!block_end(in_host, block, host_end) || host_end > host_elements)
    throw BufferSizeError(std::string(what) + ": the block's last row in host memory ends at element " +
                          (host_end ? std::to_string(host_end) : std::string("(overflow)")) +
                          " but the host memory holds " + std::to_string(host_elements) + " elements");
  if (host == nullptr) fail("the host memory is null");
  const std::size_t first = in_buffer.offset * element_size;
  check_range(buffer, first, buffer_elements_end * element_size - first, what);
  buffer_end = buffer.offset() + buffer_elements_end * element_size;
  backend::RectTransfer r;
  r.offset = buffer.offset() + first;
  r.row_bytes = block.width * element_size;
  r.rows = block.rows;
  r.pitch = block.rows > 1 ? in_buffer.pitch * element_size : r.row_bytes;
  r.host_pitch = block.rows > 1 ? in_host.pitch * element_size : r.row_bytes;
  return r;
}

// write_rect (to_device: the host memory is only read) and read_rect.
Event rect_transfer(Queue::State& s, const RawBuffer& buffer, Pitched in_buffer, void* host,
                    std::size_t host_elements, Pitched in_host, Extent2D block, std::size_t element_size,
                    bool to_device) {
  const char* what = to_device ? "write_rect" : "read_rect";
  auto& impl = detail::Access::buffer(buffer, to_device ? "destination buffer" : "source buffer");
  check_same_device(s.device, buffer.device(), to_device ? "the destination buffer" : "the source buffer");
  const bool empty = block.width == 0 || block.rows == 0;
  std::size_t end = 0;
  backend::RectTransfer rect;
  if (!empty)
    rect = checked_rect(buffer, in_buffer, host, host_elements, in_host, block, element_size, what, end);
  refuse_if_capturing(s, what,
                      to_device
                          ? "a graph records launches, copies, fills and waits, not transfers from host "
                            "memory; write before begin_capture()"
                          : "a graph records launches, copies, fills and waits, not transfers to host "
                            "memory; read after end_capture() and a replay");
  detail::CrossQueueOrder order(to_device ? "write from the host" : "read to the host");
  if (!empty) order.add(impl.accesses, rect.offset, end, to_device, buffer.bytes());
  EnqueueScope scope(s, order);
  char* first = static_cast<char*>(host) + in_host.offset * element_size;
  return scope.enqueue([&](backend::QueueImpl& q) {
    if (empty) return;
    if (to_device)
      q.write_rect(impl, rect, first);
    else
      q.read_rect(impl, rect, first);
  });
}

}  // namespace

Event Queue::write_rect_bytes(RawBuffer& dst, Pitched in_buffer, const void* src, std::size_t host_elements,
                              Pitched in_host, Extent2D block, std::size_t element_size) {
  return rect_transfer(state(), dst, in_buffer, const_cast<void*>(src), host_elements, in_host, block,
                       element_size, true);
}

Event Queue::read_rect_bytes(const RawBuffer& src, Pitched in_buffer, void* dst, std::size_t host_elements,
                             Pitched in_host, Extent2D block, std::size_t element_size) {
  return rect_transfer(state(), src, in_buffer, dst, host_elements, in_host, block, element_size, false);
}

Event Queue::copy_bytes(const RawBuffer& src, std::size_t src_offset, RawBuffer& dst,
                        std::size_t dst_offset, std::size_t bytes) {
  State& s = state();
  auto& src_impl = detail::Access::buffer(src, "source buffer");
  auto& dst_impl = detail::Access::buffer(dst, "destination buffer");
  check_same_device(s.device, src.device(), "the source buffer");
  check_same_device(s.device, dst.device(), "the destination buffer");
  check_range(src, src_offset, bytes, "copy source");
  check_range(dst, dst_offset, bytes, "copy destination");
  // Views make offsets relative; the overlap check compares positions in the allocation.
  const std::size_t from = src.offset() + src_offset, to = dst.offset() + dst_offset;
  if (&src_impl == &dst_impl && bytes && from < to + bytes && to < from + bytes)
    throw ArgumentError("copy source and destination ranges overlap in the same buffer");
  if (s.capturing.load(std::memory_order_relaxed))
    if (std::optional<Event> e = record_copy(s, src, from, dst, to, bytes)) return *e;
  detail::CrossQueueOrder order("copy");
  order.add(src_impl.accesses, from, from + bytes, false, src.bytes());
  order.add(dst_impl.accesses, to, to + bytes, true, dst.bytes());
  EnqueueScope scope(s, order);
  return scope.enqueue([&](backend::QueueImpl& q) {
    if (bytes) q.copy(src_impl, from, dst_impl, to, bytes);
  });
}

Event Queue::fill_bytes(RawBuffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                        std::size_t pattern_size) {
  State& s = state();
  auto& impl = detail::Access::buffer(dst, "buffer to fill");
  check_same_device(s.device, dst.device(), "the buffer to fill");
  if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)))
    throw ArgumentError("fill needs an element of 1, 2, 4, ... or 128 bytes, not " +
                        std::to_string(pattern_size));
  if ((dst.offset() + offset) % pattern_size || bytes % pattern_size)
    throw ArgumentError("fill range must be whole elements, aligned to the element size in the allocation");
  check_range(dst, offset, bytes, "fill");
  if (s.capturing.load(std::memory_order_relaxed))
    if (std::optional<Event> e = record_fill(s, dst, dst.offset() + offset, bytes, pattern, pattern_size)) return *e;
  detail::CrossQueueOrder order("fill");
  order.add(impl.accesses, dst.offset() + offset, dst.offset() + offset + bytes, true, dst.bytes());
  EnqueueScope scope(s, order);
  return scope.enqueue([&](backend::QueueImpl& q) {
    if (bytes) q.fill(impl, dst.offset() + offset, bytes, pattern, pattern_size);
  });
}

Event Queue::record() {
  refuse_if_capturing(state(), "Queue::record",
                      "a graph has no events inside it; the Event that Graph::replay returns marks the end of "
                      "a replay");
  EnqueueScope scope(state());
  auto e = std::make_shared<detail::EventState>();
  e->device = scope.device();
  e->log = scope.launch_log_shared();
  e->origin = scope.locked_queue();
  e->point = true;
  e->impl = detail::watching_faults(scope.device(), e->log.get(), [&] { return scope.settled_queue().record(); });
  e->sequence = ++scope.locked_queue()->recorded;
  e->operation = scope.operation();
  e->clock = scope.locked_queue()->clock;
  return detail::Access::make_event(std::move(e));
}

void Queue::wait(const Event& event) {
  Queue::State& s = state();
  check_same_device(s.device, event.device(), "the event");
  // Recorded before this queue's lock is taken: a pending event takes its own queue's lock to be
  // recorded, and two threads making two queues wait for each other's events would otherwise each
  // hold one lock and wait for the other. The event is recorded where it belongs either way.
  backend::EventImpl& impl = detail::Access::event(event);
  const detail::EventState& e = *detail::Access::event_state(event);
  if (s.capturing.load(std::memory_order_relaxed))
    if (record_wait(s, event)) return;
  EnqueueScope scope(s);
  detail::watching_faults(s.device, s.queue->log.get(), [&] { scope.settled_queue().wait_for(impl); });
  // The order this gives (queue_order.hpp): this queue's later work comes after the event's point.
  const std::shared_ptr<detail::LockedQueue> origin = e.origin.lock();
  if (origin == s.queue || (!origin && !e.clock)) return;
  std::shared_ptr<const detail::QueueClock> clock =
      detail::QueueClock::joined(s.queue->clock, e.clock, origin, e.operation);
  std::lock_guard<std::mutex> lock(s.queue->clock_mutex);
  s.queue->clock = std::move(clock);
}

// Without the lock: the backends allow finish() beside any other call, and waiting for the device
// under the lock would hold up every other thread's enqueues until the queue drained. With
// DUET_KERNEL_TIMEOUT, an event recorded now is waited for with the deadline first.
void Queue::finish() {
  State& s = state();
  refuse_if_capturing(s, "Queue::finish",
                      "nothing recorded has been enqueued, so there is nothing to wait for; end the capture "
                      "(end_capture()), replay the graph, then finish");
  detail::throw_if_abandoned(s.device);
  detail::LaunchLog& log = *s.queue->log;
  const std::uint64_t mark = log.mark();
  const std::uint64_t recorded = s.queue->recorded.load();
  const std::uint64_t operations = s.queue->operations.load();
  const std::shared_ptr<const detail::QueueClock> clock = s.queue->clock_now();
  if (detail::kernel_timeout()) detail::wait_for_event(s.device, &log, detail::Access::event(record()));
  detail::watching_faults(s.device, &log, [&] { s.queue->impl->finish(); });
  log.completed(mark);
  s.queue->completed_up_to(recorded);
  detail::host_reached(*s.queue, operations, clock.get());
}

void Queue::order_after(const RawBuffer& buffer, bool write) {
  State& s = state();
  auto& impl = detail::Access::buffer(buffer, "buffer to order after");
  check_same_device(s.device, buffer.device(), "the buffer to order after");
  refuse_if_capturing(s, "Queue::order_after",
                      "a replay orders itself after other queues' work on every buffer it uses; call "
                      "order_after outside the capture");
  detail::CrossQueueOrder order("order_after");
  order.add(impl.accesses, buffer.offset(), buffer.offset() + buffer.bytes(), write, buffer.bytes());
  if (order.empty()) return;
  order.always_wait();
  EnqueueScope scope(s, order);
}

namespace {

// The word a signal stores or waits for: on a device that signals between processes, aligned, in range.
backend::BufferImpl& signal_word(const Queue::State& s, const RawBuffer& flags, std::size_t offset,
                                 const char* call) {
  auto& impl = detail::Access::buffer(flags, "signal word's buffer");
  check_same_device(s.device, flags.device(), "the signal word's buffer");
  const std::string unavailable = detail::Access::core(s.device)->impl->interprocess_unavailable();
  if (!unavailable.empty())
    throw ArgumentError(std::string(call) + ": " + s.device.info().id() + " cannot signal between processes: " +
                        unavailable);
  if ((flags.offset() + offset) % 4)
    throw ArgumentError(std::string(call) + ": the signal word at byte offset " + std::to_string(offset) +
                        " is not 4-byte aligned in its allocation; use a multiple of 4");
  check_range(flags, offset, 4, call);
  return impl;
}

}  // namespace

Event Queue::signal(RawBuffer& flags, std::size_t byte_offset, std::uint32_t value) {
  State& s = state();
  refuse_if_capturing(s, "Queue::signal", "signal between processes outside the capture");
  backend::BufferImpl& impl = signal_word(s, flags, byte_offset, "Queue::signal");
  const std::size_t at = flags.offset() + byte_offset;
  detail::CrossQueueOrder order("signal");
  order.add(impl.accesses, at, at + 4, true, flags.bytes());
  EnqueueScope scope(s, order);
  return scope.enqueue([&](backend::QueueImpl& q) { q.signal(impl, at, value); });
}

Event Queue::wait_signal(const RawBuffer& flags, std::size_t byte_offset, std::uint32_t value) {
  State& s = state();
  refuse_if_capturing(s, "Queue::wait_signal", "wait for signals between processes outside the capture");
  backend::BufferImpl& impl = signal_word(s, flags, byte_offset, "Queue::wait_signal");
  const std::size_t at = flags.offset() + byte_offset;
  detail::CrossQueueOrder order("wait_signal");
  order.add(impl.accesses, at, at + 4, false, flags.bytes());
  EnqueueScope scope(s, order);
  return scope.enqueue([&](backend::QueueImpl& q) { q.wait_signal(impl, at, value); });
}

std::uintptr_t Queue::native_handle() const {
  // Work the caller enqueues natively comes after whatever duet enqueued, so an event still
  // pending for duet's last operation is recorded now, before it.
  refuse_if_capturing(state(), "Queue::native_handle",
                      "work enqueued natively cannot be recorded into a duet graph; take the handle "
                      "before begin_capture() or after end_capture()");
  EnqueueScope scope(state());
  return scope.settled_queue().native_handle();
}

RawMapping Queue::map_bytes(const RawBuffer& buffer, MapAccess access) {
  State& s = state();
  auto& impl = detail::Access::buffer(buffer, "buffer to map");
  check_same_device(s.device, buffer.device(), "the buffer to map");
  refuse_if_capturing(s, "Queue::map",
                      "a map blocks until the queue's work is done, and a capture enqueues none; map after "
                      "end_capture() and a replay");
  // The host may write a mapping until it is unmapped, so a map for writing is a write already.
  detail::CrossQueueOrder order("map");
  order.add(impl.accesses, buffer.offset(), buffer.offset() + buffer.bytes(), access != MapAccess::read,
            buffer.bytes());
  EnqueueScope scope(s, order);
  RawMapping m;
  scope.enqueue([&](backend::QueueImpl& q) {
    if (!buffer.bytes()) return;
    // map() waits for the queue: with a deadline, for an event first.
    if (detail::kernel_timeout()) detail::wait_for_event(scope.device(), &scope.launch_log(), *q.record());
    m.data_ = q.map(impl, buffer.offset(), buffer.bytes(), access);
    scope.locked_queue()->completed_up_to(scope.locked_queue()->recorded.load());  // the map waited for them
  });
  // The map waited for everything before it and for its own copy to the host.
  detail::host_reached(*s.queue, scope.operation(), s.queue->clock.get());
  m.queue_ = *this;
  m.buffer_ = buffer.share();
  m.bytes_ = buffer.bytes();
  m.access_ = access;
  return m;
}

Event Queue::unmap_bytes(RawMapping& m) {
  State& s = state();
  refuse_if_capturing(s, "unmap",
                      "the mapping was made before the capture; unmap it before begin_capture() or after "
                      "end_capture()");
  // The mapping is over once this is called, whatever the driver answers: its address must not be
  // used again, and a second unmap of it would be an error of its own.
  RawBuffer buffer = std::move(m.buffer_);
  void* data = m.data_;
  m.data_ = nullptr;
  m.queue_.release();
  detail::CrossQueueOrder order("unmap");
  if (m.access_ != MapAccess::read)
    order.add(detail::Access::buffer(buffer, "mapped buffer").accesses, buffer.offset(),
              buffer.offset() + buffer.bytes(), true, buffer.bytes());
  EnqueueScope scope(s, order);
  return scope.enqueue([&](backend::QueueImpl& q) {
    if (buffer.bytes())
      q.unmap(detail::Access::buffer(buffer, "mapped buffer"), data, buffer.offset(), buffer.bytes(), m.access_);
  });
}

RawMapping::RawMapping(RawMapping&& o) noexcept
    : queue_(std::move(o.queue_)), buffer_(std::move(o.buffer_)), data_(o.data_), bytes_(o.bytes_),
      access_(o.access_) {
  o.queue_.release();
  o.data_ = nullptr;
  o.bytes_ = 0;
}

namespace {
void unmap_quietly(RawMapping& m) noexcept {
  if (!m.mapped()) return;
  try {
    m.unmap();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "duet: unmapping a mapped buffer failed: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "duet: unmapping a mapped buffer failed\n");
  }
}
}  // namespace

RawMapping& RawMapping::operator=(RawMapping&& o) noexcept {
  if (this != &o) {
    unmap_quietly(*this);
    queue_ = std::move(o.queue_);
    buffer_ = std::move(o.buffer_);
    data_ = o.data_;
    bytes_ = o.bytes_;
    access_ = o.access_;
    o.queue_.release();
    o.data_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

RawMapping::~RawMapping() { unmap_quietly(*this); }

Event RawMapping::unmap() {
  if (!mapped()) throw ReleasedError("the mapping was already unmapped (or never mapped); map it again with Queue::map");
  Queue q = queue_;
  return q.unmap_bytes(*this);
}

Event copy_between(Queue& from_queue, const RawBuffer& src, Queue& to_queue, RawBuffer& dst) {
  src.check_live("source buffer");
  dst.check_live("destination buffer");
  const Device& from = from_queue.device();
  const Device& to = to_queue.device();
  check_same_device(from, src.device(), "the source buffer (of duet::copy's from_queue)");
  check_same_device(to, dst.device(), "the destination buffer (of duet::copy's to_queue)");
  const std::size_t bytes = src.bytes();
  check_range(dst, 0, bytes, "duet::copy");
  if (from == to) {
    // One device: a device copy on to_queue, after what from_queue has enqueued so far.
    if (&from_queue != &to_queue) to_queue.wait(from_queue.record());
    return to_queue.copy_bytes(src, 0, dst, 0, bytes);
  }
  if (bytes == 0) return to_queue.record();

  // Two devices: chunks through two pinned host buffers. Reading chunk i+1 into one overlaps
  // writing chunk i from the other. The host waits for each read (the destination device cannot
  // wait for another device's event) and for a write before its staging buffer is refilled.
  constexpr std::size_t kChunk = std::size_t(8) << 20;
  const std::size_t chunk = std::min(bytes, kChunk);
  RawHostBuffer staging[2];
  Event written[2];
  Event last;
  try {
    for (std::size_t done = 0, i = 0; done < bytes; done += chunk, ++i) {
      const std::size_t n = std::min(chunk, bytes - done);
      RawHostBuffer& stage = staging[i % 2];
      if (!stage.valid()) stage = RawHostBuffer(from, chunk);
      if (written[i % 2].valid()) written[i % 2].wait();
      from_queue.read_bytes(src, done, stage.data(), n, "duet::copy read").wait();
      written[i % 2] = to_queue.write_bytes(dst, done, stage.data(), n, "duet::copy write");
      last = written[i % 2];
    }
    last.wait();
  } catch (...) {
    // The staging memory is freed on the way out, so no transfer may still be using it.
    try {
      from_queue.finish();
    } catch (...) {
    }
    try {
      to_queue.finish();
    } catch (...) {
    }
    throw;
  }
  return last;
}

namespace {
detail::EventState& event_state(const std::shared_ptr<detail::EventState>& s) {
  if (!s) throw ReleasedError("the event is empty; events come from queue operations and Queue::record()");
  if (s->recorded_in_graph)
    throw CaptureError("the event is of an operation recorded into a graph, which marks nothing: the "
                       "operation runs only when the graph is replayed; wait for (or time) the Event that "
                       "Graph::replay returns");
  return *s;
}
}  // namespace

backend::EventImpl& Event::impl() const { return event_state(state_).materialise(); }
const Device& Event::device() const {
  if (state_ && state_->recorded_in_graph) return state_->device;
  return event_state(state_).device;
}

void Event::wait() const {
  const detail::EventState& s = event_state(state_);
  backend::EventImpl& e = impl();
  // Passed already: a later event of its queue, or this one, was waited for. Asking the driver
  // again would cost the host a call for what it knows.
  if (const auto queue = s.origin.lock(); queue && s.sequence <= queue->completed.load()) return;
  detail::wait_for_event(s.device, s.log.get(), e);
  if (const auto queue = s.origin.lock()) {
    queue->completed_up_to(s.sequence);
    detail::host_reached(*queue, s.operation, s.clock.get());
  }
}

bool Event::done() const {
  const detail::EventState& s = event_state(state_);
  backend::EventImpl& e = impl();
  if (const auto queue = s.origin.lock(); queue && s.sequence <= queue->completed.load()) return true;
  const bool done = detail::watching_faults(s.device, s.log.get(), [&] { return e.done(); });
  if (done)
    if (const auto queue = s.origin.lock()) {
      queue->completed_up_to(s.sequence);
      detail::host_reached(*queue, s.operation, s.clock.get());
    }
  return done;
}

double Event::duration_ms() const {
  const detail::EventState& s = event_state(state_);
  if (s.point)
    throw TimingUnavailableError(
        "duration_ms: this event comes from Queue::record(), which marks a point in the queue, not an "
        "operation, so it has no duration; time the span between two events with elapsed_ms(start, end)");
  if (!s.command_time)
    throw TimingUnavailableError(
        "duration_ms: the event's queue was made without command timing, so its operations are not "
        "timed; make the queue with device.queue(duet::QueueOptions{true}) (QueueOptions::command_timing), "
        "or time between two events of the queue with elapsed_ms(start, end)");
  wait();  // with DUET_KERNEL_TIMEOUT's deadline, and faults named
  return detail::watching_faults(s.device, s.log.get(), [&] { return s.command_time->duration_ms(); });
}

double elapsed_ms(const Event& start, const Event& end) {
  const detail::EventState& a = event_state(start.state_);
  const detail::EventState& b = event_state(end.state_);
  // Two devices, even of one backend, have clocks of their own; two queues of one device may run
  // side by side, so the span between their events is not the time either queue spent.
  if (a.device != b.device)
    throw ArgumentError("elapsed_ms: the start event is of " + a.device.info().id() + " and the end event of " +
                        b.device.info().id() + "; device clocks cannot be compared, so time two events of "
                        "one queue (or each operation with Event::duration_ms)");
  if (a.origin.owner_before(b.origin) || b.origin.owner_before(a.origin))
    throw ArgumentError("elapsed_ms: the two events belong to different queues of " + a.device.info().id() +
                        "; time two events of one queue (that queue may Queue::wait for the other's event first), "
                        "or each operation with Event::duration_ms");
  end.wait();  // with DUET_KERNEL_TIMEOUT's deadline, and faults named
  return detail::watching_faults(end.device(), nullptr,
                                 [&] { return start.impl().elapsed_ms_until(end.impl()); });
}

}  // namespace duet

// --- Graphs (duet/graph.hpp): recording a queue's operations, and replaying them -----------------
namespace duet {
namespace {

void refuse_if_capturing(const Queue::State& s, const char* call, const char* instead) {
  if (s.capturing.load(std::memory_order_relaxed))
    throw CaptureError(std::string(call) + " during a graph capture: " + instead);
}

// Under the queue's lock: the capture in progress and the event its operations return.
Event recorded_event(Queue::State& s, detail::Recording& r) {
  if (!r.recorded_event) {
    r.recorded_event = std::make_shared<detail::EventState>();
    r.recorded_event->device = s.device;
    r.recorded_event->recorded_in_graph = true;
  }
  return detail::Access::make_event(r.recorded_event);
}

std::optional<Event> record_node(Queue::State& s, const std::function<void(detail::GraphNode&)>& fill) {
  std::lock_guard<std::mutex> lock(s.queue->mutex);
  detail::throw_if_abandoned(s.device);
  const std::shared_ptr<detail::Recording> r = s.recording;
  if (!r) return std::nullopt;
  auto node = std::make_unique<detail::GraphNode>();
  fill(*node);
  r->nodes.push_back(std::move(node));
  return recorded_event(s, *r);
}

std::optional<Event> record_launch(Queue::State& s, const Kernel& kernel, const Range& global, const Range& local,
                                   Span<const KernelArg> args) {
  return record_node(s, [&](detail::GraphNode& node) {
    detail::fill_launch_node(node, kernel, global, local, args, s.device);
  });
}

std::optional<Event> record_copy(Queue::State& s, const RawBuffer& src, std::size_t from, RawBuffer& dst,
                                 std::size_t to, std::size_t bytes) {
  return record_node(s, [&](detail::GraphNode& node) {
    node.kind = detail::GraphNode::Kind::copy;
    node.src = src.share();
    node.dst = dst.share();
    node.command.kind = backend::GraphCommand::Kind::copy;
    node.command.src = &detail::Access::buffer(node.src);
    node.command.dst = &detail::Access::buffer(node.dst);
    node.command.src_offset = from;
    node.command.dst_offset = to;
    node.command.bytes = bytes;
  });
}

std::optional<Event> record_fill(Queue::State& s, RawBuffer& dst, std::size_t offset, std::size_t bytes,
                                 const void* pattern, std::size_t pattern_size) {
  return record_node(s, [&](detail::GraphNode& node) {
    node.kind = detail::GraphNode::Kind::fill;
    node.dst = dst.share();
    std::memcpy(node.pattern.data(), pattern, pattern_size);
    node.command.kind = backend::GraphCommand::Kind::fill;
    node.command.dst = &detail::Access::buffer(node.dst);
    node.command.dst_offset = offset;
    node.command.bytes = bytes;
    node.command.pattern = node.pattern.data();
    node.command.pattern_size = pattern_size;
  });
}

std::optional<Event> record_wait(Queue::State& s, const Event& event) {
  return record_node(s, [&](detail::GraphNode& node) {
    node.kind = detail::GraphNode::Kind::wait;
    node.event = event;
  });
}

// A replay's buffers for the order between queues: each as its command uses it.
void use_graph_buffers(detail::CrossQueueOrder& order, const Graph::State& g) {
  for (const std::unique_ptr<detail::GraphNode>& n : g.nodes) {
    const backend::GraphCommand& c = n->command;
    switch (n->kind) {
      case detail::GraphNode::Kind::launch:
        use_kernel_args(order, g.device, n->kernel, Span<const KernelArg>(n->args.data(), n->args.size()));
        break;
      case detail::GraphNode::Kind::copy:
        order.add(detail::Access::buffer(n->src).accesses, c.src_offset, c.src_offset + c.bytes, false, n->src.bytes());
        order.add(detail::Access::buffer(n->dst).accesses, c.dst_offset, c.dst_offset + c.bytes, true, n->dst.bytes());
        break;
      case detail::GraphNode::Kind::fill:
        order.add(detail::Access::buffer(n->dst).accesses, c.dst_offset, c.dst_offset + c.bytes, true, n->dst.bytes());
        break;
      case detail::GraphNode::Kind::wait:
        break;
    }
  }
}

}  // namespace

namespace detail {

void fill_launch_node(GraphNode& node, const Kernel& kernel, const Range& global, const Range& local_in,
                      Span<const KernelArg> args, const Device& device) {
  if (device != kernel.device()) device_mismatch(device, kernel.device(), "kernel '" + kernel.name() + "'");
  const DeviceInfo& info = device.info();
  const Range local = checked_local_size(kernel, global, local_in, info);
  // The node's own handles of the buffers, so the graph keeps them alive and never points at the
  // caller's objects.
  std::vector<RawBuffer> buffers(args.size());
  std::vector<KernelArg> owned(args.begin(), args.end());
  for (std::size_t i = 0; i < owned.size(); ++i)
    if (owned[i].kind == KernelArg::Kind::buffer) {
      if (owned[i].buffer) buffers[i] = owned[i].buffer->share();
      owned[i].buffer = &buffers[i];
    }
  std::vector<backend::LaunchArg> translated;
  std::vector<std::uint64_t> offsets;
  const Span<const KernelArg> view(owned.data(), owned.size());
  translate_args(kernel, view, device, info, translated, offsets);
  check_launch_args(kernel, view);
  // Moving the vectors keeps their elements where they are, so the pointers into them hold.
  node.kind = GraphNode::Kind::launch;
  node.kernel = kernel;
  node.global = global;
  node.local = local;
  node.buffers = std::move(buffers);
  node.args = std::move(owned);
  node.backend_args = std::move(translated);
  node.offsets = std::move(offsets);
  node.empty_launch = global[0] == 0 || global[1] == 0 || global[2] == 0;
  node.command.kind = backend::GraphCommand::Kind::launch;
  node.command.kernel = &Access::kernel(kernel);
  node.command.shape = launch_shape(global, local);
  node.command.args = &node.backend_args;
}

}  // namespace detail

void Queue::begin_capture() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.queue->mutex);
  detail::throw_if_abandoned(s.device);
  if (s.recording)
    throw CaptureError("Queue::begin_capture: the queue is capturing a graph already; end that capture "
                       "(end_capture()) first");
  s.recording = std::make_shared<detail::Recording>();
  s.capturing.store(true, std::memory_order_relaxed);
}

Graph Queue::end_capture() {
  State& s = state();
  std::shared_ptr<detail::Recording> r;
  {
    std::lock_guard<std::mutex> lock(s.queue->mutex);
    if (!s.recording)
      throw CaptureError("Queue::end_capture: the queue is not capturing a graph; call begin_capture() first");
    r = std::move(s.recording);
    s.recording.reset();
    s.capturing.store(false, std::memory_order_relaxed);
  }
  auto g = std::make_shared<Graph::State>();
  g->device = s.device;
  g->nodes = std::move(r->nodes);
  g->build();
  return Graph(std::move(g));
}

void Queue::abort_capture() noexcept {
  if (!state_) return;
  std::lock_guard<std::mutex> lock(state_->queue->mutex);
  state_->recording.reset();
  state_->capturing.store(false, std::memory_order_relaxed);
}

bool Queue::capturing() const { return state().capturing.load(std::memory_order_relaxed); }

Event Queue::replay(const Graph& graph) {
  State& s = state();
  Graph::State& g = graph.state();
  check_same_device(s.device, g.device, "the graph");
  refuse_if_capturing(s, "Queue::replay",
                      "graphs do not nest; replay the graph before begin_capture() or after end_capture()");
  std::lock_guard<std::mutex> graph_lock(g.mutex);
  // The events a graph waits for were recorded before it, so none of them can depend on the
  // replay: waiting for all of them first orders nothing wrongly, and keeps the order between
  // queues exact (Queue::wait's bookkeeping).
  for (const std::unique_ptr<detail::GraphNode>& n : g.nodes)
    if (n->kind == detail::GraphNode::Kind::wait) wait(n->event);
  detail::CrossQueueOrder order("graph replay");
  use_graph_buffers(order, g);
  EnqueueScope scope(s, order);
  return scope.enqueue(
      [&](backend::QueueImpl& q) {
        if (g.native) {
          g.native->replay(q);
        } else {
          for (const backend::GraphCommand& c : g.commands) {
            using Kind = backend::GraphCommand::Kind;
            if (c.kind == Kind::launch && c.shape.global[0] && c.shape.global[1] && c.shape.global[2])
              q.launch(*c.kernel, c.shape, *c.args);
            else if (c.kind == Kind::copy && c.bytes)
              q.copy(*c.src, c.src_offset, *c.dst, c.dst_offset, c.bytes);
            else if (c.kind == Kind::fill && c.bytes)
              q.fill(*c.dst, c.dst_offset, c.bytes, c.pattern, c.pattern_size);
          }
        }
        for (const std::unique_ptr<detail::GraphNode>& n : g.nodes)
          if (n->kind == detail::GraphNode::Kind::launch && !n->empty_launch)
            scope.launch_log().launched(n->kernel.name());
      },
      [&](backend::QueueImpl& q) {
        if (!detail::checked_mode()) return;
        for (const std::unique_ptr<detail::GraphNode>& n : g.nodes)
          if (n->kind == detail::GraphNode::Kind::launch && !n->empty_launch)
            detail::check_guard_zones(g.device, q, scope.launch_log(), n->kernel,
                                      Span<const KernelArg>(n->args.data(), n->args.size()));
      });
}

}  // namespace duet
