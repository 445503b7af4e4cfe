"""duet.Array with NumPy's semantics, against NumPy on random inputs: strided views (steps, negative
steps, None, ..., transposes, reshapes), assignment into views, operators and their dtypes (NumPy 2's
promotion, Python numbers weak), in-place operators and the same_kind rule, the array API functions,
reductions, matmul, creation, and the errors. Awkward shapes throughout: 0-size, 1, primes."""

import numpy as np
import pytest

import duet

RNG = np.random.default_rng(20261123)


def host_array(shape, dtype):
    """Random values of `dtype` that every operation here can take (positive, so log and sqrt work)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return RNG.uniform(0.5, 4.0, shape).astype(dtype)
    if dtype.kind == "u":
        return RNG.integers(1, 50, shape).astype(dtype)
    return RNG.integers(-50, 50, shape).astype(dtype)


def both(shape, dtype, device):
    h = host_array(shape, dtype)
    return h, duet.asarray(h, device)


def check(got, want, rtol=1e-6):
    """`got` (a duet.Array) has want's shape and dtype and (nearly) its values."""
    want = np.asarray(want)
    assert isinstance(got, duet.Array), type(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got.get(), want)


def bools(got, want):
    """Comparisons and all/any give bool, as NumPy's."""
    assert got.dtype == np.bool_ and got.shape == np.shape(want)
    np.testing.assert_array_equal(got.get(), np.asarray(want))


KEYS = [
    1, -1, slice(None), slice(None, None, -1), slice(None, None, -2), slice(1, None, 3), slice(5, 1, -2),
    slice(2, 2), (1, 2), (slice(100, 200), slice(50, 90)), (slice(None), 1), (Ellipsis, None),
    (None, 1), (Ellipsis, -1), (1, Ellipsis, slice(None, None, -1)), (slice(None, None, -3), None, 2),
    (slice(1, 6, 2), slice(None, None, -1), 0), (),
]


@pytest.mark.parametrize("shape", [(7, 13, 3), (13, 11, 5), (1, 7, 2), (11, 1, 1)])
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_views_match_numpy(device, shape, key):
    h, a = both(shape, "int32", device)
    try:
        want = h[key]
    except IndexError:
        with pytest.raises(IndexError):
            a[key]
        return
    v = a[key]
    assert v.shape == want.shape
    np.testing.assert_array_equal(v.get(), want)
    np.testing.assert_array_equal(np.asarray(v), want)
    if want.size and all(e > 1 for e in want.shape):
        assert v.strides == want.strides
    # A view of a view, and a copy of a view (contiguous again).
    if want.ndim:
        np.testing.assert_array_equal(v[::-1].get(), want[::-1])
    c = v.copy()
    assert c.is_contiguous and c.shape == want.shape
    np.testing.assert_array_equal(c.get(), want)


def test_views_share_memory(device):
    h, a = both((6, 8), "float32", device)
    col = a[:, 3]
    col.fill(-1.0)
    h[:, 3] = -1.0
    np.testing.assert_array_equal(a.get(), h)
    rev = a[::-1, ::2]
    rev[...] = 7.0
    h[::-1, ::2] = 7.0
    np.testing.assert_array_equal(a.get(), h)
    a[1::2, ::-3] = np.arange(3, dtype=np.float32)  # broadcast into a strided view
    h[1::2, ::-3] = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(a.get(), h)
    a[0] = a[5, ::-1]  # an array into a view, overlapping memory
    h[0] = h[5, ::-1].copy()
    np.testing.assert_array_equal(a.get(), h)
    a[2:4] = 3  # a Python int into a float array
    h[2:4] = 3
    np.testing.assert_array_equal(a.get(), h)
    out = np.empty((3, 4), np.float32)
    a[::2, 1::2].get(out=out)
    np.testing.assert_array_equal(out, h[::2, 1::2])


