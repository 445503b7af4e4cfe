// The integer-aware elementwise operations of duet/array_expr.hpp on every device, against exact
// (integers) or double-precision (floats) host references with Python's semantics: floor_divide (//)
// and remainder (%), power of integers, the logical and bitwise functions and the shifts. Each
// runs over a reversed, stepped view, a contiguous matrix (the flat kernel), a broadcast row, a
// single element and an empty array, into poisoned outputs, with numpy's result dtype checked; then
// the edges that must not trap (x // 0, the lowest value // -1), float signs, the errors, and every
// kernel through NVRTC.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::Expr;
using duet::ScalarType;
using duet::Slice;
constexpr std::nullopt_t none = std::nullopt;

template <class T>
std::vector<T> draw(std::mt19937_64& rng, std::size_t n, double lo, double hi) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (T& x : v) x = static_cast<T>(d(rng));
  } else {
    std::uniform_int_distribution<std::int64_t> d(static_cast<std::int64_t>(lo),
                                                  static_cast<std::int64_t>(hi));
    for (T& x : v) x = static_cast<T>(d(rng));
  }
  return v;
}

// The kernel also compiles for CUDA (NVRTC needs no GPU), flat and strided (with the 32-bit index
// arithmetic that outputs under 2^32 elements run; test_array_expr.cpp compiles the 64-bit one).
void compiles_for_cuda(const Expr& e, ScalarType out) {
  if (!offline_nvrtc_checks()) return;
  for (bool flat : {true, false}) {
    std::size_t bytes = 0;
    try {
      bytes = duet::compile_for_cuda_arch(duet::fused_source(e, out, flat, false, !flat), {}, "sm_90",
                                          "fused.duet");
    } catch (const duet::BackendUnavailableError&) {
      return;  // no NVRTC here (outside CHECK, which would count the throw as a failure)
    }
    CHECK(bytes > 0);
  }
}

// `l` stretched to `shape` as broadcasting does (stride 0 where a length-1 or missing axis grows).
duet::Layout broadcast_to(const duet::Layout& l, const duet::Shape& shape) {
  duet::Layout b{shape, std::vector<std::int64_t>(shape.size(), 0), l.offset};
  const std::size_t lead = shape.size() - l.ndim();
  for (std::size_t k = 0; k < l.ndim(); ++k) b.strides[lead + k] = l.shape[k] == 1 ? 0 : l.strides[k];
  return b;
}

// A host reference: the expected value of one element (long double holds every 64-bit integer
// exactly), or nullopt where it is not checked.
template <class A, class B>
using Reference = std::function<std::optional<long double>(A, B)>;

