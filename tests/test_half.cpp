// half: duet::half's conversions on the host, exhaustively; half storage in dialect kernels on
// every device, bit-exact against the host (float arithmetic, one rounding to nearest even); the
// CUDA expansion compiled by NVRTC; and the argument checks that tell half from other 16-bit types.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "support.hpp"

namespace {

const char* const kScaleHalf = R"(
KERNEL void scale_half(GLOBAL const half* RESTRICT x, GLOBAL half* RESTRICT y, const float a,
                       const int n) {
  const int i = (int)GLOBAL_ID(0);
  if (i < n) STORE_HALF(y + i, a * LOAD_HALF(x + i));
}
)";

bool same_half(duet::half a, duet::half b) {
  const bool a_nan = (a.bits & 0x7c00u) == 0x7c00u && (a.bits & 0x3ffu);
  const bool b_nan = (b.bits & 0x7c00u) == 0x7c00u && (b.bits & 0x3ffu);
  return a_nan ? b_nan : a.bits == b.bits;
}

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("duet::half converts every binary16 value to float and back exactly") {
  std::size_t bad = 0;
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
    duet::half h;
    h.bits = static_cast<std::uint16_t>(bits);
    bad += !same_half(duet::half::from_float(h.to_float()), h);
  }
  CHECK(bad == 0);
  CHECK(duet::half::from_float(1.0f).bits == 0x3c00u);
  CHECK(duet::half::from_float(-2.0f).bits == 0xc000u);
  CHECK(duet::half::from_float(65504.0f).bits == 0x7bffu);
  CHECK(duet::half::from_float(65520.0f).bits == 0x7c00u);            // rounds up to infinity
  CHECK(duet::half::from_float(std::ldexp(1.0f, -24)).bits == 0x0001u);  // smallest subnormal
  CHECK(duet::half::from_float(std::ldexp(1.0f, -25)).bits == 0x0000u);  // a tie, to even: zero
  CHECK(duet::half::from_float(1.0f + std::ldexp(1.0f, -11)).bits == 0x3c00u);  // tie, to even
  CHECK(duet::half::from_float(1.0f + 3 * std::ldexp(1.0f, -11)).bits == 0x3c02u);
}

TEST_CASE("duet::half rounds floats to the nearest binary16, ties to even") {
  auto rng = make_rng("half rounding");
  std::uniform_real_distribution<float> wide(-70000.0f, 70000.0f), narrow(-1e-4f, 1e-4f);
  std::size_t bad = 0;
  for (int i = 0; i < 200000; ++i) {
    const float f = i % 2 ? wide(rng) : narrow(rng);
    const duet::half h = duet::half::from_float(f);
    // Nearest: no neighbour of h is closer to f (an infinity result means f is past the last
    // finite half by at least half its spacing).
    const double got = h.to_float();
    if (std::isinf(got)) {
      bad += std::fabs(f) < 65520.0;
      continue;
    }
    for (int step : {-1, 1}) {
      duet::half n;
      n.bits = static_cast<std::uint16_t>(h.bits + step);
      const double other = n.to_float();
      if (std::isfinite(other) && (h.bits & 0x7fffu) != 0 && std::fabs(other - f) < std::fabs(got - f)) ++bad;
    }
  }
  CHECK(bad == 0);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("half storage compiles for sm_90 with NVRTC") {
  CHECK(duet::compile_for_cuda_arch(kScaleHalf, {}, "sm_90", "scale_half.duet") > 0);
  // Arithmetic on half values is refused, not done as integers.
  const auto e = EXPECT_ERROR(duet::CompileError,
                              duet::compile_for_cuda_arch("KERNEL void bad(GLOBAL half* x) {\n"
                                                          "  x[0] = x[1] + x[2];\n}\n",
                                                          {}, "sm_90", "half_math.duet"));
  if (e) CHECK(e->line() == 2);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("device");

TEST_CASE("half buffers in dialect kernels, bit-exact against the host") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("half kernel");
    duet::Queue q = dev.queue();
    const duet::Kernel k = dev.compile(kScaleHalf, {}, "scale_half.duet").kernel("scale_half");
    for (int n : {1, 7, 1000, 65536}) {
      CAPTURE(n);
      std::vector<duet::half> x(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i)  // every bit pattern once, where n allows, NaNs and infinities too
        x[static_cast<std::size_t>(i)].bits =
            static_cast<std::uint16_t>(n == 65536 ? i : static_cast<int>(rng() & 0xffffu));
      const float a = 1.0f / 3.0f;
      duet::Buffer<duet::half> dx(dev, x.size()), dy(dev, x.size());
      duet::half poison;
      poison.bits = 0x7e00u;  // a NaN: an unwritten element fails unless the answer is NaN too
      q.write(dx, x);
      q.fill(dy, poison);
      q.launch(k, duet::Range(static_cast<std::size_t>(n)), duet::Range(), dx, dy, a, n);
      const auto y = q.to_vector(dy);
      std::size_t bad = 0;
      for (int i = 0; i < n; ++i) {
        const duet::half want = duet::half::from_float(a * x[static_cast<std::size_t>(i)].to_float());
        bad += !same_half(y[static_cast<std::size_t>(i)], want);
      }
      CHECK(bad == 0);
    }
    // Buffers of another element type are refused for half parameters.
    duet::Buffer<std::uint16_t> shorts(dev, 4);
    duet::Buffer<duet::half> halves(dev, 4);
    EXPECT_ERROR(duet::ArgumentError, q.launch(k, duet::Range(4), duet::Range(), shorts, halves, 1.0f, 4));
  });
}
