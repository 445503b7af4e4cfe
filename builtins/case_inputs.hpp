// The inputs the built-in kernels' cases (`duet run`, `python -m duet run`) and `duet tune` check
// with: floats from std::mt19937 at fixed seeds, and the one seed that picks the sampled entries of
// a matmul check (reference::matmul_error), so every run checks the same data and the same entries.
#pragma once

#include <cstddef>
#include <vector>

namespace duet::builtins {

// The sampling seed `duet run` has always used, so its sampled matmul entries stay the same.
constexpr unsigned kMatmulSampleSeed = 12345;

// Uniformly distributed floats in [lo, hi) from a fixed seed, so every run checks the same data.
std::vector<float> random_floats(std::size_t n, float lo, float hi, unsigned seed);

}  // namespace duet::builtins
