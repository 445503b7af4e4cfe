// Order between queues: what duet knows about which queue's work may still touch which bytes of an
// allocation, and what orders one queue after another. Two uses share it:
//   - memory that orders itself (RawBuffer::order_between_queues; every Array's): an operation on
//     one queue that conflicts with another queue's pending work on the same bytes first makes its
//     queue wait for that work, on the device;
//   - DUET_CHECK=1, for all other memory: such an operation is an UnorderedAccessError instead,
//     naming both queues and both operations, unless the program ordered them itself.
// A program orders queue P after queue Q's operation by making P wait for an event of Q marking it
// or a later point (Queue::wait; transitively through other queues), or by the host learning that
// it completed (Event::wait or done, Queue::finish, a blocking map). DUET_CHECK's own waits (the
// guard-zone check after each launch) do not count: the detector judges the program's order, not
// the timing that checking happens to impose.
//
// Bookkeeping is per allocation and by byte range, so views of one buffer used by different queues
// do not conflict unless their bytes overlap. Memory that neither orders itself nor is checked costs
// one relaxed load per buffer of an operation and nothing else.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace duet {
namespace backend {
class EventImpl;
class QueueImpl;
}  // namespace backend

namespace detail {

struct LockedQueue;

// What a queue's later work is ordered after: for each queue it has waited for (directly or through
// the events it waited for), the last of that queue's operations covered. Never changed once made:
// a queue replaces its clock when it waits, and each event keeps the clock of its point.
struct QueueClock {
  struct Entry {
    std::uint64_t queue_id;
    std::weak_ptr<LockedQueue> queue;  // for the host's knowledge after a finish (host_reached)
    std::uint64_t operation;
  };
  std::vector<Entry> entries;

  // The last operation of the queue numbered `queue_id` this clock covers (0: none).
  std::uint64_t covers(std::uint64_t queue_id) const noexcept;
  // This clock joined with `other` and with one more (queue, operation) pair.
  static std::shared_ptr<const QueueClock> joined(const std::shared_ptr<const QueueClock>& mine,
                                                  const std::shared_ptr<const QueueClock>& other,
                                                  const std::shared_ptr<LockedQueue>& queue, std::uint64_t operation);
};

// The host has seen `queue`'s operations up to `operation` complete, and with them whatever `clock`
// (the clock at that point) covers.
void host_reached(LockedQueue& queue, std::uint64_t operation, const QueueClock* clock);

// One allocation's pending uses, by queue and byte range. Lives in the allocation's BufferImpl.
class BufferAccesses {
 public:
  enum class Mode : unsigned char { off, checked, ordered };
  Mode mode() const noexcept { return mode_.load(std::memory_order_relaxed); }
  // Set once when the allocation is made (checked under DUET_CHECK=1), then only raised to ordered.
  void set_mode(Mode mode) noexcept { mode_.store(mode, std::memory_order_relaxed); }

 private:
  friend class CrossQueueOrder;
  struct Entry {
    std::shared_ptr<LockedQueue> queue;
    std::uint64_t operation;
    std::size_t begin, end;  // bytes of the allocation
    bool write;
    std::string what;  // DUET_CHECK's messages: the operation, e.g. "kernel 'scale'"
  };
  std::atomic<Mode> mode_{Mode::off};
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

// The buffer uses of one operation. Queue operations make one, add() their buffers (a no-op for
// memory that is neither ordered nor checked), call prepare() before taking their queue's lock,
// wait() inside it before enqueueing, and remember() after.
class CrossQueueOrder {
 public:
  // `what` and `name` describe the operation for DUET_CHECK's messages ("kernel" and its name,
  // "copy", ...); both must outlive this object.
  explicit CrossQueueOrder(const char* what, const std::string* name = nullptr) : what_(what), name_(name) {}

  // Bytes [begin, end) of an allocation (its `accesses`), which the operation reads (write = false) or may write;
  // `handle_bytes` is the size of the handle the caller passed, for messages.
  void add(BufferAccesses& accesses, std::size_t begin, std::size_t end, bool write, std::size_t handle_bytes) {
    if (accesses.mode() == BufferAccesses::Mode::off) return;
    add_tracked(accesses, begin, end, write, handle_bytes);
  }
  bool empty() const noexcept { return uses_.empty(); }
  // The name after `what` in messages (a kernel's), once the operation is known to use tracked memory.
  void set_name(const std::string* name) noexcept { name_ = name; }

  // Finds the other queues' pending uses these conflict with that `queue` is not yet ordered
  // after. Ordered memory: records an event on each such queue for wait(). Checked memory: throws
  // UnorderedAccessError. Takes no queue's lock but briefly each other queue's, to record.
  // Checked memory gets waits too, not an error (Queue::order_after asks for them).
  void always_wait() noexcept { always_wait_ = true; }
  void prepare(const std::shared_ptr<LockedQueue>& queue);
  // Under `queue`'s lock, before the operation: makes it wait for the events prepare recorded.
  void wait(backend::QueueImpl& impl, LockedQueue& queue);
  // Under `queue`'s lock, after the operation numbered `operation` was enqueued.
  void remember(const std::shared_ptr<LockedQueue>& queue, std::uint64_t operation);

 private:
  struct Use {
    BufferAccesses* accesses;
    std::size_t begin, end;
    bool write;
    std::size_t handle_bytes;
  };
  struct Wait {
    std::shared_ptr<LockedQueue> queue;
    std::shared_ptr<backend::EventImpl> event;
    std::uint64_t operation;  // the other queue's last operation the event covers
  };
  void add_tracked(BufferAccesses& accesses, std::size_t begin, std::size_t end, bool write,
                   std::size_t handle_bytes);
  std::string description() const;

  const char* what_;
  const std::string* name_;
  bool always_wait_ = false;
  std::vector<Use> uses_;
  std::vector<Wait> waits_;
};

}  // namespace detail
}  // namespace duet
