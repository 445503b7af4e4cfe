// Writing images for the duet tool: 8-bit RGB PNG files through libpng, and the colour map that
// turns a scalar field into such an image.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace duet::tool {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
};

// Cold blue through cyan, green and yellow to hot red; t is clamped to [0, 1].
Rgb heat_colour(double t);

// Writes `pixels` (row-major, width * height, top row first) as an 8-bit RGB PNG.
// Throws std::runtime_error naming the path when the file cannot be written.
void write_png(const std::string& path, std::size_t width, std::size_t height,
               const std::vector<Rgb>& pixels);

}  // namespace duet::tool
