"""What the two peer benchmarks share (bench/compare_cupy.py, bench/compare_pyopencl.py): the smoke
plan, the timing statistics, the float64 references, the result rows, the JSON file and the order of
the cases. Both peers must produce rows under duet's (kernel, size) keys with the same fields, so
that bench/report.py can put them beside duet's; keeping that in one place keeps them in step.

Imported by the two scripts from this folder; it needs numpy only (no CuPy, no PyOpenCL), since the
references below work on numpy and CuPy arrays alike.
"""
import argparse
import datetime
import json
import math
import os
import socket
import statistics
import sys

import numpy as np

HEAT_R = np.float32(0.24)  # duet bench's kHeatR
FLOAT_EPS = 2.0 ** -24
KERNELS = ["vector_add", "multiply", "matmul", "heat_step", "heat", "launch"]

# bench/plan.cpp's smoke plan: the same tiny sizes on every device.
SMOKE_PLAN = dict(copy_n=1 << 20, vector_n=[1 << 16, 1 << 20], matmul=[64, 128], heat_step=[256], heat_side=256,
                  heat_steps=8, launches=100, launch_reps=3, runs=3, min_sets=2, rotation=0.0, mode="smoke")


def count_label(n):
    return "n=2^%d" % (n.bit_length() - 1) if n > 0 and n & (n - 1) == 0 else "n=%d" % n


def make_plan(smoke, runs, full_plan, **smoke_extra):
    """The smoke plan (with the peer's own extra keys), else full_plan(); --runs and the heat runs on top."""
    p = dict(SMOKE_PLAN, **smoke_extra) if smoke else full_plan()
    if runs:
        p["runs"] = runs
    p["heat_runs"] = max(2 if smoke else 3, p["runs"] // 3)
    return p


def summarize(ms):
    ms = sorted(ms)
    return {"median_ms": statistics.median(ms), "min_ms": ms[0], "runs": len(ms)}


def worse(e, worst):
    """The larger error, NaN kept: a result never written must not pass as error 0."""
    return e if (math.isnan(e) or e > worst) else worst


def elementwise_error(kernel, a, b, got):
    """max |got - (a + b)| (vector_add) or |got - a * b| (multiply) in float64; numpy or CuPy arrays."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 + b64 if kernel == "vector_add" else a64 * b64
    del a64, b64  # on a GPU: room for the float64 copy of got
    return float(abs(got.astype(np.float64) - ref).max())


def heat_reference(u0, steps):
    """`steps` heat steps in float64 on a 2D grid (numpy or CuPy), boundary cells fixed."""
    u = u0.astype(np.float64)
    r = float(HEAT_R)
    for _ in range(steps):
        v = u.copy()
        c = u[1:-1, 1:-1]
        v[1:-1, 1:-1] = c + r * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] - 4.0 * c)
        u = v
    return u


def heat_error(got, initial, steps):
    return float(abs(got.astype(np.float64) - heat_reference(initial, steps)).max())


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


def argument_parser(doc, default_runs):
    """The options every peer takes; each adds its device's own after them."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes (duet bench --smoke's)")
    ap.add_argument("--runs", type=int, default=0, help="timed runs per case (default %d)" % default_runs)
    ap.add_argument("--kernels", default="", help="comma-separated subset: " + ",".join(KERNELS))
    return ap


