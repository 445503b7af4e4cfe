// The expression tree of duet/array_expr.hpp: each node's broadcast shape and NumPy dtype, worked
// out as it is built, so an error names the operation that caused it.
#include <algorithm>
#include <cmath>

#include "expr_node.hpp"

namespace duet {
namespace {

int bits(ScalarType t) { return static_cast<int>(size_of(t)) * 8; }
// Mantissa bits (with the implicit one) of a float type: a float holds every integer of that many
// bits (and 2^bits itself) exactly.
int mantissa(ScalarType t) {
  return t == ScalarType::f16 ? 11 : t == ScalarType::bf16 ? 8 : t == ScalarType::f32 ? 24 : 53;
}

// Whether every value of `from` is a value of `to` (NumPy's safe casting): bool goes into every
// type, nothing else into bool. float16 and bfloat16 hold different values (bfloat16 has the range,
// float16 the precision), so neither is safe into the other: they meet in float32, as in JAX and
// ml_dtypes. bfloat16's 8 bits take int8 and uint8, as ml_dtypes' safe casts do.
// A complex type holds what its part type holds (and complex64 goes into complex128); nothing
// complex goes into a real type.
bool safe(ScalarType from, ScalarType to) {
  if (from == to) return true;
  if (is_bool(from) || is_bool(to)) return is_bool(from);
  if (is_complex(from)) return is_complex(to) && size_of(to) > size_of(from);
  if (is_complex(to)) return safe(from, real_type(to));
  if (is_float(from)) return is_float(to) && size_of(to) > size_of(from);
  if (is_float(to)) return bits(from) - (is_signed(from) ? 1 : 0) <= mantissa(to);
  if (is_signed(from)) return is_signed(to) && size_of(to) > size_of(from);
  return is_signed(to) ? size_of(to) > size_of(from) : size_of(to) > size_of(from);
}

Shape broadcast(const Shape& a, const Shape& b, const char* op) {
  Shape out(std::max(a.size(), b.size()));
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::size_t x = k < a.size() ? a[a.size() - 1 - k] : 1, y = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (x != y && x != 1 && y != 1)
      throw ArgumentError(std::string(op) + ": shapes " + shape_text(a) + " and " + shape_text(b) +
                          " do not broadcast (axis " + std::to_string(out.size() - 1 - k) + ": " +
                          std::to_string(x) + " and " + std::to_string(y) + ")");
    out[out.size() - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

const Device* device_of(const std::vector<NodePtr>& args, const char* op) {
  const Device* d = nullptr;
  for (const NodePtr& n : args) {
    if (!n->device) continue;
    if (d && *d != *n->device)
      throw DeviceMismatchError(std::string(op) + ": operands on " + d->info().id() + " and " +
                                n->device->info().id());
    d = n->device;
  }
  return d;
}

}  // namespace

// NumPy's rules with weak Python-like scalars: a plain bool keeps every array's dtype, an int every
// dtype but bool (a bool array with 1 is int64, as in NumPy), a float a float array's (and makes any
// other float64).
std::pair<ScalarType, bool> meet(const Expr::Node& a, const Expr::Node& b) {
  if (a.weak && b.weak) {
    if (is_complex(a.dtype) || is_complex(b.dtype)) return {ScalarType::c128, true};
    if (is_float(a.dtype) || is_float(b.dtype)) return {ScalarType::f64, true};
    return {is_bool(a.dtype) && is_bool(b.dtype) ? ScalarType::b8 : ScalarType::i64, true};
  }
  if (a.weak || b.weak) {
    const Expr::Node& w = a.weak ? a : b;
    const Expr::Node& s = a.weak ? b : a;
    // A number of a wider kind than the array (float with integers, complex with reals) makes it
    // that kind, in double precision unless the array's floats are narrower (float32 * 1j is
    // complex64, as in NumPy 2).
    if (is_complex(w.dtype) && !is_complex(s.dtype))
      return {is_float(s.dtype) ? complex_of(s.dtype) : ScalarType::c128, false};
    if (is_float(w.dtype) && !is_float(s.dtype) && !is_complex(s.dtype)) return {ScalarType::f64, false};
    if (!is_bool(w.dtype) && is_bool(s.dtype)) return {w.dtype, false};
    return {s.dtype, false};
  }
  return {promote_types(a.dtype, b.dtype), false};
}

namespace {

// The float type an integer becomes in sqrt, exp, ... (NumPy: the smallest that holds it); a complex
// type stays itself.
ScalarType float_for(ScalarType t) {
  if (is_float(t) || is_complex(t)) return t;
  for (ScalarType f : {ScalarType::f16, ScalarType::f32, ScalarType::f64})
    if (safe(t, f)) return f;
  return ScalarType::f64;
}

Expr make(NodeKind kind, std::string op, std::vector<NodePtr> args, ScalarType dtype, bool weak,
          Shape shape) {
  auto n = std::make_shared<Expr::Node>();
  n->kind = kind;
  n->op = std::move(op);
  n->device = device_of(args, n->op.c_str());
  n->args = std::move(args);
  n->dtype = dtype;
  n->weak = weak;
  n->shape = std::move(shape);
  return Expr(std::shared_ptr<const Expr::Node>(std::move(n)));
}

// The complex types have + - * / ** and the functions the array API defines for them (complex_function);
// the rest (ordering, floor division, remainders, max, min, floor, ceil, trunc, the functions of two
// floats) have no meaning on them.
void no_complex(const std::string& op, ScalarType t) {
  if (is_complex(t))
    throw ArgumentError(op + " of " + numpy_name(t) + ": not defined for complex numbers (" +
                        "complex arrays take + - * / **, == !=, abs, sign, real, imag, conj, round and " +
                        "the exponential, logarithmic, trigonometric and hyperbolic functions); use " +
                        "real() and imag() for the parts");
}

// The one-operand functions the dialect has for cfloat and cdouble (cfloat_tanh, ...).
bool complex_function(const std::string& name) {
  for (const char* f : {"sqrt", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos",
                        "atan", "asinh", "acosh", "atanh", "expm1", "log1p", "log2", "log10", "rint"})
    if (name == f) return true;
  return false;
}

Expr arithmetic(const char* op, const Expr& a, const Expr& b) {
  auto [t, weak] = meet(*a.node(), *b.node());
  const std::string o = op;
  if (o != "+" && o != "-" && o != "*" && o != "/" && o != "pow") no_complex(o, t);
  if (o == "/" && !is_float(t) && !is_complex(t)) t = ScalarType::f64;  // true division
  if (is_bool(t)) {
    // NumPy's bool arithmetic: + and * are or and and (the result stays 0 or 1), max and min too;
    // - has no meaning on truth values; //, %, ** and shifts compute in int8.
    if (o == "-")
      throw ArgumentError(
          "subtract of bool: duet, as numpy, has no - for bool arrays; use logical_xor "
          "(or ^), or convert with astype first");
    if (o == "//" || o == "%" || o == "pow" || o == "<<" || o == ">>") t = ScalarType::i8;
  }
  return make(NodeKind::binary, op, {a.node(), b.node()}, t, weak, broadcast(a.shape(), b.shape(), op));
}

Expr comparison(const char* op, const Expr& a, const Expr& b) {
  const std::string o = op;
  if (o != "==" && o != "!=" && o != "&&" && o != "||")
    for (const Expr* x : {&a, &b})
      if (is_complex(x->dtype()))
        throw ArgumentError(std::string(op) + " of " + numpy_name(x->dtype()) +
                            ": complex numbers have no order; compare abs(), real() or imag() instead");
  return make(NodeKind::compare, op, {a.node(), b.node()}, ScalarType::b8, false,
              broadcast(a.shape(), b.shape(), op));
}

void integers_only(const char* op, ScalarType t) {
  if (is_float(t) || is_complex(t))
    throw ArgumentError(std::string(op) + " of " + to_string(t) +
                        ": bitwise operations take integer and bool dtypes only (convert with astype)");
}

// &, |, ^, << and >>: integer or bool operands (a float one, a plain 2.0 included, is refused); on
// bools & | ^ are the logical and, or and xor.
Expr bitwise(const char* op, const Expr& a, const Expr& b) {
  for (const Expr* x : {&a, &b}) integers_only(op, x->dtype());
  return arithmetic(op, a, b);
}

Expr function(const char* name, const Expr& a) {
  const std::string n = name;
  if (!complex_function(n)) no_complex(n == "rint" ? "round" : n, a.dtype());
  return make(NodeKind::unary, name, {a.node()}, float_for(a.dtype()), a.node()->weak, a.shape());
}

}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (size_of(a) == 0 || size_of(b) == 0) throw ArgumentError("promote_types: an element type is unknown");
  // With a complex type: the complex type of the real type both parts would meet at (integers and
  // bool take the complex type as it is, as the array API asks).
  if (is_complex(a) || is_complex(b)) {
    const ScalarType ra = real_type(a), rb = real_type(b);
    if (!is_float(ra)) return is_complex(b) ? b : a;
    if (!is_float(rb)) return is_complex(a) ? a : b;
    return complex_of(promote_types(ra, rb));
  }
  for (ScalarType t :
       {ScalarType::b8, ScalarType::u8, ScalarType::i8, ScalarType::u16, ScalarType::i16, ScalarType::f16,
        ScalarType::bf16, ScalarType::u32, ScalarType::i32, ScalarType::f32, ScalarType::u64, ScalarType::i64, ScalarType::f64})
    if (safe(a, t) && safe(b, t)) return t;
  return ScalarType::f64;  // int64 with uint64, or a 64-bit integer with a float: numpy's float64
}

Expr::Expr(const Array& a) {
  if (!a.valid()) throw ReleasedError("an expression's array is empty (default-constructed)");
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::array;
  n->array = a;
  n->device = &n->array.device();
  n->dtype = a.dtype();
  n->shape = a.shape();
  node_ = std::move(n);
}

Expr Expr::float_scalar(double value) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::scalar;
  n->dtype = ScalarType::f64;
  n->weak = true;
  n->float_value = value;
  return Expr(std::shared_ptr<const Node>(std::move(n)));
}

Expr Expr::complex_scalar(double re, double im) {
  Expr e = float_scalar(re);
  auto n = std::make_shared<Node>(*e.node());
  n->dtype = ScalarType::c128;
  n->imag_value = im;
  return Expr(std::shared_ptr<const Node>(std::move(n)));
}

Expr Expr::bool_scalar(bool value) {
  Expr e = int_scalar(value ? 1 : 0);
  auto n = std::make_shared<Node>(*e.node());
  n->dtype = ScalarType::b8;
  return Expr(std::shared_ptr<const Node>(std::move(n)));
}

Expr Expr::int_scalar(std::int64_t value) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::scalar;
  n->dtype = ScalarType::i64;
  n->weak = true;
  n->int_value = value;
  n->float_value = static_cast<double>(value);
  return Expr(std::shared_ptr<const Node>(std::move(n)));
}

