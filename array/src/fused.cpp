// evaluate() and assign() of duet/array_expr.hpp: one dialect kernel per expression tree. The
// source depends only on the tree's operations, its dtypes and whether every operand is contiguous
// over the whole output ("flat": element i of each is at its offset + i) or not (strided: the
// element's index along each axis of the layouts collapsed together, up to 6 axes, as in
// array_copy.duet); array and scalar values arrive as arguments, so new data or new numbers never
// compile anything. A repeat finds its kernel by the tree's structure and form without writing the
// source (fused_kernel); a new structure writes it, and duet's program cache finds the program by
// the source.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "duet/extension.hpp"
#include "duet/generated.hpp"
#include "expr_node.hpp"
#include "kernel_type.hpp"
#include "rows_range.hpp"

namespace duet {
namespace {

constexpr std::size_t kAxes = 6;
// Strided kernels take the rows form from this innermost length (array_copy.duet's rows, too).
constexpr std::size_t kRowsMinLength = 32;

using detail::kernel_type;
using detail::kernel_type_name;

// The type the kernel computes `t` in (bool as uchar 0 or 1).
std::string cname(ScalarType t) { return kernel_type_name(compute_type(t)); }

// A bfloat16 is stored from a float (STORE rounds it to nearest even), so a value of more than
// float's 24 bits would be rounded twice: once to float, once to bfloat16, and a value just past a
// halfway point between two bfloat16s can land on it and round to the wrong side. Rounding to odd
// into float first (the float below or above, whichever has an odd last bit, unless the value is
// exact) keeps that information, and the single rounding to bfloat16 after it is then correct.
// The float rounded to odd of a `from` value, as a DEVICE function's name (added to `helpers`), or
// "" where the plain cast is exact or already the only rounding.
std::string odd_float_helper(ScalarType from, std::map<std::string, std::string>& helpers) {
  if (from == ScalarType::f64) {
    helpers["duet_odd_float_double"] =
        "DEVICE float duet_odd_float_double(const double x) {\n"
        "  const float f = (float)x;\n"
        "  const uint u = DUET_AS_UINT(f);\n"
        "  if ((double)f == x || x != x || (u & 1u)) return f;\n"
        "  return DUET_AS_FLOAT(fabs((double)f) > fabs(x) ? u - 1u : u + 1u);\n"
        "}\n";
    return "duet_odd_float_double";
  }
  if (!is_integer(from) || size_of(from) < 4) return "";
  const std::string T = to_string(from), name = std::string("duet_odd_float_") + T;
  const std::string magnitude =
      is_signed(from) ? "x < 0 ? (ulong)0 - (ulong)x : (ulong)x" : std::string("(ulong)x");
  helpers[name] = "DEVICE float " + name + "(const " + T + " x) {\n  ulong m = " + magnitude +
                  ", sticky = 0;\n  uint e = 0;\n"
                  "  while (m >= 0x1000000UL) {\n    sticky |= m & 1UL;\n    m >>= 1;\n    ++e;\n  }\n"
                  "  const float f = (float)(m | sticky) * DUET_AS_FLOAT((127u + e) << 23);\n"
                  "  return " + (is_signed(from) ? std::string("x < 0 ? -f : f") : std::string("f")) + ";\n}\n";
  return name;
}

// The dialect's complex functions of `t` (cfloat_add, ...): the name's prefix.
std::string complex_fn(ScalarType t, const char* what) { return std::string(to_string(t)) + "_" + what; }

// `value`, of type `from`, as a `to`: a C cast, except that a bool is the value's truth (x != 0,
// NaN true), never its low byte, and that a value on its way to bfloat16 is rounded once
// (odd_float_helper). The complex types are structs, which C casts do not take: a real value
// becomes the real part, a complex one gives its real part to a real type (as NumPy's astype), its
// truth (either part nonzero) to bool, and its parts converted to the other complex type.
std::string converted(const std::string& value, ScalarType from, ScalarType to,
                      std::map<std::string, std::string>& helpers) {
  if (is_complex(from) || is_complex(to)) {
    if (from == to) return value;
    if (is_complex(from) && is_bool(to))
      return "((uchar)" + complex_fn(from, "ne") + "(" + value + ", " + complex_fn(from, "make") + "(0, 0)))";
    if (is_complex(from) && !is_complex(to))
      return converted("(" + value + ").re", real_type(from), to, helpers);
    const std::string R = to_string(real_type(to)), make = complex_fn(to, "make");
    if (!is_complex(from))
      return make + "(" + converted(value, from, real_type(to), helpers) + ", (" + R + ")0)";
    const std::string name = "duet_" + std::string(to_string(to)) + "_of_" + to_string(from);
    helpers[name] = "DEVICE " + std::string(to_string(to)) + " " + name + "(const " + to_string(from) +
                    " z) { return " + make + "((" + R + ")z.re, (" + R + ")z.im); }\n";
    return name + "(" + value + ")";
  }
  if (is_bool(to) && !is_bool(from)) return "((uchar)((" + value + ") != 0))";
  if (to == ScalarType::bf16) {
    const std::string odd = odd_float_helper(compute_type(from), helpers);
    if (!odd.empty()) return odd + "(" + value + ")";
  }
  return "((" + cname(to) + ")" + value + ")";
}

// The leaves of a tree in order, each array once, with the scalar leaves' concrete types (the type
// the operation that uses them computes in).
struct Leaves {
  std::vector<const Expr::Node*> arrays;
  std::vector<std::pair<const Expr::Node*, ScalarType>> scalars;
  std::map<const Expr::Node*, std::size_t> index;
};

// The dialect expression of `n`, of type compute_type(n.dtype) (`as`: the type a scalar leaf takes).
struct Writer {
  Leaves leaves;
  std::map<std::string, std::string> helpers;  // name -> DEVICE function

