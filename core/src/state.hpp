// The shared state behind the public handles: each public class is a thin handle over one of these,
// which in turn owns the backend object. Core keeps here what is backend-neutral: the program cache
// and the kernel signatures parsed from dialect source.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>
#include <unordered_map>

#include "access.hpp"
#include "backend.hpp"
#include "kernel_faults.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"

namespace duet {

namespace detail {

struct Recording;  // graph_state.hpp

struct DeviceCore {
  std::shared_ptr<backend::DeviceImpl> impl;
  const backend::Backend* backend = nullptr;  // the backend the device belongs to
  // impl's description, with what only core can tell: whether another backend's compiler gives the
  // device architecture-specific PTX (arch_specific_target).
  DeviceInfo info;
  // That compiler, for programs asking for the architecture's own instructions; null where the
  // device's own compiler takes them.
  const backend::Backend* ptx_compiler = nullptr;
  std::string ptx_compiler_name;  // its backend's name ("cuda")
  std::mutex cache_mutex;
  // Programs compiled on this device, by complete source text: each is compiled once.
  std::map<std::string, std::shared_ptr<Program::State>> programs;
  std::set<std::string> compiling;      // keys some thread is compiling now
  std::condition_variable compiled;     // signalled when one of them is done
  // Built-in kernels by "file/kernel;defines" (see extension.cpp): the launch fast path.
  std::mutex builtin_mutex;
  std::unordered_map<std::string, Kernel> builtin_kernels;
  // Those without defines, found by the addresses of the callers' names. The names are kept too: a
  // caller may pass a temporary string, whose address a different name can take later.
  struct PlainKernel {
    const char* library;
    const char* file;
    const char* kernel;
    std::string file_name, kernel_name;
    Kernel compiled;
  };
  std::vector<PlainKernel> plain_kernels;
  // What modules keep per device (extension::device_slot), by key.
  std::mutex slots_mutex;
  std::map<std::string, std::shared_ptr<void>, std::less<>> slots;
  // Set when a kernel outran DUET_KERNEL_TIMEOUT (see kernel_faults.hpp).
  std::atomic<bool> abandoned{false};
  std::atomic<std::uint64_t> queues_made{0};  // numbers the device's queues for messages
  // DUET_CHECK=1: the queue that arms new buffers' guard zones (see guard_zones.cpp).
  std::mutex guard_mutex;
  std::shared_ptr<backend::QueueImpl> guard_queue;
};

}  // namespace detail

struct Program::State {
  Device device;
  std::shared_ptr<backend::ProgramImpl> impl;
  std::once_flag parsed;
  std::map<std::string, KernelSignature> signatures;  // parsed from the dialect source
  // Per kernel, its buffer parameters that take a byte offset (view_offsets.hpp).
  std::map<std::string, std::vector<std::size_t>> view_offsets;
  std::vector<std::string> native_names;              // kernels found in a native source
  std::map<std::string, KernelSignature> native_signatures;  // parsed from a native source
  std::mutex kernels_mutex;
  std::map<std::string, std::shared_ptr<const Kernel::State>> kernels;
};

struct Kernel::State {
  Device device;
  std::shared_ptr<backend::ProgramImpl> program;  // keeps the module alive
  std::shared_ptr<backend::KernelImpl> impl;
  std::string name;
  std::optional<KernelSignature> signature;
  // The declared parameters that take a byte offset, passed after the declared ones (view_offsets.hpp).
  std::vector<std::size_t> view_offset_params;
};

namespace detail {

// A backend queue and the lock that every call into it is made under (QueueImpl::finish aside,
// which backends allow at any time). Queue::State holds it, and so does every event still pending
// on it: recording a pending event is a call into the queue like any other, and must not interleave
// with another thread's enqueue. Kept apart from Queue::State, which holds its latest event, so
// that a pending event does not keep its Queue alive in a cycle.
//
// The queue is in order, so once one of its events has completed, so have all recorded before it.
// `recorded` numbers the driver events as they are recorded (under `mutex`); `completed` is the
// highest number known complete from a wait, a finish or a blocking map. Event::done() answers
// from it first, since a driver may report an earlier event as still running for a while after a
// later point has been waited for (NVIDIA's OpenCL does, after a blocking map).
//
// For the order between queues (queue_order.hpp), operations are numbered too: `operations` counts
// those enqueued (written under `mutex`), `operations_done` is the highest the host knows complete,
// and `clock` says which other queues' operations this queue's later work is ordered after.
struct LockedQueue {
  std::mutex mutex;
  std::shared_ptr<backend::QueueImpl> impl;
  std::shared_ptr<LaunchLog> log = std::make_shared<LaunchLog>();  // its own lock
  std::atomic<std::uint64_t> recorded{0};
  std::atomic<std::uint64_t> completed{0};
  const std::uint64_t id = next_id();  // unique in the process
  std::string label;                    // "queue 2 of opencl:0", for messages
  std::atomic<std::uint64_t> operations{0};
  std::atomic<std::uint64_t> operations_done{0};
  std::mutex clock_mutex;  // written under `mutex` too, so enqueues read it without this one
  std::shared_ptr<const QueueClock> clock;

