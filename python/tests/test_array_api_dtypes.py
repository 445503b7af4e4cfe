"""The array API's facts about duet's dtypes: the dtype objects, result_type against what duet's
arithmetic gives and against NumPy (every pair, with Python numbers), can_cast, finfo and iinfo
against NumPy's, isdtype's kinds, the constants, __array_namespace_info__ and
__array_namespace__'s versions, and the errors for what duet has not got (complex)."""

import itertools
import math

import numpy as np
import pytest

import duet

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
DTYPES = [getattr(duet, n) for n in NAMES]


def test_dtype_objects_are_the_arrays_dtypes(device):
    for name, t in zip(NAMES, DTYPES):
        assert t == np.dtype(name)
        a = duet.zeros((2,), t, device)
        assert a.dtype == t
    assert duet.bool == np.dtype(bool) and duet.bool is not bool
    assert duet.complex64 == np.dtype("complex64") and duet.complex128 == np.dtype("complex128")


@pytest.mark.parametrize("a, b", list(itertools.combinations_with_replacement(NAMES, 2)))
def test_result_type_is_numpys_and_what_add_gives(device, a, b):
    t = duet.result_type(getattr(duet, a), getattr(duet, b))
    assert t == np.result_type(a, b)
    assert duet.result_type(getattr(duet, b), getattr(duet, a)) == t
    if t == duet.float64 and not device.supports_double:
        return
    x, y = duet.ones((3,), a, device), duet.ones((1,), b, device)
    assert duet.result_type(x, y) == t
    assert (x + y).dtype == t


def test_result_type_of_many_and_of_python_numbers(device):
    assert duet.result_type(duet.int8, duet.uint8, duet.int16) == duet.int16
    assert duet.result_type(duet.uint8, duet.uint16, duet.uint32, duet.int8) == duet.int64
    assert duet.result_type(duet.float32) == duet.float32
    for t in DTYPES:
        # An int is weak, but makes bool int64 (as NumPy's bool array + 1); a bool keeps every dtype.
        assert duet.result_type(t, 1) == (duet.int64 if t == duet.bool else t)
        assert duet.result_type(1, t, True) == (duet.int64 if t == duet.bool else t)
        assert duet.result_type(t, True) == t
        assert duet.result_type(t, 1.5) == (t if t.kind == "f" else duet.float64)
        x = duet.zeros((2,), t, device)
        assert duet.result_type(x, 2) == (x + 2).dtype
        if t.kind == "f" or device.supports_double:
            assert duet.result_type(x, 2.5) == (x + 2.5).dtype
    assert duet.result_type("int32", np.dtype("uint8")) == duet.int32


def test_result_type_errors():
    with pytest.raises(duet.ArgumentError, match="at least one array or dtype"):
        duet.result_type(1, 2.0)
    with pytest.raises(duet.ArgumentError, match="no dtype complex256|no dtype clongdouble"):
        duet.result_type(np.clongdouble)
    with pytest.raises(duet.ArgumentError, match="not a dtype"):
        duet.result_type(None)
    with pytest.raises(duet.ArgumentError):
        duet.result_type()


@pytest.mark.parametrize("a, b", list(itertools.product(NAMES, NAMES)))
def test_can_cast_is_numpys_safe_casting(a, b):
    assert duet.can_cast(getattr(duet, a), getattr(duet, b)) == np.can_cast(a, b), (a, b)


def test_can_cast_takes_an_array(device):
    x = duet.zeros((2,), duet.int16, device)
    assert duet.can_cast(x, duet.int32)
    assert not duet.can_cast(x, duet.uint16)
    with pytest.raises(duet.ArgumentError, match="`to` is a dtype"):
        duet.can_cast(duet.int8, x)


@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
def test_finfo_is_numpys(device, name):
    f, want = duet.finfo(np.dtype(name)), np.finfo(name)
    assert f.bits == want.bits
    assert f.eps == float(want.eps)
    assert f.max == float(want.max)
    assert f.min == float(want.min)
    assert f.smallest_normal == float(want.smallest_normal)
    assert f.dtype == np.dtype(name)
    for v in (f.eps, f.max, f.min, f.smallest_normal):
        assert type(v) is float
    if name != "float64" or device.supports_double:
        assert duet.finfo(duet.zeros((1,), name, device)).bits == want.bits


