// Order between queues. Arrays (and buffers made to order themselves) wait on the device for
// another queue's pending work on their bytes; under DUET_CHECK=1 raw buffers used by two queues
// with nothing between them are an UnorderedAccessError, and ordered uses are not.
//
// Each pair puts a slow kernel on the first queue ahead of the first operation, so that without a
// wait the second queue's operation would run long before the first one: a missing wait shows as
// wrong numbers, not as luck. The slow kernel's length is measured per device, never assumed.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <duet/arrays.hpp>
#include <duet/array_linalg.hpp>
#include <duet/duet.hpp>
#include <string>
#include <thread>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

// Spins `spins` times per element, then writes scratch (which nothing else uses).
const char* const kSource = R"(
KERNEL void slow(GLOBAL float* scratch, const uint n, const uint spins) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i >= n) return;
  float acc = (float)i * 1e-3f;
  for (uint k = 0; k < spins; ++k) acc = acc * 0.999999f + 1e-6f;
  scratch[i] = acc;
}
KERNEL void twice(GLOBAL const float* x, GLOBAL float* y, const uint n) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i < n) y[i] = 2.0f * x[i];
}
KERNEL void plus_one(GLOBAL const float* x, GLOBAL float* y, const uint n) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i < n) y[i] = x[i] + 1.0f;
}
)";

constexpr std::size_t kSlowItems = 4096;

struct Slow {
  duet::Kernel kernel;
  duet::Buffer<float> scratch;
  unsigned spins = 0;

  void run(duet::Queue& q) {
    q.launch(kernel, duet::Range(kSlowItems), duet::Range(), scratch, static_cast<unsigned>(kSlowItems), spins);
  }
};

// A slow kernel that runs for at least `ms` milliseconds on this device.
Slow make_slow(const duet::Device& device, const duet::Program& program, double ms) {
  Slow s{program.kernel("slow"), duet::Buffer<float>(device, kSlowItems), 1u << 8};
  duet::Queue q = device.queue();
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    s.run(q);
    q.finish();
    const double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (took >= ms || s.spins >= (1u << 28)) return s;
    s.spins *= took < ms / 16 ? 8 : 2;
  }
}

duet::Array array_of(duet::Queue& q, const std::vector<float>& host) {
  duet::Array a = duet::from_host<float>(q, duet::Span<const float>(host), {host.size()});
  return a;
}

std::vector<float> mapped(const std::vector<float>& v, float scale, float add) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(scale * static_cast<double>(v[i]) + add);
  return out;
}

enum class First { launch, copy, fill, write, array, read };
enum class Second { launch, copy, read, fill, array, elementwise, reduction, matmul };

const char* name(First f) {
  switch (f) {
    case First::launch: return "launch";
    case First::copy: return "copy";
    case First::fill: return "fill";
    case First::write: return "write";
    case First::array: return "array operation";
    case First::read: return "read";
  }
  return "?";
}
const char* name(Second s) {
  switch (s) {
    case Second::launch: return "launch";
    case Second::copy: return "copy";
    case Second::read: return "read";
    case Second::fill: return "fill";
    case Second::array: return "array operation";
    case Second::elementwise: return "ElementwiseKernel";
    case Second::reduction: return "ReductionKernel";
    case Second::matmul: return "matmul";
  }
  return "?";
}

}  // namespace

