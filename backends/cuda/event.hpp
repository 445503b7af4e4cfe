// A point in a CUDA stream: a timing-enabled CUevent recorded when the object is made (one of the
// device's spare events where the stream is of its primary context). Holding the device keeps the
// event's context alive. Two of them around an operation time it (CudaCommandTime).
#pragma once

#include <cuda.h>

#include <memory>

#include "backend.hpp"

namespace duet::backend::cuda {

class CudaDevice;

class CudaEvent final : public EventImpl {
 public:
  // Creates an event and records it on `stream` (of context `ctx`).
  CudaEvent(std::shared_ptr<const CudaDevice> device, CUcontext ctx, CUstream stream);
  ~CudaEvent() override;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  void wait() override;
  bool done() override;
  CUevent handle() const noexcept { return event_; }
  // Waits for both events, since the driver cannot time an event that has not completed.
  double elapsed_ms_until(EventImpl& later) override;

 private:
  std::shared_ptr<const CudaDevice> device_;
  CUcontext ctx_;
  bool pooled_;  // an event of the device's primary context, taken from and given back to its spares
  CUevent event_ = nullptr;
};

// One operation's device time: the events recorded on its stream right before and right after
// its commands (CudaQueue::start_timing, stop_timing). The stream reaches the first when the work
// before the operation has ended, so the span holds the operation alone. No events: the operation
// enqueued no command.
class CudaCommandTime final : public CommandTimeImpl {
 public:
  CudaCommandTime(std::shared_ptr<CudaEvent> before, std::shared_ptr<CudaEvent> after)
      : before_(std::move(before)), after_(std::move(after)) {}
  double duration_ms() override { return before_ ? before_->elapsed_ms_until(*after_) : 0.0; }

 private:
  std::shared_ptr<CudaEvent> before_, after_;
};

}  // namespace duet::backend::cuda
