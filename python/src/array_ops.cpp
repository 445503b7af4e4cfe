// duet.Array's arithmetic on duet::Array's expressions, reductions and matmul: the operators
// (+ - * / // % ** & | ^ << >> and the reflected and in-place forms, comparisons, unary - and ~,
// abs(), @) and the private functions duet/_array_api.py turns into the module's array API
// (duet.sqrt, duet.sum, duet.cumulative_sum, ...).
//
// Eager: every operator or function call on arrays evaluates its expression at once, as one fused
// kernel on the queue given (default: the device's default queue), and returns a new array. So
// `a * x + y` runs two kernels. Implicit laziness (operators building one duet::Expr, evaluated where
// the value is first needed) would have to evaluate every pending expression before anything writes
// memory one reads (in-place operators, kernels, copies, DLPack consumers writing shared memory),
// which the module cannot see in every case. Fusion is explicit instead: duet.fuse (duet/_fuse.py)
// calls a function with Expression leaves in place of its arrays; operators and functions on
// Expressions build one duet::Expr, evaluated once when the function returns, reading the arrays
// then.
//
// Python numbers are weak (NumPy 2, the array API): 2 keeps an array's dtype, 2.0 keeps a float
// array's and makes an integer array's float64. Lists and NumPy arrays are copied to the device
// and take part with their own dtype.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"

