"""A tiled shared-memory matrix product written in the dialect: each work-group loads TILE x TILE
blocks of A and B into SHARED memory, synchronises with BARRIER(), and accumulates. Checked against
duet.matmul (duet::blas's tuned kernel) and NumPy, and timed beside it.

    python tiled_matmul.py [--quick]
"""

import argparse

import numpy as np

import duet

SOURCE = """
KERNEL void tiled_matmul(GLOBAL const float* RESTRICT A, GLOBAL const float* RESTRICT B, GLOBAL float* RESTRICT C,
                         const uint M, const uint N, const uint K) {
  SHARED float a_tile[TILE][TILE];
  SHARED float b_tile[TILE][TILE];
  const uint tx = (uint)LOCAL_ID(0), ty = (uint)LOCAL_ID(1);
  const uint col = (uint)GROUP_ID(0) * TILE + tx, row = (uint)GROUP_ID(1) * TILE + ty;
  float sum = 0.0f;
  for (uint k0 = 0; k0 < K; k0 += TILE) {
    a_tile[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    b_tile[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    BARRIER();
    for (uint k = 0; k < TILE; ++k) sum += a_tile[ty][k] * b_tile[k][tx];
    BARRIER();
  }
  if (row < M && col < N) C[row * N + col] = sum;
}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    device = duet.Device()
    m, n, k = (96, 80, 72) if args.quick else (1024, 1024, 1024)
    tile = 16
    rng = np.random.default_rng(5)
    A = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    B = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    q = device.queue()
    dA, dB = duet.asarray(A, device, queue=q), duet.asarray(B, device, queue=q)
    dC = duet.empty((m, n), device=device)
    kernel = device.compile(SOURCE, defines={"TILE": tile}, name="tiled_matmul.duet").tiled_matmul
    groups = ((n + tile - 1) // tile * tile, (m + tile - 1) // tile * tile)
    kernel(groups, (tile, tile), dA, dB, dC, m, n, k, queue=q)
    mine = dC.get(queue=q)
    theirs = duet.matmul(dA, dB, queue=q).get(queue=q)
    exact = A.astype(np.float64) @ B
    scale = np.abs(A).astype(np.float64) @ np.abs(B)
    assert np.max(np.abs(mine - exact) / scale) < 1e-5
    assert np.max(np.abs(mine - theirs) / scale) < 1e-5
    runs = 3 if args.quick else 10
    def median_ms(enqueue):
        times = []
        for _ in range(runs):
            with q.timer() as t:
                enqueue()
            times.append(t.ms)
        return float(np.median(times))
    ours = median_ms(lambda: kernel(groups, (tile, tile), dA, dB, dC, m, n, k, queue=q))
    blas = median_ms(lambda: duet.matmul(dA, dB, out=dC, queue=q))
    flop = 2.0 * m * n * k
    print(f"{m}x{n}x{k} on {device.id}: tiled {ours:.3f} ms ({flop / ours / 1e6:.1f} GFLOP/s), "
          f"duet.matmul {blas:.3f} ms ({flop / blas / 1e6:.1f} GFLOP/s); results agree")


if __name__ == "__main__":
    main()
