// `duet devices`: a table of every device of every backend that loaded, one line per backend that
// did not (with the reason), and the device that Device::open() picks under the current
// DUET_BACKEND / DUET_DEVICE, so users can check their environment before running anything.
#include <cstdlib>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "duet/duet.hpp"
#include "table.hpp"

namespace duet::tool {
namespace {

std::string gib(std::uint64_t bytes) {
  return fixed(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), 1);
}

std::string vendor_and_platform(const DeviceInfo& info) {
  if (info.platform.empty() || info.platform == info.vendor) return info.vendor;
  return info.vendor + " / " + info.platform;
}

// "sm_90", and the target of programs asking for the architecture's own instructions where there is
// one: "sm_90 (sm_90a)", or "sm_90 (compute_90a PTX)" on NVIDIA's OpenCL through NVRTC.
// Intel's devices with the subgroup matrix multiply-accumulate: "- (Intel matrix, sub-groups of 8)".
std::string architecture(const DeviceInfo& info) {
  std::string text = info.arch.empty() ? "-" : info.arch;
  if (!info.arch_specific_target.empty()) {
    const bool ptx = info.arch_specific_target.rfind("compute_", 0) == 0;
    text += " (" + info.arch_specific_target + (ptx ? " PTX)" : ")");
  }
  if (info.intel_matrix_subgroup != 0)
    text += " (Intel matrix, sub-groups of " + std::to_string(info.intel_matrix_subgroup) + ")";
  return text;
}

std::string environment_value(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(name) + "=" + value : std::string(name) + " unset";
}

}  // namespace

int devices_command() {
  using Align = Table::Align;
  Table table({{"id", Align::left},
               {"kind", Align::left},
               {"name", Align::left},
               {"vendor / platform", Align::left},
               {"arch", Align::left},
               {"memory GiB", Align::right},
               {"units", Align::right},
               {"max group", Align::right},
               {"double", Align::left}});

  const auto devices = duet::devices();
  for (const auto& info : devices) {
    table.add_row({info.id(), to_string(info.kind), info.name, vendor_and_platform(info), architecture(info),
                   gib(info.memory_bytes), std::to_string(info.compute_units),
                   std::to_string(info.max_group_size), info.supports_double ? "yes" : "no"});
  }
  if (devices.empty()) {
    std::cout << "No devices found.\n";
  } else {
    table.print(std::cout);
  }

  bool any_unavailable = false;
  for (const auto& backend : duet::backends()) {
    if (backend.available) continue;
    if (!any_unavailable) std::cout << '\n';
    any_unavailable = true;
    std::cout << backend.name << ": unavailable: " << backend.reason << '\n';
  }

  std::cout << "\nDevice::open() with " << environment_value("DUET_BACKEND") << ", "
            << environment_value("DUET_DEVICE") << " picks ";
  try {
    const Device device = Device::open();
    std::cout << device.info().id() << " (" << device.info().name << ")\n";
  } catch (const duet::Error& e) {
    // Listing worked; a device that cannot be opened is the answer to the question, not a failure.
    std::cout << "nothing: " << e.what() << '\n';
  }

  // How recorded graphs replay (duet/graph.hpp), per device.
  if (!devices.empty()) std::cout << "\ngraphs:\n";
  for (const auto& info : devices) {
    std::cout << "  " << info.id() << ": ";
    try {
      std::cout << graph_path(Device::open(info.id())) << '\n';
    } catch (const duet::Error& e) {
      std::cout << "unknown: " << e.what() << '\n';
    }
  }
  return 0;
}

}  // namespace duet::tool
