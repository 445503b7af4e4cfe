// What the binding files of duet's Python module (_duet) share: arrays as kernel arguments, dtype
// names, the default device and queue, and one bind_<topic>() per file. The bindings convert at the
// boundary and call the C++ API; they re-implement nothing.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <duet/array_linalg.hpp>
#include <duet/arrays.hpp>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <duet/random.hpp>
#include <duet/stencil.hpp>
#include <string>
#include <vector>

namespace duet::python {

namespace nb = nanobind;

// The C++ object of `h` when it is an instance of the bound class T, else nullptr. Asked through
// isinstance and inst_ptr, which mean the same in every nanobind, rather than try_cast to a pointer.
template <class T>
T* bound_or_null(nb::handle h) {
  return nb::isinstance<T>(h) ? nb::inst_ptr<T>(h) : nullptr;
}

// duet.Array is duet::Array itself (bound in array.cpp): a buffer, an element type and a layout,
// so Python's views, operators and reductions are duet::Array's with nothing converted. Kernels
// index their buffer arguments as C-contiguous arrays from the first byte, so an array becomes a
// kernel argument as the exact byte range of its elements (contiguous_buffer).

// Whether a's buffer is exactly its elements' bytes (an array made whole, not a view of one), so
// kernels take a.buffer() as it is with no view made.
inline bool exact(const Array& a) {
  return a.offset() == 0 && a.buffer().bytes() == a.nbytes() && a.contiguous();
}
// The bytes of a contiguous array's elements, as a new handle sharing its memory (an empty range
// for an empty array); ArgumentError naming `what` for a strided view (kernels read buffers in C
// order: passing a view's memory would give wrong results), saying to call .copy() first.
RawBuffer contiguous_buffer(const Array& a, const char* what);
// Bytes from the start of the buffer's allocation to element (0, ..., 0).
std::size_t first_byte(const Array& a);
// a[key] for NumPy's basic indices (ndarray.cpp): a view. IndexError out of bounds.
Array index_array(const Array& a, nb::handle key);

// Allocates an uninitialised array on `device`.
Array make_array(const Device& device, ScalarType dtype, std::vector<std::size_t> shape);
// The typed buffer over an array's range, for the C++ calls that take Buffer<T> (shares memory).
template <class T>
Buffer<T> typed(const Array& a, const char* what) {
  if (a.dtype() != scalar_type_of<T>())
    throw ArgumentError(std::string(what) + " must hold " + to_string(scalar_type_of<T>()) + " elements, not " +
                        to_string(a.dtype()));
  return Buffer<T>::from_raw(contiguous_buffer(a, what));
}

// The element type of anything numpy.dtype() takes (a type, a dtype, a string), by NumPy's names
// (duet::numpy_name); ArgumentError for a type duet has no kernels for. numpy_dtype is the reverse.
ScalarType scalar_type_of_dtype(nb::handle dtype);
nb::object numpy_dtype(ScalarType t);
// Whether duet.bfloat16 is ml_dtypes' NumPy dtype (ml_dtypes imports), so bfloat16 data can be a
// NumPy array; without it bfloat16 arrays go to and from the host only through another dtype.
bool has_ml_dtypes();

// The device used when a call names none: Device::open() (DUET_BACKEND / DUET_DEVICE), opened on
// first use and kept for the process.
const Device& default_device();
// One queue per device that calls without a queue use, made on first use and kept for the process.
Queue& default_queue(const Device& device);
// `queue` when given (not None), else the default queue of `device`.
Queue& queue_or_default(nb::handle queue, const Device& device);

// A global or local size from an int or a tuple of 1 to 3 ints; None is Range() (duet chooses).
Range to_range(nb::handle size, const char* what);

void bind_errors(nb::module_& m);
void bind_gemm(nb::module_& m);
void bind_device(nb::module_& m);
void bind_program(nb::module_& m);
void bind_queue(nb::module_& m);
void bind_array(nb::module_& m);
void bind_generators(nb::module_& m);
void bind_kernels(nb::module_& m);
void bind_builtins(nb::module_& m);
void bind_dlpack(nb::module_& m);
// __dlpack__ and __dlpack_device__ of duet.Array (dlpack.cpp), added by bind_array.
void bind_array_dlpack(nb::class_<Array>& array);
void bind_random(nb::module_& m);
void bind_sort(nb::module_& m);
void bind_linalg(nb::module_& m);
// NumPy-style views and methods of duet.Array (ndarray.cpp) and the array functions: operators,
// elementwise math, reductions, matmul, creation (array_ops.cpp).
void bind_ndarray(nb::class_<Array>& array);
// duet._broadcast_to: a view whose stretched axes step 0 (ndarray.cpp).
void bind_broadcast_view(nb::module_& m);
void bind_array_ops(nb::module_& m, nb::class_<Array>& array);

}  // namespace duet::python
