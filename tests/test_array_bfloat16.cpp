// The bfloat16 dtype (ScalarType::bf16) of duet::Array on every device, against a double-precision
// host reference on random inputs of awkward shapes (0-d, empty, one element, prime extents,
// broadcast rows, reversed and stepped views): creation and reading back, conversion to and from
// every type rounded once to nearest even, arithmetic and math functions computed in float and
// stored as bfloat16 (within bfloat16's 8-bit precision), comparisons, promotion, reductions and
// scans accumulated in float, sort, argsort, searchsorted, unique, take, put and nonzero. Results that
// bfloat16 holds exactly are checked bit for bit. The generated kernels compile for sm_90 through
// NVRTC where NVRTC is present.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::bfloat16;
using duet::Expr;
using duet::ScalarType;
using duet::Slice;
constexpr std::nullopt_t none = std::nullopt;
constexpr double kBfEps = 1.0 / 128;  // bfloat16's ulp at 1: 7 stored mantissa bits

double value_of(bfloat16 b) { return b.to_float(); }
bfloat16 from_bits(std::uint16_t bits) {
  bfloat16 b;
  b.bits = bits;
  return b;
}

// `x` rounded once to the nearest bfloat16, ties to the even one: chosen among the neighbours of a
// first guess by their distance from x in long double, independent of how duet rounds.
bfloat16 reference_bf16(long double x) {
  if (std::isnan(x)) return from_bits(0x7fc0);
  const bfloat16 guess = bfloat16::from_float(static_cast<float>(x));
  bfloat16 best = guess;
  long double best_d = INFINITY;
  for (int step = -2; step <= 2; ++step) {
    const bfloat16 c = from_bits(static_cast<std::uint16_t>(guess.bits + step));
    const long double v = value_of(c);
    if (std::isnan(v) || (std::signbit(v) != std::signbit(x) && v != 0)) continue;
    const long double d = std::fabs(v - x);
    if (d < best_d || (d == best_d && (c.bits & 1) == 0)) best = c, best_d = d;
  }
  // Past the largest bfloat16 by half a unit or more: infinity.
  const long double top = 3.3895313892515355e38L, half_unit = 0x1p119L;
  if (std::fabs(x) >= top + half_unit) return from_bits(x > 0 ? 0x7f80 : 0xff80);
  return best;
}

std::vector<bfloat16> random_bf16(std::mt19937_64& rng, std::size_t n, float lo = -4.0f, float hi = 4.0f) {
  std::vector<bfloat16> v;
  for (float x : random_floats(rng, n, lo, hi)) v.push_back(bfloat16::from_float(x));
  return v;
}

std::vector<std::uint16_t> bits_of(const std::vector<bfloat16>& v) {
  std::vector<std::uint16_t> out;
  for (bfloat16 b : v) out.push_back(b.bits);
  return out;
}

Array from_bf16(duet::Queue& q, const std::vector<bfloat16>& v, const duet::Shape& shape) {
  return duet::from_host<bfloat16>(q, v, shape);
}

// Whether `got` is within bfloat16's rounding of the exact `want`: half a unit of the last place
// for the final rounding plus `slack` units for the float arithmetic before it.
bool near(double got, double want, double slack = 1.0) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= (0.5 + slack) * kBfEps * std::fabs(want) + 1e-38;
}

// The kernel of `e` writing `out` compiles for CUDA, where NVRTC can be loaded (it needs no GPU).
void compiles_for_cuda(const Expr& e, ScalarType out) {
  if (!offline_nvrtc_checks()) return;
  std::size_t bytes = 0;
  try {
    bytes =
        std::min(duet::compile_for_cuda_arch(duet::fused_source(e, out, true), {}, "sm_90", "fused.duet"),
                 duet::compile_for_cuda_arch(duet::fused_source(e, out, false), {}, "sm_90", "fused.duet"));
  } catch (const duet::BackendUnavailableError&) {
    return;
  }
  CHECK(bytes > 0);
}

