// duet's error kinds as Python exceptions. The classes are defined in Python (duet/errors.py, so
// they can also derive from TypeError, ValueError or MemoryError where Python users expect that) and
// registered here once at import; a translator then raises the class of each duet::Error's kind,
// with the C++ error's details as attributes (CompileError: .log, .line, .backend, .source_name,
// .options; DriverError: .native_code, .native_name, .call, .backend; KernelFaultError: .fault,
// .kernels, .argument, .device_usable; OutOfMemoryError: .requested_bytes; all: .kind).
#include <nanobind/stl/string.h>

#include <map>

#include "bindings.hpp"

namespace duet::python {
namespace {

// ErrorKind name -> Python class; filled by _register_errors. Plain PyObject pointers, never freed:
// the classes live as long as the interpreter.
std::map<std::string, PyObject*>& classes() {
  static std::map<std::string, PyObject*> map;
  return map;
}

nb::list strings(const std::vector<std::string>& v) {
  nb::list l;
  for (const auto& s : v) l.append(nb::str(s.c_str()));
  return l;
}

const char* fault_name(KernelFaultError::Fault f) {
  switch (f) {
    case KernelFaultError::Fault::device_fault: return "device_fault";
    case KernelFaultError::Fault::out_of_bounds: return "out_of_bounds";
    case KernelFaultError::Fault::timeout: return "timeout";
  }
  return "unknown";
}

void raise(const Error& e) {
  const auto found = classes().find(to_string(e.kind()));
  PyObject* type = found != classes().end() ? found->second : PyExc_RuntimeError;
  nb::object error = nb::steal(PyObject_CallFunction(type, "s", e.what()));
  if (!error.is_valid()) return;  // the constructor raised; that error stands
  error.attr("kind") = nb::str(to_string(e.kind()));
  if (auto* c = dynamic_cast<const CompileError*>(&e)) {
    error.attr("log") = nb::str(c->log().c_str());
    error.attr("line") = c->line();
    error.attr("backend") = nb::str(c->backend().c_str());
    error.attr("source_name") = nb::str(c->source_name().c_str());
    error.attr("options") = strings(c->options());
  } else if (auto* d = dynamic_cast<const DriverError*>(&e)) {
    error.attr("backend") = nb::str(d->backend().c_str());
    error.attr("call") = nb::str(d->call().c_str());
    error.attr("native_code") = d->native_code();
    error.attr("native_name") = nb::str(d->native_name().c_str());
  } else if (auto* k = dynamic_cast<const KernelFaultError*>(&e)) {
    error.attr("fault") = nb::str(fault_name(k->fault()));
    error.attr("kernels") = strings(k->kernels());
    error.attr("native_name") = nb::str(k->native_name().c_str());
    error.attr("argument") = k->argument();
    error.attr("device_usable") = k->device_usable();
  } else if (auto* o = dynamic_cast<const OutOfMemoryError*>(&e)) {
    error.attr("requested_bytes") = o->requested_bytes();
    error.attr("device_memory_bytes") = o->device_memory_bytes();
  }
  PyErr_SetObject(type, error.ptr());
}

}  // namespace

void bind_errors(nb::module_& m) {
  m.def("_register_errors", [](nb::dict by_kind) {
    for (auto [kind, cls] : by_kind) {
      PyObject* type = cls.ptr();
      Py_INCREF(type);
      classes()[nb::cast<std::string>(kind)] = type;
    }
  });
  m.def("_error_kinds", [] {
    nb::list kinds;
    for (int k = 0; k <= static_cast<int>(ErrorKind::unordered_access); ++k)
      kinds.append(nb::str(to_string(static_cast<ErrorKind>(k))));
    return kinds;
  });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      raise(e);
    }
  });
}

}  // namespace duet::python
