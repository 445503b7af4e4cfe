// Fused array expressions (duet/array_expr.hpp) on every device, against double-precision host
// references: arithmetic with plain numbers, broadcasting (columns over rows, a row over a matrix,
// reversed and stepped views as operands), NumPy's dtype promotion, comparisons and where, the
// functions, NaN through maximum, half storage, assignment into views and in place (overlapping
// too), one kernel per expression reading each array once, and the errors. The kernels compile
// for sm_90 through NVRTC as well, where NVRTC is present.
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
using duet::Slice;
constexpr std::nullopt_t none = std::nullopt;

Array floats(duet::Queue& q, const std::vector<float>& v, const duet::Shape& shape) {
  return duet::from_host<float>(q, v, shape);
}

// The kernel also compiles for CUDA, where NVRTC can be loaded (it needs no GPU).
void compiles_for_cuda(const duet::Expr& e, ScalarType out, bool flat) {
  if (!offline_nvrtc_checks()) return;
  // GPUs run the flat kernel four elements at a time where every operand has 4-byte elements.
  std::string vector4;
  try {
    if (flat) vector4 = duet::fused_source(e, out, flat, true);
  } catch (const duet::ArgumentError&) {
  }
  std::size_t bytes = 0;
  try {
    bytes = duet::compile_for_cuda_arch(duet::fused_source(e, out, flat), {}, "sm_90", "fused.duet");
    if (!flat)  // the 32-bit index arithmetic too
      bytes = std::min(bytes, duet::compile_for_cuda_arch(duet::fused_source(e, out, flat, false, true), {},
                                                          "sm_90", "fused_narrow.duet"));
    if (!vector4.empty())
      bytes = std::min(bytes, duet::compile_for_cuda_arch(vector4, {}, "sm_90", "fused_vector4.duet"));
  } catch (const duet::BackendUnavailableError&) {
    return;  // no NVRTC here (outside CHECK, which would count the throw as a failure)
  }
  CHECK(bytes > 0);
}

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("array expressions: numpy's dtype promotion") {
  using T = ScalarType;
  CHECK(duet::promote_types(T::i32, T::f32) == T::f64);
  CHECK(duet::promote_types(T::i16, T::f32) == T::f32);
  CHECK(duet::promote_types(T::u8, T::i8) == T::i16);
  CHECK(duet::promote_types(T::u8, T::f16) == T::f16);
  CHECK(duet::promote_types(T::i16, T::f16) == T::f32);
  CHECK(duet::promote_types(T::f16, T::f32) == T::f32);
  CHECK(duet::promote_types(T::u32, T::i32) == T::i64);
  CHECK(duet::promote_types(T::u64, T::i64) == T::f64);
  CHECK(duet::promote_types(T::i64, T::f32) == T::f64);
  CHECK(duet::promote_types(T::u16, T::u16) == T::u16);
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("device");

TEST_CASE("array expressions: a * x + y and friends, fused, against the host") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array expr");
    for (std::size_t n : {std::size_t{1}, std::size_t{97}, std::size_t{4099}}) {
      const std::vector<float> x = random_floats(rng, n), y = random_floats(rng, n);
      const Array X = floats(q, x, {n}), Y = floats(q, y, {n});
      const duet::Expr e = 2.5f * X + Y;
      CHECK(e.dtype() == ScalarType::f32);
      const std::vector<float> got = duet::evaluate(q, e).to_vector<float>(q);
      const std::vector<float> hyp = duet::evaluate(q, duet::sqrt(X * X + Y * Y)).to_vector<float>(q);
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(got[i] == doctest::Approx(2.5 * x[i] + y[i]).epsilon(1e-6));
        CHECK(hyp[i] == doctest::Approx(std::sqrt(double(x[i]) * x[i] + double(y[i]) * y[i])).epsilon(1e-6));
      }
      // One kernel that reads each array once.
      const std::string source = duet::fused_source(e, ScalarType::f32, true);
      CHECK(source.find("LOAD(float, a0") != std::string::npos);
      CHECK(source.find("LOAD(float, a1") != std::string::npos);
      CHECK(source.find("a2") == std::string::npos);
      compiles_for_cuda(duet::sqrt(X * X + Y * Y), ScalarType::f32, true);
    }
  });
}