// op(x, y) for x a view of a random A matrix and y of a random B one, over several layouts, assigned
// into a poisoned output of numpy's dtype `want` (element type R), against ref.
template <class R, class A, class B>
void check_binary(duet::Queue& q, std::mt19937_64& rng, const char* what,
                  const std::function<Expr(const Expr&, const Expr&)>& op, const Reference<A, B>& ref,
                  ScalarType want, std::pair<double, double> a_range, std::pair<double, double> b_range) {
  const std::size_t rows = 7, cols = 13;
  const std::vector<A> a = draw<A>(rng, rows * 2 * cols, a_range.first, a_range.second);
  const std::vector<B> b = draw<B>(rng, rows * cols, b_range.first, b_range.second);
  const Array wide = duet::from_host<A>(q, a, {rows, 2 * cols});
  const Array flat_a =
      duet::from_host<A>(q, std::vector<A>(a.begin(), a.begin() + rows * cols), {rows, cols});
  const Array m = duet::from_host<B>(q, b, {rows, cols});
  const Array reversed = wide.index({Slice{none, none, -1}, Slice{none, none, 2}});  // (rows, cols)
  const std::pair<Array, Array> cases[] = {
      {reversed, m},                                                // strided, negative stride
      {flat_a, m},                                                  // flat
      {reversed, m[3]},                                             // a row broadcast
      {flat_a.index({Slice{2, 3}, 5}), m.index({Slice{4, 5}, 1})},  // one element
      {reversed.index({Slice{0, 0}}), m.index({Slice{0, 0}})},      // empty
  };
  for (const std::pair<Array, Array>& xy : cases) {
    const Array &x = xy.first, &y = xy.second;  // not bindings: INFO's lambda captures them
    INFO(std::string(what), " over ", duet::shape_text(x.shape()), " and ", duet::shape_text(y.shape()));
    const Expr e = op(x, y);
    CHECK(e.dtype() == want);
    const Array out = duet::full(q, e.shape(), 77, want);  // poison
    duet::assign(q, out, e);
    const std::vector<R> got = out.to_vector<R>(q);
    const std::vector<A> xs = through_layout<A>(a, broadcast_to(x.layout(), e.shape()));
    const std::vector<B> ys = through_layout<B>(b, broadcast_to(y.layout(), e.shape()));
    REQUIRE(got.size() == xs.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::optional<long double> w = ref(xs[i], ys[i]);
      if (!w) continue;
      const double want_d = static_cast<double>(*w), scale = 1 + std::fabs(want_d) + std::fabs(double(xs[i]));
      const bool ok = std::is_integral_v<R> ? static_cast<long double>(got[i]) == *w
                      : std::isnan(want_d)
                          ? std::isnan(double(got[i]))
                          : std::fabs(got[i] - want_d) <= 4 * std::numeric_limits<R>::epsilon() * scale;
      if (!ok && bad++ < 5)
        MESSAGE(std::string(what), ": ", +xs[i], " and ", +ys[i], " gave ", +got[i], ", want ", want_d);
    }
    CHECK(bad == 0);
    compiles_for_cuda(e, want);
  }
}

// Python's // and % on exact integers (|a|, |b| < 2**31, so the quotient in double is exact).
double py_floordiv(double a, double b) { return b == 0 ? 0 : std::floor(a / b); }
double py_mod(double a, double b) { return b == 0 ? 0 : a - b * std::floor(a / b); }

// For floats: nullopt where a / b lies so near an integer that float rounding may pick either side.
std::optional<double> float_floordiv(double a, double b) {
  const double r = a / b;
  if (std::fabs(r - std::round(r)) < 1e-4 * (1 + std::fabs(r))) return std::nullopt;
  return std::floor(r);
}
std::optional<double> float_mod(double a, double b) {
  if (!float_floordiv(a, b)) return std::nullopt;
  return a - b * std::floor(a / b);
}

// a ** e with wrapping in R, by plain repeated multiplication; negative e by power()'s rule.
template <class R>
long double int_power(std::int64_t a, std::int64_t e) {
  if (e < 0) return a == 1 ? 1 : a == -1 ? (e % 2 ? -1 : 1) : 0;
  std::uint64_t r = 1;
  for (std::int64_t k = 0; k < e; ++k) r *= static_cast<std::uint64_t>(a);
  return static_cast<long double>(static_cast<R>(r));
}

