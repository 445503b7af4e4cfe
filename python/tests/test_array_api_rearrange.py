"""roll, repeat, tile, unstack, meshgrid, broadcast_arrays, diff, std, var, nextafter, conj, real and
imag against NumPy on random inputs of awkward shapes (0-d, empty, size 1, primes, non-contiguous
views) and every dtype they take."""

import numpy as np
import pytest

import duet
from array_api_support import NAMES, RNG, check, usable, values, views


# NumPy's references warn where the values are what the test wants (no degrees of freedom, overflow).
pytestmark = [pytest.mark.filterwarnings("ignore:Degrees of freedom"),
              pytest.mark.filterwarnings("ignore:overflow encountered")]

SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 1, 3), (0, 4), (5, 1)]


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_roll(device, dtype, shape):
    usable(device, dtype)
    for a, d in views(device, shape, dtype):
        for shift in [0, 1, -2, 13]:
            check(duet.roll(d, shift), np.roll(a, shift))
            for axis in range(a.ndim):
                check(duet.roll(d, shift, axis=axis), np.roll(a, shift, axis=axis))
        if a.ndim >= 2:
            check(duet.roll(d, (1, -3), axis=(0, -1)), np.roll(a, (1, -3), axis=(0, -1)))
            check(duet.roll(d, 2, axis=(0, 1)), np.roll(a, 2, axis=(0, 1)))
            check(duet.roll(d, (1, 2), axis=(1, 1)), np.roll(a, (1, 2), axis=(1, 1)))


def test_roll_is_a_new_array(device):
    d = duet.asarray(np.arange(5, dtype="int32"), device)
    r = duet.roll(d, 0)
    r[0] = 100
    assert d.get()[0] == 0


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_repeat(device, dtype, shape):
    usable(device, dtype)
    for a, d in views(device, shape, dtype):
        for r in [0, 1, 3]:
            check(duet.repeat(d, r), np.repeat(a, r))
            for axis in range(a.ndim):
                check(duet.repeat(d, r, axis=axis), np.repeat(a, r, axis=axis))
        for axis in range(a.ndim):
            counts = RNG.integers(0, 4, a.shape[axis])
            check(duet.repeat(d, duet.asarray(counts, device), axis=axis), np.repeat(a, counts, axis=axis))
            check(duet.repeat(d, duet.asarray(counts.astype("int32"), device), axis=axis),
                  np.repeat(a, counts, axis=axis))
            check(duet.repeat(d, duet.asarray(np.array([2]), device), axis=axis), np.repeat(a, 2, axis=axis))
        if a.ndim == 1:
            counts = RNG.integers(0, 3, a.size)
            check(duet.repeat(d, duet.asarray(counts, device)), np.repeat(a, counts))


def test_repeat_errors(device):
    d = duet.asarray(np.arange(5, dtype="int32"), device)
    with pytest.raises(duet.ArgumentError, match="negative"):
        duet.repeat(d, -1)
    with pytest.raises(duet.ArgumentError, match="one per element"):
        duet.repeat(d, duet.asarray(np.array([1, 2]), device))


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_tile(device, dtype, shape):
    usable(device, dtype)
    for a, d in views(device, shape, dtype):
        for reps in [(), (1,), (3,), (2, 1), (0, 2), (1, 2, 3), (2, 1, 1, 2)]:
            check(duet.tile(d, reps), np.tile(a, reps))


@pytest.mark.parametrize("shape", [(1,), (7,), (3, 5), (2, 0, 3), (0, 4)])
def test_unstack(device, shape):
    for a, d in views(device, shape, "float32"):
        for axis in range(-a.ndim, a.ndim):
            got = duet.unstack(d, axis=axis)
            want = [np.take(a, i, axis=axis) for i in range(a.shape[axis])]
            assert isinstance(got, tuple) and len(got) == len(want)
            for g, w in zip(got, want):
                check(g, w)
    with pytest.raises(duet.ArgumentError, match="0-d"):
        duet.unstack(duet.zeros((), device=device))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(device, indexing):
    for sizes in [(), (4,), (3, 5), (2, 0, 3), (1, 7, 2), (2, 3, 1, 2)]:
        hs = [values((n,), "int16" if k % 2 else "float32") for k, n in enumerate(sizes)]
        got = duet.meshgrid(*[duet.asarray(h, device) for h in hs], indexing=indexing)
        want = np.meshgrid(*hs, indexing=indexing)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w.astype(np.result_type(*hs)))
    with pytest.raises(duet.ArgumentError, match="1-D"):
        duet.meshgrid(duet.zeros((2, 2), device=device))


