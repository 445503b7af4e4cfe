"""A kernel compiled at run time with its unroll factor and block size as defines, timed over
several values with queue events: the tuning loop people write with PyCUDA or PyOpenCL, on CUDA or
OpenCL alike. Each variant is checked against NumPy before it is timed.

    python unroll_block.py [--quick]
"""

import argparse
import itertools

import numpy as np

import duet

# Each work-item scales UNROLL consecutive elements; BLOCK is the work-group size the launch uses
# and the kernel is told about (it could size SHARED memory with it).
SOURCE = """
KERNEL void scale(GLOBAL const float* RESTRICT x, GLOBAL float* RESTRICT y, const float a, const uint n) {
  const size_t first = GLOBAL_ID(0) * UNROLL;
#pragma unroll
  for (int k = 0; k < UNROLL; ++k) {
    const size_t i = first + k;
    if (i < n) y[i] = a * x[i] + (float)(BLOCK % 2);
  }
}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    device = duet.Device()
    n = 1 << (16 if args.quick else 24)
    unrolls = [1, 4] if args.quick else [1, 2, 4, 8]
    blocks = [64, 128] if args.quick else [64, 128, 256, 512]
    blocks = [b for b in blocks if b <= device.info.max_group_size]
    runs = 3 if args.quick else 20
    host = np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32)
    q = device.queue()
    x = duet.asarray(host, device, queue=q)
    y = duet.empty(n, device=device)
    print(f"scale of {n} floats on {device.id} ({device.name})")
    print(f"{'UNROLL':>6} {'BLOCK':>6} {'median ms':>10} {'GB/s':>8}")
    best = None
    for unroll, block in itertools.product(unrolls, blocks):
        kernel = device.compile(SOURCE, defines={"UNROLL": unroll, "BLOCK": block}).scale
        items = (n + unroll - 1) // unroll
        kernel(items, block, x, y, 2.0, n, queue=q)
        np.testing.assert_allclose(y.get(queue=q), 2.0 * host + block % 2, rtol=1e-6)
        times = []
        for _ in range(runs):
            with q.timer() as t:
                kernel(items, block, x, y, 2.0, n, queue=q)
            times.append(t.ms)
        ms = float(np.median(times))
        print(f"{unroll:>6} {block:>6} {ms:>10.4f} {2 * 4 * n / ms / 1e6:>8.1f}")
        if best is None or ms < best[0]:
            best = (ms, unroll, block)
    print(f"fastest: UNROLL={best[1]} BLOCK={best[2]} ({best[0]:.4f} ms)")


if __name__ == "__main__":
    main()
