// Reductions of duet::Arrays on every device against host references in double: sums over every
// element at awkward lengths, along each axis of matrices and of a 3-D array (negative axes,
// keepdims, reversed and stepped views), integers exactly (int64 sums, products, min, max, the
// first position of ties), NaN through max and argmax as numpy, mean, all and any, and the errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <iterator>
#include <utility>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::Slice;
constexpr std::nullopt_t none = std::nullopt;

// Sums of `v` (a rows x cols host matrix in C order) along `axis` (0: down the columns), in double,
// with the sums of magnitudes for the tolerance.
std::pair<std::vector<double>, std::vector<double>> axis_sums(const std::vector<double>& v, std::size_t rows,
                                                              std::size_t cols, int axis) {
  std::vector<double> s(axis == 0 ? cols : rows, 0.0), m(s.size(), 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t o = axis == 0 ? c : r;
      s[o] += v[r * cols + c];
      m[o] += std::fabs(v[r * cols + c]);
    }
  return {s, m};
}

void check_sums(const std::vector<float>& got,
                const std::pair<std::vector<double>, std::vector<double>>& want, std::size_t n) {
  REQUIRE(got.size() == want.first.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    CHECK(std::fabs(got[i] - want.first[i]) <= 2.0 * double(n + 2) * kUnitRoundoff * want.second[i] + 1e-30);
}

// Sums of `v` (C order over `shape`) over the axes marked in `reduced`, in double, with the sums of
// magnitudes; the result in C order over the kept axes.
std::pair<std::vector<double>, std::vector<double>> sums_over(const std::vector<double>& v,
                                                              const duet::Shape& shape,
                                                              const std::vector<bool>& reduced) {
  std::size_t outputs = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) outputs *= reduced[k] ? 1 : shape[k];
  std::vector<double> s(outputs, 0.0), m(outputs, 0.0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::size_t rest = i, o = 0, scale = 1;
    for (std::size_t k = shape.size(); k-- > 0;) {
      const std::size_t at = rest % shape[k];
      rest /= shape[k];
      if (reduced[k]) continue;
      o += at * scale;
      scale *= shape[k];
    }
    s[o] += v[i];
    m[o] += std::fabs(v[i]);
  }
  return {s, m};
}

void sums_along_axes();
void extremes_and_truth();

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("array reductions over several axes: sums, views, keepdims, integers and the errors") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array multi-axis");
    const duet::Shape base_shape{5, 14, 11};
    const std::vector<float> x = random_floats(rng, 5 * 14 * 11);
    const Array A = duet::from_host<float>(q, x, base_shape);
    const Array V =
        A.index({Slice{}, Slice{none, none, -2}, Slice{1, none, 3}});  // (5, 7, 4), not contiguous
    for (const Array& a : {A, V}) {
      const std::vector<double> vals = through_layout<double>(x, a.layout());
      const std::vector<std::vector<std::int64_t>> axis_lists{{0, 2}, {-1, 0}, {1, 2}, {0, 1}, {2, 1, 0}, {}};
      for (const std::vector<std::int64_t>& axes : axis_lists) {
        std::vector<bool> reduced(3, false);
        std::size_t run = 1;
        for (std::int64_t k : axes) reduced[std::size_t(k < 0 ? k + 3 : k)] = true;
        for (std::size_t k = 0; k < 3; ++k) run *= reduced[k] ? a.shape()[k] : 1;
        INFO(duet::shape_text(a.shape()), " over ", axes.size(), " axes, ", run, " each");
        const Array s = duet::sum(q, a, axes);
        duet::Shape kept;
        for (std::size_t k = 0; k < 3; ++k)
          if (!reduced[k]) kept.push_back(a.shape()[k]);
        CHECK(s.shape() == kept);
        check_sums(s.to_vector<float>(q), sums_over(vals, a.shape(), reduced), run);
        duet::Shape with_ones = a.shape();
        for (std::size_t k = 0; k < 3; ++k)
          if (reduced[k]) with_ones[k] = 1;
        CHECK(duet::sum(q, a, axes, true).shape() == with_ones);
      }
    }
    // Integers: int64 sums and products, int32 extremes, a float64 mean.
    const std::vector<std::int32_t> iv{3, -1, 4, 1, -5, 9, 2, 6, -5, 3, 5, -9};
    const Array I = duet::from_host<std::int32_t>(q, iv, {2, 3, 2});
    const Array p = duet::prod(q, I, {0, 2});
    CHECK(p.dtype() == duet::ScalarType::i64);
    CHECK(p.to_vector<std::int64_t>(q) ==
          std::vector<std::int64_t>{3 * -1 * 2 * 6, 4 * 1 * -5 * 3, -5 * 9 * 5 * -9});
    CHECK(duet::max(q, I, {1, 2}).to_vector<std::int32_t>(q) == std::vector<std::int32_t>{9, 6});
    CHECK(duet::min(q, I, {0, 1}, true).to_vector<std::int32_t>(q) == std::vector<std::int32_t>{-5, -9});
    CHECK(duet::sum(q, I, std::vector<std::int64_t>{}).dtype() == duet::ScalarType::i64);
    if (dev.info().supports_double)
      CHECK(duet::mean(q, I, {0, 1, 2}).to_vector<double>(q)[0] == doctest::Approx(13.0 / 12));
    CHECK(duet::any(q, duet::evaluate(q, I > 8), {0, 1}).to_vector<bool>(q) ==
          std::vector<bool>{false, true});
    // The errors.
    auto err = EXPECT_ERROR(duet::ArgumentError, duet::sum(q, I, {0, -3}));
    if (err) CHECK_CONTAINS(err->what(), "listed twice");
    err = EXPECT_ERROR(duet::ArgumentError, duet::argmax(q, I, {0, 1}));
    if (err) CHECK_CONTAINS(err->what(), "one axis or none");
    err = EXPECT_ERROR(duet::ArgumentError, duet::sum(q, I, {0, 3}));
    if (err) CHECK_CONTAINS(err->what(), "axis 3 is out of range");
    err = EXPECT_ERROR(duet::ArgumentError, duet::max(q, duet::zeros(q, {3, 0, 2}), {1, 2}));
    if (err) CHECK_CONTAINS(err->what(), "no elements");
    CHECK(duet::sum(q, duet::zeros(q, {3, 0, 2}), {1, 2}).to_vector<float>(q) == std::vector<float>{0, 0, 0});
  });
}

