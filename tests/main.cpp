// The test driver. DUET_TEST_BACKEND picks what one run covers:
//   cuda | opencl  every device of that backend, plus the device-independent tests; exits 77
//                  (CTest's SKIP_RETURN_CODE) with the reason from duet::backends() when the backend
//                  is not built in, did not load, or has no device, so CI reports "skipped", never
//                  "passed", for what did not run.
//   none           only the device-independent tests (test suite "nodevice").
//   nvrtc          only the offline NVRTC compiles (test suite "nvrtc"); exits 77 without NVRTC.
//   unset / all    every device of every backend that loaded (for running the binary by hand).
// DUET_TEST_SEED=<n> repeats the random inputs of an earlier run; every run prints its seed.
// DUET_TEST_MIN_DEVICES=<n> exits 77 when fewer devices than that are found (the two-device run).
// DUET_TEST_DEVICE_INDEX=<i> keeps the run to the device at index i of those it would cover (0 is the
// first), and with DUET_TEST_DEVICE_SHARDS=<n> also to i+n, i+2n, ...: CTest's per-device shards,
// which let a machine's devices run side by side (tests/CMakeLists.txt). A shard without a device
// exits 77 before it opens one. Shards other than 0 leave out the tests that need no device.
// DUET_TEST_EXCLUDE=<filters> leaves those test cases out (doctest's -tce syntax); DUET_TEST_ONLY=<filters>
// runs only those (-tc).
// doctest's own command-line options (-tc, -sc, -s, ...) work as usual.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <duet/duet.hpp>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "devices.hpp"

namespace {

constexpr int kSkipped = 77;

std::vector<duet::Device> g_devices;
std::uint64_t g_seed = 0;

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::uint64_t choose_seed() {
  if (const char* s = std::getenv("DUET_TEST_SEED"); s && *s) return std::strtoull(s, nullptr, 0);
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

void print_backends() {
  for (const duet::BackendStatus& s : duet::backends()) {
    std::cout << "  backend " << s.name << ": "
              << (s.available ? std::to_string(s.device_count) + " device(s)" : "unavailable: " + s.reason)
              << "\n";
  }
}

// Which of the devices a run would cover it keeps (DUET_TEST_DEVICE_INDEX and _SHARDS): position
// `index` among them, and with `shards` > 0 every shards-th one after it. index < 0: every device.
struct Shard {
  long index = -1;
  long shards = 0;
  bool keeps(long position) const {
    if (index < 0) return true;
    return shards > 0 ? position % shards == index : position == index;
  }
};

// A whole number of 0 or more from the environment into `value` (left as it is when unset); false,
// with the reason printed, for anything else.
bool read_count(const char* name, long& value) {
  const std::string text = env_or(name, "");
  if (text.empty()) return true;
  char* end = nullptr;
  const long parsed = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || parsed < 0) {
    std::cerr << name << "=" << text << " is not a whole number of 0 or more\n";
    return false;
  }
  value = parsed;
  return true;
}

bool read_shard(Shard& shard) {
  if (!read_count("DUET_TEST_DEVICE_INDEX", shard.index) || !read_count("DUET_TEST_DEVICE_SHARDS", shard.shards))
    return false;
  if (shard.index >= 0 && shard.shards > 0 && shard.index >= shard.shards) {
    std::cerr << "DUET_TEST_DEVICE_INDEX=" << shard.index << " must be below DUET_TEST_DEVICE_SHARDS=" << shard.shards
              << "\n";
    return false;
  }
  return true;
}

// Opens every device of `backend` ("" for all backends) of the kind DUET_TEST_DEVICE_KIND names
// (gpu, cpu; unset: every kind), so that one machine's GPU and CPU drivers can run as separate
// processes at once, and of those the shard's. Only the devices kept are opened: a shard whose
// index is past the last device decides to skip from the list alone. Returns a skip reason when
// there is none.
std::string collect_devices(const std::string& backend, const Shard& shard) {
  const std::string kind = env_or("DUET_TEST_DEVICE_KIND", "");
  if (!backend.empty()) {
    bool built = false;
    for (const duet::BackendStatus& s : duet::backends()) {
      if (s.name != backend) continue;
      built = true;
      if (!s.available) return "the " + backend + " backend is unavailable: " + s.reason;
      if (s.device_count == 0) return "the " + backend + " backend has no devices";
    }
    if (!built) return "duet was built without the " + backend + " backend";
  }
  long position = 0;
  std::vector<std::string> kept;
  for (const duet::DeviceInfo& info : duet::devices()) {
    if (!backend.empty() && info.backend != backend) continue;
    std::string info_kind = duet::to_string(info.kind);  // "GPU"
    for (char& c : info_kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!kind.empty() && kind != info_kind) continue;
    if (shard.keeps(position++)) kept.push_back(info.id());
  }
  const std::string which = (backend.empty() ? std::string("") : backend + " ") + (kind.empty() ? "" : kind + " ");
  if (position == 0) return "no " + which + "devices found";
  if (kept.empty())
    return "no device for DUET_TEST_DEVICE_INDEX=" + std::to_string(shard.index) + ": " + std::to_string(position) +
           " " + which + "device(s) found, all of them covered by shards of lower index";
  for (const std::string& id : kept) g_devices.push_back(duet::Device::open(id));
  return {};
}

}  // namespace

