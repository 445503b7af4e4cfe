// Kernels that go wrong, in the checked mode (DUET_CHECK=1, ctest duet.<backend>.checked runs the
// whole suite so): guard zones around every buffer, compared after each launch. A kernel that
// writes one element past either end of a buffer argument is named with that argument, the zone is
// restored, and the device goes on working. Without DUET_CHECK the cases check that buffers have no
// zones. Kernels that end a device (never ending, wild writes) run in processes of their own: see
// kernel_fault_child.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <duet/duet.hpp>
#include <limits>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

const char* const kSource = R"(
KERNEL void copy_one_more(GLOBAL const float* x, GLOBAL float* y, const int n, const int shift) {
  // Work-item i copies x[i] to y[i + shift]: shift 1 writes one past the end, -1 one before the start.
  const int i = (int)GLOBAL_ID(0);
  if (i >= n) return;
  y[i + shift] = x[i];
}
)";

// A stray float whose bytes include the guard fill (0xCD) changes fewer than four guard bytes, so
// the count in the message would depend on the random draw.
std::vector<float> without_guard_bytes(std::vector<float> values) {
  for (float& v : values) {
    unsigned char bytes[sizeof(float)];
    std::memcpy(bytes, &v, sizeof v);
    for (unsigned char& b : bytes)
      if (b == 0xCD) b = 0xCC;
    std::memcpy(&v, bytes, sizeof v);
  }
  return values;
}

bool checked() {
  const char* v = std::getenv("DUET_CHECK");
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace

TEST_CASE("DUET_CHECK: buffers get guard zones only when asked, and they never show") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("guard zones");
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1009)}) {
      CAPTURE(n);
      duet::Buffer<float> b(dev, n);
      const duet::RawBuffer& raw = b.raw();
      if (!checked()) {
        CHECK(raw.guard_bytes() == 0);
        CHECK(raw.offset() == 0);
        continue;
      }
      CHECK(raw.guard_bytes() >= 256);
      CHECK(raw.guard_bytes() % dev.info().view_alignment == 0);
      CHECK(raw.offset() == raw.guard_bytes());
      CHECK(b.size() == n);
      // Whole-buffer transfers, a view's transfers and a fill stay inside the user's bytes.
      const std::vector<float> data = random_floats(rng, n);
      duet::Queue q = dev.queue();
      q.write(b, data);
      CHECK(q.to_vector(b) == data);
      if (n > 2) {
        duet::BufferView<float> v = b.view(1, n - 2);
        q.fill(v, 2.5f);
        std::vector<float> want = data;
        for (std::size_t i = 1; i + 1 < n; ++i) want[i] = 2.5f;
        CHECK(q.to_vector(b) == want);
      }
    }
  });
}

TEST_CASE("DUET_CHECK: a kernel that writes past either end of a buffer is named with the argument") {
  if (!checked()) {
    MESSAGE("skipped: needs DUET_CHECK=1 (ctest duet.<backend>.checked runs it)");
    return;
  }
  for_each_device([](const duet::Device& dev) {
    duet::Kernel k = dev.compile(kSource, {}, "one_more.duet").kernel("copy_one_more");
    duet::Queue q = dev.queue();
    auto rng = make_rng("one more");
    for (int n : {1, 13, 1031}) {
      CAPTURE(n);
      const std::vector<float> x = without_guard_bytes(random_floats(rng, static_cast<std::size_t>(n)));
      duet::Buffer<float> dx(dev, x.size()), dy(dev, x.size());
      q.write(dx, x);
      for (int shift : {1, -1}) {
        CAPTURE(shift);
        q.fill(dy, std::numeric_limits<float>::quiet_NaN());
        auto e = EXPECT_ERROR(duet::KernelFaultError, q.launch(k, duet::Range(n), duet::Range(), dx, dy, n, shift));
        if (e) {
          CHECK(e->kind() == duet::ErrorKind::kernel_fault);
          CHECK(e->fault() == duet::KernelFaultError::Fault::out_of_bounds);
          CHECK(e->argument() == 2);
          CHECK(e->kernels() == std::vector<std::string>{"copy_one_more"});
          CHECK(e->device_usable());
          CHECK_CONTAINS(e->what(), "copy_one_more");
          CHECK_CONTAINS(e->what(), "GLOBAL float* y");
          CHECK_CONTAINS(e->what(), shift > 0 ? "past the end" : "before the start");
          CHECK_CONTAINS(e->what(), "4 of the");  // one float's bytes
        }
        // The zone was restored: the same buffers in bounds raise nothing, and every element the
        // kernel could reach inside the buffer holds what it should.
        q.fill(dy, std::numeric_limits<float>::quiet_NaN());
        q.launch(k, duet::Range(n), duet::Range(), dx, dy, n, 0);
        CHECK(q.to_vector(dy) == x);
      }
    }
  });
}

TEST_CASE("DUET_CHECK: kernels that stay in bounds raise nothing, on views and whole buffers") {
  for_each_device([](const duet::Device& dev) {
    duet::Kernel k = dev.compile(kSource, {}, "one_more.duet").kernel("copy_one_more");
    duet::Queue q = dev.queue();
    auto rng = make_rng("in bounds");
    const int n = 257;
    const std::vector<float> x = random_floats(rng, n);
    duet::Buffer<float> dx(dev, n), dy(dev, n + 1);
    q.write(dx, x);
    q.fill(dy, std::numeric_limits<float>::quiet_NaN());
    // Shift 1 into a buffer one longer: the last element is the kernel's, not past the end.
    q.launch(k, duet::Range(n), duet::Range(), dx, dy, n, 1);
    const std::vector<float> got = q.to_vector(dy);
    CHECK(std::isnan(got[0]));
    CHECK(std::vector<float>(got.begin() + 1, got.end()) == x);
    // A view at the start of its buffer is passed like the buffer.
    duet::BufferView<float> head = dy.view(0, n);
    q.launch(k, duet::Range(n), duet::Range(), dx, head, n, 0);
    CHECK(q.to_vector(head) == x);
  });
}
