#include "guard_zones.hpp"

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "state.hpp"

namespace duet::detail {
namespace {

// Not 0 (fresh memory often is) nor 0xFF (-1 and NaN payloads); as a float, -4.3e8.
constexpr unsigned char kFill = 0xCD;
constexpr std::size_t kMinGuard = 256;

backend::QueueImpl& guard_queue(const Device& device) {
  DeviceCore& core = *detail::Access::core(device);
  std::lock_guard<std::mutex> lock(core.guard_mutex);
  if (!core.guard_queue) core.guard_queue = core.impl->create_queue(false);
  return *core.guard_queue;
}

// The first and last changed byte of a zone, or false when it is whole.
bool changed_range(const std::vector<unsigned char>& zone, std::size_t& first, std::size_t& last, std::size_t& count) {
  count = 0;
  for (std::size_t i = 0; i < zone.size(); ++i) {
    if (zone[i] == kFill) continue;
    if (count++ == 0) first = i;
    last = i;
  }
  return count != 0;
}

std::string parameter_text(const Kernel& kernel, std::size_t index) {
  const auto& sig = kernel.signature();
  if (!sig || index >= sig->params.size()) return "";
  const KernelParam& p = sig->params[index];
  return " ('" + (p.kind == KernelParam::Kind::buffer ? "GLOBAL " + p.type_name + "* " : p.type_name + " ") +
         p.name + "')";
}

}  // namespace

bool checked_mode() {
  static const int mode = [] {
    const char* v = std::getenv("DUET_CHECK");
    if (!v || !*v || std::string(v) == "0") return 0;
    if (std::string(v) == "1") return 1;
    return -1;
  }();
  if (mode < 0)
    throw ConfigError(std::string("DUET_CHECK='") + std::getenv("DUET_CHECK") +
                      "' is not 0 or 1; set DUET_CHECK=1 for guard zones around buffers, checked after each "
                      "launch, or unset it");
  return mode == 1;
}

std::size_t guard_bytes(const DeviceInfo& info) {
  if (!checked_mode()) return 0;
  const std::size_t align = info.view_alignment ? info.view_alignment : 1;
  return (kMinGuard + align - 1) / align * align;
}

void arm_guard_zones(const Device& device, backend::BufferImpl& allocation, std::size_t guard) {
  backend::QueueImpl& q = guard_queue(device);
  std::lock_guard<std::mutex> lock(detail::Access::core(device)->guard_mutex);
  const std::size_t total = allocation.bytes();
  q.fill(allocation, 0, guard, &kFill, 1);
  q.fill(allocation, total - guard, guard, &kFill, 1);
  q.finish();
}

void check_guard_zones(const Device& device, backend::QueueImpl& queue, LaunchLog& log, const Kernel& kernel,
                       Span<const KernelArg> args) {
  const std::uint64_t mark = log.mark();
  wait_for_event(device, &log, *watching_faults(device, &log, [&] { return queue.record(); }));
  log.completed(mark);
  std::vector<const backend::BufferImpl*> seen;
  std::vector<unsigned char> before, after;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind != KernelArg::Kind::buffer || !args[i].buffer) continue;
    const RawBuffer& b = *args[i].buffer;
    const std::size_t guard = b.guard_bytes();
    if (guard == 0) continue;
    backend::BufferImpl& impl = detail::Access::buffer(b);
    bool again = false;
    for (const backend::BufferImpl* s : seen) again = again || s == &impl;
    if (again) continue;
    seen.push_back(&impl);
    const std::size_t total = impl.bytes(), user = total - 2 * guard;
    before.assign(guard, 0);
    after.assign(guard, 0);
    watching_faults(device, &log, [&] {
      queue.read(impl, 0, before.data(), guard);
      queue.read(impl, total - guard, after.data(), guard);
      queue.finish();
    });
    std::size_t first = 0, last = 0, count = 0;
    std::ostringstream m;
    if (changed_range(after, first, last, count)) {
      m << "past the end of";
      m << " the buffer behind argument " << (i + 1) << parameter_text(kernel, i) << ", of " << user
        << " bytes: " << count << " of the " << guard << " guard bytes after it changed, the first " << first
        << " bytes past its end";
    } else if (changed_range(before, first, last, count)) {
      m << "before the start of";
      m << " the buffer behind argument " << (i + 1) << parameter_text(kernel, i) << ", of " << user
        << " bytes: " << count << " of the " << guard << " guard bytes before it changed, the nearest "
        << (guard - last) << " bytes before its start";
    } else {
      continue;
    }
    watching_faults(device, &log, [&] {
      queue.fill(impl, 0, guard, &kFill, 1);
      queue.fill(impl, total - guard, guard, &kFill, 1);
      queue.finish();
    });
    throw KernelFaultError(KernelFaultError::Fault::out_of_bounds,
                           "kernel '" + kernel.name() + "' wrote " + m.str() + " on " + device.info().id() +
                               " (DUET_CHECK=1). The guard zone is restored and the device usable; the "
                               "buffer's own contents may be wrong. Check the kernel's index bounds",
                           {kernel.name()}, "", static_cast<int>(i + 1), true);
  }
}

}  // namespace duet::detail
