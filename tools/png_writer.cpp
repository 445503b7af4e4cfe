// PNG output through libpng. libpng reports errors with longjmp, which must not cross C++ frames
// with destructors, so the libpng calls live in one function that holds only plain C state and
// returns an error message; the C++ wrapper turns that into an exception.
#include "png_writer.hpp"

#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <stdexcept>

namespace duet::tool {
namespace {

struct PngFailure {
  char message[256];
};

void on_png_error(png_structp png, png_const_charp message) {
  auto* failure = static_cast<PngFailure*>(png_get_error_ptr(png));
  std::snprintf(failure->message, sizeof failure->message, "%s", message);
  png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

// Returns true on success; on failure `failure->message` says why. No C++ objects live here.
bool write_png_rows(std::FILE* file, png_uint_32 width, png_uint_32 height, const std::uint8_t* rgb,
                    PngFailure* failure) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, failure, on_png_error, on_png_warning);
  if (!png) {
    std::snprintf(failure->message, sizeof failure->message, "png_create_write_struct failed");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(failure->message, sizeof failure->message, "png_create_info_struct failed");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (png_uint_32 y = 0; y < height; ++y) {
    png_write_row(png, rgb + std::size_t{y} * width * 3);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

Rgb heat_colour(double t) {
  struct Stop {
    double at, r, g, b;
  };
  static const Stop stops[] = {
      {0.00, 0.05, 0.10, 0.60},  // deep blue
      {0.25, 0.10, 0.60, 0.95},  // light blue
      {0.50, 0.30, 0.85, 0.40},  // green
      {0.75, 1.00, 0.85, 0.15},  // yellow
      {1.00, 0.80, 0.05, 0.05},  // red
  };
  if (!(t > 0.0)) t = 0.0;  // NaN maps to cold
  t = std::min(t, 1.0);
  std::size_t i = 1;
  while (i + 1 < std::size(stops) && t > stops[i].at) ++i;
  const Stop& a = stops[i - 1];
  const Stop& b = stops[i];
  const double f = (t - a.at) / (b.at - a.at);
  auto channel = [f](double lo, double hi) {
    return static_cast<std::uint8_t>(std::lround(255.0 * (lo + f * (hi - lo))));
  };
  return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b)};
}

void write_png(const std::string& path, std::size_t width, std::size_t height,
               const std::vector<Rgb>& pixels) {
  if (width == 0 || height == 0 || pixels.size() != width * height) {
    throw std::invalid_argument("write_png: " + std::to_string(pixels.size()) + " pixels for a " +
                                std::to_string(width) + "x" + std::to_string(height) + " image");
  }
  static_assert(sizeof(Rgb) == 3, "Rgb must be three packed bytes");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  PngFailure failure{};
  const bool written = write_png_rows(file, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height),
                                      reinterpret_cast<const std::uint8_t*>(pixels.data()), &failure);
  const bool closed = std::fclose(file) == 0;
  if (!written) throw std::runtime_error("cannot write " + path + ": libpng: " + failure.message);
  if (!closed) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace duet::tool