// NaN last, as numpy sorts.
bool float_less(float a, float b) { return std::isnan(b) ? !std::isnan(a) : a < b; }

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("bfloat16 arrays: promotion") {
  using T = ScalarType;
  CHECK(duet::promote_types(T::bf16, T::bf16) == T::bf16);
  // Neither half type holds the other's values: they meet in float32, as in JAX and ml_dtypes.
  CHECK(duet::promote_types(T::bf16, T::f16) == T::f32);
  CHECK(duet::promote_types(T::f16, T::bf16) == T::f32);
  CHECK(duet::promote_types(T::bf16, T::f32) == T::f32);
  CHECK(duet::promote_types(T::bf16, T::f64) == T::f64);
  // bool and the integers bfloat16's 8 bits hold; wider integers as they go with float16.
  for (T t : {T::b8, T::i8, T::u8}) {
    CHECK(duet::promote_types(T::bf16, t) == T::bf16);
    CHECK(duet::promote_types(t, T::bf16) == T::bf16);
  }
  CHECK(duet::promote_types(T::bf16, T::i16) == T::f32);
  CHECK(duet::promote_types(T::bf16, T::u16) == T::f32);
  CHECK(duet::promote_types(T::bf16, T::i32) == T::f64);
  CHECK(duet::promote_types(T::bf16, T::u64) == T::f64);
  // Every other pair as before.
  CHECK(duet::promote_types(T::f16, T::u8) == T::f16);
  CHECK(duet::promote_types(T::f16, T::i16) == T::f32);
  CHECK(duet::promote_types(T::u8, T::i8) == T::i16);
  CHECK(duet::promote_types(T::i16, T::f32) == T::f32);
  CHECK(duet::promote_types(T::i32, T::f32) == T::f64);
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("device");

TEST_CASE("bfloat16 arrays: creation and reading back, at awkward shapes") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bf16 create");
    for (const duet::Shape& shape : awkward_shapes()) {
      CAPTURE(duet::shape_text(shape));
      const std::size_t n = duet::element_count(shape);
      const std::vector<bfloat16> v = random_bf16(rng, n);
      const Array A = from_bf16(q, v, shape);
      CHECK(A.dtype() == ScalarType::bf16);
      CHECK(A.itemsize() == 2);
      CHECK(bits_of(A.to_vector<bfloat16>(q)) == bits_of(v));
      CHECK(bits_of(duet::zeros(q, shape, ScalarType::bf16).to_vector<bfloat16>(q)) ==
            std::vector<std::uint16_t>(n, 0));
      CHECK(bits_of(duet::ones(q, shape, ScalarType::bf16).to_vector<bfloat16>(q)) ==
            std::vector<std::uint16_t>(n, 0x3f80));
      // full rounds its double once: 1/3 and a value just past a halfway point that float rounds
      // onto it.
      for (double value : {1.0 / 3.0, 1.0 + 1.0 / 256 + 1e-12, -3e38, 1e39}) {
        CAPTURE(value);
        CHECK(bits_of(duet::full(q, shape, value, ScalarType::bf16).to_vector<bfloat16>(q)) ==
              std::vector<std::uint16_t>(n, reference_bf16(value).bits));
      }
    }
    // arange counts exactly up to 256, then in steps of the bfloat16 grid.
    const std::vector<bfloat16> r = duet::arange(q, 0, 300, 1, ScalarType::bf16).to_vector<bfloat16>(q);
    REQUIRE(r.size() == 300);
    for (std::size_t i = 0; i < r.size(); ++i) CHECK(r[i].bits == reference_bf16(double(i)).bits);
  });
}

