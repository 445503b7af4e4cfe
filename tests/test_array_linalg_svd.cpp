// duet::linalg::svdvals and matrix_norm's singular-value orders on every device, against singular
// values computed on the host in double (one-sided Jacobi run to double precision): random
// matrices of awkward shapes (1 x 1, one row, one column, primes, wide and tall), batches and
// views, rank-deficient and ill-conditioned matrices (values spanning many orders), values whose
// squares would overflow float, float64 where the device has it and float16, the empty cases as
// numpy's, and the errors. Error bounds: a few units of rounding of the dtype times the matrix's
// larger side, relative to its largest singular value, as one-sided Jacobi guarantees.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <duet/array_reduce.hpp>
#include <duet/array_svd.hpp>
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
using duet::linalg::MatrixNorm;

// The singular values of the row-major m x n matrix `a`, descending, in double: Hestenes' method
// on the columns of a (or of its transpose when wide) until every pair is orthogonal to double
// rounding.
std::vector<double> host_svdvals(const std::vector<double>& a, std::size_t m, std::size_t n) {
  const bool tall = m >= n;
  const std::size_t R = tall ? m : n, C = tall ? n : m;
  std::vector<double> w(R * C);  // column c at w[c * R]
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) (tall ? w[j * R + i] : w[i * R + j]) = a[i * n + j];
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p + 1 < C; ++p)
      for (std::size_t q = p + 1; q < C; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (std::size_t r = 0; r < R; ++r) {
          alpha += w[p * R + r] * w[p * R + r];
          beta += w[q * R + r] * w[q * R + r];
          gamma += w[p * R + r] * w[q * R + r];
        }
        if (gamma == 0 || std::fabs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        for (std::size_t r = 0; r < R; ++r) {
          const double x = w[p * R + r], y = w[q * R + r];
          w[p * R + r] = c * x - s * y;
          w[q * R + r] = s * x + c * y;
        }
      }
    if (!rotated) break;
  }
  std::vector<double> s(C);
  for (std::size_t c = 0; c < C; ++c) {
    double sum = 0;
    for (std::size_t r = 0; r < R; ++r) sum += w[c * R + r] * w[c * R + r];
    s[c] = std::sqrt(sum);
  }
  std::sort(s.begin(), s.end(), [](double x, double y) { return x > y; });
  return s;
}

// A random m x n matrix with singular values `s` (min(m, n) of them): Q1 diag(s) Q2 with Q1, Q2
// orthonormal columns from Gram-Schmidt (twice) on random matrices.
std::vector<double> orthonormal_columns(std::mt19937_64& rng, std::size_t rows, std::size_t cols) {
  std::normal_distribution<double> dist;
  std::vector<double> q(rows * cols);  // column c at q[c * rows]
  for (double& x : q) x = dist(rng);
  for (std::size_t c = 0; c < cols; ++c)
    for (int twice = 0; twice < 2; ++twice) {
      for (std::size_t d = 0; d < c; ++d) {
        double dot = 0;
        for (std::size_t r = 0; r < rows; ++r) dot += q[c * rows + r] * q[d * rows + r];
        for (std::size_t r = 0; r < rows; ++r) q[c * rows + r] -= dot * q[d * rows + r];
      }
      double norm = 0;
      for (std::size_t r = 0; r < rows; ++r) norm += q[c * rows + r] * q[c * rows + r];
      for (std::size_t r = 0; r < rows; ++r) q[c * rows + r] /= std::sqrt(norm);
    }
  return q;
}

std::vector<double> with_singular_values(std::mt19937_64& rng, std::size_t m, std::size_t n,
                                         const std::vector<double>& s) {
  const std::size_t k = std::min(m, n);
  const std::vector<double> u = orthonormal_columns(rng, m, k), v = orthonormal_columns(rng, n, k);
  std::vector<double> a(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t c = 0; c < k; ++c) a[i * n + j] += u[c * m + i] * s[c] * v[c * n + j];
  return a;
}

