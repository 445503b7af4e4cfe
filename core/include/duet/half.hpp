// duet::half: an IEEE 754 binary16 value on the host, for Buffer<half>. Kernels see the same bits
// as the dialect's `half`, a storage type on both backends: LOAD_HALF(p) reads one as a float and
// STORE_HALF(p, v) writes a float rounded to nearest even (see core/kernels/prelude.h). Arithmetic is
// done in float, so results are the same on every device.
#pragma once

#include <cstdint>
#include <cstring>

namespace duet {

struct half {
  std::uint16_t bits = 0;

  // Round to nearest, ties to even; overflow gives infinity; NaN stays NaN.
  static half from_float(float value) {
    std::uint32_t f;
    std::memcpy(&f, &value, sizeof f);
    const std::uint16_t sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
    const std::uint32_t exponent = (f >> 23) & 0xffu;
    std::uint32_t mantissa = f & 0x7fffffu;
    half h;
    if (exponent == 0xffu) {  // infinity or NaN (kept quiet, with a mantissa bit set)
      h.bits = static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u));
      return h;
    }
    const int e = static_cast<int>(exponent) - 127 + 15;
    if (e >= 31) {  // too large: infinity
      h.bits = static_cast<std::uint16_t>(sign | 0x7c00u);
      return h;
    }
    if (e <= 0) {  // a subnormal half, or zero
      if (e < -10) {
        h.bits = sign;
        return h;
      }
      mantissa |= 0x800000u;  // the implicit leading bit
      const int shift = 14 - e;
      std::uint32_t value16 = mantissa >> shift;
      const std::uint32_t rest = mantissa & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
      if (rest > halfway || (rest == halfway && (value16 & 1u))) ++value16;
      h.bits = static_cast<std::uint16_t>(sign | value16);
      return h;
    }
    std::uint32_t value16 = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
    const std::uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (value16 & 1u))) ++value16;  // may carry into infinity
    h.bits = static_cast<std::uint16_t>(sign | value16);
    return h;
  }

  float to_float() const {
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    std::uint32_t mantissa = bits & 0x3ffu;
    std::uint32_t f;
    if (exponent == 0x1fu) {
      f = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
      f = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
      f = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while (!(mantissa & 0x400u));
      f = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float out;
    std::memcpy(&out, &f, sizeof out);
    return out;
  }
};

}  // namespace duet