namespace duet::python {
namespace {

nb::object not_implemented() { return nb::borrow(Py_NotImplemented); }

// An unevaluated expression of duet.fuse, and the device its arrays are on. A leaf keeps its array,
// so that it can still be indexed.
struct Expression {
  Expr expr;
  Device device;
  std::optional<Array> leaf;
};

// `v` as an expression operand on `device`, or nullopt for a type arithmetic does not take.
std::optional<Expr> operand(nb::handle v, const Device& device) {
  Array* a = nullptr;
  if ((a = bound_or_null<Array>(v)) != nullptr) return Expr(*a);
  Expression* x = nullptr;
  if ((x = bound_or_null<Expression>(v)) != nullptr) return x->expr;
  // NumPy arrays and scalars, lists: copied to the device (their dtype takes part in promotion: NumPy's
  // scalars are strong, numpy.float64 too, though it is a Python float).
  static nb::handle numpy_ndarray = nb::object(nb::module_::import_("numpy").attr("ndarray")).release();
  static nb::handle numpy_generic = nb::object(nb::module_::import_("numpy").attr("generic")).release();
  if (nb::isinstance(v, numpy_ndarray) || nb::isinstance(v, numpy_generic) || nb::isinstance<nb::list>(v) ||
      nb::isinstance<nb::tuple>(v)) {
    static nb::handle asarray = nb::object(nb::module_::import_("duet._duet").attr("asarray")).release();
    return Expr(nb::cast<Array&>(asarray(v, device)));
  }
  if (PyBool_Check(v.ptr())) return Expr::bool_scalar(v.ptr() == Py_True);
  if (PyLong_Check(v.ptr())) {
    const long long x = PyLong_AsLongLong(v.ptr());
    if (x == -1 && PyErr_Occurred()) throw nb::python_error();  // OverflowError, as NumPy's
    return Expr::int_scalar(x);
  }
  if (PyFloat_Check(v.ptr())) return Expr::float_scalar(PyFloat_AsDouble(v.ptr()));
  if (PyComplex_Check(v.ptr()))
    return Expr::complex_scalar(PyComplex_RealAsDouble(v.ptr()), PyComplex_ImagAsDouble(v.ptr()));
  return std::nullopt;
}

Expr require_operand(nb::handle v, const Device& device) {
  std::optional<Expr> e = operand(v, device);
  if (!e)
    throw ArgumentError(
        std::string("duet's array functions take duet.Arrays, Python numbers, lists and NumPy "
                    "arrays, not ") +
        Py_TYPE(v.ptr())->tp_name);
  return *e;
}

Array run(Queue& q, const Expr& e) {
  nb::gil_scoped_release release;
  return duet::evaluate(q, e);
}

using Fn = std::function<Expr(const std::vector<Expr>&)>;
struct Op {
  std::size_t arity;
  Fn fn;
};

const Op& find_op(const std::string& name) {
  static const std::vector<std::pair<std::string, Op>> ops = {
      {"add", {2, [](auto& x) { return add(x[0], x[1]); }}},
      {"subtract", {2, [](auto& x) { return subtract(x[0], x[1]); }}},
      {"multiply", {2, [](auto& x) { return multiply(x[0], x[1]); }}},
      {"divide", {2, [](auto& x) { return divide(x[0], x[1]); }}},
      {"less", {2, [](auto& x) { return less(x[0], x[1]); }}},
      {"less_equal", {2, [](auto& x) { return less_equal(x[0], x[1]); }}},
      {"greater", {2, [](auto& x) { return greater(x[0], x[1]); }}},
      {"greater_equal", {2, [](auto& x) { return greater_equal(x[0], x[1]); }}},
      {"equal", {2, [](auto& x) { return equal(x[0], x[1]); }}},
      {"not_equal", {2, [](auto& x) { return not_equal(x[0], x[1]); }}},
      {"maximum", {2, [](auto& x) { return maximum(x[0], x[1]); }}},
      {"minimum", {2, [](auto& x) { return minimum(x[0], x[1]); }}},
      {"pow", {2, [](auto& x) { return power(x[0], x[1]); }}},
      {"floor_divide", {2, [](auto& x) { return floor_divide(x[0], x[1]); }}},
      {"remainder", {2, [](auto& x) { return remainder(x[0], x[1]); }}},
      {"logical_and", {2, [](auto& x) { return logical_and(x[0], x[1]); }}},
      {"logical_or", {2, [](auto& x) { return logical_or(x[0], x[1]); }}},
      {"logical_xor", {2, [](auto& x) { return logical_xor(x[0], x[1]); }}},
      {"logical_not", {1, [](auto& x) { return logical_not(x[0]); }}},
      {"bitwise_and", {2, [](auto& x) { return bitwise_and(x[0], x[1]); }}},
      {"bitwise_or", {2, [](auto& x) { return bitwise_or(x[0], x[1]); }}},
      {"bitwise_xor", {2, [](auto& x) { return bitwise_xor(x[0], x[1]); }}},
      {"bitwise_invert", {1, [](auto& x) { return invert(x[0]); }}},
      {"bitwise_left_shift", {2, [](auto& x) { return left_shift(x[0], x[1]); }}},
      {"bitwise_right_shift", {2, [](auto& x) { return right_shift(x[0], x[1]); }}},
      {"negative", {1, [](auto& x) { return negative(x[0]); }}},
      {"abs", {1, [](auto& x) { return duet::abs(x[0]); }}},
      {"real", {1, [](auto& x) { return duet::real(x[0]); }}},
      {"imag", {1, [](auto& x) { return duet::imag(x[0]); }}},
      {"conj", {1, [](auto& x) { return duet::conj(x[0]); }}},
      {"sqrt", {1, [](auto& x) { return duet::sqrt(x[0]); }}},
      {"exp", {1, [](auto& x) { return duet::exp(x[0]); }}},
      {"log", {1, [](auto& x) { return duet::log(x[0]); }}},
      {"sin", {1, [](auto& x) { return duet::sin(x[0]); }}},
      {"cos", {1, [](auto& x) { return duet::cos(x[0]); }}},
      {"tanh", {1, [](auto& x) { return duet::tanh(x[0]); }}},
      {"floor", {1, [](auto& x) { return duet::floor(x[0]); }}},
      {"ceil", {1, [](auto& x) { return duet::ceil(x[0]); }}},
      {"trunc", {1, [](auto& x) { return duet::trunc(x[0]); }}},
      {"round", {1, [](auto& x) { return duet::round(x[0]); }}},
      {"log2", {1, [](auto& x) { return duet::log2(x[0]); }}},
      {"log10", {1, [](auto& x) { return duet::log10(x[0]); }}},
      {"log1p", {1, [](auto& x) { return duet::log1p(x[0]); }}},
      {"expm1", {1, [](auto& x) { return duet::expm1(x[0]); }}},
      {"tan", {1, [](auto& x) { return duet::tan(x[0]); }}},
      {"sinh", {1, [](auto& x) { return duet::sinh(x[0]); }}},
      {"cosh", {1, [](auto& x) { return duet::cosh(x[0]); }}},
      {"asin", {1, [](auto& x) { return duet::asin(x[0]); }}},
      {"acos", {1, [](auto& x) { return duet::acos(x[0]); }}},
      {"atan", {1, [](auto& x) { return duet::atan(x[0]); }}},
      {"asinh", {1, [](auto& x) { return duet::asinh(x[0]); }}},
      {"acosh", {1, [](auto& x) { return duet::acosh(x[0]); }}},
      {"atanh", {1, [](auto& x) { return duet::atanh(x[0]); }}},
      {"square", {1, [](auto& x) { return duet::square(x[0]); }}},
      {"reciprocal", {1, [](auto& x) { return duet::reciprocal(x[0]); }}},
      {"sign", {1, [](auto& x) { return duet::sign(x[0]); }}},
      {"isnan", {1, [](auto& x) { return duet::isnan(x[0]); }}},
      {"isinf", {1, [](auto& x) { return duet::isinf(x[0]); }}},
      {"isfinite", {1, [](auto& x) { return duet::isfinite(x[0]); }}},
      {"signbit", {1, [](auto& x) { return duet::signbit(x[0]); }}},
      {"atan2", {2, [](auto& x) { return duet::atan2(x[0], x[1]); }}},
      {"hypot", {2, [](auto& x) { return duet::hypot(x[0], x[1]); }}},
      {"copysign", {2, [](auto& x) { return duet::copysign(x[0], x[1]); }}},
      {"logaddexp", {2, [](auto& x) { return duet::logaddexp(x[0], x[1]); }}},
      {"nextafter", {2, [](auto& x) { return duet::nextafter(x[0], x[1]); }}},
      {"where", {3, [](auto& x) { return where(x[0], x[1], x[2]); }}},
      {"clip", {3, [](auto& x) { return clip(x[0], x[1], x[2]); }}},
  };
  for (const auto& [n, op] : ops)
    if (n == name) return op;
  throw ArgumentError("no elementwise function " + name);
}

// The device of the first duet.Array or Expression among `args`.
const Device* device_of(const std::vector<nb::handle>& args) {
  for (nb::handle v : args) {
    Array* a = nullptr;
    if ((a = bound_or_null<Array>(v)) != nullptr) return &a->device();
    Expression* x = nullptr;
    if ((x = bound_or_null<Expression>(v)) != nullptr) return &x->device;
  }
  return nullptr;
}

bool any_expression(const std::vector<nb::handle>& args) {
  for (nb::handle v : args)
    if (nb::isinstance<Expression>(v)) return true;
  return false;
}

// name(*args): an Expression where an operand is one (inside duet.fuse), else evaluated on `queue`.
nb::object elementwise(const std::string& name, const std::vector<nb::handle>& args, nb::handle queue) {
  const Op& op = find_op(name);
  if (args.size() != op.arity)
    throw ArgumentError(name + " takes " + std::to_string(op.arity) + " operands, " +
                        std::to_string(args.size()) + " given");
  const Device* device = device_of(args);
  if (!device) {
    if (queue.is_none())
      throw ArgumentError(name +
                          ": no operand is a duet.Array, so no device is named: pass one (duet.asarray)");
    device = &nb::cast<Queue&>(queue).device();
  }
  std::vector<Expr> exprs;
  for (nb::handle v : args) exprs.push_back(require_operand(v, *device));
  if (any_expression(args)) return nb::cast(Expression{op.fn(exprs), *device, std::nullopt});
  return nb::cast(run(queue_or_default(queue, *device), op.fn(exprs)));
}

// a <op> other as an operator: NotImplemented for an operand type it does not take, so Python
// tries the other side.
nb::object binary(const char* name, nb::handle a, nb::handle other, bool reflected) {
  std::vector<nb::handle> both{a, other};
  const Device& device = *device_of(both);
  std::optional<Expr> o = operand(other, device);
  if (!o) return not_implemented();
  const Expr self = *operand(a, device);
  const Op& op = find_op(name);
  const Expr e = reflected ? op.fn({*o, self}) : op.fn({self, *o});
  if (any_expression(both)) return nb::cast(Expression{e, device, std::nullopt});
  return nb::cast(run(default_queue(device), e));
}

// a <op>= other, written into a: NumPy's same_kind rule (a float result refuses to go into an
// integer array) and the array's own shape (the result may not broadcast it larger).
nb::object inplace(const char* name, const char* symbol, nb::handle a, nb::handle other) {
  Array& self = nb::cast<Array&>(a);
  const Device& device = self.device();
  std::optional<Expr> o = operand(other, device);
  if (!o) return not_implemented();
  const Expr e = find_op(name).fn({Expr(self), *o});
  static nb::handle can_cast = nb::object(nb::module_::import_("numpy").attr("can_cast")).release();
  // NumPy knows bfloat16 only through ml_dtypes: same_kind for it is "into any float array".
  const bool bf16 = e.dtype() == ScalarType::bf16 || self.dtype() == ScalarType::bf16;
  if (bf16 ? !is_float(self.dtype())
           : !nb::cast<bool>(can_cast(numpy_dtype(e.dtype()), numpy_dtype(self.dtype()),
                                      nb::arg("casting") = "same_kind")))
    throw ArgumentError(std::string("in-place ") + name + ": the result is " + numpy_name(e.dtype()) +
                        ", which cannot be stored in this " + numpy_name(self.dtype()) +
                        " array under NumPy's same_kind rule: write a = a " + symbol +
                        " b (a new array) or convert a with astype first");
  if (e.shape() != self.shape())
    throw ArgumentError(std::string("in-place ") + name + ": the result's shape " + shape_text(e.shape()) +
                        " is not the array's " + shape_text(self.shape()) +
                        "; an in-place operation cannot change the array's shape");
  {
    nb::gil_scoped_release release;
    duet::assign(default_queue(device), self, e);
  }
  return nb::borrow(a);
}

ReduceOp reduce_op(const std::string& name) {
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::mean, ReduceOp::min, ReduceOp::max,
                      ReduceOp::argmin, ReduceOp::argmax, ReduceOp::all, ReduceOp::any})
    if (name == to_string(op)) return op;
  throw ArgumentError("no reduction " + name);
}

