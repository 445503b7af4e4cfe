// A user's library for the tests of per-library kernel names: it embeds vector_add.duet and
// gemm.duet, named like duet's own, and scale.duet (CMake target duet_test_userlib, whose name is its
// namespace). Linked with duet::duet into duet_tests, each call must run the library's source and
// duet's calls duet's.
#pragma once

#include <cstddef>
#include <duet/duet.hpp>

namespace userlib {

// c[i] = 2 a[i] - b[i] for i < c.size().
void vector_add(duet::Queue& q, const duet::Buffer<float>& a, const duet::Buffer<float>& b, duet::Buffer<float>& c);

// The max-plus product C[i][j] = max_k A[i][k] + B[k][j]; A is M x K, B K x N, row-major.
void max_plus(duet::Queue& q, const duet::Buffer<float>& A, const duet::Buffer<float>& B, duet::Buffer<float>& C,
              std::size_t M, std::size_t N, std::size_t K);

// The library's own source of `stem`, as its code finds it (nullptr for one it does not embed).
const char* source(const char* stem);

// The namespace its sources are registered under.
const char* kernel_namespace();

}  // namespace userlib
