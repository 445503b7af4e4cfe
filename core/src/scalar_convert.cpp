// The range-checked scalar conversion of duet/scalar_convert.hpp.
#include "duet/scalar_convert.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

namespace duet {
namespace {

template <class T>
bool in_range(std::int64_t v) {
  if (v < 0) return v >= static_cast<std::int64_t>(std::numeric_limits<T>::min());
  return static_cast<std::uint64_t>(v) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
}

template <class T>
bool in_range(std::uint64_t v) {
  return v <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
}

// For a whole number. The upper bound is 2^digits, one past T's max: a double holds that exactly,
// while a 64-bit max (2^63 - 1, 2^64 - 1) would round up to it and let it through.
template <class T>
bool in_range(double v) {
  return v >= static_cast<double>(std::numeric_limits<T>::min()) &&
         v < std::ldexp(1.0, std::numeric_limits<T>::digits);
}

template <class T>
ScalarFit to_integer(const WideScalar& value, T& out) {
  return std::visit(
      [&](auto v) {
        if constexpr (std::is_floating_point_v<decltype(v)>)
          if (!std::isfinite(v) || v != std::floor(v)) return ScalarFit::not_whole;
        if (!in_range<T>(v)) return ScalarFit::out_of_range;
        out = static_cast<T>(v);
        return ScalarFit::fits;
      },
      value);
}

// A float type's largest finite value.
template <class T>
double largest() {
  if constexpr (std::is_same_v<T, half>)
    return 65504.0;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return 3.3895313892515355e38;  // (2 - 2^-7) * 2^127
  else
    return static_cast<double>(std::numeric_limits<T>::max());
}

template <class T>
ScalarFit to_floating(const WideScalar& value, T& out) {
  const double v = std::visit([](auto x) { return static_cast<double>(x); }, value);
  // Infinities and NaN pass: they are floats too. A finite value beyond the type's range is not,
  // though a cast would make it an infinity without a word.
  if (std::isfinite(v) && std::fabs(v) > largest<T>()) return ScalarFit::out_of_range;
  if constexpr (std::is_same_v<T, half>)
    out = half::from_float(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bfloat16>)
    out = bfloat16::from_float(static_cast<float>(v));
  else
    out = static_cast<T>(v);
  return ScalarFit::fits;
}

// The shortest text that reads back as the value: 1e+39, not 9.9999999999999994e+39.
std::string value_text(const WideScalar& value) {
  if (const double* d = std::get_if<double>(&value)) {
    std::string text;
    for (int digits = 1; digits <= 17; ++digits) {
      std::ostringstream s;
      s.precision(digits);
      s << *d;
      text = s.str();
      if (std::strtod(text.c_str(), nullptr) == *d) break;
    }
    return text;
  }
  return std::visit([](auto v) { return std::to_string(v); }, value);
}

}  // namespace

ScalarFit convert_scalar(const WideScalar& value, ScalarType to, void* out) noexcept {
  return visit_scalar_type(to, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_void_v<T>) {
      return ScalarFit::no_type;
    } else {
      T converted{};
      ScalarFit fit;
      if constexpr (std::is_integral_v<T>) {
        fit = to_integer(value, converted);
      } else if constexpr (is_complex_v<T>) {
        // A real number is the complex number of that real part.
        typename T::value_type part{};
        fit = to_floating(value, part);
        converted = T(part, 0);
      } else {
        fit = to_floating(value, converted);
      }
      if (fit == ScalarFit::fits) std::memcpy(out, &converted, sizeof converted);
      return fit;
    }
  });
}

ArgumentError scalar_conversion_error(const WideScalar& value, ScalarType from, ScalarType to, ScalarFit fit,
                                      const std::string& what) {
  if (fit == ScalarFit::no_type || fit == ScalarFit::fits)
    return ArgumentError(what + ": cannot convert to " + to_string(to));
  const char* why = fit == ScalarFit::not_whole ? "is not a whole number, as needed for" : "is out of the range of";
  std::string from_text = from == ScalarType::unknown ? std::string() : std::string(" (") + to_string(from) + ")";
  return ArgumentError(what + ": the value " + value_text(value) + from_text + " " + why + " " + to_string(to));
}

void convert_scalar(const WideScalar& value, ScalarType from, ScalarType to, void* out, const std::string& what) {
  const ScalarFit fit = convert_scalar(value, to, out);
  if (fit != ScalarFit::fits) throw scalar_conversion_error(value, from, to, fit, what);
}

}  // namespace duet
