"""The array API's functions that rearrange or repeat elements into a new array, on the device:
roll, repeat, tile, diff, meshgrid, and the views broadcast_arrays and unstack.

Each is built from duet's own device work: views (slices, broadcast_to's step-0 axes), concat's
copies into place, the fused elementwise kernels, and for repeat with an array of counts a cumsum,
searchsorted and take (which waits for the total, the result's length).
"""

import builtins
import math

import numpy

from . import _duet
from ._dtypes import _argument_error
from ._shape import _array, _axis, _axes, broadcast_to, concat

__all__ = ["broadcast_arrays", "diff", "meshgrid", "repeat", "roll", "tile", "unstack"]


def _along(ndim, axis, key):
    return (slice(None),) * axis + (key,) + (slice(None),) * (ndim - axis - 1)


def roll(x, /, shift, *, axis=None, queue=None):
    """A new array of x's elements shifted by `shift` places along `axis` (ints or tuples of them, as
    many shifts as axes, or one shift for every axis named), those pushed past the end coming back at
    the start; axis None rolls the flattened array and restores the shape."""
    x = _array(x, "roll")
    if axis is None:
        if not isinstance(shift, int) or isinstance(shift, builtins.bool):
            raise _argument_error("roll: with axis=None the shift is one int")
        flat = x.reshape((-1,), queue=queue)
        return roll(flat, shift, axis=0, queue=queue).reshape(x.shape, queue=queue)
    axes = list(axis) if isinstance(axis, tuple) else [axis]
    shifts = list(shift) if isinstance(shift, tuple) else [shift] * len(axes)
    if len(shifts) != len(axes):
        raise _argument_error(f"roll: {len(shifts)} shifts for {len(axes)} axes")
    total = {}
    for s, a in zip(shifts, axes):
        a = _axis(a, x.ndim, "roll")
        total[a] = total.get(a, 0) + s
    out = x
    for a, s in total.items():
        n = x.shape[a]
        s = s % n if n else 0
        if s:
            out = concat([out[_along(x.ndim, a, slice(n - s, None))], out[_along(x.ndim, a, slice(None, n - s))]],
                         axis=a, queue=queue)
    return out.copy(queue=queue) if out is x else out


def repeat(x, repeats, /, *, axis=None, queue=None):
    """A new array with each element of x repeated `repeats` times along `axis` (the flattened x
    when None): repeats an int, or a 1-D integer array of one count per element along the axis."""
    from ._array_api import arange, cumulative_sum
    from ._sort import searchsorted, take
    x = _array(x, "repeat")
    if axis is None:
        x = x.reshape((-1,), queue=queue)
        axis = 0
    axis = _axis(axis, x.ndim, "repeat")
    n = x.shape[axis]
    if isinstance(repeats, int) and not isinstance(repeats, builtins.bool):
        if repeats < 0:
            raise _argument_error(f"repeat: a negative count ({repeats})")
        # Each element read `repeats` times through a step-0 axis, laid out by one copy.
        wide = broadcast_to(x.expand_dims(axis + 1), x.shape[:axis + 1] + (repeats,) + x.shape[axis + 1:])
        return wide.reshape(x.shape[:axis] + (n * repeats,) + x.shape[axis + 1:], queue=queue)
    if not isinstance(repeats, _duet.Array):
        repeats = _duet.asarray(numpy.asarray(repeats, dtype="int64"), x.device)
    if repeats.ndim != 1 or repeats.shape[0] not in (1, n):
        raise _argument_error(f"repeat: {repeats.shape} counts for an axis of {n} elements; give one per "
                              "element or a single one")
    if repeats.dtype.kind not in "iu":
        raise _argument_error(f"repeat: the counts are integers, not {repeats.dtype.name}")
    if repeats.shape[0] == 1 and n != 1:
        return repeat(x, int(repeats), axis=axis, queue=queue)
    ends = cumulative_sum(repeats.astype("int64", queue=queue), queue=queue)
    total = int(ends[-1]) if n else 0
    if total == 0:
        return _duet.empty(x.shape[:axis] + (0,) + x.shape[axis + 1:], x.dtype, x.device)
    # Output position j comes from the element whose run of copies holds j.
    source = searchsorted(ends, arange(total, device=x.device, queue=queue), side="right", queue=queue)
    return take(x, source, axis=axis, queue=queue)


