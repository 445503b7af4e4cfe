// complex64 and complex128 beyond arithmetic, on every device: the array API's complex elementwise
// functions (tan, sinh, cosh, tanh, their inverses, expm1, log1p, log2, log10, power, sign, round,
// square, reciprocal) against std::complex<long double> on random inputs and on the branch cuts,
// large and tiny arguments; take, put and nonzero moving complex elements (complex128's 16 bytes
// too) with -0-0j counted as zero; cumulative sums and products, var and std, matmul and vecdot.
// Outputs are poisoned first, shapes awkward (one element, primes, views). The fused kernels also
// compile for sm_90 through NVRTC where NVRTC is present.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <duet/array_linalg.hpp>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "array_support.hpp"
#include "complex_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::Expr;
using duet::ScalarType;
using duet::Slice;
using cd = std::complex<double>;
using cl = std::complex<long double>;

template <class C>
constexpr double eps() {
  return std::is_same_v<C, std::complex<float>> ? 1.2e-7 : 2.3e-16;
}


template <class C>
std::vector<cd> read(duet::Queue& q, const Array& a) {
  std::vector<cd> out;
  for (const C& z : a.to_vector<C>(q)) out.emplace_back(z.real(), z.imag());
  return out;
}

// Each part within `tol` of the reference relative to its modulus; NaN parts matching.
bool near(cd got, cd want, double tol) {
  if (std::isnan(want.real()) || std::isnan(want.imag()))
    return std::isnan(got.real()) == std::isnan(want.real()) && std::isnan(got.imag()) == std::isnan(want.imag());
  if (std::isinf(want.real()) || std::isinf(want.imag())) return got == want;
  return std::abs(got - want) <= tol * std::abs(want) + 1e-300;
}

// The kernel of `e` compiles for CUDA, where NVRTC can be loaded.
void compiles_for_cuda(const Expr& e, ScalarType out) {
  if (!offline_nvrtc_checks()) return;
  try {
    CHECK(duet::compile_for_cuda_arch(duet::fused_source(e, out, true), {}, "sm_90", "fused.duet") > 0);
  } catch (const duet::BackendUnavailableError&) {
  }
}

struct Function {
  const char* name;
  std::function<Expr(const Expr&)> f;
  std::function<cl(cl)> want;
};

const std::vector<Function>& functions() {
  static const std::vector<Function> fs{
      {"tan", [](const Expr& e) { return duet::tan(e); }, [](cl z) { return std::tan(z); }},
      {"sinh", [](const Expr& e) { return duet::sinh(e); }, [](cl z) { return std::sinh(z); }},
      {"cosh", [](const Expr& e) { return duet::cosh(e); }, [](cl z) { return std::cosh(z); }},
      {"tanh", [](const Expr& e) { return duet::tanh(e); }, [](cl z) { return std::tanh(z); }},
      {"asin", [](const Expr& e) { return duet::asin(e); }, [](cl z) { return std::asin(z); }},
      {"acos", [](const Expr& e) { return duet::acos(e); }, [](cl z) { return std::acos(z); }},
      {"atan", [](const Expr& e) { return duet::atan(e); }, [](cl z) { return std::atan(z); }},
      {"asinh", [](const Expr& e) { return duet::asinh(e); }, [](cl z) { return std::asinh(z); }},
      {"acosh", [](const Expr& e) { return duet::acosh(e); }, [](cl z) { return std::acosh(z); }},
      {"atanh", [](const Expr& e) { return duet::atanh(e); }, [](cl z) { return std::atanh(z); }},
      {"expm1", [](const Expr& e) { return duet::expm1(e); },
       [](cl z) {  // exp(z) - 1 without the cancellation of small z
         const long double h = std::sin(z.imag() / 2);
         return cl(std::expm1(z.real()) * std::cos(z.imag()) - 2 * h * h, std::exp(z.real()) * std::sin(z.imag()));
       }},
      {"log1p", [](const Expr& e) { return duet::log1p(e); },
       [](cl z) {
         const long double x = z.real(), y = z.imag();
         return cl(std::log1p(x * (2 + x) + y * y) / 2, std::atan2(y, 1 + x));
       }},
      {"log2", [](const Expr& e) { return duet::log2(e); }, [](cl z) { return std::log(z) / std::log(2.0L); }},
      {"log10", [](const Expr& e) { return duet::log10(e); }, [](cl z) { return std::log10(z); }},
      {"sign", [](const Expr& e) { return duet::sign(e); },
       [](cl z) { return z == cl(0) ? cl(0) : z / std::abs(z); }},
      {"round", [](const Expr& e) { return duet::round(e); },
       [](cl z) { return cl(std::nearbyint(z.real()), std::nearbyint(z.imag())); }},
      {"square", [](const Expr& e) { return duet::square(e); }, [](cl z) { return z * z; }},
      {"reciprocal", [](const Expr& e) { return duet::reciprocal(e); }, [](cl z) { return cl(1) / z; }},
      {"a ** 3", [](const Expr& e) { return duet::power(e, 3); }, [](cl z) { return z * z * z; }},
      {"a ** -2", [](const Expr& e) { return duet::power(e, -2); }, [](cl z) { return cl(1) / (z * z); }},
      {"a ** 0.5", [](const Expr& e) { return duet::power(e, 0.5); }, [](cl z) { return std::sqrt(z); }},
      {"a ** (1.5 - 0.5j)", [](const Expr& e) { return duet::power(e, Expr::complex_scalar(1.5, -0.5)); },
       [](cl z) { return std::pow(z, cl(1.5L, -0.5L)); }},
      {"2 ** a", [](const Expr& e) { return duet::power(2, e); }, [](cl z) { return std::exp(z * std::log(2.0L)); }},
  };
  return fs;
}

