"""ElementwiseKernel and ReductionKernel: the C++ constructor signatures, calls with and without a
queue, outputs allocated when left out, scalars converted by the generator, and the errors."""

import numpy as np
import pytest

import duet


def test_elementwise_leaky_relu(device):
    leaky = duet.ElementwiseKernel(device, "float x, float slope", "float y", "y = x > 0 ? x : slope * x",
                                   "leaky_relu")
    host = np.linspace(-2, 2, 101).astype(np.float32)
    x = duet.asarray(host, device)
    y = duet.empty_like(x)
    event = leaky(x, 0.1, y)
    assert isinstance(event, duet.Event)
    np.testing.assert_allclose(y.get(), np.where(host > 0, host, np.float32(0.1) * host), rtol=1e-6)
    q = device.queue()
    leaky(q, x, 0.5, y)  # the C++ order: queue first
    np.testing.assert_allclose(y.get(queue=q), np.where(host > 0, host, 0.5 * host), rtol=1e-6)
    z = leaky(x, 0.0)  # outputs left out: allocated and returned
    assert z.shape == x.shape
    np.testing.assert_allclose(z.get(), np.maximum(host, 0))


def test_elementwise_errors(device):
    with pytest.raises(duet.ArgumentError):
        duet.ElementwiseKernel(device, "float x", "", "x")  # no outputs
    k = duet.ElementwiseKernel(device, "int x", "int y", "y = x + 1", "inc")
    x = duet.asarray(np.arange(4, dtype=np.int32), device)
    with pytest.raises(duet.BufferSizeError):
        k(x, duet.empty(5, "int32", device))
    with pytest.raises(duet.ArgumentError):
        k(x, duet.empty(4, "float32", device))
    broken = duet.ElementwiseKernel(device, "float x", "float y", "y = x +* 2", "broken")
    with pytest.raises(duet.CompileError) as info:
        broken(duet.zeros(2, device=device))
    assert info.value.line == 1 and info.value.source_name == "broken.body"


def test_reduction_sum_norm_and_reduce_into(device):
    host = np.arange(10000, dtype=np.float32) % 7
    x = duet.asarray(host, device)
    total = duet.ReductionKernel(device, "float", "float x", "x", "a + b", "0", "sum")
    assert total(x) == float(host.sum())
    norm2 = duet.ReductionKernel(device, "float", "float x", "x * x", "a + b", "0", "norm2")
    assert norm2(x) == pytest.approx(float((host.astype(np.float64) ** 2).sum()), rel=1e-5)
    count = duet.ReductionKernel(device, "long", "float x, float t", "x > t ? 1 : 0", "a + b", "0", "count")
    assert count(x, 3.0) == int((host > 3).sum())
    result = duet.empty(1, "float32", device)
    total.reduce_into(result, x).wait()
    assert result.get()[0] == float(host.sum())
    assert total.result_dtype == np.float32


def test_compile_ahead(device):
    scale = duet.ElementwiseKernel(device, "float x, float a", "float y", "y = a * x", "scale_ahead")
    assert scale.compiled_variants == 0
    scale.compile_ahead([["array", "array", "array"], ["array", "scalar", "array"]])
    assert scale.compiled_variants == 2
    x = duet.asarray(np.arange(5, dtype=np.float32), device)
    np.testing.assert_allclose(scale(x, 2.0).get(), 2 * np.arange(5))
    assert scale.compiled_variants == 2  # the call compiled nothing
    total = duet.ReductionKernel(device, "float", "float x", "x", "a + b", "0", "sum_ahead")
    total.compile_ahead()
    assert total.compiled_variants == 1
    assert total(x) == 10.0
    assert total.compiled_variants == 1
    with pytest.raises(duet.ArgumentError, match="'array' or 'scalar'"):
        total.compile_ahead(["vector"])
