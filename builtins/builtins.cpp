// The table of built-in kernels and their cases. Each case draws its inputs from fixed seeds (the
// same data every run), checks the warm-up run's result against the one CPU reference of its kernel
// (reference/cpu_reference.hpp), then times further runs with queue events.
#include "builtins.hpp"

#include <algorithm>
#include <string>

#include "case_inputs.hpp"
#include "cpu_reference.hpp"
#include "duet/blas.hpp"
#include "duet/stencil.hpp"

namespace duet::builtins {

std::string count_label(std::size_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int bits = 0;
    while ((std::size_t{1} << bits) < n) ++bits;
    return "n=2^" + std::to_string(bits);
  }
  return "n=" + std::to_string(n);
}

namespace {

// --- vector_add, multiply: c = a op b over n floats ------------------------------------------------

double elementwise_work(const Problem& p) { return 3.0 * double(p.size) * sizeof(float); }  // 2 reads, 1 write
std::string elementwise_label(const Problem& p) { return count_label(p.size); }
// a + b of values in [-1, 1] lies within 2 (a * b within 1) and is correctly rounded: an error of at
// most 2 (1) roundoff units; twice that leaves margin.
double add_tolerance(const Problem&) { return 4.0 * kFloatEps; }
double multiply_tolerance(const Problem&) { return 2.0 * kFloatEps; }

void elementwise_run(const Device& device, Queue& q, std::size_t n, int runs, bool add, Row& row) {
  const auto a = random_floats(n, -1.0f, 1.0f, 1);
  const auto b = random_floats(n, -1.0f, 1.0f, 2);
  Buffer<float> da(device, n), db(device, n), dc(device, n);
  q.write(da, a);
  q.write(db, b);
  auto enqueue = [&] { add ? vector_add(q, da, db, dc) : multiply(q, da, db, dc); };

  enqueue();
  const auto got = q.to_vector(dc);
  row.error = add ? reference::max_error_add(a, b, got) : reference::max_error_multiply(a, b, got);
  row.timing = time_runs(q, runs, enqueue);
}

void vector_add_run(const Device& device, Queue& q, const Problem& p, int runs, Row& row) {
  elementwise_run(device, q, p.size, runs, true, row);
}

void multiply_run(const Device& device, Queue& q, const Problem& p, int runs, Row& row) {
  elementwise_run(device, q, p.size, runs, false, row);
}

// --- matmul: C = A B, M = N = K --------------------------------------------------------------------

double matmul_work(const Problem& p) { return 2.0 * double(p.size) * double(p.size) * double(p.size); }
std::string matmul_label(const Problem& p) {
  const std::string n = std::to_string(p.size);
  return n + "x" + n + "x" + n;
}
// A K-term float dot product is within about (K + 2) roundoffs of sum |a_k b_k|.
double matmul_tolerance(const Problem& p) { return double(p.size + 2) * kFloatEps; }

void matmul_run(const Device& device, Queue& q, const Problem& p, int runs, Row& row) {
  const std::size_t M = p.size, N = p.size, K = p.size;
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
  row.timing = time_runs(q, runs, enqueue);
}

// --- heat_step (one step), heat (many): a side x side grid, fixed boundary ---------------------------

double heat_work(const Problem& p) {
  return 2.0 * double(p.size) * double(p.size) * sizeof(float) * p.steps;  // each step reads u, writes v
}
std::string heat_label(const Problem& p) {
  const std::string side = std::to_string(p.size);
  return side + "x" + side + (p.steps == 1 ? "" : ", " + std::to_string(p.steps) + " steps");
}
// Each step is a handful of float operations on values in [0, 1], and the scheme is stable for
// r <= 1/4, so rounding errors add up at most linearly in the number of steps.
double heat_tolerance(const Problem& p) { return 16.0 * kFloatEps * p.steps; }

void heat_run(const Device& device, Queue& q, const Problem& p, int runs, bool single, Row& row) {
  const std::size_t side = p.size, cells = side * side;
  const int steps = single ? 1 : p.steps;
  const auto initial = random_floats(cells, 0.0f, 1.0f, 5);
  Buffer<float> u(device, cells), v(device, cells);
  q.write(u, initial);
  q.fill(v, 0.0f);
  // heat() leaves the result in u (swapping handles); heat_step() writes v and leaves u as it was,
  // so the timed runs of heat_step repeat the same step.
  auto enqueue = [&] {
    single ? heat_step(q, u, v, side, side, kHeatR) : heat(q, u, v, side, side, kHeatR, steps);
  };

  enqueue();
  const auto got = q.to_vector(single ? v : u);
  row.error = reference::max_abs_error(got, reference::heat_reference(initial, side, side, kHeatR, steps));
  row.timing = time_runs(q, runs, enqueue);
}

void heat_step_run(const Device& device, Queue& q, const Problem& p, int runs, Row& row) {
  heat_run(device, q, p, runs, true, row);
}

void heat_steps_run(const Device& device, Queue& q, const Problem& p, int runs, Row& row) {
  heat_run(device, q, p, runs, false, row);
}

constexpr const char* kAbsolute = "absolute";

}  // namespace

