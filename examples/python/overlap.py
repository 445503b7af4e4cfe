"""Two queues overlapping copies and compute: the data is cut into chunks; while one queue runs the
kernel on chunk i, the other copies chunk i+1 in from pinned host memory, and events order each
chunk's kernel after its copy. The same work on one queue, serialised, is timed for comparison
(on a CPU device such as PoCL there is no copy engine, so expect little gain there).

    python overlap.py [--quick]
"""

import argparse
import time

import numpy as np

import duet

SOURCE = """
KERNEL void work(GLOBAL float* x, const uint n, const int rounds) {
  const size_t i = GLOBAL_ID(0);
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < rounds; ++r) v = v * 0.9999f + 0.0001f;
  x[i] = v;
}
"""


def run(device, kernel, host, chunks, rounds, queues):
    n = host.size // chunks
    parts = [duet.empty(n, device=device) for _ in range(chunks)]
    copy_q, compute_q = queues
    start = time.perf_counter()
    first = copy_q.record()
    for i in range(chunks):
        copy_q.write(parts[i], host[i * n:(i + 1) * n])
        compute_q.wait(copy_q.record())            # chunk i's kernel waits for chunk i's copy only
        kernel(n, None, parts[i], n, rounds, queue=compute_q)
    copy_q.wait(compute_q.record())
    last = copy_q.record()
    copy_q.finish()
    compute_q.finish()
    wall = (time.perf_counter() - start) * 1e3
    return duet.elapsed_ms(first, last), wall, parts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    device = duet.Device()
    total, chunks, rounds = ((1 << 16), 4, 50) if args.quick else ((1 << 26), 8, 200)
    host = duet.pinned_empty(total, "float32", device)
    host[:] = np.random.default_rng(0).uniform(0, 1, total)
    kernel = device.compile(SOURCE).work
    q1, q2 = device.queue(), device.queue()
    run(device, kernel, host, chunks, rounds, (q1, q2))  # warm-up: compiles, touches memory
    serial, serial_wall, _ = run(device, kernel, host, chunks, rounds, (q1, q1))
    overlapped, overlap_wall, parts = run(device, kernel, host, chunks, rounds, (q1, q2))
    expected = host[: total // chunks].astype(np.float64)
    for _ in range(rounds):
        expected = expected * 0.9999 + 0.0001
    np.testing.assert_allclose(parts[0].get(), expected, rtol=1e-4)
    print(f"{chunks} chunks of {total // chunks} floats on {device.id}: one queue {serial:.2f} ms "
          f"({serial_wall:.1f} ms wall), two queues {overlapped:.2f} ms ({overlap_wall:.1f} ms wall)")


if __name__ == "__main__":
    main()
