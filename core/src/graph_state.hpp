// The state behind a Graph and behind a queue's capture (duet/graph.hpp): the recorded nodes, each
// owning what its backend command points to (buffer handles, argument bytes, view offsets), so the
// commands stay valid for as long as the graph lives, and the backend's native graph, if any.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "backend.hpp"
#include "duet/buffer.hpp"
#include "duet/graph.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"

namespace duet {
namespace detail {

struct EventState;

struct GraphNode {
  enum class Kind { launch, copy, fill, wait };
  Kind kind = Kind::launch;
  // launch: `args` as the launch passed them, except that each buffer argument points at its own
  // handle in `buffers` (one slot per argument, so the vector never grows and the pointers hold);
  // `backend_args` and `offsets` are what translating them gave (see queue.cpp).
  Kernel kernel;
  Range global, local;  // local as checked (the kernel's required size, or duet's choice)
  std::vector<RawBuffer> buffers;
  std::vector<KernelArg> args;
  std::vector<backend::LaunchArg> backend_args;
  std::vector<std::uint64_t> offsets;
  bool empty_launch = false;  // a global size of 0: launches nothing, like Queue::launch
  // copy and fill: the handles the caller passed (ranges into their allocations are in `command`)
  RawBuffer src, dst;
  std::array<unsigned char, 128> pattern{};
  // wait
  Event event;
  // What the backend sees; for a wait, nothing (core waits before the replay).
  backend::GraphCommand command;

  GraphNode() = default;
  GraphNode(const GraphNode&) = delete;
  GraphNode& operator=(const GraphNode&) = delete;
};

// A capture in progress: lives in Queue::State between begin_capture and end_capture.
struct Recording {
  std::vector<std::unique_ptr<GraphNode>> nodes;
  // The one event every recorded operation returns: it marks nothing, and using it is an error.
  std::shared_ptr<EventState> recorded_event;
};

// Checks a launch as Queue::launch does (queue.cpp) and fills `node`'s kernel arguments from
// `args`: its buffer handles, translated arguments, view offsets and command. Leaves `node`
// unchanged when a check throws.
void fill_launch_node(GraphNode& node, const Kernel& kernel, const Range& global, const Range& local,
                      Span<const KernelArg> args, const Device& device);

}  // namespace detail

struct Graph::State {
  Device device;
  // Replays and set_arg/set_wait take turns (Graph is shared like the other handles).
  std::mutex mutex;
  std::vector<std::unique_ptr<detail::GraphNode>> nodes;
  std::vector<backend::GraphCommand> commands;  // the launch, copy and fill nodes, in order
  std::vector<std::size_t> command_of;          // per node, its index in `commands` (waits: none)
  std::shared_ptr<backend::GraphImpl> native;   // null: core replays `commands` itself
  std::string path;
  // Builds `commands` from the nodes and, where the device has one, the native graph.
  void build();
};

}  // namespace duet
