"""Graphs: a smoothing step's ping-pong recorded once and replayed, checked bit for bit against the
same launches issued one by one, with the host time of each.

    python graph.py [--quick]
"""

import argparse
import time

import numpy as np

import duet

SOURCE = """
KERNEL void smooth(GLOBAL const float* x, GLOBAL float* y, const uint n) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i >= n) return;
  const float left = x[i == 0u ? 0u : i - 1u];
  const float right = x[i + 1u == n ? i : i + 1u];
  y[i] = (left + x[i] + right) / 3.0f;
}"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    device = duet.Device()
    q = device.queue()
    smooth = device.compile(SOURCE).smooth
    n, steps = 4096, (20 if args.quick else 500)
    start = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    a, b = duet.asarray(start, device=device), duet.empty_like(duet.asarray(start, device=device))
    c, d = duet.asarray(start, device=device), duet.empty_like(duet.asarray(start, device=device))

    # Ten steps recorded (nothing runs inside the block), then replayed as one operation each time.
    with duet.graph(q) as g:
        for _ in range(5):
            smooth(n, None, a, b, n, queue=q)
            smooth(n, None, b, a, n, queue=q)
    q.finish()
    began = time.perf_counter()
    for _ in range(steps // 10):
        g.replay()
    q.finish()
    replayed = time.perf_counter() - began

    began = time.perf_counter()
    for _ in range(steps // 2):
        smooth(n, None, c, d, n, queue=q)
        smooth(n, None, d, c, n, queue=q)
    q.finish()
    one_by_one = time.perf_counter() - began

    np.testing.assert_array_equal(a.get(queue=q), c.get(queue=q))
    print(f"{steps} steps on {device.id} ({g.path}): replayed {1e6 * replayed / steps:.2f} us/step, "
          f"one by one {1e6 * one_by_one / steps:.2f} us/step; results identical: OK")


if __name__ == "__main__":
    main()
