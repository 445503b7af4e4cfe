// ElementwiseKernel and ReductionKernel, constructed as in C++ (device, parameter lists, body or
// expressions, name, preamble) and called with the arguments in C++'s order; an optional leading
// Queue (or queue= keyword) picks the queue, as C++'s first argument does. Arrays are duet.Arrays;
// plain Python numbers are broadcast and converted to the declared type by the generator itself
// (ArgumentError when that would lose something).
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "launch.hpp"

namespace duet::python {
namespace {

// The queue (a leading Queue, or queue=, or the device's default) and the remaining arguments.
struct Call {
  Queue* queue = nullptr;
  std::vector<nb::handle> args;
};

Call split(nb::args args, nb::kwargs kwargs, const Device& device) {
  Call c;
  nb::handle queue = Py_None;
  std::size_t first = 0;
  if (nb::len(args) > 0 && nb::isinstance<Queue>(args[0])) queue = args[0], first = 1;
  for (auto [key, value] : kwargs) {
    if (nb::cast<std::string>(key) != "queue") throw ArgumentError("the only keyword argument is queue=");
    queue = value;
  }
  c.queue = &queue_or_default(queue, device);
  for (std::size_t i = first; i < nb::len(args); ++i) c.args.push_back(args[i]);
  return c;
}

// A call's kernel arguments, with the byte ranges of its arrays they point to.
struct Args {
  std::vector<RawBuffer> ranges;
  std::vector<KernelArg> list;

  Args(const std::vector<nb::handle>& args, const char* what) {
    ranges.reserve(args.size());  // never reallocated: the arguments point into it
    list.reserve(args.size());
    for (nb::handle v : args) {
      Array* array = nullptr;
      if ((array = bound_or_null<Array>(v)) != nullptr)
        list.push_back(buffer_arg(*array, what));
      else
        list.push_back(natural_scalar(v, what));
    }
  }
  KernelArg buffer_arg(const Array& array, const char* what) {
    KernelArg a;
    a.kind = KernelArg::Kind::buffer;
    a.buffer = &ranges.emplace_back(contiguous_buffer(array, what));
    a.type = is_bool(array.dtype()) ? ScalarType::u8 : array.dtype();  // bool's bytes, declared uchar
    return a;
  }
  Args(const Args&) = delete;
  Args& operator=(const Args&) = delete;
};

nb::object result_value(ScalarType t, const unsigned char* bytes) {
  return visit_scalar_type(t, [bytes](auto tag) -> nb::object {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      T v;
      std::memcpy(&v, bytes, sizeof v);
      return nb::steal(PyComplex_FromDoubles(static_cast<double>(v.real()), static_cast<double>(v.imag())));
    } else if constexpr (std::is_arithmetic_v<T>) {
      T v;
      std::memcpy(&v, bytes, sizeof v);
      if constexpr (std::is_integral_v<T>)
        return nb::int_(v);
      else
        return nb::float_(v);
    } else {
      throw ArgumentError("a reduction to this type cannot be returned to Python");
    }
  });
}

// compile_ahead's argument: None (every argument an array), one list of 'array' / 'scalar', or a
// list of such lists.
template <class K>
void compile_ahead(const K& k, nb::handle kinds) {
  auto one = [](nb::handle list) {
    std::vector<ArgKind> out;
    for (nb::handle item : list) {
      const std::string s = nb::cast<std::string>(item);
      if (s != "array" && s != "scalar")
        throw ArgumentError("compile_ahead: an argument kind is 'array' or 'scalar', not '" + s + "'");
      out.push_back(s == "scalar" ? ArgKind::scalar : ArgKind::array);
    }
    return out;
  };
  std::vector<std::vector<ArgKind>> variants;  // none: every argument an array
  if (!kinds.is_none()) {
    const bool nested = nb::len(kinds) > 0 && !nb::isinstance<nb::str>(kinds[0]);
    if (nested)
      for (nb::handle v : kinds) variants.push_back(one(v));
    else
      variants.push_back(one(kinds));
  }
  nb::gil_scoped_release release;  // compiling takes a while; other threads may run
  if (variants.empty())
    k.compile_ahead();
  else
    k.compile_ahead(variants);
}

}  // namespace

