// Makes a device's CUDA context current for the lifetime of a scope. Every driver call of the
// backend runs inside one, because a duet device may be used from any thread and CUDA keeps the
// current context per thread. On a thread with no current context the guard makes the device's
// current and leaves it so; when another context is current it pushes and pops, leaving the
// context stack of the calling thread (which the application or the CUDA runtime may own) intact.
// Either way the common case costs one thread-local lookup.
#pragma once

#include <cuda.h>

#include <new>

namespace duet::backend::cuda {

class ContextGuard {
 public:
  // Throws DriverError when the context cannot be made current.
  explicit ContextGuard(CUcontext ctx);
  // For destructors: logs a failure instead of throwing; ok() tells whether the context is current.
  ContextGuard(CUcontext ctx, std::nothrow_t) noexcept;
  ~ContextGuard();
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;

  bool ok() const noexcept { return ok_; }

 private:
  bool pushed_ = false;
  bool ok_ = false;
};

}  // namespace duet::backend::cuda
