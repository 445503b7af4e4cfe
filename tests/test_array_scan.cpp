// cumsum (and cumprod, near the end) of duet::Arrays on every device against double-precision host
// prefix sums: rows shorter
// and longer than a chunk (2048), each axis of a matrix and the middle one of a 3-D array, reversed,
// stepped and transposed views, the flattened scan of a view, empty arrays and 0-d ones, numpy's
// dtypes (int32 -> int64 past 2**31, uint8 -> uint64, float16 stays), repeatable bits, the errors,
// and the kernel through NVRTC for every element type.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::ScalarType;
using duet::Shape;
using duet::Slice;
constexpr std::nullopt_t none = std::nullopt;

// Prefix sums of `v` (C order over `shape`) along `axis`, and the prefix sums of magnitudes (for the
// tolerance), in double.
std::pair<std::vector<double>, std::vector<double>> host_cumsum(const std::vector<double>& v,
                                                                const Shape& shape, std::size_t axis) {
  std::size_t inner = 1;
  for (std::size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
  const std::size_t len = shape[axis];
  std::vector<double> s(v.size()), m(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool first = (i / inner) % len == 0;
    s[i] = (first ? 0.0 : s[i - inner]) + v[i];
    m[i] = (first ? 0.0 : m[i - inner]) + std::fabs(v[i]);
  }
  return {s, m};
}

// cumsum(a, axis) of a float32 view `a` whose values are `v`, against the host.
void check_float_cumsum(duet::Queue& q, const Array& a, const std::vector<double>& v, std::optional<int> axis,
                        const std::string& what) {
  const Array c = duet::cumsum(q, a, axis ? std::optional<std::int64_t>(*axis) : std::nullopt);
  CHECK(c.dtype() == ScalarType::f32);
  CHECK(c.contiguous());
  const Shape shape = axis ? a.shape() : Shape{a.size()};
  CHECK(c.shape() == shape);
  const std::size_t k = axis ? static_cast<std::size_t>(*axis < 0 ? *axis + int(a.ndim()) : *axis) : 0;
  const auto sums = host_cumsum(v, shape, k);
  const auto &want = sums.first, &mag = sums.second;  // not bindings: the lambda captures them
  const std::size_t len = shape.empty() ? 1 : shape[k];
  check_close(
      c.to_vector<float>(q), want,
      [&](std::size_t i) { return 2.0 * double(len + 2) * kUnitRoundoff * mag[i]; }, what);
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("array cumsum: float32 along every axis, over views, flattened, empty and 0-d") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array cumsum");
    // Rows of one element, of less than a chunk, and over two chunks with a ragged end.
    for (std::size_t n : {std::size_t{1}, std::size_t{97}, std::size_t{5003}}) {
      const std::vector<float> x = random_floats(rng, n);
      check_float_cumsum(q, duet::from_host<float>(q, x, {n}), {x.begin(), x.end()}, 0, "1-D");
      check_float_cumsum(q, duet::from_host<float>(q, x, {n}), {x.begin(), x.end()}, std::nullopt,
                         "1-D, no axis");
    }
    const std::size_t R = 37, C = 53;
    const std::vector<float> m = random_floats(rng, R * C);
    const Array M = duet::from_host<float>(q, m, {R, C});
    const std::vector<double> md(m.begin(), m.end());
    for (int axis : {0, 1, -1}) check_float_cumsum(q, M, md, axis, "matrix");
    // Every second row reversed, every third column; the transpose; both flattened in C order.
    const Array V = M.index({Slice{none, none, -2}, Slice{none, none, 3}});
    const Array T = M.T();
    for (const Array& view : {V, T}) {
      const std::vector<double> vd = through_layout<double>(m, view.layout());
      check_float_cumsum(q, view, vd, 0, "view, axis 0");
      check_float_cumsum(q, view, vd, 1, "view, axis 1");
      check_float_cumsum(q, view, vd, std::nullopt, "view flattened");
    }
    // Each axis of a 3-D view: the middle axis reversed, every second element of the last.
    const std::vector<float> c = random_floats(rng, 5 * 7 * 22);
    const Array cube = duet::from_host<float>(q, c, {5, 7, 22})
                           .index({Slice{}, Slice{none, none, -1}, Slice{none, none, 2}});
    for (int axis : {0, 1, 2})
      check_float_cumsum(q, cube, through_layout<double>(c, cube.layout()), axis, "3-D view");
    // Empty arrays keep their shape (or flatten to (0,)); a 0-d array gives one element.
    CHECK(duet::cumsum(q, duet::zeros(q, {0, 5}), 1).shape() == Shape{0, 5});
    CHECK(duet::cumsum(q, duet::zeros(q, {5, 0}), 0).shape() == Shape{5, 0});
    CHECK(duet::cumsum(q, duet::zeros(q, {5, 0})).shape() == Shape{0});
    const Array scalar = duet::full(q, {}, 2.5);
    CHECK(duet::cumsum(q, scalar).to_vector<float>(q) == std::vector<float>{2.5f});
    // Repeatable to the bit.
    const Array big = duet::from_host<float>(q, random_floats(rng, 9001), {9001});
    CHECK(duet::cumsum(q, big).to_vector<float>(q) == duet::cumsum(q, big).to_vector<float>(q));
    const auto err = EXPECT_ERROR(duet::ArgumentError, duet::cumsum(q, M, 2));
    if (err) CHECK_CONTAINS(err->what(), "axis 2 is out of range");
    CHECK_THROWS_AS(duet::cumsum(q, scalar, 0), duet::ArgumentError);
  });
}

