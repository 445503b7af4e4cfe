// The compaction behind nonzero and unique against host loops, for each elements-per-work-item
// DUET_COMPACT_ITEMS allows at its edges and the default: lengths around its tile (256 work-items
// x items elements), none and all kept, every dtype's zeros (-0, -0-0j, subnormals, NaN), strided
// views, and unique's runs across tiles with its inverse. The sources compile for sm_90 by NVRTC.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::ScalarType;

// The elements-per-work-item settings tried: unset (the default, 16), and both ends of the range.
const std::vector<std::optional<std::string>>& item_settings() {
  static const std::vector<std::optional<std::string>> settings{std::nullopt, std::string("4"),
                                                                std::string("32")};
  return settings;
}

std::size_t items_of(const std::optional<std::string>& setting) {
  return setting ? std::stoul(*setting) : 16;
}

// The lengths around a tile of `items` per work-item, and a prime above 100000.
std::vector<std::size_t> lengths_around(std::size_t items) {
  const std::size_t tile = 256 * items;
  return {1, tile - 1, tile, tile + 1, 3 * tile + 7, 100003};
}

// Runs `check(items)` with DUET_COMPACT_ITEMS set as each of item_settings() says.
template <class Check>
void for_each_items(Check check) {
  for (const auto& setting : item_settings()) {
    const std::string shown = setting.value_or("unset");
    CAPTURE(shown);
    EnvGuard items("DUET_COMPACT_ITEMS", setting ? setting->c_str() : nullptr);
    check(items_of(setting));
  }
}

// An array of `dtype` over a copy of the host bytes `bits`, viewed through `layout`.
Array from_bits(duet::Queue& q, const std::vector<std::uint8_t>& bits, ScalarType dtype,
                const duet::Layout& layout) {
  const Array raw = duet::from_host<std::uint8_t>(q, bits, {bits.size()});
  return Array(raw.buffer().share(), dtype, layout);
}

// One element of `dtype` of each kind nonzero tells apart: 0 zero, 1 negative zero (-0 for floats,
// a mix of -0 parts for complex numbers), 2 NaN (NaN in one part for complex numbers), 3 any other
// nonzero value (a subnormal sometimes, a nonzero imaginary part alone for complex numbers).
// Integers have only kinds 0 and 3. Writes its bytes at `to`; returns whether nonzero keeps it.
bool put_kind(std::uint8_t* to, ScalarType dtype, int kind, std::mt19937_64& rng) {
  const std::size_t size = duet::size_of(dtype);
  std::memset(to, 0, size);
  if (duet::is_complex(dtype)) {
    const std::size_t part = size / 2;
    const std::uint64_t sign = std::uint64_t(1) << (part * 8 - 1);
    auto set = [&](std::size_t at, std::uint64_t bits) { std::memcpy(to + at * part, &bits, part); };
    const std::uint64_t nan = part == 4 ? 0x7fc00000u : 0x7ff8000000000000u;
    const std::uint64_t one = part == 4 ? 0x3f800000u : 0x3ff0000000000000u;
    switch (kind) {
      case 0:
        return false;
      case 1:
        set(0, rng() % 2 ? sign : 0), set(1, rng() % 2 ? sign : 0);
        return false;
      case 2:
        set(rng() % 2, nan);
        return true;
      default:
        set(rng() % 2, (rng() % 2 ? sign : 0) | (rng() % 3 == 0 ? 1 : one));
        return true;
    }
  }
  if (duet::is_float(dtype)) {
    const unsigned mantissa = dtype == ScalarType::f16    ? 10
                              : dtype == ScalarType::bf16 ? 7
                              : dtype == ScalarType::f32  ? 23
                                                          : 52;
    const unsigned width = unsigned(size * 8);
    const std::uint64_t sign = std::uint64_t(1) << (width - 1);
    const std::uint64_t exponent = ((std::uint64_t(1) << (width - 1 - mantissa)) - 1) << mantissa;
    std::uint64_t bits = 0;
    switch (kind) {
      case 0:
        break;
      case 1:
        bits = sign;
        break;
      case 2:
        bits = exponent | (std::uint64_t(1) << (mantissa - 1)) | (rng() % 2 ? sign : 0);
        break;
      default:  // a subnormal, or an exponent below the top with a random mantissa
        bits = rng() % 4 == 0 ? std::uint64_t(1)
                              : ((rng() % ((exponent >> mantissa) - 1) + 1) << mantissa) |
                                    (rng() & ((std::uint64_t(1) << mantissa) - 1));
        bits |= rng() % 2 ? sign : 0;
    }
    std::memcpy(to, &bits, size);
    return kind >= 2;
  }
  if (kind < 2) return false;
  std::uint64_t bits = dtype == ScalarType::b8 ? 1 : rng();
  if (dtype != ScalarType::b8 && size < 8) bits &= (std::uint64_t(1) << (size * 8)) - 1;
  if (bits == 0) bits = 1;
  std::memcpy(to, &bits, size);
  return true;
}