ScalarType Expr::dtype() const { return node_->dtype; }
const Shape& Expr::shape() const { return node_->shape; }

Expr add(const Expr& a, const Expr& b) { return arithmetic("+", a, b); }
Expr subtract(const Expr& a, const Expr& b) { return arithmetic("-", a, b); }
Expr multiply(const Expr& a, const Expr& b) { return arithmetic("*", a, b); }
Expr divide(const Expr& a, const Expr& b) { return arithmetic("/", a, b); }
Expr less(const Expr& a, const Expr& b) { return comparison("<", a, b); }
Expr less_equal(const Expr& a, const Expr& b) { return comparison("<=", a, b); }
Expr greater(const Expr& a, const Expr& b) { return comparison(">", a, b); }
Expr greater_equal(const Expr& a, const Expr& b) { return comparison(">=", a, b); }
Expr equal(const Expr& a, const Expr& b) { return comparison("==", a, b); }
Expr not_equal(const Expr& a, const Expr& b) { return comparison("!=", a, b); }

Expr negative(const Expr& a) {
  if (is_bool(a.dtype()))
    throw ArgumentError(
        "negative of bool: duet, as numpy, has no unary - for bool arrays; use logical_not "
        "(or ~)");
  return make(NodeKind::unary, "neg", {a.node()}, a.dtype(), a.node()->weak, a.shape());
}
// abs of a complex number is its modulus, of the part type.
Expr abs(const Expr& a) {
  return make(NodeKind::unary, "abs", {a.node()}, real_type(a.dtype()), a.node()->weak, a.shape());
}
// A real number's real part is itself, its imaginary part 0 and its conjugate itself (the array
// API's real, imag and conj on real dtypes).
Expr real(const Expr& a) {
  if (!is_complex(a.dtype())) return a;
  return make(NodeKind::unary, "real", {a.node()}, real_type(a.dtype()), a.node()->weak, a.shape());
}
Expr imag(const Expr& a) {
  return make(NodeKind::unary, "imag", {a.node()}, real_type(a.dtype()), a.node()->weak, a.shape());
}
Expr conj(const Expr& a) {
  if (!is_complex(a.dtype())) return a;
  return make(NodeKind::unary, "conj", {a.node()}, a.dtype(), a.node()->weak, a.shape());
}
Expr sqrt(const Expr& a) { return function("sqrt", a); }
Expr exp(const Expr& a) { return function("exp", a); }
Expr log(const Expr& a) { return function("log", a); }
Expr sin(const Expr& a) { return function("sin", a); }
Expr cos(const Expr& a) { return function("cos", a); }
Expr tanh(const Expr& a) { return function("tanh", a); }
Expr floor(const Expr& a) { return function("floor", a); }
Expr ceil(const Expr& a) { return function("ceil", a); }
Expr trunc(const Expr& a) { return function("trunc", a); }
Expr round(const Expr& a) { return function("rint", a); }
Expr log2(const Expr& a) { return function("log2", a); }
Expr log10(const Expr& a) { return function("log10", a); }
Expr log1p(const Expr& a) { return function("log1p", a); }
Expr expm1(const Expr& a) { return function("expm1", a); }
Expr tan(const Expr& a) { return function("tan", a); }
Expr sinh(const Expr& a) { return function("sinh", a); }
Expr cosh(const Expr& a) { return function("cosh", a); }
Expr asin(const Expr& a) { return function("asin", a); }
Expr acos(const Expr& a) { return function("acos", a); }
Expr atan(const Expr& a) { return function("atan", a); }
Expr asinh(const Expr& a) { return function("asinh", a); }
Expr acosh(const Expr& a) { return function("acosh", a); }
Expr atanh(const Expr& a) { return function("atanh", a); }
Expr square(const Expr& a) { return multiply(a, a); }
Expr reciprocal(const Expr& a) { return divide(Expr::float_scalar(1.0), a); }
// Of a complex number z / |z| (0 for 0), the array API's.
Expr sign(const Expr& a) {
  return make(NodeKind::unary, "sign", {a.node()}, a.dtype(), a.node()->weak, a.shape());
}

