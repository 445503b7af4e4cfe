"""The 2-D heat equation with duet.heat from Python: a hot disc spreads over a cold plate whose
edges are held at 0. Checked against a NumPy reference for the first steps, then run on and drawn
with matplotlib (skipped, with a note, where matplotlib is missing).

    python heat.py [--quick] [--png heat.png]
"""

import argparse
import time

import numpy as np

import duet
from duet import reference


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--png", default="heat.png")
    args = parser.parse_args()
    device = duet.Device()
    n, steps = (128, 200) if args.quick else (1024, 2000)
    r = 0.24
    yy, xx = np.mgrid[0:n, 0:n]
    u0 = np.where((xx - n / 2) ** 2 + (yy - n / 2) ** 2 < (n / 5) ** 2, 1.0, 0.0).astype(np.float32)

    q = device.queue()
    u = duet.asarray(u0, device, queue=q)
    scratch = duet.empty_like(u)
    duet.heat(u, 10, r, scratch=scratch, queue=q)
    np.testing.assert_allclose(u.get(queue=q), reference.heat(u0, r, 10), atol=1e-5)

    start = time.perf_counter()
    with q.timer() as t:
        duet.heat(u, steps, r, scratch=scratch, queue=q)
    field = u.get(queue=q)
    wall = time.perf_counter() - start
    print(f"{n}x{n}, {steps} steps on {device.id}: {t.ms:.2f} ms device time ({wall * 1e3:.1f} ms wall); "
          f"field min {field.min():.4f} max {field.max():.4f} mean {field.mean():.5f}")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no picture")
        return
    fig, axes = plt.subplots(1, 2, figsize=(9, 4))
    for ax, data, title in ((axes[0], u0, "start"), (axes[1], field, f"after {steps + 10} steps")):
        image = ax.imshow(data, cmap="inferno", vmin=0, vmax=1)
        ax.set_title(title)
        ax.axis("off")
    fig.colorbar(image, ax=axes, shrink=0.8)
    fig.savefig(args.png, dpi=80)
    print(f"picture: {args.png}")


if __name__ == "__main__":
    main()
