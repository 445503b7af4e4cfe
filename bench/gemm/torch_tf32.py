"""cuBLAS's TF32 GEMM at 8192^3 through PyTorch (allow_tf32), the peer of duet's tf8192 and tf8192-nt rows.

CuPy runs cuBLAS with TF32 off (gemm_cublas.py), so TF32 goes through torch.matmul. Each shape: three
warm-up products, then the median of 11 timed by CUDA events. Prints one line per shape; --json PATH
also writes the rows as gemm_cublas.py does (impl "cublas", class "tf32"), for bench/gemm/gemm_report.py.
"""
import argparse
import datetime
import json
import os
import sys


def write_json(path, torch, rows):
    """The rows in gemm_cublas.py's document shape, so that the report puts them in its cuBLAS column."""
    doc = {"tool": "gemm_cublas", "commit": os.environ.get("DUET_COMMIT", "unknown"),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "mode": "gpu", "scale": 1,
           "device": {"id": "cuda:0", "name": torch.cuda.get_device_name(0), "backend": "cuda", "kind": "gpu",
                      "platform": "CUDA"},
           "versions": {"torch": torch.__version__}, "settings": {"allow_tf32": True}, "results": rows}
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=2)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="also write the rows here (gemm_cublas.py's format)")
    args = ap.parse_args()
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
    rows = []
    for name, right, ops in (("tf8192", b, "NN"), ("tf8192-nt", b.t(), "NT")):
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
        gflops = 2.0 * n**3 / ms / 1e6
        print("  %-10s %dx%dx%d  torch tf32  %.4f ms  %.1f GFLOP/s" % (name, n, n, n, ms, gflops))
        rows.append({"kernel": "gemm", "size": name, "class": "tf32", "shape": "%dx%dx%d" % (n, n, n), "ops": ops,
                     "alpha": 1.0, "beta": 0.0, "type": "f32", "impl": "cublas", "backend": "cuda",
                     "label": "cuBLAS TF32 through torch.matmul (allow_tf32)", "plan": "", "sets": 1,
                     "runs": len(times), "median_ms": ms, "min_ms": times[0], "value": gflops,
                     "unit": "GFLOP/s", "ok": True, "skipped": False, "failure": ""})
    if args.json:
        write_json(args.json, torch, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
