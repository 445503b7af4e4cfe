"""What the array API tests share: the dtypes they run over, random values of a dtype, the skip for
devices without float64, the comparison of a duet result with NumPy's, and pairs of one content as a
contiguous array and as a reversed, stepped view."""

import numpy as np
import pytest

import duet

RNG = np.random.default_rng()

NAMES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]


def values(shape, dtype, bound=100):
    """Normal floats, or integers within +-bound (and the dtype's range)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return RNG.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -bound), min(info.max, bound), shape, endpoint=True).astype(dtype)


def usable(device, dtype):
    if np.dtype(dtype) == np.float64 and not device.supports_double:
        pytest.skip(f"{device.id} has no float64")


def check(got, want, rtol=None):
    """A duet.Array of NumPy's shape and dtype holding `want`: exactly, or within rtol (and atol rtol)."""
    want = np.asarray(want)
    assert isinstance(got, duet.Array), type(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if rtol is None:
        np.testing.assert_array_equal(got.get(), want)
    else:
        np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=rtol)


def views(device, shape, dtype, bound=100):
    """(NumPy array, duet array) pairs of one content: contiguous, and a reversed, stepped view."""
    a = values(shape, dtype, bound)
    yield a, duet.asarray(a, device)
    if len(shape) >= 1:
        big = values(tuple(2 * s for s in shape), dtype, bound)
        key = tuple(slice(None, None, -2) for _ in shape)
        yield big[key], duet.asarray(big, device)[key]
