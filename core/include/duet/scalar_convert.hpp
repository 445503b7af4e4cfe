// A number converted to a scalar type only when the type holds it: the one range check behind
// every scalar argument duet converts, in C++ (ElementwiseKernel, ReductionKernel) and in Python
// (kernel launches, generated kernels), so both refuse the same values. Pure functions: safe to
// call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "duet/error.hpp"
#include "duet/scalar_type.hpp"

namespace duet {

// A number widened without loss to the widest type of its kind: a floating-point value as double,
// a signed integer as std::int64_t, an unsigned one as std::uint64_t.
using WideScalar = std::variant<double, std::int64_t, std::uint64_t>;

// How a conversion went.
enum class ScalarFit {
  fits,          // converted
  not_whole,     // an integer type was asked to take a fraction, an infinity or NaN
  out_of_range,  // the type does not reach the value
  no_type,       // the target is ScalarType::unknown
};

// Converts `value` to `to` and writes its size_of(to) bytes at `out`; on anything but
// ScalarFit::fits, `out` is left alone. The rules:
//   integer types  a whole number in the type's range (a double too: 3.0 is 3; 3.5 is not_whole)
//   float types    any integer, and any double whose magnitude is at most the type's largest finite
//                  value, rounded to nearest; infinities and NaN pass (they are floats too). half is
//                  rounded through float, as duet::half::from_float does.
// It formats nothing and allocates nothing, so it is cheap enough for every kernel launch.
DUET_API ScalarFit convert_scalar(const WideScalar& value, ScalarType to, void* out) noexcept;

// The same, with an ArgumentError on failure, e.g. "<what>: the value 300 (int) is out of the range
// of uchar". `from` is the type the caller was given the value in (unknown: not named); `what`
// names the argument.
DUET_API void convert_scalar(const WideScalar& value, ScalarType from, ScalarType to, void* out, const std::string& what);

// The ArgumentError convert_scalar() throws for a failed `fit`, for callers that convert with the
// noexcept form first and format only on failure.
DUET_API ArgumentError scalar_conversion_error(const WideScalar& value, ScalarType from, ScalarType to, ScalarFit fit,
                                      const std::string& what);

}  // namespace duet