Scale scale_for(const DeviceInfo& info, bool quick) {
  if (quick) return Scale::quick;
  return info.kind == DeviceKind::cpu ? Scale::cpu : Scale::gpu;
}

const char* to_string(Scale scale) {
  switch (scale) {
    case Scale::quick: return "quick sizes";
    case Scale::cpu: return "CPU sizes";
    case Scale::gpu: return "GPU sizes";
  }
  return "?";
}

int default_runs(Scale scale) {
  switch (scale) {
    case Scale::quick: return 3;
    case Scale::cpu: return 5;
    case Scale::gpu: return 10;
  }
  return 1;
}

double Row::rate() const {
  if (timing.median_ms <= 0.0) return 0.0;
  return work / (timing.median_ms * 1e-3) * 1e-9;
}

const Problem& Kernel::problem(Scale scale) const {
  switch (scale) {
    case Scale::quick: return quick;
    case Scale::cpu: return cpu;
    case Scale::gpu: break;
  }
  return gpu;
}

const std::vector<Kernel>& kernels() {
  // Sizes: quick, CPU, GPU. Many heat steps per run take long: half the timed runs.
  static const std::vector<Kernel> table = {
      {"vector_add", "vector_add", "c = a + b over float32 vectors (duet::vector_add)", kAbsolute,
       {std::size_t{1} << 20}, {std::size_t{1} << 22}, {std::size_t{1} << 24},
       false, 1, elementwise_work, add_tolerance, elementwise_label, vector_add_run},
      {"multiply", "multiply", "c = a * b over float32 vectors (duet::multiply)", kAbsolute,
       {std::size_t{1} << 20}, {std::size_t{1} << 22}, {std::size_t{1} << 24},
       false, 1, elementwise_work, multiply_tolerance, elementwise_label, multiply_run},
      {"matmul", "matmul", "C = A B, float32, row-major, M = N = K (duet::matmul, duet::blas)",
       "relative to sum |a_ik b_kj| per entry", {256}, {512}, {2048},
       true, 1, matmul_work, matmul_tolerance, matmul_label, matmul_run},
      {"heat_step", "heat", "one explicit 2-D heat step, fixed boundary (duet::heat_step, duet::stencil)",
       kAbsolute, {512}, {1024}, {4096},
       false, 1, heat_work, heat_tolerance, heat_label, heat_step_run},
      {"heat", "heat", "many heat steps, ping-ponging two grids (duet::heat, duet::stencil)", kAbsolute,
       {512, 20}, {1024, 100}, {4096, 100},
       false, 2, heat_work, heat_tolerance, heat_label, heat_steps_run},
  };
  return table;
}

const Kernel* find(const std::string& name) {
  for (const Kernel& k : kernels())
    if (name == k.name) return &k;
  return nullptr;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const Kernel& k : kernels()) out.emplace_back(k.name);
  return out;
}

void run_case(const Kernel& kernel, const Device& device, Queue& queue, const Problem& problem, int runs,
              Row& row) {
  row = Row();
  row.kernel = kernel.name;
  row.size = kernel.label(problem);
  row.work = kernel.work(problem);
  row.flops = kernel.flops;
  row.tolerance = kernel.tolerance(problem);
  kernel.run(device, queue, problem, std::max(runs, 1), row);
}

void run_case(const Kernel& kernel, const Device& device, Queue& queue, Scale scale, int runs, Row& row) {
  const int base = runs > 0 ? runs : default_runs(scale);
  run_case(kernel, device, queue, kernel.problem(scale), std::max(1, base / kernel.runs_divisor), row);
}

std::string error_note() {
  std::string note = "max error: absolute";
  bool first = true;
  for (const Kernel& k : kernels()) {
    if (std::string(k.error_kind) == kAbsolute) continue;
    note += std::string(first ? ", except " : "; ") + k.name + ": " + k.error_kind;
    first = false;
  }
  return note;
}

}  // namespace duet::builtins
