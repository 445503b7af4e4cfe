"""Compiling and launching: defines, global and local sizes, arguments converted by the kernel's
declared parameter types (range-checked, never truncated), native kernels, and the errors."""

import numpy as np
import pytest

import duet

SAXPY = """
KERNEL void saxpy(GLOBAL const float* RESTRICT x, GLOBAL float* RESTRICT y, const float a, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) y[i] = a * x[i] + y[i] + OFFSET;
}
KERNEL void fill_int(GLOBAL int* out, const int v, const uchar small, const ulong big, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) out[i] = v + small + (int)(big >> 40);
}
"""


@pytest.fixture(scope="module")
def program(device):
    return device.compile(SAXPY, defines={"OFFSET": 1.5})


def test_launch_with_defines_and_sizes(device, program, queue):
    x = duet.asarray(np.arange(1000, dtype=np.float32), device)
    y = duet.zeros(1000, device=device)
    device.default_queue.finish()
    event = program.saxpy(1000, 64, x, y, 2.0, 1000, queue=queue)
    assert isinstance(event, duet.Event)
    queue.finish()
    np.testing.assert_allclose(y.get(queue=queue), 2.0 * np.arange(1000) + 1.5)
    # queue.launch, a tuple global size, local None
    queue.launch(program.kernel("saxpy"), (1000,), None, x, y, 1.0, 1000)
    np.testing.assert_allclose(y.get(queue=queue), 3.0 * np.arange(1000) + 3.0)


def test_signature_is_the_declaration(program):
    params = program.saxpy.signature
    assert [p.name for p in params] == ["x", "y", "a", "n"]
    assert [p.kind for p in params] == ["buffer", "buffer", "scalar", "scalar"]
    assert params[0].dtype == np.float32 and params[0].is_const
    assert params[3].dtype == np.uint32
    assert sorted(program.kernel_names) == ["fill_int", "saxpy"]


def test_scalars_are_converted_and_range_checked(device, program):
    out = duet.empty(4, "int32", device)
    program.fill_int(4, None, out, -7, np.uint8(3), 2 ** 41, 4)
    assert out.get().tolist() == [-7 + 3 + 2] * 4
    with pytest.raises(duet.ArgumentError, match="out of range"):
        program.fill_int(4, None, out, 2 ** 31, 0, 0, 4)
    with pytest.raises(TypeError, match="out of range"):  # ArgumentError is a TypeError too
        program.fill_int(4, None, out, 0, 256, 0, 4)
    with pytest.raises(duet.ArgumentError, match="out of range"):
        program.fill_int(4, None, out, 0, 0, -1, 4)
    with pytest.raises(duet.ArgumentError, match="integer"):
        program.fill_int(4, None, out, 1.5, 0, 0, 4)
    with pytest.raises(duet.ArgumentError, match="takes 5 arguments"):
        program.fill_int(4, None, out, 1)


def test_buffers_are_checked(device, program):
    ints = duet.zeros(8, "int32", device)
    floats = duet.zeros(8, device=device)
    with pytest.raises(duet.ArgumentError):
        program.saxpy(8, None, ints, floats, 1.0, 8)  # int32 array for a float* parameter
    with pytest.raises(duet.ArgumentError, match="duet.Array"):
        program.saxpy(8, None, np.zeros(8, np.float32), floats, 1.0, 8)


def test_compile_errors_carry_log_and_line(device):
    with pytest.raises(duet.CompileError) as info:
        device.compile("KERNEL void k(GLOBAL float* x) {\n  x[0] = 1.0f;\n  undeclared_thing = 2;\n}\n")
    assert info.value.line == 3
    assert "undeclared_thing" in info.value.log
    with pytest.raises(duet.KernelNotFoundError):
        device.compile(SAXPY, defines={"OFFSET": 0}).kernel("nope")


def test_native_kernels_take_typed_numpy_scalars(device):
    if device.backend == "cuda":
        src = 'extern "C" __global__ void add(float* x, int v) { x[threadIdx.x] += v; }'
    else:
        src = "__kernel void add(__global float* x, int v) { x[get_global_id(0)] += v; }"
    k = device.compile_native(src).kernel("add")
    # Read from the native source (and checked against the driver): a float buffer and an int.
    assert [(p.kind, p.type_name) for p in k.signature] == [("buffer", "float"), ("scalar", "int")]
    x = duet.zeros(4, device=device)
    k(4, 4, x, np.int32(3))
    k(4, 4, x, 2)  # a Python int converts to the declared int
    assert x.get().tolist() == [5.0] * 4
    with pytest.raises(duet.ArgumentError, match="int"):
        k(4, 4, x, np.float64(1.0))