// The vector4 form of flat kernels (GPUs take it by themselves; forced here on every device): four
// elements per work-item through 16-byte vectors where every operand starts 16 bytes aligned, the
// one-element kernel otherwise. Awkward lengths, views starting 0, 1, 4 and 5 elements in, float
// and int operands, the output poisoned first.
TEST_CASE("array expressions: the vector4 form at awkward lengths and offsets") {
  EnvGuard layout("DUET_ELEMENTWISE_LAYOUT", "vector4");
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array vector4");
    for (const std::size_t n :
         {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{5}, std::size_t{4099}})
      for (const std::size_t at : {std::size_t{0}, std::size_t{1}, std::size_t{4}, std::size_t{5}}) {
        CAPTURE(n);
        CAPTURE(at);
        const std::vector<float> x = random_floats(rng, n + at), y = random_floats(rng, n + at);
        std::vector<std::int32_t> k(n + at);
        for (std::int32_t& v : k) v = static_cast<std::int32_t>(rng() % 201) - 100;
        const Array X = floats(q, x, {n + at}).index({Slice{std::int64_t(at), none}});
        const Array Y = floats(q, y, {n + at}).index({Slice{std::int64_t(at), none}});
        const Array K = duet::from_host<std::int32_t>(q, k, {n + at}).index({Slice{std::int64_t(at), none}});
        const Array out =
            duet::full(q, {n + at}, std::nanf(""), ScalarType::f32).index({Slice{std::int64_t(at), none}});
        duet::assign(q, out, 2.5f * X + Y - K);
        const std::vector<float> got = out.to_vector<float>(q);
        REQUIRE(got.size() == n);
        for (std::size_t i = 0; i < n; ++i) {
          const double want = 2.5 * x[at + i] + y[at + i] - k[at + i];
          CHECK(std::fabs(got[i] - want) <= 4 * kUnitRoundoff * (1 + std::fabs(want)));
        }
      }
    compiles_for_cuda(duet::sqrt(floats(q, {1, 2, 3, 4, 5}, {5})), ScalarType::f32, true);
  });
}

TEST_CASE("array expressions: broadcasting and views as operands") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array broadcast");
    const std::vector<float> c = random_floats(rng, 5), r = random_floats(rng, 7),
                             m = random_floats(rng, 5 * 7);
    const Array col = floats(q, c, {5, 1}), row = floats(q, r, {7}), mat = floats(q, m, {5, 7});
    const duet::Expr outer = col * row;
    CHECK(outer.shape() == duet::Shape{5, 7});
    const std::vector<float> o = duet::evaluate(q, outer - mat).to_vector<float>(q);
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = 0; j < 7; ++j)
        CHECK(o[i * 7 + j] == doctest::Approx(double(c[i]) * r[j] - m[i * 7 + j]));
    // mat[::-1, ::2] + row[::2]: reversed rows, every second column.
    const Array flipped = mat.index({Slice{none, none, -1}, Slice{none, none, 2}});
    const Array every2 = row.index({Slice{none, none, 2}});
    const std::vector<float> v = duet::evaluate(q, flipped + every2).to_vector<float>(q);
    REQUIRE(v.size() == 5 * 4);
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = 0; j < 4; ++j) CHECK(v[i * 4 + j] == m[(4 - i) * 7 + 2 * j] + r[2 * j]);
    compiles_for_cuda(flipped + every2, ScalarType::f32, false);
    CHECK_THROWS_WITH_AS(mat + floats(q, c, {5}), doctest::Contains("(5, 7) and (5,) do not broadcast"),
                         duet::ArgumentError);
  });
}

