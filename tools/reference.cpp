// The inputs and the fixed-seed matmul check of `duet run` and `duet tune`.
#include "reference.hpp"

#include <random>

#include "cpu_reference.hpp"

namespace duet::tool {

double max_relative_error_matmul(const std::vector<float>& A, const std::vector<float>& B,
                                 const std::vector<float>& C, std::size_t M, std::size_t N, std::size_t K,
                                 std::size_t samples) {
  // 12345: the sampling seed `duet run` has always used, so its sampled entries stay the same.
  return reference::matmul_error(A, B, C, M, N, K, samples, 12345).max_relative;
}

std::vector<float> random_floats(std::size_t n, float lo, float hi, unsigned seed) {
  std::vector<float> values(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (auto& value : values) value = dist(rng);
  return values;
}

}  // namespace duet::tool
