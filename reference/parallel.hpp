// Splits host work over the machine's cores: the references check GPU-sized problems, which would
// take minutes on one core.
#pragma once

#include <cstddef>
#include <functional>

namespace duet::reference {

// Calls body(begin, end) on disjoint chunks covering [0, n), on up to hardware_concurrency threads.
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

}  // namespace duet::reference