  std::string leaf_array(const Expr::Node& n) {
    auto found = leaves.index.find(&n);
    std::size_t k;
    if (found == leaves.index.end()) {
      k = leaves.arrays.size();
      leaves.arrays.push_back(&n);
      leaves.index[&n] = k;
    } else {
      k = found->second;
    }
    if (is_complex(n.dtype)) return "x" + std::to_string(k);  // a struct: no cast to itself in C
    return "(" + cname(n.dtype) + ")x" + std::to_string(k);
  }

  std::string emit(const Expr::Node& n, ScalarType as) {
    switch (n.kind) {
      case NodeKind::array:
        return leaf_array(n);
      case NodeKind::scalar: {
        // A real number in a complex operation arrives as its real part's type, a complex number
        // as the complex type itself.
        const std::size_t j = leaves.scalars.size();
        const bool whole = is_complex(n.dtype) && is_complex(as);
        leaves.scalars.emplace_back(&n, whole ? as : real_type(compute_type(as)));
        const std::string s = "s" + std::to_string(j);
        if (!is_complex(as) || whole) return s;
        return complex_fn(as, "make") + "(" + s + ", (" + to_string(real_type(as)) + ")0)";
      }
      case NodeKind::cast:
        return converted(emit(*n.args[0], n.args[0]->dtype), n.args[0]->dtype, n.dtype, helpers);
      case NodeKind::unary:
        return unary(n, as);
      case NodeKind::binary:
        return binary(n, as);
      case NodeKind::compare: {
        // Both sides at the type they meet at.
        const ScalarType t = meet(*n.args[0], *n.args[1]).first;
        if (is_complex(t))
          return "((uchar)" + complex_fn(t, n.op == "==" ? "eq" : "ne") + "(" + cast(*n.args[0], t) + ", " +
                 cast(*n.args[1], t) + "))";
        return "((uchar)(" + cast(*n.args[0], t) + " " + n.op + " " + cast(*n.args[1], t) + "))";
      }
      case NodeKind::where: {
        const ScalarType t = n.weak ? as : n.dtype;
        const Expr::Node& c = *n.args[0];
        return "(" + converted(emit(c, c.dtype), c.dtype, ScalarType::b8, helpers) + " != 0 ? " +
               cast(*n.args[1], t) + " : " + cast(*n.args[2], t) + ")";
      }
    }
    return "";
  }

  // A weak node's value is already in t's compute type (emit), so on its way to bfloat16 it has
  // nothing left to round twice, and on its way to a complex type it is complex already.
  std::string cast(const Expr::Node& n, ScalarType t) {
    const ScalarType from = n.weak && (t == ScalarType::bf16 || is_complex(t)) ? t : n.dtype;
    return converted(emit(n, t), from, t, helpers);
  }

  std::string unary(const Expr::Node& n, ScalarType as) {
    const ScalarType t = n.weak ? compute_type(as) : compute_type(n.dtype);
    // abs, real and imag of a complex number give its part type: the operand keeps its own.
    const Expr::Node& arg = *n.args[0];
    if (is_complex(arg.dtype) && (n.op == "abs" || n.op == "real" || n.op == "imag")) {
      const ScalarType c = n.weak ? complex_of(t) : arg.dtype;
      return converted(complex_fn(c, n.op.c_str()) + "(" + cast(arg, c) + ")", real_type(c), t, helpers);
    }
    // Of a real number, 0; the operand still reads its array, so the kernel's leaves are the tree's.
    if (n.op == "imag") return "((void)" + cast(arg, t) + ", (" + cname(t) + ")0)";
    if (is_complex(t)) {
      const std::string x = cast(arg, t);
      return complex_fn(t, n.op.c_str()) + "(" + x + ")";
    }
    const std::string x = cast(*n.args[0], t);
    if (n.op == "neg") return wrapped(t, "(-" + x + ")");
    if (n.op == "~") return "((" + cname(t) + ")~" + x + ")";
    if (n.op == "abs") {
      if (is_float(t)) return "fabs(" + x + ")";
      const std::string name = "duet_abs_" + cname(t);
      helpers[name] = "DEVICE " + cname(t) + " " + name + "(const " + cname(t) + " x) { return x < 0 ? (" +
                      cname(t) + ")-x : x; }\n";
      return name + "(" + x + ")";
    }
    if (n.op == "sign") {
      // A float's zeros give +0 (as numpy's) and a NaN itself (the array API's special cases).
      const std::string T = cname(t);
      if (is_float(t))
        return "(" + x + " > 0 ? (" + T + ")1 : " + x + " < 0 ? (" + T + ")-1 : " + x + " == 0 ? (" + T +
               ")0 : " + x + ")";
      return "((" + cname(t) + ")((" + x + " > 0) - (" + x + " < 0)))";
    }
    // sqrt, exp, log, sin, ..., floor, ceil, trunc, rint on a float type: the same names on both
    // backends.
    return n.op + "(" + x + ")";
  }

