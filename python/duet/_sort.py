"""The array API's sorting, searching and set functions on the device (duet/array_sort.hpp and
duet/array_select.hpp: a radix sort and prefix-sum compactions written in the dialect): sort,
argsort, searchsorted, nonzero, count_nonzero, take, take_along_axis, unique_all, unique_counts,
unique_inverse, unique_values.

Floats sort with NaNs last (first when descending), -0 equal to +0; both sorts are stable in both
orders. nonzero and unique_* wait for the number of their results (their shape depends on the data).
"""

from collections import namedtuple as _namedtuple

from . import _duet
from ._dtypes import _argument_error, result_type

__all__ = ["argsort", "count_nonzero", "nonzero", "searchsorted", "sort", "take", "take_along_axis",
           "unique_all", "unique_counts", "unique_inverse", "unique_values"]

UniqueAllResult = _namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = _namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = _namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _array(x, what):
    if not isinstance(x, _duet.Array):
        raise _argument_error(f"{what}: expected a duet.Array, got {type(x).__name__}")
    return x


def sort(x, /, *, axis=-1, descending=False, stable=True, queue=None):
    """x's elements sorted along `axis` (always stable)."""
    return _duet._sort(_array(x, "sort"), axis, bool(descending), False, queue)


def argsort(x, /, *, axis=-1, descending=False, stable=True, queue=None):
    """The int64 indices that sort x along `axis` (always stable, descending too)."""
    return _duet._sort(_array(x, "argsort"), axis, bool(descending), True, queue)


def searchsorted(x1, x2, /, *, side="left", sorter=None, queue=None):
    """Where x2's elements go in the ascending 1-D x1 to keep it sorted (int64, x2's shape)."""
    from . import _array_api as xp
    x1 = _array(x1, "searchsorted")
    if side not in ("left", "right"):
        raise _argument_error(f"searchsorted: side is 'left' or 'right', not {side!r}")
    if sorter is not None:
        x1 = take(x1, sorter, queue=queue)
    if not isinstance(x2, _duet.Array):
        x2 = _duet.asarray(__import__("numpy").asarray(x2, dtype=x1.dtype), x1.device)
    t = result_type(x1, x2)
    x1, x2 = xp.astype(x1, t, copy=False, queue=queue), xp.astype(x2, t, copy=False, queue=queue)
    return _duet._searchsorted(x1, x2, side == "right", queue)


def take(x, indices, /, *, axis=None, queue=None):
    """x's elements at the integer array `indices` along `axis` (x must be 1-D when axis is None);
    negative indices count from the end."""
    x = _array(x, "take")
    if axis is None:
        if x.ndim != 1:
            raise _argument_error(f"take: x has {x.ndim} axes; pass axis= (the standard needs it past 1-D)")
        axis = 0
    if not isinstance(indices, _duet.Array):
        indices = _duet.asarray(__import__("numpy").asarray(indices, dtype="int64"), x.device)
    return _duet._take(x, indices, axis, queue)


def take_along_axis(x, indices, /, *, axis=-1, queue=None):
    """x's elements at `indices` along `axis`, the other axes matched (numpy.take_along_axis): the
    flat positions built on the device, then one take."""
    from . import _array_api as xp
    x, indices = _array(x, "take_along_axis"), _array(indices, "take_along_axis")
    if x.ndim != indices.ndim:
        raise _argument_error(f"take_along_axis: x has {x.ndim} axes, indices {indices.ndim}; they must match")
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis < x.ndim:
        raise _argument_error(f"take_along_axis: axis is out of range for {x.ndim} axes")
    shape = tuple(max(a, b) if a == 1 or b == 1 else a for a, b in zip(x.shape, indices.shape))
    shape = tuple(indices.shape[d] if d == axis else shape[d] for d in range(x.ndim))
    idx = xp.astype(indices, "int64", copy=False, queue=queue)
    n = x.shape[axis]
    idx = xp.where(idx < 0, idx + n, idx)
    flat = _duet.full(shape, 0, "int64", x.device)
    stride = 1
    for d in reversed(range(x.ndim)):
        if d == axis:
            part = idx
        else:
            ramp = xp.arange(shape[d], dtype="int64", device=x.device)
            part = ramp.reshape(tuple(shape[d] if k == d else 1 for k in range(x.ndim)))  # broadcast below
        flat = flat + part * stride
        stride *= x.shape[d]
    return take(x.reshape((-1,)), flat.reshape((-1,)), queue=queue).reshape(shape)


def nonzero(x, /, *, queue=None):
    """A tuple of int64 arrays, the indices of x's nonzero elements along each axis (C order)."""
    return tuple(_duet._nonzero(_array(x, "nonzero"), queue))


def count_nonzero(x, /, *, axis=None, keepdims=False, queue=None):
    """The number of nonzero (true) elements along `axis` (all when None), as int64: the sum of
    x != 0, a bool array, whose sum counts its trues."""
    from . import _array_api as xp
    x = _array(x, "count_nonzero")
    return xp.sum(x != 0, axis=axis, keepdims=keepdims, queue=queue)


def unique_all(x, /, *, queue=None):
    """(values, indices, inverse_indices, counts): the distinct values ascending (each NaN its own),
    their first flat positions, each element's place in values (x's shape), and their counts."""
    return UniqueAllResult(*_duet._unique_all(_array(x, "unique_all"), queue))


def unique_counts(x, /, *, queue=None):
    u = unique_all(x, queue=queue)
    return UniqueCountsResult(u.values, u.counts)


def unique_inverse(x, /, *, queue=None):
    u = unique_all(x, queue=queue)
    return UniqueInverseResult(u.values, u.inverse_indices)


def unique_values(x, /, *, queue=None):
    return _duet._unique_values(_array(x, "unique_values"), queue)