@pytest.mark.parametrize("shape", [(5, 7), (2, 3, 4), (1, 13), (0, 3)])
def test_transpose_reshape_squeeze(device, shape):
    h, a = both(shape, "float32", device)
    check(a.T, h.T)
    check(a.transpose(), h.transpose())
    axes = tuple(reversed(range(len(shape))))
    check(a.transpose(axes), h.transpose(axes))
    check(a.transpose(*axes), h.transpose(axes))
    check(a.mT, np.swapaxes(h, -1, -2))
    check(a.expand_dims(0), np.expand_dims(h, 0))
    check(a.expand_dims(-1), np.expand_dims(h, -1))
    check(a[None].squeeze(0), h)
    check(a.reshape(-1), h.reshape(-1))
    check(a.T.reshape(-1), h.T.reshape(-1))  # needs a copy
    check(a.T.reshape((-1,), queue=device.default_queue), h.T.reshape(-1))
    check(a.T.reshape(h.size), h.T.reshape(h.size))
    check(a.T[::-1].reshape((-1, 1)), h.T[::-1].reshape((-1, 1)))
    assert a.reshape(-1).native_handle == a.native_handle  # contiguous: a view


def test_squeeze_all(device):
    h, a = both((1, 5, 1, 3, 1), "int16", device)
    check(a.squeeze(), h.squeeze())
    check(a.squeeze(-1), h.squeeze(-1))
    with pytest.raises(duet.ArgumentError):
        a.squeeze(1)


# NumPy 2's promotion for the dtypes duet has (float16 included, computed in float32 here).
DTYPE_PAIRS = [("int8", "uint8"), ("int32", "float32"), ("uint8", "int64"), ("int16", "float16"),
               ("float16", "float32"), ("float32", "float64"), ("uint32", "int32"), ("uint16", "uint64"),
               ("int64", "float64"), ("uint8", "uint8")]


@pytest.mark.parametrize("t1,t2", DTYPE_PAIRS)
def test_binary_operators_promote_as_numpy(device, t1, t2):
    h1, a1 = both((3, 1, 5), t1, device)
    h2, a2 = both((4, 1), t2, device)
    tol = 2e-3 if "float16" in (t1, t2) else 1e-6
    check(a1 + a2, h1 + h2, tol)
    check(a1 - a2, h1 - h2, tol)
    check(a2 - a1, h2 - h1, tol)
    check(a1 * a2, h1 * h2, tol)
    check(a1 / a2, h1 / h2, tol)
    bools(a1 < a2, h1 < h2)
    bools(a1 <= a2, h1 <= h2)
    bools(a1 > a2, h1 > h2)
    bools(a1 >= a2, h1 >= h2)
    bools(a1 == a2, h1 == h2)
    bools(a1 != a2, h1 != h2)
    check(duet.maximum(a1, a2), np.maximum(h1, h2), tol)
    check(duet.minimum(a1, a2), np.minimum(h1, h2), tol)
    check(duet.where(a1 > a2, a1, a2), np.where(h1 > h2, h1, h2), tol)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64", "float16", "float32", "float64"])
def test_python_scalars_are_weak(device, dtype):
    h, a = both((6,), dtype, device)
    tol = 2e-3 if dtype == "float16" else 1e-6
    check(a + 2, h + 2, tol)
    check(3 * a, 3 * h, tol)
    check(a - 1, h - 1, tol)
    check(100 - a, 100 - h, tol) if np.dtype(dtype).kind != "u" else None
    check(a * 2.5, h * 2.5, tol)
    check(1.5 + a, 1.5 + h, tol)
    check(a / 4, h / 4, tol)
    with np.errstate(divide="ignore"):  # a random zero divides to inf, in both
        check(8 / a, 8 / h, tol)
    check(-a, -h, tol) if np.dtype(dtype).kind != "u" else None
    check(abs(a), abs(h), tol)
    bools(a > 3, h > 3)
    bools(2.5 <= a, 2.5 <= h)
    check(a + True, h + True, tol)


