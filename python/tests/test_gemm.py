"""duet.gemm against NumPy in float64: every transpose combination, alpha and beta (beta == 0 over a
C poisoned with NaN, which must not propagate), sizes 1, primes and vector shapes, batches with a
shared operand, float64 where the device has it, float16 storage, an output that is a view of a
larger array (the rows around it must stay poisoned), and each error."""

import numpy as np
import pytest

import duet


def reference(A, B, C, alpha, beta, trans_a, trans_b):
    a = A.astype(np.float64)
    b = B.astype(np.float64)
    a = np.swapaxes(a, -1, -2) if trans_a else a
    b = np.swapaxes(b, -1, -2) if trans_b else b
    out = alpha * np.matmul(a, b)
    if beta != 0:
        out += beta * C.astype(np.float64)
    return out


def stored(shape, trans):
    """The stored shape of an operand whose op() has `shape` (rows, cols)."""
    return shape[:-2] + (shape[-1], shape[-2]) if trans else shape


@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 13, 5), (37, 1, 61), (1, 29, 300), (67, 45, 131)])
@pytest.mark.parametrize("beta", [0.0, -0.5])
def test_gemm_float32(device, trans_a, trans_b, m, n, k, beta):
    rng = np.random.default_rng(m * 10007 + n * 101 + k)
    A = rng.uniform(-1, 1, stored((m, k), trans_a)).astype(np.float32)
    B = rng.uniform(-1, 1, stored((k, n), trans_b)).astype(np.float32)
    C0 = np.full((m, n), np.nan, np.float32) if beta == 0 else rng.uniform(-1, 1, (m, n)).astype(np.float32)
    C = duet.asarray(C0, device)
    got = duet.gemm(duet.asarray(A, device), duet.asarray(B, device), C, alpha=0.75, beta=beta,
                    trans_a=trans_a, trans_b=trans_b)
    assert got.native_handle == C.native_handle
    want = reference(A, B, C0, 0.75, beta, trans_a, trans_b)
    np.testing.assert_allclose(C.get(), want, rtol=1e-4, atol=1e-4 * np.sqrt(k))


def test_gemm_new_output_and_view(device):
    rng = np.random.default_rng(5)
    A = rng.uniform(-1, 1, (11, 17)).astype(np.float32)
    B = rng.uniform(-1, 1, (17, 9)).astype(np.float32)
    C = duet.gemm(duet.asarray(A, device), duet.asarray(B, device))
    assert C.shape == (11, 9) and C.dtype == np.float32
    np.testing.assert_allclose(C.get(), A.astype(np.float64) @ B, rtol=1e-4, atol=1e-5)
    # C a view of rows 3..13 of a larger array: the rows around it keep their NaN.
    big = duet.asarray(np.full((16, 9), np.nan, np.float32), device)
    duet.gemm(duet.asarray(A, device), duet.asarray(B, device), big[3:14])
    out = big.get()
    assert np.isnan(out[:3]).all() and np.isnan(out[14:]).all()
    np.testing.assert_allclose(out[3:14], A.astype(np.float64) @ B, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shared", ["none", "A", "B", "B batch of 1"])
def test_gemm_batched(device, shared):
    rng = np.random.default_rng(11)
    batch, m, n, k = 5, 19, 23, 29
    A = rng.uniform(-1, 1, (m, k) if shared == "A" else (batch, m, k)).astype(np.float32)
    b_shape = {"B": (k, n), "B batch of 1": (1, k, n)}.get(shared, (batch, k, n))
    B = rng.uniform(-1, 1, b_shape).astype(np.float32)
    C0 = rng.uniform(-1, 1, (batch, m, n)).astype(np.float32)
    C = duet.asarray(C0, device)
    duet.gemm(duet.asarray(A, device), duet.asarray(B, device), C, alpha=1.25, beta=-1.0, trans_b=False)
    np.testing.assert_allclose(C.get(), reference(A, B, C0, 1.25, -1.0, False, False), rtol=1e-4, atol=1e-4)


def test_gemm_float64(device):
    if not device.info.supports_double:
        pytest.skip(f"{device.id} has no double precision")
    rng = np.random.default_rng(3)
    A = rng.uniform(-1, 1, (33, 37))
    B = rng.uniform(-1, 1, (41, 37))
    C0 = rng.uniform(-1, 1, (33, 41))
    C = duet.asarray(C0, device)
    duet.gemm(duet.asarray(A, device), duet.asarray(B, device), C, alpha=0.3, beta=0.7, trans_b=True)
    np.testing.assert_allclose(C.get(), reference(A, B, C0, 0.3, 0.7, False, True), rtol=1e-12, atol=1e-12)


def test_gemm_float16(device):
    rng = np.random.default_rng(4)
    A = rng.uniform(-1, 1, (21, 40)).astype(np.float16)
    B = rng.uniform(-1, 1, (40, 13)).astype(np.float16)
    C = duet.gemm(duet.asarray(A, device), duet.asarray(B, device), alpha=0.5)
    assert C.dtype == np.float16
    # float arithmetic, one rounding to half at the end
    np.testing.assert_allclose(C.get().astype(np.float64), reference(A, B, None, 0.5, 0.0, False, False),
                               rtol=2e-3, atol=2e-3)


def test_gemm_errors(device):
    a = duet.zeros((3, 4), device=device)
    with pytest.raises(duet.ArgumentError, match="inner dimensions"):
        duet.gemm(a, a)
    with pytest.raises(duet.ArgumentError, match="batches must match"):
        duet.gemm(duet.zeros((2, 3, 4), device=device), duet.zeros((3, 4, 5), device=device))
    with pytest.raises(duet.ArgumentError, match="one dtype"):
        duet.gemm(a, duet.zeros((4, 2), "float16", device))
    with pytest.raises(duet.ArgumentError, match="no C was given"):
        duet.gemm(a, duet.zeros((4, 2), device=device), beta=1.0)
    with pytest.raises(duet.ArgumentError, match=r"shape \(3, 2\)"):
        duet.gemm(a, duet.zeros((4, 2), device=device), duet.zeros((2, 3), device=device))
    with pytest.raises(duet.ArgumentError, match="1-D"):
        duet.gemm(duet.zeros(4, device=device), a)
    with pytest.raises(duet.ArgumentError, match="int32"):
        duet.gemm(duet.zeros((2, 2), "int32", device), duet.zeros((2, 2), "int32", device))
