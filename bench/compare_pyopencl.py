#!/usr/bin/env python3
"""The peer side of duet's benchmark on an OpenCL CPU device (PoCL): the SAME dialect kernels
through PyOpenCL, and numpy's matmul beside duet's.

The kernels are read from the repository (kernels/prelude.h and kernels/*.duet) and assembled the
way duet assembles them (core/src/device.cpp: DUET_OPENCL marker, prelude, defines, #line marks;
build options -cl-std=CL1.2 -cl-kernel-arg-info), then launched with the work-group shapes duet
uses on CPU devices (core/src/shared/*.cpp; mirrored in LAUNCH RULES below, which must follow
changes there). So the difference between the two is what duet adds around a launch, nothing in the
kernel. The matmul tile parameters are read from duet's JSON for the same device (--duet-json),
which records the ones duet::matmul used. The sizes, the rotation of buffer sets past the cache,
the warm-up, the marker-event timing and the median follow bench/cases.cpp (CPU plan), and the
results carry duet's (kernel, size) keys. numpy matmul rows carry role "ceiling".

Usage: /usr/bin/python3 bench/compare_pyopencl.py --json pyopencl.json [--duet-json duet-pocl.json]
       (Debian: apt-get install python3-pyopencl python3-numpy)
"""
import argparse
import datetime
import json
import math
import os
import platform
import socket
import statistics
import sys
import time

import numpy as np
import pyopencl as cl

HEAT_R = np.float32(0.24)
FLOAT_EPS = 2.0 ** -24
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_OPTIONS = ["-cl-std=CL1.2", "-cl-kernel-arg-info"]  # backends/opencl/device.cpp


def count_label(n):
    return "n=2^%d" % (n.bit_length() - 1) if n > 0 and n & (n - 1) == 0 else "n=%d" % n


