// duet.Array: a C-contiguous device array with a shape and a dtype (see bindings.hpp). Made by
// duet.empty/zeros/full/asarray, read back with .get() (a NumPy array), sliced along the leading
// dimension into views that share memory, and copied to and from host memory: blocking by default,
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

// A contiguous host buffer of a NumPy-compatible object; released with the guard.
struct HostView {
  Py_buffer view{};
  bool held = false;
  HostView(nb::handle obj, bool writable) {
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj.ptr(), &view, flags) != 0) throw nb::python_error();
    held = true;
  }
  ~HostView() {
    if (held) PyBuffer_Release(&view);
  }
  HostView(const HostView&) = delete;
  HostView& operator=(const HostView&) = delete;
};

Array view_rows(const Array& a, std::size_t first, std::size_t count, std::vector<std::size_t> shape) {
  const std::size_t row_bytes = a.row_elements() * a.itemsize();
  Array v;
  v.buffer = a.buffer.view(first * row_bytes, count * row_bytes);
  v.dtype = a.dtype;
  v.shape = std::move(shape);
  return v;
}

// a[key] for an int, a slice of step 1, or a tuple of ints optionally ending in a slice: any key
// whose result is one contiguous range.
Array getitem(const Array& a, nb::handle key) {
  nb::tuple keys = nb::isinstance<nb::tuple>(key) ? nb::borrow<nb::tuple>(key) : nb::make_tuple(key);
  Array cur = Array{a.buffer.share(), a.dtype, a.shape};
  std::size_t k = 0;
  for (; k < nb::len(keys); ++k) {
    nb::handle item = keys[k];
    if (cur.shape.empty()) throw nb::index_error("too many indices for the array");
    const auto extent = static_cast<Py_ssize_t>(cur.shape[0]);
    std::vector<std::size_t> rest(cur.shape.begin() + 1, cur.shape.end());
    if (PySlice_Check(item.ptr())) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) != 0) throw nb::python_error();
      const Py_ssize_t length = PySlice_AdjustIndices(extent, &start, &stop, step);
      if (step != 1)
        throw ArgumentError("duet.Array slices have step 1 (the array stays contiguous); got step " +
                            std::to_string(step) + ": copy to NumPy with .get() for strided access");
      rest.insert(rest.begin(), static_cast<std::size_t>(length));
      cur = view_rows(cur, static_cast<std::size_t>(start), static_cast<std::size_t>(length), rest);
      if (k + 1 < nb::len(keys))
        throw ArgumentError("duet.Array takes integers, then at most one slice, as an index: a slice "
                            "followed by more indices is not contiguous");
      continue;
    }
    if (item.is_none() || item.ptr() == Py_Ellipsis)
      throw ArgumentError("duet.Array indices are integers and slices of step 1");
    Py_ssize_t i = PyNumber_AsSsize_t(nb::steal(PyNumber_Index(item.ptr())).ptr(), PyExc_IndexError);
    if (i == -1 && PyErr_Occurred()) throw nb::python_error();
    if (i < 0) i += extent;
    if (i < 0 || i >= extent)
      throw nb::index_error(("index " + std::to_string(i) + " is out of bounds for an axis of size " +
                             std::to_string(extent)).c_str());
    cur = view_rows(cur, static_cast<std::size_t>(i), 1, rest);
  }
  return cur;
}

void write_host(Queue& q, Array& a, nb::handle host, bool blocking) {
  nb::object contiguous = numpy().attr("ascontiguousarray")(host, nb::arg("dtype") = numpy_dtype(a.dtype));
  if (nb::cast<std::size_t>(contiguous.attr("size")) != a.size())
    throw BufferSizeError("the host data has shape " + text(contiguous.attr("shape")) + " (" +
                          text(contiguous.attr("size")) + " elements), the array " + text(shape_tuple(a.shape)) +
                          " (" + std::to_string(a.size()) + ")");
  HostView view(contiguous, false);
  if (a.nbytes() == 0) return;
  nb::gil_scoped_release release;
  q.write_bytes(a.buffer, 0, view.view.buf, a.nbytes(), "write");
  if (blocking) q.finish();
}

nb::object read_host(Queue& q, const Array& a, nb::handle out, bool blocking) {
  nb::object result = out.is_none()
                          ? numpy().attr("empty")(shape_tuple(a.shape), nb::arg("dtype") = numpy_dtype(a.dtype))
                          : nb::borrow(out);
  HostView view(result, true);
  if (static_cast<std::size_t>(view.view.len) != a.nbytes())
    throw BufferSizeError("the host array holds " + std::to_string(view.view.len) + " bytes, the device array " +
                          std::to_string(a.nbytes()));
  if (a.nbytes() == 0) return result;
  nb::gil_scoped_release release;
  q.read_bytes(a.buffer, 0, view.view.buf, a.nbytes(), "read");
  if (blocking) q.finish();
  return result;
}

