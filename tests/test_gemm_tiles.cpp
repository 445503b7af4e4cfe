// The matmul parameter table and tuning file (duet/tuning.hpp): parsing and formatting entries,
// malformed lines, the fallback from device name to architecture, vendor, kind and default, the
// tuning file overriding the table, saving entries; and on every device, the matmul kernel with
// each distinct parameter set of the table, at sizes with every edge case, against a double
// reference with poisoned outputs.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::GemmTile;
using duet::TuningEntry;

GemmTile params(int bm, int bn, int bk, int tm, int tn, int wx, int pipeline = 0) {
  GemmTile p;
  p.bm = bm, p.bn = bn, p.bk = bk, p.tm = tm, p.tn = tn, p.wx = wx, p.pipeline = pipeline;
  return p;
}

duet::DeviceInfo fake_device(const std::string& backend, const std::string& name, const std::string& vendor,
                             const std::string& arch, duet::DeviceKind kind) {
  duet::DeviceInfo info;
  info.backend = backend;
  info.name = name;
  info.vendor = vendor;
  info.arch = arch;
  info.kind = kind;
  info.max_group_size = 1024;
  info.local_memory_bytes = 48 * 1024;
  return info;
}

// A scratch directory for tuning files, removed with its files at the end of the scope.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/duet-tuning-XXXXXX";
    const char* made = mkdtemp(tmpl);
    REQUIRE(made != nullptr);
    path_ = made;
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("tuning entries parse, format and read back") {
  const auto e = duet::tuning::parse_entry(
      "  matmul device=\"NVIDIA H100 80GB HBM3\" backend=cuda BM=128 BN=64 BK=16 TM=8 TN=4 WX=16 PIPELINE=1  "
      "# tuned");
  REQUIRE(e.has_value());
  CHECK(e->selector.device == "NVIDIA H100 80GB HBM3");
  CHECK(e->selector.backend == "cuda");
  CHECK(e->params == params(128, 64, 16, 8, 4, 16, 1));
  CHECK(duet::tuning::format_entry(*e) ==
        "matmul device=\"NVIDIA H100 80GB HBM3\" backend=cuda BM=128 BN=64 BK=16 TM=8 TN=4 WX=16 PIPELINE=1");
  const auto again = duet::tuning::parse_entry(duet::tuning::format_entry(*e));
  REQUIRE(again.has_value());
  CHECK(again->selector == e->selector);
  CHECK(again->params == e->params);

  // Blank and comment lines are no entry; no selector is an entry for every device.
  CHECK_FALSE(duet::tuning::parse_entry("").has_value());
  CHECK_FALSE(duet::tuning::parse_entry("   # a comment").has_value());
  const auto any = duet::tuning::parse_entry("matmul BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0");
  REQUIRE(any.has_value());
  CHECK(any->selector.specificity() == 0);
  CHECK(duet::tuning::format_entry(*any) == "matmul BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0");
  CHECK(duet::to_string(any->params) == "BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0");
  // GROUP_ROWS is optional (8); another value reads back and is written out.
  CHECK(any->params.group_rows == 8);
  const auto banded =
      duet::tuning::parse_entry("matmul BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0 GROUP_ROWS=4");
  REQUIRE(banded.has_value());
  CHECK(banded->params.group_rows == 4);
  CHECK(duet::to_string(banded->params) == "BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0 GROUP_ROWS=4");
  CHECK(banded->params != any->params);
}

