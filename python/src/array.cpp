// duet.Array: duet::Array bound to Python, a device array with a shape, a dtype and strides. Made
// by duet.empty/zeros/full/asarray, read back with .get() (a NumPy array), indexed into views that
// share memory (ndarray.cpp), and copied to and from host memory: blocking by default,
// asynchronously with queue.write/queue.read (the host memory must then stay alive and unchanged
// until the returned event completes, as in C++; duet.pinned_empty gives pinned memory, whose
// copies overlap kernels on other queues).
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "bindings.hpp"

namespace duet::python {
namespace {

// Kept for the life of the process and never released: a static nb::object would be released by
// the C++ exit handlers, after Python has finalised.
nb::handle numpy() {
  static nb::handle np = nb::module_::import_("numpy").release();
  return np;
}

std::vector<std::size_t> to_shape(nb::handle shape) {
  std::vector<std::size_t> out;
  auto dim = [](nb::handle v) {
    const long long x = nb::cast<long long>(nb::int_(v));
    if (x < 0) throw ArgumentError("a shape has no negative extents (" + std::to_string(x) + ")");
    return static_cast<std::size_t>(x);
  };
  if (PyLong_Check(shape.ptr()) || PyIndex_Check(shape.ptr())) {
    out.push_back(dim(shape));
  } else {
    for (nb::handle v : shape) out.push_back(dim(v));
  }
  return out;
}

// str(obj), as Python writes it.
std::string text(nb::handle obj) {
  nb::object s = nb::steal(PyObject_Str(obj.ptr()));
  if (!s.is_valid()) throw nb::python_error();
  return nb::cast<std::string>(s);
}

nb::tuple shape_tuple(const std::vector<std::size_t>& shape) {
  nb::list l;
  for (std::size_t e : shape) l.append(e);
  return nb::tuple(l);
}

// `obj` as its bits where it is an ml_dtypes bfloat16 array, whose dtype the buffer protocol cannot
// name (NumPy refuses to export it); the same memory, viewed as uint16.
nb::object exportable(nb::handle obj) {
  if (has_ml_dtypes() && nb::hasattr(obj, "dtype") && nb::hasattr(obj, "view") &&
      obj.attr("dtype").equal(numpy_dtype(ScalarType::bf16)))
    return obj.attr("view")("uint16");
  return nb::borrow(obj);
}

// A contiguous host buffer of a NumPy-compatible object; released with the guard.
struct HostView {
  Py_buffer view{};
  bool held = false;
  nb::object exported;
  HostView(nb::handle obj, bool writable) : exported(exportable(obj)) {
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(exported.ptr(), &view, flags) != 0) throw nb::python_error();
    held = true;
  }
  ~HostView() {
    if (held) PyBuffer_Release(&view);
  }
  HostView(const HostView&) = delete;
  HostView& operator=(const HostView&) = delete;
};

void write_host(Queue& q, Array& a, nb::handle host, bool blocking) {
  nb::object contiguous = numpy().attr("ascontiguousarray")(host, nb::arg("dtype") = numpy_dtype(a.dtype()));
  if (nb::cast<std::size_t>(contiguous.attr("size")) != a.size())
    throw BufferSizeError("the host data has shape " + text(contiguous.attr("shape")) + " (" +
                          text(contiguous.attr("size")) + " elements), the array " +
                          text(shape_tuple(a.shape())) + " (" + std::to_string(a.size()) + ")");
  HostView view(contiguous, false);
  if (a.nbytes() == 0) return;
  nb::gil_scoped_release release;
  if (a.contiguous()) {
    RawBuffer raw = contiguous_buffer(a, "write");
    q.write_bytes(raw, 0, view.view.buf, a.nbytes(), "write");
  } else {
    // A strided view: the data goes to a contiguous array, then one copy kernel lays it out.
    const Array staged = duet::empty(a.device(), a.shape(), a.dtype());
    RawBuffer raw = staged.buffer().share();
    q.write_bytes(raw, 0, view.view.buf, a.nbytes(), "write");
    copy_into(q, staged, a);
    q.finish();  // `staged` goes with this scope
  }
  if (blocking) q.finish();
}

nb::object read_host(Queue& q, const Array& a, nb::handle out, bool blocking) {
  if (a.dtype() == ScalarType::bf16 && out.is_none() && !has_ml_dtypes())
    throw ArgumentError(
        "reading a bfloat16 array to the host needs ml_dtypes, which gives NumPy its bfloat16 dtype "
        "(pip install ml_dtypes); or convert it on the device first: x.astype(duet.float32).get()");
  nb::object result =
      out.is_none() ? numpy().attr("empty")(shape_tuple(a.shape()), nb::arg("dtype") = numpy_dtype(a.dtype()))
                    : nb::borrow(out);
  HostView view(result, true);
  if (static_cast<std::size_t>(view.view.len) != a.nbytes())
    throw BufferSizeError("the host array holds " + std::to_string(view.view.len) + " bytes, the device array " +
                          std::to_string(a.nbytes()));
  if (a.nbytes() == 0) return result;
  nb::gil_scoped_release release;
  a.read_into(q, view.view.buf);  // a contiguous array in one read, a strided view gathered in C order
  if (blocking) q.finish();
  return result;
}

Array from_host(nb::handle obj, nb::handle dtype, const Device& device, nb::handle queue) {
  if (!dtype.is_none() && scalar_type_of_dtype(dtype) == ScalarType::bf16) {
    // Data of another dtype goes up as it is and is rounded to bfloat16 on the device, once and
    // the same way with or without ml_dtypes (float64 as float32 where the device has no doubles).
    nb::object host = numpy().attr("asarray")(obj, nb::arg("order") = "C");
    ScalarType from = scalar_type_of_dtype(host.attr("dtype"));
    if (from != ScalarType::bf16) {
      if (from == ScalarType::f64 && !device.info().supports_double) from = ScalarType::f32;
      Array staged = from_host(host, numpy_dtype(from), device, queue);
      return duet::evaluate(queue_or_default(queue, device), duet::astype(staged, ScalarType::bf16));
    }
  }
  // asarray(order="C") rather than ascontiguousarray, which makes a 0-d array 1-d.
  nb::object host = dtype.is_none() ? numpy().attr("asarray")(obj, nb::arg("order") = "C")
                                    : numpy().attr("asarray")(obj, nb::arg("dtype") = dtype, nb::arg("order") = "C");
  Array a = make_array(device, scalar_type_of_dtype(host.attr("dtype")), to_shape(host.attr("shape")));
  write_host(queue_or_default(queue, device), a, host, true);
  return a;
}

void fill_value(Queue& q, Array& a, nb::handle value) {
  if (a.dtype() == ScalarType::bf16) {
    // Rounded once by duet::full, with or without ml_dtypes.
    if (a.nbytes() == 0) return;
    duet::assign(q, a, duet::full(q, {}, nb::cast<double>(value), ScalarType::bf16));
    q.finish();
    return;
  }
  // The value as one element of the array's dtype, converted by NumPy (so 1e40 into float32 gives
  // inf as NumPy would; out-of-range integers raise, as numpy.array(..., dtype) does).
  nb::object one = numpy().attr("array")(value, nb::arg("dtype") = numpy_dtype(a.dtype()));
  HostView view(one, false);
  if (a.nbytes() == 0) return;
  if (a.contiguous()) {
    RawBuffer raw = contiguous_buffer(a, "fill");
    q.fill_bytes(raw, 0, a.nbytes(), view.view.buf, a.itemsize());
    return;
  }
  // A strided view: the value as a 0-d device array, broadcast into the view by one kernel.
  const Array value0 = duet::empty(a.device(), {}, a.dtype());
  RawBuffer raw = value0.buffer().share();
  q.write_bytes(raw, 0, view.view.buf, a.itemsize(), "fill").wait();
  duet::assign(q, a, value0);
  q.finish();  // `value0` goes with this scope
}

const Device& device_or_default(nb::handle device) {
  return device.is_none() ? default_device() : nb::cast<const Device&>(device);
}

std::string array_repr(const Array& a) {
  std::string shape = "(";
  for (std::size_t d = 0; d < a.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(a.shape()[d]);
  if (a.ndim() == 1) shape += ",";
  shape += ")";
  return "<duet.Array shape=" + shape + " dtype=" + numpy_name(a.dtype()) + " on " + a.device().info().id() +
         (a.contiguous() ? ">" : " strided>");
}

}  // namespace

Array make_array(const Device& device, ScalarType dtype, std::vector<std::size_t> shape) {
  Layout layout = contiguous_layout(shape);
  const std::size_t n = layout.size();
  if (n != 0 && n > static_cast<std::size_t>(-1) / size_of(dtype))
    throw OutOfMemoryError("an array of " + std::to_string(n) + " elements does not fit in the address space",
                           static_cast<std::uint64_t>(-1), device.info().memory_bytes);
  // Exactly the elements' bytes, so kernels take the buffer as it is (exact()).
  return Array(RawBuffer(device, n * size_of(dtype)), dtype, std::move(layout));
}

void bind_array(nb::module_& m) {
  nb::class_<Array> array(m, "Array",
                    "An n-dimensional array in device memory with NumPy's semantics: shape, dtype, strides, device. "
                    "Indexing, slicing (any step), .T, transpose, reshape, expand_dims and squeeze give views "
                    "sharing memory; operators and duet's array functions run on the device; .get() copies to "
                    "a NumPy array");
  array.def_prop_ro("shape", [](const Array& a) { return shape_tuple(a.shape()); })
      .def_prop_ro("dtype", [](const Array& a) { return numpy_dtype(a.dtype()); })
      .def_prop_ro("ndim", &Array::ndim)
      .def_prop_ro("size", &Array::size)
      .def_prop_ro("nbytes", &Array::nbytes)
      .def_prop_ro("itemsize", &Array::itemsize)
      .def_prop_ro("device", [](const Array& a) { return a.device(); })
      .def_prop_ro("native_handle", [](const Array& a) {
            if (exact(a) || a.size() == 0) return a.buffer().native_handle();
            const std::size_t first = static_cast<std::size_t>(a.offset()) * a.itemsize();
            return a.buffer().view(first, a.itemsize()).native_handle();
          },
                   "CUdeviceptr of the first element (CUDA) or the allocation's cl_mem (OpenCL; see .offset)")
      .def_prop_ro("offset", &first_byte,
                   "Bytes from the start of the device allocation to the first element")
      .def("__len__", [](const Array& a) {
        if (a.ndim() == 0) throw nb::type_error("len() of a 0-d array");
        return a.shape()[0];
      })
      .def("get", [](const Array& a, nb::handle queue, nb::handle out) {
            return read_host(queue_or_default(queue, a.device()), a, out, true);
          }, nb::arg("queue").none() = nb::none(), nb::arg("out").none() = nb::none(),
          "Copy to a NumPy array (or into `out`), waiting for `queue` (default: the device's default queue)")
      .def("set", [](Array& a, nb::handle host, nb::handle queue) {
            write_host(queue_or_default(queue, a.device()), a, host, true);
          }, nb::arg("host"), nb::arg("queue").none() = nb::none(), "Copy host data of the same size into the array (blocking)")
      .def("fill", [](Array& a, nb::handle value, nb::handle queue) {
            fill_value(queue_or_default(queue, a.device()), a, value);
          }, nb::arg("value"), nb::arg("queue").none() = nb::none(), "Set every element (asynchronous)")
      .def("copy", [](const Array& a, nb::handle queue) {
            Queue& q = queue_or_default(queue, a.device());
            if (!a.contiguous()) return a.copy(q);
            Array c = make_array(a.device(), a.dtype(), a.shape());
            RawBuffer to = c.buffer().share();
            if (a.nbytes()) q.copy_bytes(contiguous_buffer(a, "copy"), 0, to, 0, a.nbytes());
            return c;
          }, nb::arg("queue").none() = nb::none(), "A new contiguous array with the same contents (asynchronous)")
      .def("__setitem__", [](Array& a, nb::handle key, nb::handle value) {
            Array target = index_array(a, key);
            Queue& q = default_queue(a.device());
            Array* source = nullptr;
            if ((source = bound_or_null<Array>(value)) != nullptr) {
              // Broadcast and converted to the target's dtype, as NumPy's assignment (one kernel;
              // overlapping source and target read as if copied first).
              duet::assign(q, target, *source);
            } else if (PyFloat_Check(value.ptr()) || PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) {
              fill_value(q, target, value);
            } else {
              // NumPy's broadcasting (a row into every row, say), then one copy.
              write_host(q, target, numpy().attr("broadcast_to")(value, shape_tuple(target.shape())), true);
            }
          }, nb::arg("key").none(), nb::arg("value"))
      .def("__array__", [](const Array& a, nb::handle dtype, nb::handle) {
            nb::object host = read_host(default_queue(a.device()), a, nb::none(), true);
            return dtype.is_none() ? host : host.attr("astype")(dtype);
          }, nb::arg("dtype").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def("__repr__", &array_repr);
  bind_array_dlpack(array);
  bind_ndarray(array);
  bind_broadcast_view(m);
  bind_array_ops(m, array);

  m.def("empty", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    return make_array(device_or_default(device), scalar_type_of_dtype(dtype), to_shape(shape));
  }, nb::arg("shape"), nb::arg("dtype") = "float32", nb::arg("device").none() = nb::none(), "An uninitialised array");
  m.def("full", [](nb::handle shape, nb::handle value, nb::handle dtype, nb::handle device, nb::handle queue) {
    const Device& d = device_or_default(device);
    Array a = make_array(d, scalar_type_of_dtype(dtype), to_shape(shape));
    fill_value(queue_or_default(queue, d), a, value);
    return a;
  }, nb::arg("shape"), nb::arg("fill_value"), nb::arg("dtype") = "float32", nb::arg("device").none() = nb::none(),
     nb::arg("queue").none() = nb::none());
  m.def("asarray", [](nb::handle obj, nb::handle device, nb::handle dtype, nb::handle queue) -> Array {
    Array* existing = nullptr;
    if ((existing = bound_or_null<Array>(obj)) != nullptr) {
      const bool same_device = device.is_none() || nb::cast<const Device&>(device) == existing->device();
      const bool same_type = dtype.is_none() || scalar_type_of_dtype(dtype) == existing->dtype();
      if (same_device && same_type) return *existing;
      if (same_device) return duet::evaluate(queue_or_default(queue, existing->device()),
                                             duet::astype(*existing, scalar_type_of_dtype(dtype)));
      // Another device or type: through the host, the one place every pair of devices meets.
      nb::object host = read_host(default_queue(existing->device()), *existing, nb::none(), true);
      return from_host(host, dtype, device_or_default(device), queue);
    }
    return from_host(obj, dtype, device_or_default(device), queue);
  }, nb::arg("obj"), nb::arg("device").none() = nb::none(), nb::arg("dtype").none() = nb::none(), nb::arg("queue").none() = nb::none(),
     "A device array of `obj` (a NumPy array, anything numpy.asarray takes, or a duet.Array): copied to "
     "`device` (default: duet.default_device()); a duet.Array already there with that dtype is returned "
     "as it is (sharing memory)");

  m.def("_write_async", [](Queue& q, Array& a, nb::handle host) {
    nb::object contiguous = numpy().attr("ascontiguousarray")(host);
    if (!contiguous.is(host))
      throw ArgumentError("queue.write needs a C-contiguous host array, since its memory must stay alive "
                          "until the copy completes");
    HostView view(host, false);
    if (static_cast<std::size_t>(view.view.len) != a.nbytes())
      throw BufferSizeError("the host array holds " + std::to_string(view.view.len) + " bytes, the device array " +
                            std::to_string(a.nbytes()));
    RawBuffer raw = contiguous_buffer(a, "queue.write's array");
    return q.write_bytes(raw, 0, view.view.buf, a.nbytes(), "write");
  });
  m.def("_read_async", [](Queue& q, const Array& a, nb::handle host) {
    HostView view(host, true);
    if (static_cast<std::size_t>(view.view.len) != a.nbytes())
      throw BufferSizeError("the host array holds " + std::to_string(view.view.len) + " bytes, the device array " +
                            std::to_string(a.nbytes()));
    RawBuffer raw = contiguous_buffer(a, "queue.read's array");
    return q.read_bytes(raw, 0, view.view.buf, a.nbytes(), "read");
  });
  m.def("_copy_async", [](Queue& q, const Array& src, Array& dst) {
    if (src.nbytes() != dst.nbytes()) throw BufferSizeError("copy: the arrays differ in size");
    RawBuffer to = contiguous_buffer(dst, "queue.copy's dst");
    return q.copy_bytes(contiguous_buffer(src, "queue.copy's src"), 0, to, 0, src.nbytes());
  });
  m.def("pinned_empty", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    const Device& d = device_or_default(device);
    const ScalarType t = scalar_type_of_dtype(dtype);
    std::vector<std::size_t> dims = to_shape(shape);
    std::size_t bytes = size_of(t);
    for (std::size_t e : dims) bytes *= e;
    auto* memory = new RawHostBuffer(d, bytes);
    // The capsule owns the pinned memory; NumPy keeps it as the array's base, so views of the array
    // keep it alive too.
    nb::capsule owner(memory, [](void* p) noexcept { delete static_cast<RawHostBuffer*>(p); });
    nb::dlpack::dtype dt;
    dt.code = static_cast<std::uint8_t>(is_bool(t) ? nb::dlpack::dtype_code::Bool
                                        : t == ScalarType::f16 || t == ScalarType::f32 || t == ScalarType::f64
                                            ? nb::dlpack::dtype_code::Float
                                            : (t == ScalarType::u8 || t == ScalarType::u16 || t == ScalarType::u32 ||
                                                       t == ScalarType::u64
                                                   ? nb::dlpack::dtype_code::UInt
                                                   : nb::dlpack::dtype_code::Int));
    dt.bits = static_cast<std::uint8_t>(8 * size_of(t));
    dt.lanes = 1;
    nb::ndarray<nb::numpy> arr(memory->data(), dims.size(), dims.data(), owner, nullptr, dt);
    return nb::cast(arr);
  }, nb::arg("shape"), nb::arg("dtype") = "float32", nb::arg("device").none() = nb::none(),
     "A NumPy array in pinned host memory of `device`: its copies (queue.write/read) run asynchronously "
     "and overlap kernels on other queues");
}

}  // namespace duet::python
