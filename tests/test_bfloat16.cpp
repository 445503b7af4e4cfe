// bfloat16: duet::bfloat16's conversions on the host against a double-precision reference (ties to
// even, NaN, infinities, zeros, subnormals, overflow); bfloat16 arrays in ElementwiseKernel and
// ReductionKernel on every device (float math, reductions accumulating in float); the DLPack round
// trip as kDLBfloat; and the CUDA expansion compiled by NVRTC.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "support.hpp"

#ifdef DUET_HAVE_DLPACK
#include <duet/dlpack.hpp>
#endif

namespace {

float float_of_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::uint32_t bits_of_float(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

duet::bfloat16 bf(std::uint16_t bits) {
  duet::bfloat16 b;
  b.bits = bits;
  return b;
}

bool is_nan_bits(std::uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu); }

bool same_bf16(duet::bfloat16 a, duet::bfloat16 b) { return is_nan_bits(a.bits) ? is_nan_bits(b.bits) : a.bits == b.bits; }

// The bfloat16 nearest to the finite float `f`, ties to even, chosen by comparing distances in
// double: the two candidates are `f` cut to 16 bits and the next bfloat16 away from zero, whose
// value past the largest finite one is 2^128 (where the rounding goes to infinity).
std::uint16_t nearest_bf16(float f) {
  const std::uint32_t u = bits_of_float(f);
  const std::uint16_t low = static_cast<std::uint16_t>(u >> 16), high = static_cast<std::uint16_t>(low + 1);
  const double x = std::fabs(static_cast<double>(f));
  const double v_low = std::fabs(static_cast<double>(float_of_bits(static_cast<std::uint32_t>(low) << 16)));
  const double v_high = (high & 0x7fffu) == 0x7f80u
                            ? std::ldexp(1.0, 128)
                            : std::fabs(static_cast<double>(float_of_bits(static_cast<std::uint32_t>(high) << 16)));
  const double d_low = x - v_low, d_high = v_high - x;
  if (d_low < d_high) return low;
  if (d_high < d_low) return high;
  return (low & 1u) ? high : low;
}

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("duet::bfloat16 converts every value to float and back exactly") {
  std::size_t bad = 0;
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const duet::bfloat16 b = bf(static_cast<std::uint16_t>(bits));
    // to_float is exact: the same value as the bits read as the top of a float, in double.
    const double want = static_cast<double>(float_of_bits(bits << 16));
    const double got = b.to_float();
    bad += !(std::isnan(want) ? std::isnan(got) : got == want);
    bad += !same_bf16(duet::bfloat16::from_float(b.to_float()), b);
  }
  CHECK(bad == 0);
}

TEST_CASE("duet::bfloat16 rounds floats to the nearest bfloat16, ties to even") {
  CHECK(duet::bfloat16::from_float(1.0f).bits == 0x3f80u);
  CHECK(duet::bfloat16::from_float(-2.0f).bits == 0xc000u);
  // Ties: exactly between two bfloat16s, to the one with an even last bit.
  CHECK(duet::bfloat16::from_float(float_of_bits(0x3f808000u)).bits == 0x3f80u);
  CHECK(duet::bfloat16::from_float(float_of_bits(0x3f818000u)).bits == 0x3f82u);
  CHECK(duet::bfloat16::from_float(float_of_bits(0xbf818000u)).bits == 0xbf82u);
  // Just off a tie.
  CHECK(duet::bfloat16::from_float(float_of_bits(0x3f808001u)).bits == 0x3f81u);
  CHECK(duet::bfloat16::from_float(float_of_bits(0x3f817fffu)).bits == 0x3f81u);
  // Zeros keep their sign; infinities stay infinities.
  CHECK(duet::bfloat16::from_float(0.0f).bits == 0x0000u);
  CHECK(duet::bfloat16::from_float(-0.0f).bits == 0x8000u);
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(duet::bfloat16::from_float(inf).bits == 0x7f80u);
  CHECK(duet::bfloat16::from_float(-inf).bits == 0xff80u);
  // Overflow: past the largest bfloat16 by half a unit or more gives infinity.
  CHECK(duet::bfloat16::from_float(std::numeric_limits<float>::max()).bits == 0x7f80u);
  CHECK(duet::bfloat16::from_float(-std::numeric_limits<float>::max()).bits == 0xff80u);
  CHECK(duet::bfloat16::from_float(float_of_bits(0x7f7f7fffu)).bits == 0x7f7fu);
  CHECK(duet::bfloat16::from_float(float_of_bits(0x7f7f8000u)).bits == 0x7f80u);
  // Subnormals round like everything else; the smallest float goes to zero, a tie there to even.
  CHECK(duet::bfloat16::from_float(float_of_bits(0x00000001u)).bits == 0x0000u);
  CHECK(duet::bfloat16::from_float(float_of_bits(0x00008000u)).bits == 0x0000u);
  CHECK(duet::bfloat16::from_float(float_of_bits(0x00018000u)).bits == 0x0002u);
  CHECK(duet::bfloat16::from_float(float_of_bits(0x80010000u)).bits == 0x8001u);
  CHECK(duet::bfloat16::from_float(float_of_bits(0x007fffffu)).bits == 0x0080u);  // up into the normals
  // NaN stays NaN, quiet, with its sign, even one whose payload lies only in the dropped bits.
  for (std::uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu, 0x7fa00000u}) {
    CAPTURE(nan);
    const std::uint16_t b = duet::bfloat16::from_float(float_of_bits(nan)).bits;
    CHECK(is_nan_bits(b));
    CHECK((b & 0x40u) != 0);
    CHECK((b & 0x8000u) == ((nan >> 16) & 0x8000u));
  }
  // Random floats of every exponent against the double reference.
  auto rng = make_rng("bfloat16 rounding");
  std::size_t bad = 0, checked = 0;
  for (int k = 0; k < 2000000; ++k) {
    const std::uint32_t u = static_cast<std::uint32_t>(rng());
    const float f = float_of_bits(u);
    if (!std::isfinite(f)) continue;
    ++checked;
    bad += duet::bfloat16::from_float(f).bits != nearest_bf16(f);
  }
  CHECK(checked > 1900000);
  CHECK(bad == 0);
}