bool truth(double x) { return x != 0 || std::isnan(x); }

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("array ops: floor_divide and remainder of integers and floats, Python's signs") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array floordiv");
    using T = ScalarType;
    const auto fdiv = [](const Expr& a, const Expr& b) { return duet::floor_divide(a, b); };
    const auto mod = [](const Expr& a, const Expr& b) { return a % b; };
    // Divisors include 0 (which gives 0 for integers).
    check_binary<std::int32_t, std::int32_t, std::int32_t>(
        q, rng, "int32 // int32", fdiv, [](std::int32_t a, std::int32_t b) { return py_floordiv(a, b); },
        T::i32, {-1000, 1000}, {-9, 9});
    check_binary<std::int32_t, std::int32_t, std::int32_t>(
        q, rng, "int32 % int32", mod, [](std::int32_t a, std::int32_t b) { return py_mod(a, b); }, T::i32,
        {-1000, 1000}, {-9, 9});
    check_binary<std::int16_t, std::uint8_t, std::int8_t>(
        q, rng, "uint8 % int8", mod, [](std::uint8_t a, std::int8_t b) { return py_mod(a, b); }, T::i16,
        {0, 255}, {-128, 127});
    check_binary<std::uint16_t, std::uint16_t, std::uint16_t>(
        q, rng, "uint16 // uint16", fdiv, [](std::uint16_t a, std::uint16_t b) { return py_floordiv(a, b); },
        T::u16, {0, 65535}, {0, 300});
    check_binary<std::int64_t, std::int64_t, std::int64_t>(
        q, rng, "int64 % int64", mod,
        [](std::int64_t a, std::int64_t b) { return py_mod(double(a), double(b)); }, T::i64, {-1e9, 1e9},
        {-1e5, 1e5});
    check_binary<float, float, float>(q, rng, "float32 // float32", fdiv,
                                      [](float a, float b) { return float_floordiv(a, b); }, T::f32,
                                      {-50, 50}, {-3, 3});
    check_binary<float, float, float>(q, rng, "float32 % float32", mod,
                                      [](float a, float b) { return float_mod(a, b); }, T::f32, {-50, 50},
                                      {-3, 3});
    if (dev.info().supports_double) {
      check_binary<double, std::int32_t, float>(q, rng, "int32 % float32", mod,
                                                [](std::int32_t a, float b) { return float_mod(a, b); },
                                                T::f64, {-1000, 1000}, {-7, 7});
      check_binary<double, double, double>(q, rng, "float64 // float64", fdiv,
                                           [](double a, double b) { return float_floordiv(a, b); }, T::f64,
                                           {-1e6, 1e6}, {-100, 100});
    }
    // What must not trap, and numpy's answers for it.
    constexpr std::int32_t lowest = std::numeric_limits<std::int32_t>::min();
    const Array I = duet::from_host<std::int32_t>(q, std::vector<std::int32_t>{lowest, 7, -7, 0, 5}, {5});
    const Array D = duet::from_host<std::int32_t>(q, std::vector<std::int32_t>{-1, 0, 0, 0, -1}, {5});
    CHECK(duet::evaluate(q, duet::floor_divide(I, D)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{lowest, 0, 0, 0, -5});
    CHECK(duet::evaluate(q, I % D).to_vector<std::int32_t>(q) == std::vector<std::int32_t>{0, 0, 0, 0, 0});
    const Array C = duet::from_host<std::int8_t>(q, std::vector<std::int8_t>{-128, -7, 7}, {3});
    CHECK(duet::evaluate(q, duet::floor_divide(C, -1)).to_vector<std::int8_t>(q) ==
          std::vector<std::int8_t>{-128, 7, -7});
    CHECK(duet::evaluate(q, C % 3).to_vector<std::int8_t>(q) == std::vector<std::int8_t>{1, 2, 1});
    // Floats: x // 0 is x / 0, x % 0 NaN, a zero remainder takes the divisor's sign.
    const Array F = duet::from_host<float>(q, std::vector<float>{1.0f, -4.0f, 4.0f, -1.0f}, {4});
    const Array G = duet::from_host<float>(q, std::vector<float>{0.0f, 2.0f, -2.0f, INFINITY}, {4});
    const std::vector<float> fd = duet::evaluate(q, duet::floor_divide(F, G)).to_vector<float>(q);
    const std::vector<float> fm = duet::evaluate(q, F % G).to_vector<float>(q);
    CHECK(fd[0] == INFINITY);
    CHECK(fd[1] == -2.0f);
    CHECK(fd[3] == -1.0f);
    CHECK(std::isnan(fm[0]));
    CHECK((fm[1] == 0.0f && !std::signbit(fm[1])));
    CHECK((fm[2] == 0.0f && std::signbit(fm[2])));
    CHECK(fm[3] == INFINITY);
    // Weak numbers keep the array's dtype.
    CHECK((I % 3).dtype() == T::i32);
    CHECK(duet::floor_divide(C, 2).dtype() == T::i8);
    CHECK((F % 2).dtype() == T::f32);
  });
}