def test_zero_dimensional_and_empty(device):
    s = duet.asarray(np.float32(3.0), device)
    assert s.shape == () and s.ndim == 0 and s.size == 1
    check(s * 2, np.float32(3.0) * 2)
    check(s + duet.ones(3, device=device), np.float32(3.0) + np.ones(3, np.float32))
    check(duet.ones((), device=device) + np.float32(1), np.ones((), np.float32) + np.float32(1))
    assert float(s) == 3.0
    e = duet.zeros((0, 3), device=device)
    check(e + 1, np.zeros((0, 3), np.float32) + 1)
    check(duet.sqrt(e[::-1]), np.zeros((0, 3), np.float32))
    check(duet.sum(e), np.float32(0))
    t = e.T
    t += 1
    assert t.shape == (3, 0)


def test_numpy_and_list_operands(device):
    h, a = both((4, 3), "float32", device)
    row = np.arange(3, dtype=np.float32)
    check(a + row, h + row)
    check(row + a, row + h)  # NumPy defers to duet (__array_ufunc__ = None)
    check(a * [1.0, 2.0, 3.0], h * np.array([1.0, 2.0, 3.0]))
    check(a + np.float64(2), h + np.float64(2))  # NumPy's scalars are strong: float64
    check(a * np.int8(3), h * np.int8(3))
    with pytest.raises(TypeError):
        a + "text"


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_power_and_unary_functions(device, dtype):
    h, a = both((3, 7), dtype, device)
    tol = 2e-3 if dtype == "float16" else 1e-5
    check(a ** 2, h ** 2, tol)
    check(2.0 ** a, 2.0 ** h, tol)
    check(a ** a, h ** h, tol)
    check(duet.pow(a, 0.5), np.power(h, 0.5), tol)
    check(duet.power(a, 3), np.power(h, 3), tol)
    for name in ["sqrt", "exp", "log", "sin", "cos", "tanh", "floor", "ceil", "abs", "negative"]:
        check(getattr(duet, name)(a), getattr(np, name)(h), tol)
        check(getattr(duet, name)(a[::-1, ::3]), getattr(np, name)(h[::-1, ::3]), tol)
    check(duet.clip(a, 1.0, 3.0), np.clip(h, 1.0, 3.0), tol)
    check(duet.clip(a, max=2.0), np.clip(h, None, 2.0), tol)
    check(duet.clip(a, min=2.0), np.clip(h, 2.0, None), tol)
    check(duet.positive(a), h)
    check(+a, h)


def test_integer_functions(device):
    h, a = both((5, 4), "int32", device)
    check(abs(a), np.abs(h))
    check(duet.sqrt(abs(a)), np.sqrt(np.abs(h)))  # float64, as NumPy
    check(duet.floor(a), np.floor(h))
    check(duet.clip(a, -10, 10), np.clip(h, -10, 10))
    check(duet.maximum(a, 0), np.maximum(h, 0))


def test_fused_expression_on_views(device):
    hx, x = both((9, 11), "float32", device)
    hy, y = both((11, 9), "float32", device)
    got = 2.0 * x[::-1] + y.T[::-1] - duet.sqrt(x * x[:, ::-1])
    want = 2.0 * hx[::-1] + hy.T[::-1] - np.sqrt(hx * hx[:, ::-1])
    check(got, want, 1e-5)


def test_inplace_operators(device):
    h, a = both((4, 5), "float32", device)
    native = a.native_handle
    a += 1
    h += 1
    a *= a[::-1]  # overlapping: read as if copied first
    h *= h[::-1].copy()
    a -= np.arange(5, dtype=np.float32)  # broadcast
    h -= np.arange(5, dtype=np.float32)
    a /= 2
    h /= 2
    a **= 1.0
    view = a[1:3, ::2]
    view += 10
    h[1:3, ::2] += 10
    assert a.native_handle == native
    check(a, h, 1e-5)
    hi, i = both((6,), "int32", device)
    i += 3
    i *= 2
    i -= i[::-1]
    hi = (hi + 3) * 2
    hi = hi - hi[::-1]
    check(i, hi)
    with pytest.raises(duet.ArgumentError, match="same_kind"):
        i += 1.5  # float64 into int32: numpy's UFuncTypeError (a TypeError)
    with pytest.raises(TypeError):
        i /= 2
    with pytest.raises(duet.ArgumentError, match="shape"):
        a += duet.zeros((2, 4, 5), device=device)  # would broadcast a larger


