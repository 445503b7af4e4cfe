"""The bool dtype against NumPy: the dtype object and what the namespace says of it (result_type,
can_cast, isdtype, finfo/iinfo, __array_namespace_info__), creation and the NumPy round trip,
astype to and from every dtype, comparisons and logical functions giving bool, & | ^ ~ on bools,
promotion with arrays and Python numbers, where, reductions, masks in indexing (read and written)
and uint8 arrays as positions, nonzero, count_nonzero, sort, DLPack and fuse; random values on
awkward shapes (0-d, empty, size 1, primes) and on reversed, stepped views."""

import builtins

import numpy as np
import pytest

import duet
from array_api_support import NAMES, RNG, check, usable, values

SHAPES = [(), (0,), (1,), (13,), (3, 7), (2, 0, 3), (5, 1, 11)]


def bools(shape):
    return RNG.integers(0, 2, shape).astype(bool)


def pairs(device, shape):
    """(NumPy, duet) bool arrays of one content: contiguous, and a reversed, stepped view."""
    a = bools(shape)
    yield a, duet.asarray(a, device)
    if len(shape) >= 1:
        big = bools(tuple(2 * s for s in shape))
        key = tuple(slice(None, None, -2) for _ in shape)
        yield big[key], duet.asarray(big, device)[key]


def test_the_dtype_object(device):
    assert duet.bool == np.dtype(bool)
    assert duet.bool is not builtins.bool
    assert duet.isdtype(duet.bool, "bool")
    for kind in ("integral", "numeric", "real floating", "signed integer", "unsigned integer"):
        assert not duet.isdtype(duet.bool, kind)
    info = duet.__array_namespace_info__()
    assert info.dtypes(device=device)["bool"] == duet.bool
    assert list(info.dtypes(device=device, kind="bool")) == ["bool"]
    assert "bool" not in info.dtypes(device=device, kind="numeric")
    for f in (duet.finfo, duet.iinfo):
        with pytest.raises(duet.ArgumentError, match="not bool"):
            f(duet.bool)
        with pytest.raises(duet.ArgumentError, match="not bool"):
            f(duet.zeros((2,), duet.bool, device))


@pytest.mark.parametrize("name", NAMES)
def test_result_type_and_can_cast_with_bool(name):
    t = np.dtype(name)
    assert duet.result_type(duet.bool, t) == np.result_type(bool, t) == t
    assert duet.result_type(t, duet.bool) == t
    assert duet.can_cast(duet.bool, t)  # bool goes into every dtype
    assert not duet.can_cast(t, duet.bool)  # nothing else goes into bool
    assert duet.result_type(duet.bool, duet.bool) == duet.bool
    assert duet.can_cast(duet.bool, duet.bool)


def test_python_numbers_with_bool(device):
    b = duet.asarray(np.array([True, False, True]), device)
    assert duet.result_type(duet.bool, True) == duet.bool  # a Python bool is weak
    assert duet.result_type(duet.bool, 1) == duet.int64  # as NumPy's bool array + 1
    assert duet.result_type(duet.bool, 1.5) == duet.float64
    for t in [duet.int8, duet.uint16, duet.float32]:
        assert duet.result_type(t, True) == t
    check(b & True, np.array([True, False, True]) & True)
    check(b ^ True, np.array([False, True, False]))
    check(b + 1, np.array([True, False, True]) + 1)
    assert (b + 1).dtype == duet.int64
    check(duet.asarray(np.arange(3, dtype="int16"), device) * True, np.arange(3, dtype="int16"))
    if device.supports_double:
        check(b * 2.5, np.array([True, False, True]) * 2.5)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_creation_and_numpy_round_trip(device, shape):
    for h, d in pairs(device, shape):
        assert d.dtype == duet.bool and d.itemsize == 1
        check(d, h)
        back = np.asarray(d)
        assert back.dtype == np.bool_ and back.shape == h.shape
        np.testing.assert_array_equal(back, h)
    for dtype in (duet.bool, "bool", builtins.bool, np.bool_):
        check(duet.zeros(shape, dtype, device), np.zeros(shape, bool))
        check(duet.ones(shape, dtype, device), np.ones(shape, bool))
        assert duet.empty(shape, dtype, device).dtype == duet.bool
    check(duet.full(shape, 2.5, duet.bool, device), np.full(shape, 2.5, bool))  # the truth of the value
    check(duet.full(shape, 0.0, duet.bool, device), np.full(shape, 0.0, bool))
    check(duet.full(shape, float("nan"), duet.bool, device), np.full(shape, np.nan, bool))


def test_creation_from_python_bools(device):
    check(duet.asarray([True, False, True], device), np.array([True, False, True]))
    check(duet.asarray(True, device), np.array(True))
    check(duet.asarray([[False], [True]], device), np.array([[False], [True]]))
    a = duet.zeros((4,), duet.bool, device)
    a[1] = True
    a[2:] = np.array([True, False])
    check(a, np.array([False, True, True, False]))
    assert bool(duet.asarray(np.array([True]), device)) is True
    pinned = duet.pinned_empty((2, 3), duet.bool, device)  # a NumPy bool array in pinned memory
    assert pinned.dtype == np.bool_ and pinned.shape == (2, 3)
    with pytest.raises(duet.ArgumentError):
        duet.arange(3, dtype=duet.bool, device=device)


