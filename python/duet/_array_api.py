"""duet's array functions under the Python array API standard's names (2023.12) where it covers
them, over duet::Array's fused expressions, reductions and matmul (python/src/array_ops.cpp), and the
methods duet.Array gains in Python: reductions, astype, iteration, conversion to Python numbers,
__array_namespace__.

Eager: each call evaluates at once, as one kernel on `queue` (default: the default queue of the
operands' device), and returns a new duet.Array; inside a function decorated with duet.fuse
(duet/_fuse.py) the elementwise functions take and give duet.Expressions, evaluated together. Python numbers are weak scalars (2 keeps an
array's dtype); lists and NumPy arrays are copied to the device. Comparisons and the predicates
(isnan, isinf, isfinite, signbit) give bool arrays, as do the logical functions; on bool arrays
& | ^ ~ are logical, and bool promotes to any other dtype (bool with int32 is int32).
"""

import builtins

from . import _dtypes, _duet

__all__ = [
    "abs", "add", "all", "any", "arange", "argmax", "argmin", "astype", "bitwise_and", "bitwise_invert",
    "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "ceil", "clip", "cos",
    "cumprod", "cumsum", "cumulative_prod", "cumulative_sum", "divide", "floor_divide", "logical_and",
    "logical_not", "logical_or", "logical_xor", "outer", "remainder",
    "equal", "exp", "floor", "greater", "greater_equal", "less", "less_equal", "linspace", "log", "max",
    "matmul", "maximum", "mean", "min", "minimum", "multiply", "negative", "not_equal", "positive", "pow", "power",
    "prod", "sin", "sqrt", "subtract", "sum", "tanh", "tensordot", "vecdot", "where",
    "trunc", "round", "log2", "log10", "log1p", "expm1", "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh",
    "acosh", "atanh", "square", "reciprocal", "sign", "isnan", "isinf", "isfinite", "signbit", "atan2", "hypot",
    "copysign", "logaddexp", "nextafter", "conj", "real", "imag",
]


def _named(f, name, doc):
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _unary(name, doc):
    return _named(lambda x, /, *, queue=None: _duet._elementwise(name, x, queue=queue), name,
                  doc + " (elementwise, one kernel on `queue`).")


def _binary(name, doc):
    return _named(lambda x1, x2, /, *, queue=None: _duet._elementwise(name, x1, x2, queue=queue), name,
                  doc + " (elementwise with broadcasting, one kernel on `queue`).")


abs = _unary("abs", "|x|")
negative = _unary("negative", "-x")
sqrt = _unary("sqrt", "The square root")
exp = _unary("exp", "e**x")
log = _unary("log", "The natural logarithm")
sin = _unary("sin", "The sine")
cos = _unary("cos", "The cosine")
tanh = _unary("tanh", "The hyperbolic tangent")
_floor = _unary("floor", "Rounded down")
_ceil = _unary("ceil", "Rounded up")


def _integers_unchanged(f):
    # The array API keeps an integer array's dtype (the values are already whole), where duet::floor
    # computes in float.
    def g(x, /, *, queue=None):
        if isinstance(x, (_duet.Array, _duet.Expression)) and x.dtype.kind in "iu":
            return positive(x, queue=queue)
        return f(x, queue=queue)
    return _named(g, f.__name__, f.__doc__ + " Integers stay as they are (a copy of the same dtype).")


