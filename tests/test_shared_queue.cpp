// One Queue shared by several threads at once, with one Kernel shared between them: launches with
// each thread's own buffers and scalars, writes, reads, copies, fills, maps, recorded events, waits
// and finishes, interleaved as the threads happen to run. Outputs are poisoned before each round
// and every result is compared with a CPU reference, so an argument set by one thread and launched
// by another, or a read that overtook its launch, shows up as wrong numbers rather than luck.
// Reductions, which keep scratch per queue, are run on a shared queue too.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <duet/duet.hpp>
#include <duet/extension.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

// y[i] = a x[i] + b i: every element depends on its position too, so a transfer or launch that
// lands at the wrong place is caught as surely as one with another thread's arguments.
const char* const kRamp = R"(
KERNEL void ramp(GLOBAL const float* RESTRICT x, GLOBAL float* RESTRICT y, const float a, const float b,
                 const uint n) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i >= n) return;
  y[i] = a * x[i] + b * (float)i;
}
)";

// Runs body(t) on `threads` threads that start together; returns each one's problems ("" if none).
std::vector<std::string> run_together(int threads, const std::function<void(int, std::ostringstream&)>& body) {
  std::vector<std::string> problems(static_cast<std::size_t>(threads));
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::ostringstream report;
      ++ready;
      while (ready.load() < threads) std::this_thread::yield();
      try {
        body(t, report);
      } catch (const std::exception& e) {
        report << "exception: " << e.what();
      }
      problems[static_cast<std::size_t>(t)] = report.str();
    });
  }
  for (std::thread& th : pool) th.join();
  return problems;
}

void check_threads(const std::vector<std::string>& problems) {
  for (std::size_t t = 0; t < problems.size(); ++t) {
    INFO("thread ", t);
    CHECK(problems[t] == "");
  }
}

// Counts the elements of got that differ from a x[i] + b i by more than a few float roundings.
std::size_t count_wrong(const float* got, const std::vector<float>& x, float a, float b, std::ostringstream& report,
                        const std::string& what) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want =
        static_cast<double>(a) * static_cast<double>(x[i]) + static_cast<double>(b) * static_cast<double>(i);
    if (!(std::fabs(static_cast<double>(got[i]) - want) <= 4 * kFloatEps * (1.0 + std::fabs(want)))) {
      if (bad == 0) report << what << " [" << i << "] got " << got[i] << " want " << want << "; ";
      ++bad;
    }
  }
  if (bad) report << what << ": " << bad << " wrong elements; ";
  return bad;
}

