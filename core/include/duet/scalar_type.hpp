// The element and scalar types duet knows, in one table: their list, their C++ types, what kind of
// number each is, and their names (the dialect's OpenCL C spelling, and NumPy's). Kernel arguments
// are checked against these types, and every module maps a type known only at run time to code
// written once for its C++ type through visit_scalar_type() instead of a switch of its own.
//
// ScalarType::b8 is the array API's bool: one byte holding 0 or 1. Kernels store it as uchar (no
// backend takes bool in device memory or as a kernel parameter), so it is neither an integer nor a
// float here, and a C++ bool stays ScalarType::unknown as a kernel argument (scalar_type_of).
// ScalarType::c64 and c128 are complex64 and complex128: two floats or two doubles, the real part
// first (std::complex<float> and std::complex<double> on the host, cfloat and cdouble in the
// dialect). They are in complex_types, not in scalar_types (the real types), and neither integer
// nor float here: is_complex() says which they are.
// ScalarType::unknown is a type duet cannot name: a typedef it cannot see through, a struct.
// It is in no list, no predicate holds for it, its size is 0 and its names are "unknown".
// Everything here is a pure function of its arguments: safe to call from any thread.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "duet/export.hpp"
#include "duet/bfloat16.hpp"
#include "duet/half.hpp"

namespace duet {

enum class ScalarType { unknown, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64, b8, c64, c128 };

// Every type but unknown: bool, the integers from the narrowest, then the floats.
inline constexpr std::array<ScalarType, 13> scalar_types = {
    ScalarType::b8,   ScalarType::i8,  ScalarType::u8,  ScalarType::i16, ScalarType::u16,
    ScalarType::i32,  ScalarType::u32, ScalarType::i64, ScalarType::u64, ScalarType::f16,
    ScalarType::bf16, ScalarType::f32, ScalarType::f64};
// The complex types, complex64 then complex128.
inline constexpr std::array<ScalarType, 2> complex_types = {ScalarType::c64, ScalarType::c128};

// half, bfloat16, float and double.
constexpr bool is_float(ScalarType t) {
  return t == ScalarType::f16 || t == ScalarType::bf16 || t == ScalarType::f32 || t == ScalarType::f64;
}
// The storage-only types, half and bfloat16: kernels load them as float and store floats into them.
constexpr bool is_storage_only(ScalarType t) { return t == ScalarType::f16 || t == ScalarType::bf16; }
// bool (ScalarType::b8).
constexpr bool is_bool(ScalarType t) { return t == ScalarType::b8; }
// complex64 and complex128.
constexpr bool is_complex(ScalarType t) { return t == ScalarType::c64 || t == ScalarType::c128; }
// The eight integer types, signed or not.
constexpr bool is_integer(ScalarType t) {
  return t != ScalarType::unknown && !is_float(t) && !is_bool(t) && !is_complex(t);
}
// The real type of a complex type's parts (float32 for complex64, float64 for complex128); any other
// type is its own.
constexpr ScalarType real_type(ScalarType t) {
  return t == ScalarType::c64 ? ScalarType::f32 : t == ScalarType::c128 ? ScalarType::f64 : t;
}
// The complex type whose parts are the float type `t` (complex128 for float64, complex64 for the
// narrower floats); unknown for any other type.
constexpr ScalarType complex_of(ScalarType t) {
  return t == ScalarType::f64 ? ScalarType::c128 : is_float(t) ? ScalarType::c64 : ScalarType::unknown;
}
// Whether the type holds negative values: the signed integers and, as std::is_signed says, the
// floats. Test is_integer() first where only the integers are meant.
constexpr bool is_signed(ScalarType t) {
  return is_float(t) || t == ScalarType::i8 || t == ScalarType::i16 || t == ScalarType::i32 ||
         t == ScalarType::i64;
}

// Bytes of one value; 0 for unknown.
constexpr std::size_t size_of(ScalarType t) {
  switch (t) {
    case ScalarType::b8:
    case ScalarType::i8:
    case ScalarType::u8: return 1;
    case ScalarType::i16:
    case ScalarType::u16:
    case ScalarType::f16:
    case ScalarType::bf16: return 2;
    case ScalarType::i32:
    case ScalarType::u32:
    case ScalarType::f32: return 4;
    case ScalarType::i64:
    case ScalarType::u64:
    case ScalarType::f64:
    case ScalarType::c64: return 8;
    case ScalarType::c128: return 16;
    case ScalarType::unknown: break;
  }
  return 0;
}

// The type arithmetic on `t` is done in: half and bfloat16 are storage types, computed in float
// (LOAD_HALF / STORE_HALF, LOAD_BFLOAT16 / STORE_BFLOAT16); every other type is its own.
constexpr ScalarType compute_type(ScalarType t) { return is_storage_only(t) ? ScalarType::f32 : t; }
template <class T>
using compute_type_t = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>, float, T>;

// The dialect's names: "char", "uchar", ..., "long", "ulong", "half", "bfloat16", "float", "double",
// "cfloat", "cdouble", and "bool" (a kernel stores bool as uchar: scalar_type_from_name never gives
// b8).
DUET_API const char* to_string(ScalarType t);
// A dialect type as a kernel declares it ("float", "unsigned int", "uint", "long long", ...);
// unknown for any other name.
DUET_API ScalarType scalar_type_from_name(const std::string& name);
// NumPy's names: "bool", "int8", ..., "uint64", "float16", "bfloat16" (ml_dtypes' name; NumPy itself has no
// such type), "float32", "float64", "complex64", "complex128".
DUET_API const char* numpy_name(ScalarType t);
// The type NumPy calls `name` (numpy.dtype(x).name); unknown for any other name.
DUET_API ScalarType scalar_type_from_numpy_name(std::string_view name);

// The ScalarType of a C++ type (duet::half for f16, duet::bfloat16 for bf16, std::complex<float>
// and std::complex<double> for c64 and c128); unknown for any other type, bool included.
template <class T>
constexpr ScalarType scalar_type_of() {
  if constexpr (std::is_same_v<T, float>) return ScalarType::f32;
  else if constexpr (std::is_same_v<T, half>) return ScalarType::f16;
  else if constexpr (std::is_same_v<T, bfloat16>) return ScalarType::bf16;
  else if constexpr (std::is_same_v<T, double>) return ScalarType::f64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return ScalarType::c64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return ScalarType::c128;
  else if constexpr (std::is_same_v<T, std::int8_t> || std::is_same_v<T, char>) return ScalarType::i8;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return ScalarType::u8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return ScalarType::i16;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return ScalarType::u16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return ScalarType::i32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return ScalarType::u32;
  else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, long long>) return ScalarType::i64;
  else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>)
    return ScalarType::u64;
  else return ScalarType::unknown;
}

