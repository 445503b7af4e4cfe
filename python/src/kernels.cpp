// The built-in kernels: matmul (duet::blas), heat and heat_step, vector_add and multiply. Each takes
// duet.Arrays, checks shapes here (so errors speak of shapes, not element counts) and calls the C++
// function, asynchronously like C++.
#include <nanobind/stl/string.h>

#include "bindings.hpp"

namespace duet::python {
namespace {

void require_2d(const Array& a, const char* what) {
  if (a.ndim() != 2)
    throw ArgumentError(std::string(what) + " must be a 2-D array, not " + std::to_string(a.ndim()) + "-D");
}

void require_whole(const Array& a, const char* what) {
  if (first_byte(a) != a.buffer().guard_bytes())
    throw ArgumentError(std::string(what) + " must be a whole array, not a view: its memory may be exchanged "
                        "with the scratch array's");
}

}  // namespace

void bind_kernels(nb::module_& m) {
  m.def("_matmul_into", [](const Array& A, const Array& B, nb::handle out, nb::handle queue) {
    require_2d(A, "A");
    require_2d(B, "B");
    const std::size_t M = A.shape()[0], K = A.shape()[1], N = B.shape()[1];
    if (B.shape()[0] != K)
      throw ArgumentError("matmul: A is " + std::to_string(M) + "x" + std::to_string(K) + " but B is " +
                          std::to_string(B.shape()[0]) + "x" + std::to_string(N));
    Array C = out.is_none() ? make_array(A.device(), ScalarType::f32, {M, N}) : nb::cast<Array&>(out);
    if (C.shape() != std::vector<std::size_t>{M, N})
      throw ArgumentError("matmul: out must be " + std::to_string(M) + "x" + std::to_string(N));
    Buffer<float> a = typed<float>(A, "A"), b = typed<float>(B, "B"), c = typed<float>(C, "out");
    duet::matmul(queue_or_default(queue, A.device()), a, b, c, M, N, K);
    return C;
  }, nb::arg("A"), nb::arg("B"), nb::arg("out").none() = nb::none(), nb::arg("queue").none() = nb::none(),
     "C = A @ B for float32 2-D arrays (the shared matmul kernel); returns C (a new array unless `out` is "
     "given). duet.matmul calls it with out=");

  m.def("heat_step", [](const Array& u, Array& v, double r, nb::handle queue) {
    require_2d(u, "u");
    if (u.shape() != v.shape()) throw ArgumentError("heat_step: u and v differ in shape");
    Buffer<float> bu = typed<float>(u, "u"), bv = typed<float>(v, "v");
    // Rows are y, columns x (x fastest), as NumPy lays out a (ny, nx) array.
    duet::heat_step(queue_or_default(queue, u.device()), bu, bv, u.shape()[1], u.shape()[0],
                    static_cast<float>(r));
  }, nb::arg("u"), nb::arg("v"), nb::arg("r") = 0.24, nb::arg("queue").none() = nb::none(),
     "One explicit step of the 2-D heat equation from u into v (float32 arrays of shape (ny, nx))");

  m.def("heat", [](Array& u, int steps, double r, nb::handle scratch, nb::handle queue) {
    require_2d(u, "u");
    require_whole(u, "u");
    Queue& q = queue_or_default(queue, u.device());
    Array v = scratch.is_none() ? make_array(u.device(), ScalarType::f32, u.shape())
                                : nb::cast<Array&>(scratch);
    if (!scratch.is_none()) {
      require_whole(v, "scratch");
      if (v.shape() != u.shape()) throw ArgumentError("heat: scratch must have u's shape");
    }
    Buffer<float> bu = typed<float>(u, "u"), bv = typed<float>(v, "scratch");
    duet::heat(q, bu, bv, u.shape()[1], u.shape()[0], static_cast<float>(r), steps);
    // C++ swapped the buffers as needed: u's array now names the memory holding the final field.
    u = Array(bu.raw().share(), ScalarType::f32, contiguous_layout(u.shape()));
    if (!scratch.is_none())
      nb::cast<Array&>(scratch) = Array(bv.raw().share(), ScalarType::f32, contiguous_layout(v.shape()));
  }, nb::arg("u"), nb::arg("steps"), nb::arg("r") = 0.24, nb::arg("scratch").none() = nb::none(),
     nb::arg("queue").none() = nb::none(),
     "`steps` heat steps on u in place (float32, shape (ny, nx)), ping-ponging with `scratch` (allocated "
     "when not given): as in C++, u and scratch may exchange their memory, never copied");

  m.def("vector_add", [](const Array& a, const Array& b, Array& c, nb::handle queue) {
    Buffer<float> ba = typed<float>(a, "a"), bb = typed<float>(b, "b"), bc = typed<float>(c, "c");
    duet::vector_add(queue_or_default(queue, a.device()), ba, bb, bc);
  }, nb::arg("a"), nb::arg("b"), nb::arg("c"), nb::arg("queue").none() = nb::none(), "c = a + b (float32)");
  m.def("multiply", [](const Array& a, const Array& b, Array& c, nb::handle queue) {
    Buffer<float> ba = typed<float>(a, "a"), bb = typed<float>(b, "b"), bc = typed<float>(c, "c");
    duet::multiply(queue_or_default(queue, a.device()), ba, bb, bc);
  }, nb::arg("a"), nb::arg("b"), nb::arg("c"), nb::arg("queue").none() = nb::none(), "c = a * b (float32)");

  m.def("kernel_source", [](const std::string& name) -> nb::object {
    const char* s = builtin_kernel_source(name.c_str());
    return s ? nb::object(nb::str(s)) : nb::none();
  }, nb::arg("name"), "The dialect source of an embedded kernel file ('heat', 'matmul', 'random', ...)");
  m.def("kernel_names", [] {
    nb::list names;
    for (const char* const* n = builtin_kernel_names(); *n; ++n) names.append(nb::str(*n));
    return names;
  });
}

}  // namespace duet::python
