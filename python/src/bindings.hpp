// What the binding files of duet's Python module (_duet) share: the Array type, dtype names, the
// default device and queue, and one bind_<topic>() per file. The bindings convert at the boundary and
// call the C++ API; they re-implement nothing.
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

// A device array: the device memory its elements lie in (a whole allocation, a view of one, or
// memory imported through DLPack), its element type, its shape and, for strided views, its strides.
// A C-contiguous array (no strides) is exactly its buffer, which kernels take as it is; a strided
// view (a step, a transpose, a column) keeps the byte range its elements span plus its layout, as
// duet::Array does, and is turned into one with nd() for the array operations (ndarray.cpp,
// array_ops.cpp). Kernel arguments must be contiguous (contiguous_buffer()).
struct Array {
  RawBuffer buffer;
  ScalarType dtype = ScalarType::unknown;
  std::vector<std::size_t> shape;
  std::vector<std::int64_t> strides;  // elements; empty for a C-contiguous array
  std::int64_t offset = 0;            // elements from the buffer's start to element (0, ..., 0)

  Array() = default;
  Array(RawBuffer b, ScalarType t, std::vector<std::size_t> s) : buffer(std::move(b)), dtype(t), shape(std::move(s)) {}
  // A copy is another handle to the same memory, like a view of all of it.
  Array(const Array& o)
      : buffer(o.buffer.share()), dtype(o.dtype), shape(o.shape), strides(o.strides), offset(o.offset) {}
  Array& operator=(const Array& o) {
    if (this != &o) *this = Array(o);
    return *this;
  }
  Array(Array&&) noexcept = default;
  Array& operator=(Array&&) noexcept = default;

  std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t e : shape) n *= e;
    return n;
  }
  std::size_t itemsize() const { return size_of(dtype); }
  std::size_t nbytes() const { return size() * itemsize(); }
  bool contiguous() const { return strides.empty(); }
  // Elements of one step along the leading dimension.
  std::size_t row_elements() const {
    std::size_t n = 1;
    for (std::size_t d = 1; d < shape.size(); ++d) n *= shape[d];
    return n;
  }
};

// The array as a duet::Array sharing its memory (any layout).
duet::Array nd(const Array& a);
// A duet::Array as the module's Array: contiguous ones become their exact byte range.
Array from_nd(const duet::Array& a);
// The buffer of a contiguous array, for kernel arguments; ArgumentError naming `what` for a
// strided view (kernels index buffers as C-contiguous: passing a view's memory would give wrong
// results), saying to call .copy() first.
const RawBuffer& contiguous_buffer(const Array& a, const char* what);
// a[key] for NumPy's basic indices (ndarray.cpp): a view. IndexError out of bounds.
Array index_array(const Array& a, nb::handle key);

// Allocates an uninitialised array on `device`.
Array make_array(const Device& device, ScalarType dtype, std::vector<std::size_t> shape);
// The typed buffer over an array's range, for the C++ calls that take Buffer<T> (shares memory).
template <class T>
Buffer<T> typed(const Array& a, const char* what) {
  if (a.dtype != scalar_type_of<T>())
    throw ArgumentError(std::string(what) + " must hold " + to_string(scalar_type_of<T>()) + " elements, not " +
                        to_string(a.dtype));
  return Buffer<T>::from_raw(contiguous_buffer(a, what).share());
}

// The element type of anything numpy.dtype() takes (a type, a dtype, a string), by NumPy's names
// (duet::numpy_name); ArgumentError for a type duet has no kernels for. numpy_dtype is the reverse.
ScalarType scalar_type_of_dtype(nb::handle dtype);
nb::object numpy_dtype(ScalarType t);

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
// NumPy-style views and methods of duet.Array (ndarray.cpp) and the array functions: operators,
// elementwise math, reductions, matmul, creation (array_ops.cpp).
void bind_ndarray(nb::class_<Array>& array);
void bind_array_ops(nb::module_& m, nb::class_<Array>& array);

}  // namespace duet::python
