// duet::bfloat16: a bfloat16 value (the upper 16 bits of an IEEE 754 binary32) on the host, for
// Buffer<bfloat16>. Kernels see the same bits as the dialect's `bfloat16`, a storage type on both
// backends: LOAD_BFLOAT16(p) reads one as a float and STORE_BFLOAT16(p, v) writes a float rounded to
// nearest even (see core/kernels/prelude.h). Arithmetic is done in float. bfloat16 keeps float's
// exponent range, so only the mantissa is rounded: no overflow but at the very top of the range,
// and subnormals stay subnormals.
#pragma once

#include <cstdint>
#include <cstring>

namespace duet {

struct bfloat16 {
  std::uint16_t bits = 0;

  // Round to nearest, ties to even; a float that rounds past the largest bfloat16 gives infinity
  // (the carry runs into the exponent); NaN stays NaN, made quiet so that dropping the low mantissa
  // bits cannot turn it into an infinity.
  static bfloat16 from_float(float value) {
    std::uint32_t f;
    std::memcpy(&f, &value, sizeof f);
    bfloat16 b;
    if ((f & 0x7fffffffu) > 0x7f800000u) {
      b.bits = static_cast<std::uint16_t>((f >> 16) | 0x40u);
      return b;
    }
    const std::uint32_t round = 0x7fffu + ((f >> 16) & 1u);
    b.bits = static_cast<std::uint16_t>((f + round) >> 16);
    return b;
  }

  // Exact: every bfloat16 is a float.
  float to_float() const {
    const std::uint32_t f = static_cast<std::uint32_t>(bits) << 16;
    float out;
    std::memcpy(&out, &f, sizeof out);
    return out;
  }
};

}  // namespace duet
