// Inputs and CPU references for the benchmark. Inputs come from a counter-based hash, so filling a
// GiB of them takes a fraction of a second on many cores and every run sees the same values for the
// same seed. Every reference is computed in double precision from the float inputs the device saw,
// spread over the host's cores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace duet::bench {

// Calls body(begin, end) on disjoint chunks covering [0, n), on up to hardware_concurrency threads.
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

// Fills `out` with floats uniformly spread over [lo, hi), a fixed function of (seed, index).
void fill_random(std::vector<float>& out, float lo, float hi, std::uint64_t seed);

// max |got[i] - want(i)| over i < got.size(), in parallel. A NaN anywhere makes the result NaN, so
// an output the kernel never wrote (poisoned with NaN beforehand) cannot pass.
double max_abs_error(std::size_t n, const std::function<double(std::size_t)>& error_at);

// max |got[i] - (a[i] + b[i])| (add) or |got[i] - a[i] * b[i]| (multiply), taken in double.
double max_error_elementwise(const std::vector<float>& a, const std::vector<float>& b,
                             const std::vector<float>& got, bool add);

// Errors of C = A * B (row-major; A is M x K, B is K x N) on the checked entries: every entry when
// `samples` is 0, else the four corners and `samples` entries drawn from `seed`.
struct MatmulError {
  double max_relative = 0.0;  // max over entries of |C_ij - ref_ij| / sum_k |A_ik B_kj|
  double norm_relative = 0.0;  // ||C - ref|| / ||ref|| over the checked entries (2-norm)
  std::size_t checked = 0;
};
MatmulError matmul_error(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
                         std::size_t M, std::size_t N, std::size_t K, std::size_t samples, std::uint64_t seed);

// `steps` explicit heat steps in double on an nx * ny grid, the scheme of duet::heat_step: boundary
// cells fixed, v = u + r (west + east + north + south - 4u) inside.
std::vector<double> heat_reference(const std::vector<float>& initial, std::size_t nx, std::size_t ny, float r,
                                   int steps);

// max |got[i] - want[i]|.
double max_abs_error(const std::vector<float>& got, const std::vector<double>& want);

}  // namespace duet::bench
