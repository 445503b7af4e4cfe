// Device-side timing with queue events: record an event, enqueue the work, record another and take
// duet::elapsed_ms between them. Each run waits for its own end event, so runs never overlap.
#pragma once

#include <functional>

#include "duet/duet.hpp"

namespace duet::builtins {

struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  int runs = 0;
};

// Device time of `runs` (>= 1) executions of `enqueue`, which must only enqueue work on `queue`.
Timing time_runs(Queue& queue, int runs, const std::function<void()>& enqueue);

}  // namespace duet::builtins
