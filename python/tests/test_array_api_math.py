"""The array API's further elementwise functions against NumPy (computed in float64, rounded to the
result's dtype) on random inputs of awkward shapes (0-d, empty, size 1, primes, broadcast,
non-contiguous views) and every dtype they take: trunc, round (halves to even), log2, log10, log1p,
expm1, tan, sinh, cosh, asin, acos, atan, asinh, acosh, atanh, square, reciprocal, sign, atan2,
hypot, copysign, logaddexp, and the predicates isnan, isinf, isfinite, signbit (bool); the
standard's special values (NaN, +-0, +-inf); and inside duet.fuse."""

import warnings

import numpy as np
import pytest

import duet

RNG = np.random.default_rng()

FLOATS = ["float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5]

# name -> (NumPy's function, the random inputs' range)
UNARY = {
    "trunc": (np.trunc, (-50, 50)), "round": (np.round, (-50, 50)), "log2": (np.log2, (0, 100)),
    "log10": (np.log10, (0, 100)), "log1p": (np.log1p, (-0.999, 5)), "expm1": (np.expm1, (-5, 5)),
    "tan": (np.tan, (-1.5, 1.5)), "sinh": (np.sinh, (-5, 5)), "cosh": (np.cosh, (-5, 5)),
    "asin": (np.arcsin, (-1, 1)), "acos": (np.arccos, (-1, 1)), "atan": (np.arctan, (-20, 20)),
    "asinh": (np.arcsinh, (-20, 20)), "acosh": (np.arccosh, (1, 20)), "atanh": (np.arctanh, (-0.99, 0.99)),
    "square": (np.square, (-20, 20)), "reciprocal": (np.reciprocal, (0.1, 10)), "sign": (np.sign, (-3, 3)),
}
BINARY = {"atan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign, "logaddexp": np.logaddexp}
PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "signbit": np.signbit}
SHAPES = [(), (0,), (1,), (13,), (3, 7), (2, 0, 3)]


def usable(device, dtype):
    if np.dtype(dtype) == np.float64 and not device.supports_double:
        pytest.skip(f"{device.id} has no float64")


def reference(f, *arrays, dtype):
    """f over float64 copies of the inputs, as dtype (NumPy's own float32 math is no reference)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(f(*(np.asarray(a, "float64") for a in arrays))).astype(dtype)


def check(got, want, ulps=8):
    """got equals want to a few units in the last place of its float type (same NaNs, infinities
    and signed zeros), or exactly for integers."""
    want = np.asarray(want)
    assert isinstance(got, duet.Array), type(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    g = got.get()
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(g, want)
        return
    np.testing.assert_array_equal(np.isnan(g), np.isnan(want))
    exact = ~np.isfinite(want) | (want == 0)
    np.testing.assert_array_equal(g[exact & ~np.isnan(want)], want[exact & ~np.isnan(want)])
    np.testing.assert_array_equal(np.signbit(g[exact & ~np.isnan(want)]), np.signbit(want[exact & ~np.isnan(want)]))
    fine = ~exact
    tol = ulps * np.finfo(want.dtype).eps * np.maximum(1, np.abs(want[fine].astype("float64")))
    assert np.all(np.abs(g[fine].astype("float64") - want[fine]) <= tol), np.max(np.abs(g[fine] - want[fine]))


def inputs(device, shape, dtype, low, high):
    """(NumPy, duet) pairs: a contiguous array and a reversed, stepped view of a larger one."""
    a = RNG.uniform(low, high, shape).astype(dtype)
    yield a, duet.asarray(a, device)
    big = RNG.uniform(low, high, tuple(2 * s for s in shape)).astype(dtype)
    key = tuple(slice(None, None, -2) for _ in shape)
    yield big[key], duet.asarray(big, device)[key]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_on_floats(device, name, dtype):
    usable(device, dtype)
    f, (low, high) = UNARY[name]
    g = getattr(duet, name)
    for shape in SHAPES:
        for a, d in inputs(device, shape, dtype, low, high):
            check(g(d), reference(f, a, dtype=dtype))
    special = np.array(SPECIAL, dtype)
    check(g(duet.asarray(special, device)), reference(f, special, dtype=dtype))


# The integer results NumPy gives: the dtype kept (trunc, round, square, sign) or the float type that
# holds the integers (the rest; int8 -> float16 is computed in float32 and stored as half).
@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_on_integers(device, name, dtype):
    f, (low, high) = UNARY[name]
    info = np.iinfo(dtype)
    a = RNG.integers(max(info.min, int(np.floor(low))), min(info.max, int(np.ceil(high))), (5, 7),
                     endpoint=True).astype(dtype)
    with np.errstate(all="ignore"):
        want_dtype = (f(a) if name != "reciprocal" else 1 / a).dtype
    if want_dtype == np.float64:
        usable(device, "float64")
    got = getattr(duet, name)(duet.asarray(a, device))
    if name in ("trunc", "round", "square", "sign"):
        check(got, f(a))
    elif want_dtype == np.float16:
        check(got, reference(f, a, dtype="float16"), ulps=1)
    else:
        check(got, reference(f if name != "reciprocal" else (lambda x: 1 / x), a, dtype=want_dtype))


def test_round_is_half_to_even(device):
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, -0.0, 1e30], "float32")
    check(duet.round(duet.asarray(a, device)), np.round(a))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_on_floats(device, name, dtype):
    usable(device, dtype)
    f, g = BINARY[name], getattr(duet, name)
    for shape in SHAPES:
        for (a, da), (b, db) in zip(inputs(device, shape, dtype, -30, 30), inputs(device, shape, dtype, -30, 30)):
            check(g(da, db), reference(f, a, b, dtype=dtype))
    # Broadcasting: a column against a row.
    a, b = RNG.uniform(-5, 5, (7, 1)).astype(dtype), RNG.uniform(-5, 5, (11,)).astype(dtype)
    check(g(duet.asarray(a, device), duet.asarray(b, device)), reference(f, a, b, dtype=dtype))
    # Python numbers are weak: the array's dtype stays.
    check(g(duet.asarray(a, device), 2.0), reference(f, a, np.float64(2.0), dtype=dtype))
    check(g(-1, duet.asarray(b, device)), reference(f, np.float64(-1), b, dtype=dtype))
    # Every pair of special values.
    x, y = np.meshgrid(np.array(SPECIAL, dtype), np.array(SPECIAL, dtype))
    check(g(duet.asarray(x, device), duet.asarray(y, device)), reference(f, x, y, dtype=dtype))


@pytest.mark.parametrize("a_dtype, b_dtype", [("int16", "int8"), ("uint8", "float32"), ("int32", "int32"),
                                              ("int64", "float32")])
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_promotes(device, name, a_dtype, b_dtype):
    a = RNG.integers(-5, 6, (4, 3)).astype(a_dtype) if a_dtype[0] != "u" else RNG.integers(0, 9, (4, 3)).astype(a_dtype)
    b = RNG.uniform(-5, 5, (3,)).astype(b_dtype)
    want_dtype = BINARY[name](a, b).dtype
    if want_dtype == np.float64:
        usable(device, "float64")
    check(getattr(duet, name)(duet.asarray(a, device), duet.asarray(b, device)),
          reference(BINARY[name], a, b, dtype=want_dtype))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("name", list(PREDICATES))
def test_predicates(device, name, dtype):
    usable(device, dtype)
    if np.dtype(dtype).kind == "f":
        a = np.array(SPECIAL + [1e30, -1e-30], dtype)
    else:
        info = np.iinfo(dtype)
        a = np.array([info.min, info.max, 0, 1], dtype)
    d = duet.asarray(a, device)
    for x, d in [(a, d), (a[::-2], d[::-2]), (a[:0], d[:0]), (a[3], d[3])]:
        # bool, as the comparisons.
        check(getattr(duet, name)(d), PREDICATES[name](x))


def test_special_cases_the_standard_lists(device):
    """A few of the standard's special cases spelled out (NumPy agrees with each)."""
    f = np.array([-0.0, 0.0, -1.0, 1.0, np.inf, -np.inf, np.nan], "float32")
    d = duet.asarray(f, device)
    assert np.signbit(duet.sign(d).get()[:2]).tolist() == [False, False]  # sign(+-0) is 0, as NumPy's
    assert duet.log1p(d).get()[2] == -np.inf
    assert duet.atanh(d).get()[2:4].tolist() == [-np.inf, np.inf]
    assert duet.expm1(d).get()[5] == -1.0
    assert duet.hypot(d, duet.asarray(np.full(7, np.nan, "float32"), device)).get()[4:6].tolist() == [np.inf, np.inf]
    assert duet.logaddexp(d, d).get()[4:6].tolist() == [np.inf, -np.inf]
    assert duet.atan2(d[:2], d[:2]).get().tolist() == [-np.pi, 0.0][:0] + [np.float32(-np.pi), 0.0]


def test_in_a_fused_function(device):
    @duet.fuse
    def f(x, y):
        return duet.where(duet.isfinite(x), duet.logaddexp(x, y) + duet.square(duet.sinh(y)), duet.copysign(1.0, x))

    x = np.array([0.5, np.inf, -np.inf, np.nan, 2.0], "float32")
    y = np.array([1.0, 2.0, -1.0, 0.5, -3.0], "float32")
    want = np.where(np.isfinite(x), reference(np.logaddexp, x, y, dtype="float32") +
                    np.square(np.sinh(y.astype("float64"))).astype("float32"), np.copysign(1.0, x)).astype("float32")
    check(f(duet.asarray(x, device), duet.asarray(y, device)), want, ulps=16)


def test_errors(device):
    d = duet.asarray(np.zeros(3, "float32"), device)
    with pytest.raises(duet.ArgumentError, match="do not broadcast"):
        duet.atan2(d, duet.asarray(np.zeros(4, "float32"), device))
    with pytest.raises(duet.ArgumentError, match="not str"):
        duet.hypot(d, "1")
