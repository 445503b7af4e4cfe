// Elementwise kernels from one-line bodies: a leaky ReLU, and a piecewise scaling function with two
// outputs. duet writes each kernel around its body, compiles it on first use for the combination of
// array and scalar arguments given, and runs it over the arrays' length; plain values (the slope,
// the band edges) are broadcast to every element. Both are checked element by element against the
// same arithmetic on the CPU.
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <iostream>
#include <vector>

#include "example.hpp"

int main() {
  return example::run("elementwise", [](const duet::Device& device) {
    const std::size_t n = 1000003;
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(static_cast<double>(i) / n * 8.0 - 4.0);

    duet::Queue q = device.queue();
    duet::Buffer<float> dx(device, n), dy(device, n), dz(device, n);
    duet::Buffer<int> dband(device, n);
    q.write(dx, x);

    // y = x for x > 0, slope * x otherwise.
    const duet::ElementwiseKernel leaky(device, "float x, float slope", "float y",
                                        "y = x > 0 ? x : slope * x", "leaky_relu");
    const float slope = 0.1f;
    leaky(q, dx, slope, dy);

    // Scales x by 1 inside [-lo, lo], by 0.5 up to hi and by 0.25 beyond, and reports the band.
    const duet::ElementwiseKernel piecewise(
        device, "float x, float lo, float hi", "float z, int band",
        "const float m = fabs(x); band = m <= lo ? 0 : (m <= hi ? 1 : 2); "
        "z = (band == 0 ? 1.0f : (band == 1 ? 0.5f : 0.25f)) * x",
        "piecewise_scale");
    const float lo = 1.0f, hi = 2.5f;
    piecewise(q, dx, lo, hi, dz, dband);

    const std::vector<float> y = q.to_vector(dy), z = q.to_vector(dz);
    const std::vector<int> band = q.to_vector(dband);
    std::size_t wrong_leaky = 0, wrong_piecewise = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const float want_y = x[i] > 0 ? x[i] : slope * x[i];
      const float m = std::fabs(x[i]);
      const int want_band = m <= lo ? 0 : (m <= hi ? 1 : 2);
      const float want_z = (want_band == 0 ? 1.0f : (want_band == 1 ? 0.5f : 0.25f)) * x[i];
      wrong_leaky += y[i] == want_y ? 0 : 1;
      wrong_piecewise += z[i] == want_z && band[i] == want_band ? 0 : 1;
    }

    std::cout << "n = " << n << ", leaky ReLU slope " << slope << ", piecewise bands at " << lo << " and "
              << hi << "\n\n       x   leaky_relu   piecewise  band\n";
    for (std::size_t i = 0; i < n; i += n / 12) {
      std::cout << std::fixed << std::setprecision(3) << std::setw(8) << x[i] << std::setw(13) << y[i]
                << std::setw(12) << z[i] << std::setw(6) << band[i] << "\n";
    }
    std::cout << "\nleaky_relu: "
              << (wrong_leaky ? std::to_string(wrong_leaky) + " wrong" : std::string("OK"))
              << ", piecewise_scale: "
              << (wrong_piecewise ? std::to_string(wrong_piecewise) + " wrong" : std::string("OK")) << "\n";
    return wrong_leaky || wrong_piecewise ? 1 : 0;
  });
}
