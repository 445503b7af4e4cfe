#include "queue_order.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "duet/error.hpp"
#include "state.hpp"

namespace duet::detail {
namespace {

// Past this many pending uses of one allocation (many small views written on one queue without a
// wait or finish), each queue's are merged into the range that spans them, which may order more
// than needed but keeps every operation's bookkeeping short.
constexpr std::size_t kMaxEntries = 64;

bool overlap(std::size_t b1, std::size_t e1, std::size_t b2, std::size_t e2) { return b1 < e2 && b2 < e1; }

void raise_to(std::atomic<std::uint64_t>& value, std::uint64_t to) {
  std::uint64_t known = value.load();
  while (known < to && !value.compare_exchange_weak(known, to)) {
  }
}

}  // namespace

std::uint64_t QueueClock::covers(std::uint64_t queue_id) const noexcept {
  for (const Entry& e : entries)
    if (e.queue_id == queue_id) return e.operation;
  return 0;
}

std::shared_ptr<const QueueClock> QueueClock::joined(const std::shared_ptr<const QueueClock>& mine,
                                                     const std::shared_ptr<const QueueClock>& other,
                                                     const std::shared_ptr<LockedQueue>& queue,
                                                     std::uint64_t operation) {
  auto out = std::make_shared<QueueClock>();
  if (mine) out->entries = mine->entries;
  bool changed = false;
  auto merge = [&](std::uint64_t id, const std::weak_ptr<LockedQueue>& q, std::uint64_t op) {
    for (Entry& e : out->entries)
      if (e.queue_id == id) {
        if (e.operation < op) e.operation = op, changed = true;
        return;
      }
    out->entries.push_back(Entry{id, q, op});
    changed = true;
  };
  if (other)
    for (const Entry& e : other->entries) merge(e.queue_id, e.queue, e.operation);
  if (queue) merge(queue->id, queue, operation);
  if (!changed) return mine;
  return out;
}

void host_reached(LockedQueue& queue, std::uint64_t operation, const QueueClock* clock) {
  raise_to(queue.operations_done, operation);
  if (!clock) return;
  for (const QueueClock::Entry& e : clock->entries)
    if (const std::shared_ptr<LockedQueue> other = e.queue.lock()) raise_to(other->operations_done, e.operation);
}

void CrossQueueOrder::add_tracked(BufferAccesses& accesses, std::size_t begin, std::size_t end, bool write,
                                  std::size_t handle_bytes) {
  if (begin == end) return;
  uses_.push_back(Use{&accesses, begin, end, write, handle_bytes});
}

std::string CrossQueueOrder::description() const {
  return name_ ? std::string(what_) + " '" + *name_ + "'" : std::string(what_);
}

void CrossQueueOrder::prepare(const std::shared_ptr<LockedQueue>& queue) {
  const std::shared_ptr<const QueueClock> clock = queue->clock_now();
  auto ordered_after = [&](const BufferAccesses::Entry& e) {
    return e.queue->operations_done.load() >= e.operation || (clock && clock->covers(e.queue->id) >= e.operation);
  };
  for (const Use& use : uses_) {
    BufferAccesses& a = *use.accesses;
    std::lock_guard<std::mutex> lock(a.mutex_);
    const bool checked = a.mode() == BufferAccesses::Mode::checked && !always_wait_;
    for (const BufferAccesses::Entry& e : a.entries_) {
      if (e.queue == queue || !(use.write || e.write) || !overlap(use.begin, use.end, e.begin, e.end) ||
          ordered_after(e))
        continue;
      if (!checked) {
        auto w = std::find_if(waits_.begin(), waits_.end(), [&](const Wait& x) { return x.queue == e.queue; });
        if (w == waits_.end()) waits_.push_back(Wait{e.queue, nullptr, 0});
        continue;
      }
      std::ostringstream m;
      m << "DUET_CHECK: " << description() << " on " << queue->label << (use.write ? " writes" : " reads")
        << " a buffer of " << use.handle_bytes << " bytes that " << (e.what.empty() ? "an operation" : e.what)
        << " on " << e.queue->label << (e.write ? " writes" : " reads")
        << " (bytes overlap), and nothing orders the two queues: the operations may run at the same time. "
           "Before this call, make "
        << queue->label << " wait for that operation's event (queue.wait(event)), or wait for the event or "
        << "finish " << e.queue->label
        << " on the host; or let duet order the memory itself (Array, or order_between_queues() on the buffer)";
      throw UnorderedAccessError(m.str());
    }
  }
  // Recorded now, without this queue's lock (see Queue::wait): the point covers the conflicting
  // operation and whatever its queue enqueued after it, which orders a little more than needed.
  for (Wait& w : waits_) {
    std::lock_guard<std::mutex> lock(w.queue->mutex);
    w.event = w.queue->impl->record();
    w.operation = w.queue->operations.load();
  }
}

void CrossQueueOrder::wait(backend::QueueImpl& impl, LockedQueue& queue) {
  if (waits_.empty()) return;
  std::shared_ptr<const QueueClock> clock = queue.clock_now();
  for (const Wait& w : waits_) {
    impl.wait_for(*w.event);
    clock = QueueClock::joined(clock, nullptr, w.queue, w.operation);
  }
  std::lock_guard<std::mutex> lock(queue.clock_mutex);
  queue.clock = std::move(clock);
}

void CrossQueueOrder::remember(const std::shared_ptr<LockedQueue>& queue, std::uint64_t operation) {
  for (const Use& use : uses_) {
    BufferAccesses& a = *use.accesses;
    std::lock_guard<std::mutex> lock(a.mutex_);
    auto& entries = a.entries_;
    const bool checked = a.mode() == BufferAccesses::Mode::checked;
    // What completed is of no more use; a write supersedes every use it contains (each was ordered
    // before it, or this call would have waited or thrown); a read, this queue's reads it contains.
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const BufferAccesses::Entry& e) {
                                   if (e.queue->operations_done.load() >= e.operation) return true;
                                   const bool inside = use.begin <= e.begin && e.end <= use.end;
                                   const bool same_range = use.begin == e.begin && e.end == use.end;
                                   if (!inside || (e.queue == queue && same_range && e.write == use.write))
                                     return false;
                                   return use.write || (e.queue == queue && !e.write);
                                 }),
                  entries.end());
    auto same = std::find_if(entries.begin(), entries.end(), [&](const BufferAccesses::Entry& e) {
      return e.queue == queue && e.begin == use.begin && e.end == use.end && e.write == use.write;
    });
    if (same != entries.end()) {
      same->operation = operation;
      if (checked) same->what = description();
    } else {
      entries.push_back(BufferAccesses::Entry{queue, operation, use.begin, use.end, use.write,
                                              checked ? description() : std::string()});
    }
    if (entries.size() <= kMaxEntries) continue;
    std::map<LockedQueue*, BufferAccesses::Entry> spans;
    for (BufferAccesses::Entry& e : entries) {
      auto [it, fresh] = spans.emplace(e.queue.get(), e);
      if (fresh) continue;
      BufferAccesses::Entry& s = it->second;
      s.begin = std::min(s.begin, e.begin);
      s.end = std::max(s.end, e.end);
      s.operation = std::max(s.operation, e.operation);
      s.write = s.write || e.write;
      if (checked) s.what = "operations";
    }
    entries.clear();
    for (auto& [q, e] : spans) entries.push_back(std::move(e));
  }
}

}  // namespace duet::detail