floor = _integers_unchanged(_floor)
ceil = _integers_unchanged(_ceil)
trunc = _integers_unchanged(_unary("trunc", "Rounded toward zero"))
round = _integers_unchanged(_unary("round", "Rounded to the nearest integer, halves to the even one"))
log2 = _unary("log2", "The base-2 logarithm")
log10 = _unary("log10", "The base-10 logarithm")
log1p = _unary("log1p", "log(1 + x), exact for small x")
expm1 = _unary("expm1", "exp(x) - 1, exact for small x")
tan = _unary("tan", "The tangent")
sinh = _unary("sinh", "The hyperbolic sine")
cosh = _unary("cosh", "The hyperbolic cosine")
asin = _unary("asin", "The inverse sine, in [-pi/2, pi/2]")
acos = _unary("acos", "The inverse cosine, in [0, pi]")
atan = _unary("atan", "The inverse tangent, in [-pi/2, pi/2]")
asinh = _unary("asinh", "The inverse hyperbolic sine")
acosh = _unary("acosh", "The inverse hyperbolic cosine")
atanh = _unary("atanh", "The inverse hyperbolic tangent")
square = _unary("square", "x * x in x's dtype (integers wrap)")
reciprocal = _unary("reciprocal", "1 / x (true division: a float result)")
sign = _unary("sign", "-1, 0 or 1 in x's dtype (a float's -0 gives +0, NaN gives NaN)")
isnan = _unary("isnan", "Whether x is NaN, as bool")
isinf = _unary("isinf", "Whether x is +inf or -inf, as bool")
isfinite = _unary("isfinite", "Whether x is neither NaN nor infinite (every integer is), as bool")
signbit = _unary("signbit",
                 "Whether x's sign bit is set (-0.0 and a negative NaN too; an integer's: x < 0), as bool")
atan2 = _binary("atan2", "The angle of the point (x2, x1), in [-pi, pi] (float)")
hypot = _binary("hypot", "sqrt(x1**2 + x2**2) without overflow (float)")
copysign = _binary("copysign", "|x1| with x2's sign (float)")
logaddexp = _binary("logaddexp", "log(exp(x1) + exp(x2)) without overflow (float)")


def nextafter(x1, x2, /, *, queue=None):
    """The next float32 or float64 value after x1 toward x2 (x2 where they are equal; NaN if either
    is NaN), elementwise with broadcasting, one kernel on `queue`."""
    for x in (x1, x2):
        t = getattr(x, "dtype", None)
        if t is not None and t.name not in ("float32", "float64"):
            raise _duet_argument_error(f"nextafter takes float32 and float64 arrays, not {t.name}")
    return _duet._elementwise("nextafter", x1, x2, queue=queue)


def conj(x, /, *, queue=None):
    """The complex conjugate (the imaginary part negated); of a real dtype, a copy of x."""
    return _duet._elementwise("conj", x, queue=queue)


def real(x, /, *, queue=None):
    """The real part, of the part's dtype (float32 for complex64); of a real dtype, a copy of x."""
    return _duet._elementwise("real", x, queue=queue)


def imag(x, /, *, queue=None):
    """The imaginary part, of the part's dtype (float32 for complex64); of a real dtype, zeros of x's
    shape and dtype."""
    return _duet._elementwise("imag", x, queue=queue)

add = _binary("add", "x1 + x2")
subtract = _binary("subtract", "x1 - x2")
divide = _binary("divide", "x1 / x2 (true division: a float result)")
maximum = _binary("maximum", "The larger of x1 and x2 (NaN propagates)")
minimum = _binary("minimum", "The smaller of x1 and x2 (NaN propagates)")
pow = _binary("pow", "x1 ** x2 (floating and complex types)")
power = pow
floor_divide = _binary("floor_divide", "x1 // x2 (rounded toward -inf, as Python's; integer x // 0 is 0)")
remainder = _binary("remainder", "x1 % x2 with the divisor's sign, as Python's (integer x % 0 is 0)")
logical_and = _binary("logical_and", "x1 and x2 (nonzero is true) as bool")
logical_or = _binary("logical_or", "x1 or x2 (nonzero is true) as bool")
logical_xor = _binary("logical_xor", "x1 xor x2 (nonzero is true) as bool")
logical_not = _unary("logical_not", "not x (x == 0) as bool")
bitwise_and = _binary("bitwise_and", "x1 & x2 (integers)")
bitwise_or = _binary("bitwise_or", "x1 | x2 (integers)")
bitwise_xor = _binary("bitwise_xor", "x1 ^ x2 (integers)")
bitwise_invert = _unary("bitwise_invert", "~x (integers)")
bitwise_left_shift = _binary("bitwise_left_shift", "x1 << x2 (integers; a count past the width gives 0)")
bitwise_right_shift = _binary("bitwise_right_shift",
                              "x1 >> x2 (integers, arithmetic for signed; a count past the width gives 0 or -1)")