// Carries a type into a generic lambda: `[](auto tag) { using T = typename decltype(tag)::type; }`.
// Whether T is std::complex<float> or std::complex<double>.
template <class T>
inline constexpr bool is_complex_v =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

template <class T>
struct TypeTag {
  using type = T;
};

// From a type known only at run time to code written once for its C++ type: calls f(TypeTag<T>{})
// with T the C++ type of `t` (bool, std::int8_t ... std::uint64_t, duet::half, duet::bfloat16, float,
// double, std::complex<float>, std::complex<double>).
// ScalarType::unknown gives TypeTag<void>, so f says what an unknown type means to it (usually an
// ArgumentError); `if constexpr` on T leaves out what does not compile for some types. Every call of
// f must return the same type.
template <class F>
decltype(auto) visit_scalar_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::i8: return f(TypeTag<std::int8_t>{});
    case ScalarType::u8: return f(TypeTag<std::uint8_t>{});
    case ScalarType::i16: return f(TypeTag<std::int16_t>{});
    case ScalarType::u16: return f(TypeTag<std::uint16_t>{});
    case ScalarType::i32: return f(TypeTag<std::int32_t>{});
    case ScalarType::u32: return f(TypeTag<std::uint32_t>{});
    case ScalarType::i64: return f(TypeTag<std::int64_t>{});
    case ScalarType::u64: return f(TypeTag<std::uint64_t>{});
    case ScalarType::f16: return f(TypeTag<half>{});
    case ScalarType::bf16: return f(TypeTag<bfloat16>{});
    case ScalarType::f32: return f(TypeTag<float>{});
    case ScalarType::f64: return f(TypeTag<double>{});
    case ScalarType::b8: return f(TypeTag<bool>{});
    case ScalarType::c64: return f(TypeTag<std::complex<float>>{});
    case ScalarType::c128: return f(TypeTag<std::complex<double>>{});
    case ScalarType::unknown: break;
  }
  return f(TypeTag<void>{});
}

}  // namespace duet
