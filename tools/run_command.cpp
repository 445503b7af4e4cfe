// `duet run`: the shared kernels at real sizes on one device. Each kernel runs once to warm up (the
// first use compiles it), that result is checked against a double-precision CPU reference, and then
// several runs are timed with queue events. One table: time, throughput, error and verdict per kernel.
#include <algorithm>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "cpu_reference.hpp"
#include "duet/blas.hpp"
#include "duet/duet.hpp"
#include "duet/stencil.hpp"
#include "fixed_inputs.hpp"
#include "report.hpp"
#include "table.hpp"
#include "timing.hpp"

namespace duet::tool {
namespace {

// Unit roundoff of float: every float operation is exact to within this relative error.
constexpr double kFloatEps = 1.0 / (1 << 24);

struct Sizes {
  std::size_t vector_n;
  std::size_t matmul;  // M = N = K
  std::size_t heat;    // grid side
  int heat_steps;
  int runs;
};

Sizes sizes_for(const DeviceInfo& info, bool quick) {
  if (quick) return {std::size_t{1} << 20, 256, 512, 20, 3};
  if (info.kind == DeviceKind::cpu) return {std::size_t{1} << 22, 512, 1024, 100, 5};
  return {std::size_t{1} << 24, 2048, 4096, 100, 10};
}

struct Row {
  std::string kernel;
  std::string size;
  Timing timing;
  double work = 0.0;  // bytes moved, or floating-point operations when `flops`
  bool flops = false;
  double error = 0.0;
  double tolerance = 0.0;
  std::string failure;  // the exception's message when the case threw

