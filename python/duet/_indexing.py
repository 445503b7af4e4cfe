"""duet.Array's advanced indexing, NumPy's rules: integer arrays and boolean masks in a key, read
(x[idx], x[mask], x[i, :, idx]) and written (x[idx] = v, x[mask] = v), on the device.

A key without arrays goes to the C++ basic indexing (views: ndarray.cpp). Otherwise the key is split:
its integers, slices, None and ... make a basic view; each mask becomes the integer arrays of its
nonzero positions (duet.nonzero: a prefix-sum compaction on the device, which waits for the count);
the integer arrays, broadcast together, are wrapped (negative ones count from the end) and clamped
into their axes. A read gathers with duet.take from the view, its indexed axes in front; a write
computes each target element's offset from the view's strides and scatters the values there with
duet::put, so a strided view is written in place. Where the indexed axes are adjacent in the key
(integers count as indexed axes, as in NumPy) the result's indexed dimensions stand where they were,
else in front.

A bool duet.Array in a key is a mask (comparisons give bool arrays), as are NumPy bool arrays, lists
of bools and Python True/False; integer arrays and lists, uint8 ones included, index by position,
as in NumPy. Indices
out of range are clamped (the standard leaves them unspecified; clamping keeps every access
inside the array); where a write names an element twice, one of its values is written.
"""

import builtins
import math

import numpy

from . import _duet

_basic_getitem = _duet.Array.__getitem__
_basic_setitem = _duet.Array.__setitem__


def _index_error(message):
    return IndexError(message)


def _is_advanced(k):
    return isinstance(k, (_duet.Array, numpy.ndarray, list, builtins.bool, numpy.bool_))


def _as_index(k, device):
    """A key item as ('mask', bool duet array) or ('int', integer duet array)."""
    if isinstance(k, _duet.Array):
        if k.device != device:
            from .errors import DeviceMismatchError
            raise DeviceMismatchError(f"an index array on {k.device.id} for an array on {device.id}; move it "
                                      "with to_device first")
        if k.dtype == numpy.bool_:
            return "mask", k
        if k.dtype.kind not in "iu":
            raise _index_error(f"arrays used as indices hold integers or booleans, not {k.dtype.name}")
        return "int", k
    host = numpy.asarray(k)
    if host.dtype == numpy.bool_:
        return "mask", _duet.asarray(host, device)
    if host.size == 0 and host.dtype.kind == "f":  # [] is an empty list of positions
        host = host.astype(numpy.int64)
    if host.dtype.kind not in "iu":
        raise _index_error(f"arrays used as indices hold integers or booleans, not {host.dtype.name}")
    return "int", _duet.asarray(host.astype(numpy.int64), device)


class _Plan:
    """A key with arrays, resolved against an array: the basic view, its indexed axes with their
    int64 index arrays (wrapped, clamped, not yet broadcast), and where the indexed dimensions go."""

    def __init__(self, x, key):
        items = list(key) if isinstance(key, tuple) else [key]
        if builtins.sum(k is Ellipsis for k in items) > 1:
            raise _index_error("an index can only have a single ellipsis ('...')")
        kinds = [(_as_index(k, x.device) if _is_advanced(k) else None) for k in items]
        consumed = 0
        for k, kind in zip(items, kinds):
            if kind is not None:
                consumed += kind[1].ndim if kind[0] == "mask" else 1
            elif k is not None and k is not Ellipsis:
                consumed += 1
        if consumed > x.ndim:
            raise _index_error(f"too many indices for the array: it is {x.ndim}-dimensional, but {consumed} "
                               "were indexed")
        basic = []            # the key of the basic view
        indexed = []          # (view axis, int64 index array)
        marks = []            # key positions of indexed items and integers (for adjacency)
        before = None         # view axes made before the first indexed item or integer
        axis = 0              # x's axis the next item indexes
        view_axis = 0
        for pos, (k, kind) in enumerate(zip(items, kinds)):
            if k is Ellipsis and kind is None:
                rest = x.ndim - consumed
                basic.append(Ellipsis)
                axis += rest
                view_axis += rest
                continue
            if kind is None:
                basic.append(k)
                if k is None:
                    view_axis += 1
                elif isinstance(k, slice):
                    axis += 1
                    view_axis += 1
                else:  # an integer
                    marks.append(pos)
                    before = view_axis if before is None else before
                    axis += 1
                continue
            marks.append(pos)
            before = view_axis if before is None else before
            what, arr = kind
            if what == "mask" and arr.ndim == 0:
                # A 0-d mask adds an axis of length 1 and keeps it (True) or empties it (False).
                basic.append(None)
                indexed.append((view_axis, _duet._nonzero(arr.reshape((1,)), None)[0]))
                view_axis += 1
            elif what == "mask":
                want = x.shape[axis:axis + arr.ndim]
                if arr.shape != want:
                    raise _index_error(f"a boolean index of shape {arr.shape} does not match the indexed "
                                       f"array's axes {axis}..{axis + arr.ndim - 1} of shape {want}")
                for coordinate in _duet._nonzero(arr, None):
                    basic.append(slice(None))
                    indexed.append((view_axis, coordinate))
                    view_axis += 1
                axis += arr.ndim
            else:
                basic.append(slice(None))
                indexed.append((view_axis, arr))
                axis += 1
                view_axis += 1
        self.view = _basic_getitem(x, tuple(basic))
        adjacent = marks == list(range(marks[0], marks[0] + len(marks)))
        self.axes = [a for a, _ in indexed]
        self.rest = [a for a in range(self.view.ndim) if a not in self.axes]
        self.extents = [self.view.shape[a] for a in self.axes]
        try:
            self.shape = numpy.broadcast_shapes(*(i.shape for _, i in indexed))
        except ValueError:
            raise _index_error("the index arrays' shapes " + ", ".join(str(i.shape) for _, i in indexed)
                               + " do not broadcast together") from None
        if math.prod(self.shape) and not builtins.all(self.extents):
            raise _index_error(f"index out of bounds: an indexed axis of shape {self.view.shape} is empty")
        self.indices = [_wrap(i, n) for (_, i), n in zip(indexed, self.extents)]
        rest_shape = tuple(self.view.shape[a] for a in self.rest)
        # The result is (indexed dims + rest) with the indexed dims moved to `at`.
        self.at = before if adjacent else 0
        nb, nr = len(self.shape), len(self.rest)
        self.order = list(range(nb, nb + self.at)) + list(range(nb)) + list(range(nb + self.at, nb + nr))
        self.result_shape = rest_shape[:self.at] + tuple(self.shape) + rest_shape[self.at:]
        self.inner_shape = tuple(self.shape) + rest_shape