TEST_CASE("arrays order themselves between queues: every pair of operations") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Kernel twice = program.kernel("twice"), plus_one = program.kernel("plus_one");
    duet::ElementwiseKernel halve(device, "float x", "float y", "y = 0.5f * x", "halve");
    duet::ReductionKernel sum(device, "float", "float x", "x", "a + b", "0", "sum");
    Slow slow = make_slow(device, program, 40.0);
    INFO("slow kernel: ", slow.spins, " spins");

    auto rng = make_rng("queue order pairs");
    const std::size_t n = 997;  // a prime: no tile or vector width divides it
    const std::vector<float> a0 = random_floats(rng, n, 0.0f, 1.0f);
    const std::vector<float> b0 = random_floats(rng, n, 2.0f, 3.0f);
    const std::vector<float> poison(n, kNaN);
    const auto count = static_cast<unsigned>(n);

    // Twice: the first round also compiles what the operations need, which takes long enough to
    // hide a missing wait; the second round's operations only enqueue.
    for (int round = 0; round < 2; ++round)
    for (First first : {First::launch, First::copy, First::fill, First::write, First::array, First::read}) {
      for (Second second : {Second::launch, Second::copy, Second::read, Second::fill, Second::array,
                            Second::elementwise, Second::reduction, Second::matmul}) {
        const std::string pair = std::string(name(first)) + " on one queue, then " + name(second) +
                                 " on another (round " + std::to_string(round + 1) + ")";
        CAPTURE(pair);
        duet::Queue q1 = device.queue(), q2 = device.queue();
        duet::Array a = array_of(q1, a0), b = array_of(q1, b0), c = array_of(q1, poison);
        q1.finish();
        const std::vector<float> written(n, 7.0f);  // the host data of First::write
        std::vector<float> read_first(n, kNaN), read_second(n, kNaN);

        slow.run(q1);
        std::vector<float> b1;  // b's contents after the first operation
        switch (first) {
          case First::launch:
            q1.launch_args(twice, duet::Range(n), duet::Range(),
                           {duet::KernelArg::from_raw(a.buffer(), duet::ScalarType::f32),
                            duet::KernelArg::from_raw(b.buffer(), duet::ScalarType::f32), duet::KernelArg::from(count)});
            b1 = mapped(a0, 2.0f, 0.0f);
            break;
          case First::copy:
            duet::copy_into(q1, a, b);
            b1 = a0;
            break;
          case First::fill: {
            const float value = 5.0f;
            duet::RawBuffer raw = b.buffer().share();
            q1.fill_bytes(raw, 0, n * sizeof(float), &value, sizeof value);
            b1.assign(n, 5.0f);
            break;
          }
          case First::write: {
            duet::RawBuffer raw = b.buffer().share();
            q1.write_bytes(raw, 0, written.data(), n * sizeof(float), "write");
            b1 = written;
            break;
          }
          case First::array:
            duet::assign(q1, b, 3.0f * a + 1.0f);
            b1 = mapped(a0, 3.0f, 1.0f);
            break;
          case First::read:
            b.read_into(q1, read_first.data());
            b1 = b0;
            break;
        }

        std::vector<float> want_b = b1, want_c;
        float got_sum = 0.0f;
        switch (second) {
          case Second::launch:
            q2.launch_args(plus_one, duet::Range(n), duet::Range(),
                           {duet::KernelArg::from_raw(b.buffer(), duet::ScalarType::f32),
                            duet::KernelArg::from_raw(c.buffer(), duet::ScalarType::f32), duet::KernelArg::from(count)});
            want_c = mapped(b1, 1.0f, 1.0f);
            break;
          case Second::copy:
            duet::copy_into(q2, b, c);
            want_c = b1;
            break;
          case Second::read:
            b.read_into(q2, read_second.data());
            break;
          case Second::fill: {
            const float value = 9.0f;
            duet::RawBuffer raw = b.buffer().share();
            q2.fill_bytes(raw, 0, n * sizeof(float), &value, sizeof value);
            want_b.assign(n, 9.0f);
            break;
          }
          case Second::array:
            c = duet::evaluate(q2, 0.25f * b - 1.0f);
            want_c = mapped(b1, 0.25f, -1.0f);
            break;
          case Second::elementwise:
            halve.call(q2, {duet::KernelArg::from_raw(b.buffer(), duet::ScalarType::f32),
                            duet::KernelArg::from_raw(c.buffer(), duet::ScalarType::f32)});
            want_c = mapped(b1, 0.5f, 0.0f);
            break;
          case Second::reduction:
            sum.reduce_args(q2, &got_sum, duet::ScalarType::f32, sizeof got_sum,
                            {duet::KernelArg::from_raw(b.buffer(), duet::ScalarType::f32)});
            break;
          case Second::matmul: {
            // (1 x n) @ (n x 1): the dot product of b with itself, through gemm.
            c = duet::matmul(q2, b.reshape(q2, {1, static_cast<std::int64_t>(n)}),
                             b.reshape(q2, {static_cast<std::int64_t>(n), 1}));
            break;
          }
        }
        q1.finish();
        q2.finish();

        check_equal(b.to_vector<float>(q1), want_b, "b after both operations");
        if (first == First::read) check_equal(read_first, b0, "the first queue's read (before the second's write)");
        if (second == Second::read) check_equal(read_second, b1, "the second queue's read");
        if (!want_c.empty()) check_equal(c.to_vector<float>(q1), want_c, "c");
        if (second == Second::reduction || second == Second::matmul) {
          double want = 0.0, scale = 0.0;
          for (float v : b1) {
            const double x = second == Second::matmul ? static_cast<double>(v) * v : v;
            want += x;
            scale += std::abs(x);
          }
          const double got = second == Second::matmul ? static_cast<double>(c.to_vector<float>(q1).at(0)) : got_sum;
          CHECK(std::abs(got - want) <= 4.0 * n * kUnitRoundoff * scale);
        }
      }
    }
  });
}

