// The 2D heat equation with duet::heat: a hot disc in the middle of a cold plate whose edge is held
// at 0. Heat spreads out and the peak falls, while the total heat stays the same as long as almost
// none of it has reached the edge. The example runs the steps on the device, draws the field before
// and after as ASCII, and checks the result against the same scheme on the CPU (in double), the
// maximum principle (every value stays in [0, 1]) and the conservation of the mean.
//
// Usage: heat [steps]   (default 400)
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>
#include <duet/stencil.hpp>
#include <vector>

#include "example.hpp"

namespace {

// One explicit step on the CPU, the scheme duet::heat_step documents.
void cpu_step(const std::vector<double>& u, std::vector<double>& v, std::size_t nx, std::size_t ny,
              double r) {
  for (std::size_t y = 0; y < ny; ++y)
    for (std::size_t x = 0; x < nx; ++x) {
      const std::size_t i = y * nx + x;
      if (x == 0 || y == 0 || x + 1 == nx || y + 1 == ny) {
        v[i] = u[i];
      } else {
        v[i] = u[i] + r * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4 * u[i]);
      }
    }
}

// The field as rows of characters, darker for hotter; `scale` maps values to the ramp.
void draw(const std::vector<float>& u, std::size_t nx, std::size_t ny, float scale) {
  const std::string ramp = " .:-=+*#%@";
  const std::size_t cols = 64, rows = 24;
  for (std::size_t r = 0; r < rows; ++r) {
    std::string line = "  |";
    for (std::size_t c = 0; c < cols; ++c) {
      const float value = u[(r * ny / rows + ny / rows / 2) * nx + c * nx / cols + nx / cols / 2];
      const int level =
          static_cast<int>(std::lround(std::clamp(value / scale, 0.0f, 1.0f) * (ramp.size() - 1)));
      line += ramp[static_cast<std::size_t>(level)];
    }
    std::cout << line << "|\n";
  }
}

double mean(const std::vector<float>& u) {
  double sum = 0;
  for (float v : u) sum += v;
  return sum / static_cast<double>(u.size());
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 400;
  if (steps < 0 || steps > 100000) {
    std::cerr << "usage: heat [steps]  (0 to 100000)\n";
    return 2;
  }
  return example::run("heat", [&](const duet::Device& device) {
    const std::size_t nx = 192, ny = 160;
    const float r = 0.24f;
    std::vector<float> u0(nx * ny, 0.0f);
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < nx; ++x) {
        const double dx = double(x) - nx / 2.0, dy = double(y) - ny / 2.0;
        if (dx * dx + dy * dy < 20.0 * 20.0) u0[y * nx + x] = 1.0f;
      }

    duet::Queue q = device.queue();
    duet::Buffer<float> u(device, nx * ny), v(device, nx * ny);
    q.write(u, u0);
    const duet::Event start = q.record();
    duet::heat(q, u, v, nx, ny, r, steps);  // u holds the result afterwards
    const duet::Event end = q.record();
    const std::vector<float> result = q.to_vector(u);

    std::vector<double> want(u0.begin(), u0.end()), scratch(nx * ny);
    for (int s = 0; s < steps; ++s) {
      cpu_step(want, scratch, nx, ny, r);
      want.swap(scratch);
    }
    double max_error = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
      max_error = std::max(max_error, std::fabs(result[i] - want[i]));
    const auto [lo, hi] = std::minmax_element(result.begin(), result.end());
    const double mean_before = mean(u0), mean_after = mean(result);
    const double drift = std::fabs(mean_after - mean_before) / mean_before;

    std::cout << nx << " x " << ny << " grid, r = " << r << ", " << steps << " steps in " << std::fixed
              << std::setprecision(2) << duet::elapsed_ms(start, end) << " ms on the device\n\nbefore:\n";
    draw(u0, nx, ny, 1.0f);
    std::cout << "after " << steps << " steps (shaded relative to the peak, " << std::setprecision(4) << *hi
              << "):\n";
    draw(result, nx, ny, *hi > 0 ? *hi : 1.0f);
    std::cout << std::setprecision(6) << "mean before " << mean_before << ", after " << mean_after
              << std::scientific << std::setprecision(2) << " (relative change " << drift << ")\n"
              << "min " << *lo << ", max " << *hi << ", largest difference from the CPU " << max_error
              << "\n";

    // Float rounding of a few units in the last place per step; far below what a wrong stencil does.
    const double tolerance = 32.0 * (steps + 1) / (1 << 24);
    bool ok = true;
    if (!(max_error <= tolerance))
      ok = false, std::cout << "FAILED: differs from the CPU by more than " << tolerance << "\n";
    if (!(*lo >= 0.0f && *hi <= 1.0f)) ok = false, std::cout << "FAILED: values left [0, 1]\n";
    // The disc (radius 20) is 60 cells from the nearest edge; after a few hundred steps the heat
    // that reached the edge is negligible, so the mean must not drift.
    if (steps <= 1000 && !(drift < 1e-4)) ok = false, std::cout << "FAILED: the mean drifted\n";
    std::cout << (ok ? "OK" : "FAILED") << "\n";
    return ok ? 0 : 1;
  });
}
