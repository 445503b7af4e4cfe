// Graphs: a replay does exactly what the same operations issued one by one do, bit for bit, on
// every device; arguments changed between replays take effect; waits for other queues' events
// order the replay after them; replays interleave with plain operations; and what a capture cannot
// record is refused at once, naming the call, with the capture intact.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <duet/duet.hpp>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

const char* const kSource = R"(
KERNEL void affine(GLOBAL const float* x, GLOBAL float* y, const uint n, const float a) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i < n) y[i] = a * x[i] + 0.25f * x[(i + 7u) % n];
}
KERNEL void smooth(GLOBAL const float* in, GLOBAL float* out, const uint n) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i >= n) return;
  const float left = in[i == 0u ? 0u : i - 1u];
  const float right = in[i + 1u == n ? i : i + 1u];
  out[i] = (left + in[i] + right) / 3.0f;
}
KERNEL void twice_plus(GLOBAL float* x, const uint n, const float add) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i < n) x[i] = 2.0f * x[i] + add;
}
KERNEL void slow_write(GLOBAL float* y, const uint n, const uint spins, const float value) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i >= n) return;
  float acc = 0.0f;
  for (uint k = 0; k < spins; ++k) acc = acc * 0.5f + 1e-7f;
  y[i] = value + (acc > 1.0f ? 1.0f : 0.0f) + (float)i;
}
)";

// Awkward sizes: neither a multiple of a work-group nor of a vector width.
const std::size_t kSizes[] = {1, 37, 1000 + 37};

template <class T>
std::vector<T> contents(duet::Queue& q, const duet::Buffer<T>& b) {
  return q.to_vector(b);
}

// Records on `q` (or runs there directly when `g` is null) a mix of launches, a copy between
// offsets and fills, over buffers poisoned with NaN first.
struct Work {
  duet::Buffer<float> x, y, z;
  std::size_t n;
};

Work make_work(const duet::Device& device, duet::Queue& q, const std::vector<float>& input) {
  const std::size_t n = input.size();
  Work w{duet::Buffer<float>(device, n), duet::Buffer<float>(device, n), duet::Buffer<float>(device, n + 5),
         n};
  q.fill(w.y, kNaN);
  q.fill(w.z, kNaN);
  q.write(w.x, duet::Span<const float>(input));
  q.finish();
  return w;
}

void issue(duet::Queue& q, const duet::Program& program, Work& w) {
  const auto n = static_cast<unsigned>(w.n);
  q.launch(program.kernel("affine"), duet::Range(w.n), duet::Range(), w.x, w.y, n, 1.5f);
  q.fill(w.z, 0.5f);
  q.copy(w.y, 0, w.z, 3, w.n);
  q.launch(program.kernel("affine"), duet::Range(w.n), duet::Range(), w.z, w.x, n, -0.75f);
  q.launch(program.kernel("twice_plus"), duet::Range(w.n), duet::Range(), w.x, n, 0.125f);
}

}  // namespace

TEST_CASE("a graph's replays equal the same operations issued one by one, bit for bit") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Queue q = device.queue();
    for (std::size_t n : kSizes) {
      INFO("n = ", n);
      auto rng = make_rng("graph-replay", n);
      const std::vector<float> input = random_floats(rng, n);
      Work direct = make_work(device, q, input);
      Work replayed = make_work(device, q, input);
      q.begin_capture();
      CHECK(q.capturing());
      issue(q, program, replayed);
      duet::Graph g = q.end_capture();
      CHECK_FALSE(q.capturing());
      REQUIRE(g.size() == 5);
      CHECK(std::string(g.node_kind(0)) == "launch");
      CHECK(std::string(g.node_kind(1)) == "fill");
      CHECK(std::string(g.node_kind(2)) == "copy");
      CHECK_FALSE(g.path().empty());
      // Nothing ran while recording.
      check_equal(contents(q, replayed.x), input, "x after recording");
      for (int round = 0; round < 3; ++round) {
        issue(q, program, direct);
        g.replay(q);
      }
      check_equal(contents(q, replayed.x), contents(q, direct.x), "x");
      check_equal(contents(q, replayed.y), contents(q, direct.y), "y");
      check_equal(contents(q, replayed.z), contents(q, direct.z), "z");
    }
  });
}

