// What `duet run` and `duet tune` check with beyond the shared references (reference/cpu_reference.hpp):
// their inputs, from std::mt19937 at fixed seeds, and the matmul check at one fixed sampling seed, so
// every run checks the same data and the same entries.
#pragma once

#include <cstddef>
#include <vector>

namespace duet::tool {

// The largest relative error of C = A * B (row-major; A is M x K, B is K x N): for each checked
// entry, |C_ij - sum_k A_ik B_kj| / sum_k |A_ik B_kj|. `samples` == 0 checks every entry; otherwise
// that many random entries (and the four corners). See duet::reference::matmul_error.
double max_relative_error_matmul(const std::vector<float>& A, const std::vector<float>& B,
                                 const std::vector<float>& C, std::size_t M, std::size_t N, std::size_t K,
                                 std::size_t samples);

// Uniformly distributed floats in [lo, hi) from a fixed seed, so every run checks the same data.
std::vector<float> random_floats(std::size_t n, float lo, float hi, unsigned seed);

}  // namespace duet::tool
