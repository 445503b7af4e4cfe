// Inputs for the benchmark. They come from a counter-based hash, so filling a GiB of them takes a
// fraction of a second on many cores and every run sees the same values for the same seed. The CPU
// references that check the results are duet_reference's (reference/cpu_reference.hpp).
#pragma once

#include <cstdint>
#include <vector>

namespace duet::bench {

// Fills `out` with floats uniformly spread over [lo, hi), a fixed function of (seed, index).
void fill_random(std::vector<float>& out, float lo, float hi, std::uint64_t seed);

}  // namespace duet::bench
