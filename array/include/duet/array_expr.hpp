// Elementwise expressions over duet::Arrays, each evaluated as one generated kernel (fused): writing
// `a * x + y` or `sqrt(a * a + b * b)` builds a small tree, and evaluate() (or assign()) writes one
// dialect kernel for the whole tree, compiles it once per tree shape, dtypes and layout kind (duet's
// program cache keys it by its source), and runs it, reading every input and writing the output
// once.
//
//   duet::Array z = duet::evaluate(q, 2.0f * x + y);        // a new array
//   duet::assign(q, y, duet::where(x > 0, x, 0.1 * x));     // into y (any view), in place
//
// NumPy's rules: shapes broadcast (trailing axes matched, length-1 axes stretched; ArgumentError
// naming both shapes when they do not), dtypes promote (int32 + float32 is float64, float16 +
// float32 is float32), and plain C++ numbers are "weak" as Python's are: 2 keeps the array's dtype,
// 2.0 keeps a float array's dtype and turns an integer array's into float64. `/` is true division
// (float), `//` is floor_divide and `%` remainder (floor division: the remainder takes the divisor's
// sign), comparisons and the logical functions give bool (ScalarType::b8), the bitwise operators
// `& | ^ ~` take integers and bools (on bools they are logical: ~true is false), float16 is computed
// in float32 and rounded when stored. bool promotes to any other type (bool + int32 is int32; a bool
// array + 1 is int64, as numpy's); bool + bool and bool * bool are or and and, bool - bool is an
// ArgumentError; converting to bool gives x != 0 (NaN is true). float64 or complex128 anywhere in a
// tree needs a device with double precision.
//
// complex64 and complex128 (std::complex<float> and <double> elements) take + - * / (the dialect's
// cfloat_div / cdouble_div, scaled so that large magnitudes do not overflow), power, == and !=
// (ordering them is an ArgumentError), abs (a real result), real, imag, conj, sign (z / |z|), round
// (both parts), square, reciprocal, isnan, isinf, isfinite, and the functions the array API defines
// for them: sqrt, exp, expm1, log, log1p, log2, log10, sin, cos, tan, sinh, cosh, tanh and their
// inverses (principal branches, as C99's and NumPy's); the other functions refuse them. A complex type meets a real one in the complex type of the
// floats both would meet at (float32 with complex64 is complex64, float64 with complex64
// complex128); integers and bool take the complex type as it is. Converting complex to a real
// type keeps the real part; to bool, z != 0.
//
// Integer arithmetic never traps: as numpy, x // 0 and x % 0 are 0, and the lowest value // -1
// wraps to itself; overflow wraps.
#pragma once

#include "duet/export.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "duet/array.hpp"

namespace duet {

class DUET_API Expr {
 public:
  struct Node;
  // An array leaf (views of any layout).
  Expr(const Array& a);  // NOLINT(google-explicit-constructor): arrays join expressions as they are
  // A plain number, weak as a Python scalar is (a bool keeps every array's dtype).
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>
  static Expr scalar(S value) {
    if constexpr (std::is_same_v<S, bool>) return bool_scalar(value);
    return std::is_floating_point_v<S> ? float_scalar(static_cast<double>(value))
                                       : int_scalar(static_cast<std::int64_t>(value));
  }
  static Expr bool_scalar(bool value);
  static Expr float_scalar(double value);
  static Expr int_scalar(std::int64_t value);
  // A plain complex number (Python's 1j), weak: it keeps a complex array's dtype, makes a float32
  // (or narrower) array complex64 and any other complex128.
  static Expr complex_scalar(double re, double im);

  ScalarType dtype() const;    // the result's element type
  const Shape& shape() const;  // the broadcast shape
  const std::shared_ptr<const Node>& node() const { return node_; }
  explicit Expr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