TEST_CASE("record_graph records a callable, and a replay runs on any queue of the device") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Queue q = device.queue();
    duet::Queue other = device.queue(duet::QueueOptions{true});
    auto rng = make_rng("graph-record", 0);
    const std::vector<float> input = random_floats(rng, 333);
    Work direct = make_work(device, q, input);
    Work replayed = make_work(device, q, input);
    duet::Graph g = q.record_graph([&] { issue(q, program, replayed); });
    issue(q, program, direct);
    q.finish();
    duet::Event done = g.replay(other);
    CHECK(done.duration_ms() >= 0.0);  // a replay is one timed operation
    check_equal(contents(other, replayed.x), contents(q, direct.x), "x replayed on another queue");

    // A callable that throws leaves no capture behind.
    CHECK_THROWS_AS(q.record_graph([&] { throw std::runtime_error("stop"); }), std::runtime_error);
    CHECK_FALSE(q.capturing());

    // An empty graph and an empty launch replay as nothing.
    duet::Graph empty = q.record_graph([] {});
    CHECK(empty.size() == 0);
    empty.replay(q).wait();
    duet::Graph nothing = q.record_graph(
        [&] { q.launch(program.kernel("twice_plus"), duet::Range(0), duet::Range(), replayed.x, 0u, 1.0f); });
    nothing.replay(q);
    check_equal(contents(q, replayed.x), contents(q, direct.x), "x after an empty launch");
  });
}

TEST_CASE("changed arguments: a heat-style ping-pong through set_arg") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Kernel smooth = program.kernel("smooth");
    duet::Queue q = device.queue();
    for (std::size_t n : kSizes) {
      INFO("n = ", n);
      auto rng = make_rng("graph-pingpong", n);
      const std::vector<float> input = random_floats(rng, n);
      const auto count = static_cast<unsigned>(n);
      duet::Buffer<float> a(device, n), b(device, n), c(device, n), d(device, n);
      q.write(a, duet::Span<const float>(input));
      q.write(c, duet::Span<const float>(input));
      q.fill(b, kNaN);
      q.fill(d, kNaN);
      q.finish();
      duet::Graph g = q.record_graph([&] { q.launch(smooth, duet::Range(n), duet::Range(), a, b, count); });
      for (int step = 0; step < 7; ++step) {
        const bool even = step % 2 == 0;
        g.set_arg(0, 0, even ? a : b);
        g.set_arg(0, 1, even ? b : a);
        g.replay(q);
        q.launch(smooth, duet::Range(n), duet::Range(), even ? c : d, even ? d : c, count);
      }
      check_equal(contents(q, b), contents(q, d), "after 7 steps");
      check_equal(contents(q, a), contents(q, c), "the other buffer");
      // A scalar too: the launch over fewer items leaves the rest as it was.
      g.set_arg(0, 0, b);
      g.set_arg(0, 1, a);
      g.set_arg(0, 2, count / 2);
      q.launch(smooth, duet::Range(n), duet::Range(), d, c, count / 2);
      g.replay(q);
      check_equal(contents(q, a), contents(q, c), "after changing the size");
    }
  });
}

TEST_CASE("set_arg checks as a launch does") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Queue q = device.queue();
    duet::Buffer<float> a(device, 64), b(device, 64);
    duet::Buffer<int> ints(device, 64);
    duet::Graph g = q.record_graph([&] {
      q.launch(program.kernel("smooth"), duet::Range(64), duet::Range(), a, b, 64u);
      q.fill(a, 1.0f);
    });
    auto e = EXPECT_ERROR(duet::ArgumentError, g.set_arg(0, 2, 1.5f));
    if (e) CHECK(contains(e->what(), "uint"));
    EXPECT_ERROR(duet::ArgumentError, g.set_arg(0, 0, ints));
    EXPECT_ERROR(duet::ArgumentError, g.set_arg(0, 1, 3u));
    e = EXPECT_ERROR(duet::ArgumentError, g.set_arg(0, 3, a));
    if (e) CHECK(contains(e->what(), "3 arguments"));
    e = EXPECT_ERROR(duet::ArgumentError, g.set_arg(1, 0, a));
    if (e) CHECK(contains(e->what(), "fill"));
    EXPECT_ERROR(duet::ArgumentError, g.set_arg(9, 0, a));
    duet::Buffer<float> released(device, 4);
    released.release();
    EXPECT_ERROR(duet::ReleasedError, g.set_arg(0, 0, released));
    // A refused argument leaves the node as it was.
    q.fill(a, 3.0f);
    q.fill(b, kNaN);
    g.replay(q);
    check_equal(contents(q, b), std::vector<float>(64, 3.0f), "after refused set_arg");
    const std::vector<duet::Device> two = two_devices();
    if (two.size() == 2 && two[1] != device) {
      duet::Buffer<float> elsewhere(two[1], 64);
      EXPECT_ERROR(duet::DeviceMismatchError, g.set_arg(0, 0, elsewhere));
    }
  });
}