@pytest.mark.parametrize("name", [n for n in NAMES if n[0] in "iu"])
def test_iinfo_is_numpys(device, name):
    i, want = duet.iinfo(getattr(duet, name)), np.iinfo(name)
    assert (i.bits, i.min, i.max, i.dtype) == (want.bits, want.min, want.max, np.dtype(name))
    assert type(i.min) is int and type(i.max) is int
    assert duet.iinfo(duet.zeros((3,), name, device)).max == want.max


def test_finfo_and_iinfo_refuse_the_other_kind():
    with pytest.raises(duet.ArgumentError, match="use iinfo"):
        duet.finfo(duet.int32)
    with pytest.raises(duet.ArgumentError, match="use finfo"):
        duet.iinfo(duet.float32)
    for f in (duet.finfo, duet.iinfo):
        with pytest.raises(duet.ArgumentError, match="not bool"):
            f(duet.bool)
    with pytest.raises(duet.ArgumentError, match="not a dtype"):
        duet.iinfo(3)


def test_isdtype_kinds():
    kinds = {
        "signed integer": {"int8", "int16", "int32", "int64"},
        "unsigned integer": {"uint8", "uint16", "uint32", "uint64"},
        "integral": {n for n in NAMES if n[0] in "iu"},
        "real floating": {"float32", "float64"},
        "numeric": set(NAMES) - {"bool"},
        "bool": {"bool"},
        "complex floating": set(),  # NAMES holds the real dtypes; test_complex.py the complex ones
    }
    for kind, members in kinds.items():
        for name in NAMES:
            assert duet.isdtype(getattr(duet, name), kind) == (name in members), (name, kind)
    assert duet.isdtype(duet.int8, ("real floating", "signed integer"))
    assert not duet.isdtype(duet.uint8, ("real floating", duet.int8))
    assert duet.isdtype(duet.uint8, (duet.int8, duet.uint8))
    assert duet.isdtype(duet.float32, duet.float32)
    assert not duet.isdtype(duet.float32, duet.float64)


def test_isdtype_errors(device):
    with pytest.raises(duet.ArgumentError, match="no kind 'integer'"):
        duet.isdtype(duet.int8, "integer")
    with pytest.raises(duet.ArgumentError, match="not an array"):
        duet.isdtype(duet.zeros((1,), "int8", device), "integral")
    with pytest.raises(duet.ArgumentError, match="other tuples"):
        duet.isdtype(duet.int8, (("integral",),))


def test_constants():
    assert duet.e == math.e and duet.pi == math.pi
    assert duet.inf == math.inf and math.isnan(duet.nan)
    assert duet.newaxis is None
    assert all(type(v) is float for v in (duet.e, duet.pi, duet.inf, duet.nan))


def test_namespace_info(device):
    info = duet.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert "max dimensions" in caps
    assert info.default_device() == duet.default_device()
    assert duet.default_device() in info.devices()
    assert all(isinstance(d, duet.Device) for d in info.devices())
    defaults = info.default_dtypes()
    assert defaults["real floating"] == duet.float32 == duet.zeros((1,), device=device).dtype
    assert defaults["integral"] == duet.int64 == duet.arange(3, device=device).dtype
    assert defaults["indexing"] == duet.int64
    every = info.dtypes(device=device)
    assert list(every) == [n for n in NAMES + ["complex64", "complex128"]
                           if n not in ("float64", "complex128") or device.supports_double]
    assert all(every[n] == np.dtype(n) for n in every)
    assert set(info.dtypes(device=device, kind="signed integer")) == {"int8", "int16", "int32", "int64"}
    assert set(info.dtypes(device=device, kind=("unsigned integer", "real floating"))) == (
        {"uint8", "uint16", "uint32", "uint64", "float32"} | ({"float64"} if device.supports_double else set()))
    assert info.dtypes(device=device, kind="bool") == {"bool": duet.bool}


def test_array_namespace_versions(device):
    a = duet.zeros((2,), device=device)
    assert a.__array_namespace__() is duet
    assert a.__array_namespace__(api_version="2024.12") is duet
    assert a.__array_namespace__(api_version="2023.12") is duet
    assert duet.__array_api_version__ == "2024.12"
    with pytest.raises(duet.ArgumentError, match="2024.12"):
        a.__array_namespace__(api_version="2021.12")


def test_everything_in_all_exists():
    for name in duet.__all__:
        assert hasattr(duet, name), name