// axis=None (every element), an integer, or a tuple of them (several axes at once; the C++ side
// refuses argmin/argmax over more than one, and repeated axes).
Array reduce_axes(Queue& q, ReduceOp op, const Array& v, nb::handle axis, bool keepdims) {
  if (axis.is_none()) {
    nb::gil_scoped_release release;
    return duet::reduce(q, op, v, std::nullopt, keepdims);
  }
  if (nb::isinstance<nb::tuple>(axis) || nb::isinstance<nb::list>(axis)) {
    std::vector<std::int64_t> axes;
    for (nb::handle a : axis) axes.push_back(nb::cast<std::int64_t>(a));
    nb::gil_scoped_release release;
    return duet::reduce(q, op, v, axes, keepdims);
  }
  const std::int64_t one = nb::cast<std::int64_t>(axis);
  nb::gil_scoped_release release;
  return duet::reduce(q, op, v, std::optional<std::int64_t>(one), keepdims);
}

const Device& device_or_default(nb::handle device) {
  return device.is_none() ? default_device() : nb::cast<const Device&>(device);
}

// The operators of duet.Array and of Expression (in place only on arrays: on an Expression, Python
// falls back to the plain operator, a new Expression).
template <class Class>
void def_operators(Class& cls, bool in_place) {
#define DUET_OPERATOR(py, name, symbol)                                                        \
  cls.def("__" py "__", [](nb::handle a, nb::handle b) { return binary(name, a, b, false); }); \
  cls.def("__r" py "__", [](nb::handle a, nb::handle b) { return binary(name, a, b, true); }); \
  if (in_place)                                                                                \
    cls.def("__i" py "__", [](nb::handle a, nb::handle b) { return inplace(name, symbol, a, b); });
  DUET_OPERATOR("add", "add", "+")
  DUET_OPERATOR("sub", "subtract", "-")
  DUET_OPERATOR("mul", "multiply", "*")
  DUET_OPERATOR("truediv", "divide", "/")
  DUET_OPERATOR("pow", "pow", "**")
  DUET_OPERATOR("floordiv", "floor_divide", "//")
  DUET_OPERATOR("mod", "remainder", "%")
  DUET_OPERATOR("and", "bitwise_and", "&")
  DUET_OPERATOR("or", "bitwise_or", "|")
  DUET_OPERATOR("xor", "bitwise_xor", "^")
  DUET_OPERATOR("lshift", "bitwise_left_shift", "<<")
  DUET_OPERATOR("rshift", "bitwise_right_shift", ">>")
#undef DUET_OPERATOR
#define DUET_COMPARISON(py, name) \
  cls.def("__" py "__", [](nb::handle a, nb::handle b) { return binary(name, a, b, false); });
  DUET_COMPARISON("lt", "less")
  DUET_COMPARISON("le", "less_equal")
  DUET_COMPARISON("gt", "greater")
  DUET_COMPARISON("ge", "greater_equal")
  DUET_COMPARISON("eq", "equal")
  DUET_COMPARISON("ne", "not_equal")
#undef DUET_COMPARISON
  cls.def("__neg__", [](nb::handle a) { return elementwise("negative", {a}, nb::none()); });
  cls.def("__abs__", [](nb::handle a) { return elementwise("abs", {a}, nb::none()); });
  cls.def("__invert__", [](nb::handle a) { return elementwise("bitwise_invert", {a}, nb::none()); });
}

