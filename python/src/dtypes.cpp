// NumPy dtypes <-> duet's ScalarType, by NumPy's names (duet::numpy_name). NumPy has no bfloat16:
// duet.bfloat16 is ml_dtypes' dtype where ml_dtypes is installed, else a stand-in object of
// duet._dtypes, and both are recognised here.
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.hpp"

namespace duet::python {

namespace {

// duet.bfloat16 (never released, as the numpy handles below).
nb::handle bfloat16_dtype() {
  static nb::handle t = nb::object(nb::module_::import_("duet._dtypes").attr("bfloat16")).release();
  return t;
}

}  // namespace

nb::object numpy_dtype(ScalarType t) {
  // Never released (see array.cpp's numpy()).
  static nb::handle dtype = nb::object(nb::module_::import_("numpy").attr("dtype")).release();
  if (t == ScalarType::bf16) return nb::borrow(bfloat16_dtype());
  return dtype(numpy_name(t));
}

bool has_ml_dtypes() {
  static nb::handle np_dtype = nb::object(nb::module_::import_("numpy").attr("dtype")).release();
  static const bool has = PyObject_IsInstance(bfloat16_dtype().ptr(), np_dtype.ptr()) == 1;
  return has;
}

ScalarType scalar_type_of_dtype(nb::handle dtype) {
  static nb::handle np_dtype = nb::object(nb::module_::import_("numpy").attr("dtype")).release();
  if (dtype.is(bfloat16_dtype()) || (nb::isinstance<nb::str>(dtype) && nb::cast<std::string>(dtype) == "bfloat16"))
    return ScalarType::bf16;
  const std::string name = nb::cast<std::string>(np_dtype(dtype).attr("name"));
  const ScalarType t = scalar_type_from_numpy_name(name);
  if (t == ScalarType::unknown)
    throw ArgumentError(
        "duet has no kernels for NumPy dtype " + name +
        "; use bool, int8..int64, uint8..uint64, float16, bfloat16, float32, float64, complex64 or "
        "complex128");
  return t;
}

}  // namespace duet::python
