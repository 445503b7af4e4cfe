#!/usr/bin/env python3
"""The peer side of duet's benchmark on an NVIDIA GPU: the same work through CuPy.

Device-to-device copy (cudaMemcpyAsync), cupy.add / cupy.multiply, cupy.matmul in float32 (cuBLAS
SGEMM with TF32 off: CUPY_TF32=0 is set before CuPy is imported), a straightforward 5-point stencil
as a CuPy RawKernel (one step per launch, and many steps ping-ponging), and back-to-back small
cupy.add launches timed on the host. The sizes, the buffer-set rotation past the L2 cache, the
warm-up, the event timing and the median follow bench/cases.cpp, and every result is written under
the same (kernel, size) keys as duet's JSON, so bench/report.py can put them side by side.
cuBLAS SGEMM rows carry role "ceiling": given to `duet bench --peer`, they become matmul's limit.

Usage (GPU machine): python3 bench/compare_cupy.py --json cupy.json [--smoke] [--runs N]
"""
import os

os.environ["CUPY_TF32"] = "0"  # read when CuPy is imported: float32 matmul stays float32

import argparse
import datetime
import json
import math
import platform
import socket
import statistics
import sys
import time

import numpy as np
import cupy as cp

HEAT_R = np.float32(0.24)

# One explicit heat step, v = u + r (west + east + north + south - 4u), boundary cells copied:
# the plain one-thread-per-cell stencil anyone would write first.
STENCIL_SOURCE = r"""
extern "C" __global__ void stencil5(const float* __restrict__ u, float* __restrict__ v,
                                    const int nx, const int ny, const float r) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const size_t i = (size_t)y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    v[i] = u[i];
    return;
  }
  v[i] = u[i] + r * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0f * u[i]);
}
"""

FLOAT_EPS = 2.0 ** -24


def count_label(n):
    return "n=2^%d" % (n.bit_length() - 1) if n > 0 and n & (n - 1) == 0 else "n=%d" % n


