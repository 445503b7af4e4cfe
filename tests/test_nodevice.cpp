// Device-independent tests (test suite "nodevice"): device specs and DUET_BACKEND values that are
// wrong, asked-for backends that did not load, the backend report, the built-in kernel sources and the
// small public helpers. They run on every machine, alone (DUET_TEST_BACKEND=none) and within every
// backend's run.
#include <doctest/doctest.h>

#include <cstring>
#include <duet/duet.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "builtins.hpp"
#include "support.hpp"

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("an unknown DUET_BACKEND value is a ConfigError listing the valid ones") {
  EnvGuard device("DUET_DEVICE", nullptr);
  for (const char* value : {"bogus", "CUDA-ish", "opencl2"}) {
    INFO("DUET_BACKEND=", std::string(value));
    EnvGuard backend("DUET_BACKEND", value);
    const auto e = EXPECT_ERROR(duet::ConfigError, duet::Device::open());
    if (e) {
      CHECK(e->kind() == duet::ErrorKind::config);
      CHECK_CONTAINS(e->what(), value);
      CHECK_CONTAINS(e->what(), "cuda");
      CHECK_CONTAINS(e->what(), "opencl");
      CHECK_CONTAINS(e->what(), "auto");
    }
  }
}

TEST_CASE("DUET_DEVICE names a device by its index only when it is a number") {
  const std::vector<std::pair<const char*, bool>> cases = {
      {nullptr, false}, {"", false},       {"0", true},         {" 12\t", true}, {"1a", false},
      {"-1", false},    {"NVIDIA", false}, {"opencl:1", false}, {" ", false}};
  for (const auto& c : cases) {
    const char* value = c.first;
    const bool index = c.second;
    INFO("DUET_DEVICE=", value ? "'" + std::string(value) + "'" : std::string("unset"));
    EnvGuard device("DUET_DEVICE", value);
    CHECK(duet::Device::device_env_is_index() == index);
  }
}

TEST_CASE("a malformed device spec is a ConfigError") {
  const auto e = EXPECT_ERROR(duet::ConfigError, duet::Device::open("bogus"));
  if (e) {
    CHECK_CONTAINS(e->what(), "bogus");
    CHECK_CONTAINS(e->what(), "cuda");
    CHECK_CONTAINS(e->what(), "opencl");
  }
  CHECK_THROWS_AS(duet::Device::open("vulkan:0"), duet::ConfigError);
}

TEST_CASE(
    "a device index past the end is DeviceNotFoundError (BackendUnavailableError without the backend)") {
  for (const char* backend : {"opencl", "cuda"}) {
    INFO("backend ", std::string(backend));
    const std::string spec = std::string(backend) + ":999";
    const auto status = backend_status(backend);
    if (status && status->available) {
      const auto e = EXPECT_ERROR(duet::DeviceNotFoundError, duet::Device::open(spec));
      if (e) CHECK_CONTAINS(e->what(), "999");
    } else {
      const auto e = EXPECT_ERROR(duet::BackendUnavailableError, duet::Device::open(spec));
      if (e && status) CHECK_CONTAINS(e->what(), status->reason);
    }
  }
}

TEST_CASE("an asked-for backend that did not load is BackendUnavailableError with the reason") {
  int checked = 0;
  for (const char* backend : {"cuda", "opencl"}) {
    INFO("backend ", std::string(backend));
    const auto status = backend_status(backend);
    if (status && status->available) continue;
    ++checked;
    const auto e = EXPECT_ERROR(duet::BackendUnavailableError, duet::Device::open(backend));
    if (!e) continue;
    CHECK(e->kind() == duet::ErrorKind::backend_unavailable);
    CHECK_CONTAINS(e->what(), backend);
    if (status) CHECK_CONTAINS(e->what(), status->reason);  // built in, but its probe failed
    // The same through the environment: an explicit DUET_BACKEND never falls back.
    EnvGuard env_backend("DUET_BACKEND", backend);
    EnvGuard env_device("DUET_DEVICE", nullptr);
    CHECK_THROWS_AS(duet::Device::open(), duet::BackendUnavailableError);
  }
  if (checked == 0) MESSAGE("skipped: every backend loaded on this machine");
}

TEST_CASE("DUET_PTX_PROGRAMS takes 0 or 1; any other value is a ConfigError from Device::open") {
  {
    EnvGuard bad("DUET_PTX_PROGRAMS", "off");
    const auto e = EXPECT_ERROR(duet::ConfigError, duet::Device::open());
    if (e) CHECK_CONTAINS(e->what(), "DUET_PTX_PROGRAMS='off'");
  }
  for (const char* good : {"0", "1", " 1 ", ""}) {
    EnvGuard ok("DUET_PTX_PROGRAMS", good);
    try {
      duet::Device::open();
    } catch (const duet::ConfigError& e) {
      FAIL_CHECK("DUET_PTX_PROGRAMS='" << good << "': " << e.what());
    } catch (const duet::Error&) {
      // no device here: not this variable's doing
    }
  }
}

