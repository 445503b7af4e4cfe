// Graph (duet/graph.hpp): the handle over a recorded command list, the backend's native form of it,
// and changing a recorded launch's arguments. Recording and replaying are queue operations and live
// in queue.cpp, beside the checks and the enqueue machinery they share with every other operation.
#include "duet/graph.hpp"

#include <string>

#include "graph_state.hpp"
#include "state.hpp"

namespace duet {
namespace {

std::string node_text(std::size_t node) { return "node " + std::to_string(node); }

const char* kind_name(detail::GraphNode::Kind kind) {
  switch (kind) {
    case detail::GraphNode::Kind::launch: return "launch";
    case detail::GraphNode::Kind::copy: return "copy";
    case detail::GraphNode::Kind::fill: return "fill";
    case detail::GraphNode::Kind::wait: return "wait";
  }
  return "unknown";
}

}  // namespace

void Graph::State::build() {
  commands.clear();
  command_of.assign(nodes.size(), static_cast<std::size_t>(-1));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i]->kind == detail::GraphNode::Kind::wait) continue;
    command_of[i] = commands.size();
    commands.push_back(nodes[i]->command);
  }
  backend::DeviceImpl& impl = *detail::Access::core(device)->impl;
  native = commands.empty() ? nullptr : impl.create_graph(commands);
  path = native ? impl.graph_path() : "re-enqueue";
}

std::string graph_path(const Device& device) {
  const std::shared_ptr<detail::DeviceCore>& core = detail::Access::core(device);
  if (!core) throw ReleasedError("graph_path: the device handle is empty; open one with Device::open()");
  return core->impl->graph_path();
}

Graph::State& Graph::state() const {
  if (!state_) throw ReleasedError("the graph is empty; graphs come from Queue::end_capture() or Queue::record_graph()");
  return *state_;
}

const Device& Graph::device() const { return state().device; }

std::size_t Graph::size() const { return state().nodes.size(); }

const char* Graph::node_kind(std::size_t node) const {
  const State& g = state();
  if (node >= g.nodes.size())
    throw ArgumentError("Graph::node_kind: " + node_text(node) + " does not exist; the graph has " +
                        std::to_string(g.nodes.size()) + " nodes, numbered from 0 in the order they were recorded");
  return kind_name(g.nodes[node]->kind);
}

Kernel Graph::kernel(std::size_t node) const {
  const State& g = state();
  if (node >= g.nodes.size())
    throw ArgumentError("Graph::kernel: " + node_text(node) + " does not exist; the graph has " +
                        std::to_string(g.nodes.size()) +
                        " nodes, numbered from 0 in the order they were recorded");
  if (g.nodes[node]->kind != detail::GraphNode::Kind::launch)
    throw ArgumentError("Graph::kernel: " + node_text(node) + " is a " + kind_name(g.nodes[node]->kind) +
                        ", not a launch");
  return g.nodes[node]->kernel;
}

std::string Graph::path() const {
  State& g = state();
  std::lock_guard<std::mutex> lock(g.mutex);
  return g.path;
}

Event Graph::replay(Queue& queue) const {
  state();
  return queue.replay(*this);
}

void Graph::set_arg_raw(std::size_t node, std::size_t index, const KernelArg& value) {
  State& g = state();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (node >= g.nodes.size())
    throw ArgumentError("Graph::set_arg: " + node_text(node) + " does not exist; the graph has " +
                        std::to_string(g.nodes.size()) + " nodes, numbered from 0 in the order they were recorded");
  detail::GraphNode& n = *g.nodes[node];
  if (n.kind != detail::GraphNode::Kind::launch)
    throw ArgumentError("Graph::set_arg: " + node_text(node) + " is a " + kind_name(n.kind) +
                        ", not a launch; only launches take arguments");
  if (index >= n.args.size())
    throw ArgumentError("Graph::set_arg: the launch of kernel '" + n.kernel.name() + "' (" + node_text(node) +
                        ") has " + std::to_string(n.args.size()) + " arguments, numbered from 0; there is no argument " +
                        std::to_string(index));
  std::vector<KernelArg> args = n.args;
  args[index] = value;
  detail::fill_launch_node(n, n.kernel, n.global, n.local, Span<const KernelArg>(args.data(), args.size()), g.device);
  g.commands[g.command_of[node]] = n.command;
  if (g.native && !g.native->update_launch(g.command_of[node], n.command)) g.build();
}

void Graph::set_wait(std::size_t node, const Event& event) {
  State& g = state();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (node >= g.nodes.size())
    throw ArgumentError("Graph::set_wait: " + node_text(node) + " does not exist; the graph has " +
                        std::to_string(g.nodes.size()) + " nodes, numbered from 0 in the order they were recorded");
  detail::GraphNode& n = *g.nodes[node];
  if (n.kind != detail::GraphNode::Kind::wait)
    throw ArgumentError("Graph::set_wait: " + node_text(node) + " is a " + kind_name(n.kind) + ", not a wait");
  if (event.device() != g.device)
    throw DeviceMismatchError("Graph::set_wait: the event belongs to " + event.device().info().id() +
                              " but the graph to " + g.device.info().id() + "; wait for events of the graph's device");
  detail::Access::event(event);  // refuses an empty event, or one that marks nothing
  n.event = event;
}

}  // namespace duet
