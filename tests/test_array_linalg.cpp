// duet::matmul over Arrays on every device, against a double-precision host product: matrices,
// transposed and stepped views (handed to gemm as they are) and views gemm cannot take (copied
// first), vectors on either side and their dot product, batches with a shared operand, stacks past
// 3-D broadcast as numpy's, float64 where the device has it, and the errors.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <random>
#include <duet/array_linalg.hpp>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::Slice;
constexpr std::nullopt_t none = std::nullopt;

// C = A B for row-major host matrices, in double.
std::vector<double> product(const std::vector<double>& A, const std::vector<double>& B, std::size_t M,
                            std::size_t K, std::size_t N) {
  std::vector<double> C(M * N, 0.0);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t j = 0; j < N; ++j) C[i * N + j] += A[i * K + k] * B[k * N + j];
  return C;
}

void check_close(const std::vector<float>& got, const std::vector<double>& want, std::size_t K,
                 const char* what = "") {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 4.0 * (K + 2) * kUnitRoundoff * (1.0 + std::fabs(want[i])))) ++bad;
  INFO(std::string(what), ": ", bad, " of ", got.size(), " outputs out of tolerance");
  CHECK(bad == 0);
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("array matmul: matrices and views, as gemm takes them or copied") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array matmul");
    const std::vector<float> a = random_floats(rng, 74 * 45), b = random_floats(rng, 45 * 58);
    const Array A = duet::from_host<float>(q, a, {74, 45}), B = duet::from_host<float>(q, b, {45, 58});
    // (view of A, view of B) pairs: plain, every second row of A, A and B transposed twice,
    // every second column (copied), reversed rows (copied).
    struct Pair {
      const char* label;
      Array x, y;
      duet::Layout xl, yl;  // where x's and y's elements lie in a and b
    };
    const Array At = A.T().copy(q).T();  // a transposed view of A's transpose: strides (1, 74)
    auto views = [](const char* label, const Array& x, const Array& y) {
      return Pair{label, x, y, x.layout(), y.layout()};
    };
    // The transposed views hold A and B themselves, in copies laid out column by column.
    const std::vector<Pair> pairs = {
        views("plain", A, B),
        views("rows stepped", A.index({Slice{none, none, 2}}), B),
        Pair{"transposed views", At, B.T().copy(q).T(), A.layout(), B.layout()},
        views("columns stepped", A.index({Slice{}, Slice{none, none, 2}}), B.index({Slice{none, 23}})),
        views("reversed", A.index({Slice{none, none, -1}}), B.index({Slice{none, none, -1}})),
    };
    for (const Pair& p : pairs) {
      const std::size_t M = p.x.shape()[0], K = p.x.shape()[1], N = p.y.shape()[1];
      const Array C = duet::matmul(q, p.x, p.y);
      CHECK(C.shape() == duet::Shape{M, N});
      const std::vector<double> want =
          product(through_layout<double>(a, p.xl), through_layout<double>(b, p.yl), M, K, N);
      check_close(C.to_vector<float>(q), want, K, p.label);
    }
  });
}

TEST_CASE("array matmul: vectors, the dot product and batches") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array matmul vectors");
    const std::vector<float> m = random_floats(rng, 13 * 7), v = random_floats(rng, 13),
                             w = random_floats(rng, 7);
    const Array Mx = duet::from_host<float>(q, m, {13, 7}), V = duet::from_host<float>(q, v, {13}),
                W = duet::from_host<float>(q, w, {7});
    const std::vector<double> md(m.begin(), m.end()), vd(v.begin(), v.end()), wd(w.begin(), w.end());
    const Array vm = duet::matmul(q, V, Mx);  // (13,) @ (13, 7) -> (7,)
    CHECK(vm.shape() == duet::Shape{7});
    check_close(vm.to_vector<float>(q), product(vd, md, 1, 13, 7), 13);
    const Array mw = duet::matmul(q, Mx, W);  // (13, 7) @ (7,) -> (13,)
    CHECK(mw.shape() == duet::Shape{13});
    check_close(mw.to_vector<float>(q), product(md, wd, 13, 7, 1), 7);
    const Array d = duet::dot(q, V, V.index({Slice{none, none, -1}}));  // a reversed vector is copied
    CHECK(d.ndim() == 0);
    double want = 0;
    for (std::size_t i = 0; i < 13; ++i) want += double(v[i]) * v[12 - i];
    check_close(d.to_vector<float>(q), {want}, 13);
    // Every second element of a vector: a strided row, no copy needed.
    const Array every2 =
        duet::from_host<float>(q, random_floats(rng, 26), {26}).index({Slice{none, none, 2}});
    CHECK(duet::matmul(q, every2, Mx).shape() == duet::Shape{7});

    // Batches: 4 of (9 x 11) @ (11 x 6), B shared as a 2-D matrix and as a batch of 1.
    const std::vector<float> ab = random_floats(rng, 4 * 9 * 11), bb = random_floats(rng, 11 * 6);
    const Array Ab = duet::from_host<float>(q, ab, {4, 9, 11});
    for (const Array& Bb :
         {duet::from_host<float>(q, bb, {11, 6}), duet::from_host<float>(q, bb, {1, 11, 6})}) {
      const Array Cb = duet::matmul(q, Ab, Bb);
      CHECK(Cb.shape() == duet::Shape{4, 9, 6});
      const std::vector<float> got = Cb.to_vector<float>(q);
      for (std::size_t t = 0; t < 4; ++t) {
        const std::vector<double> at(ab.begin() + long(t * 99), ab.begin() + long((t + 1) * 99));
        check_close(std::vector<float>(got.begin() + long(t * 54), got.begin() + long((t + 1) * 54)),
                    product(at, std::vector<double>(bb.begin(), bb.end()), 9, 11, 6), 11);
      }
    }
  });
}

