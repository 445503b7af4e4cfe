"""complex64 and complex128 against NumPy beyond arithmetic: the array API's complex elementwise
functions (tan, sinh, cosh, tanh, their inverses, expm1, log1p, log2, log10, pow / **, sign, round,
square, reciprocal, isnan/isinf/isfinite), on random values, the branch cuts and views; indexing with
integer arrays and boolean masks (read and write), take, nonzero and count_nonzero (-0-0j is zero);
cumulative_sum / cumulative_prod, var / std (real results), matmul, tensordot and vecdot (x1
conjugated)."""

import numpy as np
import pytest

import duet
from array_api_support import RNG
from complex_support import COMPLEX, RTOL, close, cvalues, usable

REAL = {"complex64": "float32", "complex128": "float64"}


# The branch cuts with both signs of a zero imaginary part, tiny arguments and large real parts.
SPECIAL = np.array([2 + 0j, complex(2, -0.0), -3 + 0j, complex(-3, -0.0), 2j, complex(-0.0, -2.5), 0.5 + 0j,
                    1e-5 + 2e-5j, 30 + 1j, -30 + 2j, 0.5j, 0j, 0.25 + 0.75j])
FUNCTIONS = ["tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "expm1",
             "log1p", "log2", "log10", "square", "reciprocal", "sign"]
DUET_NAME = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
             "arctanh": "atanh"}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions(device, dtype, name):
    usable(device, dtype)
    a = np.concatenate([cvalues((97,), dtype), SPECIAL.astype(dtype)])
    x = duet.asarray(a, device)
    f = getattr(duet, DUET_NAME.get(name, name))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a)
    got = f(x)
    assert got.dtype == np.dtype(dtype)
    rtol = RTOL[dtype] * 10
    np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=rtol)
    # A reversed, stepped view.
    np.testing.assert_allclose(f(x[::-3]).get(), want[::-3], rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_power_round_predicates(device, dtype):
    usable(device, dtype)
    rtol = RTOL[dtype] * 10
    a, b = cvalues((61,), dtype), cvalues((61,), dtype)
    x, y = duet.asarray(a, device), duet.asarray(b, device)
    close(x ** y, a ** b, rtol)
    close(duet.pow(x, 2), a ** 2, rtol)
    close(x ** -3, (a ** -3).astype(dtype), rtol)
    close(x ** 0.5, (a ** 0.5).astype(dtype), rtol)
    close(2 ** x, (2 ** a).astype(dtype), rtol)
    close(x ** (1 - 0.5j), (a ** (1 - 0.5j)).astype(dtype), rtol)
    z = duet.asarray(np.array([0, 0, 2 + 1j], dtype), device)
    p = (z ** duet.asarray(np.array([0, 2, 0], dtype), device)).get()
    np.testing.assert_array_equal(p, np.array([1, 0, 1], dtype))
    h = np.array([0.5 + 1.5j, -2.5 - 0.5j, 3.7 - 1.2j, -0.0 + 0j], dtype)
    np.testing.assert_array_equal(duet.round(duet.asarray(h, device)).get(), np.round(h))
    odd = np.array([np.nan + 1j, 1 + np.inf * 1j, -np.inf + 0j, 1 + 1j], dtype)
    xo = duet.asarray(odd, device)
    for name in ("isnan", "isinf", "isfinite"):
        np.testing.assert_array_equal(getattr(duet, name)(xo).get(), getattr(np, name)(odd))
    with pytest.raises(duet.ArgumentError):
        duet.floor(x)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_indexing_and_nonzero(device, dtype):
    usable(device, dtype)
    a = cvalues((7, 13), dtype)
    a.flat[::5] = complex(-0.0, -0.0)
    a.flat[1::11] = complex(0.0, -0.0)
    a.flat[2::17] = 1e-30j
    x = duet.asarray(a, device)
    idx = RNG.integers(-7, 7, 10)
    np.testing.assert_array_equal(x[duet.asarray(idx, device)].get(), a[idx])
    np.testing.assert_array_equal(duet.take(x, duet.asarray(idx, device), axis=0).get(), a[idx])
    mask = RNG.random((7, 13)) < 0.4
    np.testing.assert_array_equal(x[duet.asarray(mask, device)].get(), a[mask])
    for got, want in zip(duet.nonzero(x), np.nonzero(a)):
        np.testing.assert_array_equal(got.get(), want)
    assert int(duet.count_nonzero(x)) == np.count_nonzero(a)
    # Writes through a mask and through integer indices.
    b = a.copy()
    y = duet.asarray(b, device)
    y[duet.asarray(mask, device)] = 1.5 - 2j
    b[mask] = 1.5 - 2j
    rows = np.array([4, 0, 6])
    y[duet.asarray(rows, device)] = duet.asarray(a[rows] * 2, device)
    b[rows] = a[rows] * 2
    np.testing.assert_array_equal(y.get(), b)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_scans_statistics_products(device, dtype):
    usable(device, dtype)
    rtol = RTOL[dtype] * 50
    a = cvalues((5, 211), dtype, 1.0)
    x = duet.asarray(a, device)
    close(duet.cumulative_sum(x, axis=1), np.cumsum(a, axis=1), rtol)
    close(duet.cumulative_sum(x[::-1, ::3], axis=0), np.cumsum(a[::-1, ::3], axis=0), rtol)
    unit = (a / np.abs(a)).astype(dtype)
    close(duet.cumulative_prod(duet.asarray(unit, device), axis=1), np.cumprod(unit, axis=1), rtol)
    for correction in (0, 1):
        close(duet.var(x, correction=correction), np.var(a, ddof=correction), rtol)
        close(duet.std(x, axis=1, correction=correction), np.std(a, axis=1, ddof=correction), rtol)
    assert duet.var(x).dtype == np.dtype(REAL[dtype])
    m, k = cvalues((6, 11), dtype), cvalues((11, 4), dtype)
    xm, xk = duet.asarray(m, device), duet.asarray(k, device)
    close(duet.matmul(xm, xk), m @ k, rtol)
    close(xm @ xk, m @ k, rtol)
    close(duet.matmul(xm[2], xk), m[2] @ k, rtol)
    close(duet.tensordot(xm, xk, axes=1), np.tensordot(m, k, axes=1), rtol)
    v, w = cvalues((3, 17), dtype), cvalues((17,), dtype)
    close(duet.vecdot(duet.asarray(v, device), duet.asarray(w, device)), np.sum(np.conj(v) * w, axis=-1), rtol)