def test_broadcast_errors(device):
    a = duet.zeros((3,), device=device)
    b = duet.zeros((4,), device=device)
    with pytest.raises(duet.ArgumentError, match=r"\(3,\).*\(4,\)|\(4,\).*\(3,\)"):
        a + b
    with pytest.raises(duet.ArgumentError):
        duet.where(a, b, 1.0)
    with pytest.raises(IndexError):
        a[3]
    with pytest.raises(IndexError):
        a[0, 0]
    with pytest.raises(IndexError):
        a[..., ...]
    with pytest.raises(duet.ArgumentError, match="not float"):
        a[1.5]
    with pytest.raises(IndexError, match="integers or booleans"):
        a[[0.5, 1.0]]
    with pytest.raises(duet.ArgumentError, match="zero"):
        a[::0]
    with pytest.raises(duet.ArgumentError, match="complex256|clongdouble"):
        duet.asarray(np.zeros(2, np.clongdouble), device)


REDUCTIONS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax"]


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32", "float64"])
@pytest.mark.parametrize("shape", [(7,), (5, 13), (3, 1, 4), (2, 0)])
def test_reductions_match_numpy(device, dtype, shape):
    h, a = both(shape, dtype, device)
    if dtype.startswith(("int", "uint")):
        h = (h % 3).astype(dtype)  # small, so products stay in range
        a = duet.asarray(h, device)
    for name in REDUCTIONS:
        for axis in [None] + list(range(-len(shape), len(shape))):
            for keepdims in (False, True):
                if name.startswith("arg") and keepdims and axis is None:
                    continue
                reduced = h.shape[axis] if axis is not None else h.size
                if name in ("min", "max", "argmin", "argmax") and reduced == 0:
                    with pytest.raises(duet.ArgumentError):
                        getattr(duet, name)(a, axis=axis, keepdims=keepdims)
                    continue
                if name == "mean" and reduced == 0:
                    continue  # NumPy warns and gives NaN
                want = getattr(np, name)(h, axis=axis, keepdims=keepdims)
                if name.startswith("arg"):
                    want = np.asarray(want, dtype=np.int64)
                check(getattr(duet, name)(a, axis=axis, keepdims=keepdims), want, 1e-5)
                check(getattr(a[::-1], name)(axis=axis, keepdims=keepdims),
                      getattr(np, name)(h[::-1], axis=axis, keepdims=keepdims).astype(np.asarray(want).dtype),
                      1e-5)
    bools(duet.all(a), np.all(h))
    bools(duet.any(a, axis=-1), np.any(h, axis=-1))
    bools(a.all(axis=(0,), keepdims=True), np.all(h, axis=(0,), keepdims=True))
    if len(shape) > 1:  # several axes at once, as numpy (test_array_ops.py has more)
        check(duet.sum(a, axis=(0, 1)), np.sum(h, axis=(0, 1)), 1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 13, 5), (16, 3, 11), (0, 4, 3)])
def test_matmul_operator(device, dtype, m, k, n):
    ha, a = both((m, k), dtype, device)
    hb, b = both((k, n), dtype, device)
    check(a @ b, ha @ hb, 1e-4)
    check(b.T @ a.T, hb.T @ ha.T, 1e-4)  # transposed views go to gemm as they are
    check(a[::-1] @ b, ha[::-1] @ hb, 1e-4)  # other views are copied first
    hv, v = both((k,), dtype, device)
    check(a @ v, ha @ hv, 1e-4)
    check(v @ v, hv @ hv, 1e-4)
    with pytest.raises(duet.ArgumentError):
        a @ duet.zeros((k + 1, 2), dtype, device)


@pytest.mark.parametrize("s1,s2,axes", [((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 7), 1), ((2, 3), (5,), 0),
                                         ((5, 3, 2), (2, 5), ([0, 2], [1, 0])), ((7,), (7,), ([0], [0]))])