TEST_CASE("arrays order themselves between queues: views, writes after reads, and three queues") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    Slow slow = make_slow(device, program, 40.0);
    auto rng = make_rng("queue order views");
    const std::size_t n = 1031;
    const std::vector<float> a0 = random_floats(rng, n, 0.0f, 1.0f);
    duet::Queue q1 = device.queue(), q2 = device.queue(), q3 = device.queue();
    duet::Array a = array_of(q1, a0);
    q1.finish();

    // A write through a view on q1, a read of the whole base on q2.
    duet::Array tail = a.index({duet::Slice{std::int64_t{500}, {}}});
    slow.run(q1);
    duet::assign(q1, tail, duet::Expr(tail) * 0.0f + 4.0f);
    std::vector<float> want = a0;
    for (std::size_t i = 500; i < n; ++i) want[i] = 4.0f;
    check_equal(a.to_vector<float>(q2), want, "the base read on another queue after a write through a view");

    // Two queues read what a third wrote: each waits, neither waits for the other.
    slow.run(q3);
    duet::assign(q3, a, duet::Expr(a) + 1.0f);
    for (float& v : want) v += 1.0f;
    duet::Array x = duet::evaluate(q1, 2.0f * a), y = duet::evaluate(q2, 3.0f * a);
    check_equal(x.to_vector<float>(q1), mapped(want, 2.0f, 0.0f), "x on the first reader");
    check_equal(y.to_vector<float>(q2), mapped(want, 3.0f, 0.0f), "y on the second reader");

    // A buffer made to order itself behaves like an array's memory.
    duet::Buffer<float> raw(device, n);
    raw.order_between_queues();
    CHECK(raw.raw().ordered_between_queues());
    duet::Buffer<float> plain(device, n);
    CHECK_FALSE(plain.raw().ordered_between_queues());
    slow.run(q1);
    q1.fill(raw, 6.0f);
    check_equal(q2.to_vector(raw), std::vector<float>(n, 6.0f), "an ordered raw buffer read on another queue");
  });
}

TEST_CASE("arrays order themselves between queues: long runs keep working") {
  for_each_device([](const duet::Device& device) {
    // Many alternating operations on two queues, each depending on the last: every one waits for
    // the other queue's, and the values come out as on one queue.
    duet::Queue q1 = device.queue(), q2 = device.queue();
    duet::Array a = duet::zeros(q1, {257});
    for (int i = 0; i < 400; ++i) duet::assign(i % 2 ? q2 : q1, a, duet::Expr(a) + 1.0f);
    check_equal(a.to_vector<float>(q1), std::vector<float>(257, 400.0f), "400 increments on alternating queues");
  });
}

