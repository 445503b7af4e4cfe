#!/usr/bin/env python3
"""The peer side of duet's benchmark on an NVIDIA GPU: the same work through CuPy.

Device-to-device copy (cudaMemcpyAsync), cupy.add / cupy.multiply, cupy.matmul in float32 (cuBLAS
SGEMM with TF32 off: CUPY_TF32=0 is set before CuPy is imported), a straightforward 5-point stencil
as a CuPy RawKernel (one step per launch, and many steps ping-ponging), back-to-back small
cupy.add launches timed on the host, and array code as CuPy users write it beside duet::Array's:
`a * x + y` (unfused: two kernels and a temporary), `m.sum(axis=1)`, `m.sum(axis=0)` and
`cupy.ascontiguousarray(m[::2, 1:-1])` over (n / 4096) x 4096 float32 matrices, and cupy.sort,
cupy.argsort, cupy.unique and cupy.nonzero (CUB's radix sort and selection) at duet's sort sizes. The sizes, the buffer-set rotation past the L2 cache, the
warm-up, the event timing and the median follow bench/cases.cpp, and every result is written under
the same (kernel, size) keys as duet's JSON, so bench/report.py can put them side by side.
cuBLAS SGEMM rows carry role "ceiling": given to `duet bench --peer`, they become matmul's limit.

Usage (GPU machine): python3 bench/compare_cupy.py --json cupy.json [--smoke] [--runs N]
"""
import os

os.environ["CUPY_TF32"] = "0"  # read when CuPy is imported: float32 matmul stays float32

import math
import platform
import sys
import time

import numpy as np
import cupy as cp

# The shared half of the peers, beside this file: found from any working directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cupy_events import event_times  # noqa: E402
from peer_common import (FLOAT_EPS, HEAT_R, PeerBench, argument_parser, count_label, elementwise_error,  # noqa: E402
                         heat_error, make_plan, summarize, worse)

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


