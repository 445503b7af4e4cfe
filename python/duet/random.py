"""Random numbers on the device: Philox4x32-10, counter-based (duet::random in C++), the NumPy way.

NumPy's and CuPy's calls work as their users write them::

    rng = duet.random.default_rng(42)           # a Generator on the default device
    x = rng.normal(0.0, 2.0, size=(1000, 1000))
    k = rng.integers(0, 10, size=100)           # int64 in [0, 10)
    p = rng.permutation(50)                     # on the device: a sort of random keys
    duet.random.seed(1); duet.random.rand(3, 4)  # the module's own Generator, as numpy.random's

Every value is a pure function of (seed, stream, index), so the same seed gives bitwise the same
numbers on CUDA, on any OpenCL device and on the host. A Generator draws each call from the next
stream of its seed (its `bit_generator`, a Philox, counts the streams). Floating results are
float32 unless dtype says otherwise: float32 is duet's default float (every device has it, so the
default numbers are the same everywhere); pass dtype="float64" for NumPy's.

The explicit streams underneath: uniform_stream(shape, dtype, seed, offset, low, high),
normal_stream(shape, dtype, seed, offset, mean, stddev) and bits_stream(shape, seed, offset), and
Philox(seed) with the same calls moving to the next stream at each; host_uniform, host_normal and
host_bits compute the same numbers with NumPy on the CPU. source() is the generator's dialect source:
prepend it to a kernel of your own to draw numbers inside it (duet_philox_block(seed, offset,
index) gives four words; duet_uniform_float(word) a float in [0, 1); duet_normal2_float(a, b, &z0,
&z1) two normals). The exact mapping from words to values is documented in random/kernels/random.duet.
"""

import operator as _operator
import os as _os

import numpy as _np

from . import _duet
from ._duet import philox4x32_10

__all__ = ["Generator", "Philox", "default_rng", "seed", "random", "random_sample", "rand", "randn",
           "uniform", "normal", "standard_normal", "integers", "randint", "permutation", "shuffle",
           "choice", "uniform_stream", "normal_stream", "bits_stream", "source", "philox4x32_10",
           "host_uniform", "host_normal", "host_bits", "host_integers"]


# --- the explicit streams ------------------------------------------------------------------------
def _fill(kind, shape, dtype, seed, offset, a, b, device, queue, out):
    if out is None:
        if device is None and queue is not None:
            device = queue.device
        out = _duet.empty(shape, dtype, device)
    _duet._random_fill(kind, out, int(seed), int(offset), float(a), float(b), queue)
    return out


def uniform_stream(shape, dtype="float32", seed=0, offset=0, low=0.0, high=1.0, device=None, queue=None,
                   out=None):
    """Uniform values in [low, high) (float32 or float64) of stream (seed, offset), as a duet.Array
    (asynchronous)."""
    return _fill("uniform", shape, dtype, seed, offset, low, high, device, queue, out)


def normal_stream(shape, dtype="float32", seed=0, offset=0, mean=0.0, stddev=1.0, device=None, queue=None,
                  out=None):
    """Normal values N(mean, stddev^2) (Box-Muller) of stream (seed, offset), as a duet.Array
    (asynchronous)."""
    return _fill("normal", shape, dtype, seed, offset, mean, stddev, device, queue, out)


def bits_stream(shape, seed=0, offset=0, device=None, queue=None, out=None):
    """Philox's raw 32-bit words of stream (seed, offset) as a uint32 duet.Array (asynchronous)."""
    return _fill("bits", shape, "uint32", seed, offset, 0, 0, device, queue, out)


def _host(kind, shape, dtype, seed, offset, a, b):
    out = _np.empty(shape, dtype=dtype)
    _duet._random_host(kind, out, int(seed), int(offset), float(a), float(b))
    return out


def host_uniform(shape, dtype="float32", seed=0, offset=0, low=0.0, high=1.0):
    """uniform_stream() computed on the host: the same bits, in a NumPy array."""
    return _host("uniform", shape, dtype, seed, offset, low, high)


def host_normal(shape, dtype="float32", seed=0, offset=0, mean=0.0, stddev=1.0):
    """normal_stream() computed on the host: the same bits, in a NumPy array."""
    return _host("normal", shape, dtype, seed, offset, mean, stddev)


def host_bits(shape, seed=0, offset=0):
    """bits_stream() computed on the host."""
    return _host("bits", shape, "uint32", seed, offset, 0, 0)


def host_integers(shape, low, high, dtype="int64", seed=0, offset=0):
    """Generator.integers(low, high) of stream (seed, offset) computed on the host (Python integers,
    exact): element i is low + (w * (high - low)) >> 64 with w the 64-bit word of Philox words 2i and
    2i + 1 (the first the high half)."""
    n = int(_np.prod(shape, dtype=_np.int64))
    words = host_bits(2 * n, seed, offset).astype(object)
    span = int(high) - int(low)
    values = [int(low) + ((int(words[2 * i]) << 32 | int(words[2 * i + 1])) * span >> 64) for i in range(n)]
    return _np.array(values, dtype=dtype).reshape(shape)


