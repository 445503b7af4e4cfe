"""The array API standard's facts about duet's data types: the dtype objects (duet.bool, duet.int8
... duet.float64, which are numpy.dtype objects, so `x.dtype == duet.float32` holds for a duet.Array),
result_type and can_cast, finfo and iinfo, isdtype, the constants e, pi, inf, nan and newaxis,
__array_namespace_info__ (capabilities, default device and dtypes, devices, dtypes).

Promotion is duet's kernels' own (duet::promote_types: NumPy's rules), so result_type says what
duet.add gives. Within the standard's table (signed with signed, unsigned with unsigned, a signed
with a narrower unsigned, float with float) that is the standard's answer; across kinds, where the
standard leaves it to the library, it is NumPy's (int32 with float32 is float64, int64 with uint64
is float64). bool promotes to every other dtype and nothing but bool casts to it. Python numbers are
weak: a bool keeps any array's dtype, an int keeps any but bool's (a bool array with an int is
int64, as in NumPy), a float keeps a float array's and makes any other float64, as duet's arithmetic
does.

complex64 and complex128 (two float32s, two float64s) are duet.complex64 and duet.complex128. A
complex dtype meets a real floating one in the complex dtype of the floats both would meet at
(float32 with complex64 is complex64, float64 with complex64 is complex128); integers and bool take
the complex dtype as it is. Nothing complex casts to a real dtype.

Comparisons and the logical functions give bool arrays. float16, which duet's
arrays take, is not one of the standard's dtypes, so it has no namespace object and is not listed
by __array_namespace_info__().dtypes(), but every function here accepts it where an array has it.

duet.bfloat16 is not a standard dtype either (nor listed), but is a real floating one here. NumPy has
none: where ml_dtypes imports, duet.bfloat16 is its NumPy dtype (numpy.dtype(ml_dtypes.bfloat16)),
so bfloat16 arrays come from and go to NumPy arrays of it; without ml_dtypes it is a stand-in object
with the same name, and data goes through another dtype (asarray(x, dtype=duet.bfloat16) rounds on
the device; x.astype(duet.float32).get() reads back). Promotion: bfloat16 with float16 meets in
float32 (as JAX and ml_dtypes do), and takes bool, int8 and uint8.
"""

import builtins
import math

import numpy

from . import _duet

__all__ = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
    "complex64", "complex128", "bfloat16",
    "result_type", "can_cast", "finfo", "iinfo", "isdtype", "e", "pi", "inf", "nan", "newaxis",
    "__array_namespace_info__",
]

int8, int16, int32, int64 = (numpy.dtype(n) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (numpy.dtype(n) for n in ("uint8", "uint16", "uint32", "uint64"))
float32, float64 = numpy.dtype("float32"), numpy.dtype("float64")
complex64, complex128 = numpy.dtype("complex64"), numpy.dtype("complex128")
bool = numpy.dtype("bool")  # noqa: A001 (the standard's name; builtins.bool is spelled out here)
_float16 = numpy.dtype("float16")


class _BFloat16:
    """duet.bfloat16 where ml_dtypes is not installed: the dtype's name and size, equal to the
    string 'bfloat16'. NumPy cannot hold such data; read it back through astype(duet.float32)."""

    name = "bfloat16"
    itemsize = 2
    kind = "f"

    def __eq__(self, other):
        return other is self or other == "bfloat16"

    def __hash__(self):
        return hash("bfloat16")

    def __repr__(self):
        return "duet.bfloat16"

    def __str__(self):
        return "bfloat16"


try:
    import ml_dtypes as _ml_dtypes
    bfloat16 = numpy.dtype(_ml_dtypes.bfloat16)
except ImportError:  # NumPy alone has no bfloat16
    bfloat16 = _BFloat16()

# The standard's dtypes that duet has, in the order __array_namespace_info__().dtypes() lists them.
_STANDARD = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, complex64,
             complex128)
_EVERY = _STANDARD + (_float16, bfloat16)

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None


def _argument_error(message):
    from .errors import ArgumentError
    return ArgumentError(message)


def _dtype_of(x, what):
    """x as one of duet's dtypes: a dtype (duet.float32, numpy.float32, 'float32') or the dtype of
    a duet.Array or Expression."""
    if isinstance(x, (_duet.Array, _duet.Expression)):
        return x.dtype
    if isinstance(x, (builtins.bool, int, float, complex)) or x is None:
        raise _argument_error(f"{what}: {x!r} is not a dtype or an array")
    if x is bfloat16 or (isinstance(x, str) and x == "bfloat16"):
        return bfloat16
    try:
        t = numpy.dtype(x)
    except TypeError:
        raise _argument_error(f"{what}: {x!r} is not a dtype or an array") from None
    if t not in _EVERY:
        raise _argument_error(f"{what}: duet has no dtype {t.name}; its dtypes are "
                              + ", ".join(d.name for d in _STANDARD))
    return t


