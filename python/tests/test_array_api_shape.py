"""The array API's shape and creation functions against NumPy on random inputs of awkward shapes (0-d,
empty, size 1, primes, non-contiguous views) and every dtype: reshape (its copy= rules),
expand_dims, squeeze, permute_dims, broadcast_to, flip, moveaxis and matrix_transpose as views
(sharing memory), ones_like, full_like, eye, tril, triu, concat and stack; and the errors."""

import numpy as np
import pytest

import duet
from array_api_support import NAMES, check, usable, values, views


SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 1, 3), (0, 4), (5, 1)]


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_reshape(device, dtype, shape):
    usable(device, dtype)
    for a, d in views(device, shape, dtype):
        for new in [(-1,), (a.size,), (1, a.size, 1), () if a.size == 1 else (-1, 1)]:
            check(duet.reshape(d, new), a.reshape(new))
            check(duet.reshape(d, new, copy=True), a.reshape(new))
        if d.is_contiguous:
            check(duet.reshape(d, (-1,), copy=False), a.reshape(-1))
        elif sum(n > 1 for n in a.shape) > 1:  # strided along two axes: no flat view
            with pytest.raises(duet.ArgumentError, match="copy=None or copy=True"):
                duet.reshape(d, (-1,), copy=False)


def test_reshape_copy_is_a_new_array(device):
    d = duet.asarray(np.arange(6, dtype="int32"), device)
    c = duet.reshape(d, (2, 3), copy=True)
    c[0, 0] = 100
    assert d.get()[0] == 0
    v = duet.reshape(d, (2, 3))
    v[0, 0] = 100
    assert d.get()[0] == 100


@pytest.mark.parametrize("dtype", ["int8", "uint64", "float32"])
def test_expand_dims_squeeze_permute(device, dtype):
    for shape in [(), (1,), (3, 1, 5), (2, 3, 7)]:
        for a, d in views(device, shape, dtype):
            for axis in range(-a.ndim - 1, a.ndim + 1):
                check(duet.expand_dims(d, axis=axis), np.expand_dims(a, axis))
            ones = tuple(k for k in range(a.ndim) if a.shape[k] == 1)
            if ones:
                check(duet.squeeze(d, ones), np.squeeze(a, ones))
                check(duet.squeeze(d, ones[0] - a.ndim), np.squeeze(a, ones[0]))
            for perm in [tuple(range(a.ndim))[::-1], tuple(np.roll(np.arange(a.ndim), 1))]:
                check(duet.permute_dims(d, perm), np.transpose(a, perm))
            if a.ndim >= 2:
                check(duet.matrix_transpose(d), np.swapaxes(a, -1, -2))
                check(duet.moveaxis(d, 0, -1), np.moveaxis(a, 0, -1))
                check(duet.moveaxis(d, (0, 1), (-1, 0)), np.moveaxis(a, (0, 1), (-1, 0)))
            check(duet.flip(d), np.flip(a))
            for axis in range(a.ndim):
                check(duet.flip(d, axis=axis), np.flip(a, axis))
            if a.ndim >= 2:
                check(duet.flip(d, axis=(0, -1)), np.flip(a, (0, -1)))


def test_shape_functions_give_views(device):
    d = duet.asarray(np.arange(24, dtype="float32").reshape(2, 3, 4), device)
    for i, v in enumerate([duet.flip(d, axis=1), duet.permute_dims(d, (2, 0, 1)), duet.expand_dims(d, axis=1),
              duet.moveaxis(d, 2, 0), duet.matrix_transpose(d), duet.broadcast_to(d, (5, 2, 3, 4)),
              duet.squeeze(duet.expand_dims(d, axis=0), 0)]):
        v[(0,) * v.ndim] = -1.0 - i
        assert (d.get() == -1.0 - i).sum() == 1  # the write went to d's memory


def test_shape_errors(device):
    d = duet.asarray(np.zeros((2, 3), "float32"), device)
    with pytest.raises(duet.ArgumentError, match="length 3, not 1"):
        duet.squeeze(d, 1)
    with pytest.raises(duet.ArgumentError, match="out of range"):
        duet.squeeze(d, 2)
    with pytest.raises(duet.ArgumentError, match="out of range"):
        duet.expand_dims(d, axis=3)
    with pytest.raises(duet.ArgumentError, match="not a permutation"):
        duet.permute_dims(d, (0, 0))
    with pytest.raises(duet.ArgumentError, match="names an axis twice"):
        duet.flip(d, axis=(1, -1))
    with pytest.raises(duet.ArgumentError, match="2 source axes but 1"):
        duet.moveaxis(d, (0, 1), 0)
    with pytest.raises(duet.ArgumentError, match="mT needs"):
        duet.matrix_transpose(d[0])
    with pytest.raises(duet.ArgumentError, match="takes a duet.Array"):
        duet.reshape(np.zeros(3), (3,))


