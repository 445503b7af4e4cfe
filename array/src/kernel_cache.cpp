// duet::cached_kernel: see kernel_cache.hpp.
#include "kernel_cache.hpp"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace duet {
namespace {

struct KernelTable {
  std::mutex mutex;
  std::unordered_map<std::string, Kernel> kernels;
};

}  // namespace

Kernel cached_kernel(const Device& device, const std::string& signature,
                     const std::function<Kernel()>& make) {
  const auto table = extension::device_state<KernelTable>(device, "duet.array.kernels",
                                                          [] { return std::make_shared<KernelTable>(); });
  {
    std::lock_guard<std::mutex> lock(table->mutex);
    const auto found = table->kernels.find(signature);
    if (found != table->kernels.end()) return found->second;
  }
  Kernel made = make();  // compiles outside the lock
  std::lock_guard<std::mutex> lock(table->mutex);
  return table->kernels.emplace(signature, std::move(made)).first->second;
}

}  // namespace duet
