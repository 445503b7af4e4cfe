"""The array API's sort, argsort, searchsorted, take, take_along_axis, nonzero, count_nonzero and
unique_* against NumPy on random inputs: every dtype, awkward lengths (empty, 1, primes, around the
sort's 4096-element tiles), many duplicates, NaN and -0.0, both orders, each axis, views."""

import numpy as np
import pytest

import duet

RNG = np.random.default_rng()
DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"]


def values(shape, dtype, duplicates=True):
    if np.dtype(dtype).kind == "f":
        x = (RNG.integers(-20, 20, shape) * 0.5 if duplicates else RNG.standard_normal(shape) * 1e3).astype(dtype)
        flat = x.reshape(-1)
        if flat.size > 4:
            flat[RNG.integers(0, flat.size, flat.size // 7)] = np.nan
            flat[RNG.integers(0, flat.size, flat.size // 9)] = -0.0
            flat[RNG.integers(0, flat.size, flat.size // 11)] = np.inf
        return x
    info = np.iinfo(dtype)
    if duplicates:
        return RNG.integers(max(info.min, -20), 20, shape).astype(dtype)
    return RNG.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def stable_desc(x, axis):
    """NumPy's stable descending argsort with NaN first: the reversed ascending order of the
    reversed array, mapped back."""
    n = x.shape[axis]
    flipped = np.flip(x, axis)
    order = np.argsort(flipped, axis=axis, kind="stable")
    return np.flip(n - 1 - order, axis)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 97, 4095, 4097, 10007])
def test_sort_argsort_1d(device, dtype, n):
    for duplicates in (True, False):
        x = values(n, dtype, duplicates)
        a = duet.asarray(x, device)
        np.testing.assert_array_equal(duet.sort(a).get(), np.sort(x, kind="stable"))
        np.testing.assert_array_equal(duet.argsort(a).get(), np.argsort(x, kind="stable"))
        np.testing.assert_array_equal(duet.argsort(a, descending=True).get(), stable_desc(x, 0))
        np.testing.assert_array_equal(duet.sort(a, descending=True).get(), x[stable_desc(x, 0)])


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8"])
def test_sort_axes_and_views(device, dtype):
    x = values((13, 29, 7), dtype)
    a = duet.asarray(x, device)
    for view, host in [(a, x), (a[:, ::-2, :], x[:, ::-2, :]), (duet.permute_dims(a, (2, 0, 1)), x.transpose(2, 0, 1))]:
        for axis in (0, 1, 2, -1):
            np.testing.assert_array_equal(duet.sort(view, axis=axis).get(), np.sort(host, axis=axis, kind="stable"))
            np.testing.assert_array_equal(duet.argsort(view, axis=axis).get(),
                                          np.argsort(host, axis=axis, kind="stable"))
            np.testing.assert_array_equal(duet.argsort(view, axis=axis, descending=True).get(),
                                          stable_desc(host, axis % 3))


def test_sort_errors(device):
    with pytest.raises(duet.ArgumentError, match="0-d"):
        duet.sort(duet.asarray(np.float32(1), device))
    with pytest.raises(duet.ArgumentError, match="out of range"):
        duet.argsort(duet.asarray(np.zeros(3, "float32"), device), axis=1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint16"])
def test_searchsorted(device, dtype):
    hay = np.sort(values(1001, dtype), kind="stable")
    needles = values((7, 31), dtype)
    for side in ("left", "right"):
        got = duet.searchsorted(duet.asarray(hay, device), duet.asarray(needles, device), side=side).get()
        np.testing.assert_array_equal(got, np.searchsorted(hay, needles, side=side))
    sorter = np.argsort(needles.reshape(-1), kind="stable")
    got = duet.searchsorted(duet.asarray(needles.reshape(-1), device), duet.asarray(hay, device),
                            sorter=duet.asarray(sorter, device)).get()
    np.testing.assert_array_equal(got, np.searchsorted(needles.reshape(-1), hay, sorter=sorter))


@pytest.mark.parametrize("shape", [(0,), (1,), (2049,), (17, 23), (3, 0, 5), (4, 5, 6)])
def test_nonzero_count_nonzero(device, shape):
    x = values(shape, "float32")
    x[x == 1.0] = 0
    a = duet.asarray(x, device)
    got = duet.nonzero(a)
    want = np.nonzero(x)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.get(), w)
    assert int(duet.count_nonzero(a).get()) == np.count_nonzero(x)
    if x.ndim > 1:
        np.testing.assert_array_equal(duet.count_nonzero(a, axis=1).get(), np.count_nonzero(x, axis=1))
    t = duet.asarray(x.T.copy(), device).T if x.ndim == 2 else None
    if t is not None:
        for g, w in zip(duet.nonzero(t), np.nonzero(x)):
            np.testing.assert_array_equal(g.get(), w)


def test_take_and_take_along_axis(device):
    x = values((6, 7, 5), "float64")
    a = duet.asarray(x, device)
    idx = np.array([[3, -1], [0, 0], [6, 2]])
    for axis in (0, 1, 2):
        i = np.where(idx >= 0, idx % x.shape[axis], idx)
        np.testing.assert_array_equal(duet.take(a, duet.asarray(i, device), axis=axis).get(),
                                      np.take(x, i, axis=axis))
    flat = x.reshape(-1)
    np.testing.assert_array_equal(duet.take(duet.asarray(flat, device), [5, -2, 0]).get(), np.take(flat, [5, -2, 0]))
    for axis in (0, 1, -1):
        order = np.argsort(x, axis=axis, kind="stable")
        got = duet.take_along_axis(a, duet.argsort(a, axis=axis), axis=axis).get()
        np.testing.assert_array_equal(got, np.take_along_axis(x, order, axis=axis))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint32", "int64"])
@pytest.mark.parametrize("shape", [(1,), (100,), (4099,), (13, 17)])
def test_unique(device, dtype, shape):
    x = values(shape, dtype)
    a = duet.asarray(x, device)
    u = duet.unique_all(a)
    w = np.unique_all(x)
    np.testing.assert_array_equal(u.values.get(), w.values)
    np.testing.assert_array_equal(u.counts.get(), w.counts)
    np.testing.assert_array_equal(u.indices.get(), w.indices)
    np.testing.assert_array_equal(u.inverse_indices.get(), w.inverse_indices.reshape(x.shape))
    # NumPy's unique_values may come unsorted (the standard leaves the order open); duet's is sorted.
    np.testing.assert_array_equal(duet.unique_values(a).get(), np.sort(np.unique_values(x)))
    c = duet.unique_counts(a)
    np.testing.assert_array_equal(c.counts.get(), np.unique_counts(x).counts)
    i = duet.unique_inverse(a)
    np.testing.assert_array_equal(i.values.get()[i.inverse_indices.get()], x)
