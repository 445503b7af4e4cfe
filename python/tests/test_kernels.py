"""The built-in kernels from Python: matmul against NumPy, heat against the C++ reference (duet.reference)."""

import numpy as np
import pytest

import duet
from duet import reference


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (33, 17, 5), (1, 1, 1)])
def test_matmul(device, m, n, k):
    rng = np.random.default_rng(m * n * k)
    A = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    B = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    C = duet.matmul(duet.asarray(A, device), duet.asarray(B, device))
    assert C.shape == (m, n)
    np.testing.assert_allclose(C.get(), A.astype(np.float64) @ B, rtol=1e-4, atol=1e-5)
    out = duet.empty((m, n), device=device)
    assert duet.matmul(duet.asarray(A, device), duet.asarray(B, device), out=out).native_handle == out.native_handle


def test_matmul_errors(device):
    a = duet.zeros((3, 4), device=device)
    with pytest.raises(duet.ArgumentError, match="3x4"):
        duet.matmul(a, a, out=duet.zeros((3, 4), device=device))
    with pytest.raises(duet.ArgumentError):
        duet.matmul(a, a)
    with pytest.raises(duet.ArgumentError, match="float"):
        duet.matmul(duet.zeros((2, 2), "float64", device), duet.zeros((2, 2), "float64", device),
                    out=duet.zeros((2, 2), "float64", device))


def test_matmul_follows_numpy(device):
    rng = np.random.default_rng()
    for dtype in ["float32", "float64"] if device.supports_double else ["float32"]:
        for a_shape, b_shape in [((5, 3), (3, 7)), ((3,), (3, 4)), ((2, 5, 3), (3, 1)), ((3, 4, 2), (3, 2, 5)),
                                 ((6,), (6,)), ((2, 1, 4, 3), (5, 3, 2)), ((2, 3, 4, 3), (3,)), ((3,), (2, 2, 3, 4))]:
            A = rng.standard_normal(a_shape).astype(dtype)
            B = rng.standard_normal(b_shape).astype(np.float32)
            got = duet.matmul(duet.asarray(A, device), duet.asarray(B, device)).get()
            want = np.matmul(A.astype(np.float64), B.astype(np.float64))
            assert got.dtype == np.result_type(A.dtype, B.dtype) and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-4 if got.dtype == np.float32 else 1e-12, atol=1e-5)


@pytest.mark.parametrize("steps", [1, 10])
def test_heat(device, steps):
    u0 = np.zeros((40, 50), np.float32)
    u0[15:25, 20:30] = 1.0
    u = duet.asarray(u0, device)
    duet.heat(u, steps, 0.24)
    np.testing.assert_allclose(u.get(), reference.heat(u0, 0.24, steps), atol=1e-5)
    v = duet.empty(u.shape, device=device)
    duet.heat_step(duet.asarray(u0, device), v, 0.24)
    np.testing.assert_allclose(v.get(), reference.heat(u0, 0.24, 1), atol=1e-6)
    with pytest.raises(duet.ArgumentError, match="whole array"):
        duet.heat(u[1:], 1)


def test_vector_add_and_sources(device):
    a = duet.asarray(np.arange(5, dtype=np.float32), device)
    c = duet.empty(5, device=device)
    duet.vector_add(a, a, c)
    assert c.get().tolist() == [0, 2, 4, 6, 8]
    duet.multiply(a, a, c)
    assert c.get().tolist() == [0, 1, 4, 9, 16]
    assert "heat" in duet.kernel_names() and "KERNEL" in duet.kernel_source("heat")
    assert duet.kernel_source("nope") is None
