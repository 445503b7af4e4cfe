// Several devices in one process: duet::copy between buffers of two devices (staged through pinned
// host memory in chunks; any two devices, of one backend or of two), kernels on two devices at once,
// and duet::copy within one device. The two-device cases run when this process sees two devices:
// in the duet.opencl.two_devices run (POCL_DEVICES="pthread pthread"), or on a machine with a GPU
// and PoCL, or two GPUs.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <duet/duet.hpp>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

const char* const kAffine = R"(
KERNEL void affine(GLOBAL const float* RESTRICT x, GLOBAL float* RESTRICT y, const float a, const float b,
                   const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) y[i] = a * x[i] + b;
}
)";

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("duet::copy between two devices, in chunks, both ways") {
  const std::vector<duet::Device> two = two_devices();
  if (two.size() < 2) {
    MESSAGE("skipped: this process sees fewer than two devices (POCL_DEVICES=\"pthread pthread\" gives two)");
    return;
  }
  const duet::Device& d0 = two[0];
  const duet::Device& d1 = two[1];
  INFO("from ", device_label(d0), " to ", device_label(d1), ", seed ", test_seed());
  REQUIRE(d0 != d1);
  auto rng = make_rng("two devices copy");
  duet::Queue q0 = d0.queue(), q1 = d1.queue();

  // 5 Mi floats = 20 MiB: three staging chunks of up to 8 MiB, the last one partial.
  const std::size_t n = (std::size_t(5) << 20) + 123;
  const std::vector<float> data = random_floats(rng, n);
  duet::Buffer<float> a0(d0, n), a1(d1, n + 10), back(d0, n);
  const float poison = -12345.0f;  // not NaN, so that check_equal can compare the untouched tail
  q0.write(a0, data);  // not finished: duet::copy orders its reads after it
  q1.fill(a1, poison);
  q0.fill(back, poison);
  const duet::Event done = duet::copy(q0, a0, q1, a1);
  CHECK(done.done());  // the staged path blocks until the copy has completed
  std::vector<float> want(n + 10, poison);
  std::copy(data.begin(), data.end(), want.begin());
  check_equal(q1.to_vector(a1), want, "on the second device");

  duet::copy(q1, a1.view(0, n), q0, back);  // and back, from a view
  check_equal(q0.to_vector(back), data, "back on the first device");

  // Views at odd offsets on both sides.
  duet::copy(q0, a0.view(1000, 5000), q1, a1.view(3, 5000));
  std::copy(data.begin() + 1000, data.begin() + 6000, want.begin() + 3);
  check_equal(q1.to_vector(a1), want, "view to view");

  // Errors: a destination too small, buffers handed to the wrong queue, released buffers.
  duet::Buffer<float> small(d1, 10);
  auto e = EXPECT_ERROR(duet::BufferSizeError, duet::copy(q0, a0, q1, small));
  if (e) CHECK_CONTAINS(e->what(), "does not fit");
  auto m = EXPECT_ERROR(duet::DeviceMismatchError, duet::copy(q1, a0, q0, back));
  if (m) CHECK_CONTAINS(m->what(), "from_queue");
  EXPECT_ERROR(duet::DeviceMismatchError, duet::copy(q0, a0, q0, a1));
  duet::Buffer<float> gone;
  EXPECT_ERROR(duet::ReleasedError, duet::copy(q0, gone, q1, a1));
}

TEST_CASE("kernels on two devices at once, fed by duet::copy") {
  const std::vector<duet::Device> two = two_devices();
  if (two.size() < 2) {
    MESSAGE("skipped: this process sees fewer than two devices");
    return;
  }
  INFO("devices ", device_label(two[0]), " and ", device_label(two[1]), ", seed ", test_seed());
  auto rng = make_rng("two devices kernels");
  const std::size_t n = 100000;
  const std::vector<float> x = random_floats(rng, n);
  duet::Queue q[2] = {two[0].queue(), two[1].queue()};
  duet::Buffer<float> in[2] = {duet::Buffer<float>(two[0], n), duet::Buffer<float>(two[1], n)};
  duet::Buffer<float> out[2] = {duet::Buffer<float>(two[0], n), duet::Buffer<float>(two[1], n)};
  duet::Kernel k[2] = {two[0].compile(kAffine, {}, "affine.duet").kernel("affine"),
                       two[1].compile(kAffine, {}, "affine.duet").kernel("affine")};
  q[0].write(in[0], x);
  duet::copy(q[0], in[0], q[1], in[1]);
  for (int d = 0; d < 2; ++d) {
    q[d].fill(out[d], kNaN);
    // Both launches are enqueued before either device is waited for.
    q[d].launch(k[d], duet::Range(n), duet::Range(), in[d], out[d], 2.0f, static_cast<float>(d),
                static_cast<std::uint32_t>(n));
  }
  for (int d = 0; d < 2; ++d) {
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = 2.0 * static_cast<double>(x[i]) + d;
    check_close(q[d].to_vector(out[d]), want, [&](std::size_t i) { return 2 * kFloatEps * (1.0 + std::fabs(want[i])); },
                "device " + std::to_string(d));
  }
  // Same on the way back: device 1's result lands in a buffer of device 0.
  duet::Buffer<float> gathered(two[0], n);
  duet::copy(q[1], out[1], q[0], gathered);
  check_equal(q[0].to_vector(gathered), q[1].to_vector(out[1]), "gathered from the second device");
}

TEST_CASE("duet::copy within one device") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("copy one device");
    duet::Queue a = dev.queue(), b = dev.queue();
    const std::vector<int> data = random_ints(rng, 3000, -100, 100);
    duet::Buffer<int> src(dev, 3000), dst(dev, 3000);
    a.write(src, data);
    b.fill(dst, 0);
    duet::copy(a, src, b, dst);  // b waits for a's write, then copies on the device
    check_equal(b.to_vector(dst), data, "copy through two queues of one device");
    duet::copy(a, src.view(0, 100), a, dst.view(2900, 100));
    std::vector<int> want = data;
    std::copy(data.begin(), data.begin() + 100, want.begin() + 2900);
    check_equal(a.to_vector(dst), want, "copy of views on one queue");
    EXPECT_ERROR(duet::ArgumentError, duet::copy(a, src.view(0, 100), b, src.view(50, 100)));  // overlap
  });
}

TEST_SUITE_END();
