// Transfers, fills, launches, events and finish on an OpenCL queue. Transfers pass CL_FALSE for
// blocking, as duet's queues are asynchronous: the host memory must stay valid until the queue has
// finished with it, as queue.hpp tells users. Zero-byte transfers and empty launches enqueue
// nothing, because OpenCL refuses them as invalid values where CUDA accepts them.
#include "queue.hpp"

#include <array>
#include <string>
#include <utility>

#include "buffer.hpp"
#include "device.hpp"
#include "errors.hpp"
#include "event.hpp"
#include "kernel.hpp"

namespace duet::backend::opencl {

namespace {

cl_mem mem_of(const BufferImpl& buffer) { return static_cast<const OpenCLBuffer&>(buffer).mem(); }

// OpenCL names a rect's start by (byte in the row, row, slice) and the row pitch.
std::array<std::size_t, 3> origin_of(std::size_t offset, std::size_t pitch) {
  return {offset % pitch, offset / pitch, 0};
}

// The rows of a rect transfer that go as a rect: NVIDIA's driver refuses a rect whose rows, each
// taken a whole pitch long, would pass the buffer's end, though the last row ends sooner; such a
// block's last row goes as a plain transfer of its own.
RectTransfer rows_in_bounds(const BufferImpl& buffer, RectTransfer rect) {
  if (rect.offset + rect.rows * rect.pitch > buffer.bytes()) --rect.rows;
  return rect;
}

}  // namespace

OpenCLQueue::OpenCLQueue(std::shared_ptr<const OpenCLDevice> device, cl::CommandQueue queue, bool launch_events)
    : device_(std::move(device)), queue_(std::move(queue)), launch_events_(launch_events) {}

void OpenCLQueue::enqueued(cl_event event) {
  last_ = cl::Event(event);
  untracked_ = false;
  if (timing_ && timed_first_() == nullptr) timed_first_ = last_;
  if (waiting_) {
    waiting_->set(last_);
    waiting_.reset();
  }
}

OpenCLQueue::~OpenCLQueue() {
  if (device_->abandoned()) clRetainCommandQueue(queue_());  // leaked: see OpenCLDevice::abandon
}

void OpenCLQueue::fail(const char* call, cl_int code, const char* what, std::size_t bytes) const {
  throw_driver_error(call, code,
                     std::string(what) + " " + std::to_string(bytes) + " bytes on " + device_->label());
}

void OpenCLQueue::write(BufferImpl& dst, std::size_t offset, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  cl_event event = nullptr;
  const cl_int err = clEnqueueWriteBuffer(queue_(), mem_of(dst), CL_FALSE, offset, bytes, src, 0,
                                          nullptr, &event);
  if (err != CL_SUCCESS) fail("clEnqueueWriteBuffer", err, "writing", bytes);
  enqueued(event);
}

void OpenCLQueue::read(const BufferImpl& src, std::size_t offset, void* dst, std::size_t bytes) {
  if (bytes == 0) return;
  cl_event event = nullptr;
  const cl_int err = clEnqueueReadBuffer(queue_(), mem_of(src), CL_FALSE, offset, bytes, dst, 0,
                                         nullptr, &event);
  if (err != CL_SUCCESS) fail("clEnqueueReadBuffer", err, "reading", bytes);
  enqueued(event);
}

void OpenCLQueue::write_rect(BufferImpl& dst, const RectTransfer& whole, const void* src) {
  const RectTransfer rect = rows_in_bounds(dst, whole);
  if (rect.rows < whole.rows)
    write(dst, whole.offset + rect.rows * whole.pitch,
          static_cast<const char*>(src) + rect.rows * whole.host_pitch, whole.row_bytes);
  if (rect.rows == 0) return;
  cl_event event = nullptr;
  const std::array<std::size_t, 3> buffer_origin = origin_of(rect.offset, rect.pitch), host_origin{0, 0, 0},
                                   region{rect.row_bytes, rect.rows, 1};
  const cl_int err =
      clEnqueueWriteBufferRect(queue_(), mem_of(dst), CL_FALSE, buffer_origin.data(), host_origin.data(),
                               region.data(), rect.pitch, 0, rect.host_pitch, 0, src, 0, nullptr, &event);
  if (err != CL_SUCCESS) fail("clEnqueueWriteBufferRect", err, "writing", rect.row_bytes * rect.rows);
  enqueued(event);
}

void OpenCLQueue::read_rect(const BufferImpl& src, const RectTransfer& whole, void* dst) {
  const RectTransfer rect = rows_in_bounds(src, whole);
  if (rect.rows < whole.rows)
    read(src, whole.offset + rect.rows * whole.pitch, static_cast<char*>(dst) + rect.rows * whole.host_pitch,
         whole.row_bytes);
  if (rect.rows == 0) return;
  cl_event event = nullptr;
  const std::array<std::size_t, 3> buffer_origin = origin_of(rect.offset, rect.pitch), host_origin{0, 0, 0},
                                   region{rect.row_bytes, rect.rows, 1};
  const cl_int err =
      clEnqueueReadBufferRect(queue_(), mem_of(src), CL_FALSE, buffer_origin.data(), host_origin.data(),
                              region.data(), rect.pitch, 0, rect.host_pitch, 0, dst, 0, nullptr, &event);
  if (err != CL_SUCCESS) fail("clEnqueueReadBufferRect", err, "reading", rect.row_bytes * rect.rows);
  enqueued(event);
}

void OpenCLQueue::copy(const BufferImpl& src, std::size_t src_offset, BufferImpl& dst,
                       std::size_t dst_offset, std::size_t bytes) {
  if (bytes == 0) return;
  cl_event event = nullptr;
  const cl_int err = clEnqueueCopyBuffer(queue_(), mem_of(src), mem_of(dst), src_offset, dst_offset,
                                         bytes, 0, nullptr, &event);
  if (err != CL_SUCCESS) fail("clEnqueueCopyBuffer", err, "copying", bytes);
  enqueued(event);
}

void OpenCLQueue::fill(BufferImpl& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                       std::size_t pattern_size) {
  if (bytes == 0) return;
  cl_event event = nullptr;
  const cl_int err = clEnqueueFillBuffer(queue_(), mem_of(dst), pattern, pattern_size, offset, bytes, 0,
                                         nullptr, &event);
  if (err != CL_SUCCESS) fail("clEnqueueFillBuffer", err, "filling", bytes);
  enqueued(event);
}

void OpenCLQueue::launch(KernelImpl& kernel, const LaunchShape& shape,
                         const std::vector<LaunchArg>& args) {
  for (int d = 0; d < shape.dims; ++d)
    if (shape.global[d] == 0) return;
  const cl_event event = static_cast<const OpenCLKernel&>(kernel).enqueue(queue_(), shape, args, launch_events_ || timing_);
  if (event) {
    enqueued(event);
    return;
  }
  // The events recorded before this launch no longer know their neighbours; their markers' own
  // timestamps, which this device gives, time them.
  untracked_ = true;
  if (waiting_) waiting_.reset();
}

std::shared_ptr<EventImpl> OpenCLQueue::record() {
  cl_event handle = nullptr;
  cl_int err = clEnqueueMarkerWithWaitList(queue_(), 0, nullptr, &handle);
  if (err != CL_SUCCESS) throw_driver_error("clEnqueueMarkerWithWaitList", err, "on " + device_->label());
  cl::Event marker(handle);
  // Submits what is queued: a driver may otherwise hold commands back until something blocks, so
  // an Event::wait() from another thread could wait for ever and timings would include the delay.
  err = clFlush(queue_());
  if (err != CL_SUCCESS) throw_driver_error("clFlush", err, "on " + device_->label());
  if (!waiting_) waiting_ = std::make_shared<NextCommand>();
  return std::make_shared<OpenCLEvent>(std::move(marker), untracked_ ? cl::Event() : last_, waiting_,
                                       /*commands_tracked=*/launch_events_);
}

// An operation's commands carry their own start and end times (the queue profiles), so timing
// one only needs every command of it to have an event, which launches otherwise may go without.
void OpenCLQueue::start_timing() {
  timing_ = true;
  timed_first_ = cl::Event();
}

std::shared_ptr<CommandTimeImpl> OpenCLQueue::stop_timing() {
  timing_ = false;
  cl::Event first = std::move(timed_first_);
  timed_first_ = cl::Event();
  cl::Event last = first() ? last_ : cl::Event();
  return std::make_shared<OpenCLCommandTime>(std::move(first), std::move(last));
}

void OpenCLQueue::wait_for(EventImpl& event) {
  // Core only hands a queue events of its own device, whose queues share one context.
  cl_event handle = static_cast<OpenCLEvent&>(event).marker()();
  cl_event barrier = nullptr;
  const cl_int err = clEnqueueBarrierWithWaitList(queue_(), 1, &handle, &barrier);
  if (err != CL_SUCCESS) throw_driver_error("clEnqueueBarrierWithWaitList", err, "on " + device_->label());
  enqueued(barrier);
}

void* OpenCLQueue::map(BufferImpl& buffer, std::size_t offset, std::size_t bytes, MapAccess access) {
  const cl_map_flags flags = access == MapAccess::read    ? CL_MAP_READ
                             : access == MapAccess::write ? CL_MAP_WRITE_INVALIDATE_REGION
                                                          : CL_MAP_READ | CL_MAP_WRITE;
  cl_event event = nullptr;
  cl_int err = CL_SUCCESS;
  void* host = clEnqueueMapBuffer(queue_(), mem_of(buffer), CL_TRUE, flags, offset, bytes, 0, nullptr, &event, &err);
  if (err != CL_SUCCESS) fail("clEnqueueMapBuffer", err, "mapping", bytes);
  enqueued(event);
  return host;
}

void OpenCLQueue::unmap(BufferImpl& buffer, void* host, std::size_t, std::size_t bytes, MapAccess) {
  cl_event event = nullptr;
  const cl_int err = clEnqueueUnmapMemObject(queue_(), mem_of(buffer), host, 0, nullptr, &event);
  if (err != CL_SUCCESS) fail("clEnqueueUnmapMemObject", err, "unmapping", bytes);
  enqueued(event);
}

#if DUET_CL_COMMAND_BUFFER
void OpenCLQueue::enqueue_command_buffer(clEnqueueCommandBufferKHR_fn enqueue, cl_command_buffer_khr buffer) {
  if (timing_ && timed_first_() == nullptr) {
    // A command buffer's event may start only when its last command does (PoCL's does), so a
    // marker before it starts the timed span.
    cl_event marker = nullptr;
    const cl_int err = clEnqueueMarkerWithWaitList(queue_(), 0, nullptr, &marker);
    if (err != CL_SUCCESS) throw_driver_error("clEnqueueMarkerWithWaitList", err, "on " + device_->label());
    enqueued(marker);
  }
  cl_command_queue queue = queue_();
  // With an event always: the queue's events need the command's, and PoCL's implementation sets a
  // callback on it without checking that one was asked for.
  cl_event event = nullptr;
  const cl_int err = enqueue(1, &queue, buffer, 0, nullptr, &event);
  if (err != CL_SUCCESS)
    throw_driver_error("clEnqueueCommandBufferKHR", err, "replaying a graph on " + device_->label());
  enqueued(event);
}
#endif

void OpenCLQueue::finish() {
  const cl_int err = clFinish(queue_());
  if (err != CL_SUCCESS) throw_driver_error("clFinish", err, "on " + device_->label());
}

}  // namespace duet::backend::opencl