// Innermost axes of 32 elements or more take the strided kernel's rows form (4 elements of a row
// per work-item a group's width apart, or a run of 64 on CPUs, looping over the rows); its innermost strides
// of 1, 0 and others are written into the source.
void long_rows();

TEST_CASE("array expressions: broadcasting over long rows") { with_gpu_forms(long_rows); }

void long_rows() {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array rows");
    for (std::size_t w :
         {std::size_t{32}, std::size_t{67}, std::size_t{131}, std::size_t{200}, std::size_t{1031}}) {
      CAPTURE(w);
      const std::size_t h = 13;
      const std::vector<float> m = random_floats(rng, h * w), r = random_floats(rng, w),
                               c = random_floats(rng, h);
      const Array mat = floats(q, m, {h, w}), row = floats(q, r, {w}), col = floats(q, c, {h, 1});
      // m + row (strides 1 and 1), m * col (0 along the row), row reversed (-1).
      const Array reversed = row.index({Slice{none, none, -1}});
      const std::vector<float> a = duet::evaluate(q, mat + row * col - reversed).to_vector<float>(q);
      REQUIRE(a.size() == h * w);
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j)
          CHECK(a[i * w + j] == doctest::Approx(double(m[i * w + j]) + double(r[j]) * c[i] - r[w - 1 - j]));
      // A transposed operand (its rows run down the columns) and a 3-D broadcast, into a poisoned
      // view of a larger array.
      const std::vector<float> t = random_floats(rng, w * h);
      const Array tmat = floats(q, t, {w, h}).transpose({1, 0});
      const Array big = duet::full(q, {3, h, w + 5}, std::nan(""));
      const Array view = big.index({Slice{}, Slice{}, Slice{2, std::int64_t(w) + 2, 1}});
      const Array stack = floats(q, std::vector<float>{1.0f, 2.0f, 3.0f}, {3, 1, 1});
      duet::assign(q, view, tmat * stack + mat);
      const std::vector<float> b = big.to_vector<float>(q);
      for (std::size_t s = 0; s < 3; ++s)
        for (std::size_t i = 0; i < h; ++i)
          for (std::size_t j = 0; j < w + 5; ++j) {
            const float got = b[(s * h + i) * (w + 5) + j];
            if (j < 2 || j >= w + 2) {
              CHECK(std::isnan(got));
            } else {
              const std::size_t k = j - 2;
              CHECK(got == doctest::Approx(double(t[k * h + i]) * double(s + 1) + m[i * w + k]));
            }
          }
      if (w == 67 && offline_nvrtc_checks()) {
        compiles_for_cuda(mat + row * col - reversed, ScalarType::f32, false);
        std::size_t bytes = 0;
        try {
          bytes = duet::compile_for_cuda_arch(
              duet::fused_source(tmat * stack + mat, ScalarType::f32, false, false, true, true), {}, "sm_90",
              "fused_rows.duet");
        } catch (const duet::BackendUnavailableError&) {
          bytes = 1;  // no NVRTC here
        }
        CHECK(bytes > 0);
      }
    }
  });
}

