// Sorting, searching and selecting on duet.Arrays (duet/array_sort.hpp, duet/array_select.hpp):
// duet/_sort.py builds the array API's sort, argsort, searchsorted, take, nonzero and unique_* on
// these, and duet/_indexing.py its indexed assignment (put).
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"

namespace duet::python {

void bind_sort(nb::module_& m) {
  m.def(
      "_sort",
      [](const Array& a, std::int64_t axis, bool descending, bool indices, nb::handle queue) {
        Queue& q = queue_or_default(queue, a.device());
        return indices ? duet::argsort(q, a, axis, descending) : duet::sort(q, a, axis, descending);
      },
      nb::arg("a"), nb::arg("axis"), nb::arg("descending"), nb::arg("indices"), nb::arg("queue").none());
  m.def(
      "_searchsorted",
      [](const Array& a, const Array& v, bool right, nb::handle queue) {
        return duet::searchsorted(queue_or_default(queue, a.device()), a, v, right);
      },
      nb::arg("a"), nb::arg("v"), nb::arg("right"), nb::arg("queue").none());
  m.def(
      "_take",
      [](const Array& a, const Array& indices, std::int64_t axis, nb::handle queue) {
        return duet::take(queue_or_default(queue, a.device()), a, indices, axis);
      },
      nb::arg("a"), nb::arg("indices"), nb::arg("axis"), nb::arg("queue").none());
  m.def(
      "_put",
      [](const Array& a, const Array& offsets, const Array& values, nb::handle queue) {
        duet::put(queue_or_default(queue, a.device()), a, offsets, values);
      },
      nb::arg("a"), nb::arg("offsets"), nb::arg("values"), nb::arg("queue").none());
  m.def(
      "_nonzero",
      [](const Array& a, nb::handle queue) { return duet::nonzero(queue_or_default(queue, a.device()), a); },
      nb::arg("a"), nb::arg("queue").none());
  m.def(
      "_unique_all",
      [](const Array& a, nb::handle queue) {
        const Unique u = duet::unique_all(queue_or_default(queue, a.device()), a);
        return std::make_tuple(u.values, u.indices, u.inverse, u.counts);
      },
      nb::arg("a"), nb::arg("queue").none());
  m.def(
      "_unique_values",
      [](const Array& a, nb::handle queue) { return duet::unique_values(queue_or_default(queue, a.device()), a); },
      nb::arg("a"), nb::arg("queue").none());
}

}  // namespace duet::python
