// take, put, nonzero and unique_all of duet::Arrays on every device against host loops: awkward lengths,
// none and all nonzero, NaN and -0.0, views, the inverse and counts of unique, and take along each axis
// with negative indices (test_array_select_compact.cpp tries the compaction around its tiles).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <limits>
#include <map>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::ScalarType;
using duet::Shape;

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("array nonzero: flat positions and per-axis indices against the host") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array nonzero");
    for (std::size_t n :
         {std::size_t{1}, std::size_t{2047}, std::size_t{2048}, std::size_t{2049}, std::size_t{10007}}) {
      std::vector<float> v = random_floats(rng, n);
      for (std::size_t i = 0; i < n; ++i) {
        if (i % 3 == 0) v[i] = 0.0f;
        if (i % 7 == 0) v[i] = -0.0f;
        if (i % 11 == 0) v[i] = kNaN;
      }
      std::vector<std::int64_t> want;
      for (std::size_t i = 0; i < n; ++i)
        if (v[i] != 0.0f) want.push_back(std::int64_t(i));
      const Array a = duet::from_host<float>(q, v, {n});
      check_equal(duet::flatnonzero(q, a).to_vector<std::int64_t>(q), want,
                  "flatnonzero " + std::to_string(n));
    }
    CHECK(duet::flatnonzero(q, duet::zeros(q, {5000}, ScalarType::i32)).size() == 0);
    CHECK(duet::flatnonzero(q, duet::ones(q, {4099}, ScalarType::u8)).size() == 4099);
    // A transposed 2-D view of int16: indices along both axes in C order of the view.
    const std::vector<int> iv = random_ints(rng, 37 * 41, -2, 2);
    const std::vector<std::int16_t> i16(iv.begin(), iv.end());
    const Array m = duet::from_host<std::int16_t>(q, i16, {37, 41}).T();
    const std::vector<std::int16_t> seen = through_layout<std::int16_t>(i16, m.layout());
    std::vector<std::int64_t> rows, cols;
    for (std::size_t i = 0; i < seen.size(); ++i)
      if (seen[i] != 0) rows.push_back(std::int64_t(i / 37)), cols.push_back(std::int64_t(i % 37));
    const std::vector<Array> nz = duet::nonzero(q, m);
    REQUIRE(nz.size() == 2);
    check_equal(nz[0].to_vector<std::int64_t>(q), rows, "nonzero rows");
    check_equal(nz[1].to_vector<std::int64_t>(q), cols, "nonzero columns");
    CHECK_THROWS_AS(duet::nonzero(q, duet::full(q, {}, 1.0)), duet::ArgumentError);
  });
}

TEST_CASE("array put: offsets from a view's strides, every element size, against the host") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array put");
    // A reversed, stepped view of a 9 x 11 matrix: its element (r, c) lies r * -22 + c * 2 elements
    // from its first one.
    const std::size_t R = 9, C = 11;
    for (ScalarType t : {ScalarType::i8, ScalarType::i16, ScalarType::f32, ScalarType::i64}) {
      INFO(duet::to_string(t));
      std::vector<int> host(R * C);
      for (std::size_t i = 0; i < host.size(); ++i) host[i] = int(i % 100);
      const Array m = duet::evaluate(q, duet::astype(duet::Expr(duet::from_host<int>(q, host, {R, C})), t));
      const Array v = m.index({duet::Slice{std::nullopt, std::nullopt, -2}, duet::Slice{1, std::nullopt, 2}});
      REQUIRE(v.shape() == Shape{5, 5});
      // Distinct positions (r, c) of the view, in a random order.
      std::vector<std::int64_t> cells(25);
      for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = std::int64_t(i);
      std::shuffle(cells.begin(), cells.end(), rng);
      cells.resize(13);
      std::vector<std::int64_t> offsets;
      std::vector<int> values;
      for (std::int64_t cell : cells) {
        const std::int64_t r = cell / 5, c = cell % 5;
        offsets.push_back(r * v.strides()[0] + c * v.strides()[1]);
        values.push_back(int(-1 - cell));
        host[std::size_t((R - 1 - 2 * r) * C + 1 + 2 * c)] = int(-1 - cell);
      }
      const Array vals =
          duet::evaluate(q, duet::astype(duet::Expr(duet::from_host<int>(q, values, {values.size()})), t));
      duet::put(q, v, duet::from_host<std::int64_t>(q, offsets, {offsets.size()}), vals);
      const std::vector<std::int64_t> got =
          duet::evaluate(q, duet::astype(duet::Expr(m), ScalarType::i64)).to_vector<std::int64_t>(q);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != host[i];
      CHECK(wrong == 0);
    }
    const Array a = duet::zeros(q, {4}, ScalarType::f32);
    const Array off = duet::zeros(q, {2}, ScalarType::i64);
    CHECK_THROWS_AS(duet::put(q, a, off, duet::zeros(q, {2}, ScalarType::f64)), duet::ArgumentError);
    CHECK_THROWS_AS(duet::put(q, a, off, duet::zeros(q, {3}, ScalarType::f32)), duet::ArgumentError);
    CHECK_THROWS_AS(duet::put(q, a, duet::zeros(q, {2}, ScalarType::f32), a), duet::ArgumentError);
  });
}

