// The fixed-seed inputs of the built-in kernels' cases (`duet run`, its Python twin) and of `duet tune`.
#include "case_inputs.hpp"

#include <random>

namespace duet::builtins {

std::vector<float> random_floats(std::size_t n, float lo, float hi, unsigned seed) {
  std::vector<float> values(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (auto& value : values) value = dist(rng);
  return values;
}

}  // namespace duet::builtins
