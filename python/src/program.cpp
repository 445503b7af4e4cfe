// Programs and kernels: Program.kernel(name) (also program.<name>), Kernel.signature (the
// parameters the dialect source declares), and launching: kernel(global, local, *args, queue=None)
// or queue.launch(kernel, global, local, *args).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "launch.hpp"

namespace duet::python {

void bind_program(nb::module_& m) {
  nb::class_<KernelParam>(m, "KernelParam", "One parameter as the dialect source declares it")
      .def_prop_ro("kind", [](const KernelParam& p) { return p.kind == KernelParam::Kind::buffer ? "buffer" : "scalar"; })
      .def_prop_ro("dtype", [](const KernelParam& p) -> nb::object {
        return p.type == ScalarType::unknown ? nb::none() : numpy_dtype(p.type);
      })
      .def_ro("type_name", &KernelParam::type_name)
      .def_ro("name", &KernelParam::name)
      .def_ro("is_const", &KernelParam::is_const)
      .def("__repr__", [](const KernelParam& p) {
        return "<duet.KernelParam " + std::string(p.kind == KernelParam::Kind::buffer ? "buffer " : "scalar ") +
               p.type_name + " " + p.name + ">";
      });

  nb::class_<Kernel>(m, "Kernel", "One entry point of a Program")
      .def_prop_ro("name", &Kernel::name)
      .def_prop_ro("device", &Kernel::device, nb::rv_policy::copy)
      .def_prop_ro("signature", [](const Kernel& k) -> nb::object {
            const auto& s = k.signature();
            if (!s) return nb::none();
            return nb::cast(s->params);
          }, "The parameters launches are checked against (a list of KernelParam): the dialect "
             "source's, a native kernel's as read from its source or the driver or declared with "
             "Program.kernel(name, parameters); None when none of these can tell")
      .def("__call__", [](const Kernel& k, nb::args args, nb::kwargs kwargs) {
            nb::handle queue = kwargs.contains("queue") ? nb::handle(kwargs["queue"]) : nb::handle(Py_None);
            if (nb::len(kwargs) > (kwargs.contains("queue") ? 1u : 0u))
              throw ArgumentError("a launch takes only queue= as a keyword");
            return launch(queue_or_default(queue, k.device()), k, args, 0);
          }, "kernel(global_size, local_size, *args, queue=None) -> Event: launch on `queue` "
             "(default: the device's default queue); local_size None lets duet choose")
      .def("__repr__", [](const Kernel& k) { return "<duet.Kernel " + k.name() + " on " + k.device().info().id() + ">"; });

  nb::class_<Program>(m, "Program", "Source compiled for one device")
      .def("kernel", [](const Program& p, const std::string& name, const std::optional<std::string>& parameters) {
             return parameters ? p.kernel(name, *parameters) : p.kernel(name);
           }, nb::arg("name"), nb::arg("parameters") = nb::none(),
           "kernel(name, parameters=None): `parameters` declares a native kernel's parameters as in its "
           "declaration (\"int n, const float* x, float* y\"), checked against the compiled kernel, so that "
           "launches are checked by type where the driver cannot tell")
      .def_prop_ro("kernel_names", &Program::kernel_names)
      .def_prop_ro("device", &Program::device, nb::rv_policy::copy)
      .def("__getattr__", [](const Program& p, const std::string& name) {
        if (name.empty() || name[0] == '_') throw nb::attribute_error(name.c_str());
        return p.kernel(name);
      })
      .def("__repr__", [](const Program& p) {
        std::string names;
        for (const auto& n : p.kernel_names()) names += (names.empty() ? "" : ", ") + n;
        return "<duet.Program on " + p.device().info().id() + ": " + names + ">";
      });
}

}  // namespace duet::python