// Stacks past 3-D, broadcast as numpy.matmul broadcasts them: a stack axis of 1 against 3, a 2-D
// operand shared by a 4-D one (a view with stride 0), vectors on either side, a transposed view of
// 4-D stacks, and stacks that do not broadcast. Every output against a host product in double.
TEST_CASE("array matmul: stacks past 3-D broadcast as numpy's") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array matmul stacks");
    const std::size_t M = 5, K = 7, N = 4;
    // (2, 1, M, K) @ (3, K, N) -> (2, 3, M, N): matrix (i, j) is a[i] @ b[j].
    const std::vector<float> a = random_floats(rng, 2 * M * K), b = random_floats(rng, 3 * K * N);
    const Array A = duet::from_host<float>(q, a, {2, 1, M, K}), B = duet::from_host<float>(q, b, {3, K, N});
    const Array C = duet::matmul(q, A, B);
    REQUIRE(C.shape() == duet::Shape{2, 3, M, N});
    const std::vector<float> got = C.to_vector<float>(q);
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 3; ++j) {
        const std::vector<double> ai(a.begin() + long(i * M * K), a.begin() + long((i + 1) * M * K));
        const std::vector<double> bj(b.begin() + long(j * K * N), b.begin() + long((j + 1) * K * N));
        const std::size_t at = (i * 3 + j) * M * N;
        check_close(std::vector<float>(got.begin() + long(at), got.begin() + long(at + M * N)),
                    product(ai, bj, M, K, N), K, "(2, 1, M, K) @ (3, K, N)");
      }
    // (2, 3, M, K) @ (K, N): the matrix shared by all six; and its transposed view as the stack,
    // (2, 3, K, M) seen as (2, 3, M, K) through transpose({0, 1, 3, 2}).
    const std::vector<float> s = random_floats(rng, 6 * M * K), m = random_floats(rng, K * N);
    const Array Mx = duet::from_host<float>(q, m, {K, N});
    const Array S = duet::from_host<float>(q, s, {2, 3, M, K});
    const Array St = duet::from_host<float>(q, s, {2, 3, K, M}).transpose({0, 1, 3, 2});
    for (const Array& X : {S, St}) {
      const Array P = duet::matmul(q, X, Mx);
      REQUIRE(P.shape() == duet::Shape{2, 3, M, N});
      const std::vector<float> p = P.to_vector<float>(q);
      const std::vector<float> xs = X.copy(q).to_vector<float>(q);
      for (std::size_t t = 0; t < 6; ++t)
        check_close(
            std::vector<float>(p.begin() + long(t * M * N), p.begin() + long((t + 1) * M * N)),
            product(std::vector<double>(xs.begin() + long(t * M * K), xs.begin() + long((t + 1) * M * K)),
                    std::vector<double>(m.begin(), m.end()), M, K, N),
            K, "(2, 3, M, K) @ (K, N)");
    }
    // Vectors: (K,) @ (2, 3, K, N) -> (2, 3, N) and (2, 3, M, K) @ (K,) -> (2, 3, M).
    const std::vector<float> v = random_floats(rng, K);
    const Array V = duet::from_host<float>(q, v, {K});
    const Array T = duet::from_host<float>(q, s, {2, 3, K, M});
    const Array vt = duet::matmul(q, V, T);
    CHECK(vt.shape() == duet::Shape{2, 3, M});
    const Array sv = duet::matmul(q, S, V);
    CHECK(sv.shape() == duet::Shape{2, 3, M});
    const std::vector<float> vt_got = vt.to_vector<float>(q), sv_got = sv.to_vector<float>(q);
    std::vector<double> vt_want(6 * M, 0.0), sv_want(6 * M, 0.0);
    for (std::size_t t = 0; t < 6; ++t)
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t j = 0; j < M; ++j) {
          vt_want[t * M + j] += double(v[k]) * s[t * K * M + k * M + j];  // T[t] is K x M
          sv_want[t * M + j] += double(s[t * M * K + j * K + k]) * v[k];  // S[t] is M x K
        }
    check_close(vt_got, vt_want, K, "(K,) @ (2, 3, K, M)");
    check_close(sv_got, sv_want, K, "(2, 3, M, K) @ (K,)");
    CHECK_THROWS_WITH_AS(duet::matmul(q, duet::zeros(q, {2, 5, 3, 3}), duet::zeros(q, {3, 3, 3})),
                         doctest::Contains("do not broadcast"), duet::ArgumentError);
    CHECK_THROWS_WITH_AS(duet::matmul(q, duet::zeros(q, {2, 2, 3, 4}), duet::zeros(q, {2, 2, 5, 2})),
                         doctest::Contains("4 columns against 5 rows"), duet::ArgumentError);
    CHECK(duet::matmul(q, duet::zeros(q, {2, 0, 3, 4}), duet::zeros(q, {4, 2})).shape() ==
          duet::Shape{2, 0, 3, 2});
    CHECK(duet::matmul(q, duet::zeros(q, {1, 3, 4}), duet::zeros(q, {0, 4, 2})).shape() ==
          duet::Shape{0, 3, 2});
  });
}