def plan(smoke, runs):
    """The GPU plan of bench/plan.cpp (or its smoke plan)."""
    if smoke:
        p = dict(copy_n=1 << 20, vector_n=[1 << 16, 1 << 20], matmul=[64, 128], heat_step=[256],
                 heat_side=256, heat_steps=8, launches=100, launch_reps=3, runs=3, min_sets=2,
                 rotation=0.0, mode="smoke")
    else:
        p = dict(copy_n=1 << 28, vector_n=[1 << 20, 1 << 24, 1 << 26, 1 << 28],
                 matmul=[1024, 2048, 4096, 8192], heat_step=[4096, 8192], heat_side=8192, heat_steps=64,
                 launches=1000, launch_reps=7, runs=30, min_sets=1, rotation=None, mode="gpu")
    if runs:
        p["runs"] = runs
    p["heat_runs"] = max(2 if smoke else 3, p["runs"] // 3)
    return p


def summarize(ms):
    ms = sorted(ms)
    return {"median_ms": statistics.median(ms), "min_ms": ms[0], "runs": len(ms)}


class Bench:
    def __init__(self, args):
        self.args = args
        self.device = cp.cuda.Device(args.device)
        self.device.use()
        self.props = cp.cuda.runtime.getDeviceProperties(args.device)
        self.stream = cp.cuda.get_current_stream()
        self.l2 = float(self.props.get("l2CacheSize", 50e6)) or 50e6
        self.memory = float(self.props.get("totalGlobalMem", 0))
        self.p = plan(args.smoke, args.runs)
        if self.p["rotation"] is None:
            self.p["rotation"] = 2.0 * self.l2
        # The copy buffers must not fit in L2 either: at least 4x it.
        while not args.smoke and self.p["copy_n"] * 4 < 4.0 * self.l2:
            self.p["copy_n"] *= 2
        self.results = []
        self.filler = None  # (src, dst, ms): a big copy that keeps the GPU busy while Python enqueues
        self.stencil = cp.RawKernel(STENCIL_SOURCE, "stencil5")
        self.rng = np.random.default_rng(2026)

    # --- helpers -----------------------------------------------------------------------------------
    def sets_for(self, set_bytes):
        sets = max(self.p["min_sets"], int(math.ceil(self.p["rotation"] / set_bytes)))
        sets = min(sets, 32)
        while sets > 1 and self.memory > 0 and sets * set_bytes > 0.5 * self.memory:
            sets -= 1
        return sets

    def random(self, shape, lo, hi, seed):
        rs = cp.random.RandomState(seed)
        x = rs.random_sample(shape, dtype=cp.float32)
        x *= np.float32(hi - lo)
        x += np.float32(lo)
        return x

    def memcpy(self, dst, src):
        cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, src.nbytes,
                                    cp.cuda.runtime.memcpyDeviceToDevice, self.stream.ptr)

    def time_runs(self, runs, sets, launches_per_run, enqueue):
        """Device time per run, run r on set r % sets, events between runs (see bench/cases.cpp)."""
        if self.filler is not None:
            src, dst, ms = self.filler
            host_ms = 0.03 * runs * (launches_per_run + 1)  # Python enqueues slower than C++
            for _ in range(min(8, int(math.ceil(host_ms / ms)))):
                self.memcpy(dst, src)
        marks = [cp.cuda.Event()]
        marks[0].record(self.stream)
        for r in range(runs):
            enqueue(r % sets)
            e = cp.cuda.Event()
            e.record(self.stream)
            marks.append(e)
        marks[-1].synchronize()
        return summarize([cp.cuda.get_elapsed_time(marks[r], marks[r + 1]) for r in range(runs)])

    def add(self, kernel, size, timing, work, unit, per_unit, max_error=float("nan"), tolerance=float("nan"),
            sets=1, role="peer", label="", norm_error=float("nan"), note="", check="", value=None):
        """Records a row: value = work per median second / per_unit, unless given."""
        if value is None:
            value = work / (timing["median_ms"] * 1e-3) / per_unit if timing["median_ms"] > 0 else float("nan")
        ok = bool(max_error <= tolerance) if not math.isnan(tolerance) else True
        row = dict(kernel=kernel, size=size, impl="cupy", label=label or "CuPy", role=role, sets=sets,
                   work=work, unit=unit, value=value, max_error=max_error, tolerance=tolerance,
                   norm_error=norm_error, ok=ok, note=note, check=check, **timing)
        self.results.append(row)
        print("  %-10s %-22s %10.4f ms  %12.2f %-9s err %.1e %s %s" % (
            kernel, size, timing["median_ms"], value, unit, max_error, "OK" if ok else "FAIL", note), flush=True)
        self.write()

    def fail(self, kernel, size, error):
        self.results.append(dict(kernel=kernel, size=size, impl="cupy", label="CuPy", role="peer", ok=False,
                                 failure="%s: %s" % (type(error).__name__, error)))
        print("  %-10s %-22s FAILED: %s" % (kernel, size, error), flush=True)
        cp.get_default_memory_pool().free_all_blocks()
        self.write()

    def write(self):
        name = self.props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        try:
            compute_type = str(cp._core.get_compute_type(cp.float32))
        except Exception:  # private API: informative only
            compute_type = "unknown"
        doc = dict(
            tool="compare_cupy", schema=1,
            date=self.date, commit=os.environ.get("DUET_COMMIT", "unknown"), host=socket.gethostname(),
            command=" ".join(sys.argv), mode=self.p["mode"],
            device=dict(name=name, backend="cuda", index=self.args.device, l2_bytes=self.l2,
                        memory_bytes=self.memory, compute_units=self.props.get("multiProcessorCount"),
                        compute_capability="%d.%d" % (self.props.get("major", 0), self.props.get("minor", 0))),
            versions=dict(cupy=cp.__version__, numpy=np.__version__, python=platform.python_version(),
                          cuda_runtime=cp.cuda.runtime.runtimeGetVersion(),
                          cuda_driver=cp.cuda.runtime.driverGetVersion()),
            settings=dict(CUPY_TF32=os.environ.get("CUPY_TF32"), float32_compute_type=compute_type),
            results=self.results)
        if self.args.json:
            with open(self.args.json, "w") as f:
                f.write(dumps(doc))

    # --- cases -------------------------------------------------------------------------------------
    def copy_case(self):
        n = self.p["copy_n"]
        src = self.random(n, -1, 1, 1)
        dst = cp.full(n, np.nan, dtype=cp.float32)
        for _ in range(2):
            self.memcpy(dst, src)
        self.stream.synchronize()
        t = self.time_runs(self.p["runs"], 1, 1, lambda k: self.memcpy(dst, src))
        err = float(cp.max(cp.abs(dst - src)))
        self.add("copy", count_label(n), t, 2.0 * n * 4, "GB/s", 1e9, err, 0.0, label="cudaMemcpyAsync",
                 check="every element")
        self.filler = (src, dst, t["median_ms"])

    def elementwise_case(self, kernel, n):
        op = cp.add if kernel == "vector_add" else cp.multiply
        sets = self.sets_for(12.0 * n)
        s = []
        for k in range(sets):
            a = self.random(n, -1, 1, 100 + k)
            b = self.random(n, -1, 1, 200 + k)
            s.append((a, b, cp.full(n, np.nan, dtype=cp.float32)))
        enqueue = lambda k: op(s[k][0], s[k][1], out=s[k][2])
        for k in range(sets):
            enqueue(k)
        self.stream.synchronize()
        t = self.time_runs(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for a, b, c in s:
            a64, b64 = a.astype(cp.float64), b.astype(cp.float64)
            ref = a64 + b64 if kernel == "vector_add" else a64 * b64
            del a64, b64
            e = float(cp.max(cp.abs(c.astype(cp.float64) - ref)))
            worst = e if (math.isnan(e) or e > worst) else worst
        tol = (4.0 if kernel == "vector_add" else 2.0) * FLOAT_EPS
        self.add(kernel, count_label(n), t, 12.0 * n, "GB/s", 1e9, worst, tol, sets=sets,
                 label="cupy.add" if kernel == "vector_add" else "cupy.multiply",
                 check="%d sets, every element" % sets)

    def matmul_case(self, n):
        M = N = K = n
        sets = self.sets_for(4.0 * (M * K + K * N + M * N))
        s = []
        for k in range(sets):
            s.append((self.random((M, K), -1, 1, 300 + k), self.random((K, N), -1, 1, 400 + k),
                      cp.full((M, N), np.nan, dtype=cp.float32)))
        enqueue = lambda k: cp.matmul(s[k][0], s[k][1], out=s[k][2])
        for k in range(sets):
            enqueue(k)
        self.stream.synchronize()
        t = self.time_runs(self.p["runs"], sets, 1, enqueue)
        # Sampled rows against a float64 product on the GPU: relative error per entry (to
        # sum |a_ik b_kj|) and norm-wise. TF32 would show as ~1e-4 norm-wise; float32 as ~1e-7.
        worst, worst_norm, rows_checked = 0.0, 0.0, 0
        for A, B, C in s:
            rows = cp.asarray(np.unique(self.rng.integers(0, M, size=min(M, 64))))
            A64 = A[rows].astype(cp.float64)
            B64 = B.astype(cp.float64)
            ref = A64 @ B64
            mag = cp.abs(A64) @ cp.abs(B64)
            del B64
            diff = cp.abs(C[rows].astype(cp.float64) - ref)
            e = float(cp.max(diff / cp.maximum(mag, 1e-300)))
            norm = float(cp.linalg.norm(diff) / cp.linalg.norm(ref))
            worst = e if (math.isnan(e) or e > worst) else worst
            worst_norm = norm if (math.isnan(norm) or norm > worst_norm) else worst_norm
            rows_checked = int(rows.size)
        note = "" if worst_norm < 1e-5 else "norm-wise error %.1e: TF32 or another reduced precision?" % worst_norm
        self.add("matmul", "%dx%dx%d" % (M, N, K), t, 2.0 * M * N * K, "GFLOP/s", 1e9, worst, (K + 2) * FLOAT_EPS,
                 sets=sets, role="ceiling", label="cuBLAS SGEMM", norm_error=worst_norm, note=note,
                 check="%d sets, %d rows each" % (sets, rows_checked))

    def stencil_launch(self, u, v, nx, ny):
        block = (32, 8, 1)
        grid = ((nx + 31) // 32, (ny + 7) // 8, 1)
        self.stencil(grid, block, (u, v, np.int32(nx), np.int32(ny), HEAT_R))

    @staticmethod
    def heat_reference(u0, steps):
        u = u0.astype(cp.float64)
        r = float(HEAT_R)
        for _ in range(steps):
            v = u.copy()
            c = u[1:-1, 1:-1]
            v[1:-1, 1:-1] = c + r * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] - 4.0 * c)
            u = v
        return u

    def heat_case(self, side, steps, runs):
        single = steps == 1
        cells = side * side
        sets = self.sets_for(8.0 * cells)
        s = []
        for k in range(sets):
            init = self.random((side, side), 0, 1, 500 + k)
            s.append([init, init.copy(), cp.full((side, side), np.nan, dtype=cp.float32)])  # initial, u, v

        def enqueue(k):
            st = s[k]
            if single:
                self.stencil_launch(st[1], st[2], side, side)
                return
            for _ in range(steps):
                self.stencil_launch(st[1], st[2], side, side)
                st[1], st[2] = st[2], st[1]

        for k in range(sets):
            enqueue(k)
        self.stream.synchronize()
        t = self.time_runs(runs, sets, steps, enqueue)
        worst = 0.0
        for k, st in enumerate(s):
            if not single:  # the timed runs stepped on: check one fresh run
                st[1][...] = st[0]
                enqueue(k)
            got = st[2] if single else st[1]
            e = float(cp.max(cp.abs(got.astype(cp.float64) - self.heat_reference(st[0], steps))))
            worst = e if (math.isnan(e) or e > worst) else worst
        tol = 16.0 * FLOAT_EPS * steps
        grid = "%dx%d" % (side, side)
        if single:
            self.add("heat_step", grid, t, 8.0 * cells, "GB/s", 1e9, worst, tol, sets=sets,
                     label="RawKernel 5-point stencil", check="%d sets, every cell" % sets)
        else:
            self.add("heat", "%s, %d steps" % (grid, steps), t, float(cells) * steps, "Gcell/s", 1e9, worst, tol,
                     sets=sets, label="RawKernel 5-point stencil, one step per launch",
                     check="%d sets, every cell" % sets)

    def launch_case(self):
        launches = self.p["launches"]
        a = cp.full(1, 1.5, dtype=cp.float32)
        b = cp.full(1, 2.25, dtype=cp.float32)
        c = cp.full(1, np.nan, dtype=cp.float32)
        for _ in range(min(launches, 100)):
            cp.add(a, b, out=c)
        self.stream.synchronize()
        host, device = [], []
        for _ in range(self.p["launch_reps"]):
            begin = time.perf_counter()
            first = cp.cuda.Event()
            first.record(self.stream)
            for _ in range(launches):
                cp.add(a, b, out=c)
            last = cp.cuda.Event()
            last.record(self.stream)
            self.stream.synchronize()
            host.append((time.perf_counter() - begin) * 1e3)
            device.append(cp.cuda.get_elapsed_time(first, last))
        t = summarize(host)
        err = abs(float(c[0]) - 3.75)
        row_note = "device time %.2f us per launch; host time includes synchronize()" % (
            statistics.median(device) * 1e3 / launches)
        self.add("launch", "%d launches" % launches, t, launches, "us/launch", 1.0, err, 0.0,
                 label="cupy.add on 1 element", note=row_note, check="the one element",
                 value=t["median_ms"] * 1e3 / launches)

    def run(self):
        self.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        name = self.props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        print("CuPy %s on %s (L2 %.0f MB), %s sizes, %d timed runs per case, CUPY_TF32=%s" % (
            cp.__version__, name, self.l2 / 1e6, self.p["mode"], self.p["runs"], os.environ.get("CUPY_TF32")),
            flush=True)
        kernels = self.args.kernels.split(",") if self.args.kernels else [
            "vector_add", "multiply", "matmul", "heat_step", "heat", "launch"]
        cases = [("copy", count_label(self.p["copy_n"]), self.copy_case)]
        for kernel in kernels:
            if kernel in ("vector_add", "multiply"):
                cases += [(kernel, count_label(n), (lambda k=kernel, n=n: self.elementwise_case(k, n)))
                          for n in self.p["vector_n"]]
            elif kernel == "matmul":
                cases += [("matmul", "%dx%dx%d" % (n, n, n), (lambda n=n: self.matmul_case(n)))
                          for n in self.p["matmul"]]
            elif kernel == "heat_step":
                cases += [("heat_step", "%dx%d" % (s, s), (lambda s=s: self.heat_case(s, 1, self.p["runs"])))
                          for s in self.p["heat_step"]]
            elif kernel == "heat":
                side, steps = self.p["heat_side"], self.p["heat_steps"]
                cases.append(("heat", "%dx%d, %d steps" % (side, side, steps),
                              lambda: self.heat_case(side, steps, self.p["heat_runs"])))
            elif kernel == "launch":
                cases.append(("launch", "%d launches" % self.p["launches"], self.launch_case))
        for kernel, size, case in cases:
            try:
                case()
            except Exception as e:  # keep going: one failure should not hide the rest
                self.fail(kernel, size, e)
            cp.get_default_memory_pool().free_all_blocks()
        failures = sum(1 for r in self.results if not r.get("ok"))
        print("%d rows, %d failed" % (len(self.results), failures), flush=True)
        return 1 if failures else 0


def dumps(doc):
    """JSON without NaN (null instead), which strict readers reject."""
    def clean(x):
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, (np.integer,)):
            return int(x)
        if isinstance(x, (np.floating,)):
            return clean(float(x))
        return x
    return json.dumps(clean(doc), indent=2) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes (duet bench --smoke's)")
    ap.add_argument("--runs", type=int, default=0, help="timed runs per case (default 30)")
    ap.add_argument("--device", type=int, default=0, help="CUDA device index")
    ap.add_argument("--kernels", default="", help="comma-separated subset: vector_add,multiply,matmul,heat_step,heat,launch")
    return Bench(ap.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