TEST_CASE("array ops: power of integers, exact and wrapping, and its negative-exponent rule") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array ipow");
    using T = ScalarType;
    const auto pw = [](const Expr& a, const Expr& b) { return duet::power(a, b); };
    check_binary<std::int32_t, std::int32_t, std::int32_t>(
        q, rng, "int32 ** int32", pw,
        [](std::int32_t a, std::int32_t e) { return int_power<std::int32_t>(a, e); }, T::i32, {-6, 6},
        {-3, 40});
    check_binary<std::int64_t, std::int64_t, std::uint8_t>(
        q, rng, "int64 ** uint8", pw,
        [](std::int64_t a, std::uint8_t e) { return int_power<std::int64_t>(a, e); }, T::i64, {-1000, 1000},
        {0, 70});
    check_binary<std::uint8_t, std::uint8_t, std::uint8_t>(
        q, rng, "uint8 ** uint8", pw,
        [](std::uint8_t a, std::uint8_t e) { return int_power<std::uint8_t>(a, e); }, T::u8, {0, 255},
        {0, 255});
    check_binary<std::int16_t, std::int8_t, std::int16_t>(
        q, rng, "int8 ** int16", pw,
        [](std::int8_t a, std::int16_t e) { return int_power<std::int16_t>(a, e); }, T::i16, {-128, 127},
        {-5, 20});
    const Array I = duet::from_host<std::int32_t>(q, std::vector<std::int32_t>{-3, 2, 10, 0}, {4});
    CHECK(duet::power(I, 3).dtype() == T::i32);
    CHECK(duet::evaluate(q, duet::power(I, 3)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{-27, 8, 1000, 0});
    CHECK(duet::evaluate(q, duet::power(2, I)).to_vector<std::int32_t>(q)[2] == 1024);
    CHECK(duet::evaluate(q, duet::power(I, 0)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{1, 1, 1, 1});
    const auto err = EXPECT_ERROR(duet::ArgumentError, duet::power(I, -2));
    if (err) {
      CHECK_CONTAINS(err->what(), "int ** -2");
      CHECK_CONTAINS(err->what(), "negative integer powers");
    }
    if (dev.info().supports_double) {
      CHECK(duet::power(I, 2.0).dtype() == T::f64);
      CHECK(duet::evaluate(q, duet::power(I, -1.0)).to_vector<double>(q)[1] == 0.5);
    }
  });
}

