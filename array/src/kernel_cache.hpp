// The array layer's first-level kernel cache: compiled kernels kept per device under a short
// signature (operation, dtypes, layout), so a repeated call skips generating its source and the
// program cache's lookup (Device::compile tokenises the whole source to find it). The program cache
// stays the second level: a signature seen for the first time compiles through it.
#pragma once

#include <functional>
#include <string>

#include "duet/extension.hpp"

namespace duet {

// The kernel kept under `signature` for `device`, made by `make` on first use (outside the lock:
// two threads racing on a new signature may both make it; the first kept wins).
Kernel cached_kernel(const Device& device, const std::string& signature, const std::function<Kernel()>& make);

}  // namespace duet