def test_broadcast_arrays(device):
    for shapes in [[(3, 1), (1, 4), (4,)], [(), (2, 3)], [(0, 1), (1, 5)], [(7,)]]:
        hs = [values(s, "int32") for s in shapes]
        got = duet.broadcast_arrays(*[duet.asarray(h, device) for h in hs])
        for g, w in zip(got, np.broadcast_arrays(*hs)):
            check(g, w)


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("shape", [s for s in SHAPES if s])
def test_diff(device, dtype, shape):
    usable(device, dtype)
    for a, d in views(device, shape, dtype):
        for axis in range(-a.ndim, a.ndim):
            for n in [0, 1, 2, 5]:
                check(duet.diff(d, axis=axis, n=n), np.diff(a, axis=axis, n=n))
        pre = values(a.shape[:-1] + (2,), dtype)
        # The number 3 is weak, as in duet's arithmetic: x's dtype (NumPy's diff makes it int64).
        check(duet.diff(d, prepend=duet.asarray(pre, device), append=3),
              np.diff(a, prepend=pre, append=np.array(3, dtype)))
        check(duet.diff(d, axis=0, append=duet.asarray(a, device)), np.diff(a, axis=0, append=a))


def test_diff_errors(device):
    with pytest.raises(duet.ArgumentError, match="0-d"):
        duet.diff(duet.zeros((), device=device))
    with pytest.raises(duet.ArgumentError, match="non-negative"):
        duet.diff(duet.zeros((3,), device=device), n=-1)


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 1, 3), (0, 4)])
def test_var_std(device, dtype, shape):
    usable(device, dtype)
    if not device.supports_double and np.dtype(dtype).kind in "iu":
        pytest.skip("integers give float64")
    rtol = 1e-4 if dtype == "float32" else 1e-10
    for a, d in views(device, shape, dtype):
        want_dtype = a.dtype if a.dtype.kind == "f" else np.float64
        axes = [None] + list(range(-a.ndim, a.ndim)) + ([(0, -1)] if a.ndim >= 2 else [])
        for axis in axes:
            for correction in [0, 1, 0.5]:
                for keepdims in [False, True]:
                    with np.errstate(all="ignore"):
                        wv = np.var(a.astype(np.float64), axis=axis, ddof=correction, keepdims=keepdims)
                        ws = np.std(a.astype(np.float64), axis=axis, ddof=correction, keepdims=keepdims)
                    check(duet.var(d, axis=axis, correction=correction, keepdims=keepdims),
                          np.asarray(wv).astype(want_dtype), rtol)
                    check(duet.std(d, axis=axis, correction=correction, keepdims=keepdims),
                          np.asarray(ws).astype(want_dtype), rtol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nextafter(device, dtype):
    usable(device, dtype)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, np.finfo(dtype).max,
                        np.finfo(dtype).tiny], dtype)
    a = np.concatenate([special, values((40,), dtype)])
    b = np.concatenate([special[::-1], values((40,), dtype)])
    got = duet.nextafter(duet.asarray(a, device), duet.asarray(b, device))
    check(got, np.nextafter(a, b))
    check(duet.nextafter(duet.asarray(a[:, None], device), duet.asarray(b[:7], device)),
          np.nextafter(a[:, None], b[:7]))
    with pytest.raises(duet.ArgumentError, match="float32 and float64"):
        duet.nextafter(duet.zeros((2,), "int32", device=device), 1.0)


@pytest.mark.parametrize("dtype", NAMES)
def test_conj_real_imag(device, dtype):
    usable(device, dtype)
    for a, d in views(device, (3, 5), dtype):
        check(duet.conj(d), a)
        check(duet.real(d), a)
        check(duet.imag(d), np.zeros_like(a))