  std::string binary(const Expr::Node& n, ScalarType as) {
    const ScalarType t = n.weak ? compute_type(as) : compute_type(n.dtype);
    const std::string a = cast(*n.args[0], t), b = cast(*n.args[1], t);
    if (is_complex(t)) {
      const char* what = n.op == "+"   ? "add"
                         : n.op == "-" ? "sub"
                         : n.op == "*" ? "mul"
                         : n.op == "/" ? "div"
                                       : "pow";
      return complex_fn(t, what) + "(" + a + ", " + b + ")";
    }
    if (n.op == "max" || n.op == "min") {
      // NaN wins, as in numpy.maximum: a is kept when it is NaN or beats b, else b (NaN or not).
      const std::string beats = n.op == "max" ? "a > b" : "a < b";
      return helper(n.op, t, "  return (" + beats + (is_float(t) ? " || a != a" : "") + ") ? a : b;\n", a, b);
    }
    if (n.op == "pow" && is_float(t)) return "pow(" + a + ", " + b + ")";
    if (n.op == "atan2" || n.op == "hypot" || n.op == "copysign" || n.op == "nextafter")
      return n.op + "(" + a + ", " + b + ")";
    if (n.op == "logaddexp") {
      // The larger plus log1p(exp(-|a - b|)): exp never overflows. The infinities first, where
      // a - b would be inf - inf.
      const std::string T = cname(t);
      return helper("logaddexp", t,
                    "  if (a != a || b != b) return a + b;\n  const " + T + " m = a > b ? a : b;\n" +
                        "  if (m == (" + T + ")INFINITY || m == -(" + T + ")INFINITY) return m;\n" +
                        "  return m + log1p(exp(-fabs(a - b)));\n",
                    a, b);
    }
    if (n.op == "pow") return helper("ipow", t, integer_power(t), a, b);
    if (n.op == "//")
      return helper("floordiv", t, is_float(t) ? float_floor_divide(t) : integer_floor_divide(t), a, b);
    if (n.op == "%") return helper("mod", t, is_float(t) ? float_remainder(t) : integer_remainder(t), a, b);
    if (n.op == "<<" || n.op == ">>") return helper(n.op == "<<" ? "shl" : "shr", t, shift(n.op, t), a, b);
    return wrapped(t, "(" + a + " " + n.op + " " + b + ")");
  }

  // C computes char and short arithmetic in int; numpy wraps in the operands' type, which matters
  // where a wider operation uses the result (int8 100 + 100 is -56 before it meets an int16).
  // bool's + and * (or, and) give 1 + 1 == 2, which is true.
  static std::string wrapped(ScalarType t, const std::string& value) {
    if (is_bool(t)) return "((uchar)((" + value + ") != 0))";
    return !is_float(t) && size_of(t) < 4 ? "((" + cname(t) + ")" + value + ")" : value;
  }

  // The call name(a, b) of a DEVICE function duet_<what>_<type>(a, b) of type t with `body`,
  // defined once per kernel.
  std::string helper(const std::string& what, ScalarType t, const std::string& body, const std::string& a,
                     const std::string& b) {
    const std::string T = cname(t), name = "duet_" + what + "_" + T;
    helpers[name] = "DEVICE " + T + " " + name + "(const " + T + " a, const " + T + " b) {\n" + body + "}\n";
    return name + "(" + a + ", " + b + ")";
  }

  // The integer bodies never divide by 0 or the lowest value by -1, which trap on some devices: numpy's
  // results for those (0, and the wrapped lowest value) are returned without dividing. Products and
  // negations go through the unsigned type, where wrapping is defined.
  static bool is_signed_int(ScalarType t) { return cname(t)[0] != 'u'; }
  static std::string unsigned_of(ScalarType t) { return is_signed_int(t) ? "u" + cname(t) : cname(t); }
  static std::string bits(ScalarType t) { return std::to_string(size_of(t) * 8); }