// Arguments away from the random ones: the branch cuts (with both signs of a zero imaginary part),
// tiny arguments (where expm1, log1p and the inverse functions keep their digits), large real parts
// (tanh's decay) and zero.
template <class C>
std::vector<C> special_arguments() {
  using R = typename C::value_type;
  const R z = 0;
  return {C(2, z),    C(2, -z),   C(-3, z),    C(-3, -z),    C(z, 2),       C(-z, -2.5),   C(0.5, z),
          C(-0.5, -z), C(1e-5, 2e-5), C(-3e-6, 1e-6), C(R(1e-3), R(-2e-3)), C(30, 1), C(-30, 2), C(z, 0.5),
          C(1, z),    C(z, z),    C(0.25, 0.75), C(-1.5, 0.125)};
}

}  // namespace

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("complex scans and functions compile for sm_90 with NVRTC") {
  for (ScalarType t : {ScalarType::c64, ScalarType::c128}) {
    CHECK(duet::compile_for_cuda_arch(duet::cumsum_source(t), {}, "sm_90", "cumsum.duet") > 0);
    CHECK(duet::compile_for_cuda_arch(duet::cumprod_source(t), {}, "sm_90", "cumprod.duet") > 0);
  }
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("device");

TEST_CASE("complex elementwise functions against std::complex<long double>") {
  for_each_device([](const duet::Device& dev) {
    for_each_complex(dev, [&](duet::Queue& q, auto tag) {
      using C = decltype(tag);
      constexpr ScalarType t = complex_dtype<C>();
      auto rng = make_rng("complex functions", sizeof(C));
      std::vector<C> v = random_complex<C>(rng, 101, 3.0);
      for (const C& s : special_arguments<C>()) v.push_back(s);
      const std::size_t n = v.size();  // 119, a prime
      const Array a = duet::from_host<C>(q, v, {n});
      // A reversed, stepped view of a second copy: the strided kernels.
      const Array twice = duet::from_host<C>(q, [&] {
        std::vector<C> w;
        for (std::size_t i = n; i-- > 0;) w.push_back(v[i]), w.push_back(C(7, 7));
        return w;
      }(), {2 * n});
      const Array view = twice.index({Slice{-2, {}, -2}});  // v[0], v[1], ... from the end back
      for (const Function& f : functions()) {
        const std::string name = f.name;
        CAPTURE(name);
        // 0 ** b is NumPy's special case, not the reference's formula; and exp(b log a) gives a
        // zero imaginary part either sign.
        const bool zero_special = name.find("**") != std::string::npos;
        for (const Array* x : {&a, &view}) {
          const Expr e = f.f(*x);
          REQUIRE(e.dtype() == t);
          const Array out = duet::full(q, {n}, NAN, t);
          duet::assign(q, out, e);
          const std::vector<cd> got = read<C>(q, out);
          for (std::size_t i = 0; i < n; ++i) {
            if (zero_special && v[i] == C(0)) continue;
            const cl arg(v[i].real(), v[i].imag());
            const cl w = f.want(arg);
            const cd want(static_cast<double>(w.real()), static_cast<double>(w.imag()));
            CAPTURE(i);
            CAPTURE(arg);
            CAPTURE(got[i]);
            CAPTURE(want);
            CHECK(near(got[i], want, 64 * eps<C>()));
            // The signs of the branch cuts' zero parts.
            if (!zero_special && want.imag() == 0 && !std::isnan(got[i].imag()))
              CHECK(std::signbit(got[i].imag()) == std::signbit(want.imag()));
          }
        }
        compiles_for_cuda(f.f(a), t);
      }
      // NumPy's special cases of power, sign and round.
      const Array zero = duet::from_host<C>(q, std::vector<C>{C(0), C(0), C(0), C(2, 1)}, {4});
      const Array expo = duet::from_host<C>(q, std::vector<C>{C(0), C(2), C(1, 1), C(0)}, {4});
      const std::vector<cd> p = read<C>(q, duet::evaluate(q, duet::power(zero, expo)));
      CHECK(p[0] == cd(1));
      CHECK(p[1] == cd(0));
      CHECK((std::isnan(p[2].real()) && std::isnan(p[2].imag())));
      CHECK(p[3] == cd(1));
      const std::vector<cd> sg = read<C>(
          q, duet::evaluate(q, duet::sign(duet::from_host<C>(q, std::vector<C>{C(-0.0, 0), C(NAN, 1), C(3, -4)}, {3}))));
      CHECK(sg[0] == cd(0));
      CHECK(std::isnan(sg[1].real()));
      CHECK(near(sg[2], cd(0.6, -0.8), 4 * eps<C>()));
      // floor, ceil and trunc stay refused: complex numbers have no order to round toward.
      CHECK_THROWS_AS(duet::floor(a), duet::ArgumentError);
      CHECK_THROWS_AS(duet::trunc(a), duet::ArgumentError);
      CHECK_THROWS_AS(duet::atan2(a, a), duet::ArgumentError);
    });
  });
}

TEST_CASE("complex take, put and nonzero move whole elements") {
  for_each_device([](const duet::Device& dev) {
    for_each_complex(dev, [&](duet::Queue& q, auto tag) {
      using C = decltype(tag);
      using R = typename C::value_type;
      constexpr ScalarType t = complex_dtype<C>();
      auto rng = make_rng("complex select", sizeof(C));
      for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(97), std::size_t(4099)}) {
        CAPTURE(n);
        std::vector<C> v = random_complex<C>(rng, n, 3.0);
        // Zeros of every sign (zero elements), and elements with one zero part (nonzero).
        const R nz = -0.0;
        for (std::size_t i = 0; i < n; i += 3) {
          const std::size_t kind = (i / 3) % 6;
          v[i] = kind == 0   ? C(nz, 0)
                 : kind == 1 ? C(0, nz)
                 : kind == 2 ? C(nz, nz)
                 : kind == 3 ? C(0, R(1e-30))
                 : kind == 4 ? C(R(-2), nz)
                             : C(NAN, 0);
        }
        const Array a = duet::from_host<C>(q, v, {n});
        std::vector<std::int64_t> want_nz;
        for (std::size_t i = 0; i < n; ++i)
          if (v[i].real() != 0 || v[i].imag() != 0 || std::isnan(v[i].real())) want_nz.push_back(std::int64_t(i));
        CHECK(duet::flatnonzero(q, a).template to_vector<std::int64_t>(q) == want_nz);
        // take: indices with repeats and negatives, from the array and from a reversed view.
        std::uniform_int_distribution<std::int64_t> pick(-std::int64_t(n), std::int64_t(n) - 1);
        std::vector<std::int64_t> idx(2 * n + 1);
        for (auto& k : idx) k = pick(rng);
        const Array ix = duet::from_host<std::int64_t>(q, idx, {idx.size()});
        const Array taken = duet::take(q, a, ix, 0);
        const Array reversed = duet::take(q, a.index({Slice{{}, {}, -1}}), ix, 0);
        const std::vector<C> got = taken.to_vector<C>(q), got_r = reversed.to_vector<C>(q);
        for (std::size_t j = 0; j < idx.size(); ++j) {
          const std::size_t at = std::size_t(idx[j] < 0 ? idx[j] + std::int64_t(n) : idx[j]);
          CAPTURE(j);
          const C w = v[at], wr = v[n - 1 - at];
          CHECK(((got[j] == w) || (std::isnan(w.real()) && std::isnan(got[j].real()))));
          CHECK(((got_r[j] == wr) || (std::isnan(wr.real()) && std::isnan(got_r[j].real()))));
        }
        // put: every other element of a poisoned array, through offsets.
        const Array out = duet::full(q, {n}, NAN, t);
        std::vector<std::int64_t> offsets;
        std::vector<C> values;
        for (std::size_t i = 0; i < n; i += 2) offsets.push_back(std::int64_t(i)), values.push_back(C(R(i), -R(i)));
        duet::put(q, out, duet::from_host<std::int64_t>(q, offsets, {offsets.size()}),
                  duet::from_host<C>(q, values, {values.size()}));
        const std::vector<C> put_back = out.to_vector<C>(q);
        for (std::size_t i = 0; i < n; ++i) {
          CAPTURE(i);
          if (i % 2 == 0)
            CHECK(put_back[i] == C(R(i), -R(i)));
          else
            CHECK(std::isnan(put_back[i].real()));  // untouched: full's NaN + 0j
        }
      }
      // nonzero of a 2-D array, and take along its second axis of a stepped view.
      const std::vector<C> m = random_complex<C>(rng, 5 * 23, 3.0);
      std::vector<C> mz = m;
      for (std::size_t i = 0; i < mz.size(); i += 4) mz[i] = C(R(-0.0), R(-0.0));
      const Array M = duet::from_host<C>(q, mz, {5, 23});
      const std::vector<Array> coords = duet::nonzero(q, M);
      REQUIRE(coords.size() == 2);
      const auto rows = coords[0].to_vector<std::int64_t>(q), cols = coords[1].to_vector<std::int64_t>(q);
      std::size_t k = 0;
      for (std::size_t i = 0; i < mz.size(); ++i)
        if (i % 4 != 0) {
          REQUIRE(k < rows.size());
          CHECK(rows[k] == std::int64_t(i / 23));
          CHECK(cols[k] == std::int64_t(i % 23));
          ++k;
        }
      CHECK(k == rows.size());
      const Array stepped = M.index({Slice{}, Slice{1, {}, 3}});  // 5 x 8
      const Array cols_taken = duet::take(q, stepped, duet::from_host<std::int64_t>(q, std::vector<std::int64_t>{7, 0, -1}, {3}), 1);
      const std::vector<C> ct = cols_taken.to_vector<C>(q);
      for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
          const std::size_t c = std::size_t(j == 1 ? 0 : 7) * 3 + 1;
          CHECK(ct[i * 3 + j] == mz[i * 23 + c]);
        }
    });
  });
}