TEST_CASE("bfloat16 arrays: astype to and from every type, rounded once") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bf16 astype");
    const bool fp64 = dev.info().supports_double;
    // float32: random values over a wide range, halfway cases, NaN, the infinities, overflow.
    std::vector<float> f = random_floats(rng, 211, -3.0f, 3.0f);
    for (float& x : f) x = std::ldexp(x, int(rng() % 200) - 100);
    for (float x : {1.0f + 1.0f / 256, 1.0f + 3.0f / 256, -1.0f - 1.0f / 256, kNaN, INFINITY, -INFINITY,
                    3.4e38f, -0.0f, 1e-40f})
      f.push_back(x);
    const Array F = duet::from_host<float>(q, f, {f.size()});
    const std::vector<bfloat16> got = duet::evaluate(q, duet::astype(F, ScalarType::bf16)).to_vector<bfloat16>(q);
    for (std::size_t i = 0; i < f.size(); ++i) {
      CAPTURE(f[i]);
      if (std::isnan(f[i]))
        CHECK(std::isnan(value_of(got[i])));
      else
        CHECK(got[i].bits == reference_bf16(f[i]).bits);
    }
    // Integers of more than float's 24 bits: float alone would round 2^25 + 2^17 + 1 onto the
    // halfway point 2^25 + 2^17 and then to the even 2^25.
    const std::vector<std::int64_t> big = {(1LL << 25) + (1LL << 17) + 1, -((1LL << 25) + (1LL << 17) + 1),
                                           (1LL << 25) + (1LL << 17), (1LL << 40) + (1LL << 32) + 7,
                                           (1LL << 62) + (1LL << 54) + 1, 255, -256, 0};
    for (ScalarType t : {ScalarType::i64, ScalarType::i32, ScalarType::u64, ScalarType::u32}) {
      CAPTURE(std::string(duet::to_string(t)));
      const Array I = duet::evaluate(q, duet::astype(duet::from_host<std::int64_t>(q, big, {big.size()}), t));
      const std::vector<bfloat16> b = duet::evaluate(q, duet::astype(I, ScalarType::bf16)).to_vector<bfloat16>(q);
      for (std::size_t i = 0; i < big.size(); ++i) {
        long double want = static_cast<long double>(big[i]);
        if (t == ScalarType::i32) want = static_cast<std::int32_t>(big[i]);
        if (t == ScalarType::u32) want = static_cast<std::uint32_t>(big[i]);
        if (t == ScalarType::u64) want = static_cast<std::uint64_t>(big[i]);
        CAPTURE(i);
        CHECK(b[i].bits == reference_bf16(want).bits);
      }
      compiles_for_cuda(duet::astype(I, ScalarType::bf16), ScalarType::bf16);
    }
    if (fp64) {
      // Doubles just past halfway points, which float would round onto them.
      std::vector<double> d;
      for (int k = 0; k < 300; ++k) {
        const double base = std::ldexp(1.0 + double(rng() % 128) / 128 + 1.0 / 256, int(rng() % 60) - 30);
        d.push_back(k % 2 ? base * (1 + 1e-12) : -base * (1 - 1e-12));
      }
      const Array D = duet::from_host<double>(q, d, {d.size()});
      const std::vector<bfloat16> b = duet::evaluate(q, duet::astype(D, ScalarType::bf16)).to_vector<bfloat16>(q);
      for (std::size_t i = 0; i < d.size(); ++i) CHECK(b[i].bits == reference_bf16(d[i]).bits);
      compiles_for_cuda(duet::astype(D, ScalarType::bf16), ScalarType::bf16);
    }
    // From bfloat16 to every type: small whole numbers, which every type holds, on a reversed view.
    const std::vector<int> ints = random_ints(rng, 2 * 31, 0, 100);
    std::vector<bfloat16> hb;
    for (int x : ints) hb.push_back(bfloat16::from_float(float(x)));
    const Array B = from_bf16(q, hb, {2, 31}).index({Slice{none, none, -1}, Slice{none, none, -1}});
    for (ScalarType t : duet::scalar_types) {
      if (t == ScalarType::f64 && !fp64) continue;
      CAPTURE(std::string(duet::to_string(t)));
      const Array X = duet::evaluate(q, duet::astype(B, t));
      const std::vector<float> got_f =
          duet::evaluate(q, duet::astype(X, ScalarType::f32)).to_vector<float>(q);
      const std::vector<bfloat16> round_trip =
          duet::evaluate(q, duet::astype(X, ScalarType::bf16)).to_vector<bfloat16>(q);
      compiles_for_cuda(duet::astype(B, t), t);
      compiles_for_cuda(duet::astype(X, ScalarType::bf16), ScalarType::bf16);
      for (std::size_t k = 0; k < ints.size(); ++k) {
        const int want = ints[ints.size() - 1 - k];
        CHECK(got_f[k] == (t == ScalarType::b8 ? float(want != 0) : float(want)));
        CHECK(round_trip[k].bits == bfloat16::from_float(t == ScalarType::b8 ? float(want != 0) : float(want)).bits);
      }
    }
  });
}