@pytest.mark.parametrize("name", NAMES + ["float16"])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (17,), (3, 5)], ids=str)
def test_astype_to_and_from_every_dtype(device, name, shape):
    usable(device, name)
    h = values(shape, name, bound=2)  # many zeros
    if np.dtype(name).kind == "f" and h.size:
        h.reshape(-1)[::3] = 0
        h.reshape(-1)[1::5] = np.nan
        h.reshape(-1)[2::7] = -0.0
    d = duet.asarray(h, device)
    check(d.astype(duet.bool), h.astype(bool))  # the truth: x != 0, NaN true, -0 false
    check(duet.astype(d[::-1] if d.ndim else d, "bool"), (h[::-1] if h.ndim else h).astype(bool))
    b = bools(shape)
    check(duet.asarray(b, device).astype(name), b.astype(name))  # 0 and 1


@pytest.mark.parametrize("name", ["int8", "uint8", "int32", "float32", "float64"])
def test_comparisons_and_predicates_give_bool(device, name):
    usable(device, name)
    h1, h2 = values((5, 7), name, bound=3), values((7,), name, bound=3)
    d1, d2 = duet.asarray(h1, device), duet.asarray(h2, device)
    for op in ["__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"]:
        check(getattr(d1, op)(d2), getattr(h1, op)(h2))
    for f in ["less", "greater_equal", "equal", "not_equal", "logical_and", "logical_or", "logical_xor"]:
        check(getattr(duet, f)(d1[::-1], d2), getattr(np, f)(h1[::-1], h2))
    for f in ["isnan", "isinf", "isfinite", "signbit", "logical_not"]:
        check(getattr(duet, f)(d1), getattr(np, f)(h1))


@pytest.mark.parametrize("shape", [(), (1,), (13,), (4, 9), (0, 3)], ids=str)
def test_logical_and_bitwise_operations_on_bools(device, shape):
    for (h1, d1), (h2, d2) in zip(pairs(device, shape), pairs(device, shape)):
        for op in ["__and__", "__or__", "__xor__", "__eq__", "__ne__", "__lt__", "__ge__", "__add__", "__mul__"]:
            check(getattr(d1, op)(d2), getattr(h1, op)(h2))  # + is or, * is and, as NumPy's
        for f in ["bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor",
                  "maximum", "minimum"]:
            check(getattr(duet, f)(d1, d2), getattr(np, f)(h1, h2))
        check(~d1, ~h1)
        check(duet.bitwise_invert(d1), np.invert(h1))
        check(duet.logical_not(d1), np.logical_not(h1))
        check((d1 + d2) == 1, (h1 + h2) == 1)  # True + True is True, not 2
        check(duet.abs(d1), np.abs(h1))
    d = duet.asarray(bools((3,)), device)
    with pytest.raises(duet.ArgumentError, match="bool"):
        d - d
    with pytest.raises(duet.ArgumentError, match="bool"):
        -d


@pytest.mark.parametrize("name", NAMES)
def test_arithmetic_with_other_dtypes_promotes(device, name):
    usable(device, name)
    hb, hx = bools((6, 1)), values((6, 5), name, bound=50)
    db, dx = duet.asarray(hb, device), duet.asarray(hx, device)
    for op in ["__add__", "__mul__", "__radd__"]:
        check(getattr(db, op)(dx), getattr(hb, op)(hx))
    check(duet.where(db, dx, 0), np.where(hb, hx, np.zeros((), name)))
    if np.dtype(name).kind in "iu":
        check(db & dx, hb & hx)


@pytest.mark.parametrize("shape", [(1,), (13,), (4, 9), (0, 3), (3, 1, 7)], ids=str)
def test_reductions(device, shape):
    for h, d in pairs(device, shape):
        check(duet.any(d), np.any(h))
        check(duet.all(d), np.all(h))
        check(duet.sum(d), np.sum(h))  # counts the trues, as int64
        assert duet.sum(d).dtype == duet.int64
        check(duet.prod(d), np.prod(h))
        check(duet.cumulative_sum(d.reshape((-1,))), np.cumsum(h.reshape(-1)))
        check(duet.count_nonzero(d), np.int64(np.count_nonzero(h)))
        for axis in range(len(shape)):
            check(duet.any(d, axis=axis), np.any(h, axis=axis))
            check(duet.all(d, axis=axis, keepdims=True), np.all(h, axis=axis, keepdims=True))
            check(duet.sum(d, axis=axis), np.sum(h, axis=axis))
            check(duet.count_nonzero(d, axis=axis), np.count_nonzero(h, axis=axis).astype(np.int64))
        if h.size:
            check(duet.max(d), np.max(h))
            check(duet.min(d), np.min(h))
            check(duet.argmax(d), np.int64(np.argmax(h)))  # the first True (0 where none is)
            check(duet.argmin(d), np.int64(np.argmin(h)))
            check(duet.argmax(d, axis=-1), np.argmax(h, axis=-1).astype(np.int64))
            if device.supports_double:
                check(duet.mean(d), np.mean(h), rtol=1e-12)
        nz = duet.nonzero(d)
        for got, want in zip(nz, np.nonzero(h)):
            check(got, want.astype(np.int64))


