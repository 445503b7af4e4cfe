// Thread safety as documented: one Device shared by several threads, each with its own Queue,
// compiling the same program at the same time, running kernels and transfers (from pinned memory
// too), and events handed from one thread to another. Each thread checks its own results and
// reports a line; the assertions run on the test's thread.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <duet/duet.hpp>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

// Unique to this test (the run's seed goes in as a define), so the compile really happens while the
// threads race for it instead of coming out of an earlier test's cache.
const char* const kWork = R"(
KERNEL void work(GLOBAL const float* RESTRICT x, GLOBAL float* RESTRICT y, const float a, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) y[i] = a * x[i] + (float)SALT;
}
)";

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("threads share a device, each with its own queue") {
  for_each_device([](const duet::Device& dev) {
    const int threads = 4, rounds = 5;
    const std::size_t n = 50000;
    const duet::Defines defines = {{"SALT", std::to_string(test_seed() % 1000) + ".0f"}};
    const double salt = static_cast<double>(test_seed() % 1000);
    std::vector<std::string> problems(threads);
    std::atomic<int> ready{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        std::ostringstream report;
        try {
          // Start together, so the compiles overlap.
          ++ready;
          while (ready.load() < threads) std::this_thread::yield();
          const duet::Kernel k = dev.compile(kWork, defines, "threads.duet").kernel("work");
          duet::Queue q = dev.queue();
          auto rng = make_rng("threads", static_cast<std::uint64_t>(t));
          duet::HostBuffer<float> pinned(dev, n);
          duet::Buffer<float> x(dev, n), y(dev, n);
          for (int r = 0; r < rounds; ++r) {
            const std::vector<float> in = random_floats(rng, n);
            std::copy(in.begin(), in.end(), pinned.begin());
            const float a = static_cast<float>(t + 1) + 0.5f * static_cast<float>(r);
            q.write(x, pinned);
            q.fill(y, kNaN);
            q.launch(k, duet::Range(n), duet::Range(), x, y, a, static_cast<std::uint32_t>(n));
            q.read(y, pinned);
            q.finish();
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i) {
              const double want = static_cast<double>(a) * static_cast<double>(in[i]) + salt;
              if (!(std::fabs(static_cast<double>(pinned[i]) - want) <= 4 * kFloatEps * (1.0 + std::fabs(want)))) {
                if (bad == 0) report << "round " << r << " [" << i << "] got " << pinned[i] << " want " << want << "; ";
                ++bad;
              }
            }
            if (bad) report << bad << " wrong elements in round " << r << "; ";
          }
        } catch (const std::exception& e) {
          report << "exception: " << e.what();
        }
        problems[static_cast<std::size_t>(t)] = report.str();
      });
    }
    for (std::thread& th : pool) th.join();
    for (int t = 0; t < threads; ++t) {
      INFO("thread ", t);
      CHECK(problems[static_cast<std::size_t>(t)] == "");
    }
  });
}

TEST_CASE("events are waited on by other threads, and queues of other threads wait for them") {
  for_each_device([](const duet::Device& dev) {
    const std::size_t n = 1 << 16;
    duet::Buffer<int> shared(dev, n), copy(dev, n);
    std::promise<duet::Event> produced;
    std::future<duet::Event> produced_f = produced.get_future();
    std::string consumer_problem;

    std::thread producer([&] {
      duet::Queue q = dev.queue();
      q.fill(shared, 0);
      produced.set_value(q.fill(shared.view(100, n - 200), 42));  // the event of this fill
      q.finish();
    });
    std::thread consumer([&] {
      try {
        duet::Queue q = dev.queue();
        const duet::Event e = produced_f.get();
        q.wait(e);  // this thread's queue waits for the other thread's fill
        q.copy(shared, copy);
        const std::vector<int> got = q.to_vector(copy);
        e.wait();
        if (!e.done()) consumer_problem = "event not done after wait";
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += got[i] != ((i >= 100 && i < n - 100) ? 42 : 0);
        if (bad) consumer_problem += std::to_string(bad) + " elements differ";
      } catch (const std::exception& e) {
        consumer_problem = std::string("exception: ") + e.what();
      }
    });
    producer.join();
    consumer.join();
    CHECK(consumer_problem == "");
  });
}

TEST_SUITE_END();
