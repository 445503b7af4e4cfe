"""duet for Python: one kernel source on CUDA and on OpenCL, from one install.

    import duet, numpy as np
    dev = duet.Device()                                   # DUET_BACKEND / DUET_DEVICE, else the best
    prg = dev.compile('''
    KERNEL void scale(GLOBAL float* x, const float a, const uint n) {
      const size_t i = GLOBAL_ID(0);
      if (i < n) x[i] *= a;
    }''')
    x = duet.asarray(np.arange(8, dtype=np.float32), dev)
    prg.scale(x.size, None, x, 2.0, x.size)               # global size, local size (None: duet picks), args
    print(x.get())

The API: devices(), backends(), Device, Program, Kernel, Queue, Event, elapsed_ms, Array (NumPy's
semantics: strided views, operators, @) with empty/zeros/ones/full/arange/linspace/asarray/from_dlpack,
the array API's elementwise functions and reductions (duet.sqrt, duet.where, duet.sum, ...: see
duet/_array_api.py), its dtypes and their facts (duet.float32, result_type, finfo, ...: duet/_dtypes.py),
its shape and creation functions (reshape, concat, eye, ...: duet/_shape.py), sorting, searching
and sets (sort, argsort, searchsorted, nonzero, take, unique_*: duet/_sort.py), roll, repeat, tile,
diff, meshgrid, unstack, broadcast_arrays (duet/_rearrange.py), std and var (duet/_statistics.py),
duet.linalg, indexing by integer arrays and masks (duet/_indexing.py), duet.fuse (a
function's elementwise arithmetic as one kernel), ElementwiseKernel, ReductionKernel, matmul, gemm, heat,
heat_step, vector_add, multiply, duet.random, and the exceptions of duet.errors. The README's Python
section says more; every call's docstring says what it does.
"""

from . import _duet
from . import errors
from .errors import (ArgumentError, BackendUnavailableError, BufferSizeError, CompileError,
                     ConfigError, DeviceMismatchError, DeviceNotFoundError, DriverError, Error,
                     KernelFaultError, KernelNotFoundError, OutOfMemoryError, ReleasedError,
                     UnorderedAccessError)

_duet._register_errors(errors.BY_KIND)

from ._duet import (HAVE_DLPACK, Array, BackendStatus, Device, DeviceInfo, ElementwiseKernel, Event,
                    Graph, Kernel, KernelParam, Program, Queue, ReductionKernel, asarray, backends,
                    default_device, devices, elapsed_ms, empty, from_dlpack, full, gemm, graph, heat, heat_step,
                    kernel_names, kernel_source, multiply, pinned_empty, vector_add)
from ._duet import __version__
from . import random
from ._queue import Timer
from . import _array_api
from ._fuse import fuse
from ._duet import Expression
from ._array_api import (abs, add, all, any, arange, argmax, argmin, astype, bitwise_and, bitwise_invert,
                         bitwise_left_shift, bitwise_or, bitwise_right_shift, bitwise_xor, ceil, clip, cos,
                         cumprod, cumsum, cumulative_prod, cumulative_sum, divide, equal, floor_divide,
                         logical_and, logical_not, logical_or, logical_xor, outer, remainder,
                         exp, floor, greater, greater_equal, less, less_equal, linspace, log, matmul, max, maximum,
                         mean, min, minimum, multiply, negative, not_equal, positive, pow, power, prod, sin,
                         sqrt, subtract, sum, tanh, tensordot, vecdot, where)
from ._array_api import (acos, acosh, asin, asinh, atan, atan2, atanh, copysign, cosh, expm1, hypot, isfinite,
                         isinf, isnan, log1p, log2, log10, logaddexp, reciprocal, round, sign, signbit, sinh,
                         square, tan, trunc)
from . import _dtypes, _shape, _sort
from ._dtypes import (__array_namespace_info__, bfloat16, bool, can_cast, complex64, complex128, e, finfo, float32,
                      float64, iinfo, inf, int8, int16,
                      int32, int64, isdtype, nan, newaxis, pi, result_type, uint8, uint16, uint32, uint64)
from ._shape import (broadcast_to, concat, expand_dims, eye, flip, full_like, matrix_transpose, moveaxis,
                     ones_like, permute_dims, reshape, squeeze, stack, tril, triu)
from . import _indexing, _rearrange, _statistics, linalg
from ._array_api import conj, imag, nextafter, real
from ._rearrange import broadcast_arrays, diff, meshgrid, repeat, roll, tile, unstack
from ._statistics import std, var
from ._sort import (argsort, count_nonzero, nonzero, searchsorted, sort, take, take_along_axis, unique_all,
                    unique_counts, unique_inverse, unique_values)

# The array API version duet's namespace follows (Array.__array_namespace__ takes "2023.12" too).
__array_api_version__ = "2024.12"

__all__ = [
    "Array", "ArgumentError", "BackendStatus", "BackendUnavailableError", "BufferSizeError",
    "CompileError", "ConfigError", "Device", "DeviceInfo", "DeviceMismatchError", "DeviceNotFoundError",
    "DriverError", "ElementwiseKernel", "Error", "Event", "Graph", "HAVE_DLPACK", "Kernel", "KernelFaultError",
    "KernelNotFoundError", "KernelParam", "OutOfMemoryError", "Program", "Queue", "ReductionKernel",
    "ReleasedError", "Timer", "UnorderedAccessError", "asarray", "backends", "default_device", "devices", "elapsed_ms", "empty",
    "errors", "from_dlpack", "full", "gemm", "graph", "heat", "heat_step", "kernel_names", "kernel_source",
    "multiply", "ones", "pinned_empty", "random", "vector_add", "zeros", "empty_like", "zeros_like",
    "fuse", "Expression",
] + ([name for name in _array_api.__all__ if name != "multiply"] + _dtypes.__all__ + _shape.__all__ + _sort.__all__
      + _rearrange.__all__ + _statistics.__all__ + ["linalg"])

_indexing.install()


def zeros(shape, dtype="float32", device=None, queue=None):
    """An array of zeros (filled asynchronously on `queue`, default the device's default queue)."""
    return full(shape, 0, dtype, device, queue)


def ones(shape, dtype="float32", device=None, queue=None):
    """An array of ones."""
    return full(shape, 1, dtype, device, queue)


def empty_like(a, dtype=None, *, device=None):
    """An uninitialised array of a's shape, dtype and device (unless given)."""
    return empty(a.shape, a.dtype if dtype is None else dtype, a.device if device is None else device)


def zeros_like(a, dtype=None, queue=None, *, device=None):
    """An array of zeros of a's shape, dtype and device (unless given)."""
    return full(a.shape, 0, a.dtype if dtype is None else dtype, a.device if device is None else device, queue)
