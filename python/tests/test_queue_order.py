"""Arrays order themselves between queues: an operation on one queue that uses an array another
queue has pending work on waits for it, on the device. Each pair runs a slow kernel ahead of the first
operation, so that without that wait the second would run first and read (or overwrite) the wrong
values. Python's memory is all arrays, so DUET_CHECK's race detector (raw buffers, tested in C++)
never fires here; its error class is still duet's."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import duet

SLOW = """
KERNEL void slow(GLOBAL float* scratch, const uint n, const uint spins) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i >= n) return;
  float acc = (float)i * 1e-3f;
  for (uint k = 0; k < spins; ++k) acc = acc * 0.999999f + 1e-6f;
  scratch[i] = acc;
}
KERNEL void plus_one(GLOBAL const float* x, GLOBAL float* y, const uint n) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i < n) y[i] = x[i] + 1.0f;
}
"""
ITEMS = 4096
N = 1009  # a prime


@pytest.fixture(scope="module")
def slow(device):
    """A callable that enqueues a kernel of at least 40 ms on a queue (measured on this device)."""
    program = device.compile(SLOW)
    kernel = program.kernel("slow")
    scratch = duet.empty((ITEMS,), "float32", device=device)
    spins = 256
    q = device.queue()
    while True:
        start = time.perf_counter()
        q.launch(kernel, (ITEMS,), None, scratch, ITEMS, spins)
        q.finish()
        took = time.perf_counter() - start
        if took >= 0.04 or spins >= 1 << 28:
            break
        spins *= 8 if took < 0.0025 else 2
    return lambda queue: queue.launch(kernel, (ITEMS,), None, scratch, ITEMS, spins)


@pytest.fixture(scope="module")
def plus_one(device):
    return device.compile(SLOW).kernel("plus_one")


def test_a_read_on_the_default_queue_waits_for_a_kernel_on_another(device, slow):
    twice = duet.ElementwiseKernel(device, "float x", "float y", "y = 2*x", "twice")
    host = np.random.default_rng().random(N, dtype=np.float32)
    a = duet.asarray(host, device=device)
    b = duet.zeros((N,), "float32", device=device)
    q = device.queue()
    for _ in range(2):  # the first round compiles; the second only enqueues
        slow(q)
        twice(q, a, b)
        np.testing.assert_array_equal(b.get(), 2 * host)
        b.fill(0.0)


FIRSTS = ["launch", "elementwise", "copy", "write", "array", "fill", "read"]
SECONDS = ["get", "launch", "copy", "array", "sum", "fill", "dlpack"]


@pytest.mark.parametrize("first", FIRSTS)
@pytest.mark.parametrize("second", SECONDS)
def test_every_pair_of_operations_across_two_queues(device, slow, plus_one, first, second):
    if second == "dlpack" and not duet.HAVE_DLPACK:
        pytest.skip("duet was built without DLPack")
    rng = np.random.default_rng()
    a0 = rng.random(N, dtype=np.float32)
    b0 = rng.random(N, dtype=np.float32) + 2
    halve = duet.ElementwiseKernel(device, "float x", "float y", "y = 0.5f*x", "halve")
    for _ in range(2):  # the first round compiles; the second only enqueues
        q1, q2 = device.queue(), device.queue()
        a = duet.asarray(a0, device=device)
        b = duet.asarray(b0, device=device)
        c = duet.full((N,), np.nan, "float32", device=device)
        host_in = np.full(N, 7, np.float32)
        host_out = np.full(N, np.nan, np.float32)
        device.default_queue.finish()

        slow(q1)
        if first == "launch":
            q1.launch(plus_one, (N,), None, a, b, N)
            b1 = a0 + 1
        elif first == "elementwise":
            halve(q1, a, b)
            b1 = 0.5 * a0
        elif first == "copy":
            q1.copy(a, b)
            b1 = a0
        elif first == "write":
            q1.write(b, host_in)
            b1 = host_in
        elif first == "array":  # a new array, written on q1
            b = duet.multiply(a, 3.0, queue=q1)
            b1 = 3 * a0
        elif first == "fill":
            b.fill(5.0, queue=q1)
            b1 = np.full(N, 5, np.float32)
        else:  # read: the second operation's write must wait for it
            q1.read(b, host_out)
            b1 = b0

        want_b, want_c = b1, None
        if second == "get":
            got = b.get(queue=q2)
            np.testing.assert_allclose(got, b1, rtol=1e-6)
        elif second == "launch":
            q2.launch(plus_one, (N,), None, b, c, N)
            want_c = b1 + 1
        elif second == "copy":
            q2.copy(b, c)
            want_c = b1
        elif second == "array":
            c = duet.add(b, 1.0, queue=q2)
            want_c = b1 + 1
        elif second == "sum":
            s = duet.sum(b, queue=q2)
            np.testing.assert_allclose(float(s.get(queue=q2)), float(np.sum(b1, dtype=np.float64)), rtol=1e-5)
        elif second == "fill":
            b.fill(9.0, queue=q2)
            want_b = np.full(N, 9, np.float32)
        else:  # dlpack: duet's own consumer; the export waits for every queue's pending writes
            c = duet.from_dlpack(b, device=device)
            np.testing.assert_allclose(c.get(), b1, rtol=1e-6)
            want_c = None
        q1.finish()
        q2.finish()
        np.testing.assert_allclose(b.get(queue=q1), want_b, rtol=1e-6)
        if first == "read":
            np.testing.assert_array_equal(host_out, b0)
        if want_c is not None:
            np.testing.assert_allclose(c.get(queue=q1), want_c, rtol=1e-6)


CHECKED = """
import duet, numpy as np
d = duet.Device()
k = d.compile('''KERNEL void w(GLOBAL float* y, const uint n) { const uint i = (uint)GLOBAL_ID(0); if (i < n) y[i] = 1.0f; }''').kernel("w")
q1, q2 = d.queue(), d.queue()
a = duet.zeros((64,), "float32", device=d)
q1.launch(k, (64,), None, a, 64)
print("array", a.get(queue=q2)[0])  # an array orders itself: no error under DUET_CHECK
"""


def test_arrays_raise_no_alarm_under_duet_check(device):
    env = dict(os.environ, DUET_CHECK="1")
    r = subprocess.run([sys.executable, "-c", CHECKED], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "array 1.0" in r.stdout


def test_unordered_access_error_is_a_duet_error():
    assert issubclass(duet.UnorderedAccessError, duet.Error)
    assert duet.UnorderedAccessError.kind == "unordered_access"
