"""bfloat16 arrays against NumPy in float32 and float64: the dtype object (result_type, isdtype,
finfo), creation from float data rounded once to nearest even on the device, astype both ways,
arithmetic and math functions computed in float (within bfloat16's 8 bits), comparisons, reductions
accumulated in float, sort, and gemm; random values on awkward shapes (0-d, empty, size 1, primes)
and on reversed, stepped views. NumPy has no bfloat16: the parts that read bfloat16 data straight
into NumPy need ml_dtypes and are skipped without it; every other check reads back through
astype(float32)."""

import numpy as np
import pytest

import duet
from array_api_support import RNG

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

needs_ml_dtypes = pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes is not installed (pip install ml_dtypes)")

SHAPES = [(), (0,), (1,), (13,), (3, 7), (2, 0, 3), (5, 1, 11)]
EPS = 2.0 ** -7


def to_bf16_bits(x):
    """float64 values rounded once to the nearest bfloat16, ties to even, as uint16 bits: exact
    through float32 rounded to odd, then bfloat16 to nearest even on the bits."""
    x = np.asarray(x, dtype=np.float64)
    f = x.astype(np.float32)
    u = f.view(np.uint32).copy()
    inexact = (f.astype(np.float64) != x) & ~np.isnan(x) & ((u & 1) == 0)
    toward = np.abs(f.astype(np.float64)) > np.abs(x)
    u = np.where(inexact, np.where(toward, u - 1, u + 1), u).astype(np.uint32)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    rounded = np.where(np.isnan(x), 0x7FC0, rounded)
    return rounded.astype(np.uint16)