less = _binary("less", "x1 < x2 as bool")
less_equal = _binary("less_equal", "x1 <= x2 as bool")
greater = _binary("greater", "x1 > x2 as bool")
greater_equal = _binary("greater_equal", "x1 >= x2 as bool")
equal = _binary("equal", "x1 == x2 as bool")
not_equal = _binary("not_equal", "x1 != x2 as bool")


def multiply(x1, x2, c=None, /, *, queue=None):
    """x1 * x2 (elementwise with broadcasting, one kernel on `queue`). With a third array c, the
    older built-in kernel: c = x1 * x2 over float32 arrays of one size, in place."""
    if c is not None:
        return _duet.multiply(x1, x2, c, queue=queue)
    return _duet._elementwise("multiply", x1, x2, queue=queue)


def matmul(x1, x2, /, *, out=None, queue=None):
    """x1 @ x2 with numpy.matmul's shapes (a vector on either side, stacks of matrices broadcast) and
    floating dtypes promoted together, through duet's gemm (duet::matmul over arrays: transposed and
    row-stepped views go to gemm without a copy). With `out` (a float32 2-D array of the product's
    shape), the older built-in kernel: the product of two float32 2-D arrays written into out, returned."""
    if out is not None:
        return _duet._matmul_into(x1, x2, out, queue=queue)
    import numpy

    t = _dtypes.result_type(x1.dtype, x2.dtype)  # knows bfloat16, as NumPy may not
    x1, x2 = astype(x1, t, copy=False, queue=queue), astype(x2, t, copy=False, queue=queue)
    return _duet._matmul(x1, x2, queue=queue)


def positive(x, /, *, queue=None):
    """+x: a copy."""
    return x if isinstance(x, _duet.Expression) else x.copy(queue=queue)


def where(condition, x1, x2, /, *, queue=None):
    """x1 where condition is nonzero, else x2 (broadcast together, x1 and x2 promoted)."""
    return _duet._elementwise("where", condition, x1, x2, queue=queue)


def clip(x, /, min=None, max=None, *, queue=None):
    """x limited to [min, max] (either may be None: no limit on that side)."""
    if min is None and max is None:
        return positive(x, queue=queue)
    if min is None:
        return _duet._elementwise("minimum", x, max, queue=queue)
    if max is None:
        return _duet._elementwise("maximum", x, min, queue=queue)
    return _duet._elementwise("clip", x, min, max, queue=queue)


def astype(x, dtype, /, *, copy=True, queue=None):
    """x converted to `dtype` (floats to integers truncate, as C); with copy=False, x itself when it
    already has that dtype."""
    if isinstance(x, _duet.Expression):
        return x.astype(dtype)
    return _duet._astype(x, dtype, copy, queue=queue)


def _reduction(name, doc):
    return _named(
        lambda x, /, *, axis=None, keepdims=False, queue=None: _duet._reduce(name, x, axis, keepdims, queue=queue),
        name, doc + " over every element (axis=None), one axis or a tuple of axes, keepdims keeping them "
        "with length 1; one kernel on `queue`, a new array (0-d for axis=None).")


sum = _reduction("sum", "The sum (int64 for signed integers and bools, whose sum counts the trues; "
                 "uint64 for unsigned)")
prod = _reduction("prod", "The product (int64 for signed integers, uint64 for unsigned)")
mean = _reduction("mean", "The mean (float64 for integers)")
min = _reduction("min", "The smallest element (NaN if any)")
max = _reduction("max", "The largest element (NaN if any)")
argmin = _reduction("argmin", "The first position of the smallest element (int64)")
argmax = _reduction("argmax", "The first position of the largest element (int64)")
all = _reduction("all", "Whether every element is true (nonzero), as bool")
any = _reduction("any", "Whether any element is true (nonzero), as bool")


