// The matmul parameter table: the rules a parameter set must meet to compile and launch, the
// built-in entries (written in the tuning-file syntax, so `duet tune` output can be pasted here),
// and the choice for a device: the tuning file's entry when it has one that applies, else the
// table's most specific one.
#include <algorithm>
#include <iostream>
#include <mutex>
#include <sstream>

#include "duet/error.hpp"
#include "duet/tuning.hpp"

namespace duet {
namespace {

// Most specific first. The H100 entries come from `duet tune --quick` and A/B runs on that GPU
// against cuBLAS SGEMM in the same call (scripts/gpu-matmul-ab.sh; the figures are in
// bench/RESULTS.md). BK=16 halves the barriers per multiply-add; it fits the 48 KiB of static
// shared memory only because the A slice is swizzled rather than padded. Each compiler prefers its
// own loop: the pipelined one through NVRTC, the plain one on NVIDIA's OpenCL, so the arch=sm_90
// entries, measured through NVRTC, are CUDA's. The other entries are conservative: they fit every
// GPU's 256-work-item groups and 16 KiB of local memory, and the CPU one suits PoCL, which runs a
// work-group's work-items as vectorised loops between barriers.
//
// The max_mn entries are for a C of up to 2^21 elements (1448^2), where 128 x 256 tiles number at
// most 64 for 132 SMs and leave half the GPU idle; 64 x 128 tiles fill it. From 2048^3 (128 large
// tiles) the large tiles are faster again. The max_mn=4096 entries (64 x 64 tiles; not yet
// measured against the others) are for C of one 64 x 64 tile or less: batches of small matrices
// (gemm_strided_batched), which 64 x 128 tiles would leave half empty. The max_mn=16384 entries
// (128 x 128 tiles of 8 x 8, one group of 256 work-items a unit) are for C of one 128 x 128 tile or
// less: one group a unit reads each slice once, where two groups of 64 x 128 tiles read it twice.
// The CPU's max_mn=1024 entry is for C of 32 x 32 or less, which larger tiles leave mostly empty.
// The CPU's 64 x 64 tiles are 8 x 8 per work-item over slices of 32 k (CLBlast's fast path on
// CPUs): more arithmetic per value read. The figures behind each entry are in bench/RESULTS.md.
const char* const kBuiltin[] = {
    "matmul device=\"NVIDIA H100 80GB HBM3\" backend=cuda BM=128 BN=256 BK=16 TM=8 TN=16 WX=8 PIPELINE=1",
    "matmul device=\"NVIDIA H100 80GB HBM3\" backend=opencl BM=128 BN=256 BK=16 TM=16 TN=8 WX=16 PIPELINE=0",
    "matmul device=\"NVIDIA H100 80GB HBM3\" backend=cuda max_mn=2097152 BM=64 BN=128 BK=16 TM=8 TN=8 WX=16 "
    "PIPELINE=1",
    "matmul device=\"NVIDIA H100 80GB HBM3\" backend=opencl max_mn=2097152 BM=64 BN=128 BK=16 TM=8 TN=8 "
    "WX=16 PIPELINE=1",
    "matmul device=\"NVIDIA H100 80GB HBM3\" backend=cuda max_mn=16384 BM=128 BN=128 BK=16 TM=8 TN=8 WX=8 "
    "PIPELINE=1",
    "matmul device=\"NVIDIA H100 80GB HBM3\" backend=opencl max_mn=16384 BM=128 BN=128 BK=16 TM=8 TN=8 WX=8 "
    "PIPELINE=1",
    "matmul device=\"NVIDIA H100 80GB HBM3\" backend=cuda max_mn=4096 BM=64 BN=64 BK=16 TM=4 TN=8 WX=8 "
    "PIPELINE=1",
    "matmul device=\"NVIDIA H100 80GB HBM3\" backend=opencl max_mn=4096 BM=64 BN=64 BK=16 TM=4 TN=8 WX=8 "
    "PIPELINE=1",
    "matmul arch=sm_90 backend=cuda BM=128 BN=256 BK=16 TM=8 TN=16 WX=8 PIPELINE=1",
    "matmul arch=sm_90 backend=cuda max_mn=2097152 BM=64 BN=128 BK=16 TM=8 TN=8 WX=16 PIPELINE=1",
    "matmul arch=sm_90 backend=cuda max_mn=16384 BM=128 BN=128 BK=16 TM=8 TN=8 WX=8 PIPELINE=1",
    "matmul arch=sm_90 backend=cuda max_mn=4096 BM=64 BN=64 BK=16 TM=4 TN=8 WX=8 PIPELINE=1",
    "matmul vendor=NVIDIA kind=gpu BM=128 BN=128 BK=8 TM=8 TN=8 WX=8 PIPELINE=1",
    "matmul kind=gpu BM=64 BN=64 BK=8 TM=4 TN=4 WX=8 PIPELINE=1",
    "matmul kind=cpu BM=64 BN=64 BK=32 TM=8 TN=8 WX=8 PIPELINE=0",
    "matmul kind=cpu max_mn=1024 BM=32 BN=32 BK=16 TM=4 TN=8 WX=4 PIPELINE=0",
    "matmul BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0",
};

bool divides(int d, int n) { return d > 0 && n % d == 0; }

}  // namespace

std::size_t GemmTile::shared_bytes() const {
  if (bm <= 0 || bn <= 0 || bk <= 0) return 0;
  // Two buffers of the transposed A slice and of the B slice. A's rows are BM/4 float4s, plus one
  // of padding where they are not swizzled (see A_SWIZZLE in blas/kernels/matmul.duet).
  const std::size_t a_row = static_cast<std::size_t>(bm) / 4 + (swizzles_a() ? 0 : 1);
  return 2 * static_cast<std::size_t>(bk) * (a_row + static_cast<std::size_t>(bn) / 4) * 16;
}

std::string to_string(const GemmTile& p) {
  std::ostringstream s;
  s << "BM=" << p.bm << " BN=" << p.bn << " BK=" << p.bk << " TM=" << p.tm << " TN=" << p.tn << " WX=" << p.wx
    << " PIPELINE=" << p.pipeline;
  if (p.group_rows != 8) s << " GROUP_ROWS=" << p.group_rows;
  return s.str();
}

std::string gemm_tile_problem(const GemmTile& p, const DeviceInfo& device) {
  std::ostringstream s;
  if (p.bm < 4 || p.bn < 4 || p.bk < 4 || p.tm < 4 || p.tn < 4 || p.bm > 1024 || p.bn > 1024 || p.bk > 256)
    s << "BM, BN in [4, 1024], BK in [4, 256] and TM, TN >= 4 are needed";
  else if (p.pipeline != 0 && p.pipeline != 1)
    s << "PIPELINE must be 0 or 1";
  else if (p.group_rows < 1 || p.group_rows > 64)
    s << "GROUP_ROWS must be in [1, 64]";
  else if (p.tm % 4 || p.tn % 4 || p.bk % 4)
    s << "TM, TN and BK must be multiples of 4 (the kernel moves float4s)";
  else if (p.bm % p.tm || p.bn % p.tn)
    s << "BM must be a multiple of TM and BN of TN";
  else if (p.threads() % 32)
    s << "(BM/TM) * (BN/TN) = " << p.threads() << " work-items is not a multiple of 32";
  else if (!divides(p.wx, 32) || (p.bn / p.tn) % p.wx || (p.bm / p.tm) % (32 / p.wx))
    s << "WX must divide 32 and BN/TN, and 32/WX must divide BM/TM";
  else if (device.max_group_size > 0 && static_cast<std::size_t>(p.threads()) > device.max_group_size)
    s << p.threads() << " work-items per group, but " << device.name << " allows " << device.max_group_size;
  else if (device.local_memory_bytes > 0 && p.shared_bytes() > device.local_memory_bytes)
    s << p.shared_bytes() << " bytes of shared memory, but " << device.name << " has "
      << device.local_memory_bytes;
  if (s.tellp() > 0) return to_string(p) + ": " + s.str();
  return {};
}

namespace tuning {

const std::vector<TuningEntry>& builtin_entries() {
  static const std::vector<TuningEntry> entries = [] {
    std::vector<TuningEntry> out;
    for (const char* line : kBuiltin) {
      std::optional<TuningEntry> e = parse_entry(line);  // tests/test_gemm_tiles.cpp parses each
      if (e) {
        e->origin = "built-in";
        out.push_back(*e);
      }
    }
    return out;
  }();
  return entries;
}

}  // namespace tuning

namespace {

// The tuning file's entries (none without a file); its problems become warnings in `warnings`.
std::vector<TuningEntry> file_entries(std::vector<std::string>& warnings) {
  const std::string path = tuning::tuning_file_path();
  return path.empty() ? std::vector<TuningEntry>{} : tuning::read_file(path, warnings);
}

// The choice for a product with `mn` elements in C (0: no particular size) among the file's
// entries, then the table's. File entries for the device that would have won but that it cannot
// run are worth a warning.
GemmTileChoice choose(const std::vector<TuningEntry>& file, const DeviceInfo& device, std::size_t mn,
                    std::vector<std::string>& warnings) {
  const TuningEntry* best = tuning::best_entry(file, device, mn);
  for (const TuningEntry& e : file) {
    if (!e.selector.matches(device) || !e.selector.covers(mn) ||
        (best && e.selector.specificity() < best->selector.specificity()))
      continue;
    const std::string problem = gemm_tile_problem(e.params, device);
    if (!problem.empty())
      warnings.push_back(e.origin + ": not usable on " + device.name + ": " + problem + "; entry ignored");
  }
  if (best) return {best->params, best->origin};
  if (const TuningEntry* built_in = tuning::best_entry(tuning::builtin_entries(), device, mn))
    return {built_in->params, "built-in entry: " + tuning::format_entry(*built_in)};
  // Only a device that cannot run even the default (fewer than 32 work-items per group, or
  // almost no local memory) gets here; the launch then reports the problem.
  return {GemmTile{}, "default"};
}

void report(std::vector<std::string> warnings) {
  std::sort(warnings.begin(), warnings.end());
  warnings.erase(std::unique(warnings.begin(), warnings.end()), warnings.end());
  for (const std::string& w : warnings) std::cerr << "duet: warning: " << w << "\n";
}

}  // namespace

GemmTileChoice gemm_tile_choice(const DeviceInfo& device) { return gemm_tile_choice(device, 0, 0); }

GemmTileChoice gemm_tile_choice(const DeviceInfo& device, std::size_t M, std::size_t N) {
  std::vector<std::string> warnings;
  const std::vector<TuningEntry> file = file_entries(warnings);
  GemmTileChoice choice = choose(file, device, M * N, warnings);
  report(std::move(warnings));
  return choice;
}

std::vector<GemmSizeClass> gemm_size_classes(const DeviceInfo& device) {
  std::vector<std::string> warnings;
  const std::vector<TuningEntry> file = file_entries(warnings);
  // The choice can only change at the max_mn of an entry that matches the device.
  std::vector<std::size_t> limits;
  for (const auto* entries : {&tuning::builtin_entries(), &file})
    for (const TuningEntry& e : *entries)
      if (e.selector.max_mn != 0 && e.selector.matches(device)) limits.push_back(e.selector.max_mn);
  std::sort(limits.begin(), limits.end());
  limits.erase(std::unique(limits.begin(), limits.end()), limits.end());
  std::vector<GemmSizeClass> classes;
  for (std::size_t limit : limits) classes.push_back({limit, choose(file, device, limit, warnings)});
  classes.push_back({0, choose(file, device, 0, warnings)});
  report(std::move(warnings));
  return classes;
}

}  // namespace duet
