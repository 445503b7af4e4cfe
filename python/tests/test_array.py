"""duet.Array: shapes and dtypes, copies both ways, views and slices (sharing memory), assignment,
reshape, and what is refused. NumPy's semantics in depth (strided views, operators, functions):
test_ndarray.py."""

import numpy as np
import pytest

import duet

DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_roundtrip_every_dtype(device, dtype):
    host = (np.arange(24) % 100).astype(dtype).reshape(2, 3, 4)
    a = duet.asarray(host, device)
    assert a.shape == (2, 3, 4) and a.dtype == np.dtype(dtype) and a.ndim == 3
    assert a.size == 24 and a.nbytes == 24 * np.dtype(dtype).itemsize
    assert a.strides == host.strides
    got = a.get()
    assert got.dtype == host.dtype
    np.testing.assert_array_equal(got, host)
    np.testing.assert_array_equal(np.asarray(a), host)


def test_asarray_converts_and_shares(device):
    a = duet.asarray([[1, 2], [3, 4]], device=device, dtype="float32")
    assert a.dtype == np.float32 and a.shape == (2, 2)
    assert duet.asarray(a).native_handle == a.native_handle  # same device, same dtype: shared
    b = duet.asarray(a, dtype="float64")
    np.testing.assert_array_equal(b.get(), [[1, 2], [3, 4]])
    strided = np.arange(20, dtype=np.float32)[::2]  # not contiguous: copied contiguous first
    np.testing.assert_array_equal(duet.asarray(strided, device).get(), strided)


def test_slices_and_indices_are_views(device):
    host = np.arange(60, dtype=np.int32).reshape(5, 3, 4)
    a = duet.asarray(host, device)
    np.testing.assert_array_equal(a[1:3].get(), host[1:3])
    np.testing.assert_array_equal(a[-1].get(), host[-1])
    np.testing.assert_array_equal(a[2, 1].get(), host[2, 1])
    np.testing.assert_array_equal(a[2, 1:3].get(), host[2, 1:3])
    np.testing.assert_array_equal(a[2, 1, 3].get(), host[2, 1, 3])
    assert a[1:3].shape == (2, 3, 4) and a[4:2].shape == (0, 3, 4)
    assert len(a) == 5
    view = a[1]
    view.fill(-1)
    expected = host.copy()
    expected[1] = -1
    np.testing.assert_array_equal(a.get(), expected)
    with pytest.raises(IndexError):
        a[5]
    # Steps and indices after a slice give strided views (test_ndarray.py tests them in depth).
    np.testing.assert_array_equal(a[::2].get(), expected[::2])
    np.testing.assert_array_equal(a[1:3, 1].get(), expected[1:3, 1])


def test_setitem_reshape_copy_fill(device):
    a = duet.zeros((4, 3), "float32", device)
    a[1] = np.array([1, 2, 3])
    a[2:4] = 7.0
    a[0:2] = np.array([5, 6, 7])  # broadcast to both rows
    assert a.get()[0].tolist() == [5, 6, 7]
    a[0] = 0
    b = a.copy()
    a[0] = b[1]
    np.testing.assert_array_equal(b.get(), [[0, 0, 0], [5, 6, 7], [7, 7, 7], [7, 7, 7]])
    np.testing.assert_array_equal(a.get()[0], [5, 6, 7])
    with pytest.raises(duet.BufferSizeError, match="shape"):
        a.set(np.zeros(5))
    r = a.reshape(-1)
    assert r.shape == (12,) and r.native_handle == a.native_handle
    assert a.reshape(2, 6).shape == (2, 6)
    with pytest.raises(duet.ArgumentError):
        a.reshape(5)
    assert duet.full(3, 2.5, "float64", device).get().tolist() == [2.5] * 3
    assert duet.ones(2, "int32", device).get().tolist() == [1, 1]
    assert duet.empty(0, device=device).get().shape == (0,)
    with pytest.raises(OverflowError):
        duet.full(2, 300, "uint8", device)  # NumPy's conversion refuses, as numpy.array(300, uint8) does


def test_unsupported_dtype_and_repr(device):
    with pytest.raises(duet.ArgumentError, match="complex256|clongdouble"):
        duet.empty(3, "clongdouble", device)
    assert "shape=(3,)" in repr(duet.empty(3, device=device))


def test_async_copies_with_pinned_memory(device, queue):
    host = duet.pinned_empty((256,), "float32", device)
    host[:] = np.arange(256)
    a = duet.empty(256, device=device)
    queue.write(a, host)
    back = duet.pinned_empty(256, "float32", device)
    event = queue.read(a, back)
    event.wait()
    np.testing.assert_array_equal(back, host)
    b = duet.empty(256, device=device)
    queue.copy(a, b)
    np.testing.assert_array_equal(b.get(queue=queue), host)