@pytest.mark.parametrize("dtype", NAMES)
def test_broadcast_to(device, dtype):
    usable(device, dtype)
    for shape, target in [((), (3, 2)), ((1,), (0,)), ((3, 1), (2, 3, 7)), ((5,), (4, 5)), ((1, 1), (1, 1))]:
        for a, d in views(device, shape, dtype):
            b = duet.broadcast_to(d, target)
            check(b, np.broadcast_to(a, target))
            # A view: it reads through to d, and its arithmetic broadcasts as NumPy's.
            check(b + d, np.broadcast_to(a, target) + a)
    d = duet.asarray(np.zeros((3, 2), dtype), device)
    with pytest.raises(duet.ArgumentError, match="only axes of length 1 stretch"):
        duet.broadcast_to(d, (3, 3))
    with pytest.raises(duet.ArgumentError, match="cannot lose axes"):
        duet.broadcast_to(d, (6,))


@pytest.mark.parametrize("dtype", NAMES)
def test_ones_like_and_full_like(device, dtype):
    usable(device, dtype)
    for shape in [(), (0, 3), (7,), (2, 3, 5)]:
        a = values(shape, dtype)
        d = duet.asarray(a, device)
        check(duet.ones_like(d), np.ones_like(a))
        check(duet.full_like(d, 7), np.full_like(a, 7))
        check(duet.full_like(d, 3, dtype=duet.int16), np.full_like(a, 3, dtype="int16"))
        check(duet.zeros_like(d, device=device), np.zeros_like(a))
        assert duet.ones_like(d, device=device).device == device


@pytest.mark.parametrize("dtype", [None] + NAMES)
def test_eye(device, dtype):
    usable(device, dtype or "float32")
    for n, m in [(0, 0), (1, 1), (4, None), (3, 7), (7, 3), (0, 5)]:
        for k in [-8, -2, -1, 0, 1, 3, 9]:
            check(duet.eye(n, m, k=k, dtype=dtype, device=device), np.eye(n, m, k=k, dtype=dtype or "float32"))


@pytest.mark.parametrize("dtype", NAMES)
def test_tril_triu(device, dtype):
    usable(device, dtype)
    for shape in [(1, 1), (4, 4), (3, 7), (7, 3), (2, 5, 6), (0, 3), (3, 0)]:
        for a, d in views(device, shape, dtype):
            for k in [-4, -1, 0, 2, 8]:
                check(duet.tril(d, k=k), np.tril(a, k))
                check(duet.triu(d, k=k), np.triu(a, k))
    with pytest.raises(duet.ArgumentError, match="at least 2 dimensions"):
        duet.tril(duet.zeros((3,), device=device))


@pytest.mark.parametrize("dtype", NAMES)
def test_concat_and_stack(device, dtype):
    usable(device, dtype)
    pieces = [values((2, 3, 5), dtype), values((2, 1, 5), dtype), values((2, 0, 5), dtype)]
    ds = [duet.asarray(p, device) for p in pieces]
    check(duet.concat(ds, axis=1), np.concatenate(pieces, axis=1))
    check(duet.concat(ds, axis=-2), np.concatenate(pieces, axis=-2))
    check(duet.concat(ds, axis=None), np.concatenate(pieces, axis=None))
    check(duet.concat([ds[0]]), pieces[0])
    # Views as inputs.
    big = values((4, 6, 11), dtype)
    dbig = duet.asarray(big, device)
    key = (slice(None, None, -2), slice(None, 3), slice(1, None, 2))
    check(duet.concat([dbig[key], ds[0]], axis=0), np.concatenate([big[key], pieces[0]], axis=0))
    same = [values((3, 4), dtype) for _ in range(3)]
    dsame = [duet.asarray(s, device) for s in same]
    for axis in (0, 1, 2, -1, -3):
        check(duet.stack(dsame, axis=axis), np.stack(same, axis=axis))
    check(duet.stack([dbig[0, 0, 0], dbig[1, 2, 3]]), np.stack([big[0, 0, 0], big[1, 2, 3]]))
    check(duet.stack([duet.asarray(np.zeros((0, 2), dtype), device)] * 2, axis=1), np.zeros((0, 2, 2), dtype))


def test_concat_promotes(device):
    a, b = np.arange(3, dtype="int8"), np.arange(4, dtype="uint8")
    check(duet.concat([duet.asarray(a, device), duet.asarray(b, device)]), np.concatenate([a, b]))
    c = np.arange(2, dtype="float32")
    check(duet.stack([duet.asarray(c, device), duet.asarray(c.astype("int8"), device)]),
          np.stack([c, c.astype("int8")]))


def test_concat_and_stack_errors(device):
    a = duet.zeros((2, 3), device=device)
    with pytest.raises(duet.ArgumentError, match="differ on axis 1"):
        duet.concat([a, duet.zeros((2, 4), device=device)], axis=0)
    with pytest.raises(duet.ArgumentError, match="arrays of 2 and 1 dimensions"):
        duet.concat([a, duet.zeros((3,), device=device)])
    with pytest.raises(duet.ArgumentError, match="0-d"):
        duet.concat([duet.zeros((), device=device)])
    with pytest.raises(duet.ArgumentError, match="at least one array"):
        duet.concat([])
    with pytest.raises(duet.ArgumentError, match="takes one shape"):
        duet.stack([a, a.T])
    with pytest.raises(duet.ArgumentError, match="out of range"):
        duet.stack([a, a], axis=3)


def test_concat_on_a_queue(device, queue):
    a = np.arange(5, dtype="float32")
    d = duet.asarray(a, device)
    out = duet.concat([d, d], queue=queue)
    queue.finish()
    check(out, np.concatenate([a, a]))