 private:
  std::shared_ptr<const Node> node_;
};

// The element type NumPy gives an operation on arrays of types a and b (neither weak).
DUET_API ScalarType promote_types(ScalarType a, ScalarType b);

// Operators: Expr with Expr (or Array), and with plain numbers on either side.
#define DUET_EXPR_BINARY(op, name)                                             \
  DUET_API Expr name(const Expr& a, const Expr& b);                            \
  inline Expr operator op(const Expr& a, const Expr& b) { return name(a, b); } \
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>        \
  Expr operator op(const Expr& a, S b) {                                       \
    return name(a, Expr::scalar(b));                                           \
  }                                                                            \
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>        \
  Expr operator op(S a, const Expr& b) {                                       \
    return name(Expr::scalar(a), b);                                           \
  }
DUET_EXPR_BINARY(+, add)
DUET_EXPR_BINARY(-, subtract)
DUET_EXPR_BINARY(*, multiply)
DUET_EXPR_BINARY(/, divide)
DUET_EXPR_BINARY(%, remainder)  // Python's %, numpy.remainder: the result has the divisor's sign
DUET_EXPR_BINARY(&, bitwise_and)
DUET_EXPR_BINARY(|, bitwise_or)
DUET_EXPR_BINARY(^, bitwise_xor)
DUET_EXPR_BINARY(<, less)
DUET_EXPR_BINARY(<=, less_equal)
DUET_EXPR_BINARY(>, greater)
DUET_EXPR_BINARY(>=, greater_equal)
DUET_EXPR_BINARY(==, equal)
DUET_EXPR_BINARY(!=, not_equal)
#undef DUET_EXPR_BINARY
inline Expr operator+(const Array& a, const Array& b) { return add(a, b); }
inline Expr operator-(const Array& a, const Array& b) { return subtract(a, b); }
inline Expr operator*(const Array& a, const Array& b) { return multiply(a, b); }
inline Expr operator/(const Array& a, const Array& b) { return divide(a, b); }
inline Expr operator%(const Array& a, const Array& b) { return remainder(a, b); }
inline Expr operator&(const Array& a, const Array& b) { return bitwise_and(a, b); }
inline Expr operator|(const Array& a, const Array& b) { return bitwise_or(a, b); }
inline Expr operator^(const Array& a, const Array& b) { return bitwise_xor(a, b); }

DUET_API Expr negative(const Expr& a);
inline Expr operator-(const Expr& a) { return negative(a); }
// |a|; of a complex number its modulus (hypot of the parts, never overflowing), of the part type.
DUET_API Expr abs(const Expr& a);
// The parts of a complex number, of its part type (float32 for complex64), and its conjugate; of a
// real number: itself, 0 of its dtype, itself.
DUET_API Expr real(const Expr& a);
DUET_API Expr imag(const Expr& a);
DUET_API Expr conj(const Expr& a);
DUET_API Expr sqrt(const Expr& a);
DUET_API Expr exp(const Expr& a);
DUET_API Expr log(const Expr& a);
DUET_API Expr sin(const Expr& a);
DUET_API Expr cos(const Expr& a);
DUET_API Expr tanh(const Expr& a);
DUET_API Expr floor(const Expr& a);
DUET_API Expr ceil(const Expr& a);
// More of the dialect's math (C99's on both backends, so C99's special cases: NaN in, NaN out;
// log1p(-1) is -inf; atanh(+-1) is +-inf; ...), integers computed in the float type that holds
// them. trunc rounds toward 0; round to the nearest integer, halves to the even one (rint).
DUET_API Expr trunc(const Expr& a);
DUET_API Expr round(const Expr& a);
DUET_API Expr log2(const Expr& a);
DUET_API Expr log10(const Expr& a);
DUET_API Expr log1p(const Expr& a);
DUET_API Expr expm1(const Expr& a);
DUET_API Expr tan(const Expr& a);
DUET_API Expr sinh(const Expr& a);
DUET_API Expr cosh(const Expr& a);
DUET_API Expr asin(const Expr& a);
DUET_API Expr acos(const Expr& a);
DUET_API Expr atan(const Expr& a);
DUET_API Expr asinh(const Expr& a);
DUET_API Expr acosh(const Expr& a);
DUET_API Expr atanh(const Expr& a);
// a * a in a's dtype (integers wrap).
DUET_API Expr square(const Expr& a);
// 1 / a: float, as true division.
DUET_API Expr reciprocal(const Expr& a);
// -1, 0 or 1 in a's dtype; a float's -0 gives +0 (as numpy's), a NaN NaN. A complex z gives z / |z|
// (0 for 0, NaN for a NaN part).
DUET_API Expr sign(const Expr& a);
// Predicates, as bool like the comparisons: isnan, isinf (either sign), isfinite (neither
// NaN nor infinite: every integer), signbit (the sign bit set: -0 and a NaN of negative sign
// too; an integer's is a < 0).
DUET_API Expr isnan(const Expr& a);
DUET_API Expr isinf(const Expr& a);
DUET_API Expr isfinite(const Expr& a);
DUET_API Expr signbit(const Expr& a);
// ~a: the bits flipped (integers; logical_not for bool; ArgumentError naming a float dtype).
DUET_API Expr invert(const Expr& a);
inline Expr operator~(const Expr& a) { return invert(a); }
// a == 0 as bool (NaN counts as true, as in numpy).
DUET_API Expr logical_not(const Expr& a);
// An operand of the functions of two or three operands: an expression, an array or a plain number.
// (The one-operand functions take expressions only, so that sqrt(2.0) stays std::sqrt's.)
struct DUET_API Operand {
  Expr expr;
  Operand(const Expr& e) : expr(e) {}   // NOLINT(google-explicit-constructor)
  Operand(const Array& a) : expr(a) {}  // NOLINT(google-explicit-constructor)
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>
  Operand(S value) : expr(Expr::scalar(value)) {}  // NOLINT(google-explicit-constructor)
};
DUET_API Expr maximum(const Operand& a, const Operand& b);  // NaN propagates, as numpy.maximum
DUET_API Expr minimum(const Operand& a, const Operand& b);
// Functions of two floats (integers promoted, then computed in the float type that holds them), C99's
// special cases: atan2(y, x) the angle of (x, y) in [-pi, pi]; hypot(a, b) sqrt(a*a + b*b) without
// overflow (inf if either is infinite, NaN or not); copysign(a, b) |a| with b's sign;
// logaddexp(a, b) log(exp(a) + exp(b)) without overflow (NaN if either is NaN, else +inf if either
// is +inf, -inf if both are -inf).
DUET_API Expr atan2(const Operand& y, const Operand& x);
DUET_API Expr hypot(const Operand& a, const Operand& b);
DUET_API Expr copysign(const Operand& a, const Operand& b);
DUET_API Expr logaddexp(const Operand& a, const Operand& b);
// The next value of a's float type after a in the direction of b (C99's nextafter: b itself where
// a == b, NaN if either is NaN). half is computed in float, so it steps by float's spacing.
DUET_API Expr nextafter(const Operand& a, const Operand& b);
// Python's //: floor(a / b) (numpy.floor_divide; x // 0 is 0 for integers, inf or NaN for floats).
DUET_API Expr floor_divide(const Operand& a, const Operand& b);
// a ** b. Complex: NumPy's (x ** 0 is 1, 0 ** a positive real 0, an integer exponent below 100 by
// repeated multiplication, else exp(b log a)). Integers: exact, by repeated squaring, wrapping on overflow. A negative integer exponent
// given as a plain number is an ArgumentError (numpy's ValueError); one inside an array (decided
// only on the device) gives what truncating the real value 1 / a**|b| toward zero gives: 1 for
// a == 1, +-1 for a == -1, and 0 otherwise (0 ** -1 too), so no element can trap.
DUET_API Expr power(const Operand& a, const Operand& b);
// The truth of a and of b (nonzero, NaN included) combined, as bool.
DUET_API Expr logical_and(const Operand& a, const Operand& b);
DUET_API Expr logical_or(const Operand& a, const Operand& b);
DUET_API Expr logical_xor(const Operand& a, const Operand& b);
// a shifted by b bits (integers only). A count below 0 or of the type's bits or more shifts every
// bit out, as numpy's (C leaves it undefined): 0, or -1 for a negative value shifted right.
DUET_API Expr left_shift(const Operand& a, const Operand& b);
DUET_API Expr right_shift(const Operand& a, const Operand& b);
// cond ? a : b elementwise (cond true, or nonzero for a non-bool cond), a and b promoted together.
DUET_API Expr where(const Operand& cond, const Operand& a, const Operand& b);
DUET_API Expr clip(const Operand& a, const Operand& low, const Operand& high);
// The values converted to `dtype` (C conversion: floats to integers truncate; to bool: x != 0, NaN
// true; from bool: 0 or 1).
DUET_API Expr astype(const Expr& a, ScalarType dtype);

// A new contiguous array with the expression's values, on q.
DUET_API Array evaluate(Queue& q, const Expr& e);
// The expression's values into `out` (any view whose shape is the broadcast shape; the values are
// converted to out's dtype). `out` may also be an input: the result is as if the inputs were read
// first (a copy is made where out overlaps an input it is not identical to).
DUET_API Event assign(Queue& q, const Array& out, const Expr& e);

// numpy.outer: result[i, j] = a.flat[i] * b.flat[j] (C order), a new contiguous array of shape
// (a.size(), b.size()) with multiply's dtype. One fused kernel that broadcasts a (with b.ndim() axes
// of length 1 appended) against b over the shape a.shape + b.shape, so no input is copied or
// flattened first, whatever its layout (ArgumentError where the two layouts together need more than
// the fused kernel's 6 uneven axes: copy one first). It lives with the expressions rather than with
// matmul (duet/array_linalg.hpp): it is an elementwise product with no sum in it, so gemm has
// nothing to add, and here it needs only duet::array.
DUET_API Array outer(Queue& q, const Array& a, const Array& b);

// The dialect kernel evaluate() would run for `e` writing `out_dtype` (for tests and debugging).
// `vector4` (flat, every operand of 4-byte elements): the form GPUs run where every operand starts
// 16 bytes aligned, four elements per work-item through 16-byte vectors. Strided only:
// `narrow_index`, the index arithmetic in 32 bits, as evaluate() runs outputs of fewer than 2^32
// elements; `rows`, a work-item per element of the innermost axis looping over the rows, as
// evaluate() runs layouts whose innermost axis (collapsed) has 32 elements or more.
DUET_API std::string fused_source(const Expr& e, ScalarType out_dtype, bool flat, bool vector4 = false,
                         bool narrow_index = false, bool rows = false);

}  // namespace duet
