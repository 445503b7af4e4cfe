// The complex dtypes (ScalarType::c64, c128) of duet::Array on every device, against a
// std::complex<double> host reference on random inputs of awkward shapes (0-d, empty, one element,
// prime extents, broadcast rows, reversed and stepped views), with every output poisoned first:
// creation and reading back, + - * / (division of large magnitudes included), promotion with real
// arrays and plain numbers, == and !=, abs, real, imag, conj, exp, log, sqrt, sin, cos, sum, prod
// and mean, and the errors for what complex numbers lack (order, floor division, ...). The
// generated kernels compile for sm_90 through NVRTC where NVRTC is present.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <functional>
#include <optional>
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

// Within `tol` of `want` relative to its modulus (or absolutely near 0), NaN parts matching.
bool near(cd got, cd want, double tol) {
  if (std::isnan(want.real()) || std::isnan(want.imag()))
    return std::isnan(got.real()) == std::isnan(want.real()) &&
           std::isnan(got.imag()) == std::isnan(want.imag());
  return std::abs(got - want) <= tol * (std::abs(want) + 1e-30) + 1e-30;
}

// The elements of an array of C as std::complex<double>.
template <class C>
std::vector<cd> read(duet::Queue& q, const Array& a) {
  std::vector<cd> out;
  for (const C& z : a.to_vector<C>(q)) out.emplace_back(z.real(), z.imag());
  return out;
}

// An output array of `shape` and dtype poisoned with NaN, so an element the kernel misses shows.
Array poisoned(duet::Queue& q, const duet::Shape& shape, ScalarType dtype) {
  return duet::full(q, shape, NAN, dtype);
}

// The kernel of `e` writing `out` compiles for CUDA, where NVRTC can be loaded (it needs no GPU).
void compiles_for_cuda(const Expr& e, ScalarType out) {
  if (!offline_nvrtc_checks()) return;
  try {
    for (bool flat : {true, false})
      CHECK(duet::compile_for_cuda_arch(duet::fused_source(e, out, flat), {}, "sm_90", "fused.duet") > 0);
    if (!e.shape().empty())  // the rows form walks an innermost axis
      CHECK(duet::compile_for_cuda_arch(duet::fused_source(e, out, false, false, true, true), {}, "sm_90",
                                        "fused.duet") > 0);
  } catch (const duet::BackendUnavailableError&) {
  }
}

template <class C>
constexpr double tolerance() {
  return std::is_same_v<C, std::complex<float>> ? 4e-6 : 1e-14;
}

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("complex dtypes: names, sizes and promotion") {
  using T = ScalarType;
  CHECK(duet::size_of(T::c64) == 8);
  CHECK(duet::size_of(T::c128) == 16);
  CHECK(duet::is_complex(T::c64));
  CHECK(!duet::is_float(T::c64));
  CHECK(!duet::is_integer(T::c128));
  CHECK(std::string(duet::numpy_name(T::c64)) == "complex64");
  CHECK(std::string(duet::to_string(T::c128)) == "cdouble");
  CHECK(duet::scalar_type_from_numpy_name("complex128") == T::c128);
  CHECK(duet::scalar_type_from_name("cfloat") == T::c64);
  CHECK(duet::scalar_type_of<std::complex<float>>() == T::c64);
  CHECK(duet::real_type(T::c128) == T::f64);
  CHECK(duet::promote_types(T::c64, T::c64) == T::c64);
  CHECK(duet::promote_types(T::c64, T::c128) == T::c128);
  CHECK(duet::promote_types(T::f32, T::c64) == T::c64);
  CHECK(duet::promote_types(T::c64, T::f64) == T::c128);
  CHECK(duet::promote_types(T::f16, T::c64) == T::c64);
  CHECK(duet::promote_types(T::bf16, T::c64) == T::c64);
  CHECK(duet::promote_types(T::f32, T::c128) == T::c128);
  for (T t : {T::b8, T::i8, T::u8, T::i16, T::u16, T::i32, T::u32, T::i64, T::u64}) {
    CAPTURE(duet::numpy_name(t));
    CHECK(duet::promote_types(t, T::c64) == T::c64);
    CHECK(duet::promote_types(T::c128, t) == T::c128);
  }
  // The reductions' dtypes: sums stay complex; min and max have no order to follow.
  CHECK(duet::reduction_dtype(duet::ReduceOp::sum, T::c64) == T::c64);
  CHECK(duet::reduction_dtype(duet::ReduceOp::all, T::c64) == T::b8);
  CHECK_THROWS_AS(duet::reduction_dtype(duet::ReduceOp::max, T::c64), duet::ArgumentError);
}