void bind_generators(nb::module_& m) {
  nb::class_<ElementwiseKernel>(m, "ElementwiseKernel",
                                "ElementwiseKernel(device, inputs, outputs, body, name='elementwise', preamble=''): "
                                "a kernel generated around a one-line body, as duet::ElementwiseKernel")
      .def(nb::init<const Device&, std::string_view, std::string_view, std::string_view, std::string_view,
                    std::string_view>(),
           nb::arg("device"), nb::arg("inputs"), nb::arg("outputs"), nb::arg("body"),
           nb::arg("name") = "elementwise", nb::arg("preamble") = "")
      .def("__call__", [](const ElementwiseKernel& k, nb::args args, nb::kwargs kwargs) -> nb::object {
            Call c = split(args, kwargs, k.device());
            // Outputs left out: allocated like the first array input, and returned.
            nb::list made;
            if (c.args.size() == k.inputs().size()) {
              const Array* like = nullptr;
              for (nb::handle v : c.args) {
                Array* a = nullptr;
                if ((a = bound_or_null<Array>(v)) != nullptr) { like = a; break; }
              }
              if (!like)
                throw ArgumentError(k.name() + ": pass the outputs, or at least one array input to size them by");
              for (const GeneratedParam& out : k.outputs())
                made.append(nb::cast(make_array(k.device(), out.type, like->shape())));
              for (nb::handle v : made) c.args.push_back(v);
            }
            const Args list(c.args, k.name().c_str());
            Event e = k.call(*c.queue, list.list);
            if (nb::len(made) == 0) return nb::cast(e);
            return nb::len(made) == 1 ? nb::object(made[0]) : nb::object(nb::tuple(made));
          }, "k([queue,] *inputs, *outputs, queue=None) -> Event; leave the outputs out to have them allocated "
             "and returned")
      .def("source", [](const ElementwiseKernel& k, const std::vector<std::string>& kinds) {
        std::vector<ArgKind> list;
        for (const auto& s : kinds) list.push_back(s == "scalar" ? ArgKind::scalar : ArgKind::array);
        return k.source(list);
      }, nb::arg("kinds"), "The generated dialect source for argument kinds ('array' / 'scalar' each)")
      .def("compile_ahead", [](const ElementwiseKernel& k, nb::handle kinds) { compile_ahead(k, kinds); },
           nb::arg("kinds").none() = nb::none(), "Compile the variants for these argument kinds now (None: every argument an array; a list of 'array' / 'scalar'; or a list of such lists), so the first call only enqueues")
      .def_prop_ro("compiled_variants", &ElementwiseKernel::compiled_variants)
      .def_prop_ro("name", &ElementwiseKernel::name)
      .def_prop_ro("device", &ElementwiseKernel::device, nb::rv_policy::copy);

  nb::class_<ReductionKernel>(m, "ReductionKernel",
                              "ReductionKernel(device, result_type, inputs, map_expr, reduce_expr, identity, "
                              "name='reduction', preamble=''), as duet::ReductionKernel")
      .def(nb::init<const Device&, std::string_view, std::string_view, std::string_view, std::string_view,
                    std::string_view, std::string_view, std::string_view>(),
           nb::arg("device"), nb::arg("result_type"), nb::arg("inputs"), nb::arg("map_expr"),
           nb::arg("reduce_expr"), nb::arg("identity"), nb::arg("name") = "reduction", nb::arg("preamble") = "")
      .def("__call__", [](const ReductionKernel& k, nb::args args, nb::kwargs kwargs) {
            Call c = split(args, kwargs, k.device());
            const Args list(c.args, k.name().c_str());
            unsigned char value[16] = {};
            {
              nb::gil_scoped_release release;  // blocking: waits for the queue
              k.reduce_args(*c.queue, value, k.result_type(), size_of(k.result_type()), list.list);
            }
            return result_value(k.result_type(), value);
          }, "k([queue,] *inputs, queue=None) -> the value (blocking), as reduce<R>")
      .def("reduce_into", [](const ReductionKernel& k, Array& result, nb::args args, nb::kwargs kwargs) {
            Call c = split(args, kwargs, k.device());
            const Args list(c.args, k.name().c_str());
            const RawBuffer range = contiguous_buffer(result, "the result");
            KernelArg r;
            r.kind = KernelArg::Kind::buffer;
            r.buffer = &range;
            r.type = result.dtype();
            return k.reduce_into_args(*c.queue, r, list.list);
          }, "reduce_into(result, [queue,] *inputs, queue=None) -> Event: writes result[0]")
      .def("compile_ahead", [](const ReductionKernel& k, nb::handle kinds) { compile_ahead(k, kinds); },
           nb::arg("kinds").none() = nb::none(), "Compile the variants for these argument kinds now (None: every argument an array; a list of 'array' / 'scalar'; or a list of such lists), so the first call only enqueues")
      .def_prop_ro("compiled_variants", &ReductionKernel::compiled_variants)
      .def_prop_ro("result_dtype", [](const ReductionKernel& k) { return numpy_dtype(k.result_type()); })
      .def_prop_ro("name", &ReductionKernel::name)
      .def_prop_ro("device", &ReductionKernel::device, nb::rv_policy::copy);
}

}  // namespace duet::python