// Each matrix's values of `got` (batch x k, as svdvals returns them) against the host's of the
// matching matrix of `a` (batch x m x n, row-major, as the device saw it), within
// slack * (m + n + 8) * eps * the largest value: one-sided Jacobi's error grows with the length of
// the columns it rotates (dot products of R terms) and with their number (rotations per sweep).
void check_values(const std::vector<double>& got, const std::vector<double>& a, std::size_t batch,
                  std::size_t m, std::size_t n, double eps, const std::string& what, double slack = 4) {
  const std::size_t k = std::min(m, n);
  REQUIRE(got.size() == batch * k);
  for (std::size_t b = 0; b < batch; ++b) {
    const std::vector<double> one(a.begin() + b * m * n, a.begin() + (b + 1) * m * n);
    const std::vector<double> want = host_svdvals(one, m, n);
    const double bound = slack * double(m + n + 8) * eps * std::max(want.empty() ? 0.0 : want[0], 1e-300);
    std::size_t bad = 0;
    double worst = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const double err = std::fabs(got[b * k + i] - want[i]);
      if (!(err <= bound)) ++bad;
      if (!(err <= worst)) worst = err;
    }
    INFO(what, " ", m, "x", n, " matrix ", b, ": worst error ", worst, " against a bound of ", bound);
    CHECK(bad == 0);
  }
}

template <class T>
std::vector<double> as_double(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

std::vector<double> random_doubles(std::mt19937_64& rng, std::size_t n) {
  return as_double(random_floats(rng, n));  // float values: the float32 input holds them exactly
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("svdvals: random matrices of awkward shapes, float32") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("svdvals shapes");
    const std::vector<std::pair<std::size_t, std::size_t>> shapes = {
        {1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 5}, {5, 3}, {13, 7}, {7, 13}, {31, 29}, {64, 64}, {97, 2}, {2, 131},
        {130, 67}};
    for (const auto& [m, n] : shapes) {
      const std::vector<double> a = random_doubles(rng, m * n);
      const Array A = duet::from_host<float>(q, std::vector<float>(a.begin(), a.end()), {m, n});
      const Array s = duet::linalg::svdvals(q, A);
      CHECK(s.shape() == duet::Shape{std::min(m, n)});
      CHECK(s.dtype() == ScalarType::f32);
      check_values(as_double(s.to_vector<float>(q)), a, 1, m, n, kUnitRoundoff, "float32");
    }
  });
}

TEST_CASE("svdvals: batches and views") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("svdvals batches");
    const std::vector<double> a = random_doubles(rng, 2 * 3 * 5 * 4);
    const Array A = duet::from_host<float>(q, std::vector<float>(a.begin(), a.end()), {2, 3, 5, 4});
    const Array s = duet::linalg::svdvals(q, A);
    CHECK(s.shape() == duet::Shape{2, 3, 4});
    check_values(as_double(s.to_vector<float>(q)), a, 6, 5, 4, kUnitRoundoff, "batch");

    // The transposed view of each matrix (4 x 5, wide, with strides that are not C order): the
    // same values.
    const Array t = duet::linalg::svdvals(q, A.transpose({0, 1, 3, 2}));
    CHECK(t.shape() == duet::Shape{2, 3, 4});
    std::vector<double> at(a.size());
    for (std::size_t b = 0; b < 6; ++b)
      for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 4; ++j) at[b * 20 + j * 5 + i] = a[b * 20 + i * 4 + j];
    check_values(as_double(t.to_vector<float>(q)), at, 6, 4, 5, kUnitRoundoff, "transposed views");

    // Views the kernel reads through their strides (reversed rows and columns: negative steps; a
    // stepped batch) and one whose batch axes merge into no single stride (copied first): the
    // values of the elements each view shows, which a contiguous copy holds in C order.
    const std::vector<std::pair<const char*, Array>> others = {
        {"reversed", A.index({Slice{}, Slice{none, none, -1}, Slice{none, none, -1}, Slice{none, none, -1}})},
        {"stepped batch", A.index({Slice{}, Slice{none, none, 2}})},
        {"batch axes swapped", A.transpose({1, 0, 2, 3})},
    };
    for (const auto& [label, v] : others) {
      const std::size_t count = v.size() / 20;
      const Array sv = duet::linalg::svdvals(q, v);
      check_values(as_double(sv.to_vector<float>(q)), as_double(v.copy(q).to_vector<float>(q)), count, 5, 4,
                   kUnitRoundoff, label);
    }
  });
}

