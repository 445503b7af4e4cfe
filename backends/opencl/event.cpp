// OpenCL events and how two of them give device time. Timestamps come from the queue's profiling
// (CL_QUEUE_PROFILING_ENABLE), in nanoseconds of the device's own clock, so a marker's time and a
// command's time can be compared whichever of them each event ends up using.
#include "event.hpp"

#include <string>
#include <utility>

#include "errors.hpp"

namespace duet::backend::opencl {

namespace {

std::optional<cl_ulong> timestamp(const cl::Event& event, cl_profiling_info which) {
  if (event() == nullptr) return std::nullopt;
  cl_ulong value = 0;
  if (clGetEventProfilingInfo(event(), which, sizeof value, &value, nullptr) != CL_SUCCESS)
    return std::nullopt;
  // Zero is what some drivers report for commands they do not time.
  if (value == 0) return std::nullopt;
  return value;
}

void wait_for(const cl::Event& event) {
  cl_event handle = event();
  const cl_int err = clWaitForEvents(1, &handle);
  if (err == CL_SUCCESS) return;
  cl_int status = CL_SUCCESS;
  if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST &&
      clGetEventInfo(handle, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) ==
          CL_SUCCESS &&
      status < 0)
    throw_driver_error("clWaitForEvents", err,
                       std::string("a command before this event failed with ") + error_name(status) +
                           " (" + std::to_string(status) + ")");
  throw_driver_error("clWaitForEvents", err);
}

double difference_ms(cl_ulong from, cl_ulong to) {
  // Subtracting as integers first: absolute device timestamps are too large for a double to keep
  // nanoseconds.
  return to >= from ? static_cast<double>(to - from) * 1e-6 : -static_cast<double>(from - to) * 1e-6;
}

}  // namespace

void NextCommand::set(const cl::Event& event) {
  std::lock_guard<std::mutex> lock(mutex_);
  event_ = event;
}

cl::Event NextCommand::get() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return event_;
}

OpenCLEvent::OpenCLEvent(cl::Event marker, cl::Event previous, std::shared_ptr<NextCommand> next,
                         bool commands_tracked)
    : marker_(std::move(marker)),
      previous_(std::move(previous)),
      next_(std::move(next)),
      commands_tracked_(commands_tracked) {}

void OpenCLEvent::wait() { wait_for(marker_); }

bool OpenCLEvent::done() {
  cl_int status = CL_QUEUED;
  const cl_int err =
      clGetEventInfo(marker_(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
  if (err != CL_SUCCESS) throw_driver_error("clGetEventInfo", err, "CL_EVENT_COMMAND_EXECUTION_STATUS");
  if (status < 0)
    throw_driver_error("clGetEventInfo", status, "a command before this event failed");
  return status == CL_COMPLETE;
}

std::optional<cl_ulong> OpenCLEvent::marker_time() const {
  auto end = timestamp(marker_, CL_PROFILING_COMMAND_END);
  // A marker cannot be reached before the command ahead of it ended; a driver that says otherwise
  // is not timing its markers, and its number is not used.
  if (end && previous_() != nullptr) {
    auto before = previous_end();
    if (before && *end < *before) return std::nullopt;
  }
  return end;
}

std::optional<cl_ulong> OpenCLEvent::previous_end() const {
  return timestamp(previous_, CL_PROFILING_COMMAND_END);
}

std::optional<cl_ulong> OpenCLEvent::next_start() const {
  if (!next_) return std::nullopt;
  return timestamp(next_->get(), CL_PROFILING_COMMAND_START);
}

double OpenCLEvent::elapsed_ms_until(EventImpl& later_impl) {
  auto& later = static_cast<OpenCLEvent&>(later_impl);
  wait();
  later.wait();

  auto start = marker_time();
  auto end = later.marker_time();
  if (start && end) return difference_ms(*start, *end);

  // Without both markers, only commands can be timed, and only where each had its event.
  if (!commands_tracked_ || !later.commands_tracked_)
    throw_driver_error("clGetEventProfilingInfo", CL_PROFILING_INFO_NOT_AVAILABLE,
                       "the driver gave no usable timestamp for a marker, though it did when duet "
                       "opened the device");
  // With no command between the two events there is nothing to time, and no device time passed
  // that duet could measure.
  if (previous_() == later.previous_()) return 0.0;
  if (!start) start = next_start();
  if (!end) end = later.previous_end();
  if (!start || !end)
    throw_driver_error("clGetEventProfilingInfo", CL_PROFILING_INFO_NOT_AVAILABLE,
                       "the driver gave no timestamps for these events or the commands between them");
  return difference_ms(*start, *end);
}

double OpenCLCommandTime::duration_ms() {
  if (first_() == nullptr) return 0.0;
  wait_for(last_);
  const auto start = timestamp(first_, CL_PROFILING_COMMAND_START);
  const auto end = timestamp(last_, CL_PROFILING_COMMAND_END);
  if (!start || !end)
    throw_driver_error("clGetEventProfilingInfo", CL_PROFILING_INFO_NOT_AVAILABLE,
                       "the driver gave no start or end time for the operation's commands");
  return difference_ms(*start, *end);
}

}  // namespace duet::backend::opencl
