// `duet heat`: the 2D heat equation on a square grid, from a hot disc in the middle or a hot edge,
// for a given number of steps. Prints the device time and statistics of the final field and
// writes the field as a PNG (0 blue .. 1 red), which shows whether the device computed something
// that looks like diffusion.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "duet/duet.hpp"
#include "png_writer.hpp"
#include "table.hpp"

namespace duet::tool {
namespace {

std::vector<float> initial_field(std::size_t side, const std::string& kind) {
  std::vector<float> field(side * side, 0.0f);
  if (kind == "edge") {
    // The top row is boundary, which heat_step keeps fixed: a side held hot for the whole run.
    std::fill(field.begin(), field.begin() + static_cast<std::ptrdiff_t>(side), 1.0f);
  } else if (kind == "disc") {
    const double centre = 0.5 * double(side - 1);
    const double radius = double(side) / 6.0;
    for (std::size_t y = 0; y < side; ++y)
      for (std::size_t x = 0; x < side; ++x)
        if (std::hypot(double(x) - centre, double(y) - centre) <= radius) field[y * side + x] = 1.0f;
  } else {
    throw std::invalid_argument("unknown initial field '" + kind + "' (use disc or edge)");
  }
  return field;
}

}  // namespace

int heat_command(const HeatOptions& options) {
  if (options.size < 3) throw std::invalid_argument("--size must be at least 3");
  if (options.steps < 0) throw std::invalid_argument("--steps must not be negative");
  if (!(options.r > 0.0f && options.r <= 0.25f)) {
    throw std::invalid_argument("--r must be in (0, 0.25] for the explicit scheme to be stable");
  }
  const std::size_t side = static_cast<std::size_t>(options.size);
  const std::size_t cells = side * side;

  const Device device = options.device.empty() ? Device::open() : Device::open(options.device);
  Queue q = device.queue();
  std::cout << "duet heat on " << device.info().id() << ": " << device.info().name << '\n'
            << "grid " << side << "x" << side << ", " << options.steps << " steps, r = " << options.r
            << ", initial field: " << options.initial << '\n';

  const auto initial = initial_field(side, options.initial);
  Buffer<float> u(device, cells), v(device, cells);
  q.write(u, initial);
  // One step into v compiles the kernel outside the timed region; u is left as it was.
  heat_step(q, u, v, side, side, options.r);
  q.finish();

  const Event start = q.record();
  heat(q, u, v, side, side, options.r, options.steps);
  const Event end = q.record();
  const std::vector<float> field = q.to_vector(u);  // blocks: everything up to `end` is done
  const double ms = elapsed_ms(start, end);

  double lo = field[0], hi = field[0], sum = 0.0;
  for (float value : field) {
    lo = std::min(lo, double(value));
    hi = std::max(hi, double(value));
    sum += value;
  }
  std::cout << "time " << fixed(ms, 3) << " ms";
  if (options.steps > 0) {
    const double bytes = 2.0 * double(cells) * sizeof(float) * options.steps;
    std::cout << " (" << fixed(ms / options.steps, 4) << " ms/step, " << fixed(bytes / (ms * 1e6), 1)
              << " GB/s)";
  }
  std::cout << '\n'
            << "field min " << fixed(lo, 6) << ", max " << fixed(hi, 6) << ", mean "
            << fixed(sum / double(cells), 6) << '\n';

  if (!options.png.empty()) {
    std::vector<Rgb> pixels(cells);
    std::transform(field.begin(), field.end(), pixels.begin(),
                   [](float value) { return heat_colour(value); });
    write_png(options.png, side, side, pixels);
    std::cout << "wrote " << options.png << " (" << side << "x" << side
              << ", colour scale 0 blue .. 1 red)\n";
  }
  return 0;
}

}  // namespace duet::tool
