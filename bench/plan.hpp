// What the benchmark runs on one device: the sizes of every kernel, the number of runs, and how
// much memory the rotated buffer sets must span so that no run reads data a previous run left in the
// cache. GPUs get GPU sizes, everything else CPU sizes; --smoke gives tiny sizes for CI.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "duet/device.hpp"

namespace duet::bench {

struct Plan {
  std::string mode;  // "gpu", "cpu" or "smoke"
  std::size_t copy_n = 0;  // floats in each buffer of the copy ceiling
  std::vector<std::size_t> vector_n;  // vector_add, multiply and the generated elementwise and reduction
  std::vector<std::size_t> matmul;     // M = N = K
  std::vector<std::size_t> heat_step;  // grid side
  std::size_t heat_side = 0;
  // sort (float32), argsort (float32), unique_values (int32), nonzero (float32): elements
  std::size_t sort_n = 0, argsort_n = 0, unique_n = 0, nonzero_n = 0;           // grid side of the many-steps run
  int heat_steps = 0;
  int launches = 0;     // back-to-back launches per launch-overhead batch
  int launch_reps = 0;  // batches; the median is reported
  int runs = 0;         // timed runs per kernel and size
  int heat_runs = 0;    // timed runs of the many-steps heat
  double cache_bytes = 0.0;     // last-level cache assumed (L2 on GPUs)
  double rotation_bytes = 0.0;  // the buffer sets of one case span at least this much
  int min_sets = 1;
  // Matmul checks every entry up to this many multiply-adds, and samples entries above it.
  double matmul_full_check = 0.0;
  std::size_t matmul_samples = 0;
};

// The plan for `info`. runs > 0 overrides the number of timed runs; cache_mib > 0 the cache size.
Plan plan_for(const DeviceInfo& info, bool smoke, int runs, double cache_mib);

// Last-level cache of a device: L2 of known GPUs from a table (H100 50 MB), 64 MiB for other GPUs,
// 32 MiB for CPUs (DeviceInfo does not report it).
double cache_bytes_for(const DeviceInfo& info);

// FP32 (non-tensor) peak in GFLOP/s of a few known GPUs, from their datasheets; NaN otherwise.
double fp32_peak_gflops_for(const DeviceInfo& info);

}  // namespace duet::bench
