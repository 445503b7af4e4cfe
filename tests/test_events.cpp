// Events: every operation returns one, events order work across queues of one device, events kept
// past later operations still mark their own operation, a timed queue's events give their
// operation's duration, and elapsed_ms refuses events of two queues or two devices.
#include <utility>
#include <vector>

#include "support.hpp"

namespace {

// A kernel slow enough that a consumer queue without a dependency would likely overtake it.
const char* const kSlowFill = R"(
KERNEL void slow_fill(GLOBAL float* out, const int n, const int rounds) {
  const int i = (int)GLOBAL_ID(0);
  if (i >= n) return;
  float x = 0.0f;
  for (int r = 0; r < rounds; ++r) x = x * 0.5f + 1.0f;  // converges to 2
  out[i] = x + (float)i;
}
)";

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("operations return events that complete") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<float> a(dev, 1000), b(dev, 1000);
    std::vector<float> host(1000, 1.5f), back(1000, 0.0f);
    duet::Event w = q.write(a, host);
    duet::Event c = q.copy(a, b);
    duet::Event r = q.read(b, back);
    r.wait();
    CHECK(w.done());
    CHECK(c.done());
    CHECK(r.done());
    CHECK(back == host);
    CHECK(elapsed_ms(w, r) >= 0.0);
    CHECK(w.device() == dev);
  });
}

TEST_CASE("a queue waits for another queue's event, whatever their priorities") {
  using duet::QueuePriority;
  const std::pair<QueuePriority, QueuePriority> pairs[] = {{QueuePriority::normal, QueuePriority::normal},
                                                           {QueuePriority::normal, QueuePriority::high},
                                                           {QueuePriority::high, QueuePriority::normal}};
  for_each_device([&](const duet::Device& dev) {
    for (const auto& priorities : pairs) {
      const QueuePriority first = priorities.first, second = priorities.second;  // CAPTURE's lambda takes them
      CAPTURE(first == QueuePriority::high);
      CAPTURE(second == QueuePriority::high);
      const int n = 1 << 16;
      const duet::Kernel k = dev.compile(kSlowFill, {}, "slow_fill.duet").kernel("slow_fill");
      // A high-priority consumer is the case that would overtake a producer it did not wait for.
      duet::Queue producer = dev.queue(duet::QueueOptions{false, first});
      duet::Queue consumer = dev.queue(duet::QueueOptions{false, second});
      duet::Buffer<float> out(dev, n), copy(dev, n);
      consumer.fill(copy, kNaN);
      consumer.finish();
      for (int round = 0; round < 3; ++round) {
        producer.fill(out, kNaN);
        const duet::Event produced = producer.launch(k, duet::Range(n), duet::Range(), out, n, 2000);
        consumer.wait(produced);
        consumer.copy(out, copy);
        const auto got = consumer.to_vector(copy);
        std::size_t bad = 0;
        for (int i = 0; i < n; ++i) bad += got[static_cast<std::size_t>(i)] != 2.0f + static_cast<float>(i);
        CHECK(bad == 0);
      }
    }
  });
}

TEST_CASE("an event kept past later operations marks its own operation") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const int n = 1 << 14;
    const duet::Kernel k = dev.compile(kSlowFill, {}, "slow_fill.duet").kernel("slow_fill");
    duet::Buffer<float> out(dev, n);
    const duet::Event start = q.record();
    const duet::Event first = q.launch(k, duet::Range(n), duet::Range(), out, n, 10);
    q.launch(k, duet::Range(n), duet::Range(), out, n, 20000);  // a long one after it
    const duet::Event end = q.record();
    q.finish();
    // `first` was recorded before the long launch, so it ends well before `end`.
    const double to_first = elapsed_ms(start, first), to_end = elapsed_ms(start, end);
    CHECK(to_first >= 0.0);
    CHECK(to_first <= to_end);
  });
}