  static std::string integer_floor_divide(ScalarType t) {
    if (!is_signed_int(t)) return "  return b == 0 ? 0 : a / b;\n";
    const std::string T = cname(t), U = unsigned_of(t);
    return "  if (b == 0) return 0;\n  if (b == -1) return (" + T + ")((" + U + ")0 - (" + U +
           ")a);\n  const " + T + " q = a / b;\n  return (a % b != 0 && (a < 0) != (b < 0)) ? (" + T +
           ")(q - 1) : q;\n";
  }
  static std::string integer_remainder(ScalarType t) {
    if (!is_signed_int(t)) return "  return b == 0 ? 0 : a % b;\n";
    const std::string T = cname(t);
    return "  if (b == 0 || b == -1) return 0;\n  const " + T +
           " r = a % b;\n  return (r != 0 && (r < 0) != (b < 0)) ? (" + T + ")(r + b) : r;\n";
  }
  // numpy's float floor division: from fmod, so a // b and a % b agree (a == b * (a // b) + a % b up to
  // rounding), with the quotient rounded to the nearest integer it must be; x // 0 is x / 0.
  static std::string float_floor_divide(ScalarType t) {
    const std::string T = cname(t);
    return "  if (b == 0) return a / b;\n  const " + T + " m = fmod(a, b);\n  " + T +
           " d = (a - m) / b;\n  if (m != 0 && (m < 0) != (b < 0)) d -= 1;\n  if (d == 0) return copysign((" +
           T + ")0, a / b);\n  const " + T + " f = floor(d);\n  return d - f > (" + T + ")0.5 ? f + 1 : f;\n";
  }
  static std::string float_remainder(ScalarType t) {
    return "  const " + cname(t) +
           " m = fmod(a, b);\n  if (m != 0) return (m < 0) != (b < 0) ? m + b : m;\n" +
           "  return copysign((" + cname(t) + ")0, b);\n";
  }
  // Repeated squaring in the unsigned type (widened to uint below 32 bits, where uchar * uchar would
  // be an int that can overflow). A negative exponent: the documented rule of power().
  static std::string integer_power(ScalarType t) {
    const std::string T = cname(t), U = unsigned_of(t), W = size_of(t) < 4 ? "uint" : U;
    std::string body;
    if (is_signed_int(t))
      body = "  if (b < 0) return a == 1 ? (" + T + ")1 : a == -1 ? (" + T + ")((b & 1) ? -1 : 1) : (" + T +
             ")0;\n";
    return body + "  " + U + " r = 1, x = (" + U + ")a;\n  for (" + T +
           " e = b; e != 0; e >>= 1) {\n    if (e & 1) r = (" + U + ")((" + W + ")r * (" + W +
           ")x);\n    x = (" + U + ")((" + W + ")x * (" + W + ")x);\n  }\n  return (" + T + ")r;\n";
  }
  // numpy's shifts: a count outside 0..bits-1 shifts everything out (0, or -1 for a negative value
  // shifted right) instead of C's undefined behaviour; left shifts in the unsigned type.
  static std::string shift(const std::string& op, ScalarType t) {
    const std::string T = cname(t), U = unsigned_of(t);
    const std::string out_of_range = (is_signed_int(t) ? "b < 0 || " : "") + std::string("b >= ") + bits(t);
    if (op == "<<")
      return "  return (" + out_of_range + ") ? (" + T + ")0 : (" + T + ")((" + U + ")a << b);\n";
    return "  return (" + out_of_range + ") ? (" + T + ")(" + (is_signed_int(t) ? "a < 0 ? -1 : 0" : "0") +
           ") : (" + T + ")(a >> b);\n";
  }
};

// Every operand's layout over the output's shape: broadcast axes get stride 0.
Layout broadcast_layout(const Array& a, const Shape& shape) {
  Layout l;
  l.shape = shape;
  l.offset = a.offset();
  l.strides.assign(shape.size(), 0);
  const std::size_t lead = shape.size() - a.ndim();
  for (std::size_t k = 0; k < a.ndim(); ++k) l.strides[lead + k] = a.shape()[k] == 1 ? 0 : a.strides()[k];
  return l;
}

bool flat_over(const Array& a, const Shape& shape) { return a.shape() == shape && a.contiguous(); }

// The source is written for the innermost strides' kinds (1, 0 or another), so that a compiler
// sees consecutive or uniform addresses across neighbouring work-items (PoCL vectorises only
// those): `inner_stride` gives an operand's innermost stride, `out_inner` the output's.
struct RowsForm {
  bool on = false;
  // Elements of a row per work-item: a run of 64 on CPUs; 1 is the GPUs' form, where each
  // work-item takes kRowLanes elements a group's width apart.
  std::size_t per = 1;
  std::int64_t out_inner = 1;
  std::function<std::int64_t(const Array&)> inner_stride;
};

// The rows form (see write_kernel) for a strided kernel over `shape` whose innermost axis, once the
// layouts are collapsed, has kRowsMinLength elements or more. Collapsing drops axes of length 1 and
// keeps the inner stride of the axes it merges: the innermost axis is the last one longer than 1,
// whatever the operands, and their strides along it are the collapsed ones.
// `gpu_form`: kRowLanes elements of a row per work-item (GPUs, and CPUs under
// DUET_ELEMENTWISE_LAYOUT=vector4, the tests' way to run GPU forms there), else a run of 64.
RowsForm rows_form(const Layout& out, const Shape& shape, bool flat, bool gpu_form) {
  RowsForm rows;
  if (flat) return rows;
  rows.per = gpu_form ? 1 : 64;
  std::size_t last = shape.size();
  while (last > 0 && shape[last - 1] == 1) --last;
  if (last == 0) return rows;
  const std::size_t axis = last - 1;
  rows.on = shape[axis] >= kRowsMinLength;  // the collapsed axis is at least this long
  rows.out_inner = out.strides[axis];
  rows.inner_stride = [shape, axis](const Array& a) { return broadcast_layout(a, shape).strides[axis]; };
  return rows;
}

struct Kernelized {
  std::string source;
  Leaves leaves;
};

// The dialect's vector of four `t` (float4, int4, uint4), for the 4-byte element types.
bool has_vector4(ScalarType t) {
  return t == ScalarType::f32 || t == ScalarType::i32 || t == ScalarType::u32;
}

// `vector4` (flat only): work-item j computes elements 4j .. 4j + 3, reading each operand and
// writing the output as one 16-byte vector (every operand starts 16 bytes aligned and has 4-byte
// elements); the n % 4 elements past the last whole vector go to the first work-items, one each.
// One element per work-item keeps too few bytes in flight on large GPUs to reach the copy
// bandwidth (bench/RESULTS.md, "vector4").
// Strided (not flat): element i's index along each axis from divisions, innermost first, in
// `narrow` 32-bit arithmetic where the output has fewer than 2^32 elements (a 64-bit division costs
// an NVIDIA GPU several times a 32-bit one). An index already below an axis's length skips the
// division: the outermost used axis and the unused ones (length 1) never divide.
// `rows` (strided only): work-item (x, y) computes elements of the innermost axis for rows y,
// y + GLOBAL_SIZE(1), ... of the others, so the divisions run once per row, not per element. On
// GPUs (per = 1) the elements are kRowLanes, a group's width apart (neighbouring work-items read
// neighbouring elements), all loaded before the first store: one element per work-item, with the
// row's offsets worked out for each, left most of the bandwidth unused (bench/RESULTS.md, "rows").
// On CPUs a run of `per` elements: one element per work-item makes each divide by the row length,
// in vector lanes that have no integer division.
Kernelized write_kernel(const Expr& e, ScalarType out_dtype, bool flat, std::size_t axes,
                        bool vector4 = false, bool narrow = false, const RowsForm& rows = {}) {
  Writer w;
  const std::string value = w.emit(*e.node(), compute_type(e.dtype()));
  // The value as the output's type (assign converts to out's dtype).
  const std::string stored = converted("(" + value + ")", e.dtype(), out_dtype, w.helpers);
  std::ostringstream s;
  for (const auto& [name, code] : w.helpers) s << code;
  s << "KERNEL void duet_fused(GLOBAL " << kernel_type_name(out_dtype) << "* out, const long out_off";
  for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
    s << ", GLOBAL const " << kernel_type_name(w.leaves.arrays[k]->dtype) << "* a" << k << ", const long a"
      << k << "_off";
  for (std::size_t j = 0; j < w.leaves.scalars.size(); ++j)
    s << ", const " << kernel_type_name(w.leaves.scalars[j].second) << " s" << j;
  s << ", const ulong n";
  if (!flat) {
    for (std::size_t d = 0; d < axes; ++d) s << ", const ulong d" << d;
    for (std::size_t d = 0; d < axes; ++d) s << ", const long os" << d;
    for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
      for (std::size_t d = 0; d < axes; ++d) s << ", const long a" << k << "s" << d;
  }
  s << ") {\n";
  // Each operand's element as a local x<k> (the value reads those), then the store.
  auto element = [&](const std::string& indent) {
    for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
      s << indent << "const " << cname(w.leaves.arrays[k]->dtype) << " x" << k << " = LOAD("
        << kernel_type_name(w.leaves.arrays[k]->dtype) << ", a" << k << " + p" << k << ");\n";
    s << indent << "STORE(" << kernel_type_name(out_dtype) << ", out + po, " << stored << ");\n";
  };
  if (vector4) {
    static const char* const lanes[4] = {"x", "y", "z", "w"};
    const std::string out4 = std::string(to_string(out_dtype)) + "4";
    s << "  const ulong j = (ulong)GLOBAL_ID(0), n4 = n / 4;\n  if (j < n4) {\n";
    for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k) {
      const std::string v = std::string(to_string(w.leaves.arrays[k]->dtype)) + "4";
      s << "    const " << v << " v" << k << " = *(GLOBAL const " << v << "*)(a" << k << " + a" << k
        << "_off + (long)(4 * j));\n";
    }
    s << "    " << out4 << " r;\n";
    for (const char* lane : lanes) {
      s << "    {\n";
      for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
        s << "      const " << cname(w.leaves.arrays[k]->dtype) << " x" << k << " = v" << k << "." << lane
          << ";\n";
      s << "      r." << lane << " = (" << cname(out_dtype) << ")(" << value << ");\n    }\n";
    }
    s << "    *(GLOBAL " << out4 << "*)(out + out_off + (long)(4 * j)) = r;\n  }\n";
    s << "  const ulong i = n4 * 4 + j;\n  if (i >= n) return;\n";
    s << "  const long po = out_off + (long)i;\n";
    for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
      s << "  const long p" << k << " = a" << k << "_off + (long)i;\n";
    element("  ");
    s << "}\n";
    return {s.str(), std::move(w.leaves)};
  }
  const std::string index = narrow ? "uint" : "ulong";
  // The offsets from `rest` over axes [0, last), innermost first (see above).
  // `base`: the offsets' names, <base>o for the output and <base><k> for operand k.
  auto divide = [&](std::size_t last, const std::string& indent, const std::string& base) {
    for (std::size_t d = last; d-- > 0;) {
      s << indent << "{\n"
        << indent << "  const " << index << " len = (" << index << ")d" << d << ";\n"
        << indent << "  const " << index << " q = rest < len ? 0 : rest / len;\n"
        << indent << "  const long at = (long)(rest - q * len);\n"
        << indent << "  rest = q;\n"
        << indent << "  " << base << "o += at * os" << d << ";\n";
      for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
        s << indent << "  " << base << k << " += at * a" << k << "s" << d << ";\n";
      s << indent << "}\n";
    }
  };
  if (rows.on && !flat && axes > 0) {
    const std::string inner = std::to_string(axes - 1);
    auto along = [&](std::int64_t stride, const std::string& name, const std::string& x) -> std::string {
      if (stride == 0) return "";
      if (stride == 1) return " + (long)" + x;
      return " + (long)" + x + " * " + name + inner;
    };
    const bool spread = rows.per == 1;
    if (spread)
      s << "  const ulong first = ((ulong)GROUP_ID(0) * " << kRowLanes << " * LOCAL_SIZE(0)) + LOCAL_ID(0);\n"
        << "  const ulong step = LOCAL_SIZE(0);\n";
    else
      s << "  const ulong first = (ulong)GLOBAL_ID(0) * " << rows.per << ";\n";
    s << "  if (first >= d" << inner << ") return;\n  const ulong rows = n / d" << inner << ";\n";
    if (!spread)
      s << "  const ulong last = d" << inner << " - first < " << rows.per << " ? d" << inner << " : first + "
        << rows.per << ";\n";
    s << "  for (ulong row = (ulong)GLOBAL_ID(1); row < rows; row += (ulong)GLOBAL_SIZE(1)) {\n"
      << "    " << index << " rest = (" << index << ")row;\n    long bo = out_off;\n";
    for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
      s << "    long b" << k << " = a" << k << "_off;\n";
    divide(axes - 1, "    ", "b");
    if (spread) {
      // Every lane's loads before any store, so that each work-item has kRowLanes loads in flight.
      for (std::size_t l = 0; l < kRowLanes; ++l) {
        const std::string c = "c" + std::to_string(l);
        s << "    const ulong " << c << " = first + " << l << " * step;\n";
        for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k) {
          const ScalarType t = w.leaves.arrays[k]->dtype;
          const std::string v = "v" + std::to_string(k) + "_" + std::to_string(l);
          s << "    " << cname(t) << " " << v << " = "
            << (is_complex(t) ? complex_fn(t, "make") + "(0, 0)" : "(" + cname(t) + ")0") << ";\n"
            << "    if (" << c << " < d" << inner << ") " << v << " = LOAD(" << kernel_type_name(t) << ", a"
            << k << " + b" << k
            << along(rows.inner_stride(w.leaves.arrays[k]->array), "a" + std::to_string(k) + "s", c)
            << ");\n";
        }
      }
      for (std::size_t l = 0; l < kRowLanes; ++l) {
        const std::string c = "c" + std::to_string(l);
        s << "    if (" << c << " < d" << inner << ") {\n";
        for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
          s << "      const " << cname(w.leaves.arrays[k]->dtype) << " x" << k << " = v" << k << "_" << l
            << ";\n";
        s << "      STORE(" << kernel_type_name(out_dtype) << ", out + bo" << along(rows.out_inner, "os", c)
          << ", " << stored << ");\n    }\n";
      }
    } else {
      s << "    for (ulong x = first; x < last; ++x) {\n"
        << "      const long po = bo" << along(rows.out_inner, "os", "x") << ";\n";
      for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
        s << "      const long p" << k << " = b" << k
          << along(rows.inner_stride(w.leaves.arrays[k]->array), "a" + std::to_string(k) + "s", "x") << ";\n";
      element("      ");
      s << "    }\n";
    }
    s << "  }\n}\n";
    return {s.str(), std::move(w.leaves)};
  }
  s << "  const ulong i = (ulong)GLOBAL_ID(0);\n  if (i >= n) return;\n";
  if (flat) {
    s << "  const long po = out_off + (long)i;\n";
    for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k)
      s << "  const long p" << k << " = a" << k << "_off + (long)i;\n";
  } else {
    s << "  " << index << " rest = (" << index << ")i;\n  long po = out_off;\n";
    for (std::size_t k = 0; k < w.leaves.arrays.size(); ++k) s << "  long p" << k << " = a" << k << "_off;\n";
    divide(axes, "  ", "p");
  }
  element("  ");
  s << "}\n";
  return {s.str(), std::move(w.leaves)};
}