def source():
    """The generator's dialect source, to prepend to kernels of your own."""
    return _duet._random_source()


class Philox:
    """A seed and a stream counter: each call draws from the next stream (offset 0, 1, 2, ...).
    Its calls take a shape first (duet's explicit form); Generator wraps one for NumPy's calls."""

    def __init__(self, seed=0, device=None, offset=0):
        self.seed = int(seed)
        self.offset = int(offset)
        self.device = device

    def _next(self):
        offset = self.offset
        self.offset += 1
        return offset

    def uniform(self, shape, dtype="float32", low=0.0, high=1.0, queue=None, out=None):
        return uniform_stream(shape, dtype, self.seed, self._next(), low, high, self.device, queue, out)

    def normal(self, shape, dtype="float32", mean=0.0, stddev=1.0, queue=None, out=None):
        return normal_stream(shape, dtype, self.seed, self._next(), mean, stddev, self.device, queue, out)

    def bits(self, shape, queue=None, out=None):
        return bits_stream(shape, self.seed, self._next(), self.device, queue, out)

    def __repr__(self):
        return f"duet.random.Philox(seed={self.seed}, offset={self.offset})"


# --- integers: a dialect kernel over the same streams ---------------------------------------------
# Multiply-shift (Lemire) on a 64-bit word per element, with no rejection loop: every element is one
# fixed function of its own words, so the numbers stay the same on every device and in any order.
# Its bias is below span / 2^64 (a value is hit floor or ceil of 2^64 / span times), far under what
# any test of 2^40 draws could see.
_INTEGERS = """
#if defined(DUET_CUDA)
#define DUET_MULHI64(a, b) __umul64hi((a), (b))
#else
#define DUET_MULHI64(a, b) mul_hi((ulong)(a), (ulong)(b))
#endif
DEVICE ulong duet_scaled(ulong w, ulong span) { return span == 0 ? w : DUET_MULHI64(w, span); }
KERNEL void duet_random_integers(GLOBAL T* out, const ulong n, const ulong seed, const ulong offset,
                                 const ulong low, const ulong span) {
  const ulong block = GLOBAL_ID(0);
  if (block * 2 >= n) return;
  const duet_philox4 r = duet_philox_block(seed, offset, block);
  out[block * 2] = (T)(low + duet_scaled(((ulong)r.x << 32) | r.y, span));
  if (block * 2 + 1 < n) out[block * 2 + 1] = (T)(low + duet_scaled(((ulong)r.z << 32) | r.w, span));
}
"""
_C_NAMES = {"int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort", "int32": "int",
            "uint32": "uint", "int64": "long", "uint64": "ulong"}
_kernels = {}


def _integers_kernel(device, dtype):
    key = (device.id, dtype)
    if key not in _kernels:
        program = device.compile(source() + _INTEGERS, {"T": _C_NAMES[dtype]}, "random_integers.duet")
        _kernels[key] = program.duet_random_integers
    return _kernels[key]


# --- NumPy's Generator -----------------------------------------------------------------------------
def _shape(size):
    if size is None:
        return ()
    if isinstance(size, (tuple, list)):
        return tuple(_operator.index(s) for s in size)
    return (_operator.index(size),)


def _is_array(x):
    return isinstance(x, _duet.Array) or isinstance(x, _np.ndarray)


def _float_dtype(dtype):
    name = _np.dtype("float32" if dtype is None else dtype).name
    if name not in ("float32", "float64"):
        raise _duet_error(f"random floats are float32 or float64, not {name}")
    return name


def _duet_error(message):
    from .errors import ArgumentError
    return ArgumentError(message)


