#!/usr/bin/env python3
"""cuBLAS on the GEMM suite (bench/gemm/suite.txt), through CuPy, beside duet-gemm-bench.

The same cases under the same names and the same method as bench/gemm/gemm_bench.cpp: buffer sets
spanning twice the L2 cache, C poisoned with NaN when beta == 0, a warm-up run on every set, timed
runs back to back behind filler copies with an event between each two (median and minimum), and a
fresh run on set 0 checked at sampled entries against float64 sums. SGEMM with TF32 off
(CUPY_TF32=0 is set before CuPy is imported; cuBLAS's default math mode), DGEMM for the f64 rows.
Row-major products go to cuBLAS as cupy.cublas.gemm does for C-ordered arrays (the transpose
identity, no copies); batches through cupy.matmul (cublasSgemmStridedBatched).

bfloat16 rows (bf16) run cuBLAS's bfloat16 GEMM through torch.matmul on CuPy's stream, with
bfloat16 reductions in bfloat16 turned off (float sums, as duet's), where PyTorch with CUDA is
installed; else through cupy.matmul where this CuPy multiplies ml_dtypes' bfloat16; else each
such row is reported skipped, saying why.

Usage (GPU machine): python3 bench/gemm/gemm_cublas.py --json cublas.json [--smoke] [--runs N]
"""
import os

os.environ["CUPY_TF32"] = "0"  # read when CuPy is imported

import argparse
import datetime
import math
import platform
import socket
import statistics
import sys

import numpy as np
import cupy as cp
import cupy.cublas

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from cupy_events import event_times  # noqa: E402  (bench/: what the CuPy peers share)
from peer_common import dumps  # noqa: E402  (bench/: what the peer benchmarks share)