def test_tensordot_vecdot(device, s1, s2, axes):
    h1, a1 = both(s1, "float32", device)
    h2, a2 = both(s2, "float64", device)
    check(duet.tensordot(a1, a2, axes=axes), np.tensordot(h1, h2, axes=axes), 1e-5)
    if s1[-1] == s2[-1]:
        check(duet.vecdot(a1, a2), np.sum(h1 * h2, axis=-1), 1e-5)
    with pytest.raises(duet.ArgumentError, match="tensordot"):
        duet.tensordot(a1, a2, axes=([0], [0])) if s1[0] != s2[0] else duet.tensordot(a1, a2, axes=7)


def test_creation_and_astype(device):
    check(duet.arange(7, device=device), np.arange(7))
    check(duet.arange(2, 11, 3, device=device), np.arange(2, 11, 3))
    check(duet.arange(5, 0, -1, device=device, dtype="int32"), np.arange(5, 0, -1, dtype=np.int32))
    check(duet.arange(0.0, 1.0, 0.25, device=device), np.arange(0, 1, 0.25, dtype=np.float32))
    check(duet.linspace(0, 1, 11, device=device), np.linspace(0, 1, 11, dtype=np.float32))
    check(duet.linspace(-1, 1, 4, endpoint=False, dtype="float64", device=device),
          np.linspace(-1, 1, 4, endpoint=False))
    check(duet.zeros((2, 0), device=device), np.zeros((2, 0), np.float32))
    h, a = both((3, 5), "float32", device)
    h = h * 10 - 20
    a = duet.asarray(h, device)
    for t in ["int32", "int64", "float64", "float16", "int8"]:
        check(a.astype(t), h.astype(t), 2e-3)
        check(duet.astype(a[:, ::-2], t), h[:, ::-2].astype(t), 2e-3)
    assert a.astype("float32", copy=False) is not None
    check(duet.asarray(a[::2], dtype="float64"), h[::2].astype(np.float64))


def test_python_protocols(device):
    h, a = both((3, 4), "int64", device)
    assert a.__array_namespace__() is duet
    assert len(a) == 3 and len(a.T) == 4
    rows = list(a)
    assert len(rows) == 3
    np.testing.assert_array_equal(rows[2].get(), h[2])
    with pytest.raises(TypeError):
        iter(a[0, 0])
        list(a[0, 0])
    assert int(a[1, 2]) == h[1, 2]
    assert float(a[1, 2]) == float(h[1, 2])
    assert bool(a[0, 0] == h[0, 0])
    with pytest.raises(duet.ArgumentError):
        bool(a)
    assert "strided" in repr(a.T) and "shape=(4, 3)" in repr(a.T)
    assert a.ndim == 2 and a.size == 12 and a.device == device and a.dtype == np.int64
    assert a.T.strides == h.T.strides and not a.T.is_contiguous
    assert a.to_device(device).native_handle == a.native_handle


def test_explicit_queue(device, queue):
    h, a = both((8,), "float32", device)
    got = duet.add(a, 1.0, queue=queue)
    r = duet.sum(got, queue=queue)
    m = duet.astype(a, "float64", queue=queue)
    queue.finish()
    check(got, h + 1)
    check(r, np.sum(h + 1), 1e-5)
    check(m, h.astype(np.float64))
    check(duet.arange(3, device=device, queue=queue), np.arange(3))
    with pytest.raises(duet.ArgumentError, match="no operand"):
        duet.sqrt(2.0)
    with pytest.raises(duet.ArgumentError, match="no array"):
        duet.add(1, 2, queue=queue)


KERNEL = """
KERNEL void twice(GLOBAL float* x, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) x[i] *= 2.0f;
}"""


def test_strided_views_refused_by_kernels(device):
    prg = device.compile(KERNEL)
    h, a = both((4, 32), "float32", device)
    row = a[1]  # contiguous (and 128 bytes in, where OpenCL takes a view): a kernel takes it
    prg.twice(32, None, row, 32)
    h[1] *= 2
    np.testing.assert_array_equal(a.get(), h)
    with pytest.raises(duet.ArgumentError, match="strided view"):
        prg.twice(4, None, a[:, 1], 4)
    with pytest.raises(duet.ArgumentError, match="strided view"):
        duet.vector_add(a.T, a.T, a.T)
    with pytest.raises(duet.ArgumentError, match="strided view"):
        duet.gemm(a.T, a)
    k = duet.ElementwiseKernel(device, "float x", "float y", "y = x + 1", "inc")
    with pytest.raises(duet.ArgumentError, match="strided view"):
        k(a[::2])
    np.testing.assert_array_equal(a.get(), h)  # nothing was written
    prg.twice(64, None, a[::2].copy(), 64)  # a copy is contiguous


