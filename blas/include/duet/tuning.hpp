// Tuned kernel parameters. duet::matmul takes its tile sizes from a table of entries per device
// (blas/src/gemm_tiles.cpp): an entry for the device's name, else for its architecture, else for its
// vendor and kind, else for its kind, else the default, so the kernel always compiles with some parameters on
// unknown hardware. A tuning file can override the table: the file named by DUET_TUNING_FILE (set but empty:
// no file), else $XDG_CONFIG_HOME/duet/tuning.txt, else ~/.config/duet/tuning.txt. `duet tune` searches the
// parameters on a device and prints (or saves) the entry for it.
//
// Both the built-in table and the file hold one entry per line:
//
//   matmul device="NVIDIA H100 80GB HBM3" backend=cuda BM=128 BN=256 BK=16 TM=8 TN=16 WX=8 PIPELINE=1
//
// `matmul`, then selector keys saying which devices the entry is for (all must match; none: every
// device), then the parameters (the seven above; GROUP_ROWS=n may follow, 8 when left out). Selectors: device
// (the whole device name), arch ("sm_90"), vendor (part of the vendor name), kind (gpu, cpu, other), backend
// (cuda, opencl); a value with spaces is written in double quotes. '#' starts a comment; blank lines are
// ignored.
//
// One more selector picks by size: max_mn=1048576 makes the entry apply only to products whose C
// has at most that many elements (M * N). Large tiles leave most of a big GPU idle on a small C
// (a 1024 x 1024 C is 32 tiles of 128 x 256 for 132 SMs), so a device can have a second entry
// with smaller tiles for those (`duet tune --size 1024 --max-mn 2097152` searches one). Among the entries
// that match a device, the one with the most specific device selector wins; between those equally specific,
// one with max_mn that covers the product beats one without, and the smallest such max_mn wins.
//
// Everything here is thread-safe. The file is read by gemm_tile_choice() each time it is called;
// duet::matmul calls it once per device and keeps the answer, so a program sees the file as it was
// when it first multiplied on that device.
#pragma once

#include "duet/export.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/queue.hpp"

namespace duet {

// The tiles of every GEMM kernel (blas/kernels/matmul.duet, gemm.duet, gemm_cpu.duet; the tuning
// table holds one set per device and size class): a work-group computes a BM x BN tile of C
// walking K in slices of BK; each of its (BM/TM) * (BN/TN) work-items computes TM x TN outputs; WX
// of every 32 consecutive work-items lie along N. PIPELINE 1 overlaps each slice's barrier with
// arithmetic (GPUs); 0 is plain double buffering (NVIDIA's OpenCL, and gemm.duet's half on CPUs,
// where fewer values then live across barriers). GROUP_ROWS: work-groups are numbered down bands
// of that many tile rows, so that the groups running at once share slices of A and B in the cache
// (8 unless an entry says otherwise). CPUs' float and double kernel, gemm_cpu.duet, reads neither
// WX nor PIPELINE.
struct DUET_API GemmTile {
  int bm = 32, bn = 32, bk = 8, tm = 4, tn = 4, wx = 8, pipeline = 0, group_rows = 8;

