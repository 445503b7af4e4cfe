// Size plans and the few device facts duet cannot query.
#include "plan.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace duet::bench {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

bool contains(std::string haystack, std::string needle) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return lower(std::move(haystack)).find(lower(std::move(needle))) != std::string::npos;
}

}  // namespace

double cache_bytes_for(const DeviceInfo& info) {
  if (info.kind != DeviceKind::gpu) return 32 * kMiB;
  if (contains(info.name, "H100")) return 50e6;
  if (contains(info.name, "H200")) return 60e6;
  if (contains(info.name, "A100")) return 40e6;
  return 64 * kMiB;
}

double fp32_peak_gflops_for(const DeviceInfo& info) {
  // SMs x 128 FP32 lanes x 2 flops x boost clock.
  if (contains(info.name, "H100") && contains(info.name, "PCIe")) return 114 * 128 * 2 * 1.755;
  if (contains(info.name, "H100") || contains(info.name, "H200")) return 132 * 128 * 2 * 1.98;
  if (contains(info.name, "A100")) return 108 * 64 * 2 * 1.41;
  return NAN;
}

Plan plan_for(const DeviceInfo& info, bool smoke, int runs, double cache_mib) {
  Plan p;
  p.cache_bytes = cache_mib > 0 ? cache_mib * kMiB : cache_bytes_for(info);
  const auto pow2 = [](int bits) { return std::size_t{1} << bits; };
  if (smoke) {
    // Seconds on a two-core CI machine through PoCL, compiles included; two sets still rotate.
    p.mode = "smoke";
    p.copy_n = pow2(20);
    p.vector_n = {pow2(16), pow2(20)};
    p.matmul = {64, 128};
    p.heat_step = {256};
    p.heat_side = 256;
    p.sort_n = p.argsort_n = p.unique_n = p.nonzero_n = pow2(16);
    p.heat_steps = 8;
    p.launches = 100;
    p.launch_reps = 3;
    p.runs = 3;
    p.rotation_bytes = 0.0;
    p.min_sets = 2;
    p.matmul_full_check = 1 << 24;
    p.matmul_samples = 200;
  } else if (info.kind == DeviceKind::gpu) {
    p.mode = "gpu";
    p.copy_n = pow2(28);  // 1 GiB, 20x the H100's L2
    p.vector_n = {pow2(20), pow2(24), pow2(26), pow2(28)};
    p.matmul = {1024, 2048, 4096, 8192};
    p.heat_step = {4096, 8192};
    p.heat_side = 8192;
    // The sizes CuPy's figures are quoted at.
    p.sort_n = pow2(28);
    p.argsort_n = p.unique_n = p.nonzero_n = pow2(26);
    p.heat_steps = 64;
    p.launches = 1000;
    p.launch_reps = 7;
    p.runs = 30;
    p.rotation_bytes = 2.0 * p.cache_bytes;
    p.min_sets = 1;
    p.matmul_full_check = 1 << 24;
    p.matmul_samples = 1000;
  } else {
    p.mode = "cpu";
    p.copy_n = pow2(25);  // 128 MiB, 4x a 32 MiB L3
    p.vector_n = {pow2(20), pow2(22), pow2(24)};
    p.matmul = {256, 512, 1024};
    p.heat_step = {1024, 2048};
    p.heat_side = 2048;
    p.sort_n = pow2(22);
    p.argsort_n = p.unique_n = pow2(20);
    p.nonzero_n = pow2(22);
    p.heat_steps = 16;
    p.launches = 1000;
    p.launch_reps = 5;
    p.runs = 7;
    p.rotation_bytes = 2.0 * p.cache_bytes;
    p.min_sets = 1;
    p.matmul_full_check = 1 << 24;
    p.matmul_samples = 500;
  }
  // The copy ceiling must not fit in the cache either: at least 4x it, in each buffer.
  while (!smoke && p.copy_n * sizeof(float) < 4.0 * p.cache_bytes) p.copy_n *= 2;
  if (runs > 0) p.runs = runs;
  p.heat_runs = std::max(smoke ? 2 : 3, p.runs / 3);
  return p;
}

}  // namespace duet::bench