TEST_CASE("array ops: logical and bitwise functions, shifts, and their dtypes") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array bitwise");
    using T = ScalarType;
    using Op = std::function<Expr(const Expr&, const Expr&)>;
    // Logical: truth values as bool, NaN true; inputs with many zeros.
    const std::pair<const char*, Op> logical[] = {
        {"logical_and", [](const Expr& a, const Expr& b) { return duet::logical_and(a, b); }},
        {"logical_or", [](const Expr& a, const Expr& b) { return duet::logical_or(a, b); }},
        {"logical_xor", [](const Expr& a, const Expr& b) { return duet::logical_xor(a, b); }},
        {"logical_not", [](const Expr& a, const Expr&) { return duet::logical_not(a); }}};
    for (const auto& [name, op] : logical) {
      const std::string n = name;
      const Reference<std::int32_t, float> ref = [n](std::int32_t a, float b) -> std::optional<double> {
        const bool x = truth(a), y = truth(b);
        return n == "logical_and" ? x && y : n == "logical_or" ? x || y : n == "logical_xor" ? x != y : !x;
      };
      check_binary<bool, std::int32_t, float>(q, rng, name, op, ref, T::b8, {-1, 1}, {-1, 1});
    }
    const Array N = duet::from_host<float>(q, std::vector<float>{NAN, 0.0f, -0.0f}, {3});
    CHECK(duet::evaluate(q, duet::logical_not(N)).to_vector<bool>(q) == std::vector<bool>{false, true, true});
    CHECK(duet::evaluate(q, duet::logical_and(N, 2)).to_vector<bool>(q) ==
          std::vector<bool>{true, false, false});

    // Bitwise, with numpy's promotions (int8 with uint8 is int16).
    const std::pair<const char*, Op> bitwise[] = {{"&", [](const Expr& a, const Expr& b) { return a & b; }},
                                                  {"|", [](const Expr& a, const Expr& b) { return a | b; }},
                                                  {"^", [](const Expr& a, const Expr& b) { return a ^ b; }},
                                                  {"~", [](const Expr& a, const Expr&) { return ~a; }}};
    for (const auto& [name, op] : bitwise) {
      const std::string n = name;
      auto bits = [n](std::int64_t a, std::int64_t b) -> std::optional<double> {
        return static_cast<double>(n == "&" ? a & b : n == "|" ? a | b : n == "^" ? a ^ b : ~a);
      };
      check_binary<std::int32_t, std::int32_t, std::int32_t>(
          q, rng, name, op, [bits](std::int32_t a, std::int32_t b) { return bits(a, b); }, T::i32,
          {-2e9, 2e9}, {-2e9, 2e9});
      if (n != "~")
        check_binary<std::int16_t, std::int8_t, std::uint8_t>(
            q, rng, name, op, [bits](std::int8_t a, std::uint8_t b) { return bits(a, b); }, T::i16,
            {-128, 127}, {0, 255});
      check_binary<std::uint64_t, std::uint64_t, std::uint64_t>(
          q, rng, name, op,
          [n](std::uint64_t a, std::uint64_t b) -> std::optional<long double> {
            return static_cast<long double>(n == "&" ? a & b : n == "|" ? a | b : n == "^" ? a ^ b : ~a);
          },
          T::u64, {0, 1e6}, {0, 1e6});
    }
    const Array U = duet::from_host<std::uint8_t>(q, std::vector<std::uint8_t>{0, 5, 255}, {3});
    CHECK(duet::evaluate(q, ~U).to_vector<std::uint8_t>(q) == std::vector<std::uint8_t>{255, 250, 0});
    // Narrow integers wrap in their own dtype before a wider operation uses them, as numpy's.
    const Array I8 = duet::from_host<std::int8_t>(q, std::vector<std::int8_t>{100, -100, 7}, {3});
    const Array Z16 = duet::from_host<std::int16_t>(q, std::vector<std::int16_t>{0, 0, 0}, {3});
    CHECK(duet::evaluate(q, (I8 + I8) + Z16).to_vector<std::int16_t>(q) ==
          std::vector<std::int16_t>{-56, 56, 14});
    CHECK(duet::evaluate(q, (I8 * I8) + Z16).to_vector<std::int16_t>(q) ==
          std::vector<std::int16_t>{16, 16, 49});
    CHECK(duet::evaluate(q, -U + Z16).to_vector<std::int16_t>(q) == std::vector<std::int16_t>{0, 251, 1});
    // ~ inside a wider operation keeps its own dtype's value (250, not -6).
    const Array W = duet::from_host<std::int16_t>(q, std::vector<std::int16_t>{0, 0, 0}, {3});
    CHECK(duet::evaluate(q, ~U + W).to_vector<std::int16_t>(q) == std::vector<std::int16_t>{255, 250, 0});

    // Shifts: counts outside the type's bits shift everything out, as numpy.
    const auto shl = [](const Expr& a, const Expr& b) { return duet::left_shift(a, b); };
    const auto shr = [](const Expr& a, const Expr& b) { return duet::right_shift(a, b); };
    check_binary<std::int32_t, std::int32_t, std::int32_t>(
        q, rng, "<<", shl,
        [](std::int32_t a, std::int32_t b) -> std::optional<double> {
          return b < 0 || b >= 32 ? 0 : double(std::int32_t(std::uint32_t(a) << b));
        },
        T::i32, {-1e6, 1e6}, {-2, 40});
    check_binary<std::int32_t, std::int32_t, std::int32_t>(
        q, rng, ">>", shr,
        [](std::int32_t a, std::int32_t b) -> std::optional<double> {
          return b < 0 || b >= 32 ? (a < 0 ? -1 : 0) : double(a >> b);
        },
        T::i32, {-1e6, 1e6}, {-2, 40});
    check_binary<std::uint8_t, std::uint8_t, std::uint8_t>(
        q, rng, "uint8 <<", shl,
        [](std::uint8_t a, std::uint8_t b) -> std::optional<double> {
          return b >= 8 ? 0 : std::uint8_t(a << b);
        },
        T::u8, {0, 255}, {0, 10});

    // Floats are refused, naming the dtype.
    const Array F = duet::from_host<float>(q, std::vector<float>{1.0f}, {1});
    const Array I = duet::from_host<std::int32_t>(q, std::vector<std::int32_t>{1}, {1});
    for (const auto& err : {EXPECT_ERROR(duet::ArgumentError, F & I), EXPECT_ERROR(duet::ArgumentError, ~F),
                            EXPECT_ERROR(duet::ArgumentError, duet::left_shift(F, 1))})
      if (err) CHECK_CONTAINS(err->what(), "float");
    const auto weak_float = EXPECT_ERROR(duet::ArgumentError, I | 2.0);
    if (weak_float) CHECK_CONTAINS(weak_float->what(), "integer and bool dtypes only");
  });
}