// A structure evaluated again takes its kernel from the first evaluation (no source written), so
// the parameters must find the new operands: arrays and scalars in every position, one array node
// and one scalar node met twice, the scalar at two types (float32 beside a float array, float64
// beside an int32 one), flat and strided.
TEST_CASE("array expressions: a repeated structure takes new operands") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array repeat");
    const std::size_t n = 37;
    for (int rep = 0; rep < 3; ++rep) {
      CAPTURE(rep);
      const std::vector<float> a = random_floats(rng, n), b = random_floats(rng, n),
                               c = random_floats(rng, n);
      std::vector<std::int32_t> k(n);
      for (std::int32_t& v : k) v = static_cast<std::int32_t>(rng() % 201) - 100;
      const double scale = 0.5 + rep;
      const Array A = floats(q, a, {n}), B = floats(q, b, {n}), C = floats(q, c, {n});
      const Array K = duet::from_host<std::int32_t>(q, k, {n});
      const duet::Expr x(A), s = duet::Expr::float_scalar(scale);
      const duet::Expr e = x * s + B * (x - s) + C + K * s;
      REQUIRE(e.dtype() == ScalarType::f64);
      const std::vector<double> got = duet::evaluate(q, e).to_vector<double>(q);
      for (std::size_t i = 0; i < n; ++i) {
        const double af = a[i], sf = static_cast<float>(scale);
        const double want = af * sf + double(b[i]) * (af - sf) + c[i] + double(k[i]) * scale;
        CHECK(got[i] == doctest::Approx(want).epsilon(1e-5));
      }
      // Strided: every second element of each, reversed.
      const Slice back{none, none, -2};
      const duet::Expr v(A.index({back}));
      const std::vector<double> g2 =
          duet::evaluate(q, v * s + B.index({back}) * (v - s) + C.index({back}) + K.index({back}) * s)
              .to_vector<double>(q);
      REQUIRE(g2.size() == (n + 1) / 2);
      for (std::size_t j = 0; j < g2.size(); ++j) {
        const std::size_t i = n - 1 - 2 * j;
        const double af = a[i], sf = static_cast<float>(scale);
        CHECK(
            g2[j] ==
            doctest::Approx(af * sf + double(b[i]) * (af - sf) + c[i] + double(k[i]) * scale).epsilon(1e-5));
      }
    }
  });
}

