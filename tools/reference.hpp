// CPU references for checking the shared kernels: every computation in double precision from the
// same float inputs the device saw, spread over the host's cores so checking a GPU-sized problem
// takes seconds, not minutes.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace duet::tool {

// Calls body(begin, end) on disjoint chunks covering [0, n), on up to hardware_concurrency threads.
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

// max |got[i] - (a[i] + b[i])| over all i, the sum taken in double.
double max_error_add(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& got);
// max |got[i] - a[i] * b[i]|, the product taken in double.
double max_error_multiply(const std::vector<float>& a, const std::vector<float>& b,
                          const std::vector<float>& got);

// The largest relative error of C = A * B (row-major; A is M x K, B is K x N): for each checked
// entry, |C_ij - sum_k A_ik B_kj| / sum_k |A_ik B_kj|, which stays meaningful where the sum
// cancels to nearly zero. `samples` == 0 checks every entry; otherwise that many random entries
// (and the four corners).
double max_relative_error_matmul(const std::vector<float>& A, const std::vector<float>& B,
                                 const std::vector<float>& C, std::size_t M, std::size_t N, std::size_t K,
                                 std::size_t samples);

// `steps` explicit heat steps on an nx * ny grid in double, the same scheme as duet::heat_step:
// boundary cells fixed, v = u + r (west + east + north + south - 4u) inside.
std::vector<double> heat_reference(const std::vector<float>& initial, std::size_t nx, std::size_t ny, float r,
                                   int steps);

// max |got[i] - want[i]|.
double max_abs_error(const std::vector<float>& got, const std::vector<double>& want);

// Uniformly distributed floats in [lo, hi) from a fixed seed, so every run checks the same data.
std::vector<float> random_floats(std::size_t n, float lo, float hi, unsigned seed);

}  // namespace duet::tool