TEST_CASE("malformed tuning entries are ConfigErrors that say what is wrong") {
  const char* bad[][2] = {
      {"matmull BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "matmul"},
      {"matmul BM=32 BN=32 BK=8 TM=4 TN=4", "missing WX"},
      {"matmul BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 XY=1", "unknown key"},
      {"matmul BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 BM=64", "twice"},
      {"matmul BM=3x BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "whole number"},
      {"matmul BM=-32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "whole number"},
      {"matmul BM=99999999999 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "whole number"},
      {"matmul BM BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "key=value"},
      {"matmul device=\"H100 BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "quote"},
      {"matmul kind=gpus BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "kind"},
      {"matmul backend=vulkan BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "backend"},
      {"matmul device= BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "empty"},
      {"matmul BM=32 BN=32 BK=8 TM=6 TN=4 WX=8 PIPELINE=0", "multiples of 4"},
      {"matmul BM=36 BN=32 BK=8 TM=8 TN=4 WX=8 PIPELINE=0", "multiple of TM"},
      {"matmul BM=16 BN=16 BK=8 TM=4 TN=4 WX=4 PIPELINE=0", "multiple of 32"},
      {"matmul BM=32 BN=32 BK=8 TM=4 TN=4 WX=3 PIPELINE=0", "WX"},
      {"matmul BM=32 BN=32 BK=6 TM=4 TN=4 WX=8 PIPELINE=0", "multiples of 4"},
      {"matmul BM=0 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "BM, BN"},
      {"matmul BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=2", "PIPELINE must be 0 or 1"},
      {"matmul BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0 GROUP_ROWS=0", "GROUP_ROWS must be in [1, 64]"},
      {"matmul max_mn=0 BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "max_mn=0 is not a positive"},
      {"matmul max_mn=1e6 BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "max_mn=1e6"},
      {"matmul max_mn=4 max_mn=8 BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0", "twice"},
  };
  for (const auto& line_why : bad) {
    const char *line = line_why[0], *why = line_why[1];  // not bindings: CAPTURE's lambda takes them
    CAPTURE(std::string(line));
    const auto e = EXPECT_ERROR(duet::ConfigError, duet::tuning::parse_entry(line));
    if (e) CHECK_CONTAINS(std::string(e->what()), why);
  }
}

TEST_CASE("a tuning file's malformed lines are skipped with warnings, the rest is used") {
  std::vector<std::string> warnings;
  const std::string text =
      "# duet tuning\n"
      "matmul kind=gpu BM=64 BN=64 BK=8 TM=4 TN=4 WX=8 PIPELINE=0\n"
      "this is not an entry\n"
      "\n"
      "matmul kind=cpu BM=64 BN=64 BK=16 TM=4 TN=8 WX=8 PIPELINE=0\n"
      "matmul BM=32 BN=32 BK=8 TM=4 TN=4\n";
  const std::vector<TuningEntry> entries = duet::tuning::parse_file_text(text, "t.txt", warnings);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].origin == "t.txt:2");
  CHECK(entries[1].origin == "t.txt:5");
  REQUIRE(warnings.size() == 2);
  CHECK_CONTAINS(warnings[0], "t.txt:3:");
  CHECK_CONTAINS(warnings[1], "t.txt:6:");

  // Binary garbage is only warnings, never an error.
  std::string garbage(300, '\0');
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 37 + 11);
  warnings.clear();
  CHECK_NOTHROW(duet::tuning::parse_file_text(garbage, "g.txt", warnings));
}

TEST_CASE("the built-in table parses and falls back from device to architecture, vendor, kind, default") {
  const std::vector<TuningEntry>& table = duet::tuning::builtin_entries();
  CHECK(table.size() >= 5);
  for (const TuningEntry& e : table) {
    INFO(duet::tuning::format_entry(e));
    CHECK(duet::gemm_tile_problem(e.params, duet::DeviceInfo{}).empty());
    // Every entry compiles and fits a common GPU: 256 work-items, 48 KiB of shared memory (the
    // CPU entry a CPU's 4096 and 64 KiB at least, which PoCL has).
    CHECK(e.params.threads() <= 256);
    CHECK(e.params.shared_bytes() <= 48 * 1024);
  }

  using duet::DeviceKind;
  auto source_of = [](const duet::DeviceInfo& info) {
    EnvGuard no_file("DUET_TUNING_FILE", "");
    return duet::gemm_tile_choice(info).source;
  };
  const auto h100 = fake_device("cuda", "NVIDIA H100 80GB HBM3", "NVIDIA", "sm_90", DeviceKind::gpu);
  CHECK_CONTAINS(source_of(h100), "device=\"NVIDIA H100 80GB HBM3\" backend=cuda");
  const auto h100_cl =
      fake_device("opencl", "NVIDIA H100 80GB HBM3", "NVIDIA Corporation", "sm_90", DeviceKind::gpu);
  CHECK_CONTAINS(source_of(h100_cl), "device=\"NVIDIA H100 80GB HBM3\" backend=opencl");
  const auto h200 = fake_device("cuda", "NVIDIA H200", "NVIDIA", "sm_90", DeviceKind::gpu);
  CHECK_CONTAINS(source_of(h200), "arch=sm_90");
  // The sm_90 entries were measured through NVRTC; NVIDIA's OpenCL keeps the vendor entry.
  const auto h200_cl = fake_device("opencl", "NVIDIA H200", "NVIDIA Corporation", "sm_90", DeviceKind::gpu);
  CHECK_CONTAINS(source_of(h200_cl), "vendor=NVIDIA kind=gpu");
  const auto a100 = fake_device("cuda", "NVIDIA A100-SXM4-40GB", "NVIDIA", "sm_80", DeviceKind::gpu);
  CHECK_CONTAINS(source_of(a100), "vendor=NVIDIA kind=gpu");
  const auto a100_cl = fake_device("opencl", "NVIDIA A100", "NVIDIA Corporation", "sm_80", DeviceKind::gpu);
  CHECK_CONTAINS(source_of(a100_cl), "vendor=NVIDIA kind=gpu");
  const auto amd =
      fake_device("opencl", "gfx1100", "Advanced Micro Devices, Inc.", "gfx1100", DeviceKind::gpu);
  CHECK_CONTAINS(source_of(amd), "matmul kind=gpu");
  const auto cpu = fake_device("opencl", "pthread-haswell", "GenuineIntel", "", DeviceKind::cpu);
  CHECK_CONTAINS(source_of(cpu), "matmul kind=cpu");
  const auto other = fake_device("opencl", "accelerator", "Someone", "", DeviceKind::other);
  CHECK_CONTAINS(source_of(other), "matmul BM=");

  // A device too small for the specific entries falls through to one it can run.
  auto tiny = h100;
  tiny.max_group_size = 64;
  tiny.local_memory_bytes = 8 * 1024;
  EnvGuard no_file("DUET_TUNING_FILE", "");
  const duet::GemmTile p = duet::gemm_tile(tiny);
  CHECK(duet::gemm_tile_problem(p, tiny).empty());
}

TEST_CASE("the tuning file overrides the table; a bad file is ignored with a warning") {
  TempDir dir;
  const std::string file = dir.path() + "/tuning.txt";
  const auto h100 = fake_device("cuda", "NVIDIA H100 80GB HBM3", "NVIDIA", "sm_90", duet::DeviceKind::gpu);
  EnvGuard env("DUET_TUNING_FILE", file.c_str());

  // No file: the table.
  CHECK_CONTAINS(duet::gemm_tile_choice(h100).source, "built-in");

  // A file entry for any GPU beats even the table's entry for this device name.
  write_text(file, "matmul kind=gpu BM=64 BN=128 BK=8 TM=8 TN=8 WX=16 PIPELINE=0\n");
  duet::GemmTileChoice c = duet::gemm_tile_choice(h100);
  CHECK(c.params == params(64, 128, 8, 8, 8, 16));
  CHECK(c.source == file + ":1");

  // Within the file the most specific entry wins, and a later one of equal rank.
  write_text(file,
             "matmul kind=gpu BM=64 BN=128 BK=8 TM=8 TN=8 WX=16 PIPELINE=0\n"
             "matmul device=\"nvidia h100 80gb hbm3\" BM=128 BN=64 BK=8 TM=8 TN=8 WX=8 PIPELINE=0\n"
             "matmul kind=cpu BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0\n"
             "matmul device=\"NVIDIA H100 80GB HBM3\" BM=128 BN=128 BK=16 TM=8 TN=8 WX=8 PIPELINE=0\n");
  c = duet::gemm_tile_choice(h100);
  CHECK(c.params == params(128, 128, 16, 8, 8, 8));
  CHECK(c.source == file + ":4");

  // An entry the device cannot run (too much shared memory) is passed over.
  write_text(file,
             "matmul device=\"NVIDIA H100 80GB HBM3\" BM=256 BN=256 BK=32 TM=16 TN=16 WX=8 PIPELINE=0\n");
  CHECK_CONTAINS(duet::gemm_tile_choice(h100).source, "built-in");

  // Malformed content, a directory in place of the file, or no file at all: the table, no error.
  write_text(file, "matmul device=\"unterminated BM=1\n\x01\x02garbage\n");
  CHECK_CONTAINS(duet::gemm_tile_choice(h100).source, "built-in");
  {
    EnvGuard dir_env("DUET_TUNING_FILE", dir.path().c_str());
    CHECK_CONTAINS(duet::gemm_tile_choice(h100).source, "built-in");
  }
  {
    EnvGuard missing("DUET_TUNING_FILE", (dir.path() + "/no/such/file.txt").c_str());
    CHECK_CONTAINS(duet::gemm_tile_choice(h100).source, "built-in");
  }
}

TEST_CASE("max_mn entries serve products up to that size; the most specific device selector still wins") {
  TempDir dir;
  const std::string file = dir.path() + "/tuning.txt";
  EnvGuard env("DUET_TUNING_FILE", file.c_str());
  const auto gpu = fake_device("opencl", "Some GPU", "Someone", "OpenCL C 3.0", duet::DeviceKind::gpu);
  write_text(file,
             "matmul kind=gpu BM=64 BN=128 BK=8 TM=8 TN=8 WX=16 PIPELINE=0\n"
             "matmul kind=gpu max_mn=65536 BM=64 BN=64 BK=8 TM=4 TN=4 WX=8 PIPELINE=0\n"
             "matmul kind=gpu max_mn=4096 BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0\n");
  CHECK(duet::gemm_tile_choice(gpu).params == params(64, 128, 8, 8, 8, 16));
  CHECK(duet::gemm_tile_choice(gpu, 64, 64).params == params(32, 32, 8, 4, 4, 8));
  CHECK(duet::gemm_tile_choice(gpu, 1, 1).params == params(32, 32, 8, 4, 4, 8));
  CHECK(duet::gemm_tile_choice(gpu, 65, 64).params == params(64, 64, 8, 4, 4, 8));
  CHECK(duet::gemm_tile_choice(gpu, 256, 256).params == params(64, 64, 8, 4, 4, 8));
  CHECK(duet::gemm_tile_choice(gpu, 257, 256).params == params(64, 128, 8, 8, 8, 16));
  CHECK(duet::gemm_tile_choice(gpu, 256, 256).source == file + ":2");
  const std::vector<duet::GemmSizeClass> classes = duet::gemm_size_classes(gpu);
  std::vector<std::size_t> limits;
  for (const duet::GemmSizeClass& c : classes) limits.push_back(c.max_mn);
  CHECK(limits == std::vector<std::size_t>{4096, 65536, 0});
  REQUIRE(classes.size() == 3);
  CHECK(classes[0].choice.params == params(32, 32, 8, 4, 4, 8));
  CHECK(classes[1].choice.params == params(64, 64, 8, 4, 4, 8));
  CHECK(classes[2].choice.params == params(64, 128, 8, 8, 8, 16));

  // An entry for this very device, with no size, beats size entries for any GPU.
  const auto h100 = fake_device("cuda", "NVIDIA H100 80GB HBM3", "NVIDIA", "sm_90", duet::DeviceKind::gpu);
  write_text(file,
             "matmul kind=gpu max_mn=4096 BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0\n"
             "matmul device=\"NVIDIA H100 80GB HBM3\" BM=128 BN=128 BK=16 TM=8 TN=8 WX=8 PIPELINE=0\n");
  CHECK(duet::gemm_tile_choice(h100, 64, 64).params == params(128, 128, 16, 8, 8, 8));

  // The built-in H100 entries: small tiles up to 2^21 elements of C, large ones beyond.
  write_text(file, "");
  CHECK(duet::gemm_tile_choice(h100, 1024, 1024).params.bn == 128);
  CHECK(duet::gemm_tile_choice(h100, 1024, 2048).params.bn == 128);
  CHECK(duet::gemm_tile_choice(h100, 2048, 2048).params.bn == 256);
  CHECK(duet::gemm_tile_choice(h100).params.bn == 256);

  // The entry's text round-trips with its size.
  const auto e =
      duet::tuning::parse_entry("matmul kind=gpu max_mn=4096 BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0");
  REQUIRE(e.has_value());
  CHECK(e->selector.max_mn == 4096);
  CHECK_CONTAINS(duet::tuning::format_entry(*e), "max_mn=4096");
  CHECK(duet::tuning::parse_entry(duet::tuning::format_entry(*e))->selector == e->selector);
}

TEST_CASE("the tuning file's path follows DUET_TUNING_FILE, XDG_CONFIG_HOME, HOME") {
  EnvGuard file("DUET_TUNING_FILE", nullptr);
  EnvGuard xdg("XDG_CONFIG_HOME", "/x/config");
  EnvGuard home("HOME", "/home/someone");
  CHECK(duet::tuning::tuning_file_path() == "/x/config/duet/tuning.txt");
  {
    EnvGuard no_xdg("XDG_CONFIG_HOME", nullptr);
    CHECK(duet::tuning::tuning_file_path() == "/home/someone/.config/duet/tuning.txt");
  }
  EnvGuard set("DUET_TUNING_FILE", "/etc/my-tuning.txt");
  CHECK(duet::tuning::tuning_file_path() == "/etc/my-tuning.txt");
}

TEST_CASE("save_entry replaces the entry for the same device and keeps every other line") {
  TempDir dir;
  const std::string file = dir.path() + "/sub/dir/tuning.txt";  // directories are created
  const auto h100 = fake_device("cuda", "NVIDIA H100 80GB HBM3", "NVIDIA", "sm_90", duet::DeviceKind::gpu);
  duet::tuning::save_entry(file, duet::tuning::entry_for_device(h100, params(128, 128, 8, 8, 8, 8)));
  CHECK(
      read_text(file) ==
      "matmul device=\"NVIDIA H100 80GB HBM3\" backend=cuda BM=128 BN=128 BK=8 TM=8 TN=8 WX=8 PIPELINE=0\n");

  write_text(
      file,
      "# mine\n"
      "matmul device=\"NVIDIA H100 80GB HBM3\" backend=cuda BM=64 BN=64 BK=8 TM=4 TN=4 WX=8 PIPELINE=0\n"
      "not an entry, kept as it is\n"
      "matmul device=\"NVIDIA H100 80GB HBM3\" backend=opencl BM=64 BN=64 BK=8 TM=4 TN=4 WX=8 PIPELINE=0\n");
  duet::tuning::save_entry(file, duet::tuning::entry_for_device(h100, params(128, 64, 16, 8, 8, 8)));
  CHECK(
      read_text(file) ==
      "# mine\n"
      "matmul device=\"NVIDIA H100 80GB HBM3\" backend=cuda BM=128 BN=64 BK=16 TM=8 TN=8 WX=8 PIPELINE=0\n"
      "not an entry, kept as it is\n"
      "matmul device=\"NVIDIA H100 80GB HBM3\" backend=opencl BM=64 BN=64 BK=8 TM=4 TN=4 WX=8 PIPELINE=0\n");

  // What was saved is what the device then uses.
  EnvGuard env("DUET_TUNING_FILE", file.c_str());
  CHECK(duet::gemm_tile(h100) == params(128, 64, 16, 8, 8, 8));
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("device");

TEST_CASE(
    "matmul takes the size's parameters from the tuning file and stays exact on both sides of a limit") {
  TempDir dir;
  const std::string file = dir.path() + "/tuning.txt";
  EnvGuard env("DUET_TUNING_FILE", file.c_str());
  write_text(file,
             "matmul BM=64 BN=64 BK=8 TM=4 TN=8 WX=8 PIPELINE=0\n"
             "matmul max_mn=1200 BM=32 BN=32 BK=8 TM=4 TN=4 WX=8 PIPELINE=0\n");
  // duet::matmul keeps its choice per device for the life of the process: the size classes are
  // only exercised where this case is the first to multiply (ctest's duet.*.matmul_sizes run it
  // alone); elsewhere it checks the device's own choice on the same shapes.
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    // C of 31 x 37 = 1147 (small entry) and 41 x 37 = 1517 elements (the other), K prime.
    for (std::size_t M : {std::size_t{31}, std::size_t{41}}) {
      const std::size_t N = 37, K = 53;
      CAPTURE(M);
      auto rng = make_rng("gemm_size_classes", M);
      const std::vector<float> A = random_floats(rng, M * K), B = random_floats(rng, K * N);
      std::vector<double> want, abs_dot;
      reference_matmul(A, B, M, N, K, want, abs_dot);
      duet::Buffer<float> dA(dev, M * K), dB(dev, K * N), dC(dev, M * N);
      q.write(dA, A);
      q.write(dB, B);
      q.fill(dC, kNaN);
      duet::matmul(q, dA, dB, dC, M, N, K);
      const double scale = 2.0 * double(K + 1) * kUnitRoundoff;
      check_close(
          q.to_vector(dC), want, [&](std::size_t i) { return scale * abs_dot[i] + 1e-30; }, "matmul C");
    }
  });
}

TEST_CASE("matmul with every parameter set of the table matches a double-precision reference") {
  struct Shape {
    std::size_t M, N, K;
  };
  // Awkward sizes (all with K % 4 and N % 4 != 0: scalar accesses), then float4 accesses
  // with partial tiles (K % 4 == 0 reads A as float4, N % 4 == 0 reads B and writes C as float4).
  // The mixed cases run with the device's own parameters and the CPU default only: each case is
  // another compile, and compiles are most of this test's time on PoCL.
  const Shape shapes[] = {{1, 1, 1},      {17, 33, 65}, {127, 129, 131}, {1000, 1023, 517},
                          {260, 132, 68}, {19, 35, 12}, {33, 20, 17}};
  for_each_device([&](const duet::Device& dev) {
    const duet::DeviceInfo& info = dev.info();
    std::vector<GemmTile> sets;
    auto add = [&](const GemmTile& p) {
      if (!duet::gemm_tile_problem(p, info).empty()) return;
      for (const GemmTile& q : sets)
        if (q == p) return;
      sets.push_back(p);
    };
    add(duet::gemm_tile(info));
    for (const TuningEntry& e : duet::tuning::builtin_entries())
      if (e.selector.kind == "cpu") add(e.params);
    const std::size_t all_cases = sets.size();  // the sets that also run the mixed float4 cases
    for (const TuningEntry& e : duet::tuning::builtin_entries()) add(e.params);
    add(GemmTile{});
    REQUIRE(!sets.empty());

    duet::Queue q = dev.queue();
    for (const Shape& s : shapes) {
      const std::size_t M = s.M, N = s.N, K = s.K;
      CAPTURE(M);
      CAPTURE(N);
      CAPTURE(K);
      auto rng = make_rng("matmul_params", M * 1000003 + N * 1009 + K);
      const std::vector<float> A = random_floats(rng, M * K);
      const std::vector<float> B = random_floats(rng, K * N);
      std::vector<double> want, abs_dot;
      reference_matmul(A, B, M, N, K, want, abs_dot);
      const double scale = 2.0 * double(K + 1) * kUnitRoundoff;
      const std::size_t tail = 5;
      duet::Buffer<float> dA(dev, M * K), dB(dev, K * N), dC(dev, M * N + tail);
      q.write(dA, A);
      q.write(dB, B);
      const bool mixed = (K % 4 == 0) != (N % 4 == 0);
      for (std::size_t set = 0; set < (mixed ? all_cases : sets.size()); ++set) {
        const GemmTile& p = sets[set];
        INFO("parameters ", duet::to_string(p));
        q.fill(dC, kNaN);
        duet::matmul_with(q, dA, dB, dC, M, N, K, p);
        std::vector<float> C = q.to_vector(dC);
        bool tail_untouched = true;
        for (std::size_t i = M * N; i < C.size(); ++i) tail_untouched = tail_untouched && std::isnan(C[i]);
        CHECK_MESSAGE(tail_untouched, "matmul wrote past C[M*N]");
        C.resize(M * N);
        check_close(
            C, want, [&](std::size_t i) { return scale * abs_dot[i] + 1e-30; }, "matmul C");
      }
    }
  });
}

TEST_CASE("matmul_with refuses parameters the device cannot run") {
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<float> a(dev, 16), b(dev, 16), c(dev, 16);
    const auto bad_shape =
        EXPECT_ERROR(duet::ArgumentError, duet::matmul_with(q, a, b, c, 4, 4, 4, params(32, 32, 8, 6, 4, 8)));
    if (bad_shape) CHECK_CONTAINS(std::string(bad_shape->what()), "TM=6");
    // More work-items than any device allows in one group.
    EXPECT_ERROR(duet::ArgumentError, duet::matmul_with(q, a, b, c, 4, 4, 4, params(1024, 1024, 8, 4, 4, 8)));
    EXPECT_ERROR(duet::ArgumentError, duet::matmul_prepare(dev, params(32, 32, 8, 4, 4, 5), 4, 4));
    // The launch checks of matmul apply too.
    EXPECT_ERROR(duet::BufferSizeError, duet::matmul_with(q, a, b, c, 5, 4, 4, GemmTile{}));
    EXPECT_ERROR(duet::ArgumentError, duet::matmul_with(q, a, b, c, 0, 4, 4, GemmTile{}));
  });
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("matmul compiles for sm_90 with every parameter set of the table") {
  const char* source = duet::builtin_kernel_source("matmul");
  REQUIRE(source != nullptr);
  for (const TuningEntry& e : duet::tuning::builtin_entries()) {
    for (std::size_t vec : {1, 4}) {  // rows of N = K = 1 and 4 floats: scalar and float4 accesses
      INFO(duet::tuning::format_entry(e), " N=K=", vec);
      const duet::Defines defines = duet::matmul_defines(e.params, vec, vec);
      try {
        CHECK(duet::compile_for_cuda_arch(source, defines, "sm_90", "matmul.duet") > 0);
      } catch (const duet::CompileError& error) {
        FAIL_CHECK("NVRTC rejected matmul.duet (line " << error.line() << "):\n" << error.log());
      }
    }
  }
}

TEST_SUITE_END();