def _cumulative(name, product, x, axis, dtype, include_initial, queue):
    """cumulative_sum and cumulative_prod: the array API's rules around duet's scan."""
    if axis is None:
        if x.ndim > 1:
            flat = "cumprod" if product else "cumsum"
            raise _duet_argument_error(f"{name} of a {x.ndim}-d array needs an axis (the array API's "
                                       f"rule); use duet.{flat} for the flattened array")
        axis = 0
    if dtype is not None:
        x = astype(x, dtype, copy=False, queue=queue)
    if x.ndim == 0:
        raise _duet_argument_error(f"{name} of a 0-d array: there is no axis to run along")
    runs = _duet._scan(x, axis, product, queue=queue)
    if not include_initial:
        return runs
    axis = axis % x.ndim
    shape = list(x.shape)
    shape[axis] += 1
    out = _duet.full(tuple(shape), 1 if product else 0, runs.dtype, x.device, queue)
    out[(slice(None),) * axis + (slice(1, None),)] = runs
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False, queue=None):
    """The running sums along `axis` (required for more than one dimension, as the array API says),
    sum's dtypes (int32 gives int64) unless `dtype` converts x first; include_initial puts a 0 before
    each run. One kernel on `queue` (a work-group per run, in a fixed order: results repeat bit for
    bit), plus a copy with include_initial."""
    return _cumulative("cumulative_sum", False, x, axis, dtype, include_initial, queue)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False, queue=None):
    """The running products along `axis`, as cumulative_sum (prod's dtypes are sum's);
    include_initial puts a 1 before each run."""
    return _cumulative("cumulative_prod", True, x, axis, dtype, include_initial, queue)


def cumprod(a, axis=None, *, queue=None):
    """numpy.cumprod: the running products along `axis`, or over the flattened array (C order) when
    axis is None."""
    return _duet._scan(a, axis, True, queue=queue)


def cumsum(a, axis=None, *, queue=None):
    """numpy.cumsum: the running sums along `axis`, or over the flattened array (C order) when axis
    is None."""
    return _duet._scan(a, axis, False, queue=queue)


def outer(a, b, /, *, queue=None):
    """numpy.outer: every product a[i] * b[j] of the flattened arrays, a (a.size, b.size) array (one
    fused kernel; no input is copied)."""
    return _duet._outer(a, b, queue=queue)


def vecdot(x1, x2, /, *, axis=-1, queue=None):
    """The dot product of x1 and x2 (broadcast together) along `axis`, x1 conjugated where it is
    complex (the standard's): two kernels, a product and a sum."""
    from ._fuse import fuse
    if isinstance(x1, (_duet.Array, _duet.Expression)) and x1.dtype.kind == "c":
        product = fuse(lambda a, b: multiply(conj(a), b))(x1, x2, queue=queue)
    else:
        product = multiply(x1, x2, queue=queue)
    return sum(product, axis=axis, queue=queue)


