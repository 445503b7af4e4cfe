"""ElementwiseKernel: leaky ReLU, and a piecewise function with a helper in the preamble; both
checked against NumPy.

    python elementwise.py [--quick]
"""

import argparse

import numpy as np

import duet

PIECEWISE_HELPERS = """
DEVICE float smooth_step(float t) { return t * t * (3.0f - 2.0f * t); }
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    device = duet.Device()
    n = 1 << (12 if args.quick else 22)
    host = np.linspace(-3, 3, n, dtype=np.float32)
    x = duet.asarray(host, device)

    leaky = duet.ElementwiseKernel(device, "float x, float slope", "float y", "y = x > 0 ? x : slope * x",
                                   "leaky_relu")
    y = leaky(x, 0.01)  # outputs left out: allocated and returned
    np.testing.assert_allclose(y.get(), np.where(host > 0, host, np.float32(0.01) * host), rtol=1e-6)
    print(f"leaky_relu of {n} values on {device.id}: OK")

    # 0 below -1, a smooth step up to 1 between -1 and 1, then a line of slope `rise`.
    piecewise = duet.ElementwiseKernel(
        device, "float x, float rise", "float y",
        "if (x < -1.0f) y = 0.0f;\n"
        "else if (x < 1.0f) y = smooth_step(0.5f * (x + 1.0f));\n"
        "else y = 1.0f + rise * (x - 1.0f);",
        "piecewise", PIECEWISE_HELPERS)
    out = duet.empty_like(x)
    piecewise(x, 0.5, out)
    t = np.clip(0.5 * (host.astype(np.float64) + 1), 0, 1)
    expected = np.where(host < -1, 0, np.where(host < 1, t * t * (3 - 2 * t), 1 + 0.5 * (host - 1.0)))
    np.testing.assert_allclose(out.get(), expected, atol=1e-6)
    print(f"piecewise of {n} values on {device.id}: OK")


if __name__ == "__main__":
    main()
