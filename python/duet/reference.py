"""Double-precision references for checking duet's built-in kernels: the C++ ones `duet run` checks
with (reference/cpu_reference.hpp), so Python and C++ check against one definition."""

import numpy as np

from . import _duet


def heat(u, r, steps):
    """`steps` explicit steps of the 2D heat equation with a fixed boundary, as duet.heat takes them,
    in double from the float32 values of u (shape (ny, nx)); a float64 array."""
    return _duet._heat_reference(np.ascontiguousarray(u, dtype=np.float32), float(r), int(steps))
