"""The array API standard's shape and creation functions over duet.Array's views and device copies:
reshape, expand_dims, squeeze, permute_dims, broadcast_to, flip, moveaxis, matrix_transpose,
ones_like, full_like, eye, tril, triu, concat, stack.

The shape functions return views sharing the array's memory wherever its layout allows (reshape of
a strided array that no strides express copies, as NumPy's); broadcast_to's view reads each
stretched element again (its stretched axes step 0), so writing into it writes one element many
times. eye, tril and triu are one fused kernel each (the diagonal condition on the row and column
numbers); concat and stack write each input into its place in a new array, one kernel per input,
converting dtypes on the device. Nothing goes through the host.
"""

import builtins

from . import _duet
from ._dtypes import _argument_error, result_type

__all__ = [
    "reshape", "expand_dims", "squeeze", "permute_dims", "broadcast_to", "flip", "moveaxis",
    "matrix_transpose", "ones_like", "full_like", "eye", "tril", "triu", "concat", "stack",
]


def _array(x, what):
    if not isinstance(x, _duet.Array):
        raise _argument_error(f"{what} takes a duet.Array, not {type(x).__name__} (duet.asarray makes one)")
    return x


def _axis(axis, ndim, what):
    """`axis` in [-ndim, ndim) as a non-negative index."""
    if isinstance(axis, builtins.bool) or not isinstance(axis, int):
        raise _argument_error(f"{what}: an axis is an int, not {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise _argument_error(f"{what}: axis {axis} is out of range for an array of {ndim} dimensions")
    return axis % ndim


def _axes(axis, ndim, what):
    """An int or a tuple of distinct ints as sorted non-negative axes."""
    listed = [_axis(a, ndim, what) for a in (axis if isinstance(axis, tuple) else (axis,))]
    if len(set(listed)) != len(listed):
        raise _argument_error(f"{what}: axis {axis} names an axis twice")
    return sorted(listed)


def reshape(x, /, shape, *, copy=None, queue=None):
    """x's elements in C order with another shape (one extent may be -1: what fits). A view where
    the strides allow it; copy=True: always a new array; copy=False: a view or ArgumentError where
    that needs a copy; copy=None: a view where possible, else a copy (on `queue`)."""
    x = _array(x, "reshape")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if copy:
        return x.copy(queue=queue).reshape(shape)
    out = x.reshape(shape, queue=queue)
    # A view of a strided array's elements is strided too (its elements are not one C-ordered
    # range), so a contiguous result of a strided array is reshape's copy.
    if copy is False and x.size > 1 and not x.is_contiguous and out.is_contiguous:
        raise _argument_error(f"reshape: a strided array of shape {x.shape} has no view of shape {shape}; "
                              "pass copy=None or copy=True to allow a copy")
    return out


def expand_dims(x, /, axis=0):
    """A view with a new axis of length 1 at `axis` (in [-x.ndim - 1, x.ndim])."""
    x = _array(x, "expand_dims")
    if isinstance(axis, builtins.bool) or not isinstance(axis, int):
        raise _argument_error(f"expand_dims: axis is an int, not {type(axis).__name__}")
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise _argument_error(f"expand_dims: axis {axis} is out of range for a new axis of a "
                              f"{x.ndim}-dimensional array ([{-x.ndim - 1}, {x.ndim}])")
    return x.expand_dims(axis % (x.ndim + 1))


def squeeze(x, /, axis):
    """A view without the axes `axis` (an int or a tuple), each of which must have length 1."""
    x = _array(x, "squeeze")
    axes = _axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise _argument_error(f"squeeze: axis {a} of shape {x.shape} has length {x.shape[a]}, not 1")
    for a in reversed(axes):
        x = x.squeeze(a)
    return x


def permute_dims(x, /, axes):
    """A view with the axes permuted: result axis k is x's axis axes[k]."""
    x = _array(x, "permute_dims")
    axes = tuple(axes)
    if sorted(a % x.ndim if x.ndim else a for a in axes) != list(range(x.ndim)) or builtins.any(
            not -x.ndim <= a < x.ndim for a in axes):
        raise _argument_error(f"permute_dims: {axes} is not a permutation of the {x.ndim} axes of shape {x.shape}")
    return x.transpose(tuple(a % x.ndim for a in axes))


def broadcast_to(x, /, shape):
    """A view of x with the shape `shape` (axes of length 1 stretched, axes added in front), as
    NumPy's broadcasting: nothing is copied. Treat it as read-only."""
    return _duet._broadcast_to(_array(x, "broadcast_to"), tuple(shape))


def flip(x, /, *, axis=None):
    """A view with the order of the elements reversed along `axis` (an int, a tuple, or None: every
    axis)."""
    x = _array(x, "flip")
    axes = range(x.ndim) if axis is None else _axes(axis, x.ndim, "flip")
    key = [slice(None)] * x.ndim
    for a in axes:
        key[a] = slice(None, None, -1)
    return x[tuple(key)]


def moveaxis(x, source, destination, /):
    """A view with the axes `source` (an int or a tuple) moved to the positions `destination` (as
    many), the others keeping their order."""
    x = _array(x, "moveaxis")
    src = [_axis(a, x.ndim, "moveaxis") for a in (source if isinstance(source, tuple) else (source,))]
    dst = [_axis(a, x.ndim, "moveaxis") for a in
           (destination if isinstance(destination, tuple) else (destination,))]
    if len(src) != len(dst):
        raise _argument_error(f"moveaxis: {len(src)} source axes but {len(dst)} destinations")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise _argument_error("moveaxis: an axis is named twice")
    rest = iter(a for a in range(x.ndim) if a not in src)
    placed = dict(zip(dst, src))
    return x.transpose(tuple(placed[k] if k in placed else next(rest) for k in range(x.ndim)))


def matrix_transpose(x, /):
    """A view with the last two axes swapped (x.mT); x has at least 2 dimensions."""
    return _array(x, "matrix_transpose").mT


def full_like(x, /, fill_value, *, dtype=None, device=None, queue=None):
    """A new array of x's shape, every element fill_value, of x's dtype and device unless given."""
    x = _array(x, "full_like")
    return _duet.full(x.shape, fill_value, x.dtype if dtype is None else dtype,
                      x.device if device is None else device, queue)


def ones_like(x, /, *, dtype=None, device=None, queue=None):
    """A new array of ones of x's shape, dtype and device unless given."""
    return full_like(x, 1, dtype=dtype, device=device, queue=queue)


def _ramps(rows, cols, device, queue):
    """Row numbers as a (rows, 1) array and column numbers as a (cols,) one (int64), to broadcast."""
    from ._array_api import arange
    r = arange(rows, device=device, queue=queue).reshape((rows, 1))
    return r, arange(cols, device=device, queue=queue)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, queue=None):
    """A new (n_rows, n_cols) array (n_cols defaults to n_rows) with ones on diagonal k (0 the main
    one, above it positive) and zeros elsewhere; float32 unless dtype says. One fused kernel."""
    for v, name in ((n_rows, "n_rows"), (n_cols, "n_cols"), (k, "k")):
        if v is not None and (isinstance(v, builtins.bool) or not isinstance(v, int)):
            raise _argument_error(f"eye: {name} is an int, not {type(v).__name__}")
    n_cols = n_rows if n_cols is None else n_cols
    if n_rows < 0 or n_cols < 0:
        raise _argument_error(f"eye: negative size ({n_rows}, {n_cols})")
    if device is None:
        device = _duet.default_device()
    dtype = "float32" if dtype is None else dtype
    one = _duet.full((), 1, dtype, device, queue)
    r, c = _ramps(n_rows, n_cols, device, queue)
    return _fused_where(lambda rr, cc: (cc - rr) == k, r, c, one, 0, queue)