  int threads() const { return (bm / tm) * (bn / tn); }
  // Whether the kernel's A slice is XOR-swizzled (rows of whole multiples of 8 float4s) instead of
  // padded by one float4 per row; the one home of that rule, handed to the kernel as A_SWIZZLE.
  bool swizzles_a() const { return bm % 32 == 0 && tm > 0 && (bm / tm) % 8 == 0; }
  // Bytes of shared (local) memory the kernel declares with these parameters.
  std::size_t shared_bytes() const;
  bool operator==(const GemmTile& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && tm == o.tm && tn == o.tn && wx == o.wx &&
           pipeline == o.pipeline && group_rows == o.group_rows;
  }
  bool operator!=(const GemmTile& o) const { return !(*this == o); }
};

// "BM=128 BN=128 BK=8 TM=8 TN=8 WX=8 PIPELINE=1", and " GROUP_ROWS=n" where it is not 8.
DUET_API std::string to_string(const GemmTile& p);

// Empty when the kernel compiles and launches with `p` on `device`; otherwise the rule `p` breaks
// (tile shapes, work-group size, shared memory).
DUET_API std::string gemm_tile_problem(const GemmTile& p, const DeviceInfo& device);

// The parameters duet::matmul uses on `device`, and where they came from ("built-in entry
// arch=sm_90", "/home/me/.config/duet/tuning.txt:3"). Entries the device cannot run are passed over.
struct DUET_API GemmTileChoice {
  GemmTile params;
  std::string source;
};
DUET_API GemmTileChoice gemm_tile_choice(const DeviceInfo& device);
// The same for one product size: entries with max_mn >= M * N join in (see the top of the file).
DUET_API GemmTileChoice gemm_tile_choice(const DeviceInfo& device, std::size_t M, std::size_t N);
inline GemmTile gemm_tile(const DeviceInfo& device) { return gemm_tile_choice(device).params; }

// Every size class of `device` at once, with one reading of the tuning file: the choice for C of
// at most max_mn elements, ascending, for each max_mn among the entries that match the device;
// last, max_mn = 0 and the choice for any other size. duet::matmul keeps this per device.
struct DUET_API GemmSizeClass {
  std::size_t max_mn;
  GemmTileChoice choice;
};
DUET_API std::vector<GemmSizeClass> gemm_size_classes(const DeviceInfo& device);

// duet::matmul with explicit parameters (for `duet tune` and tests): the same checks and kernel
// (on devices of kind cpu gemm_cpu.duet, through gemm with GemmPath::tiled and `p`), asynchronous
// like every launch. ArgumentError when gemm_tile_problem(p, device) is not empty.
DUET_API void matmul_with(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C,
                          std::size_t M, std::size_t N, std::size_t K, const GemmTile& p);

// The defines the matmul kernel (blas/kernels/matmul.duet) is compiled with for `p`, N and K (which
// decide its float4 accesses): what matmul_with and duet::matmul compile where their plan runs
// GemmKernel::matmul (uses_cpu_form() false, duet/gemm_plan.hpp), for offline compiles.
DUET_API Defines matmul_defines(const GemmTile& p, std::size_t N, std::size_t K);
// The tile defines of `p` that matmul and gemm kernels share: BM, BN, BK, TM, TN, WX, PIPELINE,
// GROUP_ROWS and A_SWIZZLE (the layout of the A slice in shared memory, which shared_bytes() counts).
DUET_API Defines gemm_tile_defines(const GemmTile& p);

// Compiles (or finds in the cache) the kernel matmul_with would launch for these N and K (which
// decide matmul.duet's vector loads), without launching it: lets a caller compile several in
// parallel.
DUET_API void matmul_prepare(const Device& device, const GemmTile& p, std::size_t N, std::size_t K);

// The former names of gemm_tile_problem, gemm_tile_choice, gemm_tile, gemm_size_classes and
// gemm_tile_defines, kept for one release.
[[deprecated("use duet::gemm_tile_problem")]] inline std::string matmul_params_problem(
    const GemmTile& p, const DeviceInfo& device) {
  return gemm_tile_problem(p, device);
}
[[deprecated("use duet::gemm_tile_choice")]] inline GemmTileChoice matmul_choice(const DeviceInfo& device) {
  return gemm_tile_choice(device);
}
[[deprecated("use duet::gemm_tile")]] inline GemmTile matmul_params(const DeviceInfo& device) {
  return gemm_tile(device);
}
[[deprecated("use duet::gemm_size_classes")]] inline std::vector<GemmSizeClass> matmul_size_classes(
    const DeviceInfo& device) {
  return gemm_size_classes(device);
}
[[deprecated("use duet::gemm_tile_defines")]] inline Defines matmul_tile_defines(const GemmTile& p) {
  return gemm_tile_defines(p);
}

// Which devices an entry of the tuning table or file is for; an empty field matches every device.
struct DUET_API TuningSelector {
  std::string device;      // the whole name, case-insensitive
  std::string arch;        // case-insensitive
  std::string vendor;      // part of the vendor name, case-insensitive
  std::string kind;        // "gpu", "cpu" or "other"
  std::string backend;     // "cuda" or "opencl"
  std::size_t max_mn = 0;  // the largest M * N the entry is for; 0: every size

  bool matches(const DeviceInfo& device) const;
  // Whether a product whose C has `mn` elements may use the entry; mn = 0: no particular size,
  // which only entries without max_mn serve.
  bool covers(std::size_t mn) const { return max_mn == 0 ? true : mn != 0 && mn <= max_mn; }
  // Device name 4, architecture 3, vendor 2, kind 1, nothing 0; a backend adds a half.
  double specificity() const;
  bool operator==(const TuningSelector& o) const {
    return device == o.device && arch == o.arch && vendor == o.vendor && kind == o.kind &&
           backend == o.backend && max_mn == o.max_mn;
  }
};

// One entry of the tuning table or file: which devices, which tiles.
struct DUET_API TuningEntry {
  TuningSelector selector;
  GemmTile params;
  std::string origin;  // "built-in" or "<file>:<line>"
};

namespace tuning {

// One line of the format above. nullopt for blank and comment lines; throws ConfigError for a
// malformed one, saying what is wrong with it.
DUET_API std::optional<TuningEntry> parse_entry(const std::string& line);
// The line for `entry` (without a newline), which parse_entry reads back as the same entry. Throws
// ConfigError for a selector value holding a double quote or a line break, which the format cannot hold.
DUET_API std::string format_entry(const TuningEntry& entry);

// The entries of a tuning file's text. Malformed lines are left out, each with a warning
// "<name>:<line>: ..." in `warnings`.
DUET_API std::vector<TuningEntry> parse_file_text(const std::string& text, const std::string& name,
                                   std::vector<std::string>& warnings);

// DUET_TUNING_FILE, else $XDG_CONFIG_HOME/duet/tuning.txt, else $HOME/.config/duet/tuning.txt;
// empty when DUET_TUNING_FILE is set but empty, or when none of the variables is set.
DUET_API std::string tuning_file_path();
// The entries of the file at `path`: none when it does not exist. A file that cannot be read and
// malformed lines give warnings, never errors.
DUET_API std::vector<TuningEntry> read_file(const std::string& path, std::vector<std::string>& warnings);

// The built-in table, most specific entries first.
DUET_API const std::vector<TuningEntry>& builtin_entries();

// The entry that applies to `device` among `entries`: the most specific that matches and whose
// parameters the device can run (the later of equally specific ones); nullptr when none does.
DUET_API const TuningEntry* best_entry(const std::vector<TuningEntry>& entries, const DeviceInfo& device);
// The same among the entries that cover a product with `mn` elements in C (TuningSelector::covers).
DUET_API const TuningEntry* best_entry(const std::vector<TuningEntry>& entries, const DeviceInfo& device,
                              std::size_t mn);

// An entry for exactly this device (its name and backend).
DUET_API TuningEntry entry_for_device(const DeviceInfo& device, const GemmTile& params);

// Writes `entry` into the file at `path`, replacing the lines with the same selector and keeping
// every other line; creates the file and its directory when missing. The file is replaced
// atomically. Throws ConfigError when it cannot be written.
DUET_API void save_entry(const std::string& path, const TuningEntry& entry);

}  // namespace tuning
}  // namespace duet