TEST_CASE("bfloat16 arrays: arithmetic, math functions, comparisons and where on views and rows") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bf16 elementwise");
    with_gpu_forms([&] {
      // a: the reversed, stepped view of a (7, 2 * 13) matrix; b: a (7, 13) matrix; row: b's row 3,
      // broadcast over the rows.
      const std::size_t rows = 7, cols = 13, n = rows * cols;
      const std::vector<bfloat16> wide = random_bf16(rng, rows * 2 * cols, 0.25f, 4.0f);
      std::vector<bfloat16> m = random_bf16(rng, n);
      m[5] = bfloat16::from_float(kNaN);
      const Array a = from_bf16(q, wide, {rows, 2 * cols}).index({Slice{none, none, -1}, Slice{none, none, 2}});
      const Array b = from_bf16(q, m, {rows, cols});
      std::vector<double> ha, hb;
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) ha.push_back(value_of(wide[(rows - 1 - r) * 2 * cols + 2 * c]));
      for (bfloat16 x : m) hb.push_back(value_of(x));
      struct Case {
        const char* name;
        Expr e;
        double (*host)(double, double);
        double slack;  // units of bfloat16's last place beyond the final rounding; < 0: bit for bit
      };
      const Case cases[] = {
          {"+", a + b, [](double x, double y) { return x + y; }, 0.01},
          {"-", a - b, [](double x, double y) { return x - y; }, 0.01},
          {"*", a * b, [](double x, double y) { return x * y; }, 0.01},
          {"/", a / b, [](double x, double y) { return x / y; }, 0.01},
          {"* 0.5", a * 0.5, [](double x, double) { return x * 0.5; }, -1},
          {"+ 1", a + 1, [](double x, double) { return x + 1; }, 0.01},
          {"neg", -Expr(a), [](double x, double) { return -x; }, -1},
          {"abs", duet::abs(b), [](double, double y) { return std::fabs(y); }, -1},
          {"maximum", duet::maximum(a, b), [](double x, double y) { return std::isnan(y) ? y : std::max(x, y); }, -1},
          {"sqrt", duet::sqrt(a), [](double x, double) { return std::sqrt(x); }, 0.01},
          {"exp", duet::exp(b), [](double, double y) { return std::exp(y); }, 0.01},
          {"log", duet::log(a), [](double x, double) { return std::log(x); }, 0.01},
          {"sin", duet::sin(b), [](double, double y) { return std::sin(y); }, 0.01},
          {"tanh", duet::tanh(b), [](double, double y) { return std::tanh(y); }, 0.01},
          {"floor", duet::floor(b), [](double, double y) { return std::floor(y); }, -1},
          {"where", duet::where(b > 0, a, b), [](double x, double y) { return y > 0 ? x : y; }, -1},
      };
      for (const Case& c : cases) {
        CAPTURE(c.name);
        CHECK(c.e.dtype() == ScalarType::bf16);
        const std::vector<bfloat16> got = duet::evaluate(q, c.e).to_vector<bfloat16>(q);
        REQUIRE(got.size() == n);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const double want = c.host(ha[i], hb[i]);
          if (c.slack < 0)
            bad += std::isnan(want) ? !std::isnan(value_of(got[i])) : got[i].bits != reference_bf16(want).bits;
          else
            bad += !near(value_of(got[i]), want, c.slack);
        }
        CHECK(bad == 0);
        compiles_for_cuda(c.e, ScalarType::bf16);
      }
      // Comparisons give bool, bit for bit; a broadcast row.
      const Array row = b[3];
      const std::vector<bool> lt = duet::evaluate(q, a < row).to_vector<bool>(q);
      const std::vector<bool> nan = duet::evaluate(q, duet::isnan(b)).to_vector<bool>(q);
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(lt[i] == (ha[i] < hb[3 * cols + i % cols]));
        CHECK(nan[i] == std::isnan(hb[i]));
      }
      compiles_for_cuda(a < row, ScalarType::b8);
      // Mixed with other types: promoted, and exact where the wider type holds the result.
      const Array h = duet::evaluate(q, duet::astype(b, ScalarType::f16));
      const Expr mixed = a + h;
      CHECK(mixed.dtype() == ScalarType::f32);
      const std::vector<float> got_mixed = duet::evaluate(q, mixed).to_vector<float>(q);
      for (std::size_t i = 0; i < n; ++i)
        if (!std::isnan(hb[i]) && std::fabs(hb[i]) > 1e-4)
          CHECK(std::fabs(got_mixed[i] - (ha[i] + hb[i])) <= 1e-3 * std::fabs(hb[i]) + 1e-6 * std::fabs(ha[i]));
      // Assigning a float32 expression into a bfloat16 array rounds it once.
      const Array out = duet::zeros(q, {rows, cols}, ScalarType::bf16);
      duet::assign(q, out, duet::astype(a, ScalarType::f32) / 3.0f);
      const std::vector<bfloat16> third = out.to_vector<bfloat16>(q);
      for (std::size_t i = 0; i < n; ++i)
        CHECK(third[i].bits == bfloat16::from_float(float(ha[i]) / 3.0f).bits);
    });
  });
}