TEST_CASE("array cumsum: integers exactly in numpy's dtypes, float16 and float64") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array cumsum ints");
    // int32 -> int64, with sums that pass 2**31; along both axes of a column-stepped view.
    const std::size_t R = 11, C = 2 * 2111;
    const std::vector<int> iv = random_ints(rng, R * C, -2000000000, 2000000000);
    const std::vector<std::int32_t> i32(iv.begin(), iv.end());
    const Array I = duet::from_host<std::int32_t>(q, i32, {R, C}).index({Slice{}, Slice{1, none, 2}});
    const std::vector<std::int64_t> vals = through_layout<std::int64_t>(i32, I.layout());
    for (std::size_t axis : {0, 1}) {
      const Array c = duet::cumsum(q, I, std::int64_t(axis));
      CHECK(c.dtype() == ScalarType::i64);
      std::vector<std::int64_t> want(vals.size());
      const std::size_t inner = axis == 0 ? I.shape()[1] : 1, len = I.shape()[axis];
      for (std::size_t i = 0; i < vals.size(); ++i)
        want[i] = ((i / inner) % len == 0 ? 0 : want[i - inner]) + vals[i];
      check_equal(c.to_vector<std::int64_t>(q), want, "int32 cumsum, axis " + std::to_string(axis));
    }
    // uint8 -> uint64 (no wrap at 256), int8 -> int64.
    const std::vector<std::uint8_t> u8(3000, 200);
    const std::vector<std::uint64_t> u =
        duet::cumsum(q, duet::from_host<std::uint8_t>(q, u8, {3000})).to_vector<std::uint64_t>(q);
    CHECK(u.size() == 3000);
    CHECK(u.back() == 600000u);
    CHECK(u[5] == 1200u);
    const std::vector<std::int8_t> i8{-128, -128, 127, 5};
    const Array c8 = duet::cumsum(q, duet::from_host<std::int8_t>(q, i8, {2, 2}), 0);
    CHECK(c8.dtype() == ScalarType::i64);
    CHECK(c8.to_vector<std::int64_t>(q) == std::vector<std::int64_t>{-128, -128, -1, -123});
    // float16 stays float16 (added in float32, rounded when stored).
    const std::vector<duet::half> hv(10, duet::half::from_float(0.5f));
    const Array h = duet::cumsum(q, duet::from_host<duet::half>(q, hv, {10}));
    CHECK(h.dtype() == ScalarType::f16);
    CHECK(h.to_vector<duet::half>(q)[9].bits == duet::half::from_float(5.0f).bits);
    if (dev.info().supports_double) {
      std::vector<double> dv(4099);
      for (std::size_t i = 0; i < dv.size(); ++i) dv[i] = double(i % 7) - 3.0;
      const std::vector<double> got =
          duet::cumsum(q, duet::from_host<double>(q, dv, {4099})).to_vector<double>(q);
      double s = 0;
      std::size_t bad = 0;
      for (std::size_t i = 0; i < dv.size(); ++i) bad += got[i] != (s += dv[i]);
      CHECK(bad == 0);
    } else {
      CHECK_THROWS_AS(duet::cumsum(q, duet::zeros(q, {3}, ScalarType::f64)), duet::ArgumentError);
    }
  });
}