TEST_CASE("bfloat16 in the scalar-type table and in DLPack's dtype") {
  using duet::ScalarType;
  CHECK(duet::scalar_type_of<duet::bfloat16>() == ScalarType::bf16);
  CHECK(duet::size_of(ScalarType::bf16) == 2);
  CHECK(duet::is_float(ScalarType::bf16));
  CHECK(duet::compute_type(ScalarType::bf16) == ScalarType::f32);
  CHECK(std::string(duet::to_string(ScalarType::bf16)) == "bfloat16");
  CHECK(std::string(duet::numpy_name(ScalarType::bf16)) == "bfloat16");
  CHECK(duet::scalar_type_from_name("bfloat16") == ScalarType::bf16);
#ifdef DUET_HAVE_DLPACK
  const DLDataType b = duet::detail::dlpack_dtype<duet::bfloat16>();
  CHECK(b.code == kDLBfloat);
  CHECK(b.bits == 16);
  CHECK(b.lanes == 1);
  const DLDataType h = duet::detail::dlpack_dtype<duet::half>();
  CHECK(h.code == kDLFloat);
  CHECK(h.bits == 16);
#endif
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("device");

TEST_CASE("ElementwiseKernel over bfloat16 arrays computes in float, against the host and a double reference") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("elementwise bfloat16");
    duet::Queue q = dev.queue();
    duet::ElementwiseKernel k(dev, "bfloat16 x, bfloat16 y, float a", "bfloat16 z, float w",
                              "z = a * x + y; w = x * y", "axpy_bf16");
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{4099}}) {
      CAPTURE(n);
      std::vector<duet::bfloat16> x(n), y(n);
      std::uniform_real_distribution<float> value(-1000.0f, 1000.0f);
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = duet::bfloat16::from_float(value(rng));
        y[i] = duet::bfloat16::from_float(value(rng));
      }
      if (n > 10) {  // the special values pass through the float math too
        x[3] = bf(0x7f80u);  // inf
        x[4] = bf(0x7fc0u);  // NaN
        x[5] = bf(0x8000u);  // -0
        y[5] = bf(0x8000u);
      }
      const float a = 0.3f;
      duet::Buffer<duet::bfloat16> dx(dev, n), dy(dev, n), dz(dev, n);
      duet::Buffer<float> dw(dev, n);
      q.write(dx, x);
      q.write(dy, y);
      q.fill(dz, bf(0x7fc1u));  // a NaN: an unwritten element fails unless the answer is NaN too
      k(q, dx, dy, a, dz, dw);
      const auto z = q.to_vector(dz);
      const auto w = q.to_vector(dw);
      std::size_t bad = 0, far = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const float xf = x[i].to_float(), yf = y[i].to_float();
        // Bit-exact against the same float arithmetic on the host, then one rounding to bfloat16
        // (a * x + y may or may not be fused on the device: accept either rounding).
        const duet::bfloat16 plain = duet::bfloat16::from_float(a * xf + yf);
        const duet::bfloat16 fused = duet::bfloat16::from_float(std::fma(a, xf, yf));
        bad += !(same_bf16(z[i], plain) || same_bf16(z[i], fused));
        bad += !(std::isnan(xf * yf) ? std::isnan(w[i]) : w[i] == xf * yf);
        // And within a bfloat16 rounding (plus float's) of the exact result in double.
        const double exact = static_cast<double>(a) * xf + yf;
        if (std::isfinite(exact))
          far += !(std::fabs(static_cast<double>(z[i].to_float()) - exact) <=
                   std::fabs(exact) * 0x1p-8 * 1.01 + 1e-30 + std::fabs(static_cast<double>(a) * xf) * 0x1p-23);
      }
      CHECK(bad == 0);
      CHECK(far == 0);
    }
    // A single value for a bfloat16 parameter is refused: bfloat16 is a storage type.
    duet::ElementwiseKernel scalar(dev, "bfloat16 s", "float out", "out = s", "bf16_scalar");
    duet::Buffer<float> out(dev, 4);
    EXPECT_ERROR(duet::ArgumentError, scalar(q, 1.0f, out));
  });
}

