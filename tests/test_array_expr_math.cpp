// The fused expressions' further math (duet/array_expr.hpp: trunc, round, the logarithms and
// exponentials near 0, the trigonometric and hyperbolic functions and their inverses, square,
// reciprocal, sign, atan2, hypot, copysign, logaddexp, nextafter, and the predicates isnan, isinf, isfinite,
// signbit) on every device, in float32 and float64, against the host's C library in double
// precision on random values, with the special values (NaN, +-0, +-inf) each function meets. The
// kernels compile for sm_90 through NVRTC as well, where NVRTC is present.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <limits>
#include <random>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::ScalarType;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

void compiles_for_cuda(const duet::Expr& e, ScalarType out) {
  if (!offline_nvrtc_checks()) return;
  std::size_t bytes = 0;
  try {
    bytes = duet::compile_for_cuda_arch(duet::fused_source(e, out, true), {}, "sm_90", "fused_math.duet");
    bytes = std::min(bytes, duet::compile_for_cuda_arch(duet::fused_source(e, out, false, false, true), {},
                                                        "sm_90", "fused_math_strided.duet"));
  } catch (const duet::BackendUnavailableError&) {
    return;  // no NVRTC here
  }
  CHECK(bytes > 0);
}

// Equal as the host's result in T: NaN for NaN, the same infinity, the same signed zero, else
// within a few units in the last place of T (relative, or absolute near 0).
template <class T>
void same_value(T got, double want, double ulps) {
  if (std::isnan(want)) {
    CHECK(std::isnan(got));
  } else if (std::isinf(want) || want == 0) {
    CHECK(static_cast<double>(got) == want);
    CHECK(std::signbit(got) == std::signbit(want));
  } else {
    const double eps = std::numeric_limits<T>::epsilon();
    CHECK(std::abs(static_cast<double>(got) - want) <= ulps * eps * std::max(1.0, std::abs(want)));
  }
}

template <class T>
Array array_of(duet::Queue& q, const std::vector<double>& v) {
  std::vector<T> t(v.begin(), v.end());
  return duet::from_host<T>(q, t, {t.size()});
}

template <class T>
std::vector<double> values_of(duet::Queue& q, const Array& a) {
  const std::vector<T> t = a.to_vector<T>(q);
  return {t.begin(), t.end()};
}

struct Unary {
  const char* name;
  duet::Expr (*device)(const duet::Expr&);
  double (*host)(double);
  double low, high;  // the random inputs' range (the function's domain)
};

const Unary kUnary[] = {
    {"trunc", duet::trunc, [](double v) { return std::trunc(v); }, -20, 20},
    {"round", duet::round, [](double v) { return std::nearbyint(v); }, -20, 20},
    {"log2", duet::log2, [](double v) { return std::log2(v); }, 0, 100},
    {"log10", duet::log10, [](double v) { return std::log10(v); }, 0, 100},
    {"log1p", duet::log1p, [](double v) { return std::log1p(v); }, -0.999, 3},
    {"expm1", duet::expm1, [](double v) { return std::expm1(v); }, -3, 3},
    {"tan", duet::tan, [](double v) { return std::tan(v); }, -1.5, 1.5},
    {"sinh", duet::sinh, [](double v) { return std::sinh(v); }, -5, 5},
    {"cosh", duet::cosh, [](double v) { return std::cosh(v); }, -5, 5},
    {"asin", duet::asin, [](double v) { return std::asin(v); }, -1, 1},
    {"acos", duet::acos, [](double v) { return std::acos(v); }, -1, 1},
    {"atan", duet::atan, [](double v) { return std::atan(v); }, -10, 10},
    {"asinh", duet::asinh, [](double v) { return std::asinh(v); }, -10, 10},
    {"acosh", duet::acosh, [](double v) { return std::acosh(v); }, 1, 10},
    {"atanh", duet::atanh, [](double v) { return std::atanh(v); }, -0.99, 0.99},
    {"square", duet::square, [](double v) { return v * v; }, -10, 10},
    {"reciprocal", duet::reciprocal, [](double v) { return 1 / v; }, 0.1, 10},
    {"sign", duet::sign, [](double v) { return v > 0    ? 1.0
                                               : v < 0  ? -1.0
                                               : v == 0 ? 0.0
                                                        : v; }, -2, 2},
};
// Every special value, each function's own special cases among them (log1p(-1), atanh(+-1), ...).
const std::vector<double> kSpecial{kNaN, -kNaN, kInf, -kInf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5};