// Each thread's work on `q` (one queue for all threads, or the thread's own) with kernel `k`.
void work_on(const duet::Device& dev, duet::Queue& q, const duet::Kernel& k, int t, int rounds,
             std::ostringstream& report) {
  // Sizes differ per thread so that every launch changes the kernel's buffer and size arguments.
  const std::size_t n = 20000 + 1031 * static_cast<std::size_t>(t);
  auto rng = make_rng("shared queue", static_cast<std::uint64_t>(t));
  duet::Buffer<float> x(dev, n), y(dev, n), z(dev, n);
  std::vector<float> out(n);
  for (int r = 0; r < rounds; ++r) {
    const std::vector<float> in = random_floats(rng, n);
    const float a = 1.0f + 0.25f * static_cast<float>(t), b = static_cast<float>(r) - 0.5f * static_cast<float>(t);
    const std::string what = "round " + std::to_string(r);
    std::fill(out.begin(), out.end(), kNaN);
    q.write(x, in);
    q.fill(y, kNaN);
    q.fill(z, kNaN);
    const duet::Event launched = q.launch(k, duet::Range(n), duet::Range(), x, y, a, b, static_cast<std::uint32_t>(n));
    const duet::Event marked = q.record();
    q.wait(launched);  // an event of this queue, maybe recorded by another thread's enqueue
    q.copy(y, z);
    switch (r % 3) {
      case 0:  // the read's own event, waited for while other threads keep enqueueing
        q.read(z, duet::Span<float>(out)).wait();
        break;
      case 1:  // a whole-queue finish, which waits for other threads' work too
        q.read(z, duet::Span<float>(out));
        q.finish();
        break;
      default: {  // a map, which blocks until the copy has completed
        duet::Mapped<float> m = q.map(z, duet::MapAccess::read);
        std::copy(m.begin(), m.end(), out.begin());
        m.unmap();
        break;
      }
    }
    if (!marked.done()) report << what << ": the event recorded after the launch is not done; ";
    if (count_wrong(out.data(), in, a, b, report, what)) return;
  }
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("threads share one queue and one kernel: every operation at once, every result correct") {
  for_each_device([](const duet::Device& dev) {
    const duet::Kernel k = dev.compile(kRamp, {}, "shared_queue.duet").kernel("ramp");
    for (int threads : {4, 8}) {
      CAPTURE(threads);
      duet::Queue q = dev.queue();
      check_threads(run_together(threads, [&](int t, std::ostringstream& report) { work_on(dev, q, k, t, 12, report); }));
      // The queue is still whole: one more thread alone gets its results.
      std::ostringstream after;
      work_on(dev, q, k, 0, 3, after);
      CHECK(after.str() == "");
    }
  });
}

TEST_CASE("threads share one kernel, each with its own queue") {
  for_each_device([](const duet::Device& dev) {
    const duet::Kernel k = dev.compile(kRamp, {}, "shared_queue.duet").kernel("ramp");
    check_threads(run_together(4, [&](int t, std::ostringstream& report) {
      duet::Queue q = dev.queue();
      work_on(dev, q, k, t, 12, report);
    }));
  });
}

TEST_CASE("events of a shared queue are waited on by threads that did not enqueue them") {
  for_each_device([](const duet::Device& dev) {
    const duet::Kernel k = dev.compile(kRamp, {}, "shared_queue.duet").kernel("ramp");
    duet::Queue q = dev.queue();
    const int threads = 4, rounds = 50;
    const std::size_t n = 4096;
    std::vector<duet::Buffer<float>> xs, ys;
    for (int t = 0; t < threads; ++t) {
      xs.emplace_back(dev, n);
      ys.emplace_back(dev, n);
    }
    // Slot t holds the latest event of thread t; thread t waits for its neighbour's, which may still
    // be pending, so recording it races with every thread's next enqueue on the same queue.
    std::vector<duet::Event> latest(static_cast<std::size_t>(threads));
    std::mutex slots;
    check_threads(run_together(threads, [&](int t, std::ostringstream& report) {
      const auto ti = static_cast<std::size_t>(t);
      const std::vector<float> in(n, static_cast<float>(t + 1));
      std::vector<float> out(n);
      for (int r = 0; r < rounds; ++r) {
        q.write(xs[ti], in);
        const duet::Event e = q.launch(k, duet::Range(n), duet::Range(), xs[ti], ys[ti], 2.0f,
                                       static_cast<float>(r), static_cast<std::uint32_t>(n));
        duet::Event neighbour;
        {
          std::lock_guard<std::mutex> lock(slots);
          latest[ti] = e;
          neighbour = latest[(ti + 1) % latest.size()];
        }
        if (neighbour.valid()) {
          if (r % 2) neighbour.wait();
          else q.wait(neighbour);
        }
        std::fill(out.begin(), out.end(), kNaN);
        q.read(ys[ti], duet::Span<float>(out)).wait();
        if (count_wrong(out.data(), in, 2.0f, static_cast<float>(r), report, "round " + std::to_string(r))) return;
      }
    }));
    for (const duet::Event& e : latest) {
      e.wait();
      CHECK(e.done());
    }
  });
}

TEST_CASE("reductions from threads sharing one queue each get their own result") {
  for_each_device([](const duet::Device& dev) {
    duet::ReductionKernel sum(dev, "float", "float x", "x", "a + b", "0", "shared_queue_sum");
    duet::Queue q = dev.queue();
    const int threads = 4;
    check_threads(run_together(threads, [&](int t, std::ostringstream& report) {
      // Long enough for two passes (partials in the queue's scratch), integer-valued so that the sum
      // is exact in any order; each thread's sum differs from the others'.
      const std::size_t n = 1 << 18;
      const int rounds = 40;
      duet::Buffer<float> x(dev, n);
      q.fill(x, static_cast<float>(t + 1));
      const double want = static_cast<double>(n) * (t + 1);
      // Asynchronous reductions back to back, so that the threads' launches interleave on the queue.
      std::vector<duet::Buffer<float>> into;
      for (int r = 0; r < rounds; ++r) {
        into.emplace_back(dev, 1);
        q.fill(into.back(), kNaN);
        sum.reduce_into(q, into.back(), x);
        if (r % 8 == 0) {
          const float got = sum.reduce<float>(q, x);
          if (got != want) report << "round " << r << ": reduce gave " << got << ", want " << want << "; ";
        }
      }
      for (int r = 0; r < rounds; ++r) {
        float stored = kNaN;
        q.read(into[static_cast<std::size_t>(r)], duet::Span<float>(&stored, 1)).wait();
        if (stored != want) report << "round " << r << ": reduce_into gave " << stored << ", want " << want << "; ";
      }
    }));
  });
}

TEST_SUITE_END();

TEST_CASE("extension::queue_state: one object per queue for all its copies, made once when threads race, "
          "freed with the queue's last copy") {
  for_each_device([](const duet::Device& dev) {
    struct Scratch {
      duet::RawBuffer memory;  // a buffer, as modules keep: it must not keep the queue alive
    };
    std::atomic<int> made{0};
    auto get = [&](const duet::Queue& q) {
      return duet::extension::queue_state<Scratch>(q, "tests.scratch", [&] {
        ++made;
        auto s = std::make_shared<Scratch>();
        s->memory = duet::RawBuffer(dev, 64);
        return s;
      });
    };
    std::weak_ptr<Scratch> kept;
    std::weak_ptr<const void> life;
    {
      duet::Queue q = dev.queue();
      life = q.lifetime();
      std::vector<std::shared_ptr<Scratch>> seen(4);
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t < seen.size(); ++t)
        threads.emplace_back([&, t] {
          const duet::Queue copy = q;
          seen[t] = get(copy);
        });
      for (auto& t : threads) t.join();
      CHECK(made == 1);
      for (const auto& s : seen) CHECK(s == seen[0]);
      const duet::Queue other = dev.queue();
      CHECK(get(other) != seen[0]);
      CHECK(made == 2);
      kept = seen[0];
    }
    CHECK(life.expired());
    CHECK(kept.expired());
    CHECK_THROWS_AS(get(duet::Queue()), duet::ReleasedError);
  });
}
