#!/usr/bin/env python3
"""duet from Python against CuPy and against duet's own C++ figures.

1. Launch overhead: back-to-back launches of a one-element kernel, host wall clock per launch
   including the final finish (as `duet bench`'s launch case), median of several repetitions after
   a warm-up: duet's Python path (kernel(global, local, *args): arguments converted by the kernel's
   declared types) and CuPy's RawKernel, measured in the same run, the same way.
2. matmul and heat called from Python, timed as `duet bench` times them: the calls enqueued back to
   back behind a device copy that keeps the device busy, an event recorded between each two, the
   median of the gaps after a warm-up (rotating as many buffer sets as the C++ benchmark did past
   the L2 cache), set beside the C++ `duet bench` JSON given with --cpp (same sizes): the ratio
   should be within 2%. Events around one call on an idle device would time Python's call overhead
   too, which back-to-back calls hide, in C++ and in Python alike.

Usage: python bench/python_launch.py [--cpp duet-bench.json] [--json out.json] [--quick]
Runs on the device Device() picks (DUET_BACKEND / DUET_DEVICE); CuPy's part needs CuPy and CUDA.
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

import duet

TRIVIAL = """
KERNEL void touch(GLOBAL float* x, const uint n) {
  if (GLOBAL_ID(0) < n) x[0] += 1.0f;
}
"""
TRIVIAL_CUDA = r"""
extern "C" __global__ void touch(float* x, const unsigned int n) {
  if (blockIdx.x * blockDim.x + threadIdx.x < n) x[0] += 1.0f;
}
"""


def per_launch_us(launch, finish, launches, reps):
    for _ in range(min(launches, 200)):  # warm-up
        launch()
    finish()
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(launches):
            launch()
        finish()
        samples.append((time.perf_counter() - start) * 1e6 / launches)
    return statistics.median(samples), min(samples)


def duet_launch(device, launches, reps):
    q = device.queue()
    kernel = device.compile(TRIVIAL).touch
    x = duet.zeros(1, device=device, queue=q)
    return per_launch_us(lambda: kernel(1, 1, x, 1, queue=q), q.finish, launches, reps)


def cupy_launch(launches, reps):
    try:
        import cupy as cp
    except ImportError:
        return None, "CuPy not installed"
    kernel = cp.RawKernel(TRIVIAL_CUDA, "touch")
    x = cp.zeros(1, dtype=cp.float32)
    n = np.uint32(1)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        result = per_launch_us(lambda: kernel((1,), (1,), (x, n)), stream.synchronize, launches, reps)
    return result, ""


def cpp_results(path):
    if not path:
        return {}
    data = json.load(open(path))
    out = {}
    for dev in data.get("devices", []):
        for r in dev.get("results", []):
            if r.get("impl") == "duet" and not r.get("skipped"):
                out[(r["kernel"], r["size"])] = r
    return out


def event_median_ms(q, runs, enqueue):
    enqueue(0)  # warm-up (compiles on first use)
    q.finish()
    # As duet bench's time_runs: a copy of about a millisecond ahead of the marks, so that the device
    # is still busy while Python enqueues the first calls.
    filler = duet.empty((64 << 20,), device=q.device)
    filler_out = duet.empty((64 << 20,), device=q.device)
    q.copy(filler, filler_out)
    marks = [q.record()]
    for i in range(runs):
        enqueue(i)
        marks.append(q.record())
    q.finish()
    return statistics.median(duet.elapsed_ms(a, b) for a, b in zip(marks, marks[1:]))


def matmul_case(device, n, sets, runs):
    q = device.queue()
    rng = np.random.default_rng(n)
    mats = [(duet.asarray(rng.uniform(-1, 1, (n, n)).astype(np.float32), device, queue=q),
             duet.asarray(rng.uniform(-1, 1, (n, n)).astype(np.float32), device, queue=q),
             duet.empty((n, n), device=device)) for _ in range(sets)]
    return event_median_ms(q, runs, lambda i: duet.matmul(mats[i % sets][0], mats[i % sets][1],
                                                          out=mats[i % sets][2], queue=q))


def heat_case(device, n, steps, sets, runs):
    q = device.queue()
    fields = [(duet.zeros((n, n), device=device, queue=q), duet.zeros((n, n), device=device, queue=q))
              for _ in range(sets)]
    for u, _ in fields:
        u[n // 2] = 1.0
    if steps == 1:
        return event_median_ms(q, runs, lambda i: duet.heat_step(fields[i % sets][0], fields[i % sets][1], 0.24, queue=q))
    return event_median_ms(q, runs, lambda i: duet.heat(fields[i % sets][0], steps, 0.24, scratch=fields[i % sets][1], queue=q))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpp", help="duet bench --json output on the same device (matmul, heat, launch)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--quick", action="store_true", help="small sizes and few runs (a dry run)")
    parser.add_argument("--launches", type=int, default=10000)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    if args.quick:
        args.launches, args.reps, args.runs = 500, 3, 3
    device = duet.Device()
    cpp = cpp_results(args.cpp)
    results = {"device": device.id, "name": device.name, "launch": {}, "kernels": []}
    print(f"duet {duet.__version__} from Python on {device.id} ({device.name})")

    duet_us, duet_min = duet_launch(device, args.launches, args.reps)
    results["launch"]["duet_python_us"] = duet_us
    line = f"launch overhead: duet Python {duet_us:.2f} us/launch (min {duet_min:.2f})"
    if device.backend == "cuda":
        cupy, why = cupy_launch(args.launches, args.reps)
        if cupy:
            results["launch"]["cupy_rawkernel_us"] = cupy[0]
            line += f", CuPy RawKernel {cupy[0]:.2f} (min {cupy[1]:.2f}); duet/CuPy = {duet_us / cupy[0]:.3f}"
            line += "  [target: <= CuPy, <= 5 us: " + ("MET" if duet_us <= cupy[0] and duet_us <= 5.0 else "MISSED") + "]"
        else:
            line += f"; CuPy: {why}"
    c = next((r for (k, _), r in cpp.items() if k == "launch"), None)
    if c:
        results["launch"]["duet_cpp_us"] = c["value"]
        line += f"; duet C++ {c['value']:.2f}"
    print(line)

    cases = ([("matmul", "256x256x256", lambda s, r: matmul_case(device, 256, s, r)),
              ("heat", "256x256, 8 steps", lambda s, r: heat_case(device, 256, 8, s, r))] if args.quick else
             [("matmul", f"{n}x{n}x{n}", (lambda n: lambda s, r: matmul_case(device, n, s, r))(n)) for n in (1024, 2048, 4096)] +
             [("heat_step", "8192x8192", lambda s, r: heat_case(device, 8192, 1, s, r)),
              ("heat", "8192x8192, 64 steps", lambda s, r: heat_case(device, 8192, 64, s, r))])
    worst = 0.0
    for kernel, size, run in cases:
        ref = cpp.get((kernel, size))
        sets = int(ref["sets"]) if ref else 1
        runs = int(ref["runs"]) if ref and not args.quick else args.runs
        ms = run(sets, runs)
        entry = {"kernel": kernel, "size": size, "python_ms": ms, "sets": sets, "runs": runs}
        text = f"{kernel:<9} {size:<22} Python {ms:9.4f} ms"
        if ref:
            entry["cpp_ms"] = ref["median_ms"]
            ratio = ms / ref["median_ms"]
            entry["ratio"] = ratio
            worst = max(worst, ratio)
            text += f"   C++ {ref['median_ms']:9.4f} ms   Python/C++ {ratio:.3f}"
        print(text)
        results["kernels"].append(entry)
    if cpp:
        print(f"slowest Python/C++ ratio {worst:.3f}  [target: <= 1.02: {'MET' if worst <= 1.02 else 'MISSED'}]")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