Array from_host(nb::handle obj, nb::handle dtype, const Device& device, nb::handle queue) {
  nb::object host = dtype.is_none() ? numpy().attr("ascontiguousarray")(obj)
                                    : numpy().attr("ascontiguousarray")(obj, nb::arg("dtype") = dtype);
  Array a = make_array(device, scalar_type_of_dtype(host.attr("dtype")), to_shape(host.attr("shape")));
  write_host(queue_or_default(queue, device), a, host, true);
  return a;
}

void fill_value(Queue& q, Array& a, nb::handle value) {
  // The value as one element of the array's dtype, converted by NumPy (so 1e40 into float32 gives
  // inf as NumPy would; out-of-range integers raise, as numpy.array(..., dtype) does).
  nb::object one = numpy().attr("array")(value, nb::arg("dtype") = numpy_dtype(a.dtype));
  HostView view(one, false);
  if (a.nbytes() == 0) return;
  q.fill_bytes(a.buffer, 0, a.nbytes(), view.view.buf, a.itemsize());
}

const Device& device_or_default(nb::handle device) {
  return device.is_none() ? default_device() : nb::cast<const Device&>(device);
}

std::string array_repr(const Array& a) {
  std::string shape = "(";
  for (std::size_t d = 0; d < a.shape.size(); ++d) shape += (d ? ", " : "") + std::to_string(a.shape[d]);
  if (a.shape.size() == 1) shape += ",";
  shape += ")";
  return "<duet.Array shape=" + shape + " dtype=" + numpy_name(a.dtype) + " on " + a.buffer.device().info().id() + ">";
}

}  // namespace

Array make_array(const Device& device, ScalarType dtype, std::vector<std::size_t> shape) {
  Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  std::size_t n = a.size();
  if (n != 0 && n > static_cast<std::size_t>(-1) / a.itemsize())
    throw OutOfMemoryError("an array of " + std::to_string(n) + " elements does not fit in the address space",
                           static_cast<std::uint64_t>(-1), device.info().memory_bytes);
  a.buffer = RawBuffer(device, a.nbytes());
  return a;
}