def test_native_kernels_with_hidden_types_need_typed_scalars_or_a_declaration(device):
    if device.backend == "cuda":
        src = 'extern "C" __global__ void add(float* x, VALUE v) { x[threadIdx.x] += v; }'
        options = ["-DVALUE=int"]
    else:
        src = "typedef int VALUE;\n__kernel void add(__global float* x, VALUE v) { x[get_global_id(0)] += v; }"
        options = []
    program = device.compile_native(src, options=options)
    x = duet.zeros(4, device=device)
    k = program.kernel("add")
    # Neither driver resolves VALUE (CUDA tells sizes only, OpenCL names the typedef as written), so
    # an untyped Python number is refused rather than guessed.
    assert k.signature is None or [p.type_name for p in k.signature] == ["float", "VALUE"]
    with pytest.raises(duet.ArgumentError, match="numpy.int32"):
        k(4, 4, x, 3)
    k(4, 4, x, np.int32(3))
    declared = program.kernel("add", "float* x, int v")
    assert [p.type_name for p in declared.signature] == ["float", "int"]
    declared(4, 4, x, 2)
    assert x.get().tolist() == [5.0] * 4
    with pytest.raises(duet.ArgumentError, match="parameter 1"):  # a value where the kernel has a pointer
        program.kernel("add", "float x, int v")


def test_2d_launch(device):
    src = """
KERNEL void grid(GLOBAL int* out, const uint w, const uint h) {
  const size_t x = GLOBAL_ID(0), y = GLOBAL_ID(1);
  if (x < w && y < h) out[y * w + x] = (int)(y * 100 + x);
}"""
    out = duet.empty((3, 5), "int32", device)
    device.compile(src).grid((5, 3), (1, 1), out, 5, 3)
    np.testing.assert_array_equal(out.get(), np.arange(3)[:, None] * 100 + np.arange(5))


STORE = """
KERNEL void store(GLOBAL float* out, const float f, const int i, const uint u) {
  if (GLOBAL_ID(0) == 0) {
    out[0] = f;
    out[1] = (float)i;
    out[2] = (float)u;
  }
}
"""

# (parameter type, value): values C++'s conversion refuses (duet::convert_scalar: beyond float's
# range, beyond an int's, not a whole number), and values it takes. A launch must agree.
REFUSED = [("float", 1e39), ("float", -1e39), ("float", np.float64(1e39)), ("float", 2 ** 200),
           ("int", 2 ** 31), ("int", -2 ** 31 - 1), ("int", np.int64(2 ** 31)), ("int", 1.5),
           ("int", np.float32(1.5)), ("uint", -1), ("uint", 2 ** 32), ("uint", 2 ** 64)]
TAKEN = [("float", float("inf")), ("float", -float("inf")), ("float", float("nan")), ("float", np.float32("inf")),
         ("float", 3.4028234663852886e38), ("float", -3.4028234663852886e38), ("float", 2 ** 40),
         ("int", 2 ** 31 - 1), ("int", -2 ** 31), ("int", np.int16(-7)), ("uint", 2 ** 32 - 1), ("uint", np.uint8(255))]


def _launch_args(type_, value):
    args = {"float": 0.0, "int": 0, "uint": 0}
    args[type_] = value
    return args["float"], args["int"], args["uint"]


def test_python_refuses_what_cpp_refuses(device):
    program = device.compile(STORE)
    out = duet.zeros(3, device=device)
    x = duet.zeros(1, device=device)
    # A generated kernel's scalars are converted by C++ (the reference); a launch's by Python's
    # bindings through the same conversion.
    generated = {t: duet.ElementwiseKernel(device, f"float x, {t} v", "float y", "y = x + (float)v", f"add_{t}")
                 for t in ("float", "int", "uint")}
    for type_, value in REFUSED:
        with pytest.raises(duet.ArgumentError):
            generated[type_](x, value, duet.empty_like(x))
        with pytest.raises(duet.ArgumentError, match=rf"\({type_} \w\)") as info:
            program.store(1, None, out, *_launch_args(type_, value))
        assert "out of range" in str(info.value) or "takes an integer" in str(info.value)
    for type_, value in TAKEN:
        np.testing.assert_array_equal(generated[type_](x, value).get(), np.float32([value]))
        program.store(1, None, out, *_launch_args(type_, value))
        want = np.float32([float(v) for v in _launch_args(type_, value)])
        np.testing.assert_array_equal(out.get(), want)


def test_launch_range_errors_name_the_range(device):
    program = device.compile(STORE)
    out = duet.zeros(3, device=device)
    with pytest.raises(duet.ArgumentError, match=r"argument 2 \(float f\): 1e\+39 is out of range for float"):
        program.store(1, None, out, 1e39, 0, 0)
    with pytest.raises(duet.ArgumentError, match=r"\[-2147483648, 2147483647\]"):
        program.store(1, None, out, 0.0, 2 ** 31, 0)
    # bool is no number here, as before
    with pytest.raises(duet.ArgumentError, match="takes an integer"):
        program.store(1, None, out, 0.0, True, 0)
    with pytest.raises(duet.ArgumentError, match="takes a real number"):
        program.store(1, None, out, False, 0, 0)