// The predicates are comparisons, so they share the comparisons' kernel code and bool dtype. An
// integer is never NaN nor infinite: its answers are comparisons of the value with itself, which
// keep the result's shape and device without computing in a float type.
Expr isnan(const Expr& a) { return not_equal(a, a); }
Expr isinf(const Expr& a) {
  if (is_complex(a.dtype())) return logical_or(isinf(real(a)), isinf(imag(a)));
  if (!is_float(a.dtype())) return not_equal(a, a);
  return equal(abs(a), Expr::float_scalar(HUGE_VAL));
}
Expr isfinite(const Expr& a) {
  if (is_complex(a.dtype())) return logical_and(isfinite(real(a)), isfinite(imag(a)));
  if (!is_float(a.dtype())) return equal(a, a);
  return less(abs(a), Expr::float_scalar(HUGE_VAL));  // false for NaN and both infinities
}
// copysign carries the sign bit of -0 and of a NaN, which no comparison of a itself sees.
Expr signbit(const Expr& a) {
  no_complex("signbit", a.dtype());
  if (!is_float(a.dtype())) return less(a, Expr::int_scalar(0));
  return less(copysign(Expr::float_scalar(1.0), a), Expr::int_scalar(0));
}

Expr maximum(const Operand& a, const Operand& b) { return arithmetic("max", a.expr, b.expr); }
Expr minimum(const Operand& a, const Operand& b) { return arithmetic("min", a.expr, b.expr); }

