"""cuBLAS's TF32 GEMM at 8192^3 through PyTorch (allow_tf32), the peer of duet's tf8192 and tf8192-nt rows.

CuPy runs cuBLAS with TF32 off (gemm_cublas.py), so TF32 goes through torch.matmul. Each shape: three
warm-up products, then the median of 11 timed by CUDA events. Prints one line per shape.
"""
import sys


def main():
    try:
        import torch
    except ImportError:
        print("torch_tf32: PyTorch is not installed; no TF32 peer")
        return 0
    if not torch.cuda.is_available():
        print("torch_tf32: PyTorch sees no CUDA device; no TF32 peer")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = True
    n = 8192
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    for name, right in (("tf8192", b), ("tf8192-nt", b.t())):
        for _ in range(3):
            torch.matmul(a, right)
        times = []
        for _ in range(11):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            torch.matmul(a, right)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        times.sort()
        ms = times[len(times) // 2]
        print("  %-10s %dx%dx%d  torch tf32  %.4f ms  %.1f GFLOP/s" % (name, n, n, n, ms, 2.0 * n**3 / ms / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