TEST_CASE("array expressions: dtypes, comparisons, where, functions, NaN and half") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::vector<std::int32_t> iv{-7, -1, 0, 3, 12};
    const Array I = duet::from_host<std::int32_t>(q, iv, {5});
    CHECK((I * 2).dtype() == ScalarType::i32);
    CHECK(duet::evaluate(q, I * 2 + 1).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{-13, -1, 1, 7, 25});
    CHECK(duet::evaluate(q, duet::abs(I)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{7, 1, 0, 3, 12});
    CHECK((I > 0).dtype() == ScalarType::b8);
    CHECK(duet::evaluate(q, I > 0).to_vector<bool>(q) == std::vector<bool>{false, false, false, true, true});
    CHECK(duet::evaluate(q, duet::where(I > 0, I, -I)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{7, 1, 0, 3, 12});
    CHECK(duet::evaluate(q, duet::clip(I, -2, 5)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{-2, -1, 0, 3, 5});
    if (dev.info().supports_double) {
      CHECK((I / I).dtype() == ScalarType::f64);
      CHECK((I * 0.5).dtype() == ScalarType::f64);
      CHECK(duet::evaluate(q, I * 0.5).to_vector<double>(q) == std::vector<double>{-3.5, -0.5, 0, 1.5, 6});
    } else {
      CHECK_THROWS_AS(duet::evaluate(q, I * 0.5), duet::ArgumentError);
    }
    const std::vector<float> fv{0.25f, 1.0f, 2.5f, 9.0f, 0.75f};
    const Array F = floats(q, fv, {5});
    struct Fn {
      const char* name;
      duet::Expr (*device)(const duet::Expr&);
      double (*host)(double);
    };
    const Fn fns[] = {{"sqrt", duet::sqrt, [](double v) { return std::sqrt(v); }},
                      {"exp", duet::exp, [](double v) { return std::exp(v); }},
                      {"log", duet::log, [](double v) { return std::log(v); }},
                      {"sin", duet::sin, [](double v) { return std::sin(v); }},
                      {"cos", duet::cos, [](double v) { return std::cos(v); }},
                      {"tanh", duet::tanh, [](double v) { return std::tanh(v); }},
                      {"floor", duet::floor, [](double v) { return std::floor(v); }},
                      {"ceil", duet::ceil, [](double v) { return std::ceil(v); }}};
    for (const Fn& f : fns) {
      INFO(f.name);
      const std::vector<float> got = duet::evaluate(q, f.device(F)).to_vector<float>(q);
      for (std::size_t i = 0; i < fv.size(); ++i)
        CHECK(got[i] == doctest::Approx(f.host(fv[i])).epsilon(4e-7));
      compiles_for_cuda(f.device(F), ScalarType::f32, true);
    }
    // NaN wins in maximum and minimum, as in numpy.
    const Array N = floats(q, {1.0f, NAN, 3.0f}, {3});
    const Array M = floats(q, {2.0f, 0.0f, NAN}, {3});
    const std::vector<float> mx = duet::evaluate(q, duet::maximum(N, M)).to_vector<float>(q);
    CHECK(mx[0] == 2.0f);
    CHECK(std::isnan(mx[1]));
    CHECK(std::isnan(mx[2]));
    CHECK(duet::evaluate(q, duet::astype(F * 4, ScalarType::i32)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{1, 4, 10, 36, 3});
    // half storage: computed in float, rounded when stored.
    const std::vector<duet::half> hv{duet::half::from_float(1.5f), duet::half::from_float(-2.0f)};
    const Array H = duet::from_host<duet::half>(q, hv, {2});
    CHECK((H * H).dtype() == ScalarType::f16);
    CHECK((H + floats(q, {1.0f, 1.0f}, {2})).dtype() == ScalarType::f32);
    const std::vector<duet::half> h2 = duet::evaluate(q, H * H + 0.1).to_vector<duet::half>(q);
    CHECK(h2[0].bits == duet::half::from_float(2.35f).bits);
    CHECK(h2[1].bits == duet::half::from_float(4.1f).bits);
    CHECK(duet::evaluate(q, duet::power(I, 2)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{49, 1, 0, 9, 144});  // integer powers: tests/test_array_ops.cpp
    CHECK(duet::evaluate(q, duet::power(F, 2.0f)).to_vector<float>(q)[2] == doctest::Approx(6.25));
  });
}

TEST_CASE("array expressions: assign into views and in place, overlapping included") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::vector<float> base{0, 1, 2, 3, 4, 5, 6, 7};
    Array a = floats(q, base, {8});
    // Into every second element of a NaN-poisoned array; the others keep their NaN.
    const Array out = duet::full(q, {16}, std::nan(""));
    duet::assign(q, out.index({Slice{none, none, 2}}), a * 10);
    const std::vector<float> o = out.to_vector<float>(q);
    for (std::size_t i = 0; i < 16; ++i) {
      if (i % 2 == 0)
        CHECK(o[i] == 10.0f * base[i / 2]);
      else
        CHECK(std::isnan(o[i]));
    }
    // In place: a = a * 2 + 1.
    duet::assign(q, a, a * 2 + 1);
    CHECK(a.to_vector<float>(q) == std::vector<float>{1, 3, 5, 7, 9, 11, 13, 15});
    // Overlapping: a[1:] = a[:-1] shifts as if a were read first.
    duet::assign(q, a.index({Slice{1, none}}), a.index({Slice{none, -1}}));
    CHECK(a.to_vector<float>(q) == std::vector<float>{1, 1, 3, 5, 7, 9, 11, 13});
    // A row broadcast into every row of a matrix.
    const Array m = duet::zeros(q, {3, 4});
    duet::assign(q, m, floats(q, {1, 2, 3, 4}, {4}) + 0);
    CHECK(m.to_vector<float>(q) == std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4});
    CHECK_THROWS_WITH_AS(duet::assign(q, m, floats(q, {1, 2, 3}, {3}) + 0),
                         doctest::Contains("does not broadcast"), duet::ArgumentError);
    CHECK_THROWS_AS(duet::evaluate(q, duet::Expr::scalar(2) + 3), duet::ArgumentError);
  });
}
