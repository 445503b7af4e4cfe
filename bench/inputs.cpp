// Parallel input generation for the benchmark.
#include "inputs.hpp"

#include "parallel.hpp"

namespace duet::bench {
namespace {

// SplitMix64's finaliser: a bijection on 64-bit integers whose output bits all depend on every
// input bit, good enough to turn (seed, index) into independent-looking uniform bits.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

void fill_random(std::vector<float>& out, float lo, float hi, std::uint64_t seed) {
  const std::uint64_t base = mix(seed);
  reference::parallel_for(out.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      // 24 random bits: an exact float in [0, 1), then an affine map onto [lo, hi).
      const float unit = static_cast<float>(mix(base ^ i) >> 40) * (1.0f / 16777216.0f);
      out[i] = lo + (hi - lo) * unit;
    }
  });
}

}  // namespace duet::bench