  std::shared_ptr<const QueueClock> clock_now() {
    std::lock_guard<std::mutex> lock(clock_mutex);
    return clock;
  }
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> next{0};
    return ++next;
  }

  // Everything recorded up to `sequence` has completed.
  void completed_up_to(std::uint64_t sequence) {
    std::uint64_t known = completed.load();
    while (known < sequence && !completed.compare_exchange_weak(known, sequence)) {
    }
  }
};

// An Event's state. Operations hand out pending events (no driver event yet); one is recorded
// when it is first used, or just before the next operation on its queue if it is still held, so it
// always marks the point right after its own operation. Every write of `impl` happens under the
// queue's lock, then under `mutex`: the queue's lock first, as enqueues take them.
struct EventState {
  Device device;
  std::mutex mutex;
  std::shared_ptr<backend::EventImpl> impl;  // null while pending; never changes once set
  std::shared_ptr<LockedQueue> queue;        // where a pending event is recorded
  std::shared_ptr<const LaunchLog> log;      // the kernels of its queue, should a wait fail
  // Its queue, kept once recorded too, without keeping the queue alive: elapsed_ms compares two
  // events' queues by it (owner_before, so an address reused by a later queue never matches).
  std::weak_ptr<LockedQueue> origin;
  std::uint64_t sequence = 0;  // its number among its queue's recorded events; set with impl
  // Set before the event is handed out, then constant (a reused spare was held by no one).
  bool point = false;  // made by Queue::record(): a point, not an operation, so no duration
  // Set with the event like `point`: the number of the last operation of its queue it covers and
  // that queue's clock then (queue_order.hpp).
  std::uint64_t operation = 0;
  std::shared_ptr<const QueueClock> clock;
  std::shared_ptr<backend::CommandTimeImpl> command_time;  // on a queue with command timing
  bool recorded_in_graph = false;  // returned by an operation a capture recorded: marks nothing

  // For a caller that holds queue->mutex already: an enqueue settling the event before its own.
  backend::EventImpl& materialise_locked() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!impl) {
      impl = queue->impl->record();
      sequence = ++queue->recorded;
      queue.reset();
    }
    return *impl;
  }

  // For the event's users, on any thread.
  backend::EventImpl& materialise() {
    std::shared_ptr<LockedQueue> pending_on;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (impl) return *impl;
      pending_on = queue;
    }
    // Taking the queue's lock while holding `mutex` would deadlock with an enqueue that settles
    // this event; another thread may record it in between, which materialise_locked sees.
    std::lock_guard<std::mutex> queue_lock(pending_on->mutex);
    return materialise_locked();
  }
};

}  // namespace detail

// A Queue may be shared by threads: everything below `queue` is touched only under queue->mutex.
struct Queue::State {
  Device device;
  std::shared_ptr<detail::LockedQueue> queue;
  std::shared_ptr<detail::EventState> last;   // the event of the latest operation, maybe pending
  std::shared_ptr<detail::EventState> spare;  // a pending event nobody kept, for reuse
  bool command_timing = false;                // QueueOptions::command_timing
  std::vector<backend::LaunchArg> launch_scratch;
  std::vector<std::uint64_t> offset_scratch;  // the byte offsets of views (view_offsets.hpp)
  // A graph's capture (graph_state.hpp): `capturing` is read without the lock first, so that
  // operations outside a capture pay one relaxed load; `recording` is what is recorded so far.
  std::atomic<bool> capturing{false};
  std::shared_ptr<detail::Recording> recording;
  // What modules keep per queue (extension::queue_slot), by key. Last, so it goes first: what it
  // holds is freed while the queue still exists.
  std::mutex slots_mutex;
  std::map<std::string, std::shared_ptr<void>, std::less<>> slots;
};

}  // namespace duet
