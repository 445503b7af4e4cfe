// A parameterised dialect kernel: y = a * x, where every work-item scales UNROLL elements. The
// element type T and UNROLL are compile-time defines chosen when the program runs, here UNROLL from
// the command line: `scale_unroll 1 4 8` compiles three variants of one source. duet compiles each
// (source, defines) pair once per device; asking for the same variant again returns the cached
// program at once, as the second compile time shows.
//
// Usage: scale_unroll [UNROLL ...]   (each 1 to 64; default 4)
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "example.hpp"

namespace {

// Work-item t of group g scales elements g * LOCAL_SIZE * UNROLL + t + u * LOCAL_SIZE for
// u < UNROLL: in every step neighbouring work-items touch neighbouring elements, so each step is one
// coalesced access per group. UNROLL is a constant, so the compiler unrolls the loop.
const char* const kScale = R"(
KERNEL void scale(GLOBAL const T* RESTRICT x, GLOBAL T* RESTRICT y, const T a, const ulong n) {
  const size_t base = (size_t)GROUP_ID(0) * LOCAL_SIZE(0) * UNROLL + LOCAL_ID(0);
  for (int u = 0; u < UNROLL; ++u) {
    const size_t i = base + (size_t)u * LOCAL_SIZE(0);
    if (i < n) y[i] = a * x[i];
  }
}
)";

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> unrolls;
  for (int k = 1; k < argc; ++k) {
    char* end = nullptr;
    const long u = std::strtol(argv[k], &end, 10);
    if (!*argv[k] || *end || u < 1 || u > 64) {
      std::cerr << "usage: scale_unroll [UNROLL ...]  (each an integer from 1 to 64, not '" << argv[k]
                << "')\n";
      return 2;
    }
    unrolls.push_back(static_cast<int>(u));
  }
  if (unrolls.empty()) unrolls.push_back(4);

  return example::run("scale_unroll", [&](const duet::Device& device) {
    const duet::DeviceInfo& info = device.info();
    const std::size_t n = (std::size_t{1} << 22) + 3;  // not a multiple of any group size
    const float a = 2.5f;
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1009) * 0.125f - 60.0f;

    duet::Queue q = device.queue();
    duet::Buffer<float> dx(device, n), dy(device, n);
    q.write(dx, x);
    std::size_t group = 256;
    while (group > info.max_group_size) group /= 2;

    std::cout << "y = " << a << " * x over n = " << n << " floats, groups of " << group << "\n\n";
    std::cout << "UNROLL  compile ms  cached ms  groups    time ms     GB/s  wrong\n";
    int failures = 0;
    for (int unroll : unrolls) {
      const duet::Defines defines{{"T", "float"}, {"UNROLL", std::to_string(unroll)}};
      auto start = std::chrono::steady_clock::now();
      duet::Kernel kernel = device.compile(kScale, defines, "scale.duet").kernel("scale");
      const double compile_ms = ms_since(start);
      start = std::chrono::steady_clock::now();
      kernel = device.compile(kScale, defines, "scale.duet").kernel("scale");  // the cached variant
      const double cached_ms = ms_since(start);

      const std::size_t per_group = group * static_cast<std::size_t>(unroll);
      const std::size_t groups = (n + per_group - 1) / per_group;
      q.fill(dy, std::nanf(""));  // an element the kernel misses stays NaN and is counted wrong
      q.launch(kernel, duet::Range(groups * group), duet::Range(group), dx, dy, a, std::uint64_t{n});
      const std::vector<float> y = q.to_vector(dy);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < n; ++i) wrong += y[i] == a * x[i] ? 0 : 1;  // one rounding on both sides

      const duet::Event before = q.record();
      q.launch(kernel, duet::Range(groups * group), duet::Range(group), dx, dy, a, std::uint64_t{n});
      const duet::Event after = q.record();
      const double ms = duet::elapsed_ms(before, after);
      std::cout << std::setw(6) << unroll << std::fixed << std::setprecision(1) << std::setw(12) << compile_ms
                << std::setprecision(3) << std::setw(11) << cached_ms << std::setw(8) << groups
                << std::setw(11) << ms << std::setprecision(1) << std::setw(9)
                << 2.0 * n * sizeof(float) / (ms * 1e6) << std::setw(7) << wrong << "\n";
      failures += wrong ? 1 : 0;
    }
    std::cout << "\n"
              << (failures ? "FAILED: some variants computed wrong results" : "all variants OK") << "\n";
    return failures ? 1 : 0;
  });
}