class Generator:
    """numpy.random.Generator's calls on the device, over a Philox bit generator: each call draws
    from the next stream of its seed. Arrays are made on `device` (default: the default device)."""

    def __init__(self, bit_generator, device=None):
        if not isinstance(bit_generator, Philox):
            raise _duet_error("duet.random.Generator wraps a duet.random.Philox; use default_rng(seed)")
        self.bit_generator = bit_generator
        self.device = device if device is not None else bit_generator.device
        if self.device is None:
            self.device = _duet.default_device()

    def _stream(self):
        return self.bit_generator._next()

    def _fill(self, kind, size, dtype, a, b, queue):
        return _fill(kind, _shape(size), _float_dtype(dtype), self.bit_generator.seed, self._stream(), a, b,
                     self.device, queue, None)

    def random(self, size=None, dtype=None, out=None, *, queue=None):
        """Uniform floats in [0, 1)."""
        if out is not None:
            _fill("uniform", out.shape, out.dtype, self.bit_generator.seed, self._stream(), 0.0, 1.0, None,
                  queue, out)
            return out
        return self._fill("uniform", size, dtype, 0.0, 1.0, queue)

    def uniform(self, low=0.0, high=1.0, size=None, *, dtype=None, queue=None):
        """Uniform floats in [low, high); low and high may be arrays (broadcast with size)."""
        if _is_array(low) or _is_array(high):
            size = _broadcast_size(size, low, high)
            u = self._fill("uniform", size, dtype, 0.0, 1.0, queue)
            return _as_dtype(low + (high - low) * u, u.dtype)
        return self._fill("uniform", size, dtype, low, high, queue)

    def standard_normal(self, size=None, dtype=None, out=None, *, queue=None):
        """Normal floats N(0, 1)."""
        if out is not None:
            _fill("normal", out.shape, out.dtype, self.bit_generator.seed, self._stream(), 0.0, 1.0, None,
                  queue, out)
            return out
        return self._fill("normal", size, dtype, 0.0, 1.0, queue)

    def normal(self, loc=0.0, scale=1.0, size=None, *, dtype=None, queue=None):
        """Normal floats N(loc, scale^2); loc and scale may be arrays (broadcast with size)."""
        if _is_array(loc) or _is_array(scale):
            size = _broadcast_size(size, loc, scale)
            z = self._fill("normal", size, dtype, 0.0, 1.0, queue)
            return _as_dtype(loc + scale * z, z.dtype)
        if scale < 0:
            raise _duet_error(f"normal: scale {scale} is negative")
        return self._fill("normal", size, dtype, loc, scale, queue)

    def integers(self, low, high=None, size=None, dtype="int64", endpoint=False, *, queue=None):
        """Integers in [low, high) (or [low, high] with endpoint=True; [0, low) when high is None)."""
        if high is None:
            low, high = 0, low
        low, high = _operator.index(low), _operator.index(high) + (1 if endpoint else 0)
        name = _np.dtype(dtype).name
        if name not in _C_NAMES:
            raise _duet_error(f"integers: dtype {name} is not an integer type; use int8..uint64")
        info = _np.iinfo(name)
        if low >= high:
            raise _duet_error(f"integers: low {low} >= high {high}{' (endpoint included)' if endpoint else ''}; "
                              "the range is empty")
        if low < info.min or high - 1 > info.max:
            raise _duet_error(f"integers: [{low}, {high}) does not fit {name} ({info.min}..{info.max})")
        shape = _shape(size)
        out = _duet.empty(shape, name, self.device)
        n = int(_np.prod(shape, dtype=_np.int64))
        offset = self._stream()
        if n:
            span = (high - low) % (1 << 64)
            _integers_kernel(self.device, name)((n + 1) // 2, None, out, n, self.bit_generator.seed, offset,
                                                low % (1 << 64), span, queue=queue)
        return out

    def permutation(self, x, axis=0, *, queue=None):
        """A shuffled arange(x) for an int, else a shuffled copy of x along `axis`: the order of random
        64-bit keys (a stable sort on the device, so ties, if any, keep their order)."""
        from . import _sort
        if not _is_array(x):
            n = _operator.index(x)
            return _sort.argsort(self.integers(0, 1 << 64, n, dtype="uint64", queue=queue), queue=queue)
        x = x if isinstance(x, _duet.Array) else _duet.asarray(x, self.device)
        if x.ndim == 0:
            raise _duet_error("permutation: x is 0-d; pass an int or an array of at least one axis")
        order = _sort.argsort(self.integers(0, 1 << 64, x.shape[axis], dtype="uint64", queue=queue), queue=queue)
        return _sort.take(x, order, axis=axis, queue=queue)

    def shuffle(self, x, axis=0, *, queue=None):
        """Shuffles duet.Array x in place along `axis`."""
        if not isinstance(x, _duet.Array):
            raise _duet_error("shuffle: x must be a duet.Array (shuffled in place on its device)")
        shuffled = self.permutation(x, axis=axis, queue=queue)
        x[...] = shuffled

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True, *, queue=None):
        """Elements of a (or of arange(a) for an int) chosen at random: with replacement uniform
        integers (or, with p, the cumulative p searched by uniform floats); without, the first
        ones of a permutation (with p, of the keys -log(u) / p: weighted sampling without
        replacement as Efraimidis and Spirakis)."""
        from . import _sort
        from . import _array_api as xp
        pool = None
        if _is_array(a):
            pool = a if isinstance(a, _duet.Array) else _duet.asarray(a, self.device)
            n = pool.shape[axis]
        else:
            n = _operator.index(a)
        if n <= 0 and size not in (None, 0, ()):
            raise _duet_error("choice: a is empty, nothing to choose from")
        shape = _shape(size)
        count = int(_np.prod(shape, dtype=_np.int64))
        if not replace and count > n:
            raise _duet_error(f"choice: {count} samples without replacement from {n} elements; "
                              "pass replace=True or ask for fewer")
        if p is not None:
            p = p if isinstance(p, _duet.Array) else _duet.asarray(_np.asarray(p, dtype="float64"), self.device)
            if p.ndim != 1 or p.shape[0] != n:
                raise _duet_error(f"choice: p has the shape {p.shape}; it needs one probability per element ({n})")
            p = xp.astype(p, "float32", copy=False) if not self.device.supports_double else p
        if replace:
            if p is None:
                picks = self.integers(0, n, count, queue=queue)
            else:
                cdf = xp.cumulative_sum(p)
                total = cdf[n - 1: n]
                u = self.random(count, dtype=p.dtype, queue=queue) * total
                picks = _sort.searchsorted(cdf, u, side="right", queue=queue)
                picks = xp.minimum(picks, n - 1)
        else:
            if p is None:
                picks = self.permutation(n, queue=queue)[:count]
            else:
                u = self.random(n, dtype=p.dtype, queue=queue)
                keys = -xp.log(1 - u) / p  # 1 - u in (0, 1]: no log of 0
                picks = _sort.argsort(keys, queue=queue)[:count]
        if pool is None:
            return picks.reshape(shape) if shape != (count,) else picks
        taken = _sort.take(pool, picks, axis=axis, queue=queue)
        return taken.reshape(pool.shape[:axis] + shape + pool.shape[axis + 1:])

    def __repr__(self):
        return f"duet.random.Generator({self.bit_generator!r})"