def _bits(t):
    return t.itemsize * 8


def _kind(t):
    """numpy's kind letter, with bfloat16 (ml_dtypes' kind is 'V') a float."""
    return "f" if t is bfloat16 else t.kind


def _safe(a, b):
    """Whether every value of dtype a is a value of dtype b (as duet::promote_types decides)."""
    if a == b:
        return True
    ka, kb = _kind(a), _kind(b)
    if ka == "b" or kb == "b":  # bool goes into every dtype, nothing else into bool
        return ka == "b"
    if ka == "c":  # complex only into a wider complex
        return kb == "c" and b.itemsize > a.itemsize
    if kb == "c":  # what the complex dtype's parts hold
        return _safe(a, float64 if b == complex128 else float32)
    if ka == "f":
        return kb == "f" and b.itemsize > a.itemsize
    if kb == "f":
        mantissa = 8 if b is bfloat16 else {2: 11, 4: 24, 8: 53}[b.itemsize]
        return _bits(a) - (1 if ka == "i" else 0) <= mantissa
    if ka == "i":
        return kb == "i" and b.itemsize > a.itemsize
    return b.itemsize > a.itemsize


# The order in which promotion looks for the smallest dtype that holds both (duet::promote_types).
_LADDER = (bool, uint8, int8, uint16, int16, _float16, bfloat16, uint32, int32, float32, uint64, int64, float64)


def _promote(a, b):
    ka, kb = _kind(a), _kind(b)
    if "c" in (ka, kb):
        # integers and bool take the complex dtype as it is; floats meet the parts' float dtype
        if ka not in "cf":
            return b
        if kb not in "cf":
            return a
        part = _promote(float64 if a == complex128 else float32 if ka == "c" else a,
                        float64 if b == complex128 else float32 if kb == "c" else b)
        return complex128 if part == float64 else complex64
    for t in _LADDER:
        if _safe(a, t) and _safe(b, t):
            return t
    return float64  # int64 with uint64, or a 64-bit integer with a float


def result_type(*arrays_and_dtypes):
    """The dtype duet's elementwise functions give for these operands (arrays, dtypes and Python
    numbers): the standard's promotion table, NumPy's rules across kinds, Python numbers weak (a
    bool keeps the dtype; an int keeps it, but turns bool into int64; a float keeps a float dtype and
    turns any other into float64). At least one operand must be an array or a dtype."""
    strong = [x for x in arrays_and_dtypes if not isinstance(x, (builtins.bool, int, float, complex))]
    weak = [x for x in arrays_and_dtypes if isinstance(x, (builtins.bool, int, float, complex))]
    if not strong:
        raise _argument_error("result_type needs at least one array or dtype (Python numbers alone "
                              "have no dtype of their own)")
    t = _dtype_of(strong[0], "result_type")
    for x in strong[1:]:
        t = _promote(t, _dtype_of(x, "result_type"))
    if _kind(t) != "c" and builtins.any(isinstance(x, complex) for x in weak):
        t = complex64 if t in (float32, _float16, bfloat16) else complex128
    elif _kind(t) in "biu" and builtins.any(isinstance(x, float) for x in weak):
        t = float64
    elif _kind(t) == "b" and builtins.any(not isinstance(x, builtins.bool) for x in weak):
        t = int64
    return t


def can_cast(from_, to, /):
    """Whether promotion allows `from_` (a dtype or an array) to become dtype `to`: result_type of
    the two is `to` (so float32 to float64 and int16 to int32 are allowed, float64 to float32 and
    int32 to float32 are not)."""
    if isinstance(to, (_duet.Array, _duet.Expression)):
        raise _argument_error("can_cast: `to` is a dtype, not an array")
    a, b = _dtype_of(from_, "can_cast"), _dtype_of(to, "can_cast")
    return _promote(a, b) == b


class finfo_object:
    """Machine limits of a floating dtype (the standard's finfo_object): bits, eps, max, min,
    smallest_normal (Python floats) and dtype."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")

    def __init__(self, dtype):
        mantissa, exponent = (7, 127) if dtype is bfloat16 else {2: (10, 15), 4: (23, 127), 8: (52, 1023)}[dtype.itemsize]
        self.bits = _bits(dtype)
        self.eps = 2.0 ** -mantissa
        self.max = (2.0 - 2.0 ** -mantissa) * 2.0 ** exponent
        self.min = -self.max
        self.smallest_normal = 2.0 ** (1 - exponent)
        self.dtype = dtype

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps!r}, max={self.max!r}, min={self.min!r}, "
                f"smallest_normal={self.smallest_normal!r}, dtype={self.dtype.name})")


class iinfo_object:
    """Limits of an integer dtype (the standard's iinfo_object): bits, max, min (Python ints) and
    dtype."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, dtype):
        self.bits = _bits(dtype)
        self.min = -(1 << (self.bits - 1)) if dtype.kind == "i" else 0
        self.max = (1 << (self.bits - 1)) - 1 if dtype.kind == "i" else (1 << self.bits) - 1
        self.dtype = dtype

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype.name})"


