// From a ScalarType known only at run time to code written once for its C++ type: the enum is
// mapped to types here, in one place, so code that acts on values of a run-time type (converting a
// kernel argument, say) is a template instead of a switch of its own.
#pragma once

#include <cstdint>
#include <type_traits>

#include "duet/half.hpp"
#include "duet/scalar_type.hpp"

namespace duet::detail {

// Carries a type into a generic lambda: `[](auto tag) { using T = typename decltype(tag)::type; }`.
template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with T the C++ type of `t` (duet::half for f16); ScalarType::unknown
// gives TypeTag<void>, so f decides what an unknown type means for it. Every call of f must
// return the same type.
template <class F>
decltype(auto) with_cpp_type(ScalarType t, F&& f) {
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
    case ScalarType::f32: return f(TypeTag<float>{});
    case ScalarType::f64: return f(TypeTag<double>{});
    case ScalarType::unknown: break;
  }
  return f(TypeTag<void>{});
}

}  // namespace duet::detail