TEST_CASE("event errors") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Event empty;
    EXPECT_ERROR(duet::ReleasedError, empty.wait());
    EXPECT_ERROR(duet::ReleasedError, q.wait(empty));
    const auto& all = test_devices();
    if (all.size() < 2) {
      MESSAGE("skipped: waiting on another device's event needs two devices");
      return;
    }
    const duet::Device& other = all[0] == dev ? all[1] : all[0];
    duet::Queue oq = other.queue();
    const duet::Event foreign = oq.record();
    const auto e = EXPECT_ERROR(duet::DeviceMismatchError, q.wait(foreign));
    if (e) CHECK_CONTAINS(e->what(), other.info().id());
    // Two clocks: a number would mean nothing.
    const auto t = EXPECT_ERROR(duet::ArgumentError, duet::elapsed_ms(foreign, q.record()));
    if (t) CHECK_CONTAINS(t->what(), "one queue");
    EXPECT_ERROR(duet::ArgumentError, duet::elapsed_ms(q.record(), foreign));
  });
}

TEST_CASE("a timed operation's duration is positive and within the span around it") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue(duet::QueueOptions{true});
    const int n = 1 << 14;
    const duet::Kernel k = dev.compile(kSlowFill, {}, "slow_fill.duet").kernel("slow_fill");
    duet::Buffer<float> out(dev, n);
    std::vector<float> host(n, 1.0f);
    const duet::Event write = q.write(out, host);
    const duet::Event start = q.record();
    const duet::Event launch = q.launch(k, duet::Range(n), duet::Range(), out, n, 2000);
    const duet::Event end = q.record();
    const duet::Event empty = q.launch(k, duet::Range(0), duet::Range(), out, 0, 1);
    const double ms = launch.duration_ms(), around = elapsed_ms(start, end);
    INFO("launch ", ms, " ms, span around it ", around, " ms");
    CHECK(ms > 0.0);
    // CUDA's events tick in about half a microsecond, so the two spans may round apart by that.
    CHECK(ms <= around + 1e-3);
    CHECK(write.duration_ms() >= 0.0);
    CHECK(empty.duration_ms() == 0.0);
    check_equal(
        q.to_vector(out),
        [&] {
          std::vector<float> want(n);
          for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = 2.0f + static_cast<float>(i);
          return want;
        }(),
        "slow_fill");
  });
}

TEST_CASE("a duration where there is none is a TimingUnavailableError") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue untimed = dev.queue(), timed = dev.queue(duet::QueueOptions{true});
    duet::Buffer<float> b(dev, 64);
    const auto e = EXPECT_ERROR(duet::TimingUnavailableError, untimed.fill(b, 0.0f).duration_ms());
    if (e) {
      CHECK(e->kind() == duet::ErrorKind::argument);
      CHECK_CONTAINS(e->what(), "QueueOptions");
    }
    const auto p = EXPECT_ERROR(duet::TimingUnavailableError, timed.record().duration_ms());
    if (p) CHECK_CONTAINS(p->what(), "elapsed_ms");
    EXPECT_ERROR(duet::ReleasedError, duet::Event().duration_ms());
    timed.finish();
    untimed.finish();
  });
}

TEST_CASE("elapsed_ms refuses events of two queues") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue a = dev.queue(), b = dev.queue();
    duet::Buffer<float> buf(dev, 64);
    const duet::Event on_a = a.fill(buf, 1.0f), on_b = b.record();
    const auto e = EXPECT_ERROR(duet::ArgumentError, duet::elapsed_ms(on_a, on_b));
    if (e) CHECK_CONTAINS(e->what(), "different queues");
    EXPECT_ERROR(duet::ArgumentError, duet::elapsed_ms(b.record(), a.record()));
    // A copy of a queue is the same queue.
    duet::Queue same = a;
    CHECK(duet::elapsed_ms(on_a, same.record()) >= 0.0);
  });
}
