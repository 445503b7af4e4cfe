// What every kernel generator shares: ElementwiseKernel and ReductionKernel in the core, and the
// modules that write kernels of their own (duet::array's fused expressions, reductions and scans).
// Each generator writes its own source; this header holds what must not differ between them:
//
// - the layout rule: how a generated kernel spreads the elements over work-items on a device, and
//   the one reading of DUET_ELEMENTWISE_LAYOUT, which forces a layout (the tests run every device
//   in each);
// - the cache of generated kernels: per device, under a key that names everything the source
//   depends on (the generated source itself, or a shorter signature of it), so that a repeated
//   call finds its kernel without writing the source again. Device::compile's program cache stays
//   the second level: a key seen for the first time compiles through it.
//
// Everything here is thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "duet/device.hpp"
#include "duet/export.hpp"
#include "duet/extension.hpp"
#include "duet/program.hpp"

namespace duet::generated {

// How a generated kernel spreads the elements over work-items.
//   grid_stride (GPUs): a capped grid strides over the elements, so a launch never has more groups
//     than fill the device. Kept as measured on the H100 (close to vector_add for elementwise
//     kernels and sums); a change there needs a GPU to measure it.
//   blocked (CPUs): each work-item takes its own elements with no loop around the user's code.
//     PoCL runs a group as a loop over its work-items and vectorises that loop only when nothing
//     inside it loops; behind a grid-stride loop it is many times slower than vector_add.
//   vector4 (every device, where the operands allow): where every array argument has 4-byte
//     elements and starts 16 bytes aligned, a work-item per four elements, each array read and
//     written as one 16-byte vector, as vector_add does; the other forms stay for other calls. One
//     element per load keeps too few bytes in flight to reach a GPU's copy bandwidth.
enum class Layout { grid_stride, blocked, vector4 };

// The loop a device of `kind` takes: grid_stride on GPUs, blocked on CPUs (what DUET_ELEMENTWISE_LAYOUT
// does not change: generate_source and ReductionKernel follow the device alone).
DUET_API Layout layout_for(DeviceKind kind);

// The layout DUET_ELEMENTWISE_LAYOUT=grid_stride|blocked|vector4 forces, if any; ArgumentError for a
// name that is no layout. The only place that reads the variable.
DUET_API std::optional<Layout> forced_layout();

// The forms generated elementwise kernels take on a device of `kind`, DUET_ELEMENTWISE_LAYOUT
// applied (ArgumentError as forced_layout).
struct Forms {
  // The one-element form: layout_for(kind), or the forced grid_stride or blocked.
  Layout loop = Layout::grid_stride;
  // Flat kernels take the vector4 form where their operands allow it: unless grid_stride or
  // blocked is forced.
  bool vector4 = true;
  // Strided kernels walk rows the GPUs' way (a few elements per work-item, a group's width apart,
  // so neighbouring work-items read neighbouring elements) rather than the CPUs' (a run of
  // elements per work-item): on GPUs, and under a forced vector4 on every device, the tests' way
  // to run the GPUs' forms there.
  bool gpu_rows = true;
};
DUET_API Forms forms_for(DeviceKind kind);

// A table of values made once per key, even when threads race for a new key: the first makes it
// while the others wait for that key alone (the table stays open for other keys). A `make` that
// throws leaves no entry, so the next call tries again (and reports the same error).
template <class T>
class OnceTable {
 public:
  template <class Make>
  std::shared_ptr<const T> get(const std::string& key, Make&& make) {
    std::shared_ptr<Slot> slot;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::shared_ptr<Slot>& found = slots_[key];
      if (!found) found = std::make_shared<Slot>();
      slot = found;
    }
    std::lock_guard<std::mutex> lock(slot->mutex);
    if (!slot->value) {
      slot->value = std::make_shared<const T>(make());
      ++made_;
    }
    return slot->value;
  }
  // The values made so far.
  std::size_t size() const { return made_.load(); }

 private:
  struct Slot {
    std::mutex mutex;
    std::shared_ptr<const T> value;
  };
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Slot>> slots_;
  std::atomic<std::size_t> made_{0};
};

// The value kept under `key` in `device`'s table `table` (one table per value type and use, e.g.
// "duet.array.fused"), made by `make` on first use. Kept for the life of the device's shared state.
template <class T, class Make>
std::shared_ptr<const T> cached(const Device& device, const char* table, const std::string& key, Make&& make) {
  const auto t = extension::device_state<OnceTable<T>>(device, table, [] { return std::make_shared<OnceTable<T>>(); });
  return t->get(key, std::forward<Make>(make));
}

// The generated kernel kept under `key` for `device`, made (written and compiled) by `make` on
// first use. The key names everything the kernel depends on: its source, or a signature from
// which the source follows.
template <class Make>
Kernel cached_kernel(const Device& device, const std::string& key, Make&& make) {
  return *cached<Kernel>(device, "duet.generated.kernels", key, std::forward<Make>(make));
}

}  // namespace duet::generated
