// Scratch memory that the array layer's multi-launch operations keep per queue between calls
// (extension::queue_state): calls on one queue run in order, so the next call may take it over.
#pragma once

#include <algorithm>
#include <cstddef>

#include "duet/buffer.hpp"

namespace duet::detail {

// `buffer` holding at least `bytes`: kept when it does, else a new one of max(bytes, minimum),
// so that small needs do not regrow it call after call. The old one is freed first (once the work
// using it is done), so the old and the new need not fit at once.
inline RawBuffer& grown_scratch(const Device& device, RawBuffer& buffer, std::size_t bytes,
                                std::size_t minimum = 1) {
  if (!buffer.valid() || buffer.bytes() < bytes) {
    buffer = RawBuffer();
    buffer = RawBuffer(device, std::max(bytes, minimum));
  }
  return buffer;
}

}  // namespace duet::detail