// The functions of two floats: the operands' promoted type, made a float type as one-operand
// functions make theirs.
static Expr float_binary(const char* op, const Expr& a, const Expr& b) {
  const Expr e = arithmetic(op, a, b);  // refuses complex operands
  return make(NodeKind::binary, op, {a.node(), b.node()}, float_for(e.dtype()), e.node()->weak, e.shape());
}
Expr atan2(const Operand& y, const Operand& x) { return float_binary("atan2", y.expr, x.expr); }
Expr hypot(const Operand& a, const Operand& b) { return float_binary("hypot", a.expr, b.expr); }
Expr copysign(const Operand& a, const Operand& b) { return float_binary("copysign", a.expr, b.expr); }
Expr logaddexp(const Operand& a, const Operand& b) { return float_binary("logaddexp", a.expr, b.expr); }
Expr nextafter(const Operand& a, const Operand& b) { return float_binary("nextafter", a.expr, b.expr); }

Expr floor_divide(const Operand& a, const Operand& b) { return arithmetic("//", a.expr, b.expr); }
Expr remainder(const Expr& a, const Expr& b) { return arithmetic("%", a, b); }

Expr power(const Operand& base, const Operand& exponent) {
  const Expr e = arithmetic("pow", base.expr, exponent.expr);
  const Expr::Node& x = *exponent.expr.node();
  // numpy refuses integer ** negative integer; here that is known before running only for a number.
  if (!is_float(e.dtype()) && !is_complex(e.dtype()) && x.kind == NodeKind::scalar && x.dtype == ScalarType::i64 && x.int_value < 0)
    throw ArgumentError(std::string("power: ") + to_string(e.dtype()) + " ** " + std::to_string(x.int_value) +
                        ": integers to negative integer powers are not allowed (as in numpy); use a float "
                        "base (astype(..., float32)) or a float exponent");
  return e;
}

