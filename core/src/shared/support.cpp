// The shared-kernel cache: one small hash map per device, keyed by file, kernel and defines.
#include "support.hpp"

#include <limits>
#include <mutex>
#include <unordered_map>

#include "../embedded_kernels.hpp"
#include "../state.hpp"

namespace duet::detail {

Kernel shared_kernel(const Device& device, const char* file, const char* kernel, const Defines& defines) {
  DeviceCore& core = *device.core();
  if (defines.empty()) {
    // The launch fast path: callers pass string literals, so their addresses identify the kernel
    // without building a key.
    std::lock_guard<std::mutex> lock(core.shared_mutex);
    for (const auto& entry : core.plain_kernels)
      if (entry.file == file && entry.kernel == kernel) return entry.compiled;
  }
  std::string key = std::string(file) + "/" + kernel;
  for (const auto& [name, value] : defines) key += ";" + name + "=" + value;
  {
    std::lock_guard<std::mutex> lock(core.shared_mutex);
    auto found = core.shared_kernels.find(key);
    if (found != core.shared_kernels.end()) return found->second;
  }
  Kernel k = device.compile(embedded::kernel_source(file), defines, std::string(file) + ".duet").kernel(kernel);
  std::lock_guard<std::mutex> lock(core.shared_mutex);
  core.shared_kernels.emplace(std::move(key), k);
  if (defines.empty()) core.plain_kernels.push_back({file, kernel, k});
  return k;
}

int as_int(const char* call, const char* what, std::size_t v) {
  if (v > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw ArgumentError(std::string(call) + ": " + what + " = " + std::to_string(v) +
                        " is larger than the kernel supports (2^31 - 1)");
  return static_cast<int>(v);
}

}  // namespace duet::detail