def _fused_where(condition, r, c, yes, no, queue):
    """where(condition(r, c), yes, no) as one kernel over the broadcast of r, c and yes."""
    from ._array_api import where
    from ._fuse import fuse

    @fuse
    def run(rr, cc, y):
        return where(condition(rr, cc), y, no)
    return run(r, c, yes, queue=queue)


def _triangle(x, k, what):
    x = _array(x, what)
    if x.ndim < 2:
        raise _argument_error(f"{what} takes an array of at least 2 dimensions, not shape {x.shape}")
    if isinstance(k, builtins.bool) or not isinstance(k, int):
        raise _argument_error(f"{what}: k is an int, not {type(k).__name__}")
    return x


def tril(x, /, *, k=0, queue=None):
    """A new array: x's elements on and below diagonal k of each matrix (the last two axes), zeros
    above. One fused kernel."""
    x = _triangle(x, k, "tril")
    r, c = _ramps(x.shape[-2], x.shape[-1], x.device, queue)
    return _fused_where(lambda rr, cc: (cc - rr) <= k, r, c, x, 0, queue)


def triu(x, /, *, k=0, queue=None):
    """A new array: x's elements on and above diagonal k of each matrix (the last two axes), zeros
    below. One fused kernel."""
    x = _triangle(x, k, "triu")
    r, c = _ramps(x.shape[-2], x.shape[-1], x.device, queue)
    return _fused_where(lambda rr, cc: (cc - rr) >= k, r, c, x, 0, queue)


