// The names of the scalar types (duet/scalar_type.hpp): the dialect's and NumPy's.
#include "duet/scalar_type.hpp"

#include <map>

namespace duet {

const char* to_string(ScalarType t) {
  switch (t) {
    case ScalarType::i8: return "char";
    case ScalarType::u8: return "uchar";
    case ScalarType::i16: return "short";
    case ScalarType::u16: return "ushort";
    case ScalarType::i32: return "int";
    case ScalarType::u32: return "uint";
    case ScalarType::i64: return "long";
    case ScalarType::u64: return "ulong";
    case ScalarType::f16: return "half";
    case ScalarType::bf16: return "bfloat16";
    case ScalarType::f32: return "float";
    case ScalarType::f64: return "double";
    case ScalarType::b8: return "bool";
    case ScalarType::c64: return "cfloat";
    case ScalarType::c128: return "cdouble";
    case ScalarType::unknown: break;
  }
  return "unknown";
}

ScalarType scalar_type_from_name(const std::string& name) {
  // Spellings valid in both dialect backends; "long" is 64-bit in OpenCL C, so only the
  // fixed-width spellings below are accepted for 64-bit integers.
  static const std::map<std::string, ScalarType> names = {
      {"char", ScalarType::i8},          {"signed char", ScalarType::i8},
      {"uchar", ScalarType::u8},         {"unsigned char", ScalarType::u8},
      {"short", ScalarType::i16},        {"ushort", ScalarType::u16},
      {"unsigned short", ScalarType::u16}, {"int", ScalarType::i32},
      {"uint", ScalarType::u32},         {"unsigned int", ScalarType::u32},
      {"unsigned", ScalarType::u32},     {"long", ScalarType::i64},
      {"ulong", ScalarType::u64},        {"unsigned long", ScalarType::u64},
      {"long long", ScalarType::i64},    {"unsigned long long", ScalarType::u64},
      {"half", ScalarType::f16},         {"float", ScalarType::f32},
      {"double", ScalarType::f64},       {"bfloat16", ScalarType::bf16},
      {"cfloat", ScalarType::c64},       {"cdouble", ScalarType::c128},
  };
  auto it = names.find(name);
  return it == names.end() ? ScalarType::unknown : it->second;
}

const char* numpy_name(ScalarType t) {
  switch (t) {
    case ScalarType::i8: return "int8";
    case ScalarType::u8: return "uint8";
    case ScalarType::i16: return "int16";
    case ScalarType::u16: return "uint16";
    case ScalarType::i32: return "int32";
    case ScalarType::u32: return "uint32";
    case ScalarType::i64: return "int64";
    case ScalarType::u64: return "uint64";
    case ScalarType::f16: return "float16";
    case ScalarType::bf16: return "bfloat16";
    case ScalarType::f32: return "float32";
    case ScalarType::f64: return "float64";
    case ScalarType::b8: return "bool";
    case ScalarType::c64: return "complex64";
    case ScalarType::c128: return "complex128";
    case ScalarType::unknown: break;
  }
  return "unknown";
}

ScalarType scalar_type_from_numpy_name(std::string_view name) {
  for (ScalarType t : scalar_types)
    if (name == numpy_name(t)) return t;
  for (ScalarType t : complex_types)
    if (name == numpy_name(t)) return t;
  return ScalarType::unknown;
}

}  // namespace duet