  bool ok() const { return failure.empty() && error <= tolerance; }  // NaN error fails
};

// Every case: set up on the device, warm up, check, time. Fills everything of `row` but its name.
using Case = std::function<void(const Device&, Queue&, const Sizes&, Row&)>;

void elementwise_case(Queue& q, const Device& device, std::size_t n, int runs, bool add, Row& row) {
  row.size = "n=" + count_label(n);
  const auto a = random_floats(n, -1.0f, 1.0f, 1);
  const auto b = random_floats(n, -1.0f, 1.0f, 2);
  Buffer<float> da(device, n), db(device, n), dc(device, n);
  q.write(da, a);
  q.write(db, b);
  auto enqueue = [&] { add ? vector_add(q, da, db, dc) : multiply(q, da, db, dc); };

  enqueue();
  const auto got = q.to_vector(dc);
  // a + b is within 2 (a * b within 1) and correctly rounded: error at most 2 (1) roundoff units.
  row.error = add ? reference::max_error_add(a, b, got) : reference::max_error_multiply(a, b, got);
  row.tolerance = (add ? 4.0 : 2.0) * kFloatEps;

  row.timing = time_runs(q, runs, enqueue);
  row.work = 3.0 * n * sizeof(float);  // two reads, one write per element
}

void vector_add_case(const Device& device, Queue& q, const Sizes& s, Row& row) {
  elementwise_case(q, device, s.vector_n, s.runs, true, row);
}

void multiply_case(const Device& device, Queue& q, const Sizes& s, Row& row) {
  elementwise_case(q, device, s.vector_n, s.runs, false, row);
}

void matmul_case(const Device& device, Queue& q, const Sizes& s, Row& row) {
  const std::size_t M = s.matmul, N = s.matmul, K = s.matmul;
  row.size = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  const auto A = random_floats(M * K, -1.0f, 1.0f, 3);
  const auto B = random_floats(K * N, -1.0f, 1.0f, 4);
  Buffer<float> dA(device, M * K), dB(device, K * N), dC(device, M * N);
  q.write(dA, A);
  q.write(dB, B);
  auto enqueue = [&] { matmul(q, dA, dB, dC, M, N, K); };

  enqueue();
  const auto C = q.to_vector(dC);
  // Checking every entry costs M*N*K multiply-adds on the host: above ~2^28 check a sample.
  const double host_work = double(M) * double(N) * double(K);
  const std::size_t samples = host_work > double(1 << 28) ? 2000 : 0;
  row.error = reference::matmul_error(A, B, C, M, N, K, samples, kMatmulSampleSeed).max_relative;
  if (samples) row.size += " (" + std::to_string(samples) + " sampled)";
  // A K-term float dot product is within about (K + 2) roundoffs of sum |a_k b_k|.
  row.tolerance = double(K + 2) * kFloatEps;

  row.timing = time_runs(q, s.runs, enqueue);
  row.work = 2.0 * double(M) * double(N) * double(K);
  row.flops = true;
}

void heat_case(Queue& q, const Device& device, std::size_t side, int steps, int runs, Row& row) {
  const float r = 0.24f;
  const std::size_t cells = side * side;
  const bool single = steps == 1;
  row.size = std::to_string(side) + "x" + std::to_string(side) +
             (single ? "" : ", " + std::to_string(steps) + " steps");
  const auto initial = random_floats(cells, 0.0f, 1.0f, 5);
  Buffer<float> u(device, cells), v(device, cells);
  q.write(u, initial);
  q.fill(v, 0.0f);
  // heat() leaves the result in u (swapping handles); heat_step() writes v and leaves u as it was,
  // so the timed runs of heat_step repeat the same step.
  auto enqueue = [&] { single ? heat_step(q, u, v, side, side, r) : heat(q, u, v, side, side, r, steps); };

  enqueue();
  const auto got = q.to_vector(single ? v : u);
  row.error = reference::max_abs_error(got, reference::heat_reference(initial, side, side, r, steps));
  // Each step is a handful of float operations on values in [0, 1], and the scheme is stable for
  // r <= 1/4, so rounding errors add up at most linearly in the number of steps.
  row.tolerance = 16.0 * kFloatEps * steps;

  row.timing = time_runs(q, runs, enqueue);
  row.work = 2.0 * double(cells) * sizeof(float) * steps;  // each step reads u and writes v once
}

void heat_step_case(const Device& device, Queue& q, const Sizes& s, Row& row) {
  heat_case(q, device, s.heat, 1, s.runs, row);
}

void heat_steps_case(const Device& device, Queue& q, const Sizes& s, Row& row) {
  // Many steps per run take long: fewer runs.
  heat_case(q, device, s.heat, s.heat_steps, std::max(1, s.runs / 2), row);
}

std::string throughput(const Row& row) {
  if (row.timing.median_ms <= 0.0) return "-";
  const double per_second = row.work / (row.timing.median_ms * 1e-3);
  return fixed(per_second * 1e-9, 1) + (row.flops ? " GFLOP/s" : " GB/s");
}

}  // namespace

int run_command(const RunOptions& options) {
  const Device device = options.device.empty() ? Device::open() : Device::open(options.device);
  const DeviceInfo& info = device.info();
  Sizes sizes = sizes_for(info, options.quick);
  if (options.runs > 0) sizes.runs = options.runs;

  std::cout << "duet " << duet::version() << " on " << info.id() << ": " << info.name << " ("
            << to_string(info.kind) << ", " << info.platform << ")\n"
            << (options.quick                  ? "quick sizes"
                : info.kind == DeviceKind::cpu ? "CPU sizes"
                                               : "GPU sizes")
            << "; time is the median device time of the timed runs after a warm-up run that also "
               "compiles the kernel\n\n";

  const std::vector<std::pair<const char*, Case>> cases = {
      {"vector_add", vector_add_case}, {"multiply", multiply_case}, {"matmul", matmul_case},
      {"heat_step", heat_step_case},   {"heat", heat_steps_case},
  };

  Queue queue = device.queue();
  std::vector<Row> rows;
  std::vector<std::string> notes;
  for (const auto& [name, run_case] : cases) {
    Row row;
    row.kernel = name;
    try {
      run_case(device, queue, sizes, row);
    } catch (const std::exception& e) {
      // Keep going: one kernel failing should not hide how the others do. A failed queue may leave
      // work behind; a fresh queue keeps it out of the next case.
      row.failure = e.what();
      notes.push_back(std::string(name) + ": " + describe_error(e));
      queue = device.queue();
    }
    rows.push_back(row);
  }

  using Align = Table::Align;
  Table table({{"kernel", Align::left},
               {"size", Align::left},
               {"runs", Align::right},
               {"time ms", Align::right},
               {"throughput", Align::right},
               {"max error", Align::right},
               {"limit", Align::right},
               {"result", Align::left}});
  int failures = 0;
  for (const Row& row : rows) {
    failures += row.ok() ? 0 : 1;
    if (!row.failure.empty()) {
      table.add_row({row.kernel, row.size, "-", "-", "-", "-", "-", "FAIL (error)"});
      continue;
    }
    table.add_row({row.kernel, row.size, std::to_string(row.timing.runs), fixed(row.timing.median_ms, 3),
                   throughput(row), scientific(row.error), scientific(row.tolerance),
                   row.ok() ? "OK" : "FAIL"});
  }
  table.print(std::cout);
  std::cout << "\nmax error: absolute, except matmul: relative to sum |a_ik b_kj| per entry\n";
  for (const auto& note : notes) std::cout << note << '\n';

  if (failures) {
    std::cout << failures << " of " << rows.size() << " kernels FAILED\n";
    return 1;
  }
  std::cout << "all " << rows.size() << " kernels OK\n";
  return 0;
}

}  // namespace duet::tool