// A scalar leaf as an argument of type `t` (a compute type, so never half), cast as C would.
KernelArg scalar_arg(const Expr::Node& n, ScalarType t) {
  const bool fl = n.dtype == ScalarType::f64;  // a float literal (else an integer one)
  return visit_scalar_type(kernel_type(t), [&](auto tag) -> KernelArg {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>)
      return KernelArg::from(T(static_cast<typename T::value_type>(n.float_value),
                               static_cast<typename T::value_type>(n.imag_value)));
    else if constexpr (std::is_floating_point_v<T>)
      return KernelArg::from(static_cast<T>(n.float_value));
    else if constexpr (std::is_integral_v<T>)
      return KernelArg::from(fl ? static_cast<T>(n.float_value) : static_cast<T>(n.int_value));
    else
      throw ArgumentError(std::string("a scalar cannot be passed as ") + to_string(t));
  });
}

bool uses_double(const Expr::Node& n) {
  if ((n.dtype == ScalarType::f64 || n.dtype == ScalarType::c128) && !n.weak) return true;
  for (const NodePtr& a : n.args)
    if (uses_double(*a)) return true;
  return false;
}

// One view a kernel can take on every backend (see extension::kernel_range): the argument and
// the elements from its start to the array's buffer's start.
struct Passed {
  RawBuffer arg;
  std::int64_t skipped = 0;
};
Passed passable(const Array& a) {
  const DeviceInfo& info = a.device().info();
  Passed p;
  p.arg = a.buffer().aligned_back(info.view_alignment);
  const std::size_t back = a.buffer().offset() - p.arg.offset();
  if (back % a.itemsize() != 0)
    throw ArgumentError("evaluate: an array starts " + std::to_string(a.buffer().offset()) +
                        " bytes into its allocation, not at a whole element");
  p.skipped = static_cast<std::int64_t>(back / a.itemsize());
  return p;
}