def bf16_values(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


def read(x):
    """A duet bfloat16 array as float32 NumPy values (exact), without ml_dtypes."""
    return x.astype(duet.float32).get()


def test_the_dtype_object():
    t = duet.bfloat16
    assert t.name == "bfloat16" and t.itemsize == 2
    assert t == "bfloat16"
    assert duet.isdtype(t, "real floating") and duet.isdtype(t, "numeric")
    assert not duet.isdtype(t, "integral")
    assert duet.result_type(t, t) == t
    assert duet.result_type(t, duet.float32) == duet.float32
    assert duet.result_type(t, np.float16) == duet.float32
    assert duet.result_type(t, duet.int8) == t and duet.result_type(t, duet.uint8) == t
    assert duet.result_type(t, duet.int16) == duet.float32
    assert duet.result_type(t, 1.5) == t and duet.result_type(duet.bool, t) == t
    fi = duet.finfo(t)
    assert fi.bits == 16 and fi.eps == 2.0 ** -7 and fi.smallest_normal == 2.0 ** -126
    assert fi.max == pytest.approx(3.3895313892515355e38, rel=1e-15)
    assert "bfloat16" not in duet.__array_namespace_info__().dtypes()
    if ml_dtypes is not None:
        assert t == np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("shape", SHAPES)
def test_creation_rounds_once_on_the_device(device, shape):
    x = RNG.standard_normal(shape) * 10.0 ** RNG.integers(-20, 20, shape)
    for host in (x, x.astype(np.float32)):
        a = duet.asarray(host, device, dtype=duet.bfloat16)
        assert a.dtype == duet.bfloat16 and a.shape == shape
        want = to_bf16_bits(host.astype(np.float64) if device.supports_double else host.astype(np.float32))
        np.testing.assert_array_equal(read(a), bf16_values(want))
    # Halfway cases: ties to even, and a value just past one that float32 would round onto it.
    ties = np.array([1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, -(1 + 2.0 ** -8), 1 + 2.0 ** -8 + 1e-12])
    if device.supports_double:
        got = read(duet.asarray(ties, device, dtype=duet.bfloat16))
        np.testing.assert_array_equal(got, bf16_values(to_bf16_bits(ties)))
    full = duet.full(shape, 1 / 3, dtype=duet.bfloat16, device=device)
    np.testing.assert_array_equal(read(full), np.full(shape, bf16_values(to_bf16_bits(1 / 3))))


def test_reading_back_without_ml_dtypes_says_what_to_do(device):
    a = duet.asarray(np.arange(5, dtype=np.float32), device, dtype=duet.bfloat16)
    if ml_dtypes is None:
        with pytest.raises(duet.ArgumentError, match="ml_dtypes"):
            a.get()
    np.testing.assert_array_equal(read(a), np.arange(5, dtype=np.float32))


@needs_ml_dtypes
@pytest.mark.parametrize("shape", SHAPES)
def test_ml_dtypes_round_trip(device, shape):
    h = (RNG.standard_normal(shape) * 100).astype(ml_dtypes.bfloat16)
    a = duet.asarray(h, device)
    assert a.dtype == duet.bfloat16
    back = a.get()
    assert back.dtype == np.dtype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(back.view(np.uint16), h.view(np.uint16))
    np.testing.assert_array_equal(np.asarray(a).view(np.uint16), h.view(np.uint16))
    np.testing.assert_array_equal(a.astype(duet.float32).get(), h.astype(np.float32))
    if len(shape) >= 1 and h.size:
        view = a[::-1]  # a strided view is gathered in C order
        np.testing.assert_array_equal(view.get().view(np.uint16), h[::-1].view(np.uint16))
        a.set(h[::-1].copy())
        np.testing.assert_array_equal(a.get().view(np.uint16), h[::-1].view(np.uint16))


def operands(device, shape):
    """(float64 values, duet bfloat16 array) pairs: contiguous, and a reversed, stepped view."""
    x = bf16_values(to_bf16_bits(RNG.uniform(0.25, 4, shape))).astype(np.float64)
    yield x, duet.asarray(x, device, dtype=duet.bfloat16)
    if len(shape) >= 1:
        big = bf16_values(to_bf16_bits(RNG.uniform(0.25, 4, tuple(2 * s for s in shape)))).astype(np.float64)
        key = tuple(slice(None, None, -2) for _ in shape)
        yield big[key], duet.asarray(big, device, dtype=duet.bfloat16)[key]


@pytest.mark.parametrize("shape", [(), (1,), (13,), (3, 7), (5, 1, 11)])
def test_arithmetic_and_functions_in_float(device, shape):
    for (x, a), (y, b) in zip(operands(device, shape), operands(device, shape)):
        cases = [(a + b, x + y), (a * b, x * y), (a / b, x / y), (a - 1.5, x - 1.5),
                 (duet.sqrt(a), np.sqrt(x)), (duet.exp(b), np.exp(y)), (duet.sin(a), np.sin(x))]
        for got, want in cases:
            assert got.dtype == duet.bfloat16
            g = read(got).astype(np.float64)
            assert np.all(np.abs(g - want) <= 0.51 * EPS * np.abs(want) + 1e-38)
        # Exact results bit for bit; comparisons give bool.
        np.testing.assert_array_equal(read(-a), -x.astype(np.float32))
        np.testing.assert_array_equal(read(duet.maximum(a, b)), np.maximum(x, y).astype(np.float32))
        np.testing.assert_array_equal((a < b).get(), x < y)
        mixed = a + duet.asarray(y.astype(np.float32), device)
        assert mixed.dtype == duet.float32
        np.testing.assert_allclose(mixed.get(), (x + y).astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("shape", [(1,), (997,), (5, 31)])
def test_reductions_accumulate_in_float(device, shape):
    x = bf16_values(to_bf16_bits(RNG.uniform(-1, 1, shape))).astype(np.float64)
    a = duet.asarray(x, device, dtype=duet.bfloat16)
    n = x.size
    s = duet.sum(a)
    assert s.dtype == duet.bfloat16
    bound = 0.51 * EPS * abs(x.sum()) + n * 6e-8 * np.abs(x).sum() + 1e-30
    assert abs(float(read(s)) - x.sum()) <= bound
    assert float(read(duet.sum(duet.ones(shape, dtype=duet.bfloat16, device=device)))) == \
        float(bf16_values(to_bf16_bits(n)))
    assert float(read(duet.max(a))) == x.max() and float(read(duet.min(a))) == x.min()
    assert int(duet.argmax(a).get()) == int(np.argmax(x))
    c = duet.cumulative_sum(a, axis=len(shape) - 1)
    assert c.dtype == duet.bfloat16
    want = np.cumsum(x, axis=-1)
    assert np.all(np.abs(read(c) - want) <= 0.51 * EPS * np.abs(want) + n * 6e-8 * np.abs(x).sum())


@pytest.mark.parametrize("n", [1, 2, 131, 2053])
def test_sort_argsort_searchsorted_unique(device, n):
    x = bf16_values(to_bf16_bits(RNG.uniform(-8, 8, n)))
    if n > 100:
        x[3], x[7], x[11] = np.nan, np.inf, -np.inf
    a = duet.asarray(x, device, dtype=duet.bfloat16)
    np.testing.assert_array_equal(read(duet.sort(a)), np.sort(x))
    np.testing.assert_array_equal(duet.argsort(a).get(), np.argsort(x, kind="stable"))
    s = duet.sort(a)
    np.testing.assert_array_equal(duet.searchsorted(s, a).get(), np.searchsorted(np.sort(x), x))
    np.testing.assert_array_equal(read(duet.unique_values(a)), np.unique(x))


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 13, 5), (33, 17, 29)])
def test_gemm_takes_bfloat16(device, m, k, n):
    a = bf16_values(to_bf16_bits(RNG.uniform(-1, 1, (m, k))))
    b = bf16_values(to_bf16_bits(RNG.uniform(-1, 1, (k, n))))
    c = duet.gemm(duet.asarray(a, device, dtype=duet.bfloat16), duet.asarray(b, device, dtype=duet.bfloat16))
    assert c.dtype == duet.bfloat16
    want = a.astype(np.float64) @ b.astype(np.float64)
    bound = 0.51 * EPS * np.abs(want) + k * 6e-8 * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    assert np.all(np.abs(read(c) - want) <= bound + 1e-30)


@pytest.mark.skipif(not duet.HAVE_DLPACK, reason="the module was built without DLPack's header")
def test_dlpack_round_trip_shares_memory(device):
    a = duet.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device, dtype=duet.bfloat16)
    holder = type("Producer", (), {})()
    holder.__dlpack__ = a.__dlpack__
    holder.__dlpack_device__ = a.__dlpack_device__
    b = duet.from_dlpack(holder)  # kDLBfloat, 16 bits
    assert b.shape == (3, 4) and b.dtype == duet.bfloat16
    b.fill(0.5)
    np.testing.assert_array_equal(read(a), np.full((3, 4), 0.5, dtype=np.float32))  # one memory


def test_pytorch_bfloat16_through_dlpack(device):
    torch = pytest.importorskip("torch")
    if device.backend != "cuda" or not torch.cuda.is_available():
        pytest.skip("PyTorch shares memory with duet on a CUDA device only")
    t = torch.arange(10, dtype=torch.float32, device="cuda").to(torch.bfloat16) / 3
    a = duet.from_dlpack(t)
    assert a.dtype == duet.bfloat16
    np.testing.assert_array_equal(read(a), t.float().cpu().numpy())
    back = torch.from_dlpack(a * 2)
    assert back.dtype == torch.bfloat16
    np.testing.assert_array_equal(back.float().cpu().numpy(), (t * 2).float().cpu().numpy())
