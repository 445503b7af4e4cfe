// The grid size, initial field and report of `duet heat`, shared by its one-device and MPI runs.
#include "heat_field.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "png_writer.hpp"
#include "table.hpp"

namespace duet::tool {

GridSize parse_grid_size(const std::string& text) {
  auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 9 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw std::invalid_argument("--size '" + text + "' is not N or NXxNY (for example 512 or 1024x768)");
    return static_cast<std::size_t>(std::stoul(part));
  };
  const std::size_t x = text.find('x');
  GridSize size;
  size.nx = number(text.substr(0, x));
  size.ny = x == std::string::npos ? size.nx : number(text.substr(x + 1));
  if (size.nx < 3 || size.ny < 3) throw std::invalid_argument("--size must be at least 3 cells along each side");
  return size;
}

std::vector<float> initial_field(std::size_t nx, std::size_t ny, const std::string& kind) {
  std::vector<float> field(nx * ny, 0.0f);
  if (kind == "edge") {
    // The top row is boundary, which the scheme keeps fixed: a side held hot for the whole run.
    std::fill(field.begin(), field.begin() + static_cast<std::ptrdiff_t>(nx), 1.0f);
  } else if (kind == "disc") {
    const double cx = 0.5 * double(nx - 1), cy = 0.5 * double(ny - 1);
    const double radius = double(std::min(nx, ny)) / 6.0;
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < nx; ++x)
        if (std::hypot(double(x) - cx, double(y) - cy) <= radius) field[y * nx + x] = 1.0f;
  } else {
    throw std::invalid_argument("unknown initial field '" + kind + "' (use disc or edge)");
  }
  return field;
}

void report_field(const std::vector<float>& field, std::size_t nx, std::size_t ny, std::vector<double> times,
                  long long steps, const HeatOptions& options) {
  const std::size_t cells = nx * ny;
  std::sort(times.begin(), times.end());
  const double ms = times[times.size() / 2];
  double lo = field[0], hi = field[0], sum = 0.0;
  for (float value : field) {
    lo = std::min(lo, double(value));
    hi = std::max(hi, double(value));
    sum += value;
  }
  std::cout << "time " << fixed(ms, 3) << " ms";
  if (steps > 0) {
    const double bytes = 2.0 * double(cells) * sizeof(float) * double(steps);
    std::cout << " (" << fixed(ms / double(steps), 4) << " ms/step, " << fixed(bytes / (ms * 1e6), 1)
              << " GB/s)";
  }
  if (times.size() > 1)
    std::cout << ", median of " << times.size() << " runs (min " << fixed(times.front(), 3) << ", max "
              << fixed(times.back(), 3) << " ms)";
  std::cout << '\n'
            << "field min " << fixed(lo, 6) << ", max " << fixed(hi, 6) << ", mean "
            << fixed(sum / double(cells), 6) << '\n';

  if (!options.field.empty()) {
    // Written under a temporary name and renamed, so a file of that name is always a whole field.
    const std::string part = options.field + ".part";
    std::FILE* file = std::fopen(part.c_str(), "wb");
    bool written = file && std::fwrite(field.data(), sizeof(float), cells, file) == cells;
    if (file && std::fclose(file) != 0) written = false;
    if (!written || std::rename(part.c_str(), options.field.c_str()) != 0) {
      std::remove(part.c_str());
      throw std::runtime_error("cannot write the field to " + options.field);
    }
    std::cout << "wrote " << options.field << " (" << nx << "x" << ny << " float32)\n";
  }
  if (!options.png.empty()) {
    std::vector<Rgb> pixels(cells);
    std::transform(field.begin(), field.end(), pixels.begin(), [](float value) { return heat_colour(value); });
    write_png(options.png, nx, ny, pixels);
    std::cout << "wrote " << options.png << " (" << nx << "x" << ny << ", colour scale 0 blue .. 1 red)\n";
  }
}

}  // namespace duet::tool
