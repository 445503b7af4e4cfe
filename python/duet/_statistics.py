"""The array API's var and std on the device: the mean (a reduction), the squared deviations from
it (one fused kernel) and their sum (a reduction), divided by the count less `correction`. Of a
complex array, as NumPy's: the squared moduli of the deviations, so a real result (float32 for
complex64)."""

import math

from . import _dtypes, _duet
from ._dtypes import _argument_error

__all__ = ["std", "var"]


def var(x, /, *, axis=None, correction=0.0, keepdims=False, queue=None):
    """The variance along `axis` (None: every element; an int or a tuple), sum((x - mean)**2) / (N -
    correction) with N the count reduced over (correction=1: the sample variance). A float array
    keeps its dtype, integers give float64, complex64 float32 and complex128 float64 (the mean of
    |x - mean|**2, as NumPy); N - correction <= 0 gives inf or NaN, as NumPy."""
    from ._array_api import imag, mean, real, sum
    from ._fuse import fuse
    if not isinstance(x, _duet.Array):
        raise _argument_error(f"var: expected a duet.Array, got {type(x).__name__}")
    if _dtypes._kind(x.dtype) not in "iufc":
        raise _argument_error(f"var: x holds {x.dtype.name}, not numbers")
    if x.dtype.kind in "iu":
        x = x.astype("float64", queue=queue)
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(a % x.ndim if x.ndim else a for a in (axis if isinstance(axis, tuple) else (axis,)))
    n = math.prod(x.shape[a] for a in axes)
    m = mean(x, axis=axis, keepdims=True, queue=queue)

    deviation_is_complex = x.dtype.kind == "c"

    @fuse
    def squares(v, c):
        d = v - c
        if deviation_is_complex:
            r, i = real(d), imag(d)
            return r * r + i * i
        return d * d
    s = sum(squares(x, m, queue=queue), axis=axis, keepdims=keepdims, queue=queue)
    divisor = float(max(n - correction, 0))

    @fuse
    def scaled(t):
        return t / divisor
    return scaled(s, queue=queue)


def std(x, /, *, axis=None, correction=0.0, keepdims=False, queue=None):
    """The standard deviation, sqrt(var(...)) with var's arguments."""
    from ._array_api import sqrt
    return sqrt(var(x, axis=axis, correction=correction, keepdims=keepdims, queue=queue), queue=queue)