TEST_CASE("a graph waits for other queues' events, and set_wait changes the event") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Queue q = device.queue();
    duet::Queue producer = device.queue();
    const std::size_t n = 4099;
    const auto count = static_cast<unsigned>(n);
    duet::Buffer<float> src(device, n), dst(device, n);
    q.fill(dst, kNaN);
    q.finish();
    auto produce = [&](float value) {
      producer.launch(program.kernel("slow_write"), duet::Range(n), duet::Range(), src, count, 1u << 14,
                      value);
      return producer.record();
    };
    duet::Event first = produce(1.0f);
    duet::Graph g = q.record_graph([&] {
      q.wait(first);
      q.copy(src, dst);
      q.launch(program.kernel("twice_plus"), duet::Range(n), duet::Range(), dst, count, 0.0f);
    });
    REQUIRE(g.size() == 3);
    CHECK(std::string(g.node_kind(0)) == "wait");
    auto expected = [&](float value) {
      std::vector<float> out(n);
      for (std::size_t i = 0; i < n; ++i) out[i] = 2.0f * (value + static_cast<float>(i));
      return out;
    };
    g.replay(q);
    check_equal(contents(q, dst), expected(1.0f), "first replay");
    for (float value : {5.0f, 9.0f}) {
      g.set_wait(0, produce(value));
      g.replay(q);
      check_equal(contents(q, dst), expected(value), "after set_wait");
    }
    EXPECT_ERROR(duet::ArgumentError, g.set_wait(1, producer.record()));
    EXPECT_ERROR(duet::ReleasedError, g.set_wait(0, duet::Event()));
  });
}

TEST_CASE("replays interleave with plain operations in queue order") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Kernel twice = program.kernel("twice_plus");
    duet::Queue q = device.queue();
    const std::size_t n = 1000 + 37;
    const auto count = static_cast<unsigned>(n);
    auto rng = make_rng("graph-interleave", 0);
    const std::vector<float> input = random_floats(rng, n);
    duet::Buffer<float> x(device, n), y(device, n);
    q.write(x, duet::Span<const float>(input));
    q.write(y, duet::Span<const float>(input));
    duet::Graph g = q.record_graph([&] {
      q.launch(twice, duet::Range(n), duet::Range(), x, count, 1.0f);
      q.launch(twice, duet::Range(n), duet::Range(), x, count, -0.5f);
    });
    for (int i = 0; i < 5; ++i) {
      q.launch(twice, duet::Range(n), duet::Range(), x, count, 0.25f * static_cast<float>(i));
      q.launch(twice, duet::Range(n), duet::Range(), y, count, 0.25f * static_cast<float>(i));
      g.replay(q);
      q.launch(twice, duet::Range(n), duet::Range(), y, count, 1.0f);
      q.launch(twice, duet::Range(n), duet::Range(), y, count, -0.5f);
    }
    check_equal(contents(q, x), contents(q, y), "x (replays) against y (one by one)");
  });
}

TEST_CASE("a graph replays on a queue that orders its buffers after another queue's work") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Queue q = device.queue();
    duet::Queue producer = device.queue();
    const std::size_t n = 4099;
    const auto count = static_cast<unsigned>(n);
    duet::Buffer<float> src(device, n), dst(device, n);
    src.raw().order_between_queues();
    duet::Graph g = q.record_graph([&] { q.copy(src, dst); });
    producer.launch(program.kernel("slow_write"), duet::Range(n), duet::Range(), src, count, 1u << 14, 3.0f);
    g.replay(q);  // waits on the device for the producer's write to src
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = 3.0f + static_cast<float>(i);
    check_equal(contents(q, dst), want, "dst");
  });
}

