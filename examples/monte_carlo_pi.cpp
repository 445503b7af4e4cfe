// A Monte Carlo estimate of pi with both kernel generators. An ElementwiseKernel draws points in
// the unit square with a counter-based random number generator (a hash of the sample index and the
// seed, so no generator state is stored and any work-item can draw any sample) and counts, per
// work-item, the points inside the quarter circle; a ReductionKernel adds the counts. The fraction
// inside is pi / 4. With 2^24 samples the standard error of the estimate is about 4e-4; the example
// fails when the error exceeds 0.01.
//
// Usage: monte_carlo_pi [seed]
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "example.hpp"

namespace {

constexpr double kPi = 3.14159265358979323846;

// mc_hash: an integer hash of (counter, seed): the seed is added with a Weyl step, then rounds of
// xor-shift and multiplication by odd constants (hex digits of pi, e, sqrt(2)) spread every input
// bit over the whole word. mc_uniform maps the top 24 bits to a float in [0, 1) exactly.
const char* const kRandom = R"(
DEVICE uint mc_hash(uint x, uint seed) {
  x += seed * 0x9e3779b9u;
  x ^= x >> 16;
  x *= 0x3243f6a9u;
  x ^= x >> 15;
  x *= 0xb7e15163u;
  x ^= x >> 16;
  x *= 0x6a09e667u;
  x ^= x >> 15;
  return x;
}
DEVICE float mc_uniform(uint h) { return (float)(h >> 8) * (1.0f / 16777216.0f); }
)";

}  // namespace

int main(int argc, char** argv) {
  const std::uint32_t seed = argc > 1 ? static_cast<std::uint32_t>(std::strtoul(argv[1], nullptr, 0)) : 2024u;
  return example::run("monte_carlo_pi", [&](const duet::Device& device) {
    const std::uint32_t per_item = 256;
    const std::size_t items = std::size_t{1} << 16;
    const std::uint64_t samples = static_cast<std::uint64_t>(items) * per_item;  // 2^24

    // Work-item i draws samples i * per_item ... i * per_item + per_item - 1; sample s uses the
    // hashes of 2s and 2s + 1 as its coordinates.
    const duet::ElementwiseKernel count_inside(device, "uint seed, uint per_item", "uint inside",
                                               "for (uint k = 0; k < per_item; ++k) {\n"
                                               "  const uint s = (uint)i * per_item + k;\n"
                                               "  const float px = mc_uniform(mc_hash(2u * s, seed));\n"
                                               "  const float py = mc_uniform(mc_hash(2u * s + 1u, seed));\n"
                                               "  inside += px * px + py * py < 1.0f ? 1u : 0u;\n"
                                               "}",
                                               "count_inside", kRandom);
    const duet::ReductionKernel total(device, "ulong", "uint c", "(ulong)c", "a + b", "0", "total");

    duet::Queue q = device.queue();
    duet::Buffer<std::uint32_t> inside(device, items);
    const duet::Event start = q.record();
    count_inside(q, seed, per_item, inside);
    const std::uint64_t hits = total.reduce<std::uint64_t>(q, inside);  // waits for the queue
    const duet::Event end = q.record();
    end.wait();

    const double pi = 4.0 * static_cast<double>(hits) / static_cast<double>(samples);
    const double error = pi - kPi;
    const double p = kPi / 4;
    const double standard_error = 4.0 * std::sqrt(p * (1 - p) / static_cast<double>(samples));
    std::cout << samples << " samples (seed " << seed << "), " << hits << " inside the quarter circle, "
              << std::fixed << std::setprecision(2) << duet::elapsed_ms(start, end) << " ms on the device\n"
              << std::setprecision(6) << "pi ~ " << pi << ", error " << std::scientific
              << std::setprecision(2) << error << " (standard error " << standard_error << ")\n";
    if (!(std::fabs(error) < 0.01)) {
      std::cout << "FAILED: the error is larger than 0.01\n";
      return 1;
    }
    std::cout << "OK\n";
    return 0;
  });
}