void bind_expression(nb::module_& m) {
  nb::class_<Expression> expression(
      m, "Expression",
      "An unevaluated elementwise expression over duet.Arrays, inside a function decorated with duet.fuse: "
      "operators and duet's elementwise functions on it build one kernel, run when the function returns");
  expression.def_prop_ro("shape", [](const Expression& x) { return nb::tuple(nb::cast(x.expr.shape())); })
      .def_prop_ro("dtype", [](const Expression& x) { return numpy_dtype(x.expr.dtype()); })
      .def_prop_ro("ndim", [](const Expression& x) { return x.expr.shape().size(); })
      .def_prop_ro("device", [](const Expression& x) { return x.device; })
      .def(
          "__getitem__",
          [](const Expression& x, nb::handle key) {
            if (!x.leaf)
              throw ArgumentError(
                  "only the arrays of a fused function can be indexed, not the expressions made from them: "
                  "write f(x)[key] outside, or index x itself");
            Array view = index_array(*x.leaf, key);
            return Expression{Expr(view), x.device, view};
          },
          nb::arg("key").none())
      .def(
          "astype",
          [](const Expression& x, nb::handle dtype) {
            return Expression{duet::astype(x.expr, scalar_type_of_dtype(dtype)), x.device, std::nullopt};
          },
          nb::arg("dtype"))
      .def(
          "evaluate",
          [](const Expression& x, nb::handle queue) {
            return run(queue_or_default(queue, x.device), x.expr);
          },
          nb::arg("queue").none() = nb::none(), "The values, as a new array (one kernel on `queue`)")
      .def("__pos__", [](const Expression& x) { return x; })
      .def("__bool__",
           [](const Expression&) -> bool {
             throw ArgumentError(
                 "an Expression has no value until duet.fuse evaluates it: use duet.where for a choice per "
                 "element");
           })
      .def("__repr__", [](const Expression& x) {
        return "<duet.Expression shape=" + shape_text(x.expr.shape()) +
               " dtype=" + numpy_name(x.expr.dtype()) + ">";
      });
  def_operators(expression, false);
  m.def(
      "_leaf",
      [](const Array& a) {
        return Expression{Expr(a), a.device(), a};
      },
      nb::arg("a"));
}

}  // namespace

