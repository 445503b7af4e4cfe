"""duet.linalg: the array API's linear algebra extension, the part built on products, reductions
and gathers: matmul, matrix_transpose, tensordot, vecdot (the main namespace's), outer, cross,
diagonal, trace, vector_norm and matrix_norm, and singular values: svdvals, with matrix_norm's
'nuc', 2 and -2 built on it (one-sided Jacobi, a work-group per matrix). Everything runs on the
device.

Factorizations (cholesky, qr, svd with vectors, eigh, inv, solve, det, ...) are not here yet: they
are absent.
"""

import builtins
import math

from . import _duet
from ._array_api import matmul, tensordot, vecdot
from ._dtypes import _argument_error
from ._shape import matrix_transpose

__all__ = ["cross", "diagonal", "matmul", "matrix_norm", "matrix_transpose", "outer", "svdvals", "tensordot",
           "trace", "vecdot", "vector_norm"]


def _array(x, what):
    if not isinstance(x, _duet.Array):
        raise _argument_error(f"linalg.{what}: expected a duet.Array, got {type(x).__name__}")
    return x


def outer(x1, x2, /, *, queue=None):
    """The outer product of two 1-D arrays: a (x1.size, x2.size) array (one fused kernel)."""
    x1, x2 = _array(x1, "outer"), _array(x2, "outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise _argument_error(f"linalg.outer takes 1-D arrays, not shapes {x1.shape} and {x2.shape}")
    return _duet._outer(x1, x2, queue=queue)


def cross(x1, x2, /, *, axis=-1, queue=None):
    """The cross product of 3-element vectors along `axis` (x1 and x2 broadcast together; that axis
    has length 3 in both): one fused kernel per component."""
    from ._fuse import fuse
    from ._rearrange import broadcast_arrays
    from ._shape import stack
    x1, x2 = _array(x1, "cross"), _array(x2, "cross")
    a, b = broadcast_arrays(x1, x2)
    if not -a.ndim <= axis < a.ndim:
        raise _argument_error(f"linalg.cross: axis {axis} is out of range for shape {a.shape}")
    back = axis - a.ndim if axis >= 0 else axis  # the axis counted from the end, in x1 and x2 alike
    if builtins.any(-back > v.ndim or v.shape[back] != 3 for v in (x1, x2)):
        raise _argument_error(f"linalg.cross: axis {axis} of shapes {x1.shape} and {x2.shape} must have length 3")
    axis = axis % a.ndim
    at = [(slice(None),) * axis + (k,) for k in range(3)]

    @fuse
    def component(p, q, r, s):
        return p * q - r * s
    c = [component(a[at[(k + 1) % 3]], b[at[(k + 2) % 3]], a[at[(k + 2) % 3]], b[at[(k + 1) % 3]], queue=queue)
         for k in range(3)]
    return stack(c, axis=axis, queue=queue)


def diagonal(x, /, *, offset=0, queue=None):
    """The diagonal `offset` (0 the main one, above it positive) of each matrix (the last two axes),
    as a new array: one gather."""
    from ._array_api import arange
    x = _array(x, "diagonal")
    if x.ndim < 2:
        raise _argument_error(f"linalg.diagonal takes an array of at least 2 dimensions, not shape {x.shape}")
    m, n = x.shape[-2], x.shape[-1]
    length = builtins.max(0, builtins.min(m, n - offset) if offset >= 0 else builtins.min(m + offset, n))
    if length == 0 or x.size == 0:
        return _duet.empty(x.shape[:-2] + (length,), x.dtype, x.device)
    start = offset if offset >= 0 else -offset * n
    flat = x.reshape(x.shape[:-2] + (m * n,), queue=queue)
    positions = arange(length, device=x.device, queue=queue) * (n + 1) + start
    return _duet._take(flat, positions, x.ndim - 2, queue)


def trace(x, /, *, offset=0, dtype=None, queue=None):
    """The sum of diagonal `offset` of each matrix (the last two axes): sum's dtypes (integers give
    int64 or uint64) unless `dtype` says."""
    from ._array_api import astype, sum
    d = diagonal(x, offset=offset, queue=queue)
    if dtype is not None:
        d = astype(d, dtype, copy=False, queue=queue)
    out = sum(d, axis=-1, queue=queue)
    return astype(out, dtype, copy=False, queue=queue) if dtype is not None else out


def _floating(x, queue):
    if x.dtype.kind in "iu":
        return x.astype("float64", queue=queue)
    return x


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2, queue=None):
    """The vector norm over `axis` (None: every element; an int or a tuple): ord 2 (Euclidean), 1,
    any other positive or negative p (sum(|x|**p)**(1/p)), inf and -inf (largest and smallest |x|),
    0 (the count of nonzero elements). Floats keep their dtype, integers give float64."""
    from . import _array_api as xp
    x = _floating(_array(x, "vector_norm"), queue)
    a = xp.abs(x, queue=queue)
    if ord == math.inf:
        return xp.max(a, axis=axis, keepdims=keepdims, queue=queue)
    if ord == -math.inf:
        return xp.min(a, axis=axis, keepdims=keepdims, queue=queue)
    if ord == 0:
        return xp.sum(xp.astype(a != 0, x.dtype, queue=queue), axis=axis, keepdims=keepdims, queue=queue)
    if ord == 1:
        return xp.sum(a, axis=axis, keepdims=keepdims, queue=queue)
    if ord == 2:
        return xp.sqrt(xp.sum(a * a, axis=axis, keepdims=keepdims, queue=queue), queue=queue)
    if isinstance(ord, (int, float)) and not isinstance(ord, builtins.bool):
        p = float(ord)
        s = xp.sum(xp.pow(a, p, queue=queue), axis=axis, keepdims=keepdims, queue=queue)
        return xp.pow(s, 1.0 / p, queue=queue)
    raise _argument_error(f"linalg.vector_norm: ord is a number, inf or -inf, not {ord!r}")


