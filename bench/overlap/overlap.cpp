// duet-overlap: how much a pipeline of copies and kernels on three queues gains over the same work
// on one queue.
//
// The work: `chunks` chunks of floats in pinned host memory (HostBuffer) are copied to the device,
// transformed by a kernel whose arithmetic is calibrated so that it takes about as long as one
// chunk's copies take in the pipeline (see the calibration in main), and copied back to pinned
// memory. On one queue every step waits for the one before.
// The pipeline gives each step its own queue (up, compute, down) and orders them with events, so
// that chunk i+1 is copied in while chunk i is computed and chunk i-1 is copied out; device buffers
// rotate through three slots, and a slot is reused only after the events say its last user is
// done. Both versions are timed on the host clock, from enqueueing the first copy to the completion
// of the last, and every output element is checked against a double-precision reference.
//
// With three equal steps the ideal gain is 3 * chunks / (chunks + 2) (2.67 for 16 chunks); where the
// driver runs copies in and out one after the other (so the kernel is calibrated to their sum), it
// is 2 * chunks / (chunks + 1).
//
//   duet-overlap [--device SPEC] [--chunks N] [--chunk-mib M] [--rounds R] [--reps K] [--smoke]
//
// --rounds 0 (the default) calibrates the kernel; --smoke runs tiny sizes once (for CI). Exit code 1
// when a result is wrong, 77 when there is no device; the speedup itself never fails the run.
#include <duet/duet.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

// y <- y/2 + x converges to 2x; one multiply-add per round, a dependent chain the compiler cannot
// shorten, so the time scales with `rounds`.
const char* const kCrunch = R"(
KERNEL void crunch(GLOBAL const float* RESTRICT in, GLOBAL float* RESTRICT out, const uint n,
                   const int rounds) {
  const size_t i = GLOBAL_ID(0);
  if (i >= n) return;
  const float x = in[i];
  float y = 0.0f;
  for (int r = 0; r < rounds; ++r) y = y * 0.5f + x;
  out[i] = y;
}
)";

struct Options {
  std::string device;
  std::size_t chunks = 16;
  std::size_t chunk_mib = 32;
  int rounds = 0;  // 0: calibrate
  int reps = 5;
  bool smoke = false;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "duet-overlap: %s\nusage: duet-overlap [--device SPEC] [--chunks N] [--chunk-mib M] "
               "[--rounds R] [--reps K] [--smoke]\n",
               why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--device") o.device = value();
    else if (a == "--chunks") o.chunks = std::stoul(value());
    else if (a == "--chunk-mib") o.chunk_mib = std::stoul(value());
    else if (a == "--rounds") o.rounds = std::stoi(value());
    else if (a == "--reps") o.reps = std::stoi(value());
    else if (a == "--smoke") o.smoke = true;
    else if (a == "--help" || a == "-h") usage("help");
    else usage(("unknown option " + a).c_str());
  }
  if (o.smoke) {
    o.chunks = 4;
    o.chunk_mib = 1;
    if (o.rounds == 0) o.rounds = 16;
    o.reps = 1;
  }
  if (o.chunks < 1 || o.chunk_mib < 1 || o.reps < 1 || o.rounds < 0) usage("sizes must be positive");
  return o;
}

double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Setup {
  duet::Device device;
  duet::Kernel kernel;
  std::size_t chunks = 0, chunk = 0;  // chunk: elements
  int rounds = 0;
  duet::HostBuffer<float> in, out;
  std::vector<duet::Buffer<float>> din, dout;  // three slots each
};

constexpr std::size_t kSlots = 3;

void launch(duet::Queue& q, Setup& s, std::size_t slot) {
  q.launch(s.kernel, duet::Range(s.chunk), duet::Range(), s.din[slot], s.dout[slot],
           static_cast<std::uint32_t>(s.chunk), s.rounds);
}

// Everything on one queue, in order: each step waits for the one before.
double run_serial(Setup& s) {
  duet::Queue q = s.device.queue();
  const double start = now_ms();
  for (std::size_t i = 0; i < s.chunks; ++i) {
    const std::size_t slot = i % kSlots;
    q.write(s.din[slot], s.in.span(i * s.chunk, s.chunk));
    launch(q, s, slot);
    q.read(s.dout[slot], s.out.span(i * s.chunk, s.chunk));
  }
  q.finish();
  return now_ms() - start;
}