def _broadcast_size(size, *arrays):
    if size is not None:
        return _shape(size)
    return _np.broadcast_shapes(*[getattr(x, "shape", ()) for x in arrays])


def _as_dtype(x, dtype):
    from . import _array_api as xp
    return x if x.dtype == dtype else xp.astype(x, dtype)


def default_rng(seed=None, *, device=None):
    """A Generator on `device` (default: the default device) seeded with `seed` (an int; None
    draws one from the operating system; a Philox or a Generator is used as it is)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, Philox):
        return Generator(seed, device)
    if seed is None:
        seed = int.from_bytes(_os.urandom(8), "little")
    return Generator(Philox(_operator.index(seed) % (1 << 64), device), device)


# --- numpy.random's module-level calls, on a Generator of the module's own -----------------------
_global = None


def _rng():
    global _global
    if _global is None:
        _global = default_rng()
    return _global


def seed(seed=None):
    """Seeds the module's Generator (numpy.random.seed): the calls below then repeat."""
    global _global
    _global = default_rng(seed)


def random(size=None, dtype=None):
    """Uniform floats in [0, 1) (numpy.random.random)."""
    return _rng().random(size, dtype)


random_sample = random


def rand(*dims, dtype=None):
    """Uniform floats in [0, 1) of shape dims (numpy.random.rand)."""
    return _rng().random(dims if dims else None, dtype)


def randn(*dims, dtype=None):
    """Normal floats N(0, 1) of shape dims (numpy.random.randn)."""
    return _rng().standard_normal(dims if dims else None, dtype)


def uniform(low=0.0, high=1.0, size=None, *, dtype=None):
    """Uniform floats in [low, high) (numpy.random.uniform)."""
    return _rng().uniform(low, high, size, dtype=dtype)


def normal(loc=0.0, scale=1.0, size=None, *, dtype=None):
    """Normal floats N(loc, scale^2) (numpy.random.normal)."""
    return _rng().normal(loc, scale, size, dtype=dtype)


def standard_normal(size=None, dtype=None):
    """Normal floats N(0, 1) (numpy.random.standard_normal)."""
    return _rng().standard_normal(size, dtype)


def integers(low, high=None, size=None, dtype="int64", endpoint=False):
    """Integers in [low, high) (Generator.integers)."""
    return _rng().integers(low, high, size, dtype, endpoint)


def randint(low, high=None, size=None, dtype="int64"):
    """Integers in [low, high), or [0, low) when high is None (numpy.random.randint)."""
    return _rng().integers(low, high, size, dtype)


def permutation(x):
    """A shuffled arange(x) or a shuffled copy of x along its first axis (numpy.random.permutation)."""
    return _rng().permutation(x)


def shuffle(x):
    """Shuffles duet.Array x in place along its first axis (numpy.random.shuffle)."""
    _rng().shuffle(x)


def choice(a, size=None, replace=True, p=None):
    """Random elements of a, or of arange(a) (numpy.random.choice)."""
    return _rng().choice(a, size, replace, p)

