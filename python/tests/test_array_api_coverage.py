"""Every name of the Python array API standard 2024.12's main namespace and of the parts of its
linalg extension duet takes on is in duet's namespace; what is still missing is listed here, so a
name can neither go missing nor be added without this list saying so."""

import duet

MAIN = """
__array_namespace_info__ e inf nan newaxis pi
bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128
arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones ones_like tril triu
zeros zeros_like
astype can_cast finfo iinfo isdtype result_type
abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert bitwise_or
bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide equal exp expm1 floor floor_divide
greater greater_equal hypot imag isfinite isinf isnan less less_equal log log1p log2 log10 logaddexp
logical_and logical_not logical_or logical_xor maximum minimum multiply negative nextafter not_equal
positive pow real reciprocal remainder round sign signbit sin sinh square sqrt subtract tan tanh trunc
take take_along_axis
matmul matrix_transpose tensordot vecdot
broadcast_arrays broadcast_to concat expand_dims flip moveaxis permute_dims repeat reshape roll squeeze
stack tile unstack
argmax argmin count_nonzero nonzero searchsorted where
unique_all unique_counts unique_inverse unique_values
argsort sort
cumulative_prod cumulative_sum max mean min prod std sum var
all any diff
""".split()

LINALG = "matmul matrix_transpose tensordot vecdot vector_norm matrix_norm diagonal trace outer cross".split()

# Not yet in duet: nothing.
MISSING = set()


def test_main_namespace():
    missing = {name for name in MAIN if not hasattr(duet, name)}
    assert missing == MISSING, f"missing now: {sorted(missing - MISSING)}; now present: {sorted(MISSING - missing)}"


def test_linalg_extension():
    assert [name for name in LINALG if not callable(getattr(duet.linalg, name, None))] == []


def test_array_object():
    a = duet.Array
    for name in ["__getitem__", "__setitem__", "__array_namespace__", "__dlpack__", "__dlpack_device__", "T",
                 "mT", "device", "to_device", "dtype", "shape", "ndim", "size", "__iadd__", "__isub__",
                 "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__iand__", "__ior__",
                 "__ixor__", "__ilshift__", "__irshift__", "__bool__", "__float__", "__int__", "__index__",
                 "__complex__", "__abs__", "__neg__", "__pos__", "__invert__", "__matmul__", "__rmatmul__"]:
        assert hasattr(a, name), name