// Three queues ordered by events: chunk i+1 up, chunk i computing, chunk i-1 down. Step t enqueues,
// in this order, the copy in of chunk t, the kernel of chunk t-1 and the copy out of chunk t-2, so
// each queue gets its next command before the host enqueues one that must wait for another queue.
// (Enqueueing chunk by chunk instead, copy in, kernel, copy out, measured 1.41x instead of 2.4x on
// NVIDIA's OpenCL, as if it submitted commands that wait on other queues' events in enqueue order:
// the copy in of chunk i+1 then waited behind the copy out of chunk i, and so behind its kernel.)
double run_pipelined(Setup& s) {
  duet::Queue up = s.device.queue(), compute = s.device.queue(), down = s.device.queue();
  std::vector<duet::Event> uploaded(s.chunks), computed(s.chunks), downloaded(s.chunks);
  const double start = now_ms();
  for (std::size_t t = 0; t < s.chunks + 2; ++t) {
    if (t < s.chunks) {
      const std::size_t i = t, slot = i % kSlots;
      // The slot's input was last read by the kernel of chunk i - kSlots.
      if (i >= kSlots) up.wait(computed[i - kSlots]);
      uploaded[i] = up.write(s.din[slot], s.in.span(i * s.chunk, s.chunk));
    }
    if (t >= 1 && t - 1 < s.chunks) {
      const std::size_t i = t - 1, slot = i % kSlots;
      compute.wait(uploaded[i]);
      // The slot's output was last read out by the copy out of chunk i - kSlots.
      if (i >= kSlots) compute.wait(downloaded[i - kSlots]);
      launch(compute, s, slot);
      computed[i] = compute.record();
    }
    if (t >= 2) {
      const std::size_t i = t - 2, slot = i % kSlots;
      down.wait(computed[i]);
      downloaded[i] = down.read(s.dout[slot], s.out.span(i * s.chunk, s.chunk));
    }
  }
  down.finish();
  const double elapsed = now_ms() - start;
  up.finish();
  compute.finish();
  return elapsed;
}

// Every output element against the reference in double: after r rounds y = 2x (1 - 2^-r).
std::size_t check(const Setup& s, const std::vector<float>& x, double* worst) {
  const double factor = 2.0 * (1.0 - std::ldexp(1.0, -std::min(s.rounds, 1000)));
  std::size_t bad = 0;
  *worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = factor * static_cast<double>(x[i]);
    const double err = std::fabs(static_cast<double>(s.out[i]) - want);
    const double tol = 8.0 * std::numeric_limits<float>::epsilon() * (std::fabs(want) + 1e-30);
    if (!(err <= tol)) ++bad;  // NaN (an element never written) fails
    if (err > *worst || err != err) *worst = err;
  }
  return bad;
}

void poison(Setup& s) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::fill(s.out.begin(), s.out.end(), nan);
}

