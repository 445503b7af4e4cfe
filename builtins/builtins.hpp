// The built-in kernels as one table: for each, its name, the embedded source it compiles from, what
// it computes, the sizes `duet run` gives it, its work model and tolerance, and its case, which runs
// it on a device, checks it against its double-precision CPU reference (reference/) and times it.
// `duet run`, `python -m duet run` (through the module's binding), `duet bench` and the tests all
// read this table, so a kernel added here appears in each of them with the same sizes, limits and
// reference. docs/testing.md says what else adding one takes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "case_timing.hpp"
#include "duet/duet.hpp"

namespace duet::builtins {

// Unit roundoff of float: every float operation is exact to within this relative error.
constexpr double kFloatEps = 1.0 / (1 << 24);
// The diffusion number of the heat cases (stable for r <= 1/4).
constexpr float kHeatR = 0.24f;

// The size of one case: `size` is the element count (vector_add, multiply), M = N = K (matmul) or
// the grid's side (heat_step, heat); `steps` counts heat steps (1 for every other kernel).
struct Problem {
  std::size_t size = 0;
  int steps = 1;
};

// The sizes `duet run` chooses: quick (a smoke test), CPU or GPU.
enum class Scale { quick, cpu, gpu };
// quick when asked for, else by the device's kind (anything but a CPU gets GPU sizes).
Scale scale_for(const DeviceInfo& info, bool quick);
// "quick sizes", "CPU sizes", "GPU sizes".
const char* to_string(Scale scale);
// Timed runs per case when the command line gives none: 3, 5, 10.
int default_runs(Scale scale);

// One case's figures.
struct Row {
  std::string kernel;
  std::string size;  // the size column: "n=2^20", "256x256x256", "512x512, 20 steps"
  Timing timing;
  double work = 0.0;  // bytes moved, or floating-point operations when `flops`
  bool flops = false;
  double error = 0.0;      // see Kernel::error_kind
  double tolerance = 0.0;  // the error the case allows
  std::string failure;     // the exception's message when the case threw

  bool ok() const { return failure.empty() && error <= tolerance; }  // NaN error fails
  // Work per second in units of 1e9 (GB/s or GFLOP/s); 0 without a time.
  double rate() const;
  // "GB/s" or "GFLOP/s".
  const char* unit() const { return flops ? "GFLOP/s" : "GB/s"; }
};

struct Kernel {
  const char* name;      // as `duet run` and `duet bench --kernels` name it
  const char* source;    // the embedded dialect source it compiles from (builtin_kernel_source)
  const char* what;      // what it computes and through which call, one line
  const char* error_kind;  // how `error` is measured: "absolute", or what it is relative to
  Problem quick, cpu, gpu;  // the sizes of each Scale
  bool flops;            // work counted in floating-point operations, else in bytes moved
  int runs_divisor;      // timed runs are the scale's runs divided by this (at least 1)
  double (*work)(const Problem&);
  double (*tolerance)(const Problem&);
  std::string (*label)(const Problem&);  // the size column
  // Sets up on the device, runs once (the warm-up, which also compiles), sets row.error from the
  // CPU reference, then times `runs` runs. May add to row.size (a sampled check says so).
  void (*run)(const Device& device, Queue& queue, const Problem& problem, int runs, Row& row);

  const Problem& problem(Scale scale) const;
};

// Every built-in kernel, in the order `duet run` runs them.
const std::vector<Kernel>& kernels();
// The kernel named `name`; nullptr if there is none.
const Kernel* find(const std::string& name);
// The names of kernels(), in its order.
std::vector<std::string> names();

// Runs `kernel` on `problem` with `runs` timed runs into `row`: its name, size, work and tolerance
// first, then the error and timing. Throws what the kernel throws, leaving `row` named and sized (a
// caller that goes on should use a fresh queue: the failed one may hold work).
void run_case(const Kernel& kernel, const Device& device, Queue& queue, const Problem& problem, int runs,
              Row& row);
// The same at `scale`; runs 0 means default_runs(scale); the kernel's runs_divisor applies.
void run_case(const Kernel& kernel, const Device& device, Queue& queue, Scale scale, int runs, Row& row);

// The line under `duet run`'s table that says how each kernel's error is measured.
std::string error_note();

// "n=2^24" for a power of two, "n=1000" otherwise: the size label of element counts, in the table's
// rows and the benchmark's.
std::string count_label(std::size_t n);

}  // namespace duet::builtins
