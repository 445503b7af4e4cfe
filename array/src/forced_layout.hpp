// DUET_ELEMENTWISE_LAYOUT as the array layer reads it: the layout the tests force on generated
// kernels (fused expressions) and strided copies, so that every device runs the GPUs' forms too.
#pragma once

#include <cstdlib>
#include <string>

#include "duet/error.hpp"

namespace duet {

// The layout named, or "" when unset; ArgumentError for a name that is no layout.
inline std::string forced_elementwise_layout() {
  const char* forced = std::getenv("DUET_ELEMENTWISE_LAYOUT");
  if (!forced || !*forced) return {};
  const std::string name = forced;
  if (name != "vector4" && name != "grid_stride" && name != "blocked")
    throw ArgumentError(
        "DUET_ELEMENTWISE_LAYOUT=" + name +
        " names no layout of generated kernels: use grid_stride, blocked or vector4, or unset it");
  return name;
}

}  // namespace duet
