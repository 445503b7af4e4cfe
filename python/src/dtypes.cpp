// NumPy dtypes <-> duet's ScalarType, by NumPy's names (duet::numpy_name).
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.hpp"

namespace duet::python {

nb::object numpy_dtype(ScalarType t) {
  // Never released (see array.cpp's numpy()).
  static nb::handle dtype = nb::object(nb::module_::import_("numpy").attr("dtype")).release();
  return dtype(numpy_name(t));
}

ScalarType scalar_type_of_dtype(nb::handle dtype) {
  static nb::handle np_dtype = nb::object(nb::module_::import_("numpy").attr("dtype")).release();
  const std::string name = nb::cast<std::string>(np_dtype(dtype).attr("name"));
  const ScalarType t = scalar_type_from_numpy_name(name);
  if (t == ScalarType::unknown)
    throw ArgumentError("duet has no kernels for NumPy dtype " + name +
                        "; use int8..int64, uint8..uint64, float16, float32 or float64");
  return t;
}

}  // namespace duet::python
