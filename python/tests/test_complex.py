"""complex64 and complex128 arrays against NumPy: the dtype objects (result_type, can_cast,
isdtype, finfo, __array_namespace_info__), round trips through asarray / get and DLPack, arithmetic
with complex and real operands (promotion included), == and !=, abs, real, imag, conj, exp, log,
sqrt, sin, cos, sum, prod and mean; random values on awkward shapes (0-d, empty, size 1, primes)
and on reversed, stepped views; and the errors for what complex numbers lack (an order)."""

import numpy as np
import pytest

import duet
from array_api_support import RNG
from complex_support import COMPLEX, RTOL, close, cvalues, usable

SHAPES = [(), (0,), (1,), (13,), (3, 7), (2, 0, 3), (5, 1, 11)]


def test_dtype_objects():
    assert duet.complex64 == np.complex64 and duet.complex128 == np.complex128
    assert duet.result_type(duet.float32, duet.complex64) == duet.complex64
    assert duet.result_type(duet.float64, duet.complex64) == duet.complex128
    assert duet.result_type(duet.complex64, duet.complex128) == duet.complex128
    for t in (duet.bool, duet.int8, duet.uint16, duet.int32, duet.int64, duet.uint64):
        assert duet.result_type(t, duet.complex64) == duet.complex64
        assert duet.result_type(duet.complex128, t) == duet.complex128
    assert duet.result_type(duet.float32, 1j) == duet.complex64
    assert duet.result_type(duet.complex64, 2.0) == duet.complex64
    assert duet.can_cast(duet.float32, duet.complex64)
    assert duet.can_cast(duet.complex64, duet.complex128)
    assert not duet.can_cast(duet.complex64, duet.float64)
    assert not duet.can_cast(duet.float64, duet.complex64)
    assert duet.isdtype(duet.complex64, "complex floating")
    assert duet.isdtype(duet.complex128, "numeric")
    assert not duet.isdtype(duet.complex64, "real floating")
    assert duet.finfo(duet.complex64).bits == 32
    assert duet.finfo(duet.complex128).eps == np.finfo(np.float64).eps
    info = duet.__array_namespace_info__()
    assert info.default_dtypes()["complex floating"] == duet.complex64
    assert "complex64" in info.dtypes(kind="complex floating")


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", SHAPES)
def test_round_trip(device, dtype, shape):
    usable(device, dtype)
    a = cvalues(shape, dtype)
    x = duet.asarray(a, device)
    assert x.dtype == np.dtype(dtype) and x.shape == shape
    np.testing.assert_array_equal(x.get(), a)
    np.testing.assert_array_equal(np.asarray(x), a)
    # A real array made complex, and back (the real part).
    r = RNG.standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(duet.asarray(r, device).astype(dtype).get(), r.astype(dtype))
    np.testing.assert_array_equal(x.astype(duet.float32).get(), a.real.astype(np.float32))


@pytest.mark.skipif(not duet.HAVE_DLPACK, reason="the module was built without DLPack's header")
@pytest.mark.parametrize("dtype", COMPLEX)
def test_dlpack(device, dtype):
    usable(device, dtype)
    a = cvalues((4, 5), dtype)
    x = duet.asarray(a, device)
    y = duet.from_dlpack(x)
    assert y.dtype == np.dtype(dtype) and y.native_handle == x.native_handle
    np.testing.assert_array_equal(y.get(), a)
    z = duet.from_dlpack(a, device=device)  # NumPy's kDLComplex tensor, copied to the device
    np.testing.assert_array_equal(z.get(), a)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(), (1,), (13,), (3, 7), (5, 1, 11)])
def test_arithmetic_and_functions(device, dtype, shape):
    usable(device, dtype)
    rtol = RTOL[dtype]
    a, b = cvalues(shape, dtype), cvalues(shape, dtype)
    x, y = duet.asarray(a, device), duet.asarray(b, device)
    close(x + y, a + b, rtol)
    close(x - y, a - b, rtol)
    close(x * y, a * b, rtol)
    close(x / y, a / b, rtol)
    close(-x, -a, rtol)
    close(x * 2.5 - 1, a * 2.5 - 1, rtol)
    close(x * (0.5 - 2j) + 1j, a * (0.5 - 2j) + 1j, rtol)
    r = RNG.standard_normal(shape).astype(np.float32 if dtype == "complex64" else np.float64)
    close(duet.asarray(r, device) * 1j - 3j, (r * 1j - 3j).astype(dtype), rtol)
    close(duet.abs(x), np.abs(a), rtol)
    close(duet.real(x), a.real, rtol)
    close(duet.imag(x), a.imag, rtol)
    close(duet.conj(x), np.conj(a), rtol)
    for name in ("exp", "log", "sqrt", "sin", "cos"):
        close(getattr(duet, name)(x), getattr(np, name)(a), rtol * 10)
    np.testing.assert_array_equal((x == y).get(), a == b)
    np.testing.assert_array_equal((x != x).get(), a != a)
    # Promotion with real and integer arrays (the array API's: integers take the complex dtype).
    r32 = RNG.standard_normal(shape).astype(np.float32)
    close(x + duet.asarray(r32, device), a + r32, rtol)
    i16 = RNG.integers(-50, 50, shape).astype(np.int16)
    got = x * duet.asarray(i16, device)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got.get(), a * i16.astype(dtype), rtol=rtol, atol=rtol)
    if device.supports_double:
        r64 = RNG.standard_normal(shape)
        close(duet.asarray(r64, device) - x, r64 - a, rtol)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_views(device, dtype):
    usable(device, dtype)
    big = cvalues((10, 26), dtype)
    row = cvalues((13,), dtype)
    xb = duet.asarray(big, device)[::-2, ::2]
    close(xb * duet.asarray(row, device) + xb, big[::-2, ::2] * row + big[::-2, ::2], RTOL[dtype])


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(1,), (97,), (13, 37)])
def test_reductions(device, dtype, shape):
    usable(device, dtype)
    a = cvalues(shape, dtype, 1.0)
    unit = (a / np.abs(a)).astype(dtype)
    x, u = duet.asarray(a, device), duet.asarray(unit, device)
    rtol = RTOL[dtype] * 10
    np.testing.assert_allclose(np.asarray(duet.sum(x).get()), np.sum(a), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(np.asarray(duet.prod(u).get()), np.prod(unit), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(np.asarray(duet.mean(x).get()), np.mean(a), rtol=rtol, atol=rtol)
    close(duet.sum(x, axis=0), np.sum(a, axis=0), rtol)


def test_refusals(device):
    x = duet.asarray(cvalues((4,), "complex64"), device)
    for call in (lambda: x < x, lambda: duet.maximum(x, x), lambda: x // x, lambda: duet.max(x),
                 lambda: duet.floor(x), lambda: duet.atan2(x, x)):
        with pytest.raises(duet.ArgumentError):
            call()