// `n` elements of `dtype` in bytes, each of a random kind (`kept_share` of them kept), and
// whether nonzero keeps each.
std::pair<std::vector<std::uint8_t>, std::vector<bool>> random_elements(ScalarType dtype, std::size_t n,
                                                                        double kept_share,
                                                                        std::mt19937_64& rng) {
  const std::size_t size = duet::size_of(dtype);
  std::vector<std::uint8_t> bytes(n * size);
  std::vector<bool> kept(n);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    const bool keep = u(rng) < kept_share;
    const int kind = keep ? (rng() % 4 == 0 ? 2 : 3) : int(rng() % 2);
    kept[i] = put_kind(bytes.data() + i * size, dtype, kind, rng);
  }
  return {bytes, kept};
}

std::vector<std::int64_t> positions(const std::vector<bool>& kept) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (kept[i]) out.push_back(std::int64_t(i));
  return out;
}

std::vector<ScalarType> every_dtype() {
  std::vector<ScalarType> out(duet::scalar_types.begin(), duet::scalar_types.end());
  out.insert(out.end(), duet::complex_types.begin(), duet::complex_types.end());
  return out;
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("array nonzero: lengths around the compaction's tile, none, all and half kept") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array nonzero tiles");
    for_each_items([&](std::size_t items) {
      for (std::size_t n : lengths_around(items)) {
        for (double share : {0.0, 0.5, 1.0}) {
          CAPTURE(n);
          CAPTURE(share);
          const auto [bytes, kept] = random_elements(ScalarType::f32, n, share, rng);
          const Array a = from_bits(q, bytes, ScalarType::f32, duet::contiguous_layout({n}));
          check_equal(duet::flatnonzero(q, a).to_vector<std::int64_t>(q), positions(kept), "flatnonzero");
        }
      }
    });
  });
}

TEST_CASE("array nonzero: every dtype's zeros, NaN and subnormals, contiguous and strided") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array nonzero dtypes");
    const std::size_t n = 3 * 256 * 16 + 7;
    for (ScalarType t : every_dtype()) {
      CAPTURE(duet::to_string(t));
      if (t == ScalarType::c128 && !dev.info().supports_double) continue;
      const auto [bytes, kept] = random_elements(t, n, 0.5, rng);
      const Array a = from_bits(q, bytes, t, duet::contiguous_layout({n}));
      check_equal(duet::flatnonzero(q, a).to_vector<std::int64_t>(q), positions(kept), "contiguous");
      // Every third element from the second: a strided view, copied before its compaction.
      const std::size_t m = (n - 1 + 2) / 3;
      const Array v = from_bits(q, bytes, t, duet::Layout{{m}, {3}, 1});
      std::vector<bool> seen(m);
      for (std::size_t k = 0; k < m; ++k) seen[k] = kept[1 + 3 * k];
      check_equal(duet::flatnonzero(q, v).to_vector<std::int64_t>(q), positions(seen), "strided");
      // A reversed 2-D view: per-axis indices in C order of the view.
      const std::size_t R = 61, C = 67;
      const Array r =
          from_bits(q, bytes, t, duet::Layout{{R, C}, {-std::int64_t(C), -1}, std::int64_t(R * C - 1)});
      std::vector<std::int64_t> rows, cols;
      for (std::size_t i = 0; i < R * C; ++i)
        if (kept[R * C - 1 - i]) rows.push_back(std::int64_t(i / C)), cols.push_back(std::int64_t(i % C));
      const std::vector<Array> nz = duet::nonzero(q, r);
      REQUIRE(nz.size() == 2);
      check_equal(nz[0].to_vector<std::int64_t>(q), rows, "reversed rows");
      check_equal(nz[1].to_vector<std::int64_t>(q), cols, "reversed columns");
    }
  });
}

