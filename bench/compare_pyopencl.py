#!/usr/bin/env python3
"""The peer side of duet's benchmark on an OpenCL CPU device (PoCL): the SAME dialect kernels
through PyOpenCL, and numpy's matmul beside duet's.

The kernels are read from the repository (core/kernels/prelude.h, core/kernels/*.duet, stencil/kernels/heat.duet, blas/kernels/*.duet) and assembled the
way duet assembles them (core/src/device.cpp: DUET_OPENCL marker, prelude, defines, #line marks;
build options -cl-std=CL1.2 -cl-kernel-arg-info), then launched with the work-group shapes duet
uses on CPU devices (core/src/builtin_kernels/*.cpp, stencil/src/heat.cpp, blas/src/gemm.cpp; mirrored in LAUNCH RULES below, which must follow
changes there). So the difference between the two is what duet adds around a launch, nothing in the
kernel. The matmul tile parameters are read from duet's JSON for the same device (--duet-json),
which records the ones duet::matmul used. The sizes, the rotation of buffer sets past the cache,
the warm-up, the marker-event timing and the median follow bench/cases.cpp (CPU plan), and the
results carry duet's (kernel, size) keys. numpy matmul rows carry role "ceiling".

Usage: /usr/bin/python3 bench/compare_pyopencl.py --json pyopencl.json [--duet-json duet-pocl.json]
       (Debian: apt-get install python3-pyopencl python3-numpy)
"""
import json
import math
import os
import platform
import sys
import time

import numpy as np
import pyopencl as cl

# The shared half of the peers, beside this file: found from any working directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import (FLOAT_EPS, HEAT_R, PeerBench, argument_parser, count_label, elementwise_error,  # noqa: E402
                         heat_error, make_plan, summarize, worse)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_OPTIONS = ["-cl-std=CL1.2", "-cl-kernel-arg-info"]  # backends/opencl/device.cpp


def cpu_plan(cache_bytes):
    """The CPU plan of bench/plan.cpp: the copy buffers at least 4x the cache."""
    p = dict(copy_n=1 << 25, vector_n=[1 << 20, 1 << 22, 1 << 24], matmul=[256, 512, 1024],
             heat_step=[1024, 2048], heat_side=2048, heat_steps=16, launches=1000, launch_reps=5, runs=7,
             min_sets=1, rotation=2.0 * cache_bytes, mode="cpu", samples=500)
    while p["copy_n"] * 4 < 4.0 * cache_bytes:
        p["copy_n"] *= 2
    return p


def round_up(x, m):
    return (x + m - 1) // m * m