def svdvals(x, /, *, queue=None):
    """The singular values of each matrix (the last two axes), in descending order: shape
    x.shape[:-2] + (min(M, N),), x's dtype (float16 computed in float32; integers give float64).
    Computed on the device by one-sided Jacobi rotations, a work-group per matrix, to a few units of
    rounding times the matrix's size, relative to its largest value. A matrix with an infinite or NaN
    element gets NaN values (NumPy raises LinAlgError instead)."""
    x = _floating(_array(x, "svdvals"), queue)
    if x.ndim < 2:
        raise _argument_error(f"linalg.svdvals takes an array of at least 2 dimensions, not shape {x.shape}")
    return _duet._svdvals(x, queue)


def matrix_norm(x, /, *, keepdims=False, ord="fro", queue=None):
    """The norm of each matrix (the last two axes): 'fro' (Frobenius), 1 and -1 (largest and
    smallest column sum of |x|), inf and -inf (largest and smallest row sum), 'nuc' (the sum of the
    singular values), 2 and -2 (the largest and the smallest). As NumPy's, 'nuc' and 2 of an empty
    matrix are 0 and -2 of one raises (ArgumentError)."""
    from . import _array_api as xp
    x = _floating(_array(x, "matrix_norm"), queue)
    if x.ndim < 2:
        raise _argument_error(f"linalg.matrix_norm takes an array of at least 2 dimensions, not shape {x.shape}")
    if isinstance(ord, str) and ord == "nuc":
        return _duet._singular_norm(x, "nuc", keepdims, queue)
    if not isinstance(ord, (str, builtins.bool)) and ord in (2, -2):
        return _duet._singular_norm(x, "2" if ord == 2 else "-2", keepdims, queue)
    a = xp.abs(x, queue=queue)
    if ord == "fro":
        out = xp.sqrt(xp.sum(a * a, axis=(-2, -1), queue=queue), queue=queue)
    elif ord in (1, -1):
        sums = xp.sum(a, axis=-2, queue=queue)
        out = (xp.max if ord == 1 else xp.min)(sums, axis=-1, queue=queue)
    elif ord in (math.inf, -math.inf):
        sums = xp.sum(a, axis=-1, queue=queue)
        out = (xp.max if ord == math.inf else xp.min)(sums, axis=-1, queue=queue)
    else:
        raise _argument_error(f"linalg.matrix_norm: ord {ord!r} is not one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf")
    return out.reshape(out.shape + (1, 1), queue=queue) if keepdims else out
