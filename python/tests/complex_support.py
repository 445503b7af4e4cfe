"""What the complex tests share: the dtypes and their tolerances, skipping complex128 where the
device has no float64, random values and the comparison with NumPy's result."""

import numpy as np
import pytest

import duet
from array_api_support import RNG

COMPLEX = ["complex64", "complex128"]
RTOL = {"complex64": 2e-5, "complex128": 1e-12}


def usable(device, dtype):
    if np.dtype(dtype) in (np.complex128, np.float64) and not device.supports_double:
        pytest.skip(f"{device.id} has no float64")


def cvalues(shape, dtype, scale=2.0):
    re = RNG.uniform(-scale, scale, shape)
    im = RNG.uniform(-scale, scale, shape)
    return (re + 1j * im).astype(dtype)


def close(got, want, rtol):
    want = np.asarray(want)
    assert isinstance(got, duet.Array)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=rtol)
