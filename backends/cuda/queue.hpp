// A duet queue on CUDA: one non-blocking stream of the device's primary context. Transfers, fills
// and launches are enqueued and return at once; only finish() (and events) wait. Non-blocking, so
// the stream never serialises with the legacy default stream that other code in the process may
// use. Core makes one call at a time on a queue, except finish(), which may come from another
// thread at any time (backend.hpp). The driver cannot map device memory into the host, so map()
// stages through pinned memory; the staging memory of an unmap that copies back lives until that
// copy completed (checked at later maps, finish and destruction).
#pragma once

#include <cuda.h>

#include <memory>
#include <mutex>
#include <vector>

#include "backend.hpp"

namespace duet::backend::cuda {

class CudaDevice;
class CudaEvent;

class CudaQueue final : public QueueImpl {
 public:
  CudaQueue(std::shared_ptr<const CudaDevice> device, CUcontext ctx, bool high_priority);
  // Waits for the stream's work first, so failures of work still queued are reported (on stderr)
  // rather than lost, and host memory of pending reads is no longer written after the queue is gone.
  ~CudaQueue() override;
  CudaQueue(const CudaQueue&) = delete;
  CudaQueue& operator=(const CudaQueue&) = delete;

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
  std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(stream_); }
  // Stream memory operations (interprocess.cpp).
  void signal(BufferImpl& flags, std::size_t offset, std::uint32_t value) override;
  void wait_signal(const BufferImpl& flags, std::size_t offset, std::uint32_t value) override;
  // Enqueues an instantiated graph (CudaGraph::replay), timed like any command.
  void launch_graph(CUgraphExec exec);

 private:
  // Pinned staging memory of an unmap whose copy back to the device may still run.
  struct Staging {
    void* host = nullptr;
    CUevent copied = nullptr;
  };
  // Frees the staging memory whose copies have completed (all of it when `all`, after a sync).
  void reap(bool all) noexcept;
  // Records the timed operation's start event before its first command (start_timing).
  void command_begins();
  // Enqueues a cuMemcpy2D (write_rect, read_rect).
  void copy_2d(const CUDA_MEMCPY2D& m);

  std::shared_ptr<const CudaDevice> device_;
  CUcontext ctx_;
  CUstream stream_ = nullptr;
  std::mutex staging_mutex_;  // finish() reaps beside an unmap on another thread
  std::vector<Staging> staging_;
  bool timing_ = false;                       // between start_timing and stop_timing
  std::shared_ptr<CudaEvent> timing_start_;  // recorded by command_begins, for stop_timing
  std::vector<CUdeviceptr> addresses_;  // launch scratch: parameter values
  std::vector<void*> params_;           // launch scratch: pointers to them
};

}  // namespace duet::backend::cuda