TEST_CASE("ReductionKernel over bfloat16 arrays accumulates in float, against a double reference") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("reduction bfloat16");
    duet::Queue q = dev.queue();
    duet::ReductionKernel sum(dev, "float", "bfloat16 x", "x", "a + b", "0", "sum_bf16");
    duet::ReductionKernel dot(dev, "float", "bfloat16 x, bfloat16 y", "x * y", "a + b", "0", "dot_bf16");
    for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{1000}, std::size_t{100003}}) {
      CAPTURE(n);
      std::vector<duet::bfloat16> x(n), y(n);
      std::uniform_real_distribution<float> value(-4.0f, 4.0f);
      double want_sum = 0, want_dot = 0, abs_sum = 0, abs_dot = 0;
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = duet::bfloat16::from_float(value(rng));
        y[i] = duet::bfloat16::from_float(value(rng));
        const double xd = x[i].to_float(), yd = y[i].to_float();
        want_sum += xd;
        want_dot += xd * yd;
        abs_sum += std::fabs(xd);
        abs_dot += std::fabs(xd * yd);
      }
      duet::Buffer<duet::bfloat16> dx(dev, n), dy(dev, n);
      q.write(dx, x);
      q.write(dy, y);
      // Float accumulation in any order: within n float roundings of the sum of magnitudes. A
      // bfloat16 accumulator would be off by about 2^-8 of the sum, far outside this.
      const double tol = static_cast<double>(n) * 0x1p-24;
      const double got_sum = sum.reduce<float>(q, dx);
      CHECK(std::fabs(got_sum - want_sum) <= tol * abs_sum + 1e-30);
      const double got_dot = dot.reduce<float>(q, dx, dy);
      CHECK(std::fabs(got_dot - want_dot) <= tol * abs_dot + 1e-30);
    }
    EXPECT_ERROR(duet::ArgumentError,
                 duet::ReductionKernel(dev, "bfloat16", "float x", "x", "a + b", "0", "bf16_result"));
  });
}

#ifdef DUET_HAVE_DLPACK
TEST_CASE("DLPack: a bfloat16 buffer goes out as kDLBfloat 16 and comes back the same memory") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("dlpack bfloat16");
    duet::Queue q = dev.queue();
    std::vector<duet::bfloat16> data(5 * 3);
    for (auto& v : data) v = bf(static_cast<std::uint16_t>(rng() & 0xffffu));
    duet::Buffer<duet::bfloat16> b(dev, data.size());
    q.write(b, data);
    q.finish();
    const std::uintptr_t handle = b.native_handle();
    DLManagedTensor* t = duet::to_dlpack(std::move(b), {5, 3});
    REQUIRE(t != nullptr);
    CHECK(t->dl_tensor.dtype.code == kDLBfloat);
    CHECK(t->dl_tensor.dtype.bits == 16);
    CHECK(t->dl_tensor.dtype.lanes == 1);
    {
      duet::Buffer<duet::bfloat16> back = duet::from_dlpack<duet::bfloat16>(dev, t);
      CHECK(back.size() == data.size());
      CHECK(back.native_handle() == handle);
      const auto got = q.to_vector(back);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < data.size(); ++i) bad += got[i].bits != data[i].bits;
      CHECK(bad == 0);
    }
    // A bfloat16 tensor is not a half one, nor 16-bit integers.
    duet::Buffer<duet::bfloat16> c(dev, 4);
    DLManagedTensor* tc = duet::to_dlpack(std::move(c));
    EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<duet::half>(dev, tc));
    EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<std::uint16_t>(dev, tc));
    tc->deleter(tc);
  });
}
#endif

TEST_SUITE_END();

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("bfloat16 elementwise and reduction kernels compile for sm_90 with NVRTC") {
  using duet::ArgKind;
  const std::string ew = duet::ElementwiseKernel::generate_source(
      "bfloat16 x, float a", "bfloat16 y", "y = a * x", "scale_bf16_ew", {ArgKind::array, ArgKind::scalar, ArgKind::array});
  CHECK(duet::compile_for_cuda_arch(ew, {}, "sm_90", "scale_bf16_ew.duet") > 0);
  const std::string red = duet::ReductionKernel::generate_source("float", "bfloat16 x", "x", "a + b", "0", "sum_bf16",
                                                                 {ArgKind::array}, 256);
  CHECK(duet::compile_for_cuda_arch(red, {}, "sm_90", "sum_bf16.duet") > 0);
  // Arithmetic on bfloat16 values is refused, not done as integers.
  const auto e = EXPECT_ERROR(duet::CompileError,
                              duet::compile_for_cuda_arch("KERNEL void bad(GLOBAL bfloat16* x) {\n"
                                                          "  x[0] = x[1] + x[2];\n}\n",
                                                          {}, "sm_90", "bf16_math.duet"));
  if (e) CHECK(e->line() == 2);
}

TEST_SUITE_END();
