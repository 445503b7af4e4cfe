"""Double-precision NumPy references for duet's shared kernels, for checking results."""

import numpy as np


def heat(u, r, steps):
    """`steps` explicit steps of the 2D heat equation with a fixed boundary, as duet.heat takes them."""
    u = u.astype(np.float64)
    for _ in range(steps):
        v = u.copy()
        v[1:-1, 1:-1] = u[1:-1, 1:-1] + r * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] - 4 * u[1:-1, 1:-1])
        u = v
    return u