TEST_CASE("backends() and devices() agree") {
  const std::vector<duet::BackendStatus> statuses = duet::backends();
  CHECK_FALSE(statuses.empty());
  const std::vector<duet::DeviceInfo> all = duet::devices();
  std::set<std::string> names;
  for (const duet::BackendStatus& s : statuses) {
    CAPTURE(s.name);
    CHECK((s.name == "cuda" || s.name == "opencl"));
    CHECK(names.insert(s.name).second);
    if (s.available) {
      CHECK(s.reason.empty());
    } else {
      CHECK_FALSE(s.reason.empty());
      CHECK(s.device_count == 0);
    }
    std::size_t listed = 0;
    for (const duet::DeviceInfo& d : all) listed += d.backend == s.name;
    CHECK(listed == s.device_count);
  }
  // CUDA devices first, then OpenCL; indices count from 0 within each backend.
  bool seen_opencl = false;
  int next_cuda = 0, next_opencl = 0;
  for (const duet::DeviceInfo& d : all) {
    CAPTURE(d.id());
    if (d.backend == "opencl") {
      seen_opencl = true;
      CHECK(d.index == next_opencl++);
    } else {
      CHECK(d.backend == "cuda");
      CHECK_FALSE(seen_opencl);
      CHECK(d.index == next_cuda++);
    }
  }
}

TEST_CASE("the built-in kernel sources are embedded") {
  std::set<std::string> names;
  for (const char* const* name = duet::builtin_kernel_names(); *name; ++name) {
    INFO("kernel source ", std::string(*name));
    names.insert(*name);
    const char* source = duet::builtin_kernel_source(*name);
    REQUIRE(source != nullptr);
    CHECK(std::strlen(source) > 0);
    CHECK_CONTAINS(source, "KERNEL");
  }
  // Every kernel of the built-in table compiles from a source of its own name's file.
  for (const duet::builtins::Kernel& kernel : duet::builtins::kernels()) {
    INFO("the source of built-in kernel ", std::string(kernel.name));
    CHECK(names.count(kernel.source) == 1);
  }
}

TEST_CASE("the table of built-in kernels") {
  std::set<std::string> names;
  for (const duet::builtins::Kernel& kernel : duet::builtins::kernels()) {
    INFO("built-in kernel ", std::string(kernel.name));
    CHECK(names.insert(kernel.name).second);
    CHECK(duet::builtins::find(kernel.name) == &kernel);
    CHECK(std::strlen(kernel.what) > 0);
    CHECK(kernel.runs_divisor >= 1);
    for (const auto scale : {duet::builtins::Scale::quick, duet::builtins::Scale::cpu, duet::builtins::Scale::gpu}) {
      const duet::builtins::Problem& p = kernel.problem(scale);
      CHECK(p.size > 0);
      CHECK(p.steps >= 1);
      CHECK(kernel.work(p) > 0.0);
      CHECK(kernel.tolerance(p) > 0.0);
      CHECK(!kernel.label(p).empty());
    }
  }
  CHECK(duet::builtins::names().size() == duet::builtins::kernels().size());
  CHECK(duet::builtins::find("no_such_kernel") == nullptr);
}

TEST_CASE("error kinds, scalar types and the version") {
  std::set<std::string> kinds;
  for (duet::ErrorKind k :
       {duet::ErrorKind::config, duet::ErrorKind::backend_unavailable, duet::ErrorKind::device_not_found,
        duet::ErrorKind::compile, duet::ErrorKind::kernel_not_found, duet::ErrorKind::argument,
        duet::ErrorKind::buffer_size, duet::ErrorKind::out_of_memory, duet::ErrorKind::device_mismatch,
        duet::ErrorKind::released, duet::ErrorKind::driver,
        duet::ErrorKind::kernel_fault, duet::ErrorKind::unordered_access}) {
    const char* s = duet::to_string(k);
    REQUIRE(s != nullptr);
    CHECK(std::strlen(s) > 0);
    kinds.insert(s);
  }
  CHECK(kinds.size() == 13);

  CHECK(std::string(duet::to_string(duet::ScalarType::f32)) == "float");
  CHECK(std::string(duet::to_string(duet::ScalarType::i32)) == "int");
  CHECK(std::string(duet::to_string(duet::ScalarType::u64)) == "ulong");
  CHECK(duet::scalar_type_from_name("float") == duet::ScalarType::f32);
  CHECK(duet::scalar_type_from_name("uint") == duet::ScalarType::u32);
  CHECK(duet::scalar_type_from_name("unsigned int") == duet::ScalarType::u32);
  CHECK(duet::scalar_type_from_name("double") == duet::ScalarType::f64);
  CHECK(duet::scalar_type_from_name("no_such_type") == duet::ScalarType::unknown);
  CHECK(duet::size_of(duet::ScalarType::f64) == 8);
  CHECK(duet::size_of(duet::ScalarType::u8) == 1);
  CHECK(duet::size_of(duet::ScalarType::unknown) == 0);
  CHECK(std::strlen(duet::to_string(duet::DeviceKind::gpu)) > 0);

  CHECK(std::string(duet::version()) == std::to_string(DUET_VERSION_MAJOR) + "." +
                                            std::to_string(DUET_VERSION_MINOR) + "." +
                                            std::to_string(DUET_VERSION_PATCH));
}

TEST_CASE("errors are duet::Error with their kind, and catchable as std::runtime_error") {
  try {
    duet::Device::open("bogus");
    FAIL_CHECK("Device::open(\"bogus\") did not throw");
  } catch (const std::runtime_error& e) {
    const auto* de = dynamic_cast<const duet::Error*>(&e);
    REQUIRE(de != nullptr);
    CHECK(de->kind() == duet::ErrorKind::config);
  }
}

TEST_SUITE_END();