TEST_CASE("array unique: runs within and across tiles, NaN and -0, the inverse") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array unique tiles");
    for_each_items([&](std::size_t items) {
      for (std::size_t n : lengths_around(items)) {
        // Few distinct values (runs longer than a tile), many, and one value only.
        for (int range : {3, 1 << 20, 0}) {
          CAPTURE(n);
          CAPTURE(range);
          const std::vector<int> iv = random_ints(rng, n, -range, range);
          std::vector<std::int32_t> v32(iv.begin(), iv.end());
          std::vector<std::int32_t> want = v32;
          std::sort(want.begin(), want.end());
          want.erase(std::unique(want.begin(), want.end()), want.end());
          const Array a = duet::from_host<std::int32_t>(q, v32, {n});
          check_equal(duet::unique_values(q, a).to_vector<std::int32_t>(q), want, "unique_values int32");
          const duet::Unique u = duet::unique_all(q, a);
          const std::vector<std::int32_t> values = u.values.to_vector<std::int32_t>(q);
          check_equal(values, want, "unique_all values");
          const std::vector<std::int64_t> inverse = u.inverse.to_vector<std::int64_t>(q),
                                          counts = u.counts.to_vector<std::int64_t>(q),
                                          first = u.indices.to_vector<std::int64_t>(q);
          std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> seen;  // first index, count
          for (std::size_t i = 0; i < n; ++i) {
            auto [it, fresh] = seen.try_emplace(v32[i], std::int64_t(i), 0);
            ++it->second.second;
          }
          std::size_t wrong = 0;
          for (std::size_t i = 0; i < n; ++i)
            wrong += inverse[i] < 0 || std::size_t(inverse[i]) >= values.size() ||
                     values[std::size_t(inverse[i])] != v32[i];
          for (std::size_t k = 0; k < values.size() && k < counts.size(); ++k)
            wrong += seen[values[k]].first != first[k] || seen[values[k]].second != counts[k];
          CHECK(wrong == 0);
        }
      }
      // Floats: -0 and +0 one value, each NaN its own, after every number.
      const std::size_t n = 3 * 256 * items + 7;
      std::vector<float> f(n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t r = rng() % 16;
        f[i] = r == 0 ? kNaN : r == 1 ? -0.0f : r == 2 ? 0.0f : float(int(rng() % 200) - 100) * 0.5f;
      }
      std::vector<float> want;  // the numbers, -0 as +0
      std::size_t nans = 0;
      for (float x : f) {
        if (std::isnan(x))
          ++nans;
        else
          want.push_back(x == 0.0f ? 0.0f : x);
      }
      std::sort(want.begin(), want.end());
      want.erase(std::unique(want.begin(), want.end()), want.end());
      const std::vector<float> got =
          duet::unique_values(q, duet::from_host<float>(q, f, {n})).to_vector<float>(q);
      REQUIRE(got.size() == want.size() + nans);
      std::size_t wrong = 0;
      for (std::size_t k = 0; k < want.size(); ++k)
        wrong += got[k] != want[k] || (got[k] == 0.0f && std::signbit(got[k]));
      for (std::size_t k = want.size(); k < got.size(); ++k) wrong += !std::isnan(got[k]);
      CHECK(wrong == 0);
    });
  });
}

TEST_CASE("array nonzero: DUET_COMPACT_ITEMS out of its range is an ArgumentError") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const Array a = duet::ones(q, {10}, ScalarType::f32);
    for (const char* bad : {"0", "6", "36", "64", "sixteen", "16x"}) {
      CAPTURE(bad);
      EnvGuard items("DUET_COMPACT_ITEMS", bad);
      CHECK_THROWS_AS(duet::flatnonzero(q, a), duet::ArgumentError);
    }
    EnvGuard items("DUET_COMPACT_ITEMS", "8");
    CHECK(duet::flatnonzero(q, a).size() == 10);
  });
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("array compaction compiles for sm_90 for every dtype and every items setting") {
  if (!offline_nvrtc_checks()) return;
  // Integers of one size share a variant; every item count is tried on float32.
  for (ScalarType t : {ScalarType::u8, ScalarType::u16, ScalarType::u32, ScalarType::u64, ScalarType::f16,
                       ScalarType::bf16, ScalarType::f32, ScalarType::f64, ScalarType::c64, ScalarType::c128})
    for (std::size_t items : {4, 8, 16, 32}) {
      if (t != ScalarType::f32 && items != 16) continue;
      INFO(std::string(duet::to_string(t)), " items ", items);
      CHECK(duet::compile_for_cuda_arch(duet::compaction_source(t, items), {}, "sm_90", "compact.duet") > 0);
    }
  CHECK_THROWS_AS(duet::compaction_source(ScalarType::f32, 6), duet::ArgumentError);
}

TEST_SUITE_END();