def tensordot(x1, x2, /, *, axes=2, queue=None):
    """The sum of products over the last `axes` axes of x1 and the first of x2 (or over the axes the
    pair of sequences `axes` names), as one matrix product (duet::matmul: floating types) between
    transposed views, copied where a reshape needs it. Different dtypes are promoted first."""
    import math

    import numpy

    if isinstance(axes, int):
        if axes < 0 or axes > builtins.min(x1.ndim, x2.ndim):
            raise _duet_argument_error(f"tensordot: axes={axes} for arrays of {x1.ndim} and {x2.ndim} dimensions")
        a1, a2 = list(range(x1.ndim - axes, x1.ndim)), list(range(axes))
    else:
        a1, a2 = ([a] if isinstance(a, int) else list(a) for a in axes)
        a1, a2 = [a % x1.ndim for a in a1], [a % x2.ndim for a in a2]
    if len(a1) != len(a2) or builtins.any(x1.shape[p] != x2.shape[q] for p, q in zip(a1, a2)):
        raise _duet_argument_error(f"tensordot: axes {a1} of shape {x1.shape} do not match axes {a2} of shape "
                                   f"{x2.shape}")
    free1 = [k for k in range(x1.ndim) if k not in a1]
    free2 = [k for k in range(x2.ndim) if k not in a2]
    t = _dtypes.result_type(x1.dtype, x2.dtype)  # knows bfloat16, as NumPy may not
    x1, x2 = astype(x1, t, copy=False, queue=queue), astype(x2, t, copy=False, queue=queue)
    rows = math.prod(x1.shape[k] for k in free1)
    inner = math.prod(x1.shape[k] for k in a1)
    cols = math.prod(x2.shape[k] for k in free2)
    a = x1.transpose(tuple(free1 + a1)).reshape((rows, inner), queue=queue)
    b = x2.transpose(tuple(a2 + free2)).reshape((inner, cols), queue=queue)
    shape = tuple(x1.shape[k] for k in free1) + tuple(x2.shape[k] for k in free2)
    return _duet._matmul(a, b, queue=queue).reshape(shape, queue=queue)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None, queue=None):
    """start, start + step, ... below stop, as numpy.arange (arange(n): 0 .. n-1). dtype: int64 when
    start, stop and step are integers, else float32 (duet's default float)."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        integers = builtins.all(isinstance(v, int) for v in (start, stop, step))
        dtype = "int64" if integers else "float32"
    return _duet._arange(start, stop, step, dtype, device, queue)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True, queue=None):
    """num values from start to stop (stop included when endpoint), float32 unless dtype says."""
    return _duet._linspace(start, stop, num, endpoint, "float32" if dtype is None else dtype, device, queue)


# --- what duet.Array gains ------------------------------------------------------------------------

def _method(f):
    return _named(lambda self, axis=None, keepdims=False, queue=None: f(self, axis=axis, keepdims=keepdims,
                                                                        queue=queue), f.__name__, f.__doc__)


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.shape[0]))


def _scalar(self, kind):
    if self.size != 1:
        raise _duet_argument_error(f"only an array of one element converts to a Python {kind.__name__}; "
                                   f"this one has shape {self.shape}")
    return kind(self.get().reshape(()).item())


def _duet_argument_error(message):
    from .errors import ArgumentError
    return ArgumentError(message)


def _install():
    A = _duet.Array
    for f in (sum, prod, mean, min, max, argmin, argmax, all, any):
        setattr(A, f.__name__, _method(f))
    A.astype = lambda self, dtype, copy=True, queue=None: astype(self, dtype, copy=copy, queue=queue)
    A.astype.__doc__ = astype.__doc__
    A.__iter__ = _iter
    # The array API's device transfer: the array itself on its own device, else a copy through the host.
    A.to_device = lambda self, device, /, *, stream=None: _duet.asarray(self, device)
    A.__bool__ = lambda self: _scalar(self, bool)
    A.__float__ = lambda self: _scalar(self, float)
    A.__int__ = lambda self: _scalar(self, int)
    A.__complex__ = lambda self: _scalar(self, complex)

    def __index__(self):
        if self.dtype.kind not in "iu":
            raise TypeError(f"only an integer array converts to an index, not {self.dtype.name}")
        return _scalar(self, int)
    A.__index__ = __index__

    def __rmatmul__(self, other):
        # other @ self with other a NumPy array or a list (a duet.Array on the left takes __matmul__).
        if isinstance(other, (_duet.Array, _duet.Expression)):
            return NotImplemented
        import numpy
        return matmul(_duet.asarray(numpy.asarray(other), self.device), self)
    A.__rmatmul__ = __rmatmul__
    # NumPy defers to duet's reflected operators (np_array + duet_array gives a duet.Array) rather
    # than converting the duet array to NumPy through __array__.
    A.__array_ufunc__ = None

    def __array_namespace__(self, /, *, api_version=None):
        """The namespace of duet's array functions: the duet module (api_version None, "2024.12" or
        "2023.12": duet's functions follow 2024.12, whose changes from 2023.12 only add)."""
        if api_version not in (None, "2024.12", "2023.12"):
            raise _duet_argument_error(f"duet's array namespace follows array API 2024.12 (and takes "
                                       f"\"2023.12\"), not {api_version!r}")
        import duet
        return duet
    A.__array_namespace__ = __array_namespace__


_install()
