"""Indexing by integer arrays and boolean masks, read and written, against NumPy: every dtype,
awkward shapes (0-d masks, empty, size 1, primes), negative indices, keys mixing arrays with
integers, slices, None and ..., broadcast index arrays, and strided views as the indexed array."""

import numpy as np
import pytest

import duet
from array_api_support import NAMES, RNG, check, usable, values, views


def dev(device, key):
    """The key with its NumPy arrays on the device (masks as duet bool arrays)."""
    def one(k):
        if isinstance(k, np.ndarray):
            return duet.asarray(k, device)
        return k
    return tuple(one(k) for k in key) if isinstance(key, tuple) else one(key)


def keys(shape):
    """Keys for an array of `shape`: integer arrays (negative ones too, 0-d, 2-D, broadcast),
    masks of one or more axes, 0-d masks, mixed with integers, slices, None and ..."""
    out = []
    nd = len(shape)
    if nd == 0:
        return [np.array(True), np.array(False)]
    n0 = shape[0]
    if n0:
        out.append(RNG.integers(-n0, n0, 5))
        out.append(RNG.integers(-n0, n0, (2, 3)))
        out.append(np.array(n0 - 1))
    out.append(np.zeros(0, np.int64))
    out.append(RNG.random(shape[:1]) < 0.5)
    out.append(RNG.random(shape) < 0.5)
    out.append(np.array(True))
    out.append((Ellipsis, RNG.random(shape[-1:]) < 0.5))
    if nd >= 2:
        n1 = shape[1]
        out.append(RNG.random(shape[:2]) < 0.5)
        if n0 and n1:
            i, j = RNG.integers(0, n0, (4, 1)), RNG.integers(-n1, n1, (3,))
            out.append((i, j))                         # broadcast together
            out.append((slice(None), j))
            out.append((slice(None, None, -1), j, ...))
            out.append((None, i[:, 0], slice(1, None)))
            out.append((0, j))                         # an integer next to an array: adjacent
            out.append((RNG.integers(0, n0, 2), slice(None), ...))
        if nd >= 3 and n0 and shape[2]:
            out.append((0, slice(None), RNG.integers(0, shape[2], 3)))     # apart: indexed dims first
            out.append((RNG.integers(0, n0, 3), slice(None), RNG.integers(0, shape[2], 3)))
    return out


SHAPES = [(), (1,), (7,), (0,), (3, 5), (2, 1, 3), (0, 4), (4, 3, 5)]


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_getitem(device, dtype, shape):
    usable(device, dtype)
    for a, d in views(device, shape, dtype):
        for key in keys(shape):
            check(d[dev(device, key)], a[key])


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_setitem(device, dtype, shape):
    usable(device, dtype)
    for a, d in views(device, shape, dtype):
        for key in keys(shape):
            # Unique positions: where a write names an element twice the standard leaves the winner open.
            probe = np.arange(a.size).reshape(a.shape)[key]
            if np.unique(probe).size != probe.size:
                continue
            want = a.copy()
            v = values(want[key].shape, dtype)
            want[key] = v
            d[dev(device, key)] = duet.asarray(v, device)
            check(d, want)
            a[...] = want
            # A number, and a value broadcast into the selection.
            want[key] = 7
            d[dev(device, key)] = 7
            check(d, want)
            if want[key].ndim >= 1 and want[key].shape[-1]:
                row = values(want[key].shape[-1:], dtype)
                want[key] = row
                d[dev(device, key)] = duet.asarray(row, device)
                check(d, want)
            a[...] = want


def test_masks_from_comparisons(device):
    a = RNG.standard_normal((6, 7)).astype("float32")
    d = duet.asarray(a, device)
    check(d[d > 0], a[a > 0])
    d[d < 0] = 0
    a[a < 0] = 0
    check(d, a)
    d[duet.isnan(d)] = 1.0  # none
    check(d, a)
    check(d[np.array([True, False, True, False, True, False])], a[[0, 2, 4]])
    check(d[[True, False, True, False, True, False]], a[[0, 2, 4]])
    check(d[[4, -1, 0]], a[[4, -1, 0]])
    check(d[[]], a[np.zeros(0, np.int64)])


def test_index_conversions_and_errors(device):
    d = duet.asarray(np.arange(12, dtype="float32").reshape(3, 4), device)
    i = duet.asarray(np.array([2, 0]), device)
    check(d[i.astype("int16")], np.arange(12, dtype="float32").reshape(3, 4)[[2, 0]])
    check(d[i.astype("uint8").astype("int64")], np.arange(12, dtype="float32").reshape(3, 4)[[2, 0]])
    with pytest.raises(IndexError, match="does not match"):
        d[duet.asarray(np.ones((4,), bool), device)]
    # A uint8 array indexes by position, as in NumPy (it is no mask).
    u = np.array([2, 0, 2], np.uint8)
    check(d[duet.asarray(u, device)], np.arange(12, dtype="float32").reshape(3, 4)[u])
    with pytest.raises(IndexError, match="integers or booleans"):
        d[duet.zeros((2,), "float32", device=device)]
    with pytest.raises(IndexError, match="do not broadcast"):
        d[i, duet.asarray(np.array([0, 1, 2]), device)]
    with pytest.raises(IndexError, match="too many indices"):
        d[i, i, i]
    with pytest.raises(IndexError, match="empty"):
        duet.zeros((0, 3), device=device)[i]
    assert int(duet.asarray(np.array(3), device)) == 3
    assert [0, 1, 2, 3][duet.asarray(np.array(2), device)] == 2