TEST_CASE("DUET_CHECK finds raw buffers used by two queues without order") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Kernel twice = program.kernel("twice"), plus_one = program.kernel("plus_one");
    const std::size_t n = 101;
    const auto count = static_cast<unsigned>(n);
    duet::Buffer<float> x(device, n), y(device, n), z(device, n);
    if (x.raw().guard_bytes() == 0) {
      MESSAGE("skipped: the race detector runs under DUET_CHECK=1 (the duet.*.checked test runs)");
      return;
    }
    duet::Queue q1 = device.queue(), q2 = device.queue(), q3 = device.queue();
    q1.fill(x, 1.0f);
    q1.finish();

    // A write on q1, then a read on q2 with nothing between: the alarm names both.
    q1.launch(twice, duet::Range(n), duet::Range(), x, y, count);
    auto e = EXPECT_ERROR(duet::UnorderedAccessError, q2.launch(plus_one, duet::Range(n), duet::Range(), y, z, count));
    if (e) {
      const std::string m = e->what();
      INFO(m);
      CHECK(e->kind() == duet::ErrorKind::unordered_access);
      CHECK(contains(m, "kernel 'plus_one'"));
      CHECK(contains(m, "kernel 'twice'"));
      CHECK(contains(m, std::to_string(n * sizeof(float)) + " bytes"));
      CHECK(occurrences(m, "queue ") >= 2);
    }
    // A read on q2, a copy into it on q2, a fill on q3 and a write after q1's read: all alarms.
    EXPECT_ERROR(duet::UnorderedAccessError, q2.to_vector(y));
    EXPECT_ERROR(duet::UnorderedAccessError, q2.copy(y, z));
    EXPECT_ERROR(duet::UnorderedAccessError, q3.fill(y, 0.0f));
    std::vector<float> host(n);
    q1.read(x, duet::Span<float>(host));
    EXPECT_ERROR(duet::UnorderedAccessError, q2.fill(x, 0.0f));

    // Silences: an event waited for on the device, on the host, a finish, reads on two queues,
    // disjoint views, a wait through a third queue.
    duet::Event written = q1.launch(twice, duet::Range(n), duet::Range(), x, y, count);
    q2.wait(written);
    q2.launch(plus_one, duet::Range(n), duet::Range(), y, z, count);  // reads y: ordered
    q2.finish();
    check_equal(q2.to_vector(z), std::vector<float>(n, 3.0f), "z after an ordered launch");

    q1.launch(twice, duet::Range(n), duet::Range(), x, y, count).wait();
    q3.launch(plus_one, duet::Range(n), duet::Range(), y, z, count);
    q3.finish();

    q1.launch(twice, duet::Range(n), duet::Range(), x, y, count);
    q1.finish();
    q2.launch(plus_one, duet::Range(n), duet::Range(), y, z, count);
    q3.launch(twice, duet::Range(n), duet::Range(), y, x, count);  // a second reader of y: no conflict
    q2.finish();
    q3.finish();

    duet::BufferView<float> low = y.view(0, 50), high = y.view(50, n - 50);
    q1.fill(low, 1.0f);
    q2.fill(high, 2.0f);  // other bytes: no conflict
    q1.finish();
    q2.finish();

    duet::Event third = q1.launch(twice, duet::Range(n), duet::Range(), x, y, count);
    q3.wait(third);
    q2.wait(q3.record());  // q2 after q3, which is after q1's launch
    q2.to_vector(y);

    q1.fill(y, 1.0f);
    const duet::Event done = q1.record();
    while (!done.done()) {
    }
    q2.to_vector(y);  // the host saw the fill complete

    // Memory left out of the check: no alarm, whatever the order.
    duet::Buffer<float> shared(device, n);
    shared.raw().exempt_from_queue_check();
    q1.fill(shared, 1.0f);
    q2.fill(shared, 2.0f);
    q1.finish();
    q2.finish();
  });
}

TEST_CASE("queues on several threads share memory that orders itself") {
  for_each_device([](const duet::Device& device) {
    // Each thread reads one shared buffer, written first on another queue, into its own, on its own
    // queue, many times: the shared buffer's bookkeeping is used by every thread at once.
    duet::Program program = device.compile(kSource);
    duet::Kernel twice = program.kernel("twice");
    const std::size_t n = 211;
    const auto count = static_cast<unsigned>(n);
    auto rng = make_rng("queue order threads");
    const std::vector<float> x0 = random_floats(rng, n);
    duet::Buffer<float> x(device, n);
    x.order_between_queues();
    duet::Queue writer = device.queue();
    writer.write(x, duet::Span<const float>(x0));
    constexpr int kThreads = 4, kRounds = 25;
    std::vector<duet::Buffer<float>> outputs;
    for (int t = 0; t < kThreads; ++t) outputs.emplace_back(device, n);
    std::vector<std::string> problems(kThreads);
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t) {
      pool.emplace_back([&, t] {
        try {
          duet::Queue q = device.queue();
          duet::Buffer<float>& y = outputs[static_cast<std::size_t>(t)];
          for (int r = 0; r < kRounds; ++r) {
            q.fill(y, kNaN);
            q.launch(twice, duet::Range(n), duet::Range(), x, y, count);
            if (r % 5 == 4) {
              const std::vector<float> got = q.to_vector(y);
              for (std::size_t i = 0; i < n; ++i)
                if (got[i] != 2.0f * x0[i]) {
                  problems[static_cast<std::size_t>(t)] = "element " + std::to_string(i) + " in round " +
                                                          std::to_string(r) + ": " + std::to_string(got[i]);
                  return;
                }
            }
          }
        } catch (const std::exception& e) {
          problems[static_cast<std::size_t>(t)] = e.what();
        }
      });
    }
    for (std::thread& th : pool) th.join();
    for (int t = 0; t < kThreads; ++t) {
      INFO("thread ", t);
      CHECK(problems[static_cast<std::size_t>(t)] == "");
    }
  });
}
