// NumPy dtypes <-> duet's ScalarType, by NumPy's names.
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.hpp"

namespace duet::python {

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
    case ScalarType::f32: return "float32";
    case ScalarType::f64: return "float64";
    case ScalarType::unknown: break;
  }
  return "unknown";
}

nb::object numpy_dtype(ScalarType t) {
  // Never released (see array.cpp's numpy()).
  static nb::handle dtype = nb::object(nb::module_::import_("numpy").attr("dtype")).release();
  return dtype(numpy_name(t));
}

ScalarType scalar_type_of_dtype(nb::handle dtype) {
  static nb::handle np_dtype = nb::object(nb::module_::import_("numpy").attr("dtype")).release();
  const std::string name = nb::cast<std::string>(np_dtype(dtype).attr("name"));
  for (int t = static_cast<int>(ScalarType::i8); t <= static_cast<int>(ScalarType::f64); ++t)
    if (name == numpy_name(static_cast<ScalarType>(t))) return static_cast<ScalarType>(t);
  throw ArgumentError("duet has no kernels for NumPy dtype " + name +
                      "; use int8..int64, uint8..uint64, float16, float32 or float64");
}

}  // namespace duet::python
