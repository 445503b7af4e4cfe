"""duet.linalg.svdvals and matrix_norm's 'nuc', 2 and -2 against NumPy's SVD in float64: random
matrices of awkward shapes (1 x 1, one row, one column, primes, wide and tall, stacks, strided
views, empty), rank-deficient and ill-conditioned ones, float32, float64, float16 and integers.
The error bound is one-sided Jacobi's: a few units of rounding of the dtype times (M + N), relative
to each matrix's largest singular value."""

import math

import numpy as np
import pytest

import duet
from array_api_support import check, usable, values, views

SHAPES = [(1, 1), (1, 7), (7, 1), (4, 4), (3, 7), (2, 5, 6), (3, 2, 1, 4), (31, 29), (2, 3, 17, 13), (0, 3),
          (3, 0), (2, 0, 2), (0, 2, 2)]


def eps(dtype):
    return np.finfo(np.float64 if np.dtype(dtype).kind in "iu" else dtype).eps


def reference(a):
    """NumPy's singular values of `a` in float64 (an empty matrix has none)."""
    h = np.asarray(a, dtype=np.float64)
    k = min(h.shape[-2:])
    if h.size == 0:
        return np.zeros(h.shape[:-2] + (k,))
    return np.linalg.svdvals(h)


def bound(a, dtype, want, slack=4.0):
    """The absolute error allowed for each matrix's values, broadcast over the last axis."""
    m, n = a.shape[-2:]
    top = want[..., :1] if want.shape[-1] else np.zeros(want.shape[:-1] + (1,))
    return slack * (m + n + 8) * eps(dtype) * np.maximum(top, np.finfo(np.float64).tiny)


def check_values(got, a, dtype, what=""):
    want = reference(a)
    assert isinstance(got, duet.Array)
    assert got.shape == want.shape, (got.shape, want.shape)
    out = np.float64 if np.dtype(dtype).kind in "iu" else np.dtype(dtype)
    assert got.dtype == out, (got.dtype, out)
    err = np.abs(got.get().astype(np.float64) - want)
    allowed = bound(a, dtype, want)
    assert np.all(err <= allowed), (what, float(np.max(err / allowed)) if err.size else 0)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
def test_svdvals(device, dtype, shape):
    usable(device, dtype)
    if not device.supports_double and dtype == "int32":
        pytest.skip("integers give float64")
    for a, d in views(device, shape, dtype, bound=20):
        check_values(duet.linalg.svdvals(d), a, dtype, "svdvals")
        # The transposed matrices have the same values.
        check_values(duet.linalg.svdvals(duet.matrix_transpose(d)), np.swapaxes(a, -1, -2), dtype, "transposed")


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
def test_matrix_norm_singular_orders(device, dtype, shape):
    usable(device, dtype)
    if not device.supports_double and dtype == "int32":
        pytest.skip("integers give float64")
    out = np.float64 if dtype == "int32" else np.dtype(dtype)
    for a, d in views(device, shape, dtype, bound=20):
        s = reference(a)
        k = s.shape[-1]
        allowed = bound(a, dtype, s)[..., 0]
        for ord in ["nuc", 2, -2]:
            if k == 0 and ord == -2 and a.size == 0 and math.prod(a.shape[:-2]) > 0:
                # NumPy's smallest of no values is a ValueError; duet's an ArgumentError.
                with pytest.raises(duet.ArgumentError, match="smallest singular value"):
                    duet.linalg.matrix_norm(d, ord=ord)
                continue
            for keepdims in [False, True]:
                want = np.linalg.matrix_norm(np.asarray(a, np.float64), ord=ord, keepdims=keepdims)
                got = duet.linalg.matrix_norm(d, ord=ord, keepdims=keepdims)
                assert got.shape == np.shape(want) and got.dtype == out, (got.shape, got.dtype, np.shape(want))
                tol = allowed * (max(k, 1) if ord == "nuc" else 1)
                if keepdims:
                    tol = tol[..., None, None]
                assert np.all(np.abs(got.get().astype(np.float64) - want) <= tol), ord


def with_singular_values(rng, m, n, s):
    u, _ = np.linalg.qr(rng.standard_normal((m, len(s))))
    v, _ = np.linalg.qr(rng.standard_normal((n, len(s))))
    return (u * s) @ v.T


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svdvals_conditioning(device, dtype):
    """Values spanning many orders (down to below the dtype's rounding), rank deficiency (exact zero
    values), one value repeated, the zero matrix, and entries whose squares overflow float32."""
    usable(device, dtype)
    rng = np.random.default_rng(31)
    cases = [
        ("graded", 41, 23, np.logspace(0, -12, 23)),
        ("rank 9 of 17", 17, 29, np.r_[np.arange(9, 0, -1), np.zeros(8)]),
        ("repeated", 12, 12, np.full(12, 3.0)),
        ("zero", 6, 4, np.zeros(4)),
        ("huge", 9, 5, 1e30 * np.linspace(1, 0.2, 5)),
        ("tiny", 5, 9, 1e-30 * np.linspace(1, 0.2, 5)),
    ]
    for what, m, n, s in cases:
        a = with_singular_values(rng, m, n, s).astype(dtype)
        check_values(duet.linalg.svdvals(duet.asarray(a, device)), a, dtype, what)


def test_svdvals_large_and_many(device):
    rng = np.random.default_rng(7)
    for shape in [(200, 150), (1, 500), (401, 2), (500, 3, 3)]:
        a = rng.standard_normal(shape).astype(np.float32)
        check_values(duet.linalg.svdvals(duet.asarray(a, device)), a, "float32", str(shape))


def test_svdvals_float16(device):
    """float16 computes in float32 and stores float16 (NumPy's linalg takes no float16)."""
    a = values((3, 8, 6), "float16")
    got = duet.linalg.svdvals(duet.asarray(a, device))
    assert got.dtype == np.float16
    want = reference(a.astype(np.float32))
    assert np.all(np.abs(got.get().astype(np.float64) - want) <= 2 * np.finfo(np.float16).eps * want[..., :1])
    n = duet.linalg.matrix_norm(duet.asarray(a, device), ord=2)
    assert n.dtype == np.float16 and n.shape == (3,)


def test_svdvals_nonfinite(device):
    """An infinite or NaN element: all of that matrix's values are NaN (NumPy raises LinAlgError)."""
    a = np.array([[[1, 2], [3, 4]], [[np.nan, 1], [1, 1]], [[np.inf, 0], [0, 1]]], np.float32)
    got = duet.linalg.svdvals(duet.asarray(a, device)).get()
    np.testing.assert_allclose(got[0], np.linalg.svdvals(a[0].astype(np.float64)), rtol=1e-6)
    assert np.isnan(got[1:]).all()


def test_svdvals_errors(device):
    with pytest.raises(duet.ArgumentError, match="at least 2 dimensions"):
        duet.linalg.svdvals(duet.zeros((4,), device=device))
    with pytest.raises(duet.ArgumentError, match="at least 2 dimensions"):
        duet.linalg.matrix_norm(duet.zeros((4,), device=device), ord="nuc")
    with pytest.raises(duet.ArgumentError, match="not one of"):
        duet.linalg.matrix_norm(duet.zeros((2, 2), device=device), ord="spectral")
