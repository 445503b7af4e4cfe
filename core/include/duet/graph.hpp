// Graphs: a queue's launches, copies, fills and event waits recorded once and replayed any number
// of times, each replay one submission, which goes below the driver's per-launch cost for work
// made of many small kernels (a CUDA graph where the driver has them; see Graph::path()).
//
//   q.begin_capture();
//   q.launch(step, n, Range(), a, b);     // recorded, not run: node 0
//   q.launch(step, n, Range(), b, a);     // node 1
//   duet::Graph g = q.end_capture();
//   for (int i = 0; i < 1000; ++i) g.replay(q);
//
// or `duet::Graph g = q.record_graph([&] { ... });`, which ends the capture however the callable
// leaves.
//
// Recording: between begin_capture() and end_capture() the queue checks each launch, copy and
// fill as it would enqueue it (arguments against the kernel's declaration, sizes, devices) and
// records it instead; Queue::wait(event) records a wait for that event. Nothing reaches the device
// and the recorded operations return an Event that marks nothing (using it is a CaptureError).
// What cannot be recorded is a CaptureError at once, naming the call, and leaves the capture as it
// was: write and read (host memory), map, finish, record, order_after and native_handle, replaying
// a graph, and beginning a second capture. Other queues are not affected; their work runs as usual.
//
// Replaying: Graph::replay(queue) (or Queue::replay) enqueues the commands in their recorded order
// on any queue of the graph's device (DeviceMismatchError otherwise), as one operation of that
// queue: it comes after what was enqueued before it and before what comes after, its Event marks
// its end, and on a queue with command timing Event::duration_ms times the whole replay. A
// recorded wait makes the replay start after that event (waits are taken at the start of the
// replay, since the event was recorded before the graph and cannot depend on it). For the order
// between queues (RawBuffer::order_between_queues, DUET_CHECK=1) a replay uses every buffer its
// commands use, each as its command does. Under DUET_CHECK=1 each launch's guard zones are checked
// after the replay.
//
// Arguments: set_arg changes an argument of a recorded launch for the replays that follow, with
// the checks a launch makes; set_wait changes the event a recorded wait waits for (duet's events
// mark one point each, so a wait on something new each replay needs the new event).
//
// Lifetime and threads: a Graph is a cheap handle (copies share the graph) that keeps the kernels
// and buffers it uses alive. Replays and set_arg/set_wait of one graph from several threads take
// turns; a replay already enqueued is not affected by a later set_arg.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "duet/device.hpp"
#include "duet/export.hpp"
#include "duet/queue.hpp"

namespace duet {

class DUET_API Graph {
 public:
  Graph() = default;
  bool valid() const noexcept { return state_ != nullptr; }
  const Device& device() const;
  // The recorded commands (nodes), numbered from 0 in the order they were recorded.
  std::size_t size() const;
  // What node `node` is: "launch", "copy", "fill" or "wait".
  const char* node_kind(std::size_t node) const;
  // The kernel of the launch recorded as node `node` (ArgumentError for another kind of node).
  Kernel kernel(std::size_t node) const;
  // How replays of this graph run: "cuda-graph" (one cuGraphLaunch), "cl_khr_command_buffer" (one
  // clEnqueueCommandBufferKHR), or "re-enqueue" (duet enqueues the commands one by one, without
  // its per-launch checks and conversions).
  std::string path() const;

  // Enqueues the graph on `queue` (see above); returns the replay's event.
  Event replay(Queue& queue) const;

  // Argument `index` (from 0) of the launch recorded as node `node` becomes `value` for later
  // replays. ArgumentError when the node is not a launch, the index is out of range or the value
  // does not fit the kernel's parameter (the checks of Queue::launch); DeviceMismatchError for a
  // buffer of another device.
  template <class T>
  void set_arg(std::size_t node, std::size_t index, const T& value) {
    set_arg_raw(node, index, KernelArg::from(value));
  }
  void set_arg_raw(std::size_t node, std::size_t index, const KernelArg& value);
  // The wait recorded as node `node` waits for `event` in later replays.
  void set_wait(std::size_t node, const Event& event);

  struct State;

 private:
  friend class Queue;
  explicit Graph(std::shared_ptr<State> s) : state_(std::move(s)) {}
  State& state() const;
  std::shared_ptr<State> state_;
};

// How graphs replay on `device` (Graph::path() of its graphs): "cuda-graph" where the CUDA driver
// has graphs, "cl_khr_command_buffer" where an OpenCL device's command buffers can be used, else
// "re-enqueue", with a note saying why where an OpenCL device reports command buffers that duet
// does not use.
DUET_API std::string graph_path(const Device& device);

template <class F>
Graph Queue::record_graph(F&& body) {
  begin_capture();
  try {
    body();
  } catch (...) {
    abort_capture();
    throw;
  }
  return end_capture();
}

}  // namespace duet