def _inputs(arrays, what):
    arrays = list(arrays)
    if not arrays:
        raise _argument_error(f"{what} needs at least one array")
    for a in arrays:
        _array(a, what)
    device = arrays[0].device
    for a in arrays[1:]:
        if a.device != device:
            from .errors import DeviceMismatchError
            raise DeviceMismatchError(f"{what}: arrays on {device.id} and {a.device.id}; move one with "
                                      "to_device first")
    return arrays, result_type(*arrays), device


def concat(arrays, /, *, axis=0, queue=None):
    """The arrays joined along `axis` (None: each flattened, joined into one 1-D array), their
    dtypes promoted together (result_type). Every other axis must match. A new array; each input
    is written into its place by one kernel on the device."""
    arrays, dtype, device = _inputs(arrays, "concat")
    if axis is None:
        arrays = [a.reshape((-1,), queue=queue) for a in arrays]
        axis = 0
    ndim = arrays[0].ndim
    if ndim == 0:
        raise _argument_error("concat: 0-d arrays have no axis to join along (use stack, or axis=None)")
    for a in arrays:
        if a.ndim != ndim:
            raise _argument_error(f"concat: arrays of {ndim} and {a.ndim} dimensions")
    axis = _axis(axis, ndim, "concat")
    shape = list(arrays[0].shape)
    for a in arrays[1:]:
        for d in range(ndim):
            if d != axis and a.shape[d] != shape[d]:
                raise _argument_error(f"concat: shapes {arrays[0].shape} and {a.shape} differ on axis {d} "
                                      f"(only axis {axis} may)")
    shape[axis] = builtins.sum(a.shape[axis] for a in arrays)
    out = _duet.empty(tuple(shape), dtype, device)
    at = 0
    for a in arrays:
        n = a.shape[axis]
        if a.size:
            _duet._assign(out[(slice(None),) * axis + (slice(at, at + n),)], a, queue=queue)
        at += n
    return out


def stack(arrays, /, *, axis=0, queue=None):
    """The arrays (all of one shape) joined along a new axis `axis` (in [-ndim - 1, ndim]), their
    dtypes promoted together. A new array; one kernel per input."""
    arrays, dtype, device = _inputs(arrays, "stack")
    shape = arrays[0].shape
    for a in arrays[1:]:
        if a.shape != shape:
            raise _argument_error(f"stack: arrays of shapes {shape} and {a.shape}; stack takes one shape")
    ndim = len(shape) + 1
    axis = _axis(axis, ndim, "stack")
    out = _duet.empty(shape[:axis] + (len(arrays),) + shape[axis:], dtype, device)
    for i, a in enumerate(arrays):
        if a.size:
            _duet._assign(out[(slice(None),) * axis + (i,)], a, queue=queue)
    return out
