// CudaEvent (see event.hpp). Events keep the default flags: timing on, and a spinning wait, which
// answers fastest when it completes; duet's waits are short synchronisation points, not idle time.
#include "event.hpp"

#include "context.hpp"
#include "device.hpp"
#include "errors.hpp"

namespace duet::backend::cuda {

CudaEvent::CudaEvent(std::shared_ptr<const CudaDevice> device, CUcontext ctx, CUstream stream)
    : device_(std::move(device)), ctx_(ctx), pooled_(ctx == device_->context()) {
  ContextGuard guard(ctx_);
  if (pooled_)
    event_ = device_->take_event();
  else
    DUET_CU(cuEventCreate, &event_, CU_EVENT_DEFAULT);
  const CUresult r = driver().cuEventRecord(event_, stream);
  if (r != CUDA_SUCCESS) {
    DUET_CU_NOTHROW(cuEventDestroy, event_);
    throw_error(r, "cuEventRecord(event_, stream)");
  }
}

// A pooled event goes back to its device once no Event refers to it: recording it again later
// leaves the waits enqueued on it before alone (a stream wait takes the event as it is when made).
CudaEvent::~CudaEvent() {
  if (pooled_) {
    device_->give_back_event(event_);
    return;
  }
  ContextGuard guard(ctx_, std::nothrow);
  if (guard.ok()) DUET_CU_NOTHROW(cuEventDestroy, event_);
}

void CudaEvent::wait() {
  ContextGuard guard(ctx_);
  DUET_CU(cuEventSynchronize, event_);
}

bool CudaEvent::done() {
  ContextGuard guard(ctx_);
  const CUresult r = driver().cuEventQuery(event_);
  if (r == CUDA_ERROR_NOT_READY) return false;
  check(r, "cuEventQuery(event_)");
  return true;
}

double CudaEvent::elapsed_ms_until(EventImpl& later_impl) {
  // Core does not know which backend an event came from; a mix-up must not become a bad cast.
  auto* later = dynamic_cast<CudaEvent*>(&later_impl);
  if (!later)
    throw ArgumentError("elapsed_ms: the end event is not from a CUDA queue; time two events of one queue");
  ContextGuard guard(ctx_);
  DUET_CU(cuEventSynchronize, event_);
  DUET_CU(cuEventSynchronize, later->event_);
  float ms = 0.0f;
  DUET_CU(cuEventElapsedTime, &ms, event_, later->event_);
  return static_cast<double>(ms);
}

}  // namespace duet::backend::cuda