// Median of a few runs of one step on one chunk, in ms of device time.
template <class F>
double time_step(duet::Queue& q, int runs, F&& step) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const duet::Event a = q.record();
    step();
    const duet::Event b = q.record();
    t.push_back(duet::elapsed_ms(a, b));
  }
  return median(t);
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  try {
    Setup s;
    try {
      s.device = opt.device.empty() ? duet::Device::open() : duet::Device::open(opt.device);
    } catch (const duet::Error& e) {
      if (e.kind() == duet::ErrorKind::device_not_found || e.kind() == duet::ErrorKind::backend_unavailable) {
        std::printf("SKIPPED: no device: %s\n", e.what());
        return 77;
      }
      throw;
    }
    const duet::DeviceInfo& info = s.device.info();
    s.kernel = s.device.compile(kCrunch, {}, "overlap.duet").kernel("crunch");
    s.chunks = opt.chunks;
    s.chunk = opt.chunk_mib * (std::size_t(1) << 20) / sizeof(float);
    const std::size_t n = s.chunks * s.chunk;
    s.in = duet::HostBuffer<float>(s.device, n);
    s.out = duet::HostBuffer<float>(s.device, n);
    for (std::size_t k = 0; k < kSlots; ++k) {
      s.din.emplace_back(s.device, s.chunk);
      s.dout.emplace_back(s.device, s.chunk);
    }
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(n);
    for (float& v : x) v = dist(rng);
    std::copy(x.begin(), x.end(), s.in.begin());

    // Calibration. One chunk's copies and a kernel at 256 rounds, each timed alone; then the pipeline
    // with a kernel of one round, which shows what the copies cost per chunk when they share the
    // device: the longer of the two directions where the copy engines run both at once (CUDA), up
    // to their sum where the driver runs them one after the other. The kernel's rounds (its time is
    // linear in them) are then set so that it takes as long as that, so every stage is equally long.
    duet::Queue q = s.device.queue();
    s.rounds = opt.rounds > 0 ? opt.rounds : 256;
    q.write(s.din[0], s.in.span(0, s.chunk));  // warm-up: first use of the memory and the kernel
    launch(q, s, 0);
    q.read(s.dout[0], s.out.span(0, s.chunk));
    q.finish();
    const int runs = opt.smoke ? 1 : 5;
    const double h2d = time_step(q, runs, [&] { q.write(s.din[0], s.in.span(0, s.chunk)); });
    const double d2h = time_step(q, runs, [&] { q.read(s.dout[0], s.out.span(0, s.chunk)); });
    double kernel_ms = time_step(q, runs, [&] { launch(q, s, 0); });
    const int probe_rounds = s.rounds;
    s.rounds = 1;
    std::vector<double> copies_only;
    for (int r = 0; r < std::min(runs, 3); ++r) copies_only.push_back(run_pipelined(s));
    // Per chunk in the steady state: the first chunk's copy in and the last one's copy out are the
    // pipeline's fill and drain.
    // At least the longer copy, at most both back to back: more is the 1-round kernel's and the
    // queues' own cost (it is, on CPU devices).
    const double copy_stage = std::clamp(
        (median(copies_only) - h2d - d2h) / static_cast<double>(std::max<std::size_t>(s.chunks - 1, 1)),
        std::max(h2d, d2h), h2d + d2h);
    s.rounds = probe_rounds;
    if (opt.rounds == 0 && kernel_ms > 0) {
      s.rounds = static_cast<int>(std::clamp(256.0 * copy_stage / kernel_ms, 1.0, 1e7));
      kernel_ms = time_step(q, runs, [&] { launch(q, s, 0); });
    }
    q.finish();

    const double mib = static_cast<double>(s.chunk * sizeof(float)) / (1 << 20);
    std::printf("duet-overlap on %s: %s (%s)\n", info.id().c_str(), info.name.c_str(), info.platform.c_str());
    std::printf("%zu chunks of %.0f MiB (%.0f MiB in, %.0f MiB out, pinned host memory), kernel %d rounds/element\n",
                s.chunks, mib, mib * static_cast<double>(s.chunks), mib * static_cast<double>(s.chunks), s.rounds);
    std::printf("one chunk alone (device time, median of %d): copy in %.3f ms (%.1f GB/s), kernel %.3f ms, "
                "copy out %.3f ms (%.1f GB/s)\n",
                runs, h2d, mib * 1.048576 / h2d, kernel_ms, d2h, mib * 1.048576 / d2h);
    std::printf("copies per chunk in the pipeline: %.3f ms (copy in and out %s)\n", copy_stage,
                copy_stage < 0.75 * (h2d + d2h) ? "overlap each other" : "do not overlap each other on this driver");

    std::vector<double> serial, piped;
    bool ok = true;
    double worst = 0;
    for (int r = 0; r < opt.reps; ++r) {
      poison(s);
      serial.push_back(run_serial(s));
      std::size_t bad = check(s, x, &worst);
      if (bad) {
        std::printf("one queue: %zu of %zu outputs wrong (worst error %g)\n", bad, n, worst);
        ok = false;
      }
      poison(s);
      piped.push_back(run_pipelined(s));
      bad = check(s, x, &worst);
      if (bad) {
        std::printf("pipelined: %zu of %zu outputs wrong (worst error %g)\n", bad, n, worst);
        ok = false;
      }
    }
    const double ts = median(serial), tp = median(piped);
    const double gb = 2.0 * static_cast<double>(n * sizeof(float)) / 1e9;
    std::printf("\n%-28s %8s %8s %12s  %s\n", "schedule", "ms", "best ms", "in+out GB/s", "result");
    std::printf("%-28s %8.2f %8.2f %12.1f  %s\n", "one queue", ts, *std::min_element(serial.begin(), serial.end()),
                gb / (ts * 1e-3), ok ? "OK" : "FAIL");
    std::printf("%-28s %8.2f %8.2f %12.1f  %s\n", "3 queues + events (pipeline)", tp,
                *std::min_element(piped.begin(), piped.end()), gb / (tp * 1e-3), ok ? "OK" : "FAIL");
    // The pipeline at best: one chunk's three steps, then one copy stage or kernel (the longer) per
    // further chunk.
    const double stage = std::max(copy_stage, kernel_ms);
    const double ideal = (h2d + d2h + kernel_ms) * static_cast<double>(s.chunks) /
                         (stage * static_cast<double>(s.chunks - 1) + h2d + d2h + kernel_ms);
    std::printf("speedup %.2fx (median of %d runs each; ideal for these step times %.2fx)\n", ts / tp, opt.reps,
                ideal);
    std::printf("results %s\n", ok ? "verified against a double-precision reference: OK" : "WRONG");
    return ok ? 0 : 1;
  } catch (const duet::CompileError& e) {
    std::fprintf(stderr, "duet-overlap: %s\n%s\n", e.what(), e.log().c_str());
    return 1;
  } catch (const duet::Error& e) {
    std::fprintf(stderr, "duet-overlap: error (%s): %s\n", duet::to_string(e.kind()), e.what());
    return 1;
  }
}
