// parallel_for: one std::thread per chunk; each call starts its own, so nothing outlives it.
#include "parallel.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace duet::reference {

void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
  const std::size_t threads =
      std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), n));
  if (threads == 1) {
    if (n > 0) body(0, n);
    return;
  }
  const std::size_t chunk = (n + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t begin = t * chunk;
    const std::size_t end = std::min(n, begin + chunk);
    if (begin < end) workers.emplace_back(body, begin, end);
  }
  for (auto& worker : workers) worker.join();
}

}  // namespace duet::reference
