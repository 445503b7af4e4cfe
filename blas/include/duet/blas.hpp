// duet::blas: matrix products on any duet device (CMake target duet::blas, part of duet::duet).
// Written once in the dialect (blas/kernels/), with tile parameters from a table per device and
// size class (duet/tuning.hpp). Like every launch, the calls are asynchronous: they enqueue work on
// `q` and return. Sizes are checked against the buffers (BufferSizeError) and buffers must belong to
// the queue's device (DeviceMismatchError).
#pragma once

#include <cstddef>

#include "duet/buffer.hpp"
#include "duet/queue.hpp"
#include "duet/tuning.hpp"

namespace duet {

// C = A * B, row-major float32: A is M x K, B is K x N, C is M x N. Any sizes >= 1.
void matmul(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C, std::size_t M,
            std::size_t N, std::size_t K);

}  // namespace duet
