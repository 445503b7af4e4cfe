// Kernels that go wrong while they run: which kernels a queue has in flight, the driver's fault
// reports turned into KernelFaultError naming them, and waits with a deadline (DUET_KERNEL_TIMEOUT)
// after which the device is given up rather than waited for.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"
#include "duet/device.hpp"
#include "duet/error.hpp"
#include "launch_log.hpp"

namespace duet::detail {

// DUET_KERNEL_TIMEOUT in seconds, read once; nullopt when unset (waits are unbounded). A value that
// is not a positive number is a ConfigError.
std::optional<std::chrono::duration<double>> kernel_timeout();

// Whether `device` was given up after a timeout (see DeviceImpl::abandon); operations on it then
// throw KernelFaultError instead of reaching the driver.
bool device_abandoned(const Device& device);
void throw_if_abandoned(const Device& device);

// Rethrows `error` as KernelFaultError when the device's backend says it reports a kernel's fault.
[[noreturn]] void rethrow_driver_error(const Device& device, const LaunchLog* log, const DriverError& error);

// Runs f(), turning the driver's reports of a kernel's fault into KernelFaultError.
template <class F>
decltype(auto) watching_faults(const Device& device, const LaunchLog* log, F&& f) {
  try {
    return f();
  } catch (const DriverError& e) {
    rethrow_driver_error(device, log, e);
  }
}

// Waits until `event` completed. With DUET_KERNEL_TIMEOUT set, polls it instead and, past the
// deadline, gives the device up and throws KernelFaultError (timeout) naming the log's kernels.
void wait_for_event(const Device& device, const LaunchLog* log, backend::EventImpl& event);

}  // namespace duet::detail
