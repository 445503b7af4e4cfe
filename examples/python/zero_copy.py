"""Zero-copy exchange with CuPy and PyTorch through DLPack: a CuPy array and a PyTorch CUDA tensor
become duet arrays sharing their memory (same pointer; a write on one side is seen on the other),
a duet kernel runs on them, and duet's result goes back the same way. Each part is skipped, with the
reason, where CuPy or PyTorch or a CUDA device is missing.

    python zero_copy.py
"""

import numpy as np

import duet

SCALE = """
KERNEL void scale(GLOBAL float* x, const float a, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) x[i] *= a;
}
"""


def cuda_device():
    for info in duet.devices():
        if info.backend == "cuda":
            return duet.Device(info.id)
    return None


def with_cupy(device, kernel):
    try:
        import cupy as cp
    except ImportError:
        print("CuPy: skipped (not installed)")
        return
    x = cp.arange(16, dtype=cp.float32)
    a = duet.from_dlpack(x, device=device)           # duet's view of CuPy's memory
    assert a.native_handle == x.data.ptr
    kernel(16, None, a, 3.0, 16)
    device.default_queue.finish()
    assert cp.allclose(x, cp.arange(16) * 3)           # CuPy sees duet's write
    y = cp.from_dlpack(duet.random.default_rng(1, device=device).standard_normal(1000))  # and duet's memory in CuPy
    print(f"CuPy: shared pointer {x.data.ptr:#x}; duet's normals in CuPy: mean {float(y.mean()):+.3f}")


def with_torch(device, kernel):
    try:
        import torch
    except ImportError:
        print("PyTorch: skipped (not installed)")
        return
    if not torch.cuda.is_available():
        print("PyTorch: skipped (no CUDA)")
        return
    t = torch.ones(16, device="cuda")
    a = duet.from_dlpack(t, device=device)
    assert a.native_handle == t.data_ptr()
    kernel(16, None, a, 5.0, 16)
    device.default_queue.finish()
    assert bool((t == 5).all())
    back = torch.from_dlpack(a)
    back += 1                                          # PyTorch writes duet's array
    torch.cuda.synchronize()
    assert np.all(a.get() == 6)
    print(f"PyTorch: shared pointer {t.data_ptr():#x}; writes seen both ways")


def main():
    if not duet.HAVE_DLPACK:
        print("skipped: this duet was built without DLPack")
        return
    device = cuda_device()
    if device is None:
        print("skipped: no CUDA device (zero copy with CuPy and PyTorch needs one)")
        return
    kernel = device.compile(SCALE).scale
    with_cupy(device, kernel)
    with_torch(device, kernel)


if __name__ == "__main__":
    main()
