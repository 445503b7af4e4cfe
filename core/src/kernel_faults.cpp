#include "kernel_faults.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "state.hpp"

namespace duet::detail {
namespace {

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", '" : "'") + names[i] + "'";
  return out;
}

// "kernel 'k'" or "one of the kernels launched on this queue since it last finished: 'a', 'b'".
std::string culprits(const LaunchLog* log, std::vector<std::string>& names) {
  std::uint64_t older = 0;
  if (log) names = log->in_flight(&older);
  if (names.empty())
    return "a kernel of this device (the queue it ran on is not known here; call finish() on each queue "
           "to find which)";
  if (names.size() == 1 && older == 0) return "kernel '" + names.front() + "'";
  std::string s = "one of the kernels launched on this queue since it last finished, oldest first: ";
  if (older) s += std::to_string(older) + " earlier launch(es), then ";
  return s + quoted_list(names) + " (DUET_CHECK=1 waits after each launch and names the one)";
}

}  // namespace

std::optional<std::chrono::duration<double>> kernel_timeout() {
  struct Setting {
    std::optional<std::chrono::duration<double>> timeout;
    std::string error;
  };
  static const Setting setting = [] {
    Setting s;
    const char* v = std::getenv("DUET_KERNEL_TIMEOUT");
    if (!v || !*v) return s;
    char* end = nullptr;
    errno = 0;
    const double seconds = std::strtod(v, &end);
    if (errno || end == v || *end != '\0' || !std::isfinite(seconds) || seconds <= 0)
      s.error = std::string("DUET_KERNEL_TIMEOUT='") + v +
                "' is not a number of seconds above 0; set it to e.g. 30, or unset it to wait for kernels "
                "however long they run";
    else
      s.timeout = std::chrono::duration<double>(seconds);
    return s;
  }();
  if (!setting.error.empty()) throw ConfigError(setting.error);
  return setting.timeout;
}

bool device_abandoned(const Device& device) {
  return detail::Access::core(device) && detail::Access::core(device)->abandoned.load(std::memory_order_relaxed);
}

void throw_if_abandoned(const Device& device) {
  if (!device_abandoned(device)) return;
  throw KernelFaultError(KernelFaultError::Fault::timeout,
                         device.info().id() + " (" + device.info().name +
                             ") was given up after a kernel did not finish within DUET_KERNEL_TIMEOUT; "
                             "nothing more runs on it in this process: report the failure and exit",
                         {}, "", 0, false);
}

void rethrow_driver_error(const Device& device, const LaunchLog* log, const DriverError& error) {
  if (!detail::Access::core(device) || !detail::Access::core(device)->backend->is_kernel_fault(error)) throw error;
  std::vector<std::string> names;
  const std::string who = culprits(log, names);
  const bool usable = detail::Access::core(device)->backend->survives_kernel_fault();
  std::ostringstream m;
  m << who << " faulted on " << device.info().id() << " (" << device.info().name << "): " << error.native_name()
    << ", reported by " << error.call() << ". ";
  if (usable)
    m << "Out-of-bounds accesses are the usual cause; DUET_CHECK=1 finds writes past a buffer's ends";
  else
    m << "The device's context is lost: every later call on it fails alike. Report the error and end the "
         "process. Out-of-bounds accesses are the usual cause; DUET_CHECK=1 finds writes just past a "
         "buffer's ends, compute-sanitizer any access";
  throw KernelFaultError(KernelFaultError::Fault::device_fault, m.str(), std::move(names), error.native_name(),
                         0, usable);
}

void wait_for_event(const Device& device, const LaunchLog* log, backend::EventImpl& event) {
  throw_if_abandoned(device);
  const auto timeout = kernel_timeout();
  if (!timeout) {
    watching_faults(device, log, [&] { event.wait(); });
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(*timeout);
  // Short sleeps first, as most waits are for work about to end; a millisecond later on, so that a
  // long wait costs the host little.
  auto pause = std::chrono::microseconds(20);
  while (!watching_faults(device, log, [&] { return event.done(); })) {
    if (Clock::now() >= deadline) {
      detail::Access::core(device)->abandoned = true;
      detail::Access::core(device)->impl->abandon();
      std::vector<std::string> names;
      const std::string who = culprits(log, names);
      std::ostringstream m;
      m << who << " did not finish on " << device.info().id() << " (" << device.info().name << ") within "
        << timeout->count()
        << " s (DUET_KERNEL_TIMEOUT). duet waits for the device no more: it is given up, and what it holds "
           "is left to the end of the process, which may exit now. Look for a loop that never ends, or "
           "raise DUET_KERNEL_TIMEOUT if the work is that long";
      throw KernelFaultError(KernelFaultError::Fault::timeout, m.str(), std::move(names), "", 0, false);
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(1)) pause *= 2;
  }
}

}  // namespace duet::detail