TEST_CASE("what a capture cannot record is refused at once, naming the call") {
  for_each_device([](const duet::Device& device) {
    duet::Program program = device.compile(kSource);
    duet::Queue q = device.queue();
    duet::Queue other = device.queue();
    duet::Buffer<float> a(device, 16), b(device, 16);
    std::vector<float> host(16, 2.0f);
    q.write(a, duet::Span<const float>(host));
    q.finish();
    duet::Graph before = q.record_graph([&] { q.fill(b, 1.0f); });

    q.begin_capture();
    duet::Event recorded = q.launch(program.kernel("smooth"), duet::Range(16), duet::Range(), a, b, 16u);
    auto e = EXPECT_ERROR(duet::CaptureError, q.write(a, duet::Span<const float>(host)));
    if (e) CHECK(contains(e->what(), "write during a graph capture"));
    e = EXPECT_ERROR(duet::CaptureError, q.read(a, duet::Span<float>(host)));
    if (e) CHECK(contains(e->what(), "read during a graph capture"));
    e = EXPECT_ERROR(duet::CaptureError, q.finish());
    if (e) CHECK(contains(e->what(), "Queue::finish"));
    e = EXPECT_ERROR(duet::CaptureError, q.map(a));
    if (e) CHECK(contains(e->what(), "Queue::map"));
    e = EXPECT_ERROR(duet::CaptureError, q.record());
    if (e) CHECK(contains(e->what(), "Queue::record"));
    e = EXPECT_ERROR(duet::CaptureError, q.to_vector(a));
    e = EXPECT_ERROR(duet::CaptureError, q.native_handle());
    if (e) CHECK(contains(e->what(), "Queue::native_handle"));
    e = EXPECT_ERROR(duet::CaptureError, q.begin_capture());
    if (e) CHECK(contains(e->what(), "Queue::begin_capture"));
    e = EXPECT_ERROR(duet::CaptureError, q.replay(before));
    if (e) CHECK(contains(e->what(), "Queue::replay"));
    // The recorded operation's event marks nothing: another queue cannot wait for it, nor the host.
    e = EXPECT_ERROR(duet::CaptureError, other.wait(recorded));
    if (e) CHECK(contains(e->what(), "recorded into a graph"));
    EXPECT_ERROR(duet::CaptureError, recorded.wait());
    EXPECT_ERROR(duet::CaptureError, recorded.done());
    CHECK(recorded.device() == device);
    // Checks of the recorded operations themselves are made at record time too.
    EXPECT_ERROR(duet::ArgumentError,
                 q.launch(program.kernel("smooth"), duet::Range(16), duet::Range(), a, b, 1.0f));
    EXPECT_ERROR(duet::BufferSizeError, q.copy(a, 0, b, 8, 16));
    // Other queues are not capturing, and the capture goes on after the refusals.
    other.fill(a, 2.0f);
    other.finish();
    q.fill(a, 6.0f);
    duet::Graph g = q.end_capture();
    CHECK(g.size() == 2);
    e = EXPECT_ERROR(duet::CaptureError, q.end_capture());
    if (e) CHECK(contains(e->what(), "not capturing"));
    q.fill(b, kNaN);
    g.replay(q);
    check_equal(contents(q, b), std::vector<float>(16, 2.0f), "b");
    check_equal(contents(q, a), std::vector<float>(16, 6.0f), "a");

    // A graph of one device replayed on another's queue.
    const std::vector<duet::Device> two = two_devices();
    if (two.size() == 2 && two[1] != device) {
      duet::Queue elsewhere = two[1].queue();
      EXPECT_ERROR(duet::DeviceMismatchError, g.replay(elsewhere));
    }
    EXPECT_ERROR(duet::ReleasedError, duet::Graph().replay(q));
  });
}

TEST_CASE("each device says which path its graphs take, and its graphs take it") {
  for_each_device([](const duet::Device& device) {
    const duet::DeviceInfo& info = device.info();
    const std::string path = duet::graph_path(device);
    INFO("graph_path: ", path);
    duet::Program program = device.compile(kSource);
    duet::Queue q = device.queue();
    duet::Buffer<float> x(device, 8);
    duet::Graph g = q.record_graph(
        [&] { q.launch(program.kernel("twice_plus"), duet::Range(8), duet::Range(), x, 8u, 1.0f); });
    // A graph's own path is the short form: "re-enqueue" without the device's note.
    CHECK(g.path() == (path.compare(0, 10, "re-enqueue") == 0 ? std::string("re-enqueue") : path));
    if (info.backend == "cuda") CHECK(path == "cuda-graph");
    // PoCL 3 reports cl_khr_command_buffer 0.9.0, whose calls duet makes, unless the run asks for
    // re-enqueue (duet.opencl.reenqueue); a later PoCL may report a version duet does not call, and
    // then the path names the extension and why it is not used.
    const bool pocl = info.platform.find("Portable Computing Language") != std::string::npos;
    const char* env = std::getenv("DUET_OPENCL_COMMAND_BUFFERS");
    const bool refused = env && std::string(env) == "0";
    if (pocl && info.driver.compare(0, 2, "3.") == 0 && !refused) CHECK(path == "cl_khr_command_buffer");
    // Whatever version the PoCL reports, the refused path names the extension and the reason.
    if (pocl && refused) {
      CHECK(path.compare(0, 34, "re-enqueue (cl_khr_command_buffer ") == 0);
      CHECK(path.find("reported, not used: DUET_OPENCL_COMMAND_BUFFERS=0)") != std::string::npos);
    }
    if (path != "cl_khr_command_buffer" && path != "cuda-graph")
      CHECK(path.compare(0, 10, "re-enqueue") == 0);
  });
}
