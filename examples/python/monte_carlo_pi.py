"""Monte Carlo pi with the device's random numbers: each work-item draws points from Philox
(duet.random's dialect functions, prepended to the kernel) and counts those inside the unit circle;
the counts are summed with a ReductionKernel. The same seed gives the same estimate on every device
and backend, which the host reference confirms for the first points.

    python monte_carlo_pi.py [--quick]
"""

import argparse
import math

import numpy as np

import duet

KERNEL = """
KERNEL void count_inside(GLOBAL uint* counts, const ulong seed, const uint blocks_per_item, const uint items) {
  const size_t item = GLOBAL_ID(0);
  if (item >= items) return;
  uint inside = 0;
  for (uint b = 0; b < blocks_per_item; ++b) {
    const duet_philox4 r = duet_philox_block(seed, 0, (ulong)item * blocks_per_item + b);
    const float x0 = duet_uniform_float(r.x), y0 = duet_uniform_float(r.y);
    const float x1 = duet_uniform_float(r.z), y1 = duet_uniform_float(r.w);
    inside += (x0 * x0 + y0 * y0 < 1.0f) + (x1 * x1 + y1 * y1 < 1.0f);
  }
  counts[item] = inside;
}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    device = duet.Device()
    items, blocks = (4096, 16) if args.quick else (1 << 20, 64)
    kernel = device.compile(duet.random.source() + KERNEL, name="monte_carlo_pi.duet").count_inside
    counts = duet.empty(items, "uint32", device)
    total = duet.ReductionKernel(device, "ulong", "uint c", "c", "a + b", "0", "total")
    q = device.queue()
    with q.timer() as t:
        kernel(items, None, counts, args.seed, blocks, items, queue=q)
        inside = total(q, counts)
    points = items * blocks * 2
    estimate = 4.0 * inside / points
    print(f"pi ~ {estimate:.6f} from {points} points on {device.id} ({t.ms:.2f} ms); error {abs(estimate - math.pi):.2e}")
    # The host reference draws the same points: the first item's count must match.
    words = duet.random.host_bits(4 * blocks, seed=args.seed).reshape(-1, 4)
    u = (words >> 8).astype(np.float32) * np.float32(2.0 ** -24)
    first = int(np.sum(u[:, 0] * u[:, 0] + u[:, 1] * u[:, 1] < 1) + np.sum(u[:, 2] * u[:, 2] + u[:, 3] * u[:, 3] < 1))
    assert counts.get()[0] == first, (counts.get()[0], first)
    assert abs(estimate - math.pi) < 6 * math.sqrt(math.pi * (4 - math.pi) / points)


if __name__ == "__main__":
    main()