def read_suite(path, scale):
    """The case list as gemm_bench.cpp reads it (dimensions >= 512 and batches >= 64 divided by scale)."""
    cases = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) != 10 or len(words[5]) != 2 or words[9] not in ("f32", "f64", "f16", "bf16", "tf32"):
                raise SystemExit("%s:%d: not `name class M N K ops alpha beta batch type`" % (path, number))
            name, cls, m, n, k, ops, alpha, beta, batch, dtype = words
            sc = lambda v, lo: max(1, v // scale) if scale > 1 and v >= lo else v
            cases.append(dict(name=name, cls=cls, M=sc(int(m), 512), N=sc(int(n), 512), K=sc(int(k), 512),
                              ops=ops, alpha=float(alpha), beta=float(beta), batch=sc(int(batch), 64), type=dtype))
    return cases


def bfloat16_backend():
    """How cuBLAS's bfloat16 GEMM is reached here: ("torch", torch), ("cupy", the bfloat16 dtype), or
    (None, why neither can)."""
    why = []
    try:
        import torch
        if torch.cuda.is_available():
            return "torch", torch
        why.append("PyTorch %s sees no CUDA device" % torch.__version__)
    except ImportError as e:
        why.append("no PyTorch (%s)" % e)
    try:
        import ml_dtypes
        dt = np.dtype(ml_dtypes.bfloat16)
        x = cp.asarray(np.ones((2, 2), dtype=dt))
        cp.matmul(x, x)
        return "cupy", dt
    except Exception as e:  # ImportError, or CuPy refusing the dtype
        why.append("CuPy %s does not multiply bfloat16 (%s: %s)" % (cp.__version__, type(e).__name__, e))
    return None, "; ".join(why)


def shape(c):
    s = "%dx%dx%d" % (c["M"], c["N"], c["K"])
    return s + (" x%d" % c["batch"] if c["batch"] > 1 else "")


class Bench:
    def __init__(self, args):
        self.args = args
        self.device = cp.cuda.Device(args.device)
        self.device.use()
        self.props = cp.cuda.runtime.getDeviceProperties(args.device)
        self.stream = cp.cuda.get_current_stream()
        self.l2 = float(self.props.get("l2CacheSize", 50e6)) or 50e6
        self.memory = float(self.props.get("totalGlobalMem", 0))
        self.rotation = 0.0 if args.smoke else 2.0 * self.l2
        self.default_runs = args.runs or (3 if args.smoke else 20)
        n = (1 << 18) if args.smoke else (1 << 26)
        self.filler = (cp.zeros(n, dtype=cp.float32), cp.zeros(n, dtype=cp.float32))
        self.rows = []
        self.bf16 = None  # bfloat16_backend(), probed at the first bf16 row
        self.settings = dict(CUPY_TF32=os.environ.get("CUPY_TF32"))
        self.versions = {}
        self.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    def name(self):
        name = self.props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def random(self, shape, dtype, seed):
        x = cp.random.RandomState(seed).random_sample(shape, dtype=cp.float64 if dtype == "f64" else cp.float32)
        x *= 2
        x -= 1
        if dtype == "f16":
            return x.astype(cp.float16)
        if dtype == "bf16":
            kind, how = self.bf16
            # Rounded to bfloat16 from the same float32 values either way.
            return how.from_dlpack(x).to(how.bfloat16) if kind == "torch" else x.astype(how)
        return x

    def bfloat16_ready(self):
        """Probes bfloat16_backend() once; None when bf16 rows can run, else why not."""
        if self.bf16 is None:
            self.bf16 = bfloat16_backend()
            kind, how = self.bf16
            if kind == "torch":
                # cuBLAS may otherwise add split-K partial sums in bfloat16; duet sums in float.
                how.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
                self.settings["torch_allow_bf16_reduced_precision_reduction"] = False
                self.versions["torch"] = how.__version__
            print("bfloat16 rows: %s" % ("through " + ("torch.matmul" if kind == "torch" else "cupy.matmul")
                                         if kind else "skipped: " + how), flush=True)
        return None if self.bf16[0] else self.bf16[1]

    def skipped_row(self, c, why):
        return dict(kernel="gemm", size=c["name"], **{"class": c["cls"]}, shape=shape(c), ops=c["ops"],
                    alpha=c["alpha"], beta=c["beta"], type=c["type"], impl="cublas", backend="cuda",
                    label="cuBLAS", ok=True, skipped=True, failure="skipped: " + why)

    def run_case(self, c):
        if c["type"] == "tf32":
            # CuPy reads CUPY_TF32 once, at import; TF32 rows are compared with PyTorch instead.
            raise ValueError("tf32 rows need cuBLAS with TF32 on (PyTorch's allow_tf32); this script runs CUPY_TF32=0")
        torch = None
        if c["type"] == "bf16":
            why = self.bfloat16_ready()
            if why:
                return self.skipped_row(c, why)
            if self.bf16[0] == "torch":
                torch = self.bf16[1]
        dt = {"f64": cp.float64, "f16": cp.float16}.get(c["type"], cp.float32)
        if c["type"] == "bf16":
            dt = torch.bfloat16 if torch else self.bf16[1]
        M, N, K, batch = c["M"], c["N"], c["K"], c["batch"]
        ta, tb = c["ops"][0] == "T", c["ops"][1] == "T"
        a_shape = (K, M) if ta else (M, K)
        b_shape = (N, K) if tb else (K, N)
        if batch > 1:
            if ta or tb or c["alpha"] != 1 or c["beta"] != 0:
                raise ValueError("batched cases run through cupy.matmul: NN, alpha 1, beta 0 only")
            a_shape, b_shape = (batch,) + a_shape, (batch,) + b_shape
        if c["type"] in ("f16", "bf16") and (c["alpha"] != 1 or c["beta"] != 0):
            raise ValueError("half and bfloat16 cases run through matmul: alpha 1, beta 0 only")
        c_shape = (batch, M, N) if batch > 1 else (M, N)
        item = {"f64": 8, "f16": 2, "bf16": 2}.get(c["type"], 4)
        set_bytes = float(item * (np.prod(a_shape) + np.prod(b_shape) + np.prod(c_shape)))
        sets = int(min(32, max(1, math.ceil(self.rotation / set_bytes))))
        while sets > 1 and self.memory > 0 and sets * set_bytes > 0.4 * self.memory:
            sets -= 1
        s = []
        for k in range(sets):
            C = torch.empty(c_shape, dtype=dt, device="cuda:%d" % self.args.device) if torch else \
                cp.empty(c_shape, dtype=dt)
            s.append([self.random(a_shape, c["type"], 10 * k + 1), self.random(b_shape, c["type"], 10 * k + 2), C])
        c0 = self.random(c_shape, c["type"], 3) if c["beta"] != 0 else None

        def reset(k):
            if torch:
                s[k][2].fill_(float("nan"))
            elif c0 is None:
                s[k][2].fill(np.nan)
            else:
                s[k][2][...] = c0

        for k in range(sets):
            reset(k)
        ops = ("T" if ta else "N", "T" if tb else "N")

        # PyTorch's launches go to CuPy's stream, between its events.
        torch_stream = None
        if torch:
            torch_stream = torch.cuda.ExternalStream(self.stream.ptr) if self.stream.ptr else \
                torch.cuda.default_stream(self.args.device)

        def enqueue(k):
            A, B, C = s[k]
            if torch:
                with torch.cuda.stream(torch_stream):
                    torch.matmul(A.transpose(-1, -2) if ta else A, B.transpose(-1, -2) if tb else B, out=C)
            elif batch > 1:
                cp.matmul(A, B, out=C)
            elif c["type"] in ("f16", "bf16"):
                # cupy.cublas.gemm takes no float16; matmul runs cuBLAS's half GEMM (float sums).
                cp.matmul(A.T if ta else A, B.T if tb else B, out=C)
            else:
                cupy.cublas.gemm(ops[0], ops[1], A, B, out=C, alpha=c["alpha"], beta=c["beta"])

        for k in range(sets):
            enqueue(k)
        self.stream.synchronize()
        flops = 2.0 * M * N * K * batch
        runs = min(max(3, math.ceil(2e13 / flops)), max(3, self.default_runs))
        for _ in range(2):
            cp.cuda.runtime.memcpyAsync(self.filler[1].data.ptr, self.filler[0].data.ptr, self.filler[0].nbytes,
                                        cp.cuda.runtime.memcpyDeviceToDevice, self.stream.ptr)
        ms = sorted(event_times(self.stream, runs, sets, enqueue))
        # A fresh run on set 0, checked at sampled entries (the corners among them) in float64.
        reset(0)
        enqueue(0)
        A, B, C = s[0]
        if torch:
            # As float32 (exact for bfloat16) in CuPy, for the check below.
            torch.cuda.synchronize(self.args.device)
            A, B, C = (cp.from_dlpack(t.float()) for t in (A, B, C))
        elif c["type"] == "bf16":
            A, B, C = (t.astype(cp.float32) for t in (A, B, C))
        rng = np.random.default_rng(7)
        idx = [(b, i, j) for b in {0, batch - 1} for i in {0, M - 1} for j in {0, N - 1}]
        idx += [(int(rng.integers(batch)), int(rng.integers(M)), int(rng.integers(N)))
                for _ in range(16 if K > 100000 else 40)]
        bi = cp.asarray([t[0] for t in idx])
        ii = cp.asarray([t[1] for t in idx])
        jj = cp.asarray([t[2] for t in idx])
        A3 = A if batch > 1 else A[None]
        B3 = B if batch > 1 else B[None]
        rows = (A3[bi, :, ii] if ta else A3[bi, ii, :]).astype(cp.float64)
        cols = (B3[bi, jj, :] if tb else B3[bi, :, jj]).astype(cp.float64)
        prod = rows * cols
        ref = c["alpha"] * prod.sum(axis=1)
        mag = abs(c["alpha"]) * cp.abs(prod).sum(axis=1)
        if c0 is not None:
            old = (c0 if batch > 1 else c0[None])[bi, ii, jj].astype(cp.float64)
            ref += c["beta"] * old
            mag += cp.abs(c["beta"] * old)
        got = (C if batch > 1 else C[None])[bi, ii, jj].astype(cp.float64)
        err = float(cp.max(cp.abs(got - ref) / cp.maximum(mag, 1e-300)))
        eps = 2.0 ** -53 if c["type"] == "f64" else 2.0 ** -24
        tol = 2.0 * (K + 2) * eps + {"f16": 2.0 ** -11, "bf16": 2.0 ** -8}.get(c["type"], 0.0)
        median = statistics.median(ms)
        label = "cuBLAS %s" % {"f64": "DGEMM", "f16": "HGEMM (float sums)",
                               "bf16": "bfloat16 GEMM (float sums, %s)" % (
                                   "torch.matmul" if torch else "cupy.matmul")}.get(c["type"], "SGEMM")
        return dict(kernel="gemm", size=c["name"], **{"class": c["cls"]}, shape=shape(c), ops=c["ops"],
                    alpha=c["alpha"], beta=c["beta"], type=c["type"], impl="cublas", backend="cuda", label=label,
                    plan="", sets=sets, runs=runs, median_ms=median, min_ms=ms[0], value=flops / (median * 1e-3) / 1e9,
                    unit="GFLOP/s", max_error=err, tolerance=tol, checked=len(idx), ok=bool(err <= tol),
                    skipped=False, failure="" if err <= tol else "wrong result: relative error %.2e" % err)

    def write(self):
        if not self.args.json:
            return
        doc = dict(tool="gemm_cublas", commit=os.environ.get("DUET_COMMIT", "unknown"), date=self.date,
                   host=socket.gethostname(), mode="smoke" if self.args.smoke else "gpu", scale=self.args.scale,
                   device=dict(id="cuda:%d" % self.args.device, name=self.name(), backend="cuda", kind="gpu",
                               platform="CUDA"),
                   versions=dict(cupy=cp.__version__, numpy=np.__version__, python=platform.python_version(),
                                 cuda_runtime=cp.cuda.runtime.runtimeGetVersion(),
                                 cuda_driver=cp.cuda.runtime.driverGetVersion(), **self.versions),
                   settings=self.settings, results=self.rows)
        with open(self.args.json, "w") as f:
            f.write(dumps(doc))

    def run(self, cases):
        print("cuBLAS through CuPy %s on %s (L2 %.0f MB), %d cases, CUPY_TF32=%s" % (
            cp.__version__, self.name(), self.l2 / 1e6, len(cases), os.environ.get("CUPY_TF32")), flush=True)
        failures = 0
        for c in cases:
            try:
                row = self.run_case(c)
            except Exception as e:  # one failure must not hide the rest
                row = dict(kernel="gemm", size=c["name"], **{"class": c["cls"]}, shape=shape(c), ops=c["ops"],
                           type=c["type"], impl="cublas", backend="cuda", ok=False, skipped=False,
                           failure="%s: %s" % (type(e).__name__, e))
            cp.get_default_memory_pool().free_all_blocks()
            if self.bf16 and self.bf16[0] == "torch":
                self.bf16[1].cuda.empty_cache()
            self.rows.append(row)
            failures += 0 if row["ok"] else 1
            status = row["failure"] if row.get("skipped") else "OK" if row["ok"] else "FAIL " + row["failure"]
            print("  %-20s %-20s %-3s cublas %10.4f ms %11.1f GFLOP/s err %.1e %s" % (
                c["name"], shape(c), c["ops"], row.get("median_ms", float("nan")), row.get("value", float("nan")),
                row.get("max_error", float("nan")), status), flush=True)
            self.write()
        print("%d rows, %d failed" % (len(self.rows), failures), flush=True)
        return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--cases", default=os.path.join(HERE, "suite.txt"), help="the case list")
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--runs", type=int, default=0, help="timed runs per case (default 20, fewer for long cases)")
    ap.add_argument("--scale", type=int, default=0, help="divide dimensions >= 512 and batches >= 64 by this")
    ap.add_argument("--smoke", action="store_true", help="--scale 8 (unless given), 3 runs, no cache rotation")
    ap.add_argument("--device", type=int, default=0, help="CUDA device index")
    args = ap.parse_args()
    if args.smoke and not args.scale:
        args.scale = 8
    args.scale = max(1, args.scale)
    cases = read_suite(args.cases, args.scale)
    if args.only:
        names = args.only.split(",")
        missing = [n for n in names if n not in {c["name"] for c in cases}]
        if missing:
            raise SystemExit("no case named %s in %s" % (", ".join(missing), args.cases))
        cases = [c for c in cases if c["name"] in names]
    return Bench(args).run(cases)


if __name__ == "__main__":
    sys.exit(main())
