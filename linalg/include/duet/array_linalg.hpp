// Products of duet::Arrays through duet::gemm (CMake target duet::linalg, part of duet::duet where
// duet::blas is built), with numpy.matmul's shapes:
//
//   duet::Array c = duet::matmul(q, a, b);      // (M, K) @ (K, N) -> (M, N)
//   duet::Array d = duet::matmul(q, a.T(), b);  // a transposed view: op_a = transpose, no copy
//
// 2-D operands multiply as matrices; 3-D operands are batches (a batch of 1, or a 2-D operand, is
// shared by every matrix of the other, as numpy broadcasts); past 3-D, every axis but the last two
// is a stack axis, and the stacks broadcast as numpy's ((2, 1, M, K) @ (3, K, N) -> (2, 3, M, N)):
// one gemm_strided_batched over them where each operand's stack axes merge into one stride (a
// broadcast operand's stride 0 included), else over a copy; a 1-D first operand is a row vector
// and a 1-D second one a column vector, whose axis leaves the result (1-D @ 1-D is the 0-d dot
// product). A matrix whose elements run along its rows (stride 1 on the last axis) or along its
// columns (stride 1 on the first: a transposed view) goes to gemm as it is; any other view is
// copied first. float32, float64 (devices with double precision) and float16 storage; complex64
// and complex128 as four real products of their parts, joined by one elementwise kernel; both
// operands of one dtype (ArgumentError naming both otherwise: convert with astype).
#pragma once

#include "duet/export.hpp"

#include "duet/array.hpp"

namespace duet {

DUET_API Array matmul(Queue& q, const Array& a, const Array& b);
// numpy.dot for 1-D and 2-D operands: matmul.
inline Array dot(Queue& q, const Array& a, const Array& b) { return matmul(q, a, b); }

}  // namespace duet
