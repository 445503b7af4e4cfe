// Tiled-copy descriptors (duet/extension.hpp): encoded where the device has such copies (CUDA
// sm_90 and later: tensor maps of 128 bytes), empty elsewhere, and the shape checked first
// everywhere, so a bad one is an ArgumentError on PoCL as on a GPU.
#include <doctest/doctest.h>

#include <cstdint>
#include <duet/duet.hpp>
#include <duet/extension.hpp>
#include <string>

#include "devices.hpp"
#include "support.hpp"

TEST_SUITE_BEGIN("device");

TEST_CASE(
    "tiled-copy descriptors: a tensor map on sm_90 CUDA devices, nothing elsewhere, bad shapes refused") {
  for_each_device([&](const duet::Device& dev) {
    duet::Buffer<std::uint16_t> m(dev, 256 * 200);
    duet::extension::TiledCopy shape;
    shape.element_bytes = 2, shape.rows = 256, shape.cols = 192, shape.row_bytes = 200 * 2;
    shape.box_cols = 64, shape.box_rows = 128, shape.swizzle_bytes = 128;
    const std::string map = duet::extension::tiled_copy_descriptor("test", m.raw(), shape);
    const duet::DeviceInfo& info = dev.info();
    const bool tma = info.backend == "cuda" && info.arch >= "sm_90" && info.arch.size() == 5;
    if (tma)
      CHECK(map.size() == 128);
    else if (info.backend != "cuda")
      CHECK(map.empty());
    for (auto change :
         {+[](duet::extension::TiledCopy& s) { s.row_bytes = 200 * 2 + 8; },
          +[](duet::extension::TiledCopy& s) { s.box_rows = 257; },
          +[](duet::extension::TiledCopy& s) { s.box_cols = 128; },  // 256 bytes, past the swizzle
          +[](duet::extension::TiledCopy& s) { s.element_bytes = 3; },
          +[](duet::extension::TiledCopy& s) { s.swizzle_bytes = 96; },
          +[](duet::extension::TiledCopy& s) { s.rows = 0; }}) {
      duet::extension::TiledCopy bad = shape;
      change(bad);
      const auto e =
          EXPECT_ERROR(duet::ArgumentError, duet::extension::tiled_copy_descriptor("test", m.raw(), bad));
      if (e) CHECK_CONTAINS(std::string(e->what()), "test: a tiled copy");
    }
    const auto odd = EXPECT_ERROR(
        duet::ArgumentError, duet::extension::tiled_copy_descriptor("test", m.raw().view(8, 1024), shape));
    if (odd) CHECK_CONTAINS(std::string(odd->what()), "16-byte aligned");
  });
}

TEST_SUITE_END();