// Runs `body` with each reduction layout forced (reduce.cpp: a work-group or a work-item per output,
// the CPU layouts lanes and tiles, and split, split_groups and split_lanes, which a forced run cuts
// into up to 7 uneven chunks),
// so each is checked on every device whichever the device would choose, then with the device's own
// choice.
template <class Body>
void with_each_layout(Body&& body) {
  for (const char* layout : {"groups", "columns", "lanes", "tiles", "split", "split_groups", "split_lanes"}) {
    CAPTURE(layout);
    setenv("DUET_REDUCE_LAYOUT", layout, 1);
    body();
  }
  unsetenv("DUET_REDUCE_LAYOUT");
  body();
}

TEST_CASE(
    "array reductions, expressions and copies: a layout variable naming no layout is an ArgumentError") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Array a = duet::full(q, {3, 5}, 1.0);
    {
      EnvGuard layout("DUET_REDUCE_LAYOUT", "colums");
      const auto e = EXPECT_ERROR(duet::ArgumentError, duet::sum(q, a, 0));
      if (e) CHECK_CONTAINS(e->what(), "DUET_REDUCE_LAYOUT=colums names no reduction layout");
    }
    EnvGuard layout("DUET_ELEMENTWISE_LAYOUT", "vector8");
    const auto e = EXPECT_ERROR(duet::ArgumentError, duet::evaluate(q, duet::Expr(a) + 1.0));
    if (e) CHECK_CONTAINS(e->what(), "DUET_ELEMENTWISE_LAYOUT=vector8 names no layout");
    // Strided copies of long rows read it too.
    const duet::Array wide = duet::full(q, {3, 70}, 1.0);
    const duet::Array every_other = wide.index({duet::Slice{}, duet::Slice{std::nullopt, std::nullopt, 2}});
    const auto c = EXPECT_ERROR(duet::ArgumentError, every_other.copy(q));
    if (c) CHECK_CONTAINS(c->what(), "DUET_ELEMENTWISE_LAYOUT=vector8 names no layout");
  });
}

TEST_CASE("array reductions: sums over every element and along axes, views included") {
  with_each_layout([] { sums_along_axes(); });
}

TEST_CASE("array reductions: integers, extremes and their positions, NaN, all and any") {
  with_each_layout([] { extremes_and_truth(); });
}

TEST_SUITE_END();