TEST_CASE("bfloat16 arrays: reductions and scans accumulate in float") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bf16 reduce");
    for (const duet::Shape& shape :
         {duet::Shape{1, 1}, duet::Shape{3, 0}, duet::Shape{5, 997}, duet::Shape{31, 7}}) {
      CAPTURE(duet::shape_text(shape));
      const std::size_t rows = shape[0], cols = shape[1], n = rows * cols;
      const std::vector<bfloat16> v = random_bf16(rng, n, -1.0f, 1.0f);
      std::vector<double> h;
      for (bfloat16 x : v) h.push_back(value_of(x));
      const Array A = from_bf16(q, v, shape);
      const Array T = A.T();  // a transposed view
      double total = 0, magnitude = 0;
      for (double x : h) total += x, magnitude += std::fabs(x);
      // A float sum's error, then bfloat16's rounding of it.
      auto sum_ok = [&](double got, double want, double mag, std::size_t terms) {
        return std::fabs(got - want) <= 0.5 * kBfEps * std::fabs(want) + double(terms) * 6e-8 * mag + 1e-30;
      };
      const Array s = duet::sum(q, A);
      CHECK(s.dtype() == ScalarType::bf16);
      CHECK(sum_ok(value_of(s.to_vector<bfloat16>(q)[0]), total, magnitude, n));
      // A sum of 997 values of one sign would lose most of its bits in bfloat16 additions.
      if (n > 0) {
        const Array ones = duet::ones(q, shape, ScalarType::bf16);
        CHECK(value_of(duet::sum(q, ones).to_vector<bfloat16>(q)[0]) == value_of(reference_bf16(double(n))));
        const Array m = duet::mean(q, A);
        CHECK(m.dtype() == ScalarType::bf16);
        CHECK(sum_ok(value_of(m.to_vector<bfloat16>(q)[0]), total / double(n), magnitude / double(n), n));
        const double hi = *std::max_element(h.begin(), h.end()), lo = *std::min_element(h.begin(), h.end());
        CHECK(value_of(duet::max(q, A).to_vector<bfloat16>(q)[0]) == hi);
        CHECK(value_of(duet::min(q, A).to_vector<bfloat16>(q)[0]) == lo);
        CHECK(duet::argmax(q, A).to_vector<std::int64_t>(q)[0] ==
              std::int64_t(std::max_element(h.begin(), h.end()) - h.begin()));
        CHECK(duet::argmin(q, A).to_vector<std::int64_t>(q)[0] ==
              std::int64_t(std::min_element(h.begin(), h.end()) - h.begin()));
      }
      // Along an axis of the transposed view: the column sums, and products of values near 1.
      const std::vector<bfloat16> per_col = duet::sum(q, T, std::int64_t{1}).to_vector<bfloat16>(q);
      for (std::size_t c = 0; c < cols; ++c) {
        double k = 0, mag = 0;
        for (std::size_t r = 0; r < rows; ++r) k += h[r * cols + c], mag += std::fabs(h[r * cols + c]);
        CHECK(sum_ok(value_of(per_col[c]), k, mag, rows));
      }
      const Array near_one = duet::evaluate(q, duet::astype(A, ScalarType::bf16) * 0.0625 + 1);
      const std::vector<bfloat16> hn = near_one.to_vector<bfloat16>(q);
      const std::vector<bfloat16> prods = duet::prod(q, near_one, std::int64_t{0}).to_vector<bfloat16>(q);
      for (std::size_t c = 0; c < cols; ++c) {
        double p = 1;
        for (std::size_t r = 0; r < rows; ++r) p *= value_of(hn[r * cols + c]);
        CHECK(std::fabs(value_of(prods[c]) - p) <= (0.5 * kBfEps + double(rows) * 1.2e-7) * p);
      }
      // Running sums, each one rounded once from float.
      const Array run = duet::cumsum(q, A, std::int64_t{1});
      CHECK(run.dtype() == ScalarType::bf16);
      const std::vector<bfloat16> got_run = run.to_vector<bfloat16>(q);
      std::size_t bad = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        double acc = 0, mag = 0;
        for (std::size_t c = 0; c < cols; ++c) {
          acc += h[r * cols + c], mag += std::fabs(h[r * cols + c]);
          bad += !sum_ok(value_of(got_run[r * cols + c]), acc, mag, c + 1);
        }
      }
      CHECK(bad == 0);
    }
  });
}

