// Pinned host memory (HostBuffer) and mapping device buffers into the host: round trips through
// both, a three-queue pipeline with events whose copies use pinned memory (checked for results, not
// timed: bench/overlap measures the overlap), and the errors for released or too small host memory
// and for unmapping twice; host memory that kernels use in place (device_view) where the device allows.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <duet/duet.hpp>
#include <string>
#include <utility>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

const char* const kPolish = R"(
KERNEL void polish(GLOBAL const float* RESTRICT in, GLOBAL float* RESTRICT out, const uint n,
                   const int rounds) {
  const size_t i = GLOBAL_ID(0);
  if (i >= n) return;
  const float x = in[i];
  float y = 0.0f;
  for (int r = 0; r < rounds; ++r) y = y * 0.5f + x;  // converges to 2x
  out[i] = y;
}
)";

// The reference of `polish` in double.
double polish_ref(float x, int rounds) {
  double y = 0.0;
  for (int r = 0; r < rounds; ++r) y = y * 0.5 + static_cast<double>(x);
  return y;
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("pinned host buffers round-trip through device buffers") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("pinned round trip");
    duet::Queue q = dev.queue();
    const std::size_t n = 100003;
    duet::HostBuffer<float> in(dev, n), out(dev, n);
    CHECK(in.size() == n);
    CHECK(in.bytes() == n * sizeof(float));
    CHECK(in.valid());
    CHECK(in.device() == dev);
    CHECK(in.data() != nullptr);
    const std::vector<float> data = random_floats(rng, n);
    std::copy(data.begin(), data.end(), in.begin());
    for (float& x : out) x = kNaN;

    duet::Buffer<float> b(dev, n);
    q.fill(b, kNaN);
    const duet::Event w = q.write(b, in);
    const duet::Event r = q.read(b, out);
    r.wait();
    CHECK(w.done());
    check_equal(std::vector<float>(out.begin(), out.end()), data, "pinned -> device -> pinned");

    // Parts, through span(offset, count).
    for (float& x : out) x = kNaN;
    q.write(b, in.span(10, 100), 500);
    q.read(b, out.span(0, 100), 500);
    q.finish();
    check_equal(std::vector<float>(out.begin(), out.begin() + 100),
                std::vector<float>(data.begin() + 10, data.begin() + 110), "span transfers");

    // Other element types and moves.
    duet::HostBuffer<std::int64_t> big(dev, 17);
    for (std::size_t i = 0; i < 17; ++i) big[i] = (std::int64_t(1) << 40) + static_cast<std::int64_t>(i);
    duet::HostBuffer<std::int64_t> moved = std::move(big);
    CHECK_FALSE(big.valid());
    CHECK(big.size() == 0);
    duet::Buffer<std::int64_t> b64(dev, 17);
    q.write(b64, moved);
    check_equal(q.to_vector(b64), std::vector<std::int64_t>(moved.begin(), moved.end()), "int64 from a moved host buffer");

    duet::HostBuffer<float> empty(dev, 0);
    CHECK(empty.valid());
    CHECK(empty.size() == 0);
    q.write(b, empty);
  });
}

TEST_CASE("host buffer errors: released, too small, too large") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<float> b(dev, 100);
    duet::HostBuffer<float> small(dev, 10);

    auto e = EXPECT_ERROR(duet::BufferSizeError, small.span(5, 6));
    if (e) {
      CHECK_CONTAINS(e->what(), "host buffer holds 10 elements");
      CHECK_CONTAINS(e->what(), "too few");
    }
    EXPECT_ERROR(duet::BufferSizeError, q.read(b, small.span(0, 11)));
    EXPECT_ERROR(duet::BufferSizeError, small.span(11, 0));

    duet::HostBuffer<float> large(dev, 101);
    auto big = EXPECT_ERROR(duet::BufferSizeError, q.write(b, large));  // more than the device buffer holds
    if (big) CHECK_CONTAINS(big->what(), "does not fit");

    small.release();
    CHECK_FALSE(small.valid());
    CHECK(small.data() == nullptr);
    auto r = EXPECT_ERROR(duet::ReleasedError, q.write(b, small));
    if (r) CHECK_CONTAINS(r->what(), "host buffer");
    EXPECT_ERROR(duet::ReleasedError, small.span());
    EXPECT_ERROR(duet::ReleasedError, small.device());
    EXPECT_ERROR(duet::ReleasedError, duet::HostBuffer<float>(duet::Device(), 4));
  });
}

