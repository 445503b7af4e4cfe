// The unsigned integer type of an element's size, in the dialect and as a ScalarType: kernels that
// only move or compare elements' bits (copies, gathers, sort keys) take every dtype of one size
// through one compiled variant.
#pragma once

#include <cstddef>

#include "duet/scalar_type.hpp"

namespace duet::detail {

inline const char* bits_type(std::size_t itemsize) {
  switch (itemsize) {
    case 1:
      return "uchar";
    case 2:
      return "ushort";
    case 4:
      return "uint";
    default:
      return "ulong";
  }
}

inline ScalarType bits_scalar(std::size_t itemsize) {
  switch (itemsize) {
    case 1:
      return ScalarType::u8;
    case 2:
      return ScalarType::u16;
    case 4:
      return ScalarType::u32;
    default:
      return ScalarType::u64;
  }
}

}  // namespace duet::detail