# --- LAUNCH RULES: what core/src/builtin_kernels/*.cpp and blas/src/gemm.cpp do on a CPU device ----
def elementwise_launch(n, max_group):
    """core/src/builtin_kernels/elementwise.cpp, CPU: one work-item per float4 (and the first n % 4 for the
    tail), groups of 256."""
    items = max(n // 4, n % 4)
    group = max(min(256, max_group), 1)
    groups = max(1, (items + group - 1) // group)
    return {}, (groups * group,), (group,)


def heat_step_launch(nx, ny, max_group):
    """stencil/src/heat.cpp, CPU: heat_cells, one cell per work-item, groups of 32 x 8, every step
    its own launch (no temporal blocking on CPUs). Returns the kernel, the sizes and the arguments
    after u and v."""
    gx = min(32, max_group)
    gy = max(min(8, max_group // gx), 1)
    return "heat_cells", (round_up(nx, gx), round_up(ny, gy)), (gx, gy), (np.int32(nx), np.int32(ny), HEAT_R)


def matmul_launch(M, N, K, params):
    """blas/src/gemm.cpp, a plain float product on a device of kind cpu: gemm_cpu.duet, 2D,
    ((BM/TM)*(BN/TN) * tiles, 1) work-items in groups of ((BM/TM)*(BN/TN), 1), one group per BM x BN
    tile; the parameters as defines (gemm_tile_defines: then A_SWIZZLE, GemmTile::swizzles_a),
    then gemm_cpu_defines' OP_A = OP_B = 0 and BETA_ZERO = 1."""
    threads = (params["BM"] // params["TM"]) * (params["BN"] // params["TN"])
    groups = ((M + params["BM"] - 1) // params["BM"]) * ((N + params["BN"] - 1) // params["BN"])
    # Every parameter duet recorded becomes a define, in its order (BM BN BK TM TN WX PIPELINE ...).
    defines = {k: str(v) for k, v in params.items()}
    swizzled = params["BM"] % 32 == 0 and (params["BM"] // params["TM"]) % 8 == 0
    defines["A_SWIZZLE"] = "1" if swizzled else "0"
    defines.update(OP_A="0", OP_B="0", BETA_ZERO="1")
    return defines, (groups * threads, 1), (threads, 1)


# ------------------------------------------------------------------------------------------------------
def assemble(file, defines):
    """Complete OpenCL source as duet builds it (detail::assemble_source)."""
    with open(os.path.join(REPO, "core", "kernels", "prelude.h")) as f:
        prelude = f.read()
    folder = {"gemm_cpu": "blas/kernels", "heat": "stencil/kernels"}.get(file, "core/kernels")
    with open(os.path.join(REPO, folder, file + ".duet")) as f:
        source = f.read()
    text = "#define DUET_OPENCL 1\n#line 1 \"duet/prelude.h\"\n" + prelude + "\n#line 1 \"duet/defines\"\n"
    for key, value in defines.items():
        text += "#define %s %s\n" % (key, value)
    return text + "#line 1 \"%s.duet\"\n" % file + source + "\n"


def parse_params(text):
    out = {}
    for word in text.split():
        if "=" in word:
            key, value = word.split("=", 1)
            out[key] = int(value)
    return out


class Bench(PeerBench):
    tool, impl = "compare_pyopencl", "pyopencl"
    row_format = ("  %(impl)-9s %(kernel)-10s %(size)-20s %(median_ms)10.4f ms %(value)12.2f %(unit)-9s "
                  "err %(max_error).1e %(verdict)s")
    failure_format = "  %(impl)-9s %(kernel)-10s %(size)-20s FAILED: %(error)s"

    def __init__(self, args):
        self.cache = args.cache_mib * 1024 * 1024 if args.cache_mib else 32 * 1024 * 1024  # as bench/plan.cpp
        super().__init__(args, make_plan(args.smoke, args.runs, lambda: cpu_plan(self.cache), samples=200))
        self.device = self.find_device(args.device)
        self.ctx = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
        self.max_group = self.device.max_work_group_size
        self.programs = {}
        self.matmul_params, self.matmul_params_source = self.find_matmul_params()

    @staticmethod
    def find_device(spec):
        spec = spec.lower()
        for platform_ in cl.get_platforms():
            for device in platform_.get_devices():
                text = " ".join([device.name, device.vendor, platform_.name]).lower()
                if spec in text:
                    return device
        raise SystemExit("no OpenCL device matches '%s'" % spec)

    def find_matmul_params(self):
        if self.args.matmul_params:
            return parse_params(self.args.matmul_params), "--matmul-params"
        if self.args.duet_json:
            with open(self.args.duet_json) as f:
                doc = json.load(f)
            for d in doc.get("devices", []):
                info = d.get("device", {})
                if info.get("name", "").strip() == self.device.name.strip() and info.get("backend") == "opencl":
                    if d.get("matmul_params"):
                        return parse_params(d["matmul_params"]), "duet JSON " + self.args.duet_json
        # duet's last-resort built-in entry (blas/src/gemm_tiles.cpp).
        return dict(BM=32, BN=32, BK=8, TM=4, TN=4, WX=8), "fallback (no --duet-json for this device)"

    def kernel(self, file, name, defines):
        key = (file, tuple(defines.items()))
        if key not in self.programs:
            self.programs[key] = cl.Program(self.ctx, assemble(file, defines)).build(options=BUILD_OPTIONS)
        return getattr(self.programs[key], name)

    def buffer(self, host=None, count=None):
        mf = cl.mem_flags
        if host is not None:
            return cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host)
        buf = cl.Buffer(self.ctx, mf.READ_WRITE, size=count * 4)
        cl.enqueue_fill_buffer(self.queue, buf, np.float32(np.nan), 0, count * 4)
        return buf

    def finish(self):
        self.queue.finish()

    def read(self, buf, count):
        out = np.empty(count, dtype=np.float32)
        cl.enqueue_copy(self.queue, out, buf)
        self.queue.finish()
        return out

    def sets_for(self, set_bytes):
        return min(32, max(self.p["min_sets"], int(math.ceil(self.p["rotation"] / set_bytes))))

    def random(self, n, lo, hi, seed):
        return (np.random.default_rng(seed).random(n, dtype=np.float32) * np.float32(hi - lo) + np.float32(lo))

    def time_runs(self, runs, sets, launches_per_run, enqueue):
        """Device time per run from marker events (as duet's OpenCL events), run r on set r % sets."""
        for _ in range(self.filler_copies(runs, launches_per_run)):
            cl.enqueue_copy(self.queue, self.filler[1], self.filler[0])
        marks = [cl.enqueue_marker(self.queue)]
        for r in range(runs):
            enqueue(r % sets)
            marks.append(cl.enqueue_marker(self.queue))
        marks[-1].wait()
        return summarize([(marks[r + 1].profile.end - marks[r].profile.end) * 1e-6 for r in range(runs)])

    def describe(self):
        return dict(device=dict(name=self.device.name, backend="opencl", platform=self.device.platform.name,
                                vendor=self.device.vendor, driver=self.device.driver_version,
                                compute_units=self.device.max_compute_units, cache_bytes=self.cache),
                    versions=dict(pyopencl=cl.VERSION_TEXT, numpy=np.__version__, python=platform.python_version()),
                    matmul_params=self.matmul_params, matmul_params_source=self.matmul_params_source)

    # --- cases ---------------------------------------------------------------------------------------
    def copy_case(self):
        n = self.p["copy_n"]
        host = self.random(n, -1, 1, 1)
        src, dst = self.buffer(host), self.buffer(count=n)
        for _ in range(2):
            cl.enqueue_copy(self.queue, dst, src)
        self.queue.finish()
        t = self.time_runs(self.p["runs"], 1, 1, lambda k: cl.enqueue_copy(self.queue, dst, src))
        err = float(np.max(np.abs(self.read(dst, n) - host)))
        self.add("copy", count_label(n), t, 8.0 * n, "GB/s", 1e9, err, 0.0, label="clEnqueueCopyBuffer",
                 check="every element")
        self.filler = (src, dst, t["median_ms"])

    def elementwise_case(self, kernel, n):
        defines, global_size, local_size = elementwise_launch(n, self.max_group)
        k_ = self.kernel(kernel, kernel, defines)
        sets = self.sets_for(12.0 * n)
        s = []
        for k in range(sets):
            a, b = self.random(n, -1, 1, 100 + k), self.random(n, -1, 1, 200 + k)
            s.append((a, b, self.buffer(a), self.buffer(b), self.buffer(count=n)))
        enqueue = lambda k: k_(self.queue, global_size, local_size, s[k][2], s[k][3], s[k][4], np.uint64(n))
        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for a, b, _, _, dc in s:
            worst = worse(elementwise_error(kernel, a, b, self.read(dc, n)), worst)
        self.add_elementwise(kernel, n, t, worst, sets, "duet's %s.duet through PyOpenCL" % kernel)

    def matmul_sets(self, n):
        sets = self.sets_for(4.0 * 3 * n * n)
        return [(self.random(n * n, -1, 1, 300 + k).reshape(n, n), self.random(n * n, -1, 1, 400 + k).reshape(n, n))
                for k in range(sets)]

    def matmul_error(self, A, B, C, n):
        """Relative error per entry (to sum |a_ik b_kj|) and norm-wise, on all or sampled entries."""
        if n * n * n <= (1 << 24):
            rows, cols = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
            rows, cols = rows.ravel(), cols.ravel()
        else:
            rows = np.concatenate([[0, 0, n - 1, n - 1], self.rng.integers(0, n, self.p["samples"])])
            cols = np.concatenate([[0, n - 1, 0, n - 1], self.rng.integers(0, n, self.p["samples"])])
        A64, B64 = A.astype(np.float64), B.astype(np.float64)
        ref = np.einsum("ek,ke->e", A64[rows], B64[:, cols])
        mag = np.einsum("ek,ke->e", np.abs(A64[rows]), np.abs(B64[:, cols]))
        diff = np.abs(C[rows, cols].astype(np.float64) - ref)
        return float(np.max(diff / np.maximum(mag, 1e-300))), float(np.linalg.norm(diff) / np.linalg.norm(ref)), len(rows)

    def matmul_cases(self, n):
        return [("pyopencl", lambda: self.matmul_case(n)), ("numpy", lambda: self.numpy_matmul_case(n))]

    def matmul_case(self, n):
        defines, global_size, local_size = matmul_launch(n, n, n, self.matmul_params)
        k_ = self.kernel("gemm_cpu", "gemm_cpu", defines)
        placeholder = self.buffer(count=2)  # the split workspace, unused in one slice
        hosts = self.matmul_sets(n)
        s = [(self.buffer(A), self.buffer(B), self.buffer(count=n * n)) for A, B in hosts]
        sets = len(s)
        i32 = np.int32(n)
        zero, n_ld, f1, f0 = np.uint64(0), np.int32(n), np.float32(1), np.float32(0)
        enqueue = lambda k: k_(self.queue, global_size, local_size, s[k][0], zero, n_ld, zero, s[k][1], zero, n_ld,
                               zero, s[k][2], zero, n_ld, zero, placeholder, i32, i32, i32, f1, f0, np.int32(1), i32)
        t = self.warm_up_and_time(self.p["runs"], sets, 1, enqueue)
        worst, worst_norm, checked = 0.0, 0.0, 0
        for (A, B), (_, _, dC) in zip(hosts, s):
            e, norm, checked = self.matmul_error(A, B, self.read(dC, n * n).reshape(n, n), n)
            worst, worst_norm = max(worst, e), max(worst_norm, norm)
        size = "%dx%dx%d" % (n, n, n)
        params = " ".join("%s=%d" % kv for kv in self.matmul_params.items())
        self.add("matmul", size, t, 2.0 * n ** 3, "GFLOP/s", 1e9, worst, (n + 2) * FLOAT_EPS, sets=sets,
                 label="duet's gemm_cpu.duet (its CPU matmul) through PyOpenCL (%s)" % params, norm_error=worst_norm,
                 check="%d sets, %d entries each" % (sets, checked))

    def numpy_matmul_case(self, n):
        hosts = self.matmul_sets(n)
        outs = [np.full((n, n), np.nan, dtype=np.float32) for _ in hosts]
        sets = len(hosts)
        for k in range(sets):
            np.matmul(hosts[k][0], hosts[k][1], out=outs[k])
        ms = []
        for r in range(self.p["runs"]):
            k = r % sets
            begin = time.perf_counter()
            np.matmul(hosts[k][0], hosts[k][1], out=outs[k])
            ms.append((time.perf_counter() - begin) * 1e3)
        worst, worst_norm, checked = 0.0, 0.0, 0
        for (A, B), C in zip(hosts, outs):
            e, norm, checked = self.matmul_error(A, B, C, n)
            worst, worst_norm = max(worst, e), max(worst_norm, norm)
        self.add("matmul", "%dx%dx%d" % (n, n, n), summarize(ms), 2.0 * n ** 3, "GFLOP/s", 1e9, worst,
                 (n + 2) * FLOAT_EPS, impl="numpy", label="numpy matmul (host wall clock)", role="ceiling",
                 sets=sets, norm_error=worst_norm, check="%d sets, %d entries each" % (sets, checked))

    def heat_case(self, side, steps, runs):
        single = steps == 1
        cells = side * side
        name, global_size, local_size, args = heat_step_launch(side, side, self.max_group)
        k_ = self.kernel("heat", name, {})
        sets = self.sets_for(8.0 * cells)
        s = []
        for k in range(sets):
            init = self.random(cells, 0, 1, 500 + k)
            s.append([init, self.buffer(init), self.buffer(count=cells)])  # initial, u, v

        def enqueue(k):
            st = s[k]
            for _ in range(steps):
                k_(self.queue, global_size, local_size, st[1], st[2], *args)
                if not single:
                    st[1], st[2] = st[2], st[1]

        t = self.warm_up_and_time(runs, sets, steps, enqueue)
        worst = 0.0
        for k, st in enumerate(s):
            if not single:  # the timed runs stepped on: check one fresh run
                cl.enqueue_copy(self.queue, st[1], st[0])
                enqueue(k)
            got = self.read(st[2] if single else st[1], cells).reshape(side, side)
            worst = worse(heat_error(got, st[0].reshape(side, side), steps), worst)
        self.add_heat(side, steps, t, worst, sets, "duet's heat.duet %s through PyOpenCL" % name)

    def launch_case(self):
        launches = self.p["launches"]
        defines, global_size, local_size = elementwise_launch(1, self.max_group)
        k_ = self.kernel("vector_add", "vector_add", defines)
        a, b = np.array([1.5], dtype=np.float32), np.array([2.25], dtype=np.float32)
        da, db, dc = self.buffer(a), self.buffer(b), self.buffer(count=1)
        one = np.uint64(1)
        for _ in range(min(launches, 100)):
            k_(self.queue, global_size, local_size, da, db, dc, one)
        self.queue.finish()
        host, device = [], []
        for _ in range(self.p["launch_reps"]):
            begin = time.perf_counter()
            first = cl.enqueue_marker(self.queue)
            for _ in range(launches):
                k_(self.queue, global_size, local_size, da, db, dc, one)
            last = cl.enqueue_marker(self.queue)
            self.queue.finish()
            host.append((time.perf_counter() - begin) * 1e3)
            device.append((last.profile.end - first.profile.end) * 1e-6)
        err = abs(float(self.read(dc, 1)[0]) - 3.75)
        self.add_launch(launches, host, device, err, "vector_add on 1 element", "finish()")

    def run(self):
        print("PyOpenCL %s on %s (%s), %s sizes, %d timed runs per case; matmul %s (%s)" % (
            cl.VERSION_TEXT, self.device.name, self.device.platform.name, self.p["mode"], self.p["runs"],
            self.matmul_params, self.matmul_params_source), flush=True)
        return self.run_cases()


def main():
    ap = argument_parser(__doc__, 7)
    ap.add_argument("--device", default="portable", help="part of the device, vendor or platform name (default: portable)")
    ap.add_argument("--duet-json", help="duet bench JSON for this device: the matmul parameters duet used")
    ap.add_argument("--matmul-params", help='matmul parameters, e.g. "BM=64 BN=64 BK=8 TM=4 TN=4 WX=8"')
    ap.add_argument("--cache-mib", type=float, default=0, help="cache to rotate past, MiB (default 32, as duet)")
    return Bench(ap.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