def plan(smoke, runs, cache_bytes):
    """The CPU plan of bench/plan.cpp (or its smoke plan)."""
    if smoke:
        p = dict(copy_n=1 << 20, vector_n=[1 << 16, 1 << 20], matmul=[64, 128], heat_step=[256], heat_side=256,
                 heat_steps=8, launches=100, launch_reps=3, runs=3, min_sets=2, rotation=0.0, mode="smoke",
                 samples=200)
    else:
        p = dict(copy_n=1 << 25, vector_n=[1 << 20, 1 << 22, 1 << 24], matmul=[256, 512, 1024],
                 heat_step=[1024, 2048], heat_side=2048, heat_steps=16, launches=1000, launch_reps=5, runs=7,
                 min_sets=1, rotation=2.0 * cache_bytes, mode="cpu", samples=500)
        while p["copy_n"] * 4 < 4.0 * cache_bytes:
            p["copy_n"] *= 2
    if runs:
        p["runs"] = runs
    p["heat_runs"] = max(2 if smoke else 3, p["runs"] // 3)
    return p


def summarize(ms):
    ms = sorted(ms)
    return {"median_ms": statistics.median(ms), "min_ms": ms[0], "runs": len(ms)}


def round_up(x, m):
    return (x + m - 1) // m * m


# --- LAUNCH RULES: what core/src/shared/*.cpp does on a CPU device ------------------------------------
def elementwise_launch(n, max_group):
    """core/src/shared/elementwise.cpp, CPU: ITEMS=1, groups of 256, one group per chunk of float4s."""
    items, group = 1, min(256, max(max_group, 4))
    groups = max(1, ((n // 4) + group * items - 1) // (group * items))
    return {"ITEMS": str(items)}, (groups * group,), (group,)


def heat_step_launch(nx, ny, max_group):
    """core/src/shared/heat.cpp, CPU: heat_cells, one cell per work-item, groups of 32 x 8, every step
    its own launch (no temporal blocking on CPUs). Returns the kernel, the sizes and the arguments
    after u and v."""
    gx = min(32, max_group)
    gy = max(min(8, max_group // gx), 1)
    return "heat_cells", (round_up(nx, gx), round_up(ny, gy)), (gx, gy), (np.int32(nx), np.int32(ny), HEAT_R)


def matmul_launch(M, N, K, params):
    """core/src/shared/matmul.cpp: 1D, (BM/TM)*(BN/TN) work-items per group, one group per BM x BN tile;
    the parameters as defines, then VEC_A / VEC_B (float4 rows where K, N are multiples of 4)."""
    threads = (params["BM"] // params["TM"]) * (params["BN"] // params["TN"])
    groups = ((M + params["BM"] - 1) // params["BM"]) * ((N + params["BN"] - 1) // params["BN"])
    # Every parameter duet recorded becomes a define, in its order (BM BN BK TM TN WX PIPELINE ...).
    defines = {k: str(v) for k, v in params.items()}
    defines["VEC_A"] = "0" if K % 4 else "1"
    defines["VEC_B"] = "0" if N % 4 else "1"
    return defines, (groups * threads,), (threads,)


# ------------------------------------------------------------------------------------------------------
def assemble(file, defines):
    """Complete OpenCL source as duet builds it (detail::assemble_source)."""
    with open(os.path.join(REPO, "kernels", "prelude.h")) as f:
        prelude = f.read()
    with open(os.path.join(REPO, "kernels", file + ".duet")) as f:
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


class Bench:
    def __init__(self, args):
        self.args = args
        self.device = self.find_device(args.device)
        self.ctx = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
        self.max_group = self.device.max_work_group_size
        self.cache = args.cache_mib * 1024 * 1024 if args.cache_mib else 32 * 1024 * 1024  # as bench/plan.cpp
        self.p = plan(args.smoke, args.runs, self.cache)
        self.programs = {}
        self.results = []
        self.filler = None
        self.rng = np.random.default_rng(2026)
        self.matmul_params, self.matmul_params_source = self.find_matmul_params()
        self.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

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
        # duet's last-resort built-in entry (core/src/tuning/matmul_params.cpp).
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
        if self.filler is not None:
            src, dst, ms = self.filler
            for _ in range(min(8, int(math.ceil(0.03 * runs * (launches_per_run + 1) / ms)))):
                cl.enqueue_copy(self.queue, dst, src)
        marks = [cl.enqueue_marker(self.queue)]
        for r in range(runs):
            enqueue(r % sets)
            marks.append(cl.enqueue_marker(self.queue))
        marks[-1].wait()
        return summarize([(marks[r + 1].profile.end - marks[r].profile.end) * 1e-6 for r in range(runs)])

    def add(self, kernel, size, timing, work, unit, per_unit, max_error, tolerance, impl="pyopencl", label="",
            role="peer", sets=1, note="", check="", value=None, norm_error=float("nan")):
        if value is None:
            value = work / (timing["median_ms"] * 1e-3) / per_unit if timing["median_ms"] > 0 else float("nan")
        ok = bool(max_error <= tolerance)
        self.results.append(dict(kernel=kernel, size=size, impl=impl, label=label or impl, role=role, sets=sets,
                                 work=work, unit=unit, value=value, max_error=max_error, tolerance=tolerance,
                                 norm_error=norm_error, ok=ok, note=note, check=check, **timing))
        print("  %-9s %-10s %-20s %10.4f ms %12.2f %-9s err %.1e %s" % (
            impl, kernel, size, timing["median_ms"], value, unit, max_error, "OK" if ok else "FAIL"), flush=True)
        self.write()

    def fail(self, impl, kernel, size, error):
        self.results.append(dict(kernel=kernel, size=size, impl=impl, label=impl, role="peer", ok=False,
                                 failure="%s: %s" % (type(error).__name__, error)))
        print("  %-9s %-10s %-20s FAILED: %s" % (impl, kernel, size, error), flush=True)
        self.write()

    def write(self):
        doc = dict(tool="compare_pyopencl", schema=1, date=self.date,
                   commit=os.environ.get("DUET_COMMIT", "unknown"), host=socket.gethostname(),
                   command=" ".join(sys.argv), mode=self.p["mode"],
                   device=dict(name=self.device.name, backend="opencl", platform=self.device.platform.name,
                               vendor=self.device.vendor, driver=self.device.driver_version,
                               compute_units=self.device.max_compute_units, cache_bytes=self.cache),
                   versions=dict(pyopencl=cl.VERSION_TEXT, numpy=np.__version__, python=platform.python_version()),
                   matmul_params=self.matmul_params, matmul_params_source=self.matmul_params_source,
                   results=self.results)
        if self.args.json:
            with open(self.args.json, "w") as f:
                f.write(dumps(doc))

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
        for k in range(sets):
            enqueue(k)
        self.queue.finish()
        t = self.time_runs(self.p["runs"], sets, 1, enqueue)
        worst = 0.0
        for a, b, _, _, dc in s:
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            ref = a64 + b64 if kernel == "vector_add" else a64 * b64
            e = float(np.max(np.abs(self.read(dc, n).astype(np.float64) - ref)))
            worst = e if (math.isnan(e) or e > worst) else worst
        tol = (4.0 if kernel == "vector_add" else 2.0) * FLOAT_EPS
        self.add(kernel, count_label(n), t, 12.0 * n, "GB/s", 1e9, worst, tol, sets=sets,
                 label="duet's %s.duet through PyOpenCL" % kernel, check="%d sets, every element" % sets)

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

    def matmul_case(self, n):
        defines, global_size, local_size = matmul_launch(n, n, n, self.matmul_params)
        k_ = self.kernel("matmul", "matmul", defines)
        hosts = self.matmul_sets(n)
        s = [(self.buffer(A), self.buffer(B), self.buffer(count=n * n)) for A, B in hosts]
        sets = len(s)
        i32 = np.int32(n)
        enqueue = lambda k: k_(self.queue, global_size, local_size, s[k][0], s[k][1], s[k][2], i32, i32, i32)
        for k in range(sets):
            enqueue(k)
        self.queue.finish()
        t = self.time_runs(self.p["runs"], sets, 1, enqueue)
        worst, worst_norm, checked = 0.0, 0.0, 0
        for (A, B), (_, _, dC) in zip(hosts, s):
            e, norm, checked = self.matmul_error(A, B, self.read(dC, n * n).reshape(n, n), n)
            worst, worst_norm = max(worst, e), max(worst_norm, norm)
        size = "%dx%dx%d" % (n, n, n)
        params = " ".join("%s=%d" % kv for kv in self.matmul_params.items())
        self.add("matmul", size, t, 2.0 * n ** 3, "GFLOP/s", 1e9, worst, (n + 2) * FLOAT_EPS, sets=sets,
                 label="duet's matmul.duet through PyOpenCL (%s)" % params, norm_error=worst_norm,
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

    @staticmethod
    def heat_reference(u0, steps):
        u = u0.astype(np.float64)
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

        for k in range(sets):
            enqueue(k)
        self.queue.finish()
        t = self.time_runs(runs, sets, steps, enqueue)
        worst = 0.0
        for k, st in enumerate(s):
            if not single:  # the timed runs stepped on: check one fresh run
                cl.enqueue_copy(self.queue, st[1], st[0])
                enqueue(k)
            got = self.read(st[2] if single else st[1], cells).reshape(side, side)
            e = float(np.max(np.abs(got.astype(np.float64) - self.heat_reference(st[0].reshape(side, side), steps))))
            worst = e if (math.isnan(e) or e > worst) else worst
        tol = 16.0 * FLOAT_EPS * steps
        grid = "%dx%d" % (side, side)
        label = "duet's heat.duet %s through PyOpenCL" % name
        if single:
            self.add("heat_step", grid, t, 8.0 * cells, "GB/s", 1e9, worst, tol, sets=sets, label=label,
                     check="%d sets, every cell" % sets)
        else:
            self.add("heat", "%s, %d steps" % (grid, steps), t, float(cells) * steps, "Gcell/s", 1e9, worst, tol,
                     sets=sets, label=label + ", one step per launch", check="%d sets, every cell" % sets)

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
        t = summarize(host)
        err = abs(float(self.read(dc, 1)[0]) - 3.75)
        self.add("launch", "%d launches" % launches, t, launches, "us/launch", 1.0, err, 0.0,
                 label="vector_add on 1 element", value=t["median_ms"] * 1e3 / launches, check="the one element",
                 note="device time %.2f us per launch; host time includes finish()" % (
                     statistics.median(device) * 1e3 / launches))

    def run(self):
        print("PyOpenCL %s on %s (%s), %s sizes, %d timed runs per case; matmul %s (%s)" % (
            cl.VERSION_TEXT, self.device.name, self.device.platform.name, self.p["mode"], self.p["runs"],
            self.matmul_params, self.matmul_params_source), flush=True)
        kernels = self.args.kernels.split(",") if self.args.kernels else [
            "vector_add", "multiply", "matmul", "heat_step", "heat", "launch"]
        cases = [("pyopencl", "copy", count_label(self.p["copy_n"]), self.copy_case)]
        for kernel in kernels:
            if kernel in ("vector_add", "multiply"):
                cases += [("pyopencl", kernel, count_label(n), (lambda k=kernel, n=n: self.elementwise_case(k, n)))
                          for n in self.p["vector_n"]]
            elif kernel == "matmul":
                for n in self.p["matmul"]:
                    size = "%dx%dx%d" % (n, n, n)
                    cases.append(("pyopencl", "matmul", size, (lambda n=n: self.matmul_case(n))))
                    cases.append(("numpy", "matmul", size, (lambda n=n: self.numpy_matmul_case(n))))
            elif kernel == "heat_step":
                cases += [("pyopencl", "heat_step", "%dx%d" % (s, s), (lambda s=s: self.heat_case(s, 1, self.p["runs"])))
                          for s in self.p["heat_step"]]
            elif kernel == "heat":
                side, steps = self.p["heat_side"], self.p["heat_steps"]
                cases.append(("pyopencl", "heat", "%dx%d, %d steps" % (side, side, steps),
                              lambda: self.heat_case(side, steps, self.p["heat_runs"])))
            elif kernel == "launch":
                cases.append(("pyopencl", "launch", "%d launches" % self.p["launches"], self.launch_case))
        for impl, kernel, size, case in cases:
            try:
                case()
            except Exception as e:  # keep going: one failure should not hide the rest
                self.fail(impl, kernel, size, e)
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
        if isinstance(x, np.integer):
            return int(x)
        if isinstance(x, np.floating):
            return clean(float(x))
        return x
    return json.dumps(clean(doc), indent=2) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--device", default="portable", help="part of the device, vendor or platform name (default: portable)")
    ap.add_argument("--duet-json", help="duet bench JSON for this device: the matmul parameters duet used")
    ap.add_argument("--matmul-params", help='matmul parameters, e.g. "BM=64 BN=64 BK=8 TM=4 TN=4 WX=8"')
    ap.add_argument("--smoke", action="store_true", help="tiny sizes (duet bench --smoke's)")
    ap.add_argument("--runs", type=int, default=0, help="timed runs per case (default 7)")
    ap.add_argument("--cache-mib", type=float, default=0, help="cache to rotate past, MiB (default 32, as duet)")
    ap.add_argument("--kernels", default="", help="comma-separated subset: vector_add,multiply,matmul,heat_step,heat,launch")
    return Bench(ap.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
