// What the shared-kernel entry points have in common: finding their compiled kernel quickly, and
// checking buffers and sizes with messages that name the call.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/error.hpp"
#include "duet/program.hpp"

namespace duet::detail {

// The kernel `kernel` of the embedded source `file` compiled with `defines` on `device`. The first
// call per (device, file, kernel, defines) compiles; later calls are a hash lookup, not a compile
// or a source assembly, so launching a shared kernel stays cheap.
Kernel shared_kernel(const Device& device, const char* file, const char* kernel,
                     const Defines& defines = {});

// Checks the buffer is live (ReleasedError) before its size, so a released buffer is never
// reported as a size problem.
template <class T>
void need(const char* call, const char* what, const Buffer<T>& buffer, std::size_t want) {
  buffer.raw().impl(what);
  if (buffer.size() < want) {
    std::ostringstream s;
    s << call << ": " << what << " holds " << buffer.size() << " elements but the call needs " << want;
    throw BufferSizeError(s.str());
  }
}

// `v` as an int for kernels that index with int; ArgumentError when it does not fit.
int as_int(const char* call, const char* what, std::size_t v);

}  // namespace duet::detail