TEST_CASE("array ops: outer of any two views, flattened in C order, in multiply's dtype") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array outer");
    const std::vector<float> x = random_floats(rng, 5 * 14), y = random_floats(rng, 31);
    const std::vector<std::int32_t> n = draw<std::int32_t>(rng, 3 * 4 * 2, -1000, 1000);
    const Array X = duet::from_host<float>(q, x, {5, 14}), Y = duet::from_host<float>(q, y, {31});
    const Array N = duet::from_host<std::int32_t>(q, n, {3, 4, 2});
    struct Case {
      Array a, b;
      std::vector<double> av, bv;
    };
    const Array xv = X.index({Slice{none, none, -2}, Slice{1, none, 3}});  // (3, 5), reversed and stepped
    const Array yv = Y.index({Slice{none, none, -3}});                     // (11,)
    const Array nv = N.transpose({2, 0, 1});                               // (2, 3, 4), not contiguous
    std::vector<Case> cases{
        {xv, yv, through_layout<double>(x, xv.layout()), through_layout<double>(y, yv.layout())},
        {yv, xv, through_layout<double>(y, yv.layout()), through_layout<double>(x, xv.layout())},
        {Y, Y.index({Slice{0, 0}}), {y.begin(), y.end()}, {}},
        {duet::full(q, {}, 3.0), yv, {3.0}, through_layout<double>(y, yv.layout())}};
    if (dev.info().supports_double)
      cases.push_back(
          {nv, xv, through_layout<double>(n, nv.layout()), through_layout<double>(x, xv.layout())});
    for (const Case& c : cases) {
      INFO(duet::shape_text(c.a.shape()), " outer ", duet::shape_text(c.b.shape()));
      const Array o = duet::outer(q, c.a, c.b);
      CHECK(o.shape() == duet::Shape{c.a.size(), c.b.size()});
      CHECK(o.contiguous());
      CHECK(o.dtype() == duet::promote_types(c.a.dtype(), c.b.dtype()));
      std::vector<double> got;
      if (o.dtype() == ScalarType::f64) {
        got = o.to_vector<double>(q);
      } else {
        const std::vector<float> f = o.to_vector<float>(q);
        got.assign(f.begin(), f.end());
      }
      std::vector<double> want;
      for (double a : c.av)
        for (double b : c.bv) want.push_back(a * b);
      check_close(
          std::vector<float>(got.begin(), got.end()), want,
          [&](std::size_t i) { return kUnitRoundoff * std::fabs(want[i]); }, "outer");
    }
    CHECK(duet::outer(q, N, N).dtype() == ScalarType::i32);
    CHECK(duet::outer(q, N, N).to_vector<std::int32_t>(q)[5 * 24 + 7] == n[5] * n[7]);
    compiles_for_cuda(xv.expand_dims(-1) * yv, ScalarType::f32);
  });
}

TEST_SUITE_END();