TEST_CASE("array cumsum into out: poisoned views, another dtype, in place, and the errors") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array cumsum out");
    const std::size_t R = 13, C = 2500;
    const std::vector<float> x = random_floats(rng, R * C);
    const Array X = duet::from_host<float>(q, x, {R, C});
    const std::vector<double> xd(x.begin(), x.end());
    // Into every second row, reversed, of a NaN-poisoned array: the rows between stay NaN.
    const Array poisoned = duet::full(q, {2 * R, C}, std::nan(""));
    const Array out = poisoned.index({Slice{none, none, -2}});
    for (int axis : {1, 0}) {
      duet::cumsum(q, X, axis, out);
      const std::vector<float> all = poisoned.to_vector<float>(q);
      const auto sums = host_cumsum(xd, {R, C}, std::size_t(axis));
      const auto &want = sums.first, &mag = sums.second;  // not bindings: the lambda captures them
      const std::vector<float> got = out.to_vector<float>(q);
      const std::size_t len = axis == 0 ? R : C;
      check_close(
          got, want, [&](std::size_t i) { return 2.0 * double(len + 2) * kUnitRoundoff * mag[i]; },
          "into a view, axis " + std::to_string(axis));
      std::size_t written_between = 0;
      for (std::size_t r = 0; r < 2 * R; r += 2)
        for (std::size_t c = 0; c < C; ++c) written_between += !std::isnan(all[r * C + c]);
      CHECK(written_between == 0);
    }
    // int16 input summed in int64, stored as int32 into a transposed poisoned view.
    const std::vector<int> iv = random_ints(rng, 6 * 9, -30000, 30000);
    const std::vector<std::int16_t> i16(iv.begin(), iv.end());
    const Array I = duet::from_host<std::int16_t>(q, i16, {6, 9});
    const Array target = duet::full(q, {9, 6}, -77, ScalarType::i32);
    duet::cumsum(q, I, 0, target.T());
    const std::vector<std::int32_t> got = target.T().to_vector<std::int32_t>(q);
    std::vector<std::int32_t> want(i16.size());
    for (std::size_t i = 0; i < i16.size(); ++i) want[i] = (i < 9 ? 0 : want[i - 9]) + i16[i];
    check_equal(got, want, "int16 into an int32 view");
    // In place, flattened: a 1-D array is its own result.
    const Array v = duet::from_host<float>(q, std::vector<float>{1, 2, 3, 4}, {4});
    duet::cumsum(q, v, std::nullopt, v);
    CHECK(v.to_vector<float>(q) == std::vector<float>{1, 3, 6, 10});
    // The errors.
    auto err = EXPECT_ERROR(duet::ArgumentError, duet::cumsum(q, X, 0, duet::empty(dev, {R, C + 1})));
    if (err) CHECK_CONTAINS(err->what(), "out has the shape");
    err =
        EXPECT_ERROR(duet::ArgumentError, duet::cumsum(q, v.index({Slice{0, 3}}), 0, v.index({Slice{1, 4}})));
    if (err) CHECK_CONTAINS(err->what(), "shares memory");
    err = EXPECT_ERROR(duet::ArgumentError, duet::cumsum(q, X, std::nullopt, out));
    if (err) CHECK_CONTAINS(err->what(), "flattened");
  });
}