TEST_CASE("array matmul: bfloat16, summed in float and rounded once") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    std::mt19937 rng(20261127);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (const std::array<std::size_t, 3>& mkn : {std::array<std::size_t, 3>{1, 1, 1}, {7, 61, 13}, {33, 130, 5}}) {
      const std::size_t m = mkn[0], k = mkn[1], n = mkn[2];  // not bindings: INFO's lambda captures them
      INFO(m, " x ", k, " x ", n);
      // Inputs drawn as bfloat16 values, so the reference multiplies exactly what the device holds.
      std::vector<float> a(m * k), b(k * n);
      for (float& x : a) x = duet::bfloat16::from_float(dist(rng)).to_float();
      for (float& x : b) x = duet::bfloat16::from_float(dist(rng)).to_float();
      const Array da = duet::evaluate(q, duet::astype(duet::from_host<float>(q, a, {m, k}), duet::ScalarType::bf16));
      const Array db = duet::evaluate(q, duet::astype(duet::from_host<float>(q, b, {k, n}), duet::ScalarType::bf16));
      const Array dc = duet::matmul(q, da, db);
      CHECK(dc.dtype() == duet::ScalarType::bf16);
      const std::vector<float> got = duet::evaluate(q, duet::astype(dc, duet::ScalarType::f32)).to_vector<float>(q);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          double want = 0, magnitude = 0;
          for (std::size_t p = 0; p < k; ++p) {
            want += double(a[i * k + p]) * b[p * n + j];
            magnitude += std::fabs(double(a[i * k + p]) * b[p * n + j]);
          }
          // Float sums over k, then one rounding to bfloat16 (8 significant bits).
          const double bound = 2.0 * (k + 3) * std::ldexp(magnitude, -24) + std::ldexp(std::fabs(want), -8);
          CHECK(std::fabs(got[i * n + j] - want) <= bound);
        }
    }
  });
}

TEST_CASE("array matmul: float64 and the errors") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    if (dev.info().supports_double) {
      const Array a = duet::arange(q, 0, 6, 1, duet::ScalarType::f64).reshape(q, {2, 3});
      const Array c = duet::matmul(q, a, a.T());
      CHECK(c.to_vector<double>(q) == std::vector<double>{5, 14, 14, 50});
    }
    const Array a = duet::zeros(q, {3, 4}), b = duet::zeros(q, {5, 2});
    CHECK_THROWS_WITH_AS(duet::matmul(q, a, b), doctest::Contains("4 columns against 5 rows"),
                         duet::ArgumentError);
    CHECK_THROWS_WITH_AS(duet::matmul(q, a, duet::zeros(q, {4, 2}, duet::ScalarType::i32)),
                         doctest::Contains("astype"), duet::ArgumentError);
    CHECK_THROWS_AS(duet::matmul(q, duet::zeros(q, {2, 2, 2, 2}), a), duet::ArgumentError);  // K 2 against 3
    CHECK_THROWS_WITH_AS(duet::matmul(q, duet::zeros(q, {2, 3, 4}), duet::zeros(q, {3, 4, 2})),
                         doctest::Contains("do not broadcast"), duet::ArgumentError);
    CHECK(duet::matmul(q, duet::zeros(q, {3, 0}), duet::zeros(q, {0, 2})).to_vector<float>(q) ==
          std::vector<float>(6, 0.0f));
  });
}
