// duet.Array's NumPy-style views, which are duet::Array's own: basic indexing (integers, slices with
// any step, None, Ellipsis), .T, transpose, expand_dims, squeeze, reshape, strides, and
// broadcast_to's view (stretched axes step 0). Views share memory and cost no device work; the
// layout rules are duet::Array's (array_layout.hpp), so Python and C++ agree. Also the byte range
// an array passes to kernels. Operators and functions are in array_ops.cpp.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"

namespace duet::python {

RawBuffer contiguous_buffer(const Array& a, const char* what) {
  if (!a.contiguous())
    throw ArgumentError(std::string(what) +
                        " is a strided view (a step, a transpose or a column of an array): kernels read "
                        "buffers in C order, so pass a contiguous copy (.copy())");
  if (exact(a)) return a.buffer().share();
  // No elements: no bytes (an empty view's offset may lie anywhere, even past the buffer's end).
  if (a.size() == 0) return a.buffer().view(0, 0);
  return a.buffer().view(static_cast<std::size_t>(a.offset()) * a.itemsize(), a.nbytes());
}

std::size_t first_byte(const Array& a) {
  const std::size_t elements = a.size() == 0 ? 0 : static_cast<std::size_t>(a.offset());
  return a.buffer().offset() + elements * a.itemsize();
}

namespace {

std::int64_t to_int(nb::handle v) {
  Py_ssize_t i = PyNumber_AsSsize_t(nb::steal(PyNumber_Index(v.ptr())).ptr(), PyExc_IndexError);
  if (i == -1 && PyErr_Occurred()) throw nb::python_error();
  return i;
}

std::optional<std::int64_t> bound(nb::handle v) {
  if (v.is_none()) return std::nullopt;
  return to_int(v);
}

bool is_integer(nb::handle v) { return !PyBool_Check(v.ptr()) && PyIndex_Check(v.ptr()); }

}  // namespace

Array index_array(const Array& a, nb::handle key) {
  nb::tuple keys = nb::isinstance<nb::tuple>(key) ? nb::borrow<nb::tuple>(key) : nb::make_tuple(key);
  const std::size_t n = nb::len(keys);
  // How many axes the key names (None adds one, Ellipsis stands for the rest).
  std::size_t named = 0, ellipses = 0;
  for (nb::handle item : keys) {
    if (item.ptr() == Py_Ellipsis)
      ++ellipses;
    else if (!item.is_none())
      ++named;
  }
  if (ellipses > 1) throw nb::index_error("an index can only have a single ellipsis ('...')");
  if (named > a.ndim())
    throw nb::index_error(("too many indices for the array: it is " + std::to_string(a.ndim()) +
                           "-dimensional, but " + std::to_string(named) + " were indexed")
                              .c_str());
  std::vector<IndexEntry> entries;
  std::vector<std::int64_t> new_axes;  // result positions of the None entries, in order
  std::int64_t out_axis = 0;
  for (std::size_t k = 0; k < n; ++k) {
    nb::handle item = keys[k];
    if (item.is_none()) {
      new_axes.push_back(out_axis++);
    } else if (item.ptr() == Py_Ellipsis) {
      for (std::size_t r = 0; r < a.ndim() - named; ++r, ++out_axis) entries.emplace_back(Slice{});
    } else if (PySlice_Check(item.ptr())) {
      nb::object step = item.attr("step");
      Slice s{bound(item.attr("start")), bound(item.attr("stop")), step.is_none() ? 1 : to_int(step)};
      if (s.step == 0) throw ArgumentError("slice step cannot be zero");
      entries.emplace_back(s);
      ++out_axis;
    } else if (is_integer(item)) {
      const std::size_t axis = entries.size();
      const auto extent = static_cast<std::int64_t>(a.shape()[axis]);
      const std::int64_t i = to_int(item);
      if (i < -extent || i >= extent)
        throw nb::index_error(("index " + std::to_string(i) + " is out of bounds for axis " +
                               std::to_string(axis) + " with size " + std::to_string(extent))
                                  .c_str());
      entries.emplace_back(i);
    } else {
      throw ArgumentError(
          std::string(
              "duet.Array takes integers, slices, None, ..., integer arrays and masks as indices, not ") +
          Py_TYPE(item.ptr())->tp_name);
    }
  }
  Array view = a.index(entries);
  for (std::int64_t axis : new_axes) view = view.expand_dims(axis);
  return view;
}

namespace {

std::vector<std::int64_t> int_list(nb::handle spec) {
  std::vector<std::int64_t> out;
  if (PyIndex_Check(spec.ptr()))
    out.push_back(to_int(spec));
  else
    for (nb::handle v : spec) out.push_back(to_int(v));
  return out;
}

// The shape of *args (reshape(2, 3)) or of args[0] (reshape((2, 3)), reshape(6)).
std::vector<std::int64_t> shape_args(const nb::args& dims) {
  return int_list(nb::len(nb::handle(dims)) == 1 ? dims[0] : nb::handle(dims));
}

}  // namespace

void bind_ndarray(nb::class_<Array>& array) {
  array
      .def_prop_ro(
          "strides",
          [](const Array& a) {
            nb::list l;
            for (std::int64_t s : a.strides()) l.append(s * static_cast<std::int64_t>(a.itemsize()));
            return nb::tuple(l);
          },
          "Bytes per step along each axis, as NumPy's (negative for reversed axes)")
      .def_prop_ro("is_contiguous", &Array::contiguous,
                   "Whether the elements are one C-ordered range (what kernels take)")
      .def("__getitem__", &index_array, nb::arg("key").none())
      .def_prop_ro(
          "T", [](const Array& a) { return a.T(); }, "The axes reversed (a view)")
      .def_prop_ro(
          "mT",
          [](const Array& a) {
            if (a.ndim() < 2) throw ArgumentError("mT needs an array of at least 2 dimensions");
            std::vector<std::size_t> axes(a.ndim());
            for (std::size_t k = 0; k < axes.size(); ++k) axes[k] = k;
            std::swap(axes[axes.size() - 1], axes[axes.size() - 2]);
            return a.transpose(axes);
          },
          "The last two axes swapped (a view)")
      .def(
          "transpose",
          [](const Array& a, nb::args axes) {
            std::vector<std::size_t> perm;
            if (nb::len(nb::handle(axes)) > 0 && !(nb::len(nb::handle(axes)) == 1 && axes[0].is_none())) {
              const std::size_t ndim = a.ndim();
              for (std::int64_t k : shape_args(axes))
                perm.push_back(static_cast<std::size_t>(k < 0 ? k + static_cast<std::int64_t>(ndim) : k));
            }
            return a.transpose(perm);
          },
          "The axes permuted (a view): transpose() reverses them, transpose(1, 0, 2) or transpose((1, 0, 2)) "
          "names them")
      .def(
          "expand_dims", [](const Array& a, std::int64_t axis) { return a.expand_dims(axis); },
          nb::arg("axis"), "A new axis of length 1 at `axis` (a view)")
      .def(
          "squeeze", [](const Array& a, std::optional<std::int64_t> axis) { return a.squeeze(axis); },
          nb::arg("axis").none() = nb::none(), "Axes of length 1 removed: all, or `axis` (a view)")
      .def(
          "reshape",
          [](const Array& a, nb::args dims, nb::kwargs kwargs) {
            nb::handle queue = nb::none();
            for (auto [k, v] : kwargs) {
              if (nb::cast<std::string>(k) != "queue")
                throw ArgumentError("reshape takes only queue= by keyword");
              queue = v;
            }
            return a.reshape(queue_or_default(queue, a.device()), shape_args(dims));
          },
          "The same elements in C order with another shape (-1: the extent that fits): a view where the "
          "strides allow it (always for a contiguous array), else a contiguous copy");
}

void bind_broadcast_view(nb::module_& m) {
  m.def(
      "_broadcast_to",
      [](const Array& a, const std::vector<std::int64_t>& dims) {
        Shape shape;
        for (const std::int64_t d : dims) {
          if (d < 0)
            throw ArgumentError("broadcast_to: a shape has no negative extents (" + std::to_string(d) + ")");
          shape.push_back(static_cast<std::size_t>(d));
        }
        if (shape.size() < a.ndim())
          throw ArgumentError("broadcast_to: an array of shape " + shape_text(a.shape()) +
                              " cannot lose axes (target shape " + shape_text(shape) + ")");
        // A repeated element is one element read again: the stretched axes step 0, as NumPy's
        // broadcast views, so nothing is copied.
        Layout l;
        l.shape = shape;
        l.offset = a.offset();
        l.strides.assign(shape.size(), 0);
        const std::size_t lead = shape.size() - a.ndim();
        for (std::size_t k = 0; k < a.ndim(); ++k) {
          const std::size_t from = a.shape()[k], to = shape[lead + k];
          if (from != to && from != 1)
            throw ArgumentError("broadcast_to: shape " + shape_text(a.shape()) + " does not broadcast to " +
                                shape_text(shape) + " (axis " + std::to_string(k) + ": " +
                                std::to_string(from) + " to " + std::to_string(to) +
                                "; only axes of length 1 stretch)");
          l.strides[lead + k] = from == to ? a.strides()[k] : 0;
        }
        return Array(a.buffer().share(), a.dtype(), std::move(l));
      },
      nb::arg("x"), nb::arg("shape"));
}

}  // namespace duet::python