// An operand of the vector4 form: 4-byte elements, the first one 16-byte aligned in device memory.
bool vector4_ready(const Array& a) {
  return has_vector4(a.dtype()) && a.offset() % 4 == 0 && a.buffer().starts_aligned(16);
}

// Every array leaf of the tree (an array used twice appears twice).
void arrays_of(const Expr::Node& n, std::vector<const Array*>& out) {
  if (n.kind == NodeKind::array) out.push_back(&n.array);
  for (const NodePtr& a : n.args) arrays_of(*a, out);
}

// A tree's structure, the key of its kernel: what the source depends on (each node's kind, op,
// dtype and weakness; which array leaves are the same node) and nothing it takes as an argument.
// The leaves in the order the key met them.
struct Structure {
  std::string key;
  std::vector<const Expr::Node*> arrays;   // each array node once, at its first occurrence
  std::vector<const Expr::Node*> scalars;  // every scalar occurrence
  std::map<const Expr::Node*, std::size_t> index;
};

void describe(const Expr::Node& n, Structure& s) {
  s.key += static_cast<char>('A' + static_cast<int>(n.kind));
  s.key += static_cast<char>('a' + static_cast<int>(n.dtype));
  s.key += n.weak ? '~' : '.';
  if (n.kind == NodeKind::array) {
    const auto [at, fresh] = s.index.emplace(&n, s.arrays.size());
    if (fresh) s.arrays.push_back(&n);
    s.key += std::to_string(at->second) + ",";
    return;
  }
  if (n.kind == NodeKind::scalar) {
    s.scalars.push_back(&n);
    return;
  }
  s.key += n.op + "(";
  for (const NodePtr& a : n.args) describe(*a, s);
  s.key += ")";
}