void bind_array(nb::module_& m) {
  nb::class_<Array> array(m, "Array",
                    "A C-contiguous array in device memory: shape, dtype, device. Slices along the leading "
                    "dimension are views sharing memory; .get() copies to a NumPy array");
  array.def_prop_ro("shape", [](const Array& a) { return shape_tuple(a.shape); })
      .def_prop_ro("dtype", [](const Array& a) { return numpy_dtype(a.dtype); })
      .def_prop_ro("ndim", [](const Array& a) { return a.shape.size(); })
      .def_prop_ro("size", &Array::size)
      .def_prop_ro("nbytes", &Array::nbytes)
      .def_prop_ro("itemsize", &Array::itemsize)
      .def_prop_ro("strides", [](const Array& a) {
        std::vector<std::size_t> strides(a.shape.size());
        std::size_t s = a.itemsize();
        for (std::size_t d = a.shape.size(); d-- > 0;) strides[d] = s, s *= a.shape[d];
        return shape_tuple(strides);
      }, "Bytes per step in each dimension (always C-contiguous)")
      .def_prop_ro("device", [](const Array& a) { return a.buffer.device(); })
      .def_prop_ro("native_handle", [](const Array& a) { return a.buffer.native_handle(); },
                   "CUdeviceptr of the first element (CUDA) or the allocation's cl_mem (OpenCL; see .offset)")
      .def_prop_ro("offset", [](const Array& a) { return a.buffer.offset(); },
                   "Bytes from the start of the device allocation to the first element")
      .def("__len__", [](const Array& a) {
        if (a.shape.empty()) throw nb::type_error("len() of a 0-d array");
        return a.shape[0];
      })
      .def("get", [](const Array& a, nb::handle queue, nb::handle out) {
            return read_host(queue_or_default(queue, a.buffer.device()), a, out, true);
          }, nb::arg("queue").none() = nb::none(), nb::arg("out").none() = nb::none(),
          "Copy to a NumPy array (or into `out`), waiting for `queue` (default: the device's default queue)")
      .def("set", [](Array& a, nb::handle host, nb::handle queue) {
            write_host(queue_or_default(queue, a.buffer.device()), a, host, true);
          }, nb::arg("host"), nb::arg("queue").none() = nb::none(), "Copy host data of the same size into the array (blocking)")
      .def("fill", [](Array& a, nb::handle value, nb::handle queue) {
            fill_value(queue_or_default(queue, a.buffer.device()), a, value);
          }, nb::arg("value"), nb::arg("queue").none() = nb::none(), "Set every element (asynchronous)")
      .def("copy", [](const Array& a, nb::handle queue) {
            Array c = make_array(a.buffer.device(), a.dtype, a.shape);
            if (a.nbytes()) queue_or_default(queue, a.buffer.device()).copy_bytes(a.buffer, 0, c.buffer, 0, a.nbytes());
            return c;
          }, nb::arg("queue").none() = nb::none(), "A new array with the same contents (asynchronous)")
      .def("reshape", [](const Array& a, nb::args dims) {
            nb::handle spec = nb::len(dims) == 1 ? dims[0] : nb::handle(dims);
            std::vector<long long> want;
            if (PyLong_Check(spec.ptr()) || PyIndex_Check(spec.ptr())) want.push_back(nb::cast<long long>(nb::int_(spec)));
            else for (nb::handle v : spec) want.push_back(nb::cast<long long>(nb::int_(v)));
            long long known = 1;
            int unknown = -1;
            for (std::size_t d = 0; d < want.size(); ++d) {
              if (want[d] == -1 && unknown < 0) unknown = static_cast<int>(d);
              else if (want[d] < 0) throw ArgumentError("reshape: a bad extent " + std::to_string(want[d]));
              else known *= want[d];
            }
            if (unknown >= 0 && known > 0) want[unknown] = static_cast<long long>(a.size()) / known;
            std::vector<std::size_t> shape(want.begin(), want.end());
            Array r{a.buffer.share(), a.dtype, shape};
            if (r.size() != a.size())
              throw ArgumentError("reshape: " + std::to_string(a.size()) + " elements do not make shape " +
                                  text(shape_tuple(shape)));
            return r;
          }, "The same memory with another shape of the same size (-1: the extent that fits)")
      .def("__getitem__", &getitem)
      .def("__setitem__", [](Array& a, nb::handle key, nb::handle value) {
            Array target = getitem(a, key);
            Queue& q = default_queue(a.buffer.device());
            Array* source = nullptr;
            if (nb::try_cast<Array*>(value, source) && source) {
              if (source->dtype != target.dtype || source->size() != target.size())
                throw ArgumentError("assigning an array needs the same dtype and size");
              if (target.nbytes()) q.copy_bytes(source->buffer, 0, target.buffer, 0, target.nbytes());
            } else if (PyFloat_Check(value.ptr()) || PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) {
              fill_value(q, target, value);
            } else {
              // NumPy's broadcasting (a row into every row, say), then one copy.
              write_host(q, target, numpy().attr("broadcast_to")(value, shape_tuple(target.shape)), true);
            }
          })
      .def("__array__", [](const Array& a, nb::handle dtype, nb::handle) {
            nb::object host = read_host(default_queue(a.buffer.device()), a, nb::none(), true);
            return dtype.is_none() ? host : host.attr("astype")(dtype);
          }, nb::arg("dtype").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def("__repr__", &array_repr);
  bind_array_dlpack(array);

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
    if (nb::try_cast<Array*>(obj, existing) && existing) {
      const bool same_device = device.is_none() || nb::cast<const Device&>(device) == existing->buffer.device();
      const bool same_type = dtype.is_none() || scalar_type_of_dtype(dtype) == existing->dtype;
      if (same_device && same_type) return Array{existing->buffer.share(), existing->dtype, existing->shape};
      // Another device or type: through the host, the one place every pair of devices meets.
      nb::object host = read_host(default_queue(existing->buffer.device()), *existing, nb::none(), true);
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
    return q.write_bytes(a.buffer, 0, view.view.buf, a.nbytes(), "write");
  });
  m.def("_read_async", [](Queue& q, const Array& a, nb::handle host) {
    HostView view(host, true);
    if (static_cast<std::size_t>(view.view.len) != a.nbytes())
      throw BufferSizeError("the host array holds " + std::to_string(view.view.len) + " bytes, the device array " +
                            std::to_string(a.nbytes()));
    return q.read_bytes(a.buffer, 0, view.view.buf, a.nbytes(), "read");
  });
  m.def("_copy_async", [](Queue& q, const Array& src, Array& dst) {
    if (src.nbytes() != dst.nbytes()) throw BufferSizeError("copy: the arrays differ in size");
    return q.copy_bytes(src.buffer, 0, dst.buffer, 0, src.nbytes());
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
    dt.code = static_cast<std::uint8_t>(t == ScalarType::f16 || t == ScalarType::f32 || t == ScalarType::f64
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