TEST_CASE("a three-queue pipeline from pinned memory with events gives the one-queue results") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("pipeline");
    const duet::Kernel polish = dev.compile(kPolish, {}, "polish.duet").kernel("polish");
    const std::size_t chunks = 6, chunk = 20000, n = chunks * chunk;
    const int rounds = 40;
    duet::HostBuffer<float> in(dev, n), out(dev, n);
    const std::vector<float> data = random_floats(rng, n);
    std::copy(data.begin(), data.end(), in.begin());
    for (float& x : out) x = kNaN;

    // Two device slots for inputs and outputs; chunk i uses slot i % 2.
    duet::Queue up = dev.queue(), compute = dev.queue(), down = dev.queue();
    duet::Buffer<float> din[2] = {duet::Buffer<float>(dev, chunk), duet::Buffer<float>(dev, chunk)};
    duet::Buffer<float> dout[2] = {duet::Buffer<float>(dev, chunk), duet::Buffer<float>(dev, chunk)};
    duet::Event computed[chunks], downloaded[chunks];
    for (std::size_t i = 0; i < chunks; ++i) {
      const std::size_t s = i % 2;
      if (i >= 2) up.wait(computed[i - 2]);  // slot s's input was consumed
      const duet::Event uploaded = up.write(din[s], in.span(i * chunk, chunk));
      compute.wait(uploaded);
      if (i >= 2) compute.wait(downloaded[i - 2]);  // slot s's output was read out
      computed[i] = compute.launch(polish, duet::Range(chunk), duet::Range(), din[s], dout[s],
                                   static_cast<std::uint32_t>(chunk), rounds);
      down.wait(computed[i]);
      downloaded[i] = down.read(dout[s], out.span(i * chunk, chunk));
    }
    downloaded[chunks - 1].wait();
    for (const duet::Event& e : downloaded) CHECK(e.done());

    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = polish_ref(data[i], rounds);
    check_close(std::vector<float>(out.begin(), out.end()), want,
                [&](std::size_t i) { return 8 * kFloatEps * (1.0 + std::fabs(want[i])); }, "pipelined chunks");
  });
}