class PeerBench:
    """One peer's run over the plan `p`: the cases in duet's order, one row each, the JSON rewritten
    after every row (an interrupted run keeps what it measured). A subclass sets tool and impl, the
    print formats, and provides describe(), finish() (wait for the device), time_runs() and the cases
    (copy_case, elementwise_case, matmul_case, heat_case, launch_case)."""
    tool = impl = None  # "compare_cupy", "cupy"
    impl_label = {}  # the label of an impl's rows where a case gives none (default: the impl)
    row_format = failure_format = None  # %-formats over a row's fields (and verdict, error)

    def __init__(self, args, p):
        self.args, self.p = args, p
        self.results = []
        self.filler = None  # (src, dst, ms): a big copy that keeps the device busy while Python enqueues
        self.rng = np.random.default_rng(2026)
        self.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    def describe(self):
        """The document's fields between "mode" and "results": device, versions, ..."""
        raise NotImplementedError

    def release(self):
        """Called after each case and failure: frees what a case left behind."""

    def warm_up_and_time(self, runs, sets, launches_per_run, enqueue):
        """As bench/cases.cpp: one run on every set first (the warm-up, which also compiles and
        touches every buffer), then `runs` timed runs through the subclass's time_runs."""
        for k in range(sets):
            enqueue(k)
        self.finish()
        return self.time_runs(runs, sets, launches_per_run, enqueue)

    def filler_copies(self, runs, launches_per_run):
        """How many filler copies to enqueue before timed runs so the device is still busy when the
        last run is enqueued (Python enqueues slower than C++: 0.03 ms a launch), at most 8."""
        if self.filler is None:
            return 0
        return min(8, int(math.ceil(0.03 * runs * (launches_per_run + 1) / self.filler[2])))

    # --- rows ------------------------------------------------------------------------------------------
    def add(self, kernel, size, timing, work, unit, per_unit, max_error=float("nan"), tolerance=float("nan"),
            impl=None, label="", role="peer", sets=1, note="", check="", value=None, norm_error=float("nan")):
        """Records a row: value = work per median second / per_unit, unless given."""
        impl = impl or self.impl
        if value is None:
            value = work / (timing["median_ms"] * 1e-3) / per_unit if timing["median_ms"] > 0 else float("nan")
        ok = bool(max_error <= tolerance) if not math.isnan(tolerance) else True
        row = dict(kernel=kernel, size=size, impl=impl, label=label or self.impl_label.get(impl, impl), role=role,
                   sets=sets, work=work, unit=unit, value=value, max_error=max_error, tolerance=tolerance,
                   norm_error=norm_error, ok=ok, note=note, check=check, **timing)
        self.results.append(row)
        print(self.row_format % dict(row, verdict="OK" if ok else "FAIL"), flush=True)
        self.write()

    def fail(self, impl, kernel, size, error):
        row = dict(kernel=kernel, size=size, impl=impl, label=self.impl_label.get(impl, impl), role="peer", ok=False,
                   failure="%s: %s" % (type(error).__name__, error))
        self.results.append(row)
        print(self.failure_format % dict(row, error=error), flush=True)
        self.release()
        self.write()

    def add_elementwise(self, kernel, n, timing, worst, sets, label):
        # a + b lies within 2 (a * b within 1) and is correctly rounded: 2 (1) roundoff units at most.
        tol = (4.0 if kernel == "vector_add" else 2.0) * FLOAT_EPS
        self.add(kernel, count_label(n), timing, 12.0 * n, "GB/s", 1e9, worst, tol, sets=sets, label=label,
                 check="%d sets, every element" % sets)

    def add_heat(self, side, steps, timing, worst, sets, label):
        """A heat_step row (steps == 1: bytes per second) or a heat row (cells per second)."""
        cells = side * side
        tol = 16.0 * FLOAT_EPS * steps
        grid = "%dx%d" % (side, side)
        if steps == 1:
            self.add("heat_step", grid, timing, 8.0 * cells, "GB/s", 1e9, worst, tol, sets=sets, label=label,
                     check="%d sets, every cell" % sets)
        else:
            self.add("heat", "%s, %d steps" % (grid, steps), timing, float(cells) * steps, "Gcell/s", 1e9, worst,
                     tol, sets=sets, label=label + ", one step per launch", check="%d sets, every cell" % sets)

    def add_launch(self, launches, host, device, err, label, waited):
        """The launch row from host times per batch (ms) and device times (ms), `waited` naming the wait."""
        t = summarize(host)
        self.add("launch", "%d launches" % launches, t, launches, "us/launch", 1.0, err, 0.0, label=label,
                 note="device time %.2f us per launch; host time includes %s" % (
                     statistics.median(device) * 1e3 / launches, waited),
                 check="the one element", value=t["median_ms"] * 1e3 / launches)

    def write(self):
        if not self.args.json:
            return
        doc = dict(tool=self.tool, schema=1, date=self.date, commit=os.environ.get("DUET_COMMIT", "unknown"),
                   host=socket.gethostname(), command=" ".join(sys.argv), mode=self.p["mode"])
        doc.update(self.describe())
        doc["results"] = self.results
        with open(self.args.json, "w") as f:
            f.write(dumps(doc))

    # --- the run ---------------------------------------------------------------------------------------
    def matmul_cases(self, n):
        """(impl, case) for one matmul size; a peer with a second implementation adds it."""
        return [(self.impl, lambda: self.matmul_case(n))]

    def cases(self):
        """(impl, kernel, size, case) for the plan, in duet's order: the copy first, it is the filler."""
        p, impl = self.p, self.impl
        cases = [(impl, "copy", count_label(p["copy_n"]), self.copy_case)]
        for kernel in self.args.kernels.split(",") if self.args.kernels else KERNELS:
            if kernel in ("vector_add", "multiply"):
                cases += [(impl, kernel, count_label(n), (lambda k=kernel, n=n: self.elementwise_case(k, n)))
                          for n in p["vector_n"]]
            elif kernel == "matmul":
                for n in p["matmul"]:
                    cases += [(i, "matmul", "%dx%dx%d" % (n, n, n), case) for i, case in self.matmul_cases(n)]
            elif kernel == "heat_step":
                cases += [(impl, "heat_step", "%dx%d" % (s, s), (lambda s=s: self.heat_case(s, 1, p["runs"])))
                          for s in p["heat_step"]]
            elif kernel == "heat":
                side, steps = p["heat_side"], p["heat_steps"]
                cases.append((impl, "heat", "%dx%d, %d steps" % (side, side, steps),
                              lambda: self.heat_case(side, steps, p["heat_runs"])))
            elif kernel == "launch":
                cases.append((impl, "launch", "%d launches" % p["launches"], self.launch_case))
        return cases

    def run_cases(self):
        """Runs every case, a failure recorded as a row; returns the exit status (1 if any row failed)."""
        for impl, kernel, size, case in self.cases():
            try:
                case()
            except Exception as e:  # keep going: one failure should not hide the rest
                self.fail(impl, kernel, size, e)
            self.release()
        failures = sum(1 for r in self.results if not r.get("ok"))
        print("%d rows, %d failed" % (len(self.results), failures), flush=True)
        return 1 if failures else 0