TEST_CASE("svdvals: rank-deficient and ill-conditioned matrices, large and small scales") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("svdvals conditioning");
    struct Case {
      const char* label;
      std::size_t m, n;
      std::vector<double> s;
    };
    std::vector<double> graded(23), deficient(17, 0.0);
    for (std::size_t i = 0; i < graded.size(); ++i) graded[i] = std::pow(10.0, -0.3 * double(i));  // to 1e-6.6
    for (std::size_t i = 0; i < 9; ++i) deficient[i] = 1.0 + double(i);                              // rank 9
    const std::vector<Case> cases = {
        {"graded", 41, 23, graded},
        {"rank 9 of 17", 17, 29, deficient},
        {"zero", 6, 4, std::vector<double>(4, 0.0)},
        {"one repeated value", 12, 12, std::vector<double>(12, 3.0)},
    };
    for (const Case& c : cases) {
      const std::vector<double> a64 = with_singular_values(rng, c.m, c.n, c.s);
      const std::vector<float> a32(a64.begin(), a64.end());
      const Array A = duet::from_host<float>(q, a32, {c.m, c.n});
      check_values(as_double(duet::linalg::svdvals(q, A).to_vector<float>(q)), as_double(a32), 1, c.m, c.n,
                   kUnitRoundoff, c.label);
      if (dev.info().supports_double) {
        const Array D = duet::from_host<double>(q, a64, {c.m, c.n});
        check_values(duet::linalg::svdvals(q, D).to_vector<double>(q), a64, 1, c.m, c.n,
                     std::ldexp(1.0, -53), std::string(c.label) + " float64");
      }
    }
    // Entries whose squares overflow (or underflow) float: the kernel scales the matrix first.
    for (const double scale : {1e30, 1e-30}) {
      const std::vector<double> base = random_doubles(rng, 9 * 5);
      std::vector<float> a32(base.size());
      for (std::size_t i = 0; i < base.size(); ++i) a32[i] = static_cast<float>(base[i] * scale);
      const Array A = duet::from_host<float>(q, a32, {9, 5});
      check_values(as_double(duet::linalg::svdvals(q, A).to_vector<float>(q)), as_double(a32), 1, 9, 5,
                   kUnitRoundoff, scale > 1 ? "scaled by 1e30" : "scaled by 1e-30");
    }
  });
}

TEST_CASE("svdvals: float64 and float16") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("svdvals dtypes");
    if (dev.info().supports_double) {
      std::normal_distribution<double> dist;
      for (const auto& [m, n] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {19, 11}, {11, 19}, {60, 60}}) {
        std::vector<double> a(m * n);
        for (double& x : a) x = dist(rng);
        const Array s = duet::linalg::svdvals(q, duet::from_host<double>(q, a, {m, n}));
        CHECK(s.dtype() == ScalarType::f64);
        check_values(s.to_vector<double>(q), a, 1, m, n, std::ldexp(1.0, -53), "float64");
      }
    }
    // float16: computed in float32, stored as float16 (rounding of half on top).
    const std::vector<double> a = random_doubles(rng, 8 * 6);
    std::vector<duet::half> h(a.size());
    std::vector<double> held(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      h[i] = duet::half::from_float(static_cast<float>(a[i]));
      held[i] = h[i].to_float();
    }
    const Array s = duet::linalg::svdvals(q, duet::from_host<duet::half>(q, h, {8, 6}));
    CHECK(s.dtype() == ScalarType::f16);
    std::vector<double> got;
    for (const duet::half& v : s.to_vector<duet::half>(q)) got.push_back(v.to_float());
    check_values(got, held, 1, 8, 6, std::ldexp(1.0, -11), "float16", 1);
  });
}

