// Kernel launches from Python: sizes and arguments converted by the kernel's declared parameter types
// (Kernel::signature()), the launch itself by Queue::launch_args. This is the path whose overhead
// bench/python_launch.py measures: no Python code runs, and nothing is allocated but the Event.
#include "launch.hpp"

#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "duet/scalar_convert.hpp"

namespace duet::python {
namespace {

std::string describe(const KernelParam* p, std::size_t index) {
  std::string s = "argument " + std::to_string(index + 1);
  if (p) s += " (" + p->type_name + " " + p->name + ")";
  return s;
}

std::string python_repr(nb::handle value) {
  nb::str r = nb::repr(value);
  std::string s = r.c_str();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

template <class T>
void put(KernelArg& a, ScalarType type, T value) {
  a.kind = KernelArg::Kind::scalar;
  a.type = type;
  a.size = sizeof(T);
  std::memcpy(a.bytes.data(), &value, sizeof(T));
}

// A Python or NumPy integer: an int, or anything with __index__ but a float (bool is one too: the
// callers decide about it).
bool is_python_integer(nb::handle v) {
  return PyLong_Check(v.ptr()) || (!PyFloat_Check(v.ptr()) && PyIndex_Check(v.ptr()));
}

// A Python integer as int64, or uint64 above int64's range; nothing beyond 64 bits.
std::optional<WideScalar> wide_integer(nb::handle v) {
  nb::object as_int = nb::steal(PyNumber_Index(v.ptr()));
  if (!as_int.is_valid()) throw nb::python_error();
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(as_int.ptr(), &overflow);
  if (overflow == 0) return WideScalar(static_cast<std::int64_t>(s));
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(as_int.ptr());
    if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred()))
      return WideScalar(static_cast<std::uint64_t>(u));
    PyErr_Clear();
  }
  return std::nullopt;
}

// What values of `t` reach, for messages: " [-128, 127]", or a float type's largest finite value.
std::string range_text(ScalarType t) {
  return visit_scalar_type(t, [](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return " [" + std::to_string(+std::numeric_limits<T>::min()) + ", " +
             std::to_string(+std::numeric_limits<T>::max()) + "]";
    } else if constexpr (std::is_void_v<T> || is_complex_v<T>) {
      return "";
    } else {
      std::ostringstream text;
      text.precision(17);
      if constexpr (std::is_same_v<T, half>)
        text << 65504.0;
      else if constexpr (std::is_same_v<T, bfloat16>)
        text << 3.3895313892515355e38;
      else
        text << std::numeric_limits<T>::max();
      return " (largest finite value " + text.str() + ")";
    }
  });
}

[[noreturn]] void out_of_range(nb::handle v, ScalarType t, const KernelParam* p, std::size_t index) {
  throw ArgumentError(describe(p, index) + ": " + python_repr(v) + " is out of range for " + to_string(t) +
                      range_text(t));
}

// An integer parameter's value: a Python or NumPy integer (not bool, not a float, even a whole one).
WideScalar integer(nb::handle v, ScalarType t, const KernelParam* p, std::size_t index) {
  if (PyBool_Check(v.ptr()) || !is_python_integer(v))
    throw ArgumentError(describe(p, index) + " takes an integer, not " + python_repr(v) + " (" +
                        Py_TYPE(v.ptr())->tp_name + ")");
  const std::optional<WideScalar> value = wide_integer(v);
  if (!value) out_of_range(v, t, p, index);  // beyond 64 bits: no integer type holds it
  return *value;
}

// A float parameter's value: any real number but bool.
double real(nb::handle v, const KernelParam* p, std::size_t index) {
  if (PyFloat_Check(v.ptr())) return PyFloat_AS_DOUBLE(v.ptr());
  if (!PyBool_Check(v.ptr()) && (PyLong_Check(v.ptr()) || PyNumber_Check(v.ptr())) && !nb::isinstance<Array>(v)) {
    const double d = PyFloat_AsDouble(v.ptr());
    if (!(d == -1.0 && PyErr_Occurred())) return d;
    PyErr_Clear();
  }
  throw ArgumentError(describe(p, index) + " takes a real number, not " + python_repr(v) + " (" +
                      Py_TYPE(v.ptr())->tp_name + ")");
}