TEST_CASE("array take: along each axis, negative indices, int32 indices") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::size_t R = 5, C = 7;
    std::vector<double> m(R * C);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = double(i) + 0.5;
    const Array M = duet::from_host<double>(q, m, {R, C});
    const std::vector<std::int32_t> idx{4, -1, 0, 2, 2};
    const Array I = duet::from_host<std::int32_t>(q, idx, {5});
    const Array rows = duet::take(q, M, I, 0);
    CHECK(rows.shape() == Shape{5, C});
    const Array cols = duet::take(q, M, I, -1);
    CHECK(cols.shape() == Shape{R, 5});
    const std::vector<double> r = rows.to_vector<double>(q), c = cols.to_vector<double>(q);
    std::size_t wrong = 0;
    for (std::size_t j = 0; j < 5; ++j) {
      const std::size_t k = std::size_t(idx[j] < 0 ? idx[j] + 7 : idx[j]);
      const std::size_t kr = std::size_t(idx[j] < 0 ? idx[j] + 5 : idx[j]);
      for (std::size_t x = 0; x < C; ++x) wrong += r[j * C + x] != m[kr * C + x];
      for (std::size_t y = 0; y < R; ++y) wrong += c[y * 5 + j] != m[y * C + k];
    }
    CHECK(wrong == 0);
    CHECK_THROWS_AS(duet::take(q, M, duet::zeros(q, {2}), 0), duet::ArgumentError);
  });
}

TEST_CASE("array unique_all: values, first indices, inverse and counts against std::map") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array unique");
    for (std::size_t n : {std::size_t{1}, std::size_t{100}, std::size_t{4099}}) {
      const std::vector<int> iv = random_ints(rng, n, -30, 30);
      std::vector<float> v(iv.begin(), iv.end());
      v[0] = -0.0f;
      if (n > 10) v[3] = kNaN, v[9] = kNaN, v[5] = 0.0f;
      const duet::Unique u = duet::unique_all(q, duet::from_host<float>(q, v, {n}));
      std::map<float, std::pair<std::int64_t, std::int64_t>> seen;  // value: first index, count
      std::size_t nans = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(v[i])) {
          ++nans;
          continue;
        }
        auto it = seen.find(v[i]);
        if (it == seen.end())
          seen[v[i]] = {std::int64_t(i), 1};
        else
          ++it->second.second;
      }
      const std::vector<float> values = u.values.to_vector<float>(q);
      const std::vector<std::int64_t> first = u.indices.to_vector<std::int64_t>(q),
                                      counts = u.counts.to_vector<std::int64_t>(q),
                                      inverse = u.inverse.to_vector<std::int64_t>(q);
      REQUIRE(values.size() == seen.size() + nans);
      std::size_t j = 0, wrong = 0;
      for (const auto& [value, fc] : seen) {
        wrong += values[j] != value || first[j] != fc.first || counts[j] != fc.second;
        ++j;
      }
      for (; j < values.size(); ++j) wrong += !std::isnan(values[j]) || counts[j] != 1;
      for (std::size_t i = 0; i < n; ++i) {
        const float back = values[std::size_t(inverse[i])];
        wrong += std::isnan(v[i]) ? !std::isnan(back) : back != v[i];
      }
      CHECK(wrong == 0);
      // unique_values alone (its own sort, keys only): the same values, bit for bit but for -0,
      // which both give as +0.
      const std::vector<float> alone = duet::unique_values(q, duet::from_host<float>(q, v, {n})).to_vector<float>(q);
      REQUIRE(alone.size() == values.size());
      std::size_t differ = 0;
      for (std::size_t k = 0; k < alone.size(); ++k)
        differ += std::isnan(values[k]) ? !std::isnan(alone[k]) : (alone[k] != values[k] || (alone[k] == 0.0f && std::signbit(alone[k])));
      CHECK(differ == 0);
    }
  });
}

TEST_CASE("array unique_values: every key type, equal runs across tiles, empty") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array unique_values");
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{257}, std::size_t{12289}}) {
      CAPTURE(n);
      const std::vector<int> iv = random_ints(rng, n, -700, 700);
      std::vector<std::int32_t> v32(iv.begin(), iv.end());
      std::vector<std::int64_t> v64(iv.begin(), iv.end());
      std::vector<std::int32_t> want32 = v32;
      std::sort(want32.begin(), want32.end());
      want32.erase(std::unique(want32.begin(), want32.end()), want32.end());
      CHECK(duet::unique_values(q, duet::from_host<std::int32_t>(q, v32, {n})).to_vector<std::int32_t>(q) == want32);
      const std::vector<std::int64_t> want64(want32.begin(), want32.end());
      CHECK(duet::unique_values(q, duet::from_host<std::int64_t>(q, v64, {n})).to_vector<std::int64_t>(q) == want64);
    }
  });
}

TEST_SUITE_END();