def finfo(type, /):
    """The limits of a floating dtype, or of an array's floating dtype."""
    t = _dtype_of(type, "finfo")
    if t is bfloat16:
        return finfo_object(t)
    if t.kind == "b":
        raise _argument_error("finfo takes a floating dtype, not bool, which has no limits (False < True)")
    if t.kind == "c":  # the limits of its parts, as the standard asks
        return finfo_object(float64 if t == complex128 else float32)
    if t.kind != "f":
        raise _argument_error(f"finfo takes a floating dtype, not {t.name}; use iinfo for integers")
    return finfo_object(t)


def iinfo(type, /):
    """The limits of an integer dtype, or of an array's integer dtype."""
    t = _dtype_of(type, "iinfo")
    if t is bfloat16:
        raise _argument_error("iinfo takes an integer dtype, not bfloat16; use finfo for floats")
    if t.kind == "b":
        raise _argument_error("iinfo takes an integer dtype, not bool, which has no limits (False < True)")
    if t.kind not in "iu":
        raise _argument_error(f"iinfo takes an integer dtype, not {t.name}; use finfo for floats")
    return iinfo_object(t)


_KINDS = {
    "bool": lambda t: t.kind == "b",
    "signed integer": lambda t: t.kind == "i",
    "unsigned integer": lambda t: t.kind == "u",
    "integral": lambda t: t.kind in "iu",
    "real floating": lambda t: t.kind == "f",
    "complex floating": lambda t: t.kind == "c",
    "numeric": lambda t: t.kind in "iufc",
}


class _KindOf:
    """A dtype as _KINDS sees it: its kind letter, bfloat16's 'f'."""

    __slots__ = ("kind",)

    def __init__(self, t):
        self.kind = _kind(t)


def isdtype(dtype, kind):
    """Whether `dtype` is of `kind`: a dtype (equality), one of 'bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric', or a tuple of
    those (any of them)."""
    if isinstance(dtype, (_duet.Array, _duet.Expression)):
        raise _argument_error("isdtype takes a dtype (x.dtype), not an array")
    t = _dtype_of(dtype, "isdtype")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in _KINDS:
                raise _argument_error(f"isdtype: no kind {k!r}; the kinds are " + ", ".join(map(repr, _KINDS)))
            if _KINDS[k](_KindOf(t)):
                return True
        elif isinstance(k, tuple):
            raise _argument_error("isdtype: a kind tuple holds dtypes and kind names, not other tuples")
        elif _dtype_of(k, "isdtype") == t:
            return True
    return False


class _Info:
    """What duet's namespace offers (the standard's inspection object, from
    __array_namespace_info__())."""

    def capabilities(self):
        """{'boolean indexing': True, 'data-dependent shapes': True, 'max dimensions': None}: masks
        index arrays (x[mask] with a bool array), nonzero and
        unique_* give arrays whose shape depends on the data; arrays of any
        number of axes (a fused kernel takes at most 6 uneven axes once the operands' layouts are
        collapsed together: copy a strided operand first where more are needed)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self):
        """duet.default_device(): the device arrays are made on when none is named."""
        return _duet.default_device()

    def devices(self):
        """Every device of every backend that loaded, as duet.Device objects."""
        return [_duet.Device(info.id) for info in _duet.devices()]

    def default_dtypes(self, *, device=None):
        """The dtypes creation functions choose: float32 for real floating (duet's default float,
        which every device has), complex64 for complex floating, int64 for integral and indexing."""
        return {"real floating": float32, "complex floating": complex64, "integral": int64, "indexing": int64}

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes duet has, by name, on `device` (default: the default device;
        float64 is left out where the device lacks double precision), of `kind` (as isdtype's)."""
        if device is None:
            device = _duet.default_device()
        listed = [t for t in _STANDARD if t not in (float64, complex128) or device.supports_double]
        if kind is not None:
            listed = [t for t in listed if isdtype(t, kind)]
        return {t.name: t for t in listed}

    def __repr__(self):
        return "<duet array namespace info>"


def __array_namespace_info__():
    """The standard's inspection object: capabilities(), default_device(), default_dtypes(),
    devices(), dtypes()."""
    return _Info()
