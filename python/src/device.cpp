// Devices: duet.devices(), duet.backends(), duet.Device() / Device("cuda:0") (DUET_BACKEND and
// DUET_DEVICE are honoured by the C++ open()), the device's facts, compiling dialect and native
// sources, and the default device and queue that calls without one use.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cctype>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "bindings.hpp"

namespace duet::python {

const Device& default_device() {
  static std::mutex mutex;
  static Device device;
  std::lock_guard<std::mutex> lock(mutex);
  if (!device.valid()) device = Device::open();
  return device;
}

Queue& default_queue(const Device& device) {
  // Keyed by the device (each queue keeps its device open anyway). The queues are leaked on
  // purpose: destroying them at exit, after the drivers may have unloaded, would be a crash
  // waiting to happen.
  static std::mutex mutex;
  static auto* queues = new std::unordered_map<Device, Queue>();
  std::lock_guard<std::mutex> lock(mutex);
  auto found = queues->find(device);
  if (found == queues->end()) found = queues->emplace(device, device.queue()).first;
  return found->second;
}

Queue& queue_or_default(nb::handle queue, const Device& device) {
  if (queue.is_none()) return default_queue(device);
  Queue& q = nb::cast<Queue&>(queue);
  if (q.device() != device)
    throw DeviceMismatchError("the queue belongs to " + q.device().info().id() + ", the data to " +
                              device.info().id());
  return q;
}

namespace {

// "gpu", "cpu", "other": Python spells the kind in lower case.
std::string kind_name(DeviceKind k) {
  std::string s = to_string(k);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// {"BLOCK": 256, "UNROLL": 4, "USE_X": True, "T": "float"} -> #define BLOCK 256 ...: strings as
// they are, bools as 1 / 0, numbers as Python writes them.
Defines to_defines(nb::handle defines) {
  Defines out;
  if (defines.is_none()) return out;
  for (auto [key, value] : nb::cast<nb::dict>(defines)) {
    std::string text;
    if (PyBool_Check(value.ptr()))
      text = value.ptr() == Py_True ? "1" : "0";
    else if (nb::isinstance<nb::str>(value))
      text = nb::cast<std::string>(value);
    else
      text = nb::cast<std::string>(nb::str(value));
    out.emplace_back(nb::cast<std::string>(nb::str(key)), text);
  }
  return out;
}

std::string device_repr(const Device& d) {
  const DeviceInfo& i = d.info();
  return "<duet.Device " + i.id() + ": " + i.name + " (" + kind_name(i.kind) + ")>";
}

}  // namespace

void bind_device(nb::module_& m) {
  nb::enum_<DeviceKind>(m, "DeviceKind")
      .value("gpu", DeviceKind::gpu)
      .value("cpu", DeviceKind::cpu)
      .value("other", DeviceKind::other);

  nb::class_<DeviceInfo>(m, "DeviceInfo", "What a device is; duet.devices() lists them")
      .def_ro("backend", &DeviceInfo::backend)
      .def_ro("index", &DeviceInfo::index)
      .def_ro("name", &DeviceInfo::name)
      .def_ro("vendor", &DeviceInfo::vendor)
      .def_ro("platform", &DeviceInfo::platform)
      .def_ro("driver", &DeviceInfo::driver)
      .def_ro("arch", &DeviceInfo::arch)
      .def_ro("arch_specific_target", &DeviceInfo::arch_specific_target)
      .def_ro("intel_matrix_subgroup", &DeviceInfo::intel_matrix_subgroup)
      .def_ro("language", &DeviceInfo::language)
      .def_prop_ro("kind", [](const DeviceInfo& i) { return kind_name(i.kind); })
      .def_ro("memory_bytes", &DeviceInfo::memory_bytes)
      .def_ro("max_alloc_bytes", &DeviceInfo::max_alloc_bytes)
      .def_ro("local_memory_bytes", &DeviceInfo::local_memory_bytes)
      .def_ro("compute_units", &DeviceInfo::compute_units)
      .def_ro("max_group_size", &DeviceInfo::max_group_size)
      .def_ro("supports_double", &DeviceInfo::supports_double)
      .def_ro("view_alignment", &DeviceInfo::view_alignment)
      .def_ro("native_index", &DeviceInfo::native_index)
      .def_prop_ro("id", &DeviceInfo::id)
      .def("__repr__",
           [](const DeviceInfo& i) { return "<duet.DeviceInfo " + i.id() + ": " + i.name + ">"; });

  nb::class_<BackendStatus>(m, "BackendStatus")
      .def_ro("name", &BackendStatus::name)
      .def_ro("available", &BackendStatus::available)
      .def_ro("reason", &BackendStatus::reason)
      .def_ro("device_count", &BackendStatus::device_count)
      .def("__repr__", [](const BackendStatus& b) {
        return "<duet.BackendStatus " + b.name + (b.available ? ": available>" : ": unavailable: " + b.reason + ">");
      });

  m.def("devices", &duet::devices, "Every device of every backend that loaded: CUDA first, then OpenCL");
  m.def("backends", &duet::backends, "One entry per backend duet was built with: loaded or not, and why not");
  m.def("default_device", &default_device, nb::rv_policy::copy,
        "The device calls use when given none: Device() on first use, then kept");

  nb::class_<Device>(m, "Device",
                     "A compute device. Device() follows DUET_BACKEND / DUET_DEVICE (else the best device); "
                     "Device(spec) opens 'auto', 'cuda', 'opencl', 'cuda:0', 'opencl:1' or 'opencl:<name part>'")
      .def("__init__", [](Device* self, nb::handle spec) {
            if (spec.is_none())
              new (self) Device(Device::open());
            else
              new (self) Device(Device::open(nb::cast<std::string>(spec)));
          }, nb::arg("spec").none() = nb::none())
      .def_static("open_all", &Device::open_all, "Every device Device() could have taken under DUET_BACKEND / DUET_DEVICE")
      .def_prop_ro("info", &Device::info, nb::rv_policy::copy)
      .def_prop_ro("id", [](const Device& d) { return d.info().id(); })
      .def_prop_ro("name", [](const Device& d) { return d.info().name; })
      .def_prop_ro("backend", [](const Device& d) { return d.info().backend; })
      .def_prop_ro("kind", [](const Device& d) { return kind_name(d.info().kind); })
      .def_prop_ro("supports_double", [](const Device& d) { return d.info().supports_double; })
      .def(
          "queue",
          [](const Device& d, bool command_timing, const std::string& priority) {
            if (priority != "normal" && priority != "high")
              throw ArgumentError("Device.queue: priority must be 'normal' or 'high', not '" + priority + "'");
            return d.queue(QueueOptions{command_timing,
                                        priority == "high" ? QueuePriority::high : QueuePriority::normal});
          },
          nb::arg("command_timing") = false, nb::arg("priority") = "normal",
          "A new queue (CUDA stream / OpenCL command queue) of this device; with command_timing, every "
          "operation's event tells its own device time (Event.duration_ms), at a small cost per operation; "
          "priority 'high' lets its kernels start before other queues' waiting work where the backend can "
          "(CUDA stream priorities; a hint, a normal queue on OpenCL)")
      .def_prop_ro("default_queue", [](const Device& d) { return default_queue(d); },
                   "The queue calls on this device use when given none")
      .def("compile", [](const Device& d, const std::string& source, nb::handle defines, const std::string& name) {
            const Defines defs = to_defines(defines);
            nb::gil_scoped_release release;  // compiling takes a while; other threads may run
            return d.compile(source, defs, name);
          }, nb::arg("source"), nb::arg("defines").none() = nb::none(), nb::arg("name") = "kernel.duet",
          "Compile dialect source; defines={'BLOCK': 256} become #define lines before it")
      .def("compile_native", [](const Device& d, const std::string& source, const std::vector<std::string>& options,
                                const std::string& name) {
            nb::gil_scoped_release release;
            return d.compile_native(source, options, name);
          }, nb::arg("source"), nb::arg("options") = std::vector<std::string>{}, nb::arg("name") = "native",
          "Compile CUDA C++ (CUDA backend) or OpenCL C (OpenCL backend) as it is")
      .def_prop_ro("native_context", &Device::native_context)
      .def("__eq__", [](const Device& a, nb::handle b) {
            return nb::isinstance<Device>(b) && a == nb::cast<const Device&>(b);
          })
      .def("__hash__", [](const Device& d) { return std::hash<Device>()(d); })
      .def("__repr__", &device_repr);
}

}  // namespace duet::python