template <class T>
void unary_against_host(duet::Queue& q, double ulps) {
  std::mt19937 rng(17);
  for (const Unary& f : kUnary) {
    INFO(f.name, " ", sizeof(T) * 8);
    std::uniform_real_distribution<double> draw(f.low, f.high);
    std::vector<double> in = kSpecial;
    for (int i = 0; i < 61; ++i) in.push_back(static_cast<T>(draw(rng)));
    const Array x = array_of<T>(q, in);
    const duet::Expr e = f.device(x);
    CHECK(e.dtype() == x.dtype());
    const std::vector<double> got = values_of<T>(q, duet::evaluate(q, e));
    for (std::size_t i = 0; i < in.size(); ++i) {
      INFO("x = ", in[i]);
      same_value<T>(static_cast<T>(got[i]), static_cast<T>(f.host(in[i])), ulps);
    }
    compiles_for_cuda(e, x.dtype());
  }
}

struct Binary {
  const char* name;
  duet::Expr (*device)(const duet::Operand&, const duet::Operand&);
  double (*host)(double, double);
};

double host_logaddexp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  const double m = std::max(a, b);
  if (std::isinf(m)) return m;
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

const Binary kBinary[] = {
    {"atan2", duet::atan2, [](double y, double x) { return std::atan2(y, x); }},
    {"hypot", duet::hypot, [](double a, double b) { return std::hypot(a, b); }},
    {"copysign", duet::copysign, [](double a, double b) { return std::copysign(a, b); }},
    {"logaddexp", duet::logaddexp, host_logaddexp},
};

template <class T>
void binary_against_host(duet::Queue& q, double ulps) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> draw(-30, 30);
  // Every pair of special values, then random pairs.
  std::vector<double> a, b;
  for (double x : kSpecial)
    for (double y : kSpecial) a.push_back(x), b.push_back(y);
  for (int i = 0; i < 97; ++i) a.push_back(static_cast<T>(draw(rng))), b.push_back(static_cast<T>(draw(rng)));
  const Array A = array_of<T>(q, a), B = array_of<T>(q, b);
  for (const Binary& f : kBinary) {
    INFO(f.name, " ", sizeof(T) * 8);
    const duet::Expr e = f.device(A, B);
    CHECK(e.dtype() == A.dtype());
    const std::vector<double> got = values_of<T>(q, duet::evaluate(q, e));
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO("a = ", a[i], ", b = ", b[i]);
      // NaN's sign is no part of any result (copysign's sign comes from b, which is tested).
      same_value<T>(static_cast<T>(got[i]), static_cast<T>(f.host(a[i], b[i])), ulps);
    }
    compiles_for_cuda(e, A.dtype());
  }
}

// nextafter exactly, against the host's in T itself (one step of T, which double would not show).
template <class T>
void nextafter_against_host(duet::Queue& q) {
  const T tiny = std::numeric_limits<T>::denorm_min(), big = std::numeric_limits<T>::max();
  std::vector<T> a, b;
  const T special[] = {T(0), T(-0.0), T(1),    T(-1),    tiny,    -tiny,
                       big,  -big,    T(kInf), T(-kInf), T(kNaN), T(1e-30)};
  for (T x : special)
    for (T y : special) a.push_back(x), b.push_back(y);
  const Array A = duet::from_host<T>(q, a, {a.size()}), B = duet::from_host<T>(q, b, {b.size()});
  const duet::Expr e = duet::nextafter(A, B);
  CHECK(e.dtype() == A.dtype());
  const std::vector<T> got = duet::evaluate(q, e).template to_vector<T>(q);
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("a = ", a[i], ", b = ", b[i]);
    const T want = std::nextafter(a[i], b[i]);
    if (std::isnan(want)) {
      CHECK(std::isnan(got[i]));
    } else {
      CHECK(got[i] == want);
      CHECK(std::signbit(got[i]) == std::signbit(want));
    }
  }
  compiles_for_cuda(e, A.dtype());
}

