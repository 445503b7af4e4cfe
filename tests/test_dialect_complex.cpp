// The dialect's complex types, cfloat and cdouble: one user kernel calls every function of the
// prelude on random operands and is checked against std::complex<double> on every device (cdouble
// where the device has double), and compiles for sm_90 through NVRTC. Division is also tried on
// magnitudes whose squares overflow, where a plain (a * conj(b)) / |b|^2 gives inf or NaN.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <duet/duet.hpp>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

using cd = std::complex<double>;

// F(_add) is C's add (C and R come as defines: cfloat and float, or cdouble and double).
const char* const kAllOps = R"DUET(
#define F(what) DUET_CAT(C, what)
KERNEL void all_ops(GLOBAL const C* a, GLOBAL const C* b, GLOBAL C* out, GLOBAL R* parts, const uint n) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i >= n) return;
  const C x = LOAD(C, a + i), y = b[i];
  GLOBAL C* o = out + 12 * i;
  o[0] = F(_add)(x, y);
  o[1] = F(_sub)(x, y);
  o[2] = F(_mul)(x, y);
  o[3] = F(_div)(x, y);
  o[4] = F(_neg)(x);
  o[5] = F(_conj)(x);
  o[6] = F(_exp)(x);
  o[7] = F(_log)(x);
  o[8] = F(_sqrt)(x);
  o[9] = F(_sin)(x);
  STORE(C, o + 10, F(_cos)(x));
  o[11] = F(_make)((R)F(_eq)(x, x), (R)F(_ne)(x, y));
  parts[3 * i] = F(_abs)(x);
  parts[3 * i + 1] = F(_real)(x);
  parts[3 * i + 2] = F(_imag)(x);
}
)DUET";

std::vector<std::function<cd(cd, cd)>> references() {
  return {[](cd x, cd y) { return x + y; },      [](cd x, cd y) { return x - y; },
          [](cd x, cd y) { return x * y; },      [](cd x, cd y) { return x / y; },
          [](cd x, cd) { return -x; },           [](cd x, cd) { return std::conj(x); },
          [](cd x, cd) { return std::exp(x); },  [](cd x, cd) { return std::log(x); },
          [](cd x, cd) { return std::sqrt(x); }, [](cd x, cd) { return std::sin(x); },
          [](cd x, cd) { return std::cos(x); },  [](cd x, cd y) { return cd(1, x != y ? 1 : 0); }};
}

template <class C>
void run_all_ops(const duet::Device& dev, const char* c_name, const char* r_name, double tol) {
  using R = typename C::value_type;
  duet::Queue q = dev.queue();
  auto rng = make_rng(std::string("dialect complex ") + c_name);
  std::uniform_real_distribution<double> u(-3, 3);
  const R big = std::is_same_v<R, float> ? R(1e30) : R(1e300);
  std::vector<C> a, b;
  for (int i = 0; i < 61; ++i) {
    a.emplace_back(static_cast<R>(u(rng)), static_cast<R>(u(rng)));
    b.emplace_back(static_cast<R>(u(rng)), static_cast<R>(u(rng)));
  }
  // Large magnitudes for the division (and a negative real for sqrt's branch).
  a.emplace_back(big, -big);
  b.emplace_back(big / 2, big);
  a.emplace_back(R(-4), R(0));
  b.emplace_back(R(1), R(0));
  const std::size_t n = a.size();
  const duet::Kernel k =
      dev.compile(kAllOps, {{"C", c_name}, {"R", r_name}}, "all_ops.duet").kernel("all_ops");
  duet::Buffer<C> da(dev, n), db(dev, n), out(dev, 12 * n);
  duet::Buffer<R> parts(dev, 3 * n);
  q.write(da, a);
  q.write(db, b);
  q.launch(k, duet::Range(n), duet::Range(), da, db, out, parts, static_cast<std::uint32_t>(n));
  const std::vector<C> got = q.to_vector(out);
  const std::vector<R> got_parts = q.to_vector(parts);
  const auto refs = references();
  for (std::size_t i = 0; i < n; ++i) {
    const cd x(a[i].real(), a[i].imag()), y(b[i].real(), b[i].imag());
    const bool huge = std::abs(x) > 1e10;
    for (std::size_t op = 0; op < refs.size(); ++op) {
      if (huge && op != 3 && op != 0 && op != 1 && op != 4 && op != 5)
        continue;  // only division matters there
      CAPTURE(i);
      CAPTURE(op);
      const cd want = refs[op](x, y), g(got[12 * i + op].real(), got[12 * i + op].imag());
      CHECK(std::isfinite(g.real()));
      CHECK(std::abs(g - want) <= tol * (std::abs(want) + 1));
    }
    if (huge) continue;
    CHECK(std::fabs(got_parts[3 * i] - std::abs(x)) <= tol * std::abs(x));
    CHECK(got_parts[3 * i + 1] == a[i].real());
    CHECK(got_parts[3 * i + 2] == a[i].imag());
  }
}

}  // namespace

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("the dialect's cfloat and cdouble compile for sm_90 with NVRTC") {
  for (const auto& types : {std::pair<const char*, const char*>{"cfloat", "float"}, {"cdouble", "double"}}) {
    const char *c = types.first, *r = types.second;  // not bindings: INFO's lambda captures them
    INFO(c);
    try {
      CHECK(duet::compile_for_cuda_arch(kAllOps, {{"C", c}, {"R", r}}, "sm_90", "all_ops.duet") > 0);
    } catch (const duet::CompileError& e) {
      FAIL_CHECK("NVRTC rejected the complex kernel (line " << e.line() << "):\n" << e.log());
    }
  }
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("device");

TEST_CASE("the dialect's cfloat and cdouble against std::complex<double>") {
  for_each_device([](const duet::Device& dev) {
    run_all_ops<std::complex<float>>(dev, "cfloat", "float", 2e-6);
    if (dev.info().supports_double) run_all_ops<std::complex<double>>(dev, "cdouble", "double", 1e-14);
  });
}

TEST_SUITE_END();