TEST_CASE("complex cumulative sums and products, and matmul") {
  for_each_device([](const duet::Device& dev) {
    for_each_complex(dev, [&](duet::Queue& q, auto tag) {
      using C = decltype(tag);
      using R = typename C::value_type;
      constexpr ScalarType t = complex_dtype<C>();
      auto rng = make_rng("complex scan", sizeof(C));
      const std::size_t rows = 5, cols = 2053;  // a row longer than one scan chunk
      std::vector<C> v = random_complex<C>(rng, rows * cols, 1.0);
      // Factors on the unit circle (slightly off), so long products stay finite.
      std::vector<C> u(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) u[i] = v[i] / std::abs(v[i]) * R(1.0001);
      const Array a = duet::from_host<C>(q, v, {rows, cols}), f = duet::from_host<C>(q, u, {rows, cols});
      const double tol = 64 * eps<C>() * std::sqrt(double(cols));
      const Array s1 = duet::cumsum(q, a, 1), p1 = duet::cumprod(q, f, 1), s0 = duet::cumsum(q, a, 0);
      CHECK(s1.dtype() == t);
      CHECK(p1.dtype() == t);
      const std::vector<cd> gs1 = read<C>(q, s1), gp1 = read<C>(q, p1), gs0 = read<C>(q, s0);
      for (std::size_t i = 0; i < rows; ++i) {
        cl sum = 0, prod = 1;
        for (std::size_t j = 0; j < cols; ++j) {
          sum += cl(v[i * cols + j].real(), v[i * cols + j].imag());
          prod *= cl(u[i * cols + j].real(), u[i * cols + j].imag());
          CAPTURE(i);
          CAPTURE(j);
          // Sums are checked against the partial sums' scale (their terms' total modulus).
          CHECK(std::abs(gs1[i * cols + j] - cd(double(sum.real()), double(sum.imag()))) <= tol * double(j + 1));
          CHECK(near(gp1[i * cols + j], cd(double(prod.real()), double(prod.imag())), tol * 4));
        }
      }
      for (std::size_t j = 0; j < cols; j += 97) {
        cl sum = 0;
        for (std::size_t i = 0; i < rows; ++i) {
          sum += cl(v[i * cols + j].real(), v[i * cols + j].imag());
          CHECK(std::abs(gs0[i * cols + j] - cd(double(sum.real()), double(sum.imag()))) <= tol * 8);
        }
      }
      // The flattened scan of a reversed, stepped view, into a poisoned out.
      const Array view = a.index({Slice{{}, {}, -1}, Slice{0, 13, 3}});  // 5 x 5
      const Array out = duet::full(q, {25}, NAN, t);
      duet::cumsum(q, view, std::nullopt, out);
      const std::vector<cd> gv = read<C>(q, out);
      cl sum = 0;
      for (std::size_t k = 0; k < 25; ++k) {
        const C x = v[(rows - 1 - k / 5) * cols + 3 * (k % 5)];
        sum += cl(x.real(), x.imag());
        CHECK(std::abs(gv[k] - cd(double(sum.real()), double(sum.imag()))) <= tol);
      }
      CHECK_THROWS_AS(duet::cumsum(q, view, std::nullopt, duet::empty(dev, {25}, duet::real_type(t))),
                      duet::ArgumentError);
      // matmul: matrices, a transposed view and a vector, from four real products of the parts.
      const std::size_t M = 7, K = 13, N = 5;
      const std::vector<C> va = random_complex<C>(rng, M * K, 3.0), vb = random_complex<C>(rng, K * N, 3.0);
      const Array A = duet::from_host<C>(q, va, {M, K}), B = duet::from_host<C>(q, vb, {K, N});
      auto at = [](const std::vector<C>& w, std::size_t i) { return cd(w[i].real(), w[i].imag()); };
      const std::vector<cd> c = read<C>(q, duet::matmul(q, A, B));
      const std::vector<cd> ct = read<C>(q, duet::matmul(q, B.T(), A.T()));  // (A B)^T
      const std::vector<cd> cv = read<C>(q, duet::matmul(q, A.index({std::int64_t(2)}), B));
      for (std::size_t i = 0; i < M; ++i)
        for (std::size_t j = 0; j < N; ++j) {
          cd want = 0;
          double scale = 0;
          for (std::size_t k = 0; k < K; ++k)
            want += at(va, i * K + k) * at(vb, k * N + j), scale += std::abs(at(va, i * K + k) * at(vb, k * N + j));
          CAPTURE(i);
          CAPTURE(j);
          CHECK(std::abs(c[i * N + j] - want) <= 16 * eps<C>() * scale);
          CHECK(std::abs(ct[j * M + i] - want) <= 16 * eps<C>() * scale);
          if (i == 2) CHECK(std::abs(cv[j] - want) <= 16 * eps<C>() * scale);
        }
    });
  });
}

TEST_SUITE_END();
