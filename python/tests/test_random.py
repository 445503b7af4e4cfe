"""duet.random: the device's numbers equal the host reference bit for bit (floats and doubles, at
awkward lengths and offsets), Philox's known answers, statistics, Philox streams, and the dialect
source in a kernel of one's own."""

import numpy as np
import pytest

import duet
import duet.random as dr


def test_known_answers():
    assert dr.philox4x32_10([0, 0, 0, 0], [0, 0]) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    assert dr.philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]) == \
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]


@pytest.mark.parametrize("n", [1, 5, 4097])
def test_device_equals_host_bitwise(device, n):
    seed, offset = 2 ** 40 + n, 3
    np.testing.assert_array_equal(dr.bits_stream(n, seed, offset, device=device).get(), dr.host_bits(n, seed, offset))
    dtypes = ["float32", "float64"] if device.supports_double else ["float32"]
    for dtype in dtypes:
        u = dr.uniform_stream(n, dtype, seed, offset, -2.0, 3.0, device=device).get()
        assert u.tobytes() == dr.host_uniform(n, dtype, seed, offset, -2.0, 3.0).tobytes(), dtype
        z = dr.normal_stream(n, dtype, seed, offset, 1.0, 0.5, device=device).get()
        assert z.tobytes() == dr.host_normal(n, dtype, seed, offset, 1.0, 0.5).tobytes(), dtype


def test_statistics(device):
    z = dr.normal_stream(1 << 18, seed=7, device=device).get().astype(np.float64)
    assert abs(z.mean()) < 5 / np.sqrt(z.size)
    assert abs(z.var() - 1) < 5 * np.sqrt(2 / z.size)
    assert abs(np.mean(np.abs(z) > 2) - 0.0455) < 0.003
    u = dr.uniform_stream(1 << 18, seed=8, device=device).get()
    assert u.min() >= 0 and u.max() < 1
    counts = np.histogram(u, bins=16, range=(0, 1))[0]
    expected = u.size / 16
    assert ((counts - expected) ** 2 / expected).sum() < 50  # chi-square, 15 degrees of freedom


def test_philox_streams(device):
    g = dr.Philox(seed=5, device=device)
    a, b = g.normal(1000).get(), g.normal(1000).get()
    assert g.offset == 2
    assert not np.array_equal(a, b)
    assert np.array_equal(a, dr.normal_stream(1000, seed=5, offset=0, device=device).get())
    assert np.array_equal(b, dr.host_normal(1000, seed=5, offset=1))
    assert g.bits((2, 3)).shape == (2, 3)


def test_dialect_source_in_a_kernel(device):
    src = dr.source() + """
KERNEL void words(GLOBAL uint* out, const ulong seed, const uint n) {
  if (GLOBAL_ID(0) >= n) return;  // the global size is rounded up to whole groups
  const duet_philox4 r = duet_philox_block(seed, 0, GLOBAL_ID(0));
  out[GLOBAL_ID(0)] = r.y;
}"""
    out = duet.empty(16, "uint32", device)
    device.compile(src).words(16, None, out, 99, 16)
    np.testing.assert_array_equal(out.get(), dr.host_bits(64, seed=99)[1::4])