def dltensor_layout(capsule):
    """(shape, strides, byte_offset) of the DLTensor in a 'dltensor' capsule, read through ctypes."""
    import ctypes

    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                    ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                    ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = DLTensor.from_address(get(capsule, b"dltensor"))  # the DLManagedTensor starts with its DLTensor
    return (tuple(t.shape[k] for k in range(t.ndim)), tuple(t.strides[k] for k in range(t.ndim)),
            t.byte_offset)


@pytest.mark.skipif(not duet.HAVE_DLPACK, reason="built without DLPack")
def test_dlpack_of_views(device):
    h, a = both((4, 6), "float32", device)
    assert a.T.__dlpack_device__() == a.__dlpack_device__()
    shape, strides, offset = dltensor_layout(a.__dlpack__())
    assert shape == (4, 6) and strides == (6, 1)
    v = a[1::2, ::-1]  # rows 1 and 3, reversed: element (0, 0) is a[1, 5]
    shape, strides, view_offset = dltensor_layout(v.__dlpack__())
    assert shape == (2, 6) and strides == (12, -1)
    assert view_offset - offset == (1 * 6 + 5) * 4 or device.info.backend != "opencl"
    shape, strides, _ = dltensor_layout(v.__dlpack__(copy=True))  # a copy is contiguous
    assert shape == (2, 6) and strides == (6, 1)
    np.testing.assert_array_equal(duet.from_dlpack(a.T).get(), h.T)


def test_fuse(device, queue):
    hx, x = both((6, 7), "float32", device)
    hy, y = both((7,), "float32", device)

    @duet.fuse
    def leaky_axpy(a, x, y):
        z = a * x + y
        assert isinstance(z, duet.Expression) and z.shape == x.shape and z.dtype == np.float32
        return duet.where(z > 2, z, 0.1 * z)

    check(leaky_axpy(2.0, x, y), np.where(2 * hx + hy > 2, 2 * hx + hy, np.float32(0.1) * (2 * hx + hy)), 1e-5)
    got = leaky_axpy(-1.5, x[::-1, ::2], y[::2], queue=queue)
    queue.finish()
    z = -1.5 * hx[::-1, ::2] + hy[::2]
    check(got, np.where(z > 2, z, np.float32(0.1) * z), 1e-5)

    @duet.fuse
    def several(x, n):
        d = x[:, 1:] - x[:, :-1]  # the arrays of a fused function can be indexed
        return d.astype("float64") * n, [duet.sqrt(abs(-x)), duet.maximum(x, 2)], 3

    d, (s, m), three = several(x, 2)
    check(d, (hx[:, 1:] - hx[:, :-1]).astype(np.float64) * 2)
    check(s, np.sqrt(hx), 1e-6)
    check(m, np.maximum(hx, 2))
    assert three == 3
    check(duet.sum(several(x, 1)[0], axis=1), np.sum((hx[:, 1:] - hx[:, :-1]).astype(np.float64), axis=1), 1e-5)

    # The arrays are read when the fused function returns: later writes do not change its result.
    h1 = hx.copy()
    r = duet.fuse(lambda v: v * 2)(x)
    x += 1
    check(r, h1 * 2)

    @duet.fuse
    def bad_index(x):
        return (x + 1)[0]

    with pytest.raises(duet.ArgumentError, match="indexed"):
        bad_index(x)

    @duet.fuse
    def bad_branch(x):
        return x if x > 0 else -x

    with pytest.raises(duet.ArgumentError, match="where"):
        bad_branch(x)
    with pytest.raises(duet.ArgumentError):
        duet.fuse(lambda a, b: a + b)(x, duet.zeros(5, device=device))  # shapes that do not broadcast