// A compiled fused kernel and where its parameters' leaves are in the structure's lists: array
// parameter k is structure.arrays[arrays[k]], scalar parameter j structure.scalars[scalars[j]]
// taken as its type.
struct FusedKernel {
  Kernel kernel;
  std::vector<std::size_t> arrays;
  std::vector<std::pair<std::size_t, ScalarType>> scalars;
};

// The kernel for a structure and form, written and compiled on the first call for its key: a
// repeat skips writing the source (a few microseconds a call, as much as a launch).
std::shared_ptr<const FusedKernel> fused_kernel(const Device& device, const std::string& key,
                                                const Structure& st,
                                                const std::function<Kernelized()>& write) {
  return generated::cached<FusedKernel>(device, "duet.array.fused", key, [&] {
    const Kernelized k = write();
    FusedKernel made;
    made.kernel = generated::cached_kernel(device, "fused/" + k.source, [&] {
      return device.compile(k.source, {}, "fused.duet").kernel("duet_fused");
    });
    for (const Expr::Node* n : k.leaves.arrays) made.arrays.push_back(st.index.at(n));
    // A scalar node met twice is two parameters of one value: the n-th meeting in the source takes
    // the n-th in the structure.
    std::map<const Expr::Node*, std::size_t> used;
    for (const auto& [node, type] : k.leaves.scalars) {
      const std::size_t nth = used[node]++;
      std::size_t at = 0;
      for (std::size_t met = 0;; ++at)
        if (st.scalars[at] == node && met++ == nth) break;
      made.scalars.emplace_back(at, type);
    }
    return made;
  });
}

char stride_kind(std::int64_t stride) { return stride == 0 ? '0' : stride == 1 ? '1' : 's'; }

