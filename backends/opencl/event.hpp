// A point in an OpenCL queue's timeline. It is a marker enqueued with no wait list, which on an
// in-order queue completes when everything before it has completed, and whose profiling end time
// is the moment it was reached. Not every driver gives markers usable timestamps, so the event also
// keeps the commands on either side of it: the last one enqueued before it, and the first one
// enqueued after it, which the queue fills in later. When a marker's time is missing or impossible,
// the end of the command before (for the later event) and the start of the command after (for the
// earlier one) measure the same span from real commands' timestamps.
#pragma once

#include <memory>
#include <mutex>
#include <optional>

#include "backend.hpp"
#include "cl_api.hpp"

namespace duet::backend::opencl {

// Shared by the events recorded since the last command and their queue, which sets it at the next
// command; read after the events were waited for, possibly on another thread, hence the lock.
class NextCommand {
 public:
  void set(const cl::Event& event);
  cl::Event get() const;

 private:
  mutable std::mutex mutex_;
  cl::Event event_;
};

class OpenCLEvent final : public EventImpl {
 public:
  // `commands_tracked`: every command on the queue had an event, so the neighbours can stand in
  // for a marker without a timestamp; otherwise (launches without events) only markers time.
  OpenCLEvent(cl::Event marker, cl::Event previous, std::shared_ptr<NextCommand> next, bool commands_tracked);

  void wait() override;
  // Blocks until both events have completed: their timestamps exist only then.
  double elapsed_ms_until(EventImpl& later) override;
  bool done() override;
  const cl::Event& marker() const noexcept { return marker_; }

 private:
  std::optional<cl_ulong> marker_time() const;
  std::optional<cl_ulong> previous_end() const;
  std::optional<cl_ulong> next_start() const;

  cl::Event marker_;
  cl::Event previous_;  // null when nothing was enqueued before the marker
  std::shared_ptr<NextCommand> next_;
  bool commands_tracked_;
};

// One operation's device time, from its commands' own profiling: the start of the first command
// it enqueued to the end of the last (OpenCLQueue::start_timing, stop_timing).
class OpenCLCommandTime final : public CommandTimeImpl {
 public:
  // Both null for an operation that enqueued no command.
  OpenCLCommandTime(cl::Event first, cl::Event last) : first_(std::move(first)), last_(std::move(last)) {}
  double duration_ms() override;

 private:
  cl::Event first_, last_;
};

}  // namespace duet::backend::opencl
