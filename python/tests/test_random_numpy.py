"""duet.random the NumPy way: default_rng's Generator and the module-level calls with NumPy's
signatures, against the explicit Philox streams underneath and the host reference bit for bit (so
the same seed gives the same numbers on every device), and statistics of integers, permutation,
shuffle and choice."""

import numpy as np
import pytest

import duet
import duet.random as dr


def test_generator_streams_match_the_host(device):
    rng = dr.default_rng(42, device=device)
    u = rng.random(1001)
    assert u.dtype == np.float32 and u.shape == (1001,)
    assert u.get().tobytes() == dr.host_uniform(1001, "float32", 42, 0).tobytes()
    x = rng.uniform(-2.0, 3.0, (7, 11))
    assert x.get().tobytes() == dr.host_uniform((7, 11), "float32", 42, 1, -2.0, 3.0).tobytes()
    z = rng.normal(1.0, 0.5, size=13)
    assert z.get().tobytes() == dr.host_normal(13, "float32", 42, 2, 1.0, 0.5).tobytes()
    s = rng.standard_normal((3, 4))
    assert s.get().tobytes() == dr.host_normal((3, 4), "float32", 42, 3).tobytes()
    if device.supports_double:
        d = rng.random(5, dtype="float64")
        assert d.get().tobytes() == dr.host_uniform(5, "float64", 42, 4).tobytes()
    # The same seed repeats; a 0-d result for size=None.
    again = dr.default_rng(42, device=device)
    assert again.random(1001).get().tobytes() == u.get().tobytes()
    assert dr.default_rng(1, device=device).random().shape == ()


@pytest.mark.parametrize("dtype,low,high", [("int64", -5, 7), ("uint8", 0, 256), ("int32", -2 ** 31, 2 ** 31),
                                            ("uint64", 0, 2 ** 64), ("int16", 100, 101)])
def test_integers(device, dtype, low, high):
    rng = dr.default_rng(7, device=device)
    got = rng.integers(low, high, size=(9, 13), dtype=dtype)
    assert got.dtype == np.dtype(dtype) and got.shape == (9, 13)
    np.testing.assert_array_equal(got.get(), dr.host_integers((9, 13), low, high, dtype, 7, 0))
    g = got.get().astype(object)
    assert g.min() >= low and g.max() < high


def test_integers_statistics_and_endpoint(device):
    k = dr.default_rng(3, device=device).integers(0, 10, size=100000).get()
    counts = np.bincount(k, minlength=10)
    assert ((counts - 10000) ** 2 / 10000).sum() < 40  # chi-square, 9 degrees of freedom
    e = dr.default_rng(3, device=device).integers(1, 3, size=10000, endpoint=True).get()
    assert set(np.unique(e)) == {1, 2, 3}
    with pytest.raises(duet.ArgumentError, match="empty"):
        dr.default_rng(0, device=device).integers(5, 5)
    with pytest.raises(duet.ArgumentError, match="does not fit"):
        dr.default_rng(0, device=device).integers(0, 300, dtype="uint8")


def test_permutation_shuffle_choice(device):
    rng = dr.default_rng(11, device=device)
    for n in (0, 1, 97, 5000):
        p = rng.permutation(n).get()
        assert p.dtype == np.int64
        np.testing.assert_array_equal(np.sort(p), np.arange(n))
    x = np.arange(60, dtype=np.float32).reshape(20, 3)
    px = rng.permutation(duet.asarray(x, device)).get()
    np.testing.assert_array_equal(np.sort(px[:, 0]), x[:, 0])
    np.testing.assert_array_equal(px[:, 1], px[:, 0] + 1)  # rows move whole
    a = duet.asarray(np.arange(1000, dtype=np.int32), device)
    rng.shuffle(a)
    got = a.get()
    assert not np.array_equal(got, np.arange(1000))
    np.testing.assert_array_equal(np.sort(got), np.arange(1000))
    c = rng.choice(10, size=(50, 2)).get()
    assert c.shape == (50, 2) and c.min() >= 0 and c.max() < 10
    w = rng.choice(30, size=30, replace=False).get()
    np.testing.assert_array_equal(np.sort(w), np.arange(30))
    weighted = rng.choice(4, size=20000, p=[0.1, 0.0, 0.6, 0.3]).get()
    freq = np.bincount(weighted, minlength=4) / 20000
    assert freq[1] == 0 and abs(freq[2] - 0.6) < 0.02 and abs(freq[0] - 0.1) < 0.02
    items = duet.asarray(np.array([5.0, 6.0, 7.0], dtype=np.float32), device)
    assert set(rng.choice(items, size=100).get()) <= {5.0, 6.0, 7.0}
    wo = rng.choice(5, size=5, replace=False, p=[0.2, 0.2, 0.2, 0.2, 0.2]).get()
    np.testing.assert_array_equal(np.sort(wo), np.arange(5))
    with pytest.raises(duet.ArgumentError, match="without replacement"):
        rng.choice(3, size=4, replace=False)


def test_module_level_calls_with_numpys_signatures(device):
    dr.seed(5)
    a = dr.uniform(0, 1, 1000).get()
    dr.seed(5)
    np.testing.assert_array_equal(dr.uniform(size=1000).get(), a)
    assert a.min() >= 0 and a.max() < 1
    assert dr.normal(size=(2, 2)).shape == (2, 2)
    assert dr.normal(3.0, 2.0, 10).shape == (10,)
    assert dr.rand(3, 4).shape == (3, 4)
    assert dr.randn(5).shape == (5,)
    assert dr.random((2, 3)).shape == (2, 3)
    assert dr.standard_normal(4).shape == (4,)
    r = dr.randint(3, size=100).get()
    assert r.min() >= 0 and r.max() < 3
    assert dr.integers(0, 5, 10).shape == (10,)
    np.testing.assert_array_equal(np.sort(dr.permutation(10).get()), np.arange(10))
    assert dr.choice(5, 3).shape == (3,)
    # Arrays for the parameters broadcast as NumPy's.
    lo = duet.asarray(np.array([0.0, 10.0], dtype=np.float32), device)
    u = dr.default_rng(1, device=device).uniform(lo, lo + 1, size=(3, 2)).get()
    assert u.shape == (3, 2) and (u[:, 1] >= 10).all() and (u[:, 0] < 1).all()
