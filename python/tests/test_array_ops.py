"""The integer and logical operators of duet.Array against NumPy on random inputs: // and % (Python's
signs, and duet's 0 for an integer division by zero), ** on integers, logical_*, the bitwise
operators and shifts, with their reflected and in-place forms and their dtypes; cumulative_sum,
cumsum, cumulative_prod and cumprod along each axis and flattened; outer; reductions over several
axes; and the errors."""

import numpy as np
import pytest

import duet

RNG = np.random.default_rng()

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint32"]


def ints(shape, dtype, low=-60, high=60):
    info = np.iinfo(dtype)
    return RNG.integers(max(low, info.min), min(high, info.max), shape).astype(dtype)


def check(got, want, rtol=1e-6):
    want = np.asarray(want)
    assert isinstance(got, duet.Array), type(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("shape", [(1,), (7, 13), (0, 5)])
def test_floor_divide_and_remainder_of_integers(device, dtype, shape):
    a = ints(shape, dtype)
    b = ints(shape, dtype, -9, 9)
    b[b == 0] = 3
    da, db = duet.asarray(a, device), duet.asarray(b, device)
    check(da // db, a // b)
    check(da % db, a % b)
    check(duet.floor_divide(da, db), np.floor_divide(a, b))
    check(duet.remainder(da, db), np.remainder(a, b))
    check(da // 4, a // np.array(4, dtype))  # a Python int is weak: the array's dtype stays
    check(100 // (db if np.dtype(dtype).kind == "i" else db + 1), 100 // (b if np.dtype(dtype).kind == "i" else b + 1))


def test_integer_division_by_zero_gives_zero(device):
    a = np.array([7, -7, 0, 5], "int32")
    z = np.zeros(4, "int32")
    da, dz = duet.asarray(a, device), duet.asarray(z, device)
    check(da // dz, z)
    check(da % dz, z)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_floor_divide_and_remainder_of_floats(device, dtype):
    if dtype == "float64" and not device.supports_double:
        pytest.skip("no double precision on this device")
    a = RNG.uniform(-20, 20, (5, 11)).astype(dtype)
    b = RNG.uniform(-4, 4, (11,)).astype(dtype)
    da, db = duet.asarray(a, device), duet.asarray(b, device)
    check(da // db, a // b, rtol=1e-5)
    check(da % db, a % b, rtol=1e-4)
    check(da[::-1, ::2] % 1.5, a[::-1, ::2] % np.array(1.5, dtype), rtol=1e-4)


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64", "uint8"])
def test_integer_power(device, dtype):
    a = ints((9,), dtype, -5, 6)
    e = ints((9,), dtype, 0, 5)
    da, de = duet.asarray(a, device), duet.asarray(e, device)
    check(da ** de, a ** e)
    check(da ** 3, a ** np.array(3, dtype))
    with pytest.raises(duet.ArgumentError):
        da ** -2


def test_logical_operations(device):
    a = RNG.integers(-2, 3, (6, 7)).astype("int32")
    b = RNG.uniform(-1, 1, (7,)).astype("float32")
    b[::3] = 0
    da, db = duet.asarray(a, device), duet.asarray(b, device)
    for name in ["logical_and", "logical_or", "logical_xor"]:
        check(getattr(duet, name)(da, db), getattr(np, name)(a, b))
    check(duet.logical_not(da), np.logical_not(a))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint16"])
def test_bitwise_operators(device, dtype):
    a = ints((4, 9), dtype, -1000, 1000)
    b = ints((9,), dtype, -1000, 1000)
    da, db = duet.asarray(a, device), duet.asarray(b, device)
    check(da & db, a & b)
    check(da | db, a | b)
    check(da ^ db, a ^ b)
    check(~da, ~a)
    check(5 & da, np.array(5, dtype) & a)
    counts = ints((9,), dtype, 0, np.dtype(dtype).itemsize * 8)
    dc = duet.asarray(counts, device)
    check(da << dc, a << counts)
    check(da >> dc, a >> counts)
    check(duet.bitwise_left_shift(da, dc), np.left_shift(a, counts))
    with pytest.raises(duet.ArgumentError, match="float"):
        duet.asarray(np.ones(3, "float32"), device) & duet.asarray(np.ones(3, "float32"), device)


def test_in_place_integer_operators(device):
    a = ints((5, 6), "int32", 1, 90)
    da = duet.asarray(a, device)
    da //= 4
    a //= 4
    da %= 7
    a %= 7
    da |= 8
    a |= 8
    da <<= 1
    a <<= 1
    np.testing.assert_array_equal(da.get(), a)
    with pytest.raises(duet.ArgumentError, match="same_kind"):
        da //= 1.5


def test_new_operators_fuse(device):
    @duet.fuse
    def f(x, y):
        return (x // y + x % y) & 7

    x = ints((33,), "int32", 1, 500)
    y = ints((33,), "int32", 1, 9)
    check(f(duet.asarray(x, device), duet.asarray(y, device)), (x // y + x % y) & 7)


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint8"])
def test_cumulative_sum(device, dtype):
    a = ints((6, 0, 3), dtype, 0, 9) if dtype != "float32" else RNG.uniform(-1, 1, (6, 0, 3)).astype(dtype)
    m = ints((5, 37), dtype, 0, 9) if dtype != "float32" else RNG.uniform(-1, 1, (5, 37)).astype(dtype)
    dm = duet.asarray(m, device)
    for axis in [0, 1, -1]:
        check(duet.cumulative_sum(dm, axis=axis), np.cumulative_sum(m, axis=axis), rtol=1e-5)
        check(duet.cumulative_sum(dm, axis=axis, include_initial=True),
              np.cumulative_sum(m, axis=axis, include_initial=True), rtol=1e-5)
    check(duet.cumsum(dm), np.cumsum(m), rtol=1e-5)
    check(duet.cumsum(dm[::-1, ::3], 1), np.cumsum(m[::-1, ::3], 1), rtol=1e-5)
    check(duet.cumulative_sum(duet.asarray(a, device), axis=1), np.cumulative_sum(a, axis=1))
    check(duet.cumulative_sum(duet.asarray(m[0], device)), np.cumulative_sum(m[0]), rtol=1e-5)
    with pytest.raises(duet.ArgumentError, match="axis"):
        duet.cumulative_sum(dm)


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint8"])
def test_cumulative_prod(device, dtype):
    # Factors of 1 and 2 (integers: at most 2**37, exact in 64 bits) or floats near 1.
    m = ints((5, 37), dtype, 1, 3) if dtype != "float32" else RNG.uniform(0.9, 1.1, (5, 37)).astype(dtype)
    dm = duet.asarray(m, device)
    for axis in [0, 1, -1]:
        check(duet.cumulative_prod(dm, axis=axis), np.cumulative_prod(m, axis=axis), rtol=1e-5)
        check(duet.cumulative_prod(dm, axis=axis, include_initial=True),
              np.cumulative_prod(m, axis=axis, include_initial=True), rtol=1e-5)
    check(duet.cumprod(dm), np.cumprod(m), rtol=1e-5)
    check(duet.cumprod(dm[::-1, ::3], 1), np.cumprod(m[::-1, ::3], 1), rtol=1e-5)
    check(duet.cumulative_prod(duet.asarray(m[0], device)), np.cumulative_prod(m[0]), rtol=1e-5)
    with pytest.raises(duet.ArgumentError, match="axis"):
        duet.cumulative_prod(dm)


def test_outer(device):
    a = RNG.uniform(-1, 1, (3, 4)).astype("float32")
    b = ints((5,), "int32")
    got = duet.outer(duet.asarray(a, device)[:, ::-1], duet.asarray(b, device))
    want = np.outer(a[:, ::-1], b)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.get(), want, rtol=1e-12 if got.dtype == np.float64 else 1e-6)
    check(duet.outer(duet.asarray(b[:0], device), duet.asarray(b, device)), np.outer(b[:0], b))


def test_reductions_over_several_axes(device):
    a = RNG.uniform(-1, 1, (4, 5, 6)).astype("float32")
    da = duet.asarray(a, device)
    for axes in [(0, 2), (1, 2), (0, 1, 2), (2, 0), (-1, -3)]:
        check(duet.sum(da, axis=axes), a.sum(axis=axes, dtype=np.float64).astype("float32"), rtol=1e-5)
        check(duet.max(da, axis=axes, keepdims=True), a.max(axis=axes, keepdims=True))
    i = ints((3, 4, 5), "int32")
    check(duet.prod(duet.asarray(i, device)[:, ::-1], axis=(0, 2)), i[:, ::-1].prod(axis=(0, 2), dtype=np.int64))
    check(da.mean(axis=(0, 1)), a.mean(axis=(0, 1)), rtol=1e-5)
    with pytest.raises(duet.ArgumentError):
        duet.argmax(da, axis=(0, 1))
    with pytest.raises(duet.ArgumentError, match="twice"):
        duet.sum(da, axis=(1, 1))