// cumprod: the same kernel with * for +. Floats near 1 (so that products of thousands stay finite)
// along each axis of a matrix with rows longer than a chunk, a reversed view and the flattened
// array, against double-precision host products; int32 with small factors exactly in int64; into a
// poisoned view; the errors name cumprod.
TEST_CASE("array cumprod: floats along every axis and over views, integers exactly, into out") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array cumprod");
    const std::size_t R = 7, C = 2503;
    const std::vector<float> x = random_floats(rng, R * C, 0.999f, 1.001f);
    const Array X = duet::from_host<float>(q, x, {R, C});
    for (const int axis : {0, 1, -1}) {
      CAPTURE(axis);
      const std::size_t k = axis == 0 ? 0 : 1, inner = k == 0 ? C : 1, len = k == 0 ? R : C;
      std::vector<double> want(x.size());
      for (std::size_t i = 0; i < x.size(); ++i)
        want[i] = ((i / inner) % len == 0 ? 1.0 : want[i - inner]) * double(x[i]);
      const Array c = duet::cumprod(q, X, axis);
      CHECK(c.dtype() == ScalarType::f32);
      check_close(
          c.to_vector<float>(q), want,
          [&](std::size_t i) { return 2.0 * double(len + 2) * kUnitRoundoff * (1 + std::fabs(want[i])); },
          "cumprod");
    }
    // A reversed view of the first row, flattened: the products run from its last element.
    const Array rev = X.index({std::int64_t(0), Slice{none, none, -1}});
    std::vector<double> want_rev(C);
    for (std::size_t i = 0; i < C; ++i) want_rev[i] = (i ? want_rev[i - 1] : 1.0) * double(x[C - 1 - i]);
    check_close(
        duet::cumprod(q, rev).to_vector<float>(q), want_rev,
        [&](std::size_t i) { return 2.0 * double(C + 2) * kUnitRoundoff * (1 + std::fabs(want_rev[i])); },
        "reversed view");
    // int32 factors in -2..2, mostly 1, so that the products stay exact in int64.
    std::vector<std::int32_t> iv(3 * 41);
    for (std::int32_t& v : iv) v = rng() % 8 == 0 ? static_cast<std::int32_t>(rng() % 5) - 2 : 1;
    const Array I = duet::from_host<std::int32_t>(q, iv, {3, 41});
    const Array ic = duet::cumprod(q, I, 1);
    CHECK(ic.dtype() == ScalarType::i64);
    std::vector<std::int64_t> want_i(iv.size());
    for (std::size_t i = 0; i < iv.size(); ++i) want_i[i] = (i % 41 ? want_i[i - 1] : 1) * iv[i];
    check_equal(ic.to_vector<std::int64_t>(q), want_i, "int32 cumprod");
    // Into every second element of a NaN-poisoned row: the others stay NaN.
    const Array poisoned = duet::full(q, {2 * C}, std::nan(""));
    const Array out = poisoned.index({Slice{none, none, 2}});
    duet::cumprod(q, X.index({std::int64_t(0)}), 0, out);
    const std::vector<float> all = poisoned.to_vector<float>(q);
    std::size_t unwritten = 0, written_wrong = 0;
    double p = 1.0;
    for (std::size_t i = 0; i < C; ++i) {
      p *= double(x[i]);
      unwritten += !std::isnan(all[2 * i + 1]);
      written_wrong += !(std::fabs(all[2 * i] - p) <= 2.0 * double(C + 2) * kUnitRoundoff * 1.01);
    }
    CHECK(unwritten == 0);
    CHECK(written_wrong == 0);
    const auto err = EXPECT_ERROR(duet::ArgumentError, duet::cumprod(q, X, 2));
    if (err) CHECK_CONTAINS(err->what(), "cumprod: axis 2 is out of range");
  });
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("array cumsum compiles for sm_90 for every element type") {
  for (ScalarType t :
       {ScalarType::f16, ScalarType::f32, ScalarType::f64, ScalarType::i8, ScalarType::u8, ScalarType::i16,
        ScalarType::u16, ScalarType::i32, ScalarType::u32, ScalarType::i64, ScalarType::u64}) {
    INFO(std::string(duet::to_string(t)));
    CHECK(duet::compile_for_cuda_arch(duet::cumsum_source(t), {}, "sm_90", "cumsum.duet") > 0);
    CHECK(duet::compile_for_cuda_arch(duet::cumprod_source(t), {}, "sm_90", "cumprod.duet") > 0);
  }
}
TEST_SUITE_END();
