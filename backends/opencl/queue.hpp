// An in-order OpenCL command queue with profiling on. Every command is enqueued without blocking
// and returns at once. The queue remembers the event of the last command it enqueued, and hands
// the next command's event to events recorded before it, so that events can still be timed on
// drivers whose markers carry no usable timestamps (see event.hpp). Where the device's markers
// do carry them (OpenCLDevice::markers_timed), launches ask for no event: on NVIDIA's OpenCL an
// event per launch more than doubles the host time of a launch (bench/launch_floor measures both).
// Core makes one call at a time on a queue, so the remembered events need no lock of their own;
// finish() may come from another thread meanwhile, and touches none of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend.hpp"
#include "cl_api.hpp"
#include "command_buffer.hpp"

namespace duet::backend::opencl {

class OpenCLDevice;
class NextCommand;

class OpenCLQueue final : public QueueImpl {
 public:
  // `launch_events`: whether launches need events of their own for timing (markers untimed).
  OpenCLQueue(std::shared_ptr<const OpenCLDevice> device, cl::CommandQueue queue, bool launch_events);
  ~OpenCLQueue() override;

  void write(BufferImpl& dst, std::size_t offset, const void* src, std::size_t bytes) override;
  void read(const BufferImpl& src, std::size_t offset, void* dst, std::size_t bytes) override;
  void write_rect(BufferImpl& dst, const RectTransfer& rect, const void* src) override;
  void read_rect(const BufferImpl& src, const RectTransfer& rect, void* dst) override;
  void copy(const BufferImpl& src, std::size_t src_offset, BufferImpl& dst, std::size_t dst_offset,
            std::size_t bytes) override;
  void fill(BufferImpl& dst, std::size_t offset, std::size_t bytes, const void* pattern,
            std::size_t pattern_size) override;
  void launch(KernelImpl& kernel, const LaunchShape& shape, const std::vector<LaunchArg>& args) override;
  std::shared_ptr<EventImpl> record() override;
  void start_timing() override;
  std::shared_ptr<CommandTimeImpl> stop_timing() override;
  void wait_for(EventImpl& event) override;
  void finish() override;
  void* map(BufferImpl& buffer, std::size_t offset, std::size_t bytes, MapAccess access) override;
  void unmap(BufferImpl& buffer, void* host, std::size_t offset, std::size_t bytes, MapAccess access) override;
  std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(queue_()); }
#if DUET_CL_COMMAND_BUFFER
  // Runs `buffer` (recorded for this queue's device) here, as one command of this queue.
  void enqueue_command_buffer(clEnqueueCommandBufferKHR_fn enqueue, cl_command_buffer_khr buffer);
#endif

 private:
  // Takes ownership of the event of a command just enqueued.
  void enqueued(cl_event event);
  [[noreturn]] void fail(const char* call, cl_int code, const char* what, std::size_t bytes) const;

  std::shared_ptr<const OpenCLDevice> device_;
  cl::CommandQueue queue_;
  cl::Event last_;
  std::shared_ptr<NextCommand> waiting_;  // shared with the events recorded since the last command
  bool launch_events_;
  bool untracked_ = false;  // a launch without an event came since last_ was set
  bool timing_ = false;      // between start_timing and stop_timing: every command gets an event
  cl::Event timed_first_;    // the first command since start_timing
};

}  // namespace duet::backend::opencl