Event run(Queue& q, const Array& out, const Expr& e) {
  const Shape& shape = out.shape();
  const Device& device = q.device();
  if (uses_double(*e.node()) || out.dtype() == ScalarType::f64 || out.dtype() == ScalarType::c128) {
    if (!device.info().supports_double)
      throw ArgumentError("evaluate: the expression computes in float64 or complex128, which " +
                          device.info().id() + " (" + device.info().name +
                          ") lacks; use float32 and complex64 arrays (and astype)");
  }
  // Which kernel: flat when every array operand is contiguous over the whole output.
  std::vector<const Array*> inputs;
  arrays_of(*e.node(), inputs);
  bool flat = out.contiguous();
  for (const Array* a : inputs) flat = flat && flat_over(*a, shape);
  // The forms every generated kernel follows (duet/generated.hpp): flat kernels take the vector4
  // form where the operands allow, as ElementwiseKernel does.
  const generated::Forms forms = generated::forms_for(device.info().kind);
  bool vector4 = flat && forms.vector4 && vector4_ready(out);
  for (const Array* a : inputs) vector4 = vector4 && vector4_ready(*a);
  const RowsForm rows = rows_form(out.layout(), shape, flat, forms.gpu_rows);
  const bool narrow = out.size() <= 0xffffffffu;
  Structure st;
  describe(*e.node(), st);
  std::string key = std::move(st.key);
  key += static_cast<char>('a' + static_cast<int>(out.dtype()));
  key += flat ? 'f' : 's';
  key += vector4 ? 'v' : '-';
  key += narrow ? 'n' : 'w';
  if (rows.on) {
    key += "r" + std::to_string(rows.per) + stride_kind(rows.out_inner);
    for (const Expr::Node* n : st.arrays) key += stride_kind(rows.inner_stride(n->array));
  }
  const std::shared_ptr<const FusedKernel> fused = fused_kernel(
      device, key, st, [&] { return write_kernel(e, out.dtype(), flat, kAxes, vector4, narrow, rows); });
  const Kernel& kernel = fused->kernel;
  // The leaves in the kernel's parameter order.
  std::vector<const Expr::Node*> leaf_arrays;
  for (const std::size_t at : fused->arrays) leaf_arrays.push_back(st.arrays[at]);
  // The layouts in the kernel's parameter order.
  std::vector<Layout> layouts{out.layout()};
  for (const Expr::Node* n : leaf_arrays) layouts.push_back(broadcast_layout(n->array, shape));
  std::vector<Layout> walked = flat ? layouts : collapsed_together(layouts);
  if (!flat && walked[0].ndim() > kAxes)
    throw ArgumentError("evaluate: the operands' layouts need " + std::to_string(walked[0].ndim()) +
                        " uneven axes; at most " + std::to_string(kAxes) +
                        " are supported (copy an operand first)");

  // Arguments: the buffers (kept alive here), offsets, scalars, n, and the layouts.
  std::vector<Passed> passed;
  passed.reserve(leaf_arrays.size() + 1);
  passed.push_back(passable(out));
  for (const Expr::Node* n : leaf_arrays) passed.push_back(passable(n->array));
  std::vector<KernelArg> args;
  args.push_back(KernelArg::from_raw(passed[0].arg, kernel_type(out.dtype())));
  args.push_back(KernelArg::from(passed[0].skipped + walked[0].offset));
  for (std::size_t j = 0; j < leaf_arrays.size(); ++j) {
    args.push_back(KernelArg::from_raw(passed[j + 1].arg, kernel_type(leaf_arrays[j]->dtype)));
    args.push_back(KernelArg::from(passed[j + 1].skipped + walked[j + 1].offset));
  }
  for (const auto& [at, type] : fused->scalars) args.push_back(scalar_arg(*st.scalars[at], type));
  const std::uint64_t n = out.size();
  args.push_back(KernelArg::from(n));
  if (!flat) {
    const std::size_t used = walked[0].ndim(), skip = kAxes - used;
    for (std::size_t d = 0; d < kAxes; ++d)
      args.push_back(KernelArg::from(std::uint64_t(d < skip ? 1 : walked[0].shape[d - skip])));
    for (const Layout& l : walked)
      for (std::size_t d = 0; d < kAxes; ++d)
        args.push_back(KernelArg::from(std::int64_t(d < skip ? 0 : l.strides[d - skip])));
  }
  if (rows.on) {
    const std::uint64_t inner = walked[0].shape.back();
    const auto [global, local] = rows_ranges(inner, n / inner, rows.per, device.info().max_group_size);
    return q.launch_args(kernel, global, local, args);
  }
  return q.launch_args(kernel, Range(vector4 ? std::max<std::uint64_t>(n / 4, n % 4) : n), Range(), args);
}

bool same_memory(const Array& a, const Array& b) { return a.buffer().same_allocation(b.buffer()); }
bool same_view(const Array& a, const Array& b) {
  return same_memory(a, b) && a.buffer().offset() == b.buffer().offset() &&
         a.layout().offset == b.layout().offset && a.shape() == b.shape() && a.strides() == b.strides() &&
         a.dtype() == b.dtype();
}

}  // namespace

std::string fused_source(const Expr& e, ScalarType out_dtype, bool flat, bool vector4, bool narrow_index,
                         bool rows) {
  RowsForm form = rows_form(contiguous_layout(e.shape()), e.shape(), flat, true);
  form.on = rows && !flat;
  Kernelized k = write_kernel(e, out_dtype, flat, kAxes, vector4, narrow_index, form);
  bool fits = flat && has_vector4(out_dtype);
  for (const Expr::Node* n : k.leaves.arrays) fits = fits && has_vector4(n->dtype);
  if (vector4 && !fits)
    throw ArgumentError("fused_source: the vector4 form is flat, with 4-byte elements throughout");
  return k.source;
}

Array evaluate(Queue& q, const Expr& e) {
  if (e.node()->kind == NodeKind::scalar || e.node()->weak)
    throw ArgumentError(
        "evaluate: the expression has no array in it; duet evaluates expressions over arrays");
  Array out = empty(q.device(), e.shape(), e.dtype());
  if (out.size() > 0) run(q, out, e);
  return out;
}

Event assign(Queue& q, const Array& out, const Expr& e) {
  if (!out.valid()) throw ReleasedError("assign: the output array is empty (default-constructed)");
  if (e.shape().size() > out.ndim() ||
      !std::equal(e.shape().rbegin(), e.shape().rend(), out.shape().rbegin(),
                  [](std::size_t x, std::size_t y) { return x == y || x == 1; }))
    throw ArgumentError("assign: the expression's shape " + shape_text(e.shape()) +
                        " does not broadcast to out's " + shape_text(out.shape()));
  if (e.node()->device && *e.node()->device != q.device())
    throw DeviceMismatchError("assign: the expression's arrays are on " + e.node()->device->info().id() +
                              ", the queue on " + q.device().info().id());
  if (out.device() != q.device())
    throw DeviceMismatchError("assign: out is on " + out.device().info().id() + ", the queue on " +
                              q.device().info().id());
  if (out.size() == 0) return q.record();
  std::vector<const Array*> inputs;
  arrays_of(*e.node(), inputs);
  for (const Array* a : inputs)
    if (same_memory(*a, out) && !same_view(*a, out)) {
      // out overlaps an input it is not: work-items would read what others wrote.
      const Array tmp = empty(q.device(), out.shape(), out.dtype());
      run(q, tmp, e);
      return copy_into(q, tmp, out);
    }
  return run(q, out, e);
}

}  // namespace duet