TEST_CASE("matrix_norm: nuclear, spectral and smallest, keepdims, empty matrices, errors") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("svd matrix_norm");
    const std::vector<double> a = random_doubles(rng, 3 * 7 * 4);
    const Array A = duet::from_host<float>(q, std::vector<float>(a.begin(), a.end()), {3, 7, 4});
    const Array nuc = duet::linalg::matrix_norm(q, A, MatrixNorm::nuclear);
    const Array two = duet::linalg::matrix_norm(q, A, MatrixNorm::spectral);
    const Array low = duet::linalg::matrix_norm(q, A, MatrixNorm::smallest, true);
    CHECK(nuc.shape() == duet::Shape{3});
    CHECK(low.shape() == duet::Shape{3, 1, 1});
    const std::vector<float> n = nuc.to_vector<float>(q), t = two.to_vector<float>(q), l = low.to_vector<float>(q);
    for (std::size_t b = 0; b < 3; ++b) {
      const std::vector<double> s = host_svdvals(std::vector<double>(a.begin() + b * 28, a.begin() + (b + 1) * 28), 7, 4);
      double sum = 0;
      for (double v : s) sum += v;
      const double bound = 16 * 7 * kUnitRoundoff * s[0];
      CHECK(std::fabs(n[b] - sum) <= 4 * bound);
      CHECK(std::fabs(t[b] - s[0]) <= bound);
      CHECK(std::fabs(l[b] - s[3]) <= bound);
    }

    // Empty matrices, as numpy: 'nuc' and 2 give 0, -2 raises; an empty batch gives no norms.
    const Array none = duet::zeros(q, {2, 0, 3});
    const Array z = duet::linalg::matrix_norm(q, none, MatrixNorm::spectral);
    CHECK(z.shape() == duet::Shape{2});
    CHECK(z.to_vector<float>(q) == std::vector<float>{0, 0});
    CHECK(duet::linalg::matrix_norm(q, none, MatrixNorm::nuclear, true).shape() == duet::Shape{2, 1, 1});
    EXPECT_ERROR(duet::ArgumentError, duet::linalg::matrix_norm(q, none, MatrixNorm::smallest));
    CHECK(duet::linalg::matrix_norm(q, duet::zeros(q, {0, 2, 2}), MatrixNorm::smallest).shape() == duet::Shape{0});
    CHECK(duet::linalg::svdvals(q, duet::zeros(q, {4, 0})).shape() == duet::Shape{0});
    CHECK(duet::linalg::svdvals(q, duet::zeros(q, {0, 3, 5})).shape() == duet::Shape{0, 3});

    // An infinite or NaN element: every value of that matrix is NaN, the other matrices' as ever.
    const Array bad = duet::from_host<float>(q, std::vector<float>{1, 2, 3, 4, kNaN, 1, 1, 1, INFINITY, 0, 0, 1},
                                             {3, 2, 2});
    const std::vector<float> got = duet::linalg::svdvals(q, bad).to_vector<float>(q);
    CHECK(std::fabs(got[0] - 5.4649857) < 1e-5);
    CHECK(std::fabs(got[1] - 0.3659662) < 1e-5);
    for (std::size_t i = 2; i < 6; ++i) CHECK(std::isnan(got[i]));

    // Errors: too few axes, integers.
    EXPECT_ERROR(duet::ArgumentError, duet::linalg::svdvals(q, duet::zeros(q, {5})));
    EXPECT_ERROR(duet::ArgumentError, duet::linalg::svdvals(q, duet::zeros(q, {2, 2}, ScalarType::i32)));
  });
}

TEST_CASE("svdvals: a few hundred per side, long rows and columns, many small matrices") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("svdvals large");
    const std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> shapes = {
        {1, 300, 300}, {1, 1, 500}, {1, 501, 2}, {1000, 3, 3}, {1, 300, 151}};
    for (const auto& [b, m, n] : shapes) {
      const std::vector<double> a = random_doubles(rng, b * m * n);
      const Array A = duet::from_host<float>(q, std::vector<float>(a.begin(), a.end()), {b, m, n});
      check_values(as_double(duet::linalg::svdvals(q, A).to_vector<float>(q)), a, b, m, n, kUnitRoundoff,
                   "large");
    }
  });
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("svdvals.duet compiles for sm_90 with NVRTC for every dtype it is launched with") {
  const char* source = duet::builtin_kernel_source("svdvals");
  REQUIRE(source != nullptr);
  const std::vector<duet::Defines> variants = {
      {{"I", "float"}, {"T", "float"}, {"O", "float"}, {"WG", "128"}},
      {{"I", "double"}, {"T", "double"}, {"O", "double"}, {"WG", "64"}},
      {{"I", "half"}, {"T", "float"}, {"O", "half"}, {"WG", "8"}},
      {{"I", "bfloat16"}, {"T", "float"}, {"O", "bfloat16"}, {"WG", "1"}},
  };
  for (const duet::Defines& d : variants) {
    INFO("I = ", d[0].second, ", WG = ", d[3].second);
    CHECK(duet::compile_for_cuda_arch(source, d, "sm_90", "svdvals.duet") > 0);
  }
}

TEST_SUITE_END();
