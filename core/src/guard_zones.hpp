// DUET_CHECK=1: every buffer duet allocates gets a guard zone before and after it, filled with a
// known byte; after each launch duet waits for the kernel and compares the zones of its buffer
// arguments, so a kernel that wrote past either end of one is named with the argument, at once.
// The zones hide nothing from users: a buffer's offset() is the front zone's size, and views,
// transfers and launches stay inside [offset, offset + bytes). What it cannot see: writes that
// land farther than a zone away (they hit other memory, or fault), writes of the fill byte itself,
// reads out of bounds, and writes past the end of a view that stay inside its buffer.
#pragma once

#include <cstddef>
#include <vector>

#include "backend.hpp"
#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"
#include "duet/span.hpp"
#include "kernel_faults.hpp"

namespace duet::detail {

// DUET_CHECK, read once: "1" on, "0" or unset off, anything else a ConfigError.
bool checked_mode();

// The guard zone size for a new buffer on `device`: 0 when checks are off, else at least 256
// bytes and a multiple of the device's view alignment (so kernels may be handed the offset range).
std::size_t guard_bytes(const DeviceInfo& info);

// Fills both zones of a new allocation of `user_bytes` between two zones of `guard` bytes, and
// waits for that.
void arm_guard_zones(const Device& device, backend::BufferImpl& allocation, std::size_t guard);

// After a launch of `kernel` on `queue` (under the queue's lock): waits for it (DUET_KERNEL_TIMEOUT
// applies; `log` is the queue's, and its launches are complete after this) and compares the
// zones of each guarded buffer argument; KernelFaultError (out_of_bounds) naming the kernel and
// the argument when one changed, after restoring it.
void check_guard_zones(const Device& device, backend::QueueImpl& queue, LaunchLog& log, const Kernel& kernel,
                       Span<const KernelArg> args);

}  // namespace duet::detail
