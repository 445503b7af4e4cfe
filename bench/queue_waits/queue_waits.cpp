// duet-queue-waits: how soon a queue that waits for another queue's event goes on once that event
// has completed, by what the event's queue was given after the event and before the wait, and
// whether that queue was submitted (Queue::record flushes it) after the wait:
//   last      nothing: the event was still its queue's last command when waited for;
//   flushed   the same, and a record on the event's queue after the wait, before its next kernel;
//   marker    another event (Queue::record) after it;
//   kernel    a long kernel after it.
// Queue q runs a long kernel, records event m, (then the marker or the kernel), queue c waits for
// m and then either copies a small buffer from pinned host memory (a copy engine's work, as the
// host-staged exchange's copies) or fills it (a kernel on some backends, which also needs a
// multiprocessor free beside q's next kernel), q runs another long kernel, and the host polls m and
// c's command: the figure is the time from m's completion to that command's, median of --reps. A
// driver that orders queues on the device answers in microseconds in every case; others let c go
// only at some later point of q. duet::mpi's overlapped heat (mpi/src/heat.cpp) orders its queues by
// such waits.
//
//   duet-queue-waits [--device SPEC] [--kernel-us T] [--reps K] [--smoke]
//
// Exit code 0 after the table, 77 when there is no device, 2 for bad arguments.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <duet/duet.hpp>
#include <string>
#include <vector>

namespace {

// y <- y/2 + x, `rounds` times per work-item: a dependent chain whose time grows with rounds.
const char* const kSpin = R"(
KERNEL void spin(GLOBAL float* RESTRICT out, const uint n, const int rounds) {
  const size_t i = GLOBAL_ID(0);
  if (i >= n) return;
  float y = 0.0f;
  const float x = (float)i;
  for (int r = 0; r < rounds; ++r) y = y * 0.5f + x;
  out[i] = y;
}
)";

struct Options {
  std::string device;
  double kernel_us = 500.0;
  int reps = 21;
  bool smoke = false;
};

// The arguments; a bad one prints CLI11's message and exits with 2 (--help: 0).
Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{"duet-queue-waits: how soon a queue goes on after another queue's event"};
  app.add_option("--device", o.device, "the device, as DUET_DEVICE names one (default: Device::open())");
  app.add_option("--kernel-us", o.kernel_us, "the long kernel's time on the device, microseconds")
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", o.reps, "timed waits per case")->check(CLI::Range(1, 100000));
  app.add_flag("--smoke", o.smoke, "a short kernel and 3 waits: checks the program, measures nothing");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e) == 0 ? 0 : 2);
  }
  if (o.smoke) o.kernel_us = 50.0, o.reps = 3;
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Spinner {
  duet::Kernel kernel;
  duet::Buffer<float> out;
  int rounds = 1;
  void launch(duet::Queue& q) {
    q.launch(kernel, duet::Range(out.size()), duet::Range(), out, static_cast<std::uint32_t>(out.size()),
             rounds);
  }
};

// The kernel's rounds doubled until one launch takes `us` on the device.
void calibrate(duet::Queue& q, Spinner& s, double us) {
  for (s.rounds = 1; s.rounds < (1 << 30); s.rounds *= 2) {
    const duet::Event a = q.record();
    s.launch(q);
    const duet::Event b = q.record();
    if (duet::elapsed_ms(a, b) * 1e3 >= us) return;
  }
}

enum class After { nothing, flushed, marker, kernel };
enum class Then { copy, fill };

// What queue c runs once it has waited.
struct Waiter {
  duet::Buffer<float> small;
  duet::HostBuffer<float> host;
  void run(duet::Queue& c, Then then) {
    if (then == Then::copy)
      c.write(small, host);
    else
      c.fill(small, 0.0f);
  }
};

// Microseconds from m's completion to c's command's, as the host sees them by polling both.
double one_wait(duet::Queue& q, duet::Queue& c, Spinner& s, Waiter& w, After after, Then then) {
  q.finish();
  c.finish();
  s.launch(q);
  const duet::Event m = q.record();
  if (after == After::marker) q.record();
  if (after == After::kernel) s.launch(q);
  c.wait(m);
  w.run(c, then);
  const duet::Event e = c.record();
  if (after == After::flushed) q.record();
  if (after != After::kernel) s.launch(q);  // q has work after m in every case
  using clock = std::chrono::steady_clock;
  clock::time_point tm{}, te{};
  bool dm = false, de = false;
  while (!(dm && de)) {
    const clock::time_point now = clock::now();
    if (!dm && m.done()) dm = true, tm = now;
    if (!de && e.done()) de = true, te = now;
  }
  q.finish();
  return std::chrono::duration<double, std::micro>(te - tm).count();
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  try {
    duet::Device device;
    try {
      device = opt.device.empty() ? duet::Device::open() : duet::Device::open(opt.device);
    } catch (const duet::Error& e) {
      if (e.kind() == duet::ErrorKind::device_not_found || e.kind() == duet::ErrorKind::backend_unavailable) {
        std::printf("SKIPPED: no device: %s\n", e.what());
        return 77;
      }
      throw;
    }
    duet::Queue q = device.queue(), c = device.queue();
    Spinner s{device.compile(kSpin, {}, "queue_waits.duet").kernel("spin"),
              duet::Buffer<float>(device, std::size_t(device.info().compute_units) * 2048), 1};
    Waiter w{duet::Buffer<float>(device, 1024), duet::HostBuffer<float>(device, 1024)};
    calibrate(q, s, opt.kernel_us);
    const duet::Event a = q.record();
    s.launch(q);
    const double kernel_us = duet::elapsed_ms(a, q.record()) * 1e3;
    std::printf(
        "%s (%s): the other queue's command done after its event, median of %d, microseconds; the kernel "
        "takes %.1f\n\n| after the event, before the wait | a copy from pinned memory | a fill "
        "|\n|---|---|---|\n",
        device.info().id().c_str(), device.info().name.c_str(), opt.reps, kernel_us);
    const std::pair<After, const char*> cases[] = {
        {After::nothing, "nothing (the event is its queue's last command)"},
        {After::flushed, "nothing, and a record on its queue after the wait"},
        {After::marker, "another event"},
        {After::kernel, "a kernel"}};
    for (const auto& [after, name] : cases) {
      std::printf("| %s |", name);
      for (const Then then : {Then::copy, Then::fill}) {
        std::vector<double> t;
        one_wait(q, c, s, w, after, then);  // warm-up
        for (int i = 0; i < opt.reps; ++i) t.push_back(one_wait(q, c, s, w, after, then));
        std::printf(" %.1f |", median(t));
      }
      std::printf("\n");
    }
    return 0;
  } catch (const duet::Error& e) {
    std::fprintf(stderr, "duet-queue-waits: %s\n", e.what());
    return 1;
  }
}