// Python's types decide what a parameter takes (an integer parameter refuses floats); the value is
// then converted by duet::convert_scalar, the range check C++ arguments go through, so Python
// refuses what C++ refuses.
void scalar_of_type(ScalarType t, nb::handle v, const KernelParam* p, std::size_t index, KernelArg& a) {
  if (t == ScalarType::unknown)
    throw ArgumentError(describe(p, index) + ": duet cannot convert a Python value to the parameter's type '" +
                        (p ? p->type_name : std::string("?")) + "'");
  const WideScalar value = is_integer(t) ? integer(v, t, p, index) : WideScalar(real(v, p, index));
  a.kind = KernelArg::Kind::scalar;
  a.type = t;
  a.size = size_of(t);
  const ScalarFit fit = convert_scalar(value, t, a.bytes.data());
  if (fit == ScalarFit::out_of_range) out_of_range(v, t, p, index);
  if (fit != ScalarFit::fits) throw scalar_conversion_error(value, ScalarType::unknown, t, fit, describe(p, index));
}

// A NumPy scalar's own type (numpy.int32(5) -> i32), for kernels without a signature.
ScalarType numpy_scalar_type(nb::handle v) {
  if (!nb::hasattr(v, "dtype") || !nb::hasattr(v, "item") || nb::hasattr(v, "shape") == false) return ScalarType::unknown;
  nb::object shape = v.attr("shape");
  if (nb::len(shape) != 0) return ScalarType::unknown;
  try {
    return scalar_type_of_dtype(v.attr("dtype"));
  } catch (const Error&) {
    return ScalarType::unknown;
  }
}

}  // namespace

namespace {

// Argument `i` of `kernel` (declared as *p, or p null for a kernel without a parsed signature) from
// `v` into `a`; a view's range of elements is made in `range`, which `a` then points to.
void convert_arg(const Kernel& kernel, const KernelParam* p, std::size_t i, nb::handle v, KernelArg& a,
                 RawBuffer& range) {
  a = KernelArg();
  Array* array = nullptr;
  if ((array = bound_or_null<Array>(v)) != nullptr) {
    a.kind = KernelArg::Kind::buffer;
    // A whole array is passed as it is; a view as the range of its elements, made here (the message
    // is only built for a strided view: this is the measured launch path).
    if (exact(*array)) {
      a.buffer = &array->buffer();
    } else {
      range = contiguous_buffer(*array, array->contiguous() ? "" : describe(p, i).c_str());
      a.buffer = &range;
    }
    // A bool array is its bytes, 0 or 1, to a kernel (which declares it uchar: no backend takes bool).
    a.type = is_bool(array->dtype()) ? ScalarType::u8 : array->dtype();
    return;  // kinds and element types are checked by launch_args against the declaration
  }
  if (p && p->kind == KernelParam::Kind::buffer)
    throw ArgumentError(describe(p, i) + " is a buffer: pass a duet.Array (duet.asarray(...)), not " +
                        python_repr(v) + " (" + Py_TYPE(v.ptr())->tp_name + ")");
  if (p && p->type != ScalarType::unknown) {
    scalar_of_type(p->type, v, p, i, a);
    return;
  }
  const ScalarType t = numpy_scalar_type(v);
  if (t == ScalarType::unknown)
    throw ArgumentError(describe(p, i) + " of " + kernel.name() + ": " +
                        (p ? "its type '" + p->type_name + "' is not one duet knows"
                           : std::string("a native kernel's parameters are not known")) +
                        ", so a scalar needs its type: pass numpy.int32(...), numpy.float32(...) and so on "
                        "(or declare the parameters with Program.kernel(name, parameters)), not " +
                        python_repr(v));
  scalar_of_type(t, v, p, i, a);
}

}  // namespace

