// The array layer's first-level kernel cache: compiled kernels (and what a caller keeps beside
// one) per device under a short signature (operation, dtypes, layout; a fused tree's structure), so
// a repeated call skips generating its source and the program cache's lookup (Device::compile
// tokenises the whole source to find it). The program cache stays the second level: a signature
// seen for the first time compiles through it.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "duet/extension.hpp"

namespace duet {

namespace detail {

// The entries of one kind for one device.
template <class T>
struct CacheTable {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const T>> entries;
};

}  // namespace detail

// The entry kept under `signature` in `device`'s table `table` (one per entry type), made by
// `make` on first use (outside the lock: two threads racing on a new signature may both make it;
// the first kept wins).
template <class T>
std::shared_ptr<const T> cached_entry(const Device& device, const char* table, const std::string& signature,
                                      const std::function<T()>& make) {
  const auto t = extension::device_state<detail::CacheTable<T>>(
      device, table, [] { return std::make_shared<detail::CacheTable<T>>(); });
  {
    std::lock_guard<std::mutex> lock(t->mutex);
    const auto found = t->entries.find(signature);
    if (found != t->entries.end()) return found->second;
  }
  auto made = std::make_shared<const T>(make());  // compiles outside the lock
  std::lock_guard<std::mutex> lock(t->mutex);
  return t->entries.emplace(signature, std::move(made)).first->second;
}

// The kernel kept under `signature` for `device`, made by `make` on first use.
inline Kernel cached_kernel(const Device& device, const std::string& signature,
                            const std::function<Kernel()>& make) {
  return *cached_entry<Kernel>(device, "duet.array.kernels", signature, make);
}

}  // namespace duet
