// The element and scalar types duet knows by name, so kernel arguments can be checked against the
// types a kernel declares. Names are the dialect's (OpenCL C spelling).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "duet/export.hpp"
#include "duet/half.hpp"

namespace duet {

enum class ScalarType { unknown, i8, u8, i16, u16, i32, u32, i64, u64, f16, f32, f64 };

DUET_API const char* to_string(ScalarType t);  // "float", "int", "ulong", ...
DUET_API std::size_t size_of(ScalarType t);    // 0 for unknown
DUET_API ScalarType scalar_type_from_name(const std::string& name);  // "float", "unsigned int", "uint"...

template <class T>
constexpr ScalarType scalar_type_of() {
  if constexpr (std::is_same_v<T, float>) return ScalarType::f32;
  else if constexpr (std::is_same_v<T, half>) return ScalarType::f16;
  else if constexpr (std::is_same_v<T, double>) return ScalarType::f64;
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

}  // namespace duet