TEST_SUITE_END();
// The NVRTC run (duet.nvrtc), which skips where NVRTC is absent and, under AddressSanitizer, records
// NVRTC's many allocations cheaply; the device-independent run stays free of it.
TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("complex reductions compile for sm_90 with NVRTC") {
  using T = ScalarType;
  for (T t : {T::c64, T::c128})
    for (duet::ReduceOp op : {duet::ReduceOp::sum, duet::ReduceOp::prod, duet::ReduceOp::mean, duet::ReduceOp::any})
      CHECK(duet::compile_for_cuda_arch(duet::reduction_source(op, t), {}, "sm_90", "reduce.duet") > 0);
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("device");

TEST_CASE("complex arrays: creation and reading back, at awkward shapes") {
  for_each_device([](const duet::Device& dev) {
    for_each_complex(dev, [&](duet::Queue& q, auto tag) {
      using C = decltype(tag);
      constexpr ScalarType t = complex_dtype<C>();
      auto rng = make_rng("complex create", sizeof(C));
      for (const duet::Shape& shape : awkward_shapes()) {
        CAPTURE(duet::shape_text(shape));
        const std::size_t n = duet::element_count(shape);
        const std::vector<C> v = random_complex<C>(rng, n, 4.0);
        const Array A = duet::from_host<C>(q, v, shape);
        CHECK(A.dtype() == t);
        CHECK(A.itemsize() == sizeof(C));
        CHECK(A.to_vector<C>(q) == v);
        CHECK(duet::ones(q, shape, t).to_vector<C>(q) == std::vector<C>(n, C(1, 0)));
        CHECK(duet::full(q, shape, -2.5, t).to_vector<C>(q) == std::vector<C>(n, C(-2.5, 0)));
        // A copy of a reversed view, through the fused kernel's conversion-free path.
        if (shape.size() == 1 && n > 1) {
          const Array r = A.index({Slice{{}, {}, -1}}).copy(q);
          std::vector<C> want(v.rbegin(), v.rend());
          CHECK(r.to_vector<C>(q) == want);
        }
      }
      CHECK_THROWS_AS(duet::arange(q, 0, 3, 1, t), duet::ArgumentError);
    });
  });
}

TEST_CASE("complex arrays: arithmetic, promotion and functions against std::complex<double>") {
  for_each_device([](const duet::Device& dev) {
    for_each_complex(dev, [&](duet::Queue& q, auto tag) {
      using C = decltype(tag);
      using R = typename C::value_type;
      constexpr ScalarType t = complex_dtype<C>();
      constexpr ScalarType rt = duet::real_type(t);
      const double tol = tolerance<C>();
      auto rng = make_rng("complex arithmetic", sizeof(C));
      with_gpu_forms([&] {
        for (const duet::Shape& shape :
             {duet::Shape{97}, duet::Shape{7, 13}, duet::Shape{3, 41}, duet::Shape{}}) {
          CAPTURE(duet::shape_text(shape));
          const std::size_t n = duet::element_count(shape);
          const std::vector<C> va = random_complex<C>(rng, n, 4.0), vb = random_complex<C>(rng, n, 4.0);
          std::vector<R> vr(n);
          for (std::size_t i = 0; i < n; ++i) vr[i] = static_cast<R>(va[i].real() * 0.75 - 1);
          std::vector<std::int32_t> vi(n);
          for (std::size_t i = 0; i < n; ++i) vi[i] = static_cast<std::int32_t>(i % 11) - 5;
          const Array a = duet::from_host<C>(q, va, shape), b = duet::from_host<C>(q, vb, shape);
          const Array r = duet::from_host<R>(q, vr, shape);
          const Array k = duet::from_host<std::int32_t>(q, vi, shape);
          auto A = [&](std::size_t i) { return cd(va[i].real(), va[i].imag()); };
          auto B = [&](std::size_t i) { return cd(vb[i].real(), vb[i].imag()); };
          struct Case {
            const char* what;
            Expr e;
            ScalarType dtype;
            std::function<cd(std::size_t)> want;
          };
          const std::vector<Case> cases{
              {"a + b", a + b, t, [&](std::size_t i) { return A(i) + B(i); }},
              {"a - b", a - b, t, [&](std::size_t i) { return A(i) - B(i); }},
              {"a * b", a * b, t, [&](std::size_t i) { return A(i) * B(i); }},
              {"a / b", a / b, t, [&](std::size_t i) { return A(i) / B(i); }},
              {"-a", -Expr(a), t, [&](std::size_t i) { return -A(i); }},
              {"a * r", a * r, t, [&](std::size_t i) { return A(i) * double(vr[i]); }},
              {"r / a", Expr(r) / Expr(a), t, [&](std::size_t i) { return double(vr[i]) / A(i); }},
              {"a + k", a + k, t, [&](std::size_t i) { return A(i) + double(vi[i]); }},
              {"2.5 * a - 1", 2.5 * Expr(a) - 1, t, [&](std::size_t i) { return 2.5 * A(i) - 1.0; }},
              {"a * (0.5 - 2j)", a * Expr::complex_scalar(0.5, -2), t,
               [&](std::size_t i) { return A(i) * cd(0.5, -2); }},
              {"r + 1j", r + Expr::complex_scalar(0, 1), t, [&](std::size_t i) { return double(vr[i]) + cd(0, 1); }},
              {"where(k > 0, a, b)", duet::where(Expr(k) > 0, a, b), t,
               [&](std::size_t i) { return vi[i] > 0 ? A(i) : B(i); }},
              {"abs(a)", duet::abs(a), rt, [&](std::size_t i) { return cd(std::abs(A(i))); }},
              {"real(a)", duet::real(a), rt, [&](std::size_t i) { return cd(A(i).real()); }},
              {"imag(a)", duet::imag(a), rt, [&](std::size_t i) { return cd(A(i).imag()); }},
              {"conj(a)", duet::conj(a), t, [&](std::size_t i) { return std::conj(A(i)); }},
              {"exp(a)", duet::exp(a), t, [&](std::size_t i) { return std::exp(A(i)); }},
              {"log(a)", duet::log(a), t, [&](std::size_t i) { return std::log(A(i)); }},
              {"sqrt(a)", duet::sqrt(a), t, [&](std::size_t i) { return std::sqrt(A(i)); }},
              {"sin(a)", duet::sin(a), t, [&](std::size_t i) { return std::sin(A(i)); }},
              {"cos(a)", duet::cos(a), t, [&](std::size_t i) { return std::cos(A(i)); }},
              {"a == a", Expr(a) == Expr(a), ScalarType::b8, [&](std::size_t) { return cd(1); }},
              {"a != b", Expr(a) != Expr(b), ScalarType::b8,
               [&](std::size_t i) { return cd(A(i) != B(i) ? 1 : 0); }},
              {"astype(a, float)", duet::astype(a, rt), rt, [&](std::size_t i) { return cd(A(i).real()); }},
          };
          for (const Case& c : cases) {
            CAPTURE(c.what);
            REQUIRE(c.e.dtype() == c.dtype);
            const Array out = poisoned(q, shape, c.dtype);
            duet::assign(q, out, c.e);
            std::vector<cd> got;
            if (duet::is_complex(c.dtype))
              got = read<C>(q, out);
            else if (c.dtype == ScalarType::b8)
              for (bool x : out.to_vector<bool>(q)) got.emplace_back(x ? 1 : 0);
            else
              for (R x : out.to_vector<R>(q)) got.emplace_back(x);
            for (std::size_t i = 0; i < n; ++i) {
              CAPTURE(i);
              CHECK(near(got[i], c.want(i), tol * 4));
            }
          }
          compiles_for_cuda(a / b + duet::sqrt(a) * 2.0, t);
          compiles_for_cuda(duet::abs(a) + duet::real(b), rt);
        }
        // Views: a reversed, stepped operand with a broadcast row.
        const std::vector<C> vm = random_complex<C>(rng, 6 * 29, 4.0), vrow = random_complex<C>(rng, 15, 4.0);
        const Array m = duet::from_host<C>(q, vm, {6, 29});
        const Array row = duet::from_host<C>(q, vrow, {15});
        const Array view = m.index({Slice{{}, {}, -1}, Slice{0, {}, 2}});  // 6 x 15
        const Array out = poisoned(q, {6, 15}, t);
        duet::assign(q, out, view * row + view);
        const std::vector<cd> got = read<C>(q, out);
        for (std::size_t i = 0; i < 6; ++i)
          for (std::size_t j = 0; j < 15; ++j) {
            const C x = vm[(5 - i) * 29 + 2 * j], y = vrow[j];
            const cd want = cd(x.real(), x.imag()) * cd(y.real(), y.imag()) + cd(x.real(), x.imag());
            CHECK(near(got[i * 15 + j], want, tol * 4));
          }
      });
      // Division of large magnitudes: |b|^2 overflows the part type, the scaled division does not.
      const R big = std::is_same_v<R, float> ? R(3e30) : R(1e300);
      const std::vector<C> num{C(big, big), C(1, 2), C(big, -big / 2)},
          den{C(big, big / 4), C(big, -big), C(-big / 3, big)};
      const Array q1 = evaluate(q, duet::from_host<C>(q, num, {3}) / duet::from_host<C>(q, den, {3}));
      const std::vector<cd> got = read<C>(q, q1);
      for (std::size_t i = 0; i < 3; ++i) {
        const cd want = cd(num[i].real(), num[i].imag()) / cd(den[i].real(), den[i].imag());
        CAPTURE(i);
        CHECK(near(got[i], want, tolerance<C>() * 4));
      }
      // What complex numbers lack.
      const Array a = duet::ones(q, {4}, t);
      CHECK_THROWS_AS(static_cast<void>(Expr(a) < Expr(a)), duet::ArgumentError);
      CHECK_THROWS_AS(duet::floor_divide(a, a), duet::ArgumentError);
      CHECK_THROWS_AS(duet::maximum(a, 1), duet::ArgumentError);
      CHECK_THROWS_AS(duet::ceil(a), duet::ArgumentError);
      CHECK_THROWS_AS(a & a, duet::ArgumentError);
      CHECK_THROWS_AS(duet::max(q, a), duet::ArgumentError);
      CHECK_THROWS_AS(duet::sort(q, a), duet::ArgumentError);
    });
  });
}

TEST_CASE("complex arrays: sum, prod and mean") {
  for_each_device([](const duet::Device& dev) {
    for_each_complex(dev, [&](duet::Queue& q, auto tag) {
      using C = decltype(tag);
      constexpr ScalarType t = complex_dtype<C>();
      auto rng = make_rng("complex reduce", sizeof(C));
      for (const duet::Shape& shape :
           {duet::Shape{1}, duet::Shape{97}, duet::Shape{13, 37}, duet::Shape{1000}}) {
        CAPTURE(duet::shape_text(shape));
        const std::size_t n = duet::element_count(shape);
        std::vector<C> v = random_complex<C>(rng, n, 1.0);
        // Factors near the unit circle keep long products finite.
        std::vector<C> unit(n);
        for (std::size_t i = 0; i < n; ++i) unit[i] = v[i] / std::abs(v[i]) * typename C::value_type(1.001);
        const Array a = duet::from_host<C>(q, v, shape), u = duet::from_host<C>(q, unit, shape);
        cd sum = 0, prod = 1;
        for (std::size_t i = 0; i < n; ++i) {
          sum += cd(v[i].real(), v[i].imag());
          prod *= cd(unit[i].real(), unit[i].imag());
        }
        const double tol = tolerance<C>() * 4 * std::sqrt(double(n));
        const Array s = duet::sum(q, a), p = duet::prod(q, u), m = duet::mean(q, a);
        CHECK(s.dtype() == t);
        CHECK(near(read<C>(q, s)[0], sum, tol * 10));
        CHECK(near(read<C>(q, p)[0], prod, tol * 10));
        CHECK(near(read<C>(q, m)[0], sum / double(n), tol * 10));
        if (shape.size() == 2) {
          const std::vector<cd> rows = read<C>(q, duet::sum(q, a, std::int64_t{1}));
          const std::vector<cd> cols = read<C>(q, duet::sum(q, a, std::int64_t{0}));
          for (std::size_t i = 0; i < shape[0]; ++i) {
            cd want = 0;
            for (std::size_t j = 0; j < shape[1]; ++j)
              want += cd(v[i * shape[1] + j].real(), v[i * shape[1] + j].imag());
            CHECK(near(rows[i], want, tol * 10));
          }
          for (std::size_t j = 0; j < shape[1]; ++j) {
            cd want = 0;
            for (std::size_t i = 0; i < shape[0]; ++i)
              want += cd(v[i * shape[1] + j].real(), v[i * shape[1] + j].imag());
            CHECK(near(cols[j], want, tol * 10));
          }
        }
        CHECK(duet::any(q, a).to_vector<bool>(q)[0]);
      }
    });
  });
}

TEST_SUITE_END();