template <class T>
void predicates(duet::Queue& q) {
  const std::vector<double> in{kNaN, -kNaN, kInf, -kInf, 0.0, -0.0, 1.0, -2.0, 1e30, -1e-30};
  const Array x = array_of<T>(q, in);
  struct Pred {
    const char* name;
    duet::Expr (*device)(const duet::Expr&);
    bool (*host)(double);
  };
  const Pred preds[] = {{"isnan", duet::isnan, [](double v) { return std::isnan(v); }},
                        {"isinf", duet::isinf, [](double v) { return std::isinf(v); }},
                        {"isfinite", duet::isfinite, [](double v) { return std::isfinite(v); }},
                        {"signbit", duet::signbit, [](double v) { return std::signbit(v); }}};
  for (const Pred& p : preds) {
    INFO(p.name, " ", sizeof(T) * 8);
    const duet::Expr e = p.device(x);
    CHECK(e.dtype() == ScalarType::b8);
    const std::vector<bool> got = duet::evaluate(q, e).to_vector<bool>(q);
    for (std::size_t i = 0; i < in.size(); ++i) {
      INFO("x = ", in[i]);
      CHECK(got[i] == p.host(static_cast<T>(in[i])));
    }
    compiles_for_cuda(e, ScalarType::b8);
  }
}

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("array expressions, more math: dtypes") {
  // The dtypes alone need no device: scalar-only expressions carry them.
  using T = ScalarType;
  const duet::Expr i = duet::Expr::int_scalar(3), f = duet::Expr::float_scalar(0.5);
  CHECK(duet::log2(i).dtype() == T::f64);  // weak: an array's float type decides when one takes part
  CHECK(duet::square(i).dtype() == T::i64);
  CHECK(duet::atan2(f, i).dtype() == T::f64);
  CHECK(duet::isnan(f).dtype() == T::b8);
  CHECK(duet::signbit(i).dtype() == T::b8);
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("device");

TEST_CASE("array expressions, more math: float32 and float64 against the host") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    // OpenCL's full-profile float32 math is within 4 ulp for these (tan 5, the hyperbolic ones 4);
    // 8 leaves room for PoCL's and CUDA's own, never for a wrong branch.
    unary_against_host<float>(q, 8);
    binary_against_host<float>(q, 8);
    nextafter_against_host<float>(q);
    predicates<float>(q);
    if (dev.info().supports_double) {
      unary_against_host<double>(q, 8);
      binary_against_host<double>(q, 8);
      nextafter_against_host<double>(q);
      predicates<double>(q);
    }
  });
}

TEST_CASE("array expressions, more math: integers") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::vector<std::int32_t> iv{-7, -1, 0, 3, 46341};
    const Array I = duet::from_host<std::int32_t>(q, iv, {5});
    // square keeps the dtype and wraps as numpy's: 46341**2 passes 2**31.
    CHECK(duet::square(I).dtype() == ScalarType::i32);
    CHECK(duet::evaluate(q, duet::square(I)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{49, 1, 0, 9, static_cast<std::int32_t>(46341u * 46341u)});
    CHECK(duet::evaluate(q, duet::sign(I)).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{-1, -1, 0, 1, 1});
    const Array U = duet::from_host<std::uint8_t>(q, std::vector<std::uint8_t>{0, 1, 255}, {3});
    CHECK(duet::evaluate(q, duet::sign(U)).to_vector<std::uint8_t>(q) == std::vector<std::uint8_t>{0, 1, 1});
    CHECK(duet::evaluate(q, duet::isnan(I)).to_vector<bool>(q) == std::vector<bool>(5, false));
    CHECK(duet::evaluate(q, duet::isinf(I)).to_vector<bool>(q) == std::vector<bool>(5, false));
    CHECK(duet::evaluate(q, duet::isfinite(I)).to_vector<bool>(q) == std::vector<bool>(5, true));
    CHECK(duet::evaluate(q, duet::signbit(I)).to_vector<bool>(q) ==
          std::vector<bool>{true, true, false, false, false});
    // int16 holds in float32: the functions of int16 are float32 (numpy's float_for).
    const Array S = duet::from_host<std::int16_t>(q, std::vector<std::int16_t>{1, 8, 1000}, {3});
    CHECK(duet::log2(S).dtype() == ScalarType::f32);
    CHECK(duet::evaluate(q, duet::log2(S)).to_vector<float>(q)[1] == 3.0f);
    CHECK(duet::hypot(S, S).dtype() == ScalarType::f32);
    if (dev.info().supports_double) {
      CHECK(duet::log2(I).dtype() == ScalarType::f64);
      CHECK(duet::evaluate(q, duet::atan2(I, 1)).to_vector<double>(q)[3] == doctest::Approx(std::atan(3.0)));
    }
  });
}

TEST_CASE("array expressions, more math: fused with the rest, over views") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    // A reversed, stepped view broadcast against a column: the strided kernel.
    std::vector<float> v(24);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * static_cast<float>(i) - 1.0f;
    const Array x = duet::from_host<float>(q, v, {4, 6});
    const Array rev = x.index({duet::Slice{std::nullopt, std::nullopt, -1}, duet::Slice{0, 6, 2}});  // (4, 3)
    const Array col = duet::from_host<float>(q, std::vector<float>{0.5f, -0.5f, 2.0f, 0.0f}, {4, 1});
    const Array out = duet::evaluate(q, duet::logaddexp(rev, col) + duet::isfinite(duet::reciprocal(col)));
    REQUIRE(out.shape() == duet::Shape{4, 3});
    const std::vector<float> got = out.to_vector<float>(q);
    const float c[4] = {0.5f, -0.5f, 2.0f, 0.0f};
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t k = 0; k < 3; ++k) {
        const double a = v[(3 - r) * 6 + 2 * k];
        const double want = host_logaddexp(a, c[r]) + (c[r] != 0 ? 1 : 0);
        CHECK(got[r * 3 + k] == doctest::Approx(want).epsilon(1e-6));
      }
  });
}

TEST_SUITE_END();
