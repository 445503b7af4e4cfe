// CPU references for checking the built-in kernels (`duet run` and `duet bench`): every computation in
// double precision from the same float inputs the device saw, spread over the host's cores. Every
// maximum keeps NaN, so an output the kernel never wrote (or wrote as NaN) cannot pass as "error 0".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace duet::reference {

// max over i < n of error_at(i), in parallel; NaN if any error_at(i) is NaN.
double max_abs_error(std::size_t n, const std::function<double(std::size_t)>& error_at);

// max |got[i] - want[i]|.
double max_abs_error(const std::vector<float>& got, const std::vector<double>& want);

// The built-in kernels in double, from the float inputs: a[i] + b[i] and a[i] * b[i] for i < n.
std::vector<double> add_reference(const std::vector<float>& a, const std::vector<float>& b, std::size_t n);
std::vector<double> multiply_reference(const std::vector<float>& a, const std::vector<float>& b, std::size_t n);

// C = A * B in double (row-major; A is M x K, B is K x N), and abs_dot[i * N + j] = sum_k |A_ik B_kj|,
// the scale of the rounding error of any float summation order.
void matmul_reference(const std::vector<float>& A, const std::vector<float>& B, std::size_t M, std::size_t N,
                      std::size_t K, std::vector<double>& C, std::vector<double>& abs_dot);

// max |got[i] - (a[i] + b[i])| over all i, the sum taken in double.
double max_error_add(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& got);
// max |got[i] - a[i] * b[i]|, the product taken in double.
double max_error_multiply(const std::vector<float>& a, const std::vector<float>& b,
                          const std::vector<float>& got);

// Errors of C = A * B (row-major; A is M x K, B is K x N) on the checked entries: every entry when
// `samples` is 0, else the four corners and `samples` entries drawn from `seed`. The relative error
// per entry is to sum_k |A_ik B_kj|, which stays meaningful where the sum cancels to nearly zero.
struct MatmulError {
  double max_relative = 0.0;   // max over entries of |C_ij - ref_ij| / sum_k |A_ik B_kj|
  double norm_relative = 0.0;  // ||C - ref|| / ||ref|| over the checked entries (2-norm)
  std::size_t checked = 0;
};
MatmulError matmul_error(const std::vector<float>& A, const std::vector<float>& B,
                         const std::vector<float>& C, std::size_t M, std::size_t N, std::size_t K,
                         std::size_t samples, std::uint64_t seed);

// `steps` explicit heat steps in double on an nx * ny grid, the scheme of duet::heat_step: boundary
// cells fixed, v = u + r (west + east + north + south - 4u) inside.
std::vector<double> heat_reference(const std::vector<float>& initial, std::size_t nx, std::size_t ny, float r,
                                   int steps);

}  // namespace duet::reference
