// Queues and events: launches, finish() (the GIL is released while waiting), record()/wait(),
// `with queue:` (finishes at the end of the block), and event timing (duet.elapsed_ms(start, end),
// end.time_since(start)). Host <-> device copies live with the arrays (array.cpp). Graphs:
// `with duet.graph(q) as g:` records the block's launches on q, then g.replay() replays them.
#include <nanobind/stl/string.h>

#include "duet/graph.hpp"
#include "launch.hpp"

namespace duet::python {
namespace {

// A graph and the queue it records from (and replays on by default), for the `with` block.
struct PyGraph {
  Queue queue;
  Graph graph;
};

Graph& recorded(PyGraph& g) {
  if (!g.graph.valid())
    throw CaptureError("the graph has not been recorded yet: use it as `with duet.graph(queue) as g:` and "
                       "replay it after the block");
  return g.graph;
}

// Queues compare by the state their handles share (not by native handle, which a capturing queue
// does not hand out).
std::uintptr_t identity(const Queue& q) {
  return reinterpret_cast<std::uintptr_t>(q.lifetime().lock().get());
}

}  // namespace

void bind_queue(nb::module_& m) {
  nb::class_<Event>(m, "Event", "A point in a queue's timeline; every launch and copy returns one")
      .def("wait", [](const Event& e) {
        nb::gil_scoped_release release;
        e.wait();
      }, "Block until the event has completed (other Python threads run meanwhile)")
      .def_prop_ro("done", &Event::done)
      .def("duration_ms", [](const Event& e) {
        nb::gil_scoped_release release;
        return e.duration_ms();
      }, "Device time in ms of this event's own operation (its queue made with command_timing=True); waits for it")
      .def_prop_ro("device", &Event::device, nb::rv_policy::copy)
      .def("time_since", [](const Event& end, const Event& start) {
        nb::gil_scoped_release release;
        return elapsed_ms(start, end);
      }, nb::arg("start"), "Device time in ms from `start` to this event (same queue); waits for both")
      .def("time_till", [](const Event& start, const Event& end) {
        nb::gil_scoped_release release;
        return elapsed_ms(start, end);
      }, nb::arg("end"), "Device time in ms from this event to `end`; waits for both");

  m.def("elapsed_ms", [](const Event& start, const Event& end) {
    nb::gil_scoped_release release;
    return elapsed_ms(start, end);
  }, nb::arg("start"), nb::arg("end"), "Device time in ms between two events of one queue; waits for both");

  nb::class_<Queue>(m, "Queue", "An in-order queue of work on one device (CUDA stream / OpenCL command queue)")
      .def("__init__", [](Queue* self, nb::handle device) {
            new (self) Queue((device.is_none() ? default_device() : nb::cast<const Device&>(device)).queue());
          }, nb::arg("device").none() = nb::none(), "A new queue of `device` (default: duet.default_device())")
      .def_prop_ro("device", &Queue::device, nb::rv_policy::copy)
      .def("launch", [](Queue& q, nb::args args) {
            if (nb::len(args) < 1) throw ArgumentError("launch(kernel, global_size, local_size, *args)");
            return launch(q, nb::cast<const Kernel&>(args[0]), args, 1);
          }, "launch(kernel, global_size, local_size, *args) -> Event")
      .def("finish", [](Queue& q) {
        nb::gil_scoped_release release;
        q.finish();
      }, "Block until everything enqueued so far has completed")
      .def("record", &Queue::record, "An event that completes when everything enqueued so far has")
      .def("wait", &Queue::wait, nb::arg("event"), "Later work on this queue waits for `event` (no host block)")
      .def_prop_ro("native_handle", &Queue::native_handle, "The CUstream or cl_command_queue, as an int")
      .def("__enter__", [](Queue& q) { return q; })
      .def("__exit__", [](Queue& q, nb::handle, nb::handle, nb::handle) {
        nb::gil_scoped_release release;
        q.finish();
      }, nb::arg("type").none(), nb::arg("value").none(), nb::arg("traceback").none())
      .def("__eq__", [](const Queue& a, nb::handle b) {
        return nb::isinstance<Queue>(b) && identity(a) == identity(nb::cast<const Queue&>(b));
      })
      .def("__hash__", [](const Queue& q) { return identity(q); })
      .def_prop_ro("capturing", &Queue::capturing, "Whether the queue is recording a graph (duet.graph)")
      .def("__repr__", [](const Queue& q) { return "<duet.Queue on " + q.device().info().id() + ">"; });

  nb::class_<PyGraph>(m, "Graph",
                      "Launches, copies and fills recorded once and replayed as one operation: "
                      "`with duet.graph(q) as g: ...` records the block on q (nothing runs), then g.replay()")
      .def("__enter__", [](PyGraph& g) -> PyGraph& {
            g.queue.begin_capture();
            return g;
          }, nb::rv_policy::reference)
      .def("__exit__", [](PyGraph& g, nb::handle type, nb::handle, nb::handle) {
            if (!type.is_none()) {
              g.queue.abort_capture();
              return false;
            }
            g.graph = g.queue.end_capture();
            return false;
          }, nb::arg("type").none(), nb::arg("value").none(), nb::arg("traceback").none())
      .def("replay", [](PyGraph& g, nb::handle queue) {
            Queue q = queue.is_none() ? g.queue : nb::cast<Queue>(queue);
            return recorded(g).replay(q);
          }, nb::arg("queue").none() = nb::none(),
          "Enqueue the recorded work on `queue` (default: the queue it was recorded on) -> Event")
      .def_prop_ro("queue", [](PyGraph& g) { return g.queue; })
      .def_prop_ro("path", [](PyGraph& g) { return recorded(g).path(); },
                   "How replays run: 'cuda-graph', 'cl_khr_command_buffer' or 're-enqueue'")
      .def("__len__", [](PyGraph& g) { return recorded(g).size(); }, "The number of recorded commands")
      .def("node_kind", [](PyGraph& g, std::size_t node) { return std::string(recorded(g).node_kind(node)); },
           nb::arg("node"), "'launch', 'copy', 'fill' or 'wait'")
      .def("set_arg", [](PyGraph& g, std::size_t node, std::size_t index, nb::handle value) {
            Graph& graph = recorded(g);
            KernelArg arg;
            RawBuffer range;
            convert_one_arg(graph.kernel(node), index, value, arg, range);
            graph.set_arg_raw(node, index, arg);
          }, nb::arg("node"), nb::arg("index"), nb::arg("value"),
          "Argument `index` (from 0) of the launch recorded as node `node` becomes `value` for later replays, "
          "converted and checked as a launch's argument");

  m.def("graph", [](nb::handle queue) {
        return PyGraph{queue.is_none() ? default_queue(default_device()) : nb::cast<Queue>(queue), Graph()};
      }, nb::arg("queue").none() = nb::none(),
      "A graph to record on `queue` (default: the default device's default queue): `with duet.graph(q) as g: ...` "
      "records the block, g.replay() replays it");
}

}  // namespace duet::python
