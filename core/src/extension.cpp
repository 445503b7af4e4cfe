// The module interface (duet/extension.hpp): the registry of embedded kernel sources (which
// shared_kernel_source() and shared_kernel_names() read), the per-device cache of built-in kernels,
// and per-device slots.
#include "duet/extension.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "duet/kernels.hpp"
#include "prelude.hpp"
#include "state.hpp"

namespace duet {
namespace {

struct SourceRegistry {
  std::mutex mutex;
  std::vector<extension::KernelSource> sources;
  std::vector<const char*> names{nullptr};  // null-terminated, for shared_kernel_names()
};

// Never destroyed: libraries register from their static initialisers and may be unloaded after us.
SourceRegistry& source_registry() {
  static auto* registry = new SourceRegistry;
  return *registry;
}

}  // namespace

namespace extension {

KernelSourceRegistration::KernelSourceRegistration(const KernelSource* sources, std::size_t count) noexcept {
  SourceRegistry& r = source_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (std::size_t k = 0; k < count; ++k) {
    const bool known = std::any_of(r.sources.begin(), r.sources.end(), [&](const KernelSource& s) {
      return std::strcmp(s.name, sources[k].name) == 0;
    });
    if (known) continue;
    r.sources.push_back(sources[k]);
    r.names.insert(r.names.end() - 1, sources[k].name);
  }
}

const char* kernel_source(std::string_view name) {
  SourceRegistry& r = source_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const KernelSource& s : r.sources)
    if (name == s.name) return s.source;
  return nullptr;
}

Kernel builtin_kernel(const Device& device, const char* file, const char* kernel, const Defines& defines) {
  detail::DeviceCore& core = *device.core();
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
  const char* source = kernel_source(file);
  if (!source)
    throw ArgumentError(std::string("no kernel source '") + file +
                        "' is registered; embed it with duet_embed_kernels() in CMake and link that library");
  Kernel k = device.compile(source, defines, std::string(file) + ".duet").kernel(kernel);
  std::lock_guard<std::mutex> lock(core.shared_mutex);
  core.shared_kernels.emplace(std::move(key), k);
  if (defines.empty()) core.plain_kernels.push_back({file, kernel, k});
  return k;
}

std::shared_ptr<void> device_slot(const Device& device, std::string_view key,
                                  const std::function<std::shared_ptr<void>()>& make) {
  device.info();  // ReleasedError for an empty handle
  detail::DeviceCore& core = *device.core();
  // Made under the lock, so two threads never both make one; slots are few and made once.
  std::lock_guard<std::mutex> lock(core.slots_mutex);
  auto found = core.slots.find(key);
  if (found != core.slots.end()) return found->second;
  std::shared_ptr<void> value = make();
  core.slots.emplace(std::string(key), value);
  return value;
}

std::shared_ptr<void> queue_slot(const Queue& queue, std::string_view key,
                                 const std::function<std::shared_ptr<void>()>& make) {
  Queue::State& state = queue.state();  // ReleasedError for an empty handle
  std::lock_guard<std::mutex> lock(state.slots_mutex);
  auto found = state.slots.find(key);
  if (found != state.slots.end()) return found->second;
  std::shared_ptr<void> value = make();
  state.slots.emplace(std::string(key), value);
  return value;
}

int as_int(const char* call, const char* what, std::size_t value) {
  if (value > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw ArgumentError(std::string(call) + ": " + what + " = " + std::to_string(value) +
                        " is larger than the kernel supports (2^31 - 1)");
  return static_cast<int>(value);
}

}  // namespace extension

const char* shared_kernel_source(const char* name) { return name ? extension::kernel_source(name) : nullptr; }

const char* dialect_prelude() { return embedded::prelude(); }

const char* const* shared_kernel_names() {
  SourceRegistry& r = source_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.names.data();
}

}  // namespace duet