@pytest.mark.parametrize("shape", [(1,), (2,), (31,), (3, 17), (0,)], ids=str)
def test_sort_of_bools(device, shape):
    for h, d in pairs(device, shape):
        check(duet.sort(d), np.sort(h))
        check(duet.sort(d, descending=True), -np.sort(-h.astype(int)) != 0)
        check(duet.argsort(d), np.argsort(h, kind="stable").astype(np.int64))
        check(duet.unique_values(d), np.unique(h))


@pytest.mark.parametrize("shape", [(), (0,), (1,), (13,), (3, 7), (2, 3, 5)], ids=str)
def test_masks_read_and_written(device, shape):
    h = values(shape, "float32")
    for mask_h, mask_d in pairs(device, shape):
        x = duet.asarray(h, device)
        check(x[mask_d], h[mask_h])
        check(x[mask_h], h[mask_h])  # a NumPy bool array is a mask too
        check(x[x > 0], h[h > 0])
        x[mask_d] = -1.0
        want = h.copy()
        want[mask_h] = -1.0
        check(x, want)
    if len(shape) >= 2:
        rows = bools(shape[:1])
        x = duet.asarray(h, device)
        check(x[duet.asarray(rows, device), ..., 1:], h[rows, ..., 1:])
    # A bool array written through a mask.
    b = duet.zeros(shape, duet.bool, device)
    m = bools(shape)
    b[duet.asarray(m, device)] = True
    check(b, m)


def test_uint8_arrays_index_by_position(device):
    h = values((9, 4), "int32")
    x = duet.asarray(h, device)
    i = np.array([8, 0, 3, 3], np.uint8)
    check(x[duet.asarray(i, device)], h[i])
    x[duet.asarray(i[:2], device)] = 5
    h[i[:2]] = 5
    check(x, h)


def test_where_takes_a_bool_condition(device):
    hc, ha, hb = bools((4, 1)), values((4, 6), "int16"), values((6,), "int32")
    c, a, b = (duet.asarray(v, device) for v in (hc, ha, hb))
    check(duet.where(c, a, b), np.where(hc, ha, hb))
    check(duet.where(c[::-1], True, c), np.where(hc[::-1], True, hc))


def test_fuse_with_bools(device):
    hx = values((5, 7), "float32")
    x = duet.asarray(hx, device)

    @duet.fuse
    def between(x):
        inside = (x > -0.5) & (x < 0.5)
        return duet.where(inside, x, 0.0), inside

    got, inside = between(x)
    check(inside, (hx > -0.5) & (hx < 0.5))
    check(got, np.where((hx > -0.5) & (hx < 0.5), hx, np.float32(0)))


@pytest.mark.skipif(not duet.HAVE_DLPACK, reason="built without DLPack")
def test_dlpack_of_bool_arrays(device):
    import ctypes

    h = bools((3, 5))
    d = duet.asarray(h, device)
    capsule = d.__dlpack__()

    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                    ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16)]

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = DLTensor.from_address(get(capsule, b"dltensor"))
    assert (t.code, t.bits, t.lanes) == (6, 8, 1)  # DLPack's kDLBool, one byte
    del capsule

    class Producer:
        """A foreign producer of d's memory: duet imports the bool tensor without copying."""

        def __dlpack_device__(self):
            return d.__dlpack_device__()

        def __dlpack__(self, stream=None):
            return d.__dlpack__()

    back = duet.from_dlpack(Producer())
    assert back.dtype == duet.bool
    check(back, h)
    check(duet.from_dlpack(np.array([True, False])), np.array([True, False]))  # host memory: copied


def test_kernels_take_bool_arrays_as_uchar(device):
    """A kernel parameter holding bools is declared uchar (no backend takes bool in memory): a bool
    array passes as its bytes, 0 and 1, and a kernel may write bools the same way."""
    h = bools((37,))
    d = duet.asarray(h, device)
    k = duet.ElementwiseKernel(device, "uchar m, float x", "float y", "y = m ? x : -x", "signed_by_mask")
    x = duet.asarray(values((37,), "float32"), device)
    y = duet.empty((37,), "float32", device)
    k(d, x, y)
    check(y, np.where(h, x.get(), -x.get()))
    flip = duet.ElementwiseKernel(device, "uchar m", "uchar r", "r = !m", "flip_mask")
    out = duet.empty((37,), duet.bool, device)
    flip(d, out)
    check(out, ~h)