def _wrap(i, n):
    from ._array_api import astype, clip, where
    i = astype(i, "int64", copy=False)
    if i.size == 0 or n == 0:
        return i
    return clip(where(i < 0, i + n, i), 0, n - 1)


def getitem(self, key):
    """x[key]: views for integers, slices, None and ...; a gather (a new array) where the key holds
    integer arrays or masks (see duet/_indexing.py)."""
    items = key if isinstance(key, tuple) else (key,)
    if not builtins.any(_is_advanced(k) for k in items):
        return _basic_getitem(self, key)
    p = _Plan(self, key)
    v = p.view.transpose(tuple(p.axes + p.rest))
    rows = math.prod(p.extents)
    v = v.reshape((rows,) + tuple(p.view.shape[a] for a in p.rest))
    flat = None
    stride = 1
    for i, n in zip(reversed(p.indices), reversed(p.extents)):
        term = i * stride if stride != 1 else i
        flat = term if flat is None else flat + term
        stride *= n
    flat = _broadcast(flat, p.shape)
    if math.prod(p.inner_shape) == 0:
        return _duet.empty(p.result_shape, self.dtype, self.device)
    out = _duet._take(v, flat, 0, None)
    return out.transpose(tuple(p.order)) if p.at else out


def _broadcast(a, shape):
    if a.shape == tuple(shape):
        return a
    return _duet._broadcast_to(a, tuple(shape))


def setitem(self, key, value):
    """x[key] = value: in place; value (an array, a NumPy array, a number) broadcast to x[key]'s
    shape and converted to x's dtype. Integer arrays and masks scatter on the device."""
    items = key if isinstance(key, tuple) else (key,)
    if not builtins.any(_is_advanced(k) for k in items):
        return _basic_setitem(self, key, value)
    p = _Plan(self, key)
    if math.prod(p.result_shape) == 0:
        return None
    values = _duet.empty(p.result_shape, self.dtype, self.device)
    if not isinstance(value, _duet.Array):
        value = _duet.asarray(numpy.asarray(value, dtype=self.dtype), self.device)
    _duet._assign(values, value, None)
    if p.at:  # back to (indexed dims + rest), the order of the offsets
        nb = len(p.shape)
        values = values.transpose(tuple(list(range(p.at, p.at + nb)) + list(range(p.at))
                                        + list(range(p.at + nb, len(p.result_shape)))))
    strides = [s // self.itemsize for s in p.view.strides]
    nb, nr = len(p.shape), len(p.rest)
    offsets = None
    for i, a in zip(p.indices, p.axes):
        term = _broadcast(i, p.shape).reshape(tuple(p.shape) + (1,) * nr) * strides[a]
        offsets = term if offsets is None else offsets + term
    from ._array_api import arange
    for m, a in enumerate(p.rest):
        n = p.view.shape[a]
        ramp = arange(n, device=self.device).reshape((1,) * (nb + m) + (n,) + (1,) * (nr - m - 1))
        offsets = offsets + ramp * strides[a]
    offsets = _broadcast(offsets, p.inner_shape)
    _duet._put(p.view, offsets, values, None)
    return None


def install():
    _duet.Array.__getitem__ = getitem
    _duet.Array.__setitem__ = setitem
