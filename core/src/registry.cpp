// Backend registration and device selection. Backends are probed once, on first use, in the order
// of the generated backend list (backend_list.hpp). Selection follows DUET_BACKEND / DUET_DEVICE or
// an explicit spec; only "auto" chooses between backends, and an explicitly asked-for backend or
// device that is missing is an error naming what is available.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "backend_list.hpp"
#include "duet/device.hpp"
#include "duet/error.hpp"
#include "guard_zones.hpp"
#include "kernel_faults.hpp"
#include "state.hpp"

namespace duet {
namespace {

// One backend of the list, probed: its devices, or why it has none.
struct ProbedBackend {
  std::string name;
  backend::Probe probe;
  // One DeviceCore per device, so every Device handle of a device shares its program cache.
  std::vector<std::shared_ptr<detail::DeviceCore>> cores;
};

backend::Probe probe(const backend::BackendEntry& entry) {
  backend::Probe p;
  if (!entry.backend) {
    p.reason = entry.left_out_reason;
    return p;
  }
  try {
    p = entry.backend().probe();
  } catch (const std::exception& e) {
    p = backend::Probe{};
    p.reason = std::string("probe failed: ") + e.what();
  } catch (...) {
    p = backend::Probe{};
    p.reason = "probe failed with an unknown exception";
  }
  if (p.available && p.devices.empty()) {
    p.available = false;
    if (p.reason.empty()) p.reason = "no devices found";
  }
  return p;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// DUET_PTX_PROGRAMS: unset, empty or 1 on, 0 off. Device::open reads it with the other variables
// that change how work runs and throws ConfigError for any other value; the registry, which may be
// built first (by devices()), takes such a value as the default.
bool ptx_programs_on(bool strict) {
  const std::string value = trim(env("DUET_PTX_PROGRAMS"));
  if (value.empty() || value == "1") return true;
  if (value == "0") return false;
  if (strict)
    throw ConfigError("DUET_PTX_PROGRAMS='" + env("DUET_PTX_PROGRAMS") +
                      "': give 0 (programs asking for one architecture's instructions are compiled by the "
                      "device's own compiler) or 1 (by NVRTC to PTX where the device takes it, the default), "
                      "or leave it unset");
  return true;
}

// Where the device takes PTX for programs that ask for one architecture's instructions (NVIDIA's
// OpenCL, whose own compiler targets the plain architecture), the first backend whose compiler
// makes such PTX (NVRTC) compiles them, unless DUET_PTX_PROGRAMS=0. Its library is loaded here, once,
// and only for such devices.
void find_ptx_compiler(detail::DeviceCore& core) {
  const std::string target = core.impl->ptx_target();
  if (target.empty() || !ptx_programs_on(false)) return;
  for (const backend::BackendEntry& entry : backend::backend_list()) {
    if (!entry.backend || !entry.backend().ptx_unavailable().empty()) continue;
    core.ptx_compiler = &entry.backend();
    core.ptx_compiler_name = entry.name;
    core.info.arch_specific_target = target;
    return;
  }
}

// Never destroyed: backend objects must not be torn down after the drivers' own exit handlers ran.
const std::vector<ProbedBackend>& registry() {
  static const auto* r = new std::vector<ProbedBackend>([] {
    std::vector<ProbedBackend> list;
    for (const backend::BackendEntry& entry : backend::backend_list()) {
      ProbedBackend b{entry.name, probe(entry), {}};
      for (auto& d : b.probe.devices) {
        auto core = std::make_shared<detail::DeviceCore>();
        core->impl = d;
        core->backend = &entry.backend();
        core->info = d->info();
        find_ptx_compiler(*core);
        b.cores.push_back(core);
      }
      list.push_back(std::move(b));
    }
    return list;
  }());
  return *r;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string available_devices_text() {
  std::ostringstream s;
  auto all = devices();
  if (all.empty()) return "no devices are available";
  s << "available devices:";
  for (auto& d : all) s << " " << d.id() << " (" << d.name << ")";
  return s.str();
}

// "valid values are 'cuda', 'opencl' and 'auto'"
std::string valid_backends() {
  std::string names;
  for (const std::string& name : backend_names()) names += "'" + name + "', ";
  return "valid values are " + names + "and 'auto'";
}

// The devices of `backend` ("" = all), in order of preference, as DeviceCores: GPUs, then CPUs,
// then the rest, stable within each kind, so among GPUs the backend listed first comes first (CUDA
// before OpenCL), and within one backend OpenCL GPUs come before the CPU platform.
std::vector<std::shared_ptr<detail::DeviceCore>> candidates(const std::string& backend) {
  std::vector<std::shared_ptr<detail::DeviceCore>> out;
  for (const auto& b : registry()) {
    if (!backend.empty() && b.name != backend) continue;
    for (auto& c : b.cores) out.push_back(c);
  }
  auto rank = [](const std::shared_ptr<detail::DeviceCore>& c) {
    const DeviceKind kind = c->impl->info().kind;
    return kind == DeviceKind::gpu ? 0 : kind == DeviceKind::cpu ? 1 : 2;
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return out;
}

bool is_index(const std::string& device) {
  return !device.empty() &&
         std::all_of(device.begin(), device.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Whether a device name `needle` (lower case) is part of the device's name, vendor or platform.
bool named(const DeviceInfo& i, const std::string& needle) {
  return lower(i.name).find(needle) != std::string::npos || lower(i.vendor).find(needle) != std::string::npos ||
         lower(i.platform).find(needle) != std::string::npos;
}

Device select(const std::string& backend_in, const std::string& device_in) {
  // The variables that change how work runs are read before any device is handed out, so that a
  // bad value fails here and not at a later wait, with work of the process still in flight.
  detail::checked_mode();
  detail::kernel_timeout();
  ptx_programs_on(true);
  std::string backend = lower(trim(backend_in));
  std::string device = trim(device_in);
  if (backend.empty()) backend = "auto";
  const auto& reg = registry();
  if (backend != "auto") {
    auto known = std::find_if(reg.begin(), reg.end(), [&](const ProbedBackend& b) { return b.name == backend; });
    if (known == reg.end())
      throw ConfigError("unknown backend '" + backend_in + "': " + valid_backends() +
                        " (set DUET_BACKEND or pass one to Device::open)");
    if (!known->probe.available)
      throw BackendUnavailableError("the " + backend + " backend is not available: " + known->probe.reason +
                                    "; " + available_devices_text());
  }
  auto list = candidates(backend == "auto" ? "" : backend);
  if (list.empty())
    throw DeviceNotFoundError("no device found on any backend (" +
                              [&] {
                                std::string r;
                                for (auto& b : reg) r += b.name + ": " + b.probe.reason + "; ";
                                return r;
                              }() +
                              "install an OpenCL driver such as pocl-opencl-icd, or an NVIDIA driver)");
  if (device.empty()) return detail::Access::make_device(list.front());

  if (is_index(device)) {
    // Digits only, but perhaps more than an unsigned long holds: such an index names no device.
    std::size_t index = static_cast<std::size_t>(-1);
    try {
      index = std::stoul(device);
    } catch (const std::out_of_range&) {
    }
    if (backend != "auto") {
      for (auto& c : list)
        if (static_cast<std::size_t>(c->impl->info().index) == index) return detail::Access::make_device(c);
    } else if (index < list.size()) {
      return detail::Access::make_device(list[index]);
    }
    throw DeviceNotFoundError("device index " + device + " is out of range for backend '" + backend +
                              "' (" + std::to_string(list.size()) + " device(s)); " +
                              available_devices_text());
  }
  const std::string needle = lower(device);
  for (auto& c : list)
    if (named(c->impl->info(), needle)) return detail::Access::make_device(c);
  throw DeviceNotFoundError("no device on backend '" + backend + "' matches '" + device + "'; " +
                            available_devices_text());
}

}  // namespace

const char* to_string(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::gpu: return "GPU";
    case DeviceKind::cpu: return "CPU";
    case DeviceKind::other: return "other";
  }
  return "other";
}

std::vector<BackendStatus> backends() {
  std::vector<BackendStatus> out;
  for (auto& b : registry()) out.push_back({b.name, b.probe.available, b.probe.reason, b.probe.devices.size()});
  return out;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> out;
  for (const backend::BackendEntry& entry : backend::backend_list()) out.push_back(entry.name);
  return out;
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  for (auto& b : registry())
    for (auto& c : b.cores) out.push_back(c->info);
  return out;
}

Device Device::open() { return select(env("DUET_BACKEND"), env("DUET_DEVICE")); }

bool Device::device_env_is_index() { return is_index(trim(env("DUET_DEVICE"))); }

std::vector<Device> Device::open_all() {
  const Device picked = open();
  if (device_env_is_index()) return {picked};
  const std::string device = trim(env("DUET_DEVICE"));
  const DeviceInfo& chosen = picked.info();
  const std::string needle = lower(device);
  std::vector<Device> out;
  for (auto& c : candidates(chosen.backend)) {
    const DeviceInfo& i = c->impl->info();
    if (i.kind == chosen.kind && (needle.empty() || named(i, needle))) out.push_back(detail::Access::make_device(c));
  }
  return out;
}

Device Device::open(std::string_view spec_view) {
  std::string spec(spec_view);
  auto colon = spec.find(':');
  if (colon == std::string::npos) return select(spec, "");
  return select(spec.substr(0, colon), spec.substr(colon + 1));
}

const DeviceInfo& Device::info() const {
  if (!core_) throw ReleasedError("this Device handle is empty: open one with duet::Device::open()");
  return core_->info;
}

}  // namespace duet