Expr bitwise_and(const Expr& a, const Expr& b) { return bitwise("&", a, b); }
Expr bitwise_or(const Expr& a, const Expr& b) { return bitwise("|", a, b); }
Expr bitwise_xor(const Expr& a, const Expr& b) { return bitwise("^", a, b); }
Expr left_shift(const Operand& a, const Operand& b) { return bitwise("<<", a.expr, b.expr); }
Expr right_shift(const Operand& a, const Operand& b) { return bitwise(">>", a.expr, b.expr); }
Expr invert(const Expr& a) {
  integers_only("invert", a.dtype());
  if (is_bool(a.dtype())) return logical_not(a);  // ~True is False, not the flipped byte
  return make(NodeKind::unary, "~", {a.node()}, a.dtype(), a.node()->weak, a.shape());
}

// The logical functions are comparisons of truth values (x != 0), so they share the comparisons'
// kernel code and dtype.
Expr logical_not(const Expr& a) { return equal(a, Expr::int_scalar(0)); }
Expr logical_and(const Operand& a, const Operand& b) {
  return comparison("&&", not_equal(a.expr, Expr::int_scalar(0)), not_equal(b.expr, Expr::int_scalar(0)));
}
Expr logical_or(const Operand& a, const Operand& b) {
  return comparison("||", not_equal(a.expr, Expr::int_scalar(0)), not_equal(b.expr, Expr::int_scalar(0)));
}
Expr logical_xor(const Operand& a, const Operand& b) {
  return not_equal(not_equal(a.expr, Expr::int_scalar(0)), not_equal(b.expr, Expr::int_scalar(0)));
}

Expr where(const Operand& condition, const Operand& if_true, const Operand& if_false) {
  const Expr& cond = condition.expr;
  const Expr& a = if_true.expr;
  const Expr& b = if_false.expr;
  auto [t, weak] = meet(*a.node(), *b.node());
  const Shape shape = broadcast(broadcast(cond.shape(), a.shape(), "where"), b.shape(), "where");
  return make(NodeKind::where, "where", {cond.node(), a.node(), b.node()}, t, weak, shape);
}

Expr clip(const Operand& a, const Operand& low, const Operand& high) {
  return minimum(maximum(a, low), high);
}

Expr astype(const Expr& a, ScalarType dtype) {
  if (size_of(dtype) == 0) throw ArgumentError("astype: the element type is unknown");
  return make(NodeKind::cast, "cast", {a.node()}, dtype, false, a.shape());
}

}  // namespace duet
