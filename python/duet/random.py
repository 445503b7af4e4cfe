"""Random numbers on the device: Philox4x32-10, counter-based (duet::random in C++).

Every value is a pure function of (seed, offset, index), and the same seed gives bitwise the same
numbers on CUDA, on any OpenCL device and on the host (host_uniform, host_normal, host_bits compute
them with NumPy arrays on the CPU). A Generator keeps a seed and advances `offset` by one per call,
so successive calls give independent streams::

    g = duet.random.Generator(seed=42)
    x = g.normal((1000, 1000))                  # float32 N(0, 1) on the default device
    u = g.uniform(1000, dtype="float64", low=-1, high=1)
    duet.random.normal(10, seed=42).get()       # one call, stream offset 0

source() is the generator's dialect source: prepend it to a kernel of your own to draw numbers
inside it (duet_philox_block(seed, offset, index) gives four words; duet_uniform_float(word) a float
in [0, 1); duet_normal2_float(a, b, &z0, &z1) two normals). The exact mapping from words to values is
documented in random/kernels/random.duet.
"""

import numpy as _np

from . import _duet
from ._duet import philox4x32_10

__all__ = ["Generator", "uniform", "normal", "bits", "source", "philox4x32_10",
           "host_uniform", "host_normal", "host_bits"]


def _fill(kind, shape, dtype, seed, offset, a, b, device, queue, out):
    if out is None:
        if device is None and queue is not None:
            device = queue.device
        out = _duet.empty(shape, dtype, device)
    _duet._random_fill(kind, out, int(seed), int(offset), float(a), float(b), queue)
    return out


def uniform(shape, dtype="float32", seed=0, offset=0, low=0.0, high=1.0, device=None, queue=None, out=None):
    """Uniform values in [low, high) (float32 or float64) as a duet.Array (asynchronous)."""
    return _fill("uniform", shape, dtype, seed, offset, low, high, device, queue, out)


def normal(shape, dtype="float32", seed=0, offset=0, mean=0.0, stddev=1.0, device=None, queue=None, out=None):
    """Normal values N(mean, stddev^2) (Box-Muller) as a duet.Array (asynchronous)."""
    return _fill("normal", shape, dtype, seed, offset, mean, stddev, device, queue, out)


def bits(shape, seed=0, offset=0, device=None, queue=None, out=None):
    """Philox's raw 32-bit words as a uint32 duet.Array (asynchronous)."""
    return _fill("bits", shape, "uint32", seed, offset, 0, 0, device, queue, out)


def _host(kind, shape, dtype, seed, offset, a, b):
    out = _np.empty(shape, dtype=dtype)
    _duet._random_host(kind, out, int(seed), int(offset), float(a), float(b))
    return out


def host_uniform(shape, dtype="float32", seed=0, offset=0, low=0.0, high=1.0):
    """uniform() computed on the host: the same bits, in a NumPy array."""
    return _host("uniform", shape, dtype, seed, offset, low, high)


def host_normal(shape, dtype="float32", seed=0, offset=0, mean=0.0, stddev=1.0):
    """normal() computed on the host: the same bits, in a NumPy array."""
    return _host("normal", shape, dtype, seed, offset, mean, stddev)


def host_bits(shape, seed=0, offset=0):
    """bits() computed on the host."""
    return _host("bits", shape, "uint32", seed, offset, 0, 0)


def source():
    """The generator's dialect source, to prepend to kernels of your own."""
    return _duet._random_source()


class Generator:
    """A seed and a stream counter: each call draws from the next stream (offset 0, 1, 2, ...)."""

    def __init__(self, seed=0, device=None, offset=0):
        self.seed = int(seed)
        self.offset = int(offset)
        self.device = device

    def _next(self):
        offset = self.offset
        self.offset += 1
        return offset

    def uniform(self, shape, dtype="float32", low=0.0, high=1.0, queue=None, out=None):
        return uniform(shape, dtype, self.seed, self._next(), low, high, self.device, queue, out)

    def normal(self, shape, dtype="float32", mean=0.0, stddev=1.0, queue=None, out=None):
        return normal(shape, dtype, self.seed, self._next(), mean, stddev, self.device, queue, out)

    def bits(self, shape, queue=None, out=None):
        return bits(shape, self.seed, self._next(), self.device, queue, out)

    def __repr__(self):
        return f"duet.random.Generator(seed={self.seed}, offset={self.offset})"
