// Backend registration and device selection. Backends are probed once, on first use, in a fixed
// order (CUDA, then OpenCL). Selection follows DUET_BACKEND / DUET_DEVICE or an explicit spec; only
// "auto" chooses between backends, and an explicitly asked-for backend or device that is missing is
// an error naming what is available.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "duet/device.hpp"
#include "duet/error.hpp"
#include "probes.hpp"
#include "state.hpp"

namespace duet {
namespace {

struct Registry {
  std::vector<backend::Probe> probes;
  // One DeviceCore per device, so every Device handle of a device shares its program cache.
  std::vector<std::vector<std::shared_ptr<detail::DeviceCore>>> cores;
};

backend::Probe not_built(const std::string& name, const std::string& why) {
  backend::Probe p;
  p.name = name;
  p.reason = why;
  return p;
}

[[maybe_unused]] backend::Probe guarded(const std::string& name, backend::Probe (*probe)()) {
  try {
    return probe();
  } catch (const std::exception& e) {
    return not_built(name, std::string("probe failed: ") + e.what());
  }
}

// Never destroyed: backend objects must not be torn down after the drivers' own exit handlers ran.
const Registry& registry() {
  static const Registry* r = new Registry([] {
    Registry reg;
#ifdef DUET_HAVE_CUDA
    reg.probes.push_back(guarded("cuda", backend::probe_cuda));
#else
    reg.probes.push_back(not_built("cuda", "duet was built without the CUDA toolkit"));
#endif
#ifdef DUET_HAVE_OPENCL
    reg.probes.push_back(guarded("opencl", backend::probe_opencl));
#else
    reg.probes.push_back(not_built("opencl", "duet was built without OpenCL"));
#endif
    for (auto& p : reg.probes) {
      if (p.available && p.devices.empty()) {
        p.available = false;
        if (p.reason.empty()) p.reason = "no devices found";
      }
      std::vector<std::shared_ptr<detail::DeviceCore>> cores;
      for (auto& d : p.devices) {
        auto core = std::make_shared<detail::DeviceCore>();
        core->impl = d;
        cores.push_back(core);
      }
      reg.cores.push_back(std::move(cores));
    }
    return reg;
  }());
  return *r;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

std::string available_devices_text() {
  std::ostringstream s;
  auto all = devices();
  if (all.empty()) return "no devices are available";
  s << "available devices:";
  for (auto& d : all) s << " " << d.id() << " (" << d.name << ")";
  return s.str();
}

const char* const valid_backends = "valid values are 'cuda', 'opencl' and 'auto'";

// The devices of `backend` ("" = all), in order of preference, as DeviceCores.
std::vector<std::shared_ptr<detail::DeviceCore>> candidates(const std::string& backend) {
  const auto& reg = registry();
  std::vector<std::shared_ptr<detail::DeviceCore>> out;
  for (std::size_t b = 0; b < reg.probes.size(); ++b) {
    if (!backend.empty() && reg.probes[b].name != backend) continue;
    for (auto& c : reg.cores[b]) out.push_back(c);
  }
  {
    // CUDA GPUs, then other GPUs, then CPUs, then the rest; stable within each rank. Within one
    // backend this puts OpenCL GPUs before the CPU platform when no device is named.
    auto rank = [](const std::shared_ptr<detail::DeviceCore>& c) {
      const auto& i = c->impl->info();
      if (i.kind == DeviceKind::gpu) return i.backend == "cuda" ? 0 : 1;
      return i.kind == DeviceKind::cpu ? 2 : 3;
    };
    std::stable_sort(out.begin(), out.end(),
                     [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  }
  return out;
}

Device select(const std::string& backend_in, const std::string& device_in) {
  std::string backend = lower(trim(backend_in));
  std::string device = trim(device_in);
  if (backend.empty()) backend = "auto";
  if (backend != "auto" && backend != "cuda" && backend != "opencl")
    throw ConfigError("unknown backend '" + backend_in + "': " + valid_backends +
                      " (set DUET_BACKEND or pass one to Device::open)");
  const auto& reg = registry();
  if (backend != "auto") {
    for (auto& p : reg.probes)
      if (p.name == backend && !p.available)
        throw BackendUnavailableError("the " + backend + " backend is not available: " + p.reason +
                                      "; " + available_devices_text());
  }
  auto list = candidates(backend == "auto" ? "" : backend);
  if (list.empty())
    throw DeviceNotFoundError("no device found on any backend (" +
                              [&] {
                                std::string r;
                                for (auto& p : reg.probes) r += p.name + ": " + p.reason + "; ";
                                return r;
                              }() +
                              "install an OpenCL driver such as pocl-opencl-icd, or an NVIDIA driver)");
  if (device.empty()) return Device(list.front());

  bool numeric = std::all_of(device.begin(), device.end(),
                             [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (numeric) {
    std::size_t index = std::stoul(device);
    if (backend != "auto") {
      for (auto& c : list)
        if (static_cast<std::size_t>(c->impl->info().index) == index) return Device(c);
    } else if (index < list.size()) {
      return Device(list[index]);
    }
    throw DeviceNotFoundError("device index " + device + " is out of range for backend '" + backend +
                              "' (" + std::to_string(list.size()) + " device(s)); " +
                              available_devices_text());
  }
  std::string needle = lower(device);
  for (auto& c : list) {
    const auto& i = c->impl->info();
    if (lower(i.name).find(needle) != std::string::npos ||
        lower(i.vendor).find(needle) != std::string::npos ||
        lower(i.platform).find(needle) != std::string::npos)
      return Device(c);
  }
  throw DeviceNotFoundError("no device on backend '" + backend + "' matches '" + device + "'; " +
                            available_devices_text());
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
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
  for (auto& p : registry().probes) out.push_back({p.name, p.available, p.reason, p.devices.size()});
  return out;
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  for (auto& cores : registry().cores)
    for (auto& c : cores) out.push_back(c->impl->info());
  return out;
}

Device Device::open() { return select(env("DUET_BACKEND"), env("DUET_DEVICE")); }

Device Device::open(std::string_view spec_view) {
  std::string spec(spec_view);
  auto colon = spec.find(':');
  if (colon == std::string::npos) return select(spec, "");
  return select(spec.substr(0, colon), spec.substr(colon + 1));
}

const DeviceInfo& Device::info() const {
  if (!core_) throw ReleasedError("this Device handle is empty: open one with duet::Device::open()");
  return core_->impl->info();
}

}  // namespace duet