namespace {

void sums_along_axes() {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array sums");
    for (std::size_t n : {std::size_t{1}, std::size_t{97}, std::size_t{100003}}) {
      const std::vector<float> x = random_floats(rng, n);
      double want = 0, mag = 0;
      for (float v : x) want += v, mag += std::fabs(v);
      const Array s = duet::sum(q, duet::from_host<float>(q, x, {n}));
      CHECK(s.ndim() == 0);
      check_sums(s.to_vector<float>(q), {{want}, {mag}}, n);
    }
    const std::size_t R = 37, C = 53;
    const std::vector<float> m = random_floats(rng, R * C);
    const Array M = duet::from_host<float>(q, m, {R, C});
    const std::vector<double> md(m.begin(), m.end());
    check_sums(duet::sum(q, M, 0).to_vector<float>(q), axis_sums(md, R, C, 0), R);
    check_sums(duet::sum(q, M, -1).to_vector<float>(q), axis_sums(md, R, C, 1), C);
    CHECK(duet::sum(q, M, 1, true).shape() == duet::Shape{R, 1});
    CHECK(duet::sum(q, M, std::nullopt, true).shape() == duet::Shape{1, 1});
    // Views: every second row reversed, every third column.
    const Array V = M.index({Slice{none, none, -2}, Slice{none, none, 3}});
    const std::vector<double> vd = through_layout<double>(m, V.layout());
    const std::size_t vr = V.shape()[0], vc = V.shape()[1];
    check_sums(duet::sum(q, V, 0).to_vector<float>(q), axis_sums(vd, vr, vc, 0), vr);
    check_sums(duet::sum(q, V, 1).to_vector<float>(q), axis_sums(vd, vr, vc, 1), vc);
    double all = 0, all_mag = 0;
    for (double v : vd) all += v, all_mag += std::fabs(v);
    check_sums(duet::sum(q, V).to_vector<float>(q), {{all}, {all_mag}}, vd.size());
    // Runs and rows longer than a CPU layout's 64 lanes, not a multiple of them: 5 x 203.
    const std::size_t R2 = 5, C2 = 203;
    const std::vector<float> w = random_floats(rng, R2 * C2);
    const Array W = duet::from_host<float>(q, w, {R2, C2});
    const std::vector<double> wd(w.begin(), w.end());
    check_sums(duet::sum(q, W, 1).to_vector<float>(q), axis_sums(wd, R2, C2, 1), C2);
    const Array WT = W.transpose().copy(q);  // (203, 5): a long strided run, few outputs
    check_sums(duet::sum(q, WT, 0).to_vector<float>(q), axis_sums(wd, R2, C2, 1), C2);
    check_sums(duet::sum(q, W, 0).to_vector<float>(q), axis_sums(wd, R2, C2, 0), R2);
    // The middle axis of a 3-D array.
    const Array T = M.reshape_view({1, R, C})->index({std::int64_t{0}}).expand_dims(2);  // (R, C, 1)
    check_sums(duet::sum(q, T, 1).to_vector<float>(q), axis_sums(md, R, C, 1), C);
    const std::vector<float> mean = duet::mean(q, M, 0).to_vector<float>(q);
    const auto col = axis_sums(md, R, C, 0);
    for (std::size_t c = 0; c < C; ++c) CHECK(mean[c] == doctest::Approx(col.first[c] / R).epsilon(1e-5));
  });
}

