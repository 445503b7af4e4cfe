// Median device time over several runs, measured with queue events.
#include "case_timing.hpp"

#include <algorithm>
#include <vector>

namespace duet::builtins {

Timing time_runs(Queue& queue, int runs, const std::function<void()>& enqueue) {
  std::vector<double> ms;
  for (int run = 0; run < std::max(runs, 1); ++run) {
    const Event start = queue.record();
    enqueue();
    const Event end = queue.record();
    end.wait();
    ms.push_back(elapsed_ms(start, end));
  }
  std::sort(ms.begin(), ms.end());
  Timing timing;
  timing.runs = static_cast<int>(ms.size());
  timing.min_ms = ms.front();
  const std::size_t mid = ms.size() / 2;
  timing.median_ms = ms.size() % 2 ? ms[mid] : 0.5 * (ms[mid - 1] + ms[mid]);
  return timing;
}

}  // namespace duet::builtins
