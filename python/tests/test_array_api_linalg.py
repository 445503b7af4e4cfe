"""duet.linalg against NumPy: outer, cross, diagonal, trace, vector_norm and matrix_norm on random
inputs of awkward shapes (empty, size 1, primes, stacks, broadcast, strided views), and matmul,
matrix_transpose, tensordot and vecdot as the main namespace's. The singular values (svdvals and
matrix_norm's 'nuc', 2 and -2) are in test_array_api_linalg_svd.py."""

import math

import numpy as np
import pytest

import duet
from array_api_support import NAMES, check, usable, values, views


def test_namespace_shares_the_main_functions():
    for name in ["matmul", "matrix_transpose", "tensordot", "vecdot"]:
        assert getattr(duet.linalg, name) is getattr(duet, name)


@pytest.mark.parametrize("dtype", NAMES)
def test_outer(device, dtype):
    usable(device, dtype)
    for n, m in [(0, 3), (1, 1), (7, 5)]:
        for a, da in views(device, (n,), dtype, bound=20):
            b = values((m,), dtype, bound=20)
            check(duet.linalg.outer(da, duet.asarray(b, device)), np.outer(a, b))
    with pytest.raises(duet.ArgumentError, match="1-D"):
        duet.linalg.outer(duet.zeros((2, 2), device=device), duet.zeros((2,), device=device))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_cross(device, dtype):
    usable(device, dtype)
    for s1, s2, axis in [((3,), (3,), -1), ((5, 3), (3,), -1), ((3, 4), (3, 1), 0), ((2, 3, 7), (1, 3, 7), -2),
                         ((0, 3), (0, 3), -1), ((2, 3, 7), (1, 3, 7), 1)]:
        for a, da in views(device, s1, dtype, bound=20):
            b = values(s2, dtype, bound=20)
            # Floats within rounding: a device may fuse a product and a difference (FMA).
            check(duet.linalg.cross(da, duet.asarray(b, device), axis=axis), np.cross(a, b, axis=axis),
                  1e-6 if dtype.startswith("float") else None)
    with pytest.raises(duet.ArgumentError, match="length 3"):
        duet.linalg.cross(duet.zeros((4,), device=device), duet.zeros((4,), device=device))


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 7), (7, 3), (2, 5, 6), (0, 3), (3, 0), (2, 0, 2)])
def test_diagonal_and_trace(device, dtype, shape):
    usable(device, dtype)
    for a, d in views(device, shape, dtype, bound=20):
        for k in [-8, -2, -1, 0, 1, 3, 9]:
            check(duet.linalg.diagonal(d, offset=k), np.diagonal(a, k, -2, -1))
            # Floats summed in double here: the device adds in its own order.
            exact = a.dtype.kind != "f"
            want = np.trace(a if exact else a.astype(np.float64), k, -2, -1)
            check(duet.linalg.trace(d, offset=k), np.asarray(want).astype(np.sum(a[..., :0, :0]).dtype),
                  None if exact else 1e-5)
        if dtype != "float64" or device.supports_double:
            check(duet.linalg.trace(d, dtype="float64"), np.trace(a, 0, -2, -1, dtype="float64"), 1e-6)


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 1, 3), (0, 4)])
def test_vector_norm(device, dtype, shape):
    usable(device, dtype)
    if not device.supports_double and dtype == "int16":
        pytest.skip("integers give float64")
    rtol = 1e-5 if dtype == "float32" else 1e-10
    want_dtype = np.float64 if dtype == "int16" else np.dtype(dtype)
    for a, d in views(device, shape, dtype, bound=20):
        h = a.astype(np.float64)
        axes = [None] + list(range(a.ndim)) + ([(0, -1)] if a.ndim >= 2 else [])
        for axis in axes:
            ax = axis if axis is None or isinstance(axis, tuple) else (axis,)
            if ax is not None and any(a.shape[k] == 0 for k in ax) or (ax is None and a.size == 0):
                ords = [2, 1, 0, 3]  # max and min of nothing have no value
            else:
                ords = [2, 1, 0, 3, -1.5, math.inf, -math.inf]
            for ord in ords:
                for keepdims in [False, True]:
                    flat = h.reshape(-1) if axis is None else h
                    with np.errstate(all="ignore"):
                        want = np.linalg.vector_norm(flat if axis is not None else h, axis=axis, ord=ord,
                                                     keepdims=keepdims)
                    check(duet.linalg.vector_norm(d, axis=axis, ord=ord, keepdims=keepdims),
                          np.asarray(want).astype(want_dtype), rtol)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 7), (2, 5, 6), (3, 2, 1, 4)])
def test_matrix_norm(device, dtype, shape):
    usable(device, dtype)
    if not device.supports_double and dtype == "int32":
        pytest.skip("integers give float64")
    rtol = 1e-5 if dtype == "float32" else 1e-10
    want_dtype = np.float64 if dtype == "int32" else np.dtype(dtype)
    for a, d in views(device, shape, dtype, bound=20):
        for ord in ["fro", 1, -1, math.inf, -math.inf]:
            for keepdims in [False, True]:
                want = np.linalg.matrix_norm(a.astype(np.float64), ord=ord, keepdims=keepdims)
                check(duet.linalg.matrix_norm(d, ord=ord, keepdims=keepdims), np.asarray(want).astype(want_dtype),
                      rtol)
    with pytest.raises(duet.ArgumentError, match="not one of"):
        duet.linalg.matrix_norm(d, ord=3)


def test_numpy_matmul_duet(device):
    a, b = values((3, 4), "float32", bound=20), values((4, 5), "float32", bound=20)
    got = a @ duet.asarray(b, device)
    check(got, a @ b, 1e-5)