void bind_array_ops(nb::module_& m, nb::class_<Array>& array) {
  m.def(
      "_elementwise",
      [](const std::string& name, nb::args args, nb::handle queue) {
        std::vector<nb::handle> list;
        for (nb::handle v : args) list.push_back(v);
        return elementwise(name, list, queue);
      },
      nb::arg("name"), nb::arg("args"), nb::arg("queue").none() = nb::none());
  m.def(
      "_reduce",
      [](const std::string& name, const Array& a, nb::handle axis, bool keepdims, nb::handle queue) {
        Queue& q = queue_or_default(queue, a.device());
        return reduce_axes(q, reduce_op(name), a, axis, keepdims);
      },
      nb::arg("name"), nb::arg("a"), nb::arg("axis").none() = nb::none(), nb::arg("keepdims") = false,
      nb::arg("queue").none() = nb::none());
  m.def(
      "_scan",
      [](const Array& a, std::optional<std::int64_t> axis, bool product, nb::handle queue) {
        Queue& q = queue_or_default(queue, a.device());
        nb::gil_scoped_release release;
        return product ? duet::cumprod(q, a, axis) : duet::cumsum(q, a, axis);
      },
      nb::arg("a"), nb::arg("axis").none() = nb::none(), nb::arg("product") = false,
      nb::arg("queue").none() = nb::none());
  m.def(
      "_cumsum_into",
      [](const Array& a, std::int64_t axis, const Array& out, nb::handle queue) {
        Queue& q = queue_or_default(queue, a.device());
        nb::gil_scoped_release release;
        duet::cumsum(q, a, axis, out);
      },
      nb::arg("a"), nb::arg("axis"), nb::arg("out"), nb::arg("queue").none() = nb::none());
  m.def(
      "_outer",
      [](const Array& a, const Array& b, nb::handle queue) {
        Queue& q = queue_or_default(queue, a.device());
        nb::gil_scoped_release release;
        return duet::outer(q, a, b);
      },
      nb::arg("a"), nb::arg("b"), nb::arg("queue").none() = nb::none());
  m.def(
      "_matmul",
      [](const Array& a, const Array& b, nb::handle queue) {
        Queue& q = queue_or_default(queue, a.device());
        nb::gil_scoped_release release;
        return duet::matmul(q, a, b);
      },
      nb::arg("a"), nb::arg("b"), nb::arg("queue").none() = nb::none());
  m.def(
      "_assign",
      [](const Array& out, const Array& value, nb::handle queue) {
        // Broadcast and converted to out's dtype on the device (concat and stack fill their result
        // this way, on the caller's queue).
        Queue& q = queue_or_default(queue, out.device());
        nb::gil_scoped_release release;
        duet::assign(q, out, Expr(value));
      },
      nb::arg("out"), nb::arg("value"), nb::arg("queue").none() = nb::none());
  m.def(
      "_astype",
      [](const Array& a, nb::handle dtype, bool copy, nb::handle queue) {
        const ScalarType t = scalar_type_of_dtype(dtype);
        if (t == a.dtype() && !copy) return a;
        return run(queue_or_default(queue, a.device()), duet::astype(a, t));
      },
      nb::arg("a"), nb::arg("dtype"), nb::arg("copy") = true, nb::arg("queue").none() = nb::none());
  m.def(
      "_arange",
      [](double start, double stop, double step, nb::handle dtype, nb::handle device, nb::handle queue) {
        const Device& d = device_or_default(device);
        return duet::arange(queue_or_default(queue, d), start, stop, step, scalar_type_of_dtype(dtype));
      },
      nb::arg("start"), nb::arg("stop"), nb::arg("step"), nb::arg("dtype"), nb::arg("device").none(),
      nb::arg("queue").none());
  m.def(
      "_linspace",
      [](double start, double stop, std::size_t num, bool endpoint, nb::handle dtype, nb::handle device,
         nb::handle queue) {
        const Device& d = device_or_default(device);
        return duet::linspace(queue_or_default(queue, d), start, stop, num, endpoint,
                              scalar_type_of_dtype(dtype));
      },
      nb::arg("start"), nb::arg("stop"), nb::arg("num"), nb::arg("endpoint"), nb::arg("dtype"),
      nb::arg("device").none(), nb::arg("queue").none());

  // The operators, evaluated on the device's default queue.
  def_operators(array, true);
  bind_expression(m);
  array.def("__pos__", [](const Array& a) { return run(default_queue(a.device()), Expr(a)); });
  array.def("__matmul__", [](nb::handle a, nb::handle b) -> nb::object {
    Array* other = nullptr;
    if ((other = bound_or_null<Array>(b)) == nullptr) return not_implemented();
    const Array& self = nb::cast<Array&>(a);
    Queue& q = default_queue(self.device());
    Array product;
    {
      nb::gil_scoped_release release;
      product = duet::matmul(q, self, *other);
    }
    return nb::cast(product);
  });
}

}  // namespace duet::python