def tile(x, repetitions, /, *, queue=None):
    """A new array of x repeated `repetitions` times along each axis (a tuple; the shorter of it and
    x's shape is padded with leading 1s)."""
    x = _array(x, "tile")
    reps = tuple(repetitions)
    if builtins.any(not isinstance(r, int) or isinstance(r, builtins.bool) or r < 0 for r in reps):
        raise _argument_error(f"tile: repetitions are non-negative ints, not {reps}")
    nd = builtins.max(len(reps), x.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    shape = (1,) * (nd - x.ndim) + x.shape
    # x as (1, s0, 1, s1, ...), broadcast to (r0, s0, r1, s1, ...) without a copy, then laid out once.
    spread = x.reshape(tuple(v for s in shape for v in (1, s)), queue=queue)
    wide = broadcast_to(spread, tuple(v for r, s in zip(reps, shape) for v in (r, s)))
    return wide.reshape(tuple(r * s for r, s in zip(reps, shape)), queue=queue)


def unstack(x, /, *, axis=0):
    """A tuple of views: x's slices along `axis`, in order."""
    x = _array(x, "unstack")
    if x.ndim == 0:
        raise _argument_error("unstack: a 0-d array has no axis to split along")
    axis = _axis(axis, x.ndim, "unstack")
    return tuple(x[_along(x.ndim, axis, i)] for i in range(x.shape[axis]))


def broadcast_arrays(*arrays):
    """The arrays broadcast against each other: views of one shape (stretched axes step 0; treat
    them as read-only)."""
    arrays = [_array(a, "broadcast_arrays") for a in arrays]
    shape = numpy.broadcast_shapes(*(a.shape for a in arrays)) if arrays else ()
    return [broadcast_to(a, shape) for a in arrays]


def meshgrid(*arrays, indexing="xy", queue=None):
    """Coordinate arrays from 1-D arrays (new arrays, one copy each): with indexing 'xy' the first
    two axes are swapped (Cartesian), with 'ij' each array runs along its own axis (matrix)."""
    if indexing not in ("xy", "ij"):
        raise _argument_error(f"meshgrid: indexing is 'xy' or 'ij', not {indexing!r}")
    arrays = [_array(a, "meshgrid") for a in arrays]
    for a in arrays:
        if a.ndim != 1:
            raise _argument_error(f"meshgrid takes 1-D arrays, not shape {a.shape}")
    if not arrays:
        return []
    from ._dtypes import result_type
    dtype = result_type(*arrays)
    n = len(arrays)
    sizes = [a.shape[0] for a in arrays]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for k, a in enumerate(arrays):
        at = k
        if indexing == "xy" and n >= 2 and k < 2:
            at = 1 - k
        view = a.reshape(tuple(a.shape[0] if d == at else 1 for d in range(n)))
        grid = _duet.empty(tuple(sizes), dtype, a.device)
        if grid.size:
            _duet._assign(grid, view, queue)
        out.append(grid)
    return out


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None, queue=None):
    """The n-th forward difference along `axis` (out[i] = x[i + 1] - x[i], n times), x's dtype
    (integers wrap), after joining `prepend` and `append` (arrays, or numbers taken as one slice)
    to x along the axis. One kernel per order, plus concat's copies."""
    x = _array(x, "diff")
    if x.ndim == 0:
        raise _argument_error("diff: a 0-d array has no axis to difference along")
    if isinstance(n, builtins.bool) or not isinstance(n, int) or n < 0:
        raise _argument_error(f"diff: n is a non-negative int, not {n!r}")
    axis = _axis(axis, x.ndim, "diff")
    def piece(extra):
        if not isinstance(extra, _duet.Array):
            extra = _duet.asarray(numpy.asarray(extra, dtype=x.dtype), x.device)
        if extra.ndim == 0:
            extra = broadcast_to(extra, x.shape[:axis] + (1,) + x.shape[axis + 1:])
        return extra
    pieces = ([piece(prepend)] if prepend is not None else []) + [x] + (
        [piece(append)] if append is not None else [])
    if len(pieces) > 1:
        x = concat(pieces, axis=axis, queue=queue)
    for _ in range(n):
        m = x.shape[axis]
        if m == 0:
            break
        x = _duet._elementwise("subtract", x[_along(x.ndim, axis, slice(1, None))],
                               x[_along(x.ndim, axis, slice(None, m - 1))], queue=queue)
    return x if n else x.copy(queue=queue)