void convert_args(const Kernel& kernel, nb::handle args, std::size_t first, std::vector<KernelArg>& out,
                  std::vector<RawBuffer>& ranges) {
  const std::size_t count = nb::len(args) - first;
  const auto& signature = kernel.signature();
  if (signature && signature->params.size() != count)
    throw ArgumentError("kernel " + kernel.name() + " takes " + std::to_string(signature->params.size()) +
                        " arguments, " + std::to_string(count) + " given");
  out.resize(count);
  ranges.clear();
  ranges.resize(count);  // never reallocated in the loop: the arguments point into it
  PyObject* tuple = args.ptr();
  for (std::size_t i = 0; i < count; ++i) {
    nb::handle v(PyTuple_GET_ITEM(tuple, static_cast<Py_ssize_t>(first + i)));
    convert_arg(kernel, signature ? &signature->params[i] : nullptr, i, v, out[i], ranges[i]);
  }
}

void convert_one_arg(const Kernel& kernel, std::size_t index, nb::handle value, KernelArg& out,
                     RawBuffer& range) {
  const auto& signature = kernel.signature();
  if (signature && index >= signature->params.size())
    throw ArgumentError("kernel " + kernel.name() + " takes " + std::to_string(signature->params.size()) +
                        " arguments, numbered from 0; there is no argument " + std::to_string(index));
  convert_arg(kernel, signature ? &signature->params[index] : nullptr, index, value, out, range);
}

Range to_range(nb::handle size, const char* what) {
  if (size.is_none()) return Range();
  auto dim = [&](nb::handle v) -> std::size_t {
    if (PyBool_Check(v.ptr()) || !is_python_integer(v))
      throw ArgumentError(std::string(what) + " takes integers, not " + python_repr(v));
    const long long x = PyLong_AsLongLong(nb::steal(PyNumber_Index(v.ptr())).ptr());
    if (x < 0 || PyErr_Occurred()) {
      PyErr_Clear();
      throw ArgumentError(std::string(what) + ": " + python_repr(v) + " is not a size");
    }
    return static_cast<std::size_t>(x);
  };
  if (is_python_integer(size)) return Range(dim(size));
  if (!nb::isinstance<nb::tuple>(size) && !nb::isinstance<nb::list>(size))
    throw ArgumentError(std::string(what) + " is an int or a tuple of 1 to 3 ints, not " + python_repr(size));
  const std::size_t n = nb::len(size);
  if (n == 1) return Range(dim(size[0]));
  if (n == 2) return Range(dim(size[0]), dim(size[1]));
  if (n == 3) return Range(dim(size[0]), dim(size[1]), dim(size[2]));
  throw ArgumentError(std::string(what) + " has 1 to 3 dimensions, not " + std::to_string(n));
}

Event launch(Queue& q, const Kernel& kernel, nb::handle args, std::size_t first) {
  if (nb::len(args) < first + 2) throw ArgumentError("a launch takes a global size and a local size (or None)");
  const Range global = to_range(args[first], "the global size");
  const Range local = to_range(args[first + 1], "the local size");
  // Reused: no allocation per launch. The views' handles are dropped after the launch, so they pin
  // no memory beyond it.
  thread_local std::vector<KernelArg> list;
  thread_local std::vector<RawBuffer> ranges;
  struct Drop {
    std::vector<RawBuffer>& ranges;
    ~Drop() { ranges.clear(); }
  } drop{ranges};
  convert_args(kernel, args, first + 2, list, ranges);
  return q.launch_args(kernel, global, local, Span<const KernelArg>(list.data(), list.size()));
}

KernelArg natural_scalar(nb::handle v, const char* what) {
  KernelArg a;
  if (PyBool_Check(v.ptr())) {
    put(a, ScalarType::i64, static_cast<std::int64_t>(v.ptr() == Py_True));
  } else if (is_python_integer(v)) {
    const std::optional<WideScalar> value = wide_integer(v);
    if (!value) throw ArgumentError(std::string(what) + ": " + python_repr(v) + " does not fit in 64 bits");
    if (const auto* s = std::get_if<std::int64_t>(&*value))
      put(a, ScalarType::i64, *s);
    else
      put(a, ScalarType::u64, std::get<std::uint64_t>(*value));
  } else {
    put(a, ScalarType::f64, real(v, nullptr, 0));
  }
  return a;
}

}  // namespace duet::python
