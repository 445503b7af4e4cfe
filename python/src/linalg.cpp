// Singular values and the matrix norms made of them (duet/array_svd.hpp): duet/linalg.py builds
// svdvals and matrix_norm's 'nuc', 2 and -2 on these.
#include <nanobind/stl/string.h>

#include <duet/array_svd.hpp>
#include <string>

#include "bindings.hpp"

namespace duet::python {

void bind_linalg(nb::module_& m) {
  m.def(
      "_svdvals",
      [](const Array& a, nb::handle queue) { return linalg::svdvals(queue_or_default(queue, a.device()), a); },
      nb::arg("a"), nb::arg("queue").none());
  m.def(
      "_singular_norm",
      [](const Array& a, const std::string& ord, bool keepdims, nb::handle queue) {
        const linalg::MatrixNorm which = ord == "nuc" ? linalg::MatrixNorm::nuclear
                                         : ord == "2" ? linalg::MatrixNorm::spectral
                                         : ord == "-2"
                                             ? linalg::MatrixNorm::smallest
                                             : throw ArgumentError("matrix_norm: ord " + ord + " has no singular-value form");
        return linalg::matrix_norm(queue_or_default(queue, a.device()), a, which, keepdims);
      },
      nb::arg("a"), nb::arg("ord"), nb::arg("keepdims"), nb::arg("queue").none());
}

}  // namespace duet::python
