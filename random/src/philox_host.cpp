// The host reference of duet::random: random/kernels/random.duet's functions in C++, operation for
// operation, so the tests can ask every device for the same bits. Built with -ffp-contract=off (see
// random/CMakeLists.txt) so the compiler fuses no multiply and add the device code keeps apart;
// std::fma is correctly rounded, like fmaf on CUDA and fma in OpenCL C.
#include <cmath>
#include <cstring>

#include "duet/random.hpp"

namespace duet::random::host {
namespace {

template <class To, class From>
To bit_cast(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

std::uint32_t mulhi(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
}

std::array<std::uint32_t, 4> block(std::uint64_t seed, std::uint64_t offset, std::uint64_t index) {
  return philox4x32_10({static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                        static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(offset >> 32)},
                       {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

float uniform_float(std::uint32_t w) { return static_cast<float>(w >> 8) * 5.9604644775390625e-8f; }

float logf_portable(float x) {
  const auto bits = bit_cast<std::uint32_t>(x);
  int e = static_cast<int>((bits >> 23) & 0xffu) - 127;
  float m = bit_cast<float>((bits & 0x7fffffu) | 0x3f800000u);
  if (m > 1.41421356f) {
    m = m * 0.5f;
    e += 1;
  }
  const float f = m + -1.0f;
  float p = 0.0657232715852f;
  for (float c : {-0.116206484003f, 0.119458782274f, -0.124208212627f, 0.142122912504f, -0.166665555757f,
                  0.200025356402f, -0.250000623744f, 0.333333026610f, -0.499999994140f, 1.00000000060f})
    p = std::fma(p, f, c);
  return std::fma(static_cast<float>(e), 0.693147180559945309f, f * p);
}

float sqrtf_portable(float x) {
  if (x <= 0.0f) return 0.0f;
  float y = bit_cast<float>(0x5f3759dfu - (bit_cast<std::uint32_t>(x) >> 1));
  const float h = 0.5f * x;
  for (int k = 0; k < 3; ++k) {
    const float t = std::fma(-(h * y), y, 0.5f);
    y = std::fma(y, t, y);
  }
  const float s = x * y;
  return std::fma(std::fma(-s, s, x), 0.5f * y, s);
}

void sincos2pif(std::uint32_t k, float& s, float& c) {
  const int q = static_cast<int>((k + 0x200000u) >> 22);
  const float t = static_cast<float>(static_cast<int>(k) - (q << 22)) * 2.384185791015625e-7f;
  const float x = t * t;
  float sp = -3.59884323521e-6f;
  for (float v : {0.000160441184787f, -0.00468175413532f, 0.0796926262462f, -0.645964097506f, 1.57079632679f})
    sp = std::fma(sp, x, v);
  const float sn = t * sp;
  float cs = 4.71087477882e-7f;
  for (float v : {-2.52020423731e-5f, 0.000919260274839f, -0.0208634807634f, 0.253669507901f, -1.23370055014f, 1.0f})
    cs = std::fma(cs, x, v);
  switch (q & 3) {
    case 0: s = sn, c = cs; break;
    case 1: s = cs, c = -sn; break;
    case 2: s = -sn, c = -cs; break;
    default: s = -cs, c = sn; break;
  }
}

void normal2_float(std::uint32_t a, std::uint32_t b, float& z0, float& z1) {
  const float u1 = static_cast<float>((a >> 8) + 1u) * 5.9604644775390625e-8f;
  const float r = sqrtf_portable(-2.0f * logf_portable(u1));
  float s, c;
  sincos2pif(b >> 8, s, c);
  z0 = r * c;
  z1 = r * s;
}

std::uint64_t bits53(std::uint32_t a, std::uint32_t b) {
  return (static_cast<std::uint64_t>(a >> 5) << 26) | static_cast<std::uint64_t>(b >> 6);
}

constexpr double kTwoToMinus53 = 1.1102230246251565404236316680908203125e-16;

double logd_portable(double x) {
  const auto bits = bit_cast<std::uint64_t>(x);
  int e = static_cast<int>((bits >> 52) & 0x7ffu) - 1023;
  double m = bit_cast<double>((bits & 0xfffffffffffffULL) | 0x3ff0000000000000ULL);
  if (m > 1.4142135623730950488) {
    m = m * 0.5;
    e += 1;
  }
  const double f = m + -1.0;
  double p = 0.021919155801837792203;
  for (double c : {-0.053501372006115786794, 0.060646167727904683495, -0.052192266255993911005,
                   0.050301966719505038665, -0.054728309249345436154, 0.059014093586631803165,
                   -0.062612151904261866742, 0.066660714837299908869, -0.071420194004008848387,
                   0.076922900979905714826, -0.083333712775099230514, 0.090909112605958491220,
                   -0.099999989393750745666, 0.11111111033648970076, -0.12500000017790405820,
                   0.14285714287043255951, -0.16666666666501255288, 0.19999999999989307771,
                   -0.25000000000000717349, 0.33333333333333365182, -0.49999999999999999061,
                   0.99999999999999999985})
    p = std::fma(p, f, c);
  return std::fma(static_cast<double>(e), 0.69314718055994530942, f * p);
}

double sqrtd_portable(double x) {
  if (x <= 0.0) return 0.0;
  double y = bit_cast<double>(0x5fe6eb50c7b537a9ULL - (bit_cast<std::uint64_t>(x) >> 1));
  const double h = 0.5 * x;
  for (int k = 0; k < 4; ++k) {
    const double t = std::fma(-(h * y), y, 0.5);
    y = std::fma(y, t, y);
  }
  const double s = x * y;
  return std::fma(std::fma(-s, s, x), 0.5 * y, s);
}

void sincos2pid(std::uint64_t k, double& s, double& c) {
  const auto q = static_cast<std::int64_t>((k + (1ULL << 50)) >> 51);
  const double t = static_cast<double>(static_cast<std::int64_t>(k) - (q << 51)) * 4.44089209850062616169452667236328125e-16;
  const double x = t * t;
  double sp = -4.3770654673137422772e-14;
  for (double v : {6.0669357311061956671e-12, -6.6880351098114672325e-10, 5.6921729219679268118e-8,
                   -3.5988432352120853405e-6, 0.00016044118478735982187, -0.0046817541353186881007,
                   0.079692626246167045121, -0.64596409750624625366, 1.5707963267948966192})
    sp = std::fma(sp, x, v);
  const double sn = t * sp;
  double cs = -5.2944002007346237619e-13;
  for (double v : {6.5659631149794723622e-11, -6.3866030837918522411e-9, 4.7108747788181715037e-7,
                   -0.000025202042373060605481, 0.00091926027483942658024, -0.020863480763352960873,
                   0.25366950790104801364, -1.2337005501361698274, 1.0})
    cs = std::fma(cs, x, v);
  switch (static_cast<int>(q & 3)) {
    case 0: s = sn, c = cs; break;
    case 1: s = cs, c = -sn; break;
    case 2: s = -sn, c = -cs; break;
    default: s = -cs, c = sn; break;
  }
}

void normal2_double(const std::array<std::uint32_t, 4>& r, double& z0, double& z1) {
  const double u1 = static_cast<double>(bits53(r[0], r[1]) + 1) * kTwoToMinus53;
  const double rad = sqrtd_portable(-2.0 * logd_portable(u1));
  double s, c;
  sincos2pid(bits53(r[2], r[3]), s, c);
  z0 = rad * c;
  z1 = rad * s;
}

}  // namespace

std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> c, std::array<std::uint32_t, 2> key) {
  std::uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const std::uint32_t hi0 = mulhi(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0];
    const std::uint32_t hi1 = mulhi(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2];
    c = {hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

void bits(Span<std::uint32_t> out, std::uint64_t seed, std::uint64_t offset) {
  for (std::size_t i = 0; i < out.size(); i += 4) {
    const auto r = block(seed, offset, i / 4);
    for (std::size_t k = 0; k < 4 && i + k < out.size(); ++k) out[i + k] = r[k];
  }
}

void uniform(Span<float> out, std::uint64_t seed, std::uint64_t offset, float low, float high) {
  const float width = high + -low;
  for (std::size_t i = 0; i < out.size(); i += 4) {
    const auto r = block(seed, offset, i / 4);
    for (std::size_t k = 0; k < 4 && i + k < out.size(); ++k) out[i + k] = std::fma(width, uniform_float(r[k]), low);
  }
}

void uniform(Span<double> out, std::uint64_t seed, std::uint64_t offset, double low, double high) {
  const double width = high + -low;
  for (std::size_t i = 0; i < out.size(); i += 2) {
    const auto r = block(seed, offset, i / 2);
    out[i] = std::fma(width, static_cast<double>(bits53(r[0], r[1])) * kTwoToMinus53, low);
    if (i + 1 < out.size()) out[i + 1] = std::fma(width, static_cast<double>(bits53(r[2], r[3])) * kTwoToMinus53, low);
  }
}

void normal(Span<float> out, std::uint64_t seed, std::uint64_t offset, float mean, float stddev) {
  for (std::size_t i = 0; i < out.size(); i += 4) {
    const auto r = block(seed, offset, i / 4);
    float z[4];
    normal2_float(r[0], r[1], z[0], z[1]);
    normal2_float(r[2], r[3], z[2], z[3]);
    for (std::size_t k = 0; k < 4 && i + k < out.size(); ++k) out[i + k] = std::fma(stddev, z[k], mean);
  }
}

void normal(Span<double> out, std::uint64_t seed, std::uint64_t offset, double mean, double stddev) {
  for (std::size_t i = 0; i < out.size(); i += 2) {
    double z0, z1;
    normal2_double(block(seed, offset, i / 2), z0, z1);
    out[i] = std::fma(stddev, z0, mean);
    if (i + 1 < out.size()) out[i + 1] = std::fma(stddev, z1, mean);
  }
}

}  // namespace duet::random::host
