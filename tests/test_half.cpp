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

namespace {

const char* const kAxpyT = R"(
KERNEL void axpy_t(GLOBAL const T* RESTRICT x, GLOBAL T* RESTRICT y, const float a, const int n) {
  const int i = (int)GLOBAL_ID(0);
  if (i < n) STORE(T, y + i, a * LOAD(T, x + i) + LOAD(T, y + i));
}
)";

// y = 2x + y for small integers, exact in every element type, so every type compares exactly.
template <class T>
void check_axpy(const duet::Device& dev, duet::Queue& q, const char* type_name) {
  CAPTURE(std::string(type_name));
  auto rng = make_rng("axpy_t", sizeof(T));
  const int n = 1009;
  const auto xi = random_ints(rng, n, -500, 500), yi = random_ints(rng, n, -500, 500);
  auto to_t = [](int v) {
    if constexpr (std::is_same_v<T, duet::half>) return duet::half::from_float(static_cast<float>(v));
    else return static_cast<T>(v);
  };
  auto from_t = [](T v) {
    if constexpr (std::is_same_v<T, duet::half>) return static_cast<double>(v.to_float());
    else return static_cast<double>(v);
  };
  std::vector<T> x, y;
  for (int i = 0; i < n; ++i) {
    x.push_back(to_t(xi[static_cast<std::size_t>(i)]));
    y.push_back(to_t(yi[static_cast<std::size_t>(i)]));
  }
  const duet::Kernel k = dev.compile(kAxpyT, {{"T", type_name}}, "axpy_t.duet").kernel("axpy_t");
  duet::Buffer<T> dx(dev, x.size()), dy(dev, y.size());
  q.write(dx, x);
  q.write(dy, y);
  q.launch(k, duet::Range(n), duet::Range(), dx, dy, 2.0f, n);
  const auto got = q.to_vector(dy);
  std::size_t bad = 0;
  for (int i = 0; i < n; ++i)
    bad += from_t(got[static_cast<std::size_t>(i)]) != 2.0 * xi[static_cast<std::size_t>(i)] + yi[static_cast<std::size_t>(i)];
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("one source templated over T with LOAD / STORE: float, double, int, long, short, half") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    check_axpy<float>(dev, q, "float");
    check_axpy<int>(dev, q, "int");
    check_axpy<std::int64_t>(dev, q, "long");
    check_axpy<std::int16_t>(dev, q, "short");
    check_axpy<duet::half>(dev, q, "half");
    if (dev.info().supports_double) check_axpy<double>(dev, q, "double");
    else MESSAGE("double skipped: the device does not support it");
  });
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("the templated source compiles for sm_90 for every element type") {
  for (const char* type : {"float", "double", "int", "uint", "long", "ulong", "short", "ushort", "char", "uchar", "half"}) {
    CAPTURE(std::string(type));
    CHECK(duet::compile_for_cuda_arch(kAxpyT, {{"T", type}}, "sm_90", "axpy_t.duet") > 0);
  }
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("device");

TEST_CASE("ElementwiseKernel over half arrays computes in float, bit-exact against the host") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("elementwise half");
    duet::Queue q = dev.queue();
    duet::ElementwiseKernel scale(dev, "half x, float a", "half y", "y = a * x", "scale_half_ew");
    const int n = 4099;
    std::vector<duet::half> x(n);
    for (auto& v : x) v = duet::half::from_float(std::uniform_real_distribution<float>(-100, 100)(rng));
    duet::Buffer<duet::half> dx(dev, x.size()), dy(dev, x.size());
    duet::half poison;
    poison.bits = 0x7e00u;
    q.write(dx, x);
    q.fill(dy, poison);
    scale(q, dx, 0.75f, dy);
    const auto y = q.to_vector(dy);
    std::size_t bad = 0;
    for (int i = 0; i < n; ++i)
      bad += !same_half(y[static_cast<std::size_t>(i)],
                        duet::half::from_float(0.75f * x[static_cast<std::size_t>(i)].to_float()));
    CHECK(bad == 0);
    EXPECT_ERROR(duet::ArgumentError, duet::ReductionKernel(dev, "float", "half x", "x", "a + b", "0", "hsum"));
  });
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("a generated elementwise kernel over half compiles for sm_90") {
  using duet::ArgKind;
  const std::string source = duet::ElementwiseKernel::generate_source(
      "half x, float a", "half y", "y = a * x", "scale_half_ew", {ArgKind::array, ArgKind::scalar, ArgKind::array});
  CHECK(duet::compile_for_cuda_arch(source, {}, "sm_90", "scale_half_ew.duet") > 0);
}

TEST_SUITE_END();