const std::vector<duet::Device>& test_devices() { return g_devices; }
std::uint64_t test_seed() { return g_seed; }

int main(int argc, char** argv) {
  const std::string mode = env_or("DUET_TEST_BACKEND", "all");
  g_seed = choose_seed();
  std::cout << "duet " << duet::version() << " tests: DUET_TEST_BACKEND=" << mode << ", seed " << g_seed
            << " (DUET_TEST_SEED=" << g_seed << " repeats this run)\n";

  doctest::Context context;
  context.applyCommandLine(argc, argv);
  // Test cases left out of a whole run (doctest's -tce), for runs that repeat the suite where some
  // of it proves nothing new: the ThreadSanitizer run skips the single-threaded array kernels.
  if (const std::string exclude = env_or("DUET_TEST_EXCLUDE", ""); !exclude.empty())
    context.addFilter("test-case-exclude", exclude.c_str());
  // And the opposite (doctest's -tc): the ThreadSanitizer run keeps the cases that start threads or
  // hand memory to the driver's threads, which is what it can find races in.
  if (const std::string only = env_or("DUET_TEST_ONLY", ""); !only.empty())
    context.addFilter("test-case", only.c_str());

  try {
    if (mode == "none") {
      context.setOption("test-suite", "nodevice");
    } else if (mode == "nvrtc") {
      try {
        duet::compile_for_cuda_arch("KERNEL void probe(GLOBAL int* x) { x[0] = 1; }\n", {}, "sm_90",
                                    "probe.duet");
      } catch (const duet::BackendUnavailableError& e) {
        std::cout << "SKIPPED: NVRTC is unavailable: " << e.what() << "\n";
        return kSkipped;
      } catch (const duet::Error&) {
        // Any other failure is for the tests to report.
      }
      context.setOption("test-suite", "nvrtc");
    } else if (mode == "cuda" || mode == "opencl" || mode == "all") {
      Shard shard;
      if (!read_shard(shard)) return 2;
      print_backends();
      const std::string reason = collect_devices(mode == "all" ? "" : mode, shard);
      if (!reason.empty()) {
        if (mode != "all" || shard.index >= 0) {
          std::cout << "SKIPPED: " << reason << "\n";
          return kSkipped;
        }
        std::cout << reason << ": running the device-independent tests only\n";
        context.setOption("test-suite", "nodevice");
      } else if (shard.index > 0) {
        // Shard 0 runs the tests that need no device; the others would only repeat them.
        context.setOption("test-suite-exclude", "nvrtc,nodevice");
      } else {
        context.setOption("test-suite-exclude", "nvrtc");
      }
      const long min_devices = std::strtol(env_or("DUET_TEST_MIN_DEVICES", "0").c_str(), nullptr, 10);
      if (static_cast<long>(g_devices.size()) < min_devices) {
        std::cout << "SKIPPED: this run needs " << min_devices << " devices and found " << g_devices.size()
                  << "\n";
        return kSkipped;
      }
      for (const duet::Device& d : g_devices) {
        const duet::DeviceInfo& i = d.info();
        std::cout << "  testing " << i.id() << ": " << i.name << " (" << i.vendor << ", " << i.driver << ", "
                  << i.language << (i.arch.empty() ? "" : ", " + i.arch)
                  << (i.arch_specific_target.empty() ? "" : " (" + i.arch_specific_target + ")")
                  << ", max group " << i.max_group_size << ")\n";
      }
    } else {
      std::cerr << "DUET_TEST_BACKEND=" << mode << " is not one of cuda, opencl, none, nvrtc, all\n";
      return 2;
    }
  } catch (const duet::Error& e) {
    std::cerr << "could not set up the devices under test (" << duet::to_string(e.kind()) << "): " << e.what()
              << "\n";
    return 1;
  }

  const int result = context.run();
  g_devices.clear();
  return result;
}
