// duet::random: Philox4x32-10's known answers (Random123's kat_vectors), every device's words,
// uniform and normal floats and doubles equal bit for bit to the host reference at awkward lengths
// and offsets, independent streams per offset, and the statistics a generator must have (mean,
// variance, tails, the spread over [0, 1)). The host-only cases are in test suite "nodevice".
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <duet/duet.hpp>
#include <duet/random.hpp>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

namespace host = duet::random::host;

// The first index where two arrays differ in their bits, or -1.
template <class T>
long first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<long>(i);
  return -1;
}

template <class T>
void check_mean_variance(const std::vector<T>& v, double mean, double variance, const char* what) {
  double sum = 0, sum2 = 0;
  for (T x : v) sum += x;
  const double m = sum / v.size();
  for (T x : v) sum2 += (x - m) * (x - m);
  const double var = sum2 / (v.size() - 1);
  // Five standard errors: the mean's is sqrt(var / n), the variance's about var sqrt(2 / n) for a
  // normal (less for a uniform).
  INFO(what, ": mean ", m, ", variance ", var);
  CHECK(std::abs(m - mean) < 5 * std::sqrt(variance / v.size()));
  CHECK(std::abs(var - variance) < 5 * variance * std::sqrt(2.0 / v.size()));
}

const std::size_t kLengths[] = {0, 1, 3, 4, 5, 1023, 100003};

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("random: Philox4x32-10 gives Random123's known answers") {
  using W = std::array<std::uint32_t, 4>;
  CHECK(host::philox4x32_10({0, 0, 0, 0}, {0, 0}) == W{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(host::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        W{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(host::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        W{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("random: the host reference's stream, uniform range and normal statistics") {
  // Word i of (seed, offset) is word i % 4 of the block (i / 4, 0, offset, 0) under key seed.
  std::vector<std::uint32_t> words(9);
  host::bits(words, 0x123456789abcdefull, 7);
  const auto block2 = host::philox4x32_10({2, 0, 7, 0}, {0x89abcdefu, 0x1234567u});
  CHECK(words[8] == block2[0]);

  std::vector<float> u(200000);
  host::uniform(u, 1);
  float lo = 1, hi = 0;
  for (float x : u) lo = std::min(lo, x), hi = std::max(hi, x);
  CHECK(lo >= 0.0f);
  CHECK(hi < 1.0f);
  check_mean_variance(u, 0.5, 1.0 / 12, "uniform float");
  std::vector<double> ud(200000);
  host::uniform(ud, 1, 0, -2.0, 6.0);
  check_mean_variance(ud, 2.0, 64.0 / 12, "uniform double on [-2, 6)");

  std::vector<float> z(400000);
  host::normal(z, 5, 0, 1.0f, 2.0f);
  check_mean_variance(z, 1.0, 4.0, "normal float N(1, 4)");
  std::size_t beyond = 0;  // P(|z| > 2 sigma) = 0.0455
  for (float x : z) beyond += std::abs(x - 1.0f) > 4.0f;
  CHECK(std::abs(beyond / 400000.0 - 0.0455) < 0.002);
  std::vector<double> zd(400000);
  host::normal(zd, 5);
  check_mean_variance(zd, 0.0, 1.0, "normal double");

  // duet's own log, sqrt, sin and cos are accurate: Box-Muller's values agree with the library's.
  std::vector<std::uint32_t> w(2000);
  host::bits(w, 9);
  std::vector<float> zf(2000);
  host::normal(zf, 9);
  double worst = 0;
  for (std::size_t i = 0; i < 2000; i += 2) {
    const double u1 = ((w[i] >> 8) + 1.0) / 16777216.0, u2 = (w[i + 1] >> 8) / 16777216.0;
    const double r = std::sqrt(-2 * std::log(u1));
    worst = std::max(worst, std::abs(zf[i] - r * std::cos(2 * M_PI * u2)) / std::max(1.0, r));
    worst = std::max(worst, std::abs(zf[i + 1] - r * std::sin(2 * M_PI * u2)) / std::max(1.0, r));
  }
  CHECK(worst < 8 * kFloatEps);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("device");

TEST_CASE("random: every device gives the host reference's bits (words, uniform, normal; float and double)") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (std::size_t n : kLengths) {
      INFO("n = ", n);
      const std::uint64_t seed = 0x5eed0000ull + n, offset = n * 3 + (std::uint64_t{1} << 33);

      duet::Buffer<std::uint32_t> dw(dev, n);
      duet::random::bits(q, dw, seed, offset);
      std::vector<std::uint32_t> hw(n);
      host::bits(hw, seed, offset);
      CHECK(first_difference(q.to_vector(dw), hw) == -1);

      duet::Buffer<float> df(dev, n);
      std::vector<float> hf(n);
      duet::random::uniform(q, df, seed, offset, -1.5f, 2.5f);
      host::uniform(hf, seed, offset, -1.5f, 2.5f);
      CHECK_MESSAGE(first_difference(q.to_vector(df), hf) == -1, "uniform float");
      duet::random::normal(q, df, seed, offset, 0.5f, 3.0f);
      host::normal(hf, seed, offset, 0.5f, 3.0f);
      CHECK_MESSAGE(first_difference(q.to_vector(df), hf) == -1, "normal float");

      if (!dev.info().supports_double) continue;
      duet::Buffer<double> dd(dev, n);
      std::vector<double> hd(n);
      duet::random::uniform(q, dd, seed, offset);
      host::uniform(hd, seed, offset);
      CHECK_MESSAGE(first_difference(q.to_vector(dd), hd) == -1, "uniform double");
      duet::random::normal(q, dd, seed, offset, -1.0, 0.25);
      host::normal(hd, seed, offset, -1.0, 0.25);
      CHECK_MESSAGE(first_difference(q.to_vector(dd), hd) == -1, "normal double");
    }
  });
}

TEST_CASE("random: streams of one seed with different offsets differ; device statistics") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::size_t n = 1 << 18;
    duet::Buffer<float> a(dev, n), b(dev, n);
    duet::random::normal(q, a, 11, 0);
    duet::random::normal(q, b, 11, 1);
    const auto va = q.to_vector(a), vb = q.to_vector(b);
    std::size_t same = 0;
    for (std::size_t i = 0; i < n; ++i) same += va[i] == vb[i];
    CHECK(same < 16);
    check_mean_variance(va, 0.0, 1.0, "device normal float");
    duet::random::uniform(q, a, 12);
    check_mean_variance(q.to_vector(a), 0.5, 1.0 / 12, "device uniform float");
  });
}

TEST_CASE("random: the dialect functions are usable in a kernel of one's own") {
  for_each_device([](const duet::Device& dev) {
    const std::string source = std::string(duet::random::source()) + R"(
KERNEL void first_words(GLOBAL uint* out, const ulong seed, const uint n) {
  if (GLOBAL_ID(0) >= n) return;  // the global size is rounded up to whole groups
  const duet_philox4 r = duet_philox_block(seed, 0, GLOBAL_ID(0));
  out[GLOBAL_ID(0)] = r.x;
}
)";
    const duet::Program program = dev.compile(source, {}, "mine.duet");
    const duet::Kernel k = program.kernel("first_words");
    duet::Queue q = dev.queue();
    duet::Buffer<std::uint32_t> out(dev, 8);
    q.launch(k, duet::Range(8), duet::Range(), out, std::uint64_t{77}, 8u);
    const auto got = q.to_vector(out);
    std::vector<std::uint32_t> words(32);
    host::bits(words, 77);
    for (std::size_t i = 0; i < 8; ++i) CHECK(got[i] == words[4 * i]);
  });
}

TEST_SUITE_END();
