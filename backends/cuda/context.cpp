// ContextGuard (see context.hpp): push the device's context only when another one, or none, is
// current on this thread, and pop exactly what was pushed.
#include "context.hpp"

#include "errors.hpp"

namespace duet::backend::cuda {

ContextGuard::ContextGuard(CUcontext ctx) {
  CUcontext current = nullptr;
  DUET_CU(cuCtxGetCurrent, &current);
  if (current == nullptr) {
    // A thread with no context of its own keeps ours current: its next call then costs only the
    // lookup above instead of a push and a pop (a launch fast path). Nobody else's state changes.
    DUET_CU(cuCtxSetCurrent, ctx);
  } else if (current != ctx) {
    DUET_CU(cuCtxPushCurrent, ctx);
    pushed_ = true;
  }
  ok_ = true;
}

ContextGuard::ContextGuard(CUcontext ctx, std::nothrow_t) noexcept {
  CUcontext current = nullptr;
  if (!DUET_CU_NOTHROW(cuCtxGetCurrent, &current)) return;
  if (current != ctx) {
    if (!DUET_CU_NOTHROW(cuCtxPushCurrent, ctx)) return;
    pushed_ = true;
  }
  ok_ = true;
}

ContextGuard::~ContextGuard() {
  if (!pushed_) return;
  CUcontext popped = nullptr;
  DUET_CU_NOTHROW(cuCtxPopCurrent, &popped);
}

}  // namespace duet::backend::cuda