def multiset_hash(x):
    """The sum (mod 2^64) of SplitMix64's finaliser over every float32's bits, as sort_cases.cpp's."""
    v = x.view(cp.uint32).astype(cp.uint64) + np.uint64(0x9E3779B97F4A7C15)
    v = (v ^ (v >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    v = (v ^ (v >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return int((v ^ (v >> np.uint64(31))).sum(dtype=cp.uint64))


def gpu_plan():
    """The GPU plan of bench/plan.cpp; the rotation (None) becomes twice the device's L2."""
    return dict(copy_n=1 << 28, vector_n=[1 << 20, 1 << 24, 1 << 26, 1 << 28],
                sort_n=1 << 28, argsort_n=1 << 26, unique_n=1 << 26, nonzero_n=1 << 26,
                matmul=[1024, 2048, 4096, 8192], heat_step=[4096, 8192], heat_side=8192, heat_steps=64,
                launches=1000, launch_reps=7, runs=30, min_sets=1, rotation=None, mode="gpu")


class Bench(PeerBench):
    tool, impl = "compare_cupy", "cupy"
    impl_label = {"cupy": "CuPy"}
    row_format = ("  %(kernel)-10s %(size)-22s %(median_ms)10.4f ms  %(value)12.2f %(unit)-9s "
                  "err %(max_error).1e %(verdict)s %(note)s")
    failure_format = "  %(kernel)-10s %(size)-22s FAILED: %(error)s"

    def __init__(self, args):
        super().__init__(args, make_plan(args.smoke, args.runs, gpu_plan, sort_n=1 << 16, argsort_n=1 << 16,
                                         unique_n=1 << 16, nonzero_n=1 << 16))
        self.device = cp.cuda.Device(args.device)
        self.device.use()
        self.props = cp.cuda.runtime.getDeviceProperties(args.device)
        self.stream = cp.cuda.get_current_stream()
        self.l2 = float(self.props.get("l2CacheSize", 50e6)) or 50e6
        self.memory = float(self.props.get("totalGlobalMem", 0))
        if self.p["rotation"] is None:
            self.p["rotation"] = 2.0 * self.l2
        # The copy buffers must not fit in L2 either: at least 4x it.
        while not args.smoke and self.p["copy_n"] * 4 < 4.0 * self.l2:
            self.p["copy_n"] *= 2
        self.stencil = cp.RawKernel(STENCIL_SOURCE, "stencil5")

    # --- helpers -----------------------------------------------------------------------------------
    def device_name(self):
        name = self.props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def release(self):
        cp.get_default_memory_pool().free_all_blocks()

    def finish(self):
        self.stream.synchronize()

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
        for _ in range(self.filler_copies(runs, launches_per_run)):
            self.memcpy(self.filler[1], self.filler[0])
        return summarize(event_times(self.stream, runs, sets, enqueue))

    def describe(self):
        try:
            compute_type = str(cp._core.get_compute_type(cp.float32))
        except Exception:  # private API: informative only
            compute_type = "unknown"
        return dict(
            device=dict(name=self.device_name(), backend="cuda", index=self.args.device, l2_bytes=self.l2,
                        memory_bytes=self.memory, compute_units=self.props.get("multiProcessorCount"),
                        compute_capability="%d.%d" % (self.props.get("major", 0), self.props.get("minor", 0))),
            versions=dict(cupy=cp.__version__, numpy=np.__version__, python=platform.python_version(),
                          cuda_runtime=cp.cuda.runtime.runtimeGetVersion(),
                          cuda_driver=cp.cuda.runtime.driverGetVersion()),
            settings=dict(CUPY_TF32=os.environ.get("CUPY_TF32"), float32_compute_type=compute_type))

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
        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for a, b, c in s:
            worst = worse(elementwise_error(kernel, a, b, c), worst)
        self.add_elementwise(kernel, n, t, worst, sets, "cupy.add" if kernel == "vector_add" else "cupy.multiply")

    def matmul_case(self, n):
        M = N = K = n
        sets = self.sets_for(4.0 * (M * K + K * N + M * N))
        s = []
        for k in range(sets):
            s.append((self.random((M, K), -1, 1, 300 + k), self.random((K, N), -1, 1, 400 + k),
                      cp.full((M, N), np.nan, dtype=cp.float32)))
        enqueue = lambda k: cp.matmul(s[k][0], s[k][1], out=s[k][2])
        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
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
            worst = worse(e, worst)
            worst_norm = worse(norm, worst_norm)
            rows_checked = int(rows.size)
        note = "" if worst_norm < 1e-5 else "norm-wise error %.1e: TF32 or another reduced precision?" % worst_norm
        self.add("matmul", "%dx%dx%d" % (M, N, K), t, 2.0 * M * N * K, "GFLOP/s", 1e9, worst, (K + 2) * FLOAT_EPS,
                 sets=sets, role="ceiling", label="cuBLAS SGEMM", norm_error=worst_norm, note=note,
                 check="%d sets, %d rows each" % (sets, rows_checked))

    def stencil_launch(self, u, v, nx, ny):
        block = (32, 8, 1)
        grid = ((nx + 31) // 32, (ny + 7) // 8, 1)
        self.stencil(grid, block, (u, v, np.int32(nx), np.int32(ny), HEAT_R))

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

        t = self.warm_up_and_time(runs, sets, steps, enqueue)
        worst = 0.0
        for k, st in enumerate(s):
            if not single:  # the timed runs stepped on: check one fresh run
                st[1][...] = st[0]
                enqueue(k)
            worst = worse(heat_error(st[2] if single else st[1], st[0], steps), worst)
        self.add_heat(side, steps, t, worst, sets, "RawKernel 5-point stencil")

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
        self.add_launch(launches, host, device, abs(float(c[0]) - 3.75), "cupy.add on 1 element", "synchronize()")

    # --- arrays: what CuPy users write, beside duet::Array (bench/cases.cpp, the same keys) ---------
    ARRAY_KERNELS = ("array_axpy", "array_add_row", "array_sum_rows", "array_sum_cols", "array_sum_all", "array_slice")
    ARRAY_COLS = 4096

    def array_axpy_case(self, n):
        sets = self.sets_for(12.0 * n)
        a = np.float32(2.5)
        s = [(self.random(n, -1, 1, 600 + k), self.random(n, -1, 1, 700 + k)) for k in range(sets)]
        out = [None] * sets

        def enqueue(k):
            out[k] = a * s[k][0] + s[k][1]  # two kernels and a temporary, as users write it

        t = self.warm_up_and_time(self.p["runs"], sets, 2, enqueue)
        worst = 0.0
        for k, (x, y) in enumerate(s):
            want = np.float64(a) * x.astype(cp.float64) + y.astype(cp.float64)
            scale = cp.abs(np.float64(a) * x.astype(cp.float64)) + cp.abs(y.astype(cp.float64)) + 1e-30
            worst = worse(float(cp.max(cp.abs(out[k].astype(cp.float64) - want) / scale)), worst)
        self.add("array_axpy", count_label(n), t, 12.0 * n, "GB/s", 1e9, worst, 2.0 * FLOAT_EPS, sets=sets,
                 label="CuPy a * x + y (unfused)", check="%d sets, every element" % sets)

    def array_add_row_case(self, n):
        cols = min(self.ARRAY_COLS, n)
        height = n // cols
        sets = self.sets_for(8.0 * n)
        s = [(self.random((height, cols), -1, 1, 1000 + k), self.random(cols, -1, 1, 1100 + k)) for k in range(sets)]
        out = [None] * sets

        def enqueue(k):
            out[k] = s[k][0] + s[k][1]

        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for k, (x, row) in enumerate(s):
            want = x.astype(cp.float64) + row.astype(cp.float64)
            worst = worse(float(cp.max(cp.abs(out[k].astype(cp.float64) - want) / (cp.abs(want) + 1e-30))), worst)
        self.add("array_add_row", "%dx%d + row" % (height, cols), t, 8.0 * n, "GB/s", 1e9, worst, FLOAT_EPS,
                 sets=sets, label="CuPy m + row", check="%d sets, every element" % sets)

    def array_sum_case(self, axis, n):
        """Sums along axis 1 (rows), axis 0 (cols) or, with axis None, over every element."""
        cols = min(self.ARRAY_COLS, n)
        height = n // cols
        sets = self.sets_for(4.0 * n)
        s = [cp.rint(self.random((height, cols), -8.5, 8.5, 800 + k)) for k in range(sets)]
        out = [None] * sets

        def enqueue(k):
            out[k] = s[k].sum(axis=axis)

        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for k, x in enumerate(s):
            worst = worse(float(cp.max(cp.abs(out[k].astype(cp.float64) - x.astype(cp.float64).sum(axis=axis)))), worst)
        name = {1: "array_sum_rows", 0: "array_sum_cols", None: "array_sum_all"}[axis]
        size = count_label(n) if axis is None else "%dx%d, axis %d" % (height, cols, axis)
        self.add(name, size, t, 4.0 * n, "GB/s", 1e9, worst, 0.0, sets=sets,
                 label="cupy.sum(axis=%s)" % axis, check="%d sets, every sum (whole numbers: exact in float)" % sets)

    def array_slice_case(self, n):
        cols = min(self.ARRAY_COLS, n)
        height = n // cols
        elements = (height // 2) * (cols - 2)
        sets = self.sets_for(4.0 * (n + elements))
        s = [self.random((height, cols), -1, 1, 900 + k) for k in range(sets)]
        out = [None] * sets

        def enqueue(k):
            out[k] = cp.ascontiguousarray(s[k][::2, 1:-1])

        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for k, x in enumerate(s):
            worst = worse(float(cp.max(cp.abs(out[k] - x[::2, 1:-1]))), worst)
        self.add("array_slice", "%dx%d [::2, 1:-1]" % (height, cols), t, 8.0 * elements, "GB/s", 1e9, worst, 0.0,
                 sets=sets, label="cupy.ascontiguousarray(m[::2, 1:-1])", check="%d sets, every element" % sets)

    # --- sorting and selection (bench/sort_cases.cpp, the same keys and checks) ----------------------
    SORT_KERNELS = ("sort", "argsort", "unique_values", "nonzero")
    UNIQUE_RANGE = 1 << 16

    def sort_case(self, kernel, n):
        """cupy.sort / cupy.argsort of float32 in [-1, 1): Gkey/s of input. Checked on the GPU in
        linear time as duet's are: ascending and the same multiset (sort), a stable ordering
        permutation (argsort)."""
        indices = kernel == "argsort"
        sets = self.sets_for(4.0 * n + (8.0 if indices else 4.0) * n)
        s = [self.random(n, -1, 1, 1200 + k) for k in range(sets)]
        out = [None] * sets

        def enqueue(k):
            out[k] = cp.argsort(s[k]) if indices else cp.sort(s[k])

        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for k, x in enumerate(s):
            got = out[k]
            if indices:
                seen = cp.zeros(n, dtype=cp.int32)
                seen[got] = 1
                bad = n - int(seen.sum())
                a, b = x[got[:-1]], x[got[1:]]
                bad += int(cp.count_nonzero((a > b) | ((a == b) & (got[:-1] > got[1:]))))
            else:
                bad = int(cp.count_nonzero(got[:-1] > got[1:]))
                bad += int(multiset_hash(got) != multiset_hash(x))
            worst = worse(float(bad), worst)
        check = ("a permutation, ordered, equal values by index (stable)" if indices
                 else "ascending, the same multiset")
        self.add(kernel, count_label(n), t, float(n), "Gkey/s", 1e9, worst, 0.0, sets=sets,
                 label="cupy.%s" % kernel, check="%d sets, %s" % (sets, check))

    def unique_case(self, n):
        sets = self.sets_for(4.0 * n)
        r = self.UNIQUE_RANGE
        s = [cp.floor(self.random(n, -0.5 * r, 0.5 * r, 1300 + k)).astype(cp.int32) for k in range(sets)]
        out = [None] * sets

        def enqueue(k):
            out[k] = cp.unique(s[k])

        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for k, x in enumerate(s):
            present = cp.zeros(r, dtype=cp.int32)
            present[x.astype(cp.int64) + r // 2] = 1
            want = cp.nonzero(present)[0].astype(cp.int32) - np.int32(r // 2)
            bad = abs(int(want.size) - int(out[k].size))
            if not bad:
                bad = int(cp.count_nonzero(want != out[k]))
            worst = worse(float(bad), worst)
        self.add("unique_values", count_label(n) + " int32", t, float(n), "Gkey/s", 1e9, worst, 0.0, sets=sets,
                 label="cupy.unique", check="%d sets, the distinct values, ascending, exactly" % sets)

    def nonzero_case(self, n):
        sets = self.sets_for(4.0 * n + 4.0 * n)
        s = [cp.maximum(self.random(n, -1, 1, 1400 + k), np.float32(0)) for k in range(sets)]
        out = [None] * sets

        def enqueue(k):
            out[k] = cp.nonzero(s[k])[0]

        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for k, x in enumerate(s):
            want = cp.flatnonzero(x != 0)
            bad = abs(int(want.size) - int(out[k].size))
            if not bad:
                bad = int(cp.count_nonzero(want != out[k]))
            worst = worse(float(bad), worst)
        self.add("nonzero", count_label(n), t, float(n), "Gkey/s", 1e9, worst, 0.0, sets=sets,
                 label="cupy.nonzero", check="%d sets, the nonzero positions, exactly" % sets)

    def cases(self):
        cases = super().cases()
        chosen = self.args.kernels.split(",") if self.args.kernels else self.SORT_KERNELS
        for kernel in (k for k in chosen if k in self.SORT_KERNELS):
            n = self.p[{"sort": "sort_n", "argsort": "argsort_n", "unique_values": "unique_n",
                        "nonzero": "nonzero_n"}[kernel]]
            size = count_label(n) + (" int32" if kernel == "unique_values" else "")
            if kernel in ("sort", "argsort"):
                case = lambda kernel=kernel, n=n: self.sort_case(kernel, n)
            elif kernel == "unique_values":
                case = lambda n=n: self.unique_case(n)
            else:
                case = lambda n=n: self.nonzero_case(n)
            cases.append((self.impl, kernel, size, case))
        chosen = self.args.kernels.split(",") if self.args.kernels else self.ARRAY_KERNELS
        for kernel in (k for k in chosen if k in self.ARRAY_KERNELS):
            for n in self.p["vector_n"]:
                if kernel == "array_axpy":
                    case = lambda n=n: self.array_axpy_case(n)
                elif kernel == "array_add_row":
                    case = lambda n=n: self.array_add_row_case(n)
                elif kernel == "array_slice":
                    case = lambda n=n: self.array_slice_case(n)
                else:
                    axis = {"array_sum_rows": 1, "array_sum_cols": 0, "array_sum_all": None}[kernel]
                    case = lambda n=n, axis=axis: self.array_sum_case(axis, n)
                cases.append((self.impl, kernel, count_label(n), case))
        return cases

    def run(self):
        print("CuPy %s on %s (L2 %.0f MB), %s sizes, %d timed runs per case, CUPY_TF32=%s" % (
            cp.__version__, self.device_name(), self.l2 / 1e6, self.p["mode"], self.p["runs"],
            os.environ.get("CUPY_TF32")), flush=True)
        return self.run_cases()


def main():
    ap = argument_parser(__doc__, 30)
    ap.add_argument("--device", type=int, default=0, help="CUDA device index")
    return Bench(ap.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