TEST_CASE("kernels read and write pinned host memory in place where the device allows it") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("device view of host memory");
    duet::HostBuffer<float> probe(dev, 1);
    const std::string why = probe.raw().device_view_unavailable();
    if (!why.empty()) {
      // OpenCL: a clear refusal, never a buffer the host and the kernels would race on.
      CHECK_THROWS_AS(probe.device_view(), duet::ArgumentError);
      try {
        (void)probe.device_view();
      } catch (const duet::ArgumentError& e) {
        CHECK_CONTAINS(std::string(e.what()), "Queue::write");
      }
      MESSAGE("in-place host memory skipped on " << dev.info().id() << ": " << why);
      return;
    }
    const duet::Kernel polish = dev.compile(kPolish, {}, "polish.duet").kernel("polish");
    duet::Queue q = dev.queue();
    for (const std::size_t n : {std::size_t(1), std::size_t(7919), std::size_t(65537)}) {
      CAPTURE(n);
      duet::HostBuffer<float> in(dev, n), out(dev, n);
      const std::vector<float> data = random_floats(rng, n);
      std::copy(data.begin(), data.end(), in.begin());
      for (float& x : out) x = kNaN;
      duet::Buffer<float> from_host = in.device_view(), to_host = out.device_view();
      CHECK(from_host.size() == n);
      CHECK_FALSE(from_host.raw().owns_memory());
      // Host memory in, host memory out, no copy command: what the kernel wrote is the host's once
      // the launch's event has completed.
      q.launch(polish, duet::Range(n), duet::Range(), from_host, to_host, static_cast<std::uint32_t>(n), 3)
          .wait();
      std::vector<double> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = polish_ref(data[i], 3);
      check_close(
          std::vector<float>(out.begin(), out.end()), want,
          [&](std::size_t i) { return 4 * kFloatEps * (1.0 + std::fabs(want[i])); }, "in place");
    }
    // The view keeps the host memory alive after the host buffer itself is released.
    duet::HostBuffer<float> gone(dev, 5);
    for (float& x : gone) x = 0.25f;
    duet::Buffer<float> kept = gone.device_view();
    gone.release();
    std::vector<float> back(5, kNaN);
    q.read(kept, back);
    q.finish();
    check_equal(back, std::vector<float>(5, 0.25f), "after release");
    duet::HostBuffer<float> released(dev, 3);
    released.release();
    CHECK_THROWS_AS(released.raw().device_view(), duet::ReleasedError);
  });
}

TEST_CASE("map and unmap device buffers and views") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("map");
    duet::Queue q = dev.queue();
    const std::size_t n = 5000;
    const std::vector<int> data = random_ints(rng, n, -1000000, 1000000);
    duet::Buffer<int> b(dev, n);
    q.write(b, data);
    {
      // Read: the contents, after the write enqueued before (map waits for it).
      duet::Mapped<int> m = q.map(b, duet::MapAccess::read);
      CHECK(m.mapped());
      REQUIRE(m.size() == n);
      check_equal(std::vector<int>(m.begin(), m.end()), data, "mapped for reading");
      m.unmap();
      CHECK_FALSE(m.mapped());
      auto e = EXPECT_ERROR(duet::ReleasedError, m.unmap());
      if (e) CHECK_CONTAINS(e->what(), "already unmapped");
    }
    std::vector<int> want = data;
    {
      // Read-write of a view: changes reach the device at unmap, through the destructor here.
      duet::Mapped<int> m = q.map(b.view(1000, 300));
      REQUIRE(m.size() == 300);
      CHECK(m[0] == data[1000]);
      for (std::size_t i = 0; i < 300; ++i) m[i] = -m[i];
    }
    for (std::size_t i = 1000; i < 1300; ++i) want[i] = -want[i];
    check_equal(q.to_vector(b), want, "after a read-write mapping of a view");

    // Write-only: every element is overwritten, so the old contents need not come to the host.
    duet::Mapped<int> w = q.map(b.view(17, 100), duet::MapAccess::write);
    for (std::size_t i = 0; i < 100; ++i) w[i] = static_cast<int>(i) * 3;
    const duet::Event unmapped = w.unmap();
    unmapped.wait();
    for (std::size_t i = 0; i < 100; ++i) want[17 + i] = static_cast<int>(i) * 3;
    check_equal(q.to_vector(b), want, "after a write-only mapping");

    // A mapping moved into another keeps one unmap; an empty range maps to nothing.
    duet::Mapped<int> a = q.map(b.view(0, 10), duet::MapAccess::read);
    duet::Mapped<int> moved = std::move(a);
    CHECK_FALSE(a.mapped());
    CHECK(moved.mapped());
    CHECK(moved[3] == want[3]);
    moved.unmap();
    duet::Mapped<int> none = q.map(b.view(n, 0));
    CHECK(none.size() == 0);
    none.unmap();

    duet::Buffer<int> released(dev, 4);
    released.release();
    EXPECT_ERROR(duet::ReleasedError, q.map(released));
  });
}

TEST_SUITE_END();