void extremes_and_truth() {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::vector<std::int32_t> iv{5, -3, 7, 7, -3, 2, 2000000000, 2000000000};
    const Array I = duet::from_host<std::int32_t>(q, iv, {8});
    const Array s = duet::sum(q, I);
    CHECK(s.dtype() == duet::ScalarType::i64);
    CHECK(s.to_vector<std::int64_t>(q) == std::vector<std::int64_t>{4000000015LL});
    CHECK(duet::min(q, I).to_vector<std::int32_t>(q) == std::vector<std::int32_t>{-3});
    CHECK(duet::max(q, I).to_vector<std::int32_t>(q) == std::vector<std::int32_t>{2000000000});
    CHECK(duet::argmin(q, I).to_vector<std::int64_t>(q) == std::vector<std::int64_t>{1});  // the first of two
    CHECK(duet::argmax(q, I).to_vector<std::int64_t>(q) == std::vector<std::int64_t>{6});
    const Array small = duet::from_host<std::int32_t>(q, std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}, {2, 3});
    CHECK(duet::prod(q, small, 1).to_vector<std::int64_t>(q) == std::vector<std::int64_t>{6, 120});
    CHECK(duet::argmax(q, small, 0).to_vector<std::int64_t>(q) == std::vector<std::int64_t>{1, 1, 1});
    const Array F = duet::from_host<float>(q, std::vector<float>{1.0f, NAN, 3.0f, NAN}, {4});
    CHECK(std::isnan(duet::max(q, F).to_vector<float>(q)[0]));
    CHECK(duet::argmax(q, F).to_vector<std::int64_t>(q) == std::vector<std::int64_t>{1});  // the first NaN
    const Array G = duet::from_host<float>(q, std::vector<float>{-2.0f, 4.5f, 4.5f, -7.0f}, {4});
    CHECK(duet::argmax(q, G).to_vector<std::int64_t>(q) == std::vector<std::int64_t>{1});
    CHECK(duet::argmin(q, G).to_vector<std::int64_t>(q) == std::vector<std::int64_t>{3});
    CHECK(duet::all(q, duet::evaluate(q, G > -10)).to_vector<bool>(q) == std::vector<bool>{true});
    CHECK(duet::all(q, duet::evaluate(q, G > 0)).to_vector<bool>(q) == std::vector<bool>{false});
    CHECK(duet::any(q, duet::evaluate(q, G > 4)).to_vector<bool>(q) == std::vector<bool>{true});
    // Ties and NaNs past the first 64 elements of a run (a CPU layout's lanes): the first still wins,
    // along the contiguous axis and down the columns of the transposed copy.
    std::vector<float> ties(3 * 150, 0.0f);
    ties[5] = ties[70] = ties[133] = 9.0f;
    ties[150 + 140] = ties[150 + 77] = 9.0f;
    ties[300 + 3] = 9.0f;
    ties[300 + 100] = ties[300 + 130] = NAN;
    const Array Ties = duet::from_host<float>(q, ties, {3, 150});
    const Array Down = Ties.transpose().copy(q);  // (150, 3), C order
    for (std::int64_t axis : {1, 0}) {
      const Array& a = axis == 1 ? Ties : Down;
      CHECK(duet::argmax(q, a, axis).to_vector<std::int64_t>(q) == std::vector<std::int64_t>{5, 77, 100});
      CHECK(duet::argmin(q, a, axis).to_vector<std::int64_t>(q) == std::vector<std::int64_t>{0, 0, 100});
      const std::vector<float> top = duet::max(q, a, axis).to_vector<float>(q);
      CHECK((top[0] == 9.0f && top[1] == 9.0f && std::isnan(top[2])));
    }
    CHECK(duet::sum(q, duet::zeros(q, {0})).to_vector<float>(q) == std::vector<float>{0.0f});
    if (dev.info().supports_double) {
      const Array m = duet::mean(q, I);
      CHECK(m.dtype() == duet::ScalarType::f64);
      CHECK(m.to_vector<double>(q)[0] == doctest::Approx(4000000015.0 / 8));
    }
    CHECK_THROWS_WITH_AS(duet::min(q, duet::zeros(q, {0})), doctest::Contains("no elements"),
                         duet::ArgumentError);
    CHECK_THROWS_WITH_AS(duet::sum(q, small, 2), doctest::Contains("axis 2 is out of range"),
                         duet::ArgumentError);
  });
}

}  // namespace

TEST_SUITE_BEGIN("nvrtc");

// Every operation and every element type, without the whole product (each compile takes NVRTC
// about a second): each operation with a type of its own along the diagonal, and every type with a
// value reduction (sum) and an index reduction (argmax), the two ways a source uses its type.
TEST_CASE("array reductions compile for sm_90 for every operation and element type") {
  using duet::ReduceOp;
  using duet::ScalarType;
  const ReduceOp ops[] = {ReduceOp::sum,    ReduceOp::prod,   ReduceOp::mean, ReduceOp::min, ReduceOp::max,
                          ReduceOp::argmin, ReduceOp::argmax, ReduceOp::all,  ReduceOp::any};
  const ScalarType types[] = {ScalarType::f16, ScalarType::f32, ScalarType::f64,
                              ScalarType::i8,  ScalarType::u8,  ScalarType::i32,
                              ScalarType::u32, ScalarType::i64, ScalarType::u64};
  std::vector<std::pair<ReduceOp, ScalarType>> cases;
  for (std::size_t i = 0; i < std::size(ops); ++i)
    cases.emplace_back(ops[i], types[(i + 1) % std::size(types)]);
  for (ScalarType t : types)
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::argmax})
      if (std::find(cases.begin(), cases.end(), std::make_pair(op, t)) == cases.end())
        cases.emplace_back(op, t);
  for (const auto& op_type : cases) {
    const ReduceOp op = op_type.first;  // not bindings: INFO's lambda captures them
    const ScalarType t = op_type.second;
    INFO(std::string(duet::to_string(op)), " of ", std::string(duet::to_string(t)));
    CHECK(duet::compile_for_cuda_arch(duet::reduction_source(op, t), {}, "sm_90", "reduce.duet") > 0);
  }
}
TEST_SUITE_END();
