"""ReductionKernel: the Euclidean norm of a vector (map x*x, reduce a+b), and the largest absolute
value (map fabs(x), reduce fmax), checked against NumPy.

    python vector_norm.py [--quick]
"""

import argparse
import math

import numpy as np

import duet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    device = duet.Device()
    n = 1 << (14 if args.quick else 24)
    host = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    x = duet.asarray(host, device)

    sum_of_squares = duet.ReductionKernel(device, "float", "float x", "x * x", "a + b", "0", "sum_of_squares")
    largest = duet.ReductionKernel(device, "float", "float x", "fabs(x)", "fmax(a, b)", "0", "largest")
    q = device.queue()
    with q.timer() as t:
        norm = math.sqrt(sum_of_squares(q, x))
    expected = float(np.linalg.norm(host.astype(np.float64)))
    print(f"norm of {n} values on {device.id}: {norm:.6f} (NumPy {expected:.6f}), {t.ms:.3f} ms")
    assert abs(norm - expected) <= 1e-4 * expected
    assert largest(x) == float(np.abs(host).max())
    print("largest |x|: OK")


if __name__ == "__main__":
    main()
