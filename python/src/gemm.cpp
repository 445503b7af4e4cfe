// duet.gemm: C = alpha op(A) op(B) + beta C over duet.Arrays, through duet::gemm and
// duet::gemm_strided_batched. Arrays are row-major and compact, so each operand's leading
// dimension is its last extent. A 3-D operand is a batch of matrices (batch, rows, cols); a 2-D one,
// or a batch of 1, is shared by every matrix of the batch (a stride of 0), as numpy.matmul
// broadcasts. Shapes and dtypes are checked here, so errors speak of shapes; gemm itself checks
// devices and sizes.
#include <nanobind/stl/string.h>

#include <string>
#include <vector>

#include "bindings.hpp"

namespace duet::python {
namespace {

// One operand as gemm sees it: its matrices' stored rows and columns, how many there are and how
// far apart (0: one matrix for the whole batch).
struct Operand {
  std::size_t rows = 0, cols = 0, count = 1, stride = 0;
};

Operand operand(const Array& a, const char* what) {
  if (a.ndim() != 2 && a.ndim() != 3)
    throw ArgumentError(std::string("gemm: ") + what + " must be a 2-D matrix or a 3-D batch of them, not " +
                        std::to_string(a.ndim()) + "-D " + shape_text(a.shape()));
  Operand o;
  o.rows = a.shape()[a.ndim() - 2];
  o.cols = a.shape()[a.ndim() - 1];
  if (a.ndim() == 3) {
    o.count = a.shape()[0];
    o.stride = o.count > 1 ? o.rows * o.cols : 0;
  }
  return o;
}

template <class T, class Scalar>
void call_gemm(Queue& q, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, double alpha,
               const Array& A, const Operand& a, const Array& B, const Operand& b, double beta,
               const Array& C, const Operand& c, std::size_t batch) {
  const Buffer<T> ba = typed<T>(A, "A"), bb = typed<T>(B, "B"), bc = typed<T>(C, "C");
  if (batch == 1 && C.ndim() == 2)
    gemm(q, op_a, op_b, M, N, K, static_cast<Scalar>(alpha), ba, a.cols, bb, b.cols,
         static_cast<Scalar>(beta), bc, c.cols);
  else
    gemm_strided_batched(q, op_a, op_b, M, N, K, static_cast<Scalar>(alpha), ba, a.cols, a.stride, bb, b.cols,
                         b.stride, static_cast<Scalar>(beta), bc, c.cols, M * N, batch);
}

Array gemm_arrays(const Array& A, const Array& B, nb::handle out, double alpha, double beta, bool trans_a,
                  bool trans_b, nb::handle queue) {
  const Operand a = operand(A, "A"), b = operand(B, "B");
  const std::size_t M = trans_a ? a.cols : a.rows, K = trans_a ? a.rows : a.cols;
  const std::size_t K_b = trans_b ? b.cols : b.rows, N = trans_b ? b.rows : b.cols;
  if (K != K_b)
    throw ArgumentError("gemm: op(A) is " + std::to_string(M) + "x" + std::to_string(K) + " (A " +
                        shape_text(A.shape()) + (trans_a ? ", transposed" : "") + ") but op(B) is " +
                        std::to_string(K_b) + "x" + std::to_string(N) + " (B " + shape_text(B.shape()) +
                        (trans_b ? ", transposed" : "") + "): their inner dimensions differ");
  if (a.count > 1 && b.count > 1 && a.count != b.count)
    throw ArgumentError("gemm: A is a batch of " + std::to_string(a.count) + " matrices and B of " +
                        std::to_string(b.count) + ": batches must match, or one operand be a single matrix");
  if (A.dtype() != B.dtype())
    throw ArgumentError(std::string("gemm: A holds ") + numpy_name(A.dtype()) + " and B " +
                        numpy_name(B.dtype()) +
                        ": both operands (and C) must have one dtype; convert one with astype");
  const std::size_t batch = std::max(a.count, b.count);
  const bool batched = A.ndim() == 3 || B.ndim() == 3;
  std::vector<std::size_t> c_shape =
      batched ? std::vector<std::size_t>{batch, M, N} : std::vector<std::size_t>{M, N};

  Array C;
  if (out.is_none()) {
    if (beta != 0.0)
      throw ArgumentError("gemm: beta=" + std::to_string(beta) +
                          " reads C, but no C was given: pass the array to update as C, or leave beta at 0");
    C = make_array(A.device(), A.dtype(), c_shape);
  } else {
    C = nb::cast<Array&>(out);
    if (C.shape() != c_shape && !(batch == 1 && C.shape() == std::vector<std::size_t>{M, N}))
      throw ArgumentError("gemm: C must have shape " + shape_text(c_shape) + ", not " +
                          shape_text(C.shape()));
    if (C.dtype() != A.dtype())
      throw ArgumentError(std::string("gemm: C holds ") + numpy_name(C.dtype()) + " but A and B hold " +
                          numpy_name(A.dtype()));
  }
  const Operand c{M, N, batch, M * N};
  const Op op_a = trans_a ? Op::transpose : Op::none, op_b = trans_b ? Op::transpose : Op::none;
  Queue& q = queue_or_default(queue, A.device());
  visit_scalar_type(A.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float(scalar_type_of<T>()))
      call_gemm<T, compute_type_t<T>>(q, op_a, op_b, M, N, K, alpha, A, a, B, b, beta, C, c, batch);
    else
      throw ArgumentError(std::string("gemm: A and B hold ") + numpy_name(A.dtype()) +
                          "; gemm takes float32, float64 (where the device has it), float16 and bfloat16");
  });
  return C;
}

}  // namespace

void bind_gemm(nb::module_& m) {
  m.def("gemm", &gemm_arrays, nb::arg("A"), nb::arg("B"), nb::arg("C").none() = nb::none(), nb::kw_only(),
        nb::arg("alpha") = 1.0, nb::arg("beta") = 0.0, nb::arg("trans_a") = false, nb::arg("trans_b") = false,
        nb::arg("queue").none() = nb::none(),
        "C = alpha * op(A) @ op(B) + beta * C (duet::gemm), op(X) = X.T where trans_x; float32, float64, "
        "float16 or bfloat16 (float arithmetic). 3-D operands are batches (duet::gemm_strided_batched); a 2-D operand is "
        "shared by the whole batch. With beta == 0, C is not read (NaN in C does not propagate). Returns C: "
        "a new array unless C is given. Asynchronous like every call on a queue.");
}

}  // namespace duet::python
