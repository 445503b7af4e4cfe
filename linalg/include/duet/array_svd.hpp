// Singular values of duet::Arrays and the matrix norms made of them (CMake target duet::linalg):
//
//   duet::Array s = duet::linalg::svdvals(q, a);   // (..., M, N) -> (..., min(M, N)), descending
//   duet::Array n = duet::linalg::matrix_norm(q, a, duet::linalg::MatrixNorm::spectral);  // (...)
//
// Every axis but the last two is a batch axis. The values are computed on the device, one
// work-group per matrix, by one-sided Jacobi rotations (linalg/kernels/svdvals.duet explains the
// method and when it stops): accurate to a few units of rounding of the dtype times the matrix's
// size, relative to its largest singular value. Any view is read through its strides (one whose
// batch axes merge into no single stride is copied first). float32, float64 (devices with double
// precision; ArgumentError elsewhere), and the storage types float16 and bfloat16, computed in
// float32 and stored in their own dtype; other dtypes are an ArgumentError (convert with astype).
// An infinite or NaN element makes all its matrix's values NaN (numpy raises LinAlgError).
// Enqueued on q like every array call: nothing waits for the device. The kernel's working copy of
// the matrices (as large as the input in float32, or in float64) is kept per queue for its next
// call, so that no call frees memory its own launch still uses.
#pragma once

#include "duet/export.hpp"

#include "duet/array.hpp"

namespace duet::linalg {

// The singular values of each matrix of `a` (at least 2-D), in descending order, in a's dtype:
// shape a.shape()[:-2] + (min(M, N),). An empty matrix has none (a last axis of length 0).
DUET_API Array svdvals(Queue& q, const Array& a);

// The matrix norms built on singular values (numpy.linalg.matrix_norm's ord 'nuc', 2 and -2).
enum class MatrixNorm {
  nuclear,   // the sum of the singular values
  spectral,  // the largest (the operator 2-norm)
  smallest,  // the smallest (ord -2)
};

// The norm `ord` of each matrix of `a`: shape a.shape()[:-2], or with two axes of length 1 at the
// end where `keepdims`. As numpy's: nuclear and spectral of an empty matrix are 0; smallest of one
// is an ArgumentError (numpy's ValueError), unless the batch itself is empty.
DUET_API Array matrix_norm(Queue& q, const Array& a, MatrixNorm ord, bool keepdims = false);

}  // namespace duet::linalg