TEST_CASE("bfloat16 arrays: sort, argsort, searchsorted, unique, take, put and nonzero") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bf16 sort");
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{131}, std::size_t{4099}}) {
      CAPTURE(n);
      // Few distinct values (bfloat16 has 256 per octave), the infinities and a NaN.
      std::vector<bfloat16> v = random_bf16(rng, n, -8.0f, 8.0f);
      if (n > 100) {
        v[3] = bfloat16::from_float(kNaN);
        v[7] = bfloat16::from_float(INFINITY);
        v[11] = bfloat16::from_float(-INFINITY);
      }
      std::vector<float> h;
      for (bfloat16 x : v) h.push_back(x.to_float());
      const Array A = from_bf16(q, v, {n});
      std::vector<std::int64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::int64_t x, std::int64_t y) { return float_less(h[x], h[y]); });
      const std::vector<bfloat16> sorted = duet::sort(q, A).to_vector<bfloat16>(q);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const float want = h[order[i]];
        bad += std::isnan(want) ? !std::isnan(sorted[i].to_float()) : sorted[i].bits != v[order[i]].bits;
      }
      CHECK(bad == 0);
      CHECK(duet::argsort(q, A).to_vector<std::int64_t>(q) == order);
      // Descending: the reverse order of the values, stable.
      const std::vector<bfloat16> down = duet::sort(q, A, -1, true).to_vector<bfloat16>(q);
      bad = 0;
      for (std::size_t i = 1; i < n; ++i) bad += float_less(down[i - 1].to_float(), down[i].to_float());
      CHECK(bad == 0);
      // searchsorted of the values themselves into the sorted array: each one's first position.
      const Array S = duet::sort(q, A);
      std::vector<float> hs;
      for (std::size_t i = 0; i < n; ++i) hs.push_back(h[order[i]]);
      const std::vector<std::int64_t> at = duet::searchsorted(q, S, A).to_vector<std::int64_t>(q);
      for (std::size_t i = 0; i < n; ++i)
        CHECK(at[i] == std::lower_bound(hs.begin(), hs.end(), h[i], float_less) - hs.begin());
      // unique: the distinct values in order.
      std::vector<float> distinct;
      for (float x : hs)
        if (distinct.empty() || (std::isnan(x) ? true : distinct.back() != x)) distinct.push_back(x);
      const duet::Unique u = duet::unique_all(q, A);
      CHECK(u.values.dtype() == ScalarType::bf16);
      const std::vector<bfloat16> uv = u.values.to_vector<bfloat16>(q);
      REQUIRE(uv.size() == distinct.size());
      for (std::size_t i = 0; i < uv.size(); ++i)
        CHECK((std::isnan(distinct[i]) ? std::isnan(uv[i].to_float()) : uv[i].to_float() == distinct[i]));
      // take and put move the bits; nonzero treats -0 as zero and NaN as nonzero.
      const Array picked = duet::take(q, A, duet::argsort(q, A), 0);
      CHECK(bits_of(picked.to_vector<bfloat16>(q)) == bits_of(S.to_vector<bfloat16>(q)));
      const Array target = duet::zeros(q, {n}, ScalarType::bf16);
      duet::put(q, target, duet::argsort(q, A), S);
      CHECK(bits_of(target.to_vector<bfloat16>(q)) == bits_of(v));
    }
    const std::vector<bfloat16> z = {bfloat16::from_float(0.0f), bfloat16::from_float(-0.0f),
                                     bfloat16::from_float(kNaN), bfloat16::from_float(1e-40f),
                                     bfloat16::from_float(-2.0f)};
    CHECK(duet::flatnonzero(q, from_bf16(q, z, {z.size()})).to_vector<std::int64_t>(q) ==
          std::vector<std::int64_t>{2, 3, 4});
    if (offline_nvrtc_checks()) {
      try {
        CHECK(duet::compile_for_cuda_arch(duet::sort_source(ScalarType::bf16, true, false), {}, "sm_90",
                                          "sort.duet") > 0);
      } catch (const duet::BackendUnavailableError&) {
      }
    }
  });
}

TEST_SUITE_END();
